/**
 * Signed cursors (`CURSOR_SIGNING_KEY`): tokens of CursorPagination and
 * KeysetPagination carry an HMAC bound to the path and the query parameters
 * other than the cursor and page size; tampered, unsigned or foreign tokens
 * answer 404 `Invalid cursor`. Unit level and over HTTP on both transports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImproperlyConfigured, NotFound } from '../../../src/rest/errors.js';
import { RestApi } from '../../../src/rest/api.js';
import { IntegerField } from '../../../src/rest/fields.js';
import { ListAPIView } from '../../../src/rest/generics.js';
import { createSettings } from '../../../src/rest/settings.js';
import { Serializer } from '../../../src/rest/serializers.js';
import { path } from '../../../src/rest/urls/patterns.js';
import { CursorPagination, KeysetPagination, encodeCursorToken } from '../../../src/rest/pagination/index.js';
import { signCursorToken, verifyCursorToken } from '../../../src/rest/pagination/signing.js';
import { HOST, req } from './cases.js';
import { TRANSPORTS, serveApi, call } from '../../support/rest.js';

const KEY = 'k'.repeat(16) + '-a-test-secret-of-32+';
const rows = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, created: i + 1, price: i % 3 }));

test('sign and verify: the token back for the same key and binding; null for anything else', () => {
  const signed = signCursorToken('cD00ODY=', KEY, '/items/?');
  assert.match(signed, /^cD00ODY=\.[A-Za-z0-9_-]{22}$/);
  assert.equal(verifyCursorToken(signed, KEY, '/items/?'), 'cD00ODY=');
  assert.equal(verifyCursorToken(signed, KEY, '/other/?'), null);
  assert.equal(verifyCursorToken(signed, `${KEY}x`, '/items/?'), null);
  assert.equal(verifyCursorToken('cD00ODY=', KEY, '/items/?'), null, 'unsigned');
  assert.equal(verifyCursorToken(signed.replace('cD00', 'cD01'), KEY, '/items/?'), null, 'tampered token');
  const mac = signed.slice(signed.indexOf('.') + 1);
  const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
  assert.equal(verifyCursorToken(`cD00ODY=.${flipped}`, KEY, '/items/?'), null, 'tampered MAC');
  assert.equal(verifyCursorToken('cD00ODY=.', KEY, '/items/?'), null, 'empty MAC');
});

test('CURSOR_SIGNING_KEY: at least 32 characters; the error never shows the key', () => {
  assert.throws(
    () => createSettings({ CURSOR_SIGNING_KEY: 'short-secret' }),
    (e: unknown) => e instanceof ImproperlyConfigured && !e.message.includes('short-secret') && /32/.test(e.message),
  );
  assert.throws(() => createSettings({ CURSOR_SIGNING_KEY: 42 as never }), ImproperlyConfigured);
  assert.equal(createSettings().CURSOR_SIGNING_KEY, null);
});

for (const Style of [CursorPagination, KeysetPagination]) {
  test(`${Style.name} with a signing key: signed links walk; unsigned, tampered and foreign tokens are 404`, async () => {
    const make = () => {
      const p = new Style();
      p.pageSize = 5;
      p.ordering = 'price';
      p.pageSizeQueryParam = 'page_size';
      return p;
    };
    const signed = { CURSOR_SIGNING_KEY: KEY };
    const seen: number[] = [];
    let url: string | null = '/items/?category=a&x=1';
    let second = '';
    for (let i = 0; url !== null && i < 10; i++) {
      const p = make();
      const page = await p.paginateQueryset(rows, req(url, signed));
      seen.push(...page!.map((r) => r.id));
      const next = p.getNextLink();
      if (next !== null) {
        const token = new URL(next).searchParams.get('cursor') ?? '';
        assert.match(token, /\.[A-Za-z0-9_-]{22}$/, 'links carry signed tokens');
        assert.equal(p.getNextCursor(), token, 'the raw cursor is the signed token too');
        if (i === 0) second = token;
      }
      url = next === null ? null : next.slice(HOST.length);
    }
    assert.equal(new Set(seen).size, 25);
    const bad = async (target: string) =>
      assert.rejects(
        make().paginateQueryset(rows, req(target, signed)),
        (e: unknown) => e instanceof NotFound && e.message === 'Invalid cursor',
        target,
      );
    const unsigned = second.slice(0, second.lastIndexOf('.'));
    const enc = encodeURIComponent;
    // The same token still works with the parameters in another order and another page size.
    await make().paginateQueryset(rows, req(`/items/?x=1&page_size=3&cursor=${enc(second)}&category=a`, signed));
    await bad(`/items/?category=a&x=1&cursor=${enc(unsigned)}`);
    await bad(`/items/?category=b&x=1&cursor=${enc(second)}`); // other filters
    await bad(`/other/?category=a&x=1&cursor=${enc(second)}`); // another view
    await bad(`/items/?category=a&x=1&cursor=${enc(`${unsigned}A${second.slice(second.lastIndexOf('.'))}`)}`);
    await bad(`/items/?category=a&x=1&cursor=${enc(encodeCursorToken({ offset: 5, reverse: false, position: null }))}`);
    // Without a key, signed tokens are not tokens of the unsigned format either.
    await assert.rejects(make().paginateQueryset(rows, req(`/items/?category=a&x=1&cursor=${enc(second)}`)), NotFound);
  });
}

test('signed cursors over HTTP on both transports: walk, then a tampered token is 404 {"detail": "Invalid cursor"}', async () => {
  class IdSerializer extends Serializer {
    static override fields = { id: new IntegerField({ readOnly: true }) };
  }
  class Paged extends KeysetPagination {
    override pageSize = 10;
    override ordering = 'price';
  }
  class Items extends ListAPIView {
    override queryset = rows;
    override serializerClass = IdSerializer;
    override paginationClass = Paged;
  }
  const api = new RestApi({ settings: { CURSOR_SIGNING_KEY: KEY }, urlpatterns: [path('items/', Items.asView())] });
  for (const transport of TRANSPORTS) {
    const s = await serveApi(api, transport);
    try {
      let url: string | null = `${s.origin}/items/`;
      const ids: number[] = [];
      let last = '';
      while (url !== null && ids.length < 100) {
        const r = await call(url);
        assert.equal(r.status, 200);
        const body = r.body as { next: string | null; results: { id: number }[] };
        ids.push(...body.results.map((x) => x.id));
        if (body.next !== null) last = body.next;
        url = body.next;
      }
      assert.equal(new Set(ids).size, rows.length);
      const tampered = last.replace(/cursor=([A-Za-z0-9_-])/, (_m, c: string) => `cursor=${c === 'e' ? 'f' : 'e'}`);
      const r = await call(tampered);
      assert.deepEqual([r.status, r.body], [404, { detail: 'Invalid cursor' }]);
    } finally {
      await s.close();
    }
  }
});

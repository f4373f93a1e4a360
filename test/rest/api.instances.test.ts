/**
 * Two RestApi instances in one process share nothing: each reverses
 * against its own URL configuration (a route of the same name resolves to
 * each API's own path, over HTTP on both transports and called directly)
 * and logs internal errors to its own logger.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RestApi } from '../../src/rest/api.js';
import { ImproperlyConfigured } from '../../src/rest/errors.js';
import { IntegerField } from '../../src/rest/fields.js';
import { ListAPIView } from '../../src/rest/generics.js';
import { HyperlinkedIdentityField } from '../../src/rest/relations.js';
import type { Request } from '../../src/rest/request.js';
import { Response } from '../../src/rest/response.js';
import { reverse } from '../../src/rest/reverse.js';
import { Serializer } from '../../src/rest/serializers.js';
import { path } from '../../src/rest/urls/patterns.js';
import { NUMBERS_TEMPLATE, PageNumberPagination } from '../../src/rest/pagination/index.js';
import { APIView } from '../../src/rest/views.js';
import type { RawRequest } from '../../src/rest/request.js';
import { TRANSPORTS, serveApi, call, type Served } from '../support/rest.js';

class Where extends APIView {
  override get(request: Request) {
    return new Response({
      self: reverse('item-list', { request }),
      detail: request.api?.reverse('item-detail', { kwargs: { pk: 7 } }) ?? null,
    });
  }
}

class ItemSerializer extends Serializer {
  static override fields = {
    url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
    id: new IntegerField({ readOnly: true }),
  };
}

class Items extends ListAPIView {
  override queryset = [{ id: 1 }, { id: 2 }];
  override serializerClass = ItemSerializer;
}

class Fails extends APIView {
  override get(): Response {
    throw new Error('boom');
  }
}

interface Logged {
  obj: Record<string, unknown>;
  msg: string | undefined;
}

/** A pino-shaped logger that records what it is given. */
function recorder(): {
  logger: {
    error(obj: Record<string, unknown>, msg?: string): void;
    warn(obj: Record<string, unknown>, msg?: string): void;
  };
  errors: Logged[];
} {
  const errors: Logged[] = [];
  return { errors, logger: { error: (obj, msg) => void errors.push({ obj, msg }), warn: () => {} } };
}

/** One API whose routes all live under `prefix`, every route named the same as in the other API. */
function makeApi(prefix: string, logger: ReturnType<typeof recorder>['logger']): RestApi {
  return new RestApi({
    logger,
    urlpatterns: [
      path(`${prefix}/where/`, Where.asView(), { name: 'where' }),
      path(`${prefix}/items/`, Items.asView(), { name: 'item-list' }),
      path(`${prefix}/items/<int:pk>/`, Items.asView(), { name: 'item-detail' }),
      path(`${prefix}/fails/`, Fails.asView(), { name: 'fails' }),
    ],
  });
}

const a = recorder();
const b = recorder();
const apiA = makeApi('alpha', a.logger);
const apiB = makeApi('beta', b.logger);

function raw(target: string): RawRequest {
  return { method: 'GET', target, headers: [['Host', 'testserver']], body: null, secure: false };
}

test('called directly: each API reverses its own routes; without a request or urlconf reverse() has nothing to go on', async () => {
  assert.equal(apiA.reverse('item-list'), '/alpha/items/');
  assert.equal(apiB.reverse('item-list'), '/beta/items/');
  assert.equal(apiA.reverse('item-detail', { kwargs: { pk: 3 } }), '/alpha/items/3/');
  assert.equal(reverse('item-list', { urlconf: apiB.urlconf }), '/beta/items/');
  assert.equal(apiA.reverse('item-list', { urlconf: apiB.urlconf }), '/beta/items/', 'an explicit urlconf wins');
  assert.throws(() => reverse('item-list'), ImproperlyConfigured, 'no process-wide default URL configuration');
  // A third API built later changes nothing for the first two.
  makeApi('gamma', recorder().logger);
  assert.equal(apiA.reverse('item-list'), '/alpha/items/');

  const outA = await apiA.handle(raw('/alpha/where/'));
  assert.deepEqual(JSON.parse(outA.body.toString()), {
    self: 'http://testserver/alpha/items/',
    detail: '/alpha/items/7/',
  });
  const outB = await apiB.handle(raw('/beta/where/'));
  assert.deepEqual(JSON.parse(outB.body.toString()), {
    self: 'http://testserver/beta/items/',
    detail: '/beta/items/7/',
  });
  assert.equal((await apiA.handle(raw('/beta/where/'))).status, 404, "one API does not serve the other's routes");
});

test('called directly: each API logs its view errors to its own logger, once, with method and path', async () => {
  const [na, nb] = [a.errors.length, b.errors.length];
  assert.equal((await apiA.handle(raw('/alpha/fails/'))).status, 500);
  assert.equal(a.errors.length, na + 1);
  assert.equal(b.errors.length, nb);
  const entry = a.errors[na] as Logged;
  assert.ok(entry.obj.err instanceof Error && entry.obj.err.message === 'boom');
  assert.equal(entry.obj.method, 'GET');
  assert.equal(entry.obj.path, '/alpha/fails/');
  assert.equal(typeof entry.msg, 'string');
  assert.equal((await apiB.handle(raw('/beta/fails/'))).status, 500);
  assert.equal(a.errors.length, na + 1);
  assert.equal(b.errors.length, nb + 1);
  assert.equal((b.errors[nb] as Logged).obj.path, '/beta/fails/');
});

test('without a logger option: one line on stderr (plus the stack)', async () => {
  const api = new RestApi({ urlpatterns: [path('fails/', Fails.asView(), { name: 'fails' })] });
  const written: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept only to be put back on process.stderr, never called
  const original = process.stderr.write;
  process.stderr.write = (chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  };
  try {
    assert.equal((await api.handle(raw('/fails/'))).status, 500);
  } finally {
    process.stderr.write = original;
  }
  assert.equal(written.length, 1);
  const [first] = (written[0] as string).split('\n');
  assert.match(first as string, /^eventide error: .*\(method="GET" path="\/fails\/"\)$/);
  assert.match(written[0] as string, /Error: boom/);
});

for (const transport of TRANSPORTS) {
  describe(`two APIs served at once over ${transport} on 127.0.0.1`, () => {
    let sa: Served;
    let sb: Served;
    before(async () => {
      sa = await serveApi(apiA, transport);
      sb = await serveApi(apiB, transport);
    });
    after(async () => {
      await sa.close();
      await sb.close();
    });

    test('reverse() with the request and hyperlinked fields follow the API that serves the request', async () => {
      const wa = await call(`${sa.origin}/alpha/where/`);
      assert.deepEqual(wa.body, { self: `${sa.origin}/alpha/items/`, detail: '/alpha/items/7/' });
      const wb = await call(`${sb.origin}/beta/where/`);
      assert.deepEqual(wb.body, { self: `${sb.origin}/beta/items/`, detail: '/beta/items/7/' });
      const la = await call(`${sa.origin}/alpha/items/`);
      assert.deepEqual(la.body, [
        { url: `${sa.origin}/alpha/items/1/`, id: 1 },
        { url: `${sa.origin}/alpha/items/2/`, id: 2 },
      ]);
      const lb = await call(`${sb.origin}/beta/items/`);
      assert.deepEqual(lb.body, [
        { url: `${sb.origin}/beta/items/1/`, id: 1 },
        { url: `${sb.origin}/beta/items/2/`, id: 2 },
      ]);
      assert.equal((await call(`${sa.origin}/beta/items/`)).status, 404);
    });

    test('a failing view is logged by its own API only', async () => {
      const [na, nb] = [a.errors.length, b.errors.length];
      const r = await call(`${sb.origin}/beta/fails/`);
      assert.equal(r.status, 500);
      assert.deepEqual(r.body, { detail: 'A server error occurred.' });
      assert.equal(b.errors.length, nb + 1);
      assert.equal(a.errors.length, na);
      assert.equal((b.errors[nb] as Logged).obj.path, '/beta/fails/');
      assert.equal((await call(`${sa.origin}/alpha/fails/`)).status, 500);
      assert.equal(a.errors.length, na + 1);
      assert.equal(b.errors.length, nb + 1);
    });
  });
}

test('each API renders the browsable pagination controls with its own PAGINATION_TEMPLATES', async () => {
  class Paged extends ListAPIView {
    override queryset = Array.from({ length: 30 }, (_, i) => ({ id: i + 1 }));
    override serializerClass = ItemSerializer;
    override paginationClass = class extends PageNumberPagination {
      override pageSize = 10;
    };
  }
  const build = (label: string) =>
    new RestApi({
      settings: { PAGINATION_TEMPLATES: { [NUMBERS_TEMPLATE]: (c) => `<p class="mine">${label} ${c.next_url}</p>` } },
      urlpatterns: [
        path('paged/', Paged.asView(), { name: 'paged' }),
        path('items/<int:pk>/', Items.asView(), { name: 'item-detail' }),
      ],
    });
  const plain = new RestApi({
    urlpatterns: [
      path('paged/', Paged.asView(), { name: 'paged' }),
      path('items/<int:pk>/', Items.asView(), { name: 'item-detail' }),
    ],
  });
  const html = async (api: RestApi) =>
    (await api.handle({ ...raw('/paged/?format=api'), headers: [['Host', 'testserver']] })).body.toString();
  assert.match(await html(build('one')), /<p class="mine">one http:\/\/testserver\/paged\/\?format=api&page=2<\/p>/);
  assert.match(await html(build('two')), /<p class="mine">two /);
  assert.match(await html(plain), /<ul class="pagination">/, 'an API without the setting keeps the built-in template');
});

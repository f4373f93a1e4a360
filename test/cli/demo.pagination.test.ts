/**
 * The demo's pagination beyond DRF over real HTTP on both transports, on
 * SQLite: keyset cursors (`/cursor-keyset/items/`, ordering price with id as
 * tie-breaker) walked both ways with rows inserted and deleted between
 * pages; page numbers without a count (`/page-nocount/items/`); the
 * MAX_PAGE_SIZE / MAX_LIMIT caps of the settings; and DRF's W001 warning.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { openDemoDatabase, demoItem, type DemoDatabaseHandle, type Item } from '../../src/cli/demo-data.js';
import { buildDemoApi } from '../../src/cli/demo.js';
import { RestApi } from '../../src/rest/api.js';
import { IntegerField } from '../../src/rest/fields.js';
import { ListAPIView } from '../../src/rest/generics.js';
import { Serializer } from '../../src/rest/serializers.js';
import { LimitOffsetPagination, PageNumberPagination } from '../../src/rest/pagination/index.js';
import { path } from '../../src/rest/urls/patterns.js';
import { formatSqliteDatetime } from '../../src/sql/sqlite.js';
import { TRANSPORTS, serveApi, call, type Served } from '../support/rest.js';

interface Page {
  count?: number;
  next: string | null;
  previous: string | null;
  results: Item[];
}

const ROWS = 1000;

for (const transport of TRANSPORTS) {
  describe(`demo pagination beyond DRF over ${transport} (SQLite)`, () => {
    let demo: DemoDatabaseHandle;
    let s: Served;
    before(async () => {
      demo = await openDemoDatabase(':memory:', { rows: ROWS });
      s = await serveApi(buildDemoApi(demo.items()), transport);
    });
    after(async () => {
      await s.close();
      await demo.close();
    });

    const get = async (url: string): Promise<{ status: number; body: Page }> => {
      const r = await call(url.startsWith('http') ? url : `${s.origin}${url}`);
      return { status: r.status, body: r.body as Page };
    };
    const byPriceThenId = (a: Item, b: Item) => a.price - b.price || a.id - b.id;

    test('keyset: forward and back over 1,000 rows of 500 prices, every row once, in (price, id) order', async () => {
      const want = Array.from({ length: ROWS }, (_, i) => demoItem(i + 1))
        .sort(byPriceThenId)
        .map((r) => r.id);
      const forward: number[] = [];
      let url: string | null = '/cursor-keyset/items/?page_size=70';
      let last = url;
      for (let i = 0; url !== null && i < 30; i++) {
        last = url;
        const { status, body } = await get(url);
        assert.equal(status, 200);
        assert.deepEqual(Object.keys(body), ['next', 'previous', 'results']);
        forward.push(...body.results.map((r) => r.id));
        url = body.next;
      }
      assert.deepEqual(forward, want);
      const back: number[][] = [];
      url = last;
      for (let i = 0; url !== null && i < 30; i++) {
        const { body } = await get(url);
        back.unshift(body.results.map((r) => r.id));
        url = body.previous;
      }
      assert.deepEqual(back.flat(), want);
    });

    test('keyset: rows inserted and deleted between pages neither repeat nor skip a row that stays', async (t) => {
      const db = demo.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const restore = demo.items().all();
      t.after(async () => {
        // Put the table back as it was for the next tests.
        await sql`delete from item`.execute(demo.db);
        for (const r of await restore)
          await db
            .insertInto('item')
            .values({ ...r, created: formatSqliteDatetime(r.created) })
            .execute();
      });
      const seen: number[] = [];
      let url: string | null = '/cursor-keyset/items/?page_size=100';
      const inserted: number[] = [];
      const deleted: number[] = [];
      for (let i = 0; url !== null && i < 40; i++) {
        const { body } = await get(url);
        seen.push(...body.results.map((r) => r.id));
        url = body.next;
        // Between pages: a new row tying a price already passed and one ahead, and a deleted row ahead.
        for (const [k, price] of [body.results[0]?.price ?? 0, 499].entries()) {
          const row = { ...demoItem(ROWS + 1 + i * 2 + k), price };
          await db
            .insertInto('item')
            .values({ ...row, created: formatSqliteDatetime(row.created) })
            .execute();
          inserted.push(row.id);
        }
        const victim = 900 - i;
        await db.deleteFrom('item').where('id', '=', victim).execute();
        deleted.push(victim);
      }
      assert.equal(new Set(seen).size, seen.length, 'no row twice');
      const stays = Array.from({ length: ROWS }, (_, i) => i + 1).filter((id) => !deleted.includes(id));
      const set = new Set(seen);
      assert.deepEqual(
        stays.filter((id) => !set.has(id)),
        [],
        'no row that stays is skipped',
      );
    });

    test('keyset: a bad cursor is 404 Invalid cursor; page_size is capped by MAX_PAGE_SIZE (100)', async () => {
      for (const bad of ['cD00ODY%3D', 'x', 'eyJrIjpbIngiLCIxIl19']) {
        const r = await get(`/cursor-keyset/items/?cursor=${bad}`);
        assert.deepEqual([r.status, r.body], [404, { detail: 'Invalid cursor' }], bad);
      }
      const big = await get('/cursor-keyset/items/?page_size=1000');
      assert.equal(big.body.results.length, 100);
    });

    test('Relay connection: first/after forward and last/before back over 1,000 rows, every row once; 400 and 404 answers', async () => {
      type Conn = {
        edges: { cursor: string; node: Item }[];
        pageInfo: {
          hasNextPage: boolean;
          hasPreviousPage: boolean;
          startCursor: string | null;
          endCursor: string | null;
        };
      };
      const conn = async (q: string) => (await call(`${s.origin}/cursor-relay/items/${q}`)).body as Conn;
      const want = Array.from({ length: ROWS }, (_, i) => demoItem(i + 1))
        .sort(byPriceThenId)
        .map((r) => r.id);
      const forward: number[] = [];
      let c = await conn('?first=100');
      for (let i = 0; i < 20; i++) {
        forward.push(...c.edges.map((e) => e.node.id));
        if (!c.pageInfo.hasNextPage) break;
        c = await conn(`?first=100&after=${c.pageInfo.endCursor}`);
      }
      assert.deepEqual(forward, want);
      const back: number[][] = [];
      c = await conn('?last=64');
      for (let i = 0; i < 30; i++) {
        back.unshift(c.edges.map((e) => e.node.id));
        if (!c.pageInfo.hasPreviousPage) break;
        c = await conn(`?last=64&before=${c.pageInfo.startCursor}`);
      }
      assert.deepEqual(back.flat(), want);
      assert.equal((await conn('?first=1000')).edges.length, 100, 'MAX_PAGE_SIZE');
      const both = await call(`${s.origin}/cursor-relay/items/?first=2&last=2`);
      assert.deepEqual([both.status, both.body], [400, { last: ['Give "first" or "last", not both.'] }]);
      const bad = await call(`${s.origin}/cursor-relay/items/?after=cD00ODY%3D`);
      assert.deepEqual([bad.status, bad.body], [404, { detail: 'Invalid cursor' }]);
    });

    test('page numbers without a count: no count, next by one extra row, ?page=last and past the end 404', async () => {
      const p2 = await get('/page-nocount/items/?page=2');
      assert.deepEqual(Object.keys(p2.body), ['next', 'previous', 'results']);
      assert.deepEqual(
        p2.body.results.map((r) => r.id),
        [11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
      );
      assert.equal(p2.body.next, `${s.origin}/page-nocount/items/?page=3`);
      assert.equal(p2.body.previous, `${s.origin}/page-nocount/items/`);
      const lastPage = await get('/page-nocount/items/?page=100');
      assert.equal(lastPage.body.next, null);
      for (const bad of ['last', '101', '0', 'x']) {
        const r = await get(`/page-nocount/items/?page=${bad}`);
        assert.deepEqual([r.status, r.body], [404, { detail: 'Invalid page.' }], bad);
      }
    });
  });
}

test('MAX_PAGE_SIZE and MAX_LIMIT cap classes without a cap of their own (a class cap wins), on both transports', async () => {
  const rows = Array.from({ length: 300 }, (_, i) => ({ id: i + 1 }));
  class IdSerializer extends Serializer {
    static override fields = { id: new IntegerField({ readOnly: true }) };
  }
  class Pages extends PageNumberPagination {
    override pageSize = 5;
    override pageSizeQueryParam = 'page_size';
  }
  class OwnCap extends Pages {
    override maxPageSize = 7;
  }
  class Limits extends LimitOffsetPagination {
    override defaultLimit = 5;
  }
  const view = (p: typeof Pages | typeof Limits) =>
    class extends ListAPIView {
      override queryset = rows;
      override serializerClass = IdSerializer;
      override paginationClass = p;
    }.asView();
  const api = new RestApi({
    settings: { MAX_PAGE_SIZE: 50, MAX_LIMIT: 20 },
    urlpatterns: [path('pages/', view(Pages)), path('own/', view(OwnCap)), path('limits/', view(Limits))],
  });
  for (const transport of TRANSPORTS) {
    const s = await serveApi(api, transport);
    try {
      const n = async (p: string) => {
        const r = await call(`${s.origin}${p}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return (r.body as { results: unknown[] }).results.length;
      };
      assert.equal(await n('/pages/?page_size=1000'), 50);
      assert.equal(await n('/pages/?page_size=30'), 30);
      assert.equal(await n('/own/?page_size=1000'), 7);
      assert.equal(await n('/limits/?limit=1000'), 20);
      assert.equal(await n('/limits/'), 5);
    } finally {
      await s.close();
    }
  }
});

test("PAGE_SIZE without DEFAULT_PAGINATION_CLASS: the API logs DRF's W001 once to its logger, unless silenced", () => {
  const warned: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const logger = {
    error: () => {},
    warn: (obj: Record<string, unknown>, msg?: string) => void warned.push({ obj, msg }),
  };
  new RestApi({ settings: { PAGE_SIZE: 10 }, urlpatterns: [], logger });
  assert.equal(warned.length, 1);
  assert.equal(warned[0]?.obj.check, 'W001');
  assert.match(warned[0]?.msg ?? '', /DEFAULT_PAGINATION_CLASS/);
  new RestApi({ settings: { PAGE_SIZE: 10, SILENCED_CHECKS: ['W001'] }, urlpatterns: [], logger });
  assert.equal(warned.length, 1);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request } from '../../../src/rest/request.js';
import { createSettings } from '../../../src/rest/settings.js';
import {
  CursorPagination,
  EnvelopePagination,
  LimitOffsetPagination,
  LinkHeaderPagination,
  maxPageSizeRequested,
  PageNumberPagination,
  PaginateByMaxCursorPagination,
  PaginateByMaxPagination,
  type BasePagination,
} from '../../../src/rest/pagination/index.js';

function req(target: string): Request {
  return new Request(
    { method: 'GET', target, headers: [['Host', 'testserver']], body: null, secure: false },
    createSettings(),
  );
}
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1, created: i + 1 }));

class Linked extends LinkHeaderPagination {
  override pageSize = 5;
}

async function respond(p: BasePagination, data: object[], target: string) {
  const page = await p.paginateQueryset(data, req(target));
  return p.getPaginatedResponse(page!.map((r) => (r as { id: number }).id));
}

test('Link header: next, prev, then first and last (RFC 8288)', async () => {
  const r = await respond(new Linked(), rows(20), '/items/?page=2');
  assert.equal(
    r.getHeader('Link'),
    '<http://testserver/items/?page=3>; rel="next", <http://testserver/items/>; rel="prev", <http://testserver/items/>; rel="first", <http://testserver/items/?page=4>; rel="last"',
  );
  assert.deepEqual(r.data, [6, 7, 8, 9, 10]);
  assert.equal(r.status, 200);
});

test('Link header: only next', async () => {
  const r = await respond(new Linked(), rows(20), '/items/');
  assert.equal(
    r.getHeader('Link'),
    '<http://testserver/items/?page=2>; rel="next", <http://testserver/items/>; rel="first", <http://testserver/items/?page=4>; rel="last"',
  );
  assert.deepEqual(r.data, [1, 2, 3, 4, 5]);
});

test('Link header: only previous', async () => {
  const r = await respond(new Linked(), rows(20), '/items/?page=last');
  assert.equal(
    r.getHeader('Link'),
    '<http://testserver/items/?page=3>; rel="prev", <http://testserver/items/>; rel="first", <http://testserver/items/?page=4>; rel="last"',
  );
  assert.deepEqual(r.data, [16, 17, 18, 19, 20]);
});

test('Link header: X-Total-Count when asked for, even on a single page; no last without a count', async () => {
  class Counted extends Linked {
    override totalCountHeader = 'X-Total-Count';
  }
  const r = await respond(new Counted(), rows(20), '/items/?page=2&q=1');
  assert.equal(r.getHeader('X-Total-Count'), '20');
  assert.match(r.getHeader('Link') ?? '', /<http:\/\/testserver\/items\/\?page=4&q=1>; rel="last"$/);
  const one = await respond(new Counted(), rows(3), '/items/');
  assert.equal(one.getHeader('X-Total-Count'), '3');
  assert.equal(one.hasHeader('Link'), false);
  assert.equal((await respond(new Linked(), rows(20), '/items/')).hasHeader('X-Total-Count'), false);
  class Uncounted extends Counted {
    override includeCount = false;
  }
  const u = await respond(new Uncounted(), rows(20), '/items/?page=2');
  assert.equal(
    u.getHeader('Link'),
    '<http://testserver/items/?page=3>; rel="next", <http://testserver/items/>; rel="prev", <http://testserver/items/>; rel="first"',
  );
  assert.equal(u.hasHeader('X-Total-Count'), false);
});

test('Link header: no links, no header', async () => {
  const r = await respond(new Linked(), rows(3), '/items/');
  assert.equal(r.hasHeader('Link'), false);
  assert.deepEqual(r.headerEntries(), []);
  assert.deepEqual(r.data, [1, 2, 3]);
  assert.deepEqual(new Linked().getPaginatedResponseSchema({ type: 'array' }), { type: 'array' });
});

test('standard styles send no Link header', async () => {
  const styles: BasePagination[] = [
    Object.assign(new PageNumberPagination(), { pageSize: 5 }),
    Object.assign(new LimitOffsetPagination(), { defaultLimit: 5 }),
    Object.assign(new CursorPagination(), { pageSize: 5, ordering: 'created' }),
  ];
  for (const p of styles) {
    const r = await respond(p, rows(20), '/items/?page=2&offset=5');
    assert.deepEqual(r.headerEntries(), []);
  }
});

test('envelope: {links: {next, previous}, count, results}', async () => {
  const p = new (class extends EnvelopePagination {
    override pageSize = 5;
  })();
  const r = await respond(p, rows(12), '/items/?page=2');
  assert.equal(
    JSON.stringify(r.data),
    JSON.stringify({
      links: { next: 'http://testserver/items/?page=3', previous: 'http://testserver/items/' },
      count: 12,
      results: [6, 7, 8, 9, 10],
    }),
  );
  const schema = p.getPaginatedResponseSchema({ type: 'array' }, { url: 'http://testserver/items/' });
  assert.deepEqual(schema, {
    type: 'object',
    required: ['links', 'count', 'results'],
    properties: {
      links: {
        type: 'object',
        required: ['next', 'previous'],
        properties: {
          next: { type: ['string', 'null'], format: 'uri', examples: ['http://testserver/items/?page=4'] },
          previous: { type: ['string', 'null'], format: 'uri', examples: ['http://testserver/items/?page=2'] },
        },
      },
      count: { type: 'integer', minimum: 0, examples: [123] },
      results: { type: 'array' },
    },
  });
});

test('page_size=max gives maxPageSize (page number and cursor)', async () => {
  class Pages extends PaginateByMaxPagination {
    override pageSize = 5;
    override pageSizeQueryParam = 'page_size';
    override maxPageSize = 8;
  }
  class Feed extends PaginateByMaxCursorPagination {
    override pageSize = 5;
    override pageSizeQueryParam = 'page_size';
    override maxPageSize = 8;
    override ordering = 'created';
  }
  for (const P of [Pages, Feed]) {
    const p = new P();
    assert.equal((await p.paginateQueryset(rows(20), req('/?page_size=max')))!.length, 8, P.name);
    assert.match(p.getNextLink()!, /page_size=max/);
    assert.equal((await p.paginateQueryset(rows(20), req('/?page_size=3')))!.length, 3);
    assert.equal((await p.paginateQueryset(rows(20), req('/?page_size=MAX')))!.length, 5);
    assert.equal((await p.paginateQueryset(rows(20), req('/')))!.length, 5);
  }
  // Without a maximum (or a page-size parameter) `max` means nothing.
  const noMax = Object.assign(new PaginateByMaxPagination(), { pageSize: 5, pageSizeQueryParam: 'page_size' });
  assert.equal((await noMax.paginateQueryset(rows(20), req('/?page_size=max')))!.length, 5);
  assert.equal(maxPageSizeRequested(req('/?page_size=max'), { pageSizeQueryParam: null, maxPageSize: 8 }), null);
  assert.equal(maxPageSizeRequested(req('/?size=max'), { pageSizeQueryParam: 'size', maxPageSize: 8 }), 8);
});

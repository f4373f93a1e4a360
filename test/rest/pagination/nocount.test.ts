/**
 * Page-number and limit/offset pagination without a count
 * (`includeCount = false`): one extra row says whether a next page exists,
 * the body has no `count`, nothing counts the list, and the HTML controls
 * end at the next page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ArrayQueryset } from '../../../src/rest/data/array.js';
import type { Queryset } from '../../../src/rest/data/source.js';
import { NotFound } from '../../../src/rest/errors.js';
import { LimitOffsetPagination, PageNumberPagination } from '../../../src/rest/pagination/index.js';
import { HOST, req } from './cases.js';

interface R {
  id: number;
}

/** A queryset over `n` rows whose count() fails: the uncounted styles must never call it. */
function uncountable(n: number): Queryset<R> {
  const qs = new ArrayQueryset<R>(
    Array.from({ length: n }, (_, i) => ({ id: i + 1 })),
    { fields: { id: { type: 'integer', unique: true } } },
  );
  return new Proxy(qs, {
    get(target, prop, receiver) {
      if (prop === 'count' || prop === 'estimateCount')
        return () => Promise.reject(new Error('counted an uncounted list'));
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function pages(): PageNumberPagination {
  const p = new PageNumberPagination();
  p.pageSize = 10;
  p.includeCount = false;
  return p;
}

test('page number without a count: {next, previous, results}, links by one extra row, no count query', async () => {
  const qs = uncountable(25);
  const p = pages();
  let rows = await p.paginateQueryset(qs, req('/items/'));
  assert.deepEqual(
    rows!.map((r) => r.id),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  assert.deepEqual(Object.keys(p.getPaginatedResponse([]).data as object), ['next', 'previous', 'results']);
  assert.equal(p.getNextLink(), `${HOST}/items/?page=2`);
  assert.equal(p.getPreviousLink(), null);
  assert.equal(p.displayPageControls, true);
  rows = await p.paginateQueryset(qs, req('/items/?page=3'));
  assert.deepEqual(
    rows!.map((r) => r.id),
    [21, 22, 23, 24, 25],
  );
  assert.equal(p.getNextLink(), null);
  assert.equal(p.getPreviousLink(), `${HOST}/items/?page=2`);
  // The HTML controls end at the pages known: here the current one is the last known.
  assert.deepEqual(
    p.getHtmlContext().page_links?.map((l) => l.number),
    [1, 2, 3],
  );
  await p.paginateQueryset(qs, req('/items/?page=2'));
  assert.equal(p.getPreviousLink(), `${HOST}/items/`);
  assert.deepEqual(
    p.getHtmlContext().page_links?.map((l) => l.number),
    [1, 2, 3],
  );
  // Exactly a page of rows: no next page.
  await p.paginateQueryset(uncountable(20), req('/items/?page=2'));
  assert.equal(p.getNextLink(), null);
  // An empty list has one empty page.
  assert.deepEqual(await p.paginateQueryset(uncountable(0), req('/items/')), []);
  assert.equal(p.displayPageControls, false);
  for (const bad of ['4', 'last', '0', '-1', 'x', '1.5', '99999999999999999999']) {
    await assert.rejects(
      p.paginateQueryset(qs, req(`/items/?page=${bad}`)),
      (e: unknown) => e instanceof NotFound && e.message === 'Invalid page.',
      bad,
    );
  }
});

test('limit/offset without a count: {next, previous, results}, no count query, controls end at the next page', async () => {
  const qs = uncountable(25);
  const p = new LimitOffsetPagination();
  p.defaultLimit = 10;
  p.includeCount = false;
  let rows = await p.paginateQueryset(qs, req('/items/?offset=10'));
  assert.deepEqual(
    rows!.map((r) => r.id),
    [11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
  );
  assert.deepEqual(Object.keys(p.getPaginatedResponse([]).data as object), ['next', 'previous', 'results']);
  assert.equal(p.count, null);
  assert.equal(p.getNextLink(), `${HOST}/items/?limit=10&offset=20`);
  assert.equal(p.getPreviousLink(), `${HOST}/items/?limit=10`);
  assert.deepEqual(
    p.getHtmlContext().page_links?.map((l) => l.number),
    [1, 2, 3],
  );
  rows = await p.paginateQueryset(qs, req('/items/?offset=20'));
  assert.equal(rows!.length, 5);
  assert.equal(p.getNextLink(), null);
  assert.deepEqual(
    p.getHtmlContext().page_links?.map((l) => l.number),
    [1, 2, 3],
  );
  // Past the end: an empty page, as with a count.
  assert.deepEqual(await p.paginateQueryset(qs, req('/items/?offset=99999999999999999999')), []);
  assert.equal(p.getNextLink(), null);
});

test('property: walking next links without a count shows the same pages as with one', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 40 }),
      fc.integer({ min: 1, max: 7 }),
      fc.boolean(),
      async (n, size, limitStyle) => {
        const counted = new ArrayQueryset<R>(
          Array.from({ length: n }, (_, i) => ({ id: i + 1 })),
          { fields: { id: { type: 'integer', unique: true } } },
        );
        const make = (withCount: boolean) => {
          if (limitStyle) {
            const l = new LimitOffsetPagination();
            l.defaultLimit = size;
            l.includeCount = withCount;
            return l;
          }
          const p = new PageNumberPagination();
          p.pageSize = size;
          p.includeCount = withCount;
          return p;
        };
        const walk = async (withCount: boolean) => {
          const seen: { ids: number[]; next: string | null; previous: string | null }[] = [];
          let url: string | null = '/items/';
          while (url !== null && seen.length <= n + 1) {
            const p = make(withCount);
            const rows = await p.paginateQueryset(withCount ? counted : uncountable(n), req(url));
            seen.push({ ids: rows!.map((r) => r.id), next: p.getNextLink(), previous: p.getPreviousLink() });
            url = p.getNextLink()?.slice(HOST.length) ?? null;
          }
          return seen;
        };
        assert.deepEqual(await walk(false), await walk(true));
      },
    ),
    { numRuns: 200 },
  );
});

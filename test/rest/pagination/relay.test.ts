/**
 * RelayConnectionPagination: first/after forward, last/before backward over
 * keyset cursors (ties, NULLs), edges with per-item cursors, pageInfo, the
 * 400 answers for contradicting arguments, and signing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ArrayQueryset } from '../../../src/rest/data/array.js';
import { NotFound, ValidationError } from '../../../src/rest/errors.js';
import { RelayConnectionPagination } from '../../../src/rest/pagination/index.js';
import { req } from './cases.js';

interface R {
  id: number;
  k: number | null;
}
const FIELDS = { id: { type: 'integer', unique: true }, k: { type: 'integer', nullable: true } } as const;

interface Connection {
  edges: { cursor: string; node: number }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

async function get(
  qs: ArrayQueryset<R>,
  ordering: readonly string[],
  target: string,
  settings = {},
): Promise<Connection> {
  const p = new RelayConnectionPagination();
  p.pageSize = 4;
  p.ordering = ordering;
  const page = await p.paginateQueryset(qs, req(target, settings));
  return p.getPaginatedResponse(page!.map((r) => r.id)).data as Connection;
}

test('property: first/after forward and last/before backward visit every item once, in order', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 3 }), { maxLength: 30 }),
      fc.constantFrom(['k'], ['-k'], ['k', '-id']),
      fc.integer({ min: 1, max: 5 }),
      async (ks, ordering, n) => {
        const qs = new ArrayQueryset<R>(
          ks.map((k, i) => ({ id: i + 1, k })),
          { fields: FIELDS },
        );
        const want = (await qs.orderBy(...ordering).all()).map((r) => r.id);
        const forward: number[] = [];
        let c = await get(qs, ordering, `/items/?first=${n}`);
        for (let i = 0; i < 40; i++) {
          forward.push(...c.edges.map((e) => e.node));
          assert.equal(c.pageInfo.startCursor, c.edges[0]?.cursor ?? null);
          assert.equal(c.pageInfo.endCursor, c.edges.at(-1)?.cursor ?? null);
          if (!c.pageInfo.hasNextPage) break;
          c = await get(qs, ordering, `/items/?first=${n}&after=${c.pageInfo.endCursor}`);
        }
        assert.deepEqual(forward, want);
        const backward: number[][] = [];
        c = await get(qs, ordering, `/items/?last=${n}`);
        for (let i = 0; i < 40; i++) {
          backward.unshift(c.edges.map((e) => e.node));
          if (!c.pageInfo.hasPreviousPage) break;
          c = await get(qs, ordering, `/items/?last=${n}&before=${c.pageInfo.startCursor}`);
        }
        assert.deepEqual(backward.flat(), want);
      },
    ),
    { numRuns: 200 },
  );
});

test('an edge cursor resumes right after (or before) its item; pageInfo at both ends', async () => {
  const qs = new ArrayQueryset<R>(
    Array.from({ length: 10 }, (_, i) => ({ id: i + 1, k: i % 2 })),
    { fields: FIELDS },
  );
  const first = await get(qs, ['k'], '/items/');
  assert.deepEqual(
    first.edges.map((e) => e.node),
    [1, 3, 5, 7],
  );
  assert.deepEqual([first.pageInfo.hasNextPage, first.pageInfo.hasPreviousPage], [true, false]);
  const fromSecond = await get(qs, ['k'], `/items/?first=2&after=${first.edges[1]!.cursor}`);
  assert.deepEqual(
    fromSecond.edges.map((e) => e.node),
    [5, 7],
  );
  const beforeThird = await get(qs, ['k'], `/items/?last=5&before=${first.edges[2]!.cursor}`);
  assert.deepEqual(
    beforeThird.edges.map((e) => e.node),
    [1, 3],
  );
  assert.deepEqual([beforeThird.pageInfo.hasNextPage, beforeThird.pageInfo.hasPreviousPage], [true, false]);
  const end = await get(qs, ['k'], '/items/?last=3');
  assert.deepEqual(
    end.edges.map((e) => e.node),
    [6, 8, 10],
  );
  assert.deepEqual([end.pageInfo.hasNextPage, end.pageInfo.hasPreviousPage], [false, true]);
});

test('contradicting or bad arguments answer 400 with the field; foreign cursors 404; MAX_PAGE_SIZE caps first', async () => {
  const qs = new ArrayQueryset<R>(
    Array.from({ length: 300 }, (_, i) => ({ id: i + 1, k: i })),
    { fields: FIELDS },
  );
  const c = (await get(qs, ['k'], '/items/')).edges[0]!.cursor;
  for (const [target, field] of [
    [`/items/?after=${c}&before=${c}`, 'before'],
    ['/items/?first=2&last=2', 'last'],
    ['/items/?first=0', 'first'],
    ['/items/?last=x', 'last'],
  ] as const) {
    await assert.rejects(
      get(qs, ['k'], target),
      (e: unknown) => e instanceof ValidationError && e.status === 400 && field in (e.body() as object),
      target,
    );
  }
  for (const bad of ['cD00ODY=', 'eyJyIjoxfQ', 'xyz']) {
    await assert.rejects(get(qs, ['k'], `/items/?after=${bad}`), NotFound, bad);
  }
  assert.equal((await get(qs, ['k'], '/items/?first=1000', { MAX_PAGE_SIZE: 50 })).edges.length, 50);
  const key = { CURSOR_SIGNING_KEY: 'x'.repeat(40) };
  const signed = (await get(qs, ['k'], '/items/?first=2', key)).pageInfo.endCursor!;
  assert.match(signed, /\./);
  assert.deepEqual(
    (await get(qs, ['k'], `/items/?first=2&after=${signed}`, key)).edges.map((e) => e.node),
    [3, 4],
  );
  await assert.rejects(get(qs, ['k'], `/items/?first=2&after=${c}`, key), NotFound, 'unsigned under a key');
});

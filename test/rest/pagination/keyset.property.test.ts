/**
 * Property: KeysetPagination walks, forward from the first page and backward
 * from the last one, show every row that exists throughout the walk exactly
 * once and in order, whatever the ties (few distinct values, 10,000 equal
 * ones), NULLs (nullable orderings, both directions, mixed directions) and
 * rows inserted or deleted between requests; rows inserted during the walk
 * may or may not be shown, but never twice. Run over ArrayQueryset and
 * SqlQueryset on SQLite and PostgreSQL, each request through a fresh
 * paginator from the previous response's link, as a client makes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CompiledQuery, type Kysely } from 'kysely';
import { Request } from '../../../src/rest/request.js';
import { createSettings } from '../../../src/rest/settings.js';
import { ArrayQueryset } from '../../../src/rest/data/array.js';
import type { FieldInfo, Queryset } from '../../../src/rest/data/source.js';
import { NotFound } from '../../../src/rest/errors.js';
import type { SqlDialectKind } from '../../../src/sql/queryset.js';
import { createSqliteKysely } from '../../../src/sql/sqlite.js';
import { encodeKeysetToken, KeysetPagination } from '../../../src/rest/pagination/index.js';
import { postgresSchema, probePostgres, sqlSource } from '../data/conformance.js';
import { followLinks, sortedIds } from '../../support/pagination-walk.js';

const HOST = 'http://testserver';
const SETTINGS = createSettings();

interface KRow {
  id: number;
  price: number;
  rank: number | null;
  tag: string | null;
}

const FIELDS: Readonly<Record<keyof KRow, FieldInfo>> = {
  id: { type: 'integer', unique: true },
  price: { type: 'integer' },
  rank: { type: 'integer', nullable: true },
  tag: { type: 'text', nullable: true },
};

const ORDERINGS: readonly (readonly string[])[] = [
  ['price'],
  ['-price'],
  ['rank'],
  ['-rank'],
  ['tag', '-price'],
  ['-tag', 'rank'],
  ['-rank', 'price'],
  ['id'],
  ['-id'],
];

interface Store {
  reset(rows: readonly KRow[]): Promise<Queryset<KRow>>;
  insert(rows: readonly KRow[]): Promise<void>;
  remove(ids: readonly number[]): Promise<void>;
  close(): Promise<void>;
}

function arrayStore(): Store {
  const data: KRow[] = [];
  const qs = new ArrayQueryset<KRow>(data, { fields: FIELDS });
  return {
    // eslint-disable-next-line @typescript-eslint/require-await -- implements Store
    async reset(rows) {
      data.splice(0, data.length, ...rows);
      return qs;
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- implements Store
    async insert(rows) {
      data.push(...rows);
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- implements Store
    async remove(ids) {
      // The array is edited in place: a fresh queryset per request (as a view builds one) sees it.
      const keep = data.filter((r) => !ids.includes(r.id));
      data.splice(0, data.length, ...keep);
    },
    async close() {},
  };
}

async function sqlStore(db: Kysely<never>, dialect: SqlDialectKind, close: () => Promise<void>): Promise<Store> {
  const table = 'keyset_walk';
  const qs = await sqlSource<KRow>(db, dialect, table, FIELDS, []);
  const any = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const insert = async (rows: readonly KRow[]) => {
    for (let i = 0; i < rows.length; i += 500)
      await any
        .insertInto(table)
        .values(rows.slice(i, i + 500) as unknown as Record<string, unknown>[])
        .execute();
  };
  return {
    async reset(rows) {
      await db.executeQuery(CompiledQuery.raw(`delete from ${table}`));
      await insert(rows);
      return qs;
    },
    insert,
    async remove(ids) {
      if (ids.length > 0)
        await any
          .deleteFrom(table)
          .where('id', 'in', [...ids])
          .execute();
    },
    close,
  };
}

interface Body {
  next: string | null;
  previous: string | null;
  results: number[];
}

async function get(qs: Queryset<KRow>, terms: readonly string[], pageSize: number, url: string): Promise<Body> {
  const target = url.startsWith(HOST) ? url.slice(HOST.length) : url;
  const request = new Request(
    { method: 'GET', target, headers: [['Host', 'testserver']], body: null, secure: false },
    SETTINGS,
  );
  const p = new KeysetPagination();
  p.pageSize = 50;
  p.pageSizeQueryParam = 'page_size';
  p.ordering = terms;
  const page = await p.paginateQueryset(qs, request, null);
  assert.ok(page !== null);
  assert.ok(page.length <= pageSize);
  return p.getPaginatedResponse(page.map((r) => r.id)).data as Body;
}

/** Every id of `stable` seen exactly once, nothing seen twice, in the order of `final`. */
function check(what: string, seen: number[], stable: readonly number[], order: readonly number[]): void {
  assert.equal(new Set(seen).size, seen.length, `${what}: repeated row in ${JSON.stringify(seen)}`);
  const set = new Set(seen);
  assert.deepEqual(
    stable.filter((id) => !set.has(id)),
    [],
    `${what}: skipped rows, saw ${JSON.stringify(seen)}`,
  );
  const rank = new Map(order.map((id, i) => [id, i]));
  const ranks = seen.map((id) => rank.get(id)).filter((r): r is number => r !== undefined);
  for (let i = 1; i < ranks.length; i++) assert.ok(ranks[i - 1]! < ranks[i]!, `${what}: out of order`);
}

const rowArb = fc.record({
  price: fc.integer({ min: 0, max: 3 }),
  rank: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null, freq: 3 }),
  tag: fc.option(fc.constantFrom('a', 'b', 'None', ''), { nil: null, freq: 3 }),
});
type Spec = { price: number; rank: number | null; tag: string | null };
const changesArb = fc.array(
  fc.record({ add: fc.array(rowArb, { maxLength: 3 }), drop: fc.array(fc.nat(), { maxLength: 2 }) }),
  { maxLength: 30 },
);

async function walkProperty(store: Store, numRuns: number): Promise<void> {
  let nextId = 1;
  await fc.assert(
    fc.asyncProperty(
      fc.array(rowArb, { maxLength: 30 }),
      fc.constantFrom(...ORDERINGS),
      fc.integer({ min: 1, max: 6 }),
      changesArb,
      changesArb,
      async (specs, terms, pageSize, forwardChanges, backwardChanges) => {
        nextId = 1;
        const make = (s: Spec): KRow => ({ id: nextId++, ...s });
        const rows = specs.map(make);
        const qs = await store.reset(rows);
        const live = new Map(rows.map((r) => [r.id, r]));
        const deleted = new Set<number>();
        const inserted = new Set<number>();
        const changer = (changes: typeof forwardChanges) => async (n: number) => {
          const c = changes[n - 1];
          if (c === undefined) return;
          const add = c.add.map(make);
          const ids = [...live.keys()];
          const drop = ids.length === 0 ? [] : [...new Set(c.drop.map((i) => ids[i % ids.length]!))];
          for (const r of add) {
            live.set(r.id, r);
            inserted.add(r.id);
          }
          for (const id of drop) {
            live.delete(id);
            deleted.add(id);
          }
          await store.insert(add);
          await store.remove(drop);
        };
        const load = (url: string) => get(qs, terms, pageSize, url);
        const maxPages = rows.length + forwardChanges.length * 3 + backwardChanges.length * 3 + 4;
        const start = `/items/?page_size=${pageSize}`;

        const stableBefore = sortedIds(rows, terms, FIELDS);
        const forward = await followLinks(load, start, 'next', maxPages, changer(forwardChanges));
        const seenForward = forward.pages.flatMap((p) => p.results);
        const stable = (ids: readonly number[]) => ids.filter((id) => !deleted.has(id) && !inserted.has(id));
        check('forward', seenForward, stable(stableBefore), sortedIds([...live.values()], terms, FIELDS));
        for (const id of seenForward) assert.ok(!deleted.has(id) || stableBefore.includes(id) || inserted.has(id));

        // Back from the last page reached, with more changes between the requests.
        const atEnd = sortedIds([...live.values()], terms, FIELDS);
        const backward = await followLinks(load, forward.last, 'previous', maxPages, changer(backwardChanges));
        const seenBackward = [...backward.pages].reverse().flatMap((p) => p.results);
        check('backward', seenBackward, stable(atEnd), sortedIds([...live.values()], terms, FIELDS));

        // From the end of the list straight away (the reversed token without a place).
        const fromEnd = await followLinks(
          load,
          `${start}&cursor=${encodeKeysetToken({ values: null, reverse: true })}`,
          'previous',
          maxPages,
        );
        assert.deepEqual(
          [...fromEnd.pages].reverse().flatMap((p) => p.results),
          sortedIds([...live.values()], terms, FIELDS),
          'from the end, nothing changing',
        );
      },
    ),
    { numRuns },
  );
}

/** 10,000 rows of one price: page after page of ties, both ways, every row once (DRF's cursor loops here). */
async function equalValues(store: Store): Promise<void> {
  const rows: KRow[] = Array.from({ length: 10_000 }, (_, i) => ({ id: i + 1, price: 7, rank: null, tag: null }));
  const qs = await store.reset(rows);
  for (const terms of [['price'], ['-price'], ['rank', 'price']]) {
    const load = (url: string) => get(qs, terms, 100, url);
    const forward = await followLinks(load, '/items/?page_size=100', 'next', 110);
    assert.equal(forward.pages.length, 100);
    const want = sortedIds(rows, terms, FIELDS);
    assert.deepEqual(
      forward.pages.flatMap((p) => p.results),
      want,
    );
    const backward = await followLinks(load, forward.last, 'previous', 110);
    assert.deepEqual(
      [...backward.pages].reverse().flatMap((p) => p.results),
      want,
    );
  }
}

const probe = await probePostgres();
const pgSkip = probe.url === null ? (probe.skip ?? false) : false;

const SOURCES: { name: string; open(): Promise<Store>; runs: number; skip: string | false }[] = [
  // eslint-disable-next-line @typescript-eslint/require-await -- a source's open() returns a promise
  { name: 'ArrayQueryset', open: async () => arrayStore(), runs: 300, skip: false },
  {
    name: 'SqlQueryset (SQLite)',
    open: async () => {
      const db = createSqliteKysely<never>(':memory:');
      return sqlStore(db, 'sqlite', () => db.destroy());
    },
    runs: 150,
    skip: false,
  },
  {
    name: 'SqlQueryset (PostgreSQL)',
    open: async () => {
      if (probe.url === null) throw new Error(probe.error ?? 'PostgreSQL not reachable');
      const scope = await postgresSchema(probe.url, 'eventide_keyset');
      return sqlStore(scope.db, 'postgres', () => scope.drop());
    },
    runs: 30,
    skip: pgSkip,
  },
];

for (const source of SOURCES) {
  test(
    `keyset (${source.name}): walks both ways see every row once under ties, NULLs, insertions and deletions`,
    { skip: source.skip },
    async () => {
      const store = await source.open();
      try {
        await walkProperty(store, source.runs);
      } finally {
        await store.close();
      }
    },
  );
  test(`keyset (${source.name}): 10,000 equal values page through, both ways`, { skip: source.skip }, async () => {
    const store = await source.open();
    try {
      await equalValues(store);
    } finally {
      await store.close();
    }
  });
}

test('keyset: unreadable or foreign tokens answer 404 Invalid cursor; a NULL place only on a nullable field', async () => {
  const rows: KRow[] = [1, 2, 3].map((id) => ({ id, price: id, rank: null, tag: 'None' }));
  const qs = new ArrayQueryset<KRow>(rows, { fields: FIELDS });
  const bad = [
    'cD00ODY=', // a DRF token
    '!!!',
    Buffer.from('[1,2]').toString('base64url'),
    Buffer.from('{"k":[]}').toString('base64url'),
    Buffer.from('{"k":["1"]}').toString('base64url'), // one value for a two-term key
    Buffer.from('{"k":["x","1"]}').toString('base64url'), // not an integer
    Buffer.from('{"k":[null,"1"]}').toString('base64url'), // NULL on a non-nullable field
    Buffer.from('{"k":["1","1"],"r":2}').toString('base64url'),
    Buffer.from('{"k":["99999999999999999999999","1"]}').toString('base64url'), // beyond 64 bits
    'A'.repeat(9000),
  ];
  for (const token of bad) {
    await assert.rejects(
      get(qs, ['price'], 50, `/items/?cursor=${encodeURIComponent(token)}`),
      (e: unknown) => e instanceof NotFound && e.message === 'Invalid cursor',
      token.slice(0, 40),
    );
  }
  // Text 'None' is a value, not NULL: a place on a nullable text field carries JSON null for NULL only.
  const body = await get(
    qs,
    ['tag'],
    1,
    `/items/?page_size=1&cursor=${encodeKeysetToken({ values: ['None', '1'], reverse: false })}`,
  );
  assert.deepEqual(body.results, [2]);
});

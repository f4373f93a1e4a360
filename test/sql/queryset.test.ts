/**
 * SqlQueryset: the conformance suite on SQLite and PostgreSQL, a property
 * test against ArrayQueryset, index use of keyset queries (EXPLAIN), and the
 * SQL specifics (estimates, cache keys, statement reuse, errors).
 */
import { describe, test, before, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { openDemoDatabase, type Item, itemFields } from '../../src/cli/demo-data.js';
import type { Comparison, FieldInfo } from '../../src/rest/data/source.js';
import { SqlQueryset } from '../../src/sql/queryset.js';
import { cachingSqliteDatabase, createSqliteKysely, formatSqliteDatetime } from '../../src/sql/sqlite.js';
import { ConfigurationError } from '../../src/rest/errors.js';
import {
  conformanceFields,
  conformanceRows,
  conformanceSuite,
  postgresSchema,
  probePostgres,
  sqlSource,
  type ConformanceRow,
} from '../rest/data/conformance.js';

const probe = await probePostgres();

if (probe.url === null && probe.skip === undefined) {
  test('PostgreSQL is reachable for the SQL data-source tests', () => {
    assert.fail(probe.error!);
  });
}

// ---------------------------------------------------------------------------
// Conformance

{
  let db: Kysely<never> | null = null;
  conformanceSuite({
    name: 'SqlQueryset (SQLite)',
    estimates: false,
    async open(rows, fields) {
      db = createSqliteKysely<never>(':memory:');
      return sqlSource<ConformanceRow>(db, 'sqlite', 'conformance', fields, rows);
    },
    close: async () => db?.destroy(),
  });
}

{
  // The same suite on the direct better-sqlite3 path (sqliteDatabase), which skips Kysely's driver.
  let db: Kysely<never> | null = null;
  conformanceSuite({
    name: 'SqlQueryset (SQLite, direct statements)',
    estimates: false,
    async open(rows, fields) {
      const handle = new Database(':memory:');
      db = createSqliteKysely<never>(handle);
      return sqlSource<ConformanceRow>(db, 'sqlite', 'conformance', fields, rows, 'id', handle);
    },
    close: async () => db?.destroy(),
  });
}

// The suite again over each other datetime storage, declared or detected, on both row paths.
for (const { storage, declare, direct } of [
  { storage: 'iso-text', declare: false, direct: false },
  { storage: 'iso-text', declare: true, direct: true },
  { storage: 'epoch-ms', declare: false, direct: true },
  { storage: 'epoch-ms', declare: true, direct: false },
  { storage: 'sql-text', declare: true, direct: true },
] as const) {
  let db: Kysely<never> | null = null;
  conformanceSuite({
    name: `SqlQueryset (SQLite, ${storage} ${declare ? 'declared' : 'detected'}${direct ? ', direct statements' : ''})`,
    estimates: false,
    async open(rows, fields) {
      const handle = new Database(':memory:');
      db = createSqliteKysely<never>(handle);
      const qs = await sqlSource<ConformanceRow>(
        db,
        'sqlite',
        'conformance',
        fields,
        rows,
        'id',
        direct ? handle : undefined,
        {
          storage,
          declare,
        },
      );
      assert.deepEqual(await qs.datetimeStorage(), { created: storage });
      return qs;
    },
    close: async () => db?.destroy(),
  });
}

const postgresSkip = probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable (see the failing test)') : undefined;
for (const { storage, declare } of [
  { storage: 'timestamp', declare: false },
  { storage: 'sql-text', declare: true },
  { storage: 'iso-text', declare: false },
  { storage: 'epoch-ms', declare: false },
] as const) {
  let scope: Awaited<ReturnType<typeof postgresSchema>> | null = null;
  conformanceSuite({
    name: `SqlQueryset (PostgreSQL, ${storage} ${declare ? 'declared' : 'detected'})`,
    estimates: true,
    holdsNul: false,
    holdsNaN: true,
    skip: postgresSkip,
    async open(rows, fields) {
      scope = await postgresSchema(probe.url!, 'eventide_conformance');
      const qs = await sqlSource<ConformanceRow>(scope.db, 'postgres', 'conformance', fields, rows, 'id', undefined, {
        storage,
        declare,
      });
      assert.deepEqual(await qs.datetimeStorage(), { created: storage });
      return qs;
    },
    close: async () => scope?.drop(),
  });
}

{
  let scope: Awaited<ReturnType<typeof postgresSchema>> | null = null;
  conformanceSuite({
    name: 'SqlQueryset (PostgreSQL)',
    estimates: true,
    holdsNul: false,
    holdsNaN: true,
    skip: probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable (see the failing test)') : undefined,
    async open(rows, fields) {
      scope = await postgresSchema(probe.url!, 'eventide_conformance');
      return sqlSource<ConformanceRow>(scope.db, 'postgres', 'conformance', fields, rows);
    },
    close: async () => scope?.drop(),
  });
}

// ---------------------------------------------------------------------------
// Property: SqlQueryset (SQLite) agrees with ArrayQueryset

interface PropRow {
  id: number;
  price: number | null;
  name: string;
  score: number;
  created: Date;
  active: boolean | null;
  note: string | null;
}

const propFields: Record<keyof PropRow, FieldInfo> = {
  id: { type: 'integer', unique: true },
  price: { type: 'integer', nullable: true },
  name: { type: 'text' },
  score: { type: 'float' },
  created: { type: 'datetime', unique: true },
  active: { type: 'boolean', nullable: true },
  note: { type: 'text', nullable: true },
};

const NAMES = ['a', 'b', 'B', 'é', 'ab', ''];
const NOTES = ['x', 'y', 'Z', 'é', ''];
const SCORES = [-1, 0, 0.5, 2, 2.25, 1e-5];

const rowArb = fc.record({
  price: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  name: fc.constantFrom(...NAMES),
  score: fc.constantFrom(...SCORES),
  ms: fc.integer({ min: 0, max: 999 }),
  active: fc.option(fc.boolean(), { nil: null }),
  note: fc.option(fc.constantFrom(...NOTES), { nil: null }),
});

const valueArb: Record<keyof PropRow, fc.Arbitrary<unknown>> = {
  id: fc.integer({ min: 0, max: 30 }),
  price: fc.option(fc.integer({ min: -1, max: 5 }), { nil: null }),
  name: fc.constantFrom(...NAMES, 'c', 'A'),
  score: fc.constantFrom(...SCORES, 1, -2),
  created: fc.integer({ min: 0, max: 30_000 }).map((ms) => new Date(Date.UTC(2020, 0, 1) + ms)),
  active: fc.option(fc.boolean(), { nil: null }),
  note: fc.option(fc.constantFrom(...NOTES, 'w'), { nil: null }),
};

const fieldNames = Object.keys(propFields) as (keyof PropRow)[];
const filterArb = fc.constantFrom(...fieldNames).chain((field) =>
  fc.record({
    field: fc.constant(field),
    op: fc.constantFrom<Comparison>('lt', 'lte', 'gt', 'gte', 'eq'),
    value: valueArb[field],
  }),
);
const termArb = fc.tuple(fc.constantFrom(...fieldNames), fc.boolean()).map(([f, desc]) => (desc ? `-${f}` : f));

/** Checks that querysets from `source` agree with ArrayQueryset on random data and queries. */
async function agreesWithArray(
  source: (rows: PropRow[], run: number) => Promise<{ qs: SqlQueryset<PropRow>; done: () => Promise<void> }>,
  numRuns: number,
): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(rowArb, { maxLength: 25 }),
      fc.array(termArb, { maxLength: 3 }),
      fc.array(filterArb, { maxLength: 3 }),
      fc.nat({ max: 30 }),
      fc.nat({ max: 30 }),
      fc.nat({ max: 30 }),
      async (specs, terms, filters, start, length, cap) => {
        const rows: PropRow[] = specs.map((s, i) => ({
          id: i + 1,
          price: s.price,
          name: s.name,
          score: s.score,
          created: new Date(Date.UTC(2020, 0, 1) + (i + 1) * 1000 + s.ms),
          active: s.active,
          note: s.note,
        }));
        const { qs, done } = await source(rows, run++);
        try {
          let sqlQs = qs;
          let arrQs = new ArrayQueryset<PropRow>(rows, { fields: propFields });
          if (terms.length > 0) {
            sqlQs = sqlQs.orderBy(...terms);
            arrQs = arrQs.orderBy(...terms);
          }
          for (const f of filters) {
            sqlQs = sqlQs.filter(f.field, f.op, f.value);
            arrQs = arrQs.filter(f.field, f.op, f.value);
          }
          const ids = (r: PropRow[]) => r.map((x) => x.id);
          assert.deepEqual(
            ids(await sqlQs.slice(start, start + length)),
            ids(await arrQs.slice(start, start + length)),
          );
          assert.deepEqual(await sqlQs.all(), await arrQs.all());
          assert.equal(await sqlQs.count(), await arrQs.count());
          assert.equal(await sqlQs.count({ cap }), await arrQs.count({ cap }));
          const [first] = await sqlQs.slice(0, 1);
          if (first !== undefined)
            for (const f of fieldNames) assert.equal(sqlQs.position(first, f), arrQs.position(first, f));
        } finally {
          await done();
        }
      },
    ),
    { numRuns },
  );
}

test('property: SqlQueryset (SQLite) returns what ArrayQueryset returns for random data, orderings, filters and slices', async () => {
  await agreesWithArray(async (rows) => {
    const db = createSqliteKysely<never>(':memory:');
    return { qs: await sqlSource<PropRow>(db, 'sqlite', 'prop', propFields, rows), done: () => db.destroy() };
  }, 150);
});

test(
  'property: SqlQueryset (PostgreSQL) returns what ArrayQueryset returns',
  { skip: probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable') : false },
  async () => {
    const scope = await postgresSchema(probe.url!, 'eventide_prop');
    try {
      await agreesWithArray(async (rows, run) => {
        const table = `prop_${run}`;
        return {
          qs: await sqlSource<PropRow>(scope.db, 'postgres', table, propFields, rows),
          done: async () => void (await scope.db.executeQuery(CompiledQuery.raw(`drop table "${table}"`))),
        };
      }, 40);
    } finally {
      await scope.drop();
    }
  },
);

// ---------------------------------------------------------------------------
// Keyset queries use the indexes

/** The keyset queries a cursor paginator runs on the demo table. */
function keysetQueries(items: SqlQueryset<Item>): [string, () => Promise<Item[]>][] {
  return [
    [
      '-created',
      () =>
        items
          .orderBy('-created')
          .filter('created', 'lt', new Date(Date.UTC(2020, 0, 1, 2, 0, 0, 0)))
          .slice(0, 11),
    ],
    ['-price with a price filter', () => items.orderBy('-price').filter('price', 'lt', 250).slice(0, 11)],
    ['price with a price filter', () => items.orderBy('price').filter('price', 'gt', 250).slice(0, 11)],
  ];
}

/** Runs the keyset queries on a Kysely that records them; returns the SQL and parameters run. */
async function recordKeysetQueries(
  kind: 'sqlite' | 'postgres',
  make: (log: (e: LogEvent) => void) => Kysely<never>,
): Promise<[string, CompiledQuery][]> {
  const seen: CompiledQuery[] = [];
  const db = make((e) => {
    if (e.level === 'query') seen.push(e.query);
  });
  try {
    const items = new SqlQueryset<Item>({ db, table: 'item', fields: itemFields, dialect: kind });
    // The storage of `created` is detected from its first values once, before the first query.
    assert.deepEqual(await items.datetimeStorage(), { created: kind === 'sqlite' ? 'sql-text' : 'timestamptz' });
    assert.equal(seen.length, 1);
    assert.match(seen[0]!.sql, /"created" is not null limit 16$/);
    seen.length = 0;
    const out: [string, CompiledQuery][] = [];
    for (const [name, run] of keysetQueries(items)) {
      const before = seen.length;
      const rows = await run();
      assert.equal(rows.length, 11, name);
      assert.equal(seen.length, before + 1, name);
      out.push([name, seen[before]!]);
    }
    return out;
  } finally {
    await db.destroy();
  }
}

describe('keyset queries use the indexes', () => {
  test('SQLite: WHERE created < ? ORDER BY created DESC LIMIT 11 and the (price, id) ordering with a price filter search an index, no sort', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventide-sql-'));
    const file = join(dir, 'demo.sqlite3');
    try {
      const demo = await openDemoDatabase(file, { rows: 20_000 });
      await demo.close();
      const queries = await recordKeysetQueries(
        'sqlite',
        (log) => new Kysely<never>({ dialect: new SqliteDialect({ database: new Database(file) }), log }),
      );
      // The row count is part of the SQL text on SQLite: a bound LIMIT would make SQLite
      // compile the statement again on every run (its planner uses the value).
      assert.match(queries[0]![1].sql, /where "created" < \? order by "created" desc limit 11 offset \?$/);
      assert.match(queries[1]![1].sql, /where "price" < \? order by "price" desc, "id" desc limit \d+ offset \?$/);
      assert.deepEqual(queries[0]![1].parameters, ['2020-01-01 02:00:00', 0]);
      const raw = new Database(file, { readonly: true });
      try {
        for (const [name, q] of queries) {
          const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.parameters) as { detail: string }[]).map(
            (r) => r.detail,
          );
          const text = plan.join('\n');
          assert.match(
            text,
            /^SEARCH item USING (?:COVERING )?INDEX (?:sqlite_autoindex_item_1|item_price_id) \((?:created|price)[<>]\?\)$/m,
            `${name}: ${text}`,
          );
          assert.doesNotMatch(text, /TEMP B-TREE|^SCAN item/m, `${name}: ${text}`);
        }
      } finally {
        raw.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(
    'PostgreSQL: the same queries are index scans without a sort',
    { skip: probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable') : false },
    async () => {
      const scope = await postgresSchema(probe.url!, 'eventide_explain');
      try {
        const demo = await openDemoDatabase(scope.url, { rows: 20_000 });
        await demo.close();
        const queries = await recordKeysetQueries(
          'postgres',
          (log) =>
            new Kysely<never>({
              dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: scope.url, max: 1 }) }),
              log,
            }),
        );
        assert.match(queries[0]![1].sql, /where "created" < \$1 order by "created" desc limit \$2 offset \$3$/);
        assert.match(queries[1]![1].sql, /where "price" < \$1 order by "price" desc, "id" desc limit \$2 offset \$3$/);
        const client = new pg.Client({ connectionString: scope.url });
        await client.connect();
        try {
          for (const [name, q] of queries) {
            type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] };
            const res = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
              `EXPLAIN (FORMAT JSON) ${q.sql}`,
              q.parameters as unknown[],
            );
            const nodes: { type: string; index?: string }[] = [];
            const walk = (n: PlanNode) => {
              nodes.push({ type: n['Node Type'], index: n['Index Name'] });
              for (const c of n.Plans ?? []) walk(c as PlanNode);
            };
            walk(res.rows[0]!['QUERY PLAN'][0]!.Plan);
            const types = nodes.map((n) => n.type);
            assert.ok(
              nodes.some(
                (n) => n.type === 'Index Scan' && (n.index === 'item_created_key' || n.index === 'item_price_id'),
              ),
              `${name}: ${JSON.stringify(nodes)}`,
            );
            assert.ok(!types.includes('Sort') && !types.includes('Seq Scan'), `${name}: ${JSON.stringify(nodes)}`);
          }
        } finally {
          await client.end();
        }
      } finally {
        await scope.drop();
      }
    },
  );
});

// ---------------------------------------------------------------------------
// SQL specifics

describe('SqlQueryset on SQLite', () => {
  let db: Kysely<never>;
  let qs: SqlQueryset<ConformanceRow>;
  before(async () => {
    db = createSqliteKysely<never>(':memory:');
    qs = await sqlSource<ConformanceRow>(db, 'sqlite', 'specifics', conformanceFields, conformanceRows());
  });
  after(() => db.destroy());

  test('cacheKey is the dialect, the compiled SQL and its parameters (datetimes as bound; ISO 8601 before the storage is known)', async () => {
    const sqlText =
      'sqlite:select "id", "price", "name", "score", "created", "active", "note" from "specifics" where "created" < ? and "price" > ? order by "created" desc';
    const early = qs
      .orderBy('-created')
      .filter('created', 'lt', new Date(Date.UTC(2020, 0, 1, 0, 0, 5)))
      .filter('price', 'gt', 3);
    assert.equal(early.cacheKey, `${sqlText} ["2020-01-01T00:00:05.000Z",3]`);
    assert.deepEqual(await qs.datetimeStorage(), { created: 'sql-text' });
    // Once the storage is known, in its form: the queryset made before (its datetime bound when it runs) and one made now.
    assert.equal(early.cacheKey, `${sqlText} ["2020-01-01 00:00:05",3]`);
    const key = qs
      .orderBy('-created')
      .filter('created', 'lt', new Date(Date.UTC(2020, 0, 1, 0, 0, 5)))
      .filter('price', 'gt', 3).cacheKey;
    assert.equal(key, `${sqlText} ["2020-01-01 00:00:05",3]`);
    assert.deepEqual(
      (await early.all()).map((r) => r.id),
      [4, 3, 1],
    );
    assert.equal(
      qs.orderBy('-price').filter('price', 'lt', 3).cacheKey,
      'sqlite:select "id", "price", "name", "score", "created", "active", "note" from "specifics" where ("price" < ? or "price" is null) order by "price" desc, "id" desc [3]',
    );
    assert.equal(
      qs.filter('price', 'lt', null).cacheKey,
      'sqlite:select "id", "price", "name", "score", "created", "active", "note" from "specifics" where 1 = 0 order by "id" asc []',
    );
  });

  test('a nullable unique field still gets the primary-key tie-breaker (NULLs may repeat)', async () => {
    const fields = {
      id: { type: 'integer', unique: true },
      slug: { type: 'text', unique: true, nullable: true },
    } as const;
    const slugs = await sqlSource<{ id: number; slug: string | null }>(db, 'sqlite', 'slugs', fields, [
      { id: 1, slug: null },
      { id: 2, slug: 'b' },
      { id: 3, slug: null },
      { id: 4, slug: 'a' },
    ]);
    assert.match(slugs.orderBy('-slug').cacheKey, /order by "slug" desc, "id" desc \[\]$/);
    assert.deepEqual(
      (await slugs.orderBy('-slug').all()).map((r) => r.id),
      [2, 4, 3, 1],
    );
    assert.deepEqual(
      (await slugs.orderBy('slug').all()).map((r) => r.id),
      [1, 3, 4, 2],
    );
    assert.match(qs.orderBy('-created').cacheKey, /order by "created" desc \[\]$/);
  });

  test('datetime filters compare with the stored text, fraction or not', async () => {
    assert.equal(formatSqliteDatetime(new Date(Date.UTC(2020, 0, 1, 0, 0, 1, 37))), '2020-01-01 00:00:01.037000');
    assert.equal(formatSqliteDatetime(new Date(Date.UTC(2020, 0, 1, 0, 16, 40))), '2020-01-01 00:16:40');
    const stored = (
      await db.executeQuery<{ created: string }>(
        CompiledQuery.raw('select created from specifics where id in (1, 2) order by id'),
      )
    ).rows.map((r) => r.created);
    assert.deepEqual(stored, ['2020-01-01 00:00:01.500000', '2020-01-01 00:00:02']);
    assert.deepEqual(
      (await qs.filter('created', 'lte', new Date(Date.UTC(2020, 0, 1, 0, 0, 2))).all()).map((r) => r.id),
      [1, 2],
    );
    assert.deepEqual((await qs.filter('created', 'gt', 1577836802000).all()).length, 8);
  });

  test('estimateCount is null on SQLite', async () => {
    assert.equal(await qs.estimateCount(), null);
  });

  test('bad arguments are ConfigurationErrors', async () => {
    assert.throws(
      () => new SqlQueryset({ db, table: 'x', fields: { a: { type: 'text' } }, dialect: 'sqlite' }),
      /primary key id is not one of the fields/,
    );
    assert.throws(
      () => new SqlQueryset({ db, table: 'x', fields: conformanceFields, dialect: 'mysql' as 'sqlite' }),
      ConfigurationError,
    );
    assert.throws(
      () => new SqlQueryset({ db: {} as Kysely<never>, table: 'x', fields: conformanceFields, dialect: 'sqlite' }),
      ConfigurationError,
    );
    assert.throws(() => qs.filter('created', 'lt', 'yesterday'), ConfigurationError);
    assert.throws(() => qs.filter('created', 'lt', {}), ConfigurationError);
    await assert.rejects(qs.count({ cap: -1 }), ConfigurationError);
    await assert.rejects(qs.slice(Number.NaN, 2), ConfigurationError);
  });

  test('statement cache: one prepared statement per SQL text; a busy one is not shared', () => {
    const raw = new Database(':memory:');
    const cached = cachingSqliteDatabase(raw, 2);
    const a = cached.prepare('select 1 as x union all select 2');
    assert.equal(cached.prepare('select 1 as x union all select 2'), a);
    const it = a.iterate([]);
    it.next();
    const b = cached.prepare('select 1 as x union all select 2');
    assert.notEqual(b, a);
    assert.deepEqual(b.all([]), [{ x: 1 }, { x: 2 }]);
    it.return?.();
    cached.prepare('select 3');
    cached.prepare('select 4'); // over the limit: the cache starts again
    assert.notEqual(cached.prepare('select 1 as x union all select 2'), a);
    cached.close();
    assert.equal(raw.open, false);
  });
});

describe(
  'SqlQueryset on PostgreSQL',
  { skip: probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable') : false },
  () => {
    let scope: Awaited<ReturnType<typeof postgresSchema>>;
    let qs: SqlQueryset<ConformanceRow>;
    before(async () => {
      scope = await postgresSchema(probe.url!, 'eventide_sql');
      qs = await sqlSource<ConformanceRow>(scope.db, 'postgres', 'specifics', conformanceFields, conformanceRows());
    });
    after(() => scope.drop());

    test('estimateCount: planner estimate before ANALYZE, reltuples after, EXPLAIN rows when filtered', async () => {
      const before = await qs.estimateCount();
      assert.equal(typeof before, 'number');
      await scope.db.executeQuery(CompiledQuery.raw('analyze specifics'));
      assert.equal(await qs.estimateCount(), 10);
      assert.equal(await qs.filter('price', 'gt', 1000).estimateCount(), 1); // the planner never estimates below one row
      const some = await qs.filter('price', 'lt', 25).estimateCount();
      assert.ok(typeof some === 'number' && some >= 1 && some <= 10, String(some));
    });

    test('cacheKey and NULL ordering: explicit NULLS FIRST / LAST on nullable fields only', () => {
      assert.equal(
        qs.orderBy('-price').filter('price', 'lt', 3).cacheKey,
        'postgres:select "id", "price", "name", "score", "created", "active", "note" from "specifics" where ("price" < $1 or "price" is null) order by "price" desc nulls last, "id" desc [3]',
      );
      assert.equal(
        qs.orderBy('active', 'created').filter('created', 'gte', new Date(Date.UTC(2020, 0, 1, 0, 0, 1, 37))).cacheKey,
        'postgres:select "id", "price", "name", "score", "created", "active", "note" from "specifics" where "created" >= $1 order by "active" asc nulls first, "created" asc ["2020-01-01 00:00:01.037000+00:00"]',
      );
    });

    test('bigint primary keys come back as numbers', async () => {
      const [row] = await qs.orderBy('-id').slice(0, 1);
      assert.equal(row!.id, 10);
      assert.equal(typeof row!.id, 'number');
    });
  },
);

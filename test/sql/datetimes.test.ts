/**
 * Datetime columns of SqlQueryset in each storage: the tester's case of
 * issue 27 (toISOString() text in SQLite, a cursor walk that showed 2 of 5
 * rows), what is bound per storage, detection and declared storages
 * checked against the column, the errors (SqlDatetimeError, naming the
 * column and the format) for values in another format, and the row objects
 * made with and without code generation from strings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, type LogEvent } from 'kysely';
import { Request } from '../../src/rest/request.js';
import { createSettings } from '../../src/rest/settings.js';
import { ConfigurationError } from '../../src/rest/errors.js';
import { CursorPagination } from '../../src/rest/pagination/index.js';
import { SqlQueryset, type SqlFieldInfo } from '../../src/sql/queryset.js';
import { createSqliteKysely } from '../../src/sql/sqlite.js';
import { SqlDatetimeError } from '../../src/sql/errors.js';
import { rowFactory } from '../../src/sql/rows.js';
import { postgresSchema, probePostgres } from '../rest/data/conformance.js';

const SETTINGS = createSettings();
const HOST = 'http://testserver';

interface Event {
  id: number;
  title: string;
  created: Date;
}

const FIELDS: Record<keyof Event, SqlFieldInfo> = {
  id: { type: 'integer', unique: true },
  title: { type: 'text' },
  created: { type: 'datetime', unique: true },
};

/** An in-memory SQLite table `event` holding `values` as `created`, and a Kysely on it that records queries. */
function sqliteEvents(values: readonly unknown[], column = 'TEXT') {
  const handle = new Database(':memory:');
  handle.exec(`CREATE TABLE event (id INTEGER PRIMARY KEY, title TEXT, created ${column})`);
  const insert = handle.prepare('INSERT INTO event (id, title, created) VALUES (?, ?, ?)');
  values.forEach((v, i) => insert.run(i + 1, `event ${i + 1}`, v));
  const queries: { sql: string; parameters: readonly unknown[] }[] = [];
  const db = new Kysely<never>({
    dialect: new SqliteDialect({ database: handle }),
    log: (e: LogEvent) => {
      if (e.level === 'query') queries.push({ sql: e.query.sql, parameters: e.query.parameters });
    },
  });
  return { handle, db, queries };
}

/** Follows a cursor walk's `next` links from the first page (page size 2, newest first). */
async function cursorWalk(qs: SqlQueryset<Event>): Promise<number[][]> {
  const pages: number[][] = [];
  let url: string | null = '/events/';
  while (url !== null && pages.length < 10) {
    const p = new CursorPagination();
    p.pageSize = 2;
    p.ordering = '-created';
    const target: string = url.startsWith(HOST) ? url.slice(HOST.length) : url;
    const request = new Request(
      { method: 'GET', target, headers: [['Host', 'testserver']], body: null, secure: false },
      SETTINGS,
    );
    const page = await p.paginateQueryset(qs, request, null);
    pages.push(page!.map((r) => r.id));
    url = p.getNextLink();
  }
  return pages;
}

const iso = (i: number) => new Date(Date.UTC(2026, 0, 5, 10, 0, i)).toISOString();

test("issue 27: created holding toISOString() text in SQLite, a page-size-2 cursor walk shows all 5 rows (it showed 2: the next page's filter was bound as '2026-01-05 10:00:03', which every 'T' text is above)", async () => {
  const { db } = sqliteEvents([iso(0), iso(1), iso(2), iso(3), iso(4)]);
  try {
    const events = new SqlQueryset<Event>({ db, table: 'event', fields: FIELDS, dialect: 'sqlite' });
    assert.deepEqual(await cursorWalk(events), [[5, 4], [3, 2], [1]]);
    assert.deepEqual(await events.datetimeStorage(), { created: 'iso-text' });
    const [first] = await events.slice(0, 1);
    assert.deepEqual(first, { id: 1, title: 'event 1', created: new Date('2026-01-05T10:00:00.000Z') });
  } finally {
    await db.destroy();
  }
});

test('each storage binds filter and cursor values in its own form (SQLite)', async () => {
  const at = Date.UTC(2026, 0, 5, 10, 0, 2, 500);
  for (const [storage, column, stored, bound] of [
    [
      'sql-text',
      'DATETIME',
      (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000'),
      '2026-01-05 10:00:02.500000',
    ],
    ['iso-text', 'TEXT', (ms: number) => new Date(ms).toISOString(), '2026-01-05T10:00:02.500Z'],
    ['epoch-ms', 'INTEGER', (ms: number) => ms, at],
  ] as const) {
    const values = [0, 1, 2, 3, 4].map((i) => stored(Date.UTC(2026, 0, 5, 10, 0, i, 500)));
    for (const declared of [false, true]) {
      const { db, queries } = sqliteEvents(values, column);
      try {
        const fields = declared ? { ...FIELDS, created: { ...FIELDS.created, storage: storage } } : FIELDS;
        const events = new SqlQueryset<Event>({ db, table: 'event', fields, dialect: 'sqlite' });
        const rows = await events.orderBy('-created').filter('created', 'lt', new Date(at)).all();
        assert.deepEqual(
          rows.map((r) => r.id),
          [2, 1],
          `${storage}${declared ? ' declared' : ''}`,
        );
        // One look at the column's first values (to detect, or to check the declaration), then the query.
        assert.equal(queries.length, 2);
        assert.equal(queries[0]!.sql, 'select "created" as "v" from "event" where "created" is not null limit 16');
        assert.deepEqual(queries[1]!.parameters, [bound]);
        // A position (what a cursor carries) is bound the same way; later queries look at the column no more.
        const q = events.orderBy('-created');
        await q.filter('created', 'lt', q.parsePosition('created', '2026-01-05 10:00:02.500000+00:00')).slice(0, 2);
        assert.equal(queries.length, 3);
        assert.deepEqual(queries[2]!.parameters, [bound, 0]);
      } finally {
        await db.destroy();
      }
    }
  }
});

test('a value in another format is an ERR_SQL_DATETIME_FORMAT naming the column, the value and the expected format, when read', async () => {
  // 20 rows of sql-text; row 18 (past the 16 first values that are looked at) as toISOString() writes it.
  const values = Array.from({ length: 20 }, (_, i) =>
    i === 17 ? iso(i) : new Date(Date.UTC(2026, 0, 5, 10, 0, i)).toISOString().slice(0, 19).replace('T', ' '),
  );
  const { db, handle } = sqliteEvents(values);
  try {
    for (const direct of [false, true]) {
      const events = new SqlQueryset<Event>({
        db,
        table: 'event',
        fields: FIELDS,
        dialect: 'sqlite',
        ...(direct ? { sqliteDatabase: handle } : {}),
      });
      assert.deepEqual(await events.datetimeStorage(), { created: 'sql-text' });
      // Pages that do not hold the row are served.
      assert.deepEqual(
        (await events.orderBy('created').slice(0, 3)).map((r) => r.id),
        [1, 2, 3],
      );
      // The page that holds it fails instead of leaving it out (or misplacing it).
      const failed = await events
        .orderBy('-created')
        .slice(0, 5)
        .then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(failed instanceof SqlDatetimeError, String(failed));
      assert.equal(failed.code, 'ERR_SQL_DATETIME_FORMAT');
      assert.equal(failed.table, 'event');
      assert.equal(failed.field, 'created');
      assert.equal(failed.storage, 'sql-text');
      assert.equal(failed.value, '2026-01-05T10:00:17.000Z');
      assert.equal(
        failed.message,
        `event.created holds "2026-01-05T10:00:17.000Z", which is not in the storage detected from its first values, 'sql-text': text 'YYYY-MM-DD HH:MM:SS[.ffffff]' in UTC at millisecond precision, no fraction when it is 0 ('2026-01-05 10:00:00', '2026-01-05 10:00:00.250000') (it is 'iso-text'). Store every value of the column in one format.`,
      );
    }
  } finally {
    await db.destroy();
  }
});

test('a declared storage is checked against the column before the first query: ERR_SQL_DATETIME_FORMAT', async () => {
  const { db } = sqliteEvents([iso(0), iso(1)]);
  try {
    const events = new SqlQueryset<Event>({
      db,
      table: 'event',
      fields: { ...FIELDS, created: { type: 'datetime', unique: true, storage: 'epoch-ms' } },
      dialect: 'sqlite',
    });
    for (const run of [() => events.all(), () => events.datetimeStorage(), () => events.count()])
      await assert.rejects(run(), (e: unknown) => {
        assert.ok(e instanceof SqlDatetimeError);
        assert.equal(e.code, 'ERR_SQL_DATETIME_FORMAT');
        assert.equal(e.storage, 'epoch-ms');
        assert.equal(
          e.message,
          `event.created holds "2026-01-05T10:00:00.000Z", which is not in its declared storage 'epoch-ms': an integer of milliseconds since 1970-01-01T00:00:00Z (1767607200000). It is 'iso-text': declare that.`,
        );
        return true;
      });
  } finally {
    await db.destroy();
  }
});

test('undeclared, first values in no format or in several: ERR_SQL_DATETIME_UNDETECTED; fixed data is detected on the next query', async () => {
  const { db, handle } = sqliteEvents([
    '2026-01-05 10:00:00.123', // SQLite's strftime('%f'): three digits, not a storage
    iso(1),
  ]);
  try {
    const events = new SqlQueryset<Event>({ db, table: 'event', fields: FIELDS, dialect: 'sqlite' });
    await assert.rejects(events.all(), (e: unknown) => {
      assert.ok(e instanceof SqlDatetimeError);
      assert.equal(e.code, 'ERR_SQL_DATETIME_UNDETECTED');
      assert.equal(e.storage, null);
      assert.match(
        e.message,
        /^event\.created declares no storage and holds "2026-01-05 10:00:00\.123", which is in no storage a sqlite datetime column can have \('sql-text', 'iso-text', 'epoch-ms'; see docs\/sql\.md\)/,
      );
      return true;
    });
    handle.prepare('UPDATE event SET created = ? WHERE id = 1').run('2026-01-05 10:00:00.123000');
    await assert.rejects(events.all(), (e: unknown) => {
      assert.ok(e instanceof SqlDatetimeError && e.code === 'ERR_SQL_DATETIME_UNDETECTED');
      assert.equal(
        e.message,
        `event.created declares no storage and holds values in two: "2026-01-05 10:00:00.123000" ('sql-text') and "2026-01-05T10:00:01.000Z" ('iso-text'). Store every value of the column in one format, and declare it in the field's storage.`,
      );
      return true;
    });
    handle.prepare('UPDATE event SET created = ? WHERE id = 1').run(iso(0));
    assert.deepEqual(
      (await events.orderBy('-created').all()).map((r) => r.id),
      [2, 1],
    );
  } finally {
    await db.destroy();
  }
});

test('an empty column is looked at again before each query until it holds a value; the first values then decide', async () => {
  const { db, handle, queries } = sqliteEvents([], 'INTEGER');
  try {
    const events = new SqlQueryset<Event>({ db, table: 'event', fields: FIELDS, dialect: 'sqlite' });
    assert.deepEqual(await events.datetimeStorage(), { created: null });
    assert.deepEqual(await events.filter('created', 'gt', new Date(0)).all(), []);
    assert.equal(queries.filter((q) => q.sql.endsWith('limit 16')).length, 2);
    handle.prepare('INSERT INTO event VALUES (1, ?, ?), (2, ?, ?)').run('a', 1767607200000, 'b', 1767607201000);
    const q = events.orderBy('created');
    assert.deepEqual(
      (await q.filter('created', 'gt', new Date(1767607200000)).all()).map((r) => r.id),
      [2],
    );
    assert.deepEqual(await events.datetimeStorage(), { created: 'epoch-ms' });
    const looks = queries.filter((q) => q.sql.endsWith('limit 16')).length;
    await events.all();
    assert.equal(queries.filter((q) => q.sql.endsWith('limit 16')).length, looks, 'settled: no more looks');
    // Concurrent first queries of a new queryset share one look.
    const again = new SqlQueryset<Event>({ db, table: 'event', fields: FIELDS, dialect: 'sqlite' });
    const before = queries.length;
    await Promise.all([again.all(), again.count(), again.slice(0, 1)]);
    assert.equal(queries.slice(before).filter((q) => q.sql.endsWith('limit 16')).length, 1);
  } finally {
    await db.destroy();
  }
});

test('bad storage declarations and datetime filters outside years 1..9999 are ConfigurationErrors', async () => {
  const db = createSqliteKysely<never>(':memory:');
  try {
    const make = (fields: Record<string, SqlFieldInfo>, dialect: 'sqlite' | 'postgres' = 'sqlite') =>
      new SqlQueryset({ db, table: 'event', fields, dialect });
    assert.throws(
      () => make({ id: { type: 'integer', storage: 'epoch-ms' } }),
      /id: storage is for datetime fields, not integer/,
    );
    assert.throws(
      () => make({ id: { type: 'integer' }, at: { type: 'datetime', storage: 'timestamptz' } }),
      /at: storage must be one of 'sql-text', 'iso-text', 'epoch-ms' on sqlite, not timestamptz/,
    );
    assert.throws(
      () => make({ id: { type: 'integer' }, at: { type: 'datetime', storage: 'unix' as 'epoch-ms' } }, 'postgres'),
      /storage must be one of 'timestamptz', 'timestamp', 'sql-text', 'iso-text', 'epoch-ms' on postgres/,
    );
    const qs = make({ id: { type: 'integer' }, at: { type: 'datetime' } });
    assert.throws(() => qs.filter('at', 'lt', new Date(Date.UTC(10000, 0, 1))), ConfigurationError);
    assert.throws(() => qs.filter('at', 'lt', new Date('0000-12-31T23:59:59.999Z')), ConfigurationError);
    assert.throws(() => qs.filter('at', 'lt', new Date(NaN)), ConfigurationError);
    qs.filter('at', 'lt', new Date('0001-01-01T00:00:00.000Z')).filter('at', 'gt', 253402300799999);
  } finally {
    await db.destroy();
  }
});

// ---------------------------------------------------------------------------
// PostgreSQL

const probe = await probePostgres();
if (probe.url === null && probe.skip === undefined) {
  test('PostgreSQL is reachable for the datetime storage tests', () => {
    assert.fail(probe.error!);
  });
}

test(
  'PostgreSQL: the column type decides or checks the storage (timestamp is not timestamptz); a timestamp reads as UTC in any time zone',
  { skip: probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable') : false },
  async () => {
    const scope = await postgresSchema(probe.url!, 'eventide_dt');
    try {
      const run = (text: string) => scope.db.executeQuery(CompiledQuery.raw(text));
      await run('create table ts (id bigint primary key, title text, created timestamp)');
      await run(`insert into ts values (1, 'a', '2026-03-08 02:30:00'), (2, 'b', '2026-03-08 07:30:00.250')`);
      const wrong = new SqlQueryset<Event>({
        db: scope.db,
        table: 'ts',
        fields: { ...FIELDS, created: { type: 'datetime', storage: 'timestamptz' } },
        dialect: 'postgres',
      });
      await assert.rejects(wrong.all(), (e: unknown) => {
        assert.ok(e instanceof SqlDatetimeError && e.code === 'ERR_SQL_DATETIME_FORMAT');
        assert.match(
          e.message,
          /^ts\.created holds Date .* \(timestamp without time zone\), which is not in its declared storage 'timestamptz': a PostgreSQL timestamp with time zone\. It is 'timestamp': declare that\.$/,
        );
        return true;
      });
      const events = new SqlQueryset<Event>({ db: scope.db, table: 'ts', fields: FIELDS, dialect: 'postgres' });
      assert.deepEqual(await events.datetimeStorage(), { created: 'timestamp' });
      // 02:30 on 2026-03-08 does not exist in New York (clocks go from 2:00 to 3:00): read in the process's
      // time zone it would move. The queryset reads it as UTC whatever the zone.
      const child = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `
          import { Kysely, PostgresDialect } from 'kysely';
          import pg from 'pg';
          import { SqlQueryset } from ${JSON.stringify(new URL('../../src/sql/queryset.ts', import.meta.url).href)};
          const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: ${JSON.stringify(scope.url)}, max: 1 }) }) });
          const qs = new SqlQueryset({ db, table: 'ts', fields: ${JSON.stringify(FIELDS)}, dialect: 'postgres' });
          const rows = await qs.orderBy('-created').filter('created', 'gt', new Date('2026-03-08T02:30:00.000Z')).all();
          const all = await qs.orderBy('created').all();
          console.log(JSON.stringify({ after: rows.map((r) => r.id), all: all.map((r) => r.created.toISOString()) }));
          await db.destroy();
          `,
        ],
        { encoding: 'utf8', timeout: 60_000, env: { ...process.env, TZ: 'America/New_York' } },
      );
      assert.equal(child.status, 0, child.stderr);
      assert.deepEqual(JSON.parse(child.stdout), {
        after: [2],
        all: ['2026-03-08T02:30:00.000Z', '2026-03-08T07:30:00.250Z'],
      });
      // ORDER BY names the table's column, not the computed one of the select list (an index serves it).
      assert.match(
        events.orderBy('-created').cacheKey,
        /"created" at time zone 'UTC' as "created" from "ts" order by "ts"\."created" desc/,
      );
    } finally {
      await scope.drop();
    }
  },
);

// ---------------------------------------------------------------------------
// Row objects

test('rowFactory: the generated function and the generic loop make equal rows (keys, order, values, prototype), __proto__ included', () => {
  const names = ['id', 'created', 'active', '__proto__x', 'name'];
  const convs = [
    null,
    (v: unknown) => new Date(v as number),
    (v: unknown) => v === 1,
    null,
    (v: unknown) => `<${String(v)}>`,
  ];
  const raw = [7, 0, 1, { a: 1 }, 'n'];
  const generated = rowFactory(names, convs)(raw);
  const generic = rowFactory(names, convs, false)(raw);
  assert.deepEqual(generated, generic);
  assert.deepEqual(Object.keys(generic), names);
  assert.equal(Object.getPrototypeOf(generic), Object.prototype);
  // A field named __proto__ is an own key, never the prototype (an object literal would set the prototype).
  const proto = rowFactory(['id', '__proto__'], [null, null])([1, { polluted: true }]);
  assert.deepEqual(Object.keys(proto), ['id', '__proto__']);
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.equal((proto as { polluted?: boolean }).polluted, undefined);
  assert.equal(JSON.stringify(proto), '{"id":1,"__proto__":{"polluted":true}}');
  // Converters run in field order on both paths (the first error is the first field's).
  const order: string[] = [];
  const log = (tag: string) => (v: unknown) => {
    order.push(tag);
    return v;
  };
  rowFactory(['a', 'b'], [log('a'), log('b')])([1, 2]);
  rowFactory(['a', 'b'], [log('a'), log('b')], false)([1, 2]);
  assert.deepEqual(order, ['a', 'b', 'a', 'b']);
});

test('SqlQueryset rows without code generation from strings (node --disallow-code-generation-from-strings): the generic loop, the same rows', () => {
  const script = `
    import Database from 'better-sqlite3';
    import { SqlQueryset, createSqliteKysely } from ${JSON.stringify(new URL('../../src/sql/index.ts', import.meta.url).href)};
    const handle = new Database(':memory:');
    handle.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, created TEXT, active BOOLEAN, note TEXT)");
    handle.exec("INSERT INTO t VALUES (1, '2026-01-05T10:00:00.000Z', 1, 'a'), (2, '2026-01-05T10:00:01.500Z', 0, NULL), (3, NULL, NULL, 'c')");
    const qs = new SqlQueryset({
      db: createSqliteKysely(handle), sqliteDatabase: handle, table: 't', dialect: 'sqlite',
      fields: { id: { type: 'integer', unique: true }, created: { type: 'datetime', nullable: true }, active: { type: 'boolean', nullable: true }, note: { type: 'text', nullable: true } },
    });
    let generated = true;
    try { new Function('return 1'); } catch { generated = false; }
    const rows = await qs.orderBy('-id').all();
    let error = null;
    handle.exec("UPDATE t SET created = '2026-01-05 10:00:02' WHERE id = 2");
    try { await qs.all(); } catch (e) { error = e.code; }
    console.log(JSON.stringify({ generated, rows, keys: rows.map((r) => Object.keys(r).join()), dates: rows.map((r) => r.created instanceof Date), error }));
  `;
  const run = (flags: string[]) => {
    const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { generated: boolean };
  };
  const without = run(['--disallow-code-generation-from-strings']);
  const withIt = run([]);
  assert.equal(without.generated, false);
  assert.equal(withIt.generated, true);
  assert.deepEqual({ ...without, generated: null }, { ...withIt, generated: null });
  assert.deepEqual(withIt, {
    generated: true,
    rows: [
      { id: 3, created: null, active: null, note: 'c' },
      { id: 2, created: '2026-01-05T10:00:01.500Z', active: false, note: null },
      { id: 1, created: '2026-01-05T10:00:00.000Z', active: true, note: 'a' },
    ],
    keys: ['id,created,active,note', 'id,created,active,note', 'id,created,active,note'],
    dates: [false, true, true],
    error: 'ERR_SQL_DATETIME_FORMAT',
  });
});

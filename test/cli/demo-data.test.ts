/** The demo data set: seeding, exact rows, reopening, shape checks, progress, PostgreSQL. */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { demoItem, itemFields, openDemoDatabase, type Item } from '../../src/cli/demo-data.js';
import { SqlUnavailableError } from '../../src/sql/errors.js';
import { ImproperlyConfigured } from '../../src/rest/errors.js';
import { postgresSchema, probePostgres } from '../rest/data/conformance.js';

const probe = await probePostgres();
const pgSkip = probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable (see the failing test)') : false;

if (probe.url === null && probe.skip === undefined) {
  test('PostgreSQL is reachable for the demo tests', () => {
    assert.fail(probe.error!);
  });
}

const ROW_1: Item = {
  id: 1,
  name: 'item-0000001',
  created: new Date('2020-01-01T00:00:01.037Z'),
  price: 419,
  category: 'beta',
};
const ROW_1000: Item = {
  id: 1000,
  name: 'item-0001000',
  created: new Date('2020-01-01T00:16:40.000Z'),
  price: 0,
  category: 'alpha',
};

test('demoItem computes row i', () => {
  assert.deepEqual(demoItem(1), ROW_1);
  assert.deepEqual(demoItem(1000), ROW_1000);
  assert.deepEqual(demoItem(5), {
    id: 5,
    name: 'item-0000005',
    created: new Date('2020-01-01T00:00:05.185Z'),
    price: 95,
    category: 'alpha',
  });
  assert.equal(demoItem(12_345_678).name, 'item-12345678');
  assert.deepEqual(Object.keys(itemFields), ['id', 'name', 'created', 'price', 'category']);
});

describe('SQLite demo database', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventide-demo-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('seeds a new file: exact rows, datetime text with and without fraction, indexes, progress', async () => {
    const file = join(dir, 'demo.sqlite3');
    const progress: [number, number][] = [];
    const demo = await openDemoDatabase(file, {
      rows: 1000,
      onProgress: (done, total) => progress.push([done, total]),
    });
    try {
      assert.equal(demo.kind, 'sqlite');
      assert.equal(demo.created, true);
      assert.equal(demo.rowCount, 1000);
      assert.deepEqual(progress, [[1000, 1000]]);
      const items = demo.items();
      assert.equal(demo.items(), items);
      const all = await items.all();
      assert.equal(all.length, 1000);
      assert.deepEqual(all[0], ROW_1);
      assert.deepEqual(all[999], ROW_1000);
      for (let i = 1; i <= 1000; i++) assert.deepEqual(all[i - 1], demoItem(i));
      const newest = await items.orderBy('-created').slice(0, 10);
      assert.deepEqual(
        newest.map((r) => r.id),
        [1000, 999, 998, 997, 996, 995, 994, 993, 992, 991],
      );
      assert.equal(items.position(newest[9]!, 'created'), '2020-01-01 00:16:31.667000+00:00');
      assert.equal(await items.count(), 1000);
    } finally {
      await demo.close();
    }
    const raw = new Database(file, { readonly: true });
    try {
      const text = raw.prepare('SELECT id, created FROM item WHERE id IN (1, 5, 1000) ORDER BY id').all();
      assert.deepEqual(text, [
        { id: 1, created: '2020-01-01 00:00:01.037000' },
        { id: 5, created: '2020-01-01 00:00:05.185000' },
        { id: 1000, created: '2020-01-01 00:16:40' },
      ]);
      const indexes = raw
        .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item' ORDER BY name`)
        .all();
      assert.deepEqual(indexes, [
        { name: 'item_price_id', sql: 'CREATE INDEX item_price_id ON item (price, id)' },
        { name: 'sqlite_autoindex_item_1', sql: null },
      ]);
      const table = raw.prepare(`SELECT sql FROM sqlite_master WHERE name = 'item'`).get() as { sql: string };
      assert.equal(
        table.sql,
        'CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, created DATETIME UNIQUE, price INTEGER, category TEXT)',
      );
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal', 'a created file is in WAL mode');
    } finally {
      raw.close();
    }
  });

  test('an existing file keeps its journal mode', async () => {
    const file = join(dir, 'rollback.sqlite3');
    const first = await openDemoDatabase(file, { rows: 10 });
    await first.close();
    const raw = new Database(file);
    raw.pragma('journal_mode = DELETE');
    raw.close();
    const again = await openDemoDatabase(file);
    try {
      assert.equal(again.created, false);
      assert.equal((await again.items().all()).length, 10);
    } finally {
      await again.close();
    }
    const check = new Database(file, { readonly: true });
    try {
      assert.equal(check.pragma('journal_mode', { simple: true }), 'delete');
    } finally {
      check.close();
    }
  });

  test('reopens an existing file as it is, without reseeding (sqlite: prefix, rows option ignored)', async () => {
    const file = join(dir, 'demo.sqlite3');
    const raw = new Database(file);
    raw.prepare('DELETE FROM item WHERE id > 900').run();
    raw.close();
    let called = false;
    const demo = await openDemoDatabase(`sqlite:${file}`, { rows: 50, onProgress: () => (called = true) });
    try {
      assert.equal(demo.created, false);
      assert.equal(demo.rowCount, 900);
      assert.equal(called, false);
      assert.deepEqual((await demo.items().orderBy('-created').slice(0, 1))[0], demoItem(900));
    } finally {
      await demo.close();
    }
  });

  test('progress is reported per batch while seeding', async () => {
    const progress: [number, number][] = [];
    const demo = await openDemoDatabase(':memory:', {
      rows: 250_000,
      onProgress: (done, total) => progress.push([done, total]),
    });
    try {
      assert.deepEqual(progress, [
        [100_000, 250_000],
        [200_000, 250_000],
        [250_000, 250_000],
      ]);
      assert.equal(demo.rowCount, 250_000);
      assert.deepEqual((await demo.items().orderBy('-created').slice(0, 1))[0], demoItem(250_000));
      assert.deepEqual((await demo.items().filter('id', 'eq', 123_456).all())[0], demoItem(123_456));
    } finally {
      await demo.close();
    }
  });

  test('zero rows: an empty table', async () => {
    const progress: [number, number][] = [];
    const demo = await openDemoDatabase('sqlite::memory:', { rows: 0, onProgress: (d, t) => progress.push([d, t]) });
    try {
      assert.equal(demo.created, true);
      assert.equal(demo.rowCount, 0);
      assert.deepEqual(progress, [[0, 0]]);
      assert.deepEqual(await demo.items().all(), []);
    } finally {
      await demo.close();
    }
  });

  test('a table of another shape is a clear error and is left alone', async () => {
    const file = join(dir, 'other.sqlite3');
    const raw = new Database(file);
    raw.exec(`CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'keep me')`);
    raw.close();
    await assert.rejects(openDemoDatabase(file), (err: unknown) => {
      assert.ok(err instanceof ImproperlyConfigured);
      assert.equal(
        err.message,
        `${file}: table item lacks columns created, price, category; the demo needs item(id INTEGER PRIMARY KEY, name TEXT, created DATETIME UNIQUE, price INTEGER, category TEXT)`,
      );
      return true;
    });
    const check = new Database(file, { readonly: true });
    assert.deepEqual(check.prepare('SELECT * FROM item').all(), [{ id: 1, name: 'keep me' }]);
    check.close();
  });

  test('datetimes stored in another format are a clear error', async () => {
    const file = join(dir, 'iso.sqlite3');
    const raw = new Database(file);
    raw.exec(
      `CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, created DATETIME UNIQUE, price INTEGER, category TEXT); INSERT INTO item VALUES (1, 'a', '2020-01-01T00:00:01Z', 1, 'beta')`,
    );
    raw.close();
    await assert.rejects(
      openDemoDatabase(file),
      /item\.created holds "2020-01-01T00:00:01Z", not datetime text like "2020-01-01 00:00:00"/,
    );
  });

  test('a file that is not an SQLite database is a clear error and is not touched', async () => {
    const file = join(dir, 'notes.txt');
    const content = 'these are not the rows you are looking for\n'.repeat(100);
    writeFileSync(file, content);
    await assert.rejects(
      openDemoDatabase(file),
      (err: unknown) =>
        err instanceof ImproperlyConfigured && err.message.startsWith(`${file} is not an SQLite database`),
    );
    assert.equal(readFileSync(file, 'utf8'), content);
    await assert.rejects(openDemoDatabase(join(dir, 'missing-dir', 'x.sqlite3')), /Cannot open SQLite database/);
    await assert.rejects(openDemoDatabase('sqlite:'), /No SQLite file/);
    await assert.rejects(openDemoDatabase(':memory:', { rows: -1 }), ImproperlyConfigured);
  });
});

describe('PostgreSQL demo database', { skip: pgSkip }, () => {
  test('seeds the same rows, reopens without reseeding, rejects another shape', async () => {
    const scope = await postgresSchema(probe.url!, 'eventide_demo');
    try {
      const progress: [number, number][] = [];
      const demo = await openDemoDatabase(scope.url, { rows: 1000, onProgress: (d, t) => progress.push([d, t]) });
      try {
        assert.equal(demo.kind, 'postgres');
        assert.equal(demo.created, true);
        assert.equal(demo.rowCount, 1000);
        assert.deepEqual(progress, [[1000, 1000]]);
        const all = await demo.items().all();
        assert.deepEqual(all[0], ROW_1);
        assert.deepEqual(all[999], ROW_1000);
        for (let i = 1; i <= 1000; i++) assert.deepEqual(all[i - 1], demoItem(i));
        const newest = await demo.items().orderBy('-created').slice(0, 10);
        assert.equal(demo.items().position(newest[9]!, 'created'), '2020-01-01 00:16:31.667000+00:00');
        assert.equal(await demo.items().estimateCount(), 1000);
      } finally {
        await demo.close();
      }
      const again = await openDemoDatabase(scope.url, { rows: 5 });
      try {
        assert.equal(again.created, false);
        assert.equal(again.rowCount, 1000);
      } finally {
        await again.close();
      }
      const c = new pg.Client({ connectionString: scope.url });
      await c.connect();
      try {
        await c.query('drop table item');
        await c.query('create table item (id integer primary key, name text, price integer)');
      } finally {
        await c.end();
      }
      await assert.rejects(
        openDemoDatabase(scope.url),
        (err: unknown) =>
          err instanceof ImproperlyConfigured && /table item lacks columns created, category;/.test(err.message),
      );
    } finally {
      await scope.drop();
    }
  });

  test('an unreachable server is a clear error with a stable code, the password left out', async () => {
    await assert.rejects(openDemoDatabase('postgres://nobody:secret@127.0.0.1:1/none'), (err: unknown) => {
      assert.ok(err instanceof SqlUnavailableError);
      assert.equal(err.code, 'ERR_SQL_PRIMARY_UNREACHABLE');
      assert.doesNotMatch(err.message, /secret/);
      assert.match(err.message, /127\.0\.0\.1:1/);
      return true;
    });
  });
});

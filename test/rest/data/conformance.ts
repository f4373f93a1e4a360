/**
 * The Queryset conformance suite: one set of node:test tests that every
 * Queryset implementation must pass (ArrayQueryset, SqlQueryset on SQLite and
 * on PostgreSQL), over a small data set with duplicates and NULLs. Expected
 * results are written out by hand. Also: helpers to put the data set (or any
 * rows) into a SQL table, and the PostgreSQL probe the SQL tests share.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { ConfigurationError } from '../../../src/rest/errors.js';
import { INVALID_POSITION, isQueryset, type FieldInfo, type Queryset } from '../../../src/rest/data/source.js';
import { SqlQueryset, type DatetimeStorage, type SqlDialectKind } from '../../../src/sql/queryset.js';
import { formatSqliteDatetime } from '../../../src/sql/sqlite.js';
import { pythonDatetimeStr } from '../../../src/rest/data/values.js';

/** A row of the conformance data set. */
export interface ConformanceRow {
  id: number;
  price: number | null;
  name: string;
  score: number;
  created: Date;
  active: boolean | null;
  note: string | null;
}

/** The fields of the conformance data set. */
export const conformanceFields: Readonly<Record<keyof ConformanceRow, FieldInfo>> = {
  id: { type: 'integer', unique: true },
  price: { type: 'integer', nullable: true, bits: 32 },
  name: { type: 'text' },
  score: { type: 'float' },
  created: { type: 'datetime', unique: true },
  active: { type: 'boolean', nullable: true },
  note: { type: 'text', nullable: true },
};

const at = (seconds: number, ms: number): Date => new Date(Date.UTC(2020, 0, 1, 0, 0, seconds, ms));

/** Ten rows: duplicate prices, names and notes, NULL prices, flags and notes, datetimes with and without a fraction. */
export function conformanceRows(): ConformanceRow[] {
  return [
    { id: 1, price: 30, name: 'b', score: 1.5, created: at(1, 500), active: true, note: 'x' },
    { id: 2, price: null, name: 'a', score: 2, created: at(2, 0), active: false, note: null },
    { id: 3, price: 10, name: 'c', score: 0.25, created: at(3, 37), active: true, note: 'y' },
    { id: 4, price: 30, name: 'a', score: 1e-5, created: at(4, 0), active: null, note: 'x' },
    { id: 5, price: 20, name: 'B', score: 1e16, created: at(5, 250), active: false, note: 'é' },
    { id: 6, price: null, name: 'b', score: -3, created: at(6, 999), active: true, note: null },
    { id: 7, price: 10, name: 'a', score: 2, created: at(7, 0), active: false, note: 'x' },
    { id: 8, price: 30, name: 'é', score: 0, created: at(8, 1), active: true, note: 'Z' },
    { id: 9, price: 40, name: 'c', score: 1.5, created: at(9, 100), active: null, note: null },
    { id: 10, price: 20, name: 'b', score: 100.5, created: at(10, 0), active: true, note: 'y' },
  ];
}

/** One implementation under test. */
export interface ConformanceTarget {
  /** Shown in the test names. */
  readonly name: string;
  /** A queryset over these rows (in this order, which is primary-key order). */
  open(rows: readonly ConformanceRow[], fields: Readonly<Record<string, FieldInfo>>): Promise<Queryset<ConformanceRow>>;
  /** Releases what `open` made. */
  close?(): Promise<void>;
  /** Whether estimateCount() gives a number (else it must be null). */
  readonly estimates: boolean;
  /** Skip the whole suite with this reason. */
  readonly skip?: string;
  /** Whether text may hold U+0000 (default true; PostgreSQL's text cannot). */
  readonly holdsNul?: boolean;
  /** Whether a float may be NaN (default false; PostgreSQL's double precision can). */
  readonly holdsNaN?: boolean;
}

const ids = (rows: readonly { id: number }[]): number[] => rows.map((r) => r.id);

/** Registers the conformance tests for one target. */
export function conformanceSuite(target: ConformanceTarget): void {
  describe(`Queryset conformance: ${target.name}`, { skip: target.skip ?? false }, () => {
    let qs: Queryset<ConformanceRow>;
    const rows = conformanceRows();
    before(async () => {
      qs = await target.open(rows, conformanceFields);
    });
    after(async () => {
      await target.close?.();
    });

    test('is a Queryset; rows come back exactly (Dates, booleans, NULLs); unordered is primary-key order', async () => {
      assert.ok(isQueryset(qs));
      assert.equal(qs.primaryKey, 'id');
      assert.deepEqual(Object.keys(qs.fields).sort(), Object.keys(conformanceFields).sort());
      assert.deepEqual(qs.ordering, []);
      assert.deepEqual(await qs.all(), rows);
      const [first] = await qs.slice(0, 1);
      assert.ok(first!.created instanceof Date);
      assert.equal(first!.active, true);
    });

    test('orderBy: ascending puts NULL first, ties by the primary key ascending', async () => {
      assert.deepEqual(ids(await qs.orderBy('price').all()), [2, 6, 3, 7, 5, 10, 1, 4, 8, 9]);
      assert.deepEqual(ids(await qs.orderBy('active').all()), [4, 9, 2, 5, 7, 1, 3, 6, 8, 10]);
      assert.deepEqual(ids(await qs.orderBy('note').all()), [2, 6, 9, 8, 1, 4, 7, 3, 10, 5]);
      assert.deepEqual(ids(await qs.orderBy('score').all()), [6, 8, 4, 3, 1, 9, 2, 7, 10, 5]);
    });

    test('orderBy: descending puts NULL last, tie-breaker descending (exact reverse)', async () => {
      assert.deepEqual(ids(await qs.orderBy('-price').all()), [9, 8, 4, 1, 10, 5, 7, 3, 6, 2]);
      assert.deepEqual(ids(await qs.orderBy('-active').all()), [10, 8, 6, 3, 1, 7, 5, 2, 9, 4]);
      assert.deepEqual(ids(await qs.orderBy('-note').all()), [5, 10, 3, 7, 4, 1, 8, 9, 6, 2]);
    });

    test('orderBy: text by code point, multi-field, tie-breaker in the direction of the last term', async () => {
      assert.deepEqual(ids(await qs.orderBy('name').all()), [5, 2, 4, 7, 1, 6, 10, 3, 9, 8]);
      assert.deepEqual(ids(await qs.orderBy('name', '-price').all()), [5, 4, 7, 2, 1, 10, 6, 9, 3, 8]);
      assert.deepEqual(ids(await qs.orderBy('-name', 'price').all()), [8, 3, 9, 6, 10, 1, 2, 7, 4, 5]);
      assert.deepEqual(ids(await qs.orderBy('-score', 'name').all()), [5, 10, 2, 7, 1, 9, 3, 4, 8, 6]);
    });

    test('orderBy: unique fields and the primary key need no tie-breaker; ordering reports the terms as given', async () => {
      const created = qs.orderBy('-created');
      assert.deepEqual(created.ordering, ['-created']);
      assert.deepEqual(ids(await created.all()), [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      assert.deepEqual(ids(await qs.orderBy('-id').all()), [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      assert.deepEqual(ids(await qs.orderBy('id').all()), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const multi = qs.orderBy('price', '-created');
      assert.deepEqual(multi.ordering, ['price', '-created']);
      assert.deepEqual(ids(await multi.all()), [6, 2, 7, 3, 10, 5, 8, 4, 1, 9]);
      // A later orderBy replaces the ordering.
      assert.deepEqual(ids(await qs.orderBy('-price').orderBy('price').all()), [2, 6, 3, 7, 5, 10, 1, 4, 8, 9]);
    });

    test('filter on a nullable field: NULL is smaller than every value', async () => {
      const f = async (op: 'lt' | 'lte' | 'gt' | 'gte' | 'eq', v: unknown) =>
        ids(await qs.filter('price', op, v).all());
      assert.deepEqual(await f('lt', 20), [2, 3, 6, 7]);
      assert.deepEqual(await f('lte', 20), [2, 3, 5, 6, 7, 10]);
      assert.deepEqual(await f('gt', 20), [1, 4, 8, 9]);
      assert.deepEqual(await f('gte', 20), [1, 4, 5, 8, 9, 10]);
      assert.deepEqual(await f('eq', 30), [1, 4, 8]);
      assert.deepEqual(await f('eq', 31), []);
      assert.deepEqual(await f('eq', null), [2, 6]);
      assert.deepEqual(await f('lt', null), []);
      assert.deepEqual(await f('lte', null), [2, 6]);
      assert.deepEqual(await f('gt', null), [1, 3, 4, 5, 7, 8, 9, 10]);
      assert.deepEqual(await f('gte', null), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      assert.deepEqual(ids(await qs.filter('active', 'lt', true).all()), [2, 4, 5, 7, 9]);
      assert.deepEqual(ids(await qs.filter('active', 'gt', false).all()), [1, 3, 6, 8, 10]);
      assert.deepEqual(ids(await qs.filter('active', 'eq', true).all()), [1, 3, 6, 8, 10]);
      assert.deepEqual(ids(await qs.filter('note', 'lt', 'y').all()), [1, 2, 4, 6, 7, 8, 9]);
      assert.deepEqual(ids(await qs.filter('note', 'gte', 'y').all()), [3, 5, 10]);
    });

    test('filter on non-nullable fields: datetimes with and without a fraction, floats, text', async () => {
      const r = rows;
      assert.deepEqual(ids(await qs.filter('created', 'lt', r[4]!.created).all()), [1, 2, 3, 4]);
      assert.deepEqual(ids(await qs.filter('created', 'lte', r[1]!.created).all()), [1, 2]);
      assert.deepEqual(ids(await qs.filter('created', 'gte', r[4]!.created).all()), [5, 6, 7, 8, 9, 10]);
      assert.deepEqual(ids(await qs.filter('created', 'gt', r[6]!.created).all()), [8, 9, 10]);
      assert.deepEqual(ids(await qs.filter('created', 'eq', r[2]!.created).all()), [3]);
      assert.deepEqual(ids(await qs.filter('created', 'eq', r[1]!.created).all()), [2]);
      assert.deepEqual(ids(await qs.filter('created', 'lt', at(2, 1)).all()), [1, 2]);
      assert.deepEqual(ids(await qs.filter('created', 'gt', at(1, 499)).all()), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      assert.deepEqual(ids(await qs.filter('score', 'gt', 1.5).all()), [2, 5, 7, 10]);
      assert.deepEqual(ids(await qs.filter('score', 'lte', 0).all()), [6, 8]);
      assert.deepEqual(ids(await qs.filter('score', 'lt', 0.001).all()), [4, 6, 8]);
      assert.deepEqual(ids(await qs.filter('name', 'eq', 'a').all()), [2, 4, 7]);
      assert.deepEqual(ids(await qs.filter('name', 'lt', 'a').all()), [5]);
      assert.deepEqual(ids(await qs.filter('name', 'gt', 'c').all()), [8]);
      assert.deepEqual(ids(await qs.filter('id', 'gte', 9).all()), [9, 10]);
    });

    test('filter: string values for non-text fields are read as positions', async () => {
      assert.deepEqual(ids(await qs.filter('price', 'gt', '20').all()), [1, 4, 8, 9]);
      assert.deepEqual(ids(await qs.filter('created', 'lt', '2020-01-01 00:00:05.250000+00:00').all()), [1, 2, 3, 4]);
      assert.deepEqual(ids(await qs.filter('active', 'eq', 'False').all()), [2, 5, 7]);
      assert.throws(() => qs.filter('price', 'gt', 'abc'), ConfigurationError);
    });

    test('filters combine (AND) with each other and with orderings; keyset pages', async () => {
      assert.deepEqual(ids(await qs.filter('price', 'gte', 20).filter('name', 'eq', 'b').all()), [1, 10]);
      assert.deepEqual(
        ids(await qs.filter('price', 'gte', 20).filter('name', 'eq', 'b').orderBy('price').all()),
        [10, 1],
      );
      assert.deepEqual(ids(await qs.orderBy('-price').filter('price', 'lt', 30).slice(0, 3)), [10, 5, 7]);
      assert.deepEqual(
        ids(await qs.orderBy('-created').filter('created', 'lt', rows[5]!.created).slice(0, 3)),
        [5, 4, 3],
      );
      assert.deepEqual(
        ids(await qs.orderBy('created').filter('created', 'gt', rows[5]!.created).slice(0, 3)),
        [7, 8, 9],
      );
      assert.deepEqual(
        ids(await qs.filter('price', 'gt', 10).filter('price', 'lt', 40).orderBy('-price', 'name').all()),
        [4, 1, 8, 5, 10],
      );
    });

    test('orderKey and seekAfter: every place of every ordering (NULLs, mixed directions, ties) seeks to the rows after it', async () => {
      assert.deepEqual(qs.orderKey, ['id']);
      assert.deepEqual(qs.orderBy('-price').orderKey, ['-price', '-id']);
      assert.deepEqual(qs.orderBy('-created').orderKey, ['-created']);
      assert.deepEqual(qs.orderBy('name', '-price').orderKey, ['name', '-price', '-id']);
      const orderings: string[][] = [
        ['id'],
        ['-id'],
        ['price'],
        ['-price'],
        ['score'],
        ['-score'],
        ['name', '-price'],
        ['-name', 'price'],
        ['active', 'note'],
        ['-note', '-active'],
        ['-created'],
        ['price', '-created'],
      ];
      for (const ordering of orderings) {
        const ordered = qs.orderBy(...ordering);
        const all = await ordered.all();
        const key = ordered.orderKey;
        const fields = key.map((t) => (t.startsWith('-') ? t.slice(1) : t));
        for (let i = 0; i < all.length; i++) {
          const row = all[i]!;
          const values = fields.map((f) => row[f as keyof ConformanceRow]);
          const want = ids(all.slice(i + 1));
          assert.deepEqual(
            ids(await ordered.seekAfter(values).all()),
            want,
            `${ordering.join(',')} after id ${row.id}`,
          );
          // Positions (what a cursor carries) read back with parsePosition seek the same way.
          const parsed = fields.map((f) => {
            const v = ordered.parsePosition(f, ordered.position(row, f));
            return v;
          });
          assert.deepEqual(
            ids(await ordered.seekAfter(parsed).all()),
            want,
            `${ordering.join(',')} positions of ${row.id}`,
          );
          // The reversed ordering seeks to the rows before the place, nearest first.
          const reversed = qs.orderBy(...key.map((t) => (t.startsWith('-') ? t.slice(1) : `-${t}`)));
          assert.deepEqual(
            ids(await reversed.seekAfter(values).all()),
            ids(all.slice(0, i).reverse()),
            `${ordering.join(',')} before id ${row.id}`,
          );
          // Counting and slicing see the seek too.
          assert.equal(await ordered.seekAfter(values).count(), want.length);
          assert.deepEqual(ids(await ordered.seekAfter(values).slice(0, 2)), want.slice(0, 2));
        }
      }
      // A place between rows (no row holds it) and a place before every row.
      assert.deepEqual(ids(await qs.orderBy('price').seekAfter([25, 0]).all()), [1, 4, 8, 9]);
      assert.deepEqual(ids(await qs.orderBy('price').seekAfter([null, 0]).all()), [2, 6, 3, 7, 5, 10, 1, 4, 8, 9]);
      assert.deepEqual(ids(await qs.orderBy('-price').seekAfter([null, 0]).all()), []);
      assert.throws(() => qs.orderBy('price').seekAfter([1]), ConfigurationError);
      // The seek keeps its place when the ordering changes afterwards, and combines with filters.
      assert.deepEqual(ids(await qs.orderBy('price').seekAfter([20, 5]).orderBy('-id').all()), [10, 9, 8, 4, 1]);
      assert.deepEqual(ids(await qs.orderBy('price').filter('name', 'eq', 'a').seekAfter([10, 3]).all()), [7, 4]);
    });

    test('the same query shape with other values (compiled-statement reuse) gives the right rows', async () => {
      for (const [v, expected] of [
        [20, [2, 3, 6, 7]],
        [null, []],
        [40, [1, 2, 3, 4, 5, 6, 7, 8, 10]],
        [11, [2, 3, 6, 7]],
        [0, [2, 6]],
      ] as const) {
        assert.deepEqual(ids(await qs.orderBy('id').filter('price', 'lt', v).all()), expected, `price < ${v}`);
      }
      for (let i = 0; i < 10; i++)
        assert.deepEqual(
          ids(await qs.orderBy('price').slice(i, i + 2)),
          [2, 6, 3, 7, 5, 10, 1, 4, 8, 9].slice(i, i + 2),
        );
    });

    test('slice bounds', async () => {
      const o = qs.orderBy('price');
      assert.deepEqual(ids(await o.slice(0, 3)), [2, 6, 3]);
      assert.deepEqual(ids(await o.slice(3, 6)), [7, 5, 10]);
      assert.deepEqual(ids(await o.slice(8, 100)), [8, 9]);
      assert.deepEqual(await o.slice(10, 20), []);
      assert.deepEqual(await o.slice(100, 200), []);
      assert.deepEqual(await o.slice(5, 5), []);
      assert.deepEqual(await o.slice(6, 3), []);
      assert.deepEqual(ids(await o.slice(7, Infinity)), [4, 8, 9]);
      assert.deepEqual(ids(await o.slice(0, Infinity)), [2, 6, 3, 7, 5, 10, 1, 4, 8, 9]);
      assert.deepEqual(ids(await o.slice(-5, 2)), [2, 6]);
      assert.deepEqual(ids(await qs.filter('price', 'gt', null).orderBy('-price').slice(1, 4)), [8, 4, 1]);
      assert.deepEqual(ids(await qs.slice(0, 2)), [1, 2]);
    });

    test('slice bounds beyond 2^53 (what no table holds): past the end is empty, an end past it reads to the end', async () => {
      const o = qs.orderBy('price');
      assert.deepEqual(await o.slice(2 ** 53 + 2, 2 ** 53 + 20), []);
      assert.deepEqual(await o.slice(1e20, 1e20 + 11), []);
      assert.deepEqual(await o.slice(1e20, Infinity), []);
      assert.deepEqual(ids(await o.slice(0, 1e20)), [2, 6, 3, 7, 5, 10, 1, 4, 8, 9]);
      assert.deepEqual(ids(await o.slice(7, 2 ** 64)), [4, 8, 9]);
      assert.deepEqual(ids(await o.slice(8, Number.MAX_SAFE_INTEGER + 1)), [8, 9]);
    });

    test('count: exact, filtered, capped; estimateCount', async () => {
      assert.equal(await qs.count(), 10);
      assert.equal(await qs.orderBy('-price').count(), 10);
      assert.equal(await qs.filter('price', 'eq', null).count(), 2);
      assert.equal(await qs.filter('price', 'lt', null).count(), 0);
      assert.equal(await qs.count({ cap: 3 }), 3);
      assert.equal(await qs.count({ cap: 10 }), 10);
      assert.equal(await qs.count({ cap: 100 }), 10);
      assert.equal(await qs.count({ cap: 0 }), 0);
      assert.equal(await qs.filter('price', 'gt', null).count({ cap: 5 }), 5);
      assert.equal(await qs.filter('name', 'eq', 'a').count({ cap: 5 }), 3);
      const estimate = await qs.estimateCount();
      const filtered = await qs.filter('price', 'gt', 10).estimateCount();
      if (target.estimates) {
        assert.equal(typeof estimate, 'number');
        assert.ok(estimate! >= 0 && typeof filtered === 'number' && filtered >= 0, `estimates ${estimate} ${filtered}`);
      } else {
        assert.equal(estimate, null);
        assert.equal(filtered, null);
      }
    });

    test('cacheKey names source, filters and ordering', () => {
      const a = qs.filter('price', 'lt', 20).orderBy('-price');
      assert.equal(typeof a.cacheKey, 'string');
      assert.equal(a.cacheKey, qs.filter('price', 'lt', 20).orderBy('-price').cacheKey);
      const others = [
        qs,
        qs.filter('price', 'lt', 21).orderBy('-price'),
        qs.filter('price', 'lte', 20).orderBy('-price'),
        qs.filter('price', 'lt', 20).orderBy('price'),
        qs.filter('price', 'lt', null).orderBy('-price'),
        qs.filter('score', 'lt', 20).orderBy('-price'),
        qs.filter('price', 'lt', 20),
      ];
      const keys = new Set([a.cacheKey, ...others.map((q) => q.cacheKey)]);
      assert.equal(keys.size, others.length + 1);
      assert.notEqual(qs.filter('created', 'lt', at(1, 0)).cacheKey, qs.filter('created', 'lt', at(1, 1)).cacheKey);
    });

    test('position: Python str() of int, float, datetime with and without fraction, boolean, NULL, text', () => {
      const r = rows;
      assert.equal(qs.position(r[0]!, 'id'), '1');
      assert.equal(qs.position(r[0]!, 'price'), '30');
      assert.equal(qs.position(r[1]!, 'price'), 'None');
      assert.equal(qs.position(r[0]!, 'score'), '1.5');
      assert.equal(qs.position(r[1]!, 'score'), '2.0');
      assert.equal(qs.position(r[3]!, 'score'), '1e-05');
      assert.equal(qs.position(r[4]!, 'score'), '1e+16');
      assert.equal(qs.position(r[5]!, 'score'), '-3.0');
      assert.equal(qs.position(r[7]!, 'score'), '0.0');
      assert.equal(qs.position(r[0]!, 'created'), '2020-01-01 00:00:01.500000+00:00');
      assert.equal(qs.position(r[1]!, 'created'), '2020-01-01 00:00:02+00:00');
      assert.equal(qs.position(r[2]!, 'created'), '2020-01-01 00:00:03.037000+00:00');
      assert.equal(qs.position(r[7]!, 'created'), '2020-01-01 00:00:08.001000+00:00');
      assert.equal(qs.position(r[0]!, 'active'), 'True');
      assert.equal(qs.position(r[1]!, 'active'), 'False');
      assert.equal(qs.position(r[3]!, 'active'), 'None');
      assert.equal(qs.position(r[0]!, 'name'), 'b');
      assert.equal(qs.position(r[7]!, 'name'), 'é');
      assert.equal(qs.position(r[1]!, 'note'), 'None');
      assert.equal(
        qs.position({ ...r[0]!, created: new Date(Date.UTC(2020, 0, 1, 0, 16, 31, 667)) }, 'created'),
        '2020-01-01 00:16:31.667000+00:00',
      );
    });

    test('position of rows read from the source equals position of the source rows', async () => {
      const read = await qs.all();
      for (let i = 0; i < rows.length; i++) {
        for (const field of Object.keys(conformanceFields))
          assert.equal(qs.position(read[i]!, field), qs.position(rows[i]!, field), `${field} of row ${i + 1}`);
      }
    });

    test('parsePosition reads every position back; the value filters to its row', async () => {
      for (const row of rows) {
        for (const field of Object.keys(conformanceFields) as (keyof ConformanceRow)[]) {
          const value = qs.parsePosition(field, qs.position(row, field));
          assert.deepEqual(value, row[field], `${field} of row ${row.id}`);
          const matches = ids(await qs.filter(field, 'eq', value).all());
          assert.ok(
            row[field] === null || matches.includes(row.id),
            `${field} eq ${String(value)} -> ${matches.join(',')}`,
          );
        }
      }
    });

    test('parsePosition: Python int()/float(), Django datetimes and booleans; INVALID_POSITION for garbage', () => {
      assert.equal(qs.parsePosition('price', ' +1_0 '), 10);
      assert.equal(qs.parsePosition('price', 'None'), null);
      assert.equal(qs.parsePosition('id', 'None'), INVALID_POSITION);
      assert.equal(qs.parsePosition('price', 'abc'), INVALID_POSITION);
      assert.equal(qs.parsePosition('price', '1.5'), INVALID_POSITION);
      assert.equal(qs.parsePosition('price', ''), INVALID_POSITION);
      assert.equal(qs.parsePosition('score', '1e-05'), 1e-5);
      assert.equal(qs.parsePosition('score', 'inf'), Infinity);
      assert.equal(qs.parsePosition('score', '1e'), INVALID_POSITION);
      assert.equal(qs.parsePosition('score', 'x1'), INVALID_POSITION);
      assert.deepEqual(
        qs.parsePosition('created', '2020-01-01 00:16:31.667000+00:00'),
        new Date(Date.UTC(2020, 0, 1, 0, 16, 31, 667)),
      );
      assert.deepEqual(qs.parsePosition('created', '2020-01-01T00:00:01.5Z'), at(1, 500));
      assert.deepEqual(qs.parsePosition('created', '2020-01-01 02:00:01.500+02:00'), at(1, 500));
      assert.deepEqual(qs.parsePosition('created', '2020-01-01'), at(0, 0));
      assert.equal(qs.parsePosition('created', 'not-a-date'), INVALID_POSITION);
      assert.equal(qs.parsePosition('created', '2020-02-30 00:00:00'), INVALID_POSITION);
      assert.equal(qs.parsePosition('created', '2020-01-01 00:16:31.667000 00:00'), INVALID_POSITION);
      assert.equal(qs.parsePosition('created', 'None'), INVALID_POSITION);
      assert.equal(qs.parsePosition('active', 'True'), true);
      assert.equal(qs.parsePosition('active', '0'), false);
      assert.equal(qs.parsePosition('active', 'None'), null);
      assert.equal(qs.parsePosition('active', 'yes'), INVALID_POSITION);
      assert.equal(qs.parsePosition('name', 'None'), 'None');
      assert.equal(qs.parsePosition('note', 'None'), null);
      assert.equal(qs.parsePosition('name', ''), '');
    });

    test('parsePosition rejects what the column cannot hold: 64-bit and declared widths, dates outside 1..9999, NaN, NUL, overlong text', async () => {
      const invalid: [keyof ConformanceRow, string][] = [
        ['id', '9223372036854775808'],
        ['id', '-9223372036854775809'],
        ['id', '99999999999999999999999999'],
        ['id', '1e999'],
        ['id', 'NaN'],
        ['price', '2147483648'], // declared 32 bits (PostgreSQL integer)
        ['price', '-2147483649'],
        ['price', '9223372036854775807'],
        ['created', '9999-12-31 23:59:59-01:00'], // year 10000 in UTC
        ['created', '0001-01-01 00:00:00+00:01'], // year 0 in UTC
        ['created', '2020-01-01 00:00:00\u0000'],
        ['name', 'x'.repeat(4097)],
        ['id', `${' '.repeat(4096)}1`],
      ];
      if (target.holdsNaN !== true) invalid.push(['score', 'nan'], ['score', 'NaN'], ['score', '-nan']);
      if (target.holdsNul === false) invalid.push(['name', 'a\u0000b'], ['note', '\u0000']);
      for (const [field, p] of invalid)
        assert.equal(qs.parsePosition(field, p), INVALID_POSITION, `${field} ${JSON.stringify(p.slice(0, 40))}`);

      const valid: [keyof ConformanceRow, string, unknown][] = [
        ['id', '9223372036854775807', 9223372036854775807n],
        ['id', '-9223372036854775808', -9223372036854775808n],
        ['id', '9007199254740993', 9007199254740993n],
        ['price', '2147483647', 2147483647],
        ['price', '-2147483648', -2147483648],
        ['score', 'inf', Infinity],
        ['score', '1e999', Infinity], // Python's float('1e999')
        ['score', '-Infinity', -Infinity],
        ['score', '5e-324', 5e-324],
        ['created', '9999-12-31 23:59:59.999999+00:00', new Date('9999-12-31T23:59:59.999Z')],
        ['created', '0001-01-01 00:00:00+00:00', new Date('0001-01-01T00:00:00Z')],
        ['created', '0001-01-01 00:30:00+00:30', new Date('0001-01-01T00:00:00Z')],
        ['name', 'x'.repeat(4096), 'x'.repeat(4096)],
      ];
      if (target.holdsNaN === true) valid.push(['score', 'nan', NaN]);
      if (target.holdsNul !== false) valid.push(['name', 'a\u0000b', 'a\u0000b']);
      for (const [field, p, expected] of valid) {
        const value = qs.parsePosition(field, p);
        assert.deepEqual(value, expected, `${field} ${JSON.stringify(p.slice(0, 40))}`);
        // Whatever parsePosition accepts, the source can use: both keyset directions run.
        for (const op of ['gt', 'lt'] as const) await qs.orderBy(field).filter(field, op, value).slice(0, 2);
      }
    });

    test('immutability: orderBy and filter return new querysets; results are fresh arrays', async () => {
      const ordered = qs.orderBy('-price');
      const filtered = ordered.filter('price', 'gt', 20);
      assert.notEqual(ordered, qs);
      assert.notEqual(filtered, ordered);
      assert.deepEqual(qs.ordering, []);
      assert.deepEqual(ordered.ordering, ['-price']);
      assert.deepEqual(filtered.ordering, ['-price']);
      assert.ok(Object.isFrozen(ordered.ordering));
      assert.equal(await ordered.count(), 10);
      assert.equal(await filtered.count(), 4);
      assert.equal(await qs.count(), 10);
      const page = await ordered.slice(0, 3);
      page.reverse();
      page.pop();
      assert.deepEqual(ids(await ordered.slice(0, 3)), [9, 8, 4]);
      assert.deepEqual(ids(await filtered.all()), [9, 8, 4, 1]);
    });

    test('unknown fields and comparisons are ConfigurationErrors', () => {
      assert.throws(() => qs.orderBy('nope'), ConfigurationError);
      assert.throws(() => qs.orderBy('-nope'), ConfigurationError);
      assert.throws(() => qs.filter('nope', 'eq', 1), ConfigurationError);
      assert.throws(() => qs.filter('price', 'ne' as 'eq', 1), ConfigurationError);
      assert.throws(() => qs.position(rows[0]!, 'nope'), ConfigurationError);
      assert.throws(() => qs.parsePosition('nope', '1'), ConfigurationError);
    });
  });
}

// ---------------------------------------------------------------------------
// SQL helpers shared by the SQL tests

/** How a test table stores its datetime columns, and whether the queryset is told (else it detects it). */
export interface DatetimeColumns {
  readonly storage: DatetimeStorage;
  readonly declare?: boolean;
}

/** The default storage of a dialect (what the tables of the tests before datetime storages held). */
const DEFAULT_DATETIMES = {
  sqlite: { storage: 'sql-text' },
  postgres: { storage: 'timestamptz' },
} as const satisfies Record<SqlDialectKind, DatetimeColumns>;

/** The column type of a datetime stored as `storage`. */
function datetimeColumn(dialect: SqlDialectKind, storage: DatetimeStorage): string {
  if (dialect === 'sqlite') return storage === 'epoch-ms' ? 'INTEGER' : storage === 'iso-text' ? 'TEXT' : 'DATETIME';
  return storage === 'epoch-ms'
    ? 'bigint'
    : storage === 'timestamptz'
      ? 'timestamptz'
      : storage === 'timestamp'
        ? 'timestamp'
        : 'text collate "C"';
}

/** A Date as a column of `storage` holds it (what an application writing that format inserts). */
export function storedDatetime(storage: DatetimeStorage, d: Date): unknown {
  switch (storage) {
    case 'sql-text':
    case 'timestamp': // as text: pg would send a Date in the process's time zone
      return formatSqliteDatetime(d);
    case 'iso-text':
      return d.toISOString();
    case 'epoch-ms':
      return d.getTime();
    default:
      // timestamptz as text with its offset: pg writes a Date in the process's time zone, whose offset it
      // rounds to minutes (years before 1900 in a zone with local mean time lose seconds).
      return pythonDatetimeStr(d);
  }
}

/** The column type of a field in a test table. */
function columnType(
  dialect: SqlDialectKind,
  info: FieldInfo,
  primary: boolean,
  datetimes: DatetimeColumns = DEFAULT_DATETIMES[dialect],
): string {
  const pk = primary ? ' primary key' : '';
  if (info.type === 'datetime') return datetimeColumn(dialect, datetimes.storage) + pk;
  if (dialect === 'sqlite')
    return (
      { integer: 'INTEGER', float: 'REAL', text: 'TEXT', datetime: 'DATETIME', boolean: 'BOOLEAN' }[info.type] + pk
    );
  // The declared width picks the PostgreSQL type (64 bits when none is declared, as the queryset assumes);
  // bigint ids come back from pg as text: the queryset must turn them into numbers.
  const integer = info.bits === 16 ? 'smallint' : info.bits === 32 ? 'integer' : 'bigint';
  const float = info.bits === 32 ? 'real' : 'double precision';
  return { integer, float, text: 'text collate "C"', datetime: 'timestamptz', boolean: 'boolean' }[info.type] + pk;
}

/**
 * Creates `table` with columns for `fields`, inserts `rows` (booleans in
 * the dialect's form, Dates as `datetimes.storage`: by default SQLite's
 * datetime text and PostgreSQL's timestamptz), and returns a SqlQueryset
 * over it (told the storage with `datetimes.declare`, else detecting it).
 */
export async function sqlSource<Row extends object>(
  db: Kysely<never>,
  dialect: SqlDialectKind,
  table: string,
  fields: Readonly<Record<string, FieldInfo>>,
  rows: readonly Row[],
  primaryKey = 'id',
  sqliteDatabase?: import('better-sqlite3').Database,
  datetimes: DatetimeColumns = DEFAULT_DATETIMES[dialect],
): Promise<SqlQueryset<Row>> {
  const names = Object.keys(fields);
  const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
  const cols = names.map(
    (n) =>
      `${quote(n)} ${columnType(dialect, fields[n]!, n === primaryKey, datetimes)}${fields[n]!.unique === true && n !== primaryKey ? ' unique' : ''}`,
  );
  await sql`create table ${sql.raw(quote(table))} (${sql.raw(cols.join(', '))})`.execute(db);
  for (let i = 0; i < rows.length; i += 200) {
    const values = rows.slice(i, i + 200).map((row) => {
      const out: Record<string, unknown> = {};
      for (const n of names) {
        const v = (row as Record<string, unknown>)[n];
        out[n] =
          v instanceof Date
            ? storedDatetime(datetimes.storage, v)
            : dialect === 'sqlite' && typeof v === 'boolean'
              ? v
                ? 1
                : 0
              : v;
      }
      return out;
    });
    if (values.length > 0)
      await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
        .insertInto(table)
        .values(values)
        .execute();
  }
  const declared =
    datetimes.declare === true
      ? Object.fromEntries(
          names.map((n) => [
            n,
            fields[n]!.type === 'datetime' ? { ...fields[n]!, storage: datetimes.storage } : fields[n]!,
          ]),
        )
      : fields;
  return new SqlQueryset<Row>({
    db,
    table,
    fields: declared,
    primaryKey,
    dialect,
    ...(sqliteDatabase ? { sqliteDatabase } : {}),
  });
}

/** The PostgreSQL the tests use, or why not. */
export interface PostgresProbe {
  /** postgres://user@127.0.0.1:5432/test when reachable. */
  readonly url: string | null;
  /** The skip reason (EVENTIDE_SKIP_POSTGRES=1 and unreachable) or undefined. */
  readonly skip: string | undefined;
  /** Why it is unreachable. */
  readonly error: string | null;
}

/** Finds the PostgreSQL on 127.0.0.1:5432 (database test, trust auth, user postgres or root). */
export async function probePostgres(): Promise<PostgresProbe> {
  const errors: string[] = [];
  for (const user of ['postgres', 'root']) {
    const url = `postgres://${user}@127.0.0.1:5432/test`;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return { url, skip: undefined, error: null };
    } catch (err) {
      errors.push(`${user}: ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => {});
    }
  }
  const error = `PostgreSQL is not reachable at postgres://{postgres,root}@127.0.0.1:5432/test (${errors.join('; ')}). Start it (.ci/run does) or set EVENTIDE_SKIP_POSTGRES=1 to skip the PostgreSQL tests.`;
  return {
    url: null,
    skip:
      process.env.EVENTIDE_SKIP_POSTGRES === '1' ? 'PostgreSQL not reachable and EVENTIDE_SKIP_POSTGRES=1' : undefined,
    error,
  };
}

/** A fresh schema for one test run, with a Kysely whose search_path is that schema; `drop()` removes it. */
export async function postgresSchema(
  url: string,
  prefix: string,
): Promise<{ schema: string; url: string; db: Kysely<never>; drop(): Promise<void> }> {
  const schema = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  const scoped = `${url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const db = new Kysely<never>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: scoped, max: 4 }) }),
  });
  return {
    schema,
    url: scoped,
    db,
    async drop() {
      await db.destroy();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`drop schema "${schema}" cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

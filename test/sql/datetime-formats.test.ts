/**
 * The datetime storage formats (src/sql/datetime-formats.ts): each reads
 * back exactly what it writes, for every instant of years 1..9999, and
 * refuses every other text (rolled-over fields, other fractions, other
 * separators), since another text of the same instant would compare
 * differently in the database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  datetimeCodec,
  DatetimeParam,
  inStorageRange,
  readEpochMs,
  readIsoText,
  readSqlText,
  showValue,
  sqlText,
  storageOfValue,
} from '../../src/sql/datetime-formats.js';
import { sqlTextReference } from '../support/datetime-reference.js';

const MIN = new Date('0001-01-01T00:00:00.000Z').getTime();
const MAX = new Date('9999-12-31T23:59:59.999Z').getTime();

test('sql-text and iso-text: every instant of years 1..9999 is written once and read back to itself; text order is time order', () => {
  const instant = fc.oneof(
    fc.integer({ min: MIN, max: MAX }),
    // Whole seconds: sql-text without a fraction, next to the same second with one.
    fc.integer({ min: MIN / 1000, max: Math.floor(MAX / 1000) }).map((s) => s * 1000),
    fc.constantFrom(MIN, MAX, 0, -1, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(1900, 1, 28, 12)),
  );
  fc.assert(
    fc.property(instant, instant, (a, b) => {
      for (const t of [a, b]) {
        const text = sqlText(t);
        assert.equal(text, sqlTextReference(new Date(t)));
        assert.equal(readSqlText(text)?.getTime(), t, text);
        assert.equal(readIsoText(text), null);
        const iso = new Date(t).toISOString();
        assert.equal(readIsoText(iso)?.getTime(), t, iso);
        assert.equal(readSqlText(iso), null);
        assert.equal(storageOfValue(text, 'sqlite'), 'sql-text');
        assert.equal(storageOfValue(iso, 'sqlite'), 'iso-text');
      }
      // What the database compares: the texts (code point order) order as the instants do.
      const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
      assert.equal(cmp(sqlText(a), sqlText(b)), Math.sign(a - b));
      assert.equal(cmp(new Date(a).toISOString(), new Date(b).toISOString()), Math.sign(a - b));
    }),
    { seed: 2705, numRuns: 5000 },
  );
});

test('sql-text refuses every other text: rolled-over fields, other fractions, other separators, non-digits', () => {
  for (const text of [
    '2021-02-29 00:00:00', // no such day (the old reader rolled it over to March 1st)
    '2020-02-30 10:00:00',
    '2020-04-31 00:00:00',
    '2020-13-01 00:00:00',
    '2020-01-00 00:00:00',
    '2020-01-01 24:00:00',
    '2020-01-01 00:60:00',
    '2020-01-01 00:00:60',
    '0000-01-01 00:00:00',
    '2020-01-01 00:00:01.5', // the same instant as .500000, another text
    '2020-01-01 00:00:01.500', // SQLite's strftime('%f')
    '2020-01-01 00:00:01.000000', // the same instant as no fraction
    '2020-01-01 00:00:01.123456', // microseconds: compared as text they are above the millisecond's position
    '2020-01-01 00:00:01.',
    '2020-01-01T00:00:01',
    '2020-01-01 00:00:01Z',
    '2020-01-01 00:00:01+00:00',
    '2020-1-01 00:00:01',
    '2020-01-01  0:00:01',
    'x020-01-01 00:00:00',
    '2020-0x-01 00:00:00',
    '2020-01-01 0x:00:00',
    '2020-01-01 00:00:00.5x0000',
    '2020-01-01 00:00:00.123x00',
    ' 2020-01-01 00:00:00',
    '2020-01-01 00:00:00 ',
    '',
  ])
    assert.equal(readSqlText(text), null, text);
  assert.equal(readSqlText('2020-02-29 12:00:00')?.toISOString(), '2020-02-29T12:00:00.000Z');
  assert.equal(readSqlText('0001-01-01 00:00:00')?.toISOString(), '0001-01-01T00:00:00.000Z');
  assert.equal(readSqlText('2020-01-01 00:00:00.001000')?.toISOString(), '2020-01-01T00:00:00.001Z');
});

test('iso-text refuses every other text: no milliseconds, offsets, a space, six digits, rolled-over fields', () => {
  for (const text of [
    '2026-01-05T10:00:00Z', // sorts after 10:00:00.500Z as text: refused
    '2026-01-05T10:00:00.000+00:00',
    '2026-01-05T10:00:00.000z',
    '2026-01-05 10:00:00.000Z',
    '2026-01-05T10:00:00.000000Z',
    '2026-01-05T10:00:00.0Z',
    '+012026-01-05T10:00:00.000Z',
    '2026-02-29T10:00:00.000Z',
    '2026-01-05T24:00:00.000Z',
    '2026-01-05T10:00:00.00xZ',
    '0000-01-01T00:00:00.000Z',
  ])
    assert.equal(readIsoText(text), null, text);
  assert.equal(readIsoText('2026-01-05T10:00:00.000Z')?.getTime(), Date.UTC(2026, 0, 5, 10));
});

test('epoch-ms: integers within years 1..9999 (text digits only from PostgreSQL); codecs bind what they read', () => {
  assert.equal(readEpochMs(1767607200000, false)?.getTime(), 1767607200000);
  assert.equal(readEpochMs(-1, false)?.getTime(), -1);
  assert.equal(readEpochMs(1767607200000n, false)?.getTime(), 1767607200000);
  assert.equal(readEpochMs('1767607200000', false), null); // SQLite text: it orders as text
  assert.equal(readEpochMs('1767607200000', true)?.getTime(), 1767607200000);
  assert.equal(readEpochMs('-62135596800000', true)?.getTime(), MIN);
  for (const v of [1.5, NaN, Infinity, MAX + 1, MIN - 1, '1.5', '', '1e3', ' 1', true, null, new Date(0)])
    assert.equal(readEpochMs(v, true), null, String(v));
  assert.equal(storageOfValue(1767607200000, 'sqlite'), 'epoch-ms');
  assert.equal(storageOfValue('1767607200000', 'sqlite'), null);
  assert.equal(storageOfValue('1767607200000', 'postgres'), 'epoch-ms');
  assert.equal(storageOfValue(1.5, 'sqlite'), null);
  assert.equal(storageOfValue(Buffer.from('x'), 'sqlite'), null);

  const t = Date.UTC(2026, 0, 5, 10, 0, 0, 250);
  const cases = [
    ['sql-text', 'sqlite', '2026-01-05 10:00:00.250000'],
    ['iso-text', 'sqlite', '2026-01-05T10:00:00.250Z'],
    ['epoch-ms', 'sqlite', t],
    ['epoch-ms', 'postgres', t],
    ['timestamptz', 'postgres', '2026-01-05 10:00:00.250000+00:00'],
    ['timestamp', 'postgres', '2026-01-05 10:00:00.250000'],
  ] as const;
  for (const [storage, dialect, bound] of cases) {
    const codec = datetimeCodec(storage, dialect);
    assert.equal(codec.storage, storage);
    assert.equal(codec.bind(t), bound, `${storage} on ${dialect}`);
    const back = storage === 'timestamptz' || storage === 'timestamp' ? new Date(t) : bound;
    assert.equal(codec.read(back)?.getTime(), t, `${storage} on ${dialect}`);
  }
  // Native PostgreSQL values: a Date, or its text under a custom type parser; nothing else.
  const tz = datetimeCodec('timestamptz', 'postgres');
  assert.equal(tz.read('2026-01-05 11:00:00.25+01')?.getTime(), t);
  assert.equal(tz.read(new Date(NaN)), null);
  assert.equal(tz.read(t), null);
  assert.equal(datetimeCodec('sql-text', 'postgres').read(new Date(t)), null);
});

test('DatetimeParam, range and how values are shown in errors', () => {
  const p = new DatetimeParam('created', 0);
  assert.equal(p.field, 'created');
  assert.equal(p.ms, 0);
  assert.ok(inStorageRange(MIN) && inStorageRange(MAX) && !inStorageRange(MIN - 1) && !inStorageRange(MAX + 1));
  assert.ok(!inStorageRange(0.5) && !inStorageRange(NaN));
  assert.equal(showValue('x'.repeat(70)), JSON.stringify(`${'x'.repeat(64)}…`));
  assert.equal(showValue(new Date(0)), 'Date 1970-01-01T00:00:00.000Z');
  assert.equal(showValue(1n), '1n');
  assert.equal(showValue(Buffer.from('ab')), 'a blob of 2 bytes');
  assert.equal(showValue(1.5), '1.5');
  assert.equal(showValue({}), 'object');
});

/**
 * src/rest/data/values.ts's datetime text against the engine's Date (the
 * reference), and src/sql/sqlite.ts's parse and format built on it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { daysFromCivil, pythonDatetimeStr, utcDatetimeText } from '../../../src/rest/data/values.js';
import { formatSqliteDatetime, parseSqliteDatetime } from '../../../src/sql/sqlite.js';

/** The text the Date getters give (the code before the table-driven formatter). */
function reference(d: Date): string {
  const p = (n: number, w: number): string => String(n).padStart(w, '0');
  const ms = d.getUTCMilliseconds();
  return (
    `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1, 2)}-${p(d.getUTCDate(), 2)} ` +
    `${p(d.getUTCHours(), 2)}:${p(d.getUTCMinutes(), 2)}:${p(d.getUTCSeconds(), 2)}` +
    (ms === 0 ? '' : `.${p(ms, 3)}000`)
  );
}

const FOUR_DIGIT_MIN = Date.UTC(1000, 0, 1);
const FOUR_DIGIT_MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

test('utcDatetimeText and daysFromCivil: as the Date getters say, over four-digit years, their edges and leap days', () => {
  const edges = [
    FOUR_DIGIT_MIN,
    FOUR_DIGIT_MAX,
    0,
    -1,
    Date.UTC(2000, 1, 29, 23, 59, 59, 999),
    Date.UTC(1900, 1, 28),
    Date.UTC(2100, 2, 1),
    Date.UTC(1600, 1, 29),
    Date.UTC(2020, 0, 1, 0, 16, 31, 667),
  ];
  for (const t of edges) assert.equal(utcDatetimeText(t), reference(new Date(t)), new Date(t).toISOString());
  fc.assert(
    fc.property(fc.integer({ min: FOUR_DIGIT_MIN, max: FOUR_DIGIT_MAX }), (t) => {
      const d = new Date(t);
      assert.equal(utcDatetimeText(t), reference(d));
      assert.equal(pythonDatetimeStr(d), `${reference(d)}+00:00`);
      assert.equal(formatSqliteDatetime(d), reference(d));
      assert.equal(daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()), Math.floor(t / 86_400_000));
    }),
    { seed: 1613, numRuns: 3000 },
  );
  // Outside four-digit years (and a non-integer time): null, and the getters' way stays.
  assert.equal(utcDatetimeText(FOUR_DIGIT_MIN - 1), null);
  assert.equal(utcDatetimeText(FOUR_DIGIT_MAX + 1), null);
  assert.equal(utcDatetimeText(0.5), null);
  assert.equal(utcDatetimeText(Number.NaN), null);
  assert.equal(pythonDatetimeStr(new Date(Date.UTC(999, 11, 31, 23, 59, 59))), '0999-12-31 23:59:59+00:00');
  assert.equal(formatSqliteDatetime(new Date(Date.UTC(10000, 0, 1))), '10000-01-01 00:00:00');
});

test('parseSqliteDatetime: in-range fields by day arithmetic, the same instant as Date.UTC; rolled-over fields as Date.UTC rolls them', () => {
  fc.assert(
    fc.property(fc.integer({ min: Date.UTC(100, 0, 1), max: FOUR_DIGIT_MAX }), fc.nat({ max: 999_999 }), (t, micro) => {
      const whole = t - (((t % 1000) + 1000) % 1000);
      const text = `${reference(new Date(whole))}.${String(micro).padStart(6, '0')}`;
      const d = parseSqliteDatetime(text);
      assert.ok(d instanceof Date, text);
      assert.equal(d.getTime(), whole + Math.floor(micro / 1000), text);
    }),
    { seed: 1614, numRuns: 3000 },
  );
  // Fields past their range (SQLite stores text as given): Date.UTC's rollover, as before.
  for (const [text, y, mo, d, h, mi, s] of [
    ['2021-02-29 00:00:00', 2021, 2, 29, 0, 0, 0],
    ['2020-02-30 10:00:00', 2020, 2, 30, 10, 0, 0],
    ['2020-04-31 00:00:00', 2020, 4, 31, 0, 0, 0],
    ['2020-13-01 00:00:00', 2020, 13, 1, 0, 0, 0],
    ['2020-01-00 00:00:00', 2020, 1, 0, 0, 0, 0],
    ['2020-01-01 24:00:00', 2020, 1, 1, 24, 0, 0],
    ['2020-01-01 00:60:61', 2020, 1, 1, 0, 60, 61],
  ] as const) {
    const got = parseSqliteDatetime(text);
    assert.ok(got instanceof Date, text);
    assert.equal(got.getTime(), Date.UTC(y, mo - 1, d, h, mi, s), text);
  }
  assert.equal((parseSqliteDatetime('2020-02-29 12:00:00') as Date).toISOString(), '2020-02-29T12:00:00.000Z');
  assert.equal(parseSqliteDatetime('not a datetime'), 'not a datetime');
  // Fractions: the first three digits are the milliseconds (truncated); an empty one is 0.
  const ms = (text: string): number => (parseSqliteDatetime(text) as Date).getTime() - Date.UTC(2020, 0, 1);
  assert.equal(ms('2020-01-01 00:00:00.9999999999999999999999'), 999);
  assert.equal(ms('2020-01-01 00:00:00.12'), 120);
  assert.equal(ms('2020-01-01 00:00:00.'), 0);
  // A character that is not a digit where one must be: not this fast path (the general parser, or the text).
  for (const text of ['2020-0x-01 00:00:00', '2020-01-01 0x:00:00', '2020-01-01 00:00:00.5x', 'x020-01-01 00:00:00'])
    assert.equal(parseSqliteDatetime(text), text);
});

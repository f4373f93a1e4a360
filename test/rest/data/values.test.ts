/**
 * src/rest/data/values.ts's datetime text against the engine's Date (the
 * reference), and src/sql/sqlite.ts's format built on it (reading it back:
 * test/sql/datetime-formats.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { daysFromCivil, pythonDatetimeStr, utcDatetimeText } from '../../../src/rest/data/values.js';
import { formatSqliteDatetime } from '../../../src/sql/sqlite.js';
import { sqlTextReference } from '../../support/datetime-reference.js';

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
  for (const t of edges) assert.equal(utcDatetimeText(t), sqlTextReference(new Date(t)), new Date(t).toISOString());
  fc.assert(
    fc.property(fc.integer({ min: FOUR_DIGIT_MIN, max: FOUR_DIGIT_MAX }), (t) => {
      const d = new Date(t);
      assert.equal(utcDatetimeText(t), sqlTextReference(d));
      assert.equal(pythonDatetimeStr(d), `${sqlTextReference(d)}+00:00`);
      assert.equal(formatSqliteDatetime(d), sqlTextReference(d));
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

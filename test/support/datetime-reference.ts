/**
 * The reference for the datetime text formatters (src/rest/data/values.ts,
 * src/sql/datetime-formats.ts): the text of an instant written with the
 * Date getters, independently of the table-driven code under test.
 */

/**
 * `YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC, as the Date getters give it: the
 * fraction only when the milliseconds are not 0, padded to microseconds
 * (SQLite's text form, storage `sql-text`; Python's `str(datetime)` without
 * the offset).
 * @example
 * ```ts
 * sqlTextReference(new Date(Date.UTC(2026, 0, 5, 10, 0, 3, 250))); // '2026-01-05 10:00:03.250000'
 * ```
 */
export function sqlTextReference(d: Date): string {
  const p = (n: number, w: number): string => String(n).padStart(w, '0');
  const ms = d.getUTCMilliseconds();
  return (
    `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1, 2)}-${p(d.getUTCDate(), 2)} ` +
    `${p(d.getUTCHours(), 2)}:${p(d.getUTCMinutes(), 2)}:${p(d.getUTCSeconds(), 2)}` +
    (ms === 0 ? '' : `.${p(ms, 3)}000`)
  );
}

/**
 * The `Date` header's value: {@link httpDate}, an IMF-fixdate cached for
 * the current second.
 *
 * @module
 */

let dateSecond = Number.NaN;
let dateValue = '';

/**
 * An IMF-fixdate (RFC 1123 format) for the `Date` header, e.g.
 * `Sun, 06 Nov 1994 08:49:37 GMT`. The string is cached for the current
 * second, so calling it per response costs a division and a comparison.
 *
 * @param ms milliseconds since the epoch (default `Date.now()`).
 * @throws RangeError when `ms` is not a valid time.
 * @example
 * ```ts
 * httpDate(784111777000); // 'Sun, 06 Nov 1994 08:49:37 GMT'
 * const head = ['HTTP/1.1 204 No Content\r\n'];
 * head.push(`Date: ${httpDate()}\r\n`);
 * ```
 */
export function httpDate(ms: number = Date.now()): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== dateSecond) {
    if (!Number.isFinite(sec)) throw new RangeError(`Invalid time value: ${ms}`);
    const d = new Date(sec * 1000);
    if (Number.isNaN(d.getTime())) throw new RangeError(`Invalid time value: ${ms}`);
    dateValue = d.toUTCString();
    dateSecond = sec;
  }
  return dateValue;
}

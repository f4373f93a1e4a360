/**
 * Throttle rates as Django REST framework writes them (`'100/day'`,
 * `'10/minute'`), parsed as DRF 3.14's `SimpleRateThrottle.parse_rate` does.
 *
 * Internal: part of issue 29, not exported from `eventide/rest` yet.
 * @module
 */
import { ThrottleRateError } from '../errors.js';

/**
 * A parsed rate: at most `numRequests` requests per `duration` seconds.
 * @internal
 * @example
 * ```ts
 * const rate: ThrottleRate = { numRequests: 100, duration: 86_400 };
 * ```
 */
export interface ThrottleRate {
  /** How many requests the window allows (0 or less: every request is refused, as in DRF). */
  readonly numRequests: number;
  /** The window, in seconds: 1, 60, 3600 or 86 400. */
  readonly duration: number;
}

/** Seconds per period, keyed by the period's first character (DRF reads nothing else of it). */
const PERIODS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * An integer as Python's `int(str)` reads it: its whitespace around (except
 * the separators U+001C..U+001F, which `int()` does not skip), an optional
 * sign, decimal digits of any script with single `_` between them.
 */
const INT_RE =
  /^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*([+-]?)(\p{Nd}+(?:_\p{Nd}+)*)[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/u;
const DIGIT_RE = /^\p{Nd}$/u;
/** Python 3.11's default limit on the digits `int()` converts (`sys.get_int_max_str_digits()`). */
const MAX_INT_DIGITS = 4300;

/** The value of a decimal digit of any script: Unicode lays each script's digits out as runs of ten, zero first. */
function digitValue(ch: string): number {
  const cp = ch.codePointAt(0) as number;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  let start = cp;
  while (DIGIT_RE.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** Python's `int(text)`, or null where it raises ValueError. Past 2^53 the value is rounded (only its order matters here). */
function pythonInt(text: string): number | null {
  const m = INT_RE.exec(text);
  if (m === null) return null;
  const digits = [...(m[2] as string)].filter((c) => c !== '_');
  if (digits.length > MAX_INT_DIGITS) return null;
  let value = 0n;
  for (const d of digits) value = value * 10n + BigInt(digitValue(d));
  return Number(m[1] === '-' ? -value : value);
}

/**
 * Parses a DRF rate string `num/period`: `num` an integer as Python's
 * `int()` reads it, `period` anything whose first character is `s`, `m`,
 * `h` or `d` (`'5/second'`, `'5/s'`, `'5/minute'`, `'5/hxyz'` are all
 * valid; the check is case-sensitive). `null` (no rate) is no throttling,
 * as in DRF. Where DRF's `parse_rate` would raise (no `/` or more than one,
 * a `num` that is not an integer, an empty or unknown period) this throws
 * {@link ThrottleRateError} `ERR_REST_THROTTLE_RATE`.
 * @internal
 * @example
 * ```ts
 * parseRate('100/day'); // { numRequests: 100, duration: 86400 }
 * parseRate('10/m');    // { numRequests: 10, duration: 60 }
 * parseRate(null);      // null: not throttled
 * parseRate('10 per minute'); // throws ThrottleRateError
 * ```
 */
export function parseRate(rate: string | null): ThrottleRate | null {
  if (rate === null) return null;
  const parts = rate.split('/');
  if (parts.length !== 2)
    throw new ThrottleRateError(rate, `needs exactly one "/" between the number and the period, as in '100/day'`);
  const numRequests = pythonInt(parts[0] as string);
  if (numRequests === null) throw new ThrottleRateError(rate, `the number of requests is not an integer`);
  const period = parts[1] as string;
  const duration = period === '' ? undefined : PERIODS[period[0] as string];
  if (duration === undefined)
    throw new ThrottleRateError(rate, `the period must start with s, m, h or d (second, minute, hour, day)`);
  return { numRequests, duration };
}

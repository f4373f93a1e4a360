/**
 * Field values written as Python's `str()` writes them, and read back: the
 * cursor position format (DRF's tokens carry `str()` of the ordering field)
 * shared by every data source.
 *
 * @module
 */
import { pyIntBig } from '../query.js';
import { INVALID_POSITION, type FieldBits, type FieldInfo, type FieldType } from './source.js';

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * A float as Python's `repr()` / `str()` writes it: the shortest digits that
 * read back to the same number, fixed notation for exponents -4..15 (always
 * with a decimal point), scientific otherwise (`1e-05`, `1.5e+16`), `inf`,
 * `-inf`, `nan`.
 * @example
 * ```ts
 * pythonFloatRepr(2); // '2.0'
 * pythonFloatRepr(0.00001); // '1e-05'
 * pythonFloatRepr(1e16); // '1e+16'
 * ```
 */
export function pythonFloatRepr(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const sign = v < 0 ? '-' : '';
  const [mantissa, expText] = Math.abs(v).toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const digits = mantissa.replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${pad(Math.abs(exp), 2)}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${int}.${frac === '' ? '0' : frac}`;
}

/**
 * The texts `00` .. `99`: datetime parts without `padStart` (shared with the
 * fields' datetime output).
 * @example
 * ```ts
 * TWO_DIGITS[7]; // '07'
 * ```
 */
export const TWO_DIGITS: readonly string[] = Object.freeze(
  Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')),
);

/**
 * The texts `000` .. `999` (milliseconds).
 * @example
 * ```ts
 * THREE_DIGITS[37]; // '037'
 * ```
 */
export const THREE_DIGITS: readonly string[] = Object.freeze(
  Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')),
);
/** 1000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: four-digit years. */
const FOUR_DIGIT_MIN = -30610224000000;
const FOUR_DIGIT_MAX = 253402300799999;

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (`month` 1..12),
 * without a call into the engine's Date code (civil-to-days arithmetic).
 * @example
 * ```ts
 * daysFromCivil(2020, 1, 1); // 18262
 * ```
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/**
 * `YYYY-MM-DD HH:MM:SS` of a UTC instant in ms, with `.ffffff` only when
 * the fraction is not zero, or null outside four-digit years. Table
 * lookups and day arithmetic instead of seven Date getters and `padStart`s.
 * @example
 * ```ts
 * utcDatetimeText(Date.UTC(2020, 0, 1, 0, 16, 31, 667)); // '2020-01-01 00:16:31.667000'
 * ```
 */
export function utcDatetimeText(t: number): string | null {
  if (!(t >= FOUR_DIGIT_MIN && t <= FOUR_DIGIT_MAX) || !Number.isInteger(t)) return null;
  const days = Math.floor(t / 86_400_000);
  const inDay = t - days * 86_400_000;
  const ms = inDay % 1000;
  const secs = (inDay - ms) / 1000;
  const sec = secs % 60;
  const mins = (secs - sec) / 60;
  const min = mins % 60;
  // Days to civil (the inverse of daysFromCivil).
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const text =
    String(year) +
    '-' +
    TWO_DIGITS[month]! +
    '-' +
    TWO_DIGITS[day]! +
    ' ' +
    TWO_DIGITS[(mins - min) / 60]! +
    ':' +
    TWO_DIGITS[min]! +
    ':' +
    TWO_DIGITS[sec]!;
  return ms === 0 ? text : text + '.' + THREE_DIGITS[ms]! + '000';
}

/**
 * A UTC datetime as Python's `str()` writes an aware datetime:
 * `YYYY-MM-DD HH:MM:SS+00:00`, with `.ffffff` only when the fraction is not zero.
 * @example
 * ```ts
 * pythonDatetimeStr(new Date('2020-01-01T00:16:31.667Z')); // '2020-01-01 00:16:31.667000+00:00'
 * ```
 */
export function pythonDatetimeStr(d: Date): string {
  const fast = utcDatetimeText(d.getTime());
  if (fast !== null) return fast + '+00:00';
  const ms = d.getUTCMilliseconds();
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}` +
    (ms === 0 ? '' : `.${pad(ms, 3)}000`) +
    '+00:00'
  );
}

/**
 * A value of a field of `type` as Python's `str()` writes it: the cursor
 * position format shared by every data source.
 * @example
 * ```ts
 * formatPosition(new Date('2020-01-01T00:16:31.667Z'), 'datetime'); // '2020-01-01 00:16:31.667000+00:00'
 * formatPosition(null, 'integer'); // 'None'
 * ```
 */
export function formatPosition(v: unknown, type: FieldType): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  switch (type) {
    case 'datetime': {
      const d =
        v instanceof Date ? v : typeof v === 'string' ? parseDatetime(v) : typeof v === 'number' ? new Date(v) : null;
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value of any type is written as String() writes it, like Python's str()
      return d === null || Number.isNaN(d.getTime()) ? String(v) : pythonDatetimeStr(d);
    }
    case 'boolean':
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value of any type is written as String() writes it, like Python's str()
      return v === 1 || v === 1n ? 'True' : v === 0 || v === 0n ? 'False' : String(v);
    case 'integer':
      if (typeof v === 'number' && Number.isInteger(v))
        return Number.isSafeInteger(v) ? String(v) : BigInt(v).toString();
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value of any type is written as String() writes it, like Python's str()
      return typeof v === 'number' ? pythonFloatRepr(v) : String(v);
    case 'float':
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value of any type is written as String() writes it, like Python's str()
      return typeof v === 'number' ? pythonFloatRepr(v) : String(v);
    default:
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value of any type is written as String() writes it, like Python's str()
      return v instanceof Date ? pythonDatetimeStr(v) : String(v);
  }
}

const DATETIME_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d{0,6})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Reads datetime text as Django's `DateTimeField` does (`parse_datetime`,
 * else a bare date at midnight):
 * `YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]][Z|±HH[:MM]]`, no offset meaning UTC.
 * Returns `null` for anything else or an impossible date.
 * @example
 * ```ts
 * parseDatetime('2020-01-01 00:16:31.667000+00:00'); // Date 2020-01-01T00:16:31.667Z
 * parseDatetime('2020-02-30'); // null
 * ```
 */
export function parseDatetime(s: string): Date | null {
  const m = DATETIME_RE.exec(s);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Math.floor(Number(m[7].padEnd(6, '0')) / 1000);
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const d = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  d.setUTCFullYear(year);
  if (d.getUTCDate() !== day || d.getUTCMonth() !== month - 1) return null;
  const tz = m[8];
  if (tz === undefined || tz === 'Z') return d;
  const oh = Number(tz.slice(1, 3));
  const om = tz.length > 3 ? Number(tz.slice(-2)) : 0;
  if (oh > 23 || om > 59) return null;
  return new Date(d.getTime() - (tz[0] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000);
}

const FLOAT_RE = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_FLOAT_WORD = /^([+-]?)(inf|infinity|nan)$/i;

/** Python's `float(s)` for ASCII input, or `null`. */
function parsePyFloat(s: string): number | null {
  const t = s.trim();
  const w = PY_FLOAT_WORD.exec(t);
  if (w !== null) return w[2]!.toLowerCase() === 'nan' ? NaN : w[1] === '-' ? -Infinity : Infinity;
  return FLOAT_RE.test(t) ? Number(t.replaceAll('_', '')) : null;
}

// ---------------------------------------------------------------------------
// Reading positions back, validated against the column and the driver

/**
 * What a source's storage can hold beyond the field types: the
 * driver-specific part of validating a cursor position.
 * @example
 * ```ts
 * parsePosition('a\u0000b', { type: 'text' }, POSTGRES_VALUES); // INVALID_POSITION
 * ```
 */
export interface ValueDomain {
  /** Whether text may contain U+0000 (PostgreSQL's text cannot: the server refuses the parameter). */
  readonly textNul: boolean;
  /** Whether a float may be NaN (PostgreSQL orders it after +Infinity; SQLite binds NaN as NULL and arrays cannot order it). */
  readonly floatNaN: boolean;
}

/**
 * The values of `ArrayQueryset`: JavaScript strings hold U+0000; NaN has no
 * place in an order.
 * @example
 * ```ts
 * parsePosition('nan', { type: 'float' }, ARRAY_VALUES); // INVALID_POSITION
 * ```
 */
export const ARRAY_VALUES: ValueDomain = Object.freeze({ textNul: true, floatNaN: false });

/**
 * The values of SQLite (better-sqlite3): text holds U+0000; a bound NaN
 * becomes NULL, so it is no position.
 * @example
 * ```ts
 * parsePosition('a\u0000b', { type: 'text' }, SQLITE_VALUES); // 'a\u0000b'
 * ```
 */
export const SQLITE_VALUES: ValueDomain = Object.freeze({ textNul: true, floatNaN: false });

/**
 * The values of PostgreSQL (pg): text cannot hold U+0000
 * (`invalid byte sequence for encoding "UTF8": 0x00`); `real` and
 * `double precision` hold NaN, ordered after +Infinity.
 * @example
 * ```ts
 * parsePosition('NaN', { type: 'float' }, POSTGRES_VALUES); // NaN
 * ```
 */
export const POSTGRES_VALUES: ValueDomain = Object.freeze({ textNul: false, floatNaN: true });

/**
 * The longest cursor position any source reads, in UTF-16 code units: a
 * longer one is invalid whatever the field (no value a position names is
 * that long; a request line carrying one is already past EventHttp's
 * default limit of 8 KiB once base64-encoded).
 * @example
 * ```ts
 * parsePosition('x'.repeat(MAX_POSITION_LENGTH + 1), { type: 'text' }, ARRAY_VALUES); // INVALID_POSITION
 * ```
 */
export const MAX_POSITION_LENGTH = 4096;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Python's datetime range, which is also what DRF's positions can name. */
const MIN_YEAR = 1;
const MAX_YEAR = 9999;

/**
 * Checks the parts of field declarations that positions are validated
 * against: `bits` must be 16, 32 or 64 on an integer field and 32 or 64 on a
 * float field. Returns an error message, or `null` when they are valid.
 * @example
 * ```ts
 * fieldsProblem({ price: { type: 'integer', bits: 8 as FieldBits } }); // 'price: bits must be 16, 32 or 64 for an integer field, not 8'
 * ```
 */
export function fieldsProblem(fields: Readonly<Record<string, FieldInfo>>): string | null {
  for (const name in fields) {
    const info = fields[name]!;
    const bits = info.bits;
    if (bits === undefined) continue;
    if (
      info.type === 'integer'
        ? bits !== 16 && bits !== 32 && bits !== 64
        : info.type === 'float'
          ? bits !== 32 && bits !== 64
          : true
    ) {
      const allowed =
        info.type === 'integer'
          ? '16, 32 or 64 for an integer field'
          : info.type === 'float'
            ? '32 or 64 for a float field'
            : `left out on a ${info.type} field`;
      return `${name}: bits must be ${allowed}, not ${String(bits)}`;
    }
  }
  return null;
}

/**
 * Reads a position of a field back into a value the source can bind and
 * compare, or {@link INVALID_POSITION}; `None` is NULL when the field is
 * nullable. Invalid: more than {@link MAX_POSITION_LENGTH} characters; an
 * integer that Python's `int()` does not read or that is outside the
 * field's `bits` (64 by default, SQLite's INTEGER and PostgreSQL's bigint);
 * a float that Python's `float()` does not read, NaN where `domain` has no
 * NaN, or a finite value a 32-bit float overflows or underflows to 0 (±inf
 * is a value: rows hold it and `str()` writes it); a datetime Django does
 * not read or outside years 1..9999 in UTC; a boolean other than
 * `True`/`t`/`1`/`False`/`f`/`0`; text with U+0000 where `domain` has
 * none. Canonical positions (decimal integers, `str()` of aware UTC
 * datetimes) are read with a few character comparisons.
 * @example
 * ```ts
 * parsePosition('42', { type: 'integer' }, SQLITE_VALUES); // 42
 * parsePosition('9223372036854775808', { type: 'integer' }, SQLITE_VALUES); // INVALID_POSITION
 * parsePosition('2147483648', { type: 'integer', bits: 32 }, POSTGRES_VALUES); // INVALID_POSITION
 * ```
 */
export function parsePosition(
  position: string,
  info: FieldInfo,
  domain: ValueDomain,
  nullable: boolean = info.nullable === true,
): unknown {
  if (typeof position !== 'string' || position.length > MAX_POSITION_LENGTH) return INVALID_POSITION;
  if (nullable && position === 'None') return null;
  switch (info.type) {
    case 'integer':
      return readInteger(position, info.bits);
    case 'float':
      return readFloat(position, info.bits, domain);
    case 'datetime':
      return readDatetime(position);
    case 'boolean':
      return position === 'True' || position === 't' || position === '1'
        ? true
        : position === 'False' || position === 'f' || position === '0'
          ? false
          : INVALID_POSITION;
    default:
      return domain.textNul || position.indexOf('\u0000') === -1 ? position : INVALID_POSITION;
  }
}

/** The smallest value of a signed integer of `bits` (as a number: both narrow widths are exact). */
function intMin(bits: FieldBits | undefined): number {
  return bits === 16 ? -32768 : bits === 32 ? -2147483648 : -Infinity;
}

function intMax(bits: FieldBits | undefined): number {
  return bits === 16 ? 32767 : bits === 32 ? 2147483647 : Infinity;
}

function readInteger(position: string, bits: FieldBits | undefined): unknown {
  // Fast path: ASCII digits with an optional minus, at most 15 of them (a safe integer, within 64 bits).
  const n = position.length;
  const neg = n > 1 && position.charCodeAt(0) === 45;
  let i = neg ? 1 : 0;
  if (n > i && n - i <= 15) {
    let v = 0;
    for (; i < n; i++) {
      const d = position.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === n) {
      if (neg) v = 0 - v;
      return v < intMin(bits) || v > intMax(bits) ? INVALID_POSITION : v;
    }
  }
  // Python's int(): whitespace, a plus sign, underscores, any Unicode decimal digits, any length.
  const big = pyIntBig(position);
  if (big === null || big < INT64_MIN || big > INT64_MAX) return INVALID_POSITION;
  if (big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)) {
    const v = Number(big);
    return v < intMin(bits) || v > intMax(bits) ? INVALID_POSITION : v;
  }
  return bits === 16 || bits === 32 ? INVALID_POSITION : big;
}

function readFloat(position: string, bits: FieldBits | undefined, domain: ValueDomain): unknown {
  const v = parsePyFloat(position);
  if (v === null) return INVALID_POSITION;
  if (v !== v) return domain.floatNaN ? v : INVALID_POSITION;
  if (bits === 32 && v !== 0 && v !== Infinity && v !== -Infinity) {
    // PostgreSQL's real refuses a value that rounds to infinity or (from non-zero) to zero.
    const f = Math.fround(v);
    if (f === 0 || f === Infinity || f === -Infinity) return INVALID_POSITION;
  }
  return v;
}

/** The value of an ASCII digit, or NaN (which makes any sum it enters NaN). */
function digitAt(s: string, i: number): number {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : NaN;
}

function readDatetime(position: string): unknown {
  const n = position.length;
  // Fast path: str() of an aware UTC datetime, `YYYY-MM-DD HH:MM:SS[.ffffff]+00:00` (what position() writes).
  if (
    (n === 25 || (n === 32 && position.charCodeAt(19) === 46)) &&
    position.charCodeAt(4) === 45 &&
    position.charCodeAt(7) === 45 &&
    position.charCodeAt(10) === 32 &&
    position.charCodeAt(13) === 58 &&
    position.charCodeAt(16) === 58 &&
    position.endsWith('+00:00')
  ) {
    const year =
      digitAt(position, 0) * 1000 + digitAt(position, 1) * 100 + digitAt(position, 2) * 10 + digitAt(position, 3);
    const month = digitAt(position, 5) * 10 + digitAt(position, 6);
    const day = digitAt(position, 8) * 10 + digitAt(position, 9);
    const hour = digitAt(position, 11) * 10 + digitAt(position, 12);
    const minute = digitAt(position, 14) * 10 + digitAt(position, 15);
    const second = digitAt(position, 17) * 10 + digitAt(position, 18);
    let micro = 0;
    if (n === 32) for (let i = 20; i < 26; i++) micro = micro * 10 + digitAt(position, i);
    // Years below 100 take the general path (Date.UTC reads them as 19xx).
    if (
      year >= 100 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      hour <= 23 &&
      minute <= 59 &&
      second <= 59 &&
      micro === micro
    ) {
      const d = new Date(Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(micro / 1000)));
      return d.getUTCDate() === day ? d : INVALID_POSITION;
    }
  }
  const d = parseDatetime(position);
  if (d === null) return INVALID_POSITION;
  const year = d.getUTCFullYear();
  return year < MIN_YEAR || year > MAX_YEAR ? INVALID_POSITION : d;
}

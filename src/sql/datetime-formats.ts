/**
 * The storage formats of datetime columns that `SqlQueryset` reads, binds
 * and compares: text `YYYY-MM-DD HH:MM:SS[.ffffff]` (SQLite's and Django's),
 * ISO 8601 text as `Date.prototype.toISOString()` writes it, integer epoch
 * milliseconds, and PostgreSQL's `timestamptz` and `timestamp`. Each has
 * one text (or number) per instant, so that the database's order and
 * equality of stored values are those of the instants: a value in any
 * other form is refused when read, never compared.
 *
 * @module
 */
import type { FieldInfo } from '../rest/data/source.js';
import { daysFromCivil, parseDatetime, pythonDatetimeStr, utcDatetimeText } from '../rest/data/values.js';

/**
 * How a datetime column stores its values (`SqlFieldInfo.storage`).
 *
 * - `'sql-text'`: text `YYYY-MM-DD HH:MM:SS` in UTC, plus `.ffffff` when the
 *   milliseconds are not 0 (`'2026-01-05 10:00:00'`,
 *   `'2026-01-05 10:00:00.250000'`): SQLite's `datetime()` and Django's
 *   format, what `formatSqliteDatetime` writes.
 * - `'iso-text'`: text as `Date.prototype.toISOString()` writes it
 *   (`'2026-01-05T10:00:00.000Z'`).
 * - `'epoch-ms'`: an integer, milliseconds since 1970-01-01T00:00:00Z
 *   (`Date.prototype.getTime()`; SQLite `INTEGER`, PostgreSQL `bigint`).
 * - `'timestamptz'`: PostgreSQL `timestamp with time zone`.
 * - `'timestamp'`: PostgreSQL `timestamp without time zone`, holding UTC.
 * @example
 * ```ts
 * const fields: Record<string, SqlFieldInfo> = {
 *   id: { type: 'integer', unique: true },
 *   created: { type: 'datetime', unique: true, storage: 'iso-text' },
 * };
 * ```
 */
export type DatetimeStorage = 'sql-text' | 'iso-text' | 'epoch-ms' | 'timestamptz' | 'timestamp';

/**
 * A field of a `SqlQueryset`: its {@link FieldInfo}, and for a
 * datetime column how the column stores its values. Without `storage` the
 * queryset detects it from the column's first values before its first
 * query; with it, it checks them (docs/sql.md).
 * @example
 * ```ts
 * const created: SqlFieldInfo = { type: 'datetime', unique: true, storage: 'iso-text' };
 * ```
 */
export interface SqlFieldInfo extends FieldInfo {
  /**
   * Datetime fields only: how the column stores its values. SQLite:
   * `'sql-text'`, `'iso-text'` or `'epoch-ms'`; PostgreSQL: those and
   * `'timestamptz'`, `'timestamp'`. Default: detected from the column's
   * first values.
   */
  readonly storage?: DatetimeStorage;
}

/** Every storage, with the words errors use for it. @internal */
export const STORAGE_FORMATS: Readonly<Record<DatetimeStorage, string>> = Object.freeze({
  'sql-text':
    "text 'YYYY-MM-DD HH:MM:SS[.ffffff]' in UTC at millisecond precision, no fraction when it is 0 ('2026-01-05 10:00:00', '2026-01-05 10:00:00.250000')",
  'iso-text': "text 'YYYY-MM-DDTHH:MM:SS.sssZ' as Date.prototype.toISOString() writes it ('2026-01-05T10:00:00.000Z')",
  'epoch-ms': 'an integer of milliseconds since 1970-01-01T00:00:00Z (1767607200000)',
  timestamptz: 'a PostgreSQL timestamp with time zone',
  timestamp: 'a PostgreSQL timestamp without time zone, holding UTC',
});

/** The storages each dialect can hold. @internal */
export const DIALECT_STORAGES: Readonly<Record<'sqlite' | 'postgres', readonly DatetimeStorage[]>> = Object.freeze({
  sqlite: Object.freeze(['sql-text', 'iso-text', 'epoch-ms'] as const),
  postgres: Object.freeze(['timestamptz', 'timestamp', 'sql-text', 'iso-text', 'epoch-ms'] as const),
});

/** Years 1..9999 (every storage's text has four digits for them; cursor positions name no others). */
const MIN_MS = -62135596800000; // 0001-01-01T00:00:00.000Z
const MAX_MS = 253402300799999; // 9999-12-31T23:59:59.999Z

/**
 * A datetime filter value given before the column's storage is known (no
 * query has run yet), kept as an instant until a query runs and binds it in
 * that storage's form. @internal
 */
export class DatetimeParam {
  constructor(
    /** The field compared. */
    readonly field: string,
    /** The instant, in epoch milliseconds (an integer within years 1..9999). */
    readonly ms: number,
  ) {}
}

/** Whether `ms` is an instant every storage can hold: an integer within years 1..9999 in UTC. @internal */
export function inStorageRange(ms: number): boolean {
  return Number.isInteger(ms) && ms >= MIN_MS && ms <= MAX_MS;
}

// ---------------------------------------------------------------------------
// Writing

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * An instant (epoch ms, years 1..9999) as `sql-text`: `YYYY-MM-DD HH:MM:SS`
 * in UTC, plus `.ffffff` when the milliseconds are not 0. @internal
 */
export function sqlText(ms: number): string {
  const fast = utcDatetimeText(ms);
  if (fast !== null) return fast;
  const d = new Date(ms);
  const frac = d.getUTCMilliseconds();
  const s = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  return frac === 0 ? s : `${s}.${pad(frac, 3)}000`;
}

// ---------------------------------------------------------------------------
// Reading: exactly the form each storage writes, or null

/** Days in `month` (1..12) of `year`, proleptic Gregorian. */
function monthDays(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/**
 * The instant of datetime text in exactly the form of `sql-text` (`iso`
 * false) or `iso-text` (`iso` true), or null for any other value. One flat
 * function, digits read in place and checked without a branch each (it
 * runs for every datetime of every row read); fields are checked, never
 * rolled over (2021-02-29 is no date).
 */
function textInstant(v: unknown, iso: boolean): Date | null {
  if (typeof v !== 'string') return null;
  const n = v.length;
  let ms: number;
  // `bad` gathers d | (9 - d) of every digit d (a character code minus 48): negative when one is not 0..9.
  let bad: number;
  if (iso) {
    if (n !== 24 || v.charCodeAt(10) !== 84 || v.charCodeAt(19) !== 46 || v.charCodeAt(23) !== 90) return null;
    const a = v.charCodeAt(20) - 48;
    const b = v.charCodeAt(21) - 48;
    const c = v.charCodeAt(22) - 48;
    bad = a | (9 - a) | b | (9 - b) | c | (9 - c);
    ms = a * 100 + b * 10 + c;
  } else if (n === 19) {
    if (v.charCodeAt(10) !== 32) return null;
    bad = 0;
    ms = 0;
  } else {
    // `.fff000`, fff not 000: no fraction is another text of .000000, and other digits are not milliseconds.
    if (n !== 26 || v.charCodeAt(10) !== 32 || v.charCodeAt(19) !== 46) return null;
    if (v.charCodeAt(23) !== 48 || v.charCodeAt(24) !== 48 || v.charCodeAt(25) !== 48) return null;
    const a = v.charCodeAt(20) - 48;
    const b = v.charCodeAt(21) - 48;
    const c = v.charCodeAt(22) - 48;
    bad = a | (9 - a) | b | (9 - b) | c | (9 - c);
    ms = a * 100 + b * 10 + c;
    if (ms === 0) return null;
  }
  if (v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58)
    return null;
  const y0 = v.charCodeAt(0) - 48;
  const y1 = v.charCodeAt(1) - 48;
  const y2 = v.charCodeAt(2) - 48;
  const y3 = v.charCodeAt(3) - 48;
  const mo0 = v.charCodeAt(5) - 48;
  const mo1 = v.charCodeAt(6) - 48;
  const d0 = v.charCodeAt(8) - 48;
  const d1 = v.charCodeAt(9) - 48;
  const h0 = v.charCodeAt(11) - 48;
  const h1 = v.charCodeAt(12) - 48;
  const mi0 = v.charCodeAt(14) - 48;
  const mi1 = v.charCodeAt(15) - 48;
  const s0 = v.charCodeAt(17) - 48;
  const s1 = v.charCodeAt(18) - 48;
  bad |=
    y0 | (9 - y0) | y1 | (9 - y1) | y2 | (9 - y2) | y3 | (9 - y3) | mo0 | (9 - mo0) | mo1 | (9 - mo1) | d0 | (9 - d0);
  bad |= d1 | (9 - d1) | h0 | (9 - h0) | h1 | (9 - h1) | mi0 | (9 - mi0) | mi1 | (9 - mi1) | s0 | (9 - s0);
  bad |= s1 | (9 - s1);
  if (bad < 0) return null;
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const month = mo0 * 10 + mo1;
  const day = d0 * 10 + d1;
  const hour = h0 * 10 + h1;
  const minute = mi0 * 10 + mi1;
  const second = s0 * 10 + s1;
  if (
    year < 1 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > monthDays(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return null;
  return new Date(daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + ms);
}

/**
 * `sql-text` read back, or null for any other value: `YYYY-MM-DD HH:MM:SS`,
 * or with `.fff000` where `fff` is not `000` (what {@link sqlText} writes).
 * @internal
 */
export function readSqlText(v: unknown): Date | null {
  return textInstant(v, false);
}

/** `iso-text` read back, or null: exactly `YYYY-MM-DDTHH:MM:SS.sssZ` (years 1..9999). @internal */
export function readIsoText(v: unknown): Date | null {
  return textInstant(v, true);
}

/**
 * `epoch-ms` read back, or null: an integer number (or bigint) within
 * years 1..9999; with `digits`, also decimal text (PostgreSQL's `bigint`
 * arrives as text through pg). @internal
 */
export function readEpochMs(v: unknown, digits: boolean): Date | null {
  let ms: number;
  if (typeof v === 'number') ms = v;
  else if (typeof v === 'bigint') ms = Number(v);
  else if (digits && typeof v === 'string' && /^-?\d{1,16}$/.test(v)) ms = Number(v);
  else return null;
  return inStorageRange(ms) ? new Date(ms) : null;
}

/** A native PostgreSQL datetime as pg returns it (a Date, or text under a custom type parser), or null. */
function readNative(v: unknown): Date | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v;
  // PostgreSQL's ISO output, `YYYY-MM-DD HH:MM:SS[.ffffff]+HH[:MM]`, as Django reads it.
  return typeof v === 'string' ? parseDatetime(v) : null;
}

// ---------------------------------------------------------------------------
// Codecs: a storage on a dialect

/**
 * How one storage on one dialect binds and reads values. @internal
 */
export interface DatetimeCodec {
  readonly storage: DatetimeStorage;
  /** An instant (an integer within years 1..9999) in the form the column compares. */
  bind(this: void, ms: number): unknown;
  /** A non-NULL value read from the column as a Date, or null when it is not in this storage's form. */
  read(this: void, v: unknown): Date | null;
}

const SQL_TEXT: DatetimeCodec = Object.freeze({
  storage: 'sql-text' as const,
  bind: sqlText,
  read: readSqlText,
});
const ISO_TEXT: DatetimeCodec = Object.freeze({
  storage: 'iso-text' as const,
  bind: (ms: number) => new Date(ms).toISOString(),
  read: readIsoText,
});
const EPOCH_SQLITE: DatetimeCodec = Object.freeze({
  storage: 'epoch-ms' as const,
  bind: (ms: number) => ms,
  read: (v: unknown) => readEpochMs(v, false),
});
const EPOCH_POSTGRES: DatetimeCodec = Object.freeze({
  storage: 'epoch-ms' as const,
  bind: (ms: number) => ms,
  read: (v: unknown) => readEpochMs(v, true),
});
const TIMESTAMPTZ: DatetimeCodec = Object.freeze({
  storage: 'timestamptz' as const,
  // With the offset: the server reads it as UTC whatever the session's TimeZone.
  bind: (ms: number) => pythonDatetimeStr(new Date(ms)),
  read: readNative,
});
const TIMESTAMP: DatetimeCodec = Object.freeze({
  storage: 'timestamp' as const,
  // Without an offset (a timestamp ignores one anyway); read through `AT TIME ZONE 'UTC'` (see selection).
  bind: sqlText,
  read: readNative,
});

/** The codec of `storage` on `dialect`. @internal */
export function datetimeCodec(storage: DatetimeStorage, dialect: 'sqlite' | 'postgres'): DatetimeCodec {
  switch (storage) {
    case 'sql-text':
      return SQL_TEXT;
    case 'iso-text':
      return ISO_TEXT;
    case 'epoch-ms':
      return dialect === 'sqlite' ? EPOCH_SQLITE : EPOCH_POSTGRES;
    case 'timestamptz':
      return TIMESTAMPTZ;
    default:
      return TIMESTAMP;
  }
}

/**
 * The storage a value read from a SQLite column (or a PostgreSQL text or
 * integer column) is in, or null when it is in none. @internal
 */
export function storageOfValue(v: unknown, dialect: 'sqlite' | 'postgres'): DatetimeStorage | null {
  if (typeof v === 'string') {
    if (readSqlText(v) !== null) return 'sql-text';
    if (readIsoText(v) !== null) return 'iso-text';
    return dialect === 'postgres' && readEpochMs(v, true) !== null ? 'epoch-ms' : null;
  }
  return readEpochMs(v, false) !== null ? 'epoch-ms' : null;
}

/** A value as an error message shows it: text quoted and cut at 64 characters. @internal */
export function showValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}…` : v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'an invalid Date' : `Date ${v.toISOString()}`;
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `a blob of ${v.length} bytes`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return typeof v;
}

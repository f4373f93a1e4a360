/**
 * Field values written as Python's `str()` writes them, and read back: the
 * cursor position format (DRF's tokens carry `str()` of the ordering field)
 * shared by every data source.
 *
 * @module
 */
import { pyIntBig } from '../query.js';
import { INVALID_POSITION, type FieldType } from './source.js';


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
 * A UTC datetime as Python's `str()` writes an aware datetime:
 * `YYYY-MM-DD HH:MM:SS+00:00`, with `.ffffff` only when the fraction is not zero.
 * @example
 * ```ts
 * pythonDatetimeStr(new Date('2020-01-01T00:16:31.667Z')); // '2020-01-01 00:16:31.667000+00:00'
 * ```
 */
export function pythonDatetimeStr(d: Date): string {
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
      const d = v instanceof Date ? v : typeof v === 'string' ? parseDatetime(v) : typeof v === 'number' ? new Date(v) : null;
      return d === null || Number.isNaN(d.getTime()) ? String(v) : pythonDatetimeStr(d);
    }
    case 'boolean':
      return v === 1 || v === 1n ? 'True' : v === 0 || v === 0n ? 'False' : String(v);
    case 'integer':
      if (typeof v === 'number' && Number.isInteger(v)) return Number.isSafeInteger(v) ? String(v) : BigInt(v).toString();
      return typeof v === 'number' ? pythonFloatRepr(v) : String(v);
    case 'float':
      return typeof v === 'number' ? pythonFloatRepr(v) : String(v);
    default:
      return v instanceof Date ? pythonDatetimeStr(v) : String(v);
  }
}

const DATETIME_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d{0,6})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

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

/**
 * Reads a position of a field of `type` back into a value, or
 * {@link INVALID_POSITION}; `None` is NULL when the field is nullable.
 * @example
 * ```ts
 * parsePosition('42', 'integer', false); // 42
 * parsePosition('abc', 'integer', false); // INVALID_POSITION
 * ```
 */
export function parsePosition(position: string, type: FieldType, nullable: boolean): unknown {
  if (typeof position !== 'string') return INVALID_POSITION;
  if (position === 'None' && nullable) return null;
  switch (type) {
    case 'integer': {
      const v = pyIntBig(position);
      if (v === null) return INVALID_POSITION;
      return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
    }
    case 'float':
      return parsePyFloat(position) ?? INVALID_POSITION;
    case 'boolean':
      return position === 'True' || position === 't' || position === '1' ? true : position === 'False' || position === 'f' || position === '0' ? false : INVALID_POSITION;
    case 'datetime':
      return parseDatetime(position) ?? INVALID_POSITION;
    default:
      return position;
  }
}


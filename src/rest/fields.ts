/**
 * Serializer fields: {@link Field} (the base: `source`, `readOnly`,
 * `writeOnly`, `required`, `allowNull`, `default`) and the built-in
 * {@link CharField}, {@link IntegerField}, {@link FloatField},
 * {@link BooleanField}, {@link DateTimeField}, {@link ReadOnlyField} and
 * {@link SerializerMethodField}, with Django REST framework's input rules
 * and messages. Datetimes render as DRF does: ISO 8601 in UTC with `Z`,
 * microseconds only when non-zero ({@link formatDateTime}).
 *
 * @module
 */
import { ConfigurationError, ValidationError } from './errors.js';
import { THREE_DIGITS, TWO_DIGITS } from './data/values.js';
import { pyInt } from './query.js';
import type { Request } from './request.js';

/**
 * What a serializer passes down to its fields.
 * @example
 * ```ts
 * const context: SerializerContext = { request, format: null };
 * new ItemSerializer(rows, { many: true, context }).data;
 * ```
 */
export interface SerializerContext {
  /** The current request (required by hyperlinked fields). */
  request?: Request | null;
  /** The format suffix of the request (`json`), passed to `reverse()` by hyperlinked fields. */
  format?: string | null;
  /** The view, for fields that need it. */
  view?: unknown;
  /** Anything else a custom field reads. */
  [key: string]: unknown;
}

/**
 * The serializer a field runs under, as fields see it: any `Serializer`
 * instance (its methods, for `SerializerMethodField`, are reached through
 * it).
 * @example
 * ```ts
 * class Owner extends Field {
 *   override toRepresentation(value: unknown, call: FieldCall) { return call.serializer.many ? [value] : value; }
 * }
 * ```
 */
export interface FieldParent {
  /** The object (or, with `many`, the array) being serialized, or `null`. */
  readonly instance: unknown;
  /** The input given for validation (`undefined` when none). */
  readonly initialData: unknown;
  /** Whether it handles a list. */
  readonly many: boolean;
  /** Whether missing fields are allowed (a PATCH). */
  readonly partial: boolean;
  /** The context passed to every field. */
  readonly context: SerializerContext;
}

/**
 * What a field method receives besides the value: the serializer, its
 * context, the field's name, and whether validation runs asynchronously.
 * @example
 * ```ts
 * class Upper extends Field {
 *   override toRepresentation(value: unknown, call: FieldCall) { return String(value).toUpperCase() + (call.context.format ?? ''); }
 * }
 * ```
 */
export interface FieldCall {
  /** The serializer running the field. */
  readonly serializer: FieldParent;
  readonly context: SerializerContext;
  readonly fieldName: string;
  /** `true` under `isValidAsync()`: a field may then return a Promise from `toInternalValue`. */
  readonly async: boolean;
}

/**
 * Options every field takes.
 * @example
 * ```ts
 * const o: FieldOptions = { source: 'created', readOnly: true };
 * ```
 */
export interface FieldOptions {
  /** Where the value is read from (default: the field name; dotted paths allowed; `'*'` for the whole object). */
  source?: string;
  /** Output only. */
  readOnly?: boolean;
  /** Input only. */
  writeOnly?: boolean;
  /** Input must contain the field (default: not read-only and no default). */
  required?: boolean;
  /** `null` is accepted as input and used for a missing value. */
  allowNull?: boolean;
  /** The value when input or the object lacks the field (a function is called each time). */
  default?: unknown;
}

/**
 * Python's name of a JSON value's type, as DRF messages print it.
 * @internal
 */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'dict' : typeof v;
}

/**
 * The base of every field. Subclasses implement `toRepresentation` (output)
 * and, unless read-only, `toInternalValue` (input: return the value or
 * throw a `ValidationError` with the message).
 * @example
 * ```ts
 * class CentsField extends Field<number> {
 *   override toRepresentation(value: unknown) { return (Number(value) / 100).toFixed(2); }
 *   override toInternalValue(data: unknown) { const n = Math.round(Number(data) * 100); if (!Number.isFinite(n)) throw new ValidationError('A valid amount is required.'); return n; }
 * }
 * ```
 */
export abstract class Field<Internal = unknown> {
  readonly source: string | null;
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  readonly required: boolean;
  readonly allowNull: boolean;
  readonly #default: unknown;
  readonly #hasDefault: boolean;

  constructor(options: FieldOptions = {}) {
    this.source = options.source ?? null;
    this.readOnly = options.readOnly ?? false;
    this.writeOnly = options.writeOnly ?? false;
    this.#hasDefault = 'default' in options && options.default !== undefined;
    this.#default = options.default;
    this.required = options.required ?? (!this.readOnly && !this.#hasDefault);
    this.allowNull = options.allowNull ?? false;
    if (this.readOnly && this.writeOnly)
      throw new ConfigurationError('A field may not be both readOnly and writeOnly.');
    if (this.readOnly && options.required)
      throw new ConfigurationError('A field may not be both readOnly and required.');
    if (this.required && this.#hasDefault)
      throw new ConfigurationError('A field may not be required and have a default.');
  }

  /** Whether a default is set. */
  get hasDefault(): boolean {
    return this.#hasDefault;
  }

  /** The default value (calling it when it is a function). */
  getDefault(): unknown {
    const d = this.#default;
    return typeof d === 'function' ? (d as () => unknown)() : d;
  }

  /** The output form of a non-null value. */
  abstract toRepresentation(value: unknown, call: FieldCall): unknown;

  /** The internal value of a non-null input (may return a Promise when `call.async`). */
  toInternalValue(_data: unknown, call: FieldCall): Internal | Promise<Internal> {
    throw new ConfigurationError(`${this.constructor.name} (field '${call.fieldName}') does not accept input.`);
  }
}

/**
 * The value as it is (read-only).
 * @example
 * ```ts
 * class S extends Serializer { static override fields = { meta: new ReadOnlyField() }; }
 * ```
 */
export class ReadOnlyField extends Field {
  constructor(options: Omit<FieldOptions, 'readOnly' | 'writeOnly' | 'required'> = {}) {
    super({ ...options, readOnly: true });
  }

  override toRepresentation(value: unknown): unknown {
    return value;
  }
}

/**
 * Text. Input: strings and numbers; trimmed unless `trimWhitespace: false`;
 * blank only with `allowBlank`; optional `maxLength` / `minLength`.
 * @example
 * ```ts
 * const name = new CharField({ maxLength: 100 });
 * ```
 */
export class CharField extends Field<string> {
  readonly allowBlank: boolean;
  readonly trimWhitespace: boolean;
  readonly maxLength: number | null;
  readonly minLength: number | null;

  constructor(
    options: FieldOptions & {
      allowBlank?: boolean;
      trimWhitespace?: boolean;
      maxLength?: number;
      minLength?: number;
    } = {},
  ) {
    super(options);
    this.allowBlank = options.allowBlank ?? false;
    this.trimWhitespace = options.trimWhitespace ?? true;
    this.maxLength = options.maxLength ?? null;
    this.minLength = options.minLength ?? null;
  }

  override toRepresentation(value: unknown): string {
    return typeof value === 'string' ? value : String(value);
  }

  override toInternalValue(data: unknown): string {
    if (typeof data !== 'string' && typeof data !== 'number') throw new ValidationError('Not a valid string.');
    let s = String(data);
    if (this.trimWhitespace) s = s.trim();
    if (s === '') {
      if (!this.allowBlank) throw new ValidationError('This field may not be blank.');
      return '';
    }
    if (this.maxLength !== null && [...s].length > this.maxLength)
      throw new ValidationError(`Ensure this field has no more than ${this.maxLength} characters.`);
    if (this.minLength !== null && [...s].length < this.minLength)
      throw new ValidationError(`Ensure this field has at least ${this.minLength} characters.`);
    if (s.includes('\0')) throw new ValidationError('Null characters are not allowed.');
    return s;
  }
}

/**
 * An integer. Input as DRF reads it: Python `int()` of the text after
 * dropping a trailing `.0…` (`'5.0'` -> 5); optional `maxValue` / `minValue`.
 * @example
 * ```ts
 * const price = new IntegerField({ minValue: 0 });
 * ```
 */
export class IntegerField extends Field<number> {
  readonly maxValue: number | null;
  readonly minValue: number | null;

  constructor(options: FieldOptions & { maxValue?: number; minValue?: number } = {}) {
    super(options);
    this.maxValue = options.maxValue ?? null;
    this.minValue = options.minValue ?? null;
  }

  override toRepresentation(value: unknown): number {
    return typeof value === 'number' ? Math.trunc(value) : Math.trunc(Number(value));
  }

  override toInternalValue(data: unknown): number {
    if (typeof data === 'string' && data.length > 1000) throw new ValidationError('String value too large.');
    let n: number | null = null;
    if (typeof data === 'number') n = Number.isInteger(data) ? data : null;
    else if (typeof data === 'string') n = pyInt(data.replace(/\.0*\s*$/, ''));
    if (n === null) throw new ValidationError('A valid integer is required.');
    if (this.maxValue !== null && n > this.maxValue)
      throw new ValidationError(`Ensure this value is less than or equal to ${this.maxValue}.`);
    if (this.minValue !== null && n < this.minValue)
      throw new ValidationError(`Ensure this value is greater than or equal to ${this.minValue}.`);
    return n;
  }
}

/**
 * A floating-point number (finite).
 * @example
 * ```ts
 * const ratio = new FloatField({ readOnly: true });
 * ```
 */
export class FloatField extends Field<number> {
  override toRepresentation(value: unknown): number {
    return typeof value === 'number' ? value : Number(value);
  }

  override toInternalValue(data: unknown): number {
    const n =
      typeof data === 'number' ? data : typeof data === 'string' && data.trim() !== '' ? Number(data.trim()) : NaN;
    if (!Number.isFinite(n)) throw new ValidationError('A valid number is required.');
    return n;
  }
}

const TRUE_VALUES: ReadonlySet<unknown> = new Set<unknown>([
  't',
  'T',
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  '1',
  1,
  true,
]);
const FALSE_VALUES: ReadonlySet<unknown> = new Set<unknown>([
  'f',
  'F',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '0',
  0,
  false,
]);

/**
 * A boolean; input accepts DRF's spellings (`true`, `'yes'`, `'on'`, `1`, ...).
 * @example
 * ```ts
 * const active = new BooleanField({ default: true });
 * ```
 */
export class BooleanField extends Field<boolean> {
  override toRepresentation(value: unknown): boolean {
    if (TRUE_VALUES.has(value)) return true;
    if (FALSE_VALUES.has(value)) return false;
    return Boolean(value);
  }

  override toInternalValue(data: unknown): boolean {
    if (TRUE_VALUES.has(data)) return true;
    if (FALSE_VALUES.has(data)) return false;
    throw new ValidationError('Must be a valid boolean.');
  }
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

let cachedDay = NaN;
let cachedDayText = '';

/** Years 0000-9999 as epoch milliseconds: `toISOString()` writes them in the plain form. */
const ISO_MIN = -62167219200000;
const ISO_MAX = 253402300799999;

function formatParts(wholeSecondsMs: number, micro: number): string {
  const d = new Date(wholeSecondsMs);
  let base: string;
  if (wholeSecondsMs >= ISO_MIN && wholeSecondsMs <= ISO_MAX) base = d.toISOString().slice(0, 19);
  else
    base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  return micro === 0 ? base + 'Z' : `${base}.${pad(micro, 6)}Z`;
}

/**
 * A datetime as DRF writes it: ISO 8601 in UTC with `Z`, the fraction as
 * six digits and only when non-zero.
 * @example
 * ```ts
 * formatDateTime(new Date(Date.UTC(2020, 0, 1, 0, 16, 40))); // '2020-01-01T00:16:40Z'
 * formatDateTime(new Date(Date.UTC(2020, 0, 1, 0, 16, 39, 963))); // '2020-01-01T00:16:39.963000Z'
 * ```
 */
export function formatDateTime(d: Date): string {
  const t = d.getTime();
  if (Number.isNaN(t)) throw new ConfigurationError('formatDateTime() got an invalid Date.');
  const ms = ((t % 1000) + 1000) % 1000;
  if (t >= 0 && t <= ISO_MAX) {
    // Date.prototype.toISOString() costs ~400 ns; rows of one page share their day, so the date part is
    // cached and the time written from two-digit strings.
    const day = Math.floor(t / 86_400_000);
    if (day !== cachedDay) {
      cachedDay = day;
      cachedDayText = new Date(day * 86_400_000).toISOString().slice(0, 11);
    }
    let rest = (t - day * 86_400_000 - ms) / 1000;
    const sec = rest % 60;
    rest = (rest - sec) / 60;
    const min = rest % 60;
    const text = cachedDayText + TWO_DIGITS[(rest - min) / 60] + ':' + TWO_DIGITS[min] + ':' + TWO_DIGITS[sec];
    return ms === 0 ? text + 'Z' : text + '.' + THREE_DIGITS[ms] + '000Z';
  }
  return formatParts(t - ms, ms * 1000);
}

const DATETIME_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d{0,6})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses ISO 8601 / SQL datetime text (naive = UTC) into whole-second epoch ms and microseconds. */
function parseDateTimeText(s: string): { ms: number; micro: number } | null {
  const m = DATETIME_RE.exec(s.trim());
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day || year < 1) return null;
  let offset = 0;
  const tz = m[8];
  if (tz !== undefined && tz !== 'Z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const h = Number(digits.slice(0, 2));
    const mm = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (h > 23 || mm > 59) return null;
    offset = sign * (h * 60 + mm) * 60_000;
  }
  return { ms: ms - offset, micro: m[7] === undefined ? 0 : Number(m[7].padEnd(6, '0')) };
}

/**
 * A datetime. Output: {@link formatDateTime} for `Date`s; datetime text
 * (`2020-01-01 00:16:39.963000`, ISO 8601, naive meaning UTC) is rendered
 * the same way keeping its microseconds; other strings pass unchanged (as
 * in DRF); numbers are epoch milliseconds. Input: ISO 8601 text (Django's
 * rules, naive = UTC) or a `Date`, giving a `Date` (millisecond precision).
 * @example
 * ```ts
 * const created = new DateTimeField({ readOnly: true });
 * ```
 */
export class DateTimeField extends Field<Date> {
  override toRepresentation(value: unknown): unknown {
    if (value instanceof Date) return formatDateTime(value);
    if (typeof value === 'number') return formatDateTime(new Date(value));
    if (typeof value === 'string') {
      const p = parseDateTimeText(value);
      return p === null ? value : formatParts(p.ms, p.micro);
    }
    return value;
  }

  override toInternalValue(data: unknown): Date {
    if (data instanceof Date && !Number.isNaN(data.getTime())) return data;
    const p = typeof data === 'string' ? parseDateTimeText(data) : null;
    if (p === null)
      throw new ValidationError(
        'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      );
    return new Date(p.ms + Math.floor(p.micro / 1000));
  }
}

/**
 * A read-only value computed by a method of the serializer: `getX` for a
 * field named `x` (`full_name` -> `getFullName`), or `methodName`.
 * @example
 * ```ts
 * class ItemSerializer extends Serializer<Item> {
 *   static override fields = { label: new SerializerMethodField() };
 *   getLabel(item: Item) { return `${item.name} (${item.category})`; }
 * }
 * ```
 */
export class SerializerMethodField extends Field {
  readonly methodName: string | null;

  constructor(options: { methodName?: string } = {}) {
    super({ source: '*', readOnly: true });
    this.methodName = options.methodName ?? null;
  }

  override toRepresentation(value: unknown, call: FieldCall): unknown {
    const name =
      this.methodName ?? 'get' + call.fieldName.replace(/(?:^|_+)([a-zA-Z0-9])/g, (_m, c: string) => c.toUpperCase());
    const method = (call.serializer as unknown as Record<string, unknown>)[name];
    if (typeof method !== 'function')
      throw new ConfigurationError(
        `${call.serializer.constructor.name} has no method ${name}() for the SerializerMethodField '${call.fieldName}'.`,
      );
    return (method as (v: unknown) => unknown).call(call.serializer, value);
  }
}

/**
 * Whether a value is a Promise (or any thenable).
 * @internal
 */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

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

/** A field constructed without options (its type says: no flags set). */
type NoOptions = Record<never, never>;

/**
 * The key of the types-only member of {@link Field} (no value exists at run time).
 */
declare const FIELD_TYPES: unique symbol;

/**
 * What a field's type records (types only): its input and output value
 * types and the options it was built with.
 * @example
 * ```ts
 * const types: FieldTypes<number, number, { readOnly: true }> = { input: 1, output: 1, options: { readOnly: true } };
 * ```
 */
export interface FieldTypes<TIn, TOut, O> {
  readonly input: TIn;
  readonly output: TOut;
  readonly options: O;
}

/** The options a field type was built with (`FieldOptions` when unknown). */
type OptionsOf<F> = F extends { readonly [FIELD_TYPES]?: FieldTypes<unknown, unknown, infer O> } ? O : object;

/**
 * Whether a field type is read-only (`readOnly: true` in its options): `true` or `false`.
 * @example
 * ```ts
 * const id = new IntegerField({ readOnly: true });
 * const yes: IsReadOnlyField<typeof id> = true;
 * ```
 */
export type IsReadOnlyField<F> = OptionsOf<F> extends { readonly readOnly: true } ? true : false;

/**
 * Whether a field type is write-only (`writeOnly: true`): `true` or `false`.
 * @example
 * ```ts
 * const password = new CharField({ writeOnly: true });
 * const yes: IsWriteOnlyField<typeof password> = true;
 * ```
 */
export type IsWriteOnlyField<F> = OptionsOf<F> extends { readonly writeOnly: true } ? true : false;

/**
 * Whether input may leave a field out: `required: false`, or a `default`
 * (unless `required: true`). `true` or `false`.
 * @example
 * ```ts
 * const active = new BooleanField({ default: true });
 * const yes: IsOptionalField<typeof active> = true;
 * ```
 */
export type IsOptionalField<F> =
  OptionsOf<F> extends { readonly required: true }
    ? false
    : OptionsOf<F> extends { readonly required: false }
      ? true
      : 'default' extends keyof OptionsOf<F>
        ? true
        : false;

/** `null` when the field allows it (`allowNull: true`), else `never`. */
type NullOf<F> = OptionsOf<F> extends { readonly allowNull: true } ? null : never;

/**
 * The value a field type renders (`| null` with `allowNull`): `number` for
 * an `IntegerField`, `string` for a `CharField` or a `DateTimeField`, ...
 * @example
 * ```ts
 * const created = new DateTimeField({ readOnly: true, allowNull: true });
 * const out: FieldOutput<typeof created> = '2020-01-01T00:00:01.037000Z'; // string | null
 * ```
 */
export type FieldOutput<F> =
  (F extends { readonly [FIELD_TYPES]?: FieldTypes<unknown, infer T, unknown> } ? T : unknown) | NullOf<F>;

/**
 * The value a field type takes as validated input (`| null` with
 * `allowNull`): `number` for an `IntegerField`, `Date` for a `DateTimeField`, ...
 * @example
 * ```ts
 * const created = new DateTimeField();
 * const value: FieldInput<typeof created> = new Date();
 * ```
 */
export type FieldInput<F> =
  (F extends { readonly [FIELD_TYPES]?: FieldTypes<infer T, unknown, unknown> } ? T : unknown) | NullOf<F>;

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
 *
 * Its type carries what serializers infer their types from
 * (`InferOutput`, `InferInput`): `TIn`, the validated value
 * (`toInternalValue`'s), `TOut`, the rendered value
 * (`toRepresentation`'s), and `O`, the options it was built with. The
 * built-in fields infer `O` from the options object as written
 * (`new IntegerField({ readOnly: true })` is read-only in its type; no
 * `as const` needed).
 * @example
 * ```ts
 * class CentsField extends Field<number, string> {
 *   override toRepresentation(value: unknown) { return (Number(value) / 100).toFixed(2); }
 *   override toInternalValue(data: unknown) { const n = Math.round(Number(data) * 100); if (!Number.isFinite(n)) throw new ValidationError('A valid amount is required.'); return n; }
 * }
 * ```
 */
export abstract class Field<TIn = unknown, TOut = unknown, O extends object = object> {
  /** Types only (no value at run time): the value types and options this field's type records. */
  declare readonly [FIELD_TYPES]?: FieldTypes<TIn, TOut, O>;

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
  abstract toRepresentation(value: unknown, call: FieldCall): TOut;

  /** The internal value of a non-null input (may return a Promise when `call.async`). */
  toInternalValue(_data: unknown, call: FieldCall): TIn | Promise<TIn> {
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
export class ReadOnlyField<
  const O extends Omit<FieldOptions, 'readOnly' | 'writeOnly' | 'required'> = NoOptions,
> extends Field<unknown, unknown, O & { readonly readOnly: true }> {
  constructor(options?: O) {
    super({ ...options, readOnly: true });
  }

  override toRepresentation(value: unknown): unknown {
    return value;
  }
}

/**
 * The options of a {@link CharField}.
 * @example
 * ```ts
 * const o: CharFieldOptions = { maxLength: 100, allowBlank: true };
 * ```
 */
export interface CharFieldOptions extends FieldOptions {
  allowBlank?: boolean;
  trimWhitespace?: boolean;
  maxLength?: number;
  minLength?: number;
}

/**
 * Text. Input: strings and numbers; trimmed unless `trimWhitespace: false`;
 * blank only with `allowBlank`; optional `maxLength` / `minLength`.
 * @example
 * ```ts
 * const name = new CharField({ maxLength: 100 });
 * ```
 */
export class CharField<const O extends CharFieldOptions = NoOptions> extends Field<string, string, O> {
  readonly allowBlank: boolean;
  readonly trimWhitespace: boolean;
  readonly maxLength: number | null;
  readonly minLength: number | null;

  constructor(given?: O) {
    super(given);
    const options: CharFieldOptions = given ?? {};
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
 * The options of an {@link IntegerField}.
 * @example
 * ```ts
 * const o: IntegerFieldOptions = { minValue: 0, maxValue: 100 };
 * ```
 */
export interface IntegerFieldOptions extends FieldOptions {
  maxValue?: number;
  minValue?: number;
}

/**
 * An integer. Input as DRF reads it: Python `int()` of the text after
 * dropping a trailing `.0…` (`'5.0'` -> 5); optional `maxValue` / `minValue`.
 * @example
 * ```ts
 * const price = new IntegerField({ minValue: 0 });
 * ```
 */
export class IntegerField<const O extends IntegerFieldOptions = NoOptions> extends Field<number, number, O> {
  readonly maxValue: number | null;
  readonly minValue: number | null;

  constructor(given?: O) {
    super(given);
    const options: IntegerFieldOptions = given ?? {};
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
export class FloatField<const O extends FieldOptions = NoOptions> extends Field<number, number, O> {
  /** @param options the field's options; its type records them (`new FloatField({ readOnly: true })` is read-only). */
  constructor(options?: O) {
    super(options);
  }

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
export class BooleanField<const O extends FieldOptions = NoOptions> extends Field<boolean, boolean, O> {
  /** @param options the field's options; its type records them (`new FloatField({ readOnly: true })` is read-only). */
  constructor(options?: O) {
    super(options);
  }

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
export class DateTimeField<const O extends FieldOptions = NoOptions> extends Field<Date, string, O> {
  /** @param options the field's options; its type records them (`new FloatField({ readOnly: true })` is read-only). */
  constructor(options?: O) {
    super(options);
  }

  /** Typed `string`, what it renders for datetimes; a value that is none (a boolean) passes unchanged, as in DRF. */
  override toRepresentation(value: unknown): string {
    if (value instanceof Date) return formatDateTime(value);
    if (typeof value === 'number') return formatDateTime(new Date(value));
    if (typeof value === 'string') {
      const p = parseDateTimeText(value);
      return p === null ? value : formatParts(p.ms, p.micro);
    }
    return value as string;
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
 * field named `x` (`full_name` -> `getFullName`), or `methodName`. `T` is
 * the type the method returns (`unknown` unless given:
 * `new SerializerMethodField<string>()`).
 * @example
 * ```ts
 * class ItemSerializer extends Serializer<Item> {
 *   static override fields = { label: new SerializerMethodField() };
 *   getLabel(item: Item) { return `${item.name} (${item.category})`; }
 * }
 * ```
 */
export class SerializerMethodField<T = unknown> extends Field<
  unknown,
  T,
  { readonly source: '*'; readonly readOnly: true }
> {
  readonly methodName: string | null;

  constructor(options: { methodName?: string } = {}) {
    super({ source: '*', readOnly: true });
    this.methodName = options.methodName ?? null;
  }

  override toRepresentation(value: unknown, call: FieldCall): T {
    const name =
      this.methodName ?? 'get' + call.fieldName.replace(/(?:^|_+)([a-zA-Z0-9])/g, (_m, c: string) => c.toUpperCase());
    const method = (call.serializer as unknown as Record<string, unknown>)[name];
    if (typeof method !== 'function')
      throw new ConfigurationError(
        `${call.serializer.constructor.name} has no method ${name}() for the SerializerMethodField '${call.fieldName}'.`,
      );
    return (method as (v: unknown) => T).call(call.serializer, value);
  }
}

/**
 * Whether a value is a Promise (or any thenable).
 * @internal
 */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

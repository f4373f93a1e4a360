/**
 * Declarative serializers: a class lists its fields once
 * (`static fields = { ... }`), instances turn rows into plain JSON-able
 * objects (`.data`) and check input (`.isValid()`, `.validatedData`,
 * `.errors`) with Django REST framework's rules and messages.
 *
 * - Output: every readable field in declaration order. A field reads its
 *   `source` (default: its name; dotted paths walk objects; `'*'` is the
 *   whole row). `null` stays `null` (a `null` part of a dotted path gives
 *   `null`). A missing key uses the field's `default`, else `null` when
 *   `allowNull`, else the field is left out when it is not required
 *   (read-only fields are never required), else it is an error.
 * - Field lists are compiled once per class; serializing a page of rows
 *   costs one property read and one conversion per field and row.
 * - Choosing a serializer per version is the view's job:
 *   `getSerializerClass() { return this.request.version === 'v1' ? ItemSerializerV1 : ItemSerializer; }`.
 *
 * The fields are in `fields.ts`, the hyperlinked ones in `relations.ts`.
 *
 * @module
 */
import { ConfigurationError, ValidationError, type ErrorDetail } from './errors.js';
import {
  Field,
  isThenable,
  pyTypeName,
  type FieldCall,
  type FieldInput,
  type FieldOptions,
  type FieldOutput,
  type IsOptionalField,
  type IsReadOnlyField,
  type IsWriteOnlyField,
  type SerializerContext,
} from './fields.js';
import { HyperlinkedRelatedField } from './relations.js';
import { rowWriter, type CompiledField, type ResumeRow, type RowWriter } from './serializer-rows.js';

const NOT_NULL = 'This field may not be null.';
const REQUIRED = 'This field is required.';

interface Compiled {
  readonly readable: readonly CompiledField[];
  readonly writable: readonly CompiledField[];
  /** The output of one row, made for `readable` (null: the generic loop). */
  readonly writer: RowWriter<object> | null;
}

const COMPILED = new WeakMap<object, Compiled>();

function compile(cls: { readonly fields: Readonly<Record<string, Field>>; readonly name: string }): Compiled {
  let c = COMPILED.get(cls);
  if (c !== undefined) return c;
  const all: CompiledField[] = [];
  for (const [name, field] of Object.entries(cls.fields)) {
    if (!(field instanceof Field)) throw new ConfigurationError(`${cls.name}.fields.${name} is not a Field.`);
    const source = field.source ?? name;
    all.push({ name, field, attrs: source === '*' ? null : source.split('.') });
  }
  const readable = all.filter((f) => !f.field.writeOnly);
  c = { readable, writable: all.filter((f) => !f.field.readOnly), writer: rowWriter(readable) };
  COMPILED.set(cls, c);
  return c;
}

/**
 * Options of a serializer.
 * @example
 * ```ts
 * const o: SerializerOptions = { many: true, context: { request } };
 * ```
 */
export interface SerializerOptions {
  /** A list of objects (output) or of inputs (validation). */
  many?: boolean;
  /** Passed to every field (hyperlinked fields need `request`). */
  context?: SerializerContext;
  /** Input to validate with `isValid()`. */
  data?: unknown;
  /** Missing fields are not required (a PATCH). */
  partial?: boolean;
}

/**
 * A serializer class, as views hold it (`serializerClass`,
 * `getSerializerClass()`).
 * @example
 * ```ts
 * class ItemSerializerV1 extends Serializer<Item> {
 *   static override fields = { id: new IntegerField({ readOnly: true }), name: new CharField() };
 * }
 * function serializerFor(version: string | null): SerializerClass<Item> {
 *   return version === 'v1' ? ItemSerializerV1 : ItemSerializer;
 * }
 * ```
 */
export interface SerializerClass<T> {
  new (instance?: unknown, options?: SerializerOptions): Serializer<T>;
  readonly fields: Readonly<Record<string, Field>>;
}

/** The fields of a serializer class (or a fields object itself). */
type FieldsOf<S> = S extends { readonly fields: infer F } ? F : S;

/**
 * The output of one object of a fields object: every field but the
 * write-only ones, with the type it renders.
 * @example
 * ```ts
 * const fields = { id: new IntegerField({ readOnly: true }), name: new CharField() };
 * const out: OutputOfFields<typeof fields> = { id: 1, name: 'item-0000001' };
 * ```
 */
export type OutputOfFields<F> = {
  -readonly [K in keyof F as IsWriteOnlyField<F[K]> extends true ? never : K]: FieldOutput<F[K]>;
};

type RequiredInputKeys<F> = {
  [K in keyof F]: IsReadOnlyField<F[K]> extends true ? never : IsOptionalField<F[K]> extends true ? never : K;
}[keyof F];
type OptionalInputKeys<F> = {
  [K in keyof F]: IsReadOnlyField<F[K]> extends true ? never : IsOptionalField<F[K]> extends true ? K : never;
}[keyof F];
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * The validated input of one object of a fields object: the writable
 * fields (read-only ones absent), optional when not required or with a
 * default, with the type each field validates to.
 * @example
 * ```ts
 * const fields = { id: new IntegerField({ readOnly: true }), name: new CharField(), price: new IntegerField({ default: 0 }) };
 * const input: InputOfFields<typeof fields> = { name: 'a' }; // { name: string; price?: number }
 * ```
 */
export type InputOfFields<F> = Flatten<
  { -readonly [K in RequiredInputKeys<F>]: FieldInput<F[K]> } & {
    -readonly [K in OptionalInputKeys<F>]?: FieldInput<F[K]>;
  }
>;

/**
 * The output type of a serializer class, inferred from its fields: every
 * field but the write-only ones (read-only ones included), typed as it
 * renders (`IntegerField` -> `number`, `CharField` and `DateTimeField` ->
 * `string`, `BooleanField` -> `boolean`, hyperlinks -> `string`, a nested
 * serializer -> its output, `many` -> an array), `| null` with `allowNull`.
 * Works with `static fields = { ... }` classes and with {@link serializer}.
 * @example
 * ```ts
 * class ItemSerializer extends Serializer<Item> {
 *   static override fields = { id: new IntegerField({ readOnly: true }), name: new CharField(), created: new DateTimeField({ readOnly: true }) };
 * }
 * type ItemOut = InferOutput<typeof ItemSerializer>; // { id: number; name: string; created: string }
 * const first: ItemOut = { id: 1, name: 'item-0000001', created: '2020-01-01T00:00:01.037000Z' };
 * ```
 */
export type InferOutput<S> = OutputOfFields<FieldsOf<S>>;

/**
 * The input type of a serializer class (what `validatedData` holds),
 * inferred from its fields: the writable fields, read-only ones absent,
 * optional when `required: false` or with a `default`, typed as they
 * validate (`DateTimeField` -> `Date`), `| null` with `allowNull`.
 * @example
 * ```ts
 * class ItemSerializer extends Serializer<Item> {
 *   static override fields = { id: new IntegerField({ readOnly: true }), name: new CharField(), price: new IntegerField({ default: 0 }) };
 * }
 * const input: InferInput<typeof ItemSerializer> = { name: 'new item' }; // { name: string; price?: number }
 * ```
 */
export type InferInput<S> = InputOfFields<FieldsOf<S>>;

/**
 * The keys a row must have for a fields object: each readable field's
 * source (its name by default; the first part of a dotted source; none for
 * `'*'`), optional when the field has a default or allows null.
 */
type SourceKey<K, F> =
  F extends Field<unknown, unknown, infer O>
    ? O extends { readonly source: infer S extends string }
      ? string extends S
        ? K
        : S extends '*'
          ? never
          : S extends `${infer Head}.${string}`
            ? Head
            : S
      : K
    : K;
type LenientSource<F> =
  F extends Field<unknown, unknown, infer O>
    ? O extends { readonly allowNull: true }
      ? true
      : 'default' extends keyof O
        ? true
        : false
    : true;

/**
 * The least a row must be for a fields object: an object with the key of
 * every readable field (see {@link serializer}); the values may be of any
 * type the fields render.
 * @example
 * ```ts
 * const fields = { id: new IntegerField({ readOnly: true }), label: new CharField({ source: 'name' }) };
 * const row: SourceRowOf<typeof fields> = { id: 1, name: 'a' };
 * ```
 */
export type SourceRowOf<F> = Flatten<
  {
    [
      K in keyof F as IsWriteOnlyField<F[K]> extends true
        ? never
        : LenientSource<F[K]> extends true
          ? never
          : SourceKey<K, F[K]>
    ]: unknown;
  } & {
    [
      K in keyof F as IsWriteOnlyField<F[K]> extends true
        ? never
        : LenientSource<F[K]> extends true
          ? SourceKey<K, F[K]>
          : never
    ]?: unknown;
  }
>;

/**
 * A serializer class made by {@link serializer}: its `fields` keep their
 * types, and its instances are typed by them (`data`, `validatedData`). Give
 * the row type as a type argument of the base (`extends serializer({...})<Item>`);
 * it must have the fields' keys.
 * @example
 * ```ts
 * const Base: DefinedSerializerClass<{ name: CharField }> = serializer({ name: new CharField() });
 * ```
 */
export interface DefinedSerializerClass<F extends Readonly<Record<string, Field>>> {
  new <Row extends SourceRowOf<F> = SourceRowOf<F>>(
    instance?: unknown,
    options?: SerializerOptions,
  ): Serializer<Row, OutputOfFields<F>, InputOfFields<F>>;
  /** The fields, as declared. */
  readonly fields: F;
  readonly prototype: Serializer<SourceRowOf<F>, OutputOfFields<F>, InputOfFields<F>>;
  asField: typeof Serializer.asField;
}

/**
 * Declares a serializer class from its fields, keeping their types: the
 * base of `class ItemSerializer extends serializer({ ... }) {}`. The class
 * works as one with `static fields` (the same fields, the same output), and
 * its instances are typed: `data` is `InferOutput` (or an array of them
 * with `many`), `validatedData` is `InferInput`, with no casts. A row type
 * given as a type argument (`serializer({...})<Item>`) types
 * `toRepresentation(instance: Item)`, and a view's `queryset` and
 * `serializerClass` then agree (`ListAPIView<Item>`).
 * @example
 * ```ts
 * class ItemSerializer extends serializer({
 *   id: new IntegerField({ readOnly: true }),
 *   name: new CharField({ maxLength: 100 }),
 *   price: new IntegerField({ minValue: 0, default: 0 }),
 * })<Item> {}
 * const s = new ItemSerializer(null, { data: { name: 'new item' } });
 * if (s.isValid()) console.log(s.validatedData.name.toUpperCase(), s.validatedData.price); // string, number | undefined
 * type ItemOut = InferOutput<typeof ItemSerializer>; // { id: number; name: string; price: number }
 * ```
 */
export function serializer<F extends Readonly<Record<string, Field>>>(fields: F): DefinedSerializerClass<F> {
  class DefinedSerializer extends Serializer {
    static override fields: Readonly<Record<string, Field>> = fields;
  }
  return DefinedSerializer as unknown as DefinedSerializerClass<F>;
}

/**
 * A JSON object as serializers produce it.
 * @example
 * ```ts
 * const item: Item = { id: 1, name: 'item-0000001', created: new Date(), price: 419, category: 'beta' };
 * const row: SerializedObject = new ItemSerializer(item, { context: { request, format: null } }).data as SerializedObject;
 * ```
 */
export type SerializedObject = Record<string, unknown>;

const NOT_VALIDATED = Symbol('notValidated');
/** No value read yet (`#fill`'s first value). */
const READ = Symbol('read');

/**
 * The base of serializers. List the fields in `static fields`; extend a
 * parent's with a spread. `new S(rowOrRows, { many, context })` then
 * `.data`; `new S(null, { data, context })` then `.isValid()`.
 * @example
 * ```ts
 * class ItemSerializer extends Serializer<Item> {
 *   static override fields = {
 *     url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
 *     id: new IntegerField({ readOnly: true }),
 *     name: new CharField({ maxLength: 100 }),
 *     created: new DateTimeField({ readOnly: true }),
 *     price: new IntegerField({ minValue: 0 }),
 *   };
 * }
 * class ItemSerializerV2 extends ItemSerializer {
 *   static override fields = { ...ItemSerializer.fields, category: new CharField() };
 * }
 * const body = new ItemSerializerV2(rows, { many: true, context: { request } }).data;
 * ```
 */
export class Serializer<
  T = SerializedObject,
  Out extends object = SerializedObject,
  In extends object = T extends object ? Partial<T> & SerializedObject : SerializedObject,
> {
  /** The fields, in output order. Read once per class, on first use. */
  static fields: Readonly<Record<string, Field>> = {};

  readonly instance: T | readonly T[] | null;
  readonly initialData: unknown;
  readonly many: boolean;
  readonly partial: boolean;
  readonly context: SerializerContext;
  readonly #compiled: Compiled;
  #data: SerializedObject | SerializedObject[] | null = null;
  #validated: unknown = NOT_VALIDATED;
  #errors: ErrorDetail | null = null;

  /**
   * @param instance the object (or, with `many`, the array) to serialize; typed `unknown` so that any
   *   serializer class fits the views' `serializerClass` slot.
   */
  constructor(instance: unknown = null, options: SerializerOptions = {}) {
    this.instance = (instance ?? null) as T | readonly T[] | null;
    this.initialData = options.data;
    this.many = options.many ?? false;
    this.partial = options.partial ?? false;
    this.context = options.context ?? {};
    this.#compiled = compile(this.constructor as typeof Serializer);
    if (this.many && instance !== null && !Array.isArray(instance))
      throw new ConfigurationError(`${this.constructor.name}: many: true needs an array of objects.`);
  }

  /**
   * Wraps this serializer class as a field (a nested object, or a list with `many`).
   * @example
   * ```ts
   * type Order = { id: number; items: Item[] };
   * class OrderSerializer extends Serializer<Order> { static override fields = { items: ItemSerializer.asField({ many: true, readOnly: true }) }; }
   * ```
   */
  static asField<
    S extends SerializerClass<unknown>,
    const O extends FieldOptions & { many?: boolean } = Record<never, never>,
  >(this: S, options?: O): Field<Nested<InferInput<S>, O>, Nested<InferOutput<S>, O>, O> {
    return new NestedField(this, options ?? {}) as Field<Nested<InferInput<S>, O>, Nested<InferOutput<S>, O>, O>;
  }

  /** The output: an object, or an array with `many`. Computed once. */
  get data(): Out | Out[] {
    if (this.#data !== null) return this.#data as Out | Out[];
    let source: unknown = this.instance;
    if (source === null) source = this.#validated !== NOT_VALIDATED && this.#errors === null ? this.#validated : null;
    if (source === null) return (this.#data = this.many ? [] : {}) as Out | Out[];
    if (this.many) {
      const rows = source as readonly T[];
      // Built by push: a packed array, which JSON.stringify walks on its fast path (not a holey `new Array(n)`).
      const out: SerializedObject[] = [];
      for (let i = 0; i < rows.length; i++) out.push(this.toRepresentation(rows[i] as T) as SerializedObject);
      return (this.#data = out) as Out[];
    }
    return (this.#data = this.toRepresentation(source as T) as SerializedObject) as Out;
  }

  /** One object's output. Override to post-process. */
  toRepresentation(instance: T): Out {
    const calls = this.#calls(false);
    const writer = this.#compiled.writer;
    if (writer !== null) return writer(this, instance, calls, Serializer.#resume) as Out;
    return this.#fill(instance, calls, 0, READ, {}) as Out;
  }

  /** The generic loop, from where the compiled writer found a value missing. */
  static #resume: ResumeRow<object> = (s, instance, calls, index, value, out) =>
    (s as Serializer<unknown, object, object>).#fill(instance, calls, index, value, out);

  /**
   * Writes the readable fields from `from` on into `out`; `first` is the
   * value of field `from` when it was read already (else READ).
   */
  #fill(
    instance: unknown,
    calls: readonly FieldCall[],
    from: number,
    first: unknown,
    out: SerializedObject,
  ): SerializedObject {
    const fields = this.#compiled.readable;
    for (let i = from; i < fields.length; i++) {
      const f = fields[i] as CompiledField;
      let value: unknown = instance;
      if (i === from && first !== READ) value = first;
      else if (f.attrs !== null) {
        for (const a of f.attrs) {
          if (value === null) break;
          value = (value as Record<string, unknown>)[a];
          if (value === undefined) break;
        }
      }
      if (value === undefined) {
        const field = f.field;
        if (field.hasDefault) value = field.getDefault();
        else if (field.allowNull) value = null;
        else if (!field.required) {
          delete out[f.name]; // the compiled writer's placeholder
          continue;
        } else
          throw new ConfigurationError(
            `${this.constructor.name}: field '${f.name}' found no value at '${(f.attrs ?? []).join('.')}' on the object; the field may be misnamed (set source), or needs default / allowNull / required: false.`,
          );
      }
      const v = value === null ? null : f.field.toRepresentation(value, calls[i] as FieldCall);
      // A field named __proto__ is an own key (an assignment would set the prototype).
      if (f.name === '__proto__')
        Object.defineProperty(out, f.name, { value: v, enumerable: true, writable: true, configurable: true });
      else out[f.name] = v;
    }
    return out;
  }

  #callCache: FieldCall[] | null = null;

  #calls(async: boolean): FieldCall[] {
    if (!async && this.#callCache !== null) return this.#callCache;
    const list = async ? this.#compiled.writable : this.#compiled.readable;
    const calls: FieldCall[] = [];
    for (let i = 0; i < list.length; i++)
      calls.push({ serializer: this, context: this.context, fieldName: (list[i] as CompiledField).name, async });
    if (!async) this.#callCache = calls;
    return calls;
  }

  /** Cross-field validation hook: return the (possibly changed) values or throw a `ValidationError`. */
  validate(attrs: SerializedObject): SerializedObject {
    return attrs;
  }

  /** Validates `data` (sync lookups only); `true` when valid. With `raiseException`, throws the `ValidationError` instead. */
  isValid(options: { raiseException?: boolean } = {}): boolean {
    return this.#finish(this.#run(false) as Outcome, options);
  }

  /** {@link isValid} allowing asynchronous lookups (`queryset`, async `getObject`). */
  async isValidAsync(options: { raiseException?: boolean } = {}): Promise<boolean> {
    return this.#finish(await this.#run(true), options);
  }

  /** The validated values (after a successful `isValid()`). */
  get validatedData(): In {
    if (this.#validated === NOT_VALIDATED) throw new ConfigurationError('Call isValid() before reading validatedData.');
    return this.#validated as In;
  }

  /** The errors of the last validation: `{}` when valid, field -> messages otherwise (an array per item with `many`). */
  get errors(): ErrorDetail {
    if (this.#validated === NOT_VALIDATED) throw new ConfigurationError('Call isValid() before reading errors.');
    return this.#errors ?? (this.many ? [] : {});
  }

  #finish(outcome: Outcome, options: { raiseException?: boolean }): boolean {
    this.#data = null;
    this.#validated = outcome.errors === null ? outcome.value : {};
    this.#errors = outcome.errors;
    if (outcome.errors !== null && options.raiseException) throw new ValidationError(outcome.errors);
    return outcome.errors === null;
  }

  #run(async: boolean): Outcome | Promise<Outcome> {
    if (this.initialData === undefined)
      throw new ConfigurationError('isValid() needs input: pass { data } when creating the serializer.');
    const data = this.initialData;
    if (!this.many) return this.runValidation(data, async);
    if (!Array.isArray(data))
      return {
        value: null,
        errors: { non_field_errors: [`Expected a list of items but got type "${pyTypeName(data)}".`] },
      };
    const results = data.map((d) => this.runValidation(d, async));
    const combine = (outs: Outcome[]): Outcome =>
      outs.some((o) => o.errors !== null)
        ? { value: null, errors: outs.map((o) => o.errors ?? {}) }
        : { value: outs.map((o) => o.value), errors: null };
    // eslint-disable-next-line @typescript-eslint/await-thenable -- in async mode runValidation() returns promises, except for input it rejects at once: Promise.all() takes both
    return async ? Promise.all(results).then(combine) : combine(results as Outcome[]);
  }

  /**
   * Validates one input object: field by field, then {@link validate}.
   * @internal
   */
  runValidation(data: unknown, async: boolean): Outcome | Promise<Outcome> {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return {
        value: null,
        errors: { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyTypeName(data)}.`] },
      };
    }
    const input = data as Record<string, unknown>;
    const attrs: SerializedObject = {};
    const errors: Record<string, ErrorDetail> = {};
    const pending: Promise<void>[] = [];
    const fields = this.#compiled.writable;
    const calls = this.#calls(true);
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] as CompiledField;
      const field = f.field;
      let value: unknown;
      if (!(f.name in input) || input[f.name] === undefined) {
        if (this.partial) continue;
        if (field.required) {
          errors[f.name] = [REQUIRED];
          continue;
        }
        if (!field.hasDefault) continue;
        value = field.getDefault();
      } else {
        const raw = input[f.name];
        if (raw === null || (raw === '' && field instanceof HyperlinkedRelatedField)) {
          if (!field.allowNull) errors[f.name] = [NOT_NULL];
          else setPath(attrs, f.attrs, null);
          continue;
        }
        try {
          value = field.toInternalValue(
            raw,
            async ? (calls[i] as FieldCall) : { ...(calls[i] as FieldCall), async: false },
          );
        } catch (e) {
          if (!(e instanceof ValidationError)) throw e;
          errors[f.name] = e.detail;
          continue;
        }
      }
      if (isThenable(value)) {
        if (!async)
          throw new ConfigurationError(
            `Field '${f.name}' returned a Promise: call isValidAsync() instead of isValid().`,
          );
        pending.push(
          Promise.resolve(value).then(
            (v) => setPath(attrs, f.attrs, v),
            (e: unknown) => {
              if (!(e instanceof ValidationError)) throw e;
              errors[f.name] = e.detail;
            },
          ),
        );
      } else setPath(attrs, f.attrs, value);
    }
    const finish = (): Outcome => {
      if (Object.keys(errors).length > 0) return { value: null, errors: orderErrors(errors, fields) };
      try {
        return { value: this.validate(attrs), errors: null };
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        const d = e.detail;
        return { value: null, errors: typeof d === 'object' && !Array.isArray(d) ? d : { non_field_errors: d } };
      }
    };
    return pending.length > 0 ? Promise.all(pending).then(finish) : finish();
  }
}

/** A nested serializer's value: one object, or an array with `many: true`. */
type Nested<V, O> = O extends { readonly many: true } ? V[] : V;

/**
 * The result of validating one input.
 * @internal
 */
export interface Outcome {
  value: unknown;
  errors: ErrorDetail | null;
}

function orderErrors(
  errors: Record<string, ErrorDetail>,
  fields: readonly CompiledField[],
): Record<string, ErrorDetail> {
  const out: Record<string, ErrorDetail> = {};
  for (const f of fields) if (f.name in errors) out[f.name] = errors[f.name] as ErrorDetail;
  return out;
}

function setPath(target: SerializedObject, attrs: readonly string[] | null, value: unknown): void {
  if (attrs === null) {
    if (typeof value === 'object' && value !== null) Object.assign(target, value);
    return;
  }
  let t = target;
  for (let i = 0; i < attrs.length - 1; i++) {
    const k = attrs[i] as string;
    let next = t[k];
    if (typeof next !== 'object' || next === null) t[k] = next = {};
    t = next as SerializedObject;
  }
  t[attrs[attrs.length - 1] as string] = value;
}

/** A serializer used as a field ({@link Serializer.asField}). */
class NestedField extends Field {
  readonly #cls: SerializerClass<unknown>;
  readonly #many: boolean;

  constructor(cls: SerializerClass<unknown>, options: FieldOptions & { readonly many?: boolean }) {
    super(options);
    this.#cls = cls;
    this.#many = options.many ?? false;
  }

  override toRepresentation(value: unknown, call: FieldCall): unknown {
    return new this.#cls(value, { many: this.#many, context: call.context }).data;
  }

  override toInternalValue(data: unknown, call: FieldCall): unknown {
    const s = new this.#cls(null, { many: this.#many, data, context: call.context });
    const check = (ok: boolean): unknown => {
      if (!ok) throw new ValidationError(s.errors);
      return s.validatedData;
    };
    return call.async ? s.isValidAsync().then(check) : check(s.isValid());
  }
}

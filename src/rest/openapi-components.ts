/**
 * The reusable schemas of an OpenAPI document (`components.schemas`): one
 * response schema per serializer class, named after the class
 * (`ItemSerializer`; a number appended when two classes share a name), a
 * request schema where an operation takes a body (`ItemSerializerRequest`,
 * `PatchedItemSerializerRequest` for PATCH: the split drf-spectacular calls
 * `COMPONENT_SPLIT_REQUEST`), and the bodies the API itself answers: errors
 * (`ErrorDetail`, `FieldErrors`) and the OPTIONS metadata (`ViewMetadata`).
 *
 * In a response every readable field is `required`: the serializer writes
 * it for every object (a read-only field such as `id`, `created` or a
 * hyperlinked `url` is taken to be always present on the object it reads).
 * In a request only the fields a client must send are.
 *
 * @module
 */
import type { JsonSchema } from './contracts.js';
import { BooleanField, CharField, DateTimeField, type Field, FloatField, IntegerField } from './fields.js';
import { HyperlinkedRelatedField } from './relations.js';

/** Which side of the exchange a schema describes. */
type Direction = 'response' | 'request';

function fieldSchema(field: Field, direction: Direction): JsonSchema {
  let s: JsonSchema;
  if (field instanceof HyperlinkedRelatedField) s = { type: 'string', format: 'uri' };
  else if (field instanceof DateTimeField) s = { type: 'string', format: 'date-time' };
  else if (field instanceof IntegerField) {
    s = { type: 'integer' };
    if (field.minValue !== null) s.minimum = field.minValue;
    if (field.maxValue !== null) s.maximum = field.maxValue;
  } else if (field instanceof FloatField) s = { type: 'number' };
  else if (field instanceof BooleanField) s = { type: 'boolean' };
  else if (field instanceof CharField) {
    s = { type: 'string' };
    if (direction === 'request') {
      if (field.maxLength !== null) s.maxLength = field.maxLength;
      if (field.minLength !== null) s.minLength = field.minLength;
    }
  } else s = {};
  if (field.readOnly) s.readOnly = true;
  if (field.writeOnly) s.writeOnly = true;
  if (field.allowNull && typeof s.type === 'string') s.type = [s.type, 'null'];
  return s;
}

/** A serializer class as the schemas read it: its declared fields. */
type FieldsOf = { readonly fields: Readonly<Record<string, Field>> };

/**
 * The JSON schema of a serializer class's output: every readable field,
 * each of them `required` (the serializer writes every one; read-only
 * fields such as `id` or `url` included).
 * @example
 * ```ts
 * serializerSchema(ItemSerializer);
 * // { type: 'object', properties: { id: { type: 'integer', readOnly: true }, ... }, required: ['id', 'name', ...] }
 * ```
 */
export function serializerSchema(cls: FieldsOf): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(cls.fields)) {
    if (field.writeOnly) continue;
    properties[name] = fieldSchema(field, 'response');
    required.push(name);
  }
  const out: JsonSchema = { type: 'object', properties };
  if (required.length) out.required = required;
  return out;
}

/**
 * The JSON schema of what a client sends to a serializer: the writable
 * fields (write-only ones included), `required` as the fields say (none
 * for a partial update).
 * @example
 * ```ts
 * serializerRequestSchema(ItemSerializer); // { type: 'object', properties: { name: ..., price: ... }, required: ['name', 'price'] }
 * ```
 */
export function serializerRequestSchema(cls: FieldsOf, options: { partial?: boolean } = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(cls.fields)) {
    if (field.readOnly) continue;
    properties[name] = fieldSchema(field, 'request');
    if (field.required && options.partial !== true) required.push(name);
  }
  const out: JsonSchema = { type: 'object', properties };
  if (required.length) out.required = required;
  return out;
}

/** `{"detail": "..."}`: the body of every error but field errors. */
const ERROR_DETAIL: JsonSchema = {
  type: 'object',
  description: 'An error: what went wrong, in a sentence.',
  required: ['detail'],
  properties: { detail: { type: 'string', examples: ['Not found.'] } },
};

/** `{"field": ["message", ...]}`: the body of a 400 for invalid input. */
const FIELD_ERRORS: JsonSchema = {
  type: 'object',
  description: 'Invalid input: the messages of each field (or parameter) at fault, by its name.',
  additionalProperties: { type: 'array', items: { type: 'string' } },
  examples: [{ name: ['This field is required.'] }],
};

/** What OPTIONS answers (`APIView.options()`). */
const VIEW_METADATA: JsonSchema = {
  type: 'object',
  description: "The view's metadata (OPTIONS).",
  required: ['name', 'description', 'renders', 'parses'],
  properties: {
    name: { type: 'string', description: "The view's name." },
    description: { type: 'string', description: "The view's description." },
    renders: { type: 'array', items: { type: 'string' }, description: 'The media types it answers with.' },
    parses: { type: 'array', items: { type: 'string' }, description: 'The media types of the bodies it reads.' },
  },
};

/** The schemas the API itself defines, by component name. */
const BUILT_IN: Readonly<Record<'ErrorDetail' | 'FieldErrors' | 'ViewMetadata', JsonSchema>> = {
  ErrorDetail: ERROR_DETAIL,
  FieldErrors: FIELD_ERRORS,
  ViewMetadata: VIEW_METADATA,
};

/** A component the API itself defines. @internal */
export type BuiltInComponent = keyof typeof BUILT_IN;

/**
 * The schemas of one document (`components.schemas`), added on first use:
 * serializers' response and request schemas by class, and the built-in
 * bodies by name.
 * @internal
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};
  /** The base name given to each class (its response schema's name). */
  readonly #names = new Map<unknown, string>();
  /** The names given to request schemas (`full:<base>`, `patched:<base>`) and built-in bodies. */
  readonly #others = new Map<string, string>();

  /** A `$ref` to `name`. */
  static refTo(name: string): JsonSchema {
    return { $ref: `#/components/schemas/${name}` };
  }

  /** A name not taken yet: `base`, else `base2`, `base3`... */
  #free(base: string): string {
    let name = base;
    for (let n = 2; Object.hasOwn(this.schemas, name) || name === '__proto__'; n++) name = `${base}${n}`;
    return name;
  }

  /** The component name of a serializer class's response schema (added on first use). */
  #nameOf(cls: FieldsOf & { readonly name: string }): string {
    let name = this.#names.get(cls);
    if (name === undefined) {
      const base = cls.name.replace(/[^A-Za-z0-9._-]+/g, '_') || 'Serializer';
      name = this.#free(base);
      this.#names.set(cls, name);
      this.schemas[name] = serializerSchema(cls);
    }
    return name;
  }

  /** A `$ref` to the response schema of `cls`. */
  ref(cls: FieldsOf & { readonly name: string }): JsonSchema {
    return SchemaComponents.refTo(this.#nameOf(cls));
  }

  /** A `$ref` to the request schema of `cls` (`<Name>Request`, or `Patched<Name>Request` when partial). */
  requestRef(cls: FieldsOf & { readonly name: string }, partial = false): JsonSchema {
    const base = this.#nameOf(cls);
    const key = `${partial ? 'patched' : 'full'}:${base}`;
    let name = this.#others.get(key);
    if (name === undefined) {
      name = this.#free(`${partial ? 'Patched' : ''}${base}Request`);
      this.#others.set(key, name);
      this.schemas[name] = serializerRequestSchema(cls, { partial });
    }
    return SchemaComponents.refTo(name);
  }

  /** A `$ref` to a body the API itself defines (added on first use). */
  builtIn(which: BuiltInComponent): JsonSchema {
    let name = this.#others.get(which);
    if (name === undefined) {
      name = this.#free(which);
      this.#others.set(which, name);
      this.schemas[name] = structuredClone(BUILT_IN[which]);
    }
    return SchemaComponents.refTo(name);
  }
}

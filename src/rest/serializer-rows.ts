/**
 * The output path of a serializer class, compiled once: a function made for
 * its list of readable fields that reads each field's source with a fixed
 * property name and calls each field's `toRepresentation` from a call site
 * of its own, into an object created with its final shape. A generic loop
 * over the fields (one property access by a computed name, one call site for
 * every kind of field) costs the engine a lookup per access, as every row
 * and every field goes through the same few instructions.
 *
 * It does what the generic loop does, in the same order: a field's value is
 * read, then converted, then the next field's value is read. A missing value
 * (a key the object does not have) hands the row to the generic loop from
 * that field on (`resume`): defaults, `allowNull`, fields left out and the
 * errors stay there.
 *
 * @module
 */
import type { Field, FieldCall } from './fields.js';

/**
 * A readable field as the serializer compiled it.
 * @internal
 */
export interface CompiledField {
  readonly name: string;
  readonly field: Field;
  /** The source path; `null`: the whole object (`'*'`). */
  readonly attrs: readonly string[] | null;
}

/**
 * Continues a row in the generic loop: from field `index`, whose value
 * (`undefined`: missing) was read already, into `out`, which holds the
 * fields before it (and a `null` placeholder for each later one).
 * @internal
 */
export type ResumeRow<S> = (
  serializer: S,
  instance: unknown,
  calls: readonly FieldCall[],
  index: number,
  value: unknown,
  out: Record<string, unknown>,
) => Record<string, unknown>;

/**
 * The compiled output of one row.
 * @internal
 */
export type RowWriter<S> = (
  serializer: S,
  instance: unknown,
  calls: readonly FieldCall[],
  resume: ResumeRow<S>,
) => Record<string, unknown>;

/** More fields than this take the generic loop (the made function's size grows with them). */
const MAX_FIELDS = 128;

/**
 * Makes the row writer of `fields`, or returns `null` (the generic loop is
 * used) when there are none, too many, a field named `__proto__` (which an
 * object literal would read as the prototype), or when the runtime does not
 * allow code generation from strings.
 * @internal
 * @example
 * ```ts
 * import { CharField, IntegerField, type FieldCall, type FieldParent } from './fields.js';
 * declare const serializer: FieldParent; // the serializer running the fields
 * const fields = [
 *   { name: 'id', field: new IntegerField(), attrs: ['id'] },
 *   { name: 'name', field: new CharField(), attrs: ['name'] },
 * ];
 * const write = rowWriter<object>(fields);
 * const calls: FieldCall[] = fields.map((f) => ({ serializer, context: {}, fieldName: f.name, async: false }));
 * const resume: ResumeRow<object> = (_s, _o, _c, _i, _v, out) => out; // the serializer's generic loop
 * write?.(serializer, { id: 1, name: 'a' }, calls, resume); // { id: 1, name: 'a' }
 * ```
 */
export function rowWriter<S>(fields: readonly CompiledField[]): RowWriter<S> | null {
  if (fields.length === 0 || fields.length > MAX_FIELDS || fields.some((f) => f.name === '__proto__')) return null;
  const shape = fields.map((f) => `${JSON.stringify(f.name)}: null`).join(', ');
  const steps: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    steps.push('v = o;');
    // The generic loop's walk: a null part gives null, a missing one undefined.
    for (const a of f.attrs ?? []) steps.push(`if (v !== null && v !== undefined) v = v[${JSON.stringify(a)}];`);
    steps.push(
      `if (v === undefined) return r(s, o, c, ${i}, v, out);`,
      `out[${JSON.stringify(f.name)}] = v === null ? null : f${i}.toRepresentation(v, c[${i}]);`,
    );
  }
  const body = `return (s, o, c, r) => {\nconst out = { ${shape} };\nlet v;\n${steps.join('\n')}\nreturn out;\n};`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed template over the field names (JSON-quoted)
    const make = new Function(...fields.map((_, i) => `f${i}`), body) as (...f: Field[]) => RowWriter<S>;
    return make(...fields.map((f) => f.field));
  } catch {
    return null; // code generation from strings is disallowed: the generic loop
  }
}

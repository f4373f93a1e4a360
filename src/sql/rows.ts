/**
 * Rows as a `SqlQueryset` returns them, from rows as the driver returns
 * them: each field's value through its converter (datetimes to `Date`s,
 * SQLite booleans, PostgreSQL `bigint` and `numeric` text to numbers). A
 * raw SQLite row (an array) becomes an object through a function made once
 * per field list, so that every row has one shape; where the runtime
 * forbids code generation from strings, a generic loop gives the same
 * objects.
 *
 * @module
 */

/** Converts one value of a field as read (never called with a field that needs no conversion). @internal */
export type ValueConverter = (v: unknown) => unknown;

/** More fields than this take the generic loop (the made function's size grows with them). */
const MAX_FIELDS = 128;

/**
 * A function building one row object from a raw row (values in `names`
 * order), each value through its converter (`null`: as it is). The object
 * literal is generated once so that every row has one shape; the generic
 * loop serves no code generation from strings (`node
 * --disallow-code-generation-from-strings`), a field named `__proto__`
 * (which an object literal would read as the prototype), too many fields,
 * and `generate: false`. Both give equal objects: the same own keys in the
 * same order, the same values, converters called in field order.
 * @internal
 * @example
 * ```ts
 * const make = rowFactory(['id', 'active'], [null, (v) => v === 1]);
 * make([7, 1]); // { id: 7, active: true }
 * ```
 */
export function rowFactory(
  names: readonly string[],
  converters: readonly (ValueConverter | null)[],
  generate = true,
): (raw: unknown[]) => Record<string, unknown> {
  if (generate && names.length <= MAX_FIELDS && !names.includes('__proto__')) {
    const body = names
      .map((n, i) => `${JSON.stringify(n)}: ${converters[i] ? `c${i}(r[${i}])` : `r[${i}]`}`)
      .join(', ');
    const bind = names.map((_, i) => (converters[i] ? `const c${i} = c[${i}];\n` : '')).join('');
    try {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed template over the field names (JSON-quoted)
      const make = new Function('c', `${bind}return (r) => ({ ${body} });`) as (
        c: readonly (ValueConverter | null)[],
      ) => (raw: unknown[]) => Record<string, unknown>;
      return make(converters);
    } catch {
      // Code generation from strings is disallowed: the generic loop.
    }
  }
  const n = names.length;
  const list = [...names];
  const convs = [...converters];
  return (raw) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const c = convs[i];
      const v = c ? c(raw[i]) : raw[i];
      const name = list[i]!;
      if (name === '__proto__')
        Object.defineProperty(out, name, { value: v, enumerable: true, writable: true, configurable: true });
      else out[name] = v;
    }
    return out;
  };
}

/** One field's conversion, for rows read as objects. @internal */
export interface FieldConversion {
  readonly field: string;
  readonly convert: ValueConverter;
}

/** Converts the fields of rows read as objects, in place. @internal */
export function convertRows(rows: Record<string, unknown>[], conversions: readonly FieldConversion[]): void {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let j = 0; j < conversions.length; j++) {
      const { field, convert } = conversions[j]!;
      row[field] = convert(row[field]);
    }
  }
}

/** SQLite's 0 and 1 as booleans (other values as they are). @internal */
export function sqliteBoolean(v: unknown): unknown {
  return typeof v === 'number' || typeof v === 'bigint' ? v !== 0 && v !== 0n : v;
}

/** PostgreSQL `bigint` and `numeric` text as numbers; integers beyond 2^53 stay exact as bigints. @internal */
export function postgresNumber(integer: boolean): ValueConverter {
  return (v) => {
    if (typeof v !== 'string') return v;
    const n = Number(v);
    return integer && !Number.isSafeInteger(n) && /^-?\d+$/.test(v) ? BigInt(v) : n;
  };
}

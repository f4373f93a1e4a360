/**
 * {@link ArrayQueryset}: the in-memory {@link Queryset}. It pages a plain
 * array of rows exactly as the SQL source pages a table (same ordering,
 * tie-breaker, NULL placement, filter rules and cursor positions), so it is
 * both the source for small data sets and the model the SQL source is
 * tested against.
 *
 * @module
 */
import { ConfigurationError } from '../errors.js';
import { ARRAY_VALUES, fieldsProblem, formatPosition, parseDatetime, parsePosition } from './values.js';
import {
  INVALID_POSITION,
  type Comparison,
  type CountOptions,
  type FieldInfo,
  type FieldType,
  type Queryset,
} from './source.js';

/**
 * Options of {@link ArrayQueryset}.
 * @example
 * ```ts
 * const options: ArrayQuerysetOptions = { fields: { id: { type: 'integer', unique: true }, created: { type: 'datetime', unique: true } } };
 * ```
 */
export interface ArrayQuerysetOptions {
  /** The fields of the rows; inferred from the first row when omitted. */
  readonly fields?: Readonly<Record<string, FieldInfo>>;
  /** The primary-key field (default `'id'`). */
  readonly primaryKey?: string;
  /** Names the source in {@link ArrayQueryset.cacheKey} (default: a number unique to the rows array). */
  readonly name?: string;
}

interface FilterTerm {
  readonly field: string;
  readonly op: Comparison;
  readonly key: SortKey;
  readonly type: FieldType;
}

interface SortTerm {
  readonly field: string;
  readonly desc: boolean;
  readonly type: FieldType;
}

/** A keyset filter: rows strictly after `keys` in the order of `terms`. */
interface SeekTerm {
  readonly terms: readonly SortTerm[];
  readonly keys: readonly SortKey[];
}

/** A value reduced to something that compares: NULL, a number (or bigint), or text. */
type SortKey = null | number | bigint | string;

const sourceIds = new WeakMap<object, number>();
let nextSourceId = 1;

/**
 * A {@link Queryset} over an array of row objects.
 *
 * - **Immutable**: `orderBy()` and `filter()` return new querysets; the
 *   array itself is never modified. The array is read, not copied: rows
 *   appended to it (or removed from its end) are seen by the next count or
 *   slice of any queryset built on it. Rows edited in place are seen by
 *   querysets that have not been evaluated yet (an evaluated queryset keeps
 *   its filtered, sorted list while the array length is unchanged).
 * - **Ordering**: a stable sort by the terms; when no term names a unique
 *   field the primary key is appended in the direction of the last term
 *   (`-price` sorts by `-price, -id`), so a reversed ordering is the exact
 *   reverse. NULL sorts before every value (first ascending, last
 *   descending). Text compares by code point (SQLite's `BINARY`).
 * - **Filters**: NULL is smaller than every value (`lt` a value includes the
 *   NULL rows, `gt` excludes them, `gt` NULL means "not NULL", `lt` NULL
 *   matches nothing, `eq` NULL matches the NULL rows). A string value for a
 *   non-text field is read with {@link ArrayQueryset.parsePosition}.
 * - **Positions**: Python's `str()` of the value: integers in decimal,
 *   floats as Python's `repr` (`1.0`, `1e-05`, `1e+16`), datetimes as
 *   `YYYY-MM-DD HH:MM:SS[.ffffff]+00:00` in UTC, booleans `True` / `False`,
 *   NULL `None`, text as it is. `parsePosition` reads them back; `None`
 *   means NULL on a nullable field (on a nullable text field the text `None`
 *   is therefore read as NULL). Datetimes are JavaScript `Date`s, so
 *   microseconds below the millisecond are dropped when a position is read.
 * - `estimateCount()` is always `null` (an array has no statistics to read).
 *
 * Datetime values may be `Date`s, datetime text, or epoch milliseconds.
 * @example
 * ```ts
 * const items = new ArrayQueryset(
 *   [{ id: 1, price: 5, created: new Date('2020-01-01T00:00:01Z') }, { id: 2, price: 3, created: new Date('2020-01-01T00:00:02Z') }],
 *   { fields: { id: { type: 'integer', unique: true }, price: { type: 'integer' }, created: { type: 'datetime', unique: true } } },
 * );
 * const cheap = items.orderBy('-price').filter('price', 'lt', 5);
 * await cheap.count(); // 1
 * items.position((await items.all())[0]!, 'created'); // '2020-01-01 00:00:01+00:00'
 * ```
 */
export class ArrayQueryset<Row extends object = Record<string, unknown>> implements Queryset<Row> {
  /** The fields rows have, with their types. */
  readonly fields: Readonly<Record<string, FieldInfo>>;
  /** The primary-key field. */
  readonly primaryKey: string;
  readonly #source: readonly Row[];
  #sourceName: string;
  /** Fields were inferred from an empty array: any field name is accepted (as text). */
  #open: boolean;
  #ordering: readonly string[] = [];
  #filters: readonly FilterTerm[] = [];
  #sort: readonly SortTerm[] = [];
  #seeks: readonly SeekTerm[] = [];
  #cacheKey: string | null = null;
  #evaluated: { length: number; rows: readonly Row[] } | null = null;

  /**
   * @param rows the rows (read, not copied).
   * @param options fields (inferred from the first row when omitted), primary key, name.
   */
  constructor(rows: readonly Row[], options: ArrayQuerysetOptions = {}) {
    if (!Array.isArray(rows)) throw new ConfigurationError('ArrayQueryset needs an array of rows.');
    this.#source = rows;
    this.primaryKey = options.primaryKey ?? 'id';
    if (options.fields !== undefined) {
      const problem = fieldsProblem(options.fields);
      if (problem !== null) throw new ConfigurationError(`ArrayQueryset fields: ${problem}`);
      this.fields = options.fields;
      this.#open = false;
    } else {
      this.fields = inferFields(this.#source[0], this.primaryKey);
      this.#open = rows.length === 0;
    }
    if (options.name !== undefined) this.#sourceName = options.name;
    else {
      let id = sourceIds.get(rows);
      if (id === undefined) sourceIds.set(rows, (id = nextSourceId++));
      this.#sourceName = `array#${id}`;
    }
  }

  #derive(): ArrayQueryset<Row> {
    const q = new ArrayQueryset<Row>(this.#source, {
      fields: this.fields,
      primaryKey: this.primaryKey,
      name: this.#sourceName,
    });
    q.#open = this.#open;
    q.#ordering = this.#ordering;
    q.#filters = this.#filters;
    q.#sort = this.#sort;
    q.#seeks = this.#seeks;
    return q;
  }

  /** The ordering terms as given to {@link orderBy} (empty when unordered). */
  get ordering(): readonly string[] {
    return this.#ordering;
  }

  #type(field: string, what: string): FieldType {
    const info = this.fields[field];
    if (info !== undefined) return info.type;
    if (this.#open) return 'text';
    throw new ConfigurationError(
      `${what}: unknown field ${JSON.stringify(field)} (fields: ${Object.keys(this.fields).join(', ') || 'none'}).`,
    );
  }

  /**
   * A queryset ordered by `terms` (`'-price'` descending), with the primary
   * key appended as tie-breaker when no term names a unique field.
   */
  orderBy(...terms: string[]): ArrayQueryset<Row> {
    const sort: SortTerm[] = [];
    let unique = false;
    for (const term of terms) {
      if (typeof term !== 'string') throw new ConfigurationError('orderBy() takes field names.');
      const desc = term.startsWith('-');
      const field = desc ? term.slice(1) : term;
      const type = this.#type(field, 'orderBy()');
      const info = this.fields[field];
      // A nullable unique field may hold NULL in several rows: not a tie-breaker (as in SqlQueryset).
      if (field === this.primaryKey || (info?.unique === true && info.nullable !== true)) unique = true;
      sort.push({ field, desc, type });
    }
    if (!unique && sort.length > 0 && (this.primaryKey in this.fields || this.#open)) {
      sort.push({
        field: this.primaryKey,
        desc: sort[sort.length - 1]!.desc,
        type: this.fields[this.primaryKey]?.type ?? 'integer',
      });
    }
    const q = this.#derive();
    q.#ordering = Object.freeze([...terms]);
    q.#sort = sort;
    return q;
  }

  /** A queryset narrowed to rows whose `field` compares to `value` (NULL rules in the class doc). */
  filter(field: string, op: Comparison, value: unknown): ArrayQueryset<Row> {
    const type = this.#type(field, 'filter()');
    if (op !== 'lt' && op !== 'lte' && op !== 'gt' && op !== 'gte' && op !== 'eq')
      throw new ConfigurationError(`filter(): unknown comparison ${JSON.stringify(op)}.`);
    let v = value;
    if (typeof v === 'string' && type !== 'text') {
      v = this.parsePosition(field, v);
      if (v === INVALID_POSITION)
        throw new ConfigurationError(
          `filter(): ${JSON.stringify(value)} is not a value of the ${type} field ${JSON.stringify(field)}.`,
        );
    }
    const q = this.#derive();
    q.#filters = [...this.#filters, { field, op, key: sortKey(v, type), type }];
    return q;
  }

  /** The ordering terms applied, the tie-breaker included (`[primaryKey]` when unordered). */
  get orderKey(): readonly string[] {
    if (this.#sort.length === 0) return [this.primaryKey];
    return this.#sort.map((t) => (t.desc ? `-${t.field}` : t.field));
  }

  /** The rows strictly after the place whose {@link orderKey} values are `values`. */
  seekAfter(values: readonly unknown[]): ArrayQueryset<Row> {
    const terms: readonly SortTerm[] =
      this.#sort.length > 0
        ? this.#sort
        : [{ field: this.primaryKey, desc: false, type: this.#type(this.primaryKey, 'seekAfter()') }];
    const given: unknown = values; // Array.isArray would narrow to any[]
    if (!Array.isArray(given) || values.length !== terms.length)
      throw new ConfigurationError(
        `seekAfter() takes ${terms.length} values (one per term of ${this.orderKey.join(', ')}).`,
      );
    const keys = terms.map((t, i) => {
      let v = values[i];
      if (typeof v === 'string' && t.type !== 'text') {
        v = this.parsePosition(t.field, v);
        if (v === INVALID_POSITION)
          throw new ConfigurationError(`seekAfter(): ${JSON.stringify(values[i])} is not a value of ${t.field}.`);
      }
      return sortKey(v, t.type);
    });
    const q = this.#derive();
    q.#seeks = [...this.#seeks, { terms, keys }];
    return q;
  }

  /** The matching rows in order (memoized while the source length is unchanged). */
  #rows(): readonly Row[] {
    const src = this.#source;
    const memo = this.#evaluated;
    if (memo !== null && memo.length === src.length) return memo.rows;
    let rows: readonly Row[] = src;
    const filters = this.#filters;
    if (filters.length > 0)
      rows = src.filter((row) =>
        filters.every((f) => test(compareKeys(sortKey(read(row, f.field), f.type), f.key), f.op)),
      );
    for (const seek of this.#seeks) rows = rows.filter((row) => compareToSeek(row, seek) > 0);
    if (this.#sort.length > 0) rows = sortRows(rows, this.#sort);
    this.#evaluated = { length: src.length, rows };
    return rows;
  }

  /** How many rows match; with `cap`, at most `cap`. */
  // eslint-disable-next-line @typescript-eslint/require-await -- implements the Queryset interface, whose methods return promises
  async count(options: CountOptions = {}): Promise<number> {
    const n = this.#filters.length === 0 && this.#seeks.length === 0 ? this.#source.length : this.#rows().length;
    return options.cap !== undefined && options.cap >= 0 ? Math.min(n, options.cap) : n;
  }

  /** Always `null`: an array has no statistics to estimate from. */
  // eslint-disable-next-line @typescript-eslint/require-await -- implements the Queryset interface, whose methods return promises
  async estimateCount(): Promise<number | null> {
    return null;
  }

  /** The source name, the filters and the ordering, as text. */
  get cacheKey(): string {
    if (this.#cacheKey === null) {
      let key = this.#sourceName;
      for (const f of this.#filters) key += `|${f.field}:${f.op}:${keyText(f.key)}`;
      for (const s of this.#seeks)
        key += `|after:${s.terms.map((t, i) => `${t.desc ? '-' : ''}${t.field}=${keyText(s.keys[i]!)}`).join(',')}`;
      if (this.ordering.length > 0) key += `|order:${this.ordering.join(',')}`;
      this.#cacheKey = key;
    }
    return this.#cacheKey;
  }

  /** The rows `[start, end)` in order, as a new array. */
  // eslint-disable-next-line @typescript-eslint/require-await -- implements the Queryset interface, whose methods return promises
  async slice(start: number, end: number): Promise<Row[]> {
    const s = Math.max(0, Math.trunc(start));
    const e = Math.max(s, Math.trunc(end));
    if (this.#filters.length === 0 && this.#sort.length === 0 && this.#seeks.length === 0)
      return this.#source.slice(s, e);
    return this.#rows().slice(s, e);
  }

  /** Every matching row in order, as a new array. */
  // eslint-disable-next-line @typescript-eslint/require-await -- implements the Queryset interface, whose methods return promises
  async all(): Promise<Row[]> {
    return this.#rows().slice();
  }

  /** The row's value of `field` as Python's `str()` writes it. */
  position(row: Row, field: string): string {
    return formatPosition(read(row, field), this.#type(field, 'position()'));
  }

  /**
   * A position read back into a value of `field`, or {@link INVALID_POSITION}
   * for anything the field cannot hold (its type, its `bits`, NaN, years
   * outside 1..9999, more than 4096 characters: the rules of the SQL source,
   * so the same cursor gets the same answer; text may hold U+0000 here).
   */
  parsePosition(field: string, position: string): unknown {
    const info = this.fields[field];
    if (info !== undefined) return parsePosition(position, info, ARRAY_VALUES, info.nullable === true || this.#open);
    return parsePosition(position, { type: this.#type(field, 'parsePosition()') }, ARRAY_VALUES, true);
  }
}

function read(row: object, field: string): unknown {
  return (row as Record<string, unknown>)[field];
}

function inferFields(row: object | undefined, primaryKey: string): Record<string, FieldInfo> {
  if (row === undefined || row === null) return { [primaryKey]: { type: 'integer', unique: true } };
  const out: Record<string, FieldInfo> = {};
  for (const [name, v] of Object.entries(row)) {
    const type: FieldType =
      typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'float'
        : typeof v === 'bigint'
          ? 'integer'
          : typeof v === 'boolean'
            ? 'boolean'
            : v instanceof Date
              ? 'datetime'
              : 'text';
    out[name] =
      name === primaryKey
        ? { type, unique: true }
        : v === null || v === undefined
          ? { type, nullable: true }
          : { type };
  }
  return out;
}

/** Reduces a value to a comparable key by field type. */
function sortKey(v: unknown, type: FieldType): SortKey {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'datetime':
      if (v instanceof Date) return v.getTime();
      if (typeof v === 'string') return parseDatetime(v)?.getTime() ?? v;
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value not of the field's type (it may be of any type) sorts by its String() text
      return typeof v === 'number' ? v : String(v);
    case 'boolean':
      return v ? 1 : 0;
    case 'integer':
    case 'float':
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value not of the field's type (it may be of any type) sorts by its String() text
      return typeof v === 'number' || typeof v === 'bigint' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : String(v);
    default:
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value not of the field's type (it may be of any type) sorts by its String() text
      return typeof v === 'string' ? v : String(v);
  }
}

/** NULL first; numbers (and bigints) numerically; text by code point. */
function compareKeys(a: SortKey, b: SortKey): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  if (typeof a === 'string' || typeof b === 'string') return compareText(String(a), String(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Code-point order (UTF-16 order differs only where a surrogate meets U+E000..U+FFFF). */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function test(c: number, op: Comparison): boolean {
  switch (op) {
    case 'lt':
      return c < 0;
    case 'lte':
      return c <= 0;
    case 'gt':
      return c > 0;
    case 'gte':
      return c >= 0;
    default:
      return c === 0;
  }
}

function sortRows<Row extends object>(rows: readonly Row[], terms: readonly SortTerm[]): Row[] {
  const n = terms.length;
  const decorated = rows.map((row, index) => {
    const keys = new Array<SortKey>(n);
    for (let t = 0; t < n; t++) keys[t] = sortKey(read(row, terms[t]!.field), terms[t]!.type);
    return { row, keys, index };
  });
  decorated.sort((a, b) => {
    for (let t = 0; t < n; t++) {
      const c = compareKeys(a.keys[t]!, b.keys[t]!);
      if (c !== 0) return terms[t]!.desc ? -c : c;
    }
    return a.index - b.index;
  });
  return decorated.map((d) => d.row);
}

/** Where a row stands against a keyset place: positive when strictly after it in the seek's order. */
function compareToSeek(row: object, seek: SeekTerm): number {
  const { terms, keys } = seek;
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t]!;
    const c = compareKeys(sortKey(read(row, term.field), term.type), keys[t]!);
    if (c !== 0) return term.desc ? -c : c;
  }
  return 0;
}

function keyText(k: SortKey): string {
  if (k === null) return 'null';
  if (typeof k === 'string') return JSON.stringify(k);
  return typeof k === 'bigint' ? `${k}n` : String(k);
}

/**
 * The queryset a paginator works on: a {@link Queryset} as it is, an array
 * wrapped in an {@link ArrayQueryset} with fields inferred from its first row.
 * @example
 * ```ts
 * const qs = asQueryset([{ id: 1 }, { id: 2 }]);
 * await qs.count(); // 2
 * ```
 */
export function asQueryset<Row extends object>(source: Queryset<Row> | readonly Row[]): Queryset<Row> {
  return Array.isArray(source) ? new ArrayQueryset<Row>(source as readonly Row[]) : (source as Queryset<Row>);
}

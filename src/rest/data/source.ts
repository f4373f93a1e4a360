/**
 * The data-source contract pagination works on: a {@link Queryset} can count
 * its rows, return a slice in order, change its ordering and narrow itself
 * with comparison filters (keyset paging). Querysets are immutable: every
 * method that changes something returns a new queryset.
 *
 * Implementations: `ArrayQueryset` (in memory) and `SqlQueryset` (Kysely on
 * SQLite or PostgreSQL).
 *
 * **NULL placement** (the same in every implementation): NULL sorts before
 * every value, so it comes first in an ascending ordering and last in a
 * descending one; in filters NULL is smaller than every value (`lt` a value
 * includes the NULL rows, `gt` a value excludes them, `gt` NULL means "not
 * NULL", `lt` NULL matches nothing).
 *
 * @module
 */

/**
 * The type of a field, which decides how values compare, how a cursor
 * position is written (Python's `str()`) and parsed back.
 * @example
 * ```ts
 * const t: FieldType = 'datetime';
 * ```
 */
export type FieldType = 'integer' | 'float' | 'text' | 'datetime' | 'boolean';

/**
 * The storage width of an integer or float column, in bits.
 * @example
 * ```ts
 * const postgresInteger: FieldBits = 32;
 * ```
 */
export type FieldBits = 16 | 32 | 64;

/**
 * What a source knows about one field.
 * @example
 * ```ts
 * const created: FieldInfo = { type: 'datetime', unique: true };
 * const price: FieldInfo = { type: 'integer', bits: 32 }; // a PostgreSQL `integer` column
 * ```
 */
export interface FieldInfo {
  /** How values compare and print. */
  readonly type: FieldType;
  /** Whether no two rows share a value (a primary key is unique). */
  readonly unique?: boolean;
  /** Whether the field may hold NULL. */
  readonly nullable?: boolean;
  /**
   * The column's width where the database has several: integers 16, 32 or
   * 64 (PostgreSQL `smallint`, `integer`, `bigint`), floats 32 or 64
   * (`real`, `double precision`). The default, 64, is the widest any driver
   * binds (SQLite's INTEGER and REAL are always 64-bit). A cursor position
   * outside the width is invalid (404 `Invalid cursor`) instead of reaching
   * the database, which would refuse it (`out of range for type integer`,
   * a 500): declare 16 or 32 for narrower PostgreSQL columns.
   */
  readonly bits?: FieldBits;
}

/**
 * A comparison of {@link Queryset.filter}.
 * @example
 * ```ts
 * const op: Comparison = 'lt';
 * ```
 */
export type Comparison = 'lt' | 'lte' | 'gt' | 'gte' | 'eq';

/**
 * Returned by {@link Queryset.parsePosition} when a cursor position cannot
 * be read as a value of the field, or names a value the source cannot use
 * (outside the column's range, or refused by its driver).
 * @example
 * ```ts
 * if (items.parsePosition('created', '2020-13-45') === INVALID_POSITION) throw new NotFound('Invalid cursor');
 * ```
 */
export const INVALID_POSITION: unique symbol = Symbol('eventide.invalidPosition');

/**
 * How to count: exactly, or stop counting at `cap` rows (the result is then
 * `min(count, cap)`).
 * @example
 * ```ts
 * const n = await items.count({ cap: 10_000 }); // at most 10000
 * ```
 */
export interface CountOptions {
  /** Count at most this many rows. */
  readonly cap?: number;
}

/**
 * A source of rows that pagination, filters and generic views work on.
 * Rows are plain objects keyed by field name; datetimes are `Date`s.
 * @example
 * ```ts
 * async function firstPage(qs: Queryset) {
 *   const ordered = qs.orderBy('-created');
 *   return { count: await ordered.count(), rows: await ordered.slice(0, 10) };
 * }
 * ```
 */
export interface Queryset<Row extends object = Record<string, unknown>> {
  /** The fields rows have, with their types. */
  readonly fields: Readonly<Record<string, FieldInfo>>;
  /** The primary-key field (unique, not nullable). */
  readonly primaryKey: string;
  /** The ordering applied, as terms (`'-created'`, `'price'`); empty when unordered. */
  readonly ordering: readonly string[];
  /**
   * A queryset ordered by `terms` (`'-price'` is descending). When no term
   * names a unique field, the primary key is appended as a tie-breaker in
   * the direction of the last term (`-price` orders by `-price, -id`);
   * `ordering` reports the terms as given. Unknown fields throw a
   * `ConfigurationError`.
   */
  orderBy(...terms: string[]): Queryset<Row>;
  /** A queryset narrowed to rows whose `field` compares to `value` (NULL rules in the module doc). */
  filter(field: string, op: Comparison, value: unknown): Queryset<Row>;
  /**
   * The ordering actually applied, as terms: those of {@link orderBy} plus
   * the primary-key tie-breaker when it was appended (`['-price', '-id']`);
   * `[primaryKey]` when unordered. Its values identify a row's place in the
   * order (a keyset).
   */
  readonly orderKey: readonly string[];
  /**
   * A queryset narrowed to the rows strictly after the place whose
   * {@link orderKey} values are `values` (in this ordering, NULL placed as
   * in the module doc; `null` is NULL). This is keyset paging: on SQL a
   * row-value comparison (`(price, id) > (?, ?)`) that an index on the
   * ordering serves, or its expansion when directions are mixed or a field
   * is nullable. Values are what {@link parsePosition} returns (or values of
   * the fields' types). A later {@link orderBy} does not change the place.
   */
  seekAfter(values: readonly unknown[]): Queryset<Row>;
  /** How many rows there are (exact, or capped). */
  count(options?: CountOptions): Promise<number>;
  /** An estimate of the row count from the database's statistics, or `null` when the source cannot estimate. */
  estimateCount(): Promise<number | null>;
  /** A stable text naming this query (source, filters, ordering) for count caches. */
  readonly cacheKey: string;
  /** The rows `[start, end)` in order (fewer at the end of the data). */
  slice(start: number, end: number): Promise<Row[]>;
  /** Every row in order. */
  all(): Promise<Row[]>;
  /**
   * A row's value of `field` written as Python's `str()` would (DRF's cursor
   * position): integers in decimal, datetimes as
   * `2020-01-01 00:16:31.667000+00:00`, booleans `True` / `False`, NULL `None`.
   */
  position(row: Row, field: string): string;
  /**
   * Reads a position written by {@link position} back into a value for
   * {@link filter}, or returns {@link INVALID_POSITION} for anything the
   * source cannot use as a value of `field`: text the type does not read,
   * an integer outside the field's {@link FieldInfo.bits} (64 by default), a
   * float beyond a 32-bit field's range, a NaN where the driver cannot order
   * it, a datetime outside years 1..9999 in UTC, text the database cannot
   * hold (U+0000 on PostgreSQL), or more than `MAX_POSITION_LENGTH` (4096)
   * characters. Whatever it returns binds and compares without a database
   * error, so a forged cursor never reaches SQL.
   */
  parsePosition(field: string, position: string): unknown;
}

/**
 * Whether a value is a {@link Queryset} (duck-typed, so any implementation qualifies).
 * @example
 * ```ts
 * const source: Queryset<Item> | Item[] = rows;
 * const qs = isQueryset(source) ? source : asQueryset(source);
 * ```
 */
export function isQueryset(value: unknown): value is Queryset<object> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Queryset).slice === 'function' &&
    typeof (value as Queryset).orderBy === 'function' &&
    typeof (value as Queryset).count === 'function'
  );
}

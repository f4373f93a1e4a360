/**
 * The WHERE conditions of {@link SqlQueryset}: comparison filters with
 * NULL smaller than every value, keyset seeks (a row-value comparison or
 * its expansion), and filter values in the form each database compares.
 *
 * @module
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { ConfigurationError } from '../rest/errors.js';
import { INVALID_POSITION, type Comparison, type FieldInfo } from '../rest/data/source.js';
import { parsePosition, POSTGRES_VALUES, pythonDatetimeStr, SQLITE_VALUES } from '../rest/data/values.js';
import { DatetimeParam, inStorageRange, type DatetimeCodec } from './datetime-formats.js';

type Eb = ExpressionBuilder<Record<string, Record<string, unknown>>, string>;
type Fields = Readonly<Record<string, FieldInfo>>;

/**
 * The SQL dialect a `SqlQueryset` speaks.
 * @example
 * ```ts
 * const kind: SqlDialectKind = 'sqlite';
 * ```
 */
export type SqlDialectKind = 'sqlite' | 'postgres';

/** A term of an ordering. @internal */
export interface Term {
  readonly field: string;
  readonly desc: boolean;
}

/** A keyset filter: rows strictly after `params` (database form, or null for NULL) in the order of `terms`. @internal */
export interface Seek {
  readonly kind: 'seek';
  readonly terms: readonly Term[];
  readonly params: readonly unknown[];
}

/** A comparison filter (`field op param`). @internal */
export interface Filter {
  readonly kind?: undefined;
  readonly field: string;
  readonly op: Comparison;
  /** The bound value (database form), or null. */
  readonly param: unknown;
}

/** The SQL operator of each comparison. @internal */
export const OPS: Readonly<Record<Comparison, '<' | '<=' | '>' | '>=' | '='>> = {
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
  eq: '=',
};
/** The condition of a comparison filter, NULL smaller than every value. @internal */
export function condition(eb: Eb, fields: Fields, f: Filter): Expression<SqlBool> {
  const ref = eb.ref(f.field);
  if (f.param === null) {
    // NULL is smaller than every value.
    switch (f.op) {
      case 'eq':
      case 'lte':
        return eb(ref, 'is', null);
      case 'gt':
        return eb(ref, 'is not', null);
      case 'gte':
        return sql<SqlBool>`1 = 1`;
      case 'lt':
        return sql<SqlBool>`1 = 0`;
    }
  }
  const cmp = eb(ref, OPS[f.op], f.param);
  if ((f.op === 'lt' || f.op === 'lte') && fields[f.field]!.nullable === true) return eb.or([cmp, eb(ref, 'is', null)]);
  return cmp;
}

/** Whether a seek compiles to one row-value comparison: one direction, no nullable field, no NULL value. @internal */
export function rowValueSeek(fields: Fields, seek: Seek): boolean {
  const desc = seek.terms[0]!.desc;
  for (let i = 0; i < seek.terms.length; i++) {
    const t = seek.terms[i]!;
    if (t.desc !== desc || seek.params[i] === null || fields[t.field]!.nullable === true) return false;
  }
  return true;
}

/**
 * The bound values of a seek's condition, in the order {@link seekCondition}
 * writes them (the expanded form repeats the leading values).
 * @internal
 */
export function seekParams(fields: Fields, seek: Seek): unknown[] {
  const { terms, params } = seek;
  if (rowValueSeek(fields, seek)) return [...params];
  const out: unknown[] = [];
  for (let i = 0; i < terms.length; i++) {
    if (terms[i]!.desc && params[i] === null) continue; // nothing is below NULL: this branch is empty
    for (let j = 0; j < i; j++) if (params[j] !== null) out.push(params[j]);
    if (params[i] !== null) out.push(params[i]);
  }
  return out;
}

/**
 * Rows strictly after a place in an ordering. One direction and no NULLs:
 * `(a, b) > (?, ?)` (or `<` descending), which an index on `(a, b)` serves
 * as a range. Otherwise the expansion `a > ? OR (a = ? AND b > ?)`, with
 * NULL smaller than every value (`a IS NULL` for equality with NULL; after
 * NULL ascending is `IS NOT NULL`; below a value descending includes NULL).
 * @internal
 */
export function seekCondition(fields: Fields, seek: Seek): Expression<SqlBool> {
  const { terms, params } = seek;
  if (rowValueSeek(fields, seek)) {
    const refs = sql.join(terms.map((t) => sql.ref(t.field)));
    const vals = sql.join(params.map((v) => sql.val(v)));
    return terms[0]!.desc ? sql<SqlBool>`(${refs}) < (${vals})` : sql<SqlBool>`(${refs}) > (${vals})`;
  }
  const branches: ReturnType<typeof sql<SqlBool>>[] = [];
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    const v = params[i];
    if (t.desc && v === null) continue;
    const parts: ReturnType<typeof sql<SqlBool>>[] = [];
    for (let j = 0; j < i; j++) {
      const u = terms[j]!;
      parts.push(
        params[j] === null
          ? sql<SqlBool>`${sql.ref(u.field)} is null`
          : sql<SqlBool>`${sql.ref(u.field)} = ${sql.val(params[j])}`,
      );
    }
    const ref = sql.ref(t.field);
    if (!t.desc) parts.push(v === null ? sql<SqlBool>`${ref} is not null` : sql<SqlBool>`${ref} > ${sql.val(v)}`);
    else if (fields[t.field]!.nullable === true) parts.push(sql<SqlBool>`(${ref} < ${sql.val(v)} or ${ref} is null)`);
    else parts.push(sql<SqlBool>`${ref} < ${sql.val(v)}`);
    branches.push(parts.length === 1 ? parts[0]! : sql<SqlBool>`(${sql.join(parts, sql` and `)})`);
  }
  if (branches.length === 0) return sql<SqlBool>`1 = 0`;
  return sql<SqlBool>`(${sql.join(branches, sql` or `)})`;
}

/**
 * A filter value in the form the database compares. A string for a non-text
 * field is read as a position first (as `ArrayQueryset` does); datetimes may
 * be `Date`s or epoch milliseconds, within years 1..9999, bound by their
 * column's codec, or, while the columns' storage is not known yet (`codecs`
 * null), kept as instants ({@link DatetimeParam}) for the query to bind.
 * @internal
 */
export function toParam(
  dialect: SqlDialectKind,
  info: FieldInfo,
  field: string,
  value: unknown,
  codecs: Readonly<Record<string, DatetimeCodec>> | null,
): unknown {
  let v = value;
  if (typeof v === 'string' && info.type !== 'text') {
    v = parsePosition(v, info, dialect === 'sqlite' ? SQLITE_VALUES : POSTGRES_VALUES, false);
    if (v === INVALID_POSITION)
      throw new ConfigurationError(
        `filter(): ${JSON.stringify(value)} is not a value of the ${info.type} field ${JSON.stringify(field)}.`,
      );
  }
  switch (info.type) {
    case 'datetime': {
      const ms = typeof v === 'number' ? new Date(v).getTime() : v instanceof Date ? v.getTime() : NaN;
      if (!inStorageRange(ms)) throw datetimeValueError(field, value, ms);
      return codecs === null ? new DatetimeParam(field, ms) : codecs[field]!.bind(ms);
    }
    case 'boolean':
      return typeof v === 'boolean' && dialect === 'sqlite' ? (v ? 1 : 0) : v;
    case 'text':
      return typeof v === 'string' ? v : v instanceof Date ? pythonDatetimeStr(v) : String(v);
    default:
      return typeof v === 'boolean' ? (v ? 1 : 0) : v;
  }
}

/** Why a datetime filter value cannot be compared: not a datetime, or outside years 1..9999. */
function datetimeValueError(field: string, value: unknown, ms: number): ConfigurationError {
  return new ConfigurationError(
    ms !== ms
      ? `filter(): the datetime field ${JSON.stringify(field)} compares with Date values, not ${String(value)}.`
      : `filter(): ${String(value)} is outside the years 1..9999 (in UTC) that the datetime field ${JSON.stringify(field)} compares with.`,
  );
}

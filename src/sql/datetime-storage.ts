/**
 * The storage of each datetime column of a `SqlQueryset`: declared in its
 * field (`storage`) and checked against the column, or detected from the
 * column's first values; and the converter that reads the column's values
 * into `Date`s, refusing any value not in that storage.
 *
 * Both happen before the first query of a queryset (one sample query per
 * datetime column, `WHERE col IS NOT NULL LIMIT 16`) and again before each
 * later query while the column holds no value: an empty column tells
 * nothing, and while it is empty every comparison matches nothing anyway.
 *
 * @module
 */
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import {
  datetimeCodec,
  DIALECT_STORAGES,
  showValue,
  STORAGE_FORMATS,
  storageOfValue,
  type DatetimeCodec,
  type DatetimeStorage,
} from './datetime-formats.js';
import { SqlDatetimeError } from './errors.js';

/** Values sampled per column. */
const SAMPLE = 16;

type Dialect = 'sqlite' | 'postgres';

/** What resolving a column needs. @internal */
export interface StorageContext {
  readonly db: { executeQuery<R>(query: CompiledQuery<R>): Promise<{ rows: R[] }> };
  readonly builder: Kysely<Record<string, Record<string, unknown>>>;
  readonly table: string;
  readonly dialect: Dialect;
}

/** The storage of one datetime column as known now. @internal */
export interface ColumnStorage {
  readonly field: string;
  /** The storage declared in the field, or null. */
  readonly declared: DatetimeStorage | null;
  /** The storage in use: declared or detected; null while undeclared and the column holds no value. */
  readonly storage: DatetimeStorage | null;
  /** Binds and reads values (the dialect's default while `storage` is null). */
  readonly codec: DatetimeCodec;
  /** Whether a value of the column confirmed the storage (else it is checked again before the next query). */
  readonly settled: boolean;
}

/** The storage a column is assumed to have when nothing is declared or detected: today's behaviour. */
function defaultStorage(dialect: Dialect): DatetimeStorage {
  return dialect === 'sqlite' ? 'sql-text' : 'timestamptz';
}

/** A column's storage before any query: the declared one, or the dialect's default, unsettled. @internal */
export function initialStorage(field: string, declared: DatetimeStorage | null, dialect: Dialect): ColumnStorage {
  return {
    field,
    declared,
    storage: declared,
    codec: datetimeCodec(declared ?? defaultStorage(dialect), dialect),
    settled: false,
  };
}

/** Whether `storage` is a storage a column of `dialect` can have (a declaration is checked with it). @internal */
export function isStorageOf(storage: unknown, dialect: Dialect): storage is DatetimeStorage {
  return (DIALECT_STORAGES[dialect] as readonly unknown[]).includes(storage);
}

/** The storages of a dialect, as a list for error messages. @internal */
export function storagesText(dialect: Dialect): string {
  return DIALECT_STORAGES[dialect].map((s) => `'${s}'`).join(', ');
}

/** What a PostgreSQL column of type `type` holding `v` stores, or null. */
function storageOfPostgres(type: string, v: unknown): DatetimeStorage | null {
  switch (type) {
    case 'timestamp with time zone':
      return 'timestamptz';
    case 'timestamp without time zone':
      return 'timestamp';
    case 'bigint':
    case 'integer':
    case 'numeric':
      return storageOfValue(String(v), 'postgres') === 'epoch-ms' ? 'epoch-ms' : null;
    case 'text':
    case 'character varying': {
      const s = storageOfValue(v, 'postgres');
      return s === 'epoch-ms' ? null : s; // digits as text order as text, not as numbers
    }
    default:
      return null;
  }
}

/**
 * Reads a column's first values and returns its storage: the declared one
 * once a value confirms it (`ERR_SQL_DATETIME_FORMAT` when one does not),
 * else the one they are all in (`ERR_SQL_DATETIME_UNDETECTED` when they are
 * in none or in several). With no value yet, `settled` stays false.
 * @internal
 */
export async function resolveColumn(ctx: StorageContext, column: ColumnStorage): Promise<ColumnStorage> {
  const { field, declared } = column;
  const postgres = ctx.dialect === 'postgres';
  let q = ctx.builder
    .selectFrom(ctx.table)
    .select(sql.ref(field).as('v'))
    .where((eb) => eb(eb.ref(field), 'is not', null))
    .limit(sql.lit(SAMPLE));
  if (postgres) q = q.select(sql<string>`pg_typeof(${sql.ref(field)})::text`.as('t'));
  const res = await ctx.db.executeQuery<{ v: unknown; t?: string }>(q.compile());
  if (res.rows.length === 0) return { ...column, settled: false };
  const where = { table: ctx.table, field };
  let found: { storage: DatetimeStorage; value: unknown } | null = null;
  for (const row of res.rows) {
    const type = row.t ?? '';
    const storage = postgres ? storageOfPostgres(type, row.v) : storageOfValue(row.v, 'sqlite');
    const shown = postgres && type !== 'text' && type !== 'character varying' ? `${showValue(row.v)} (${type})` : null;
    if (declared !== null) {
      if (storage !== declared)
        throw new SqlDatetimeError(
          'ERR_SQL_DATETIME_FORMAT',
          { ...where, storage: declared },
          row.v,
          `${ctx.table}.${field} holds ${shown ?? showValue(row.v)}, which is not in its declared storage '${declared}': ${STORAGE_FORMATS[declared]}${storage === null ? '' : `. It is '${storage}': declare that`}.`,
        );
      continue;
    }
    if (storage === null)
      throw new SqlDatetimeError(
        'ERR_SQL_DATETIME_UNDETECTED',
        { ...where, storage: null },
        row.v,
        `${ctx.table}.${field} declares no storage and holds ${shown ?? showValue(row.v)}, which is in no storage a ${ctx.dialect} datetime column can have (${storagesText(ctx.dialect)}; see docs/sql.md). Store every value in one of them.`,
      );
    if (found === null) found = { storage, value: row.v };
    else if (found.storage !== storage)
      throw new SqlDatetimeError(
        'ERR_SQL_DATETIME_UNDETECTED',
        { ...where, storage: null },
        row.v,
        `${ctx.table}.${field} declares no storage and holds values in two: ${showValue(found.value)} ('${found.storage}') and ${showValue(row.v)} ('${storage}'). Store every value of the column in one format, and declare it in the field's storage.`,
      );
  }
  const storage = declared ?? found!.storage;
  return { field, declared, storage, codec: datetimeCodec(storage, ctx.dialect), settled: true };
}

/**
 * The converter of a column's values: NULL as it is, a value in the
 * column's storage as a `Date`, anything else an `ERR_SQL_DATETIME_FORMAT`
 * naming the column and its storage. @internal
 */
export function datetimeReader(table: string, column: ColumnStorage, dialect: Dialect): (v: unknown) => unknown {
  const codec = column.codec;
  return (v) => {
    if (v === null || v === undefined) return v;
    const d = codec.read(v);
    if (d === null) throw readError(table, column, dialect, v);
    return d;
  };
}

function readError(table: string, column: ColumnStorage, dialect: Dialect, v: unknown): SqlDatetimeError {
  const storage = column.codec.storage;
  const how =
    column.declared !== null
      ? 'its declared storage'
      : column.storage !== null
        ? 'the storage detected from its first values'
        : `the default storage of ${dialect} (the column held no value when it was checked)`;
  const other = storageOfValue(v, dialect);
  return new SqlDatetimeError(
    'ERR_SQL_DATETIME_FORMAT',
    { table, field: column.field, storage },
    v,
    `${table}.${column.field} holds ${showValue(v)}, which is not in ${how}, '${storage}': ${STORAGE_FORMATS[storage]}${other === null || other === storage ? '' : ` (it is '${other}')`}. Store every value of the column in one format.`,
  );
}

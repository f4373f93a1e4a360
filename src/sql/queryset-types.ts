/**
 * The types that tie a `SqlQueryset` to a Kysely database interface: the
 * tables and columns it names, the row type it returns, the ordering terms
 * it takes. Types only: nothing here exists at run time.
 *
 * A database interface is "untyped" when it names no particular table
 * (`any`, `never`, or a string index signature, as `Kysely<any>`): the
 * queryset then takes any table and field names, as plain strings.
 *
 * @module
 */
import type { CompiledQuery, Kysely, QueryResult, Selectable } from 'kysely';
import type { SqlDialectKind } from './conditions.js';
import type { SqlFieldInfo } from './datetime-formats.js';
import type { SqliteHandle } from './drivers.js';

/**
 * A term of `orderBy()` over the columns `Col`: a column (ascending) or
 * `-column` (descending). With `Col = string` any text.
 * @example
 * ```ts
 * const terms: SqlOrderTerm<'id' | 'created'>[] = ['-created', 'id'];
 * ```
 */
export type SqlOrderTerm<Col extends string> = Col | `-${Col}`;

/**
 * Whether a database interface names no particular table (`any`, `never`,
 * or an index signature): `true` or `false`.
 * @example
 * ```ts
 * const untyped: IsUntypedDatabase<any> = true;
 * const typed: IsUntypedDatabase<{ item: { id: number } }> = false;
 * ```
 */
export type IsUntypedDatabase<DB> = 0 extends 1 & DB
  ? true
  : [DB] extends [never]
    ? true
    : string extends keyof DB
      ? true
      : false;

/**
 * The table names of a database interface.
 * @example
 * ```ts
 * const t: SqlTableName<{ item: { id: number } }> = 'item';
 * ```
 */
export type SqlTableName<DB> = Extract<keyof DB, string>;

/**
 * The column names of table `T`.
 * @example
 * ```ts
 * const c: SqlColumnName<{ item: { id: number; name: string } }, 'item'> = 'name';
 * ```
 */
export type SqlColumnName<DB, T extends keyof DB> = Extract<keyof DB[T], string>;

/**
 * The fields a typed `SqlQueryset` may declare for table `T`: some of its
 * columns, each with its {@link SqlFieldInfo}.
 * @example
 * ```ts
 * const fields: SqlFieldsOf<{ item: { id: number; name: string } }, 'item'> = { id: { type: 'integer', unique: true } };
 * ```
 */
export type SqlFieldsOf<DB, T extends keyof DB> = { readonly [K in SqlColumnName<DB, T>]?: SqlFieldInfo };

/**
 * `F` itself when every key of `F` is a column of `T`; otherwise each
 * unknown key is required to be `never`, so that a misspelled field does not
 * compile (the error names it).
 * @example
 * ```ts
 * type DB = { item: { id: number } };
 * const ok: OnlyColumns<DB, 'item', { id: SqlFieldInfo }> = { id: { type: 'integer' } };
 * ```
 */
export type OnlyColumns<DB, T extends keyof DB, F> = F & {
  readonly [K in Exclude<keyof F, SqlColumnName<DB, T>>]: never;
};

/** A field declared `type: 'datetime'`: its rows hold `Date`s (and `null` when nullable). */
type DatetimeValue<I> = Date | (I extends { readonly nullable: true } ? null : never);

/**
 * The row a typed `SqlQueryset` returns: the declared fields of table `T`,
 * typed as Kysely selects them (`Selectable<DB[T]>`), except that fields
 * declared `type: 'datetime'` hold `Date`s (the queryset converts them
 * whatever the column stores).
 * @example
 * ```ts
 * type DB = { item: { id: number; name: string; created: string } };
 * type Row = SqlRow<DB, 'item', { id: { type: 'integer' }; created: { type: 'datetime' } }>;
 * const row: Row = { id: 1, created: new Date() };
 * ```
 */
export type SqlRow<DB, T extends keyof DB, F> = {
  -readonly [K in Extract<keyof F, keyof Selectable<DB[T]>>]: F[K] extends { readonly type: 'datetime' }
    ? DatetimeValue<F[K]>
    : Selectable<DB[T]>[K];
};

/**
 * What a {@link SqlQueryset} runs its queries on: any `Kysely` instance or
 * transaction (whatever its database type, since tables are named by
 * string). Queries are compiled by Kysely for the queryset's dialect and
 * handed to `executeQuery`.
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * import { Kysely, SqliteDialect } from 'kysely';
 * const executor: SqlExecutor = new Kysely<DB>({ dialect: new SqliteDialect({ database: new Database('demo.sqlite3') }) });
 * ```
 */
export interface SqlExecutor {
  /** Runs a compiled query. */
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/**
 * How to build a {@link SqlQueryset} (the untyped form: any table and
 * field names; {@link TypedSqlQuerysetOptions} checks them against a
 * Kysely database interface).
 * @example
 * ```ts
 * const options: SqlQuerysetOptions = { db, table: 'item', fields: itemFields, dialect: 'sqlite' };
 * ```
 */
export interface SqlQuerysetOptions {
  /** The Kysely instance (or transaction) to query. */
  readonly db: SqlExecutor;
  /** The table, optionally schema-qualified (`'public.item'`). */
  readonly table: string;
  /** The columns to read, with their types (and datetime storages); rows carry exactly these keys. */
  readonly fields: Readonly<Record<string, SqlFieldInfo>>;
  /** The primary-key column (default `'id'`); it must be one of `fields`. */
  readonly primaryKey?: string;
  /** Which database `db` talks to. */
  readonly dialect: SqlDialectKind;
  /**
   * SQLite only: the better-sqlite3 handle under `db`. Reads then run on it
   * directly through a statement cache, skipping Kysely's asynchronous driver
   * and its connection mutex (about a tenth of a keyset page's cost). Leave it
   * out when the same connection runs Kysely transactions concurrently with
   * reads that must not see them.
   */
  readonly sqliteDatabase?: SqliteHandle;
}

/**
 * How to build a {@link SqlQueryset} checked against the Kysely database
 * interface `DB` of `db`: `table` is one of its tables, every key of
 * `fields` one of that table's columns, and `primaryKey` one of `fields`.
 * `db` may also be an untyped {@link SqlExecutor} (a `ReplicaRouter`) next
 * to a typed `Kysely<DB>` in a union (`reads ?? db`), which gives `DB`.
 * @example
 * ```ts
 * // DB: { item: { id: number; name: string; created: string; price: number; category: string } }; db: Kysely<DB>
 * const options: TypedSqlQuerysetOptions<DB, 'item', { id: SqlFieldInfo; name: SqlFieldInfo }> = {
 *   db, table: 'item', dialect: 'sqlite', fields: { id: { type: 'integer', unique: true }, name: { type: 'text' } },
 * };
 * ```
 */
export interface TypedSqlQuerysetOptions<DB, T extends SqlTableName<DB>, F> extends Omit<
  SqlQuerysetOptions,
  'db' | 'table' | 'fields' | 'primaryKey'
> {
  /** A typed `Kysely<DB>` (or transaction), or a union of one with an untyped executor. */
  readonly db: Kysely<DB> | SqlExecutor;
  /** A table of `DB`. */
  readonly table: T;
  /** Some columns of `table`, with their types; rows carry exactly these keys. */
  readonly fields: OnlyColumns<DB, T, F>;
  /** The primary-key column (default `'id'`): one of `fields`. */
  readonly primaryKey?: NoInfer<Extract<keyof F, string>>;
}

/**
 * `E` when it is an executor the typed form of {@link SqlQueryset} does not
 * apply to (no `Kysely`, or a `Kysely` of an untyped database); `never` for
 * a typed `Kysely`, so that a mistake in a typed call does not fall back to
 * the untyped form. Public because `SqlQuerysetConstructor`'s
 * declaration names it (an internal type would be stripped from the .d.ts).
 * @example
 * ```ts
 * type Untyped = UntypedExecutor<SqlExecutor>; // SqlExecutor: the untyped form applies
 * ```
 */
export type UntypedExecutor<E> = E extends Kysely<infer DB> ? (IsUntypedDatabase<DB> extends true ? E : never) : E;

/**
 * `F` for a typed database interface, `never` for an untyped one (which
 * takes the untyped form). Public for the same reason as {@link UntypedExecutor}.
 * @example
 * ```ts
 * type Fields = TypedFields<{ item: { id: number } }, 'item', { id: SqlFieldInfo }>; // the fields, checked
 * ```
 */
export type TypedFields<DB, T extends SqlTableName<DB>, F> =
  IsUntypedDatabase<DB> extends true ? never : OnlyColumns<DB, T, F>;

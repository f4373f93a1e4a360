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
import type { Selectable } from 'kysely';
import type { SqlFieldInfo } from './datetime-formats.js';

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

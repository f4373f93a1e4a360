/**
 * SQL data sources for the web-API layer: {@link SqlQueryset} runs the
 * `Queryset` contract of `eventide/rest` (pagination, ordering, filters,
 * cursors) on a SQL table through Kysely, on SQLite (better-sqlite3) or
 * PostgreSQL (pg). `kysely` is a peer dependency of this entry point, and
 * so is the driver of the database you use (`better-sqlite3` or `pg`); the
 * other entry points load none of them. A driver that is needed but not
 * installed gives a `ConfigurationError` naming the package to install.
 *
 * @example
 * ```ts
 * import { SqlQueryset, createSqliteKysely } from 'eventide/sql';
 * const db = createSqliteKysely<{ item: { id: number; name: string } }>('app.db');
 * // Typed by db: rows are { id: number; name: string }; orderBy('-name') and filter('id', ...) are checked.
 * const items = new SqlQueryset({
 *   db, table: 'item', dialect: 'sqlite',
 *   fields: { id: { type: 'integer', unique: true }, name: { type: 'text' } },
 * });
 * ```
 * @module
 */
export {
  SqlQueryset,
  type SqlQuerysetOptions,
  type SqlQuerysetConstructor,
  type TypedSqlQuerysetOptions,
  type SqlOrderTerm,
  type SqlRow,
  type SqlTableName,
  type SqlColumnName,
  type SqlExecutor,
  type SqlDialectKind,
  type SqlFieldInfo,
  type DatetimeStorage,
} from './queryset.js';
export { createSqliteKysely, cachingSqliteDatabase, formatSqliteDatetime } from './sqlite.js';
export type { SqliteHandle, SqliteStatementHandle } from './drivers.js';
export {
  ReplicaRouter,
  openPostgresReplicas,
  type ReplicaRouterOptions,
  type ReplicaStatus,
  type ReplicaBalance,
  type PostgresReplicasOptions,
  type PostgresReplicas,
  type SqlLogger,
} from './replicas.js';
export { connectRedisCountStore, type RedisCountStore, type RedisCountStoreOptions } from './redis-count.js';
export {
  SqlUnavailableError,
  SQL_UNAVAILABLE_CODES,
  type SqlUnavailableCode,
  SqlDatetimeError,
  SQL_DATETIME_CODES,
  type SqlDatetimeCode,
} from './errors.js';

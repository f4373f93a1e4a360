/**
 * The database drivers `eventide/sql` can use, loaded only when a database
 * of their kind is opened: better-sqlite3 for SQLite, pg for PostgreSQL.
 * Both are optional peer dependencies; a missing one is a
 * {@link ConfigurationError} that names the package to install. The shapes
 * below are the parts of better-sqlite3's API eventide calls, so that no
 * published type refers to a driver's own type declarations.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { ConfigurationError } from '../rest/errors.js';

/**
 * A prepared SQLite statement, as better-sqlite3's `Statement` has it.
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * const sqlite = new Database('demo.sqlite3');
 * const stmt: SqliteStatementHandle = sqlite.prepare('SELECT id FROM item WHERE id > ?');
 * stmt.raw(true).all(10); // [[11], [12], ...]
 * ```
 */
export interface SqliteStatementHandle {
  /** Whether the statement is iterating (it cannot run again meanwhile). */
  readonly busy: boolean;
  /** Whether the statement returns rows. */
  readonly reader: boolean;
  /** Rows as arrays (true) or objects (false). */
  raw(toggle?: boolean): SqliteStatementHandle;
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

/**
 * An open SQLite database, as better-sqlite3's `Database` has it (a
 * better-sqlite3 `Database` is one).
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * const handle: SqliteHandle = new Database('app.db');
 * ```
 */
export interface SqliteHandle {
  prepare(sql: string): SqliteStatementHandle;
  close(): unknown;
}

/**
 * better-sqlite3's `Database` constructor.
 * @example
 * ```ts
 * const Database: SqliteConstructor = loadSqliteDriver();
 * const db = new Database(':memory:');
 * ```
 */
export type SqliteConstructor = new (filename: string, options?: Record<string, unknown>) => SqliteHandle;

/**
 * Loads an optional package (CommonJS or ESM with a CommonJS build), or
 * throws a {@link ConfigurationError} that names it, when it is not
 * installed. @internal
 */
export function loadOptional(name: string, what: string): unknown {
  const require = createRequire(import.meta.url);
  try {
    return require(name);
  } catch (cause) {
    if (
      (cause as { code?: string }).code === 'MODULE_NOT_FOUND' &&
      String((cause as Error).message).includes(`'${name}'`)
    ) {
      throw new ConfigurationError(`${what} needs the package ${name}, which is not installed: npm install ${name}`, {
        cause,
      });
    }
    throw cause;
  }
}

/**
 * better-sqlite3's `Database` class, or a {@link ConfigurationError} saying
 * to `npm install better-sqlite3`.
 * @example
 * ```ts
 * const Database = loadSqliteDriver();
 * const handle = new Database('app.db');
 * ```
 */
export function loadSqliteDriver(): SqliteConstructor {
  const mod = loadOptional('better-sqlite3', 'SQLite') as SqliteConstructor | { default: SqliteConstructor };
  return typeof mod === 'function' ? mod : mod.default;
}

/**
 * The `pg` module (its `Pool`), or a {@link ConfigurationError} saying to
 * `npm install pg`.
 * @example
 * ```ts
 * const { Pool } = loadPostgresDriver();
 * const pool = new Pool({ connectionString: 'postgres://127.0.0.1/test' });
 * ```
 */
export function loadPostgresDriver<P = unknown>(): { Pool: new (config: Record<string, unknown>) => P } {
  const mod = loadOptional('pg', 'PostgreSQL') as
    | { Pool: new (config: Record<string, unknown>) => P }
    | { default: { Pool: new (config: Record<string, unknown>) => P } };
  return 'Pool' in mod ? mod : mod.default;
}

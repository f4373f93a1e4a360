/**
 * SQLite specifics of `eventide/sql`: datetimes written as SQLite text
 * (Django's storage format), and Kysely on a better-sqlite3 database with a
 * bounded statement cache.
 *
 * @module
 */
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { sqlText } from './datetime-formats.js';
import { loadSqliteDriver, type SqliteHandle, type SqliteStatementHandle } from './drivers.js';

// ---------------------------------------------------------------------------
// Datetime text

/**
 * A `Date` as SQLite datetime text: `YYYY-MM-DD HH:MM:SS` in UTC, plus
 * `.ffffff` when the milliseconds are not zero (Django's storage format, the
 * datetime storage `'sql-text'`).
 * @example
 * ```ts
 * formatSqliteDatetime(new Date('2020-01-01T00:00:01.037Z')); // '2020-01-01 00:00:01.037000'
 * ```
 */
export function formatSqliteDatetime(d: Date): string {
  return sqlText(d.getTime());
}

// ---------------------------------------------------------------------------
// SQLite with a statement cache

/**
 * Wraps a better-sqlite3 database so that `prepare()` reuses statements by
 * SQL text (a bounded cache; a statement that is still iterating is not
 * shared). Kysely's SQLite driver prepares every query it runs, so this saves
 * SQLite's parse and plan on repeated query shapes.
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * import { Kysely, SqliteDialect } from 'kysely';
 * const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(new Database('app.db')) }) });
 * ```
 */
export function cachingSqliteDatabase(database: SqliteHandle, limit = 256): SqliteDatabase {
  const cache = new Map<string, SqliteStatementHandle>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(text: string): SqliteStatement {
      let stmt = cache.get(text);
      if (stmt === undefined || stmt.busy) {
        const fresh = database.prepare(text);
        if (stmt === undefined) {
          if (cache.size >= limit) cache.clear();
          cache.set(text, fresh);
        }
        stmt = fresh;
      }
      return stmt;
    },
  };
}

/**
 * A Kysely instance on a better-sqlite3 database (a path, `':memory:'`, or an
 * open `Database`), with the statement cache of {@link cachingSqliteDatabase}.
 * @example
 * ```ts
 * const db = createSqliteKysely<DB>('app.db');
 * const items = new SqlQueryset({ db, table: 'item', fields: itemFields, dialect: 'sqlite' });
 * ```
 */
export function createSqliteKysely<DB>(database: string | SqliteHandle): Kysely<DB> {
  const handle = typeof database === 'string' ? new (loadSqliteDriver())(database) : database;
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(handle) }) });
}

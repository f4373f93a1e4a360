/**
 * SQLite specifics of `eventide/sql`: datetimes as SQLite text (Django's
 * storage format), and Kysely on a better-sqlite3 database with a bounded
 * statement cache.
 *
 * @module
 */
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { daysFromCivil, parseDatetime, utcDatetimeText } from '../rest/data/values.js';
import { loadSqliteDriver, type SqliteHandle, type SqliteStatementHandle } from './drivers.js';

// ---------------------------------------------------------------------------
// Datetime text

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * A `Date` as SQLite datetime text: `YYYY-MM-DD HH:MM:SS` in UTC, plus
 * `.ffffff` when the milliseconds are not zero (Django's storage format).
 * @example
 * ```ts
 * formatSqliteDatetime(new Date('2020-01-01T00:00:01.037Z')); // '2020-01-01 00:00:01.037000'
 * ```
 */
export function formatSqliteDatetime(d: Date): string {
  const fast = utcDatetimeText(d.getTime());
  if (fast !== null) return fast;
  const ms = d.getUTCMilliseconds();
  const s = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  return ms === 0 ? s : `${s}.${pad(ms, 3)}000`;
}

/** Days in `month` (1..12) of `year`, proleptic Gregorian. */
function monthDays(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/** The two decimal digits of `s` at `i` and `i + 1` as a number, or -1 (integer operations only). */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >>> 0 <= 9 && b >>> 0 <= 9 ? a * 10 + b : -1;
}

/** SQLite datetime text (fixed positions on the fast path) to a Date. @internal */
export function parseSqliteDatetime(s: string): Date | string {
  const n = s.length;
  if (
    n >= 19 &&
    s.charCodeAt(4) === 45 &&
    s.charCodeAt(7) === 45 &&
    s.charCodeAt(13) === 58 &&
    s.charCodeAt(16) === 58
  ) {
    const century = two(s, 0);
    const yy = two(s, 2);
    const year = century < 0 || yy < 0 ? -1 : century * 100 + yy;
    const month = two(s, 5);
    const day = two(s, 8);
    const hour = two(s, 11);
    const minute = two(s, 14);
    const second = two(s, 17);
    // The fraction: its first three digits are the milliseconds; more digits are checked, then dropped.
    let ms = 0;
    let end = 19;
    if (n > 19 && s.charCodeAt(19) === 46) {
      for (end = 20; end < n; end++) {
        const d = s.charCodeAt(end) - 48;
        if (d >>> 0 > 9) break;
        if (end < 23) ms += d * (end === 20 ? 100 : end === 21 ? 10 : 1);
      }
    }
    if ((month | day | hour | minute | second) < 0) end = -1; // a character that is not a digit
    if (end === s.length && year >= 100) {
      // In-range fields (the usual case): day arithmetic, no call into the engine's Date code.
      // Anything else (day 31 of a short month, hour 24) goes through Date.UTC, which rolls over.
      const t =
        month >= 1 &&
        month <= 12 &&
        day >= 1 &&
        day <= monthDays(year, month) &&
        hour <= 23 &&
        minute <= 59 &&
        second <= 59
          ? daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + ms
          : Date.UTC(year, month - 1, day, hour, minute, second, ms);
      if (!Number.isNaN(t)) return new Date(t);
    }
  }
  return parseDatetime(s) ?? s;
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

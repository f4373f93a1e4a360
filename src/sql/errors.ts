/**
 * The errors of `eventide/sql`: {@link SqlUnavailableError}, a database,
 * replica or Redis server that could not be reached when it was opened,
 * within its deadline; {@link SqlDatetimeError}, a datetime column holding
 * a value that is not in its storage format.
 *
 * @module
 */
import type { DatetimeStorage } from './datetime-formats.js';

/**
 * The stable codes of {@link SqlUnavailableError}, with what each means.
 * @example
 * ```ts
 * console.log(SQL_UNAVAILABLE_CODES.ERR_SQL_PRIMARY_UNREACHABLE);
 * ```
 */
export const SQL_UNAVAILABLE_CODES = Object.freeze({
  ERR_SQL_PRIMARY_UNREACHABLE: 'The primary database did not answer a probe query within the connect timeout.',
  ERR_SQL_REPLICA_UNREACHABLE: 'A read replica did not answer at start-up and replicas were required.',
  ERR_SQL_REDIS_UNREACHABLE: 'Redis did not answer at start-up and it was required.',
} as const);

/**
 * A code of {@link SQL_UNAVAILABLE_CODES}.
 * @example
 * ```ts
 * const code: SqlUnavailableCode = 'ERR_SQL_REDIS_UNREACHABLE';
 * ```
 */
export type SqlUnavailableCode = keyof typeof SQL_UNAVAILABLE_CODES;

/**
 * A server needed at start-up did not answer within its deadline. `code`
 * says which ({@link SQL_UNAVAILABLE_CODES}); `target` is its address
 * without a password; `cause` is the driver's error.
 * @example
 * ```ts
 * try {
 *   await openPostgresReplicas({ primary: 'postgres://127.0.0.1:5432/app' });
 * } catch (e) {
 *   if (e instanceof SqlUnavailableError) console.error(e.code, e.message);
 * }
 * ```
 */
export class SqlUnavailableError extends Error {
  /** The stable code. */
  readonly code: SqlUnavailableCode;
  /** The server's address, password removed. */
  readonly target: string;

  constructor(code: SqlUnavailableCode, target: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'SqlUnavailableError';
    this.code = code;
    this.target = target;
  }
}

/**
 * The stable codes of {@link SqlDatetimeError}, with what each means.
 * @example
 * ```ts
 * console.log(SQL_DATETIME_CODES.ERR_SQL_DATETIME_FORMAT);
 * ```
 */
export const SQL_DATETIME_CODES = Object.freeze({
  ERR_SQL_DATETIME_FORMAT:
    "A datetime column holds a value that is not in the column's storage format (declared, or detected from its first values).",
  ERR_SQL_DATETIME_UNDETECTED:
    "A datetime column's storage is not declared and its first values are in no supported format, or in several.",
} as const);

/**
 * A code of {@link SQL_DATETIME_CODES}.
 * @example
 * ```ts
 * const code: SqlDatetimeCode = 'ERR_SQL_DATETIME_FORMAT';
 * ```
 */
export type SqlDatetimeCode = keyof typeof SQL_DATETIME_CODES;

/**
 * A datetime column holds a value that `SqlQueryset` cannot compare
 * exactly: one that is not in the column's storage format
 * (`ERR_SQL_DATETIME_FORMAT`; `storage` is that format), or, with no storage
 * declared, first values that name no single format
 * (`ERR_SQL_DATETIME_UNDETECTED`; `storage` is null). Thrown by the query
 * that read the value (or that detected the storage), never replaced by a
 * silently short page. `table` and `field` name the column, `value` is the
 * value read (for a PostgreSQL column of the wrong type, the type's name).
 * @example
 * ```ts
 * try {
 *   await items.orderBy('-created').slice(0, 10);
 * } catch (e) {
 *   if (e instanceof SqlDatetimeError) console.error(e.code, `${e.table}.${e.field}`, e.storage, e.message);
 * }
 * ```
 */
export class SqlDatetimeError extends Error {
  /** The stable code. */
  readonly code: SqlDatetimeCode;
  /** The table (as given to the queryset). */
  readonly table: string;
  /** The column (the field name). */
  readonly field: string;
  /** The storage the value was read as, or null when none was declared or detected. */
  readonly storage: DatetimeStorage | null;
  /** The value read. */
  readonly value: unknown;

  constructor(
    code: SqlDatetimeCode,
    column: { readonly table: string; readonly field: string; readonly storage: DatetimeStorage | null },
    value: unknown,
    message: string,
  ) {
    super(message);
    this.name = 'SqlDatetimeError';
    this.code = code;
    this.table = column.table;
    this.field = column.field;
    this.storage = column.storage;
    this.value = value;
  }
}

/**
 * The URL without its password. @internal
 */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

/**
 * Settles with `promise`, or rejects after `ms` milliseconds with an error
 * whose message is `what`. @internal
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return promise;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(what), { code: 'ETIMEDOUT' })), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

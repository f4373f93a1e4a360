/**
 * {@link SqlUnavailableError}: a database, replica or Redis server that
 * `eventide/sql` could not reach when it was opened, within its deadline.
 *
 * @module
 */

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

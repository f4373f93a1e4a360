/**
 * What a DNS lookup yields: the addresses, or a failure with a Node-style
 * code, and the getaddrinfo-style texts of failures (libevent's
 * `evutil_gai_strerror()` wording, which `EventDnsBase.errorString()` and
 * the messages of `EventDnsError`s show).
 *
 * @module
 */
import { createEventError, EventError, type EventDnsError } from './errors.js';

/**
 * One resolved address.
 * @example
 * ```ts
 * const a: EventDnsAddress = { address: '192.0.2.1', family: 4 };
 * ```
 */
export interface EventDnsAddress {
  /** The address in text form, without brackets (`"192.0.2.1"`, `"2001:db8::1"`). */
  address: string;
  /** 4 for IPv4, 6 for IPv6. */
  family: 4 | 6;
}

/**
 * Callback of `EventDnsBase.resolve()`: an error (`null` on success) and
 * the addresses (empty on failure). IPv4 addresses come before IPv6 ones for
 * DNS answers; hosts-file answers keep the order of the file.
 * @example
 * ```ts
 * const cb: EventDnsCallback = (err, addrs) => {
 *   if (err) console.error(EventDnsBase.errorString(err));
 *   else console.log(addrs[0]?.address);
 * };
 * ```
 */
export type EventDnsCallback = (err: EventDnsError | null, addresses: EventDnsAddress[]) => void;

/**
 * A pending resolution, returned by `EventDnsBase.resolve()`.
 * @example
 * ```ts
 * const req = dns.resolve('example.org', EventUtil.AF_UNSPEC, (err, addresses) => console.log(addresses));
 * req.cancel(); // the callback will not run
 * ```
 */
export interface EventDnsRequest {
  /**
   * Cancels the request: its callback will not run and it no longer keeps the
   * loop alive. No effect once the callback ran. Other callers waiting for the
   * same name are not affected.
   */
  cancel(): void;
}

/**
 * The failure of a query or lookup: a Node-style code and the underlying error.
 * @internal
 */
export interface Failure {
  code: string;
  cause: Error;
}

/**
 * The answer to one question (name, type): addresses and their TTL, or a failure.
 * @internal
 */
export type QueryResult = { ok: true; addresses: string[]; ttl: number } | ({ ok: false } & Failure);

/**
 * The outcome of a lookup as callers get it.
 * @internal
 */
export type Outcome = { error: null; addresses: EventDnsAddress[] } | { error: Failure; addresses: [] };

/** Texts of libevent's `evutil_gai_strerror()` plus evdns' timeout text. */
const TEXT = {
  NONAME: 'nodename nor servname provided, or not known',
  NODATA: 'no address associated with nodename',
  ADDRFAMILY: 'address family for nodename not supported',
  AGAIN: 'temporary failure in name resolution',
  FAIL: 'non-recoverable failure in name resolution',
  TIMEOUT: 'request timed out',
  CANCEL: 'Request canceled',
  MEMORY: 'memory allocation failure',
} as const;

/** Resolver / getaddrinfo error codes (as Node names them) → text. */
const CODE_TEXT: Readonly<Record<string, string>> = {
  ENOTFOUND: TEXT.NONAME,
  EBADNAME: TEXT.NONAME,
  ENONAME: TEXT.NONAME,
  EAI_NONAME: TEXT.NONAME,
  ENODATA: TEXT.NODATA,
  EAI_NODATA: TEXT.NODATA,
  EADDRFAMILY: TEXT.ADDRFAMILY,
  EAI_ADDRFAMILY: TEXT.ADDRFAMILY,
  ETIMEOUT: TEXT.TIMEOUT,
  ETIMEDOUT: TEXT.TIMEOUT,
  ESERVFAIL: TEXT.AGAIN,
  EREFUSED: TEXT.AGAIN,
  ECONNREFUSED: TEXT.AGAIN,
  EAI_AGAIN: TEXT.AGAIN,
  EAI_FAIL: TEXT.FAIL,
  EFORMERR: TEXT.FAIL,
  ENOTIMP: TEXT.FAIL,
  EBADRESP: TEXT.FAIL,
  EBADQUERY: TEXT.FAIL,
  EBADFAMILY: TEXT.FAIL,
  EOF: TEXT.FAIL,
  ECANCELLED: TEXT.CANCEL,
  EDESTRUCTION: TEXT.CANCEL,
  ENOMEM: TEXT.MEMORY,
  EAI_MEMORY: TEXT.MEMORY,
};

/**
 * A failure with a new error (`"<syscall> <code> <hostname> (<detail>)"`).
 * @internal
 * @example
 * ```ts
 * const outcome: Outcome = { error: failure('ENOTFOUND', 'getaddrinfo', 'db.test', 'no nameservers configured'), addresses: [] };
 * // outcome.error.cause: Error 'getaddrinfo ENOTFOUND db.test (no nameservers configured)'
 * ```
 */
export function failure(code: string, syscall: string, hostname: string, detail?: string): Failure {
  const err = new Error(`${syscall} ${code} ${hostname}${detail === undefined ? '' : ` (${detail})`}`) as Error & {
    code: string;
    syscall: string;
    hostname: string;
  };
  err.code = code;
  err.syscall = syscall;
  err.hostname = hostname;
  return { code, cause: err };
}

/**
 * The failure of something a resolver threw or passed to its callback.
 * @internal
 * @example
 * ```ts
 * const result: QueryResult = { ok: false, ...failureOf(err, 'queryA', 'example.org') };
 * ```
 */
export function failureOf(err: unknown, syscall: string, hostname: string): Failure {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && err instanceof Error) return { code, cause: err };
  return failure(
    typeof code === 'string' ? code : 'EBADRESP',
    syscall,
    hostname,
    err instanceof Error ? err.message : undefined,
  );
}

/**
 * The `EventDnsError` a callback gets for a failure.
 * @internal
 * @example
 * ```ts
 * const cb: EventDnsCallback = (err) => console.error(err?.message);
 * cb(dnsError(failure('ENOTFOUND', 'getaddrinfo', 'db.test')), []); // nodename nor servname provided, or not known
 * ```
 */
export function dnsError(f: Failure): EventDnsError {
  return createEventError('ERR_EVENT_DNS', CODE_TEXT[f.code] ?? TEXT.FAIL, { cause: f.cause });
}

/**
 * The text of a resolver failure for `EventDnsBase.errorString()`: "" for
 * null / undefined, an `EventError`'s message, the text of a code (an
 * unknown code string as it is) or of an error's code.
 * @internal
 * @example
 * ```ts
 * errorText('ENOTFOUND'); // "nodename nor servname provided, or not known"
 * ```
 */
export function errorText(err: unknown): string {
  if (err === null || err === undefined) return '';
  if (typeof err === 'string') return CODE_TEXT[err] ?? err;
  if (err instanceof EventError) return err.message;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string') return CODE_TEXT[e.code] ?? TEXT.FAIL;
  if (typeof e.message === 'string' && e.message !== '') return e.message;
  return TEXT.FAIL;
}

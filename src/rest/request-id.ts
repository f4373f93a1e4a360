/**
 * Request ids of a `RestApi` (its `requestIdHeader` option): the client's
 * value of the header when it is acceptable (1 to 200 printable ASCII
 * characters, no leading or trailing space), a new random UUID otherwise.
 * While the request is handled, the id is the current one of an
 * `AsyncLocalStorage`, and the API's logger adds it (`requestId`) to every
 * entry logged meanwhile: a view's internal error is logged once, with it.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { HttpLogger } from '../http/log.js';

/** The longest request id taken from a client. @internal */
export const MAX_REQUEST_ID_LENGTH = 200;

const ACCEPTABLE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The id of a request: the first value of `header` among `headers` when it
 * is acceptable, a new UUID otherwise.
 * @internal
 */
export function requestIdOf(headers: readonly (readonly [string, string])[], header: string): string {
  const name = header.toLowerCase();
  const sent = headers.find(([k]) => k.toLowerCase() === name)?.[1];
  return sent !== undefined && sent.length <= MAX_REQUEST_ID_LENGTH && ACCEPTABLE.test(sent) ? sent : randomUUID();
}

/**
 * A logger that adds the current request id (`requestId`) of `context` to
 * each entry it passes on to `logger`.
 * @internal
 */
export function withRequestId(logger: HttpLogger, context: AsyncLocalStorage<string>): HttpLogger {
  const tagged = (obj: Record<string, unknown>): Record<string, unknown> => {
    const id = context.getStore();
    return id === undefined || 'requestId' in obj ? obj : { ...obj, requestId: id };
  };
  return {
    error: (obj, msg) => logger.error(tagged(obj), msg),
    warn: (obj, msg) => logger.warn(tagged(obj), msg),
  };
}

/** The per-API context of the request ids. @internal */
export function requestIdContext(): AsyncLocalStorage<string> {
  return new AsyncLocalStorage<string>();
}

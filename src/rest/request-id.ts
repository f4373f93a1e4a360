/**
 * Request ids of a `RestApi` (its `requestIdHeader` option): the client's
 * value of the header when it is acceptable (1 to 200 printable ASCII
 * characters, no leading or trailing space), a new random UUID otherwise.
 * The id travels with the request (`Request.requestId`): the response's
 * header, the access-log entry and the internal-error entry carry it. (No
 * `AsyncLocalStorage`: on Node 20 one turns on a promise hook for the whole
 * process, a cost every promise of every request pays.)
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

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

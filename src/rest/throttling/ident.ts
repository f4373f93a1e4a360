/**
 * The client identity of a throttle, as Django REST framework's
 * `BaseThrottle.get_ident` computes it from `X-Forwarded-For` and the peer
 * address, with `NUM_PROXIES`.
 *
 * Internal: part of issue 29, not exported from `eventide/rest` yet.
 * @module
 */
import type { RawRequest } from '../contracts.js';
import { ImproperlyConfigured } from '../errors.js';

/** Runs of Python's whitespace (what `str.split()` and `str.strip()` without arguments remove). */
// eslint-disable-next-line no-control-regex -- Python counts U+001C..U+001F as whitespace
const ALL_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu;
/** Python's whitespace at either end. */
const EDGE_SPACE =
  // eslint-disable-next-line no-control-regex -- as above
  /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/gu;

/**
 * The client address a throttle keys on:
 * - `numProxies` `null` (DRF's default): the whole `X-Forwarded-For`
 *   without any whitespace when it is present and not empty, else the peer
 *   address;
 * - `0`: the peer address;
 * - `N > 0`: the N-th address from the right of `X-Forwarded-For` (the
 *   first when there are fewer), trimmed (an empty field gives `''`); the
 *   peer address when there is no `X-Forwarded-For`.
 *
 * Several `X-Forwarded-For` fields count as one, joined with `,` (as WSGI
 * servers do). `null` when there is no peer address where one is needed.
 * A negative or fractional `numProxies` is refused with
 * {@link ImproperlyConfigured} (DRF indexes the list with it and may fail
 * while serving).
 * @internal
 * @example
 * ```ts
 * const raw = { headers: [['x-forwarded-for', '203.0.113.7, 10.0.0.2']] as const, remoteAddress: '10.0.0.1' };
 * getIdent(raw, null); // '203.0.113.7,10.0.0.2'
 * getIdent(raw, 1);    // '10.0.0.2'
 * getIdent(raw, 0);    // '10.0.0.1'
 * ```
 */
export function getIdent(raw: Pick<RawRequest, 'headers' | 'remoteAddress'>, numProxies: number | null): string | null {
  if (numProxies !== null && !(Number.isInteger(numProxies) && numProxies >= 0))
    throw new ImproperlyConfigured(`NUM_PROXIES must be null or an integer of 0 or more, not ${String(numProxies)}`);
  const fields = raw.headers.filter(([name]) => name.toLowerCase() === 'x-forwarded-for').map(([, value]) => value);
  const xff = fields.length === 0 ? null : fields.join(',');
  const remote = raw.remoteAddress ?? null;
  if (numProxies !== null) {
    if (numProxies === 0 || xff === null) return remote;
    const addrs = xff.split(',');
    const client = addrs[addrs.length - Math.min(numProxies, addrs.length)] as string;
    return client.replace(EDGE_SPACE, '');
  }
  return xff !== null && xff !== '' ? xff.replace(ALL_SPACE, '') : remote;
}

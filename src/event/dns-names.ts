/**
 * What a lookup asks for, to the DNS layer: the checks of its arguments,
 * address families, IP literals (answered at once, without a query), names
 * that can be sent as a query, and the reserved `.invalid` domain
 * (RFC 6761), which never resolves.
 *
 * @module
 */
import { isIPv4, isIPv6 } from 'node:net';
import { AF } from './address.js';
import { failure, type EventDnsAddress, type EventDnsCallback, type Outcome } from './dns-outcome.js';
import { createEventError } from './errors.js';

/** Whether `family` is one of `AF_UNSPEC`, `AF_INET`, `AF_INET6`. */
function validFamily(family: unknown): family is number {
  return family === AF.UNSPEC || family === AF.INET || family === AF.INET6;
}

/**
 * Whether an address of family `f` answers a lookup of `family` (`AF.*`).
 * @internal
 * @example
 * ```ts
 * familyAllows(EventUtil.AF_INET, 6); // false
 * ```
 */
export function familyAllows(family: number, f: 4 | 6): boolean {
  return family === AF.UNSPEC || (family === AF.INET ? f === 4 : f === 6);
}

/**
 * Whether a name is under the reserved `.invalid` domain (RFC 6761 6.4):
 * such names never resolve and are never sent to a resolver.
 * @internal
 * @example
 * ```ts
 * isInvalidName('host.invalid.'); // true
 * ```
 */
export function isInvalidName(name: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return n === 'invalid' || n.endsWith('.invalid');
}

/**
 * Whether a host name (without its trailing dot) can be sent as a query.
 * @internal
 * @example
 * ```ts
 * validName('a..b'); // false: empty label
 * ```
 */
export function validName(name: string): boolean {
  if (name === '' || name.length > 253) return false;
  // eslint-disable-next-line no-control-regex -- a host name must not contain control characters
  if (/[\s[\]:/\\@\x00-\x1f\x7f]/.test(name)) return false;
  for (const label of name.split('.')) {
    if (label === '' || label.length > 63) return false;
  }
  return true;
}

/** An IP literal (IPv4, IPv6 with or without brackets), or null. */
function ipLiteral(name: string): EventDnsAddress | null {
  if (isIPv4(name)) return { address: name, family: 4 };
  const inner = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (isIPv6(inner)) return { address: inner, family: 6 };
  return null;
}

/**
 * The answer for an IP literal (a failure when its family is not the one
 * asked for), or null when `name` is not one.
 * @internal
 * @example
 * ```ts
 * literalOutcome('[::1]', EventUtil.AF_UNSPEC); // { error: null, addresses: [{ address: '::1', family: 6 }] }
 * ```
 */
export function literalOutcome(name: string, family: number): Outcome | null {
  const lit = ipLiteral(name);
  if (lit === null) return null;
  if (!familyAllows(family, lit.family)) return { error: failure('EADDRFAMILY', 'getaddrinfo', name), addresses: [] };
  return { error: null, addresses: [lit] };
}

function checkCallback(cb: unknown): asserts cb is EventDnsCallback {
  if (typeof cb !== 'function') throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'The callback must be a function');
}

/**
 * Checks the arguments of a lookup: a string name, a valid family, a
 * callback; throws `ERR_EVENT_INVALID_ARGUMENT` otherwise.
 * @internal
 * @example
 * ```ts
 * const hostname: unknown = process.argv[2];
 * checkLookupArgs(hostname, EventUtil.AF_INET, () => {}); // throws ERR_EVENT_INVALID_ARGUMENT unless a string
 * console.log(hostname.toLowerCase()); // a string from here on
 * ```
 */
export function checkLookupArgs(hostname: unknown, family: unknown, cb: unknown): asserts hostname is string {
  if (typeof hostname !== 'string')
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'The host name must be a string');
  if (!validFamily(family)) {
    throw createEventError(
      'ERR_EVENT_INVALID_ARGUMENT',
      `Invalid address family: ${String(family)} (expected AF_UNSPEC, AF_INET or AF_INET6)`,
    );
  }
  checkCallback(cb);
}

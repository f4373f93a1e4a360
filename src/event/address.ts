/**
 * Address parsing shared by `EventListener`, `EventBufferEvent.connect()`
 * and the HTTP layer, and the address family numbers of the socket API
 * (`EventUtil.AF_*`).
 *
 * The accepted forms are those of the PHP extension's network-address
 * parser and of libevent's `evutil_parse_sockaddr_port()`:
 *
 * | form | example | needs |
 * |---|---|---|
 * | UNIX socket | `unix:/run/app.sock` (prefix case-insensitive) | non-empty path |
 * | IPv4 with port | `127.0.0.1:8080` | |
 * | IPv6 with port | `[::1]:8080` | |
 * | IPv4 without port | `127.0.0.1` | `requirePort: false` (port 0) |
 * | IPv6 without port | `[::1]`, `::1` | `requirePort: false` (port 0) |
 * | host name | `localhost:0`, `example.test:80`, `example.test` | `allowHostnames: true` (family 0) |
 *
 * Ports are decimal integers from 0 to 65535 (no sign, no spaces); nothing
 * is trimmed. Everything else is rejected with `null`: a port out of range
 * (`1.2.3.4:65536`), an empty port (`1.2.3.4:`), a dotted quad that is not
 * an IPv4 address (`256.1.1.1:80`), `unix:` without a path. A dotted name
 * with fewer than four numeric parts (`1.2.3`) is not an IPv4 literal: it is
 * taken as a host name (the system resolver decides what it means).
 *
 * @module
 */
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The address families of the socket API (Linux numbers), the values of
 * `EventUtil.AF_*`, defined once.
 * @internal
 * @example
 * ```ts
 * import { EventUtil } from './util.js';
 * EventUtil.AF_INET6 === AF.INET6; // true (10)
 * ```
 */
export const AF = { UNSPEC: 0, UNIX: 1, INET: 2, INET6: 10 } as const;

/**
 * A TCP endpoint: an IP literal (family 4 or 6) or a host name still to be
 * resolved (family 0).
 * @example
 * ```ts
 * const a = parseAddress('[::1]:80', { requirePort: true, allowHostnames: false });
 * // { kind: 'tcp', host: '::1', port: 80, family: 6 }
 * ```
 */
export interface TcpAddress {
  kind: 'tcp';
  /** The IP address without brackets, or the host name. */
  host: string;
  /** 0 to 65535; 0 when the port was optional and omitted. */
  port: number;
  /** 4 or 6 for an IP literal, 0 for a host name. */
  family: 4 | 6 | 0;
}

/**
 * A UNIX domain socket path (`unix:` prefix removed).
 * @example
 * ```ts
 * parseAddress('unix:/tmp/echo.sock', { requirePort: true, allowHostnames: false });
 * // { kind: 'unix', path: '/tmp/echo.sock' }
 * ```
 */
export interface UnixAddress {
  kind: 'unix';
  path: string;
}

/**
 * The result of {@link parseAddress}.
 * @example
 * ```ts
 * const a: ParsedAddress | null = parseAddress('127.0.0.1:80', { requirePort: true, allowHostnames: false });
 * if (a?.kind === 'tcp') console.log(a.host, a.port);
 * ```
 */
export type ParsedAddress = TcpAddress | UnixAddress;

/**
 * What {@link parseAddress} accepts besides IP literals and `unix:` paths.
 * @example
 * ```ts
 * const listenerRules: ParseAddressOptions = { requirePort: true, allowHostnames: true };
 * ```
 */
export interface ParseAddressOptions {
  /** When true, `IPv4`, `[IPv6]`, bare `IPv6` and host names without `:port` are rejected. */
  requirePort: boolean;
  /** When true, host names (`localhost:0`) are accepted with family 0. */
  allowHostnames: boolean;
}

const PORT_RE = /^[0-9]+$/;
const DOTTED_QUAD_RE = /^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/;
const LABEL_RE = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

function parsePort(text: string): number | null {
  if (!PORT_RE.test(text)) return null;
  const n = Number(text);
  return n <= 65535 ? n : null;
}

function isHostName(text: string): boolean {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name === '' || name.length > 253) return false;
  for (const label of name.split('.')) if (!LABEL_RE.test(label)) return false;
  return true;
}

function tcp(host: string, port: number, family: 4 | 6 | 0): TcpAddress {
  return { kind: 'tcp', host, port, family };
}

/**
 * Parses a network address. Returns `null` for anything malformed, for a
 * port outside 0..65535, for a missing port when `requirePort` is set and
 * for a host name unless `allowHostnames` is set. Never throws, never
 * resolves names.
 *
 * @example
 * ```ts
 * parseAddress('127.0.0.1:8080', { requirePort: true, allowHostnames: false }); // { kind: 'tcp', host: '127.0.0.1', port: 8080, family: 4 }
 * parseAddress('::1', { requirePort: false, allowHostnames: false });           // { kind: 'tcp', host: '::1', port: 0, family: 6 }
 * parseAddress('localhost:0', { requirePort: true, allowHostnames: true });     // { kind: 'tcp', host: 'localhost', port: 0, family: 0 }
 * parseAddress('UNIX:/tmp/x', { requirePort: true, allowHostnames: false });    // { kind: 'unix', path: '/tmp/x' }
 * parseAddress('1.2.3.4:65536', { requirePort: true, allowHostnames: true });   // null
 * ```
 */
export function parseAddress(text: string, opts: ParseAddressOptions): ParsedAddress | null {
  if (typeof text !== 'string' || text === '') return null;
  if (text.length >= 5 && text.slice(0, 5).toLowerCase() === 'unix:') {
    const path = text.slice(5);
    return path === '' ? null : { kind: 'unix', path };
  }
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return null;
    const host = text.slice(1, close);
    if (!isIPv6(host)) return null;
    const rest = text.slice(close + 1);
    if (rest === '') return opts.requirePort ? null : tcp(host, 0, 6);
    if (rest[0] !== ':') return null;
    const port = parsePort(rest.slice(1));
    return port === null ? null : tcp(host, port, 6);
  }
  const firstColon = text.indexOf(':');
  if (firstColon >= 0 && text.indexOf(':', firstColon + 1) >= 0) {
    // Two colons or more: a bare IPv6 address, which cannot carry a port.
    if (opts.requirePort || !isIPv6(text)) return null;
    return tcp(text, 0, 6);
  }
  let host = text;
  let port = 0;
  if (firstColon >= 0) {
    host = text.slice(0, firstColon);
    const p = parsePort(text.slice(firstColon + 1));
    if (p === null) return null;
    port = p;
  } else if (opts.requirePort) {
    return null;
  }
  if (isIPv4(host)) return tcp(host, port, 4);
  if (DOTTED_QUAD_RE.test(host)) return null; // a dotted quad that is not an IPv4 address (256.1.1.1)
  if (opts.allowHostnames && isHostName(host)) return tcp(host, port, 0);
  return null;
}

/**
 * Formats a host and port as `host:port`, with brackets around an IPv6
 * address (`[::1]:80`).
 *
 * @example
 * ```ts
 * formatAddress('127.0.0.1', 8080); // '127.0.0.1:8080'
 * formatAddress('::1', 80);         // '[::1]:80'
 * ```
 */
export function formatAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * `EventUtil`: socket helpers and constants, the counterpart of the PHP
 * extension's `EventUtil` class (static members only).
 *
 * It also keeps the "last socket error" that `getLastSocketErrno()` and
 * `getLastSocketError()` report. In C that is `errno` / `EVUTIL_SOCKET_ERROR()`;
 * Node has no such global, so the modules of the event layer record the error
 * of every failed socket operation here through {@link setLastSocketError}.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { fstatSync, readFileSync, readlinkSync } from 'node:fs';
import { Server, Socket } from 'node:net';
import { constants as osConstants, platform } from 'node:os';
import { getSystemErrorMap } from 'node:util';
import { fdOf, streamError, streamOf } from './descriptor.js';
import { createEventError, warn } from './errors.js';

// ---------------------------------------------------------------------------
// Last socket error (module state)
// ---------------------------------------------------------------------------

/** strerror(3) texts (glibc wording) of the errors sockets usually report. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'Connection refused',
  EAGAIN: 'Resource temporarily unavailable',
  EWOULDBLOCK: 'Resource temporarily unavailable',
  EADDRINUSE: 'Address already in use',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  ECONNRESET: 'Connection reset by peer',
  ECONNABORTED: 'Software caused connection abort',
  EPIPE: 'Broken pipe',
  ETIMEDOUT: 'Connection timed out',
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EMFILE: 'Too many open files',
  ENFILE: 'Too many open files in system',
  ENETUNREACH: 'Network is unreachable',
  EHOSTUNREACH: 'No route to host',
  ENOTCONN: 'Transport endpoint is not connected',
  EINPROGRESS: 'Operation now in progress',
  EINTR: 'Interrupted system call',
  EINVAL: 'Invalid argument',
  EBADF: 'Bad file descriptor',
  ENOTSOCK: 'Socket operation on non-socket',
  ENOPROTOOPT: 'Protocol not available',
  ENOBUFS: 'No buffer space available',
  ENOMEM: 'Cannot allocate memory',
};

const errnoByName = osConstants.errno as Readonly<Record<string, number>>;
let nameByErrno: Map<number, string> | null = null;

function errnoName(errno: number): string | undefined {
  if (nameByErrno === null) {
    nameByErrno = new Map();
    for (const [name, value] of Object.entries(errnoByName)) {
      // Keep the first name of aliases (EAGAIN before EWOULDBLOCK, as strerror does).
      if (!nameByErrno.has(value)) nameByErrno.set(value, name);
    }
  }
  return nameByErrno.get(errno);
}

/** The strerror-like text of an errno number (or code name), or undefined when unknown. */
function errnoText(errno: number, code: string | undefined): string | undefined {
  if (errno === 0) return 'Success';
  const name = code ?? errnoName(errno);
  if (name !== undefined && ERRNO_TEXT[name] !== undefined) return ERRNO_TEXT[name];
  // libuv's texts are strerror's in lower case on the platforms Node supports.
  const uv = getSystemErrorMap().get(-errno);
  if (uv !== undefined && (code === undefined || uv[0] === code)) {
    return uv[1].charAt(0).toUpperCase() + uv[1].slice(1);
  }
  return undefined;
}

interface SocketErrorInfo {
  errno: number;
  text: string;
}

/** Positive errno and text of an error value; errno 0 when none can be derived. */
function describeSocketError(err: unknown): SocketErrorInfo {
  if (err === null || err === undefined) return { errno: 0, text: 'Success' };
  if (typeof err === 'number') {
    const errno = Number.isInteger(err) ? Math.abs(err) : 0;
    return { errno, text: errnoText(errno, undefined) ?? `Unknown error ${errno}` };
  }
  if (typeof err === 'string') {
    const errno = errnoByName[err] ?? 0;
    return { errno, text: errnoText(errno, errno === 0 ? undefined : err) ?? err };
  }
  const e = err as { errno?: unknown; code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  let errno = 0;
  if (typeof e.errno === 'number' && Number.isInteger(e.errno) && e.errno !== 0) errno = Math.abs(e.errno);
  else if (code !== undefined && errnoByName[code] !== undefined) errno = errnoByName[code];
  const known = errno === 0 ? undefined : errnoText(errno, code !== undefined && errnoByName[code] === errno ? code : undefined);
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : undefined;
  return { errno, text: known ?? message ?? (errno === 0 ? 'Success' : `Unknown error ${errno}`) };
}

let lastSocketError: SocketErrorInfo = { errno: 0, text: 'Success' };

/**
 * Records the error of a failed socket operation, so that
 * `EventUtil.getLastSocketErrno()` / `getLastSocketError()` report it
 * (the role `errno` plays in C).
 *
 * Accepts a Node `ErrnoException` (its `errno`, negative in Node, becomes
 * positive; without one its `code`, such as `'ECONNREFUSED'`, is looked up in
 * `os.constants.errno`), an errno number, an errno name, or `null` / `0`
 * to reset to "Success". The text is the strerror(3) wording for common
 * codes, libuv's text otherwise, and finally the error's own message.
 *
 * @internal
 * @example
 * ```ts
 * socket.on('error', (err) => setLastSocketError(err));
 * // later: EventUtil.getLastSocketErrno() === 111, getLastSocketError() === 'Connection refused'
 * ```
 */
export function setLastSocketError(err: unknown): void {
  lastSocketError = describeSocketError(err);
}

// ---------------------------------------------------------------------------
// UNIX socket names
// ---------------------------------------------------------------------------

const unixPeerPaths = new WeakMap<Socket, string>();

/**
 * Records the path a UNIX-domain client socket connected to. Node.js does not
 * expose `getpeername()` for UNIX sockets, so modules that connect to
 * `unix:<path>` call this to let `EventUtil.getPeerName()` answer.
 *
 * @internal
 * @example
 * ```ts
 * const s = net.connect(path); setUnixPeerPath(s, path);
 * EventUtil.getPeerName(s); // { address: path, family: EventUtil.AF_UNIX }
 * ```
 */
export function setUnixPeerPath(sock: Socket, path: string): void {
  unixPeerPaths.set(sock, path);
}

/** The bound path of a UNIX socket fd from /proc/net/unix (Linux), '' when unnamed, undefined when unknown. */
function procUnixPath(fd: number): string | undefined {
  if (platform() !== 'linux' || fd < 0) return undefined;
  try {
    const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
    if (!m) return undefined;
    const inode = m[1];
    const table = readFileSync('/proc/net/unix', 'latin1');
    let start = table.indexOf('\n') + 1;
    while (start > 0 && start < table.length) {
      let end = table.indexOf('\n', start);
      if (end < 0) end = table.length;
      const cols = table.slice(start, end).trim().split(/\s+/);
      // Num RefCount Protocol Flags Type St Inode [Path]
      if (cols[6] === inode) {
        const path = cols.slice(7).join(' ');
        return path.startsWith('@') ? `\0${path.slice(1)}` : path;
      }
      start = end + 1;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// Socket classification
// ---------------------------------------------------------------------------

type SocketKind = 'tcp' | 'unix' | 'other' | 'unconnected' | 'closed';

interface NetInternals {
  _handle?: { constructor?: { name?: string } } | null;
  server?: Server | null;
  _server?: Server | null;
  connecting?: boolean;
}

function familyNumber(family: unknown): number {
  if (family === 'IPv4' || family === 4) return EventUtil.AF_INET;
  if (family === 'IPv6' || family === 6) return EventUtil.AF_INET6;
  return EventUtil.AF_UNSPEC;
}

function serverOf(sock: Socket): Server | null {
  const s = sock as unknown as NetInternals;
  const server = s.server ?? s._server ?? null;
  return server instanceof Server ? server : null;
}

function socketKind(sock: Socket | Server): SocketKind {
  if (sock instanceof Server) {
    const a = sock.address();
    if (a === null) return 'unconnected';
    return typeof a === 'string' ? 'unix' : 'tcp';
  }
  if (sock.destroyed) return 'closed';
  const a = sock.address() as { family?: unknown };
  if (familyNumber(a.family) !== EventUtil.AF_UNSPEC) return 'tcp';
  const handle = (sock as unknown as NetInternals)._handle;
  if (!handle) return 'unconnected';
  const cls = handle.constructor?.name;
  if (cls === 'TCP') return (sock as unknown as NetInternals).connecting === true ? 'unconnected' : 'tcp';
  if (cls === 'Pipe') {
    const server = serverOf(sock);
    if (server !== null && typeof server.address() === 'string') return 'unix';
    const fd = fdOf(sock);
    if (fd < 0) return 'unconnected';
    try {
      return fstatSync(fd).isSocket() ? 'unix' : 'other';
    } catch {
      return 'closed';
    }
  }
  return 'other';
}

/**
 * A socket address as {@link EventUtil.getSocketName} and {@link EventUtil.getPeerName} return it.
 * @example
 * ```ts
 * const a: EventSocketAddress | false = EventUtil.getPeerName(sock);
 * if (a && a.family !== EventUtil.AF_UNIX) console.log(`${a.address}:${a.port}`);
 * ```
 */
export interface EventSocketAddress {
  /** IPv4 or IPv6 address text, or the path of a UNIX socket ('' when unnamed). */
  address: string;
  /** The port (TCP only). */
  port?: number;
  /** `EventUtil.AF_INET`, `EventUtil.AF_INET6` or `EventUtil.AF_UNIX`. */
  family: number;
}

/**
 * The `{ l_onoff, l_linger }` value of `SO_LINGER`.
 * @example
 * ```ts
 * EventUtil.setSocketOption(sock, EventUtil.SOL_SOCKET, EventUtil.SO_LINGER, { l_onoff: 0, l_linger: 0 });
 * ```
 */
export interface EventLingerOption {
  l_onoff: number;
  l_linger: number;
}

/**
 * The `{ sec, usec }` value of `SO_RCVTIMEO` / `SO_SNDTIMEO`.
 * @example
 * ```ts
 * const tv: EventTimevalOption = { sec: 1, usec: 500000 };
 * ```
 */
export interface EventTimevalOption {
  sec: number;
  usec: number;
}

/**
 * Every value {@link EventUtil.setSocketOption} accepts: an int or boolean,
 * or the struct of `SO_LINGER` / `SO_RCVTIMEO` / `SO_SNDTIMEO`.
 * @example
 * ```ts
 * const v: EventSocketOptionValue = true;
 * EventUtil.setSocketOption(sock, EventUtil.SOL_TCP, EventUtil.TCP_NODELAY, v);
 * ```
 */
export type EventSocketOptionValue = number | boolean | EventLingerOption | EventTimevalOption;

const OPTION_NAMES: Readonly<Record<string, string>> = {
  '1:1': 'SO_DEBUG',
  '1:2': 'SO_REUSEADDR',
  '1:3': 'SO_TYPE',
  '1:4': 'SO_ERROR',
  '1:5': 'SO_DONTROUTE',
  '1:6': 'SO_BROADCAST',
  '1:7': 'SO_SNDBUF',
  '1:8': 'SO_RCVBUF',
  '1:9': 'SO_KEEPALIVE',
  '1:10': 'SO_OOBINLINE',
  '1:13': 'SO_LINGER',
  '1:18': 'SO_RCVLOWAT',
  '1:19': 'SO_SNDLOWAT',
  '1:20': 'SO_RCVTIMEO',
  '1:21': 'SO_SNDTIMEO',
  '6:1': 'TCP_NODELAY',
};

function unsupportedOption(level: number, optname: number, detail?: string): false {
  const name = OPTION_NAMES[`${level}:${optname}`];
  const what = name === undefined ? `(level ${level}, option ${optname})` : `${name} (level ${level}, option ${optname})`;
  return warn('ERR_EVENT_SOCKET_OPTION', `Unable to set socket option ${what}: not supported by Node.js for this socket${detail ? ` (${detail})` : ''}`);
}

function missingKey(value: unknown, keys: readonly string[]): string | undefined {
  if (typeof value !== 'object' || value === null) return keys[0];
  for (const k of keys) if (!(k in value)) return k;
  return undefined;
}

function toInt(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Math.trunc(Number(v));
  return undefined;
}

/**
 * Socket utilities and constants (static members only; `new EventUtil()` throws).
 *
 * @example
 * ```ts
 * import { EventUtil } from 'eventide/event';
 * if (!EventUtil.sslRandPoll()) process.exit(1);
 * console.log(EventUtil.getLastSocketErrno(), EventUtil.getLastSocketError()); // 0 Success
 * ```
 */
export class EventUtil {
  /** Unspecified address family (let the resolver choose). @example `bev.connectHost(dns, 'example.org', 80, EventUtil.AF_UNSPEC)` */
  static readonly AF_UNSPEC = 0;
  /** UNIX-domain sockets. @example `EventUtil.getSocketName(server)?.family === EventUtil.AF_UNIX` */
  static readonly AF_UNIX = 1;
  /** IPv4. @example `EventUtil.getPeerName(sock)?.family === EventUtil.AF_INET` */
  static readonly AF_INET = 2;
  /** IPv6. @example `EventUtil.getPeerName(sock)?.family === EventUtil.AF_INET6` */
  static readonly AF_INET6 = 10;
  /** Socket-level options. @example `EventUtil.setSocketOption(s, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1)` */
  static readonly SOL_SOCKET = 1;
  /** TCP-level options. @example `EventUtil.setSocketOption(s, EventUtil.SOL_TCP, EventUtil.TCP_NODELAY, 1)` */
  static readonly SOL_TCP = 6;
  /** UDP-level options (none supported by Node.js here). @example `EventUtil.SOL_UDP === 17` */
  static readonly SOL_UDP = 17;
  /** IP protocol level. @example `EventUtil.IPPROTO_IP === 0` */
  static readonly IPPROTO_IP = 0;
  /** TCP protocol level (same as SOL_TCP). @example `EventUtil.setSocketOption(s, EventUtil.IPPROTO_TCP, EventUtil.TCP_NODELAY, true)` */
  static readonly IPPROTO_TCP = 6;
  /** UDP protocol level. @example `EventUtil.IPPROTO_UDP === 17` */
  static readonly IPPROTO_UDP = 17;
  /** IPv6 protocol level. @example `EventUtil.IPPROTO_IPV6 === 41` */
  static readonly IPPROTO_IPV6 = 41;
  /** Raw socket type. @example `EventUtil.SOCK_RAW === 3` */
  static readonly SOCK_RAW = 3;
  /** SO_DEBUG (not settable from Node.js). @example `EventUtil.SO_DEBUG === 1` */
  static readonly SO_DEBUG = 1;
  /** SO_REUSEADDR (see {@link EventUtil.setSocketOption}). @example `EventUtil.setSocketOption(server, EventUtil.SOL_SOCKET, EventUtil.SO_REUSEADDR, 1)` */
  static readonly SO_REUSEADDR = 2;
  /** SO_TYPE (read-only). @example `EventUtil.SO_TYPE === 3` */
  static readonly SO_TYPE = 3;
  /** SO_ERROR (read-only). @example `EventUtil.SO_ERROR === 4` */
  static readonly SO_ERROR = 4;
  /** SO_DONTROUTE (not settable from Node.js). @example `EventUtil.SO_DONTROUTE === 5` */
  static readonly SO_DONTROUTE = 5;
  /** SO_BROADCAST (not settable on stream sockets from Node.js). @example `EventUtil.SO_BROADCAST === 6` */
  static readonly SO_BROADCAST = 6;
  /** SO_SNDBUF (not settable on stream sockets from Node.js). @example `EventUtil.SO_SNDBUF === 7` */
  static readonly SO_SNDBUF = 7;
  /** SO_RCVBUF (not settable on stream sockets from Node.js). @example `EventUtil.SO_RCVBUF === 8` */
  static readonly SO_RCVBUF = 8;
  /** SO_KEEPALIVE. @example `EventUtil.setSocketOption(s, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1)` */
  static readonly SO_KEEPALIVE = 9;
  /** SO_OOBINLINE (not settable from Node.js). @example `EventUtil.SO_OOBINLINE === 10` */
  static readonly SO_OOBINLINE = 10;
  /** SO_LINGER, value `{ l_onoff, l_linger }`. @example `EventUtil.setSocketOption(s, EventUtil.SOL_SOCKET, EventUtil.SO_LINGER, { l_onoff: 0, l_linger: 0 })` */
  static readonly SO_LINGER = 13;
  /** SO_RCVLOWAT (not settable from Node.js). @example `EventUtil.SO_RCVLOWAT === 18` */
  static readonly SO_RCVLOWAT = 18;
  /** SO_SNDLOWAT (not settable from Node.js). @example `EventUtil.SO_SNDLOWAT === 19` */
  static readonly SO_SNDLOWAT = 19;
  /** SO_RCVTIMEO, value `{ sec, usec }` (validated, then reported unsupported). @example `EventUtil.SO_RCVTIMEO === 20` */
  static readonly SO_RCVTIMEO = 20;
  /** SO_SNDTIMEO, value `{ sec, usec }` (validated, then reported unsupported). @example `EventUtil.SO_SNDTIMEO === 21` */
  static readonly SO_SNDTIMEO = 21;
  /** TCP_NODELAY (disable Nagle's algorithm). @example `EventUtil.setSocketOption(s, EventUtil.SOL_TCP, EventUtil.TCP_NODELAY, 1)` */
  static readonly TCP_NODELAY = 1;
  /**
   * The libevent API level this port follows: 2.1.12-stable, encoded as
   * libevent's `LIBEVENT_VERSION_NUMBER` (`0xMMmmpp00`).
   * @example
   * ```ts
   * console.log((EventUtil.LIBEVENT_VERSION_NUMBER >>> 24) & 0xff); // 2
   * ```
   */
  static readonly LIBEVENT_VERSION_NUMBER = 0x02010c00;

  /** Not instantiable: throws an `EventArgumentError` (`ERR_EVENT_INVALID_ARGUMENT`). */
  private constructor() {
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'Call to private EventUtil::__construct(): EventUtil has only static members');
  }

  /**
   * The errno of the last failed socket operation (positive, e.g. 111 for
   * ECONNREFUSED on Linux; 0 when none). With a socket that has recorded an
   * error of its own (an `'error'` event seen by the event layer), that
   * socket's errno is reported instead.
   *
   * @example
   * ```ts
   * listener.setErrorCallback(() => {
   *   console.error(`Got an error ${EventUtil.getLastSocketErrno()} (${EventUtil.getLastSocketError()})`);
   * });
   * ```
   */
  static getLastSocketErrno(socket?: unknown): number {
    return EventUtil.#errorFor(socket).errno;
  }

  /**
   * The strerror(3)-style text of the last failed socket operation
   * ("Success" when there is none, "Connection refused", ...). With a socket
   * that has recorded an error of its own, that error's text.
   *
   * @example
   * ```ts
   * console.log(EventUtil.getLastSocketError()); // Success
   * ```
   */
  static getLastSocketError(socket?: unknown): string {
    return EventUtil.#errorFor(socket).text;
  }

  static #errorFor(socket: unknown): SocketErrorInfo {
    if (typeof socket === 'object' && socket !== null) {
      const err = streamError(socket);
      if (err !== undefined) return describeSocketError(err);
    }
    return lastSocketError;
  }

  /**
   * Whether the TLS random number generator is seeded. Node's CSPRNG always
   * is; this verifies it by drawing one byte and returns `false` only if that
   * fails.
   *
   * @example
   * ```ts
   * if (!EventUtil.sslRandPoll()) process.exit(1);
   * ```
   */
  static sslRandPoll(): boolean {
    try {
      randomBytes(1);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The numeric file descriptor behind a socket, stream or fd number; -1 when
   * there is none (a closed or not yet connected socket, a value that is not
   * a descriptor). Never throws.
   *
   * @example
   * ```ts
   * const fd = EventUtil.getSocketFd(socket); // e.g. 21
   * ```
   */
  static getSocketFd(desc: unknown): number {
    try {
      return fdOf(desc);
    } catch {
      return -1;
    }
  }

  /**
   * The local address of a socket or server (`getsockname(2)`): IPv4/IPv6
   * text and port, or for a UNIX socket its path (`''` when unnamed, as a
   * client's is) and no port. Returns `false` and records a warning when the
   * socket is closed, not bound yet (a TCP socket still connecting, a server
   * not listening) or not a socket. (The PHP extension's by-reference version
   * is broken on PHP 8; this one returns the address.)
   *
   * @example
   * ```ts
   * server.listen(0, '127.0.0.1', () => {
   *   const name = EventUtil.getSocketName(server); // { address: '127.0.0.1', port: 41234, family: 2 }
   * });
   * ```
   */
  static getSocketName(sock: Socket | Server): EventSocketAddress | false {
    if (!(sock instanceof Socket) && !(sock instanceof Server)) {
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: not a socket');
    }
    const kind = socketKind(sock);
    if (kind === 'closed') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is closed');
    if (kind === 'unconnected') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is not bound');
    if (kind === 'other') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: not a socket');
    if (sock instanceof Server) {
      const a = sock.address();
      if (typeof a === 'string') return { address: a, family: EventUtil.AF_UNIX };
      if (a === null) return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is not bound');
      return { address: a.address, port: a.port, family: familyNumber(a.family) };
    }
    if (kind === 'unix') {
      const server = serverOf(sock);
      const path = server?.address();
      if (typeof path === 'string') return { address: path, family: EventUtil.AF_UNIX };
      // A client (Node cannot bind one, so it is unnamed) or an adopted descriptor: ask the kernel where possible.
      return { address: procUnixPath(fdOf(sock)) ?? '', family: EventUtil.AF_UNIX };
    }
    const a = sock.address() as { address?: string; port?: number; family?: unknown };
    if (typeof a.address !== 'string') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is not bound');
    return { address: a.address, port: a.port ?? 0, family: familyNumber(a.family) };
  }

  /**
   * The remote address of a connected socket (`getpeername(2)`), shaped as
   * {@link EventUtil.getSocketName}'s result. For a UNIX socket accepted by a
   * server the peer is unnamed (`''`); for a UNIX client the path is known
   * when the event layer connected it (Node.js does not expose
   * `getpeername()` for UNIX sockets). Returns `false` and records a warning
   * for a server, a closed or unconnected socket, or an unknown UNIX peer.
   *
   * @example
   * ```ts
   * server.on('connection', (s) => console.log(EventUtil.getPeerName(s))); // { address: '127.0.0.1', port: 53122, family: 2 }
   * ```
   */
  static getPeerName(sock: Socket | Server): EventSocketAddress | false {
    if (sock instanceof Server) return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: Transport endpoint is not connected');
    if (!(sock instanceof Socket)) return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: not a socket');
    const kind = socketKind(sock);
    if (kind === 'closed') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: the socket is closed');
    if (kind === 'unconnected') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: Transport endpoint is not connected');
    if (kind === 'other') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: not a socket');
    if (kind === 'unix') {
      const known = unixPeerPaths.get(sock);
      if (known !== undefined) return { address: known, family: EventUtil.AF_UNIX };
      if (serverOf(sock) !== null) return { address: '', family: EventUtil.AF_UNIX };
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: Node.js does not expose the peer address of this UNIX socket');
    }
    const address = sock.remoteAddress;
    if (typeof address !== 'string') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: Transport endpoint is not connected');
    return { address, port: sock.remotePort ?? 0, family: familyNumber(sock.remoteFamily) };
  }

  /**
   * Sets a socket option, as far as Node.js lets a program set it. Returns
   * `true` on success, otherwise `false` with a recorded warning.
   *
   * Supported (exactly these):
   * - `SOL_SOCKET`/`SO_KEEPALIVE` (int or boolean) on a TCP socket → `socket.setKeepAlive()`.
   * - `SOL_TCP` or `IPPROTO_TCP` / `TCP_NODELAY` (int or boolean) on a TCP socket → `socket.setNoDelay()`.
   * - `SOL_SOCKET`/`SO_LINGER` with `l_onoff` 0 on a socket: that is Node's
   *   (graceful) close behaviour already, so it succeeds. `l_onoff` 1 is not
   *   supported (Node offers an abortive close only as an explicit
   *   `socket.resetAndDestroy()` call, not as a socket option).
   * - `SOL_SOCKET`/`SO_REUSEADDR` with a non-zero value on a TCP `net.Server`
   *   (not on Windows): libuv sets it on every TCP bind, so it succeeds.
   *
   * A socket that is not connected yet accepts `SO_KEEPALIVE` and
   * `TCP_NODELAY`; Node applies them when it connects.
   *
   * `SO_RCVTIMEO`/`SO_SNDTIMEO` take `{ sec, usec }` and `SO_LINGER` takes
   * `{ l_onoff, l_linger }`; a missing key gives the warning
   * `no key "sec" passed in optval` (`ERR_EVENT_INVALID_ARGUMENT`). The
   * timeouts are then reported unsupported: they bound blocking calls, which
   * an event-driven socket never makes, and `socket.setTimeout()` (an idle
   * timer for both directions) means something else.
   *
   * Everything else (and the options above on a UNIX socket) returns `false`
   * with `ERR_EVENT_SOCKET_OPTION` "Unable to set socket option … : not
   * supported by Node.js for this socket". A value that is not a socket gives
   * `ERR_EVENT_INVALID_DESCRIPTOR`; a closed socket `ERR_EVENT_SOCKET_OPTION`
   * "Unable to set socket option, errno: 9".
   *
   * @example
   * ```ts
   * EventUtil.setSocketOption(sock, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1); // true
   * EventUtil.setSocketOption(sock, EventUtil.SOL_SOCKET, EventUtil.SO_RCVTIMEO, { sec: 1 }); // false: no key "usec" passed in optval
   * ```
   */
  static setSocketOption(sock: Socket | Server, level: number, optname: number, value: EventSocketOptionValue): boolean {
    if (!(sock instanceof Socket) && !(sock instanceof Server)) {
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to set socket option: not a socket');
    }
    if (!Number.isInteger(level) || !Number.isInteger(optname)) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Unable to set socket option: level and option must be integers (got ${String(level)}, ${String(optname)})`);
    }
    // Shape validation first, as the extension does before calling setsockopt().
    let intValue: number | undefined;
    let linger: EventLingerOption | undefined;
    if (level === EventUtil.SOL_SOCKET && optname === EventUtil.SO_LINGER) {
      const missing = missingKey(value, ['l_onoff', 'l_linger']);
      if (missing !== undefined) return warn('ERR_EVENT_INVALID_ARGUMENT', `no key "${missing}" passed in optval`);
      const v = value as unknown as Record<string, unknown>;
      const onoff = toInt(v.l_onoff);
      const secs = toInt(v.l_linger);
      if (onoff === undefined || secs === undefined) return warn('ERR_EVENT_INVALID_ARGUMENT', 'Invalid optval: l_onoff and l_linger must be integers');
      linger = { l_onoff: onoff, l_linger: secs };
    } else if (level === EventUtil.SOL_SOCKET && (optname === EventUtil.SO_RCVTIMEO || optname === EventUtil.SO_SNDTIMEO)) {
      const missing = missingKey(value, ['sec', 'usec']);
      if (missing !== undefined) return warn('ERR_EVENT_INVALID_ARGUMENT', `no key "${missing}" passed in optval`);
      const v = value as unknown as Record<string, unknown>;
      if (toInt(v.sec) === undefined || toInt(v.usec) === undefined) return warn('ERR_EVENT_INVALID_ARGUMENT', 'Invalid optval: sec and usec must be integers');
    } else {
      intValue = toInt(value);
      if (intValue === undefined) return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid optval for socket option ${optname}: an integer or boolean is expected`);
    }

    const kind = socketKind(sock);
    if (kind === 'closed') return warn('ERR_EVENT_SOCKET_OPTION', 'Unable to set socket option, errno: 9 (Bad file descriptor)');
    if (kind === 'other') return warn('ERR_EVENT_SOCKET_OPTION', 'Unable to set socket option, errno: 88 (Socket operation on non-socket)');

    if (sock instanceof Server) {
      if (level === EventUtil.SOL_SOCKET && optname === EventUtil.SO_REUSEADDR && intValue !== 0 && process.platform !== 'win32' && kind !== 'unix') {
        return true;
      }
      return unsupportedOption(level, optname);
    }

    const tcpOrUnconnected = kind === 'tcp' || kind === 'unconnected';
    if (level === EventUtil.SOL_SOCKET && optname === EventUtil.SO_KEEPALIVE && tcpOrUnconnected) {
      sock.setKeepAlive(intValue !== 0);
      return true;
    }
    if ((level === EventUtil.SOL_TCP || level === EventUtil.IPPROTO_TCP) && optname === EventUtil.TCP_NODELAY && tcpOrUnconnected) {
      sock.setNoDelay(intValue !== 0);
      return true;
    }
    if (linger !== undefined) {
      if (linger.l_onoff === 0) return true;
      return unsupportedOption(level, optname, 'an abortive close is socket.resetAndDestroy()');
    }
    if (level === EventUtil.SOL_SOCKET && (optname === EventUtil.SO_RCVTIMEO || optname === EventUtil.SO_SNDTIMEO)) {
      return unsupportedOption(level, optname, 'event-driven sockets never block');
    }
    return unsupportedOption(level, optname);
  }

  /**
   * Wraps an open socket file descriptor in a `net.Socket` (the same object
   * the event layer uses when that fd number is passed to it, so both never
   * compete for the descriptor). Returns `false` with a recorded warning
   * (`ERR_EVENT_INVALID_DESCRIPTOR`) when the fd is negative, not open or not
   * a socket.
   *
   * @example
   * ```ts
   * const sock = EventUtil.createSocket(fd);
   * if (sock) sock.write('hello\n');
   * ```
   */
  static createSocket(fd: number): Socket | false {
    if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0) {
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', `Invalid file descriptor: ${String(fd)}`);
    }
    let isSocket: boolean;
    try {
      isSocket = fstatSync(fd).isSocket();
    } catch (err) {
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', `Invalid file descriptor: ${fd} is not open`, err);
    }
    if (!isSocket) return warn('ERR_EVENT_INVALID_DESCRIPTOR', `Invalid file descriptor: ${fd} is not a socket`);
    try {
      const s = streamOf(fd);
      if (s instanceof Socket) return s;
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', `Invalid file descriptor: ${fd} is not a socket`);
    } catch (err) {
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', `Invalid file descriptor: ${fd}`, err);
    }
  }
}

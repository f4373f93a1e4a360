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
import { fstatSync } from 'node:fs';
import { Server, Socket } from 'node:net';
import { AF } from './address.js';
import { fdOf, streamError, streamOf } from './descriptor.js';
import { createEventError, warn } from './errors.js';
import { describeSocketError, type SocketErrorInfo } from './socket-errors.js';
import { peerName, socketName, type EventSocketAddress } from './socket-info.js';
import { setSocketOption, SOCKOPT, type EventSocketOptionValue } from './socket-options.js';

export type { EventSocketAddress } from './socket-info.js';
export type { EventLingerOption, EventSocketOptionValue, EventTimevalOption } from './socket-options.js';

// ---------------------------------------------------------------------------
// Process-wide state: the last socket error, the peers of UNIX clients
// ---------------------------------------------------------------------------

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

/** The paths UNIX-domain clients connected to (Node.js does not expose their peer names). */
const unixPeerPaths = new WeakMap<Socket, string>();

/**
 * Records the path a UNIX-domain client socket connected to. Node.js does not
 * expose `getpeername()` for UNIX sockets, so modules that connect to
 * `unix:<path>` call this to let `EventUtil.getPeerName()` answer.
 *
 * @internal
 * @example
 * ```ts
 * import { connect } from 'node:net';
 * const s = connect('/run/app.sock');
 * setUnixPeerPath(s, '/run/app.sock');
 * EventUtil.getPeerName(s); // { address: '/run/app.sock', family: EventUtil.AF_UNIX }
 * ```
 */
export function setUnixPeerPath(sock: Socket, path: string): void {
  unixPeerPaths.set(sock, path);
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
  /**
   * Unspecified address family (let the resolver choose): the first of the
   * address families `AF_*`, the `family` of the socket addresses.
   * @example
   * ```ts
   * bev.connectHost(dns, 'example.org', 80, EventUtil.AF_UNSPEC); // IPv4 or IPv6, as the resolver answers
   * const peer = EventUtil.getPeerName(sock);
   * if (peer && peer.family === EventUtil.AF_INET6) console.log(`[${peer.address}]:${peer.port}`);
   * ```
   */
  static readonly AF_UNSPEC = AF.UNSPEC;
  /** UNIX-domain sockets. */
  static readonly AF_UNIX = AF.UNIX;
  /** IPv4. */
  static readonly AF_INET = AF.INET;
  /** IPv6. */
  static readonly AF_INET6 = AF.INET6;
  /**
   * Socket-level options: the first of the option levels (`SOL_*`,
   * `IPPROTO_*`), which {@link EventUtil.setSocketOption} takes with an
   * option (`SO_*`, `TCP_NODELAY`).
   * @example
   * ```ts
   * EventUtil.setSocketOption(sock, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1);
   * EventUtil.setSocketOption(sock, EventUtil.SOL_TCP, EventUtil.TCP_NODELAY, true);
   * EventUtil.setSocketOption(sock, EventUtil.SOL_SOCKET, EventUtil.SO_LINGER, { l_onoff: 1, l_linger: 5 });
   * ```
   */
  static readonly SOL_SOCKET = SOCKOPT.SOL_SOCKET;
  /** TCP-level options. */
  static readonly SOL_TCP = SOCKOPT.SOL_TCP;
  /** UDP-level options (none supported by Node.js here). */
  static readonly SOL_UDP = SOCKOPT.SOL_UDP;
  /** IP protocol level. */
  static readonly IPPROTO_IP = SOCKOPT.IPPROTO_IP;
  /** TCP protocol level (same as SOL_TCP). */
  static readonly IPPROTO_TCP = SOCKOPT.IPPROTO_TCP;
  /** UDP protocol level. */
  static readonly IPPROTO_UDP = SOCKOPT.IPPROTO_UDP;
  /** IPv6 protocol level. */
  static readonly IPPROTO_IPV6 = SOCKOPT.IPPROTO_IPV6;
  /** Raw socket type. */
  static readonly SOCK_RAW = SOCKOPT.SOCK_RAW;
  /** SO_DEBUG (not settable from Node.js). */
  static readonly SO_DEBUG = SOCKOPT.SO_DEBUG;
  /** SO_REUSEADDR (see {@link EventUtil.setSocketOption}). */
  static readonly SO_REUSEADDR = SOCKOPT.SO_REUSEADDR;
  /** SO_TYPE (read-only). */
  static readonly SO_TYPE = SOCKOPT.SO_TYPE;
  /** SO_ERROR (read-only). */
  static readonly SO_ERROR = SOCKOPT.SO_ERROR;
  /** SO_DONTROUTE (not settable from Node.js). */
  static readonly SO_DONTROUTE = SOCKOPT.SO_DONTROUTE;
  /** SO_BROADCAST (not settable on stream sockets from Node.js). */
  static readonly SO_BROADCAST = SOCKOPT.SO_BROADCAST;
  /** SO_SNDBUF (not settable on stream sockets from Node.js). */
  static readonly SO_SNDBUF = SOCKOPT.SO_SNDBUF;
  /** SO_RCVBUF (not settable on stream sockets from Node.js). */
  static readonly SO_RCVBUF = SOCKOPT.SO_RCVBUF;
  /** SO_KEEPALIVE. */
  static readonly SO_KEEPALIVE = SOCKOPT.SO_KEEPALIVE;
  /** SO_OOBINLINE (not settable from Node.js). */
  static readonly SO_OOBINLINE = SOCKOPT.SO_OOBINLINE;
  /** SO_LINGER, value `{ l_onoff, l_linger }`. */
  static readonly SO_LINGER = SOCKOPT.SO_LINGER;
  /** SO_RCVLOWAT (not settable from Node.js). */
  static readonly SO_RCVLOWAT = SOCKOPT.SO_RCVLOWAT;
  /** SO_SNDLOWAT (not settable from Node.js). */
  static readonly SO_SNDLOWAT = SOCKOPT.SO_SNDLOWAT;
  /** SO_RCVTIMEO, value `{ sec, usec }` (validated, then reported unsupported). */
  static readonly SO_RCVTIMEO = SOCKOPT.SO_RCVTIMEO;
  /** SO_SNDTIMEO, value `{ sec, usec }` (validated, then reported unsupported). */
  static readonly SO_SNDTIMEO = SOCKOPT.SO_SNDTIMEO;
  /** TCP_NODELAY (disable Nagle's algorithm). */
  static readonly TCP_NODELAY = SOCKOPT.TCP_NODELAY;
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
    throw createEventError(
      'ERR_EVENT_INVALID_ARGUMENT',
      'Call to private EventUtil::__construct(): EventUtil has only static members',
    );
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
    return socketName(sock);
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
    return peerName(sock, unixPeerPaths);
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
   * EventUtil.setSocketOption(sock, EventUtil.SOL_SOCKET, EventUtil.SO_RCVTIMEO, { sec: 1, usec: 0 }); // false: not supported
   * ```
   */
  static setSocketOption(
    sock: Socket | Server,
    level: number,
    optname: number,
    value: EventSocketOptionValue,
  ): boolean {
    return setSocketOption(sock, level, optname, value);
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

/**
 * The contract between a bufferevent and its transport, after libevent's
 * `bufferevent_ops` (bufferevent-internal.h): the bufferevent (callbacks,
 * watermarks, timeouts, buffers, flush scheduling) drives a
 * {@link Transport} (a TCP or UNIX socket, TLS over a socket, one end of an
 * in-memory pair), which moves the bytes and reports what happens to the
 * connection back to its {@link TransportHost}.
 *
 * A transport never reports to its own host from inside a call of the
 * contract: reports come from Node's event loop (a socket event, a
 * handshake step), except that a pair's `write()` hands the bytes to the
 * host of the other end at once.
 *
 * @module
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { EventBuffer } from './buffer.js';

/**
 * What {@link Transport.write} did with the bytes:
 * - `'sent'`: handed to the stream; its `done` callback reports completion;
 * - `'flushed'`: (a `lazy` write) handed to the stream and all sent at once,
 *   so `done` is not called;
 * - `'delivered'`: moved into the input of the other end of a pair;
 * - `'held'`: left in the buffer: no stream, a destroyed one, or a congested
 *   one (the transport reports {@link TransportHost.drained} once it drains;
 *   the bytes of a pair whose other end is gone are dropped).
 * @internal
 */
export type WriteResult = 'sent' | 'flushed' | 'delivered' | 'held';

/**
 * Where to connect: a TCP host and port, or a UNIX socket path.
 * @internal
 */
export type ConnectTarget = { host: string; port: number } | { path: string };

/**
 * A transport: what a bufferevent needs from the thing it reads from and
 * writes to.
 * @internal
 * @example
 * ```ts
 * import { SocketTransport } from './transport-socket.js';
 * declare const host: TransportHost; // the bufferevent's
 * const t: Transport = new SocketTransport(host);
 * const out = new EventBuffer();
 * t.connect({ host: '127.0.0.1', port: 8080 }, undefined); // host.connected() follows
 * t.setReading(true);                                     // host.data(chunk) for what arrives
 * if (t.write(out, undefined) === 'held') t.waitDrain();  // host.drained() once the socket drains
 * t.release(null, true);                                  // graceful close
 * ```
 */
export interface Transport {
  /** The bytes go straight into a peer's input in memory (a pair) instead of leaving at the end of the loop's turn. */
  readonly inMemory: boolean;
  /** The socket underneath (for TLS, the TCP or UNIX socket), or null: a pair, or nothing connected yet. Kept after closing. */
  readonly socket: Socket | null;
  /** Whether bytes are being read (the stream flows). */
  readonly reading: boolean;
  /** Bytes handed to the stream and not yet sent (what Node still buffers). */
  readonly unsent: number;
  /** Whether the stream's buffer is full: writes should wait for {@link TransportHost.drained}. */
  readonly congested: boolean;
  /**
   * Takes over a socket: a connecting one reports {@link TransportHost.connected}
   * once it connects (TLS: `handshaking`, then `secured` or `handshakeFailed`);
   * a connected one is usable at once (TLS: its handshake starts at once).
   * Reading starts paused.
   */
  adopt(sock: Socket): void;
  /**
   * Creates a socket and connects it to `target`; {@link TransportHost.connected}
   * (TLS: {@link TransportHost.handshaking}, then `secured` or `handshakeFailed`)
   * or {@link TransportHost.error} follows. `servername` is the name a TLS
   * client checks the server's certificate against. Throws what
   * `net.Socket.connect()` throws synchronously.
   */
  connect(target: ConnectTarget, servername: string | undefined): void;
  /** Starts or stops reading (no effect without a stream or when already so). */
  setReading(on: boolean): void;
  /**
   * Hands the bytes of `out` over (emptying it unless held); `done` runs when
   * a stream has sent them. With `lazy`, a plain socket with nothing in flight
   * is written without `done`: when everything leaves at once (the common
   * case) the result is `'flushed'` and `done` is never called; otherwise
   * `done` follows an empty write queued behind the rest. (A completion
   * callback costs Node a tick per write; TLS always completes later.)
   */
  write(out: EventBuffer, done: ((err?: Error | null) => void) | undefined, lazy?: boolean): WriteResult;
  /** Asks for one {@link TransportHost.drained} when the stream's buffer drains (once until it came). */
  waitDrain(): void;
  /** Stops reporting and destroys the stream now (TLS: the TLS socket, which closes the socket under it). */
  destroy(): void;
  /**
   * The bufferevent is freed: hands over what `rest` holds (when not null and
   * a stream is open), stops reporting, and with `close` ends the stream
   * (gracefully when something is still to be sent, or always for TLS, which
   * sends close_notify; destroyed after 30 seconds at the latest) or
   * destroys it. The other end of a pair drops what it writes from now on.
   */
  release(rest: EventBuffer | null, close: boolean): void;
  /** Gives the socket up to another transport (STARTTLS): stops reading and reporting, closes nothing. */
  handOver(): void;
  /** The TLS socket once the TLS session started, else null. */
  tlsSocket(): TLSSocket | null;
  /** Records the OpenSSL-style text of a TLS error for {@link Transport.nextSslError} (no effect without TLS). */
  noteError(err: Error): void;
  /** The oldest recorded TLS error text, removed; undefined when there is none. */
  nextSslError(): string | undefined;
}

/**
 * What a transport reports to the bufferevent that drives it.
 * @internal
 * @example
 * ```ts
 * const input = new EventBuffer();
 * const host: TransportHost = {
 *   connected: () => console.log('connected'),
 *   handshaking: () => {},
 *   secured: () => console.log('TLS up'),
 *   handshakeFailed: (err) => console.error(err),
 *   data: (chunk, lent) => input.appendRead(chunk, lent),
 *   received: (from) => input.addBuffer(from),
 *   end: () => console.log('EOF'),
 *   error: (err) => console.error(err),
 *   closed: () => {},
 *   drained: () => {},
 * };
 * ```
 */
export interface TransportHost {
  /** The socket connected (a plain socket: the connection is usable). */
  connected(): void;
  /** A TLS handshake started over the socket. */
  handshaking(): void;
  /** The TLS handshake completed and the peer passed the context's checks. */
  secured(): void;
  /** The TLS handshake or the peer's verification failed; the TLS socket is destroyed. */
  handshakeFailed(err: Error): void;
  /**
   * Bytes arrived from the stream. With `lent` false the host may keep
   * `chunk` (nothing writes into it); with `lent` true it is the base's
   * receive buffer (socket-reads.ts), valid only until this call returns:
   * the host copies what it keeps.
   */
  data(chunk: Buffer, lent: boolean): void;
  /** Bytes arrived from the other end of a pair: the host moves them out of `from`. */
  received(from: EventBuffer): void;
  /** The peer ended its side of the stream (end of file). */
  end(): void;
  /** The stream failed (Node's `'error'`). */
  error(err: Error): void;
  /** The stream closed (Node's `'close'`). */
  closed(): void;
  /** The stream, congested before, drained (after {@link Transport.waitDrain}). */
  drained(): void;
}

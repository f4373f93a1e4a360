/**
 * The socket transport of bufferevents (libevent's bufferevent_sock.c): a
 * TCP or UNIX `net.Socket`, adopted connected or connecting, or created by
 * `connect()`; reading paused and resumed on demand, output written in
 * corked batches, and a graceful end when the bufferevent is freed. Also
 * what connecting needs around it: adopting a descriptor, parsing the
 * address of `connect()`, and resolving the host name of `connectHost()`.
 *
 * @module
 */
import { lookup } from 'node:dns';
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { AF, parseAddress } from './address.js';
import { EMPTY_BUFFER } from './buffer-chunk.js';
import type { EventBuffer } from './buffer.js';
import { fdOf } from './descriptor.js';
import { isInvalidName } from './dns-names.js';
import type { EventDnsBase } from './dns.js';
import { createEventError, warn } from './errors.js';
import { activeHandles } from './fallbacks.js';
import { noop } from './shared.js';
import type { ReadLanding } from './socket-reads.js';
import { setLastSocketError } from './util.js';
import type { ConnectTarget, Transport, TransportHost, WriteResult } from './transport.js';

/** How long a freed connection may take to send what it still holds before it is destroyed. */
const END_TIMEOUT_MS = 30000;
/** How long a closed plain socket waits, its output sent and half-closed, for the peer to close its side. */
const LINGER_MS = 2000;

/**
 * A TCP or UNIX socket as a transport. The TLS transport extends it: the
 * stream bytes flow through (`io`) is then the TLS socket over `raw`.
 * @internal
 * @example
 * ```ts
 * import type { TransportHost } from './transport.js';
 * declare const host: TransportHost; // the bufferevent's
 * const t = new SocketTransport(host);
 * t.adopt(socket); // an accepted socket is connected: host.data() once reading
 * t.setReading(true);
 * ```
 */
export class SocketTransport implements Transport {
  readonly inMemory = false;
  protected readonly host: TransportHost;
  /** The socket this transport owns (the raw TCP/UNIX socket). */
  protected raw: Socket | null = null;
  /** The stream bytes are read from and written to (the raw socket, or the TLS socket over it). */
  protected io: Socket | null = null;
  #reading = false;
  /** The base's receive buffer, lent to a plain socket's reads (null: read as a stream). */
  readonly #landing: ReadLanding | null;
  /** The socket whose reads are lent (it never emits 'data'): the raw socket, or null. */
  #lent: Socket | null = null;
  /** Waiting for the stream's 'drain'. */
  #drainWait = false;
  readonly #onConnect = (): void => this.socketConnected();
  readonly #onData: (chunk: Buffer) => void;
  readonly #onEnd: () => void;
  readonly #onError: (err: Error) => void;
  readonly #onClose: () => void;
  readonly #onDrain = (): void => {
    this.#drainWait = false;
    this.host.drained();
  };

  /**
   * A transport reporting to `host`; with `landing`, the reads of a plain
   * socket are lent to it (socket-reads.ts) when they can be.
   */
  constructor(host: TransportHost, landing: ReadLanding | null = null) {
    this.host = host;
    this.#landing = landing;
    this.#onData = (chunk) => host.data(chunk, false);
    this.#onEnd = () => host.end();
    this.#onError = (err) => host.error(err);
    this.#onClose = () => host.closed();
  }

  get socket(): Socket | null {
    return this.raw;
  }

  get reading(): boolean {
    return this.#reading;
  }

  get unsent(): number {
    const io = this.io;
    return io !== null && !io.destroyed ? io.writableLength : 0;
  }

  get congested(): boolean {
    const io = this.io;
    return io !== null && io.writableNeedDrain;
  }

  adopt(sock: Socket): void {
    this.raw = sock;
    this.attach(sock, sock.connecting);
  }

  connect(target: ConnectTarget, _servername: string | undefined): void {
    const landing = this.#landing;
    let sock: Socket;
    if (landing !== null && landing.enabled) {
      sock = landing.connectingSocket((n, buf) => this.#lentRead(sock, n, buf));
      this.#lent = sock;
    } else {
      sock = new Socket({ allowHalfOpen: true });
    }
    this.raw = sock;
    this.attach(sock, true);
    sock.connect(target);
  }

  setReading(on: boolean): void {
    const io = this.io;
    if (io === null || on === this.#reading) return;
    this.#reading = on;
    if (on) io.resume();
    else io.pause();
  }

  write(out: EventBuffer, done: ((err?: Error | null) => void) | undefined, lazy = false): WriteResult {
    const io = this.io;
    if (io === null || io.destroyed) return 'held';
    if (io.writableNeedDrain) {
      // The socket is congested: the bytes stay in `out` (the unsent backlog, as in
      // libevent, so applications can apply backpressure) and leave in one batch on 'drain'.
      this.waitDrain();
      return 'held';
    }
    if (done === undefined || !lazy || io.writableLength > 0 || this.tlsSocket() !== null) {
      this.#writeOut(io, out, done);
      return 'sent';
    }
    // Nothing in flight: a plain socket usually takes it all at once (Node then
    // finishes the write before returning), and no completion callback is needed.
    this.#writeOut(io, out, undefined);
    if (io.writableLength === 0) return 'flushed';
    io.write(EMPTY_BUFFER, done);
    return 'sent';
  }

  #writeOut(io: Socket, out: EventBuffer, done: ((err?: Error | null) => void) | undefined): void {
    const chunks = out.takeChunks();
    const n = chunks.length;
    if (n === 1) {
      io.write(chunks[0] as Buffer, done);
    } else if (n <= MERGE_MAX_CHUNKS && totalLength(chunks) <= MERGE_MAX_BYTES) {
      // A few small chunks (the replies of a pipelined batch) leave as one buffer: one
      // copy is cheaper than a stream write per chunk and a writev.
      io.write(Buffer.concat(chunks), done);
    } else {
      io.cork();
      for (let i = 0; i < n - 1; i++) io.write(chunks[i] as Buffer);
      io.write(chunks[n - 1] as Buffer, done);
      io.uncork();
    }
  }

  waitDrain(): void {
    const io = this.io;
    if (io === null || this.#drainWait) return;
    this.#drainWait = true;
    io.once('drain', this.#onDrain);
  }

  destroy(): void {
    const io = this.io;
    this.detach();
    // For TLS destroy only the TLS socket (it closes the raw one): destroying both in
    // one tick can crash Node 20's TLS layer.
    if (this.tlsSocket() !== null && io !== null) io.destroy();
    else this.raw?.destroy();
  }

  release(rest: EventBuffer | null, close: boolean): void {
    const io = this.io;
    const raw = this.raw;
    if (rest !== null && io !== null && !io.destroyed) {
      for (const c of rest.takeChunks()) io.write(c);
    }
    this.detach();
    if (!close) return;
    const tls = this.tlsSocket() !== null;
    if (io !== null && !io.destroyed) {
      if (tls) {
        io.end();
        const t = setTimeout(() => io.destroy(), END_TIMEOUT_MS);
        t.unref();
        io.once('close', () => clearTimeout(t));
        io.on('error', noop);
      } else {
        lingeringClose(io);
      }
    }
    if (raw !== null && raw !== io && !raw.destroyed && !tls) raw.destroy();
  }

  handOver(): void {
    // Bytes Node already read into the socket but not yet emitted belong to the new owner.
    this.io?.pause();
    this.detach();
  }

  tlsSocket(): TLSSocket | null {
    return null;
  }

  noteError(_err: Error): void {}

  nextSslError(): string | undefined {
    return undefined;
  }

  /** The socket connected: a plain transport reports it; TLS starts its handshake instead. */
  protected socketConnected(): void {
    this.host.connected();
  }

  /** Attaches `sock` as the stream; with `connecting`, reports its connection. */
  protected attach(sock: Socket, connecting: boolean): void {
    if (connecting) sock.once('connect', this.#onConnect);
    this.attachIo(sock);
  }

  /** Makes `io` the stream: paused, its events reported. */
  protected attachIo(io: Socket): void {
    this.io = io;
    const landing = this.#landing;
    if (
      io !== this.#lent &&
      io === this.raw &&
      landing !== null &&
      landing.lend(io, (n, buf) => this.#lentRead(io, n, buf))
    )
      this.#lent = io;
    if (io.readableFlowing !== false || io === this.#lent) io.pause(); // a lent socket's pause stops its handle reading
    this.#reading = false;
    if (io !== this.#lent) io.on('data', this.#onData);
    io.on('end', this.#onEnd);
    io.on('error', this.#onError);
    io.on('close', this.#onClose);
  }

  /**
   * A lent read of `sock`: reported while it is this transport's stream.
   * Once detached (freed without closing, handed over), its bytes go into
   * the socket's own stream, copied, as Node would have pushed them, so
   * whoever reads the socket next gets them.
   */
  #lentRead(sock: Socket, n: number, buf: Buffer): boolean {
    if (this.io === sock) {
      this.host.data(buf.subarray(0, n), true);
      return true;
    }
    return sock.push(Buffer.from(buf.subarray(0, n)));
  }

  /** Stops reporting the stream's events; a late error is swallowed. */
  protected detach(): void {
    const io = this.io;
    if (io === null) return;
    io.off('data', this.#onData);
    io.off('end', this.#onEnd);
    io.off('error', this.#onError);
    io.off('close', this.#onClose);
    io.off('connect', this.#onConnect);
    io.off('drain', this.#onDrain);
    this.#drainWait = false;
    this.raw?.off('connect', this.#onConnect);
    io.on('error', noop); // a late error must not crash the process
    this.io = null;
  }
}

/**
 * The descriptor number of a socket, or null when it has none (closed, not yet connected).
 * @internal
 * @example
 * ```ts
 * socketFd(socket); // e.g. 21; null before it connects
 * ```
 */
export function socketFd(sock: Socket): number | null {
  const fd = fdOf(sock);
  return fd >= 0 ? fd : null;
}

/**
 * A `net.Socket` for what the `EventBufferEvent` constructor accepts: a
 * socket, or the descriptor of a connected one (the socket already owning
 * it, else a new one over it).
 * @internal
 * @example
 * ```ts
 * const sock = adoptSocket(3); // the net.Socket over descriptor 3
 * ```
 */
export function adoptSocket(socket: Socket | number): Socket {
  if (socket instanceof Socket) return socket;
  if (typeof socket === 'number' && Number.isInteger(socket) && socket >= 0) {
    const owner = (activeHandles() ?? []).find((h): h is Socket => h instanceof Socket && fdOf(h) === socket);
    if (owner) return owner;
    try {
      return new Socket({ fd: socket, readable: true, writable: true, allowHalfOpen: true });
    } catch (err) {
      // EEXIST: a handle of this process has it, one the active-handles fallback could not find.
      const held = (err as NodeJS.ErrnoException).code === 'EEXIST' ? ' (a socket of this process holds it)' : '';
      throw createEventError('ERR_EVENT_INVALID_DESCRIPTOR', `Invalid file descriptor: ${socket}${held}`, {
        cause: err,
      });
    }
  }
  throw createEventError(
    'ERR_EVENT_INVALID_DESCRIPTOR',
    'Invalid file descriptor: expected a net.Socket or a socket descriptor',
  );
}

/**
 * Where `connect(address)` connects: `ip:port`, `[ipv6]:port`, a bare
 * IPv4/IPv6 address (port 0) or `unix:/path`, without name resolution.
 * False, with a warning, for a malformed address and for a UNIX path that
 * does not exist (also recorded as the last socket error, ENOENT).
 * @internal
 * @example
 * ```ts
 * connectTarget('[::1]:8080'); // { host: '::1', port: 8080 }
 * ```
 */
export function connectTarget(address: string): ConnectTarget | false {
  const addr =
    typeof address === 'string' ? parseAddress(address, { requirePort: false, allowHostnames: false }) : null;
  if (addr === null) {
    return warn(
      'ERR_EVENT_ADDRESS',
      'Failed parsing address: the address is not well-formed, or the port is out of range',
    );
  }
  if (addr.kind === 'unix') {
    if (!existsSync(addr.path)) {
      const err = Object.assign(new Error(`connect ENOENT ${addr.path}`), {
        code: 'ENOENT',
        errno: -2,
        syscall: 'connect',
      });
      setLastSocketError(err);
      return warn('ERR_EVENT_IO', `Failed to connect to ${addr.path}: no such file or directory`, err);
    }
    return { path: addr.path };
  }
  return { host: addr.host, port: addr.port };
}

/**
 * What {@link resolveHost} reports: an error (null on success), the first
 * address, and the resolver's text for `getDnsErrorString()`.
 * @internal
 */
export type ResolveDone = (err: { message: string } | null, address: string | null, errText: string) => void;

/**
 * Resolves `host` for `connectHost()`: with `dnsBase`, or the system
 * resolver when null (a name under `.invalid` fails without asking it, as a
 * lookup would, from a microtask). `family` is `EventUtil.AF_*`. Throws what
 * `dnsBase.resolve()` throws.
 * @internal
 * @example
 * ```ts
 * resolveHost(null, 'localhost', EventUtil.AF_INET, (err, address, errText) => {
 *   console.log(address ?? errText); // '127.0.0.1'
 * });
 * ```
 */
export function resolveHost(dnsBase: EventDnsBase | null, host: string, family: number, done: ResolveDone): void {
  if (dnsBase !== null) {
    dnsBase.resolve(host, family, (err, addresses) => {
      const first = addresses[0];
      done(err, first ? first.address : null, err ? dnsBase.errorString(err) : 'no address');
    });
  } else if (isInvalidName(host)) {
    // RFC 6761: never sent to the system resolver; fails as a lookup would, from the loop.
    queueMicrotask(() =>
      done({ message: 'reserved name' }, null, gaiText(Object.assign(new Error(host), { code: 'ENOTFOUND' }))),
    );
  } else {
    const fam = family === AF.INET ? 4 : family === AF.INET6 ? 6 : 0;
    lookup(host, { family: fam }, (err, address) => {
      done(err, err ? null : address, err ? gaiText(err) : '');
    });
  }
}

/** getaddrinfo-style text for a failed `dns.lookup`. */
function gaiText(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOTFOUND':
    case 'EAI_NONAME':
      return 'nodename nor servname provided, or not known';
    case 'EAI_AGAIN':
      return 'Temporary failure in name resolution';
    case 'EAI_FAIL':
      return 'Non-recoverable failure in name resolution';
    case 'ENODATA':
      return 'No address associated with hostname';
    default:
      return err.message;
  }
}

/**
 * Closes a plain socket without a reset: what it still holds is sent, then
 * a FIN (half-close), and what the peer sends meanwhile is read and dropped
 * until the peer closes its side too, at most {@link LINGER_MS} after the
 * FIN left (the whole close at most {@link END_TIMEOUT_MS}). Closing a socket
 * with unread bytes (a request that crossed the close, the rest of a
 * pipelined batch) would make the kernel send a reset, and a reset makes
 * the peer drop the replies it has received but not read yet.
 */
function lingeringClose(io: Socket): void {
  io.on('error', noop);
  // The socket keeps the loop alive while it is open; the timers do not.
  let timer = setTimeout(() => io.destroy(), END_TIMEOUT_MS).unref();
  io.once('close', () => clearTimeout(timer));
  io.once('end', () => io.destroy());
  io.on('data', noop);
  io.end(() => {
    clearTimeout(timer);
    if (io.readableEnded) io.destroy();
    else timer = setTimeout(() => io.destroy(), LINGER_MS).unref();
  });
  io.resume();
}

/** Up to this many chunks of at most MERGE_MAX_BYTES in all are copied into one buffer for a write. */
const MERGE_MAX_CHUNKS = 16;
const MERGE_MAX_BYTES = 16 * 1024;

function totalLength(chunks: Buffer[]): number {
  let n = 0;
  for (let i = 0; i < chunks.length; i++) n += chunks[i]!.length;
  return n;
}

/**
 * EventBufferEvent: a buffered connection. Bytes read from the socket land in
 * `input`; bytes put in `output` are written to the socket. Callbacks for
 * read, write and events (connected, end of file, error, timeout) run from
 * the EventBase's loop.
 *
 * @module
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { EventBase } from './base.js';
import type { EventBuffer } from './buffer.js';
import { BEV, toFunction } from './bufferevent-callbacks.js';
import { BufferEventCore, OPT_CLOSE_ON_FREE } from './bufferevent-core.js';
import type { EventDnsBase } from './dns.js';
import { createEventError } from './errors.js';
import type { EventSslContext } from './ssl.js';
import { PairTransport } from './transport-pair.js';
import { adoptSocket, socketFd, SocketTransport } from './transport-socket.js';
import { cipherText, TlsTransport } from './transport-tls.js';

const { READING, WRITING, EOF, ERROR, TIMEOUT, CONNECTED } = BEV;

/**
 * Read or write callback: `(bev, arg)`.
 * @example
 * ```ts
 * const echo: BufferEventDataCallback = (bev) => bev.output.addBuffer(bev.input);
 * ```
 */
export type BufferEventDataCallback<A = unknown> = (bev: EventBufferEvent<A>, arg: A) => void;
/**
 * Event callback: `(bev, events, arg)`; `events` combines the EventBufferEvent flags.
 * @example
 * ```ts
 * const onEvent: BufferEventEventCallback = (bev, events) => { if (events & EventBufferEvent.EOF) bev.free(); };
 * ```
 */
export type BufferEventEventCallback<A = unknown> = (bev: EventBufferEvent<A>, events: number, arg: A) => void;
/**
 * A callback given as a function or, as in PHP, an `[object, methodName]` pair.
 * @example
 * ```ts
 * const handler = { onRead: (b: EventBufferEvent) => b.output.addBuffer(b.input) };
 * bev.setCallbacks([handler, 'onRead'], null, (b, events) => console.log(events));
 * ```
 */
export type CallbackSpec<F> = F | readonly [object, string] | null | undefined;

/**
 * A buffered connection over a TCP or UNIX socket, optionally TLS.
 *
 * What is added to `output` is handed to the socket at the end of the
 * current turn of the loop, after the callbacks of every connection that
 * was ready in it (libevent writes when the next poll finds the socket
 * writable): all writes of a callback leave together, and a server that
 * answers many connections in one turn wakes each peer once.
 *
 * Callbacks always run from the base's loop, never inside the call that
 * caused them (so `OPT_DEFER_CALLBACKS` is always in effect). Differences
 * from libevent, deliberate: freeing a connection with `OPT_CLOSE_ON_FREE`
 * first sends what is still in `output` (libevent drops it); reads are not
 * capped at 4096 bytes; the read callback does not busy-loop at the read
 * high watermark (libevent 2.1.11+ does).
 *
 * @example
 * ```ts
 * import { EventBase, EventBufferEvent, Event } from 'eventide/event';
 * const base = new EventBase();
 * const bev = new EventBufferEvent(base, null, EventBufferEvent.OPT_CLOSE_ON_FREE,
 *   (b) => process.stdout.write(b.input.read(65536) ?? ''),
 *   null,
 *   (b, events) => { if (events & (EventBufferEvent.EOF | EventBufferEvent.ERROR)) { b.free(); base.exit(); } });
 * bev.enable(Event.READ | Event.WRITE);
 * bev.write('GET / HTTP/1.0\r\n\r\n');
 * bev.connect('127.0.0.1:8080');
 * await base.dispatch();
 * ```
 */
export class EventBufferEvent<A = unknown> {
  /** Event flag: the event happened while reading. */
  static readonly READING = READING;
  /** Event flag: the event happened while writing. */
  static readonly WRITING = WRITING;
  /** Event flag: the peer closed the connection. */
  static readonly EOF = EOF;
  /** Event flag: an error; see `EventUtil.getLastSocketError()`, `getDnsErrorString()`, `sslError()`. */
  static readonly ERROR = ERROR;
  /** Event flag: a read or write timeout expired. */
  static readonly TIMEOUT = TIMEOUT;
  /** Event flag: the connection (and TLS handshake) completed. */
  static readonly CONNECTED = CONNECTED;
  /** Option: close the socket when the connection is freed. */
  static readonly OPT_CLOSE_ON_FREE = OPT_CLOSE_ON_FREE;
  /** Option: thread safety (accepted; JavaScript is single-threaded). */
  static readonly OPT_THREADSAFE = 2;
  /** Option: run callbacks from the loop (always the case here). */
  static readonly OPT_DEFER_CALLBACKS = 4;
  /** Option: do not hold a lock while running callbacks (accepted; no locks exist). */
  static readonly OPT_UNLOCK_CALLBACKS = 8;
  /** TLS state: the TLS session is already established. */
  static readonly SSL_OPEN = 0;
  /** TLS state: act as the client of the handshake. */
  static readonly SSL_CONNECTING = 1;
  /** TLS state: act as the server of the handshake. */
  static readonly SSL_ACCEPTING = 2;

  readonly #core: BufferEventCore<EventBufferEvent<A>, A>;
  /** When true, a TLS peer that closes without close_notify is an EOF, not an ERROR. */
  allowSslDirtyShutdown = false;

  /**
   * Creates a connection. `socket` is a connected `net.Socket` (for example
   * from an EventListener), a numeric descriptor of a connected socket, or
   * null: `connect()` then creates the socket, and `OPT_CLOSE_ON_FREE` is
   * forced on. Only WRITE is enabled at first: call `enable(Event.READ)` to
   * receive data.
   * @example
   * ```ts
   * const bev = new EventBufferEvent(base, socket, EventBufferEvent.OPT_CLOSE_ON_FREE, onRead, null, onEvent);
   * bev.enable(Event.READ | Event.WRITE);
   * ```
   */
  constructor(
    base: EventBase,
    socket: Socket | number | null = null,
    options = 0,
    readcb: CallbackSpec<BufferEventDataCallback<A>> = null,
    writecb: CallbackSpec<BufferEventDataCallback<A>> = null,
    eventcb: CallbackSpec<BufferEventEventCallback<A>> = null,
    arg?: A,
  ) {
    if (!(base instanceof EventBase))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventBufferEvent expects an EventBase');
    if (!Number.isInteger(options) || options < 0 || options > 15)
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `Invalid options: ${String(options)}`);
    const core = new BufferEventCore<EventBufferEvent<A>, A>(
      this,
      base,
      socket === null ? options | OPT_CLOSE_ON_FREE : options,
      toFunction(readcb, 'read callback'),
      toFunction(writecb, 'write callback'),
      toFunction(eventcb, 'event callback'),
      arg as A,
    );
    this.#core = core;
    core.setTransport(new SocketTransport(core, base.readLanding));
    if (socket !== null) core.adopt(adoptSocket(socket));
  }

  // ---------------------------------------------------------------- TLS constructors

  /**
   * Creates a TLS connection over a socket (or, with `socket` null, over the
   * socket a later `connect()` makes). `state` is `SSL_ACCEPTING` for the
   * server side, `SSL_CONNECTING` for the client side, `SSL_OPEN` for a
   * `tls.TLSSocket` whose handshake is done. CONNECTED is delivered when
   * the handshake completes; a client verifies the peer as the context says.
   * @example
   * ```ts
   * const bev = EventBufferEvent.sslSocket(base, socket, ctx, EventBufferEvent.SSL_ACCEPTING, EventBufferEvent.OPT_CLOSE_ON_FREE);
   * ```
   */
  static sslSocket<T = unknown>(
    base: EventBase,
    socket: Socket | number | null,
    ctx: EventSslContext,
    state: number,
    options = 0,
  ): EventBufferEvent<T> {
    if (
      state !== EventBufferEvent.SSL_OPEN &&
      state !== EventBufferEvent.SSL_CONNECTING &&
      state !== EventBufferEvent.SSL_ACCEPTING
    ) {
      throw createEventError('ERR_EVENT_SSL_STATE', `Invalid state specified: ${String(state)}`);
    }
    if (state === EventBufferEvent.SSL_OPEN) {
      return new EventBufferEvent<T>(base, socket, options);
    }
    const bev = new EventBufferEvent<T>(base, null, options);
    const core = bev.#core;
    core.options = socket === null ? options | OPT_CLOSE_ON_FREE : options;
    core.setTransport(new TlsTransport(core, ctx, state === EventBufferEvent.SSL_ACCEPTING));
    if (socket !== null) core.adopt(adoptSocket(socket));
    return bev;
  }

  /**
   * Wraps an existing plain connection in TLS (STARTTLS). Bytes the peer
   * already sent that are still unread in `underlying`'s input are fed to
   * the TLS layer first, so nothing is lost or read twice. The new object
   * owns the socket from now on: `underlying` is left inert (its methods do
   * nothing, its `free()` does not close the socket), whatever the
   * application does with it. The filter starts with no callbacks and READ
   * and WRITE enabled as they were on `underlying`.
   * @example
   * ```ts
   * bev.write('220 Ready to start TLS\r\n');
   * const tlsBev = EventBufferEvent.sslFilter(base, bev, ctx, EventBufferEvent.SSL_ACCEPTING, EventBufferEvent.OPT_CLOSE_ON_FREE);
   * tlsBev.setCallbacks(onRead, null, onEvent);
   * ```
   */
  static sslFilter<T = unknown, U = unknown>(
    base: EventBase,
    underlying: EventBufferEvent<U>,
    ctx: EventSslContext,
    state: number,
    options = 0,
  ): EventBufferEvent<T> {
    if (
      state !== EventBufferEvent.SSL_CONNECTING &&
      state !== EventBufferEvent.SSL_ACCEPTING &&
      state !== EventBufferEvent.SSL_OPEN
    ) {
      throw createEventError('ERR_EVENT_SSL_STATE', `Invalid state specified: ${String(state)}`);
    }
    if (!(underlying instanceof EventBufferEvent) || underlying.#core.freed || underlying.#core.upgraded) {
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'sslFilter expects a live EventBufferEvent');
    }
    const from = underlying.#core;
    const sock = from.transport?.socket ?? null;
    if (sock === null || sock.destroyed)
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'sslFilter: the underlying connection has no open socket');
    const leftover = from.handOver();
    const bev = new EventBufferEvent<T>(base, null, options);
    const core = bev.#core;
    core.options = options;
    const t = new TlsTransport(core, ctx, state !== EventBufferEvent.SSL_CONNECTING);
    core.setTransport(t);
    core.inheritEnabled(from.enabled);
    t.upgrade(sock, leftover);
    return bev;
  }

  /**
   * PHP 8's name for {@link EventBufferEvent.sslFilter}: `createSslFilter(underlying, ctx, state, options)`.
   * @example
   * ```ts
   * const tlsBev = EventBufferEvent.createSslFilter(bev, ctx, EventBufferEvent.SSL_ACCEPTING);
   * ```
   */
  static createSslFilter<T = unknown, U = unknown>(
    underlying: EventBufferEvent<U>,
    ctx: EventSslContext,
    state: number,
    options = 0,
  ): EventBufferEvent<T> {
    return EventBufferEvent.sslFilter<T, U>(underlying.#core.base, underlying, ctx, state, options);
  }

  /**
   * Two connected in-memory connections: what one writes, the other reads.
   * Freeing one side does not deliver EOF to the other (as in libevent).
   * @example
   * ```ts
   * const [a, b] = EventBufferEvent.createPair(base);
   * b.setCallbacks((bev) => console.log(bev.input.read(100)?.toString()), null, null);
   * b.enable(Event.READ);
   * a.write('ping');
   * ```
   */
  static createPair<T = unknown>(base: EventBase, options = 0): [EventBufferEvent<T>, EventBufferEvent<T>] {
    const a = new EventBufferEvent<T>(base, null, options & ~EventBufferEvent.OPT_CLOSE_ON_FREE);
    const b = new EventBufferEvent<T>(base, null, options & ~EventBufferEvent.OPT_CLOSE_ON_FREE);
    const [ta, tb] = PairTransport.pair(a.#core, b.#core);
    a.#core.setTransport(ta);
    b.#core.setTransport(tb);
    a.#core.openPair();
    b.#core.openPair();
    return [a, b];
  }

  // ---------------------------------------------------------------- accessors

  /**
   * The input buffer (bytes received). The same object every time.
   * @example
   * ```ts
   * const line = bev.input.readLine(EventBuffer.EOL_CRLF);
   * ```
   */
  get input(): EventBuffer {
    return this.#core.input;
  }

  /**
   * The output buffer (bytes to send). Adding to it sends.
   * @example
   * ```ts
   * bev.output.addBuffer(bev.input); // echo
   * ```
   */
  get output(): EventBuffer {
    return this.#core.output;
  }

  /**
   * Same as {@link EventBufferEvent.input}.
   * @example
   * ```ts
   * console.log(bev.getInput().length); // bytes received and not read yet
   * ```
   */
  getInput(): EventBuffer {
    return this.#core.input;
  }

  /**
   * Same as {@link EventBufferEvent.output}.
   * @example
   * ```ts
   * bev.getOutput().add('QUIT\r\n');
   * ```
   */
  getOutput(): EventBuffer {
    return this.#core.output;
  }

  /**
   * The numeric descriptor of the socket, or null when there is none (a pair,
   * before `connect()`, after `close()`).
   * @example
   * ```ts
   * console.log(bev.fd);
   * ```
   */
  get fd(): number | null {
    const c = this.#core;
    const sock = c.transport?.socket ?? null;
    return sock === null || c.wasClosed || c.freed ? null : socketFd(sock);
  }

  /**
   * The socket (`net.Socket`; for TLS the underlying TCP socket), or null.
   * @example
   * ```ts
   * bev.getSocket()?.setNoDelay(true);
   * ```
   */
  getSocket(): Socket | null {
    return this.#core.transport?.socket ?? null;
  }

  /**
   * The EventBase of this connection.
   * @example
   * ```ts
   * bev.getBase().exit(); // from a callback: stop the loop after this iteration
   * ```
   */
  getBase(): EventBase {
    return this.#core.base;
  }

  /**
   * The enabled directions, `Event.READ | Event.WRITE` bits.
   * @example
   * ```ts
   * if (bev.getEnabled() & Event.READ) console.log('reading');
   * ```
   */
  getEnabled(): number {
    return this.#core.enabled;
  }

  /**
   * The resolver's error text after a failed `connectHost()`, or "".
   * @example
   * ```ts
   * bev.setCallbacks(null, null, (b, events) => {
   *   if (events & EventBufferEvent.ERROR) console.error(`DNS error: ${b.getDnsErrorString()}`);
   * });
   * ```
   */
  getDnsErrorString(): string {
    return this.#core.dnsError;
  }

  // ---------------------------------------------------------------- configuration

  /**
   * Replaces the three callbacks (null clears one) and, when given, the argument.
   * Each callback may be a function or an `[object, methodName]` pair.
   * @example
   * ```ts
   * const handler = {
   *   onRead: (b: EventBufferEvent) => b.output.addBuffer(b.input),
   *   onEvent: (b: EventBufferEvent, events: number) => (events & EventBufferEvent.EOF ? b.free() : undefined),
   * };
   * bev.setCallbacks([handler, 'onRead'], null, [handler, 'onEvent'], { opened: Date.now() });
   * ```
   */
  setCallbacks(
    readcb: CallbackSpec<BufferEventDataCallback<A>>,
    writecb: CallbackSpec<BufferEventDataCallback<A>>,
    eventcb: CallbackSpec<BufferEventEventCallback<A>>,
    arg?: A,
  ): void {
    this.#core.callbacks.replace(readcb, writecb, eventcb, arg as A, arguments.length >= 4);
    this.#core.callbacksReplaced();
  }

  /**
   * Enables reading and/or writing (`Event.READ | Event.WRITE`). Enabling
   * WRITE on an idle open connection runs the write callback once, as in
   * libevent. Returns false for a freed connection or an invalid mask.
   * @example
   * ```ts
   * bev.enable(Event.READ | Event.WRITE);
   * ```
   */
  enable(events: number): boolean {
    return this.#core.enable(events);
  }

  /**
   * Disables reading and/or writing. A disabled READ stops reading from the
   * socket (backpressure: the peer's sends block once the kernel buffers fill).
   * @example
   * ```ts
   * bev.disable(Event.READ);
   * ```
   */
  disable(events: number): boolean {
    return this.#core.disable(events);
  }

  /**
   * Sets watermarks. READ: the read callback runs only when the input holds
   * at least `low` bytes, and reading stops while it holds `high` or more
   * (0: no limit). WRITE: the write callback runs when the output drains to
   * `low` bytes or less.
   * @example
   * ```ts
   * bev.setWatermark(Event.READ, 4, 65536);
   * ```
   */
  setWatermark(events: number, low: number, high: number): void {
    this.#core.setWatermark(events, low, high);
  }

  /**
   * Sets idle timeouts in seconds (0 or negative: none). A read timeout
   * delivers `READING | TIMEOUT` and disables READ; a write timeout delivers
   * `WRITING | TIMEOUT` and disables WRITE.
   * @example
   * ```ts
   * bev.setTimeouts(30, 30);
   * ```
   */
  setTimeouts(readTimeout: number, writeTimeout: number): boolean {
    return this.#core.setTimeouts(readTimeout, writeTimeout);
  }

  /**
   * Sets the priority of this connection's callbacks.
   * @example
   * ```ts
   * base.priorityInit(2); bev.setPriority(0);
   * ```
   */
  setPriority(priority: number): boolean {
    return this.#core.setPriority(priority);
  }

  // ---------------------------------------------------------------- data

  /**
   * Appends data to the output (strings as UTF-8).
   * @example
   * ```ts
   * bev.write('250 OK\r\n');
   * ```
   */
  write(data: string | Uint8Array): boolean {
    const c = this.#core;
    if (!c.usable('write')) return false;
    return c.output.add(data);
  }

  /**
   * Moves all of `buf` to the output.
   * @example
   * ```ts
   * const reply = new EventBuffer();
   * reply.add('HTTP/1.0 204 No Content\r\n\r\n');
   * bev.writeBuffer(reply); // reply is empty afterwards
   * ```
   */
  writeBuffer(buf: EventBuffer): boolean {
    const c = this.#core;
    if (!c.usable('writeBuffer')) return false;
    return c.output.addBuffer(buf);
  }

  /**
   * Removes and returns up to `size` bytes of input, or null when there is none.
   * @example
   * ```ts
   * const chunk = bev.read(1024);
   * ```
   */
  read(size: number): Buffer | null {
    const c = this.#core;
    if (!c.usable('read')) return null;
    if (!(size > 0)) return null;
    return c.input.read(size);
  }

  /**
   * Moves the whole input to `buf`.
   * @example
   * ```ts
   * const all = new EventBuffer(); bev.readBuffer(all);
   * ```
   */
  readBuffer(buf: EventBuffer): boolean {
    const c = this.#core;
    if (!c.usable('readBuffer')) return false;
    return buf.addBuffer(c.input);
  }

  // ---------------------------------------------------------------- connecting

  /**
   * Connects to `ip:port`, `[ipv6]:port`, a bare IPv4/IPv6 address (port 0)
   * or `unix:/path`, without name resolution. Returns false for a malformed
   * address and for a UNIX path that does not exist; otherwise the outcome
   * arrives as CONNECTED or ERROR (with `EventUtil.getLastSocketErrno()`).
   * @example
   * ```ts
   * bev.connect('127.0.0.1:8080');
   * ```
   */
  connect(address: string): boolean {
    return this.#core.connect(address);
  }

  /**
   * Resolves `hostname` (with `dnsBase`, or the system resolver when null)
   * and connects to the first address of the requested family
   * (`EventUtil.AF_UNSPEC`, `AF_INET` or `AF_INET6`). A resolver failure
   * delivers ERROR, with the text in `getDnsErrorString()`.
   * @example
   * ```ts
   * bev.connectHost(dns, 'example.com', 80, EventUtil.AF_UNSPEC);
   * ```
   */
  connectHost(dnsBase: EventDnsBase | null, hostname: string, port: number, family = 0): boolean {
    return this.#core.connectHost(dnsBase, hostname, port, family);
  }

  // ---------------------------------------------------------------- TLS information

  /**
   * Pops the next TLS error text, or false when there is none.
   * @example
   * ```ts
   * let e; while ((e = bev.sslError()) !== false) console.error(`Bufferevent error ${e}.`);
   * ```
   */
  sslError(): string | false {
    const e = this.#core.transport?.nextSslError();
    return e === undefined ? false : e;
  }

  /**
   * The negotiated cipher's name (for example `TLS_AES_256_GCM_SHA384`), or false without TLS.
   * @example
   * ```ts
   * console.log(bev.sslGetCipherName()); // 'TLS_AES_256_GCM_SHA384'
   * ```
   */
  sslGetCipherName(): string | false {
    return cipherText(this.#tlsSocket(), 'name');
  }

  /**
   * The TLS version of the negotiated cipher (for example `TLSv1.3`), or false without TLS.
   * @example
   * ```ts
   * console.log(bev.sslGetCipherVersion()); // 'TLSv1.3'
   * ```
   */
  sslGetCipherVersion(): string | false {
    return cipherText(this.#tlsSocket(), 'version');
  }

  /**
   * The negotiated protocol (for example `TLSv1.3`), or false without TLS.
   * @example
   * ```ts
   * console.log(bev.sslGetProtocol()); // 'TLSv1.3'
   * ```
   */
  sslGetProtocol(): string | false {
    return this.#tlsSocket()?.getProtocol() ?? false;
  }

  /**
   * A one-line description of the negotiated cipher, or false without TLS.
   * @example
   * ```ts
   * console.log(bev.sslGetCipherInfo()); // 'TLS_AES_256_GCM_SHA384 TLSv1.3 TLSv1.3'
   * ```
   */
  sslGetCipherInfo(): string | false {
    return cipherText(this.#tlsSocket(), 'info');
  }

  /**
   * Renegotiation is not supported by TLS 1.3 and disabled by Node for 1.2
   * servers; kept for compatibility, it does nothing.
   * @example
   * ```ts
   * bev.sslRenegotiate(); // nothing happens
   * ```
   */
  sslRenegotiate(): void {}

  // ---------------------------------------------------------------- closing

  /**
   * Closes the socket without freeing the connection. True when a socket
   * was closed, false when there was none (a second call).
   * @example
   * ```ts
   * bev.close();
   * ```
   */
  close(): boolean {
    return this.#core.close();
  }

  /**
   * Releases the connection: no more callbacks. With `OPT_CLOSE_ON_FREE` the
   * socket is closed after what is still in `output` has been sent (TLS
   * connections send close_notify). A second call does nothing.
   * @example
   * ```ts
   * bev.free();
   * ```
   */
  free(): void {
    this.#core.free();
  }

  /**
   * From now on, output that is the first of its loop turn is written when
   * the callback that queued it returns, not at the end of the turn (the
   * server's connections: a lone reply does not wait for the turn to end).
   * @internal
   */
  writeFirstEarly(): void {
    this.#core.writeFirstEarly();
  }

  /**
   * From now on, while `cb` is the read callback and the input is empty, a
   * read's bytes are not put into the input: `cb` takes them with
   * {@link EventBufferEvent.takeHeld} (a server's connections parse them
   * where they are); what it leaves goes into the input when it returns.
   * @internal
   */
  holdReadsFor(cb: BufferEventDataCallback<A>): void {
    this.#core.holdReadsFor(cb);
  }

  /** The bytes of the read whose callback runs that are not in `input` (once), or null. @internal */
  takeHeld(): Buffer | null {
    return this.#core.takeHeld();
  }

  /** Whether the bytes of {@link EventBufferEvent.takeHeld} are valid only until the callback returns. @internal */
  get heldLent(): boolean {
    return this.#core.heldLent;
  }

  /** How many bytes {@link EventBufferEvent.takeHeld} would return. @internal */
  get heldLength(): number {
    return this.#core.heldLength;
  }

  /**
   * Bytes not yet sent: what `output` holds plus what the socket still
   * buffers (the backlog a server bounds per connection). @internal
   */
  get unsentLength(): number {
    return this.#core.unsentLength;
  }

  #tlsSocket(): TLSSocket | null {
    return this.#core.transport?.tlsSocket() ?? null;
  }
}

/**
 * How the requests of an HTTP client travel: the queue of one
 * `EventHttpConnection`, connecting (directly, from a local address, after
 * name resolution) and retrying, sending each request over a kept-alive
 * connection, timeouts, and the outcome handed to each request's callback.
 * The public API, with its argument checks, is `client.ts`; one connection
 * is `client-conn.ts`.
 *
 * @module
 */
import { Socket, isIP } from 'node:net';
import type { EventBase } from '../event/base.js';
import { EventBufferEvent } from '../event/bufferevent.js';
import { Event } from '../event/event.js';
import { EventDnsBase } from '../event/dns.js';
import type { EventSslContext } from '../event/ssl.js';
import { formatAddress } from '../event/address.js';
import { warn, type EventErrorCode } from '../event/errors.js';
import { Ring } from '../event/ring.js';
import { now } from '../event/shared.js';
import { createHttpError } from './errors.js';
import type { ResponseHead } from './head.js';
import type { Exchange, ExchangeRequest, HttpConnection } from './contracts.js';
import { ClientConn, Resp, asksClose, type ClientRequest } from './client-conn.js';

/**
 * Default request timeout in seconds (libevent's 50 s read/write timeout).
 * @internal
 * @example
 * ```ts
 * conn.setTimeout(0); // back to DEFAULT_TIMEOUT (50 seconds)
 * ```
 */
export const DEFAULT_TIMEOUT = 50;
/**
 * Default deadline of a whole request in seconds, from when it is sent to the
 * end of its response (see `EventHttpConnection.setRequestTimeout()`).
 * @internal
 * @example
 * ```ts
 * conn.setRequestTimeout(0); // back to DEFAULT_REQUEST_TIMEOUT (60 seconds)
 * ```
 */
export const DEFAULT_REQUEST_TIMEOUT = 60;
/**
 * Default largest response body in bytes (8 MiB): the client holds a whole
 * body in memory before its callback runs.
 * @internal
 * @example
 * ```ts
 * conn.setMaxBodySize(4 * DEFAULT_MAX_BODY); // a 32 MiB download
 * ```
 */
export const DEFAULT_MAX_BODY = 8 * 1024 * 1024;
/** Default largest response head (status line + header fields) in bytes. */
const DEFAULT_MAX_HEADERS = 65536;
/** Most header fields accepted in one response. */
const MAX_HEADER_COUNT = 1000;
/** libevent's initial delay before re-trying a failed connect, doubled for each further try. */
const DEFAULT_RETRY_DELAY = 2;
/** The longest delay between two connect tries. */
const MAX_RETRY_DELAY = 60;

/** Methods that may be sent again when a reused connection turns out to be closed. */
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);

/** A request waiting in, or travelling through, a connection. */
interface Pending {
  /** The engine it was made on. */
  readonly owner: object;
  readonly req: ClientRequest;
  readonly method: string;
  readonly uri: string;
  cancelled: boolean;
  /** The body, taken from the request's output buffer when first sent (kept for a resend). */
  body: Buffer[] | null;
  /** The one resend on a fresh connection after a stale keep-alive connection was used. */
  resent: boolean;
  /** When it was first written (the monotonic clock, ms; -1: not yet): its deadline counts from there. */
  sentAt: number;
}

/** Requests made and not yet finished, on any connection. */
const ACTIVE = new WeakMap<ExchangeRequest, Pending>();

const NO_HEAD = { headers: [] as [string, string][] };

/**
 * The machinery behind one `EventHttpConnection` (its `owner`, which checks
 * the arguments and hands the settings over): the request queue, the one
 * connection in use, timers, retries and outcomes. See `EventHttpConnection`
 * for the behaviour.
 * @internal
 * @example
 * ```ts
 * const engine = new ClientEngine(conn, base, null, '127.0.0.1', 8010, null);
 * engine.enqueue(req, EventHttpRequest.CMD_GET, 'GET', '/about');
 * ```
 */
export class ClientEngine<O extends HttpConnection> {
  readonly owner: O;
  readonly base: EventBase;
  readonly dns: EventDnsBase | null;
  readonly address: string;
  readonly port: number;
  readonly ctx: EventSslContext | null;
  timeout = DEFAULT_TIMEOUT;
  /** The deadline of a whole request in seconds (Infinity: none). */
  requestTimeout = DEFAULT_REQUEST_TIMEOUT;
  retries = 0;
  retryDelay = DEFAULT_RETRY_DELAY;
  maxBody = DEFAULT_MAX_BODY;
  maxHeaders = DEFAULT_MAX_HEADERS;
  localAddress: string | null = null;
  localPort = 0;
  closeCb: { cb: (conn: O, arg: unknown) => void; arg: unknown } | null = null;
  /** What a request made here does through `EventHttpRequest` (no server replies). */
  readonly exchange: Exchange;

  #queue = new Ring<Pending>();
  #current: Pending | null = null;
  #conn: ClientConn | null = null;
  /** Connect tries that failed in a row (reset by a successful connect). */
  #failedTries = 0;
  /**
   * The one timer of the request in flight, for both of its limits: the idle
   * timeout (`timeout` seconds after `#idleFrom`) and the request's deadline.
   * A read only moves `#idleFrom`; when the timer fires, it checks both and
   * is set again for the nearer one if neither has passed.
   */
  #timer: Event<null>;
  /** The last sign of life of the request in flight (connect, write, bytes read), monotonic ms. */
  #idleFrom = 0;
  #retryTimer: Event<null>;
  #retryWaiting = false;
  #laterTimer: Event<null>;
  #later: (() => void)[] = [];
  #freed = false;

  /** `address` without brackets; the arguments are checked by the owner. */
  constructor(
    owner: O,
    base: EventBase,
    dns: EventDnsBase | null,
    address: string,
    port: number,
    ctx: EventSslContext | null,
  ) {
    this.owner = owner;
    this.base = base;
    this.dns = dns;
    this.address = address;
    this.port = port;
    this.ctx = ctx;
    this.#timer = Event.timer(base, () => this.#onTimeout(), null);
    this.#retryTimer = Event.timer(base, () => this.#onRetry(), null);
    this.#laterTimer = Event.timer(base, () => this.#runLater(), null);
    this.exchange = {
      reply: () => void warn('ERR_EVENT_INVALID_ARGUMENT', 'sendReply: not a server request'),
      error: () => void warn('ERR_EVENT_INVALID_ARGUMENT', 'sendError: not a server request'),
      startChunked: () => void warn('ERR_EVENT_INVALID_ARGUMENT', 'sendReplyStart: not a server request'),
      chunk: () => undefined,
      endChunked: () => undefined,
      closeConnection: (req) => this.#closeRequestConnection(req),
      cancel: (req) => this.#cancel(req),
      bufferEvent: () => this.#conn?.bev ?? null,
      connection: () => this.owner,
    };
  }

  /** Whether a request was made (on any connection) and is not finished. */
  static isActive(req: ExchangeRequest): boolean {
    return ACTIVE.has(req);
  }

  /** free() was called. */
  get freed(): boolean {
    return this.#freed;
  }

  /** Sets the timeout (seconds, checked); a request waiting for its response gets the new one from now. */
  setTimeout(seconds: number): void {
    this.timeout = seconds;
    if (this.#current !== null && this.#timer.pending) this.#armTimer();
  }

  /** Sets the deadline of a whole request (seconds, checked; Infinity: none), for the request in flight too. */
  setRequestTimeout(seconds: number): void {
    this.requestTimeout = seconds;
    if (this.#current !== null && this.#timer.pending) this.#schedule(now());
  }

  /** Sets the largest response body (checked), for the connection in use too. */
  setMaxBodySize(bytes: number): void {
    this.maxBody = bytes;
    this.#conn?.parser.setLimits({ maxBodyBytes: this.maxBody });
  }

  /** Sets the largest response head (checked), for the connection in use too. */
  setMaxHeadersSize(bytes: number): void {
    this.maxHeaders = bytes;
    this.#conn?.parser.setLimits({ maxHeaderBytes: this.maxHeaders });
  }

  /** Queues a checked request (`method` is the name of `command`). */
  enqueue(r: ClientRequest, command: number, method: string, uri: string): void {
    r.command = command;
    r.method = method;
    r.uri = uri;
    r.responseCode = 0;
    r.responseReason = '';
    r.setHead(NO_HEAD);
    if (r.hasInputBuffer) {
      const inBuf = r.getInputBuffer();
      inBuf.drain(inBuf.length);
    }
    r.exchange = this.exchange;
    const p: Pending = { owner: this, req: r, method, uri, cancelled: false, body: null, resent: false, sentAt: -1 };
    ACTIVE.set(r, p);
    this.#queue.push(p);
    this.#pump();
  }

  /** Closes the connection and drops every request: their callbacks will not run. */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    const all: Pending[] = [];
    if (this.#current !== null) all.push(this.#current);
    let p: Pending | undefined;
    while ((p = this.#queue.shift()) !== undefined) all.push(p);
    this.#current = null;
    for (const q of all) this.#release(q);
    this.#timer.free();
    this.#retryTimer.free();
    this.#retryWaiting = false;
    const conn = this.#conn;
    if (conn !== null) this.#teardown(conn, false);
    if (this.#later.length === 0) this.#laterTimer.free();
  }

  // ---------------------------------------------------------------- scheduling

  /** Starts the next request when nothing is in flight. */
  #pump(): void {
    if (this.#freed || this.#current !== null || this.#retryWaiting) return;
    let p: Pending | undefined;
    while ((p = this.#queue.shift()) !== undefined && p.cancelled);
    if (p === undefined) return;
    this.#current = p;
    const conn = this.#conn;
    if (conn !== null && conn.connected && !conn.closed) {
      this.#send(conn, p);
      this.#armTimer();
    } else if (conn === null) {
      this.#connect();
    } else {
      this.#armTimer(); // connecting: sent on CONNECTED
    }
  }

  /** (Re)starts the idle timeout of the request in flight from now. */
  #armTimer(): void {
    const t = now();
    this.#idleFrom = t;
    this.#schedule(t);
  }

  /** Sets the timer for the nearer of the idle timeout and the request's deadline (`t`: now). */
  #schedule(t: number): void {
    let at = this.#idleFrom + this.timeout * 1000;
    const deadline = this.#deadline();
    if (deadline < at) at = deadline;
    this.#timer.add(at > t ? (at - t) / 1000 : 0);
  }

  /** When the request in flight must be complete (monotonic ms; Infinity: not sent yet, or no deadline). */
  #deadline(): number {
    const p = this.#current;
    return p === null || p.sentAt < 0 ? Infinity : p.sentAt + this.requestTimeout * 1000;
  }

  /** Runs `fn` from the loop (next iteration). */
  #defer(fn: () => void): void {
    this.#later.push(fn);
    this.#laterTimer.add(0);
  }

  #runLater(): void {
    let fn: (() => void) | undefined;
    try {
      while ((fn = this.#later.shift()) !== undefined) fn();
    } finally {
      if (this.#later.length > 0)
        this.#laterTimer.add(0); // a callback threw: the rest next time
      else if (this.#freed) this.#laterTimer.free();
    }
  }

  /** Forgets a request (its callback will not run unless the caller runs it). */
  #release(p: Pending): void {
    if (ACTIVE.get(p.req) === p) ACTIVE.delete(p.req);
    if (p.req.exchange === this.exchange) p.req.exchange = null;
  }

  /** Runs a request's callback; the request stays attached (getConnection()) while it runs. */
  #callback(p: Pending, withRequest: boolean): void {
    if (ACTIVE.get(p.req) === p) ACTIVE.delete(p.req);
    try {
      p.req.runCallback(withRequest);
    } finally {
      if (!ACTIVE.has(p.req) && p.req.exchange === this.exchange) p.req.exchange = null;
    }
  }

  // ---------------------------------------------------------------- connecting

  #connect(): void {
    const conn = new ClientConn({
      maxHeaderBytes: this.maxHeaders,
      maxBodyBytes: this.maxBody,
      maxHeaderCount: MAX_HEADER_COUNT,
    });
    this.#conn = conn;
    this.#armTimer();
    if (this.localAddress !== null || this.localPort !== 0) {
      this.#connectBound(conn);
      return;
    }
    const bev = this.#newBev(conn, null);
    const host = this.address;
    const ok =
      isIP(host) !== 0 ? bev.connect(formatAddress(host, this.port)) : bev.connectHost(this.dns, host, this.port, 0);
    if (!ok) this.#defer(() => this.#connectFailed(conn));
  }

  /** A buffered connection for `conn` over `socket` (null: the bufferevent makes it on connect()). */
  #newBev(conn: ClientConn, socket: Socket | null): EventBufferEvent {
    return conn.attach(
      this.base,
      this.ctx,
      socket,
      () => this.#onRead(conn),
      () => this.#onWritten(conn),
      (_b, events) => this.#onEvent(conn, events),
    );
  }

  /**
   * Connects from a local address and/or port. EventBufferEvent cannot bind
   * before connecting, so the socket is made here, after resolving the name.
   */
  #connectBound(conn: ClientConn): void {
    const host = this.address;
    const start = (ip: string): void => {
      conn.dns = null;
      if (conn.closed || this.#conn !== conn) return;
      const sock = new Socket({ allowHalfOpen: true });
      try {
        const opts: { host: string; port: number; localAddress?: string; localPort?: number } = {
          host: ip,
          port: this.port,
        };
        if (this.localAddress !== null) opts.localAddress = this.localAddress;
        if (this.localPort !== 0) opts.localPort = this.localPort;
        sock.connect(opts);
      } catch (err) {
        sock.destroy();
        warn(
          'ERR_EVENT_ADDRESS',
          `Cannot connect from ${this.localAddress ?? '*'}:${this.localPort}: ${(err as Error).message}`,
          err,
        );
        this.#defer(() => this.#connectFailed(conn)); // never inside makeRequest()
        return;
      }
      this.#newBev(conn, sock);
    };
    if (isIP(host) !== 0) {
      start(host);
      return;
    }
    const family = this.localAddress === null ? 0 : isIP(this.localAddress) === 6 ? 10 : 2;
    const done = (err: unknown, addrs: { address: string }[]): void => {
      const first = addrs[0];
      if (err !== null || first === undefined) {
        conn.dns = null;
        if (!conn.closed && this.#conn === conn) this.#connectFailed(conn);
        return;
      }
      start(first.address);
    };
    try {
      conn.dns =
        this.dns !== null
          ? this.dns.resolve(host, family, done)
          : EventDnsBase.resolveSystem(this.base, host, family, done);
    } catch (err) {
      warn('ERR_EVENT_DNS', `Cannot resolve ${host}: ${(err as Error).message}`, err);
      this.#defer(() => this.#connectFailed(conn));
    }
  }

  /** Establishing the connection failed: try again later, or fail every waiting request with code 0. */
  #connectFailed(conn: ClientConn): void {
    if (this.#conn !== conn || conn.closed) return;
    this.#teardown(conn, false);
    if (this.#freed) return;
    this.#timer.del();
    if (this.retries < 0 || this.#failedTries < this.retries) {
      const delay = Math.min(MAX_RETRY_DELAY, this.retryDelay * 2 ** this.#failedTries);
      this.#failedTries++;
      this.#retryWaiting = true;
      this.#retryTimer.add(delay);
      return;
    }
    this.#failedTries = 0;
    const all: Pending[] = [];
    if (this.#current !== null) all.push(this.#current);
    this.#current = null;
    let p: Pending | undefined;
    while ((p = this.#queue.shift()) !== undefined) if (!p.cancelled) all.push(p);
    for (const q of all) this.#release(q);
    this.#callbackAll(all);
  }

  /** Calls back each request with its code 0, in order; stops after free(); survives a callback that throws. */
  #callbackAll(list: Pending[]): void {
    for (let i = 0; i < list.length; i++) {
      if (this.#freed) return;
      try {
        this.#callback(list[i] as Pending, true);
      } catch (err) {
        const rest = list.slice(i + 1);
        if (rest.length > 0) this.#defer(() => this.#callbackAll(rest));
        throw err;
      }
    }
  }

  #onRetry(): void {
    this.#retryWaiting = false;
    if (this.#freed) return;
    if (this.#current === null) {
      this.#pump();
      return;
    }
    this.#connect();
  }

  // ---------------------------------------------------------------- the exchange

  #send(conn: ClientConn, p: Pending): void {
    if (p.body === null) {
      const out = p.req.outputBufferIfAny;
      p.body = out !== null && out.length > 0 ? out.takeChunks() : [];
    }
    if (p.sentAt < 0) p.sentAt = now(); // a resend keeps the deadline of the first send
    conn.send(p.req, p.method, p.uri, p.body);
  }

  #onWritten(conn: ClientConn): void {
    // The request left: its timeout counts from now (a slow upload is not idle).
    if (this.#conn === conn && conn.sent && this.#current !== null) this.#armTimer();
  }

  #onRead(conn: ClientConn): void {
    const bev = conn.bev;
    if (bev === null || this.#conn !== conn || conn.closed) return;
    const input = bev.input;
    if (input.length === 0) return;
    const data = input.read(input.length) as Buffer;
    if (!conn.sent || this.#current === null) {
      // Bytes nobody asked for: the connection is out of step; drop it.
      this.#teardown(conn, true);
      return;
    }
    if (conn.resp === Resp.None) conn.resp = Resp.Reading;
    this.#idleFrom = now(); // the timer checks it when it fires: no timer operation per read
    const n = conn.parser.execute(data);
    const resp = conn.resp as Resp;
    if (resp === Resp.Done && n < data.length) conn.leftover = true;
    this.#afterInput(conn);
  }

  /** Acts on what the parser made of the input. */
  #afterInput(conn: ClientConn): void {
    const resp = conn.resp;
    if (resp === Resp.Done) this.#complete(conn);
    else if (resp === Resp.Failed) {
      const err = conn.failure ?? createHttpError('ERR_HTTP_INCOMPLETE', 'The response was refused');
      this.#fail(conn, 'ERR_EVENT_PROTOCOL', `Response refused (${err.code}): ${err.message}`, err);
    }
  }

  /** The response is complete: hand it to the request's callback. */
  #complete(conn: ClientConn): void {
    const p = this.#current as Pending;
    const head = conn.head as ResponseHead;
    const req = p.req;
    req.responseCode = head.statusCode;
    req.responseReason = head.statusMessage;
    req.setHead(head);
    this.#timer.del();
    this.#current = null;
    conn.sent = false;
    conn.req = null;
    conn.served++;
    conn.resp = Resp.None;
    this.#failedTries = 0;
    const close = !head.keepAlive || head.upgrade || conn.leftover || asksClose(req);
    if (close) this.#teardown(conn, true);
    else conn.parser.resume();
    this.#pump();
    this.#callback(p, true);
  }

  /**
   * The response failed (malformed, too large, cut short, timed out): the
   * reason is recorded (`getLastError()`), then null to the callback.
   */
  #fail(conn: ClientConn | null, code: EventErrorCode, message: string, cause?: unknown): void {
    const p = this.#current;
    this.#timer.del();
    this.#current = null;
    if (conn !== null) this.#teardown(conn, true);
    this.#pump();
    if (p === null) return;
    warn(code, `${p.method} ${p.uri}: ${message}`, cause);
    this.#callback(p, false);
  }

  #onEvent(conn: ClientConn, events: number): void {
    if (this.#conn !== conn || conn.closed) return;
    if ((events & EventBufferEvent.CONNECTED) !== 0) {
      conn.connected = true;
      this.#failedTries = 0;
      const p = this.#current;
      if (p !== null) {
        this.#send(conn, p);
        this.#armTimer();
      }
      return;
    }
    if ((events & (EventBufferEvent.EOF | EventBufferEvent.ERROR | EventBufferEvent.TIMEOUT)) === 0) return;
    if (!conn.connected) {
      this.#connectFailed(conn);
      return;
    }
    const p = this.#current;
    if (p === null || !conn.sent) {
      this.#teardown(conn, true); // an idle connection closed by the server
      this.#pump();
      return;
    }
    if (conn.resp === Resp.Reading && (events & EventBufferEvent.EOF) !== 0) {
      conn.parser.finish(); // a body delimited by the close ends here; anything else was cut short
      if ((conn.resp as Resp) === Resp.Reading) {
        conn.resp = Resp.Failed;
        conn.failure = createHttpError('ERR_HTTP_INCOMPLETE', 'The connection closed in the middle of the response');
      }
      this.#afterInput(conn);
      return;
    }
    if (conn.resp === Resp.None && conn.served > 0 && !p.resent && IDEMPOTENT.has(p.method)) {
      // The server closed the kept-alive connection while the request was on its way: once more, on a new one.
      p.resent = true;
      this.#teardown(conn, true);
      if (this.#current === p && !this.#freed) this.#connect();
      return;
    }
    const err =
      conn.failure ??
      createHttpError(
        'ERR_HTTP_INCOMPLETE',
        (events & EventBufferEvent.EOF) !== 0
          ? 'The connection closed before the response was complete'
          : 'The connection failed before the response was complete',
      );
    this.#fail(conn, 'ERR_EVENT_PROTOCOL', `Response refused (${err.code}): ${err.message}`, err);
  }

  #onTimeout(): void {
    if (this.#freed || this.#current === null) return;
    const t = now();
    const deadline = this.#deadline();
    if (t >= deadline) {
      const conn = this.#conn;
      const none = conn === null || conn.resp === Resp.None;
      this.#fail(
        conn !== null && !conn.closed ? conn : null,
        'ERR_EVENT_TIMEOUT',
        `${none ? 'No response' : 'No complete response'} within ${this.requestTimeout} s (setRequestTimeout)`,
      );
      return;
    }
    if (t < this.#idleFrom + this.timeout * 1000) {
      this.#schedule(t); // bytes came in since the timer was set: not idle yet
      return;
    }
    const conn = this.#conn;
    if (conn !== null && !conn.connected) {
      // connecting took too long: a failed connect, tried again if allowed
      if (this.retries < 0 || this.#failedTries < this.retries) {
        this.#connectFailed(conn);
        return;
      }
      this.#teardown(conn, false);
      this.#failedTries = 0;
    }
    this.#fail(
      conn !== null && !conn.closed ? conn : null,
      'ERR_EVENT_TIMEOUT',
      conn !== null && conn.connected
        ? `No byte of the response for ${this.timeout} s (setTimeout)`
        : `Not connected within ${this.timeout} s (setTimeout)`,
    );
  }

  /** Closes a connection; `notify`: run the close callback (only for a connection that was established). */
  #teardown(conn: ClientConn, notify: boolean): void {
    if (conn.closed) return;
    if (this.#conn === conn) this.#conn = null;
    conn.close();
    const cb = this.closeCb;
    if (notify && conn.connected && cb !== null) cb.cb(this.owner, cb.arg);
  }

  #cancel(req: ExchangeRequest): void {
    const p = ACTIVE.get(req);
    if (p === undefined || p.owner !== this) return;
    p.cancelled = true;
    this.#release(p);
    if (this.#current !== p) return; // queued: skipped when its turn comes
    this.#current = null;
    this.#timer.del();
    const conn = this.#conn;
    if (conn !== null) {
      // In flight: the connection is out of step with the request; drop it (close callback from the loop).
      const wasEstablished = conn.connected;
      this.#teardown(conn, false);
      if (wasEstablished) this.#notifyCloseLater();
    }
    if (this.#retryWaiting) {
      this.#retryTimer.del();
      this.#retryWaiting = false;
    }
    this.#pump();
  }

  #closeRequestConnection(req: ExchangeRequest): void {
    this.#cancel(req);
    const conn = this.#conn;
    if (conn !== null && this.#current === null) {
      const wasEstablished = conn.connected;
      this.#teardown(conn, false);
      if (wasEstablished) this.#notifyCloseLater();
    }
  }

  #notifyCloseLater(): void {
    this.#defer(() => {
      const cb = this.closeCb;
      if (cb !== null) cb.cb(this.owner, cb.arg);
    });
  }
}

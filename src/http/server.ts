/**
 * EventHttp: the HTTP/1.1 server (listeners, settings, path callbacks,
 * virtual hosts, shutdown and the coarse timer sweep). Each accepted
 * connection is an `HttpServerConnection` (`server-connection.ts`).
 *
 * @module
 */
import type { Server, Socket } from 'node:net';
import { EventBase } from '../event/base.js';
import { EventBufferEvent } from '../event/bufferevent.js';
import { Event } from '../event/event.js';
import { EventListener } from '../event/listener.js';
import { EventSslContext } from '../event/ssl.js';
import { formatAddress } from '../event/address.js';
import { createEventError, warn } from '../event/errors.js';
import { CMD_DELETE, CMD_GET, CMD_HEAD, CMD_POST, CMD_PUT, allowHeaderValue } from './methods.js';
import type { EventHttpRequest } from './request.js';
import { lower } from './headers.js';
import { stderrLogger, type HttpLogger } from './log.js';
import { HeadCache } from './head-cache.js';
import { decodedPath, globMatch } from './routing.js';
import { HttpServerConnection } from './server-connection.js';
import type { ServerHost } from './server-host.js';
import { WaitingConnections } from './server-turns.js';

/**
 * Path or default callback: `(request, arg)`.
 * @example
 * ```ts
 * const about: HttpCallback = (req) => req.sendReply(200, 'OK');
 * ```
 */
export type HttpCallback<A = unknown> = (req: EventHttpRequest, arg: A) => void;

const DEFAULT_ALLOWED = CMD_GET | CMD_POST | CMD_HEAD | CMD_PUT | CMD_DELETE;
/** Default limits (documented in docs/security.md). */
const DEFAULT_MAX_BODY = 1024 * 1024;
const DEFAULT_MAX_HEADERS = 8192;
const DEFAULT_IDLE_MS = 50_000;
const DEFAULT_HEADERS_MS = 30_000;
const DEFAULT_BODY_MS = 60_000;
const DEFAULT_OUTPUT_HIGH = 1024 * 1024;
const DEFAULT_SHUTDOWN_S = 10;
/**
 * At shutdown, how long an idle keep-alive connection may still send one
 * request (its client may have sent it already: in flight, or in the
 * kernel's receive buffer), answered with `Connection: close`, before it is
 * half-closed.
 */
const SHUTDOWN_IDLE_GRACE_MS = 1000;

/**
 * The HTTP server.
 *
 * Differences from libevent's evhttp, on purpose: a known but disallowed
 * method gets 405 with `Allow` (an unknown one 501); HEAD replies carry no
 * body; oversized headers get 431 and an oversized request line 414; replies
 * carry `Content-Type` only when set; the parser is strict (RFC 9112:
 * request smuggling vectors, a missing Host in HTTP/1.1 and the like get 400).
 *
 * @example
 * ```ts
 * import { EventBase } from 'eventide/event';
 * import { EventHttp, EventHttpRequest } from 'eventide/http';
 * const base = new EventBase();
 * const http = new EventHttp(base);
 * http.setAllowedMethods(EventHttpRequest.CMD_GET | EventHttpRequest.CMD_POST);
 * http.setCallback('/about', (req) => req.sendReply(200, 'OK'));
 * http.setDefaultCallback((req) => req.sendReply(200, 'OK'));
 * http.bind('127.0.0.1', 8010);
 * await base.dispatch();
 * ```
 */
export class EventHttp implements ServerHost {
  #base: EventBase;
  #ctx: EventSslContext | null;
  #listeners: EventListener<null>[] = [];
  #callbacks = new Map<string, { cb: HttpCallback<unknown>; arg: unknown }>();
  #default: { cb: HttpCallback<unknown>; arg: unknown } | null = null;
  /** The last request target dispatched and its decoded path (a repeated request is not decoded again). */
  #lastTarget = '';
  #lastPath = '';
  #allowed = DEFAULT_ALLOWED;
  #allowHeader = '';
  #maxBody = DEFAULT_MAX_BODY;
  #maxHeaders = DEFAULT_MAX_HEADERS;
  #timeoutMs = DEFAULT_IDLE_MS;
  #headersMs = DEFAULT_HEADERS_MS;
  #bodyMs = DEFAULT_BODY_MS;
  #outputHigh = DEFAULT_OUTPUT_HIGH;
  #logger: HttpLogger | null = null;
  /** When shutdown() gives up on the connections left (ms on the coarse clock). */
  #shutdownAt = Infinity;
  /** @internal */ conns = new Set<HttpServerConnection>();
  /** The last reply head built, for reuse. @internal */ readonly headCache = new HeadCache();
  #sweep: Event | null = null;
  #aliases = new Set<string>();
  #vhosts: { pattern: string; http: EventHttp }[] = [];
  #shutdown: { resolve: () => void; promise: Promise<void> } | null = null;
  #freed = false;
  /** Connections that spent their turn's budget, waiting for a later turn of the loop. @internal */
  readonly waiting = new WaitingConnections();

  /**
   * Creates a server on `base`; with an EventSslContext (server method) it serves HTTPS.
   * @example
   * ```ts
   * const https = new EventHttp(base, new EventSslContext(EventSslContext.TLS_SERVER_METHOD, { [EventSslContext.OPT_LOCAL_CERT]: 'cert.pem', [EventSslContext.OPT_LOCAL_PK]: 'key.pem' }));
   * ```
   */
  constructor(base: EventBase, ctx: EventSslContext | null = null) {
    if (!(base instanceof EventBase))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventHttp expects an EventBase');
    if (ctx !== null && !(ctx instanceof EventSslContext))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventHttp expects an EventSslContext or null');
    this.#base = base;
    this.#ctx = ctx;
    this.#updateAllowHeader();
  }

  /** The base. @internal */
  get base(): EventBase {
    return this.#base;
  }

  /**
   * Listens on `address:port` (several binds allowed). False when the address
   * cannot be used (in use, malformed, not permitted): `getLastError()` says why.
   * Port 0 picks a free port; see {@link EventHttp.getBoundPorts}.
   *
   * An IP address, `localhost` or a UNIX path listens at once, as in
   * libevent. Another host name is looked up first, without blocking the
   * loop: `bind()` returns true, and {@link EventHttp.ready} settles when the
   * server listens (or rejects with why it cannot; the failure is also
   * recorded as the last error).
   * @example
   * ```ts
   * http.bind('0.0.0.0', 8010);
   * ```
   */
  bind(address: string, port: number): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'EventHttp is freed');
    if (typeof address !== 'string' || !Number.isInteger(port) || port < 0 || port > 65535) {
      return warn('ERR_EVENT_ADDRESS', `Invalid address or port: ${String(address)}:${String(port)}`);
    }
    const target = address.startsWith('unix:') ? address : formatAddress(address, port);
    try {
      this.#listeners.push(this.#listen(target));
      return true;
    } catch (err) {
      return warn((err as { code?: 'ERR_EVENT_LISTENER' }).code ?? 'ERR_EVENT_LISTENER', (err as Error).message, err);
    }
  }

  /**
   * Settles when every address given to `bind()` (or `accept()`) so far is
   * listening; rejects with the first failure (an `EventSystemError`,
   * `ERR_EVENT_LISTENER`). Needed only after binding a host name that is
   * looked up, or accepting on a `net.Server` still starting to listen.
   * @example
   * ```ts
   * http.bind('api.internal', 8010); // looked up asynchronously
   * await http.ready;
   * console.log(http.getBoundPorts()); // [8010]
   * ```
   */
  get ready(): Promise<void> {
    return Promise.all(this.#listeners.map((l) => l.ready)).then(() => undefined);
  }

  /**
   * Serves connections of an already listening socket (a `net.Server` or a
   * listening descriptor).
   * @example
   * ```ts
   * import { createServer } from 'node:net';
   * const srv = createServer().listen(0);
   * http.accept(srv);
   * ```
   */
  accept(socket: Server | Socket | number): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'EventHttp is freed');
    try {
      this.#listeners.push(this.#listen(socket, 0));
      return true;
    } catch (err) {
      return warn('ERR_EVENT_LISTENER', (err as Error).message, err);
    }
  }

  /**
   * The ports this server listens on (useful after `bind(addr, 0)`).
   * @example
   * ```ts
   * http.bind('127.0.0.1', 0); const [port] = http.getBoundPorts();
   * ```
   */
  getBoundPorts(): number[] {
    const out: number[] = [];
    for (const l of this.#listeners) {
      const n = l.getSocketName();
      if (n && typeof n.port === 'number') out.push(n.port);
    }
    return out;
  }

  /**
   * Calls `cb(request, arg)` for requests whose decoded path is exactly
   * `path` (the query is ignored). False when the path already has one.
   * @example
   * ```ts
   * http.setCallback('/dump', (req, arg) => console.log(req.getUri(), arg), [4, 8]);
   * ```
   */
  setCallback<A>(path: string, cb: HttpCallback<A>, arg?: A): boolean {
    if (typeof cb !== 'function') return warn('ERR_EVENT_INVALID_ARGUMENT', 'setCallback expects a function');
    if (this.#callbacks.has(path)) return warn('ERR_EVENT_INVALID_ARGUMENT', 'The callback already exists');
    this.#callbacks.set(path, { cb: cb as HttpCallback<unknown>, arg });
    return true;
  }

  /**
   * Removes the callback of a path; false when there was none.
   * @example
   * ```ts
   * http.delCallback('/dump');
   * ```
   */
  delCallback(path: string): boolean {
    return this.#callbacks.delete(path);
  }

  /**
   * Calls `cb(request, arg)` for requests no path callback matches (without
   * one, they get 404).
   * @example
   * ```ts
   * http.setDefaultCallback((req) => req.sendReply(200, 'OK'));
   * ```
   */
  setDefaultCallback<A>(cb: HttpCallback<A> | null, arg?: A): void {
    this.#default = cb === null ? null : { cb: cb as HttpCallback<unknown>, arg };
  }

  /**
   * Sets the allowed methods (`EventHttpRequest.CMD_*` bits; default
   * GET|POST|HEAD|PUT|DELETE). A known method outside the mask gets 405 with
   * `Allow`; an unknown method 501.
   * @example
   * ```ts
   * http.setAllowedMethods(EventHttpRequest.CMD_GET | EventHttpRequest.CMD_POST);
   * ```
   */
  setAllowedMethods(methods: number): void {
    this.#allowed = methods >>> 0;
    this.#updateAllowHeader();
  }

  /**
   * Largest accepted request body in bytes (declared or chunked total;
   * default 1 MiB, a negative value: no limit). A declared
   * `Content-Length` above it is answered 413 at once, before any of the
   * body is read, and the connection closed; a chunked body is cut off (413)
   * as soon as its total passes the limit.
   * @example
   * ```ts
   * http.setMaxBodySize(16 << 20);
   * ```
   */
  setMaxBodySize(bytes: number): void {
    this.#maxBody = bytes < 0 ? Infinity : Math.trunc(bytes);
    for (const c of this.conns) c.parser.setLimits({ maxBodyBytes: this.#maxBody });
  }

  /**
   * Largest request line plus headers in bytes (default 8 KiB); bigger gets 431.
   * @example
   * ```ts
   * http.setMaxHeadersSize(16384);
   * ```
   */
  setMaxHeadersSize(bytes: number): void {
    this.#maxHeaders = bytes <= 0 ? DEFAULT_MAX_HEADERS : Math.trunc(bytes);
    for (const c of this.conns) c.parser.setLimits({ maxHeaderBytes: this.#maxHeaders });
  }

  /**
   * Idle timeout in seconds (default 50, libevent's): a keep-alive
   * connection with no request for this long is closed, and so is one whose
   * client has not read its replies for this long (see
   * {@link EventHttp.setOutputHighWaterMark}). One coarse sweep checks every
   * connection, to within a quarter of the shortest timeout (at most 1 s).
   * @example
   * ```ts
   * http.setTimeout(10);
   * ```
   */
  setTimeout(seconds: number): void {
    this.#timeoutMs = seconds > 0 ? seconds * 1000 : DEFAULT_IDLE_MS;
    this.#resweep();
  }

  /**
   * Time in seconds a whole request head may take from its first byte
   * (default 30, or the idle timeout when that is shorter; 0 or negative:
   * the default). It is not extended by bytes that trickle in (slowloris):
   * past it, the connection is closed without a reply.
   * @example
   * ```ts
   * http.setHeadersTimeout(10);
   * ```
   */
  setHeadersTimeout(seconds: number): void {
    this.#headersMs = seconds > 0 ? seconds * 1000 : DEFAULT_HEADERS_MS;
    this.#resweep();
  }

  /**
   * Time in seconds a whole request body may take from the end of its head
   * (default 60; 0 or negative: the default; `Infinity`: none). Not extended
   * per byte: a body trickled in slowly is cut off at the deadline and the
   * connection closed. A body that pauses longer than the idle timeout is
   * cut off too.
   * @example
   * ```ts
   * http.setBodyTimeout(120);
   * ```
   */
  setBodyTimeout(seconds: number): void {
    this.#bodyMs = seconds > 0 ? seconds * 1000 : DEFAULT_BODY_MS;
    this.#resweep();
  }

  /**
   * Bytes of unsent replies one connection may hold (default 1 MiB; 0 or
   * negative: the default). Past it the server stops reading and parsing
   * that connection's requests until the client has read enough for the
   * backlog to fall to a quarter of the mark; a client that reads nothing
   * for the idle timeout is closed. Memory per connection stays bounded
   * whatever the client pipelines; other connections are unaffected.
   * @example
   * ```ts
   * http.setOutputHighWaterMark(4 << 20);
   * ```
   */
  setOutputHighWaterMark(bytes: number): void {
    this.#outputHigh = bytes > 0 ? Math.trunc(bytes) : DEFAULT_OUTPUT_HIGH;
  }

  /**
   * Where the server reports what goes wrong inside a connection (a callback
   * that threw, a reply the codec refused): a pino logger or anything with
   * pino's `error(obj, msg)` / `warn(obj, msg)`. `null`: one line on stderr
   * (the default).
   * @example
   * ```ts
   * http.setLogger({ error: (obj, msg) => console.error(msg, obj), warn: (obj, msg) => console.warn(msg, obj) });
   * // or a pino logger: http.setLogger(pino())
   * ```
   */
  setLogger(logger: HttpLogger | null): void {
    this.#logger = logger;
  }

  /** The logger in use. @internal */
  get logger(): HttpLogger {
    return (this.#logger ??= stderrLogger());
  }

  /**
   * Adds a host name this server answers as a virtual host.
   * @example
   * ```ts
   * const vhost = new EventHttp(base);
   * vhost.addServerAlias('www.example.com');
   * http.addVirtualHost('example.com', vhost);
   * ```
   */
  addServerAlias(alias: string): boolean {
    this.#aliases.add(lower(alias));
    return true;
  }

  /**
   * Removes an alias; false when unknown.
   * @example
   * ```ts
   * const vhost = new EventHttp(base);
   * vhost.addServerAlias('www.example.com');
   * vhost.removeServerAlias('www.example.com'); // true
   * ```
   */
  removeServerAlias(alias: string): boolean {
    return this.#aliases.delete(lower(alias));
  }

  /**
   * Serves requests whose host matches `pattern` (`*` wildcards) or one of
   * `vhost`'s aliases with `vhost`'s callbacks.
   * @example
   * ```ts
   * const api = new EventHttp(base);
   * api.setCallback('/', (req) => req.sendReply(200, 'OK'));
   * http.addVirtualHost('api.example.com', api);
   * ```
   */
  addVirtualHost(pattern: string, vhost: EventHttp): boolean {
    if (!(vhost instanceof EventHttp) || vhost === this)
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'addVirtualHost expects another EventHttp');
    this.#vhosts.push({ pattern: lower(pattern), http: vhost });
    return true;
  }

  /**
   * Removes a virtual host; false when unknown.
   * @example
   * ```ts
   * const api = new EventHttp(base);
   * http.addVirtualHost('api.example.com', api);
   * http.removeVirtualHost(api); // true
   * ```
   */
  removeVirtualHost(vhost: EventHttp): boolean {
    const i = this.#vhosts.findIndex((v) => v.http === vhost);
    if (i < 0) return false;
    this.#vhosts.splice(i, 1);
    return true;
  }

  /**
   * Stops accepting, lets requests in flight finish (their replies say
   * `Connection: close`) and resolves when every connection is closed.
   * A keep-alive connection between requests is not reset: its client may
   * have sent a request that has not been read yet, so for up to one second
   * a request that arrives is still answered (with `Connection: close`);
   * then the connection is half-closed (a FIN, what the client still sends
   * is read and dropped). A client therefore never loses a request it sent
   * before it saw the connection end. Connections still open
   * `deadlineSeconds` later (default 10; `Infinity`: wait for ever) are
   * closed then, whatever they are doing, so a client trickling a body
   * cannot hold the shutdown.
   * @example
   * ```ts
   * process.on('SIGTERM', () => void http.shutdown(5));
   * ```
   */
  shutdown(deadlineSeconds = DEFAULT_SHUTDOWN_S): Promise<void> {
    if (this.#shutdown !== null) return this.#shutdown.promise;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.#shutdown = { resolve, promise };
    for (const l of this.#listeners) l.free();
    this.#listeners = [];
    const ms = deadlineSeconds >= 0 ? deadlineSeconds * 1000 : DEFAULT_SHUTDOWN_S * 1000;
    this.clock = performance.now();
    this.#shutdownAt = this.clock + ms;
    const grace = this.deadlineAfter(SHUTDOWN_IDLE_GRACE_MS);
    for (const c of this.conns) c.lastCall(grace);
    this.#resweep();
    this.#checkShutdown();
    return promise;
  }

  /** A deadline `ms` from now on the coarse clock, never past the shutdown deadline. @internal */
  deadlineAfter(ms: number): number {
    const t = this.clock + ms;
    return t < this.#shutdownAt ? t : this.#shutdownAt;
  }

  /**
   * Whether this server speaks HTTPS (it was built with an EventSslContext).
   * @example
   * ```ts
   * const scheme = http.isSecure() ? 'https' : 'http';
   * ```
   */
  isSecure(): boolean {
    return this.#ctx !== null;
  }

  /** Whether this server speaks HTTPS. @internal */
  get secure(): boolean {
    return this.#ctx !== null;
  }

  /**
   * Closes the listeners and every connection at once.
   * @example
   * ```ts
   * http.free();
   * ```
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    for (const l of this.#listeners) l.free();
    this.#listeners = [];
    for (const c of [...this.conns]) c.destroy();
    this.#sweep?.free();
    this.#sweep = null;
    this.#shutdown?.resolve();
  }

  // ---------------------------------------------------------------- internals

  #listen(target: string | Server | Socket | number, backlog = -1): EventListener<null> {
    return new EventListener(
      this.#base,
      (_l, sock) => this.#onAccept(sock),
      null,
      EventListener.OPT_CLOSE_ON_FREE | EventListener.OPT_REUSEABLE,
      backlog,
      target,
    );
  }

  #onAccept(sock: Socket): void {
    if (this.#shutdown !== null || this.#freed) {
      sock.destroy();
      return;
    }
    sock.setNoDelay(true);
    const bev =
      this.#ctx !== null
        ? EventBufferEvent.sslSocket(
            this.#base,
            sock,
            this.#ctx,
            EventBufferEvent.SSL_ACCEPTING,
            EventBufferEvent.OPT_CLOSE_ON_FREE,
          )
        : new EventBufferEvent(this.#base, sock, EventBufferEvent.OPT_CLOSE_ON_FREE);
    this.clock = performance.now();
    const conn = new HttpServerConnection(this, bev, sock);
    this.conns.add(conn);
    if (this.#sweep === null) {
      this.#sweep = new Event(this.#base, -1, Event.TIMEOUT | Event.PERSIST, () => this.#runSweep());
      this.#sweep.add(this.#sweepInterval());
    }
  }

  #sweepInterval(): number {
    const grace = this.#shutdown !== null ? SHUTDOWN_IDLE_GRACE_MS : Infinity;
    const shortest = Math.min(this.#timeoutMs, this.#headersMs, this.#bodyMs, this.#shutdownAt - this.clock, grace);
    return Math.max(0.05, Math.min(1, shortest / 4000));
  }

  #resweep(): void {
    if (this.#sweep !== null) {
      this.#sweep.del();
      this.#sweep.add(this.#sweepInterval());
    }
  }

  /** A coarse clock (ms) for connection deadlines, refreshed by the sweep. @internal */
  clock = performance.now();

  #runSweep(): void {
    const now = performance.now();
    this.clock = now;
    for (const c of this.conns) if (c.deadline < now) c.expire();
    if (this.conns.size === 0 && this.#sweep !== null) {
      this.#sweep.free();
      this.#sweep = null;
    }
  }

  /** A connection spent its turn's budget: it waits for a later turn (`server-turns.ts`). @internal */
  later(conn: HttpServerConnection): void {
    this.waiting.add(conn);
  }

  /** A connection went away. @internal */
  forget(conn: HttpServerConnection): void {
    this.conns.delete(conn);
    if (this.conns.size === 0 && this.#sweep !== null) {
      this.#sweep.free();
      this.#sweep = null;
    }
    this.#checkShutdown();
  }

  #checkShutdown(): void {
    if (this.#shutdown !== null && this.conns.size === 0) this.#shutdown.resolve();
  }

  /** @internal */ get timeoutMs(): number {
    return this.#timeoutMs;
  }
  /** The head deadline: the headers timeout, or the idle timeout when shorter. @internal */
  get headMs(): number {
    return this.#headersMs < this.#timeoutMs ? this.#headersMs : this.#timeoutMs;
  }
  /** @internal */ get bodyMs(): number {
    return this.#bodyMs;
  }
  /** @internal */ get outputHigh(): number {
    return this.#outputHigh;
  }
  /** @internal */ get maxBody(): number {
    return this.#maxBody;
  }
  /** @internal */ get maxHeaders(): number {
    return this.#maxHeaders;
  }
  /** @internal */ get allowed(): number {
    return this.#allowed;
  }
  /** @internal */ get allowHeader(): string {
    return this.#allowHeader;
  }

  #updateAllowHeader(): void {
    this.#allowHeader = allowHeaderValue(this.#allowed);
  }

  /** The server whose callbacks serve a host. @internal */
  serverFor(req: EventHttpRequest): EventHttp {
    if (this.#vhosts.length === 0) return this;
    const host = req.getHost();
    if (host === '') return this;
    const h = lower(host);
    for (const v of this.#vhosts) {
      if (globMatch(v.pattern, h) || v.http.#aliases.has(h)) return v.http.serverFor(req);
    }
    return this;
  }

  /** Runs the matching callback; false when none matches (the caller sends 404). @internal */
  dispatch(req: EventHttpRequest): boolean {
    const target = req.uri;
    if (target !== this.#lastTarget) {
      this.#lastPath = decodedPath(target);
      this.#lastTarget = target;
    }
    const entry = this.#callbacks.get(this.#lastPath) ?? this.#default;
    if (entry === null || entry === undefined) return false;
    entry.cb(req, entry.arg);
    return true;
  }
}

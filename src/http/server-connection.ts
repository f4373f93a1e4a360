/**
 * HttpServerConnection: one connection of an `EventHttp` server. It feeds
 * the request parser, runs the callbacks one request at a time, writes the
 * replies in order, and enforces the per-connection limits (deadlines,
 * pipelining backlog, output high-water mark).
 *
 * @module
 */
import type { Socket } from 'node:net';
import type { EventBase } from '../event/base.js';
import type { EventBuffer } from '../event/buffer.js';
import { EventBufferEvent } from '../event/bufferevent.js';
import { RequestParser, type RequestHandlers } from './request-parser.js';
import type { RequestHead } from './head.js';
import type { HttpParseError } from './errors.js';
import { statusText } from './status.js';
import { CMD_HEAD } from './methods.js';
import { EventHttpRequest } from './request.js';
import type { Exchange, ExchangeRequest, HttpConnection } from './contracts.js';
import { errorBody, notFoundBody } from './pages.js';
import type { ServerHost } from './server-host.js';

const READ = 2;
const WRITE = 4;
const CONTINUE = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');
/** Bytes of pipelined input a connection buffers while a request is handled before it stops reading. */
const PIPELINE_BACKLOG = 64 * 1024;
/**
 * The work a connection may do per read before the others go first: a
 * request costs one unit, and one more per KiB of its reply. A connection
 * that spends it with more requests received (a pipelined flood) waits for
 * a later turn of the loop (`ServerHost.later`), while the server accepts
 * and reads its other connections: 32 small replies, or about 32 KiB of
 * larger ones, per turn.
 */
const TURN_BUDGET = 32;

const enum Phase {
  Reading,
  Handling,
  Closed,
}

/**
 * One server connection: parses requests, runs callbacks one request at a
 * time (pipelined requests wait in the parser), writes replies in order.
 * It is also the object `EventHttpRequest.getConnection()` returns; it is
 * created by the server, never by applications.
 * @example
 * ```ts
 * http.setDefaultCallback((req) => {
 *   const conn = req.getConnection() as HttpServerConnection;
 *   conn.setCloseCallback(() => console.log('_close_callback'));
 *   req.sendReply(200, 'OK');
 * });
 * ```
 */
export class HttpServerConnection implements Exchange, HttpConnection {
  /** The server this connection belongs to. */
  readonly http: ServerHost;
  readonly bev: EventBufferEvent;
  readonly sock: Socket;
  readonly parser: RequestParser;
  /** When the sweep closes this connection (coarse clock, ms). */
  deadline: number;
  #phase = Phase.Reading;
  #req: EventHttpRequest | null = null;
  #head: RequestHead | null = null;
  #pending: Buffer | null = null;
  #pendingAt = 0;
  /** `#pending` is a lent read (the base's receive buffer): copied before the read callback returns. */
  #pendingLent = false;
  /** The bytes being parsed are lent: a body handed out of them is copied. */
  #parsingLent = false;
  #driving = false;
  #keepAlive = true;
  /** The server shuts down: the connection ends after the requests it has received. */
  #lastCall = false;
  #chunked = 0; // 0 none, 1 chunked framing, 2 until close
  #closeCb: { cb: (conn: HttpServerConnection, arg: unknown) => void; arg: unknown } | null = null;
  #upgraded = false;
  #peerEof = false;
  /** Reading is stopped until the client reads its replies (output above the high-water mark). */
  #throttled = false;
  /** When the body being read must be complete (coarse clock, ms). */
  #bodyDeadline = Infinity;
  /** The work done since the last read or resumption ({@link TURN_BUDGET}). */
  #spent = 0;
  /** The budget is spent: the connection waits for its turn (`resume()`). */
  #yielded = false;

  constructor(http: ServerHost, bev: EventBufferEvent, sock: Socket) {
    this.http = http;
    this.bev = bev;
    this.sock = sock;
    this.deadline = http.deadlineAfter(http.timeoutMs);
    this.parser = new RequestParser(new HttpServerConnection.#ParserEvents(this), {
      maxHeaderBytes: http.maxHeaders,
      maxBodyBytes: http.maxBody,
    });
    bev.setCallbacks(this.#onReadable, null, this.#onEvent);
    bev.writeFirstEarly(); // a lone reply leaves at once; a busy turn's replies leave together
    bev.holdReadsFor(this.#onReadable); // a read is parsed where it is, not copied into the input first
    bev.enable(READ | WRITE);
  }

  /**
   * The parser's callbacks of a connection: one small object whose methods
   * live on a shared prototype, instead of five closures per connection
   * (memory of idle connections).
   */
  static readonly #ParserEvents = class implements RequestHandlers {
    readonly c: HttpServerConnection;
    /** A connection only reads its heads (the input headers are copied out of them). */
    get sharesHeads(): boolean {
      return true;
    }
    constructor(c: HttpServerConnection) {
      this.c = c;
    }
    onRequest(head: RequestHead): void {
      this.c.#onHead(head);
    }
    onBody(chunk: Buffer): void {
      this.c.#onBody(chunk);
    }
    onMessageComplete(): boolean {
      return this.c.#onComplete();
    }
    onError(err: HttpParseError): void {
      this.c.#onParseError(err);
    }
    onUpgrade(head: RequestHead, rest: Buffer): void {
      this.c.#onUpgrade(head, rest);
    }
  };

  // ------------------------------------------------------------ input

  #onReadable = (): void => {
    if (this.#phase === Phase.Closed || this.#upgraded) return;
    if (this.#phase === Phase.Handling || this.#throttled || this.#yielded) {
      // Pipelined bytes wait in the input; past a bound, stop reading (backpressure).
      if (this.bev.input.length + this.bev.heldLength >= PIPELINE_BACKLOG) this.bev.disable(READ);
      return;
    }
    if (this.#driving) return;
    this.#spent = 0; // a new read: a new turn's work
    try {
      this.#drive();
    } finally {
      if (this.#pendingLent) this.#keepPending();
    }
  };

  /**
   * The connection's turn came again (it had spent its budget): the work
   * waiting in its buffers goes on.
   * @internal
   */
  resume(): void {
    if (!this.#yielded) return;
    this.#yielded = false;
    this.#spent = 0;
    if (this.#phase !== Phase.Reading || this.#throttled) return;
    if ((this.bev.getEnabled() & READ) === 0 && !this.#peerEof) this.bev.enable(READ);
    if (!this.#driving) this.#drive();
  }

  /** Copies the unparsed rest of a lent read, which the next read overwrites (once per read, not per request). */
  #keepPending(): void {
    const p = this.#pending;
    this.#pendingLent = false;
    if (p === null) return;
    this.#pending = Buffer.from(p.subarray(this.#pendingAt));
    this.#pendingAt = 0;
  }

  /** Feeds the backlog to the parser and runs complete requests, in order, one at a time. */
  #drive(): void {
    this.#driving = true;
    // What the socket still holds does not change while this runs: nothing is written until it returns.
    const high = this.http.outputHigh - (this.bev.unsentLength - this.bev.output.length);
    try {
      for (;;) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- callbacks change #phase; without the widening TypeScript keeps it narrowed
        if ((this.#phase as Phase) !== Phase.Reading || this.#upgraded) return;
        if (this.bev.output.length >= high) {
          this.#throttle();
          return;
        }
        if (this.#spent >= TURN_BUDGET && this.parser.idle && this.#received) {
          // Between requests, its budget spent: the other connections (and new ones) go first.
          this.#yielded = true;
          this.http.later(this);
          return;
        }
        let buf = this.#pending;
        let at = this.#pendingAt;
        let lent = this.#pendingLent;
        this.#pending = null;
        this.#pendingLent = false;
        if (buf === null) {
          // The read being handled (never behind bytes in the input), or what the input holds.
          buf = this.bev.takeHeld();
          lent = buf !== null && this.bev.heldLent;
          if (buf === null) {
            const input = this.bev.input;
            if (input.length === 0) break;
            // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- read() of the whole length returns a Buffer, not null
            buf = input.read(input.length) as Buffer;
          }
          at = 0;
        }
        // A new request starts: its whole head must arrive within the headers (and idle) timeout.
        if (this.parser.idle) this.deadline = this.http.deadlineAfter(this.http.headMs);
        this.#parsingLent = lent;
        const n = this.parser.execute(buf, at);
        this.#parsingLent = false;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the parser's callbacks change #phase
        const phase = this.#phase as Phase;
        if (phase === Phase.Closed || this.#upgraded) return;
        if (n < buf.length && this.parser.error === null) {
          this.#pending = buf; // the rest of a pipelined batch, parsed from `n` on
          this.#pendingAt = n;
          this.#pendingLent = lent;
        } else if (phase === Phase.Reading && this.parser.idle) {
          this.deadline = this.http.deadlineAfter(this.http.timeoutMs); // between requests: idle
        }
        const req = this.#req;
        if (req !== null && phase === Phase.Handling && this.parser.paused) this.#run(req);
      }
      // Everything received so far is parsed: a client that half-closed gets no more replies.
      if (this.#peerEof && this.#phase === Phase.Reading) this.destroy();
    } catch (err) {
      this.#fail(err, this.#req);
    } finally {
      this.#driving = false;
      this.#parsingLent = false;
    }
  }

  /** Stops reading until the client has taken enough of its replies. */
  #throttle(): void {
    this.#throttled = true;
    this.bev.disable(READ);
    this.bev.setWatermark(WRITE, this.http.outputHigh >>> 2, 0);
    this.bev.setCallbacks(this.#onReadable, this.#onDrained, this.#onEvent);
    this.deadline = this.http.deadlineAfter(this.http.timeoutMs); // a client that reads nothing is idle
  }

  #onDrained = (): void => {
    if (!this.#throttled || this.#phase === Phase.Closed) return;
    this.#throttled = false;
    if (!this.#yielded) this.#spent = 0;
    this.bev.setCallbacks(this.#onReadable, null, this.#onEvent);
    this.bev.setWatermark(WRITE, 0, 0);
    if (this.#phase !== Phase.Reading) return;
    this.deadline = this.http.deadlineAfter(this.http.timeoutMs);
    if (!this.#peerEof) this.bev.enable(READ);
    if (!this.#driving) this.#drive();
  };

  #onHead(head: RequestHead): void {
    const req = new EventHttpRequest();
    req.exchange = this;
    req.command = head.cmd;
    req.method = head.method;
    req.uri = head.target;
    req.major = head.versionMajor;
    req.minor = head.versionMinor;
    req.rawHost = head.host ?? '';
    req.setHead(head);
    this.#req = req;
    this.#head = head;
    const hasBody = head.chunked || (head.contentLength ?? 0) > 0;
    if ((req.command & this.http.allowed) === 0 && (hasBody || head.upgrade)) {
      // A method this server does not allow gets its answer before any of the body is read
      // (and before an upgrade is considered); the body cannot be told from a next request,
      // so the connection closes after the answer.
      this.#keepAlive = false;
      this.#phase = Phase.Handling;
      this.#sendPage(req, 405, null, [['Allow', this.http.allowHeader]], errorBody(405, statusText(405)));
      return;
    }
    if (hasBody) {
      // The whole body within the body timeout, and no pause longer than the idle timeout.
      this.#bodyDeadline = this.http.deadlineAfter(this.http.bodyMs);
      this.#bodyProgress();
      if (head.expectContinue) this.bev.output.add(CONTINUE);
    }
  }

  #bodyProgress(): void {
    const stall = this.http.deadlineAfter(this.http.timeoutMs);
    this.deadline = stall < this.#bodyDeadline ? stall : this.#bodyDeadline;
  }

  #onBody(chunk: Buffer): void {
    if (this.#phase !== Phase.Reading) return;
    const input = this.#req?.getInputBuffer();
    if (input === undefined) return;
    input.appendRead(chunk, this.#parsingLent);
    this.#bodyProgress();
  }

  #onComplete(): boolean {
    if (this.#phase !== Phase.Reading) return false;
    this.#phase = Phase.Handling;
    this.deadline = this.http.deadlineAfter(Infinity);
    return false; // pause: one request at a time
  }

  #run(req: EventHttpRequest): void {
    const head = this.#head as RequestHead;
    this.#spent++;
    this.#keepAlive = head.keepAlive;
    if ((req.command & this.http.allowed) === 0) {
      this.#sendPage(req, 405, null, [['Allow', this.http.allowHeader]], errorBody(405, statusText(405)));
      return;
    }
    this.#dispatch(req);
  }

  /** Runs the application's callback; one that throws costs its connection only. */
  #dispatch(req: EventHttpRequest): void {
    let handled: boolean;
    try {
      handled = this.http.serverFor(req).dispatch(req);
    } catch (err) {
      this.#fail(err, req);
      return;
    }
    if (!handled && !req.replied && this.#phase !== Phase.Closed)
      this.#sendPage(req, 404, 'Not Found', null, notFoundBody(req.uri));
  }

  /**
   * Something threw while this connection was served: it is logged and ends
   * this connection (with a 500 when no reply was started), never the process.
   */
  #fail(err: unknown, req: EventHttpRequest | null): void {
    try {
      this.http.logger.error(
        { err, method: req?.method, target: req?.uri },
        'EventHttp: a callback threw; the connection is closed',
      );
    } catch {
      // a logger that throws must not take the connection's clean-up with it
    }
    if (this.#phase === Phase.Closed) {
      if (this.#upgraded) {
        // The callback that owned the upgraded connection threw: nobody else will close it.
        this.bev.free();
        this.sock.destroy();
      }
      return;
    }
    if (req !== null && req.exchange === this && !req.replied && !this.#upgraded) {
      this.#keepAlive = false;
      try {
        this.#sendPage(req, 500, null, null, errorBody(500, statusText(500)));
        return;
      } catch {
        // fall through: close without a reply
      }
    }
    this.destroy(true);
  }

  #onParseError(err: HttpParseError): void {
    const req = this.#req ?? new EventHttpRequest();
    req.exchange = this;
    req.major = 1;
    req.minor = 1;
    this.#keepAlive = false;
    this.#sendPage(req, err.status, null, null, errorBody(err.status, statusText(err.status)));
  }

  #onUpgrade(head: RequestHead, rest: Buffer): void {
    this.#onHead(head);
    if (this.#phase !== Phase.Reading) return; // answered already (a method not allowed)
    this.#upgraded = true;
    this.#phase = Phase.Handling;
    this.deadline = Infinity;
    const req = this.#req as EventHttpRequest;
    // The application owns the connection from now on: the bytes after the head wait in its input.
    if (rest.length > 0) this.bev.input.prepend(rest);
    this.bev.setCallbacks(null, null, null);
    this.http.forget(this);
    this.#dispatch(req);
  }

  #onEvent = (_b: EventBufferEvent, events: number): void => {
    if ((events & (EventBufferEvent.EOF | EventBufferEvent.ERROR | EventBufferEvent.TIMEOUT)) === 0) return;
    if ((events & EventBufferEvent.EOF) !== 0 && !this.#upgraded) {
      // The client half-closed after sending its requests: answer every complete one, then close.
      this.#peerEof = true;
      if (this.#phase === Phase.Reading && !this.#driving && !this.#throttled && !this.#yielded) this.#drive();
      return;
    }
    this.destroy();
  };

  // ------------------------------------------------------------ output (Exchange)

  reply(req: ExchangeRequest, code: number, reason: string | null, body: EventBuffer | null): void {
    if (this.#gone(req, code)) {
      body?.drain(body.length);
      return;
    }
    const out = this.bev.output;
    const noBody = req.command === CMD_HEAD || code < 200 || code === 204 || code === 304;
    const own = req.outputBufferIfAny;
    const len = (own?.length ?? 0) + (body?.length ?? 0);
    this.#spent += len >>> 10;
    const head = this.http.headCache.build(
      req,
      code,
      reason,
      noBody ? (code < 200 || code === 204 || code === 304 ? -1 : len) : len,
      false,
      this.#keepsAlive(),
      this.http.base,
    );
    const room = noBody || len > COPY_BODY_MAX ? 0 : len; // a small body goes in the head's chunk
    // The only reply of this turn (no pipelined request behind it): its chunk is sized exactly.
    const alone = out.length === 0 && this.#pending === null && this.bev.input.length === 0;
    const text = !noBody && own === null ? (body?.pendingText ?? null) : null;
    if (text !== null && this.http.headCache.appendKept(out, head, text, alone)) {
      // The same reply as the last one (a health check, a fixed answer): its kept bytes go out as they are
      // (a lone reply), or are copied once into the chunk of a pipelined batch's replies.
      (body as EventBuffer).drain(len);
      this.#finish(req, code);
      return;
    }
    this.http.headCache.append(out, head, room, alone);
    if (noBody) {
      own?.drain(own.length);
      body?.drain(body.length);
    } else if (text !== null && this.http.headCache.appendText(out, text)) {
      (body as EventBuffer).drain(len); // the same text as before: copied from its bytes
    } else {
      appendBody(out, own);
      appendBody(out, body);
    }
    this.#finish(req, code);
  }

  error(req: ExchangeRequest, code: number, reason: string | null): void {
    if (this.#gone(req, code)) return;
    const r = reason ?? statusText(code);
    this.#keepAlive = false;
    this.#sendPage(req, code, r, null, errorBody(code, r));
  }

  startChunked(req: ExchangeRequest, code: number, reason: string | null): void {
    if (this.#gone(req, code)) return;
    const userLength = req.output.has('Content-Length');
    const http11 = !(req.major === 1 && req.minor === 0);
    const noBody = req.command === CMD_HEAD;
    if (!http11) this.#keepAlive = false;
    this.#chunked = noBody || userLength ? 0 : http11 ? 1 : 2;
    if (this.#chunked === 1) req.output.add('Transfer-Encoding', 'chunked');
    this.bev.output.addLatin1(
      this.http.headCache.build(req, code, reason, -1, false, this.#keepsAlive(), this.http.base),
    );
    req.responseCode = code;
    req.replied = true; // no second reply; chunks and end go through chunk()/endChunked()
    req.streaming = true;
  }

  chunk(req: ExchangeRequest, buf: EventBuffer): void {
    if (!req.streaming || buf.length === 0) return;
    const out = this.bev.output;
    if (req.command === CMD_HEAD || this.#phase === Phase.Closed) {
      buf.drain(buf.length);
      return;
    }
    this.#spent += buf.length >>> 10;
    if (this.#chunked === 1) {
      out.add(`${buf.length.toString(16)}\r\n`);
      out.addBuffer(buf);
      out.add('\r\n');
    } else {
      out.addBuffer(buf);
    }
  }

  endChunked(req: ExchangeRequest): void {
    if (!req.streaming) return;
    req.streaming = false;
    if (this.#chunked === 1 && req.command !== CMD_HEAD && this.#phase !== Phase.Closed)
      this.bev.output.add('0\r\n\r\n');
    this.#chunked = 0;
    this.#finish(req, req.responseCode);
  }

  closeConnection(): void {
    this.destroy();
  }

  /** A reply for a connection that is closed already (the client left): nothing is queued. */
  #gone(req: ExchangeRequest, code: number): boolean {
    if (this.#phase !== Phase.Closed || this.#upgraded) return false;
    req.replied = true;
    req.responseCode = code;
    req.exchange = null;
    return true;
  }

  cancel(): void {}

  bufferEvent(): EventBufferEvent | null {
    return this.#phase === Phase.Closed ? null : this.bev;
  }

  connection(): HttpServerConnection {
    return this;
  }

  /**
   * Calls `cb(connection, arg)` when the connection closes.
   * @example
   * ```ts
   * req.getConnection()?.setCloseCallback(() => console.log('_close_callback'));
   * ```
   */
  setCloseCallback<A>(cb: (conn: HttpServerConnection, arg: A) => void, arg?: A): void {
    this.#closeCb = { cb: cb as (conn: HttpServerConnection, arg: unknown) => void, arg };
  }

  /**
   * The peer's address and port.
   * @example
   * ```ts
   * req.getConnection()?.getPeer(); // { address: '127.0.0.1', port: 50312 }
   * ```
   */
  getPeer(): { address: string; port: number } | false {
    const a = this.sock.remoteAddress;
    const p = this.sock.remotePort;
    return a !== undefined && p !== undefined ? { address: a, port: p } : false;
  }

  /**
   * The EventBase of the connection.
   * @example
   * ```ts
   * req.getConnection()?.getBase().exit(); // stop the loop after this iteration
   * ```
   */
  getBase(): EventBase {
    return this.http.base;
  }

  /**
   * The server shuts down: every request received (read, in part or whole)
   * is answered, and the reply with nothing received behind it is the last
   * (`Connection: close`). Between requests, the client has until `grace`
   * (coarse clock) to send one more: it may be on its way already.
   */
  lastCall(grace: number): void {
    this.#lastCall = true;
    if (this.#idle) {
      this.deadline = grace;
    } else {
      const last = this.http.deadlineAfter(Infinity); // the shutdown's deadline
      if (this.deadline > last) this.deadline = last;
    }
  }

  /**
   * Whether the reply being built leaves the connection open: when the
   * request asked for it and, once the server shuts down, only while more
   * of what the client sent is waiting to be answered.
   */
  #keepsAlive(): boolean {
    if (this.#lastCall && this.#keepAlive && !this.#received) this.#keepAlive = false;
    return this.#keepAlive;
  }

  /** Bytes received and not parsed yet (the rest of a pipelined batch, the input, a held read). */
  get #received(): boolean {
    return this.#pending !== null || this.bev.input.length > 0 || this.bev.heldLength > 0;
  }

  /** No request begun, none waiting: between requests of a keep-alive connection. */
  get #idle(): boolean {
    return this.#phase === Phase.Reading && this.parser.idle && !this.#received;
  }

  /**
   * The sweep found this connection past its deadline. Between requests
   * (the idle timeout, the end of a shutdown's grace) it is closed
   * gracefully: a FIN, and what the client still sends is read and dropped,
   * so a request that crossed the close meets the end of the connection,
   * not a reset. Anything else (a head or body too slow, a reader too slow,
   * the shutdown deadline) is destroyed at once.
   */
  expire(): void {
    this.destroy(!this.#idle || this.#throttled || this.bev.unsentLength > 0);
  }

  /**
   * Closes the connection. `force` (a deadline passed, a callback threw):
   * the socket is destroyed at once, unsent output dropped, instead of
   * being flushed first.
   */
  destroy(force = false): void {
    if (this.#phase === Phase.Closed) return;
    this.#phase = Phase.Closed;
    if (!this.#upgraded) {
      this.bev.free();
      if (force) this.sock.destroy();
      this.http.forget(this);
    } else if (force) {
      this.bev.free();
      this.sock.destroy();
    }
    this.#runCloseCallback();
  }

  #runCloseCallback(): void {
    const cb = this.#closeCb;
    this.#closeCb = null;
    if (cb === null) return;
    try {
      cb.cb(this, cb.arg);
    } catch (err) {
      this.http.logger.error({ err }, 'EventHttp: a close callback threw');
    }
  }

  // ------------------------------------------------------------ helpers

  #sendPage(
    req: ExchangeRequest,
    code: number,
    reason: string | null,
    extra: [string, string][] | null,
    body: string,
  ): void {
    const r = reason ?? statusText(code);
    this.#keepAlive = code === 404 || code === 405 ? this.#keepsAlive() : false;
    req.output.clear();
    req.output.add('Content-Type', 'text/html');
    if (extra !== null) for (const [k, v] of extra) req.output.add(k, v);
    const noBody = req.command === CMD_HEAD;
    const bytes = Buffer.byteLength(body);
    this.bev.output.addLatin1(this.http.headCache.build(req, code, r, bytes, true, this.#keepAlive, this.http.base));
    if (!noBody) this.bev.output.add(body);
    this.#finish(req, code);
  }

  /** After a complete reply: next request, or close. */
  #finish(req: ExchangeRequest, code: number): void {
    req.replied = true;
    req.responseCode = code;
    req.exchange = null;
    if (this.#phase === Phase.Closed) return;
    this.#req = null;
    this.#head = null;
    if (this.#upgraded) {
      // 101: the application owns the connection now. Anything else declines the upgrade:
      // the bytes after the head cannot be parsed as HTTP, so the connection ends here.
      this.#phase = Phase.Closed;
      if (code !== 101) this.bev.free();
      return;
    }
    if (!this.#keepAlive || this.parser.error !== null) {
      this.#phase = Phase.Closed;
      this.bev.free(); // sends what is queued, then closes
      this.http.forget(this);
      this.#runCloseCallback();
      return;
    }
    this.#phase = Phase.Reading;
    this.deadline = this.http.deadlineAfter(this.http.timeoutMs);
    this.parser.resume();
    if (this.#throttled) return; // the drain restarts reading
    if ((this.bev.getEnabled() & READ) === 0 && !this.#peerEof) this.bev.enable(READ);
    if (!this.#driving) this.#drive();
  }
}

/** Bodies up to this size are copied behind the head: replies of a pipelined batch leave as one write. */
const COPY_BODY_MAX = 2048;

function appendBody(out: EventBuffer, body: EventBuffer | null): void {
  if (body === null) return;
  const n = body.length;
  if (n === 0) return;
  if (n > COPY_BODY_MAX || !out.appendCopyOf(body)) out.addBuffer(body);
}

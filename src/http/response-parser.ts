/**
 * The response front end of the HTTP/1.1 codec: {@link ResponseParser}
 * (client side) parses status lines and decides how each response's body is
 * delimited (RFC 9112 6.3), given the requests it answers; the state
 * machine it runs on is `machine.ts`.
 *
 * @module
 */
import { VALUE, isDigit, latin1 } from './chars.js';
import { ResponseHead } from './head.js';
import {
  CONN_CLOSE,
  CONN_KEEP_ALIVE,
  HttpMessageParser,
  NEED,
  S_START,
  S_UPGRADED,
  type MessageHandlers,
  type ParserLimits,
} from './machine.js';

/**
 * Most interim (1xx) responses accepted before a final one: the 101st fails
 * with `ERR_HTTP_TOO_MANY_INTERIM`. Real servers send a few (100 Continue, a
 * 103 Early Hints, 102 Processing now and then); an endless run of them would
 * otherwise keep a client parsing heads for ever.
 * @internal
 * @example
 * ```ts
 * const flood = 'HTTP/1.1 103 Early Hints\r\n\r\n'.repeat(MAX_INTERIM_RESPONSES + 1); // refused
 * ```
 */
export const MAX_INTERIM_RESPONSES = 100;

/**
 * Callbacks of a {@link ResponseParser}.
 *
 * @example
 * ```ts
 * let status = 0;
 * const handlers: ResponseHandlers = {
 *   onResponse(head) { status = head.statusCode; },
 *   onInformational(head) { if (head.statusCode === 100) socket.write('{"name":"a"}'); }, // the body waited for 100 Continue
 * };
 * ```
 */
export interface ResponseHandlers extends MessageHandlers {
  /** A final (non-1xx) response head is complete. */
  onResponse(head: ResponseHead): void;
  /** An interim 1xx response (other than 101) was read and skipped. */
  onInformational?(head: ResponseHead): void;
  /**
   * A 101 Switching Protocols, or a 2xx answer to CONNECT: the parser stops
   * and `rest` holds every byte after the head.
   */
  onUpgrade?(head: ResponseHead, rest: Buffer): void;
}

/**
 * Incremental HTTP/1.1 response parser (client side), with the same
 * strictness and limits as `RequestParser` (`maxRequestLineBytes`
 * does not apply; the status line counts in `maxHeaderBytes`).
 *
 * Body length (RFC 9112 6.3): none for answers to HEAD, for 1xx, 204 and
 * 304; chunked when Transfer-Encoding ends with `chunked`; Content-Length;
 * otherwise until the connection closes (call `finish()` at the end of the
 * input). Interim 1xx responses are reported to `onInformational` and
 * skipped, at most {@link MAX_INTERIM_RESPONSES} (100) before each final
 * response (then `ERR_HTTP_TOO_MANY_INTERIM`); 101, and a 2xx answer to CONNECT, stop the parser
 * (`onUpgrade`). Tell the parser what each request was with
 * `addRequest(method)`, in sending order; without it, responses are taken as
 * answers to GET. A reason phrase may be absent (`HTTP/1.1 200\r\n`).
 *
 * @example
 * ```ts
 * import { ResponseParser } from 'eventide/http';
 * const parts: Buffer[] = [];
 * const parser = new ResponseParser({
 *   onResponse(head) { console.log(head.statusCode); },         // 200
 *   onBody(chunk) { parts.push(Buffer.from(chunk)); },
 *   onMessageComplete() { console.log(Buffer.concat(parts).toString()); }, // hello
 * });
 * parser.addRequest('GET');
 * parser.execute(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'));
 * ```
 */
export class ResponseParser extends HttpMessageParser {
  private readonly h: ResponseHandlers;
  private readonly methods: string[] = [];
  private status = 0;
  private reasonS = 0;
  private reasonE = 0;
  private head: ResponseHead | null = null;
  private interim = false;
  /** Interim responses read since the last final one. */
  private interims = 0;

  /**
   * @param handlers the callbacks (`onResponse` is required).
   * @param limits size limits (see {@link ParserLimits}).
   * @example
   * ```ts
   * const p = new ResponseParser({ onResponse: (h) => console.log(h.statusCode) }, { maxBodyBytes: 1 << 24 });
   * ```
   */
  constructor(handlers: ResponseHandlers, limits: ParserLimits = {}) {
    super(handlers, limits);
    this.h = handlers;
  }

  /**
   * Records that a request with this method was sent; responses are matched
   * to requests in order (HEAD and CONNECT change how a response is read).
   *
   * @example
   * ```ts
   * const parser = new ResponseParser({ onResponse: (head) => console.log(head.statusCode) });
   * socket.write('HEAD / HTTP/1.1\r\nHost: a\r\n\r\n');
   * parser.addRequest('HEAD'); // its response has no body, whatever its Content-Length
   * ```
   */
  addRequest(method: string): void {
    this.methods.push(method);
  }

  /** @internal */
  protected override resetSubclass(): void {
    this.status = 0;
  }

  /** @internal */
  override reset(): void {
    this.methods.length = 0;
    this.interims = 0;
    super.reset();
  }

  /** @internal */
  protected override parseStartLine(buf: Buffer, base: number, pos: number, end: number): number {
    const lf = buf.indexOf(10, pos);
    if (lf < 0 || lf >= end) {
      if (end - base > this.maxHeaderBytes)
        return this.fail('ERR_HTTP_HEADER_TOO_LARGE', `Response head larger than ${this.maxHeaderBytes} bytes`);
      this.lineStart = pos - base;
      return NEED;
    }
    if (lf === pos || buf[lf - 1] !== 13)
      return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Status line ends with a bare LF');
    const le = lf - 1;
    if (lf + 1 - base > this.maxHeaderBytes)
      return this.fail('ERR_HTTP_HEADER_TOO_LARGE', `Response head larger than ${this.maxHeaderBytes} bytes`);
    const i = pos;
    if (
      le - i < 12 ||
      buf[i] !== 72 ||
      buf[i + 1] !== 84 ||
      buf[i + 2] !== 84 ||
      buf[i + 3] !== 80 ||
      buf[i + 4] !== 47 ||
      !isDigit(buf[i + 5]!) ||
      buf[i + 6] !== 46 ||
      !isDigit(buf[i + 7]!) ||
      buf[i + 8] !== 32 ||
      !isDigit(buf[i + 9]!) ||
      !isDigit(buf[i + 10]!) ||
      !isDigit(buf[i + 11]!) ||
      (le > i + 12 && buf[i + 12] !== 32)
    ) {
      return this.fail('ERR_HTTP_BAD_STATUS_LINE', `Invalid status line: ${latin1(buf, pos, le)}`);
    }
    if (buf[i + 5] !== 49)
      return this.fail('ERR_HTTP_UNSUPPORTED_VERSION', `HTTP version not supported: ${latin1(buf, i, i + 8)}`);
    const status = (buf[i + 9]! - 48) * 100 + (buf[i + 10]! - 48) * 10 + (buf[i + 11]! - 48);
    if (status < 100 || status > 599) return this.fail('ERR_HTTP_BAD_STATUS_LINE', `Invalid status code ${status}`);
    let k = i + 13;
    while (k < le && VALUE[buf[k]!] === 1) k++;
    if (k < le) return this.fail('ERR_HTTP_BAD_STATUS_LINE', 'Invalid character in the reason phrase');
    this.major = 1;
    this.minor = buf[i + 7]! - 48;
    this.status = status;
    this.reasonS = (le > i + 12 ? i + 13 : le) - base;
    this.reasonE = le - base;
    return lf + 1;
  }

  /** @internal */
  protected override inspectField(buf: Buffer, _base: number, ns: number, ne: number, vs: number, ve: number): boolean {
    return this.inspectCommon(buf, ns, ne, vs, ve);
  }

  /** @internal */
  protected override completeHead(buf: Buffer, base: number, end: number): number {
    const status = this.status;
    const v11 = this.minor >= 1;
    if (this.teCount > 0) {
      if (this.cl >= 0) return this.fail('ERR_HTTP_SMUGGLING', 'Both Content-Length and Transfer-Encoding');
      if (this.chunkedCount > 1)
        return this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The chunked coding is applied more than once');
      if (this.chunkedCount === 1 && !this.teLastChunked)
        return this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The final transfer coding is not chunked');
    }
    this.interim = status < 200 && status !== 101;
    if (!this.interim) this.interims = 0;
    else if (++this.interims > MAX_INTERIM_RESPONSES)
      return this.fail(
        'ERR_HTTP_TOO_MANY_INTERIM',
        `More than ${MAX_INTERIM_RESPONSES} interim (1xx) responses before a final one`,
      );
    const method = this.interim || this.methods.length === 0 ? 'GET' : this.methods[0]!;
    const upgrade = status === 101 || (method === 'CONNECT' && status < 300 && status >= 200);
    let chunked = false;
    let length = 0; // -1: until close
    if (!this.interim && !upgrade && method !== 'HEAD' && status !== 204 && status !== 304) {
      if (this.teCount > 0) {
        if (this.teLastChunked) chunked = true;
        else length = -1;
      } else length = this.cl >= 0 ? this.cl : -1;
      if (length > this.maxBodyBytes)
        return this.fail('ERR_HTTP_BODY_TOO_LARGE', `Content-Length ${length} is larger than ${this.maxBodyBytes}`);
    }
    if (!this.interim) this.methods.shift();
    const conn = this.conn;
    let keepAlive = (conn & CONN_CLOSE) === 0 && (v11 || (conn & CONN_KEEP_ALIVE) !== 0);
    if (length < 0 || upgrade) keepAlive = false;
    const raw = latin1(buf, base, end);
    this.head = new ResponseHead(
      raw,
      this.takeOffsets(),
      status,
      raw.slice(this.reasonS, this.reasonE),
      1,
      this.minor,
      this.cl >= 0 ? this.cl : null,
      chunked,
      keepAlive,
      upgrade,
    );
    this.remaining = length;
    return 0;
  }

  /** @internal */
  protected override emitHead(chunk: Buffer, pos: number): number {
    const head = this.head!;
    this.head = null;
    const h = this.h;
    if (this.interim) {
      this.state = S_START;
      if (h.onInformational !== undefined) h.onInformational(head);
      return pos;
    }
    if (head.upgrade) {
      this.state = S_UPGRADED;
      if (h.onUpgrade !== undefined) h.onUpgrade(head, chunk.subarray(pos));
      return pos;
    }
    const hasBody = this.startBody(head.chunked, head.chunked ? 0 : this.remaining);
    h.onResponse(head);
    if (!hasBody && this.state === S_START) this.messageDone(null);
    return pos;
  }
}

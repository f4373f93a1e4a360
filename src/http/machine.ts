/**
 * The HTTP/1.1 state machine shared by the request and response parsers:
 * input handling, limits, the head scanner, framing fields, bodies and
 * chunked decoding. The start line and what a head means are the front
 * ends' business (`request-parser.ts`, `response-parser.ts`).
 *
 * Pure code: no sockets, no timers, no event loop. Feed bytes with
 * `execute(chunk)` as they arrive (split anywhere: inside a CRLF, a chunk
 * size, a body) and receive events through the callbacks given to the
 * constructor. Built for the hot path of a server:
 *
 * - the head is scanned byte by byte with 256-entry lookup tables (no
 *   regular expressions, no string splitting), then decoded **once** as a
 *   latin1 string; header names and values are substrings of it, and the
 *   `[name, value]` pairs are only materialised when `headers` is read;
 * - bodies are handed out as views (`subarray`) of the input chunks, never
 *   copied; only a head (or trailer section) split across chunks is copied,
 *   into a buffer reused from message to message;
 * - a message costs a handful of small allocations (the head string, its
 *   offsets, the head object, the target string).
 *
 * The parsers follow RFC 9110/9112 strictly; everything they refuse is
 * reported once through `onError` as an {@link HttpParseError} carrying the
 * status a server answers with, after which they refuse all input.
 *
 * ## Documented choices (both parsers)
 *
 * - **Line endings.** Every line of the head, of a chunk size and of the
 *   trailers must end with CRLF. A bare LF (which libevent accepts) and a
 *   bare CR are rejected with 400 `ERR_HTTP_BAD_LINE_ENDING`: disagreeing
 *   about line ends is a classic request-smuggling vector, and Node's llhttp
 *   rejects them too. Empty lines (CRLF, or a lone LF) *before* a request
 *   line are skipped, as RFC 9112 2.2 recommends.
 * - **Chunk lines.** `chunk-size [ chunk-ext ] CRLF` exactly as RFC 9112
 *   7.1.1 writes it: 1 to 16 hex digits (value at most 2^53-1), no sign,
 *   no `0x`, no whitespace after the size unless a `;` extension follows
 *   (BWS is allowed before `;` and around `=` because the grammar allows it;
 *   llhttp refuses that whitespace). A chunk line longer than
 *   {@link MAX_CHUNK_LINE_BYTES} is refused.
 * - **Content-Length.** `1*DIGIT` surrounded by optional whitespace; a list
 *   of identical values (`5, 5`) and repeated identical fields are one
 *   value (RFC 9110 8.6); differing values are smuggling (400). Values above
 *   2^53-1 are refused with 413.
 * - **Transfer-Encoding.** Only `chunked` is implemented. Both CL and TE →
 *   400 (`ERR_HTTP_SMUGGLING`); `chunked` twice, or not final (`chunked,
 *   identity`) → 400; a single other coding (`gzip`, `xchunked`) or another
 *   coding before `chunked` (`gzip, chunked`) → 501 (RFC 9112 6.1). An
 *   HTTP/1.0 request with `Transfer-Encoding: chunked` is accepted but never
 *   kept alive (RFC 9112 6.1).
 *
 * The rules of the start line, the request-target, Host, Expect and
 * Upgrade are documented in `request-parser.ts`.
 *
 * @module
 */
import { HttpParseError, type HttpErrorCode } from './errors.js';
import { HEX, QDTEXT, QPAIR, TCHAR, asciiLower, eqLower, latin1 } from './chars.js';
import type { HeaderPair } from './head.js';

/**
 * Size limits of a parser; set at construction, changeable at any time
 * through the parser's properties of the same names or `setLimits()`.
 *
 * @example
 * ```ts
 * const p = new RequestParser({ onRequest: (head) => console.log(head.target) }, { maxHeaderBytes: 16384, maxBodyBytes: 1 << 20 });
 * p.setLimits({ maxBodyBytes: 10 << 20 }); // e.g. after authentication
 * ```
 */
export interface ParserLimits {
  /**
   * Bytes of the head: request (or status) line, header fields and the
   * final empty line, CRLFs included. Also the limit of a trailer section.
   * Over it: 431 (`ERR_HTTP_HEADER_TOO_LARGE`). Default 8192.
   */
  maxHeaderBytes?: number;
  /** Header (or trailer) fields per message; over it: 431. Default 100. */
  maxHeaderCount?: number;
  /**
   * Bytes of the request line without its CRLF; over it: 414
   * (`ERR_HTTP_URI_TOO_LONG`). Default 8192. Not used by the response parser.
   */
  maxRequestLineBytes?: number;
  /**
   * Body bytes per message (`Infinity` = unlimited, the default). A larger
   * Content-Length is refused from the head, before any body byte; a chunked
   * body as soon as a chunk size takes the total over it. 413.
   */
  maxBodyBytes?: number;
}

/**
 * The default limits.
 *
 * @example
 * ```ts
 * console.log(DEFAULT_LIMITS.maxHeaderBytes); // 8192
 * ```
 */
export const DEFAULT_LIMITS: Readonly<Required<ParserLimits>> = Object.freeze({
  maxHeaderBytes: 8192,
  maxHeaderCount: 100,
  maxRequestLineBytes: 8192,
  maxBodyBytes: Infinity,
});

/**
 * The longest chunk-size line (size, extensions and CRLF) a parser accepts;
 * longer ones are `ERR_HTTP_BAD_CHUNK` (bounds the work spent on extensions).
 *
 * @example
 * ```ts
 * console.log(MAX_CHUNK_LINE_BYTES); // 4096
 * ```
 */
export const MAX_CHUNK_LINE_BYTES = 4096;

/**
 * Callbacks shared by both parsers.
 *
 * @example
 * ```ts
 * const parts: Buffer[] = [];
 * const common: MessageHandlers = {
 *   onBody(chunk) { parts.push(Buffer.from(chunk)); }, // a copy: the chunk is a view of the input
 *   onMessageComplete(trailers) { console.log(Buffer.concat(parts).length, trailers); },
 *   onError(err) { console.error(err.status, err.code); },
 * };
 * ```
 */
export interface MessageHandlers {
  /**
   * A piece of the body (de-chunked). It is a view of the chunk given to
   * `execute()`: copy it if you keep it after that chunk is reused.
   */
  onBody?(chunk: Buffer): void;
  /**
   * The message is complete. `trailers` are the trailer fields of a chunked
   * body, or `null` when there are none. Return `false` to pause the parser
   * right after this message (see `pause()`).
   */
  onMessageComplete?(trailers: HeaderPair[] | null): boolean | void;
  /** The input was refused; the parser accepts nothing more. */
  onError?(err: HttpParseError): void;
}

// ---------------------------------------------------------------------------
// The state machine
// ---------------------------------------------------------------------------

/**
 * Cheap pre-filter of the header names the parser interprets:
 * `INTERESTING[length & 255] === FIRST_LOWER[first byte]` (a per-name tag;
 * the two defaults never match). `inspectField` re-checks the whole name.
 */
const INTERESTING = new Uint8Array(256);
const FIRST_LOWER = new Uint8Array(256).fill(255);
(
  [
    ['host', 1],
    ['expect', 2],
    ['upgrade', 3],
    ['connection', 4],
    ['content-length', 4],
    ['transfer-encoding', 5],
  ] as const
).forEach(([name, tag]) => {
  INTERESTING[name.length] = tag;
  FIRST_LOWER[name.charCodeAt(0)] = tag;
  FIRST_LOWER[name.charCodeAt(0) - 32] = tag;
});

const B_UPGRADE = asciiLower('upgrade');
const B_CONNECTION = asciiLower('connection');
const B_CONTENT_LENGTH = asciiLower('content-length');
const B_TRANSFER_ENCODING = asciiLower('transfer-encoding');
const B_CHUNKED = asciiLower('chunked');
const B_CLOSE = asciiLower('close');
const B_KEEP_ALIVE = asciiLower('keep-alive');

/**
 * A step needs more input: with {@link FAIL}, what a step of the machine
 * returns instead of the position it got to.
 * @internal
 * @example
 * ```ts
 * const outcome = (r: number): string => (r === NEED ? 'more input' : r === FAIL ? 'refused' : `at ${r}`);
 * ```
 */
export const NEED = -1;
/** A step failed (the error was reported); see {@link NEED}. @internal */
export const FAIL = -2;

/**
 * State: between messages (skipping empty lines). With {@link S_UPGRADED},
 * the states the front ends (`request-parser.ts`, `response-parser.ts`) test.
 * @internal
 * @example
 * ```ts
 * class Probe extends RequestParser {
 *   get between(): boolean { return this.state === S_START; }
 *   get handedOver(): boolean { return this.state === S_UPGRADED; }
 * }
 * ```
 */
export const S_START = 0;
const S_START_LF = 1; // between messages, after a CR
const S_HEAD = 2; // inside a head or trailer section
const S_BODY = 3; // Content-Length body
const S_BODY_EOF = 4; // response body delimited by the end of the connection
const S_CHUNK_SIZE = 5; // chunk-size digits
const S_CHUNK_SIZE_BWS = 6; // whitespace after the size (a ';' must follow)
const S_EXT_NAME_BWS = 7; // after ';'
const S_EXT_NAME = 8;
const S_EXT_NAME_BWS_AFTER = 9; // whitespace after a name ('=' or ';' must follow)
const S_EXT_VALUE_BWS = 10; // after '='
const S_EXT_TOKEN = 11;
const S_EXT_QUOTED = 12;
const S_EXT_QPAIR = 13;
const S_EXT_AFTER_VALUE = 14; // whitespace after a value (';' must follow)
const S_CHUNK_SIZE_LF = 15; // CR seen, LF expected
const S_CHUNK_DATA = 16;
const S_CHUNK_DATA_CR = 17;
const S_CHUNK_DATA_LF = 18;
/** Terminal state: the connection was handed over; see {@link S_START}. @internal */
export const S_UPGRADED = 19;
const S_ERROR = 20; // terminal

/**
 * `Connection: close` was seen: the first of the bits of the `Connection`
 * options a head carries ({@link CONN_CLOSE}, {@link CONN_KEEP_ALIVE},
 * {@link CONN_UPGRADE}).
 * @internal
 * @example
 * ```ts
 * class Probe extends RequestParser {
 *   get closing(): boolean { return (this.conn & CONN_CLOSE) !== 0; }
 *   get upgrading(): boolean { return (this.conn & CONN_UPGRADE) !== 0; }
 * }
 * ```
 */
export const CONN_CLOSE = 1;
/** `Connection: keep-alive` was seen; see {@link CONN_CLOSE}. @internal */
export const CONN_KEEP_ALIVE = 2;
/** `Connection: upgrade` was seen; see {@link CONN_CLOSE}. @internal */
export const CONN_UPGRADE = 4;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function validateLimit(name: string, v: number, allowInfinity: boolean): number {
  if (
    typeof v !== 'number' ||
    Number.isNaN(v) ||
    v < 0 ||
    (!Number.isInteger(v) && !(allowInfinity && v === Infinity))
  ) {
    throw new RangeError(
      `${name} must be a non-negative integer${allowInfinity ? ' or Infinity' : ''}, got ${String(v)}`,
    );
  }
  return v;
}

/**
 * The machinery shared by `RequestParser` and `ResponseParser`:
 * input handling, limits, the head scanner, bodies and chunked decoding.
 * Not instantiable; use one of the two subclasses.
 *
 * @example
 * ```ts
 * function feed(parser: HttpMessageParser, socket: import('node:net').Socket): void {
 *   socket.on('data', (chunk) => parser.execute(chunk));
 *   socket.on('end', () => parser.finish());
 * }
 * ```
 */
export abstract class HttpMessageParser {
  /** See {@link ParserLimits.maxHeaderBytes}. */
  maxHeaderBytes: number;
  /** See {@link ParserLimits.maxHeaderCount}. */
  maxHeaderCount: number;
  /** See {@link ParserLimits.maxRequestLineBytes}. */
  maxRequestLineBytes: number;
  /** See {@link ParserLimits.maxBodyBytes}. */
  maxBodyBytes: number;

  /** @internal */ protected readonly mh: MessageHandlers;
  /** @internal */ protected state = S_START;
  /** @internal */ protected pausedFlag = false;
  /** @internal */ protected running = false;
  /** @internal */ protected err: HttpParseError | null = null;

  // head / trailer accumulation
  /** @internal */ protected hbuf: Buffer | null = null;
  /** @internal */ protected hlen = 0;
  /** @internal */ protected lineStart = 0;
  /** @internal */ protected phase = 0; // 0: start line, 1: field lines
  /** @internal */ protected trailerMode = false;
  /** @internal */ protected scratch: number[] = [];
  /** @internal */ protected nOffs = 0;

  // per-message header facts
  /** @internal */ protected cl = -1;
  /** @internal */ protected teCount = 0;
  /** @internal */ protected chunkedCount = 0;
  /** @internal */ protected teLastChunked = false;
  /** @internal */ protected conn = 0;
  /** @internal */ protected hasUpgrade = false;
  /** @internal */ protected major = 0;
  /** @internal */ protected minor = 0;

  // body
  /** @internal */ protected remaining = 0;
  /** @internal */ protected bodyTotal = 0;
  /** @internal */ protected chunkSize = 0;
  /** @internal */ protected chunkDigits = 0;
  /** @internal */ protected chunkLine = 0;

  /** @internal */
  constructor(handlers: MessageHandlers, limits: ParserLimits) {
    this.mh = handlers;
    this.maxHeaderBytes = DEFAULT_LIMITS.maxHeaderBytes;
    this.maxHeaderCount = DEFAULT_LIMITS.maxHeaderCount;
    this.maxRequestLineBytes = DEFAULT_LIMITS.maxRequestLineBytes;
    this.maxBodyBytes = DEFAULT_LIMITS.maxBodyBytes;
    this.setLimits(limits);
  }

  /**
   * Changes some limits; they apply from the next check on.
   *
   * @throws RangeError when a value is negative or not an integer
   *   (`maxBodyBytes` may also be `Infinity`).
   * @example
   * ```ts
   * parser.setLimits({ maxBodyBytes: 1024 * 1024 });
   * ```
   */
  setLimits(limits: ParserLimits): void {
    if (limits.maxHeaderBytes !== undefined)
      this.maxHeaderBytes = validateLimit('maxHeaderBytes', limits.maxHeaderBytes, false);
    if (limits.maxHeaderCount !== undefined)
      this.maxHeaderCount = validateLimit('maxHeaderCount', limits.maxHeaderCount, false);
    if (limits.maxRequestLineBytes !== undefined)
      this.maxRequestLineBytes = validateLimit('maxRequestLineBytes', limits.maxRequestLineBytes, false);
    if (limits.maxBodyBytes !== undefined) this.maxBodyBytes = validateLimit('maxBodyBytes', limits.maxBodyBytes, true);
  }

  /**
   * Parses bytes. Any number of calls, split anywhere. Events are delivered
   * synchronously, in order; several pipelined messages in one chunk are all
   * parsed unless the parser is paused.
   *
   * @param start where in `chunk` to begin (default 0): the offset a paused
   *   call returned, so the rest of a pipelined batch needs no `subarray()`.
   * @returns the offset in `chunk` where parsing stopped (with `start` 0, the
   *   number of bytes consumed): `chunk.length`, or less when the parser
   *   paused at a message boundary (feed the rest, from that offset, after
   *   `resume()`), when it stopped for an upgrade (the rest was handed to
   *   `onUpgrade`), or when it failed (the offset where the failing element
   *   began). Once failed or upgraded it consumes nothing (returns `start`);
   *   while paused it consumes nothing more once at a message boundary.
   * @throws Error when called from inside one of its own callbacks. An
   *   exception thrown by a callback propagates; the parser should then be
   *   dropped or `reset()`.
   * @throws RangeError when `start` is not an offset within `chunk`.
   * @example
   * ```ts
   * declare function answer(): Promise<void>; // writes the response to the request just parsed
   * socket.on('data', async (chunk: Buffer) => {
   *   socket.pause();
   *   let at = parser.execute(chunk);
   *   while (at < chunk.length && parser.paused) {
   *     await answer(); // one request at a time
   *     parser.resume();
   *     at = parser.execute(chunk, at);
   *   }
   *   socket.resume();
   * });
   * ```
   */
  execute(chunk: Buffer, start = 0): number {
    if (this.state >= S_UPGRADED) return start;
    if (this.running) throw new Error('execute() called from inside a parser callback');
    if (!(start >= 0 && start <= chunk.length && Number.isInteger(start)))
      throw new RangeError(`start ${start} is not an offset within the chunk (0-${chunk.length})`);
    this.running = true;
    try {
      return this.run(chunk, start);
    } finally {
      this.running = false;
    }
  }

  /**
   * Tells the parser the input ended (the peer closed). A response whose
   * body runs until the close completes now; a message cut short is an
   * `ERR_HTTP_INCOMPLETE` error; between messages nothing happens.
   *
   * @example
   * ```ts
   * socket.on('end', () => parser.finish());
   * ```
   */
  finish(): void {
    const st = this.state;
    if (st === S_START || st === S_START_LF || st >= S_UPGRADED) return;
    if (st === S_BODY_EOF) {
      this.messageDone(null);
      return;
    }
    this.fail('ERR_HTTP_INCOMPLETE', 'The input ended in the middle of a message');
  }

  /**
   * Pauses at the next message boundary: `execute()` returns right after the
   * current message's `onMessageComplete` (at once if called between
   * messages) and consumes nothing until `resume()`. Returning `false` from
   * `onMessageComplete` does the same. Useful to answer pipelined requests
   * one at a time.
   *
   * @example
   * ```ts
   * const p = new RequestParser({ onRequest: (head) => console.log(head.target), onMessageComplete: () => false }); // one message per execute()
   * ```
   */
  pause(): void {
    this.pausedFlag = true;
  }

  /**
   * Ends a pause; call `execute()` again with the unconsumed bytes.
   *
   * @example
   * ```ts
   * declare const pending: Buffer; // the bytes execute() left when it paused
   * parser.resume();
   * const n = parser.execute(pending);
   * ```
   */
  resume(): void {
    this.pausedFlag = false;
  }

  /**
   * Whether the parser is paused.
   *
   * @example
   * ```ts
   * const queue: Buffer[] = [];
   * socket.on('data', (chunk: Buffer) => {
   *   const at = parser.execute(chunk);
   *   if (parser.paused) queue.push(chunk.subarray(at));
   * });
   * ```
   */
  get paused(): boolean {
    return this.pausedFlag;
  }

  /**
   * True between messages (nothing of a next message received yet).
   *
   * @example
   * ```ts
   * if (parser.idle) socket.setTimeout(5000); // the keep-alive timeout between requests
   * ```
   */
  get idle(): boolean {
    return this.state === S_START || this.state === S_START_LF;
  }

  /**
   * The error that stopped the parser, or `null`.
   *
   * @example
   * ```ts
   * if (parser.error) console.log(parser.error.status);
   * ```
   */
  get error(): HttpParseError | null {
    return this.err;
  }

  /**
   * True after an upgrade handed the connection over.
   *
   * @example
   * ```ts
   * if (parser.upgraded) socket.removeAllListeners('data'); // the application owns the bytes now
   * ```
   */
  get upgraded(): boolean {
    return this.state === S_UPGRADED;
  }

  /**
   * Forgets everything (state, error, pause, partial message) so the parser
   * can serve a new connection; limits and handlers stay. Not to be called
   * from inside one of the parser's callbacks.
   *
   * @example
   * ```ts
   * const pool: RequestParser[] = [];
   * parser.reset();
   * pool.push(parser);
   * ```
   */
  reset(): void {
    this.state = S_START;
    this.pausedFlag = false;
    this.err = null;
    this.hlen = 0;
    this.beginHead();
  }

  // -- internals -------------------------------------------------------------

  /** @internal */
  protected fail(code: HttpErrorCode, message: string): number {
    if (this.state !== S_ERROR) {
      this.state = S_ERROR;
      const e = new HttpParseError(code, message);
      this.err = e;
      if (this.mh.onError !== undefined) this.mh.onError(e);
    }
    return FAIL;
  }

  /** @internal The field offsets of the message, for its head. */
  protected takeOffsets(): number[] {
    return this.scratch.slice(0, this.nOffs); // sized once; the scratch array keeps its room
  }

  /** @internal `fail()` for boolean helpers. */
  protected no(code: HttpErrorCode, message: string): false {
    this.fail(code, message);
    return false;
  }

  /** @internal Resets the per-message accumulators. */
  protected beginHead(): void {
    this.phase = 0;
    this.trailerMode = false;
    this.lineStart = 0;
    this.nOffs = 0;
    this.cl = -1;
    this.teCount = 0;
    this.chunkedCount = 0;
    this.teLastChunked = false;
    this.conn = 0;
    this.hasUpgrade = false;
    this.bodyTotal = 0;
    this.resetSubclass();
  }

  /** @internal */
  protected abstract resetSubclass(): void;
  /** @internal Parses the start line at `pos`; returns the position after its CRLF, NEED or FAIL. */
  protected abstract parseStartLine(buf: Buffer, base: number, pos: number, end: number): number;
  /** @internal Validates the complete head [base, end) and prepares it; returns 0 or FAIL. */
  protected abstract completeHead(buf: Buffer, base: number, end: number): number;
  /**
   * @internal A head that starts at `pos` and is byte for byte one parsed
   * before (under the same limits) is handed out again without parsing it:
   * returns the position after it, or -1 to parse as usual.
   */
  protected reuseHead(_buf: Buffer, _pos: number, _end: number): number {
    return -1;
  }
  /** @internal Delivers the prepared head; `rest` starts at `pos` of `chunk`. Returns the new position. */
  protected abstract emitHead(chunk: Buffer, pos: number): number;
  /** @internal Interprets one header field (request/response specific). false = failed. */
  protected abstract inspectField(buf: Buffer, base: number, ns: number, ne: number, vs: number, ve: number): boolean;

  /** @internal */
  protected messageDone(trailers: HeaderPair[] | null): void {
    this.state = S_START;
    const h = this.mh;
    if (h.onMessageComplete !== undefined && h.onMessageComplete(trailers) === false) this.pausedFlag = true;
  }

  private run(buf: Buffer, start: number): number {
    const end = buf.length;
    let pos = start;
    while (pos < end) {
      const st = this.state;
      let next: number;
      if (st === S_START) {
        if (this.pausedFlag) return pos;
        const c = buf[pos]!;
        if (c === 13) {
          this.state = S_START_LF;
          pos++;
          continue;
        }
        if (c === 10) {
          pos++;
          continue;
        }
        this.state = S_HEAD;
        this.hlen = 0;
        this.beginHead();
        next = this.execHead(buf, pos, end);
      } else if (st === S_HEAD) {
        next = this.execHead(buf, pos, end);
      } else if (st === S_BODY) {
        const rem = this.remaining;
        const n = end - pos < rem ? end - pos : rem;
        const from = pos;
        next = pos + n;
        this.remaining = rem - n;
        if (this.mh.onBody !== undefined) this.mh.onBody(buf.subarray(from, next));
        if (this.remaining === 0 && this.state === S_BODY) this.messageDone(null);
      } else if (st === S_START_LF) {
        if (buf[pos] !== 10) next = this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Bare CR before the start line');
        else {
          this.state = S_START;
          next = pos + 1;
        }
      } else if (st === S_BODY_EOF) {
        const total = this.bodyTotal + (end - pos);
        if (total > this.maxBodyBytes) {
          next = this.fail(
            'ERR_HTTP_BODY_TOO_LARGE',
            `Body read until the close is larger than ${this.maxBodyBytes} bytes`,
          );
        } else {
          this.bodyTotal = total;
          if (this.mh.onBody !== undefined) this.mh.onBody(buf.subarray(pos, end));
          next = end;
        }
      } else if (st < S_UPGRADED) {
        next = this.execChunked(buf, pos, end);
      } else {
        return pos;
      }
      if (next < 0) return pos;
      pos = next;
      if (this.state >= S_UPGRADED) return pos;
    }
    return pos;
  }

  /** Head or trailer section: fast path in the chunk itself, slow path through `hbuf`. */
  private execHead(buf: Buffer, pos: number, end: number): number {
    if (this.hlen === 0) {
      if (!this.trailerMode) {
        const again = this.reuseHead(buf, pos, end);
        if (again >= 0) return again;
      }
      const r = this.parseHead(buf, pos, pos, end);
      if (r >= 0) return this.headDone(buf, pos, r, buf, r);
      if (r === FAIL) return FAIL;
      this.append(buf, pos, end);
      return end;
    }
    while (pos < end) {
      const lf = buf.indexOf(10, pos);
      let take = (lf < 0 ? end : lf + 1) - pos;
      const room = this.maxHeaderBytes + 1 - this.hlen;
      if (room <= 0) return this.tooLarge();
      if (take > room) take = room;
      this.append(buf, pos, pos + take);
      pos += take;
      const hb = this.hbuf!;
      const r = this.parseHead(hb, 0, this.lineStart, this.hlen);
      if (r === FAIL) return FAIL;
      if (r >= 0) {
        const leftover = this.hlen - r;
        if (leftover > take) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Malformed line ending in the head');
        return this.headDone(hb, 0, r, buf, pos - leftover);
      }
    }
    return pos;
  }

  private tooLarge(): number {
    return this.trailerMode
      ? this.fail('ERR_HTTP_HEADER_TOO_LARGE', `Trailer section larger than ${this.maxHeaderBytes} bytes`)
      : this.fail('ERR_HTTP_HEADER_TOO_LARGE', `Request head larger than ${this.maxHeaderBytes} bytes`);
  }

  private append(src: Buffer, s: number, e: number): void {
    const n = e - s;
    const need = this.hlen + n;
    let hb = this.hbuf;
    if (hb === null || hb.length < need) {
      let cap = hb === null ? 1024 : hb.length * 2;
      if (cap < need) cap = need;
      const nb = Buffer.allocUnsafe(cap);
      if (hb !== null && this.hlen > 0) hb.copy(nb, 0, 0, this.hlen);
      this.hbuf = hb = nb;
    }
    src.copy(hb, this.hlen, s, e);
    this.hlen = need;
  }

  private parseHead(buf: Buffer, base: number, pos: number, end: number): number {
    if (this.phase === 0) {
      const r = this.parseStartLine(buf, base, pos, end);
      if (r < 0) return r;
      this.phase = 1;
      pos = r;
    }
    return this.parseFields(buf, base, pos, end);
  }

  /** @internal Need more input for the line at `pos`, unless the limit is already passed. */
  protected needMore(base: number, pos: number, lim: number, end: number): number {
    if (lim < end) return this.tooLarge();
    this.lineStart = pos - base;
    return NEED;
  }

  /**
   * Field lines from `pos` to the empty line. Returns the position after the
   * final CRLF, NEED (with `lineStart` at the incomplete line, which never
   * holds an LF) or FAIL.
   */
  private parseFields(buf: Buffer, base: number, pos: number, end: number): number {
    const headLim = base + this.maxHeaderBytes;
    const lim = headLim < end ? headLim : end;
    const offs = this.scratch;
    const inspect = !this.trailerMode;
    for (;;) {
      if (pos >= lim) return this.needMore(base, pos, lim, end);
      let c = buf[pos]!;
      if (c === 13) {
        if (pos + 1 >= lim) return this.needMore(base, pos, lim, end);
        if (buf[pos + 1] !== 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Bare CR in the header section');
        return pos + 2;
      }
      let i = pos;
      while (i < lim && TCHAR[buf[i]!] === 1) i++;
      if (i >= lim) return this.needMore(base, pos, lim, end);
      if (i === pos || buf[i] !== 58) return this.badFieldLine(buf, pos, i);
      const ne = i++;
      while (i < lim && ((c = buf[i]!) === 32 || c === 9)) i++;
      const vs = i;
      // field-vchar / SP / HTAB / obs-text; comparisons beat a table load here
      while (i < lim && ((c = buf[i]!) > 31 ? c !== 127 : c === 9)) i++;
      if (i >= lim) return this.needMore(base, pos, lim, end);
      c = buf[i]!;
      if (c !== 13) {
        return c === 10
          ? this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Header line ends with a bare LF')
          : this.fail(
              'ERR_HTTP_BAD_HEADER',
              `Invalid character 0x${c.toString(16).padStart(2, '0')} in the value of header ${latin1(buf, pos, ne)}`,
            );
      }
      if (i + 1 >= lim) return this.needMore(base, pos, lim, end);
      if (buf[i + 1] !== 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Bare CR in a header value');
      let ve = i;
      while (ve > vs && ((c = buf[ve - 1]!) === 32 || c === 9)) ve--;
      const n = this.nOffs;
      if (n >> 2 >= this.maxHeaderCount) {
        return this.fail(
          'ERR_HTTP_TOO_MANY_HEADERS',
          `More than ${this.maxHeaderCount} ${this.trailerMode ? 'trailer' : 'header'} fields`,
        );
      }
      offs[n] = pos - base;
      offs[n + 1] = ne - base;
      offs[n + 2] = vs - base;
      offs[n + 3] = ve - base;
      this.nOffs = n + 4;
      if (
        inspect &&
        INTERESTING[(ne - pos) & 255] === FIRST_LOWER[buf[pos]!] &&
        !this.inspectField(buf, base, pos, ne, vs, ve)
      )
        return FAIL;
      pos = i + 2;
    }
  }

  private badFieldLine(buf: Buffer, pos: number, i: number): number {
    const c = buf[i]!;
    if (i === pos) {
      if (c === 32 || c === 9) {
        return this.fail(
          'ERR_HTTP_BAD_HEADER',
          this.nOffs === 0
            ? 'Whitespace before the first header field'
            : 'Obsolete line folding (obs-fold) is not accepted',
        );
      }
      if (c === 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Header section ends with a bare LF');
      if (c === 58) return this.fail('ERR_HTTP_BAD_HEADER', 'Empty header name');
      return this.fail(
        'ERR_HTTP_BAD_HEADER',
        `Invalid character 0x${c.toString(16).padStart(2, '0')} in a header name`,
      );
    }
    const name = latin1(buf, pos, i);
    if (c === 32 || c === 9)
      return this.fail('ERR_HTTP_BAD_HEADER', `Whitespace between header name ${name} and the colon`);
    if (c === 13 || c === 10) return this.fail('ERR_HTTP_BAD_HEADER', `Header line without a colon: ${name}`);
    return this.fail(
      'ERR_HTTP_BAD_HEADER',
      `Invalid character 0x${c.toString(16).padStart(2, '0')} in header name ${name}`,
    );
  }

  private headDone(hb: Buffer, base: number, headEnd: number, chunk: Buffer, chunkPos: number): number {
    this.hlen = 0;
    if (this.trailerMode) {
      const n = this.nOffs;
      let trailers: HeaderPair[] | null = null;
      if (n > 0) {
        const raw = latin1(hb, base, headEnd);
        const offs = this.scratch;
        trailers = new Array<HeaderPair>(n >> 2);
        for (let k = 0, j = 0; k < n; k += 4, j++)
          trailers[j] = [raw.slice(offs[k], offs[k + 1]), raw.slice(offs[k + 2], offs[k + 3])];
      }
      this.trailerMode = false;
      this.messageDone(trailers);
      return chunkPos;
    }
    if (this.completeHead(hb, base, headEnd) === FAIL) return FAIL;
    return this.emitHead(chunk, chunkPos);
  }

  // -- shared field interpretation ---------------------------------------------

  /** @internal Content-Length: `OWS 1*DIGIT OWS` elements, comma separated, all equal. */
  protected inspectContentLength(buf: Buffer, vs: number, ve: number): boolean {
    let value = -1;
    let i = vs;
    for (;;) {
      let c: number;
      while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
      const ds = i;
      let n = 0;
      while (i < ve) {
        const d = buf[i]! - 48;
        if (d < 0 || d > 9) break;
        n = n * 10 + d;
        i++;
      }
      if (i === ds) return this.no('ERR_HTTP_BAD_CONTENT_LENGTH', `Invalid Content-Length: ${latin1(buf, vs, ve)}`);
      if (i - ds > 16 || n > MAX_SAFE)
        return this.no('ERR_HTTP_BODY_TOO_LARGE', `Content-Length too large: ${latin1(buf, vs, ve)}`);
      while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
      if (value === -1) value = n;
      else if (value !== n)
        return this.no('ERR_HTTP_SMUGGLING', `Conflicting Content-Length values: ${latin1(buf, vs, ve)}`);
      if (i >= ve) break;
      if (buf[i] !== 44)
        return this.no('ERR_HTTP_BAD_CONTENT_LENGTH', `Invalid Content-Length: ${latin1(buf, vs, ve)}`);
      i++;
    }
    if (this.cl === -1) this.cl = value;
    else if (this.cl !== value)
      return this.no('ERR_HTTP_SMUGGLING', 'Several Content-Length fields with differing values');
    return true;
  }

  /** @internal Transfer-Encoding: a list of transfer-codings (parameters allowed except on chunked). */
  protected inspectTransferEncoding(buf: Buffer, vs: number, ve: number): boolean {
    let i = vs;
    let any = false;
    while (i < ve) {
      let c = buf[i]!;
      if (c === 44 || c === 32 || c === 9) {
        i++;
        continue;
      }
      const ts = i;
      while (i < ve && TCHAR[buf[i]!] === 1) i++;
      if (i === ts)
        return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', `Invalid Transfer-Encoding: ${latin1(buf, vs, ve)}`);
      const isChunked = i - ts === 7 && eqLower(buf, ts, B_CHUNKED);
      while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
      if (i < ve && buf[i] === 59) {
        if (isChunked) return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The chunked coding takes no parameters');
        i = skipParameters(buf, i, ve);
        if (i < 0)
          return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', `Invalid Transfer-Encoding: ${latin1(buf, vs, ve)}`);
      }
      if (i < ve && buf[i] !== 44)
        return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', `Invalid Transfer-Encoding: ${latin1(buf, vs, ve)}`);
      this.teCount++;
      if (isChunked) this.chunkedCount++;
      this.teLastChunked = isChunked;
      any = true;
    }
    if (!any) return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', 'Empty Transfer-Encoding');
    return true;
  }

  /** @internal Connection: comma-separated tokens; close / keep-alive / upgrade matter. */
  protected inspectConnection(buf: Buffer, vs: number, ve: number): void {
    let i = vs;
    while (i < ve) {
      let c = buf[i]!;
      if (c === 44 || c === 32 || c === 9) {
        i++;
        continue;
      }
      const ts = i;
      while (i < ve && (c = buf[i]!) !== 44 && c !== 32 && c !== 9) i++;
      const len = i - ts;
      if (len === 5 && eqLower(buf, ts, B_CLOSE)) this.conn |= CONN_CLOSE;
      else if (len === 10 && eqLower(buf, ts, B_KEEP_ALIVE)) this.conn |= CONN_KEEP_ALIVE;
      else if (len === 7 && eqLower(buf, ts, B_UPGRADE)) this.conn |= CONN_UPGRADE;
    }
  }

  /** @internal Whether a field is one of the framing/connection fields both sides interpret. */
  protected inspectCommon(buf: Buffer, ns: number, ne: number, vs: number, ve: number): boolean {
    switch (ne - ns) {
      case 7:
        if (eqLower(buf, ns, B_UPGRADE) && ve > vs) this.hasUpgrade = true;
        return true;
      case 10:
        if (eqLower(buf, ns, B_CONNECTION)) this.inspectConnection(buf, vs, ve);
        return true;
      case 14:
        return !eqLower(buf, ns, B_CONTENT_LENGTH) || this.inspectContentLength(buf, vs, ve);
      case 17:
        return !eqLower(buf, ns, B_TRANSFER_ENCODING) || this.inspectTransferEncoding(buf, vs, ve);
      default:
        return true;
    }
  }

  /** @internal Sets up the body state after a head; returns whether a body follows. */
  protected startBody(chunked: boolean, length: number): boolean {
    if (chunked) {
      this.state = S_CHUNK_SIZE;
      this.chunkSize = 0;
      this.chunkDigits = 0;
      this.chunkLine = 0;
      return true;
    }
    if (length > 0) {
      this.state = S_BODY;
      this.remaining = length;
      return true;
    }
    if (length < 0) {
      this.state = S_BODY_EOF;
      this.bodyTotal = 0;
      return true;
    }
    this.state = S_START;
    return false;
  }

  private badChunk(msg: string): number {
    return this.fail('ERR_HTTP_BAD_CHUNK', msg);
  }

  /** Chunked body: size lines, extensions, data, CRLFs; hands over to the trailer scan after the last chunk. */
  private execChunked(buf: Buffer, pos: number, end: number): number {
    const h = this.mh;
    while (pos < end) {
      let st = this.state;
      if (st === S_CHUNK_DATA) {
        const rem = this.remaining;
        const n = end - pos < rem ? end - pos : rem;
        const from = pos;
        pos += n;
        this.remaining = rem - n;
        if (rem === n) this.state = S_CHUNK_DATA_CR;
        if (h.onBody !== undefined) h.onBody(buf.subarray(from, pos));
        if (this.state !== S_CHUNK_DATA && this.state !== S_CHUNK_DATA_CR) return pos;
        continue;
      }
      const c = buf[pos]!;
      pos++;
      if (st === S_CHUNK_DATA_CR) {
        if (c !== 13) return this.badChunk('Chunk data not followed by CRLF');
        this.state = S_CHUNK_DATA_LF;
        continue;
      }
      if (st === S_CHUNK_DATA_LF) {
        if (c !== 10) return this.badChunk('Chunk data not followed by CRLF');
        this.state = S_CHUNK_SIZE;
        this.chunkSize = 0;
        this.chunkDigits = 0;
        this.chunkLine = 0;
        continue;
      }
      if (++this.chunkLine > MAX_CHUNK_LINE_BYTES)
        return this.badChunk(`Chunk size line longer than ${MAX_CHUNK_LINE_BYTES} bytes`);
      switch (st) {
        case S_CHUNK_SIZE: {
          const d = HEX[c]!;
          if (d >= 0) {
            if (++this.chunkDigits > 16) return this.badChunk('Chunk size has more than 16 hex digits');
            const v = this.chunkSize * 16 + d;
            if (v > MAX_SAFE) return this.badChunk('Chunk size overflows');
            this.chunkSize = v;
            continue;
          }
          if (this.chunkDigits === 0)
            return this.badChunk(
              c === 13 ? 'Empty chunk size' : `Invalid chunk size character 0x${c.toString(16).padStart(2, '0')}`,
            );
          if (c === 13) st = S_CHUNK_SIZE_LF;
          else if (c === 59) st = S_EXT_NAME_BWS;
          else if (c === 32 || c === 9) st = S_CHUNK_SIZE_BWS;
          else if (c === 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Chunk size line ends with a bare LF');
          else return this.badChunk(`Invalid chunk size character 0x${c.toString(16).padStart(2, '0')}`);
          break;
        }
        case S_CHUNK_SIZE_BWS:
          if (c === 59) st = S_EXT_NAME_BWS;
          else if (c !== 32 && c !== 9)
            return this.badChunk('Whitespace after a chunk size must be followed by a chunk extension');
          break;
        case S_EXT_NAME_BWS:
          if (TCHAR[c] === 1) st = S_EXT_NAME;
          else if (c !== 32 && c !== 9) return this.badChunk('Invalid chunk extension name');
          break;
        case S_EXT_NAME:
          if (TCHAR[c] === 1) continue;
          if (c === 13) st = S_CHUNK_SIZE_LF;
          else if (c === 59) st = S_EXT_NAME_BWS;
          else if (c === 61) st = S_EXT_VALUE_BWS;
          else if (c === 32 || c === 9) st = S_EXT_NAME_BWS_AFTER;
          else return this.badChunk('Invalid chunk extension');
          break;
        case S_EXT_NAME_BWS_AFTER:
          if (c === 59) st = S_EXT_NAME_BWS;
          else if (c === 61) st = S_EXT_VALUE_BWS;
          else if (c !== 32 && c !== 9) return this.badChunk('Invalid chunk extension');
          break;
        case S_EXT_VALUE_BWS:
          if (TCHAR[c] === 1) st = S_EXT_TOKEN;
          else if (c === 34) st = S_EXT_QUOTED;
          else if (c !== 32 && c !== 9) return this.badChunk('Invalid chunk extension value');
          break;
        case S_EXT_TOKEN:
          if (TCHAR[c] === 1) continue;
          if (c === 13) st = S_CHUNK_SIZE_LF;
          else if (c === 59) st = S_EXT_NAME_BWS;
          else if (c === 32 || c === 9) st = S_EXT_AFTER_VALUE;
          else return this.badChunk('Invalid chunk extension value');
          break;
        case S_EXT_QUOTED:
          if (c === 34) st = S_EXT_AFTER_VALUE;
          else if (c === 92) st = S_EXT_QPAIR;
          else if (QDTEXT[c] !== 1) return this.badChunk('Invalid character in a quoted chunk extension value');
          break;
        case S_EXT_QPAIR:
          if (QPAIR[c] !== 1) return this.badChunk('Invalid quoted-pair in a chunk extension value');
          st = S_EXT_QUOTED;
          break;
        case S_EXT_AFTER_VALUE:
          if (c === 13) st = S_CHUNK_SIZE_LF;
          else if (c === 59) st = S_EXT_NAME_BWS;
          else if (c !== 32 && c !== 9) return this.badChunk('Invalid chunk extension');
          break;
        case S_CHUNK_SIZE_LF: {
          if (c !== 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Bare CR in a chunk size line');
          const size = this.chunkSize;
          if (size === 0) {
            // last-chunk: the trailer section follows, scanned like a head
            this.state = S_HEAD;
            this.trailerMode = true;
            this.phase = 1;
            this.nOffs = 0;
            this.hlen = 0;
            this.lineStart = 0;
            return pos;
          }
          const total = this.bodyTotal + size;
          if (total > this.maxBodyBytes)
            return this.fail('ERR_HTTP_BODY_TOO_LARGE', `Chunked body larger than ${this.maxBodyBytes} bytes`);
          this.bodyTotal = total;
          this.remaining = size;
          st = S_CHUNK_DATA;
          break;
        }
        default:
          return pos - 1;
      }
      this.state = st;
    }
    return pos;
  }
}

/** Skips `*( OWS ";" OWS token "=" ( token / quoted-string ) )` from `i`; returns the new index or -1. */
function skipParameters(buf: Buffer, i: number, ve: number): number {
  let c: number;
  while (i < ve && buf[i] === 59) {
    i++;
    while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
    const ns = i;
    while (i < ve && TCHAR[buf[i]!] === 1) i++;
    if (i === ns) return -1;
    while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
    if (i >= ve || buf[i] !== 61) return -1;
    i++;
    while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
    if (i < ve && buf[i] === 34) {
      i++;
      while (i < ve && (c = buf[i]!) !== 34) {
        if (c === 92) i++;
        else if (QDTEXT[c] !== 1) return -1;
        i++;
      }
      if (i >= ve) return -1;
      i++;
    } else {
      const vs = i;
      while (i < ve && TCHAR[buf[i]!] === 1) i++;
      if (i === vs) return -1;
    }
    while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
  }
  return i;
}

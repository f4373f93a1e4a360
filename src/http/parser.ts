/**
 * HTTP/1.1 message codec: incremental request and response parsers over
 * bytes, plus the small helpers a server needs to write a response head.
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
 * ## Documented choices
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
 * - **Versions.** `HTTP/1.0` and `HTTP/1.1`; `HTTP/1.2`-`HTTP/1.9` are
 *   processed as 1.1 (RFC 9110 2.5; `versionMinor` keeps what was sent);
 *   any other well-formed `HTTP/d.d` → 505; anything else → 400.
 * - **Request-target.** Visible ASCII only (controls, spaces, DEL and bytes
 *   above 0x7F are refused, like llhttp). Origin-form; absolute-form
 *   (`scheme://authority...`, any scheme, no userinfo); authority-form only
 *   with CONNECT (port required); `*` only with OPTIONS.
 * - **Host.** Required on HTTP/1.1, at most one, and must be
 *   `uri-host [":" port]` (reg-name, IPv4 or bracketed IPv6; port up to
 *   65535). An empty Host value is valid (RFC 9112 3.2). For an
 *   absolute-form target the target's authority wins (RFC 9112 3.2.2).
 * - **Methods.** The known set is {@link HTTP_METHODS}; another valid token
 *   → 501 (`ERR_HTTP_UNSUPPORTED_METHOD`), a non-token → 400. Methods are
 *   case-sensitive (`get` → 501).
 * - **Bodies.** Request framing depends only on the header fields
 *   (RFC 9112 6.3), never on the method: a GET or HEAD with Content-Length
 *   has a body (libevent ignores it for HEAD/TRACE, which can desynchronise
 *   a keep-alive connection).
 * - **Expect.** `100-continue` (case-insensitive) sets `expectContinue` on
 *   HTTP/1.1; any other value → 417. Expect is ignored on HTTP/1.0
 *   (RFC 9110 10.1.1).
 * - **Upgrade.** An HTTP/1.1 request with an `Upgrade` field and
 *   `Connection: upgrade` has `upgrade = true`. When the handlers have
 *   `onUpgrade`, the parser stops after the head and hands every following
 *   byte over; without it, the upgrade is declined and the request is an
 *   ordinary one (RFC 9110 7.8 lets a server ignore Upgrade).
 *
 * @module
 */
import { isIPv6 } from 'node:net';
import { HttpParseError, type HttpErrorCode } from './errors.js';

// ---------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------

/** `EventHttpRequest::CMD_GET`. @example `if (head.cmd === CMD_GET) serveFile();` */
export const CMD_GET = 1;
/** `EventHttpRequest::CMD_POST`. @example `if (head.cmd & (CMD_POST | CMD_PUT)) readBody();` */
export const CMD_POST = 2;
/** `EventHttpRequest::CMD_HEAD`. @example `const sendBody = head.cmd !== CMD_HEAD;` */
export const CMD_HEAD = 4;
/** `EventHttpRequest::CMD_PUT`. @example `if (head.cmd === CMD_PUT) store();` */
export const CMD_PUT = 8;
/** `EventHttpRequest::CMD_DELETE`. @example `if (head.cmd === CMD_DELETE) remove();` */
export const CMD_DELETE = 16;
/** `EventHttpRequest::CMD_OPTIONS`. @example `if (head.cmd === CMD_OPTIONS) sendAllow();` */
export const CMD_OPTIONS = 32;
/** `EventHttpRequest::CMD_TRACE`. @example `const allowed = CMD_GET | CMD_TRACE;` */
export const CMD_TRACE = 64;
/** `EventHttpRequest::CMD_CONNECT`. @example `if (head.cmd === CMD_CONNECT) tunnel();` */
export const CMD_CONNECT = 128;
/** `EventHttpRequest::CMD_PATCH`. @example `if (head.cmd === CMD_PATCH) patch();` */
export const CMD_PATCH = 256;

/**
 * The methods the parser knows, mapped to their libevent `CMD_*` bit
 * (GET=1 ... PATCH=256 as in libevent 2.1; the WebDAV methods use the bits
 * libevent 2.2 gives them). A method outside this table is answered 501.
 *
 * @example
 * ```ts
 * import { HTTP_METHODS } from 'eventide/http';
 * const allowed = HTTP_METHODS.GET | HTTP_METHODS.POST | HTTP_METHODS.HEAD;
 * if ((head.cmd & allowed) === 0) reply(501);
 * ```
 */
export const HTTP_METHODS = Object.freeze({
  GET: 1,
  POST: 2,
  HEAD: 4,
  PUT: 8,
  DELETE: 16,
  OPTIONS: 32,
  TRACE: 64,
  CONNECT: 128,
  PATCH: 256,
  PROPFIND: 512,
  PROPPATCH: 1024,
  MKCOL: 2048,
  LOCK: 4096,
  UNLOCK: 8192,
  COPY: 16384,
  MOVE: 32768,
} as const);

/** A method name of {@link HTTP_METHODS}. @example `const m: HttpMethod = 'GET';` */
export type HttpMethod = keyof typeof HTTP_METHODS;

const METHOD_NAMES = Object.keys(HTTP_METHODS) as HttpMethod[];
const METHOD_BYTES = METHOD_NAMES.map((m) => Buffer.from(m, 'latin1'));
const METHOD_CMDS = METHOD_NAMES.map((m) => HTTP_METHODS[m]);
/** (length << 8 | first byte) -> method index + 1; every (length, first letter) pair is unique. */
const METHOD_SLOT = new Uint8Array(16 << 8);
METHOD_BYTES.forEach((b, i) => {
  const key = (b.length << 8) | b[0]!;
  if (METHOD_SLOT[key] !== 0) throw new Error('method table collision');
  METHOD_SLOT[key] = i + 1;
});
const M_CONNECT = METHOD_NAMES.indexOf('CONNECT');
const M_OPTIONS = METHOD_NAMES.indexOf('OPTIONS');

function lookupMethod(buf: Buffer, s: number, e: number): number {
  const len = e - s;
  if (len > 15) return -1;
  const slot = METHOD_SLOT[(len << 8) | buf[s]!]!;
  if (slot === 0) return -1;
  const m = METHOD_BYTES[slot - 1]!;
  for (let k = 1; k < len; k++) if (buf[s + k] !== m[k]) return -1;
  return slot - 1;
}

// ---------------------------------------------------------------------------
// Byte tables
// ---------------------------------------------------------------------------

function table(pred: (c: number) => boolean): Uint8Array {
  const t = new Uint8Array(256);
  for (let c = 0; c < 256; c++) t[c] = pred(c) ? 1 : 0;
  return t;
}
const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const oneOf = (set: string) => (c: number): boolean => c < 128 && set.includes(String.fromCharCode(c));

/** tchar (RFC 9110 5.6.2). */
const TCHAR = table((c) => isAlpha(c) || isDigit(c) || oneOf("!#$%&'*+-.^_`|~")(c));
/** field-vchar / SP / HTAB / obs-text: what a field value may contain. */
const VALUE = table((c) => c === 9 || (c >= 32 && c !== 127));
/** What a request-target may contain (visible ASCII). */
const TARGET = table((c) => c > 32 && c < 127);
/** reg-name characters (unreserved / sub-delims / "%" of pct-encoded). */
const REGNAME = table((c) => isAlpha(c) || isDigit(c) || oneOf("-._~!$&'()*+,;=%")(c));
/** URI scheme characters after the first. */
const SCHEME = table((c) => isAlpha(c) || isDigit(c) || c === 43 || c === 45 || c === 46);
/** qdtext (RFC 9110 5.6.4). */
const QDTEXT = table((c) => c === 9 || c === 32 || c === 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e) || c >= 0x80);
/** Characters a quoted-pair may escape. */
const QPAIR = table((c) => c === 9 || (c >= 32 && c !== 127));
/** Hex digit values, -1 elsewhere. */
const HEX = new Int8Array(256).fill(-1);
for (let c = 0; c < 256; c++) {
  if (isDigit(c)) HEX[c] = c - 48;
  else if (c >= 65 && c <= 70) HEX[c] = c - 55;
  else if (c >= 97 && c <= 102) HEX[c] = c - 87;
}
/** ASCII lower-casing of a byte. */
const LOWER = new Uint8Array(256);
for (let c = 0; c < 256; c++) LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;
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

const bytes = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));
const B_HOST = bytes('host');
const B_EXPECT = bytes('expect');
const B_UPGRADE = bytes('upgrade');
const B_CONNECTION = bytes('connection');
const B_CONTENT_LENGTH = bytes('content-length');
const B_TRANSFER_ENCODING = bytes('transfer-encoding');
const B_CHUNKED = bytes('chunked');
const B_CLOSE = bytes('close');
const B_KEEP_ALIVE = bytes('keep-alive');
const B_100_CONTINUE = bytes('100-continue');

/**
 * ASCII case-insensitive comparison with a lowercase constant made of
 * letters, digits and "-". `c | 0x20` is exact here: the only other bytes
 * it maps onto those are controls (CR -> "-", 0x10-0x19 -> digits), which
 * never reach this point (names are tokens, values exclude controls).
 */
function eqLower(buf: Uint8Array, s: number, lower: Uint8Array): boolean {
  const n = lower.length;
  for (let k = 0; k < n; k++) if ((buf[s + k]! | 0x20) !== lower[k]) return false;
  return true;
}

type Latin1Buffer = Buffer & { latin1Slice?: (start: number, end: number) => string };
const HAS_LATIN1_SLICE = typeof (Buffer.prototype as Latin1Buffer).latin1Slice === 'function';
/** One latin1 decoding of a byte range (the fastest Buffer-to-string path). */
function latin1(buf: Buffer, s: number, e: number): string {
  return HAS_LATIN1_SLICE ? (buf as Latin1Buffer).latin1Slice!(s, e) : buf.toString('latin1', s, e);
}

/**
 * Checks `uri-host [":" port]` on bytes [s, e): reg-name (with valid
 * pct-encoding), IPv4 (a reg-name syntactically) or a bracketed IPv6 /
 * IPvFuture literal; port of at most 5 digits and at most 65535.
 */
function validAuthority(buf: Buffer, s: number, e: number, allowEmpty: boolean, requirePort: boolean): boolean {
  if (s === e) return allowEmpty && !requirePort;
  let i = s;
  if (buf[i] === 91 /* [ */) {
    const close = buf.indexOf(93 /* ] */, i);
    if (close < 0 || close >= e || close - i < 3) return false;
    const c1 = buf[i + 1]!;
    if (c1 === 118 || c1 === 86) {
      // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
      let k = i + 2;
      while (k < close && HEX[buf[k]!]! >= 0) k++;
      if (k === i + 2 || buf[k] !== 46 || k + 1 >= close) return false;
      for (k++; k < close; k++) {
        const c = buf[k]!;
        if (c === 37 || (REGNAME[c] !== 1 && c !== 58)) return false;
      }
    } else if (!isIPv6(latin1(buf, i + 1, close))) return false;
    i = close + 1;
  } else {
    while (i < e) {
      const c = buf[i]!;
      if (REGNAME[c] !== 1) break;
      if (c === 37 /* % */ && (i + 2 >= e || HEX[buf[i + 1]!]! < 0 || HEX[buf[i + 2]!]! < 0)) return false;
      i++;
    }
    if (i === s) return false;
  }
  if (i === e) return !requirePort;
  if (buf[i] !== 58 /* : */) return false;
  i++;
  if (e - i > 5 || (requirePort && i === e)) return false;
  let port = 0;
  for (; i < e; i++) {
    const d = buf[i]! - 48;
    if (d < 0 || d > 9) return false;
    port = port * 10 + d;
  }
  return port <= 65535;
}

// ---------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------

/**
 * A header (or trailer) field as `[name, value]`: the name as sent, the
 * value without its surrounding whitespace, both decoded as latin1.
 *
 * @example
 * ```ts
 * for (const [name, value] of head.headers) console.log(`${name}: ${value}`);
 * ```
 */
export type HeaderPair = [name: string, value: string];

/**
 * Size limits of a parser; set at construction, changeable at any time
 * through the parser's properties of the same names or `setLimits()`.
 *
 * @example
 * ```ts
 * const p = new RequestParser(handlers, { maxHeaderBytes: 16384, maxBodyBytes: 1 << 20 });
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
 * What both request and response heads have: version, framing and the
 * header fields. Fields are stored as offsets into one latin1 string;
 * `headers` builds the pairs the first time it is read.
 *
 * @example
 * ```ts
 * function describe(head: MessageHead): string {
 *   return `HTTP/${head.versionMajor}.${head.versionMinor}, ${head.headerCount} fields`;
 * }
 * ```
 */
export abstract class MessageHead {
  /** Major version (always 1). */
  readonly versionMajor: number;
  /** Minor version as sent (0-9; 2-9 are handled as 1). */
  readonly versionMinor: number;
  /** The decimal Content-Length, or `null` when absent. */
  readonly contentLength: number | null;
  /** The body is chunked (Transfer-Encoding ends with `chunked`). */
  readonly chunked: boolean;
  /** The connection may carry another message after this one. */
  readonly keepAlive: boolean;
  /** Request: the client asked to switch protocols. Response: 101, or a 2xx to CONNECT. */
  readonly upgrade: boolean;
  /** @internal The head as one latin1 string (start line to final CRLF). */
  readonly raw: string;
  /** @internal [nameStart, nameEnd, valueStart, valueEnd] per field, into `raw`. */
  readonly offs: number[];
  private pairs: HeaderPair[] | null = null;

  /** @internal */
  constructor(raw: string, offs: number[], major: number, minor: number, contentLength: number | null, chunked: boolean, keepAlive: boolean, upgrade: boolean) {
    this.raw = raw;
    this.offs = offs;
    this.versionMajor = major;
    this.versionMinor = minor;
    this.contentLength = contentLength;
    this.chunked = chunked;
    this.keepAlive = keepAlive;
    this.upgrade = upgrade;
  }

  /** Number of header fields. */
  get headerCount(): number {
    return this.offs.length >> 2;
  }

  /**
   * The header fields in wire order, names as sent (built on first use).
   *
   * @example
   * ```ts
   * console.log(head.headers); // [['Host', 'example.com'], ['Accept', '*\/*']]
   * ```
   */
  get headers(): HeaderPair[] {
    let p = this.pairs;
    if (p === null) {
      const { raw, offs } = this;
      p = new Array<HeaderPair>(offs.length >> 2);
      for (let k = 0, j = 0; k < offs.length; k += 4, j++) p[j] = [raw.slice(offs[k], offs[k + 1]), raw.slice(offs[k + 2], offs[k + 3])];
      this.pairs = p;
    }
    return p;
  }

  /** Index into `offs` of the next field named `name` (case-insensitive) at or after `from`, or -1. */
  private find(lname: string, from: number): number {
    const { raw, offs } = this;
    const n = lname.length;
    for (let k = from; k < offs.length; k += 4) {
      const s = offs[k]!;
      if (offs[k + 1]! - s !== n) continue;
      let j = 0;
      while (j < n && LOWER[raw.charCodeAt(s + j)] === lname.charCodeAt(j)) j++;
      if (j === n) return k;
    }
    return -1;
  }

  /**
   * The value of the first field named `name` (ASCII case-insensitive), or `null`.
   *
   * @example
   * ```ts
   * const type = head.getHeader('content-type') ?? 'application/octet-stream';
   * ```
   */
  getHeader(name: string): string | null {
    const k = this.find(name.toLowerCase(), 0);
    return k < 0 ? null : this.raw.slice(this.offs[k + 2], this.offs[k + 3]);
  }

  /**
   * The values of every field named `name`, in wire order.
   *
   * @example
   * ```ts
   * const cookies = head.getHeaders('Cookie'); // ['a=1', 'b=2']
   * ```
   */
  getHeaders(name: string): string[] {
    const lname = name.toLowerCase();
    const out: string[] = [];
    for (let k = this.find(lname, 0); k >= 0; k = this.find(lname, k + 4)) out.push(this.raw.slice(this.offs[k + 2], this.offs[k + 3]));
    return out;
  }

  /**
   * Whether a field named `name` is present.
   *
   * @example
   * ```ts
   * if (head.hasHeader('Authorization')) authenticate(head);
   * ```
   */
  hasHeader(name: string): boolean {
    return this.find(name.toLowerCase(), 0) >= 0;
  }
}

/**
 * A parsed request head, handed to `onRequest` (or `onUpgrade`).
 *
 * @example
 * ```ts
 * const p = new RequestParser({
 *   onRequest(head: RequestHead) {
 *     console.log(head.method, head.target, head.host, head.keepAlive); // GET /a?b=1 example.com true
 *   },
 * });
 * p.execute(Buffer.from('GET /a?b=1 HTTP/1.1\r\nHost: example.com\r\n\r\n'));
 * ```
 */
export class RequestHead extends MessageHead {
  /** The method (one of {@link HTTP_METHODS}). */
  readonly method: HttpMethod;
  /** The method's libevent `CMD_*` bit. */
  readonly cmd: number;
  /** The request-target as sent (latin1), query included; absolute-form kept whole. */
  readonly target: string;
  /** HTTP/1.1 request with `Expect: 100-continue`. */
  readonly expectContinue: boolean;
  /**
   * The authority to serve: the target's authority for absolute-form and
   * authority-form (CONNECT) targets, else the Host field value (`''` when
   * sent empty), else `null` (HTTP/1.0 without Host). Port included.
   */
  readonly host: string | null;
  /** The target is in absolute-form (`http://host/path`): a proxy-style request. */
  readonly absoluteForm: boolean;

  /** @internal */
  constructor(raw: string, offs: number[], method: HttpMethod, cmd: number, target: string, major: number, minor: number, contentLength: number | null, chunked: boolean, keepAlive: boolean, upgrade: boolean, expectContinue: boolean, host: string | null, absoluteForm: boolean) {
    super(raw, offs, major, minor, contentLength, chunked, keepAlive, upgrade);
    this.method = method;
    this.cmd = cmd;
    this.target = target;
    this.expectContinue = expectContinue;
    this.host = host;
    this.absoluteForm = absoluteForm;
  }
}

/**
 * A parsed response head, handed to `onResponse` (or `onInformational` /
 * `onUpgrade`).
 *
 * @example
 * ```ts
 * const p = new ResponseParser({
 *   onResponse(head: ResponseHead) { console.log(head.statusCode, head.statusMessage); }, // 404 Not Found
 * });
 * p.execute(Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'));
 * ```
 */
export class ResponseHead extends MessageHead {
  /** The status code (100-599). */
  readonly statusCode: number;
  /** The reason phrase as sent (may be empty). */
  readonly statusMessage: string;

  /** @internal */
  constructor(raw: string, offs: number[], statusCode: number, statusMessage: string, major: number, minor: number, contentLength: number | null, chunked: boolean, keepAlive: boolean, upgrade: boolean) {
    super(raw, offs, major, minor, contentLength, chunked, keepAlive, upgrade);
    this.statusCode = statusCode;
    this.statusMessage = statusMessage;
  }
}

/**
 * Callbacks shared by both parsers.
 *
 * @example
 * ```ts
 * const common: MessageHandlers = {
 *   onBody(chunk) { parts.push(chunk); },
 *   onMessageComplete(trailers) { done(Buffer.concat(parts), trailers); },
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

/**
 * Callbacks of a {@link RequestParser}.
 *
 * @example
 * ```ts
 * const handlers: RequestHandlers = {
 *   onRequest(head) { current = head; },
 *   onMessageComplete() { respond(current); },
 *   onError(err) { socket.end(`HTTP/1.1 ${err.status} ${statusText(err.status)}\r\nConnection: close\r\n\r\n`); },
 * };
 * ```
 */
export interface RequestHandlers extends MessageHandlers {
  /** A request head is complete (and valid). */
  onRequest(head: RequestHead): void;
  /**
   * An upgrade request (`head.upgrade`): the parser stops and `rest` holds
   * every byte after the head (possibly empty). Without this callback the
   * upgrade is declined and the request is parsed as an ordinary one.
   */
  onUpgrade?(head: RequestHead, rest: Buffer): void;
}

/**
 * Callbacks of a {@link ResponseParser}.
 *
 * @example
 * ```ts
 * const handlers: ResponseHandlers = {
 *   onResponse(head) { status = head.statusCode; },
 *   onInformational(head) { if (head.statusCode === 100) sendBody(); },
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

// ---------------------------------------------------------------------------
// The state machine
// ---------------------------------------------------------------------------

const NEED = -1;
const FAIL = -2;

const S_START = 0; // between messages (skipping empty lines)
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
const S_UPGRADED = 19; // terminal
const S_ERROR = 20; // terminal

const CONN_CLOSE = 1;
const CONN_KEEP_ALIVE = 2;
const CONN_UPGRADE = 4;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function validateLimit(name: string, v: number, allowInfinity: boolean): number {
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0 || (!Number.isInteger(v) && !(allowInfinity && v === Infinity))) {
    throw new RangeError(`${name} must be a non-negative integer${allowInfinity ? ' or Infinity' : ''}, got ${String(v)}`);
  }
  return v;
}

/**
 * The machinery shared by {@link RequestParser} and {@link ResponseParser}:
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
    if (limits.maxHeaderBytes !== undefined) this.maxHeaderBytes = validateLimit('maxHeaderBytes', limits.maxHeaderBytes, false);
    if (limits.maxHeaderCount !== undefined) this.maxHeaderCount = validateLimit('maxHeaderCount', limits.maxHeaderCount, false);
    if (limits.maxRequestLineBytes !== undefined) this.maxRequestLineBytes = validateLimit('maxRequestLineBytes', limits.maxRequestLineBytes, false);
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
   * socket.on('data', (chunk: Buffer) => {
   *   let at = parser.execute(chunk);
   *   while (at < chunk.length && parser.paused) {
   *     await answer(); // one request at a time
   *     parser.resume();
   *     at = parser.execute(chunk, at);
   *   }
   * });
   * ```
   */
  execute(chunk: Buffer, start = 0): number {
    if (this.state >= S_UPGRADED) return start;
    if (this.running) throw new Error('execute() called from inside a parser callback');
    if (!(start >= 0 && start <= chunk.length && Number.isInteger(start))) throw new RangeError(`start ${start} is not an offset within the chunk (0-${chunk.length})`);
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
   * const p = new RequestParser({ onRequest: handle, onMessageComplete: () => false }); // one message per execute()
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
   * if (parser.paused) queue.push(rest);
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
   * if (parser.idle) startKeepAliveTimer();
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
   * if (parser.upgraded) return; // the application owns the bytes now
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
   * parser.reset(); pool.push(parser);
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
          next = this.fail('ERR_HTTP_BODY_TOO_LARGE', `Body read until the close is larger than ${this.maxBodyBytes} bytes`);
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
          : this.fail('ERR_HTTP_BAD_HEADER', `Invalid character 0x${c.toString(16).padStart(2, '0')} in the value of header ${latin1(buf, pos, ne)}`);
      }
      if (i + 1 >= lim) return this.needMore(base, pos, lim, end);
      if (buf[i + 1] !== 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Bare CR in a header value');
      let ve = i;
      while (ve > vs && ((c = buf[ve - 1]!) === 32 || c === 9)) ve--;
      const n = this.nOffs;
      if ((n >> 2) >= this.maxHeaderCount) {
        return this.fail('ERR_HTTP_TOO_MANY_HEADERS', `More than ${this.maxHeaderCount} ${this.trailerMode ? 'trailer' : 'header'} fields`);
      }
      offs[n] = pos - base;
      offs[n + 1] = ne - base;
      offs[n + 2] = vs - base;
      offs[n + 3] = ve - base;
      this.nOffs = n + 4;
      if (inspect && INTERESTING[(ne - pos) & 255] === FIRST_LOWER[buf[pos]!] && !this.inspectField(buf, base, pos, ne, vs, ve)) return FAIL;
      pos = i + 2;
    }
  }

  private badFieldLine(buf: Buffer, pos: number, i: number): number {
    const c = buf[i]!;
    if (i === pos) {
      if (c === 32 || c === 9) {
        return this.fail('ERR_HTTP_BAD_HEADER', this.nOffs === 0 ? 'Whitespace before the first header field' : 'Obsolete line folding (obs-fold) is not accepted');
      }
      if (c === 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Header section ends with a bare LF');
      if (c === 58) return this.fail('ERR_HTTP_BAD_HEADER', 'Empty header name');
      return this.fail('ERR_HTTP_BAD_HEADER', `Invalid character 0x${c.toString(16).padStart(2, '0')} in a header name`);
    }
    const name = latin1(buf, pos, i);
    if (c === 32 || c === 9) return this.fail('ERR_HTTP_BAD_HEADER', `Whitespace between header name ${name} and the colon`);
    if (c === 13 || c === 10) return this.fail('ERR_HTTP_BAD_HEADER', `Header line without a colon: ${name}`);
    return this.fail('ERR_HTTP_BAD_HEADER', `Invalid character 0x${c.toString(16).padStart(2, '0')} in header name ${name}`);
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
        for (let k = 0, j = 0; k < n; k += 4, j++) trailers[j] = [raw.slice(offs[k], offs[k + 1]), raw.slice(offs[k + 2], offs[k + 3])];
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
      let c = 0;
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
      if (i - ds > 16 || n > MAX_SAFE) return this.no('ERR_HTTP_BODY_TOO_LARGE', `Content-Length too large: ${latin1(buf, vs, ve)}`);
      while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
      if (value === -1) value = n;
      else if (value !== n) return this.no('ERR_HTTP_SMUGGLING', `Conflicting Content-Length values: ${latin1(buf, vs, ve)}`);
      if (i >= ve) break;
      if (buf[i] !== 44) return this.no('ERR_HTTP_BAD_CONTENT_LENGTH', `Invalid Content-Length: ${latin1(buf, vs, ve)}`);
      i++;
    }
    if (this.cl === -1) this.cl = value;
    else if (this.cl !== value) return this.no('ERR_HTTP_SMUGGLING', 'Several Content-Length fields with differing values');
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
      if (i === ts) return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', `Invalid Transfer-Encoding: ${latin1(buf, vs, ve)}`);
      const isChunked = i - ts === 7 && eqLower(buf, ts, B_CHUNKED);
      while (i < ve && ((c = buf[i]!) === 32 || c === 9)) i++;
      if (i < ve && buf[i] === 59) {
        if (isChunked) return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The chunked coding takes no parameters');
        i = skipParameters(buf, i, ve);
        if (i < 0) return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', `Invalid Transfer-Encoding: ${latin1(buf, vs, ve)}`);
      }
      if (i < ve && buf[i] !== 44) return this.no('ERR_HTTP_BAD_TRANSFER_ENCODING', `Invalid Transfer-Encoding: ${latin1(buf, vs, ve)}`);
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
      if (++this.chunkLine > MAX_CHUNK_LINE_BYTES) return this.badChunk(`Chunk size line longer than ${MAX_CHUNK_LINE_BYTES} bytes`);
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
          if (this.chunkDigits === 0) return this.badChunk(c === 13 ? 'Empty chunk size' : `Invalid chunk size character 0x${c.toString(16).padStart(2, '0')}`);
          if (c === 13) st = S_CHUNK_SIZE_LF;
          else if (c === 59) st = S_EXT_NAME_BWS;
          else if (c === 32 || c === 9) st = S_CHUNK_SIZE_BWS;
          else if (c === 10) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Chunk size line ends with a bare LF');
          else return this.badChunk(`Invalid chunk size character 0x${c.toString(16).padStart(2, '0')}`);
          break;
        }
        case S_CHUNK_SIZE_BWS:
          if (c === 59) st = S_EXT_NAME_BWS;
          else if (c !== 32 && c !== 9) return this.badChunk('Whitespace after a chunk size must be followed by a chunk extension');
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
          if (total > this.maxBodyBytes) return this.fail('ERR_HTTP_BODY_TOO_LARGE', `Chunked body larger than ${this.maxBodyBytes} bytes`);
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
  let c = 0;
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

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

const VERSION_PREFIX = [72, 84, 84, 80, 47]; // "HTTP/"

const FORM_ORIGIN = 0;
const FORM_ABSOLUTE = 1;
const FORM_AUTHORITY = 2;
const FORM_ASTERISK = 3;

/**
 * Incremental HTTP/1.1 request parser (server side). See the module
 * documentation for the rules it enforces.
 *
 * Events, per message: `onRequest(head)` (or `onUpgrade(head, rest)`), then
 * `onBody(view)` any number of times, then `onMessageComplete(trailers)`.
 * On refusal: `onError(err)` once, and nothing more. A refusal can come
 * after `onRequest` (a malformed chunk, a chunked body over `maxBodyBytes`).
 *
 * The parser frames messages; connection policy is the caller's. It goes on
 * parsing after a message whose `keepAlive` is false, and after a CONNECT
 * (whose following bytes are tunnel data once the server answers 2xx):
 * return `false` from `onMessageComplete` for such a message and take the
 * unconsumed bytes (`execute()` returns where they start).
 *
 * @example
 * ```ts
 * import { RequestParser, statusText } from 'eventide/http';
 * const parser = new RequestParser({
 *   onRequest(head) { console.log(head.method, head.target); },
 *   onBody(chunk) { body.push(Buffer.from(chunk)); },
 *   onMessageComplete() { socket.write('HTTP/1.1 204 No Content\r\n\r\n'); },
 *   onError(err) { socket.end(`HTTP/1.1 ${err.status} ${statusText(err.status)}\r\nConnection: close\r\n\r\n`); },
 * }, { maxBodyBytes: 1 << 20 });
 * socket.on('data', (chunk) => parser.execute(chunk));
 * ```
 */
export class RequestParser extends HttpMessageParser {
  private readonly h: RequestHandlers;
  private method = 0;
  private targetS = 0;
  private targetE = 0;
  private form = FORM_ORIGIN;
  private authS = 0;
  private authE = 0;
  private hostCount = 0;
  private hostS = 0;
  private hostE = 0;
  private expect = 0; // bit 1: 100-continue, bit 2: other
  private head: RequestHead | null = null;

  /**
   * @param handlers the callbacks (`onRequest` is required).
   * @param limits size limits (see {@link ParserLimits}; defaults in {@link DEFAULT_LIMITS}).
   * @example
   * ```ts
   * const p = new RequestParser({ onRequest: (h) => console.log(h.target) }, { maxHeaderCount: 50 });
   * ```
   */
  constructor(handlers: RequestHandlers, limits: ParserLimits = {}) {
    super(handlers, limits);
    this.h = handlers;
  }

  /** @internal */
  protected override resetSubclass(): void {
    this.hostCount = 0;
    this.expect = 0;
    this.form = FORM_ORIGIN;
  }

  /** @internal */
  protected override parseStartLine(buf: Buffer, base: number, pos: number, end: number): number {
    const maxL = this.maxRequestLineBytes;
    const lf = buf.indexOf(10, pos);
    if (lf < 0 || lf >= end) {
      const have = end - pos;
      if (have > maxL + 1 || (have === maxL + 1 && buf[end - 1] !== 13)) return this.fail('ERR_HTTP_URI_TOO_LONG', `Request line longer than ${maxL} bytes`);
      if (end - base > this.maxHeaderBytes) return this.tooLargeHead();
      if (!this.checkPartialRequestLine(buf, pos, end)) return FAIL;
      this.lineStart = pos - base;
      return NEED;
    }
    // The content is checked before the line ending, in the same order as
    // checkPartialRequestLine(), so the error does not depend on how the
    // bytes were split.
    const bareLf = buf[lf - 1] !== 13;
    const le = bareLf ? lf : lf - 1;
    if (le - pos > maxL) return this.fail('ERR_HTTP_URI_TOO_LONG', `Request line longer than ${maxL} bytes`);
    if (lf + 1 - base > this.maxHeaderBytes) return this.tooLargeHead();
    // method
    let i = pos;
    while (i < le && TCHAR[buf[i]!] === 1) i++;
    if (i === pos) return this.fail('ERR_HTTP_BAD_REQUEST_LINE', 'Invalid method token');
    if (i === le) return this.fail('ERR_HTTP_BAD_REQUEST_LINE', 'Request line has no request-target');
    if (buf[i] !== 32) return this.fail('ERR_HTTP_BAD_REQUEST_LINE', `Invalid character 0x${buf[i]!.toString(16).padStart(2, '0')} in the method`);
    const me = i++;
    // request-target
    const ts = i;
    let c = 0;
    while (i < le && (c = buf[i]!) > 32 && c < 127) i++; // TARGET, as comparisons
    if (i === ts) return this.fail('ERR_HTTP_BAD_REQUEST_LINE', buf[i] === 32 ? 'More than one space after the method' : 'Invalid request-target');
    if (i === le) return this.fail('ERR_HTTP_BAD_REQUEST_LINE', 'Request line has no HTTP version (HTTP/0.9 is not supported)');
    if (buf[i] !== 32) return this.fail('ERR_HTTP_BAD_TARGET', `Invalid byte 0x${buf[i]!.toString(16).padStart(2, '0')} in the request-target`);
    const te = i++;
    // version
    if (
      le - i !== 8 ||
      buf[i] !== 72 || buf[i + 1] !== 84 || buf[i + 2] !== 84 || buf[i + 3] !== 80 || buf[i + 4] !== 47 ||
      !isDigit(buf[i + 5]!) || buf[i + 6] !== 46 || !isDigit(buf[i + 7]!)
    ) {
      return buf[i] === 32
        ? this.fail('ERR_HTTP_BAD_REQUEST_LINE', 'More than one space before the HTTP version')
        : this.fail('ERR_HTTP_BAD_VERSION', `Invalid HTTP version: ${latin1(buf, i, le)}`);
    }
    if (bareLf) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Request line ends with a bare LF');
    const major = buf[i + 5]! - 48;
    if (major !== 1) return this.fail('ERR_HTTP_UNSUPPORTED_VERSION', `HTTP version not supported: ${latin1(buf, i, le)}`);
    this.major = 1;
    this.minor = buf[i + 7]! - 48;
    const m = lookupMethod(buf, pos, me);
    if (m < 0) return this.fail('ERR_HTTP_UNSUPPORTED_METHOD', `Method not implemented: ${latin1(buf, pos, me)}`);
    this.method = m;
    this.targetS = ts - base;
    this.targetE = te - base;
    // request-target form
    const c0 = buf[ts]!;
    if (c0 === 47) {
      if (m === M_CONNECT) return this.fail('ERR_HTTP_BAD_TARGET', 'CONNECT requires an authority-form target (host:port)');
      this.form = FORM_ORIGIN;
    } else if (c0 === 42 && te - ts === 1) {
      if (m !== M_OPTIONS) return this.fail('ERR_HTTP_BAD_TARGET', 'The asterisk-form target is only allowed with OPTIONS');
      this.form = FORM_ASTERISK;
    } else if (m === M_CONNECT) {
      if (!validAuthority(buf, ts, te, false, true)) return this.fail('ERR_HTTP_BAD_TARGET', `Invalid CONNECT target: ${latin1(buf, ts, te)}`);
      this.form = FORM_AUTHORITY;
      this.authS = ts - base;
      this.authE = te - base;
    } else {
      // absolute-form: scheme "://" authority [ path-abempty [ "?" query ] ]
      let k = ts;
      if (!isAlpha(c0)) return this.fail('ERR_HTTP_BAD_TARGET', `Invalid request-target: ${latin1(buf, ts, te)}`);
      k++;
      while (k < te && SCHEME[buf[k]!] === 1) k++;
      if (te - k < 3 || buf[k] !== 58 || buf[k + 1] !== 47 || buf[k + 2] !== 47) return this.fail('ERR_HTTP_BAD_TARGET', `Invalid request-target: ${latin1(buf, ts, te)}`);
      const as = k + 3;
      let ae = as;
      while (ae < te && (c = buf[ae]!) !== 47 && c !== 63 && c !== 35) ae++;
      if (!validAuthority(buf, as, ae, false, false)) return this.fail('ERR_HTTP_BAD_TARGET', `Invalid authority in the request-target: ${latin1(buf, as, ae)}`);
      this.form = FORM_ABSOLUTE;
      this.authS = as - base;
      this.authE = ae - base;
    }
    return lf + 1;
  }

  private tooLargeHead(): number {
    return this.fail('ERR_HTTP_HEADER_TOO_LARGE', `Request head larger than ${this.maxHeaderBytes} bytes`);
  }

  /** Early refusal of a request line that cannot become valid (e.g. TLS bytes on a plain port). */
  private checkPartialRequestLine(buf: Buffer, pos: number, end: number): boolean {
    let i = pos;
    while (i < end && TCHAR[buf[i]!] === 1) i++;
    if (i === end) return true;
    if (i === pos || buf[i] !== 32) return this.no('ERR_HTTP_BAD_REQUEST_LINE', 'Invalid method token');
    const ts = ++i;
    while (i < end && TARGET[buf[i]!] === 1) i++;
    if (i === end) return true;
    if (i === ts) return this.no('ERR_HTTP_BAD_REQUEST_LINE', 'More than one space after the method');
    if (buf[i] !== 32) {
      // a CR may still turn out to end the line ("GET /\r\n": no version)
      if (buf[i] === 13 && i + 1 === end) return true;
      return this.no('ERR_HTTP_BAD_TARGET', `Invalid byte 0x${buf[i]!.toString(16).padStart(2, '0')} in the request-target`);
    }
    i++;
    for (let k = 0; i < end; k++, i++) {
      const c = buf[i]!;
      if (k === 0 && c === 32) return this.no('ERR_HTTP_BAD_REQUEST_LINE', 'More than one space before the HTTP version');
      const ok = k < 5 ? c === VERSION_PREFIX[k] : k === 5 || k === 7 ? isDigit(c) : k === 6 ? c === 46 : k === 8 ? c === 13 : false;
      if (!ok) return this.no('ERR_HTTP_BAD_VERSION', 'Invalid HTTP version');
    }
    return true;
  }

  /** @internal */
  protected override inspectField(buf: Buffer, base: number, ns: number, ne: number, vs: number, ve: number): boolean {
    const len = ne - ns;
    if (len === 4) {
      if (!eqLower(buf, ns, B_HOST)) return true;
      if (++this.hostCount > 1) return this.no('ERR_HTTP_BAD_HOST', 'More than one Host header field');
      if (!validAuthority(buf, vs, ve, true, false)) return this.no('ERR_HTTP_BAD_HOST', `Invalid Host: ${latin1(buf, vs, ve)}`);
      this.hostS = vs - base;
      this.hostE = ve - base;
      return true;
    }
    if (len === 6) {
      if (eqLower(buf, ns, B_EXPECT)) this.expect |= ve - vs === 12 && eqLower(buf, vs, B_100_CONTINUE) ? 1 : 2;
      return true;
    }
    return this.inspectCommon(buf, ns, ne, vs, ve);
  }

  /** @internal */
  protected override completeHead(buf: Buffer, base: number, end: number): number {
    const v11 = this.minor >= 1;
    if (this.hostCount === 0 && v11) return this.fail('ERR_HTTP_MISSING_HOST', 'HTTP/1.1 request without a Host header field');
    let chunked = false;
    if (this.teCount > 0) {
      if (this.cl >= 0) return this.fail('ERR_HTTP_SMUGGLING', 'Both Content-Length and Transfer-Encoding');
      if (this.chunkedCount > 1) return this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The chunked coding is applied more than once');
      if (!this.teLastChunked) {
        return this.teCount === 1 && this.chunkedCount === 0
          ? this.fail('ERR_HTTP_UNSUPPORTED_ENCODING', 'Transfer coding not implemented (only chunked is)')
          : this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The final transfer coding is not chunked');
      }
      if (this.teCount > 1) return this.fail('ERR_HTTP_UNSUPPORTED_ENCODING', 'Transfer coding not implemented (only chunked is)');
      chunked = true;
    }
    if (v11 && (this.expect & 2) !== 0) return this.fail('ERR_HTTP_EXPECTATION', 'Unsupported Expect value');
    const cl = this.cl;
    if (cl > this.maxBodyBytes) return this.fail('ERR_HTTP_BODY_TOO_LARGE', `Content-Length ${cl} is larger than ${this.maxBodyBytes}`);
    const conn = this.conn;
    let keepAlive = (conn & CONN_CLOSE) === 0 && (v11 || (conn & CONN_KEEP_ALIVE) !== 0);
    if (chunked && !v11) keepAlive = false;
    const upgrade = v11 && this.hasUpgrade && (conn & CONN_UPGRADE) !== 0;
    const raw = latin1(buf, base, end);
    const form = this.form;
    let host: string | null = null;
    if (form === FORM_ABSOLUTE || form === FORM_AUTHORITY) host = raw.slice(this.authS, this.authE);
    else if (this.hostCount > 0) host = raw.slice(this.hostS, this.hostE);
    const m = this.method;
    this.head = new RequestHead(
      raw,
      this.takeOffsets(),
      METHOD_NAMES[m]!,
      METHOD_CMDS[m]!,
      raw.slice(this.targetS, this.targetE),
      1,
      this.minor,
      cl >= 0 ? cl : null,
      chunked,
      keepAlive,
      upgrade,
      v11 && (this.expect & 1) !== 0,
      host,
      form === FORM_ABSOLUTE,
    );
    return 0;
  }

  /** @internal */
  protected override emitHead(chunk: Buffer, pos: number): number {
    const head = this.head!;
    this.head = null;
    const h = this.h;
    if (head.upgrade && h.onUpgrade !== undefined) {
      this.state = S_UPGRADED;
      h.onUpgrade(head, chunk.subarray(pos));
      return pos;
    }
    const hasBody = this.startBody(head.chunked, head.chunked ? 0 : (head.contentLength ?? 0));
    h.onRequest(head);
    if (!hasBody && this.state === S_START) this.messageDone(null);
    return pos;
  }
}

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

/**
 * Incremental HTTP/1.1 response parser (client side), with the same
 * strictness and limits as {@link RequestParser} (`maxRequestLineBytes`
 * does not apply; the status line counts in `maxHeaderBytes`).
 *
 * Body length (RFC 9112 6.3): none for answers to HEAD, for 1xx, 204 and
 * 304; chunked when Transfer-Encoding ends with `chunked`; Content-Length;
 * otherwise until the connection closes (call `finish()` at the end of the
 * input). Interim 1xx responses are reported to `onInformational` and
 * skipped; 101, and a 2xx answer to CONNECT, stop the parser
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
   * socket.write('HEAD / HTTP/1.1\r\nHost: a\r\n\r\n');
   * parser.addRequest('HEAD');
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
    super.reset();
  }

  /** @internal */
  protected override parseStartLine(buf: Buffer, base: number, pos: number, end: number): number {
    const lf = buf.indexOf(10, pos);
    if (lf < 0 || lf >= end) {
      if (end - base > this.maxHeaderBytes) return this.fail('ERR_HTTP_HEADER_TOO_LARGE', `Response head larger than ${this.maxHeaderBytes} bytes`);
      this.lineStart = pos - base;
      return NEED;
    }
    if (lf === pos || buf[lf - 1] !== 13) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Status line ends with a bare LF');
    const le = lf - 1;
    if (lf + 1 - base > this.maxHeaderBytes) return this.fail('ERR_HTTP_HEADER_TOO_LARGE', `Response head larger than ${this.maxHeaderBytes} bytes`);
    const i = pos;
    if (
      le - i < 12 ||
      buf[i] !== 72 || buf[i + 1] !== 84 || buf[i + 2] !== 84 || buf[i + 3] !== 80 || buf[i + 4] !== 47 ||
      !isDigit(buf[i + 5]!) || buf[i + 6] !== 46 || !isDigit(buf[i + 7]!) || buf[i + 8] !== 32 ||
      !isDigit(buf[i + 9]!) || !isDigit(buf[i + 10]!) || !isDigit(buf[i + 11]!) ||
      (le > i + 12 && buf[i + 12] !== 32)
    ) {
      return this.fail('ERR_HTTP_BAD_STATUS_LINE', `Invalid status line: ${latin1(buf, pos, le)}`);
    }
    if (buf[i + 5] !== 49) return this.fail('ERR_HTTP_UNSUPPORTED_VERSION', `HTTP version not supported: ${latin1(buf, i, i + 8)}`);
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
      if (this.chunkedCount > 1) return this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The chunked coding is applied more than once');
      if (this.chunkedCount === 1 && !this.teLastChunked) return this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The final transfer coding is not chunked');
    }
    this.interim = status < 200 && status !== 101;
    const method = this.interim || this.methods.length === 0 ? 'GET' : this.methods[0]!;
    const upgrade = status === 101 || (method === 'CONNECT' && status < 300 && status >= 200);
    let chunked = false;
    let length = 0; // -1: until close
    if (!this.interim && !upgrade && method !== 'HEAD' && status !== 204 && status !== 304) {
      if (this.teCount > 0) {
        if (this.teLastChunked) chunked = true;
        else length = -1;
      } else length = this.cl >= 0 ? this.cl : -1;
      if (length > this.maxBodyBytes) return this.fail('ERR_HTTP_BODY_TOO_LARGE', `Content-Length ${length} is larger than ${this.maxBodyBytes}`);
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

// ---------------------------------------------------------------------------
// Response helpers
// ---------------------------------------------------------------------------

const PHRASES: readonly (readonly string[])[] = [
  ['Continue', 'Switching Protocols'],
  ['OK', 'Created', 'Accepted', 'Non-Authoritative Information', 'No Content', 'Reset Content', 'Partial Content'],
  // libevent lists 307 right after 305, so 306 reads "Temporary Redirect" and 307 falls past the table.
  ['Multiple Choices', 'Moved Permanently', 'Found', 'See Other', 'Not Modified', 'Use Proxy', 'Temporary Redirect'],
  [
    'Bad Request', 'Unauthorized', 'Payment Required', 'Forbidden', 'Not Found', 'Method Not Allowed', 'Not Acceptable',
    'Proxy Authentication Required', 'Request Time-out', 'Conflict', 'Gone', 'Length Required', 'Precondition Failed',
    'Request Entity Too Large', 'Request-URI Too Large', 'Unsupported Media Type', 'Requested range not satisfiable',
    'Expectation Failed',
  ],
  ['Internal Server Error', 'Not Implemented', 'Bad Gateway', 'Service Unavailable', 'Gateway Time-out', 'HTTP Version not supported'],
];
const CLASS_NAMES = ['Informational', 'Success', 'Redirection', 'Client Error', 'Server Error'];

/**
 * The reason phrase libevent uses for a status code (its RFC 2616 table,
 * spellings included: "Request Time-out", "Request-URI Too Large", "Gateway
 * Time-out", "HTTP Version not supported"). A code past its class's table
 * gets the class name ("Client Error" for 418 or 431, "Redirection" for 307
 * — libevent's table is off by one there); a code outside 100-599 gets
 * "Unknown Status Class".
 *
 * @example
 * ```ts
 * statusText(404); // 'Not Found'
 * statusText(431); // 'Client Error'
 * statusText(600); // 'Unknown Status Class'
 * ```
 */
export function statusText(code: number): string {
  if (!Number.isInteger(code)) return 'Unknown Status Class';
  const klass = Math.trunc(code / 100) - 1;
  if (klass < 0 || klass >= PHRASES.length) return 'Unknown Status Class';
  const sub = code % 100;
  const t = PHRASES[klass]!;
  return sub < t.length ? t[sub]! : CLASS_NAMES[klass]!;
}

let dateSecond = Number.NaN;
let dateValue = '';

/**
 * An IMF-fixdate (RFC 1123 format) for the `Date` header, e.g.
 * `Sun, 06 Nov 1994 08:49:37 GMT`. The string is cached for the current
 * second, so calling it per response costs a division and a comparison.
 *
 * @param ms milliseconds since the epoch (default `Date.now()`).
 * @throws RangeError when `ms` is not a valid time.
 * @example
 * ```ts
 * httpDate(784111777000); // 'Sun, 06 Nov 1994 08:49:37 GMT'
 * res.push(`Date: ${httpDate()}\r\n`);
 * ```
 */
export function httpDate(ms: number = Date.now()): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== dateSecond) {
    if (!Number.isFinite(sec)) throw new RangeError(`Invalid time value: ${ms}`);
    const d = new Date(sec * 1000);
    if (Number.isNaN(d.getTime())) throw new RangeError(`Invalid time value: ${ms}`);
    dateValue = d.toUTCString();
    dateSecond = sec;
  }
  return dateValue;
}

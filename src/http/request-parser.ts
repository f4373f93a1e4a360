/**
 * The request front end of the HTTP/1.1 codec: {@link RequestParser} (server
 * side) parses request lines and interprets what a request head means (its
 * target form, Host, Expect, Upgrade, framing); the state machine it runs
 * on is `machine.ts`.
 *
 * ## Documented choices (requests)
 *
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
 * - **Methods.** The known set is `HTTP_METHODS` (`methods.ts`); another valid token
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
import { HEX, REGNAME, SCHEME, TARGET, TCHAR, asciiLower, eqLower, isAlpha, isDigit, latin1 } from './chars.js';
import { METHOD_CMDS, METHOD_NAMES, M_CONNECT, M_OPTIONS, lookupMethod } from './methods.js';
import { RequestHead } from './head.js';
import {
  CONN_CLOSE,
  CONN_KEEP_ALIVE,
  CONN_UPGRADE,
  FAIL,
  HttpMessageParser,
  NEED,
  S_START,
  S_UPGRADED,
  type MessageHandlers,
  type ParserLimits,
} from './machine.js';

const B_HOST = asciiLower('host');
const B_EXPECT = asciiLower('expect');
const B_100_CONTINUE = asciiLower('100-continue');

/**
 * Callbacks of a {@link RequestParser}.
 *
 * @example
 * ```ts
 * let current: RequestHead | null = null;
 * const handlers: RequestHandlers = {
 *   onRequest(head) { current = head; },
 *   onMessageComplete() { console.log('complete:', current?.method, current?.target); },
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
  /**
   * The handlers only read the heads they get (a head is immutable, but
   * its `headers` array is the caller's): a head that repeats the last one
   * byte for byte is then handed out again as the same object instead of a
   * copy. Off by default.
   * @internal
   */
  readonly sharesHeads?: boolean;
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

const VERSION_PREFIX = [72, 84, 84, 80, 47]; // "HTTP/"

/** Heads up to this size are remembered for {@link RequestParser}'s reuse of a repeated head. */
const MEMO_MAX = 2048;

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
 * const body: Buffer[] = [];
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
   * The last head without a body, an upgrade or an Expect, and the limits it
   * passed: the parser is a function of the bytes and the limits, so the
   * same bytes under the same limits give the same head (a keep-alive client
   * repeating a request) and are compared instead of parsed again.
   */
  private memo: RequestHead | null = null;
  private memoHeaderBytes = 0;
  private memoHeaderCount = 0;
  private memoLineBytes = 0;
  /** The memo's bytes as little-endian 32-bit words, made once its head repeats: compared 4 bytes at a time. */
  private memoWords: Int32Array | null = null;
  /** A view of the chunk being compared (a pipelined batch is compared head after head), and that chunk. */
  private view: DataView | null = null;
  private viewOf: Buffer | null = null;

  /**
   * @param handlers the callbacks (`onRequest` is required).
   * @param limits size limits (see `ParserLimits`; defaults in `DEFAULT_LIMITS`).
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
      if (have > maxL + 1 || (have === maxL + 1 && buf[end - 1] !== 13))
        return this.fail('ERR_HTTP_URI_TOO_LONG', `Request line longer than ${maxL} bytes`);
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
    if (buf[i] !== 32)
      return this.fail(
        'ERR_HTTP_BAD_REQUEST_LINE',
        `Invalid character 0x${buf[i]!.toString(16).padStart(2, '0')} in the method`,
      );
    const me = i++;
    // request-target
    const ts = i;
    let c: number;
    while (i < le && (c = buf[i]!) > 32 && c < 127) i++; // TARGET, as comparisons
    if (i === ts)
      return this.fail(
        'ERR_HTTP_BAD_REQUEST_LINE',
        buf[i] === 32 ? 'More than one space after the method' : 'Invalid request-target',
      );
    if (i === le)
      return this.fail('ERR_HTTP_BAD_REQUEST_LINE', 'Request line has no HTTP version (HTTP/0.9 is not supported)');
    if (buf[i] !== 32)
      return this.fail(
        'ERR_HTTP_BAD_TARGET',
        `Invalid byte 0x${buf[i]!.toString(16).padStart(2, '0')} in the request-target`,
      );
    const te = i++;
    // version
    if (
      le - i !== 8 ||
      buf[i] !== 72 ||
      buf[i + 1] !== 84 ||
      buf[i + 2] !== 84 ||
      buf[i + 3] !== 80 ||
      buf[i + 4] !== 47 ||
      !isDigit(buf[i + 5]!) ||
      buf[i + 6] !== 46 ||
      !isDigit(buf[i + 7]!)
    ) {
      return buf[i] === 32
        ? this.fail('ERR_HTTP_BAD_REQUEST_LINE', 'More than one space before the HTTP version')
        : this.fail('ERR_HTTP_BAD_VERSION', `Invalid HTTP version: ${latin1(buf, i, le)}`);
    }
    if (bareLf) return this.fail('ERR_HTTP_BAD_LINE_ENDING', 'Request line ends with a bare LF');
    const major = buf[i + 5]! - 48;
    if (major !== 1)
      return this.fail('ERR_HTTP_UNSUPPORTED_VERSION', `HTTP version not supported: ${latin1(buf, i, le)}`);
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
      if (m === M_CONNECT)
        return this.fail('ERR_HTTP_BAD_TARGET', 'CONNECT requires an authority-form target (host:port)');
      this.form = FORM_ORIGIN;
    } else if (c0 === 42 && te - ts === 1) {
      if (m !== M_OPTIONS)
        return this.fail('ERR_HTTP_BAD_TARGET', 'The asterisk-form target is only allowed with OPTIONS');
      this.form = FORM_ASTERISK;
    } else if (m === M_CONNECT) {
      if (!validAuthority(buf, ts, te, false, true))
        return this.fail('ERR_HTTP_BAD_TARGET', `Invalid CONNECT target: ${latin1(buf, ts, te)}`);
      this.form = FORM_AUTHORITY;
      this.authS = ts - base;
      this.authE = te - base;
    } else {
      // absolute-form: scheme "://" authority [ path-abempty [ "?" query ] ]
      let k = ts;
      if (!isAlpha(c0)) return this.fail('ERR_HTTP_BAD_TARGET', `Invalid request-target: ${latin1(buf, ts, te)}`);
      k++;
      while (k < te && SCHEME[buf[k]!] === 1) k++;
      if (te - k < 3 || buf[k] !== 58 || buf[k + 1] !== 47 || buf[k + 2] !== 47)
        return this.fail('ERR_HTTP_BAD_TARGET', `Invalid request-target: ${latin1(buf, ts, te)}`);
      const as = k + 3;
      let ae = as;
      while (ae < te && (c = buf[ae]!) !== 47 && c !== 63 && c !== 35) ae++;
      if (!validAuthority(buf, as, ae, false, false))
        return this.fail('ERR_HTTP_BAD_TARGET', `Invalid authority in the request-target: ${latin1(buf, as, ae)}`);
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
      return this.no(
        'ERR_HTTP_BAD_TARGET',
        `Invalid byte 0x${buf[i]!.toString(16).padStart(2, '0')} in the request-target`,
      );
    }
    i++;
    for (let k = 0; i < end; k++, i++) {
      const c = buf[i]!;
      if (k === 0 && c === 32)
        return this.no('ERR_HTTP_BAD_REQUEST_LINE', 'More than one space before the HTTP version');
      const ok =
        k < 5
          ? c === VERSION_PREFIX[k]
          : k === 5 || k === 7
            ? isDigit(c)
            : k === 6
              ? c === 46
              : k === 8
                ? c === 13
                : false;
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
      if (!validAuthority(buf, vs, ve, true, false))
        return this.no('ERR_HTTP_BAD_HOST', `Invalid Host: ${latin1(buf, vs, ve)}`);
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
    if (this.hostCount === 0 && v11)
      return this.fail('ERR_HTTP_MISSING_HOST', 'HTTP/1.1 request without a Host header field');
    let chunked = false;
    if (this.teCount > 0) {
      if (this.cl >= 0) return this.fail('ERR_HTTP_SMUGGLING', 'Both Content-Length and Transfer-Encoding');
      if (this.chunkedCount > 1)
        return this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The chunked coding is applied more than once');
      if (!this.teLastChunked) {
        return this.teCount === 1 && this.chunkedCount === 0
          ? this.fail('ERR_HTTP_UNSUPPORTED_ENCODING', 'Transfer coding not implemented (only chunked is)')
          : this.fail('ERR_HTTP_BAD_TRANSFER_ENCODING', 'The final transfer coding is not chunked');
      }
      if (this.teCount > 1)
        return this.fail('ERR_HTTP_UNSUPPORTED_ENCODING', 'Transfer coding not implemented (only chunked is)');
      chunked = true;
    }
    if (v11 && (this.expect & 2) !== 0) return this.fail('ERR_HTTP_EXPECTATION', 'Unsupported Expect value');
    const cl = this.cl;
    if (cl > this.maxBodyBytes)
      return this.fail('ERR_HTTP_BODY_TOO_LARGE', `Content-Length ${cl} is larger than ${this.maxBodyBytes}`);
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
    const head = (this.head = new RequestHead(
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
    ));
    if (cl <= 0 && !chunked && !upgrade && !this.hasUpgrade && this.expect === 0 && raw.length <= MEMO_MAX) {
      this.memo = head;
      this.memoWords = null;
      this.memoHeaderBytes = this.maxHeaderBytes;
      this.memoHeaderCount = this.maxHeaderCount;
      this.memoLineBytes = this.maxRequestLineBytes;
    } else {
      this.memo = null;
    }
    return 0;
  }

  /** @internal */
  protected override reuseHead(buf: Buffer, pos: number, end: number): number {
    const m = this.memo;
    if (m === null) return -1;
    const raw = m.raw;
    const n = raw.length;
    if (
      end - pos < n ||
      this.memoHeaderBytes !== this.maxHeaderBytes ||
      this.memoHeaderCount !== this.maxHeaderCount ||
      this.memoLineBytes !== this.maxRequestLineBytes
    )
      return -1;
    const words = this.memoWords;
    if (words === null) {
      for (let i = 0; i < n; i++) if (buf[pos + i] !== raw.charCodeAt(i)) return -1;
      this.memoWords = headWords(buf, pos, n); // it repeats: by words from now on
    } else {
      let v = this.view;
      if (v === null || this.viewOf !== buf) {
        if (pos + n === end) {
          // The chunk's only (or last) head, as in keep-alive: a view is not worth making for it.
          if (v !== null) this.dropView();
          if (!sameWords(buf, pos, words)) return -1;
          for (let i = n & ~3; i < n; i++) if (buf[pos + i] !== raw.charCodeAt(i)) return -1;
          this.head = this.h.sharesHeads === true ? m : m.again();
          return this.emitHead(buf, end);
        }
        v = this.view = new DataView(buf.buffer, buf.byteOffset, buf.length);
        this.viewOf = buf;
      }
      let i = 0;
      while (i + 4 <= n && v.getInt32(pos + i, true) === words[i >> 2]) i += 4;
      if (i + 4 <= n) return this.dropView(); // a different head: parsed, and it becomes the memo
      for (; i < n; i++) if (buf[pos + i] !== raw.charCodeAt(i)) return this.dropView();
    }
    if (pos + n === end) this.dropView(); // the last head of this chunk
    this.head = this.h.sharesHeads === true ? m : m.again();
    return this.emitHead(buf, pos + n);
  }

  /** Forgets the view of the chunk (an idle connection keeps no chunk alive); returns -1. */
  private dropView(): number {
    this.view = null;
    this.viewOf = null;
    return -1;
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

/**
 * Whether the bytes of `buf` from `pos` are `words` (little-endian 32-bit
 * words), assembled from bytes: no view. Two words per step (fewer loop
 * checks: about a tenth faster).
 */
function sameWords(buf: Buffer, pos: number, words: Int32Array): boolean {
  const m = words.length;
  let k = 0;
  let p = pos;
  for (; k + 1 < m; k += 2, p += 8) {
    const a = buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24);
    const b = buf[p + 4]! | (buf[p + 5]! << 8) | (buf[p + 6]! << 16) | (buf[p + 7]! << 24);
    if ((a ^ words[k]!) | (b ^ words[k + 1]!)) return false;
  }
  return k === m || (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) === words[k];
}

/** The `n` bytes of `buf` from `pos` as little-endian 32-bit words (the last partial word left out). */
function headWords(buf: Buffer, pos: number, n: number): Int32Array {
  const words = new Int32Array(n >> 2);
  for (let k = 0; k < words.length; k++) words[k] = buf.readInt32LE(pos + 4 * k);
  return words;
}

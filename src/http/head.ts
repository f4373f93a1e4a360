/**
 * The parsed message heads the parsers hand out: {@link MessageHead} (version,
 * framing, header fields stored as offsets into one latin1 string) and its
 * request and response forms.
 *
 * @module
 */
import { LOWER } from './chars.js';
import type { HttpMethod } from './methods.js';

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
  constructor(
    raw: string,
    offs: number[],
    major: number,
    minor: number,
    contentLength: number | null,
    chunked: boolean,
    keepAlive: boolean,
    upgrade: boolean,
  ) {
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
      for (let k = 0, j = 0; k < offs.length; k += 4, j++)
        p[j] = [raw.slice(offs[k], offs[k + 1]), raw.slice(offs[k + 2], offs[k + 3])];
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
    for (let k = this.find(lname, 0); k >= 0; k = this.find(lname, k + 4))
      out.push(this.raw.slice(this.offs[k + 2], this.offs[k + 3]));
    return out;
  }

  /**
   * Whether a field named `name` is present.
   *
   * @example
   * ```ts
   * if (!head.hasHeader('Authorization')) console.log('anonymous request');
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
  /** The method (one of the `HTTP_METHODS`). */
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
  constructor(
    raw: string,
    offs: number[],
    method: HttpMethod,
    cmd: number,
    target: string,
    major: number,
    minor: number,
    contentLength: number | null,
    chunked: boolean,
    keepAlive: boolean,
    upgrade: boolean,
    expectContinue: boolean,
    host: string | null,
    absoluteForm: boolean,
  ) {
    super(raw, offs, major, minor, contentLength, chunked, keepAlive, upgrade);
    this.method = method;
    this.cmd = cmd;
    this.target = target;
    this.expectContinue = expectContinue;
    this.host = host;
    this.absoluteForm = absoluteForm;
  }

  /** @internal A new head with the same content (for the same bytes received again). */
  again(): RequestHead {
    return new RequestHead(
      this.raw,
      this.offs,
      this.method,
      this.cmd,
      this.target,
      this.versionMajor,
      this.versionMinor,
      this.contentLength,
      this.chunked,
      this.keepAlive,
      this.upgrade,
      this.expectContinue,
      this.host,
      this.absoluteForm,
    );
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
  constructor(
    raw: string,
    offs: number[],
    statusCode: number,
    statusMessage: string,
    major: number,
    minor: number,
    contentLength: number | null,
    chunked: boolean,
    keepAlive: boolean,
    upgrade: boolean,
  ) {
    super(raw, offs, major, minor, contentLength, chunked, keepAlive, upgrade);
    this.statusCode = statusCode;
    this.statusMessage = statusMessage;
  }
}

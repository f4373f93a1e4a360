/**
 * The head of a server reply (status line, the application's headers,
 * `Connection`, `Date`, `Content-Length`), and the cache that reuses the
 * text of the last one while nothing in it changes.
 *
 * @module
 */
import type { EventBase } from '../event/base.js';
import type { EventBuffer } from '../event/buffer.js';
import type { ExchangeRequest } from './contracts.js';
import { httpDate } from './date.js';
import { lower, type HeaderList } from './headers.js';
import { statusText } from './status.js';

/** Bodies of up to this many characters are kept with their head ({@link HeadCache.appendKept}). */
const KEPT_TEXT_MAX = 256;

/**
 * The head of the last reply: the status line, the application's headers, the
 * connection's keep-alive line and `Date` (the prefix), and the whole head for
 * one body length. One per server; the connections run one at a time.
 * @internal
 * @example
 * ```ts
 * const cache = new HeadCache();
 * const page = Buffer.from('<h1>Not Found</h1>');
 * const out = new EventBuffer();
 * out.addLatin1(cache.build(req, 404, null, page.length, true, false, base));
 * out.add(page);
 * ```
 */
export class HeadCache {
  #code = 0;
  #reason: string | null = null;
  #http10 = false;
  #keepAlive = false;
  #date = '';
  #names: string[] = [];
  #values: string[] = [];
  #prefix = '';
  #hasLength = false;
  #bodyLength = -2;
  #full = '';
  /** `#full` encoded, once it has been used twice (replies of one kind repeat it). */
  #fullBytes: Buffer | null = null;
  #fullUses = 0;
  /**
   * The last reply whose body was short text (a health check, a fixed
   * answer): its head, its text, and from its second use the bytes of both,
   * written as they are when the next reply is the same.
   */
  #replyHead = '';
  #replyText = '';
  #replyBytes: Buffer | null = null;
  /** The last short body given as text, and from its second use its encoded bytes. */
  #text = '';
  #textBytes: Buffer | null = null;
  #textUses = 0;
  /**
   * The Date header's value, kept until the next second begins (an unref'd
   * timer clears it), as node:http keeps its own: no clock read per reply.
   */
  #dateText = '';
  readonly #dateExpired = (): void => {
    this.#dateText = '';
  };

  /**
   * The status line and headers of a reply (`bodyLength` -1: no
   * Content-Length added): the text built last time when nothing in it
   * changed, else built now and kept.
   * @example
   * ```ts
   * const cache = new HeadCache();
   * const body = Buffer.from('ok');
   * const head = cache.build(req, 200, 'OK', body.length, false, true, base); // 'HTTP/1.1 200 OK\r\n...'
   * ```
   */
  build(
    req: ExchangeRequest,
    code: number,
    reason: string | null,
    bodyLength: number,
    errorPage: boolean,
    keepAlive: boolean,
    base: EventBase,
  ): string {
    const http10 = req.major === 1 && req.minor === 0 && !errorPage;
    const date = this.#dateText !== '' ? this.#dateText : this.#readDate(base);
    const out = req.output;
    // Replies of one kind repeat their head (a status, the same headers, the same second):
    // reuse the text built last time, flat already, instead of concatenating it again.
    if (this.#sameAs(code, reason, http10, keepAlive, date, out)) {
      if (this.#bodyLength === bodyLength) return this.#full;
      return (this.#full = this.#finish(bodyLength));
    }
    const text = reason ?? statusText(code);
    let s = `HTTP/1.${http10 ? 0 : 1} ${code} ${text}\r\n`;
    const names = out.names;
    const values = out.values;
    let hasLength = false;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const l = name.length === 10 || name.length === 14 || name.length === 17 ? lower(name) : '';
      if (l === 'connection') continue; // the server decides
      if (l === 'content-length' || l === 'transfer-encoding') hasLength = true;
      s += `${name}: ${values[i] as string}\r\n`;
    }
    if (http10 && keepAlive) s += 'Connection: keep-alive\r\n';
    s += `Date: ${date}\r\n`;
    this.#store(code, reason, http10, keepAlive, date, out, s, hasLength);
    return (this.#full = this.#finish(bodyLength));
  }

  /** The date now, kept for the rest of this second. */
  #readDate(base: EventBase): string {
    const ms = base.getTimeOfDayCached() * 1000;
    const text = httpDate(ms);
    this.#dateText = text;
    setTimeout(this.#dateExpired, 1000 - (ms % 1000)).unref();
    return text;
  }

  #sameAs(
    code: number,
    reason: string | null,
    http10: boolean,
    keepAlive: boolean,
    date: string,
    out: HeaderList,
  ): boolean {
    if (
      code !== this.#code ||
      reason !== this.#reason ||
      http10 !== this.#http10 ||
      keepAlive !== this.#keepAlive ||
      date !== this.#date
    )
      return false;
    const names = out.names;
    const values = out.values;
    const n = names.length;
    if (n !== this.#names.length) return false;
    for (let i = 0; i < n; i++) if (names[i] !== this.#names[i] || values[i] !== this.#values[i]) return false;
    return true;
  }

  #store(
    code: number,
    reason: string | null,
    http10: boolean,
    keepAlive: boolean,
    date: string,
    out: HeaderList,
    prefix: string,
    hasLength: boolean,
  ): void {
    this.#code = code;
    this.#reason = reason;
    this.#http10 = http10;
    this.#keepAlive = keepAlive;
    this.#date = date;
    this.#names = out.names.slice();
    this.#values = out.values.slice();
    this.#prefix = prefix;
    this.#hasLength = hasLength;
  }

  /** The whole head for a body of `bodyLength` bytes (-1: no Content-Length). */
  #finish(bodyLength: number): string {
    let s = this.#prefix;
    if (bodyLength >= 0 && !this.#hasLength) s += `Content-Length: ${bodyLength}\r\n`;
    if (!this.#keepAlive) s += 'Connection: close\r\n';
    this.#bodyLength = bodyLength;
    this.#fullBytes = null;
    this.#fullUses = 0;
    this.#replyBytes = null;
    this.#replyHead = '';
    return s + '\r\n';
  }

  /**
   * Appends `head` (a string {@link HeadCache.build} returned) to `out`,
   * keeping `room` bytes free behind it in the same chunk. A head that is
   * the cached one is copied from its encoded bytes, kept from its second
   * use on: a byte copy instead of encoding the text again. `exact`: a new
   * chunk gets exactly the head and `room` (the reply leaves alone).
   * @example
   * ```ts
   * const cache = new HeadCache();
   * const out = new EventBuffer();
   * const head = cache.build(req, 200, 'OK', 13, false, true, base);
   * cache.append(out, head, 13);
   * out.add('Hello, World!');
   * ```
   */
  append(out: EventBuffer, head: string, room: number, exact = false): void {
    if (head === this.#full) {
      let bytes = this.#fullBytes;
      if (bytes === null && ++this.#fullUses >= 2) bytes = this.#fullBytes = Buffer.from(head, 'latin1');
      if (bytes !== null) {
        out.appendBytes(bytes, 0, bytes.length, room, exact);
        return;
      }
    }
    out.addLatin1(head, room);
  }

  /**
   * Appends a reply body given as short text from its encoded bytes, kept
   * once the same text repeats (a fixed answer): a copy instead of encoding
   * it again. False when it is not kept (yet): the caller appends it.
   * @example
   * ```ts
   * const cache = new HeadCache();
   * const out = new EventBuffer();
   * if (!cache.appendText(out, 'hello')) out.add('hello');
   * ```
   */
  appendText(out: EventBuffer, text: string): boolean {
    if (text.length > KEPT_TEXT_MAX) return false;
    let bytes = this.#textBytes;
    if (text !== this.#text) {
      this.#text = text;
      this.#textUses = 0;
      bytes = this.#textBytes = null;
    }
    if (bytes === null) {
      if (++this.#textUses < 2) return false;
      bytes = this.#textBytes = Buffer.from(text, 'utf8');
    }
    out.appendBytes(bytes, 0, bytes.length, 0);
    return true;
  }

  /**
   * Appends a whole reply, `head` (a string {@link HeadCache.build} returned)
   * and a body of short `text`, from the bytes kept for the same reply
   * before: for a reply that leaves `alone`, no copy, the kept bytes
   * themselves (never written again) go to the socket; else one copy of
   * them behind the replies before it. False when this is not the reply
   * kept (nothing appended); the reply is kept from its second use on.
   * @example
   * ```ts
   * const cache = new HeadCache();
   * const out = new EventBuffer();
   * const head = cache.build(req, 200, 'OK', 5, false, true, base);
   * if (!cache.appendKept(out, head, 'hello')) {
   *   cache.append(out, head, 5);
   *   out.add('hello');
   * }
   * ```
   */
  appendKept(out: EventBuffer, head: string, text: string, alone = true): boolean {
    if (head !== this.#full || text.length > KEPT_TEXT_MAX) return false;
    if (this.#replyHead === head && this.#replyText === text) {
      let bytes = this.#replyBytes;
      if (bytes === null) {
        const h = Buffer.byteLength(head, 'latin1');
        bytes = Buffer.allocUnsafeSlow(h + Buffer.byteLength(text, 'utf8'));
        bytes.write(head, 0, h, 'latin1');
        bytes.write(text, h, 'utf8');
        this.#replyBytes = bytes;
      }
      if (alone) out.appendOwned(bytes);
      else out.appendBytes(bytes, 0, bytes.length, 0); // one copy into the batch's chunk
      return true;
    }
    this.#replyHead = head;
    this.#replyText = text;
    this.#replyBytes = null;
    return false;
  }
}

/**
 * Inspecting an `EventBuffer` without draining it (the class between its
 * chunk storage and the public class): searching for bytes, needles and
 * line terminators, copying bytes out, peeking at the chunks.
 *
 * @module
 */
import { asBuffer, makeView } from './buffer-chunk.js';
import { badArgument, badPosition, invalidEol, toCount, toPosition } from './buffer-args.js';
import { byteAt, copyOut, EOL, find, findEol, isEol, searchBytes } from './buffer-scan.js';
import { ChunkStore } from './buffer-store.js';

/**
 * The inspecting methods of `EventBuffer`, which extends this class; not
 * exported by the package (use `EventBuffer`).
 *
 * @example
 * ```ts
 * import { EventBuffer } from 'eventide/event';
 * const buf = new EventBuffer();
 * buf.add('key: value\r\n');
 * buf.search(':'); // 3
 * ```
 */
export class BufferInspection extends ChunkStore {
  /**
   * The number of bytes in the first chunk (what can be read without
   * merging chunks); 0 for an empty buffer.
   *
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.addReference(Buffer.from('abc'));
   * buf.addReference(Buffer.from('de'));
   * console.log(buf.contiguousSpace); // 3
   * ```
   */
  get contiguousSpace(): number {
    return this.headLength();
  }

  /**
   * Searches for `needle` (strings as UTF-8). The match must start at or
   * after `start` and lie entirely before `end`. A negative `start`, or one
   * beyond the length (which also records "Failed to set position to N"),
   * searches from 0; a negative `end` or one beyond the length is ignored.
   * Matches may span chunks. An empty needle matches at the start position
   * (0 by default), as in libevent.
   *
   * @returns the absolute position of the first match, or `false`.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('Some string within a string inside another string');
   * let count = 0;
   * for (let pos = buf.search('str'); pos !== false; pos = buf.search('str', pos + 1)) count++;
   * console.log(count); // 3
   * ```
   */
  search(needle: string | Uint8Array, start = -1, end = -1): number | false {
    const what =
      typeof needle === 'string' ? Buffer.from(needle, 'utf8') : needle instanceof Uint8Array ? asBuffer(needle) : null;
    if (what === null) return badArgument('needle', typeof needle);
    const len = this.length;
    const from = this.#startPosition(start);
    const e = toPosition(end);
    const limit = e >= 0 && e <= len ? e : len;
    if (what.length === 0) return from;
    const p = searchBytes(this.cursor(), what, from, limit);
    return p < 0 ? false : p;
  }

  /**
   * Finds the next line terminator at or after `start` (invalid positions
   * search from 0, as {@link EventBuffer.search}).
   *
   * @returns the position where the terminator starts (for `EOL_CRLF` and
   *   `EOL_CRLF_STRICT` the `\r` when there is one), or `false` when there is
   *   none or the style is unknown.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('key: value\r\nnext');
   * console.log(buf.searchEol(0, EventBuffer.EOL_CRLF)); // 10
   * ```
   */
  searchEol(start = -1, eol: number = EOL.ANY): number | false {
    const from = this.#startPosition(start);
    if (!isEol(eol)) return invalidEol(eol);
    const p = findEol(this.cursor(), from, eol);
    return p < 0 ? false : p;
  }

  /**
   * Copies `length` bytes from position `start` without draining
   * (`length` negative: up to the end).
   *
   * @returns a new Buffer (empty when `start` equals the length), or `false`
   *   when `start` is negative or beyond the length.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('hello world');
   * console.log(buf.substr(6)?.toString()); // world
   * console.log(buf.substr(0, 5)?.toString()); // hello
   * ```
   */
  substr(start: number, length = -1): Buffer | false {
    const s = toPosition(start);
    const len = this.length;
    if (s < 0 || s > len) return badPosition(start);
    const avail = len - s;
    const want = toPosition(length);
    const n = want < 0 ? avail : Math.min(want, avail);
    if (n === 0) return Buffer.alloc(0);
    const out = Buffer.allocUnsafe(n);
    copyOut(this.cursor(), s, n, out);
    return out;
  }

  /**
   * Copies up to `max` bytes from the front into `target` (from its offset 0)
   * without draining.
   *
   * @returns the number of bytes copied; -1 when `max` is negative.
   * @example
   * ```ts
   * const head = new Uint8Array(4);
   * if (buf.copyout(head) === 4) console.log(new DataView(head.buffer).getUint32(0));
   * ```
   */
  copyout(target: Uint8Array, max: number = target.length): number {
    if (!(target instanceof Uint8Array)) {
      badArgument('target', typeof target);
      return -1;
    }
    const m = toCount(max);
    if (m < 0) {
      badArgument('length', max);
      return -1;
    }
    const n = Math.min(m, target.length, this.length);
    if (n > 0) copyOut(this.cursor(), 0, n, target);
    return n;
  }

  /**
   * The absolute position of the first `byte` at or after `from`, or -1.
   *
   * @internal
   * @example
   * ```ts
   * const colon = buf.indexOfByte(0x3a); // ':'
   * ```
   */
  indexOfByte(byte: number, from = 0): number {
    const f = toPosition(from);
    return find(this.cursor(), byte & 0xff, f < 0 ? 0 : f, this.length);
  }

  /**
   * Views of the chunks, front to back, without copying or draining. They
   * stay valid, but later operations are not reflected in them.
   *
   * @internal
   * @example
   * ```ts
   * import { createHash } from 'node:crypto';
   * const hash = createHash('sha256');
   * for (const chunk of buf.peekChunks()) hash.update(chunk);
   * ```
   */
  peekChunks(): readonly Buffer[] {
    const { q, h, t } = this.cursor();
    const out: Buffer[] = [];
    for (let i = h; i < t; i++) {
      const c = q[i]!;
      c.shared = true;
      out.push(makeView(c.ab, c.off + c.start, c.end - c.start));
    }
    return out;
  }

  /**
   * The byte at absolute position `i`, or -1 when `i` is outside the buffer.
   *
   * @internal
   * @example
   * ```ts
   * if (buf.byteAt(0) === 0x16) console.log('TLS handshake');
   * ```
   */
  byteAt(i: number): number {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) return -1;
    return byteAt(this.cursor(), i);
  }

  /** Search start as PHP's `_get_pos` treats it: negative silently 0, beyond the length 0 with a warning. */
  #startPosition(start: number): number {
    const s = toPosition(start);
    if (s < 0) return 0;
    if (s > this.length) {
      badPosition(start);
      return 0;
    }
    return s;
  }
}

/**
 * The chunk storage of `EventBuffer` (its base class): the deque of chunks, its length and
 * freeze state, the operations that add, take and drain bytes without copying where they can,
 * and the hot paths on them: `add`, `read`, `readLine`, `readLineBuffer`, `drain`, `appendRead`.
 *
 * @module
 */
import {
  asBuffer,
  Chunk,
  copyBytes,
  EMPTY_BUFFER,
  EMPTY_CHUNK,
  encodeInto,
  exactChunk,
  firstChunk,
  makeView,
  newChunk,
  utf8Length,
  type EncodedWriters,
} from './buffer-chunk.js';
import { badArgument, frozenEnd, frozenFront, invalidEol, toCount } from './buffer-args.js';
import { copyOut, cursorOf, EOL, findEol, isEol, lineInHead, type Cursor } from './buffer-scan.js';
import { warn } from './errors.js';

/**
 * The chunk storage that `EventBuffer` extends; not exported by the package
 * (use `EventBuffer`, which has every method of this class).
 *
 * @example
 * ```ts
 * import { EventBuffer } from 'eventide/event';
 * const buf = new EventBuffer(); // a ChunkStore too
 * buf.add('line\r\n');
 * buf.readLine(EventBuffer.EOL_CRLF); // 'line'
 * ```
 */
export class ChunkStore {
  /** The chunks: a deque whose live part is `#q[#h .. #t)`; other slots hold EMPTY_CHUNK. */
  #q: Chunk[] = [];
  #h = 0;
  #t = 0;
  #len = 0;
  /** An empty chunk with room for appends (from `expand()` or the last drained chunk), or null. */
  #reserve: Chunk | null = null;
  #frozenFront = false;
  #frozenEnd = false;
  /** Called whenever the length changes (set by the bufferevent that owns this buffer). */
  #hook: ((buf: ChunkStore) => void) | null = null;
  /**
   * Text added to the empty buffer, not yet encoded (the deque is empty, `#len` counts its UTF-8
   * bytes): a reply body is encoded once, into the output. Other operations encode it first (`#flat`).
   */
  #text: string | null = null;
  /** How many bytes the last `takeChunks` took: a connection's output is written and taken whole, turn after turn. */
  #lastTake = 0;

  /** The content when it is text not yet encoded (a string added to the empty buffer), else null (also when frozen). @internal */
  get pendingText(): string | null {
    return this.#frozenFront ? null : this.#text;
  }

  /**
   * The number of bytes in the buffer.
   *
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('hello');
   * console.log(buf.length); // 5
   * ```
   */
  get length(): number {
    return this.#len;
  }

  // ---------------------------------------------------------------- adding

  /**
   * Appends bytes (strings are encoded as UTF-8). The bytes are copied, so
   * the caller may reuse its array afterwards; small additions go into the
   * spare room of the last chunk.
   *
   * @returns `true`, or `false` when the end of the buffer is frozen.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('Hello, ');
   * buf.add(Buffer.from('world'));
   * console.log(buf.read(64)?.toString()); // Hello, world
   * ```
   */
  add(data: string | Uint8Array): boolean {
    if (this.#frozenEnd) return frozenEnd();
    if (typeof data === 'string') {
      if (this.#len === 0 && this.#hook === null) this.#pend(data);
      else this.#appendString(data);
      return true;
    }
    if (!(data instanceof Uint8Array)) return badArgument('data', typeof data);
    if (data.byteLength > 0) this.appendCopy(asBuffer(data), 0, data.byteLength);
    return true;
  }

  /**
   * Appends a Buffer the caller hands over (bytes read from a socket) as a chunk, without
   * copying or checking the freeze state, as libevent fills a bufferevent's input. The
   * caller must not modify `buf` afterwards; the buffer never writes into it.
   *
   * @internal
   * @example
   * ```ts
   * socket.on('data', (chunk: Buffer) => buf.appendOwned(chunk));
   * ```
   */
  appendOwned(buf: Buffer): void {
    const n = buf.length;
    if (n === 0) return;
    if (this.#text !== null) this.#flat();
    this.#push(new Chunk(buf, 0, n, n, false));
    this.#len += n;
    this.#changed();
  }

  /** A read: copied when `lent` (the receive buffer the next read reuses), else owned. @internal */
  appendRead(buf: Buffer, lent: boolean): void {
    if (!lent) this.appendOwned(buf);
    else if (buf.length > 0) this.appendCopy(buf, 0, buf.length);
  }

  /**
   * Appends a string whose characters are all below U+0100 as latin1 (one
   * byte per character, no UTF-8 encoding pass): HTTP heads use it. `room`:
   * bytes about to follow (a body), so that they land in the same chunk.
   * @internal
   */
  addLatin1(str: string, room = 0): void {
    if (str.length !== 0) this.#appendLatin1(str, room);
  }

  // -------------------------------------------------------------- removing

  /**
   * Removes and returns up to `maxBytes` bytes from the front. When they lie
   * in one chunk the result is a view on the buffer's memory (no copy).
   *
   * @returns the bytes, or `null` when nothing was read: the buffer is empty,
   *   `maxBytes` is 0 or negative, or the front is frozen.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('abcdef');
   * console.log(buf.read(4)?.toString()); // abcd
   * console.log(buf.read(4)?.toString()); // ef
   * console.log(buf.read(4)); // null
   * ```
   */
  read(maxBytes: number): Buffer | null {
    if (this.#frozenFront) {
      frozenFront();
      return null;
    }
    if (this.#text !== null) this.#flat();
    const max = toCount(maxBytes);
    if (max < 0) {
      badArgument('length', maxBytes);
      return null;
    }
    const n = Math.min(max, this.#len);
    if (n === 0) return null;
    return this.#take(n);
  }

  /**
   * Reads one line and decodes it. The terminator (see the `EOL_*`
   * constants) is consumed and not returned. Lines may span chunks.
   *
   * An empty line returns `''` (with `EOL_ANY` only when the buffer starts
   * with a terminator, as blank lines are swallowed into the terminator of
   * the line before), so loop with `!== null`, not on truthiness.
   *
   * @returns the line, or `null` when there is no complete line, the style
   *   is unknown, or the front is frozen.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('a\r\n\r\n\r\nb\r\n');
   * console.log(buf.readLine(EventBuffer.EOL_ANY)); // a
   * console.log(buf.readLine(EventBuffer.EOL_ANY)); // b
   * console.log(buf.readLine(EventBuffer.EOL_ANY)); // null
   * ```
   */
  readLine(eol: number = EOL.ANY, encoding: BufferEncoding = 'utf8'): string | null {
    if (this.#frozenFront) {
      frozenFront();
      return null;
    }
    if (this.#text !== null) this.#flat();
    if (this.#h === this.#t) {
      if (!isEol(eol)) invalidEol(eol);
      return null;
    }
    const next = lineInHead(this.#q, this.#h, this.#t, eol);
    if (next >= 0) {
      const c = this.#q[this.#h]!;
      const s = c.start;
      const line = c.buf.toString(encoding, s, c.lineEnd);
      this.#consumeHead(c, next - s);
      return line;
    }
    const line = this.#readLineSlow(eol);
    return line === null ? null : line.toString(encoding);
  }

  /**
   * Reads one line as bytes; the same rules as {@link EventBuffer.readLine}.
   * When the line lies in one chunk the result is a view (no copy).
   *
   * @returns the line without its terminator, or `null` when there is no
   *   complete line, the style is unknown, or the front is frozen.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('Host: example.org\r\n');
   * const line = buf.readLineBuffer(EventBuffer.EOL_CRLF); // <Buffer 48 6f ...>
   * ```
   */
  readLineBuffer(eol: number = EOL.ANY): Buffer | null {
    if (this.#frozenFront) {
      frozenFront();
      return null;
    }
    if (this.#text !== null) this.#flat();
    if (this.#h === this.#t) {
      if (!isEol(eol)) invalidEol(eol);
      return null;
    }
    const next = lineInHead(this.#q, this.#h, this.#t, eol);
    if (next >= 0) {
      const c = this.#q[this.#h]!;
      const s = c.start;
      const line = makeView(c.ab, c.off + s, c.lineEnd - s);
      c.shared = true;
      this.#consumeHead(c, next - s);
      return line;
    }
    return this.#readLineSlow(eol);
  }

  /**
   * Removes up to `len` bytes from the front without returning them; more
   * than the length empties the buffer.
   *
   * @returns `true`, or `false` when the front is frozen or `len` is negative.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('header:body');
   * buf.drain(7);
   * console.log(buf.substr(0)?.toString()); // body
   * ```
   */
  drain(len: number): boolean {
    if (this.#frozenFront) return frozenFront();
    const n = toCount(len);
    if (n < 0) return badArgument('length', len);
    this.dropFront(Math.min(n, this.#len));
    return true;
  }

  /**
   * Removes every chunk and returns them as Buffers (views, never copied),
   * for writing to a socket. The memory of the returned views is never reused.
   * @internal
   */
  takeChunks(): Buffer[] {
    if (this.#text !== null) this.#flat();
    const q = this.#q;
    const h = this.#h;
    // Sized up front: one chunk (a reply) is the common case, and an array of one costs less than a grown one.
    const out: Buffer[] = this.#t - h === 1 ? [EMPTY_BUFFER] : [];
    let k = 0;
    for (let i = h; i < this.#t; i++) {
      const c = q[i]!;
      if (c.end > c.start) {
        c.shared = true;
        out[k++] = c.start === 0 && c.end === c.buf.length ? c.buf : makeView(c.ab, c.off + c.start, c.end - c.start);
      }
      q[i] = EMPTY_CHUNK;
    }
    if (k !== out.length) out.length = k;
    this.#lastTake = this.#len;
    this.#reserve = null;
    this.#reset();
    return out;
  }

  /**
   * Installs a function called whenever the buffer's length changes; the
   * bufferevent that owns the buffer uses it to flush its output and to
   * resume reading below the high watermark. The hook must only schedule
   * work: it can run in the middle of an operation.
   * @internal
   */
  setChangeHook(hook: ((buf: ChunkStore) => void) | null): void {
    if (this.#text !== null) this.#flat();
    this.#hook = hook;
  }

  // ------------------------------------------- operations of the public class

  /** The number of bytes in the first chunk; 0 when empty. @internal */
  protected headLength(): number {
    if (this.#text !== null) this.#flat();
    if (this.#h === this.#t) return 0;
    const c = this.#q[this.#h]!;
    return c.end - c.start;
  }

  /** Copies every byte to the end of `dst` (spare room first); this buffer is unchanged. @internal */
  protected copyAllTo(dst: ChunkStore): void {
    const text = this.#text;
    if (text !== null) {
      // Encoded once, straight into `dst`.
      if (dst.#text !== null) dst.#flat();
      const n = this.#len;
      dst.#len += n;
      dst.#changed();
      encodeInto(text, n, dst.#roomFor(n, false));
      return;
    }
    const q = this.#q;
    for (let i = this.#h; i < this.#t; i++) {
      const c = q[i]!;
      if (c.end > c.start) dst.appendCopy(c.buf, c.start, c.end - c.start);
    }
  }

  /** A cursor at the front of the chunks. @internal */
  protected cursor(): Cursor {
    if (this.#text !== null) this.#flat();
    return cursorOf(this.#q, this.#h, this.#t, this.#len);
  }

  /** Whether the front (`atFront`) or the end is frozen. @internal */
  protected isFrozen(atFront: boolean): boolean {
    return atFront ? this.#frozenFront : this.#frozenEnd;
  }

  /** Freezes or unfreezes the front (`atFront`) or the end. @internal */
  protected setFrozen(atFront: boolean, frozen: boolean): void {
    if (atFront) this.#frozenFront = frozen;
    else this.#frozenEnd = frozen;
  }

  /** Appends a chunk (its bytes are the buffer's from now on). @internal */
  protected appendChunk(c: Chunk): void {
    if (this.#text !== null) this.#flat();
    this.#push(c);
    this.#len += c.end - c.start;
    this.#changed();
  }

  /** Inserts a chunk at the front. @internal */
  protected prependChunk(c: Chunk): void {
    if (this.#text !== null) this.#flat();
    this.#unshift(c);
    this.#len += c.end - c.start;
    this.#changed();
  }

  /** Moves every chunk of `src` to the end (no copy); `src` is empty afterwards. @internal */
  protected appendAllOf(src: ChunkStore): void {
    if (this.#text !== null) this.#flat();
    if (src.#text !== null) src.#flat();
    const sq = src.#q;
    for (let i = src.#h; i < src.#t; i++) this.#push(sq[i]!);
    this.#len += src.#len;
    this.#changed();
    src.#reset();
  }

  /** Moves every chunk of `src` to the front (no copy); `src` is empty afterwards. @internal */
  protected prependAllOf(src: ChunkStore): void {
    if (src.#len === 0) return;
    if (this.#text !== null) this.#flat();
    if (src.#text !== null) src.#flat();
    const live = src.#q.slice(src.#h, src.#t);
    const mine = this.#q;
    if (this.#h >= live.length) {
      this.#h -= live.length;
      for (let k = 0; k < live.length; k++) mine[this.#h + k] = live[k]!;
    } else {
      for (let i = this.#h; i < this.#t; i++) live.push(mine[i]!);
      this.#q = live;
      this.#h = 0;
      this.#t = live.length;
    }
    this.#len += src.#len;
    this.#changed();
    src.#reset();
  }

  /** Makes the first `n` bytes (`0 < n <= length`) contiguous and returns a view of them. @internal */
  protected pullupHead(n: number): Buffer {
    if (this.#text !== null) this.#flat();
    let c = this.#q[this.#h]!;
    if (c.end - c.start < n) {
      const merged = Buffer.allocUnsafe(n);
      copyOut(this.cursor(), 0, n, merged);
      this.dropFront(n);
      this.#unshift(new Chunk(merged, 0, n, n, true));
      this.#len += n;
      c = this.#q[this.#h]!;
    }
    c.shared = true;
    return makeView(c.ab, c.off + c.start, n);
  }

  /** Reserves room for `size > 0` more bytes at the end; false with a warning when it cannot be allocated. @internal */
  protected reserveRoom(size: number): boolean {
    if (this.#text !== null) this.#flat();
    if (this.#h < this.#t) {
      const t = this.#q[this.#t - 1]!;
      if (t.cap - t.end >= size) return true;
    }
    const r = this.#reserve;
    if (r !== null && r.cap - r.end >= size) return true;
    let mem: Buffer;
    try {
      mem = makeView(new ArrayBuffer(size), 0, size);
    } catch (err) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Failed to expand the buffer by ${size} bytes`, err);
    }
    this.#reserve = new Chunk(mem, 0, 0, size, true);
    return true;
  }

  // ------------------------------------------------------------- internals

  #changed(): void {
    const h = this.#hook;
    if (h !== null) h(this);
  }

  #reset(): void {
    this.#text = null;
    const q = this.#q;
    for (let i = this.#h; i < this.#t; i++) q[i] = EMPTY_CHUNK; // keep the array, drop the references
    this.#h = 0;
    this.#t = 0;
    this.#len = 0;
    this.#changed();
  }

  #push(c: Chunk): void {
    this.#q[this.#t++] = c;
  }

  #unshift(c: Chunk): void {
    if (this.#h > 0) this.#q[--this.#h] = c;
    else {
      this.#q.unshift(c);
      this.#t++;
    }
  }

  /** Removes the head chunk (which must be drained or moved). */
  #popFront(): void {
    const q = this.#q;
    const c = q[this.#h]!;
    q[this.#h] = EMPTY_CHUNK;
    this.#h++;
    if (this.#h === this.#t) {
      this.#h = 0;
      this.#t = 0;
      // Keep the last chunk's memory for the next append: all of it when no
      // view of it has escaped, else the spare room after its end.
      if (c.own && !c.shared) {
        c.start = 0;
        c.end = 0;
        c.crFrom = -1; // the memo describes bytes about to be overwritten
      }
      const r = this.#reserve;
      if (c.cap - c.end >= 64 && (r === null || r.cap - r.end < c.cap - c.end)) this.#reserve = c;
    } else if (this.#h >= 1024 && this.#h * 2 >= this.#t) {
      const live = this.#t - this.#h;
      q.copyWithin(0, this.#h, this.#t);
      q.fill(EMPTY_CHUNK, live, this.#t);
      this.#t = live;
      this.#h = 0;
    }
  }

  /** Marks `n` bytes of the head chunk `c` consumed. */
  #consumeHead(c: Chunk, n: number): void {
    c.start += n;
    this.#len -= n;
    this.#changed();
    if (c.start === c.end) this.#popFront();
  }

  /** Drains `n <= length` bytes. @internal */
  protected dropFront(n: number): void {
    if (this.#text !== null) {
      if (n === 0) return;
      if (n === this.#len) {
        this.#reset(); // all of it: never encoded
        return;
      }
      this.#flat();
    }
    const q = this.#q;
    this.#len -= n;
    this.#changed();
    while (n > 0) {
      const c = q[this.#h]!;
      const l = c.end - c.start;
      if (l > n) {
        c.start += n;
        return;
      }
      c.start = c.end;
      n -= l;
      this.#popFront();
    }
  }

  /** Removes and returns the first `n` bytes (`0 < n <= length`); a view when they lie in one chunk. */
  #take(n: number): Buffer {
    const q = this.#q;
    const c = q[this.#h]!;
    const s = c.start;
    if (c.end - s >= n) {
      const v = s === 0 && n === c.buf.length ? c.buf : makeView(c.ab, c.off + s, n);
      c.shared = true;
      this.#consumeHead(c, n);
      return v;
    }
    const out = Buffer.allocUnsafe(n);
    copyOut({ q: this.#q, h: this.#h, t: this.#t, len: this.#len, i: this.#h, base: 0, eolLen: 0 }, 0, n, out);
    this.dropFront(n);
    return out;
  }

  /** Moves up to `n` bytes from the front of this buffer to the end of `dst`; returns how many. @internal */
  protected moveTo(dst: ChunkStore, n: number): number {
    if (this.#text !== null) this.#flat();
    if (dst.#text !== null) dst.#flat();
    const q = this.#q;
    let moved = 0;
    while (moved < n && this.#h < this.#t) {
      const c = q[this.#h]!;
      const l = c.end - c.start;
      if (l <= n - moved) {
        q[this.#h] = EMPTY_CHUNK;
        this.#h++;
        dst.#push(c);
        moved += l;
      } else {
        const k = n - moved;
        dst.#push(new Chunk(c.buf, c.start, c.start + k, c.start + k, false));
        c.shared = true;
        c.start += k;
        moved += k;
      }
    }
    if (this.#h === this.#t) {
      this.#h = 0;
      this.#t = 0;
    }
    this.#len -= moved;
    dst.#len += moved;
    this.#changed();
    dst.#changed();
    return moved;
  }

  /** Copies `n` bytes of `src` from `off` to the end, filling spare room first. @internal */
  protected appendCopy(src: Buffer, off: number, n: number): void {
    if (this.#text !== null) this.#flat();
    const q = this.#q;
    this.#len += n;
    this.#changed();
    if (this.#h < this.#t) {
      const t = q[this.#t - 1]!;
      const room = t.cap - t.end;
      if (room > 0) {
        const k = room < n ? room : n;
        copyBytes(src, off, k, t.buf, t.end);
        t.end += k;
        off += k;
        n -= k;
        if (n === 0) return;
      }
    }
    const c = this.#chunkFor(n);
    copyBytes(src, off, n, c.buf, c.end);
    c.end += n;
    this.#push(c);
  }

  /**
   * Appends `n` bytes of `src` from `off`, and keeps `room` more bytes free
   * behind them in the same chunk (a body about to follow a head). `exact`:
   * a new chunk gets exactly `n + room` bytes (the last write of a batch,
   * sent whole). @internal
   */
  appendBytes(src: Buffer, off: number, n: number, room: number, exact = false): void {
    if (n === 0) return;
    if (this.#text !== null) this.#flat();
    this.#len += n;
    this.#changed();
    const chunk = this.#roomFor(n + room, exact);
    copyBytes(src, off, n, chunk.buf, chunk.end);
    chunk.end += n;
  }

  /** Appends a string as UTF-8 without an intermediate Buffer. */
  #appendString(str: string): void {
    if (str.length === 0) return;
    if (this.#text !== null) this.#flat();
    const n = utf8Length(str);
    this.#len += n;
    this.#changed();
    encodeInto(str, n, this.#roomFor(n, false));
  }

  /** Writes `str` (characters below U+0100) as latin1 into the tail chunk's spare room or a new chunk. */
  #appendLatin1(str: string, room: number): void {
    if (this.#text !== null) this.#flat();
    const n = str.length;
    this.#len += n;
    this.#changed();
    const chunk = this.#roomFor(n + room, false);
    // Buffer's per-encoding writer skips the encoding lookup of Buffer#write.
    (chunk.buf as Buffer & EncodedWriters).latin1Write(str, chunk.end, n);
    chunk.end += n;
  }

  /** Keeps `str` unencoded as the content of this empty buffer (nothing to keep for ''). */
  #pend(str: string): void {
    if (str.length === 0) return;
    this.#text = str;
    this.#len = utf8Length(str);
    this.#changed();
  }

  /** Encodes the pending text into a chunk: the buffer holds bytes only from now on. */
  #flat(): void {
    const text = this.#text as string;
    this.#text = null;
    const n = this.#len;
    const c = this.#chunkFor(n);
    this.#push(c);
    encodeInto(text, n, c);
  }

  /**
   * The queued chunk that `n` bytes are written into at its `end`: the last
   * one when it has the room, else a new one, queued (`exact`: of exactly
   * `n` bytes, which then leaves whole, without a view cut at the write).
   */
  #roomFor(n: number, exact: boolean): Chunk {
    if (this.#h < this.#t) {
      const t = this.#q[this.#t - 1]!;
      if (t.cap - t.end >= n) return t;
    }
    const c = exact ? exactChunk(n) : this.#chunkFor(n);
    this.#push(c);
    return c;
  }

  /** An empty chunk (not yet queued) with room for `n` bytes after its `end`. */
  #chunkFor(n: number): Chunk {
    const r = this.#reserve;
    if (r !== null && r.cap - r.end >= n) {
      this.#reserve = null;
      r.start = r.end;
      return r;
    }
    return this.#h < this.#t ? newChunk(n, this.#q[this.#t - 1]!.cap) : firstChunk(n, this.#lastTake);
  }

  /** The general line reader (lines spanning chunks, unknown styles). */
  #readLineSlow(eol: number): Buffer | null {
    if (!isEol(eol)) {
      invalidEol(eol);
      return null;
    }
    const cur: Cursor = { q: this.#q, h: this.#h, t: this.#t, len: this.#len, i: this.#h, base: 0, eolLen: 0 };
    const p = findEol(cur, 0, eol);
    if (p < 0) return null;
    const drain = cur.eolLen;
    const line = p === 0 ? Buffer.alloc(0) : this.#take(p);
    this.dropFront(drain);
    return line;
  }
}

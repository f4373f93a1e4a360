/**
 * `EventBuffer`: a chain of byte chunks, the port of libevent's `evbuffer`
 * as the PHP extension "event" exposes it.
 *
 * The buffer is a queue of chunks. Each chunk is a window `[start, end)`
 * over a `Buffer`; draining advances `start`, appending writes after `end`
 * (only into memory this buffer allocated itself) or queues a new chunk.
 * A drained chunk's memory is reused only when no view of it was ever
 * handed out, so the views that {@link EventBuffer.read},
 * {@link EventBuffer.readLineBuffer}, {@link EventBuffer.pullup},
 * {@link EventBuffer.peekChunks} and {@link EventBuffer.write} (to a stream)
 * hand out stay valid after later operations. Moving data between buffers
 * ({@link EventBuffer.addBuffer}, {@link EventBuffer.appendFrom},
 * {@link EventBuffer.remove} into a buffer) moves chunks; a chunk split in
 * two becomes two windows on the same memory.
 *
 * Failures follow the PHP extension: the method returns `false`, `null` or
 * `-1` and records the reason, which `getLastError()` returns.
 *
 * @module
 */
import { constants as osConstants } from 'node:os';
import { readDescriptor, writeDescriptor } from './descriptor.js';
import type { Descriptor } from './descriptor.js';
import { warn } from './errors.js';
import { setLastSocketError } from './util.js';

/** Creates a `Buffer` view on memory without copying; faster than `subarray` (no species lookup). */
type ViewFn = (ab: ArrayBufferLike, byteOffset: number, length: number) => Buffer;

const makeView: ViewFn = (() => {
  // Node defines Buffer[Symbol.species] as its internal FastBuffer class, the
  // constructor `subarray` and `Buffer.from(arrayBuffer)` end up calling.
  const species = (Buffer as unknown as { [Symbol.species]?: unknown })[Symbol.species];
  if (typeof species === 'function') {
    const Ctor = species as new (ab: ArrayBufferLike, byteOffset: number, length: number) => Buffer;
    try {
      const probe = new Ctor(new ArrayBuffer(2), 1, 1);
      if (Buffer.isBuffer(probe) && probe.length === 1 && probe.byteOffset === 1) {
        return (ab: ArrayBufferLike, off: number, len: number): Buffer => new Ctor(ab, off, len);
      }
    } catch {
      // fall through to the portable version
    }
  }
  return (ab: ArrayBufferLike, off: number, len: number): Buffer => Buffer.from(ab as ArrayBuffer, off, len);
})();

/** Smallest chunk allocated for copied data. */
const MIN_CHUNK = 4096;
/** Small chunks grow up to this size, carved from Node's Buffer pool. */
const SMALL_CHUNK = 1024;
/** Appends smaller than this get pool memory (`Buffer.allocUnsafe` uses the pool below half its 8 KiB). */
const POOL_MAX = 4096;
/** The smallest pool chunk: a buffer's first small chunk is twice its first append, at least this. */
const FIRST_SMALL_CHUNK = 128;
/** Above this size a copy gets a chunk of exactly its size (no rounding up). */
const MAX_ROUNDED_CHUNK = 1 << 20;
/** Reads from a descriptor up to this size are copied into spare room instead of queued as their own chunk. */
const SMALL_READ = 512;
/** Writes batch chunks smaller than this... */
const WRITE_DIRECT = 16384;
/** ...into writes of about this size. */
const WRITE_BATCH = 65536;
/** Scans of ranges up to this length use a plain loop instead of a native call. */
const SHORT_SCAN = 32;

/** Node's per-encoding Buffer writers (present on every Buffer, not in the typings). */
interface EncodedWriters {
  latin1Write(str: string, offset: number, length: number): number;
  utf8Write(str: string, offset: number, length: number): number;
}

const CR = 13;
const LF = 10;

/**
 * One window `[start, end)` over a Buffer. `cap > end` means the memory
 * after `end` is ours to write. `own` chunks hold memory this module
 * allocated for them alone; while no view of such a chunk has escaped
 * (`shared` false) its memory may be reused once it is drained.
 */
class Chunk {
  buf: Buffer;
  /** `buf.buffer`, read on first use: the getter is a runtime call, and most chunks never need it. */
  #ab: ArrayBufferLike | null;
  start: number;
  end: number;
  cap: number;
  own: boolean;
  shared: boolean;
  /** `buf` cut at `end` for native scans, when `buf` is longer than `end`. */
  scan: Buffer | null;
  /**
   * Memo of the last `\r` scan (indices in `buf`): the first `\r` at or after
   * `crFrom` is at `crAt`; -1 means there is none in `[crFrom, crEnd)`.
   */
  crFrom: number;
  crAt: number;
  crEnd: number;

  constructor(buf: Buffer, start: number, end: number, cap: number, own: boolean) {
    this.buf = buf;
    this.#ab = null;
    this.start = start;
    this.end = end;
    this.cap = cap;
    this.own = own;
    this.shared = false;
    this.scan = null;
    this.crFrom = -1;
    this.crAt = -1;
    this.crEnd = -1;
  }

  /** The ArrayBuffer under `buf`. */
  get ab(): ArrayBufferLike {
    let a = this.#ab;
    if (a === null) a = this.#ab = this.buf.buffer;
    return a;
  }

  /** `buf`'s offset in `ab`. */
  get off(): number {
    return this.buf.byteOffset;
  }
}

const EMPTY_CHUNK = new Chunk(Buffer.alloc(0), 0, 0, 0, false);

/** The chunk's bytes `[0, end)` as one Buffer whose `indexOf` cannot run past `end`. */
function scanView(c: Chunk): Buffer {
  if (c.buf.length === c.end) return c.buf;
  let s = c.scan;
  if (s === null || s.length !== c.end) {
    s = makeView(c.ab, c.off, c.end);
    c.scan = s;
  }
  return s;
}

/** Index in `c.buf` of the first `byte` in `[s, e)` (`e <= c.end`), or -1. */
function indexIn(c: Chunk, byte: number, s: number, e: number): number {
  if (e - s <= SHORT_SCAN) {
    const b = c.buf;
    for (let k = s; k < e; k++) if (b[k] === byte) return k;
    return -1;
  }
  if (e === c.end) return scanView(c).indexOf(byte, s);
  return makeView(c.ab, c.off, e).indexOf(byte, s);
}

/**
 * Index in `c.buf` of the first `\r` in `[s, e)` (`e <= c.end`), or -1.
 * Scans to the chunk's end and memoizes the result, so that reading many
 * short lines from one chunk scans each byte about once whether `\r` is
 * frequent or absent.
 */
function crIn(c: Chunk, s: number, e: number): number {
  if (c.crFrom >= 0 && c.crFrom <= s) {
    if (c.crAt >= s) return c.crAt < e ? c.crAt : -1;
    if (c.crAt < 0 && e <= c.crEnd) return -1;
  }
  const r = scanView(c).indexOf(CR, s);
  c.crFrom = s;
  c.crAt = r;
  c.crEnd = c.end;
  return r >= 0 && r < e ? r : -1;
}

/** Whether `eol` is one of the EOL_* constants. */
function isEol(eol: number): boolean {
  return eol === 0 || eol === 1 || eol === 2 || eol === 3 || eol === 4;
}

function isEolByte(b: number | undefined): boolean {
  return b === CR || b === LF;
}

/** A non-negative whole count, or -1 for a negative or non-numeric one. */
function toCount(n: number): number {
  return typeof n === 'number' && n >= 0 ? Math.floor(n) : -1;
}

/** A position argument: integers as they are, anything non-numeric as -1 ("not given"). */
function toPosition(n: number): number {
  return typeof n === 'number' && !Number.isNaN(n) ? Math.trunc(n) : -1;
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Chunk index and absolute position of that chunk's first byte; moved by `#seek`. */
interface Cursor {
  i: number;
  base: number;
}

const frozenFront = (): false => warn('ERR_EVENT_BUFFER_FROZEN', 'The front of the buffer is frozen');
const frozenEnd = (): false => warn('ERR_EVENT_BUFFER_FROZEN', 'The end of the buffer is frozen');
const invalidEol = (eol: number): false => warn('ERR_EVENT_INVALID_EOL', `Invalid EOL style: ${String(eol)}`);
const badPosition = (pos: number): false => warn('ERR_EVENT_INVALID_POSITION', `Failed to set position to ${String(pos)}`);
const badArgument = (what: string, value: unknown): false =>
  warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid ${what}: ${String(value)}`);

/**
 * A chain of byte chunks: the port of libevent's `evbuffer` as the PHP
 * class `EventBuffer` exposes it.
 *
 * Bytes are appended at the end and consumed at the front; lines are read
 * with the libevent end-of-line rules ({@link EventBuffer.EOL_ANY} and
 * friends). Moving data between buffers moves chunks instead of copying
 * bytes, and reads return views on the buffer's memory where the bytes lie
 * in one chunk.
 *
 * @example
 * ```ts
 * import { EventBuffer } from 'eventide/event';
 * const buf = new EventBuffer();
 * buf.add('GET / HTTP/1.1\r\nHost: example.org\r\n\r\n');
 * let line: string | null;
 * while ((line = buf.readLine(EventBuffer.EOL_CRLF)) !== null && line !== '') console.log(line);
 * ```
 */
export class EventBuffer {
  /** Any sequence of `\r` and `\n` ends a line (blank lines are swallowed). */
  static readonly EOL_ANY = 0;
  /** A `\n`, optionally preceded by one `\r`, ends a line. */
  static readonly EOL_CRLF = 1;
  /** Exactly `\r\n` ends a line. */
  static readonly EOL_CRLF_STRICT = 2;
  /** A `\n` ends a line. */
  static readonly EOL_LF = 3;
  /** A NUL byte ends a line. */
  static readonly EOL_NUL = 4;
  /** Kept for compatibility; the position API that used it no longer exists. */
  static readonly PTR_SET = 0;
  /** Kept for compatibility; the position API that used it no longer exists. */
  static readonly PTR_ADD = 1;

  /** The chunks: a deque whose live part is `#q[#h .. #t)`; other slots hold EMPTY_CHUNK. */
  #q: Chunk[] = [];
  #h = 0;
  #t = 0;
  #len = 0;
  /** An empty chunk with room for appends (from `expand()` or the last drained chunk), or null. */
  #reserve: Chunk | null = null;
  #frozenFront = false;
  #frozenEnd = false;
  /** Length of the terminator found by the last EOL search. */
  #eolLen = 0;
  /** Where the fast line search found a line in the head chunk: line end and next start (chunk indices). */
  #lineEnd = 0;
  #lineNext = 0;
  /** Called whenever the length changes (set by the bufferevent that owns this buffer). */
  #hook: ((buf: EventBuffer) => void) | null = null;

  /**
   * Creates an empty buffer. Memory is allocated when data arrives.
   *
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * console.log(buf.length); // 0
   * ```
   */
  constructor() {}

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
    if (this.#h === this.#t) return 0;
    const c = this.#q[this.#h]!;
    return c.end - c.start;
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
      this.#appendString(data);
      return true;
    }
    if (!(data instanceof Uint8Array)) return badArgument('data', typeof data);
    if (data.byteLength > 0) this.#appendCopy(asBuffer(data), 0, data.byteLength);
    return true;
  }

  /**
   * Appends bytes without copying them: the buffer keeps a reference to
   * `data`'s memory. The caller must not modify `data` afterwards (reads may
   * even return views on it).
   *
   * @returns `true`, or `false` when the end of the buffer is frozen.
   * @example
   * ```ts
   * const payload = Buffer.from('big immutable payload');
   * const buf = new EventBuffer();
   * buf.addReference(payload); // no copy; do not touch payload from now on
   * ```
   */
  addReference(data: Uint8Array): boolean {
    if (this.#frozenEnd) return frozenEnd();
    if (!(data instanceof Uint8Array)) return badArgument('data', typeof data);
    const n = data.byteLength;
    if (n > 0) {
      this.#push(new Chunk(asBuffer(data), 0, n, n, false));
      this.#len += n;
      this.#changed();
    }
    return true;
  }

  /**
   * Appends a Buffer the caller hands over (for example bytes just read from
   * a socket) as a chunk, without copying and without checking the freeze
   * state: the owner of the buffer (a bufferevent) fills its input this way
   * as libevent does internally. The caller must not modify `buf` afterwards;
   * the buffer never writes into it.
   *
   * @internal
   * @example
   * ```ts
   * socket.on('data', (chunk: Buffer) => input.appendOwned(chunk));
   * ```
   */
  appendOwned(buf: Buffer): void {
    const n = buf.length;
    if (n === 0) return;
    this.#push(new Chunk(buf, 0, n, n, false));
    this.#len += n;
    this.#changed();
  }

  /**
   * Inserts bytes (strings as UTF-8, copied) at the front.
   *
   * @returns `true`, or `false` when the front of the buffer is frozen.
   * @example
   * ```ts
   * const buf = new EventBuffer();
   * buf.add('world');
   * buf.prepend('hello ');
   * console.log(buf.substr(0)?.toString()); // hello world
   * ```
   */
  prepend(data: string | Uint8Array): boolean {
    if (this.#frozenFront) return frozenFront();
    let copy: Buffer;
    if (typeof data === 'string') copy = Buffer.from(data, 'utf8');
    else if (data instanceof Uint8Array) copy = Buffer.from(data);
    else return badArgument('data', typeof data);
    const n = copy.length;
    if (n > 0) {
      this.#unshift(new Chunk(copy, 0, n, n, true));
      this.#len += n;
      this.#changed();
    }
    return true;
  }

  /**
   * Moves all data of `src` to the end of this buffer; `src` is empty
   * afterwards. No bytes are copied. Adding a buffer to itself does nothing.
   *
   * @returns `true`, or `false` when this buffer's end or `src`'s front is frozen.
   * @example
   * ```ts
   * const out = new EventBuffer(), body = new EventBuffer();
   * out.add('HTTP/1.1 200 OK\r\n\r\n');
   * body.add('hello');
   * out.addBuffer(body); // body.length === 0
   * ```
   */
  addBuffer(src: EventBuffer): boolean {
    if (!(src instanceof EventBuffer)) return badArgument('source buffer', typeof src);
    if (src === this) return true;
    if (this.#frozenEnd) return frozenEnd();
    if (src.#frozenFront) return frozenFront();
    const sq = src.#q;
    for (let i = src.#h; i < src.#t; i++) this.#push(sq[i]!);
    this.#len += src.#len;
    this.#changed();
    src.#reset();
    return true;
  }

  /**
   * Moves all data of `src` to the front of this buffer; `src` is empty
   * afterwards. No bytes are copied.
   *
   * @returns `true`, or `false` when the front of either buffer is frozen.
   * @example
   * ```ts
   * const buf = new EventBuffer(), head = new EventBuffer();
   * buf.add('body');
   * head.add('head:');
   * buf.prependBuffer(head);
   * console.log(buf.substr(0)?.toString()); // head:body
   * ```
   */
  prependBuffer(src: EventBuffer): boolean {
    if (!(src instanceof EventBuffer)) return badArgument('source buffer', typeof src);
    if (src === this) return true;
    if (this.#frozenFront || src.#frozenFront) return frozenFront();
    if (src.#len === 0) return true;
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
    return true;
  }

  /**
   * Moves up to `len` bytes from the front of `src` to the end of this
   * buffer. Whole chunks move without copying; a chunk that is split becomes
   * two views on the same memory.
   *
   * @returns the number of bytes moved; -1 when this buffer's end or `src`'s
   *   front is frozen, or `len` is negative.
   * @example
   * ```ts
   * const src = new EventBuffer(), dst = new EventBuffer();
   * src.add('0123456789');
   * console.log(dst.appendFrom(src, 4)); // 4 (dst: "0123", src: "456789")
   * ```
   */
  appendFrom(src: EventBuffer, len: number): number {
    if (!(src instanceof EventBuffer)) {
      badArgument('source buffer', typeof src);
      return -1;
    }
    const n = toCount(len);
    if (n < 0) {
      badArgument('length', len);
      return -1;
    }
    if (src === this) return 0;
    if (this.#frozenEnd) {
      frozenEnd();
      return -1;
    }
    if (src.#frozenFront) {
      frozenFront();
      return -1;
    }
    return src.#moveTo(this, n);
  }

  // -------------------------------------------------------------- removing

  /**
   * Removes up to `maxBytes` bytes from the front. Into an `EventBuffer` they
   * are moved (chunks, no copying) to its end; into a `Uint8Array` at most
   * `min(maxBytes, out.length)` bytes are copied from its offset 0.
   *
   * @returns the number of bytes removed (0 when the buffer is empty); -1 when
   *   the front of this buffer (or the end of `out`) is frozen, or `maxBytes`
   *   is negative.
   * @example
   * ```ts
   * const chunk = new Uint8Array(1024);
   * let n: number;
   * while ((n = input.remove(chunk, chunk.length)) > 0) process.stdout.write(chunk.subarray(0, n));
   * ```
   */
  remove(out: EventBuffer | Uint8Array, maxBytes: number): number {
    const max = toCount(maxBytes);
    if (max < 0) {
      badArgument('length', maxBytes);
      return -1;
    }
    if (out instanceof EventBuffer) {
      if (out === this) return 0;
      if (this.#frozenFront) {
        frozenFront();
        return -1;
      }
      if (out.#frozenEnd) {
        frozenEnd();
        return -1;
      }
      return this.#moveTo(out, max);
    }
    if (!(out instanceof Uint8Array)) {
      badArgument('output', typeof out);
      return -1;
    }
    if (this.#frozenFront) {
      frozenFront();
      return -1;
    }
    const n = Math.min(max, out.length, this.#len);
    if (n > 0) {
      this.#copyOut(0, n, out);
      this.#dropFront(n);
    }
    return n;
  }

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
  readLine(eol: number = EventBuffer.EOL_ANY, encoding: BufferEncoding = 'utf8'): string | null {
    if (this.#frozenFront) {
      frozenFront();
      return null;
    }
    if (this.#h === this.#t) {
      if (!isEol(eol)) invalidEol(eol);
      return null;
    }
    if (this.#lineInHead(eol)) {
      const c = this.#q[this.#h]!;
      const s = c.start;
      const line = c.buf.toString(encoding, s, this.#lineEnd);
      this.#consumeHead(c, this.#lineNext - s);
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
  readLineBuffer(eol: number = EventBuffer.EOL_ANY): Buffer | null {
    if (this.#frozenFront) {
      frozenFront();
      return null;
    }
    if (this.#h === this.#t) {
      if (!isEol(eol)) invalidEol(eol);
      return null;
    }
    if (this.#lineInHead(eol)) {
      const c = this.#q[this.#h]!;
      const s = c.start;
      const line = makeView(c.ab, c.off + s, this.#lineEnd - s);
      c.shared = true;
      this.#consumeHead(c, this.#lineNext - s);
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
    this.#dropFront(Math.min(n, this.#len));
    return true;
  }

  // ----------------------------------------------------- inspecting (no drain)

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
    const what = typeof needle === 'string' ? Buffer.from(needle, 'utf8') : needle instanceof Uint8Array ? asBuffer(needle) : null;
    if (what === null) return badArgument('needle', typeof needle);
    const len = this.#len;
    const from = this.#startPosition(start);
    const e = toPosition(end);
    const limit = e >= 0 && e <= len ? e : len;
    if (what.length === 0) return from;
    const p = this.#searchBytes(what, from, limit);
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
  searchEol(start = -1, eol: number = EventBuffer.EOL_ANY): number | false {
    const from = this.#startPosition(start);
    if (!isEol(eol)) return invalidEol(eol);
    const p = this.#findEol(from, eol);
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
    if (s < 0 || s > this.#len) return badPosition(start);
    const avail = this.#len - s;
    const want = toPosition(length);
    const n = want < 0 ? avail : Math.min(want, avail);
    if (n === 0) return Buffer.alloc(0);
    const out = Buffer.allocUnsafe(n);
    this.#copyOut(s, n, out);
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
    const n = Math.min(m, target.length, this.#len);
    if (n > 0) this.#copyOut(0, n, target);
    return n;
  }

  /**
   * Makes the first `size` bytes contiguous (merging chunks when needed) and
   * returns a view of exactly those bytes; `size` negative means the whole
   * buffer. Nothing is drained.
   *
   * Deliberate difference from the PHP extension, whose `pullup(n)` returns
   * the whole buffer whatever `n` is: this returns the first `size` bytes.
   *
   * @returns the view, or `null` for `size` 0, `size` beyond the length, or
   *   an empty buffer.
   * @example
   * ```ts
   * const hdr = buf.pullup(4); // the first 4 bytes in one piece, or null
   * if (hdr) console.log(hdr.readUInt32BE(0));
   * ```
   */
  pullup(size: number): Buffer | null {
    const p = toPosition(size);
    const len = this.#len;
    const n = p < 0 ? len : p;
    if (n === 0 || n > len) return null;
    let c = this.#q[this.#h]!;
    if (c.end - c.start < n) {
      const merged = Buffer.allocUnsafe(n);
      this.#copyOut(0, n, merged);
      this.#dropFront(n);
      this.#unshift(new Chunk(merged, 0, n, n, true));
      this.#len += n;
      c = this.#q[this.#h]!;
    }
    c.shared = true;
    return makeView(c.ab, c.off + c.start, n);
  }

  /**
   * Reserves room for at least `n` more bytes at the end, so that appending
   * them needs no allocation.
   *
   * @returns `true`, or `false` when `n` is negative or cannot be allocated.
   * @example
   * ```ts
   * buf.expand(64 * 1024); // the next 64 KiB of add() copy into reserved memory
   * ```
   */
  expand(n: number): boolean {
    const size = toCount(n);
    if (size < 0) return badArgument('size', n);
    if (size === 0) return true;
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

  // --------------------------------------------------------------- freezing

  /**
   * Freezes the front (`atFront` true: drain, read, readLine, remove and
   * prepend fail) or the end (add, addBuffer, appendFrom into this buffer
   * and readFrom fail).
   *
   * @returns `true`.
   * @example
   * ```ts
   * buf.freeze(false);
   * console.log(buf.add('x')); // false
   * ```
   */
  freeze(atFront: boolean): boolean {
    if (atFront) this.#frozenFront = true;
    else this.#frozenEnd = true;
    return true;
  }

  /**
   * Undoes {@link EventBuffer.freeze} for the front or the end.
   *
   * @returns `true`.
   * @example
   * ```ts
   * buf.unfreeze(false);
   * console.log(buf.add('x')); // true
   * ```
   */
  unfreeze(atFront: boolean): boolean {
    if (atFront) this.#frozenFront = false;
    else this.#frozenEnd = false;
    return true;
  }

  /**
   * Does nothing: JavaScript runs this buffer on one thread, so there is
   * nothing to lock. Kept so that ported code runs unchanged.
   *
   * @example
   * ```ts
   * buf.enableLocking();
   * ```
   */
  enableLocking(): void {}

  /**
   * Does nothing (single-threaded; see {@link EventBuffer.enableLocking}).
   *
   * @example
   * ```ts
   * buf.lock(); try { buf.add('x'); } finally { buf.unlock(); }
   * ```
   */
  lock(): void {}

  /**
   * Does nothing (single-threaded; see {@link EventBuffer.enableLocking}).
   *
   * @example
   * ```ts
   * buf.lock(); try { buf.add('x'); } finally { buf.unlock(); }
   * ```
   */
  unlock(): void {}

  // -------------------------------------------------------------------- I/O

  /**
   * Writes up to `howmuch` bytes (negative: all) from the front to a
   * descriptor and drains what was written.
   *
   * @returns the number of bytes written, or `false` on an I/O error or when
   *   the front is frozen. An invalid descriptor throws an `EventArgumentError`.
   * @example
   * ```ts
   * const out = new EventBuffer();
   * out.add('hello\n');
   * out.write(1); // to stdout
   * ```
   */
  write(desc: Descriptor, howmuch = -1): number | false {
    if (this.#frozenFront) return frozenFront();
    const want = toPosition(howmuch);
    const total = want < 0 ? this.#len : Math.min(want, this.#len);
    if (total === 0) return 0;
    // Chunks of WRITE_DIRECT bytes or more are written as they are; runs of
    // smaller ones are joined into writes of about WRITE_BATCH bytes.
    const q = this.#q;
    const units: Buffer[] = [];
    let group: Buffer[] = [];
    let groupLen = 0;
    let queued = 0;
    for (let i = this.#h; queued < total; i++) {
      const c = q[i]!;
      const k = Math.min(c.end - c.start, total - queued);
      const v = makeView(c.ab, c.off + c.start, k);
      c.shared = true;
      queued += k;
      if (k >= WRITE_DIRECT) {
        if (groupLen > 0) units.push(group.length === 1 ? group[0]! : Buffer.concat(group, groupLen));
        group = [];
        groupLen = 0;
        units.push(v);
      } else {
        group.push(v);
        groupLen += k;
        if (groupLen >= WRITE_BATCH) {
          units.push(group.length === 1 ? group[0]! : Buffer.concat(group, groupLen));
          group = [];
          groupLen = 0;
        }
      }
    }
    if (groupLen > 0) units.push(group.length === 1 ? group[0]! : Buffer.concat(group, groupLen));
    let written = 0;
    let failure: Error | null = null;
    for (const u of units) {
      const r = writeDescriptor(desc, u);
      if (r instanceof Error) {
        failure = r;
        break;
      }
      written += r;
      if (r < u.length) break;
    }
    if (written > 0) this.#dropFront(written);
    if (failure !== null) setLastSocketError(failure);
    if (failure !== null && written === 0) {
      return warn('ERR_EVENT_IO', `Failed to write to the descriptor: ${failure.message}`, failure);
    }
    return written;
  }

  /**
   * Reads what the descriptor has available now, up to `howmuch` bytes
   * (negative: all of it), onto the end of the buffer. Never blocks. Unlike
   * libevent 2.1's `evbuffer_read`, which reads at most 4096 bytes per call,
   * this takes everything that is available.
   *
   * @returns the number of bytes added, 0 at end of file, or `false` when
   *   nothing is available yet (EAGAIN), on an I/O error, or when the end is
   *   frozen. An invalid descriptor throws an `EventArgumentError`.
   * @example
   * ```ts
   * socket.once('readable', () => {
   *   const n = buf.readFrom(socket);
   *   if (n === 0) console.log('peer closed');
   * });
   * ```
   */
  readFrom(desc: Descriptor, howmuch = -1): number | false {
    if (this.#frozenEnd) return frozenEnd();
    const want = toPosition(howmuch);
    const r = readDescriptor(desc, want);
    if (r === 'eof') return 0;
    if (r === 'again') {
      const err = Object.assign(new Error('Resource temporarily unavailable'), {
        code: 'EAGAIN',
        errno: -(osConstants.errno.EAGAIN ?? 11),
        syscall: 'read',
      });
      setLastSocketError(err);
      return warn('ERR_EVENT_IO', 'Failed to read from the descriptor: Resource temporarily unavailable', err);
    }
    if (r instanceof Error) {
      setLastSocketError(r);
      return warn('ERR_EVENT_IO', `Failed to read from the descriptor: ${r.message}`, r);
    }
    const n = r.length;
    if (n === 0) return 0;
    if (n <= SMALL_READ) this.#appendCopy(r, 0, n);
    else this.appendOwned(r);
    return n;
  }

  // ------------------------------------------------- helpers for other modules

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
    return this.#find({ i: this.#h, base: 0 }, byte & 0xff, f < 0 ? 0 : f, this.#len);
  }

  /**
   * Views of the chunks, front to back, without copying or draining. They
   * stay valid, but later operations are not reflected in them.
   *
   * @internal
   * @example
   * ```ts
   * for (const chunk of buf.peekChunks()) hash.update(chunk);
   * ```
   */
  peekChunks(): readonly Buffer[] {
    const q = this.#q;
    const out: Buffer[] = [];
    for (let i = this.#h; i < this.#t; i++) {
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
    if (!Number.isInteger(i) || i < 0 || i >= this.#len) return -1;
    return this.#byteAt({ i: this.#h, base: 0 }, i);
  }

  /**
   * Installs a function called whenever the buffer's length changes; the
   * bufferevent that owns the buffer uses it to flush its output and to
   * resume reading below the high watermark. The hook must only schedule
   * work: it can run in the middle of an operation.
   * @internal
   */
  setChangeHook(hook: ((buf: EventBuffer) => void) | null): void {
    this.#hook = hook;
  }

  /**
   * Copies all of `src` to the end of this buffer (into spare room first, no
   * views created), then empties `src`: for small bodies behind a reply head.
   * @returns false (and nothing moved) when this end or `src`'s front is frozen.
   * @internal
   */
  appendCopyOf(src: EventBuffer): boolean {
    if (this.#frozenEnd || src.#frozenFront) return false;
    const n = src.#len;
    if (n === 0) return true;
    const q = src.#q;
    for (let i = src.#h; i < src.#t; i++) {
      const c = q[i]!;
      if (c.end > c.start) this.#appendCopy(c.buf, c.start, c.end - c.start);
    }
    src.drain(n);
    return true;
  }

  /**
   * Removes every chunk and returns them as Buffers (views, never copied),
   * for writing to a socket. The memory of the returned views is never reused.
   * @internal
   */
  takeChunks(): Buffer[] {
    const out: Buffer[] = [];
    const q = this.#q;
    for (let i = this.#h; i < this.#t; i++) {
      const c = q[i]!;
      if (c.end > c.start) {
        c.shared = true;
        out.push(c.start === 0 && c.end === c.buf.length ? c.buf : makeView(c.ab, c.off + c.start, c.end - c.start));
      }
      q[i] = EMPTY_CHUNK;
    }
    this.#reserve = null;
    this.#reset();
    return out;
  }

  // ------------------------------------------------------------- internals

  #changed(): void {
    const h = this.#hook;
    if (h !== null) h(this);
  }

  #reset(): void {
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

  /** Drains `n <= length` bytes. */
  #dropFront(n: number): void {
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
    this.#copyOut(0, n, out);
    this.#dropFront(n);
    return out;
  }

  /** Copies `n` bytes from absolute position `from` into `target` at offset 0. */
  #copyOut(from: number, n: number, target: Uint8Array): void {
    const q = this.#q;
    const cur: Cursor = { i: this.#h, base: 0 };
    this.#seek(cur, from);
    let o = 0;
    let i = cur.i;
    let s = q[i]!.start + (from - cur.base);
    while (o < n) {
      const c = q[i]!;
      const k = Math.min(c.end - s, n - o);
      c.buf.copy(target, o, s, s + k);
      o += k;
      i++;
      if (i < this.#t) s = q[i]!.start;
    }
  }

  /** Moves up to `n` bytes from the front of this buffer to the end of `dst`. */
  #moveTo(dst: EventBuffer, n: number): number {
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

  /** Copies `n` bytes of `src` from `off` to the end, filling spare room first. */
  #appendCopy(src: Buffer, off: number, n: number): void {
    const q = this.#q;
    this.#len += n;
    this.#changed();
    if (this.#h < this.#t) {
      const t = q[this.#t - 1]!;
      const room = t.cap - t.end;
      if (room > 0) {
        const k = room < n ? room : n;
        src.copy(t.buf, t.end, off, off + k);
        t.end += k;
        off += k;
        n -= k;
        if (n === 0) return;
      }
    }
    const c = this.#chunkFor(n);
    if (off === 0 && n === src.length) c.buf.set(src, c.end);
    else src.copy(c.buf, c.end, off, off + n);
    c.end += n;
    this.#push(c);
  }

  /** Appends a string as UTF-8 without an intermediate Buffer. */
  #appendString(str: string): void {
    if (str.length === 0) return;
    this.#appendEncoded(str, Buffer.byteLength(str, 'utf8'), 'utf8');
  }

  /**
   * Appends a string whose characters are all below U+0100 as latin1 (one
   * byte per character, no UTF-8 encoding pass): HTTP heads use it. `room`:
   * bytes about to follow (a body), so that they land in the same chunk.
   * @internal
   */
  addLatin1(str: string, room = 0): void {
    if (str.length !== 0) this.#appendEncoded(str, str.length, 'latin1', room);
  }

  /** Writes `str` (`n` bytes once encoded) into the tail chunk's spare room or a new chunk. */
  #appendEncoded(str: string, n: number, encoding: 'utf8' | 'latin1', room = 0): void {
    const q = this.#q;
    this.#len += n;
    this.#changed();
    let c: Chunk | undefined = this.#h < this.#t ? q[this.#t - 1] : undefined;
    const fresh = c === undefined || c.cap - c.end < n + room;
    if (fresh) c = this.#chunkFor(n + room);
    const chunk = c as Chunk;
    // Buffer's per-encoding writers skip the encoding lookup of Buffer#write.
    const b = chunk.buf as Buffer & EncodedWriters;
    if (encoding === 'latin1') b.latin1Write(str, chunk.end, n);
    else b.utf8Write(str, chunk.end, n);
    chunk.end += n;
    if (fresh) this.#push(chunk);
  }

  /** An empty chunk (not yet queued) with room for `n` bytes after its `end`. */
  #chunkFor(n: number): Chunk {
    const r = this.#reserve;
    if (r !== null && r.cap - r.end >= n) {
      this.#reserve = null;
      r.start = r.end;
      return r;
    }
    if (n < POOL_MAX) {
      // Small chunks (a reply head, a short body) come from Node's shared pool: no
      // zero-filled allocation per chunk. The memory is this chunk's alone. A buffer's
      // first chunk is sized to its first append (a short reply takes a slice of the pool,
      // not 1 KiB of it); the next ones double up to SMALL_CHUNK; a larger append gets
      // its own size.
      const last = this.#h < this.#t ? this.#q[this.#t - 1]!.cap : 0;
      let cap = last === 0 ? (n * 2 + 63) & ~63 : last * 2;
      if (cap < FIRST_SMALL_CHUNK) cap = FIRST_SMALL_CHUNK;
      else if (cap > SMALL_CHUNK) cap = SMALL_CHUNK;
      if (cap < n) cap = n;
      const b = Buffer.allocUnsafe(cap);
      return new Chunk(b, 0, 0, cap, true);
    }
    let cap = MIN_CHUNK;
    if (n > MAX_ROUNDED_CHUNK) cap = n;
    else while (cap < n) cap *= 2;
    // For larger chunks a fresh ArrayBuffer (zero-filled) is cheaper than Buffer.allocUnsafe.
    return new Chunk(makeView(new ArrayBuffer(cap), 0, cap), 0, 0, cap, true);
  }

  /** Moves the cursor to the chunk holding absolute position `pos` (past the last chunk when `pos >= length`). */
  #seek(cur: Cursor, pos: number): void {
    const q = this.#q;
    while (pos < cur.base && cur.i > this.#h) {
      cur.i--;
      const c = q[cur.i]!;
      cur.base -= c.end - c.start;
    }
    while (cur.i < this.#t) {
      const c = q[cur.i]!;
      const l = c.end - c.start;
      if (pos < cur.base + l) return;
      cur.base += l;
      cur.i++;
    }
  }

  #byteAt(cur: Cursor, pos: number): number {
    this.#seek(cur, pos);
    if (cur.i >= this.#t) return -1;
    const c = this.#q[cur.i]!;
    return c.buf[c.start + pos - cur.base]!;
  }

  /** Absolute position of the first `byte` in `[from, limit)`, or -1; leaves the cursor on its chunk. */
  #find(cur: Cursor, byte: number, from: number, limit: number): number {
    if (from >= limit) return -1;
    const q = this.#q;
    this.#seek(cur, from);
    while (cur.i < this.#t && cur.base < limit) {
      const c = q[cur.i]!;
      const s = c.start + (from > cur.base ? from - cur.base : 0);
      const room = limit - cur.base;
      const e = c.end - c.start > room ? c.start + room : c.end;
      const r = indexIn(c, byte, s, e);
      if (r >= 0) return cur.base + (r - c.start);
      cur.base += c.end - c.start;
      cur.i++;
    }
    return -1;
  }

  /** Position of the first `\r` or `\n` at or after `from`, or -1; scans in growing windows so that it stays linear. */
  #findCrOrLf(cur: Cursor, from: number): number {
    const len = this.#len;
    let f = from;
    let w = 256;
    while (f < len) {
      const lim = len - f > w ? f + w : len;
      const a = this.#find(cur, LF, f, lim);
      const b = this.#find(cur, CR, f, a < 0 ? lim : a);
      if (b >= 0) return b;
      if (a >= 0) return a;
      f = lim;
      if (w < 1 << 20) w *= 4;
    }
    return -1;
  }

  /**
   * The libevent EOL search: position of the terminator at or after `from`,
   * or -1; sets `#eolLen`. `eol` must be valid.
   */
  #findEol(from: number, eol: number): number {
    const len = this.#len;
    const cur: Cursor = { i: this.#h, base: 0 };
    switch (eol) {
      case EventBuffer.EOL_ANY: {
        const p = this.#findCrOrLf(cur, from);
        if (p < 0) return -1;
        let k = p + 1;
        while (k < len && isEolByte(this.#byteAt(cur, k))) k++;
        this.#eolLen = k - p;
        return p;
      }
      case EventBuffer.EOL_CRLF: {
        const q = this.#find(cur, LF, from, len);
        if (q < 0) return -1;
        if (q > from && this.#byteAt(cur, q - 1) === CR) {
          this.#eolLen = 2;
          return q - 1;
        }
        this.#eolLen = 1;
        return q;
      }
      case EventBuffer.EOL_CRLF_STRICT: {
        let f = from;
        for (;;) {
          const q = this.#find(cur, LF, f, len);
          if (q < 0) return -1;
          if (q > from && this.#byteAt(cur, q - 1) === CR) {
            this.#eolLen = 2;
            return q - 1;
          }
          f = q + 1;
        }
      }
      case EventBuffer.EOL_LF:
      case EventBuffer.EOL_NUL: {
        this.#eolLen = 1;
        return this.#find(cur, eol === EventBuffer.EOL_LF ? LF : 0, from, len);
      }
      default:
        return -1;
    }
  }

  /**
   * The fast path of the line readers: when the line and its whole
   * terminator lie in the head chunk, sets `#lineEnd`/`#lineNext` (indices in
   * the chunk's Buffer) and returns true. The buffer must not be empty.
   */
  #lineInHead(eol: number): boolean {
    const q = this.#q;
    const c = q[this.#h]!;
    const s = c.start;
    const e = c.end;
    const b = c.buf;
    let r: number;
    switch (eol) {
      case EventBuffer.EOL_CRLF:
        r = scanView(c).indexOf(LF, s);
        if (r < 0) return false;
        this.#lineEnd = r > s && b[r - 1] === CR ? r - 1 : r;
        this.#lineNext = r + 1;
        return true;
      case EventBuffer.EOL_LF:
      case EventBuffer.EOL_NUL:
        r = scanView(c).indexOf(eol === EventBuffer.EOL_LF ? LF : 0, s);
        if (r < 0) return false;
        this.#lineEnd = r;
        this.#lineNext = r + 1;
        return true;
      case EventBuffer.EOL_CRLF_STRICT: {
        const sv = scanView(c);
        let f = s;
        for (;;) {
          r = sv.indexOf(LF, f);
          if (r < 0) return false;
          if (r > s && b[r - 1] === CR) {
            this.#lineEnd = r - 1;
            this.#lineNext = r + 1;
            return true;
          }
          f = r + 1;
        }
      }
      case EventBuffer.EOL_ANY: {
        const lf = scanView(c).indexOf(LF, s);
        const cr = crIn(c, s, lf < 0 ? e : lf);
        const p = cr >= 0 ? cr : lf;
        if (p < 0) return false;
        let k = p + 1;
        while (k < e && (b[k] === CR || b[k] === LF)) k++;
        // A run of terminator bytes reaching the chunk's end may continue in the next chunk.
        if (k === e && this.#h + 1 < this.#t) return false;
        this.#lineEnd = p;
        this.#lineNext = k;
        return true;
      }
      default:
        return false;
    }
  }

  /** The general line reader (lines spanning chunks, unknown styles). */
  #readLineSlow(eol: number): Buffer | null {
    if (!isEol(eol)) {
      invalidEol(eol);
      return null;
    }
    const p = this.#findEol(0, eol);
    if (p < 0) return null;
    const drain = this.#eolLen;
    const line = p === 0 ? Buffer.alloc(0) : this.#take(p);
    this.#dropFront(drain);
    return line;
  }

  /** Search start as PHP's `_get_pos` treats it: negative silently 0, beyond the length 0 with a warning. */
  #startPosition(start: number): number {
    const s = toPosition(start);
    if (s < 0) return 0;
    if (s > this.#len) {
      badPosition(start);
      return 0;
    }
    return s;
  }

  /** First position `p >= from` with `needle` at `[p, p + needle.length) ⊆ [0, limit)`, or -1. */
  #searchBytes(needle: Buffer, from: number, limit: number): number {
    const n = needle.length;
    const last = limit - n; // the last possible start
    if (from > last) return -1;
    const first = needle[0]!;
    const cur: Cursor = { i: this.#h, base: 0 };
    let f = from;
    for (;;) {
      const p = this.#find(cur, first, f, last + 1);
      if (p < 0) return -1;
      if (n === 1 || this.#matchAt(cur, p, needle)) return p;
      f = p + 1;
    }
  }

  /** Whether `needle` (which fits in the buffer) occurs at `p`; `cur` is on the chunk holding `p`. */
  #matchAt(cur: Cursor, p: number, needle: Buffer): boolean {
    const q = this.#q;
    const n = needle.length;
    let i = cur.i;
    let c = q[i]!;
    let k = c.start + (p - cur.base);
    if (c.end - k >= n) {
      if (n > 16) return c.buf.compare(needle, 0, n, k, k + n) === 0;
      const b = c.buf;
      for (let j = 1; j < n; j++) if (b[k + j] !== needle[j]) return false;
      return true;
    }
    for (let j = 0; j < n; j++) {
      while (k >= c.end) {
        i++;
        c = q[i]!;
        k = c.start;
      }
      if (c.buf[k] !== needle[j]) return false;
      k++;
    }
    return true;
  }
}

/**
 * One chunk of an `EventBuffer`: a window `[start, end)` over a `Buffer`,
 * with the memory policy of chunks (views made without copying, sizes of
 * new chunks, what may be reused) and the scans within one chunk that line
 * and byte searches are built on.
 *
 * @module
 */

/** Creates a `Buffer` view on memory without copying; faster than `subarray` (no species lookup). */
/** @internal */
export type ViewFn = (ab: ArrayBufferLike, byteOffset: number, length: number) => Buffer;

/**
 * A `Buffer` view on `length` bytes of `ab` from `byteOffset`, without copying.
 * @internal
 * @example
 * ```ts
 * const c = new Chunk(Buffer.from('key: value\r\n'), 0, 12, 12, false);
 * makeView(c.ab, c.off + 5, 5).toString(); // 'value'
 * ```
 */
export const makeView: ViewFn = (() => {
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
/** Scans of ranges up to this length use a plain loop instead of a native call. */
const SHORT_SCAN = 32;

/** Node's per-encoding Buffer writers (present on every Buffer, not in the typings). */
/** @internal */
export interface EncodedWriters {
  latin1Write(str: string, offset: number, length: number): number;
  utf8Write(str: string, offset: number, length: number): number;
}

/** `\r` @internal */
export const CR = 13;
/** `\n` @internal */
export const LF = 10;

/**
 * One window `[start, end)` over a Buffer. `cap > end` means the memory
 * after `end` is ours to write. `own` chunks hold memory this module
 * allocated for them alone; while no view of such a chunk has escaped
 * (`shared` false) its memory may be reused once it is drained.
 * @internal
 */
export class Chunk {
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
  /** Where the last line found in this chunk by the line readers' fast path ends (index in `buf`). */
  lineEnd: number;

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
    this.lineEnd = 0;
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

/** The chunk in the unused slots of a chunk deque. @internal */
export const EMPTY_CHUNK = new Chunk(Buffer.alloc(0), 0, 0, 0, false);

/**
 * The chunk's bytes `[0, end)` as one Buffer whose `indexOf` cannot run past `end`.
 * @internal
 * @example
 * ```ts
 * const c = new Chunk(Buffer.from('key: value\r\n'), 0, 12, 12, false);
 * scanView(c).indexOf(LF, c.start); // 11
 * ```
 */
export function scanView(c: Chunk): Buffer {
  if (c.buf.length === c.end) return c.buf;
  let s = c.scan;
  if (s === null || s.length !== c.end) {
    s = makeView(c.ab, c.off, c.end);
    c.scan = s;
  }
  return s;
}

/**
 * Index in `c.buf` of the first `byte` in `[s, e)` (`e <= c.end`), or -1.
 * @internal
 * @example
 * ```ts
 * const c = new Chunk(Buffer.from('key: value\r\n'), 0, 12, 12, false);
 * indexIn(c, 0x3a, c.start, c.end); // 3 (':')
 * ```
 */
export function indexIn(c: Chunk, byte: number, s: number, e: number): number {
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
 * @internal
 * @example
 * ```ts
 * const c = new Chunk(Buffer.from('key: value\r\n'), 0, 12, 12, false);
 * const lf = indexIn(c, LF, c.start, c.end); // 11
 * crIn(c, c.start, lf < 0 ? c.end : lf); // 10
 * ```
 */
export function crIn(c: Chunk, s: number, e: number): number {
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

/**
 * A new empty chunk with room for `n` bytes, for a buffer whose last chunk
 * has `lastCap` bytes of memory (0: none).
 * @internal
 * @example
 * ```ts
 * const c = newChunk(100, 0); // 256 bytes of pool memory
 * ```
 */
export function newChunk(n: number, lastCap: number): Chunk {
  if (n < POOL_MAX) {
    // Small chunks (a reply head, a short body) come from Node's shared pool: no
    // zero-filled allocation per chunk. The memory is this chunk's alone. A buffer's
    // first chunk is sized to its first append (a short reply takes a slice of the pool,
    // not 1 KiB of it); the next ones double up to SMALL_CHUNK; a larger append gets
    // its own size.
    let cap = lastCap === 0 ? (n * 2 + 63) & ~63 : lastCap * 2;
    if (cap < FIRST_SMALL_CHUNK) cap = FIRST_SMALL_CHUNK;
    else if (cap > SMALL_CHUNK) cap = SMALL_CHUNK;
    if (cap < n) cap = n;
    const b = Buffer.allocUnsafe(cap);
    return new Chunk(b, 0, 0, cap, true);
  }
  let cap = MIN_CHUNK;
  if (n > MAX_ROUNDED_CHUNK) cap = n;
  else while (cap < n) cap *= 2;
  // Larger chunks get their own memory, not zero-filled (as the pooled small ones): only
  // bytes written are ever read. 10-20% cheaper than a zero-filled ArrayBuffer (16-64 KiB).
  return new Chunk(Buffer.allocUnsafeSlow(cap), 0, 0, cap, true);
}

/** The most a first chunk is sized for from the last take (below the pool's limit: a slice, not an allocation). */
const TAKE_HINT_MAX = 4000;

/**
 * The first chunk of a buffer that was emptied by a take (a connection's
 * output, written and taken whole turn after turn), for `n` bytes: room for
 * a quarter more than the last take held (`lastTake`, up to a pool slice),
 * so that a batch of replies lands in one chunk and leaves in one write.
 * @internal
 * @example
 * ```ts
 * const c = firstChunk(80, 1600); // 2,000 bytes of room for the replies that follow
 * ```
 */
export function firstChunk(n: number, lastTake: number): Chunk {
  const hint = Math.min(lastTake + (lastTake >> 2), TAKE_HINT_MAX);
  return newChunk(hint > n ? hint : n, 0);
}

/** A placeholder element (never handed out: `takeChunks` overwrites or cuts it). @internal */
export const EMPTY_BUFFER = Buffer.alloc(0);

/**
 * `data` as a `Buffer` (the same memory).
 * @internal
 * @example
 * ```ts
 * const u8 = new Uint8Array([0x68, 0x69]);
 * asBuffer(u8).toString('latin1'); // 'hi' (the same memory as u8)
 * ```
 */
export function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * A chunk of exactly `n` bytes (pool memory for small ones), empty.
 * @internal
 * @example
 * ```ts
 * const c = exactChunk(80); // cap 80: a reply head that leaves whole
 * ```
 */
export function exactChunk(n: number): Chunk {
  return new Chunk(Buffer.allocUnsafe(n), 0, 0, n, true);
}

/** Strings up to this length are checked for ASCII and written with a plain loop. */
const SHORT_STRING = 64;
/** Copies up to this many bytes with a plain loop instead of a native call. */
const SHORT_COPY = 48;
/** The last short text {@link utf8Length} measured, and its length (a memo: a string's length never changes). */
let lastText = '';
let lastTextLength = 0;

/**
 * The UTF-8 length of `str`: counted here for short ASCII text (a small
 * body, a chunk-size line), where the native call costs more than the count.
 * @internal
 * @example
 * ```ts
 * utf8Length('héllo'); // 6
 * ```
 */
export function utf8Length(str: string): number {
  const n = str.length;
  if (n > SHORT_STRING) return Buffer.byteLength(str, 'utf8');
  if (str === lastText) return lastTextLength; // a fixed answer, measured again for every reply
  let len = n;
  for (let i = 0; i < n; i++) {
    if (str.charCodeAt(i) > 0x7f) {
      len = Buffer.byteLength(str, 'utf8');
      break;
    }
  }
  lastText = str;
  lastTextLength = len;
  return len;
}

/**
 * Writes `str`, `n` bytes once encoded as UTF-8, at the end of `c`, which
 * has the room; short ASCII text with a loop instead of the encoder's native call.
 * @internal
 * @example
 * ```ts
 * const c = exactChunk(5);
 * encodeInto('hello', utf8Length('hello'), c); // c.end === 5
 * ```
 */
export function encodeInto(str: string, n: number, c: Chunk): void {
  const b = c.buf;
  let at = c.end;
  if (n === str.length && n <= SHORT_STRING) {
    for (let i = 0; i < n; i++) b[at++] = str.charCodeAt(i); // ASCII: as many bytes as characters
  } else {
    (b as Buffer & EncodedWriters).utf8Write(str, at, n);
    at += n;
  }
  c.end = at;
}

/**
 * Copies `n` bytes of `src` from `off` into `dst` at `at`: a loop for a few
 * bytes, `set` (a memmove) beyond.
 * @internal
 * @example
 * ```ts
 * copyBytes(Buffer.from('abc'), 0, 3, Buffer.alloc(3), 0);
 * ```
 */
export function copyBytes(src: Buffer, off: number, n: number, dst: Buffer, at: number): void {
  if (n <= SHORT_COPY) {
    for (let i = 0; i < n; i++) dst[at + i] = src[off + i]!;
  } else if (off === 0 && n === src.length) {
    dst.set(src, at);
  } else {
    src.copy(dst, at, off, off + n);
  }
}

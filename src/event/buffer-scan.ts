/**
 * Searching the chunks of an `EventBuffer`: cursors that walk a chunk deque,
 * byte and needle searches across chunk boundaries, copying bytes out, and
 * line reading: libevent's end-of-line rules (`EOL_ANY`, `EOL_CRLF`,
 * `EOL_CRLF_STRICT`, `EOL_LF`, `EOL_NUL`), the terminator search across
 * chunks, and the fast path that finds a line within the head chunk.
 *
 * @module
 */
import { CR, crIn, indexIn, LF, scanView, type Chunk } from './buffer-chunk.js';

/**
 * The end-of-line styles of libevent (`EventBuffer.EOL_*`): what ends a line.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('Host: a\r'), 0, 8, 8, false), new Chunk(Buffer.from('\nX: 1\r\n'), 0, 7, 7, false)];
 * findEol(cursorOf(q, 0, q.length, 15), 0, EOL.CRLF); // 7: the CRLF spans the two chunks
 * ```
 */
export const EOL = {
  /** Any sequence of `\r` and `\n` ends a line (blank lines are swallowed). */
  ANY: 0,
  /** A `\n`, optionally preceded by one `\r`, ends a line. */
  CRLF: 1,
  /** Exactly `\r\n` ends a line. */
  CRLF_STRICT: 2,
  /** A `\n` ends a line. */
  LF: 3,
  /** A NUL byte ends a line. */
  NUL: 4,
} as const;

/**
 * Whether `eol` is one of the EOL_* constants.
 * @internal
 * @example
 * ```ts
 * isEol(EOL.CRLF_STRICT); // true
 * isEol(9); // false
 * ```
 */
export function isEol(eol: number): boolean {
  return eol === 0 || eol === 1 || eol === 2 || eol === 3 || eol === 4;
}

function isEolByte(b: number | undefined): boolean {
  return b === CR || b === LF;
}

/**
 * A position in a chunk deque `q[h .. t)` holding `len` bytes: the chunk
 * index `i` and the absolute position `base` of that chunk's first byte
 * (moved by the searches); `eolLen` is the length of the terminator the
 * last {@link findEol} found.
 * @internal
 */
export interface Cursor {
  readonly q: readonly Chunk[];
  readonly h: number;
  readonly t: number;
  readonly len: number;
  i: number;
  base: number;
  eolLen: number;
}

/**
 * A cursor at the front of `q[h .. t)`.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('a: 1'), 0, 4, 4, false)];
 * const cur = cursorOf(q, 0, q.length, 4); // q[0 .. 1), 4 bytes
 * find(cur, 0x3a, 0, cur.len); // 1
 * ```
 */
export function cursorOf(q: readonly Chunk[], h: number, t: number, len: number): Cursor {
  return { q, h, t, len, i: h, base: 0, eolLen: 0 };
}

/**
 * Copies `n` bytes from absolute position `from` into `target` at offset 0.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('Host: a\r'), 0, 8, 8, false), new Chunk(Buffer.from('\nX: 1\r\n'), 0, 7, 7, false)];
 * const out = new Uint8Array(9);
 * copyOut(cursorOf(q, 0, q.length, 15), 0, 9, out); // out: 'Host: a\r\n', from both chunks
 * ```
 */
export function copyOut(cur: Cursor, from: number, n: number, target: Uint8Array): void {
  const q = cur.q;
  seek(cur, from);
  let o = 0;
  let i = cur.i;
  let s = q[i]!.start + (from - cur.base);
  while (o < n) {
    const c = q[i]!;
    const k = Math.min(c.end - s, n - o);
    c.buf.copy(target, o, s, s + k);
    o += k;
    i++;
    if (i < cur.t) s = q[i]!.start;
  }
}

/**
 * Moves the cursor to the chunk holding absolute position `pos` (past the last chunk when `pos >= length`).
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('Host: a\r'), 0, 8, 8, false), new Chunk(Buffer.from('\nX: 1\r\n'), 0, 7, 7, false)];
 * const cur = cursorOf(q, 0, q.length, 15);
 * seek(cur, 10); // cur.i === 1 (the chunk holding byte 10), cur.base === 8 (its first byte's position)
 * ```
 */
export function seek(cur: Cursor, pos: number): void {
  const q = cur.q;
  while (pos < cur.base && cur.i > cur.h) {
    cur.i--;
    const c = q[cur.i]!;
    cur.base -= c.end - c.start;
  }
  while (cur.i < cur.t) {
    const c = q[cur.i]!;
    const l = c.end - c.start;
    if (pos < cur.base + l) return;
    cur.base += l;
    cur.i++;
  }
}

/**
 * The byte at absolute position `pos`, or -1 past the end.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('Host: a\r'), 0, 8, 8, false), new Chunk(Buffer.from('\nX: 1\r\n'), 0, 7, 7, false)];
 * byteAt(cursorOf(q, 0, q.length, 15), 8); // 0x0a, the first byte of the second chunk
 * ```
 */
export function byteAt(cur: Cursor, pos: number): number {
  seek(cur, pos);
  if (cur.i >= cur.t) return -1;
  const c = cur.q[cur.i]!;
  return c.buf[c.start + pos - cur.base]!;
}

/**
 * Absolute position of the first `byte` in `[from, limit)`, or -1; leaves the cursor on its chunk.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('Host: a\r'), 0, 8, 8, false), new Chunk(Buffer.from('\nX: 1\r\n'), 0, 7, 7, false)];
 * const cur = cursorOf(q, 0, q.length, 15);
 * find(cur, 0x3a, 5, cur.len); // 10, the colon of 'X: 1'
 * ```
 */
export function find(cur: Cursor, byte: number, from: number, limit: number): number {
  if (from >= limit) return -1;
  const q = cur.q;
  seek(cur, from);
  while (cur.i < cur.t && cur.base < limit) {
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
function findCrOrLf(cur: Cursor, from: number): number {
  const len = cur.len;
  let f = from;
  let w = 256;
  while (f < len) {
    const lim = len - f > w ? f + w : len;
    const a = find(cur, LF, f, lim);
    const b = find(cur, CR, f, a < 0 ? lim : a);
    if (b >= 0) return b;
    if (a >= 0) return a;
    f = lim;
    if (w < 1 << 20) w *= 4;
  }
  return -1;
}

/**
 * The libevent EOL search: position of the terminator at or after `from`,
 * or -1; sets `cur.eolLen`. `eol` must be valid.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('Host: a\r'), 0, 8, 8, false), new Chunk(Buffer.from('\nX: 1\r\n'), 0, 7, 7, false)];
 * const cur = cursorOf(q, 0, q.length, 15);
 * const p = findEol(cur, 0, EOL.CRLF); // 7: the line is [0, p), the terminator cur.eolLen (2) bytes
 * ```
 */
export function findEol(cur: Cursor, from: number, eol: number): number {
  const len = cur.len;
  switch (eol) {
    case EOL.ANY: {
      const p = findCrOrLf(cur, from);
      if (p < 0) return -1;
      let k = p + 1;
      while (k < len && isEolByte(byteAt(cur, k))) k++;
      cur.eolLen = k - p;
      return p;
    }
    case EOL.CRLF: {
      const q = find(cur, LF, from, len);
      if (q < 0) return -1;
      if (q > from && byteAt(cur, q - 1) === CR) {
        cur.eolLen = 2;
        return q - 1;
      }
      cur.eolLen = 1;
      return q;
    }
    case EOL.CRLF_STRICT: {
      let f = from;
      for (;;) {
        const q = find(cur, LF, f, len);
        if (q < 0) return -1;
        if (q > from && byteAt(cur, q - 1) === CR) {
          cur.eolLen = 2;
          return q - 1;
        }
        f = q + 1;
      }
    }
    case EOL.LF:
    case EOL.NUL: {
      cur.eolLen = 1;
      return find(cur, eol === EOL.LF ? LF : 0, from, len);
    }
    default:
      return -1;
  }
}

/**
 * First position `p >= from` with `needle` at `[p, p + needle.length) ⊆ [0, limit)`, or -1.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const q = [new Chunk(Buffer.from('Host: a\r'), 0, 8, 8, false), new Chunk(Buffer.from('\nX: 1\r\n'), 0, 7, 7, false)];
 * searchBytes(cursorOf(q, 0, q.length, 15), Buffer.from('\r\nX'), 0, 15); // 7, across the chunks
 * ```
 */
export function searchBytes(cur: Cursor, needle: Buffer, from: number, limit: number): number {
  const n = needle.length;
  const last = limit - n; // the last possible start
  if (from > last) return -1;
  const first = needle[0]!;
  let f = from;
  for (;;) {
    const p = find(cur, first, f, last + 1);
    if (p < 0) return -1;
    if (n === 1 || matchAt(cur, p, needle)) return p;
    f = p + 1;
  }
}

/** Whether `needle` (which fits in the buffer) occurs at `p`; `cur` is on the chunk holding `p`. */
function matchAt(cur: Cursor, p: number, needle: Buffer): boolean {
  const q = cur.q;
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

/**
 * The fast path of the line readers: when the line and its whole
 * terminator lie in the head chunk `q[h]` of the deque `q[h .. t)`, returns
 * the index in the chunk's Buffer after the terminator and sets the line's
 * end in `lineEnd` of the chunk; else -1. The deque must not be empty.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * const c = new Chunk(Buffer.from('GET / HTTP/1.1\r\nHost'), 0, 20, 20, false);
 * const next = lineInHead([c], 0, 1, EOL.CRLF); // 16, after the CRLF
 * if (next >= 0) console.log(c.buf.toString('latin1', c.start, c.lineEnd)); // 'GET / HTTP/1.1'
 * ```
 */
export function lineInHead(q: readonly Chunk[], h: number, t: number, eol: number): number {
  const c = q[h]!;
  const s = c.start;
  const e = c.end;
  const b = c.buf;
  let r: number;
  switch (eol) {
    case EOL.CRLF:
      r = scanView(c).indexOf(LF, s);
      if (r < 0) return -1;
      c.lineEnd = r > s && b[r - 1] === CR ? r - 1 : r;
      return r + 1;
    case EOL.LF:
    case EOL.NUL:
      r = scanView(c).indexOf(eol === EOL.LF ? LF : 0, s);
      if (r < 0) return -1;
      c.lineEnd = r;
      return r + 1;
    case EOL.CRLF_STRICT: {
      const sv = scanView(c);
      let f = s;
      for (;;) {
        r = sv.indexOf(LF, f);
        if (r < 0) return -1;
        if (r > s && b[r - 1] === CR) {
          c.lineEnd = r - 1;
          return r + 1;
        }
        f = r + 1;
      }
    }
    case EOL.ANY: {
      const lf = scanView(c).indexOf(LF, s);
      const cr = crIn(c, s, lf < 0 ? e : lf);
      const p = cr >= 0 ? cr : lf;
      if (p < 0) return -1;
      let k = p + 1;
      while (k < e && (b[k] === CR || b[k] === LF)) k++;
      // A run of terminator bytes reaching the chunk's end may continue in the next chunk.
      if (k === e && h + 1 < t) return -1;
      c.lineEnd = p;
      return k;
    }
    default:
      return -1;
  }
}

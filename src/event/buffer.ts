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
import { badArgument, frozenEnd, frozenFront, toCount, toPosition } from './buffer-args.js';
import { asBuffer, Chunk } from './buffer-chunk.js';
import { BufferInspection } from './buffer-inspect.js';
import { copyOut, EOL } from './buffer-scan.js';
import type { Descriptor } from './descriptor.js';
import { readDescriptor } from './descriptor.js';
import { eagain, unitsOf, writeUnits } from './buffer-io.js';
import { warn } from './errors.js';
import { setLastSocketError } from './util.js';

/** Reads from a descriptor up to this size are copied into spare room instead of queued as their own chunk. */
const SMALL_READ = 512;

/**
 * A chain of byte chunks: the port of libevent's `evbuffer` as the PHP
 * class `EventBuffer` exposes it.
 *
 * `new EventBuffer()` makes an empty buffer; memory is allocated when data
 * arrives. Bytes are appended at the end and consumed at the front; lines are read
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
export class EventBuffer extends BufferInspection {
  /** Any sequence of `\r` and `\n` ends a line (blank lines are swallowed). */
  static readonly EOL_ANY = EOL.ANY;
  /** A `\n`, optionally preceded by one `\r`, ends a line. */
  static readonly EOL_CRLF = EOL.CRLF;
  /** Exactly `\r\n` ends a line. */
  static readonly EOL_CRLF_STRICT = EOL.CRLF_STRICT;
  /** A `\n` ends a line. */
  static readonly EOL_LF = EOL.LF;
  /** A NUL byte ends a line. */
  static readonly EOL_NUL = EOL.NUL;
  /** Kept for compatibility; the position API that used it no longer exists. */
  static readonly PTR_SET = 0;
  /** Kept for compatibility; the position API that used it no longer exists. */
  static readonly PTR_ADD = 1;

  // ---------------------------------------------------------------- adding

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
    if (this.isFrozen(false)) return frozenEnd();
    if (!(data instanceof Uint8Array)) return badArgument('data', typeof data);
    const n = data.byteLength;
    if (n > 0) this.appendChunk(new Chunk(asBuffer(data), 0, n, n, false));
    return true;
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
    if (this.isFrozen(true)) return frozenFront();
    let copy: Buffer;
    if (typeof data === 'string') copy = Buffer.from(data, 'utf8');
    else if (data instanceof Uint8Array) copy = Buffer.from(data);
    else return badArgument('data', typeof data);
    const n = copy.length;
    if (n > 0) this.prependChunk(new Chunk(copy, 0, n, n, true));
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
    if (this.isFrozen(false)) return frozenEnd();
    if (src.isFrozen(true)) return frozenFront();
    this.appendAllOf(src);
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
    if (this.isFrozen(true) || src.isFrozen(true)) return frozenFront();
    this.prependAllOf(src);
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
    if (this.isFrozen(false)) {
      frozenEnd();
      return -1;
    }
    if (src.isFrozen(true)) {
      frozenFront();
      return -1;
    }
    return src.moveTo(this, n);
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
   * const input = bev.getInput();
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
      if (this.isFrozen(true)) {
        frozenFront();
        return -1;
      }
      if (out.isFrozen(false)) {
        frozenEnd();
        return -1;
      }
      return this.moveTo(out, max);
    }
    if (!(out instanceof Uint8Array)) {
      badArgument('output', typeof out);
      return -1;
    }
    if (this.isFrozen(true)) {
      frozenFront();
      return -1;
    }
    const n = Math.min(max, out.length, this.length);
    if (n > 0) {
      copyOut(this.cursor(), 0, n, out);
      this.dropFront(n);
    }
    return n;
  }

  // ----------------------------------------------------- inspecting (no drain)

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
    const len = this.length;
    const n = p < 0 ? len : p;
    if (n === 0 || n > len) return null;
    return this.pullupHead(n);
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
    return this.reserveRoom(size);
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
    this.setFrozen(atFront, true);
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
    this.setFrozen(atFront, false);
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
    if (this.isFrozen(true)) return frozenFront();
    const want = toPosition(howmuch);
    const len = this.length;
    const total = want < 0 ? len : Math.min(want, len);
    if (total === 0) return 0;
    const { written, failure } = writeUnits(desc, unitsOf(this.cursor(), total));
    if (written > 0) this.dropFront(written);
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
    if (this.isFrozen(false)) return frozenEnd();
    const want = toPosition(howmuch);
    const r = readDescriptor(desc, want);
    if (r === 'eof') return 0;
    if (r === 'again') {
      const err = eagain();
      setLastSocketError(err);
      return warn('ERR_EVENT_IO', 'Failed to read from the descriptor: Resource temporarily unavailable', err);
    }
    if (r instanceof Error) {
      setLastSocketError(r);
      return warn('ERR_EVENT_IO', `Failed to read from the descriptor: ${r.message}`, r);
    }
    const n = r.length;
    if (n === 0) return 0;
    if (n <= SMALL_READ) this.appendCopy(r, 0, n);
    else this.appendOwned(r);
    return n;
  }

  // ------------------------------------------------- helpers for other modules

  /**
   * Copies all of `src` to the end of this buffer (into spare room first, no
   * views created), then empties `src`: for small bodies behind a reply head.
   * @returns false (and nothing moved) when this end or `src`'s front is frozen.
   * @internal
   */
  appendCopyOf(src: EventBuffer): boolean {
    if (this.isFrozen(false) || src.isFrozen(true)) return false;
    const n = src.length;
    if (n === 0) return true;
    src.copyAllTo(this);
    src.drain(n);
    return true;
  }
}

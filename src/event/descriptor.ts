/**
 * Descriptors: what an `Event` can watch and an `EventBuffer` can read from
 * or write to.
 *
 * A descriptor is a `net.Socket` (or any Node `Readable`/`Writable`/`Duplex`
 * stream: stdin, a pipe, a TTY), a `net.Server`, a numeric file descriptor, or
 * an object that implements {@link Pollable} (the file-I/O helper's event
 * stream does). Node offers no way to ask whether an arbitrary descriptor is
 * readable without reading it, so a numeric descriptor is adopted once into a
 * Node stream (sockets and pipes) or treated as always ready (regular files
 * and character devices, as `poll(2)` treats them); read such descriptors
 * through `EventBuffer.readFrom()` so that the adopted stream and your code
 * do not compete for the bytes. Descriptors 0, 1 and 2 map to
 * `process.stdin`, `process.stdout` and `process.stderr`.
 *
 * @module
 */
import { fstatSync, readSync, writeSync } from 'node:fs';
import { Server, Socket } from 'node:net';
import { isatty, ReadStream as TtyReadStream } from 'node:tty';
import type { Readable, Writable } from 'node:stream';
import { createEventError } from './errors.js';
import { activeHandles } from './fallbacks.js';
import { noop } from './shared.js';

/**
 * The symbol under which a {@link Pollable} exposes its readiness source.
 * @example
 * ```ts
 * const never: PollSource = { readable: () => false, writable: () => false, watchReadable: () => () => {}, watchWritable: () => () => {} };
 * const src: Pollable = { [kPollable]: () => never };
 * ```
 */
export const kPollable: unique symbol = Symbol.for('eventide.pollable');

/**
 * Readiness of one descriptor, as the event layer sees it.
 *
 * `readable()` is level-triggered: true while data (or end of file, or an
 * error) is waiting. `watchReadable(cb)` calls `cb` whenever readiness may
 * have appeared and returns a function that stops watching.
 * @example
 * ```ts
 * const always: PollSource = { readable: () => true, writable: () => false, watchReadable: () => () => {}, watchWritable: () => () => {} };
 * ```
 */
export interface PollSource {
  readable(): boolean;
  writable(): boolean;
  watchReadable(cb: () => void): () => void;
  watchWritable(cb: () => void): () => void;
  /** Keeps the process alive while watched (true for sockets and the file-I/O stream). */
  readonly keepsAlive?: boolean;
}

/**
 * An object that can be watched by an `Event`: the file-I/O helper's event
 * stream, or your own source.
 *
 * @example
 * ```ts
 * const always: PollSource = { readable: () => true, writable: () => false, watchReadable: () => () => {}, watchWritable: () => () => {} };
 * const source: Pollable = { [kPollable]: () => always };
 * new Event(base, source, Event.READ | Event.PERSIST, () => console.log('ready')).add();
 * ```
 */
export interface Pollable {
  [kPollable](): PollSource;
}

/**
 * Anything an `Event` accepts as its descriptor.
 * @example
 * ```ts
 * const fds: Descriptor[] = [process.stdin, socket, 0, fio.eventStream];
 * ```
 */
export type Descriptor = Socket | Server | Readable | Writable | Pollable | number;

function isPollable(v: unknown): v is Pollable {
  return typeof v === 'object' && v !== null && typeof (v as Partial<Pollable>)[kPollable] === 'function';
}

function isReadableStream(v: unknown): v is Readable {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Readable).read === 'function' &&
    typeof (v as Readable).on === 'function'
  );
}

function isWritableStream(v: unknown): v is Writable {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Writable).write === 'function' &&
    typeof (v as Writable).on === 'function'
  );
}

interface StreamInternals {
  _readableState?: { ended?: boolean };
  _handle?: { fd?: number } | null;
}

/**
 * Whether a readable stream has data, end of file or an error waiting.
 * @internal
 */
export function streamReadable(s: Readable): boolean {
  if (s.readableLength > 0 || s.readableEnded || s.destroyed) return true;
  if (s.errored) return true;
  return (s as unknown as StreamInternals)._readableState?.ended === true;
}

/**
 * Whether a writable stream accepts data without buffering beyond its high-water mark.
 * @internal
 */
export function streamWritable(s: Writable): boolean {
  if ((s as Partial<Socket>).connecting === true) return false;
  if (s.destroyed || !s.writable) return true; // writing reports the error at once, as write(2) on a closed socket
  return !s.writableNeedDrain;
}

// Errors from watched streams land here so that an 'error' event never crashes the process.
const streamErrors = new WeakMap<object, Error>();

/**
 * The last error a watched stream emitted, if any.
 * @internal
 */
export function streamError(s: object): Error | undefined {
  return streamErrors.get(s);
}

function guardErrors(s: Readable | Writable): void {
  if (streamErrors.has(s) || (s as unknown as { [k: symbol]: boolean })[kGuarded]) return;
  (s as unknown as { [k: symbol]: boolean })[kGuarded] = true;
  s.on('error', (err: Error) => {
    streamErrors.set(s, err);
  });
}
const kGuarded = Symbol('eventide.errorGuard');

class StreamSource implements PollSource {
  readonly keepsAlive = false;
  readonly #r: Readable | null;
  readonly #w: Writable | null;

  constructor(r: Readable | null, w: Writable | null) {
    this.#r = r;
    this.#w = w;
    if (r) guardErrors(r);
    if (w && w !== (r as unknown)) guardErrors(w);
  }

  readable(): boolean {
    return this.#r ? streamReadable(this.#r) : false;
  }

  writable(): boolean {
    return this.#w ? streamWritable(this.#w) : false;
  }

  watchReadable(cb: () => void): () => void {
    const r = this.#r;
    if (!r) return noop;
    const on = (): void => cb();
    r.on('readable', on);
    r.on('end', on);
    r.on('close', on);
    r.on('error', on);
    return () => {
      r.off('readable', on);
      r.off('end', on);
      r.off('close', on);
      r.off('error', on);
      // process.stdin keeps reading (and the process alive) until paused: let go of it
      // once nothing watches it any more.
      if (r === process.stdin) setImmediate(releaseStdin); // Node starts reading on a later tick
    };
  }

  watchWritable(cb: () => void): () => void {
    const w = this.#w;
    if (!w) return noop;
    const on = (): void => cb();
    w.on('drain', on);
    w.on('connect', on);
    w.on('close', on);
    w.on('error', on);
    return () => {
      w.off('drain', on);
      w.off('connect', on);
      w.off('close', on);
      w.off('error', on);
    };
  }
}

/**
 * Stops the reading that a 'readable' listener started on process.stdin (what
 * Node itself does when stdin is paused in flowing mode), so that the process
 * can exit. Buffered bytes stay in the stream.
 */
function releaseStdin(): void {
  const stdin = process.stdin as unknown as {
    _handle?: { reading?: boolean; readStop?: () => void } | null;
    _readableState?: { reading?: boolean };
  };
  if (process.stdin.listenerCount('readable') > 0 || process.stdin.listenerCount('data') > 0) return;
  const h = stdin._handle;
  if (h && h.reading && typeof h.readStop === 'function') {
    if (stdin._readableState) stdin._readableState.reading = false;
    h.reading = false;
    h.readStop();
  }
}

/** A regular file or character device: always ready, as poll(2) reports it. */
class AlwaysReadySource implements PollSource {
  readable(): boolean {
    return true;
  }
  writable(): boolean {
    return true;
  }
  watchReadable(): () => void {
    return noop;
  }
  watchWritable(): () => void {
    return noop;
  }
}

/** A listening server is readable when a connection waits; `connection` events say so. */
class ServerSource implements PollSource {
  readonly #server: Server;
  constructor(server: Server) {
    this.#server = server;
  }
  readable(): boolean {
    return false;
  }
  writable(): boolean {
    return false;
  }
  watchReadable(cb: () => void): () => void {
    const on = (): void => cb();
    this.#server.on('connection', on);
    return () => this.#server.off('connection', on);
  }
  watchWritable(): () => void {
    return noop;
  }
}

/** What a numeric descriptor was adopted as. */
interface Adopted {
  stream: Readable | Writable | null; // null for regular files and devices: use fs directly
  source: PollSource;
}

const adopted = new Map<number, Adopted>();

function stdStream(fd: number): Readable | Writable | null {
  if (fd === 0) return process.stdin;
  if (fd === 1) return process.stdout;
  if (fd === 2) return process.stderr;
  return null;
}

function invalidDescriptor(detail?: string, cause?: unknown): never {
  throw createEventError(
    'ERR_EVENT_INVALID_DESCRIPTOR',
    detail ? `Invalid file descriptor: ${detail}` : 'Invalid file descriptor',
    cause === undefined ? {} : { cause },
  );
}

function adopt(fd: number): Adopted {
  const known = adopted.get(fd);
  if (known) return known;
  if (!Number.isInteger(fd) || fd < 0) invalidDescriptor(String(fd));
  let entry: Adopted;
  const std = stdStream(fd);
  if (std) {
    entry = { stream: std, source: sourceOfStream(std) };
  } else {
    let st;
    try {
      st = fstatSync(fd);
    } catch (err) {
      invalidDescriptor(`${fd} is not open`, err);
    }
    if (st.isSocket() || st.isFIFO()) {
      // A descriptor Node already watches (a socket of this process) cannot get a second
      // libuv handle: use the stream that owns it.
      const owner = ownerOf(fd);
      if (owner instanceof Server) {
        entry = { stream: null, source: new ServerSource(owner) };
      } else if (owner) {
        entry = { stream: owner, source: sourceOfStream(owner) };
      } else {
        let s: Socket;
        try {
          s = new Socket({ fd, readable: true, writable: true, allowHalfOpen: true });
        } catch (err) {
          invalidDescriptor(`${fd} cannot be watched`, err);
        }
        entry = { stream: s, source: new StreamSource(s, s) };
        s.once('close', () => adopted.delete(fd));
      }
    } else if (st.isCharacterDevice() && isatty(fd)) {
      const s = new TtyReadStream(fd);
      entry = { stream: s, source: new StreamSource(s, null) };
    } else if (st.isFile() || st.isCharacterDevice() || st.isBlockDevice()) {
      entry = { stream: null, source: new AlwaysReadySource() };
    } else {
      invalidDescriptor(`${fd} is a directory or an unsupported kind of file`);
    }
  }
  adopted.set(fd, entry);
  return entry;
}

/** The Node socket or server of this process that owns a descriptor, if any. */
function ownerOf(fd: number): Socket | Server | undefined {
  for (const h of activeHandles() ?? []) {
    if ((h instanceof Socket || h instanceof Server) && fdOf(h) === fd) return h;
  }
  return undefined;
}

function sourceOfStream(s: Readable | Writable): PollSource {
  const r = isReadableStream(s) ? s : null;
  const w = isWritableStream(s) ? s : null;
  return new StreamSource(r, w);
}

const sources = new WeakMap<object, PollSource>();

/**
 * The readiness source of a descriptor. Throws an
 * `EventArgumentError` (`ERR_EVENT_INVALID_DESCRIPTOR`) for anything that is
 * not a descriptor, a negative number, or a number that is not open.
 * @internal
 */
export function pollSourceOf(desc: unknown): PollSource {
  if (typeof desc === 'number') return adopt(desc).source;
  if (typeof desc !== 'object' || desc === null) invalidDescriptor(desc === null ? 'null' : typeof desc);
  const cached = sources.get(desc);
  if (cached) return cached;
  let src: PollSource;
  if (isPollable(desc)) src = desc[kPollable]();
  else if (desc instanceof Server) src = new ServerSource(desc);
  else if (isReadableStream(desc) || isWritableStream(desc)) src = sourceOfStream(desc);
  else invalidDescriptor('expected a socket, stream, event stream or file descriptor number');
  sources.set(desc, src);
  return src;
}

/**
 * Checks that a value is a usable descriptor without watching it.
 * @internal
 */
export function isDescriptor(desc: unknown): desc is Descriptor {
  try {
    pollSourceOf(desc);
    return true;
  } catch {
    return false;
  }
}

/**
 * The stream behind a descriptor, or null for a regular file / device number.
 * @internal
 */
export function streamOf(desc: Descriptor): Readable | Writable | null {
  if (typeof desc === 'number') return adopt(desc).stream;
  if (isReadableStream(desc) || isWritableStream(desc)) return desc;
  return null;
}

/**
 * The numeric file descriptor behind a descriptor, or -1 when there is none.
 * @internal
 */
export function fdOf(desc: unknown): number {
  if (typeof desc === 'number') return Number.isInteger(desc) && desc >= 0 ? desc : -1;
  if (typeof desc !== 'object' || desc === null) return -1;
  const d = desc as StreamInternals & { fd?: unknown };
  if (typeof d.fd === 'number' && d.fd >= 0) return d.fd; // fs streams, tty streams
  const h = d._handle;
  if (h && typeof h.fd === 'number' && h.fd >= 0) return h.fd;
  return -1;
}

/**
 * Result of a non-blocking read from a descriptor.
 * @internal
 */
export type ReadResult = Buffer | 'eof' | 'again' | Error;

/**
 * Reads what is available now, at most `max` bytes (`max < 0`: everything).
 * Never blocks: `'again'` means nothing is there yet, `'eof'` end of file.
 * @internal
 */
export function readDescriptor(desc: Descriptor, max: number): ReadResult {
  if (max === 0) return Buffer.alloc(0);
  const stream = streamOf(desc);
  if (stream === null) {
    if (typeof desc !== 'number') return new Error('descriptor is not readable');
    const size = max < 0 ? 65536 : max;
    const buf = Buffer.allocUnsafe(size);
    try {
      const n = readSync(desc, buf, 0, size, null);
      return n === 0 ? 'eof' : buf.subarray(0, n);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'EAGAIN' || code === 'EWOULDBLOCK' ? 'again' : (err as Error);
    }
  }
  if (!isReadableStream(stream)) return new Error('descriptor is not readable');
  const avail = stream.readableLength;
  if (avail === 0) {
    const err = streamError(stream) ?? stream.errored;
    if (err) return err;
    if (streamReadable(stream)) return 'eof';
    stream.read(0); // ask the stream to fill its buffer
    return 'again';
  }
  const want = max < 0 || max >= avail ? undefined : max;
  const chunk = stream.read(want) as Buffer | string | null;
  if (chunk === null) return 'again';
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

/**
 * Writes bytes to a descriptor. Streams accept everything (and buffer what the
 * kernel does not take yet); regular files are written synchronously.
 * Returns the number of bytes accepted, or the error.
 * @internal
 */
export function writeDescriptor(desc: Descriptor, data: Buffer): number | Error {
  const stream = streamOf(desc);
  if (stream === null) {
    if (typeof desc !== 'number') return new Error('descriptor is not writable');
    try {
      let off = 0;
      while (off < data.length) off += writeSync(desc, data, off, data.length - off);
      return off;
    } catch (err) {
      return err as Error;
    }
  }
  if (!isWritableStream(stream)) return new Error('descriptor is not writable');
  if (stream.destroyed || !stream.writable || stream.writableEnded) {
    const e = new Error('Broken pipe') as NodeJS.ErrnoException;
    e.code = 'EPIPE';
    e.errno = -32;
    return e;
  }
  guardErrors(stream);
  stream.write(data);
  return data.length;
}

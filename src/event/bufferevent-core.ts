/**
 * The engine behind `EventBufferEvent` (libevent's bufferevent.c): the
 * input and output buffers, the callbacks and the events delivered through
 * the base's loop, watermarks, timeouts, enable/disable, the connection's
 * state, and the flush of output at the end of the loop's turn (queued in
 * bufferevent-turn.ts). It drives a {@link Transport} and is the
 * {@link TransportHost} its transport reports to.
 *
 * @module
 */
import type { Socket } from 'node:net';
import { AF } from './address.js';
import type { EventBase } from './base.js';
import { Handle } from './handle.js';
import { EventBuffer } from './buffer.js';
import {
  BEV,
  BufferEventCallbacks,
  type CallbackSource,
  type DataCallback,
  type EventsCallback,
} from './bufferevent-callbacks.js';
import type { EventDnsBase } from './dns.js';
import { warn } from './errors.js';
import { noop, READ, WRITE } from './shared.js';
import type { ConnectTarget, Transport, TransportHost } from './transport.js';
import { connectTarget, resolveHost } from './transport-socket.js';
import type { TurnMember } from './bufferevent-turn.js';
import { setLastSocketError } from './util.js';

const { READING, WRITING, EOF, ERROR, TIMEOUT, CONNECTED } = BEV;

/**
 * While a write timeout is set, output is handed to the socket in pieces of
 * at most this many bytes, the next once the last has been sent: Node reports
 * progress per write, and a write timeout counts time without progress (so a
 * slow peer must take 1 MiB per timeout).
 */
const WRITE_PIECE = 1 << 20;

/**
 * Option: close the socket when the connection is freed (`EventBufferEvent.OPT_CLOSE_ON_FREE`).
 * @internal
 * @example
 * ```ts
 * const core = new BufferEventCore(bev, base, OPT_CLOSE_ON_FREE, onRead, null, onEvent, undefined);
 * const closeOnFree = (core.options & OPT_CLOSE_ON_FREE) !== 0; // true
 * ```
 */
export const OPT_CLOSE_ON_FREE = 1;

type State = 'idle' | 'connecting' | 'resolving' | 'handshaking' | 'open' | 'closed';

/**
 * The state and behaviour of one bufferevent; `owner` (the public object)
 * is what the callbacks get, as their first argument and as `this`.
 * @internal
 * @example
 * ```ts
 * const core = new BufferEventCore(bev, base, 0, onRead, null, onEvent, undefined);
 * import { SocketTransport } from './transport-socket.js';
 * core.setTransport(new SocketTransport(core));
 * core.connect('127.0.0.1:8080');
 * ```
 */
export class BufferEventCore<O, A> implements TransportHost, CallbackSource, TurnMember {
  readonly base: EventBase;
  /** Bytes received. */
  readonly input = new EventBuffer();
  /** Bytes to send. */
  readonly output = new EventBuffer();
  /** `OPT_*` flags. */
  options: number;
  /** The callbacks and their argument. */
  readonly callbacks: BufferEventCallbacks<O, A>;
  #enabled = WRITE;
  #state: State = 'idle';
  #transport: Transport | null = null;
  /** The read and write timeout handles, made on first use (most connections never set a timeout). */
  #readTimer: Handle | null = null;
  #writeTimer: Handle | null = null;
  /** A piece of the output on its way to the transport (#flushPiece), made on first use. */
  #piece: EventBuffer | null = null;
  #timeoutRead = -1;
  #timeoutWrite = -1;
  #lowRead = 0;
  #highRead = 0;
  #lowWrite = 0;
  #eofSeen = false;
  #waitingForDispatch = false;
  /** The read callback that takes each read's bytes itself (`holdReadsFor`), or null. */
  #holdFor: unknown = null;
  /** The bytes of the read whose callback runs, not yet in the input (`takeHeld`). */
  #held: Buffer | null = null;
  /** Whether the read whose callback runs is lent (valid only until the callback returns). */
  #heldLent = false;
  #flushScheduled = false;
  #refd = false;
  #dnsError = '';
  #freed = false;
  #closed = false;
  #upgraded = false;
  /** Output that is the first of its turn leaves when the callback returns (`writeFirstEarly`). */
  #writesEarly = false;
  /** The host name a TLS client checks the certificate against. */
  #hostname: string | undefined;

  constructor(
    owner: O,
    base: EventBase,
    options: number,
    readcb: DataCallback<O, A> | null,
    writecb: DataCallback<O, A> | null,
    eventcb: EventsCallback<O, A> | null,
    arg: A,
  ) {
    this.base = base;
    this.options = options;
    this.callbacks = new BufferEventCallbacks(owner, base, this, readcb, writecb, eventcb, arg);
    this.output.setChangeHook(() => this.#outputChanged());
  }

  // ---------------------------------------------------------------- set-up

  /** Makes `t` the transport (before anything was connected). */
  setTransport(t: Transport): void {
    this.#transport = t;
  }

  /** Takes over a connected or connecting socket through the transport. */
  adopt(sock: Socket): void {
    this.#state = sock.connecting ? 'connecting' : 'open';
    (this.#transport as Transport).adopt(sock); // a connected socket under TLS starts its handshake: handshaking()
    if (this.#state === 'open') this.#syncReading();
    this.#updateRef(); // a socket still connecting keeps the loop waiting for CONNECTED
  }

  /** A pair end: open from the start. */
  openPair(): void {
    this.#state = 'open';
  }

  /** Copies the enabled directions of the connection a STARTTLS filter replaces. */
  inheritEnabled(enabled: number): void {
    this.#enabled = enabled;
  }

  // ---------------------------------------------------------------- accessors

  get transport(): Transport | null {
    return this.#transport;
  }
  get enabled(): number {
    return this.#enabled;
  }
  get dnsError(): string {
    return this.#dnsError;
  }
  get freed(): boolean {
    return this.#freed;
  }
  get upgraded(): boolean {
    return this.#upgraded;
  }
  /** Whether `close()` closed the socket. */
  get wasClosed(): boolean {
    return this.#closed;
  }
  /** Bytes not yet sent: what `output` holds plus what the transport still buffers. */
  get unsentLength(): number {
    return this.output.length + (this.#transport?.unsent ?? 0);
  }

  /** False, with a warning, once the connection was freed or handed over to a TLS filter. */
  usable(what: string): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', `Buffer Event is not initialized (${what})`);
    if (this.#upgraded) return warn('ERR_EVENT_FREED', `The connection was upgraded to TLS; use the filter (${what})`);
    return true;
  }

  // ---------------------------------------------------------------- configuration

  /** The callbacks were replaced: bytes already handed to a congested socket make the new write callback run once they drain. */
  callbacksReplaced(): void {
    const t = this.#transport;
    if (this.callbacks.writecb !== null && t !== null && this.#state === 'open' && t.congested) t.waitDrain();
  }

  enable(events: number): boolean {
    if (!this.usable('enable')) return false;
    if (!Number.isInteger(events) || (events & ~(READ | WRITE)) !== 0)
      return warn('ERR_EVENT_INVALID_MASK', 'Invalid events mask');
    this.#enabled |= events;
    if ((events & READ) !== 0) {
      this.#armReadTimer();
      this.#syncReading();
      if (this.input.length > 0 && this.input.length >= this.#lowRead) this.callbacks.read();
    }
    if ((events & WRITE) !== 0) {
      if (this.output.length > 0) this.#scheduleFlush();
      else if (this.#state === 'open' && this.#unsent() === 0 && this.callbacks.writecb !== null)
        this.callbacks.write();
    }
    this.#updateRef();
    return true;
  }

  disable(events: number): boolean {
    if (!this.usable('disable')) return false;
    if (!Number.isInteger(events) || (events & ~(READ | WRITE)) !== 0)
      return warn('ERR_EVENT_INVALID_MASK', 'Invalid events mask');
    this.#enabled &= ~events;
    if ((events & READ) !== 0) {
      this.#stopTimer(this.#readTimer);
      this.#syncReading();
    }
    if ((events & WRITE) !== 0) this.#stopTimer(this.#writeTimer);
    this.#updateRef();
    return true;
  }

  setWatermark(events: number, low: number, high: number): void {
    if (!this.usable('setWatermark')) return;
    const lo = Math.max(0, Math.trunc(Number(low)) || 0);
    const hi = Math.max(0, Math.trunc(Number(high)) || 0);
    if ((events & READ) !== 0) {
      this.#lowRead = lo;
      this.#highRead = hi;
      // Draining the input matters only below a high watermark (reading resumes): no hook without one.
      this.input.setChangeHook(hi > 0 ? () => this.#inputChanged() : null);
      this.#syncReading();
    }
    if ((events & WRITE) !== 0) this.#lowWrite = lo;
  }

  setTimeouts(readTimeout: number, writeTimeout: number): boolean {
    if (!this.usable('setTimeouts')) return false;
    this.#timeoutRead = readTimeout > 0 ? Number(readTimeout) : -1;
    this.#timeoutWrite = writeTimeout > 0 ? Number(writeTimeout) : -1;
    this.#armReadTimer();
    if (this.#timeoutWrite < 0) this.#stopTimer(this.#writeTimer);
    else if (this.#unsent() + this.output.length > 0) this.base.scheduleIn(this.#writeHandle(), this.#timeoutWrite);
    return true;
  }

  setPriority(priority: number): boolean {
    if (!this.usable('setPriority')) return false;
    if (!Number.isInteger(priority) || priority < 0 || priority >= this.base.priorities) {
      return warn('ERR_EVENT_INVALID_PRIORITY', `Unable to set event priority: ${String(priority)}`);
    }
    this.callbacks.setPriority(priority);
    return true;
  }

  // ---------------------------------------------------------------- connecting

  connect(address: string): boolean {
    if (!this.usable('connect')) return false;
    if (this.#state !== 'idle')
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'The connection is already connected or connecting');
    const target = connectTarget(address);
    if (target === false) return false;
    if ('host' in target) this.#hostname ??= target.host; // a TLS client checks the certificate against the address
    this.#startConnect(target);
    return true;
  }

  connectHost(dnsBase: EventDnsBase | null, hostname: string, port: number, family: number): boolean {
    if (!this.usable('connectHost')) return false;
    if (family !== AF.UNSPEC && family !== AF.INET && family !== AF.INET6)
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid address family specified: ${String(family)}`);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      return warn('ERR_EVENT_ADDRESS', `Invalid port: ${String(port)}`);
    if (typeof hostname !== 'string' || hostname.length === 0) return warn('ERR_EVENT_ADDRESS', 'Invalid host name');
    if (this.#state !== 'idle')
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'The connection is already connected or connecting');
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    this.#hostname = host;
    this.#state = 'resolving';
    this.#dnsError = '';
    this.#updateRef();
    resolveHost(dnsBase, host, family, (err, address, errText) => {
      if (this.#freed || this.#state !== 'resolving') return;
      if (err !== null || address === null) {
        this.#dnsError = errText;
        this.#state = 'closed';
        this.callbacks.emit(ERROR);
        this.#updateRef();
        return;
      }
      this.#state = 'idle';
      this.#startConnect({ host: address, port });
    });
    return true;
  }

  #startConnect(target: ConnectTarget): void {
    this.#state = 'connecting';
    try {
      (this.#transport as Transport).connect(target, this.#hostname);
    } catch (err) {
      setLastSocketError(err);
      this.#state = 'closed';
      this.callbacks.emit(ERROR);
    }
    this.#updateRef();
  }

  // ---------------------------------------------------------------- closing

  close(): boolean {
    const t = this.#transport;
    if (this.#freed || this.#upgraded || t === null || t.socket === null || this.#closed) return false;
    this.#closed = true;
    t.destroy();
    this.#state = 'closed';
    this.#updateRef();
    return true;
  }

  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    const pending = this.output.length > 0 && this.#state === 'open' && !this.#upgraded;
    this.#cancelAll();
    if (!this.#upgraded)
      this.#transport?.release(pending ? this.output : null, (this.options & OPT_CLOSE_ON_FREE) !== 0 && !this.#closed);
    this.#state = 'closed';
  }

  /** Gives up the socket to a TLS filter: returns the unread input; this connection becomes inert. */
  handOver(): Buffer {
    this.#flush(true);
    const held = this.takeHeld();
    if (held !== null) this.input.appendRead(held, this.#heldLent);
    const leftover = this.input.length > 0 ? Buffer.concat(this.input.takeChunks()) : Buffer.alloc(0);
    this.#transport?.handOver();
    this.#cancelAll();
    this.#upgraded = true;
    this.#state = 'closed';
    return leftover;
  }

  // ---------------------------------------------------------------- TransportHost

  connected(): void {
    if (this.#freed) return;
    this.#state = 'open';
    this.callbacks.emit(CONNECTED);
    this.#armReadTimer();
    this.#syncReading();
    if (this.output.length > 0) this.#scheduleFlush();
    this.#updateRef();
  }

  handshaking(): void {
    this.#state = 'handshaking';
    this.#updateRef();
  }

  secured(): void {
    if (this.#freed) return;
    this.#state = 'open';
    this.callbacks.emit(CONNECTED);
    this.#syncReading();
    if (this.output.length > 0) this.#scheduleFlush();
    this.#updateRef();
  }

  handshakeFailed(err: Error): void {
    if (this.#freed) return;
    this.#transport?.noteError(err);
    setLastSocketError(err);
    this.#state = 'closed';
    this.callbacks.emit(ERROR | READING);
    this.#updateRef();
  }

  data(chunk: Buffer, lent: boolean): void {
    const input = this.input;
    const cb = this.callbacks.readcb;
    if (
      cb !== null &&
      cb === this.#holdFor &&
      this.#held === null && // a read reported inside the callback (re-entered) goes into the input
      input.length === 0 &&
      this.#lowRead === 0 &&
      this.#highRead === 0 &&
      this.base.dispatching
    ) {
      this.#dataHeld(chunk, lent);
      return;
    }
    input.appendRead(chunk, lent);
    if (this.#timeoutRead > 0) this.base.pushBack(this.#readHandle(), this.#timeoutRead, this.base.turn.clock());
    if (!this.base.dispatching && !this.#waitingForDispatch) {
      // Nothing calls back while the base is idle: stop reading until it dispatches again.
      this.#waitingForDispatch = true;
      this.#transport?.setReading(false);
      this.base.onDispatch(() => {
        this.#waitingForDispatch = false;
        this.#syncReading();
      });
    } else if (this.#highRead > 0 && input.length >= this.#highRead) {
      this.#syncReading();
    }
    if (input.length >= this.#lowRead && this.callbacks.readcb !== null) this.callbacks.readNow();
  }

  /**
   * A read for the callback of `holdReadsFor`, with nothing else waiting: it takes the bytes
   * (`takeHeld`) instead of reading them out of the input; what it leaves goes there after.
   */
  #dataHeld(chunk: Buffer, lent: boolean): void {
    if (this.#timeoutRead > 0) this.base.pushBack(this.#readHandle(), this.#timeoutRead, this.base.turn.clock());
    this.#held = chunk;
    this.#heldLent = lent;
    try {
      this.callbacks.readNow();
    } finally {
      const rest = this.#held;
      if (rest !== null) {
        this.#held = null;
        this.input.appendRead(rest, lent);
      }
      this.#heldLent = false;
    }
  }

  /** See {@link EventBufferEvent.holdReadsFor}. */
  holdReadsFor(cb: unknown): void {
    this.#holdFor = cb;
  }

  /** The bytes of the read being handled that are not in the input yet (once), or null. */
  takeHeld(): Buffer | null {
    const b = this.#held;
    this.#held = null;
    return b;
  }

  /** Whether the bytes `takeHeld` returns are lent: valid until the read callback returns. */
  get heldLent(): boolean {
    return this.#heldLent;
  }

  /** How many bytes `takeHeld` would return. */
  get heldLength(): number {
    return this.#held?.length ?? 0;
  }

  received(from: EventBuffer): void {
    const input = this.input;
    input.addBuffer(from);
    if (input.length >= this.#lowRead && this.callbacks.readcb !== null && (this.#enabled & READ) !== 0)
      this.callbacks.read();
  }

  end(): void {
    this.#eofSeen = true;
    this.#enabled &= ~READ;
    this.#stopTimer(this.#readTimer);
    this.callbacks.emit(READING | EOF);
    this.#updateRef();
  }

  error(err: Error): void {
    if (this.#state === 'handshaking') return; // reported by handshakeFailed()
    const e = err as NodeJS.ErrnoException;
    setLastSocketError(e);
    if (this.#state === 'open') this.#transport?.noteError(err);
    if (this.#state === 'connecting') {
      this.#state = 'closed';
      this.callbacks.emit(ERROR);
    } else {
      const writing = e.syscall === 'write' || e.syscall === 'writev' || e.code === 'EPIPE';
      this.#state = 'closed';
      this.callbacks.emit(ERROR | (writing ? WRITING : READING));
    }
    this.#updateRef();
  }

  closed(): void {
    if (this.#state === 'open' && !this.#eofSeen) {
      // closed without an 'end' or 'error' (reset by the peer after a half close, or destroyed)
      this.#eofSeen = true;
      this.callbacks.emit(READING | EOF);
    }
    if (this.#state !== 'closed') this.#state = 'closed';
    this.#stopTimer(this.#writeTimer);
    this.#updateRef();
  }

  drained(): void {
    if (this.output.length > 0) this.#flush();
    else this.#afterWrite();
  }

  // ---------------------------------------------------------------- internals

  #unsent(): number {
    return this.#transport?.unsent ?? 0;
  }

  #cancelAll(): void {
    const base = this.base;
    this.callbacks.cancel();
    this.#stopTimer(this.#readTimer);
    this.#stopTimer(this.#writeTimer);
    this.input.setChangeHook(null);
    this.output.setChangeHook(null);
    if (this.#refd) {
      this.#refd = false;
      base.unref();
    }
  }

  /** Whether the loop must keep running for this connection. */
  #wantsRef(): boolean {
    if (this.#freed || this.#upgraded) return false;
    const s = this.#state;
    if (s === 'connecting' || s === 'resolving' || s === 'handshaking') return true;
    if (s !== 'open') return false;
    if (this.#transport?.inMemory === true) return this.output.length > 0; // pairs are driven by their writers
    if ((this.#enabled & READ) !== 0 && !this.#eofSeen) return true;
    return this.output.length > 0 || this.#unsent() > 0;
  }

  #updateRef(): void {
    const want = this.#wantsRef();
    if (want === this.#refd) return;
    this.#refd = want;
    if (want) this.base.ref();
    else this.base.unref();
  }

  /** Starts or stops reading according to READ, the high watermark and the end of file. */
  #syncReading(): void {
    const t = this.#transport;
    if (t === null || this.#state !== 'open') return;
    t.setReading(
      (this.#enabled & READ) !== 0 && !this.#eofSeen && (this.#highRead === 0 || this.input.length < this.#highRead),
    );
  }

  #armReadTimer(): void {
    if (this.#timeoutRead > 0 && (this.#enabled & READ) !== 0 && this.#state !== 'closed')
      this.base.scheduleIn(this.#readHandle(), this.#timeoutRead);
    else this.#stopTimer(this.#readTimer);
  }

  #inputChanged(): void {
    // The application drained input below the high watermark: read again.
    if (this.#highRead > 0 && !(this.#transport?.reading ?? false) && this.input.length < this.#highRead)
      this.#syncReading();
  }

  #outputChanged(): void {
    if (this.output.length > 0) this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    if (!this.#refd) this.#updateRef();
    if (this.#transport?.inMemory === true) {
      // Pairs: the peer's input gets the bytes when the callback returns, or in a microtask.
      if (this.callbacks.inCallback) return;
      queueMicrotask(() => {
        this.#flushScheduled = false;
        this.#flush();
      });
      return;
    }
    this.base.turn.queue(this);
  }

  /** Hands the output to the transport (with a write timeout, a piece of it unless `whole`). */
  #flush(whole = false): void {
    if (this.#freed || this.#state !== 'open' || (this.#enabled & WRITE) === 0) return;
    const output = this.output;
    if (output.length === 0) return;
    const t = this.#transport;
    if (t === null) return;
    if (this.#timeoutWrite > 0 && output.length > WRITE_PIECE && !whole) {
      // One piece in flight at a time: its completion (#afterWrite) flushes the next.
      if (this.#unsent() > 0) return;
      this.#flushPiece(t);
      return;
    }
    this.#write(t, output);
  }

  /** Hands the first WRITE_PIECE bytes of the output over; what the transport holds goes back. */
  #flushPiece(t: Transport): void {
    const piece = (this.#piece ??= new EventBuffer());
    if (piece.appendFrom(this.output, WRITE_PIECE) < 0) {
      this.#write(t, this.output); // a frozen front: all of it, as without a timeout
      return;
    }
    this.#write(t, piece);
    if (piece.length > 0) this.output.prependBuffer(piece);
  }

  #write(t: Transport, out: EventBuffer): void {
    // Completion is only worth a callback when someone waits for it, and (without a write
    // callback, whose timing stays as it was) only when the bytes did not all leave at once.
    const writecb = this.callbacks.writecb;
    const done =
      writecb !== null || this.#timeoutWrite > 0 || (this.#enabled & READ) === 0 || this.#eofSeen
        ? this.#afterWrite
        : undefined;
    const r = t.write(out, done, writecb === null);
    if (r === 'flushed') {
      // All sent: nothing for the write deadline to watch (but the next piece, if any).
      if (this.output.length > 0) this.#scheduleFlush();
      this.#updateRef();
    } else if (r === 'delivered') {
      if (this.callbacks.writecb !== null && this.#lowWrite >= 0) this.callbacks.write();
      this.#updateRef();
    } else if (r === 'sent') {
      if (this.#timeoutWrite > 0) this.base.pushBack(this.#writeHandle(), this.#timeoutWrite, this.base.turn.clock());
      this.#updateRef();
    }
  }

  #afterWrite = (err?: Error | null): void => {
    if (this.#freed || err) return;
    const pending = this.#unsent() + this.output.length;
    // Progress moves the write deadline. All sent: the timer stays where it is (an answer per
    // request would otherwise take it out of the heap and put it back every time); when it
    // comes, it finds nothing waiting and lapses (#timedOut).
    if (pending > 0 && this.#timeoutWrite > 0) this.base.pushBack(this.#writeHandle(), this.#timeoutWrite);
    if (this.output.length > 0) this.#scheduleFlush(); // the next piece (usually already scheduled)
    if (pending <= this.#lowWrite && this.callbacks.writecb !== null && (this.#enabled & WRITE) !== 0)
      this.callbacks.writeNow();
    if (pending === 0) this.#updateRef();
  };

  #readHandle(): Handle {
    return (this.#readTimer ??= new Handle(this.base, noop, () => this.#timedOut(READING)));
  }

  #writeHandle(): Handle {
    return (this.#writeTimer ??= new Handle(this.base, noop, () => this.#timedOut(WRITING)));
  }

  #stopTimer(h: Handle | null): void {
    if (h !== null) this.base.unschedule(h);
  }

  #timedOut(direction: number): void {
    if (this.#freed || this.#state === 'closed') return;
    if (direction === WRITING && this.#unsent() + this.output.length === 0) return; // nothing was waiting to leave
    if (direction === READING) this.#enabled &= ~READ;
    else this.#enabled &= ~WRITE;
    this.#syncReading();
    this.callbacks.emit(direction | TIMEOUT);
    this.#updateRef();
  }

  // ---------------------------------------------------------------- CallbackSource

  /** The read low watermark. */
  get lowRead(): number {
    return this.#lowRead;
  }

  readReturned(): void {
    this.#syncReading();
  }

  /**
   * After a callback: a pair hands what it queued to its peer in one batch,
   * without a microtask hop; with `writeFirstEarly`, output that is the
   * first of this turn leaves now, while the rest of a busy turn still
   * leaves together at its end.
   */
  callbackReturned(): void {
    if (!this.#flushScheduled) return;
    if (this.#transport?.inMemory === true || (this.#writesEarly && this.base.turn.isOnly(this))) {
      this.#flushScheduled = false;
      this.#flush();
    }
  }

  /** The turn ends: the output queued for it leaves (unless flushed meanwhile, or freed). */
  flushQueued(): void {
    if (!this.#flushScheduled) return;
    this.#flushScheduled = false;
    this.#flush();
  }

  /** See {@link EventBufferEvent.writeFirstEarly}. */
  writeFirstEarly(): void {
    this.#writesEarly = true;
  }
}

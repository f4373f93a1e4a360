/**
 * Running a bufferevent's callbacks from its base's loop, never inside the
 * call that caused them (libevent's deferred callbacks,
 * `BEV_OPT_DEFER_CALLBACKS`): the read, write and event callbacks, their
 * priority, and the queue of events waiting for the event callback (data
 * that arrived before an end of file or an error is delivered first); and
 * accepting callbacks given as PHP's `[object, method]` pairs.
 *
 * @module
 */
import type { EventBase } from './base.js';
import { Handle } from './handle.js';
import type { EventBuffer } from './buffer.js';
import { createEventError } from './errors.js';
import { Ring } from './ring.js';
import { noop, READ, WRITE } from './shared.js';

/**
 * A read or write callback as the engine calls it: `(owner, arg)`.
 * @internal
 */
export type DataCallback<O, A> = (owner: O, arg: A) => void;

/**
 * An event callback as the engine calls it: `(owner, events, arg)`.
 * @internal
 */
export type EventsCallback<O, A> = (owner: O, events: number, arg: A) => void;

/**
 * A callback given as a function or, as in PHP, an `[object, methodName]`
 * pair (called as a method of the object), as a function; null for
 * null/undefined. Throws `ERR_EVENT_INVALID_ARGUMENT` for anything else,
 * naming the callback (`what`).
 * @internal
 * @example
 * ```ts
 * const handler = { count: 0, onRead() { this.count++; } };
 * const read = toFunction([handler, 'onRead'], 'read callback'); // calls handler.onRead() with this === handler
 * ```
 */
export function toFunction<F extends (...args: never[]) => unknown>(
  spec: F | readonly [object, string] | null | undefined,
  what: string,
): F | null {
  if (spec == null) return null;
  if (typeof spec === 'function') return spec;
  if (
    Array.isArray(spec) &&
    spec.length === 2 &&
    typeof spec[0] === 'object' &&
    spec[0] !== null &&
    typeof spec[1] === 'string'
  ) {
    const [obj, name] = spec as readonly [Record<string, unknown>, string];
    const fn = obj[name];
    if (typeof fn !== 'function')
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `${what}: ${name} is not a method of the object`);
    return ((...args: never[]) => (fn as (...a: never[]) => unknown).apply(obj, args)) as F;
  }
  throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `${what} must be a function, an [object, method] pair or null`);
}

/**
 * What the callbacks need from their bufferevent.
 * @internal
 */
export interface CallbackSource {
  /** The bufferevent was freed: no callback runs any more. */
  readonly freed: boolean;
  /** Bytes received. */
  readonly input: EventBuffer;
  /** Bytes of the read being handled that are not in `input` (`holdReadsFor`). */
  readonly heldLength: number;
  /** The read low watermark: the read callback waits for this many bytes. */
  readonly lowRead: number;
  /** The read callback returned (the bufferevent is not freed): reading may resume. */
  readReturned(): void;
  /** A callback returned (`inCallback` is false again). */
  callbackReturned(): void;
}

/**
 * The event flags of bufferevents, what the event callback gets
 * (`EventBufferEvent.READING` ...).
 * @internal
 * @example
 * ```ts
 * const events = BEV.READING | BEV.EOF; // 17: the peer closed the connection, seen while reading
 * ```
 */
export const BEV = { READING: 1, WRITING: 2, EOF: 16, ERROR: 32, TIMEOUT: 64, CONNECTED: 128 } as const;

/** The event mask of the event handle's activations (unused by its run). */
const EVENTS = 1;

/**
 * The callbacks of one bufferevent. They are called with the owner (the
 * public object) as their first argument and as `this`.
 * @internal
 * @example
 * ```ts
 * import { BufferEventCore } from './bufferevent-core.js';
 * const core = new BufferEventCore(bev, base, 0, null, null, null, undefined);
 * const cbs = new BufferEventCallbacks(bev, base, core, onRead, null, onEvent, undefined);
 * cbs.emit(BEV.CONNECTED); // onEvent(bev, CONNECTED, undefined) from the loop
 * ```
 */
export class BufferEventCallbacks<O, A> {
  /** The read callback, or null. */
  readcb: DataCallback<O, A> | null;
  /** The write callback, or null. */
  writecb: DataCallback<O, A> | null;
  /** The event callback, or null. */
  eventcb: EventsCallback<O, A> | null;
  /** Their argument. */
  arg: A;
  /** Inside one of the callbacks. */
  inCallback = false;
  readonly #owner: O;
  readonly #base: EventBase;
  readonly #source: CallbackSource;
  readonly #readHandle: Handle;
  readonly #writeHandle: Handle;
  readonly #eventHandle: Handle;
  readonly #events = new Ring<number>(4);

  constructor(
    owner: O,
    base: EventBase,
    source: CallbackSource,
    readcb: DataCallback<O, A> | null,
    writecb: DataCallback<O, A> | null,
    eventcb: EventsCallback<O, A> | null,
    arg: A,
  ) {
    this.#owner = owner;
    this.#base = base;
    this.#source = source;
    this.readcb = readcb;
    this.writecb = writecb;
    this.eventcb = eventcb;
    this.arg = arg;
    this.#readHandle = new Handle(base, () => this.#runRead(), noop);
    this.#writeHandle = new Handle(base, () => this.#runWrite(), noop);
    this.#eventHandle = new Handle(base, () => this.#runEvents(), noop);
  }

  /**
   * Replaces the three callbacks, each given as a function, an `[object,
   * method]` pair or null, in order (a spec that is neither throws, after
   * the callbacks before it were replaced), and with `withArg` the argument.
   */
  replace(
    readcb: DataCallback<O, A> | readonly [object, string] | null | undefined,
    writecb: DataCallback<O, A> | readonly [object, string] | null | undefined,
    eventcb: EventsCallback<O, A> | readonly [object, string] | null | undefined,
    arg: A,
    withArg: boolean,
  ): void {
    this.readcb = toFunction(readcb, 'read callback');
    this.writecb = toFunction(writecb, 'write callback');
    this.eventcb = toFunction(eventcb, 'event callback');
    if (withArg) this.arg = arg;
  }

  /** Runs the read callback in the base's next iteration. */
  read(): void {
    this.#base.activate(this.#readHandle, READ);
  }

  /** Runs the read callback at once when the base waits (in this iteration otherwise). */
  readNow(): void {
    this.#base.activateNow(this.#readHandle, READ);
  }

  /** Runs the write callback in the base's next iteration. */
  write(): void {
    this.#base.activate(this.#writeHandle, WRITE);
  }

  /** Runs the write callback at once when the base waits (in this iteration otherwise). */
  writeNow(): void {
    this.#base.activateNow(this.#writeHandle, WRITE);
  }

  /** Queues `events` for the event callback (nothing once the bufferevent is freed). */
  emit(events: number): void {
    if (this.#source.freed) return;
    this.#events.push(events);
    this.#base.activateNow(this.#eventHandle, EVENTS);
  }

  /** Sets the priority of the three callbacks (checked by the caller). */
  setPriority(priority: number): void {
    this.#readHandle.prio = priority;
    this.#writeHandle.prio = priority;
    this.#eventHandle.prio = priority;
  }

  /** Cancels every pending callback and forgets the queued events. */
  cancel(): void {
    const base = this.#base;
    base.deactivate(this.#readHandle);
    base.deactivate(this.#writeHandle);
    base.deactivate(this.#eventHandle);
    this.#events.clear();
  }

  #runRead(): void {
    const source = this.#source;
    if (source.freed || this.readcb === null) return;
    const n = source.input.length + source.heldLength;
    if (n === 0 || n < source.lowRead) return;
    this.inCallback = true;
    try {
      this.readcb.call(this.#owner, this.#owner, this.arg);
    } finally {
      this.#returned();
    }
    if (!source.freed) source.readReturned();
  }

  #runWrite(): void {
    if (this.#source.freed || this.writecb === null) return;
    this.inCallback = true;
    try {
      this.writecb.call(this.#owner, this.#owner, this.arg);
    } finally {
      this.#returned();
    }
  }

  #returned(): void {
    this.inCallback = false;
    this.#source.callbackReturned();
  }

  #runEvents(): void {
    const source = this.#source;
    let ev: number | undefined;
    while (!source.freed && (ev = this.#events.shift()) !== undefined) {
      // Deliver data that arrived before the end first.
      const input = source.input;
      if (
        (ev & (BEV.EOF | BEV.ERROR)) !== 0 &&
        this.readcb !== null &&
        input.length > 0 &&
        input.length >= source.lowRead &&
        this.#readHandle.activeWhat !== 0
      ) {
        this.#base.deactivate(this.#readHandle);
        this.inCallback = true;
        try {
          this.readcb.call(this.#owner, this.#owner, this.arg);
        } finally {
          this.#returned();
        }
        if (source.freed) return;
      }
      this.inCallback = true;
      try {
        this.eventcb?.call(this.#owner, this.#owner, ev, this.arg);
      } finally {
        this.#returned();
      }
    }
  }
}

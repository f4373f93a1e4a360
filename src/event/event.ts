/**
 * Event: a callback on a descriptor becoming readable or writable, on a
 * timeout, or on a signal.
 *
 * @module
 */
import { EventBase } from './base.js';
import { Handle } from './handle.js';
import { backendMethod } from './config.js';
import { pollSourceOf, type Descriptor, type PollSource } from './descriptor.js';
import { createEventError, EventError, warn } from './errors.js';
import { ET, noop, PERSIST, READ, SIGNAL, TIMEOUT, WRITE } from './shared.js';
import { signalName, SignalRegistry } from './signals.js';

/**
 * Callback of an I/O or generic event: `(descriptor, events, arg)`.
 * @example
 * ```ts
 * const onReady: EventCallback<string> = (fd, what, arg) => { if (what & Event.READ) console.log(arg); };
 * ```
 */
export type EventCallback<A = unknown> = (fd: Descriptor | number, what: number, arg: A) => void;
/**
 * Callback of a timer made by `Event.timer()`: `(arg)`.
 * @example
 * ```ts
 * const tick: TimerCallback<number> = (n) => console.log(`${n} seconds elapsed`);
 * ```
 */
export type TimerCallback<A = unknown> = (arg: A) => void;
/**
 * Callback of a signal event made by `Event.signal()`: `(signum, arg)`.
 * @example
 * ```ts
 * const onSignal: SignalCallback = (signum) => console.log(`Caught signal ${signum}`);
 * ```
 */
export type SignalCallback<A = unknown> = (signum: number, arg: A) => void;

const ALL = TIMEOUT | READ | WRITE | SIGNAL | PERSIST | ET;

type Kind = 'io' | 'timer' | 'signal';

/** The signal listeners of this process (one per signal, shared by the events watching it). */
const signals = new SignalRegistry();

/**
 * An event on a descriptor, a timer or a signal.
 *
 * Level-triggered by default: a `READ | PERSIST` event whose callback does
 * not drain a readable descriptor runs again on the next iteration. With
 * `Event.ET` it runs only when new data arrives.
 *
 * The PHP property `pending` is kept as a property; PHP's `pending($flags)`
 * method is {@link Event.isPending} (a TypeScript member cannot be both).
 *
 * @example
 * ```ts
 * import { EventBase, Event } from 'eventide/event';
 * const base = new EventBase();
 * const ev = new Event(base, process.stdin, Event.READ | Event.PERSIST, (fd, what) => {
 *   const chunk = process.stdin.read();
 *   if (chunk === null) ev.del(); else process.stdout.write(chunk);
 * });
 * ev.add();
 * await base.dispatch();
 * ```
 */
export class Event<A = unknown> {
  /** The timeout passed to `add()` expired. */
  static readonly TIMEOUT = TIMEOUT;
  /** The descriptor is readable. */
  static readonly READ = READ;
  /** The descriptor is writable. */
  static readonly WRITE = WRITE;
  /** A signal arrived. */
  static readonly SIGNAL = SIGNAL;
  /** Stay pending after the callback ran. */
  static readonly PERSIST = PERSIST;
  /** Edge-triggered: run only when new readiness arrives. */
  static readonly ET = ET;

  #base: EventBase;
  #fd: Descriptor | number;
  #what: number;
  #kind: Kind;
  #cb: (fd: Descriptor | number, what: number, arg: A) => void;
  #timerCb: TimerCallback<A> | null = null;
  #signalCb: SignalCallback<A> | null = null;
  #arg: A;
  #source: PollSource | null = null;
  #handle: Handle;
  #ioPending = false;
  #refd = false;
  #timeoutSec = -1;
  #unwatchRead: (() => void) | null = null;
  #unwatchWrite: (() => void) | null = null;
  #freed = false;

  /**
   * Creates an event. `what` combines READ, WRITE, SIGNAL, TIMEOUT, PERSIST
   * and ET. With SIGNAL, `fd` is the signal number; with TIMEOUT, `fd` is
   * ignored (a pure timer, whose callback receives -1). Throws an
   * `EventArgumentError` for bits outside those flags (`ERR_EVENT_INVALID_MASK`),
   * an invalid signal number (`ERR_EVENT_INVALID_SIGNAL`) or something that is
   * not a descriptor (`ERR_EVENT_INVALID_DESCRIPTOR`).
   * @example
   * ```ts
   * const ev = new Event(base, socket, Event.READ | Event.PERSIST, (fd, what, arg) => {}, 'arg');
   * ev.add(5); // with a 5 s timeout
   * ```
   */
  constructor(base: EventBase, fd: Descriptor | number, what: number, cb: EventCallback<A>, arg?: A) {
    if (!(base instanceof EventBase))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'Event expects an EventBase');
    if (typeof cb !== 'function')
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'Event expects a callback function');
    this.#base = base;
    this.#arg = arg as A;
    this.#cb = cb;
    this.#handle = new Handle(
      base,
      (w) => this.#run(w),
      () => this.#expire(),
    );
    const parsed = this.#configure(fd, what);
    if (parsed instanceof Error) throw parsed;
    [this.#fd, this.#what, this.#kind, this.#source] = parsed;
  }

  /**
   * Creates a non-persistent timer whose callback receives `(arg)`.
   * Add it with a timeout: `Event.timer(base, cb).add(2)`.
   * @example
   * ```ts
   * const t = Event.timer(base, (n) => console.log(`${n} seconds elapsed`), 2);
   * t.add(2);
   * ```
   */
  static timer<T = unknown>(base: EventBase, cb: TimerCallback<T>, arg?: T): Event<T> {
    const ev = new Event<T>(base, -1, TIMEOUT, noop, arg);
    ev.#timerCb = cb;
    return ev;
  }

  /**
   * Creates a persistent signal event whose callback receives `(signum, arg)`.
   * It stays pending after each signal (keeping the loop running) until
   * `del()` or `free()`. While it is pending the signal's default action
   * (ending the process for SIGTERM or SIGINT) does not happen.
   * @example
   * ```ts
   * const ev = Event.signal(base, 15, (signum) => { console.log(`Caught signal ${signum}`); base.exit(); });
   * ev.add();
   * ```
   */
  static signal<T = unknown>(base: EventBase, signum: number, cb: SignalCallback<T>, arg?: T): Event<T> {
    const ev = new Event<T>(base, signum, SIGNAL | PERSIST, noop, arg);
    ev.#signalCb = cb;
    return ev;
  }

  /**
   * The polling methods available: one, libuv's (`"epoll"` on Linux).
   * @example
   * ```ts
   * for (const m of Event.getSupportedMethods()) console.log(m);
   * ```
   */
  static getSupportedMethods(): string[] {
    return [backendMethod()];
  }

  /**
   * Whether the event is pending (added and not yet fired, or persistent).
   * False after `free()`.
   * @example
   * ```ts
   * ev.add(); ev.pending; // true
   * ```
   */
  get pending(): boolean {
    return !this.#freed && (this.#ioPending || this.#handle.heapIndex >= 0);
  }

  /**
   * Whether the event is pending for any of the given kinds (`READ`, `WRITE`,
   * `SIGNAL`, `TIMEOUT`); without flags, for any kind. This is PHP's
   * `Event::pending($flags)`.
   * @example
   * ```ts
   * ev.add(3); ev.isPending(Event.TIMEOUT); // true
   * ```
   */
  isPending(flags: number = TIMEOUT | READ | WRITE | SIGNAL): boolean {
    if (this.#freed) return false;
    let mine = 0;
    if (this.#ioPending) mine |= this.#what & (READ | WRITE | SIGNAL);
    if (this.#handle.heapIndex >= 0) mine |= TIMEOUT;
    return (mine & flags) !== 0;
  }

  /**
   * The user argument passed to the callback (read and write).
   * @example
   * ```ts
   * ev.data = { count: 0 };
   * ```
   */
  get data(): A {
    return this.#arg;
  }

  set data(value: A) {
    this.#arg = value;
  }

  /**
   * Makes the event pending. `timeout` in seconds (fractions allowed; -1 or
   * omitted: none). Re-adding a pending event with a timeout reschedules it;
   * without a timeout it changes nothing. `add(0)` fires on the next
   * iteration. A timer added without a timeout is accepted but never fires.
   * Returns false (and records why) for a freed event or base or a bad timeout.
   * @example
   * ```ts
   * ev.add();      // no timeout
   * ev.add(0.25);  // with a timeout of 250 ms
   * ```
   */
  add(timeout: number | null = -1): boolean {
    if (this.#freed || this.#base.freed)
      return warn('ERR_EVENT_FREED', 'Failed adding event: Event object is malformed or freed');
    const t = timeout == null ? -1 : Number(timeout);
    if (Number.isNaN(t))
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Failed adding event: invalid timeout ${String(timeout)}`);
    if (this.#kind !== 'timer' && !this.#ioPending && (this.#what & (READ | WRITE | SIGNAL)) !== 0) {
      this.#ioPending = true;
      this.#watch();
    }
    if (t >= 0) {
      this.#timeoutSec = t;
      this.#base.scheduleIn(this.#handle, t);
    }
    this.#updateRef();
    return true;
  }

  /**
   * Alias of {@link Event.add}.
   * @example
   * ```ts
   * Event.timer(base, () => console.log('a second later')).addTimer(1);
   * ```
   */
  addTimer(timeout: number | null = -1): boolean {
    return this.add(timeout);
  }

  /**
   * Alias of {@link Event.add}.
   * @example
   * ```ts
   * Event.signal(base, 2, () => base.exit()).addSignal(); // SIGINT ends the loop
   * ```
   */
  addSignal(timeout: number | null = -1): boolean {
    return this.add(timeout);
  }

  /**
   * Makes the event non-pending (and cancels an activation not yet run).
   * True even when it was not pending; false after `free()`.
   * @example
   * ```ts
   * ev.del();
   * ```
   */
  del(): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'Failed deletting event');
    this.#makeNonPending();
    this.#base.deactivate(this.#handle);
    return true;
  }

  /**
   * Alias of {@link Event.del}.
   * @example
   * ```ts
   * const timer = Event.timer(base, () => console.log('never'));
   * timer.addTimer(5);
   * timer.delTimer();
   * ```
   */
  delTimer(): boolean {
    return this.del();
  }

  /**
   * Alias of {@link Event.del}.
   * @example
   * ```ts
   * const sig = Event.signal(base, 15, () => base.exit());
   * sig.addSignal();
   * sig.delSignal(); // SIGTERM is not watched any more
   * ```
   */
  delSignal(): boolean {
    return this.del();
  }

  /**
   * Removes only the timeout of a pending event; its I/O or signal part stays.
   * @example
   * ```ts
   * ev.add(5); ev.removeTimer(); ev.isPending(Event.TIMEOUT); // false
   * ```
   */
  removeTimer(): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'Event object is malformed or freed');
    this.#base.unschedule(this.#handle);
    this.#timeoutSec = -1;
    this.#updateRef();
    return true;
  }

  /**
   * Reconfigures a non-pending event; omitted parts keep their values.
   * A pending event is not modified: false with "Can't modify pending event".
   * @example
   * ```ts
   * ev.del();
   * ev.set(base, socket, Event.READ); // true: now watches `socket`
   * ```
   */
  set(base: EventBase, fd: Descriptor | number, what?: number | null, cb?: EventCallback<A> | null, arg?: A): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'Event object is malformed or freed');
    if (this.pending) return warn('ERR_EVENT_PENDING', "Can't modify pending event");
    if (!(base instanceof EventBase)) return warn('ERR_EVENT_INVALID_ARGUMENT', 'Event::set expects an EventBase');
    const parsed = this.#configure(fd, what ?? this.#what);
    if (parsed instanceof Error)
      return warn(parsed instanceof EventError ? parsed.code : 'ERR_EVENT_INVALID_DESCRIPTOR', parsed.message);
    this.#moveTo(base);
    [this.#fd, this.#what, this.#kind, this.#source] = parsed;
    if (cb != null) {
      this.#cb = cb;
      this.#timerCb = null;
      this.#signalCb = null;
    }
    if (arguments.length >= 5) this.#arg = arg as A;
    return true;
  }

  /**
   * Reconfigures a non-pending event as a timer with callback `(arg)`.
   * A pending event: false with "Can't modify pending timer".
   * @example
   * ```ts
   * ev.setTimer(base, () => console.log('tick'));
   * ev.add(1);
   * ```
   */
  setTimer(base: EventBase, cb: TimerCallback<A>, arg?: A): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'Event object is malformed or freed');
    if (this.pending) return warn('ERR_EVENT_TIMER_PENDING', "Can't modify pending timer");
    if (!(base instanceof EventBase)) return warn('ERR_EVENT_INVALID_ARGUMENT', 'Event::setTimer expects an EventBase');
    this.#moveTo(base);
    this.#fd = -1;
    this.#what = TIMEOUT;
    this.#kind = 'timer';
    this.#source = null;
    this.#timerCb = cb;
    this.#signalCb = null;
    if (arguments.length >= 3) this.#arg = arg as A;
    return true;
  }

  /**
   * Sets the priority: 0 is the most urgent, and it must be below the base's
   * number of priorities (`EventBase.priorityInit`). Fails while the event is active.
   * @example
   * ```ts
   * base.priorityInit(2); ev.setPriority(0);
   * ```
   */
  setPriority(priority: number): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'Event object is malformed or freed');
    if (
      !Number.isInteger(priority) ||
      priority < 0 ||
      priority >= this.#base.priorities ||
      this.#handle.activeWhat !== 0
    ) {
      return warn('ERR_EVENT_INVALID_PRIORITY', `Unable to set event priority: ${String(priority)}`);
    }
    this.#handle.prio = priority;
    return true;
  }

  /**
   * Deletes the event and releases it; afterwards `add()` returns false and
   * `pending` is false.
   * @example
   * ```ts
   * ev.free();
   * ```
   */
  free(): void {
    if (this.#freed) return;
    this.del();
    this.#freed = true;
  }

  /** Used by `EventBase.set(event)`. @internal */
  setBase(base: EventBase): boolean {
    if (this.#freed) return warn('ERR_EVENT_FREED', 'Event object is malformed or freed');
    if (this.pending) return warn('ERR_EVENT_PENDING', "Can't modify pending event");
    this.#moveTo(base);
    return true;
  }

  // ---------------------------------------------------------------- internals

  #moveTo(base: EventBase): void {
    if (base === this.#base) return;
    this.#base.deactivate(this.#handle);
    this.#base = base;
    this.#handle = new Handle(
      base,
      (w) => this.#run(w),
      () => this.#expire(),
    );
  }

  #configure(fd: Descriptor | number, what: number): [Descriptor | number, number, Kind, PollSource | null] | Error {
    if (!Number.isInteger(what) || (what & ~ALL) !== 0) {
      return createEventError('ERR_EVENT_INVALID_MASK', 'Invalid mask');
    }
    if ((what & SIGNAL) !== 0) {
      if (typeof fd !== 'number' || signalName(fd) === undefined) {
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the message shows whatever was passed
        return createEventError('ERR_EVENT_INVALID_SIGNAL', `Invalid signal passed: ${String(fd)}`);
      }
      if ((what & (READ | WRITE)) !== 0)
        return createEventError('ERR_EVENT_INVALID_MASK', 'Invalid mask: SIGNAL cannot be combined with READ or WRITE');
      return [fd, what, 'signal', null];
    }
    if ((what & TIMEOUT) !== 0) return [-1, what, 'timer', null];
    try {
      return [fd, what, 'io', pollSourceOf(fd)];
    } catch (err) {
      return err as Error;
    }
  }

  #watch(): void {
    const src = this.#source;
    if (this.#kind === 'signal') {
      signals.watch(this.#fd as number, this, () => {
        if (this.#ioPending) this.#base.activateNow(this.#handle, SIGNAL);
      });
      return;
    }
    if (src === null) return;
    if ((this.#what & READ) !== 0) {
      this.#unwatchRead = src.watchReadable(() => {
        if (this.#ioPending && src.readable()) this.#base.activateNow(this.#handle, READ);
      });
      if (src.readable()) this.#base.activateLater(this.#handle, READ);
    }
    if ((this.#what & WRITE) !== 0) {
      this.#unwatchWrite = src.watchWritable(() => {
        if (this.#ioPending && src.writable()) this.#base.activateNow(this.#handle, WRITE);
      });
      if (src.writable()) this.#base.activateLater(this.#handle, WRITE);
    }
  }

  #unwatch(): void {
    if (this.#kind === 'signal') signals.unwatch(this.#fd as number, this);
    this.#unwatchRead?.();
    this.#unwatchWrite?.();
    this.#unwatchRead = null;
    this.#unwatchWrite = null;
  }

  #makeNonPending(): void {
    if (this.#ioPending) {
      this.#ioPending = false;
      this.#unwatch();
    }
    this.#base.unschedule(this.#handle);
    this.#updateRef();
  }

  #updateRef(): void {
    const want = this.pending;
    if (want === this.#refd) return;
    this.#refd = want;
    if (want) this.#base.ref();
    else this.#base.unref();
  }

  #expire(): void {
    if ((this.#what & PERSIST) !== 0 && this.#timeoutSec >= 0) this.#base.scheduleIn(this.#handle, this.#timeoutSec);
    this.#base.activate(this.#handle, TIMEOUT);
  }

  #run(what: number): void {
    const src = this.#source;
    const level = (this.#what & ET) === 0;
    // Readiness can vanish between activation and the callback (someone read the data): check again.
    if (level && src !== null && (what & (READ | WRITE)) !== 0) {
      if ((what & READ) !== 0 && !src.readable()) what &= ~READ;
      if ((what & WRITE) !== 0 && !src.writable()) what &= ~WRITE;
      if (what === 0) return;
    }
    const persist = (this.#what & PERSIST) !== 0;
    if (!persist) this.#makeNonPending();
    else if (this.#timeoutSec >= 0 && (what & TIMEOUT) === 0) this.#base.scheduleIn(this.#handle, this.#timeoutSec);
    try {
      if (this.#timerCb !== null) this.#timerCb(this.#arg);
      else if (this.#signalCb !== null) this.#signalCb(this.#fd as number, this.#arg);
      else this.#cb(this.#fd, what, this.#arg);
    } catch (err) {
      // As in the PHP extension: the throwing event is deleted, the loop breaks.
      if (!this.#freed) this.del();
      throw err;
    }
    // Level-triggered: still ready after the callback, so run again next iteration.
    if (persist && level && this.#ioPending && src !== null && !this.#freed) {
      if ((this.#what & READ) !== 0 && src.readable()) this.#base.activateLater(this.#handle, READ);
      if ((this.#what & WRITE) !== 0 && src.writable()) this.#base.activateLater(this.#handle, WRITE);
    }
  }
}

/**
 * EventBase: a libevent-style dispatcher over Node's libuv loop (its public
 * class; the machinery is `LoopCore`, which it extends).
 *
 * Node's loop is the only real loop. A base collects activations (an I/O
 * source became ready, a timer expired, a signal arrived) into active queues,
 * one per priority, and runs their callbacks only while it is dispatching:
 * `dispatch()`/`loop()` return a promise that settles when the loop ends.
 * While it is not dispatching nothing of it calls back; what became ready
 * meanwhile is delivered at the next dispatch.
 *
 * Iterations follow libevent: each iteration first moves expired timers and
 * "active later" events into the active queues, then runs the callbacks of
 * the most urgent (lowest-numbered) non-empty priority queue. Readiness
 * reported by Node while the base waits runs at once, as its own iteration.
 *
 * @module
 */
import { LoopCore, LOOP_NONBLOCK, LOOP_ONCE, type MaxDispatch } from './base-loop.js';
import { BACKEND_FEATURES, backendMethod, EventConfig } from './config.js';
import { createEventError, warn } from './errors.js';

/**
 * The event loop.
 *
 * @example
 * ```ts
 * import { EventBase, Event } from 'eventide/event';
 * const base = new EventBase();
 * const ev = Event.timer(base, () => console.log('2 seconds elapsed'));
 * ev.add(2);
 * await base.loop(); // resolves after the timer ran, nothing being pending any more
 * ```
 */
export class EventBase extends LoopCore {
  /** Run one iteration: wait for at least one active event, run it (and its batch), return. */
  static readonly LOOP_ONCE = LOOP_ONCE;
  /** Run what is ready now without waiting, then return. */
  static readonly LOOP_NONBLOCK = LOOP_NONBLOCK;
  /** Configuration flag: no locking (always true here: single-threaded). */
  static readonly NOLOCK = 1;
  /** Configuration flag: ignore EVENT_* environment variables (there are none to honour). */
  static readonly IGNORE_ENV = 2;
  /** Configuration flag: Windows IOCP at start-up (libuv decides). */
  static readonly STARTUP_IOCP = 4;
  /** Configuration flag: never cache the time; `getTimeOfDayCached()` always reads the clock. */
  static readonly NO_CACHE_TIME = 8;
  /** Configuration flag: epoll change list (libuv decides). */
  static readonly EPOLL_USE_CHANGELIST = 16;
  /** Configuration flag: precise timers (timers here always use the monotonic clock). */
  static readonly PRECISE_TIMER = 32;

  readonly #method: string;

  /**
   * Creates a base. With an EventConfig that avoids this platform's method or
   * requires a feature it lacks, throws an `EventConfigError`
   * (`ERR_EVENT_BASE_CONFIG`).
   * @example
   * ```ts
   * const base = new EventBase();
   * ```
   */
  constructor(config?: EventConfig | null) {
    const method = backendMethod();
    let noCacheTime = false;
    let maxDispatch: MaxDispatch | null = null;
    if (config != null) {
      if (!(config instanceof EventConfig)) {
        throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventBase expects an EventConfig or null');
      }
      const required = config.requiredFeatures;
      if (config.avoidedMethods.has(method) || (required & ~BACKEND_FEATURES) !== 0) {
        throw createEventError(
          'ERR_EVENT_BASE_CONFIG',
          'EventBase cannot be constructed with the provided configuration. Make sure that the specified features are supported on the current platform.',
        );
      }
      noCacheTime = (config.flags & EventBase.NO_CACHE_TIME) !== 0;
      const md = config.maxDispatch;
      if (md) {
        maxDispatch = {
          intervalMs: md.interval < 0 ? Infinity : md.interval * 1000,
          callbacks: md.callbacks < 0 ? Infinity : md.callbacks,
          minPriority: md.minPriority,
        };
      }
    }
    super(noCacheTime, maxDispatch);
    this.#method = method;
  }

  /**
   * Runs the loop until nothing is pending, `exit()` fires or `stop()` is
   * called. Same as `loop()` without flags.
   * @example
   * ```ts
   * await base.dispatch();
   * ```
   */
  dispatch(): Promise<boolean> {
    return this.loop();
  }

  /**
   * Runs the loop. Resolves `true` when the loop ended (nothing pending,
   * exit, stop, or the end of a LOOP_ONCE / LOOP_NONBLOCK run), `false` when
   * it could not start (the base is freed or already dispatching). Rejects
   * with the exception a callback threw; the loop can be started again.
   * @example
   * ```ts
   * await base.loop(EventBase.LOOP_ONCE);
   * ```
   */
  loop(flags: number = -1): Promise<boolean> {
    if (this.freed) return Promise.resolve(warn('ERR_EVENT_BASE_FREED', 'EventBase is not initialized'));
    if (this.dispatching) {
      return Promise.resolve(
        warn(
          'ERR_EVENT_LOOP_REENTRANT',
          'event_base_loop: reentrant invocation. Only one event_base_loop can run on each event_base at once.',
        ),
      );
    }
    if (!Number.isInteger(flags))
      return Promise.resolve(warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid loop flags: ${String(flags)}`));
    return this.startLoop(flags);
  }

  /**
   * Ends the loop after `seconds` (0 or omitted: after the current iteration's
   * callbacks have run). Called while the loop is not running, it ends the
   * next loop after its first iteration (0) or when the time comes. Several
   * calls schedule several exits; the first to fire wins, the others stay
   * scheduled, as libevent's `event_base_loopexit` does.
   * @example
   * ```ts
   * base.exit(2.33); // the loop returns about 2.33 s from now
   * ```
   */
  exit(seconds: number | null = 0): boolean {
    if (this.freed) return warn('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');
    const s = seconds == null ? 0 : Number(seconds);
    if (Number.isNaN(s)) return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid timeout: ${String(seconds)}`);
    return this.requestExit(s);
  }

  /**
   * Ends the loop right after the callback that is running; other active
   * callbacks wait for the next loop. Ignored when the loop is not running.
   * @example
   * ```ts
   * Event.signal(base, 2, () => base.stop()).add();
   * ```
   */
  stop(): boolean {
    if (this.freed) return warn('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');
    if (!this.dispatching) return true;
    this.requestStop();
    return true;
  }

  /**
   * Whether the last loop ended because of `exit()`.
   * @example
   * ```ts
   * await base.loop(); if (base.gotExit()) console.log('exited');
   * ```
   */
  gotExit(): boolean {
    return this.endedByExit;
  }

  /**
   * Whether the last loop ended because of `stop()` or an exception.
   * @example
   * ```ts
   * await base.loop(); if (base.gotStop()) console.log('stopped');
   * ```
   */
  gotStop(): boolean {
    return this.endedByStop;
  }

  /**
   * The polling method of the backend: `"epoll"` on Linux, `"kqueue"` on macOS/BSD.
   * @example
   * ```ts
   * console.log(`Event method used: ${base.getMethod()}`);
   * ```
   */
  getMethod(): string {
    return this.#method;
  }

  /**
   * The backend's features as `EventConfig.FEATURE_*` bits (ET, O1 and FDS here).
   * @example
   * ```ts
   * if (base.getFeatures() & EventConfig.FEATURE_ET) console.log('ET - edge-triggered IO');
   * ```
   */
  getFeatures(): number {
    return BACKEND_FEATURES;
  }

  /**
   * Sets the number of priorities (1 to 255). Events created afterwards get
   * the middle priority `Math.floor(n / 2)`. Fails while events are active.
   * @example
   * ```ts
   * base.priorityInit(2);
   * const urgent = Event.timer(base, () => console.log('runs first'));
   * urgent.setPriority(0);
   * ```
   */
  priorityInit(n: number): boolean {
    if (this.freed) return warn('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');
    if (!Number.isInteger(n) || n < 1 || n >= 256)
      return warn('ERR_EVENT_INVALID_PRIORITY', `Invalid number of priorities: ${String(n)}`);
    return this.setPriorities(n);
  }

  /**
   * The time at the start of the current loop iteration, in seconds since the
   * epoch with microsecond precision; the current time when not dispatching.
   * @example
   * ```ts
   * const t = base.getTimeOfDayCached();
   * ```
   */
  getTimeOfDayCached(): number {
    return this.cachedTimeOfDay();
  }

  /**
   * Refreshes the cached time.
   * @example
   * ```ts
   * base.updateCacheTime();
   * ```
   */
  updateCacheTime(): boolean {
    if (this.freed) return warn('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');
    this.refreshCachedTime();
    return true;
  }

  /**
   * Re-associates a non-pending event with this base.
   * @example
   * ```ts
   * const otherBase = new EventBase();
   * ev.del();
   * otherBase.set(ev); // true
   * ```
   */
  set(event: { setBase(base: EventBase): boolean }): boolean {
    return event.setBase(this);
  }

  /**
   * Re-initialises the backend after `fork()`. Node processes do not fork, so
   * there is nothing to do; returns true.
   * @example
   * ```ts
   * base.reInit();
   * ```
   */
  reInit(): boolean {
    return !this.freed;
  }

  /**
   * Frees the base: a running loop ends, nothing of it calls back again, and
   * further calls return false.
   * @example
   * ```ts
   * base.free();
   * ```
   */
  free(): void {
    if (this.freed) return;
    this.freeLoop();
  }
}

/**
 * The machinery of `EventBase` (the base class it extends): active queues
 * by priority, the active-later list, the timer heap, and the iterations
 * run over Node's loop, with the internal API that Events, bufferevents,
 * listeners and DNS deliveries use to activate and schedule their handles.
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
import { warn } from './errors.js';
import { Handle, TimerHeap } from './handle.js';
import { Turn } from './bufferevent-turn.js';
import { Ring } from './ring.js';
import { noop, now } from './shared.js';
import { ReadLanding } from './socket-reads.js';

/**
 * `EventBase.LOOP_ONCE`: run one iteration, then return. The first of the
 * flags of `EventBase.loop()` ({@link LOOP_ONCE}, {@link LOOP_NONBLOCK}).
 * @internal
 * @example
 * ```ts
 * await base.loop(LOOP_ONCE); // waits for an active event, runs it
 * await base.loop(LOOP_NONBLOCK); // runs what is ready, does not wait
 * ```
 */
export const LOOP_ONCE = 1;
/** `EventBase.LOOP_NONBLOCK`: run what is ready without waiting, then return; see {@link LOOP_ONCE}. @internal */
export const LOOP_NONBLOCK = 2;

/**
 * The limits of `EventConfig.setMaxDispatchInterval()` in the units of the loop.
 * @internal
 */
export interface MaxDispatch {
  intervalMs: number;
  callbacks: number;
  minPriority: number;
}

/**
 * The loop machinery that `EventBase` extends; not exported by the package
 * (use `EventBase`).
 *
 * @example
 * ```ts
 * import { EventBase } from 'eventide/event';
 * const base = new EventBase(); // a LoopCore too
 * await base.loop(EventBase.LOOP_NONBLOCK);
 * ```
 */
export class LoopCore {
  readonly #noCacheTime: boolean;
  readonly #maxDispatch: MaxDispatch | null;
  #queues: Ring<Handle>[] = [new Ring<Handle>()];
  #activeCount = 0;
  #later: Handle[] = [];
  readonly #heap = new TimerHeap();
  #live = 0;
  #freed = false;

  // loop state
  #dispatching = false;
  #processing = false;
  #flags = 0;
  #breakReq = false;
  #exitReq = false;
  #exitAfterIteration = false;
  #gotExit = false;
  #gotStop = false;
  #failure: { error: unknown } | null = null;
  #resolve: ((ok: boolean) => void) | null = null;
  #reject: ((err: unknown) => void) | null = null;
  #cachedTime = 0;
  #startHooks: (() => void)[] = [];

  // Node handles, held only while dispatching
  #nodeTimer: NodeJS.Timeout | null = null;
  #nodeTimerAt = Infinity;
  #immediate: NodeJS.Immediate | null = null;
  #keepAlive: NodeJS.Timeout | null = null;
  /** The receive buffer this base lends to its plain sockets (socket-reads.ts). */
  readonly #landing = new ReadLanding();
  /**
   * The end of this turn of Node's loop for the bufferevents of this base:
   * their queued output, handed over in the check phase or when a loop ends,
   * and the clock their deadlines count from (bufferevent-turn.ts). A field,
   * not a getter: every write and deadline of a bufferevent reads it.
   * @internal
   */
  readonly turn = new Turn();

  /** @internal */
  constructor(noCacheTime: boolean, maxDispatch: MaxDispatch | null) {
    this.#noCacheTime = noCacheTime;
    this.#maxDispatch = maxDispatch;
  }

  /** Number of priorities. @internal */
  get priorities(): number {
    return this.#queues.length;
  }

  /** Priority given to new events. @internal */
  get defaultPriority(): number {
    return this.#queues.length >> 1;
  }

  /** Whether `free()` was called. @internal */
  get freed(): boolean {
    return this.#freed;
  }

  /** The receive buffer this base lends to the plain sockets of its bufferevents. @internal */
  get readLanding(): ReadLanding {
    return this.#landing;
  }

  /** Whether a loop is running. @internal */
  get dispatching(): boolean {
    return this.#dispatching;
  }

  // ---------------------------------------------------------------- internals used by Event & co.

  /** Counts something that keeps the loop alive (a pending event, an enabled listener). @internal */
  ref(): void {
    this.#ref();
  }

  /** Releases one `ref()`. @internal */
  unref(): void {
    this.#unref();
  }

  /**
   * Activates a handle for the current iteration (libevent's event_active).
   * When the loop is waiting, the iteration runs at once: this is the path of
   * readiness reported by Node. @internal
   */
  activateNow(h: Handle, what: number): void {
    if (this.#freed) return;
    if (
      this.#dispatching &&
      !this.#processing &&
      this.#activeCount === 0 &&
      this.#later.length === 0 &&
      !h.queued &&
      !this.#hasExpired()
    ) {
      // Fast path: the loop is idle and this is the only work of the iteration (no timer due,
      // nothing else active): run it directly, with the same bookkeeping as an iteration.
      this.#processing = true;
      this.#cachedTime = 0;
      try {
        h.run(what);
      } catch (err) {
        this.#failure = { error: err };
        this.#breakReq = true;
      } finally {
        this.#processing = false;
      }
      this.#afterIteration(true, 0);
      return;
    }
    this.#enqueue(h, what);
    if (this.#dispatching && !this.#processing) this.#iterate();
  }

  /** Activates a handle; its callback runs in this or the next iteration, never synchronously. @internal */
  activate(h: Handle, what: number): void {
    if (this.#freed) return;
    this.#enqueue(h, what);
    if (this.#dispatching && !this.#processing) this.#kick();
  }

  /** Activates a handle for the next iteration (libevent's active-later queue). @internal */
  activateLater(h: Handle, what: number): void {
    if (this.#freed) return;
    h.laterWhat |= what;
    if (!h.later) {
      h.later = true;
      this.#later.push(h);
    }
    if (this.#dispatching) this.#kick();
  }

  /**
   * Runs `fn` when the next loop starts (at once when the base is
   * dispatching). Sources paused while the base was idle resume this way.
   * @internal
   */
  onDispatch(fn: () => void): void {
    if (this.#dispatching) fn();
    else this.#startHooks.push(fn);
  }

  /** Cancels a pending activation of a handle. @internal */
  deactivate(h: Handle): void {
    if (h.queued && h.activeWhat !== 0) this.#activeCount--;
    h.activeWhat = 0;
    h.laterWhat = 0;
  }

  /** Schedules (or reschedules) a handle's deadline, in seconds from now. @internal */
  scheduleIn(h: Handle, seconds: number): void {
    this.#schedule(h, now() + seconds * 1000);
  }

  /**
   * `scheduleIn` for a deadline that mostly moves later (an idle timeout
   * re-armed on every read): a scheduled handle keeps its place in the heap
   * and, when its old deadline comes, is rescheduled for the new one. No
   * heap operation per read. `from`: the time to count from, when the
   * caller has read the clock already. @internal
   */
  pushBack(h: Handle, seconds: number, from: number = now()): void {
    const at = from + seconds * 1000;
    if (h.heapIndex >= 0 && at >= h.deadline) h.pushedTo = at;
    else this.#schedule(h, at);
  }

  /** Removes a handle from the timer heap. @internal */
  unschedule(h: Handle): void {
    const i = this.#heap.remove(h);
    if (i === 0 && this.#dispatching && !this.#processing) this.#armTimer();
  }

  // ---------------------------------------------------------------- for the public class

  /** Starts a loop with `flags` (the base is not freed and not dispatching). @internal */
  protected startLoop(flags: number): Promise<boolean> {
    this.#flags = flags < 0 ? 0 : flags;
    this.#dispatching = true;
    this.#breakReq = false;
    this.#exitReq = false;
    this.#gotExit = false;
    this.#gotStop = false;
    this.#failure = null;
    const promise = new Promise<boolean>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#keepAlive = setInterval(noop, 0x7fffffff);
    if (this.#startHooks.length > 0) {
      const hooks = this.#startHooks;
      this.#startHooks = [];
      for (const fn of hooks) fn();
    }
    // The first iteration runs at once: it delivers what became ready while the base was idle.
    this.#iterate();
    if ((this.#flags & LOOP_NONBLOCK) !== 0 && this.#dispatching) {
      // Let Node poll once so that readiness already in the kernel is seen, then return.
      this.#immediate = setImmediate(() => {
        this.#immediate = null;
        if (!this.#dispatching) return;
        if (this.#activeCount > 0 || this.#later.length > 0 || this.#hasExpired()) this.#iterate();
        if (this.#dispatching) this.#end();
      });
    }
    return promise;
  }

  /** Ends the loop after `s` seconds (0 or less: after the current iteration). @internal */
  protected requestExit(s: number): boolean {
    if (s <= 0) {
      this.#exitAfterIteration = true;
      if (this.#dispatching && !this.#processing) this.#kick();
      return true;
    }
    const h: Handle = new Handle(this, noop, () => {
      this.#unref();
      this.#exitReq = true;
    });
    this.#ref();
    this.#schedule(h, now() + s * 1000);
    return true;
  }

  /** Ends the running loop after the running callback. @internal */
  protected requestStop(): void {
    this.#breakReq = true;
    if (!this.#processing) this.#kick();
  }

  /** Whether the last loop ended because of `exit()`. @internal */
  protected get endedByExit(): boolean {
    return this.#gotExit;
  }

  /** Whether the last loop ended because of `stop()` or an exception. @internal */
  protected get endedByStop(): boolean {
    return this.#gotStop;
  }

  /** Replaces the priority queues with `n` (checked) empty ones; false with a warning while events are active. @internal */
  protected setPriorities(n: number): boolean {
    if (this.#activeCount > 0) return warn('ERR_EVENT_PENDING', 'Cannot change priorities while events are active');
    if (n === this.#queues.length) return true;
    const queues: Ring<Handle>[] = [];
    for (let i = 0; i < n; i++) queues.push(new Ring<Handle>());
    this.#queues = queues;
    return true;
  }

  /** The time of the current iteration (read once per iteration), or the current time. @internal */
  protected cachedTimeOfDay(): number {
    if (!this.#dispatching || this.#noCacheTime) return wallClock();
    if (this.#cachedTime === 0) this.#cachedTime = wallClock(); // read lazily, once per iteration
    return this.#cachedTime;
  }

  /** Refreshes the cached time while dispatching. @internal */
  protected refreshCachedTime(): void {
    if (this.#dispatching) this.#cachedTime = wallClock();
  }

  /** Ends a running loop and drops every activation and timer; nothing calls back afterwards. @internal */
  protected freeLoop(): void {
    if (this.#dispatching) {
      this.#breakReq = true;
      this.#end();
    }
    this.#freed = true;
    for (const q of this.#queues) q.clear();
    this.#activeCount = 0;
    this.#later.length = 0;
    this.#heap.clear();
    this.#live = 0;
  }

  // ---------------------------------------------------------------- loop machinery

  #ref(): void {
    this.#live++;
  }

  #unref(): void {
    this.#live--;
    if (this.#live <= 0 && this.#dispatching && !this.#processing) this.#kick();
  }

  #enqueue(h: Handle, what: number): void {
    if (h.queued) {
      // still in a queue (possibly a cancelled entry): reuse that entry
      if (h.activeWhat === 0) this.#activeCount++;
      h.activeWhat |= what;
      return;
    }
    h.activeWhat = what;
    h.queued = true;
    this.#activeCount++;
    const q = this.#queues[Math.min(h.prio, this.#queues.length - 1)] as Ring<Handle>;
    q.push(h);
  }

  #schedule(h: Handle, deadline: number): void {
    this.#heap.schedule(h, deadline);
    if (this.#dispatching && !this.#processing) this.#armTimer();
  }

  /**
   * Whether the earliest timer is due. When Node's timer is already armed for
   * it, that timer runs it: no clock read here (this is asked after every
   * iteration).
   */
  #hasExpired(): boolean {
    const top = this.#heap.top;
    if (top === undefined) return false;
    // Node's timer, armed for this deadline or an earlier one, runs it (see #armTimer).
    if (this.#nodeTimer !== null && this.#nodeTimerAt <= top.deadline) return false;
    return top.deadline <= now();
  }

  /** Moves expired timers to the active queues (through their expire hooks). */
  #expireTimers(): void {
    const heap = this.#heap;
    if (heap.size === 0) return;
    const t = now();
    while (heap.size > 0) {
      const top = heap.top as Handle;
      if (top.deadline > t) break;
      if (top.pushedTo > t) {
        heap.schedule(top, top.pushedTo); // pushed back meanwhile: not due yet
        continue;
      }
      this.unschedule(top);
      top.expire();
    }
  }

  /** Schedules an iteration through setImmediate (one at a time). */
  #kick(): void {
    if (this.#immediate !== null || !this.#dispatching) return;
    this.#immediate = setImmediate(() => {
      this.#immediate = null;
      if (!this.#dispatching || this.#processing) return;
      this.#iterate();
    });
  }

  #armTimer(): void {
    const top = this.#heap.top;
    if (top === undefined) {
      if (this.#nodeTimer !== null) {
        clearTimeout(this.#nodeTimer);
        this.#nodeTimer = null;
        this.#nodeTimerAt = Infinity;
      }
      return;
    }
    // Armed for the earliest deadline or an earlier one: leave it. A deadline that moved
    // later (an idle timeout pushed back by every read) then costs no clearTimeout and
    // setTimeout per read; the early timer finds nothing due and arms for the new one.
    if (this.#nodeTimer !== null && this.#nodeTimerAt <= top.deadline) return;
    const delay = top.deadline - now();
    if (delay <= 0) {
      this.#kick();
      return;
    }
    if (this.#nodeTimer !== null) clearTimeout(this.#nodeTimer);
    this.#nodeTimerAt = top.deadline;
    this.#nodeTimer = setTimeout(() => {
      this.#nodeTimer = null;
      this.#nodeTimerAt = Infinity;
      if (!this.#dispatching || this.#processing) return;
      if (this.#hasExpired()) this.#iterate();
      else this.#armTimer();
    }, Math.ceil(delay));
  }

  /**
   * Runs iterations while there is work, then decides whether the loop ends.
   */
  #iterate(): void {
    this.#afterIteration(this.#runIteration(), 0);
  }

  /**
   * After an iteration: end the loop when its conditions are met; otherwise run
   * queued work (synchronously a few times, then through Node) and arm the timer.
   */
  #afterIteration(ran: boolean, rounds: number): void {
    for (;;) {
      if (!this.#dispatching) return;
      if (this.#checkEnd(ran)) return;
      if (this.#activeCount > 0 || this.#later.length > 0 || this.#hasExpired()) {
        if (++rounds < 64 && this.#activeCount > 0) {
          ran = this.#runIteration();
          continue;
        }
        this.#kick();
      }
      this.#armTimer();
      return;
    }
  }

  /** One iteration. Returns whether any callback ran. */
  #runIteration(): boolean {
    this.#processing = true;
    this.#cachedTime = 0; // the clock is read on first use in this iteration
    let ran = false;
    try {
      if (this.#later.length > 0) {
        const later = this.#later;
        this.#later = [];
        for (const h of later) {
          h.later = false;
          const what = h.laterWhat;
          h.laterWhat = 0;
          if (what !== 0) this.#enqueue(h, what);
        }
      }
      this.#expireTimers();
      const queues = this.#queues;
      for (let p = 0; p < queues.length; p++) {
        const q = queues[p] as Ring<Handle>;
        if (q.length === 0) continue;
        let processed = 0;
        const md = this.#maxDispatch;
        const limited = md !== null && p >= md.minPriority;
        const started = limited ? now() : 0;
        while (q.length > 0) {
          const h = q.shift() as Handle;
          h.queued = false;
          const what = h.activeWhat;
          if (what === 0) continue; // cancelled
          h.activeWhat = 0;
          this.#activeCount--;
          processed++;
          ran = true;
          h.run(what);
          if (this.#breakReq) break;
          if (limited && md !== null && (processed >= md.callbacks || now() - started >= md.intervalMs)) break;
        }
        if (processed > 0) break; // lower priorities wait for the next iteration
      }
    } catch (err) {
      this.#failure = { error: err };
      this.#breakReq = true;
    } finally {
      this.#processing = false;
    }
    return ran;
  }

  /** Ends the loop when its conditions are met; returns whether it ended. */
  #checkEnd(ran: boolean): boolean {
    if (this.#failure !== null || this.#breakReq) {
      this.#gotStop = true;
      this.#end();
      return true;
    }
    if (this.#exitReq || this.#exitAfterIteration) {
      this.#exitAfterIteration = false;
      this.#gotExit = true;
      this.#end();
      return true;
    }
    if ((this.#flags & LOOP_ONCE) !== 0 && ran) {
      this.#end();
      return true;
    }
    if (this.#live <= 0 && this.#activeCount === 0 && this.#later.length === 0) {
      this.#end();
      return true;
    }
    return false;
  }

  #end(): void {
    // Before the promise settles: a program that exits right after its loop loses no output.
    this.turn.flush();
    this.#dispatching = false;
    this.#exitReq = false;
    this.#breakReq = false;
    this.#cachedTime = 0;
    if (this.#nodeTimer !== null) clearTimeout(this.#nodeTimer);
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    if (this.#keepAlive !== null) clearInterval(this.#keepAlive);
    this.#nodeTimer = null;
    this.#nodeTimerAt = Infinity;
    this.#immediate = null;
    this.#keepAlive = null;
    const resolve = this.#resolve;
    const reject = this.#reject;
    this.#resolve = null;
    this.#reject = null;
    const failure = this.#failure;
    this.#failure = null;
    if (failure !== null) reject?.(failure.error);
    else resolve?.(true);
  }
}

function wallClock(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000) / 1e6;
}

/**
 * The procedural API: the functions of the old PHP `libevent` extension
 * (`event_base_new()`, `evsignal_new()`, `event_base_loop()`, ...) that the
 * manual's signal-handler example still calls, kept with their names.
 *
 * Each function is a thin wrapper over {@link EventBase} or {@link Event}
 * and returns what the method returns: constructors that cannot build their
 * object throw the same typed errors as `new EventBase()` / `new Event()`
 * (an `EventArgumentError` or `EventConfigError` with a stable `code`);
 * functions with a boolean result return `false` and record the reason
 * ({@link getLastError}). Passing something that is not an `Event` or an
 * `EventBase` where one is expected is such a failure too
 * (`ERR_EVENT_INVALID_ARGUMENT`), not a `TypeError`.
 *
 * @example
 * ```ts
 * import { event_base_new, evsignal_new, evsignal_add, event_base_loop, event_base_loopexit } from 'eventide/event';
 * const base = event_base_new();
 * const ev = evsignal_new(base, 15, (signum) => {
 *   console.log(`Caught signal ${signum}`);
 *   event_base_loopexit(base);
 * });
 * evsignal_add(ev);
 * await event_base_loop(base);
 * ```
 * @module
 */
import { EventBase } from './base.js';
import type { EventConfig } from './config.js';
import type { Descriptor } from './descriptor.js';
import { createEventError, warn } from './errors.js';
import { Event, type EventCallback, type SignalCallback, type TimerCallback } from './event.js';

function notAnEvent(fn: string): false {
  return warn('ERR_EVENT_INVALID_ARGUMENT', `${fn}() expects an Event`);
}

function notABase(fn: string): false {
  return warn('ERR_EVENT_INVALID_ARGUMENT', `${fn}() expects an EventBase`);
}

/**
 * Creates an event base (`new EventBase(config)`). Throws an
 * `EventConfigError` (`ERR_EVENT_BASE_CONFIG`) when no backend satisfies the
 * configuration.
 * @example
 * ```ts
 * const base = event_base_new();
 * console.log(event_base_get_method(base)); // "epoll" on Linux
 * ```
 */
export function event_base_new(config?: EventConfig | null): EventBase {
  return new EventBase(config);
}

/**
 * Creates an event (`new Event(base, fd, what, cb, arg)`); the callback
 * receives `(fd, events, arg)`. Throws an `EventArgumentError` for a bad
 * mask, signal number or descriptor.
 * @example
 * ```ts
 * const ev = event_new(base, process.stdin, Event.READ | Event.PERSIST, (fd, what, arg) => {
 *   console.log(String(process.stdin.read() ?? ''));
 * });
 * event_add(ev);
 * ```
 */
export function event_new<A = unknown>(
  base: EventBase,
  fd: Descriptor | number,
  what: number,
  cb: EventCallback<A>,
  arg?: A,
): Event<A> {
  return new Event<A>(base, fd, what, cb, arg);
}

/**
 * Makes an event pending (`ev.add(timeout)`); `timeout` in seconds, -1 or
 * omitted for none. Returns false (and records why) on failure.
 * @example
 * ```ts
 * event_add(ev, 2.5); // true
 * ```
 */
export function event_add<A>(ev: Event<A>, timeout: number | null = -1): boolean {
  if (!(ev instanceof Event)) return notAnEvent('event_add');
  return ev.add(timeout);
}

/**
 * Makes an event non-pending (`ev.del()`). True even when it was not pending.
 * @example
 * ```ts
 * event_del(ev); // true
 * ```
 */
export function event_del<A>(ev: Event<A>): boolean {
  if (!(ev instanceof Event)) return notAnEvent('event_del');
  return ev.del();
}

/**
 * Deletes and releases an event (`ev.free()`); afterwards `event_add()` fails.
 * A value that is not an Event is ignored (and recorded as a warning).
 * @example
 * ```ts
 * event_free(ev);
 * ```
 */
export function event_free<A>(ev: Event<A>): void {
  if (!(ev instanceof Event)) {
    notAnEvent('event_free');
    return;
  }
  ev.free();
}

/**
 * Whether an event is pending for any of the given kinds (`Event.READ`,
 * `Event.WRITE`, `Event.SIGNAL`, `Event.TIMEOUT`): `ev.isPending(flags)`.
 * @example
 * ```ts
 * event_add(ev, 5);
 * event_pending(ev, Event.TIMEOUT); // true
 * ```
 */
export function event_pending<A>(ev: Event<A>, flags: number): boolean {
  if (!(ev instanceof Event)) return notAnEvent('event_pending');
  return ev.isPending(flags);
}

/**
 * Creates a non-persistent timer (`Event.timer(base, cb, arg)`); the callback
 * receives `(arg)`. Add it with {@link evtimer_add}.
 * @example
 * ```ts
 * const t = evtimer_new(base, (n) => console.log(`${n} seconds elapsed`), 2);
 * evtimer_add(t, 2);
 * ```
 */
export function evtimer_new<A = unknown>(base: EventBase, cb: TimerCallback<A>, arg?: A): Event<A> {
  return Event.timer<A>(base, cb, arg);
}

/**
 * Schedules a timer in `seconds` (`ev.add(seconds)`).
 * @example
 * ```ts
 * const t = evtimer_new(base, () => console.log('half a second later'));
 * evtimer_add(t, 0.5); // true
 * ```
 */
export function evtimer_add<A>(ev: Event<A>, seconds: number): boolean {
  if (!(ev instanceof Event)) return notAnEvent('evtimer_add');
  return ev.add(seconds);
}

/**
 * Creates a signal event (`Event.signal(base, signum, cb, arg)`): persistent,
 * its callback receives `(signum, arg)`. Throws an `EventArgumentError`
 * (`ERR_EVENT_INVALID_SIGNAL`) for a signal that cannot be caught.
 * @example
 * ```ts
 * const ev = evsignal_new(base, 15, (signum, b) => {
 *   console.log(`Caught signal ${signum}`);
 *   event_base_loopexit(b);
 * }, base);
 * evsignal_add(ev);
 * ```
 */
export function evsignal_new<A = unknown>(base: EventBase, signum: number, cb: SignalCallback<A>, arg?: A): Event<A> {
  return Event.signal<A>(base, signum, cb, arg);
}

/**
 * Makes a signal event pending (`ev.add(timeout)`); it stays pending after
 * each signal until {@link evsignal_del}.
 * @example
 * ```ts
 * evsignal_add(ev); // true
 * ```
 */
export function evsignal_add<A>(ev: Event<A>, timeout: number | null = -1): boolean {
  if (!(ev instanceof Event)) return notAnEvent('evsignal_add');
  return ev.add(timeout);
}

/**
 * Makes a signal event non-pending (`ev.del()`): the signal's default action
 * applies again once no event watches it.
 * @example
 * ```ts
 * evsignal_del(ev); // true
 * ```
 */
export function evsignal_del<A>(ev: Event<A>): boolean {
  if (!(ev instanceof Event)) return notAnEvent('evsignal_del');
  return ev.del();
}

/**
 * Runs the loop (`base.loop(flags)`): `EventBase.LOOP_ONCE`,
 * `EventBase.LOOP_NONBLOCK`, or -1 / omitted to run until nothing is pending,
 * the loop exits or breaks. Resolves `true` when the loop ended, `false` when
 * it could not start; rejects with an exception thrown by a callback.
 * @example
 * ```ts
 * await event_base_loop(base, EventBase.LOOP_ONCE);
 * ```
 */
export function event_base_loop(base: EventBase, flags: number = -1): Promise<boolean> {
  if (!(base instanceof EventBase)) return Promise.resolve(notABase('event_base_loop'));
  return base.loop(flags);
}

/**
 * Runs the loop until nothing is pending or it exits (`base.dispatch()`).
 * @example
 * ```ts
 * await event_base_dispatch(base);
 * ```
 */
export function event_base_dispatch(base: EventBase): Promise<boolean> {
  if (!(base instanceof EventBase)) return Promise.resolve(notABase('event_base_dispatch'));
  return base.dispatch();
}

/**
 * Ends the loop after `seconds` (0, `null` or omitted: after the current
 * iteration's callbacks), as `base.exit(seconds)`.
 * @example
 * ```ts
 * event_base_loopexit(base, 2.33); // true
 * ```
 */
export function event_base_loopexit(base: EventBase, seconds: number | null = 0): boolean {
  if (!(base instanceof EventBase)) return notABase('event_base_loopexit');
  return base.exit(seconds);
}

/**
 * Ends the loop right after the running callback (`base.stop()`); ignored
 * when the loop is not running.
 * @example
 * ```ts
 * evsignal_new(base, 2, () => event_base_loopbreak(base));
 * ```
 */
export function event_base_loopbreak(base: EventBase): boolean {
  if (!(base instanceof EventBase)) return notABase('event_base_loopbreak');
  return base.stop();
}

/**
 * Frees the base (`base.free()`): a running loop ends and nothing of it calls
 * back again. A value that is not an EventBase is ignored (and recorded as a
 * warning).
 * @example
 * ```ts
 * event_base_free(base);
 * ```
 */
export function event_base_free(base: EventBase): void {
  if (!(base instanceof EventBase)) {
    notABase('event_base_free');
    return;
  }
  base.free();
}

/**
 * The backend's polling method (`base.getMethod()`): `"epoll"` on Linux.
 * Throws an `EventArgumentError` when `base` is not an EventBase (there is
 * no `false` to return).
 * @example
 * ```ts
 * console.log(event_base_get_method(event_base_new())); // epoll
 * ```
 */
export function event_base_get_method(base: EventBase): string {
  if (!(base instanceof EventBase))
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'event_base_get_method() expects an EventBase');
  return base.getMethod();
}

/**
 * Sets an event's priority (`ev.setPriority(priority)`): 0 is the most
 * urgent; it must be below the base's number of priorities.
 * @example
 * ```ts
 * base.priorityInit(2);
 * event_priority_set(ev, 0); // true
 * ```
 */
export function event_priority_set<A>(ev: Event<A>, priority: number): boolean {
  if (!(ev instanceof Event)) return notAnEvent('event_priority_set');
  return ev.setPriority(priority);
}

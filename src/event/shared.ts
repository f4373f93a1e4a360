/**
 * Definitions every part of the event layer shares, defined once: libevent's
 * event-kind bits (`EV_TIMEOUT`, `EV_READ`, `EV_WRITE`, `EV_SIGNAL`,
 * `EV_PERSIST`, `EV_ET`; `Event.READ` and friends are these), the monotonic
 * clock deadlines are measured with, and the callback that does nothing.
 *
 * @module
 */
import { performance as perf } from 'node:perf_hooks'; // a module binding: the global `performance` is an accessor that global loads cannot cache

/**
 * The timeout expired (`Event.TIMEOUT`): the first of the event-kind bits
 * ({@link TIMEOUT}, {@link READ}, {@link WRITE}, {@link SIGNAL},
 * {@link PERSIST}, {@link ET}), which combine with `|`.
 * @internal
 * @example
 * ```ts
 * const ev = new Event(base, socket, READ | PERSIST, (fd, what) => {
 *   if (what & TIMEOUT) console.log('no data for 10 seconds');
 *   else if (what & READ) console.log('readable');
 * });
 * ev.add(10);
 * ```
 */
export const TIMEOUT = 1;
/** The source is readable (`Event.READ`); an event-kind bit (see {@link TIMEOUT}). @internal */
export const READ = 2;
/** The source is writable (`Event.WRITE`); an event-kind bit (see {@link TIMEOUT}). @internal */
export const WRITE = 4;
/** A signal arrived (`Event.SIGNAL`); an event-kind bit (see {@link TIMEOUT}). @internal */
export const SIGNAL = 8;
/** The event stays pending after it ran (`Event.PERSIST`); an event-kind bit (see {@link TIMEOUT}). @internal */
export const PERSIST = 16;
/** Edge-triggered (`Event.ET`); an event-kind bit (see {@link TIMEOUT}). @internal */
export const ET = 32;

/**
 * The monotonic clock of timers and deadlines, in milliseconds.
 * @internal
 * @example
 * ```ts
 * const seconds = 2.5;
 * const deadline = now() + seconds * 1000;
 * ```
 */
export const now = (): number => perf.now();

/**
 * The callback that does nothing: an unused `run` or `expire` of a handle,
 * a listener that swallows late errors, an unsubscribe with nothing to undo.
 * @internal
 * @example
 * ```ts
 * socket.on('error', noop); // a late error must not crash the process
 * ```
 */
export function noop(): void {}

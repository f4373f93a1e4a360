/**
 * EventConfig and the description of the one backend this port has: libuv,
 * which polls with epoll on Linux, kqueue on macOS and the BSDs, event ports
 * on Solaris and IOCP on Windows.
 *
 * @module
 */
import { platform } from 'node:os';
import { warn } from './errors.js';

/**
 * The polling method libuv uses on this platform.
 * @internal
 */
export function backendMethod(): string {
  switch (platform()) {
    case 'linux':
    case 'android':
      return 'epoll';
    case 'darwin':
    case 'freebsd':
    case 'openbsd':
    case 'netbsd':
      return 'kqueue';
    case 'sunos':
      return 'evport';
    case 'win32':
      return 'win32';
    default:
      return 'poll';
  }
}

/**
 * Features of the backend, as `EventConfig.FEATURE_*` bits. All three hold:
 * edge-triggered delivery is available with `Event.ET`; adding and deleting
 * an I/O event is constant time; and any descriptor kind works (sockets,
 * pipes, TTYs, the file-I/O event stream, and regular files, which are always
 * ready as `poll(2)` reports them).
 * @internal
 */
export const BACKEND_FEATURES = 1 | 2 | 4;

/**
 * Configuration for an {@link EventBase}: methods to avoid and features to require.
 *
 * @example
 * ```ts
 * import { EventBase, EventConfig } from 'eventide/event';
 * const cfg = new EventConfig();
 * cfg.avoidMethod('select');
 * cfg.requireFeatures(EventConfig.FEATURE_FDS);
 * const base = new EventBase(cfg);
 * console.log(base.getMethod()); // "epoll" on Linux
 * ```
 */
export class EventConfig {
  /** Edge-triggered I/O is available. */
  static readonly FEATURE_ET = 1;
  /** Adding or deleting one event is O(1). */
  static readonly FEATURE_O1 = 2;
  /** Any descriptor type works, not only sockets. */
  static readonly FEATURE_FDS = 4;

  #avoided = new Set<string>();
  #required = 0;
  #flags = 0;
  #maxDispatch: { interval: number; callbacks: number; minPriority: number } | null = null;

  /**
   * Tells the base not to use a method (for example `"select"`). Always true,
   * as in libevent: an unknown name is accepted and simply never matches.
   * @example
   * ```ts
   * new EventConfig().avoidMethod('select'); // true
   * ```
   */
  avoidMethod(method: string): boolean {
    this.#avoided.add(String(method));
    return true;
  }

  /**
   * Requires features (`FEATURE_*` bits). A requirement no backend meets makes
   * the EventBase constructor throw `ERR_EVENT_BASE_CONFIG`.
   * @example
   * ```ts
   * cfg.requireFeatures(EventConfig.FEATURE_ET | EventConfig.FEATURE_O1); // true
   * ```
   */
  requireFeatures(features: number): boolean {
    if (!Number.isInteger(features) || features < 0) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid features: ${String(features)}`);
    }
    this.#required |= features;
    return true;
  }

  /**
   * Sets EventBase configuration flags (`EventBase.NOLOCK`, `IGNORE_ENV`,
   * `NO_CACHE_TIME`, `PRECISE_TIMER`, ...). They are recorded; with one
   * single-threaded backend most have nothing to change. `NO_CACHE_TIME`
   * makes `getTimeOfDayCached()` always read the clock.
   * @example
   * ```ts
   * cfg.setFlags(EventBase.NO_CACHE_TIME); // true
   * ```
   */
  setFlags(flags: number): boolean {
    if (!Number.isInteger(flags) || flags < 0 || flags > 63) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid flags: ${String(flags)}`);
    }
    this.#flags = flags;
    return true;
  }

  /**
   * Limits how long the loop runs callbacks of priority `minPriority` or
   * lower before it checks for new events: at most `maxCallbacks` callbacks
   * or `maxIntervalSeconds` seconds per iteration (negative: no limit).
   * @example
   * ```ts
   * cfg.setMaxDispatchInterval(0.01, 32, 1);
   * ```
   */
  setMaxDispatchInterval(maxIntervalSeconds: number, maxCallbacks: number, minPriority: number): void {
    this.#maxDispatch = { interval: maxIntervalSeconds, callbacks: maxCallbacks, minPriority };
  }

  /** @internal */
  get avoidedMethods(): ReadonlySet<string> {
    return this.#avoided;
  }

  /** @internal */
  get requiredFeatures(): number {
    return this.#required;
  }

  /** @internal */
  get flags(): number {
    return this.#flags;
  }

  /** @internal */
  get maxDispatch(): { interval: number; callbacks: number; minPriority: number } | null {
    return this.#maxDispatch;
  }
}

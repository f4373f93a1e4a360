/**
 * The contract of a throttle store, and the keys it stores histories under.
 *
 * Internal: part of issue 29, not exported from `eventide/rest` yet.
 * @module
 */
import type { ThrottleDecision } from './history.js';

/**
 * Where throttle histories live: {@link MemoryThrottleStore} for one
 * process, the Redis store for many. One `hit` is one check of DRF's
 * algorithm (see `checkHistory`), atomic per call: concurrent hits on one
 * key never allow more than `numRequests` in a window.
 * @internal
 * @example
 * ```ts
 * async function allow(store: ThrottleStore, ident: string): Promise<boolean> {
 *   const { allowed } = await store.hit(throttleCacheKey('anon', ident), Date.now() / 1000, 100, 86_400);
 *   return allowed;
 * }
 * ```
 */
export interface ThrottleStore {
  /**
   * Checks and, when allowed, records a request on `key` at `now` (seconds,
   * as DRF's `time.time()`), for a rate of `numRequests` per `duration`
   * seconds.
   */
  hit(key: string, now: number, numRequests: number, duration: number): Promise<ThrottleDecision>;
}

/**
 * DRF's cache key of a throttle, `throttle_<scope>_<ident>` (an ident of
 * `null` reads `None`, as Python formats it). Stores put their own prefix
 * before it.
 * @internal
 * @example
 * ```ts
 * throttleCacheKey('anon', '203.0.113.7'); // 'throttle_anon_203.0.113.7'
 * ```
 */
export function throttleCacheKey(scope: string, ident: string | null): string {
  return `throttle_${scope}_${ident ?? 'None'}`;
}

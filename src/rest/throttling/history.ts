/**
 * Django REST framework's sliding-window throttle (`SimpleRateThrottle`),
 * as pure functions over one key's history: the times of the requests it
 * allowed, newest first. A request is allowed when fewer than
 * `numRequests` of them are younger than `duration` seconds; its time is
 * then recorded. The wait of a refused request and the 429's texts are
 * DRF's (`wait()`, `Throttled`).
 *
 * DRF drops old entries from the oldest end only while the oldest is
 * expired, and only keeps that pruning when the request is allowed; the
 * functions here do the same, so that they agree with DRF even when the
 * clock steps back.
 *
 * Internal: part of issue 29, not exported from `eventide/rest` yet.
 * @module
 */

/**
 * The answer of a throttle check.
 * @internal
 * @example
 * ```ts
 * const refused: ThrottleDecision = { allowed: false, wait: 12.5 };
 * ```
 */
export interface ThrottleDecision {
  /** Whether the request may go on. */
  readonly allowed: boolean;
  /**
   * For a refused request, DRF's `wait()`: the seconds until a request may
   * be allowed (not rounded), or `null` when DRF has no estimate (a rate of
   * fewer than 0 requests). Always `null` for an allowed request.
   */
  readonly wait: number | null;
}

/**
 * How many of the oldest entries of `history` (newest first) DRF drops at
 * `now`: from the end, while the last entry is at or before `now - duration`.
 * @internal
 * @example
 * ```ts
 * expiredCount([30, 20, 5], 70, 60); // 1: 5 <= 10, then 20 > 10 stops
 * ```
 */
export function expiredCount(history: readonly number[], now: number, duration: number): number {
  const limit = now - duration;
  let n = 0;
  while (n < history.length && (history[history.length - 1 - n] as number) <= limit) n++;
  return n;
}

/**
 * DRF's `wait()` for a refused request, from the pruned history's length
 * and its last (oldest kept) entry.
 * @internal
 * @example
 * ```ts
 * waitOf(2, 100, 130, 2, 60); // (60 - (130 - 100)) / 1 = 30
 * ```
 */
export function waitOf(
  length: number,
  oldest: number | undefined,
  now: number,
  numRequests: number,
  duration: number,
): number | null {
  const remaining = length > 0 && oldest !== undefined ? duration - (now - oldest) : duration;
  const available = numRequests - length + 1;
  if (available <= 0) return null;
  return remaining / available;
}

/**
 * One check of DRF's algorithm on `history` (newest first), which it
 * updates in place when the request is allowed (expired entries dropped,
 * `now` put first) and leaves alone when it is refused.
 * @internal
 * @example
 * ```ts
 * const history: number[] = [];
 * checkHistory(history, 0, 1, 60);  // { allowed: true, wait: null }
 * checkHistory(history, 10, 1, 60); // { allowed: false, wait: 50 }
 * ```
 */
export function checkHistory(history: number[], now: number, numRequests: number, duration: number): ThrottleDecision {
  const expired = expiredCount(history, now, duration);
  const length = history.length - expired;
  if (length >= numRequests)
    return { allowed: false, wait: waitOf(length, history[length - 1], now, numRequests, duration) };
  history.length = length;
  history.unshift(now);
  return { allowed: true, wait: null };
}

/**
 * The longest of several throttles' waits, ignoring `null`s, or `null` when
 * none has one (DRF's `check_throttles`).
 * @internal
 * @example
 * ```ts
 * longestWait([3.2, null, 10]); // 10
 * ```
 */
export function longestWait(waits: readonly (number | null)[]): number | null {
  let longest: number | null = null;
  for (const w of waits) if (w !== null && (longest === null || w > longest)) longest = w;
  return longest;
}

/**
 * What a 429 says (DRF's `Throttled`): the `detail` (`Request was
 * throttled.`, then `Expected available in N seconds.` with N the wait
 * rounded up, `second` when N is 1) and the `Retry-After` value (N; none
 * when there is no wait or N is 0, as DRF omits it then).
 * @internal
 * @example
 * ```ts
 * throttledResponse(12.1); // { detail: 'Request was throttled. Expected available in 13 seconds.', retryAfter: '13' }
 * throttledResponse(null); // { detail: 'Request was throttled.', retryAfter: null }
 * ```
 */
export function throttledResponse(wait: number | null): { detail: string; retryAfter: string | null } {
  if (wait === null) return { detail: 'Request was throttled.', retryAfter: null };
  const n = Math.ceil(wait) + 0; // + 0 turns -0 into 0
  const unit = n === 1 ? 'second' : 'seconds';
  return {
    detail: `Request was throttled. Expected available in ${n} ${unit}.`,
    retryAfter: n === 0 ? null : String(n),
  };
}

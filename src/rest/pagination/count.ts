/**
 * Count strategies: how the page-number and limit/offset styles learn the
 * `count` of the page envelope. Counting every row is what Django REST
 * framework does and what large tables pay for on every request; the other
 * strategies trade exactness for speed.
 *
 * | strategy | `count` in the envelope | cost |
 * | --- | --- | --- |
 * | {@link exactCount} (default) | the number of rows | a full count per request |
 * | {@link cachedCount} | the number of rows when it was last counted, at most `ttl` ms ago | one count per query shape and `ttl`, per process (or for every process sharing a {@link CountStore}) |
 * | {@link estimatedCount} | the source's estimate (whole-table statistics); exact when the source cannot estimate | a catalogue read |
 * | {@link cappedCount} | `min(rows, cap)`: a value equal to `cap` means "`cap` or more" | counts at most `cap` rows |
 *
 * Links and page ranges follow the count the strategy returns: with a capped
 * count the last page (and `page=last`) is the last page within the cap and
 * pages beyond it answer 404 `Invalid page.`; with an estimate or a stale
 * cached count a next link may lead to an empty page (limit/offset) or a
 * 404 (page number), and rows past the count are not reachable by page
 * number.
 *
 * @module
 */
import type { Queryset } from '../data/source.js';
import { ConfigurationError } from '../errors.js';

/**
 * Decides the `count` of a page envelope.
 * @example
 * ```ts
 * const rounded: CountStrategy = { name: 'rounded', count: async (qs) => Math.ceil((await qs.count()) / 100) * 100 };
 * ```
 */
export interface CountStrategy {
  /** A short name for logs and documentation. */
  readonly name: string;
  /** The count to report for `queryset`. */
  count(queryset: Queryset<object>): Promise<number>;
}

/**
 * Counts every row (`queryset.count()`), Django REST framework's behaviour.
 * @example
 * ```ts
 * class Items extends PageNumberPagination { override countStrategy = exactCount; }
 * ```
 */
export const exactCount: CountStrategy = Object.freeze({
  name: 'exact',
  count: (queryset: Queryset<object>): Promise<number> => queryset.count(),
});

/**
 * Uses `queryset.estimateCount()` (database statistics), falling back to an
 * exact count when the source returns `null` (an in-memory source, a
 * filtered query, a table never analysed).
 * @example
 * ```ts
 * class BigTable extends PageNumberPagination { override countStrategy = estimatedCount; }
 * ```
 */
export const estimatedCount: CountStrategy = Object.freeze({
  name: 'estimated',
  count: async (queryset: Queryset<object>): Promise<number> => (await queryset.estimateCount()) ?? queryset.count(),
});

/**
 * Counts at most `cap` rows (`queryset.count({ cap })`). The envelope's
 * `count` is then at most `cap`; pages past the cap are not offered.
 * @example
 * ```ts
 * class Items extends LimitOffsetPagination { override countStrategy = cappedCount(10_000); }
 * ```
 */
export function cappedCount(cap: number): CountStrategy {
  if (!(Number.isSafeInteger(cap) && cap >= 0))
    throw new ConfigurationError(`cappedCount: cap must be a non-negative integer, not ${String(cap)}`);
  return Object.freeze({
    name: `capped(${cap})`,
    count: (queryset: Queryset<object>): Promise<number> => queryset.count({ cap }),
  });
}

/**
 * Where {@link cachedCount} keeps counts shared by processes and hosts (a
 * Redis-backed one is `eventide/sql`'s `connectRedisCountStore`). `fetch`
 * returns the shared count of `key`, calling `count` at most once per `ttl`
 * among all sharers, or `null` when the store cannot be reached: the
 * strategy then counts through its in-process cache. It must not hang: a
 * store answers (or gives up with `null`) within its own deadline.
 * @example
 * ```ts
 * const counts = new Map<string, number>(); // one process only: a stand-in for a real shared store
 * const store: CountStore = {
 *   name: 'map',
 *   async fetch(key, ttl, count) {
 *     const hit = counts.get(key);
 *     if (hit !== undefined) return hit;
 *     const value = await count();
 *     counts.set(key, value);
 *     setTimeout(() => counts.delete(key), ttl).unref();
 *     return value;
 *   },
 * };
 * const itemCount = cachedCount({ ttl: 30_000, store });
 * ```
 */
export interface CountStore {
  /** A short name for the strategy's name (`cached(30000ms, redis)`). */
  readonly name: string;
  /** The shared count of `key`, counting with `count` on a miss; `null` when the store is unreachable. */
  fetch(key: string, ttl: number, count: () => Promise<number>): Promise<number | null>;
}

/**
 * Options of {@link cachedCount}.
 * @example
 * ```ts
 * const options: CachedCountOptions = { ttl: 30_000, maxEntries: 500 };
 * ```
 */
export interface CachedCountOptions {
  /** How long a count is reused, in milliseconds (default 60 000). */
  readonly ttl?: number;
  /** How many query shapes are remembered; the oldest is dropped first (default 1000). */
  readonly maxEntries?: number;
  /** The clock in milliseconds, read once per count (default `Date.now`). */
  readonly now?: () => number;
  /** Counts on a miss (default {@link exactCount}). */
  readonly inner?: CountStrategy;
  /**
   * A store shared by processes and hosts (default none: each process keeps
   * its own counts). While it answers `null` (unreachable), counts are kept
   * in this process as without a store.
   */
  readonly store?: CountStore;
}

/**
 * Reuses a count for `ttl` milliseconds, keyed by `queryset.cacheKey` (the
 * source, its filters and ordering), so a row inserted meanwhile shows in
 * `count` only after the entry expires. The cache holds at most
 * `maxEntries` keys (oldest dropped first); concurrent misses of one key
 * share one count. Create the strategy once (a module-level constant) and
 * assign that to `countStrategy`: paginators are built per request, so a
 * `cachedCount()` call in a class field would start an empty cache on every
 * request.
 * @example
 * ```ts
 * const itemCount = cachedCount({ ttl: 30_000 }); // one cache shared by every request
 * class Items extends PageNumberPagination { override countStrategy = itemCount; }
 * ```
 */
export function cachedCount(options: CachedCountOptions = {}): CountStrategy {
  const ttl = options.ttl ?? 60_000;
  const maxEntries = options.maxEntries ?? 1000;
  const now = options.now ?? Date.now;
  const inner = options.inner ?? exactCount;
  if (!(ttl >= 0))
    throw new ConfigurationError(`cachedCount: ttl must be a non-negative number of milliseconds, not ${String(ttl)}`);
  if (!(Number.isSafeInteger(maxEntries) && maxEntries > 0))
    throw new ConfigurationError(`cachedCount: maxEntries must be a positive integer, not ${String(maxEntries)}`);
  const store = options.store;
  const cache = new Map<string, { expires: number; value: Promise<number> }>();
  const shared = new Map<string, Promise<number>>();
  const local = (queryset: Queryset<object>): Promise<number> => {
    const key = queryset.cacheKey;
    const t = now();
    const hit = cache.get(key);
    if (hit !== undefined && t < hit.expires) return hit.value;
    if (hit !== undefined) cache.delete(key);
    else if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    const value = inner.count(queryset);
    const entry = { expires: t + ttl, value };
    cache.set(key, entry);
    // A failed count is not remembered.
    value.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return value;
  };
  return Object.freeze({
    name: store === undefined ? `cached(${ttl}ms)` : `cached(${ttl}ms, ${store.name})`,
    count(queryset: Queryset<object>): Promise<number> {
      if (store === undefined) return local(queryset);
      // Concurrent requests of this process for one key share one store lookup.
      const key = queryset.cacheKey;
      const pending = shared.get(key);
      if (pending !== undefined) return pending;
      const value = store
        .fetch(key, ttl, () => inner.count(queryset))
        .then((n) => n ?? local(queryset))
        .finally(() => shared.delete(key));
      shared.set(key, value);
      return value;
    },
  });
}

/**
 * A {@link ThrottleStore} in the memory of one process, bounded.
 *
 * Internal: part of issue 29, not exported from `eventide/rest` yet.
 * @module
 */
import { ConfigurationError } from '../errors.js';
import { checkHistory, type ThrottleDecision } from './history.js';
import type { ThrottleStore } from './store.js';

/**
 * The default of {@link MemoryThrottleStoreOptions.maxKeys}.
 * @internal
 * @example
 * ```ts
 * new MemoryThrottleStore({ maxKeys: DEFAULT_MAX_THROTTLE_KEYS * 10 });
 * ```
 */
export const DEFAULT_MAX_THROTTLE_KEYS = 10_000;

/**
 * Options of {@link MemoryThrottleStore}.
 * @internal
 * @example
 * ```ts
 * const options: MemoryThrottleStoreOptions = { prefix: 'shop:', maxKeys: 50_000 };
 * ```
 */
export interface MemoryThrottleStoreOptions {
  /** Put before every key (default `''`). */
  readonly prefix?: string;
  /**
   * The most keys held (default {@link DEFAULT_MAX_THROTTLE_KEYS}). A new
   * key past it evicts the key allowed a request longest ago (its client
   * starts afresh: the bound trades exactness for memory under a flood of
   * identities).
   */
  readonly maxKeys?: number;
}

interface Entry {
  /** Times of allowed requests, newest first. */
  readonly history: number[];
  /** When the history expires as a whole (DRF's cache timeout: `duration` after the last allowed request). */
  expiresAt: number;
}

/**
 * Throttle histories in a `Map`, DRF's algorithm exactly, DRF's cache
 * expiry included (a history is forgotten `duration` seconds after its last
 * allowed request, measured on the `now` of the calls). Expired histories
 * are dropped when their key is hit or when the bound needs room.
 * @internal
 * @example
 * ```ts
 * const store = new MemoryThrottleStore();
 * const first = await store.hit('throttle_anon_1.2.3.4', 1000, 1, 60);  // allowed
 * const second = await store.hit('throttle_anon_1.2.3.4', 1010, 1, 60); // refused, wait 50
 * ```
 */
export class MemoryThrottleStore implements ThrottleStore {
  readonly #entries = new Map<string, Entry>();
  readonly #prefix: string;
  readonly #maxKeys: number;

  constructor(options: MemoryThrottleStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? DEFAULT_MAX_THROTTLE_KEYS;
    if (!(Number.isInteger(maxKeys) && maxKeys > 0))
      throw new ConfigurationError(`MemoryThrottleStore: maxKeys must be a positive integer, not ${String(maxKeys)}`);
    this.#maxKeys = maxKeys;
    this.#prefix = options.prefix ?? '';
  }

  /** How many keys are held. */
  get size(): number {
    return this.#entries.size;
  }

  /** {@inheritDoc ThrottleStore.hit} */
  hit(key: string, now: number, numRequests: number, duration: number): Promise<ThrottleDecision> {
    return Promise.resolve(this.#hitSync(this.#prefix + key, now, numRequests, duration));
  }

  #hitSync(key: string, now: number, numRequests: number, duration: number): ThrottleDecision {
    let entry = this.#entries.get(key);
    if (entry !== undefined && entry.expiresAt <= now) {
      this.#entries.delete(key);
      entry = undefined;
    }
    const history = entry?.history ?? [];
    const decision = checkHistory(history, now, numRequests, duration);
    if (!decision.allowed) return decision;
    // Most recently allowed last, so the first key is the one to evict.
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxKeys) this.#makeRoom(now);
    this.#entries.set(key, { history, expiresAt: now + duration });
    return decision;
  }

  #makeRoom(now: number): void {
    // Expired histories first (they sit at the front while the clock runs forward), then the oldest.
    for (const [k, e] of this.#entries) {
      if (this.#entries.size < this.#maxKeys && e.expiresAt > now) break;
      this.#entries.delete(k);
    }
  }
}

/**
 * A {@link ThrottleStore} in Redis, shared by every process and host that
 * uses the same server: each check is one Lua script (EVALSHA, EVAL when
 * the server does not have it yet), so concurrent checks on one key run one
 * after another inside Redis and never allow more than the rate.
 *
 * The store takes a connected ioredis-like client (the caller owns its
 * connection, reconnection and closing; `connectRedisCountStore` shows the
 * options that keep a request from waiting on a lost server: no offline
 * queue, a command timeout). Each check also has its own deadline here.
 * A failed or late check rejects with the client's error: the caller
 * decides whether that lets the request through or refuses it.
 *
 * Keys: `<prefix><key>` holds the history (a list, newest first, the
 * request times as the caller's decimal strings) and `<prefix><key>:exp`
 * the time the history expires as a whole (DRF's cache timeout, in the
 * caller's clock); Redis drops both a minute after that in its own clock.
 * Both keys of a check must live on one server (no Redis Cluster slots).
 *
 * Internal: part of issue 29, not exported from `eventide/rest` yet.
 * @module
 */
import { createHash } from 'node:crypto';
import { ConfigurationError } from '../errors.js';
import { waitOf, type ThrottleDecision } from './history.js';
import type { ThrottleStore } from './store.js';

/**
 * The part of an ioredis client the store uses.
 * @internal
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const client: RedisScriptClient = new Redis('redis://127.0.0.1:6379', { enableOfflineQueue: false, commandTimeout: 500 });
 * ```
 */
export interface RedisScriptClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * Options of {@link RedisThrottleStore}.
 * @internal
 * @example
 * ```ts
 * declare const client: RedisScriptClient;
 * const options: RedisThrottleStoreOptions = { client, prefix: 'shop:throttle:', commandTimeout: 200 };
 * ```
 */
export interface RedisThrottleStoreOptions {
  /** A connected client. */
  readonly client: RedisScriptClient;
  /** Put before every key (default `eventide:throttle:`). */
  readonly prefix?: string;
  /** The deadline of each check, in ms (default 500). */
  readonly commandTimeout?: number;
}

/**
 * DRF's check on one key, atomically: KEYS[1] the history, KEYS[2] its
 * expiry; ARGV now, numRequests, duration, the new expiry, Redis's own TTL
 * in ms. Answers {1} when allowed, {0, length, oldest kept} when refused
 * (the wait is computed by the caller, in doubles as DRF does).
 */
const HIT_SCRIPT = `local now = tonumber(ARGV[1])
local num = tonumber(ARGV[2])
local duration = tonumber(ARGV[3])
local exp = redis.call('GET', KEYS[2])
if (not exp) or tonumber(exp) <= now then redis.call('DEL', KEYS[1], KEYS[2]) end
local history = redis.call('LRANGE', KEYS[1], 0, -1)
local n = #history
local limit = now - duration
while n > 0 and tonumber(history[n]) <= limit do n = n - 1 end
if n >= num then
  local oldest = ''
  if n > 0 then oldest = history[n] end
  return {0, n, oldest}
end
if n == 0 then redis.call('DEL', KEYS[1]) elseif n < #history then redis.call('LTRIM', KEYS[1], 0, n - 1) end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1}`;
const HIT_SHA = createHash('sha1').update(HIT_SCRIPT).digest('hex');

/** How long Redis keeps a history past its expiry in the callers' clock, in ms (room for clocks that differ). */
const EXPIRY_MARGIN_MS = 60_000;

/** A bound that keeps a count a plain decimal in Lua (`tonumber` of `Infinity` is not portable). */
const clamp = (n: number): number => Math.max(-1e300, Math.min(1e300, n));

function deadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis throttle check: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Throttle histories in Redis (see the module's notes).
 * @internal
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const store = new RedisThrottleStore({ client: new Redis('redis://127.0.0.1:6379') });
 * const { allowed, wait } = await store.hit('throttle_anon_203.0.113.7', Date.now() / 1000, 100, 86_400);
 * ```
 */
export class RedisThrottleStore implements ThrottleStore {
  readonly #client: RedisScriptClient;
  readonly #prefix: string;
  readonly #timeout: number;

  constructor(options: RedisThrottleStoreOptions) {
    const t = options.commandTimeout ?? 500;
    if (!(typeof t === 'number' && t > 0 && Number.isFinite(t)))
      throw new ConfigurationError('RedisThrottleStore: commandTimeout must be a positive number of milliseconds');
    this.#client = options.client;
    this.#prefix = options.prefix ?? 'eventide:throttle:';
    this.#timeout = t;
  }

  /** {@inheritDoc ThrottleStore.hit} */
  async hit(key: string, now: number, numRequests: number, duration: number): Promise<ThrottleDecision> {
    const k = this.#prefix + key;
    const ttl = Math.ceil(duration * 1000) + EXPIRY_MARGIN_MS;
    const args = [
      k,
      `${k}:exp`,
      String(now),
      String(clamp(numRequests)),
      String(duration),
      String(now + duration),
      ttl,
    ];
    const run = async (): Promise<unknown> => {
      try {
        return await this.#client.evalsha(HIT_SHA, 2, ...args);
      } catch (err) {
        if (!String((err as Error | null)?.message ?? err).startsWith('NOSCRIPT')) throw err;
        return this.#client.eval(HIT_SCRIPT, 2, ...args);
      }
    };
    const reply = await deadline(run(), this.#timeout);
    if (!Array.isArray(reply)) throw new Error(`Redis throttle check: unexpected reply ${JSON.stringify(reply)}`);
    if (Number(reply[0]) === 1) return { allowed: true, wait: null };
    const length = Number(reply[1]);
    const oldest = reply[2] === '' || reply[2] === undefined ? undefined : Number(reply[2]);
    return { allowed: false, wait: waitOf(length, oldest, now, numRequests, duration) };
  }
}

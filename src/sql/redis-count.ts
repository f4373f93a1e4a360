/**
 * A {@link CountStore} in Redis (through the optional peer dependency
 * `ioredis`) for `cachedCount({ store })`: the workers of a host and the
 * hosts behind a load balancer share one count per query shape, so a big
 * table is counted once per `ttl`, not once per process.
 *
 * - A fresh count is one `MGET`. On a miss, one process takes a lease
 *   (`SET lock NX PX lease`) and counts; the others answer the previous
 *   (stale) count while there is one, or wait up to `waitTimeout` ms for the
 *   new one and count by themselves past that.
 * - Redis never holds a request up: commands fail at once while the client
 *   is disconnected (no offline queue), and every command has a timeout.
 *   The client reconnects in the background with a capped backoff.
 * - While Redis cannot be reached, `fetch` answers `null` and `cachedCount`
 *   counts in-process; the logger is told once per outage, and once when
 *   Redis answers again.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import type { CountStore } from '../rest/pagination/count.js';
import { ConfigurationError } from '../rest/errors.js';
import { loadOptional } from './drivers.js';
import { redactUrl, SqlUnavailableError, withDeadline } from './errors.js';
import type { SqlLogger } from './replicas.js';

/**
 * Options of {@link connectRedisCountStore}.
 * @example
 * ```ts
 * const options: RedisCountStoreOptions = { url: 'redis://127.0.0.1:6379/0', prefix: 'shop:count:', connectTimeout: 1000 };
 * ```
 */
export interface RedisCountStoreOptions {
  /** The server (`redis://[user:password@]host:port[/db]`, default `redis://127.0.0.1:6379`). */
  readonly url?: string;
  /** Prefix of every key (default `eventide:count:`). */
  readonly prefix?: string;
  /** Deadline of the connection at start-up and of each reconnection attempt, in ms (default 2000). */
  readonly connectTimeout?: number;
  /** Deadline of each command, in ms (default 500). */
  readonly commandTimeout?: number;
  /** How long the process that counts holds the lease, in ms (default 30 000): past it another may count. */
  readonly lease?: number;
  /** How long a process waits for another's count when there is no stale value, in ms (default 2000). */
  readonly waitTimeout?: number;
  /** How long a count stays usable as a stale answer after its `ttl`, in ms (default 10 × ttl). */
  readonly staleFor?: number;
  /** The longest pause between reconnection attempts, in ms (default 5000). */
  readonly maxReconnectDelay?: number;
  /** Throw {@link SqlUnavailableError} `ERR_SQL_REDIS_UNREACHABLE` when Redis does not answer at start-up (default false: start counting locally). */
  readonly required?: boolean;
  /** Told once per outage (and once when Redis is back). */
  readonly logger?: SqlLogger;
}

/**
 * A {@link CountStore} in Redis, from {@link connectRedisCountStore}.
 * @example
 * ```ts
 * const store: RedisCountStore = await connectRedisCountStore({ url: 'redis://127.0.0.1:6379' });
 * const itemCount = cachedCount({ ttl: 30_000, store });
 * console.log(store.available);
 * await store.close();
 * ```
 */
export interface RedisCountStore extends CountStore {
  /** Whether the last command reached Redis. */
  readonly available: boolean;
  /** Counts computed by this process through the store (lease holders and waiters that gave up). */
  readonly counted: number;
  /** Disconnects (pending commands fail; `fetch` then answers `null`). */
  close(): Promise<void>;
}

/** The part of ioredis's client used here. */
interface RedisClient {
  readonly status: string;
  connect(): Promise<void>;
  mget(...keys: string[]): Promise<(string | null)[]>;
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<'OK' | null>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}
type RedisConstructor = new (url: string, options: Record<string, unknown>) => RedisClient;

/** Stores the count and its stale copy, and releases the lease if it is still ours. */
const STORE_SCRIPT = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
if redis.call('GET', KEYS[3]) == ARGV[4] then redis.call('DEL', KEYS[3]) end
return 1`;
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Connects to Redis and returns a {@link RedisCountStore}, within
 * `connectTimeout`. When Redis does not answer, the store starts in its
 * fallback (every `fetch` answers `null`, so counts are kept per process)
 * and keeps reconnecting in the background, and the logger says so; with
 * `required: true` it is a {@link SqlUnavailableError}
 * `ERR_SQL_REDIS_UNREACHABLE` instead. A missing `ioredis` package is a
 * `ConfigurationError` naming it.
 * @example
 * ```ts
 * const store = await connectRedisCountStore({ url: 'redis://127.0.0.1:6379', logger: { warn: (o, m) => console.warn(m) } });
 * class Items extends PageNumberPagination { override countStrategy = cachedCount({ ttl: 10_000, store }); }
 * ```
 */
export async function connectRedisCountStore(options: RedisCountStoreOptions = {}): Promise<RedisCountStore> {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  if (typeof url !== 'string' || !/^rediss?:\/\//i.test(url))
    throw new ConfigurationError(`connectRedisCountStore needs a redis:// URL, not ${String(url)}`);
  const ms = (v: number | undefined, d: number, what: string): number => {
    if (v === undefined) return d;
    if (!(typeof v === 'number' && v > 0 && Number.isFinite(v)))
      throw new ConfigurationError(`connectRedisCountStore: ${what} must be a positive number of milliseconds`);
    return v;
  };
  const connectTimeout = ms(options.connectTimeout, 2000, 'connectTimeout');
  const commandTimeout = ms(options.commandTimeout, 500, 'commandTimeout');
  const lease = ms(options.lease, 30_000, 'lease');
  const waitTimeout = ms(options.waitTimeout, 2000, 'waitTimeout');
  const maxReconnectDelay = ms(options.maxReconnectDelay, 5000, 'maxReconnectDelay');
  const staleFor = options.staleFor === undefined ? null : ms(options.staleFor, 0, 'staleFor');
  const prefix = options.prefix ?? 'eventide:count:';
  const logger = options.logger;
  const target = redactUrl(url);

  const mod = loadOptional('ioredis', 'The Redis count store') as RedisConstructor | { default: RedisConstructor };
  const Redis = typeof mod === 'function' ? mod : mod.default;
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout,
    commandTimeout,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times, 10), maxReconnectDelay),
  });

  let available = false;
  let reported = false;
  let closed = false;
  let counted = 0;
  const unavailable = (err: unknown): void => {
    available = false;
    if (reported || closed) return;
    reported = true;
    logger?.warn(
      { redis: target, err: String((err as Error | null)?.message ?? err) },
      `Redis count store ${target} unreachable: counting in this process until it answers`,
    );
  };
  const reachable = (): void => {
    available = true;
    if (!reported) return;
    reported = false;
    const msg = `Redis count store ${target} reachable again: counts are shared`;
    if (logger?.info !== undefined) logger.info({ redis: target }, msg);
    else logger?.warn({ redis: target }, msg);
  };
  client.on('error', (err) => unavailable(err));
  client.on('ready', () => reachable());

  try {
    await withDeadline(client.connect(), connectTimeout, `no answer within ${connectTimeout} ms`);
    available = true;
  } catch (err) {
    if (options.required === true) {
      closed = true;
      client.disconnect();
      throw new SqlUnavailableError(
        'ERR_SQL_REDIS_UNREACHABLE',
        target,
        `Cannot reach Redis ${target} within ${connectTimeout} ms: ${String((err as Error | null)?.message ?? err)}`,
        { cause: err },
      );
    }
    unavailable(err);
  }

  const keysOf = (key: string): [string, string, string] => {
    const h = prefix + createHash('sha256').update(key).digest('base64url');
    return [`${h}:v`, `${h}:s`, `${h}:lock`];
  };

  const fetch = async (key: string, ttl: number, count: () => Promise<number>): Promise<number | null> => {
    if (closed || client.status !== 'ready') {
      if (!closed) unavailable(new Error(`connection ${client.status}`));
      return null;
    }
    const [fresh, stale, lock] = keysOf(key);
    const px = Math.max(1, Math.round(ttl));
    let token: string | null;
    let staleValue: string | null;
    try {
      const [v, s] = await client.mget(fresh, stale);
      if (v !== null && v !== undefined) {
        reachable();
        return Number(v);
      }
      staleValue = s ?? null;
      token = randomUUID();
      if ((await client.set(lock, token, 'PX', Math.round(lease), 'NX')) !== 'OK') token = null;
      else {
        // Another process may have stored a count between the MGET and the lease.
        const [again] = await client.mget(fresh);
        if (again !== null && again !== undefined) {
          await client.eval(RELEASE_SCRIPT, 1, lock, token);
          reachable();
          return Number(again);
        }
      }
      reachable();
    } catch (err) {
      unavailable(err);
      return null;
    }
    if (token === null) {
      // Another process is counting: the previous count, or wait a little for the new one.
      if (staleValue !== null) return Number(staleValue);
      const until = Date.now() + waitTimeout;
      for (let i = 0; i < 1000 && Date.now() < until; i++) {
        await sleep(Math.min(50, Math.max(1, until - Date.now())));
        try {
          const [v] = await client.mget(fresh);
          if (v !== null && v !== undefined) return Number(v);
        } catch (err) {
          unavailable(err);
          return null;
        }
      }
      counted++;
      return count();
    }
    let value: number;
    try {
      counted++;
      value = await count();
    } catch (err) {
      await client.eval(RELEASE_SCRIPT, 1, lock, token).catch(() => {});
      throw err;
    }
    await client
      .eval(STORE_SCRIPT, 3, fresh, stale, lock, String(value), px, px + (staleFor ?? px * 10), token)
      .catch((err: unknown) => unavailable(err));
    return value;
  };

  return {
    name: 'redis',
    fetch,
    get available() {
      return available && !closed && client.status === 'ready';
    },
    get counted() {
      return counted;
    },
    async close() {
      if (closed) return;
      closed = true;
      available = false;
      if (client.status === 'ready') await withDeadline(client.quit(), commandTimeout, 'quit').catch(() => {});
      client.disconnect();
    },
  };
}

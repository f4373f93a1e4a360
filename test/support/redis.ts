/**
 * The Redis server the tests share (127.0.0.1:6379; .ci/run starts one) and
 * a probe for it. Each test file decides what an unreachable server means
 * (a failing test, or a skip with EVENTIDE_SKIP_REDIS=1: test/skips.test.ts).
 */
import { Redis } from 'ioredis';

/** The shared test server. */
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Why the shared Redis cannot be reached (one connection and a PING, 10 s at most), or `null` when it answers. */
export async function redisReachable(): Promise<string | null> {
  const c = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 10_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.ping();
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    c.disconnect();
  }
}

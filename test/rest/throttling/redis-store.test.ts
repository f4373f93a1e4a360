/**
 * The Redis throttle store (Redis on 127.0.0.1:6379): the same decisions as
 * the memory store (itself checked against DRF in drf.differential) over
 * generated sequences, exactly the rate under concurrent clients, the
 * EVAL fallback when the server lost the script, and the deadline of a
 * check against a server that never answers.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { REDIS_URL, redisReachable } from '../../support/redis.js';
import { RedisThrottleStore } from '../../../src/rest/throttling/redis-store.js';
import { MemoryThrottleStore } from '../../../src/rest/throttling/memory-store.js';
import { parseRate } from '../../../src/rest/throttling/rate.js';
import { throttleCase } from './generators.js';

const PREFIX = `eventide-test:throttle:${process.pid}:${Date.now().toString(36)}:`;
const SEED = Number(process.env.EVENTIDE_THROTTLE_SEED ?? Math.floor(Math.random() * 2 ** 31));

const unreachable = await redisReachable();
const skip =
  unreachable !== null && process.env.EVENTIDE_SKIP_REDIS === '1'
    ? 'Redis not reachable (EVENTIDE_SKIP_REDIS=1)'
    : false;
if (unreachable !== null && process.env.EVENTIDE_SKIP_REDIS !== '1') {
  test('Redis is reachable on 127.0.0.1:6379 for the throttle store tests', () => {
    assert.fail(`${unreachable}: start it (.ci/run does) or set EVENTIDE_SKIP_REDIS=1`);
  });
}

const clients: Redis[] = [];
function client(): Redis {
  const c = new Redis(REDIS_URL, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
}

after(async () => {
  if (unreachable !== null) return;
  const c = client();
  let cursor = '0';
  do {
    const [next, keys] = await c.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0) await c.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await Promise.all(clients.map((x) => x.quit()));
});

test('Redis store = memory store over generated sequences (allowed set and wait)', { skip }, async (t) => {
  t.diagnostic(`seed ${SEED} (EVENTIDE_THROTTLE_SEED=${SEED} replays)`);
  const redis = new RedisThrottleStore({ client: client(), prefix: `${PREFIX}prop:`, commandTimeout: 5000 });
  const cases = [
    // A window's edge: an entry exactly `duration` old is expired (DRF's <=).
    { rate: '2/m', times: [1000, 1030, 1060, 1060, 1090, 1120.5] },
    // The clock stepping back, and a history expiring as a whole.
    { rate: '3/s', times: [10, 10.25, 9.5, 10.5, 10.75, 12, 11.5, 11.5] },
    ...fc.sample(throttleCase, { seed: SEED, numRuns: 300 }),
  ];
  let refused = 0;
  for (const [i, c] of cases.entries()) {
    const rate = parseRate(c.rate);
    assert.ok(rate !== null);
    const memory = new MemoryThrottleStore();
    for (const now of c.times) {
      const expected = await memory.hit('k', now, rate.numRequests, rate.duration);
      const got = await redis.hit(`case${i}`, now, rate.numRequests, rate.duration);
      assert.deepEqual(got, expected, `seed ${SEED}, case ${i} at ${now}: ${JSON.stringify(c)}`);
      if (!got.allowed) refused++;
    }
  }
  assert.ok(refused > 50, 'the sequences exercise refusals');
});

test('exactly the rate under concurrency: 8 connections, 400 simultaneous checks on one key', { skip }, async () => {
  const stores = Array.from(
    { length: 8 },
    () => new RedisThrottleStore({ client: client(), prefix: `${PREFIX}race:`, commandTimeout: 10_000 }),
  );
  for (const c of clients) if (c.status !== 'ready') await once(c, 'ready');
  const base = 1_800_000_000;
  const round = async (start: number): Promise<number> => {
    const answers = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        (stores[i % stores.length] as RedisThrottleStore).hit('k', start + i / 1000, 37, 60),
      ),
    );
    return answers.filter((a) => a.allowed).length;
  };
  assert.equal(await round(base), 37);
  assert.equal(await round(base + 30), 0, 'still within the window');
  assert.equal(await round(base + 61), 37, 'the next window allows the rate again');
});

test('the script is loaded again (EVAL) when the server lost it', { skip }, async () => {
  const c = client();
  const store = new RedisThrottleStore({ client: c, prefix: `${PREFIX}noscript:`, commandTimeout: 5000 });
  assert.deepEqual(await store.hit('k', 100, 1, 60), { allowed: true, wait: null });
  await c.script('FLUSH');
  assert.deepEqual(await store.hit('k', 110, 1, 60), { allowed: false, wait: 50 });
});

test('a check past commandTimeout rejects (a server that never answers)', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((s) => sockets.push(s)).listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const { port } = silent.address() as { port: number };
  const c = new Redis(port, '127.0.0.1', {
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  c.on('error', () => {});
  try {
    await once(c, 'connect');
    const store = new RedisThrottleStore({ client: c, commandTimeout: 200 });
    await assert.rejects(store.hit('k', 1, 1, 60), /no answer within 200 ms/);
  } finally {
    c.disconnect();
    for (const s of sockets) s.destroy();
    silent.close();
  }
});

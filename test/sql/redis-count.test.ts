/**
 * The Redis count store against the real Redis on 127.0.0.1:6379 (a key
 * prefix of this run, deleted afterwards): several "processes" (separate
 * stores, each with its own client and its own cachedCount) count a table
 * once per expiry; a Redis that is unreachable, never answers, or is
 * stopped and started again (a redis-server of the test's own) gives local
 * counts, one log line, and no wait.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { Redis } from 'ioredis';
import { REDIS_URL, redisReachable } from '../support/redis.js';
import { cachedCount } from '../../src/rest/pagination/count.js';
import { connectRedisCountStore, type RedisCountStore } from '../../src/sql/redis-count.js';
import { SqlUnavailableError } from '../../src/sql/errors.js';
import { SqlQueryset, type SqlExecutor } from '../../src/sql/queryset.js';
import { createSqliteKysely } from '../../src/sql/sqlite.js';
import { freePort } from './pg-standby.js';
import { requireCommand } from '../support/tools.js';
import { resolvesWithin, waitFor } from '../support/net.js';

const prefix = `eventide-test:${process.pid}:${Date.now().toString(36)}:`;

const unreachable = await redisReachable();
/** Redis opted out (EVENTIDE_SKIP_REDIS=1) and not there; unreachable without the opt-out fails below. */
const redisSkip =
  unreachable !== null && process.env.EVENTIDE_SKIP_REDIS === '1'
    ? 'Redis not reachable (EVENTIDE_SKIP_REDIS=1)'
    : false;
/** The server the restart test starts and stops itself. */
const redisServer = requireCommand('redis-server', 'apt-get install redis-server');
if (unreachable !== null && process.env.EVENTIDE_SKIP_REDIS !== '1') {
  test('Redis is reachable on 127.0.0.1:6379 for the count store tests', () => {
    assert.fail(`${unreachable}: start it (.ci/run does) or set EVENTIDE_SKIP_REDIS=1`);
  });
}

/** A queryset over 500 rows of SQLite whose executor counts the COUNT queries it runs. */
function table(): { items: SqlQueryset<{ id: number }>; counts: () => number; db: Kysely<never> } {
  const db = createSqliteKysely<never>(':memory:');
  let counts = 0;
  const exec: SqlExecutor = {
    executeQuery<R>(q: CompiledQuery<R>): Promise<QueryResult<R>> {
      if (/count\(/i.test(q.sql)) counts++;
      return db.executeQuery(q);
    },
  };
  const items = new SqlQueryset<{ id: number }>({
    db: exec,
    table: 'item',
    dialect: 'sqlite',
    fields: { id: { type: 'integer', unique: true } },
  });
  return { items, counts: () => counts, db };
}
async function seed(db: Kysely<never>): Promise<void> {
  const { sql } = await import('kysely');
  await sql`create table item (id integer primary key)`.execute(db);
  await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < 500) insert into item select i from s`.execute(
    db,
  );
}
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Deadlines of the stores on a Redis that answers: generous, so that a loaded machine never makes
 * it look unreachable (the store would then count locally, and the counts below would differ).
 */
const ANSWERS = { connectTimeout: 10_000, commandTimeout: 10_000 } as const;

/** The keys of `pattern` (a pattern under this run's prefix). */
async function scanKeys(c: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  for (let i = 0; i < 1000; i++) {
    const [next, keys] = await c.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    out.push(...keys);
    cursor = next;
    if (cursor === '0') break;
  }
  return out;
}

/** A TCP server that accepts connections and never answers. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('the Redis count store', { skip: redisSkip }, () => {
  const stores: RedisCountStore[] = [];
  const { items, counts, db } = table();
  before(() => seed(db));
  after(async () => {
    for (const s of stores) await s.close();
    await db.destroy();
    const c = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 10_000 });
    try {
      const keys = await scanKeys(c, `${prefix}*`);
      if (keys.length > 0) await c.del(...keys);
    } finally {
      c.disconnect();
    }
  });

  test('four processes, many concurrent counts: the table is counted once per expiry', async () => {
    // Shared counts: a ttl that no run of the rounds outlasts, so they all fall in the first expiry;
    // the processes that miss while one counts wait for its count (up to 60 s: it must come).
    const processes = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const store = await connectRedisCountStore({ url: REDIS_URL, prefix, ...ANSWERS, waitTimeout: 60_000 });
        stores.push(store);
        return { store, strategy: cachedCount({ ttl: 600_000, store }) };
      }),
    );
    assert.equal(processes[0]!.strategy.name, 'cached(600000ms, redis)');
    const round = async (): Promise<number[]> =>
      Promise.all(processes.flatMap((p) => Array.from({ length: 5 }, () => p.strategy.count(items))));
    assert.deepEqual(await round(), Array(20).fill(500));
    assert.deepEqual(await round(), Array(20).fill(500));
    assert.equal(counts(), 1, 'one count for four processes');
    assert.equal(
      processes.reduce((n, p) => n + p.store.counted, 0),
      1,
    );

    // The expiry: two more processes (their own key prefix) with a 1 s ttl. Redis keeps the count
    // for the ttl at most, drops it then, and the next count is counted again.
    const TTL = 1000;
    const expiring = `${prefix}expiry:`;
    const [a, b] = await Promise.all(
      [0, 1].map(async () => {
        const store = await connectRedisCountStore({ url: REDIS_URL, prefix: expiring, ...ANSWERS });
        stores.push(store);
        return { store, strategy: cachedCount({ ttl: TTL, store }) };
      }),
    );
    assert.equal(await a!.strategy.count(items), 500);
    assert.equal(counts(), 2);
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, ...ANSWERS });
    try {
      const fresh = await scanKeys(admin, `${expiring}*:v`);
      assert.equal(fresh.length, 1, fresh.join(' '));
      const pttl = await admin.pttl(fresh[0]!);
      // -2: already gone (a loaded machine may take the whole ttl to get here); -1 would be no expiry.
      assert.ok(pttl === -2 || (pttl > 0 && pttl <= TTL), `kept for ${pttl} ms`);
      const until = Date.now() + 30_000;
      while ((await admin.exists(fresh[0]!)) === 1) {
        assert.ok(Date.now() < until, 'the count expires in Redis');
        await sleep(50);
      }
    } finally {
      admin.disconnect();
    }
    assert.equal(await b!.strategy.count(items), 500);
    assert.equal(counts(), 3, 'one more count after the expiry');
    assert.equal(a!.store.counted + b!.store.counted, 2);
  });

  test('a process that misses while another holds the lease answers the stale count, or waits for the new one', async () => {
    const leasePrefix = `${prefix}lease:`;
    // The waiter waits up to 60 s for the holder's count: it must come once released.
    const [holder, waiter] = await Promise.all(
      [0, 1].map(async () => {
        const store = await connectRedisCountStore({
          url: REDIS_URL,
          prefix: leasePrefix,
          ...ANSWERS,
          waitTimeout: 60_000,
        });
        stores.push(store);
        return store;
      }),
    );
    // The order of events comes from Redis itself: MONITOR shows each SET of the lease as it runs.
    const watcher = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, ...ANSWERS });
    const monitor = await watcher.monitor();
    let leaseSets = 0;
    monitor.on('monitor', (_time: string, args: string[]) => {
      const [cmd, key] = args;
      if (cmd?.toLowerCase() === 'set' && key?.startsWith(leasePrefix) && key.endsWith(':lock')) leaseSets++;
    });
    try {
      let release: (n: number) => void = () => {};
      let leased = false;
      const slow = holder!.fetch('k', 10_000, () => {
        leased = true;
        return new Promise<number>((resolve) => (release = resolve));
      });
      await waitFor(() => leased, 10_000); // the holder has the lease and counts
      let counted = false;
      const waiting = waiter!.fetch('k', 10_000, () => {
        counted = true;
        return Promise.resolve(-1);
      });
      // The waiter tried to take the lease (refused: the holder has it), so it waits for the count.
      await waitFor(() => leaseSets === 2, 10_000);
      release(42);
      assert.equal(await slow, 42);
      assert.ok(await resolvesWithin(waiting, 30_000), 'the waiter answers once the count is stored');
      assert.equal(await waiting, 42, 'the waiter got the lease holder’s count');
      assert.equal(counted, false);
      assert.equal(waiter!.counted, 0);
    } finally {
      monitor.disconnect();
      watcher.disconnect();
    }
  });

  test('Redis unreachable (a closed port): local counts, one log line, no wait', async () => {
    const port = await freePort();
    const warnings: string[] = [];
    // A count that waited for Redis would wait for a reconnection attempt to fail (they back off
    // to a minute here) or for its command's timeout (a minute): 40 of them, far past 20 s.
    const store = await connectRedisCountStore({
      url: `redis://127.0.0.1:${port}`,
      prefix,
      connectTimeout: 500,
      commandTimeout: 60_000,
      maxReconnectDelay: 60_000,
      logger: { warn: (_o, m) => warnings.push(m) },
    });
    stores.push(store);
    assert.equal(store.available, false);
    const strategy = cachedCount({ ttl: 60_000, store });
    const before = counts();
    const counting = (async (): Promise<void> => {
      for (let i = 0; i < 20; i++) assert.equal(await strategy.count(items), 500);
      await sleep(300); // reconnection attempts meanwhile
      for (let i = 0; i < 20; i++) assert.equal(await strategy.count(items), 500);
    })();
    assert.ok(await resolvesWithin(counting, 20_000), 'the counts answer without waiting for Redis');
    assert.equal(counts() - before, 1, 'counted once, in this process');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /unreachable/);
  });

  test('at start-up with required: ERR_SQL_REDIS_UNREACHABLE within the deadline (closed port, silent server)', async () => {
    const port = await freePort();
    const silent = await silentServer();
    try {
      for (const url of [`redis://127.0.0.1:${port}`, `redis://:secret@127.0.0.1:${silent.port}`]) {
        // The silent server takes the connection and never answers: only connectTimeout ends the
        // wait (the commands' own timeout is a minute here).
        const failed = assert.rejects(
          connectRedisCountStore({ url, connectTimeout: 300, commandTimeout: 60_000, required: true }),
          (e: unknown) =>
            e instanceof SqlUnavailableError &&
            e.code === 'ERR_SQL_REDIS_UNREACHABLE' &&
            e.message.includes('within 300 ms') &&
            !e.message.includes('secret'),
        );
        assert.ok(await resolvesWithin(failed, 20_000), `${url}: the error came`);
      }
      // Not required: the silent server gives a store that counts locally.
      const store = await connectRedisCountStore({ url: `redis://127.0.0.1:${silent.port}`, connectTimeout: 300 });
      stores.push(store);
      assert.equal(await store.fetch('k', 1000, () => Promise.resolve(1)), null);
    } finally {
      await silent.close();
    }
  });
});

describe(
  'a Redis server stopped and started again',
  {
    skip: redisSkip || redisServer.skip,
  },
  () => {
    let server: ChildProcess | null = null;
    let port = 0;
    const startServer = async (): Promise<void> => {
      server = spawn(
        redisServer.path,
        ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
      const c = new Redis(`redis://127.0.0.1:${port}`, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      c.on('error', () => {});
      try {
        const until = Date.now() + 30_000;
        for (let i = 0; i < 600 && Date.now() < until; i++) {
          try {
            await c.connect();
            await c.ping();
            return;
          } catch {
            await sleep(50);
          }
        }
        throw new Error('redis-server did not start within 30 s');
      } finally {
        c.disconnect();
      }
    };
    const stopServer = async (): Promise<void> => {
      const s = server;
      server = null;
      if (s === null || s.exitCode !== null) return;
      const exited = new Promise((resolve) => s.once('exit', resolve));
      s.kill('SIGKILL');
      await exited;
    };
    after(stopServer);

    test('shared counts, then local counts with one log line while it is down, then shared again', async () => {
      port = await freePort();
      await startServer();
      const { items, counts, db } = table();
      await seed(db);
      const warnings: string[] = [];
      const infos: string[] = [];
      // Reconnection attempts back off to 5 s: a count that waited for one while the server is down
      // would take 0.2 + 0.4 + ... + 5 s, 10 of them 31 s, past 20 s; the attempt after the restart
      // comes within 5 s.
      const store = await connectRedisCountStore({
        url: `redis://127.0.0.1:${port}`,
        ...ANSWERS,
        maxReconnectDelay: 5000,
        logger: { warn: (_o, m) => warnings.push(m), info: (_o, m) => infos.push(m) },
      });
      try {
        const strategy = cachedCount({ ttl: 60_000, store });
        assert.equal(await strategy.count(items), 500);
        assert.equal(store.available, true);
        await stopServer();
        const counting = (async (): Promise<void> => {
          for (let i = 0; i < 10; i++) {
            assert.equal(await strategy.count(items), 500);
            await sleep(20);
          }
        })();
        assert.ok(await resolvesWithin(counting, 20_000), 'the counts answer without waiting for Redis');
        assert.equal(store.available, false);
        assert.equal(warnings.length, 1, warnings.join('\n'));
        assert.equal(counts(), 2, 'the shared count, then one local count');
        await startServer();
        await waitFor(() => store.available, 60_000).catch(() => {});
        assert.equal(store.available, true, 'reconnected');
        assert.equal(infos.length, 1, 'one line when it is back');
        assert.equal(await strategy.count(items), 500);
        assert.equal(warnings.length, 1);
      } finally {
        await store.close();
        await db.destroy();
      }
    });
  },
);

/**
 * Read replicas: ReplicaRouter's routing, failover and backoff on fake
 * executors; then a real streaming replica (test/sql/pg-standby.ts) killed
 * in the middle of a keyset walk and brought back; and start-up against
 * servers that refuse or never answer.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { CompiledQuery, type QueryResult } from 'kysely';
import pg from 'pg';
import {
  ReplicaRouter,
  classifyReadError,
  openPostgresReplicas,
  type PostgresReplicas,
} from '../../src/sql/replicas.js';
import { SqlUnavailableError } from '../../src/sql/errors.js';
import { SqlQueryset, type SqlExecutor } from '../../src/sql/queryset.js';
import { probePostgres } from '../rest/data/conformance.js';
import { freePort, postgresBin, startStandby, type Standby } from './pg-standby.js';
import { requireTool } from '../support/tools.js';
import { resolvesWithin } from '../support/net.js';

const probe = await probePostgres();
const bin = postgresBin();
const binaries = requireTool(
  bin === null ? 'no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)' : null,
);
const skip =
  probe.url === null
    ? (probe.skip ?? 'PostgreSQL not reachable (see test/sql/queryset.test.ts)')
    : binaries.skip || undefined;

/** A fake executor that answers `{ rows: [{ who: name }] }` or throws what `fail` holds. */
function fake(name: string): SqlExecutor & { calls: number; fail: Error | null } {
  const e = {
    calls: 0,
    fail: null as Error | null,
    executeQuery<R>(): Promise<QueryResult<R>> {
      e.calls++;
      if (e.fail !== null) return Promise.reject(e.fail);
      return Promise.resolve({ rows: [{ who: name } as R] });
    },
  };
  return e;
}
const q = CompiledQuery.raw('select 1');
const who = async (r: SqlExecutor): Promise<string> => ((await r.executeQuery(q)).rows[0] as { who: string }).who;
const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

describe('ReplicaRouter (fake executors)', () => {
  test('round robin over healthy replicas; none read from the primary', async () => {
    const [p, a, b] = [fake('p'), fake('a'), fake('b')];
    const r = new ReplicaRouter({ primary: p, replicas: [a, b], balance: 'round-robin' });
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push(await who(r));
    assert.deepEqual(seen, ['a', 'b', 'a', 'b', 'a', 'b']);
    assert.equal(r.primaryReads, 0);
  });

  test('least-busy takes the replica with fewer queries in flight', async () => {
    let release: () => void = () => {};
    const slow: SqlExecutor = {
      executeQuery: <R>() =>
        new Promise<QueryResult<R>>((resolve) => {
          release = () => resolve({ rows: [{ who: 'slow' } as R] });
        }),
    };
    const r = new ReplicaRouter({ primary: fake('p'), replicas: [slow, fake('b')] });
    const pending = who(r); // slow is busy from now on
    assert.deepEqual([await who(r), await who(r)], ['b', 'b']);
    release();
    assert.equal(await pending, 'slow');
  });

  test('a replica that fails is taken out, the read is retried, the primary serves when none is left; probes bring it back with backoff', async () => {
    let now = 1000;
    const warnings: string[] = [];
    const infos: string[] = [];
    const [p, a, b] = [fake('p'), fake('a'), fake('b')];
    const r = new ReplicaRouter({
      primary: p,
      replicas: [a, b],
      balance: 'round-robin',
      retryAfter: 100,
      maxRetryAfter: 300,
      now: () => now,
      logger: { warn: (_o, m) => warnings.push(m), info: (_o, m) => infos.push(m) },
    });
    a.fail = refused();
    assert.equal(await who(r), 'b'); // a failed: retried on b
    assert.deepEqual(
      r.status().map((s) => s.healthy),
      [false, true],
    );
    b.fail = Object.assign(new Error('FATAL: the database system is in recovery mode'), { code: '57P03' });
    assert.equal(await who(r), 'p');
    assert.equal(await who(r), 'p');
    assert.equal(r.primaryReads, 2);
    assert.equal(warnings.length, 2, 'one line per replica going down');
    // Before the backoff: no probe. After it: a probe in the background; a failed probe doubles the wait.
    const callsA = a.calls;
    await who(r);
    assert.equal(a.calls, callsA);
    now += 100;
    await who(r);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(a.calls, callsA + 1, 'probed once');
    assert.equal(r.status()[0]!.retryAt, now + 200);
    a.fail = null;
    now += 200;
    assert.equal(await who(r), 'p', 'the read that starts the probe does not wait for it');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(r.status()[0]!.healthy, true);
    assert.equal(await who(r), 'a');
    assert.equal(infos.length, 1);
    assert.equal(warnings.length, 2, 'failed probes are not logged again');
  });

  test('errors of the query itself are thrown as they are; a replication conflict is read on the primary', async () => {
    const [p, a] = [fake('p'), fake('a')];
    const r = new ReplicaRouter({ primary: p, replicas: [a] });
    a.fail = Object.assign(new Error('relation "nope" does not exist'), { code: '42P01' });
    await assert.rejects(who(r), /does not exist/);
    assert.equal(p.calls, 0);
    assert.equal(r.status()[0]!.healthy, true);
    a.fail = Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' });
    assert.equal(await who(r), 'p');
    assert.equal(r.status()[0]!.healthy, true, 'a conflict does not take the replica out');
  });

  test('a replica that does not answer within queryTimeout is taken out and the read served elsewhere', async () => {
    const hang: SqlExecutor = { executeQuery: () => new Promise(() => {}) };
    const r = new ReplicaRouter({ primary: fake('p'), replicas: [hang], queryTimeout: 50 });
    // Without a deadline the read never ends; the message tells that it was this one (not the 10 s default).
    const read = who(r);
    assert.ok(await resolvesWithin(read, 30_000), 'the read is answered');
    assert.equal(await read, 'p');
    assert.equal(r.status()[0]!.healthy, false);
    assert.match(r.status()[0]!.lastError ?? '', /timed out after 50 ms/);
  });

  test('classifyReadError', () => {
    assert.equal(classifyReadError(refused()), 'down');
    assert.equal(classifyReadError(new Error('Connection terminated unexpectedly')), 'down');
    assert.equal(classifyReadError(Object.assign(new Error('x'), { code: '08006' })), 'down');
    assert.equal(classifyReadError(Object.assign(new Error('x'), { code: '57P01' })), 'down');
    assert.equal(classifyReadError(Object.assign(new Error('x'), { code: '22P02' })), 'fatal');
  });
});

// ---------------------------------------------------------------------------
// Start-up against servers that refuse or never answer

describe('openPostgresReplicas at start-up', { skip: probe.url === null ? (skip ?? true) : undefined }, () => {
  let silent: Server;
  let silentPort = 0;
  const sockets = new Set<Socket>();
  before(async () => {
    silent = createServer((s) => {
      sockets.add(s); // accepts and never answers
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  test('a primary that refuses: ERR_SQL_PRIMARY_UNREACHABLE at once', async () => {
    const port = await freePort();
    await assert.rejects(
      openPostgresReplicas({ primary: `postgres://u:secret@127.0.0.1:${port}/x`, connectTimeout: 2000 }),
      (e: unknown) =>
        e instanceof SqlUnavailableError &&
        e.code === 'ERR_SQL_PRIMARY_UNREACHABLE' &&
        !e.message.includes('secret') &&
        e.message.includes('u:***@127.0.0.1'),
    );
  });

  test('a primary that never answers: the error comes at the deadline', async () => {
    // Nothing else ends this wait: without the deadline it would never come.
    const failed = assert.rejects(
      openPostgresReplicas({ primary: `postgres://postgres@127.0.0.1:${silentPort}/x`, connectTimeout: 300 }),
      (e: unknown) =>
        e instanceof SqlUnavailableError &&
        e.code === 'ERR_SQL_PRIMARY_UNREACHABLE' &&
        e.message.includes('within 300 ms'),
    );
    assert.ok(await resolvesWithin(failed, 30_000), 'the error came');
  });

  test('a replica that does not answer: logged, out of the rotation, reads on the primary; requireReplicas makes it an error', async () => {
    // connectTimeout is also the real primary's deadline: it must answer within it on a loaded
    // machine (300 ms failed; 1.2 s seen at load 10). The silent replica fails only at the
    // deadline, so both openings run at once.
    const connectTimeout = 10_000;
    const required = assert.rejects(
      openPostgresReplicas({
        primary: probe.url!,
        replicas: [`postgres://postgres@127.0.0.1:${silentPort}/x`],
        connectTimeout,
        requireReplicas: true,
      }),
      (e: unknown) =>
        e instanceof SqlUnavailableError &&
        e.code === 'ERR_SQL_REPLICA_UNREACHABLE' &&
        e.message.includes(`within ${connectTimeout} ms`),
    );
    required.catch(() => {}); // awaited below
    const warnings: string[] = [];
    const opening = openPostgresReplicas({
      primary: probe.url!,
      replicas: [`postgres://postgres@127.0.0.1:${silentPort}/x`],
      connectTimeout,
      logger: { warn: (_o, m) => warnings.push(m) },
    });
    // Without the deadline the silent replica would hold both openings forever.
    assert.ok(await resolvesWithin(opening, 30_000), 'opened');
    const dbs = await opening;
    try {
      assert.equal(dbs.reads.status()[0]!.healthy, false);
      assert.equal(warnings.length, 1);
      const r = await dbs.reads.executeQuery(CompiledQuery.raw('select 1 as one'));
      assert.equal((r.rows[0] as { one: number }).one, 1);
      assert.equal(dbs.reads.primaryReads, 1);
    } finally {
      await dbs.close();
    }
    assert.ok(await resolvesWithin(required, 30_000), 'requireReplicas: the error came');
  });
});

// ---------------------------------------------------------------------------
// A connection lost while a read runs on it

/**
 * A TCP proxy to `port` that forwards both ways until `cut` is set: then the next bytes a
 * client sends (a query, on a connection the pool already opened) close that connection
 * instead of reaching the server, so the server is gone while the query runs.
 */
async function cuttingProxy(port: number): Promise<{ port: number; cut: boolean; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = {
    port: 0,
    cut: false,
    close: async (): Promise<void> => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (state.cut) client.destroy();
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as { port: number }).port;
  return state;
}

describe(
  'a replica connection lost in the middle of a read',
  { skip: probe.url === null ? (skip ?? true) : undefined },
  () => {
    test('the read is answered by the primary, the replica is out of the rotation, and nothing is thrown outside the read', async () => {
      const url = new URL(probe.url!);
      const proxy = await cuttingProxy(Number(url.port || 5432));
      const replicaUrl = new URL(probe.url!);
      replicaUrl.port = String(proxy.port);
      const warnings: string[] = [];
      const dbs = await openPostgresReplicas({
        primary: probe.url!,
        replicas: [replicaUrl.href],
        connectTimeout: 10_000,
        logger: { warn: (_o, m) => warnings.push(m) },
      });
      try {
        assert.equal(dbs.reads.status()[0]!.healthy, true, 'the replica answered at start-up');
        // The start-up check left an idle connection in the replica's pool: the read takes it, and
        // its query closes it. pg's client then emits 'error', which an uncaught exception would
        // report (failing this test) if the pool's checked-out clients had no listener.
        proxy.cut = true;
        const r = await dbs.reads.executeQuery(CompiledQuery.raw('select 1 as one'));
        assert.equal((r.rows[0] as { one: number }).one, 1);
        assert.equal(dbs.reads.primaryReads, 1);
        const [status] = dbs.reads.status();
        assert.equal(status!.healthy, false);
        assert.match(status!.lastError ?? '', /Connection terminated/);
        assert.equal(warnings.length, 1, warnings.join('\n'));
        // A turn for the client's 'error' event and the pool's clean-up, and the process is still here.
        await new Promise((resolve) => setImmediate(resolve));
        const again = await dbs.reads.executeQuery(CompiledQuery.raw('select 2 as two'));
        assert.equal((again.rows[0] as { two: number }).two, 2);
      } finally {
        await dbs.close();
        await proxy.close();
      }
    });
  },
);

// ---------------------------------------------------------------------------
// A real streaming replica

describe('a streaming replica killed mid-walk and brought back', { skip }, () => {
  const ROWS = 300;
  const PAGE = 20;
  let standby: Standby | null = null;
  let dbs: PostgresReplicas<never> | null = null;
  const schema = `eventide_replica_${process.pid}_${Date.now().toString(36)}`;
  const scoped = (url: string): string => `${url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;

  before(async () => {
    standby = await startStandby(bin!, probe.url!);
    const admin = new pg.Client({ connectionString: standby.primaryUrl, connectionTimeoutMillis: 10_000 });
    await admin.connect();
    try {
      await admin.query(`create schema ${schema}`);
      await admin.query(`create table ${schema}.item (id integer primary key, name text)`);
      await admin.query(`insert into ${schema}.item select i, 'item-' || i from generate_series(1, ${ROWS}) as i`);
    } finally {
      await admin.end();
    }
    // Wait (up to 60 s) until the replica has replayed the table.
    const replica = new pg.Client({ connectionString: standby.replicaUrl, connectionTimeoutMillis: 10_000 });
    await replica.connect();
    try {
      let n = 0;
      const until = Date.now() + 60_000;
      for (let i = 0; i < 600 && n !== ROWS && Date.now() < until; i++) {
        const r = await replica.query<{ n: string | null }>(
          `select case when to_regclass('${schema}.item') is null then null else (select count(*) from ${schema}.item) end as n`,
        );
        n = Number(r.rows[0]!.n ?? -1);
        if (n !== ROWS) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(n, ROWS, 'the replica replays the primary');
    } finally {
      await replica.end();
    }
  });

  after(async () => {
    await dbs?.close();
    if (standby !== null) {
      if (!standby.ownPrimary) {
        const admin = new pg.Client({ connectionString: standby.primaryUrl, connectionTimeoutMillis: 10_000 });
        await admin
          .connect()
          .then(() => admin.query(`drop schema if exists ${schema} cascade`))
          .catch(() => {});
        await admin.end().catch(() => {});
      }
      await standby.cleanup();
    }
  });

  test('reads go to the replica; every page answers while it is down (primary); it is used again when back', async () => {
    const s = standby!;
    const warnings: string[] = [];
    dbs = await openPostgresReplicas<never>({
      primary: scoped(s.primaryUrl),
      replicas: [scoped(s.replicaUrl)],
      // Deadlines for a loaded machine: the first read must reach the replica, every read answer.
      // A stopped replica refuses at once, so they never hold the walk up.
      connectTimeout: 10_000,
      queryTimeout: 10_000,
      retryAfter: 200,
      maxRetryAfter: 400,
      logger: { warn: (_o, m) => warnings.push(m), info: () => {} },
    });
    const reads = dbs.reads;
    const recovery = await reads.executeQuery(CompiledQuery.raw('select pg_is_in_recovery() as r'));
    assert.equal((recovery.rows[0] as { r: boolean }).r, true, 'the read ran on the standby');
    const items = new SqlQueryset<{ id: number; name: string }>({
      db: reads,
      table: 'item',
      dialect: 'postgres',
      fields: { id: { type: 'integer', unique: true }, name: { type: 'text' } },
    }).orderBy('id');
    const ids: number[] = [];
    let last = 0;
    const page = async (): Promise<void> => {
      const rows = await items.filter('id', 'gt', last).slice(0, PAGE);
      for (const r of rows) ids.push(r.id);
      last = rows.at(-1)?.id ?? last;
    };
    for (let i = 0; i < 3; i++) await page();
    assert.equal(await items.count(), ROWS);
    assert.equal(reads.primaryReads, 0, 'no read on the primary while the replica is healthy');
    const replicaReads = reads.status()[0]!.reads;
    assert.ok(replicaReads >= 5);

    await s.stopReplica();
    for (let i = 0; i < 4; i++) await page();
    assert.equal(reads.status()[0]!.healthy, false);
    assert.ok(reads.primaryReads >= 4, `${reads.primaryReads} reads on the primary`);
    assert.equal(warnings.length, 1, warnings.join('\n'));

    await s.startReplica();
    // Probed again after the backoff (200-400 ms), it rejoins: up to 60 s of reads for that.
    const until = Date.now() + 60_000;
    for (let i = 0; i < 1200 && Date.now() < until && reads.status()[0]!.reads === replicaReads; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (last < ROWS) await page();
      else await items.count();
    }
    assert.ok(reads.status()[0]!.reads > replicaReads, 'the replica serves reads again');
    assert.equal(reads.status()[0]!.healthy, true);
    while (last < ROWS) await page();
    assert.deepEqual(
      ids,
      Array.from({ length: ROWS }, (_, i) => i + 1),
    );
  });
});

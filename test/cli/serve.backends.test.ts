/**
 * `eventide serve --replicas ... --redis ...` over real sockets: the demo on
 * PostgreSQL with a replica URL and the shared Redis count cache answers;
 * an unreachable replica or Redis is a warning in the log, never a failure
 * or a hang; the options' checks. (The replica routing and the Redis store
 * themselves are tested in test/sql/.)
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseServeArgs, UsageError } from '../../src/cli/serve.js';
import { postgresSchema, probePostgres } from '../rest/data/conformance.js';
import { freePort, killAll } from '../support/spawn.js';
import { announced, get, startServe } from './serve-support.js';

after(killAll);

test('--replicas, --redis and --trust-proxy: parsed from the command line or the environment, checked', () => {
  const o = parseServeArgs(
    [
      '--database',
      'postgres://a@db1/x',
      '--replicas',
      'postgres://a@db2/x, postgres://a@db3/x',
      '--redis',
      'redis://r:6379',
    ],
    {},
    {},
  );
  assert.deepEqual(o.replicas, ['postgres://a@db2/x', 'postgres://a@db3/x']);
  assert.equal(o.redis, 'redis://r:6379');
  const e = parseServeArgs(
    ['--database', 'postgres://a@db1/x'],
    {},
    { EVENTIDE_REPLICAS: 'postgres://a@db2/x', EVENTIDE_REDIS_URL: 'rediss://r' },
  );
  assert.deepEqual([e.replicas, e.redis], [['postgres://a@db2/x'], 'rediss://r']);
  assert.equal(parseServeArgs(['--trust-proxy']).trustProxy, true);
  assert.equal(parseServeArgs([], {}, { EVENTIDE_TRUST_PROXY: 'yes' }).trustProxy, true);
  assert.equal(parseServeArgs([]).trustProxy, false);
  assert.throws(
    () => parseServeArgs([], {}, { EVENTIDE_TRUST_PROXY: 'maybe' }),
    /EVENTIDE_TRUST_PROXY must be 1, true, yes/,
  );
  assert.deepEqual(parseServeArgs([]).replicas, []);
  assert.equal(parseServeArgs([]).redis, null);
  for (const [args, re] of [
    [['--replicas', 'postgres://a@db2/x'], /needs a postgres:\/\/ --database/],
    [['--database', 'postgres://a@db1/x', '--replicas', 'mysql://db2'], /--replicas needs postgres:\/\/ URLs/],
    [['--redis', 'http://r'], /--redis needs a redis:\/\/ URL/],
  ] as const) {
    assert.throws(
      () => parseServeArgs([...args]),
      (err: unknown) => err instanceof UsageError && re.test(err.message),
    );
  }
});

const probe = await probePostgres();

test(
  'the demo on PostgreSQL with a replica and Redis answers; an unreachable replica and Redis are warnings, not failures',
  { skip: probe.url === null ? (probe.skip ?? false) : false, timeout: 120_000 }, // unreachable without EVENTIDE_SKIP_POSTGRES=1: fails
  async (t) => {
    const scope = await postgresSchema(probe.url!, 'eventide_serve_backends');
    t.after(() => scope.drop());
    const closed = await freePort();
    for (const [replica, redis, warns] of [
      [scope.url, 'redis://127.0.0.1:6379', []],
      [scope.url.replace(':5432/', `:${closed}/`), `redis://127.0.0.1:${closed}`, [/replica/i, /redis/i]],
    ] as const) {
      const run = startServe([
        '--database',
        scope.url,
        '--rows',
        '500',
        '--replicas',
        replica,
        '--redis',
        redis,
        '--log-format',
        'json',
      ]);
      try {
        const { port } = await announced(run, 60_000);
        for (const path of ['/page/items/?page=2', '/page/items/?page=3']) {
          const r = await get(port, path);
          assert.equal(r.status, 200, `${path}: ${r.body}`);
          assert.equal((JSON.parse(r.body) as { count: number }).count, 500);
        }
        for (const re of warns) assert.match(run.stdout(), re, 'the outage is in the log');
      } finally {
        run.kill('SIGTERM');
        await run.waitExit(20_000).catch(() => run.kill());
      }
    }
  },
);

/**
 * `eventide serve` as a child process: seeding a new SQLite file, opening an
 * existing one, a wrong-shape file, PostgreSQL, several workers on one port,
 * one log line per request, clean shutdown on SIGINT/SIGTERM (within the
 * shutdown deadline), host validation (ALLOWED_HOSTS), `--help`, bad
 * options. The worker supervision is in workers.test.ts.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAll, runNode, type ExampleRun } from '../support/spawn.js';
import { defaultAllowedHosts, parseServeArgs, SERVE_USAGE, UsageError } from '../../src/cli/serve.js';
import { announced, get, startServe } from './serve-support.js';

after(killAll);
const dir = mkdtempSync(join(tmpdir(), 'eventide-serve-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function serve(args: string[]): ExampleRun {
  return runNode(['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', ...args]);
}

async function origin(run: ExampleRun): Promise<string> {
  await run.waitStdout('listening on http://', 60000);
  const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(run.stdout());
  assert.ok(m, `origin printed: ${run.stdout()}`);
  return m[1] as string;
}

/** The detail of a disallowed host (the quoting of the host may be Python's or JSON's). */
function disallowed(host: string): RegExp {
  return new RegExp(`^Invalid HTTP_HOST header: ['"]${host.replace(/[.[\]]/g, '\\$&')}['"]\\.$`);
}

test('options: defaults and errors', () => {
  const o = parseServeArgs([]);
  assert.deepEqual(
    [
      o.host,
      o.port,
      o.database,
      o.rows,
      o.workers,
      o.quiet,
      o.allowedHosts,
      o.shutdownTimeout,
      o.maxRestarts,
      o.restartWindow,
      o.help,
    ],
    ['127.0.0.1', 8000, 'eventide-demo.sqlite3', 100000, 0, false, null, 10, 5, 30, false],
  );
  assert.equal(parseServeArgs(['--port=9000', '--rows', '5', '--workers', '2', '--quiet']).port, 9000);
  const p = parseServeArgs([
    '--allowed-hosts',
    'a.test, .b.test',
    '--shutdown-timeout=2.5',
    '--max-restarts',
    '0',
    '--restart-window',
    '60',
    '-h',
  ]);
  assert.deepEqual(
    [p.allowedHosts, p.shutdownTimeout, p.maxRestarts, p.restartWindow, p.help],
    [['a.test', '.b.test'], 2.5, 0, 60, true],
  );
  assert.equal(parseServeArgs([], { maxRestarts: 9 }).maxRestarts, 9);
  assert.equal(parseServeArgs(['--max-restarts', '1'], { maxRestarts: 9 }).maxRestarts, 1);
  assert.throws(
    () => parseServeArgs(['--port', 'x']),
    (e: unknown) => e instanceof UsageError && /--port needs an integer/.test(e.message),
  );
  assert.throws(() => parseServeArgs(['--port', '70000']), /between 0 and 65535/);
  assert.throws(() => parseServeArgs(['--workers', '0']), /--workers must be between 1 and 64/);
  assert.throws(() => parseServeArgs(['--allowed-hosts', ' , ']), /--allowed-hosts needs a comma-separated list/);
  assert.throws(() => parseServeArgs(['--allowed-hosts', 'a b']), /is not a host name/);
  assert.throws(() => parseServeArgs(['--shutdown-timeout', '-1']), /--shutdown-timeout needs a number of seconds/);
  assert.throws(() => parseServeArgs(['--restart-window', '0']), /between 1 and 86400 seconds/);
  assert.throws(() => parseServeArgs(['--bogus']), /unknown option --bogus/);
  assert.deepEqual(defaultAllowedHosts('127.0.0.1'), ['localhost', '127.0.0.1', '[::1]', '.example.com']);
  assert.deepEqual(defaultAllowedHosts('0.0.0.0'), ['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '.example.com']);
  assert.deepEqual(defaultAllowedHosts('::'), ['localhost', '127.0.0.1', '[::1]', '[::]', '.example.com']);
});

test('--help, -h and `eventide help serve` print the usage with every option and its default, exit 0', async () => {
  for (const flag of ['--help', '-h']) {
    const run = startServe([flag]);
    const ex = await run.waitExit();
    assert.equal(ex.code, 0, run.stderr());
    assert.equal(run.stdout(), SERVE_USAGE);
    assert.equal(run.stderr(), '');
  }
  const viaHelp = runNode(['--import', 'tsx', 'src/cli/main.ts', 'help', 'serve']);
  assert.equal((await viaHelp.waitExit()).code, 0, viaHelp.stderr());
  assert.equal(viaHelp.stdout(), SERVE_USAGE);
  for (const flag of [
    '--host',
    '--port',
    '--database',
    '--rows',
    '--workers',
    '--allowed-hosts',
    '--shutdown-timeout',
    '--max-restarts',
    '--restart-window',
    '--quiet',
    '--help',
  ]) {
    assert.ok(SERVE_USAGE.includes(`  ${flag} `) || SERVE_USAGE.includes(`, ${flag} `), flag);
  }
  for (const d of [
    '(default 127.0.0.1)',
    '(default 8000)',
    'default eventide-demo.sqlite3',
    '(default 100000)',
    '(default 10)',
    '(default 5)',
    '(default 30)',
    'default localhost,127.0.0.1,[::1]',
  ]) {
    assert.ok(SERVE_USAGE.includes(d), d);
  }
  assert.match(SERVE_USAGE, /SIGHUP/);
  assert.match(SERVE_USAGE, /Exit status: 0/);
});

test('a bad option exits with status 2 and the usage', async () => {
  const run = serve(['--rows', '0']);
  const ex = await run.waitExit();
  assert.equal(ex.code, 2);
  assert.match(run.stderr(), /--rows must be between 1 and/);
  assert.match(run.stderr(), /Usage: eventide serve/);
});

test('seeds a new SQLite file with progress, serves, logs each request, stops on SIGTERM; reopens it as it is', async () => {
  const file = join(dir, 'demo.sqlite3');
  const run = serve(['--database', file, '--rows', '500']);
  const o = await origin(run);
  assert.match(run.stdout(), /SQLite .*demo\.sqlite3, 500 rows, seeded now/);
  assert.match(run.stdout(), /seeding: 100%/);
  const page = (await (await fetch(`${o}/page/items/?page=50`)).json()) as {
    count: number;
    results: { id: number; created: string }[];
    next: string | null;
  };
  assert.equal(page.count, 500);
  assert.deepEqual(
    page.results.map((r) => r.id),
    [491, 492, 493, 494, 495, 496, 497, 498, 499, 500],
  );
  assert.equal(page.next, null);
  assert.equal(page.results[9]?.created, '2020-01-01T00:08:20.500000Z');
  await run.waitStdout('"path":"/page/items/?page=50","route":"page-items","status":200');
  run.kill('SIGTERM');
  const ex = await run.waitExit();
  assert.equal(ex.code, 0, run.stderr());

  const again = serve(['--database', file, '--rows', '900']);
  await origin(again);
  assert.match(again.stdout(), /500 rows\)/, 'the existing file is opened as it is');
  assert.doesNotMatch(again.stdout() + again.stderr(), /seeding/);
  again.kill('SIGINT');
  assert.equal((await again.waitExit()).code, 0);
});

test('a file of another shape is refused with a clear message and left alone', async () => {
  const file = join(dir, 'other.sqlite3');
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT)');
  db.close();
  const run = serve(['--database', file]);
  const ex = await run.waitExit();
  assert.equal(ex.code, 1);
  assert.match(run.stdout(), /"level":"fatal".*cannot open the database .*other\.sqlite3/);
  const check = new Database(file);
  assert.deepEqual(check.prepare('SELECT count(*) AS n FROM item').get(), { n: 0 });
  check.close();
});

test('--workers 2: several processes answer on one port and all stop on SIGTERM', async () => {
  const file = join(dir, 'workers.sqlite3');
  const run = serve(['--database', file, '--rows', '100', '--workers', '2']);
  const o = await origin(run);
  assert.match(run.stdout(), /2 workers/);
  const bodies = await Promise.all(
    Array.from({ length: 20 }, () =>
      fetch(`${o}/limit/items/?limit=1&offset=99`).then((r) => r.json() as Promise<{ results: { id: number }[] }>),
    ),
  );
  for (const b of bodies) assert.equal(b.results[0]?.id, 100);
  run.kill('SIGTERM');
  const ex = await run.waitExit();
  assert.equal(ex.code, 0, run.stderr());
  assert.match(run.stdout(), /shut down/);
});

test('--workers: when the primary dies (SIGKILL), the workers stop serving too', async () => {
  const file = join(dir, 'orphans.sqlite3');
  const run = serve(['--database', file, '--rows', '50', '--workers', '2', '--quiet']);
  const o = await origin(run);
  assert.equal((await fetch(`${o}/page/items/`)).status, 200);
  run.kill('SIGKILL');
  await run.waitExit();
  let refused = false;
  for (let i = 0; i < 100 && !refused; i++) {
    try {
      await fetch(`${o}/page/items/`, { headers: { connection: 'close' } });
      await new Promise((r) => setTimeout(r, 50));
    } catch {
      refused = true;
    }
  }
  assert.ok(refused, 'the port stops answering once the workers notice the primary is gone');
});

test('host validation: the default ALLOWED_HOSTS take the loopback names and .example.com, refuse others with 400', async () => {
  const file = join(dir, 'hosts.sqlite3');
  const run = startServe(['--database', file, '--rows', '200', '--quiet']);
  const { port } = await announced(run);
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'www.example.com']) {
    const r = await get(port, '/page/items/', { host });
    assert.equal(r.status, 200, `${host}: ${r.body}`);
    assert.equal((JSON.parse(r.body) as { next: string }).next, `http://${host}/page/items/?page=2`);
  }
  const v2 = await get(port, '/host/version/', { host: 'v2.example.com' });
  assert.equal(v2.status, 200, v2.body);
  assert.deepEqual(JSON.parse(v2.body), { version: 'v2', url: 'http://v2.example.com/host/version/' });
  for (const host of ['evil.example:443', 'example.com.evil.test', `localhost.evil.test:${port}`]) {
    const bad = await get(port, '/page/items/', { host });
    assert.equal(bad.status, 400, `${host}: ${bad.body}`);
    assert.match((JSON.parse(bad.body) as { detail: string }).detail, disallowed(host));
    assert.ok(!bad.body.includes('/page/items/?page=2'));
  }
  const link = await get(port, '/link/items/', { host: 'evil.example:443' });
  assert.equal(link.status, 400);
  assert.equal(link.headers.link, undefined);
  run.kill('SIGTERM');
  assert.equal((await run.waitExit()).code, 0, run.stderr());
});

test('host validation: --host 0.0.0.0 still accepts the loopback names; --allowed-hosts replaces the list, * accepts any', async () => {
  const file = join(dir, 'hosts-list.sqlite3');
  const wide = startServe(['--host', '0.0.0.0', '--database', file, '--rows', '200', '--quiet']);
  const w = await announced(wide); // the file is seeded: the other two open it as it is
  const any = startServe(['--database', file, '--rows', '200', '--allowed-hosts', '*', '--quiet']);
  const only = startServe(['--database', file, '--rows', '200', '--allowed-hosts', 'a.test', '--quiet']);
  try {
    assert.match(w.origin, /^http:\/\/0\.0\.0\.0:\d+$/);
    for (const host of [`localhost:${w.port}`, `127.0.0.1:${w.port}`, `0.0.0.0:${w.port}`])
      assert.equal((await get(w.port, '/page/items/', { host })).status, 200, host);
    assert.equal((await get(w.port, '/page/items/', { host: 'evil.example:443' })).status, 400);

    const a = await announced(any);
    const evil = await get(a.port, '/page/items/', { host: 'evil.example:443' });
    assert.equal(evil.status, 200, evil.body);
    assert.equal((JSON.parse(evil.body) as { next: string }).next, 'http://evil.example:443/page/items/?page=2');

    const o = await announced(only);
    const local = await get(o.port, '/page/items/', { host: `localhost:${o.port}` });
    assert.equal(local.status, 400);
    assert.match((JSON.parse(local.body) as { detail: string }).detail, disallowed(`localhost:${o.port}`));
    assert.equal((await get(o.port, '/page/items/', { host: `a.test:${o.port}` })).status, 200);
    assert.equal((await get(o.port, '/page/items/', { host: 'b.a.test' })).status, 400);
  } finally {
    for (const run of [wide, any, only]) run.kill('SIGTERM');
  }
  for (const run of [wide, any, only]) assert.equal((await run.waitExit()).code, 0, run.stderr());
});

test('one process: SIGTERM with a request stuck half-sent exits with status 0 within the shutdown deadline', async () => {
  const file = join(dir, 'deadline.sqlite3');
  const run = startServe(['--database', file, '--rows', '200', '--shutdown-timeout', '1'], 'source');
  const { port } = await announced(run);
  // A keep-alive connection that answered a request, and one whose request never ends.
  const idle = connect({ port, host: '127.0.0.1' });
  const stuck = connect({ port, host: '127.0.0.1' });
  await Promise.all([once(idle, 'connect'), once(stuck, 'connect')]);
  idle.write(`GET /page/items/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  await once(idle, 'data');
  stuck.write(`GET /page/items/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
  const closed = [idle, stuck].map(
    (s) =>
      new Promise<void>((r) => {
        s.on('error', () => {});
        s.once('close', () => r());
      }),
  );
  run.kill('SIGTERM');
  try {
    // The stuck request alone would hold the server until its head deadline (30 s from its
    // first byte, sent before the SIGTERM): an exit within 20 s means the shutdown deadline
    // closed it. No upper bound on the time beyond that (load only makes the exit later).
    const ex = await run.waitExit(20_000);
    assert.equal(ex.code, 0, run.stderr());
    await Promise.all(closed);
  } finally {
    idle.destroy();
    stuck.destroy();
  }
  assert.match(run.stdout(), /shutting down/);
});

test('serves the same API from PostgreSQL', async (t) => {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  try {
    await admin.connect();
  } catch (e) {
    if (process.env.EVENTIDE_SKIP_POSTGRES === '1')
      return t.skip('PostgreSQL not reachable (EVENTIDE_SKIP_POSTGRES=1)');
    throw new Error(
      `PostgreSQL at 127.0.0.1:5432 is required for this test (set EVENTIDE_SKIP_POSTGRES=1 to skip): ${(e as Error).message}`,
      { cause: e },
    );
  }
  const schema = `eventide_serve_${process.pid}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const url = `postgres://postgres@127.0.0.1:5432/test?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const run = serve(['--database', url, '--rows', '300', '--quiet']);
    const o = await origin(run);
    assert.match(run.stdout(), /PostgreSQL, 300 rows, seeded now/);
    const cur = (await (await fetch(`${o}/cursor/items/`)).json()) as {
      results: { id: number; created: string }[];
      next: string;
    };
    assert.deepEqual(
      cur.results.slice(0, 2).map((r) => [r.id, r.created]),
      [
        [300, '2020-01-01T00:05:00.100000Z'],
        [299, '2020-01-01T00:04:59.063000Z'],
      ],
    );
    const next = (await (await fetch(cur.next)).json()) as { results: { id: number }[] };
    assert.equal(next.results[0]?.id, 290);
    run.kill('SIGTERM');
    assert.equal((await run.waitExit()).code, 0);
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
});

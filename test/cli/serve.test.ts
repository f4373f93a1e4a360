/**
 * `eventide serve` as a child process: seeding a new SQLite file, opening an
 * existing one, a wrong-shape file, PostgreSQL, several workers on one port,
 * one log line per request, clean shutdown on SIGINT/SIGTERM, bad options.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAll, runNode, type ExampleRun } from '../support/spawn.js';
import { parseServeArgs, UsageError } from '../../src/cli/serve.js';

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

test('options: defaults and errors', () => {
  const o = parseServeArgs([]);
  assert.deepEqual([o.host, o.port, o.database, o.rows, o.workers, o.quiet], ['127.0.0.1', 8000, 'eventide-demo.sqlite3', 100000, 1, false]);
  assert.equal(parseServeArgs(['--port=9000', '--rows', '5', '--workers', '2', '--quiet']).port, 9000);
  assert.throws(() => parseServeArgs(['--port', 'x']), (e: unknown) => e instanceof UsageError && /--port needs an integer/.test(e.message));
  assert.throws(() => parseServeArgs(['--port', '70000']), /between 0 and 65535/);
  assert.throws(() => parseServeArgs(['--bogus']), /unknown option --bogus/);
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
  assert.match(run.stderr(), /seeding.*100%/);
  const page = (await (await fetch(`${o}/page/items/?page=50`)).json()) as { count: number; results: { id: number; created: string }[]; next: string | null };
  assert.equal(page.count, 500);
  assert.deepEqual(page.results.map((r) => r.id), [491, 492, 493, 494, 495, 496, 497, 498, 499, 500]);
  assert.equal(page.next, null);
  assert.equal(page.results[9]?.created, '2020-01-01T00:08:20.500000Z');
  await run.waitStdout('"GET /page/items/?page=50" 200');
  run.kill('SIGTERM');
  const ex = await run.waitExit();
  assert.equal(ex.code, 0, run.stderr());

  const again = serve(['--database', file, '--rows', '900']);
  await origin(again);
  assert.match(again.stdout(), /500 rows\)/, 'the existing file is opened as it is');
  assert.doesNotMatch(again.stderr(), /seeding/);
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
  assert.match(run.stderr(), /cannot open the database .*other\.sqlite3/);
  const check = new Database(file);
  assert.deepEqual(check.prepare('SELECT count(*) AS n FROM item').get(), { n: 0 });
  check.close();
});

test('--workers 2: several processes answer on one port and all stop on SIGTERM', async () => {
  const file = join(dir, 'workers.sqlite3');
  const run = serve(['--database', file, '--rows', '100', '--workers', '2']);
  const o = await origin(run);
  assert.match(run.stdout(), /2 workers/);
  const bodies = await Promise.all(Array.from({ length: 20 }, () => fetch(`${o}/limit/items/?limit=1&offset=99`).then((r) => r.json() as Promise<{ results: { id: number }[] }>)));
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

test('serves the same API from PostgreSQL', async (t) => {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  try {
    await admin.connect();
  } catch (e) {
    if (process.env.EVENTIDE_SKIP_POSTGRES === '1') return t.skip('PostgreSQL not reachable (EVENTIDE_SKIP_POSTGRES=1)');
    throw new Error(`PostgreSQL at 127.0.0.1:5432 is required for this test (set EVENTIDE_SKIP_POSTGRES=1 to skip): ${(e as Error).message}`);
  }
  const schema = `eventide_serve_${process.pid}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const url = `postgres://postgres@127.0.0.1:5432/test?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const run = serve(['--database', url, '--rows', '300', '--quiet']);
    const o = await origin(run);
    assert.match(run.stdout(), /PostgreSQL, 300 rows, seeded now/);
    const cur = (await (await fetch(`${o}/cursor/items/`)).json()) as { results: { id: number; created: string }[]; next: string };
    assert.deepEqual(cur.results.slice(0, 2).map((r) => [r.id, r.created]), [[300, '2020-01-01T00:05:00.100000Z'], [299, '2020-01-01T00:04:59.063000Z']]);
    const next = (await (await fetch(cur.next)).json()) as { results: { id: number }[] };
    assert.equal(next.results[0]?.id, 290);
    run.kill('SIGTERM');
    assert.equal((await run.waitExit()).code, 0);
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
});

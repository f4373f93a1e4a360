/**
 * `eventide serve` in production: pino logs (JSON lines with the request
 * id, pretty lines, `--log-level`), `/healthz`, `/readyz` (the database, the
 * shutdown delay), `/metrics` (per route and status, the latency histogram,
 * the event-loop lag, the open connections; aggregated over the workers),
 * the configuration from the environment. Real sockets on 127.0.0.1.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { freePort, killAll, ROOT, type ExampleRun } from '../support/spawn.js';
import { parseServeArgs, SERVE_ENV, SERVE_USAGE, UsageError } from '../../src/cli/serve.js';
import { prettyLine } from '../../src/cli/logging.js';
import { databaseProblem } from '../../src/cli/observability.js';
import { openDemoDatabase } from '../../src/cli/demo-data.js';
import { announced, getWith, serveWithEnv, sleep, waitUntil, type Answer } from './serve-support.js';
import { importGraph } from '../support/imports.js';

after(killAll);
const dir = mkdtempSync(join(tmpdir(), 'eventide-prod-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** GET on a new connection with the given headers. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return getWith(port, path, headers, 5000);
}

type Entry = Record<string, unknown>;

/** The JSON log entries on stdout so far (every line must be one). */
function entries(run: ExampleRun): Entry[] {
  return run
    .stdout()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Entry);
}

/** The access entries (msg "request"). */
function accessEntries(run: ExampleRun): Entry[] {
  return entries(run).filter((e) => e['msg'] === 'request');
}

/** The samples of a Prometheus text: `name{labels}` to value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+?(?:\{.*\})?) (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

async function metrics(port: number): Promise<Map<string, number>> {
  const r = await get(port, '/metrics');
  assert.equal(r.status, 200, r.body);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return samples(r.body);
}

const REQUESTS = (route: string, status: number): string =>
  `eventide_http_requests_total{method="GET",route="${route}",status="${status}"}`;
const BUCKET = (le: string, route: string): string =>
  `eventide_http_request_duration_seconds_bucket{le="${le}",method="GET",route="${route}"}`;

/** Polls /healthz until it answers (for a server that announces nothing). */
async function up(port: number): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await get(port, '/healthz')).status === 200) return;
    } catch {
      if (Date.now() > end) throw new Error(`port ${port} never answered`);
    }
    await sleep(100);
  }
}

test('options from the environment: one variable per option, the command line wins, bad values name the variable', async () => {
  for (const [flag, variable] of Object.entries(SERVE_ENV)) {
    assert.ok(SERVE_USAGE.includes(`--${flag}`), flag);
    assert.ok(SERVE_USAGE.includes(`[${variable}`), variable);
  }
  const env = {
    EVENTIDE_HOST: '0.0.0.0',
    EVENTIDE_PORT: '9001',
    DATABASE_URL: 'postgres://u@db/x',
    EVENTIDE_ROWS: '10',
    EVENTIDE_WORKERS: '3',
    EVENTIDE_ALLOWED_HOSTS: 'a.test,b.test',
    EVENTIDE_SHUTDOWN_TIMEOUT: '2',
    EVENTIDE_SHUTDOWN_DELAY: '1.5',
    EVENTIDE_MAX_RESTARTS: '7',
    EVENTIDE_RESTART_WINDOW: '60',
    EVENTIDE_LOG_LEVEL: 'warn',
    EVENTIDE_LOG_FORMAT: 'pretty',
    EVENTIDE_QUIET: 'true',
  };
  const o = parseServeArgs([], {}, env);
  assert.deepEqual(
    [o.host, o.port, o.database, o.rows, o.workers, o.allowedHosts, o.shutdownTimeout, o.shutdownDelay],
    ['0.0.0.0', 9001, 'postgres://u@db/x', 10, 3, ['a.test', 'b.test'], 2, 1.5],
  );
  assert.deepEqual([o.maxRestarts, o.restartWindow, o.logLevel, o.logFormat, o.quiet], [7, 60, 'warn', 'pretty', true]);
  const c = parseServeArgs(['--port', '9002', '--log-level', 'debug', '--log-format=json'], { port: 1 }, env);
  assert.deepEqual([c.port, c.logLevel, c.logFormat, c.host], [9002, 'debug', 'json', '0.0.0.0']);
  assert.equal(parseServeArgs([], { port: 1 }, {}).port, 1, 'defaults apply without the variable');
  assert.equal(parseServeArgs([], { port: 1 }, { EVENTIDE_PORT: '' }).port, 1, 'an empty variable is unset');
  for (const [variable, value, message] of [
    ['EVENTIDE_PORT', 'http', /^EVENTIDE_PORT needs an integer, got "http"$/],
    ['EVENTIDE_WORKERS', '0', /^EVENTIDE_WORKERS must be between 1 and 64/],
    ['EVENTIDE_LOG_LEVEL', 'loud', /^EVENTIDE_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent/],
    ['EVENTIDE_LOG_FORMAT', 'xml', /^EVENTIDE_LOG_FORMAT must be json or pretty/],
    ['EVENTIDE_QUIET', 'maybe', /^EVENTIDE_QUIET must be 1, true/],
    ['EVENTIDE_SHUTDOWN_DELAY', '-1', /^EVENTIDE_SHUTDOWN_DELAY needs a number of seconds/],
    ['EVENTIDE_ALLOWED_HOSTS', 'a b', /^EVENTIDE_ALLOWED_HOSTS: "a b" is not a host name/],
  ] as const) {
    assert.throws(
      () => parseServeArgs([], {}, { [variable]: value }),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      variable,
    );
  }
  // A bad variable is a usage error even when the command line sets the option (it is read all the same).
  const run = serveWithEnv(['--port', '0'], { EVENTIDE_ROWS: 'many' });
  const ex = await run.waitExit();
  assert.equal(ex.code, 2);
  assert.match(run.stderr(), /^eventide serve: EVENTIDE_ROWS needs an integer, got "many"\n/);
  assert.match(run.stderr(), /Usage: eventide serve/);
  assert.equal(run.stdout(), '');
});

test('docs/serve.md has a row for every option with its variable', () => {
  const rows = readFileSync(join(ROOT, 'docs', 'serve.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('| `--'));
  for (const [flag, variable] of Object.entries(SERVE_ENV)) {
    const row = rows.find((l) => l.startsWith(`| \`--${flag}\``) || l.startsWith(`| \`--${flag} `));
    assert.ok(row, `a row for --${flag}`);
    assert.ok(row.includes(`\`${variable}\``), `${variable} in the row of --${flag}`);
  }
});

test('one process: JSON logs with request ids, a view error logged once, /healthz, /readyz, /metrics, 503 while shutting down', async () => {
  const file = join(dir, 'single.sqlite3');
  // --shutdown-delay: the window in which the requests after the SIGTERM below see 503 from /readyz
  // (5 s, for a loaded machine; the test waits for the exit, so it costs nothing else).
  const run = serveWithEnv(['--port', '0', '--database', file, '--rows', '120', '--shutdown-delay', '5']);
  const { port } = await announced(run);
  const announcement = entries(run).find((e) => String(e['msg']).includes('listening on'));
  assert.ok(announcement);
  assert.equal(announcement['level'], 'info');
  assert.equal(announcement['pid'], run.child.pid);
  assert.equal(announcement['worker'], undefined);

  // Request ids: a valid one is echoed, others are replaced by a UUID.
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const mine = 'req-42 from the edge';
  const echoed = await get(port, '/page/items/?page=2', { 'X-Request-Id': mine });
  assert.equal(echoed.status, 200);
  assert.equal(echoed.headers['x-request-id'], mine);
  const long200 = 'a'.repeat(200);
  assert.equal((await get(port, '/page/items/', { 'X-Request-Id': long200 })).headers['x-request-id'], long200);
  const ids: string[] = [];
  for (const bad of ['b'.repeat(201), 'tab\there', 'caf\u00e9', '']) {
    const r = await get(port, '/page/items/', { 'X-Request-Id': bad });
    const id = String(r.headers['x-request-id']);
    assert.match(id, uuid, JSON.stringify(bad));
    ids.push(id);
  }
  const generated = await get(port, '/nope/');
  assert.equal(generated.status, 404);
  assert.match(String(generated.headers['x-request-id']), uuid);
  ids.push(String(generated.headers['x-request-id']));
  assert.equal(new Set(ids).size, ids.length);

  await waitUntil(() => accessEntries(run).length >= 7, 5000, 'seven access entries');
  const access = accessEntries(run);
  const first = access[0] as Entry;
  assert.deepEqual(
    Object.keys(first).sort(),
    [
      'bytes',
      'durationMs',
      'level',
      'method',
      'msg',
      'path',
      'pid',
      'remoteAddress',
      'requestId',
      'route',
      'status',
      'time',
    ].sort(),
  );
  assert.equal(first['requestId'], mine);
  assert.equal(first['method'], 'GET');
  assert.equal(first['path'], '/page/items/?page=2');
  assert.equal(first['route'], 'page-items');
  assert.equal(first['status'], 200);
  assert.equal(first['bytes'], Buffer.byteLength(echoed.body));
  assert.equal(typeof first['durationMs'], 'number');
  assert.ok(!Number.isNaN(Date.parse(String(first['time']))));
  assert.deepEqual(
    access.slice(2).map((e) => e['requestId']),
    ids,
  );
  const notFound = access.at(-1) as Entry;
  assert.deepEqual([notFound['status'], notFound['route']], [404, undefined]);

  // Health and metrics (not access-logged, no request id).
  const health = await get(port, '/healthz');
  assert.deepEqual([health.status, JSON.parse(health.body)], [200, { status: 'ok' }]);
  assert.equal(health.headers['x-request-id'], undefined);
  const ready = await get(port, '/readyz');
  assert.deepEqual([ready.status, JSON.parse(ready.body)], [200, { status: 'ready' }]);
  let m = await metrics(port);
  assert.equal(m.get(REQUESTS('page-items', 200)), 6);
  assert.equal(m.get(REQUESTS('<unmatched>', 404)), 1);
  assert.equal(m.get(BUCKET('+Inf', 'page-items')), 6);
  assert.equal(m.get('eventide_http_request_duration_seconds_count{method="GET",route="page-items"}'), 6);
  const les = [...m.keys()].filter(
    (k) => k.startsWith('eventide_http_request_duration_seconds_bucket{') && k.includes('"page-items"'),
  );
  const counts = les.map((k) => m.get(k) as number);
  assert.ok(les.length >= 10, 'histogram buckets');
  assert.deepEqual(
    counts,
    [...counts].sort((a, b) => a - b),
    'cumulative buckets',
  );
  const lag = m.get('nodejs_eventloop_lag_seconds');
  assert.ok(lag !== undefined && lag >= 0 && lag < 1, `event-loop lag ${lag}`);
  assert.equal(m.get('eventide_http_open_connections'), 1, 'the scrape itself');
  await get(port, '/page/items/?page=3');
  m = await metrics(port);
  assert.equal(m.get(REQUESTS('page-items', 200)), 7, 'the counter grows per request');
  assert.equal(accessEntries(run).length, 8, 'health and metrics are not access-logged');
  for (const path of ['/', '/openapi/v1.json']) {
    const doc = await get(port, path);
    assert.equal(doc.status, 200);
    assert.doesNotMatch(doc.body, /healthz|readyz|metrics/, path);
  }

  // The table disappears: the view fails (500, logged once with its request id and stack) and /readyz says so.
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.exec('DROP TABLE item');
  db.close();
  const failed = await get(port, '/cursor/items/', { 'X-Request-Id': 'broken-1' });
  assert.equal(failed.status, 500);
  assert.equal(failed.headers['x-request-id'], 'broken-1');
  const notReady = await get(port, '/readyz');
  assert.equal(notReady.status, 503);
  const why = JSON.parse(notReady.body) as { status: string; database: string };
  assert.equal(why.status, 'unavailable');
  assert.match(why.database, /no such table: item/);
  await waitUntil(() => accessEntries(run).some((e) => e['requestId'] === 'broken-1'), 5000, 'the 500 entry');
  const errors = entries(run).filter((e) => e['level'] === 'error');
  assert.equal(errors.length, 1, JSON.stringify(errors));
  const error = errors[0] as Entry & { err: { type: string; message: string; stack: string } };
  assert.equal(error['requestId'], 'broken-1');
  assert.equal(error['method'], 'GET');
  assert.equal(error['path'], '/cursor/items/');
  assert.match(error.err.message, /no such table: item/);
  assert.match(error.err.stack, /\n\s+at /);

  // SIGTERM: /readyz answers 503 for --shutdown-delay, the rest is still served, then the process exits 0.
  run.kill('SIGTERM');
  await run.waitStdout('shutting down', 15_000);
  const stopping = await get(port, '/readyz');
  assert.deepEqual([stopping.status, JSON.parse(stopping.body)], [503, { status: 'shutting down' }]);
  assert.equal((await get(port, '/healthz')).status, 200);
  const ex = await run.waitExit(30_000);
  assert.equal(ex.code, 0, run.stderr());
  assert.equal(run.stderr(), '');
  assert.ok(entries(run).some((e) => e['msg'] === 'eventide serve: shut down'));
});

test('pretty lines and the environment: DATABASE_URL, EVENTIDE_PORT, EVENTIDE_LOG_FORMAT; --log-level on the command line wins', async () => {
  const port = await freePort();
  const run = serveWithEnv(['--log-level', 'info'], {
    DATABASE_URL: join(dir, 'pretty.sqlite3'),
    EVENTIDE_ROWS: '30',
    EVENTIDE_PORT: String(port),
    EVENTIDE_LOG_FORMAT: 'pretty',
    EVENTIDE_LOG_LEVEL: 'error',
  });
  await run.waitStdout('listening on http://', 60_000);
  assert.match(
    run.stdout(),
    new RegExp(
      `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[${run.child.pid}\\] eventide demo API listening on http://127\\.0\\.0\\.1:${port}/ \\(SQLite .*pretty\\.sqlite3, 30 rows`,
      'm',
    ),
  );
  assert.equal((await get(port, '/page/items/', { 'X-Request-Id': 'pretty-1' })).status, 200);
  await run.waitStdout('requestId=pretty-1', 15_000);
  assert.match(
    run.stdout(),
    /^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[\d+\] GET \/page\/items\/ 200 \d+B \d+\.\dms requestId=pretty-1 route=page-items remoteAddress=127\.0\.0\.1$/m,
  );
  run.kill('SIGINT');
  assert.equal((await run.waitExit()).code, 0, run.stderr());
  assert.doesNotMatch(run.stdout(), /^\{/m, 'no JSON line');
  // The format itself: an error entry with its stack on the lines after it.
  const err = new Error('boom');
  const line = prettyLine(
    JSON.stringify({
      level: 'error',
      time: '2024-01-02T03:04:05.678Z',
      pid: 7,
      worker: 2,
      requestId: 'r1',
      err: { type: 'Error', message: 'boom', stack: err.stack },
      msg: 'internal error',
    }),
  );
  assert.match(line, /^03:04:05\.678 ERROR \[7\/w2\] internal error requestId=r1\n {4}Error: boom\n {4} {4}at /);
});

test('--log-level warn (from EVENTIDE_LOG_LEVEL): no info entries; --quiet: no access entries', async () => {
  const file = join(dir, 'levels.sqlite3');
  const [p1, p2] = [await freePort(), await freePort()];
  const warn = serveWithEnv(['--port', String(p1), '--database', file, '--rows', '30'], { EVENTIDE_LOG_LEVEL: 'warn' });
  await up(p1);
  const quiet = serveWithEnv(['--port', String(p2), '--database', file, '--rows', '30'], { EVENTIDE_QUIET: '1' });
  await announced(quiet);
  for (const p of [p1, p2]) assert.equal((await get(p, '/page/items/')).status, 200);
  await sleep(200);
  for (const run of [warn, quiet]) run.kill('SIGTERM');
  for (const run of [warn, quiet]) assert.equal((await run.waitExit()).code, 0, run.stderr());
  assert.equal(warn.stdout(), '', 'nothing below warn');
  assert.ok(entries(quiet).length >= 2, 'the announcement and the shutdown');
  assert.equal(accessEntries(quiet).length, 0);
});

test('--workers 2: access entries name their worker; /metrics, asked of any worker, counts the requests of both', async () => {
  const file = join(dir, 'workers.sqlite3');
  const run = serveWithEnv(['--port', '0', '--database', file, '--rows', '50', '--workers', '2']);
  const { port } = await announced(run);
  assert.equal((await get(port, '/readyz')).status, 200);
  let sent = 0;
  const byWorker = (): Set<unknown> => new Set(accessEntries(run).map((e) => e['worker']));
  while (sent < 400 && byWorker().size < 2) {
    for (let i = 0; i < 10; i++, sent++) assert.equal((await get(port, '/page/items/')).status, 200);
    await sleep(20);
  }
  await waitUntil(() => accessEntries(run).length >= sent, 5000, 'every access entry');
  assert.deepEqual([...byWorker()].sort(), [1, 2], 'both workers served');
  const pids = new Set(accessEntries(run).map((e) => e['pid']));
  assert.equal(pids.size, 2);
  assert.ok(!pids.has(run.child.pid));
  // Several scrapes, served by either worker: always the sum over both.
  for (let i = 0; i < 4; i++) {
    const m = await metrics(port);
    assert.equal(m.get(REQUESTS('page-items', 200)), sent);
    assert.equal(m.get(BUCKET('+Inf', 'page-items')), sent);
    const lag = m.get('nodejs_eventloop_lag_seconds');
    assert.ok(lag !== undefined && lag >= 0, `lag ${lag}`);
    assert.ok((m.get('eventide_http_open_connections') ?? 0) >= 1);
  }
  run.kill('SIGTERM');
  assert.equal((await run.waitExit(20_000)).code, 0, run.stderr());
});

test('/readyz: 503 once the database is closed (in-process check)', async () => {
  const demo = await openDemoDatabase(':memory:', { rows: 5 });
  assert.equal(await databaseProblem(demo, 1000), null);
  await demo.close();
  assert.notEqual(await databaseProblem(demo, 1000), null);
});

test('eventide/http, eventide/rest and eventide/sql load neither pino nor prom-client (only the command line does)', () => {
  const graph = importGraph(['http', 'rest', 'sql'].map((entry) => join(ROOT, 'src', entry, 'index.ts')));
  const seen = graph.files;
  const packages = new Set([...graph.packages, ...graph.dynamic]);
  assert.ok(seen.size > 20);
  assert.ok(![...seen].some((f) => f.includes(`${sep}cli${sep}`)));
  assert.ok(!packages.has('pino') && !packages.has('prom-client'), [...packages].join(', '));
  const cli = readFileSync(join(ROOT, 'src', 'cli', 'logging.ts'), 'utf8');
  assert.match(cli, /from 'pino'/);
});

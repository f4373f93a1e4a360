/**
 * `eventide serve --app FILE`: a user's RestApi served as the demo is. An
 * app module written into a temporary directory (a list over an in-memory
 * array, a view that waits for a file, `ready()` and `close()` exports,
 * importing eventide from this repository's sources), served from one
 * process and from two workers over real sockets on 127.0.0.1: the list,
 * request ids in the logs, `/healthz`, `/readyz` (with the module's
 * problem), `/metrics`, host names (the app's, then `--allowed-hosts`),
 * SIGTERM finishing a request in flight before `close()`, SIGHUP importing
 * the changed module. Broken modules exit 1 with one line naming the file,
 * also from workers; the demo's options with `--app` exit 2.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { killAll, ROOT, runNode, tempDir, type ExampleRun } from '../support/spawn.js';
import { parseServeArgs, SERVE_USAGE, UsageError } from '../../src/cli/serve.js';
import { appFile, appProblem, appSettingOverrides, loadServeApp, servedAppApi } from '../../src/cli/serve-app.js';
import { createSettings, PageNumberPagination, RestApi, type AccessLogEntry } from '../../src/rest/index.js';
import { getWith, waitUntil, type Answer } from './serve-support.js';
import { importGraph } from '../support/imports.js';

after(killAll);
const tmp = tempDir('eventide-serve-app-');
after(() => tmp.remove());
writeFileSync(join(tmp.path, 'package.json'), '{"type":"module"}\n');

/** How long a step of a process tree (start, reload, exit) may take on a loaded machine. */
const STEP_MS = 60_000;
const REST = pathToFileURL(join(ROOT, 'src', 'rest', 'index.ts')).href;

/** The app module: items, /version/ (answers `version`), /slow/ (waits for release.txt), ready() and close(). */
function appSource(version: string): string {
  return `import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { APIView, CharField, IntegerField, ListAPIView, PageNumberPagination, Response, RestApi, Serializer, path } from '${REST}';
const file = (name) => new URL(name, import.meta.url);
let inFlight = 0;
class ItemSerializer extends Serializer {
  static fields = { id: new IntegerField({ readOnly: true }), name: new CharField() };
}
class Items extends ListAPIView {
  queryset = [{ id: 1, name: 'one' }, { id: 2, name: 'two' }, { id: 3, name: 'three' }];
  serializerClass = ItemSerializer;
}
class Version extends APIView {
  get() { return new Response({ version: '${version}' }); }
}
class Slow extends APIView {
  async get() {
    inFlight++;
    writeFileSync(file('slow-started.txt'), String(process.pid));
    try {
      while (!existsSync(file('release.txt'))) await new Promise((r) => setTimeout(r, 20));
      return new Response({ slow: 'done' });
    } finally {
      inFlight--;
    }
  }
}
export default async ({ worker, log }) => {
  log.info({ builtBy: worker }, 'app built');
  return new RestApi({
    urlpatterns: [
      path('items/', Items.asView(), { name: 'item-list' }),
      path('version/', Version.asView(), { name: 'version' }),
      path('slow/', Slow.asView(), { name: 'slow' }),
    ],
    settings: { PAGE_SIZE: 2, DEFAULT_PAGINATION_CLASS: PageNumberPagination, ALLOWED_HOSTS: ['127.0.0.1', 'api.test'] },
  });
};
export const ready = () => (existsSync(file('not-ready.txt')) ? readFileSync(file('not-ready.txt'), 'utf8') : null);
export const close = () => appendFileSync(file('closed.txt'), process.pid + ' ' + inFlight + '\\n');
`;
}

/** A directory of its own with the app module (version `v1`); its path relative to the repository (the CLI's cwd). */
function appDir(name: string): { dir: string; app: string; rel: string } {
  const dir = join(tmp.path, name);
  mkdirSync(dir, { recursive: true });
  const app = join(dir, 'app.js');
  writeFileSync(app, appSource('v1'));
  return { dir, app, rel: relative(ROOT, app) };
}

/** `eventide serve ARGS` from the sources: the child is the serving process (or the primary). */
function serveApp(args: string[]): ExampleRun {
  return runNode(['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--log-format', 'json', ...args]);
}

/** Waits for the announcement of an app: its port and the module it names. */
async function announcedApp(run: ExampleRun): Promise<{ port: number; file: string }> {
  await run.waitStdout('eventide API listening on http://', STEP_MS);
  const m = /eventide API listening on http:\/\/127\.0\.0\.1:(\d+)\/ \(app ([^,)]+)/.exec(run.stdout());
  assert.ok(m, run.stdout());
  return { port: Number(m[1]), file: m[2] as string };
}

type Entry = Record<string, unknown>;

/** The JSON entries on stdout so far (each line is one). */
function entries(run: ExampleRun): Entry[] {
  return run
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Entry);
}

const access = (run: ExampleRun): Entry[] => entries(run).filter((e) => e['msg'] === 'request');

/** GET on a new connection with these headers. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return getWith(port, path, headers, 30_000);
}

/** The value of one sample of /metrics (undefined when absent). */
async function sample(port: number, name: string): Promise<number | undefined> {
  const r = await get(port, '/metrics');
  assert.equal(r.status, 200, r.body);
  const line = r.body.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

const ITEMS_200 = 'eventide_http_requests_total{method="GET",route="item-list",status="200"}';

/** The `close()` calls so far: [pid, requests in flight then]. */
function closes(dir: string): [number, number][] {
  const f = join(dir, 'closed.txt');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' ').map(Number) as [number, number]);
}

test(
  'one process: the list with request ids, health, ready() in /readyz, metrics, host names, SIGTERM finishes the request in flight, then close()',
  { timeout: 120_000 },
  async () => {
    const { dir, app, rel } = appDir('single');
    const run = serveApp(['--app', rel]);
    const { port, file } = await announcedApp(run);
    assert.equal(file, app, 'the announcement names the module, resolved from the working directory');
    assert.deepEqual(
      entries(run)
        .filter((e) => e['msg'] === 'app built')
        .map((e) => e['builtBy']),
      [null],
      'the default export was called once, with worker null',
    );

    const list = await get(port, '/items/?page=2', { 'X-Request-Id': 'app-req-1' });
    assert.equal(list.status, 200, list.body);
    assert.deepEqual(JSON.parse(list.body), {
      count: 3,
      next: null,
      previous: `http://127.0.0.1:${port}/items/`,
      results: [{ id: 3, name: 'three' }],
    });
    assert.equal(list.headers['x-request-id'], 'app-req-1');
    const fresh = await get(port, '/items/');
    assert.match(String(fresh.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'a new id when the client sends none');
    await waitUntil(() => access(run).length >= 2, 10_000, 'two access entries');
    const [first, second] = access(run);
    assert.equal(first?.['requestId'], 'app-req-1');
    assert.equal(first?.['route'], 'item-list');
    assert.equal(first?.['status'], 200);
    assert.equal(second?.['requestId'], fresh.headers['x-request-id']);

    // The app's ALLOWED_HOSTS stand without --allowed-hosts.
    assert.equal((await get(port, '/version/', { Host: 'api.test' })).status, 200);
    assert.equal((await get(port, '/version/', { Host: 'evil.test' })).status, 400);

    assert.deepEqual(JSON.parse((await get(port, '/healthz')).body), { status: 'ok' });
    assert.equal((await get(port, '/readyz')).status, 200);
    writeFileSync(join(dir, 'not-ready.txt'), 'the cache is warming up');
    const notReady = await get(port, '/readyz');
    assert.equal(notReady.status, 503);
    assert.deepEqual(JSON.parse(notReady.body), { status: 'unavailable', problem: 'the cache is warming up' });
    rmSync(join(dir, 'not-ready.txt'));
    assert.equal((await get(port, '/readyz')).status, 200);
    assert.equal(await sample(port, ITEMS_200), 2, "the app's two list requests, nothing of /healthz or /readyz");

    // SIGTERM while /slow/ waits: the request is answered, then close() runs with nothing in flight.
    const slow = get(port, '/slow/');
    await waitUntil(() => existsSync(join(dir, 'slow-started.txt')), STEP_MS, 'the slow view to start');
    run.kill('SIGTERM');
    await run.waitStdout('eventide serve: shutting down', STEP_MS);
    assert.deepEqual(closes(dir), [], 'close() waits for the request in flight');
    writeFileSync(join(dir, 'release.txt'), '');
    const answered = await slow;
    assert.equal(answered.status, 200);
    assert.deepEqual(JSON.parse(answered.body), { slow: 'done' });
    assert.equal((await run.waitExit(STEP_MS)).code, 0, run.stderr());
    assert.deepEqual(closes(dir), [[run.child.pid, 0]]);
  },
);

test(
  "--workers 2: each worker imports the module; logs, metrics and /readyz over both; --allowed-hosts replaces the app's; SIGHUP imports the changed module (a broken one stops the reload); SIGTERM closes every worker",
  { timeout: 180_000 },
  async () => {
    const { dir, app } = appDir('workers');
    const run = serveApp(['--app', app, '--workers', '2', '--allowed-hosts', '127.0.0.1,override.test']);
    const { port } = await announcedApp(run);
    await waitUntil(() => (run.stdout().match(/worker \d started/g) ?? []).length >= 2, STEP_MS, 'two workers');
    assert.deepEqual(
      entries(run)
        .filter((e) => e['msg'] === 'app built')
        .map((e) => e['builtBy'])
        .sort(),
      [1, 2],
    );

    let sent = 0;
    const byWorker = (): Set<unknown> => new Set(access(run).map((e) => e['worker']));
    while (sent < 200 && byWorker().size < 2) {
      for (let i = 0; i < 5; i++, sent++) assert.equal((await get(port, '/items/')).status, 200);
      await waitUntil(() => access(run).length >= sent, 10_000, 'the access entries');
    }
    assert.deepEqual([...byWorker()].sort(), [1, 2], 'both workers served the list');
    assert.ok(access(run).every((e) => typeof e['requestId'] === 'string' && e['requestId'] !== ''));
    for (let i = 0; i < 3; i++) assert.equal(await sample(port, ITEMS_200), sent, 'the aggregate of both workers');

    assert.equal((await get(port, '/version/', { Host: 'override.test' })).status, 200);
    assert.equal((await get(port, '/version/', { Host: 'api.test' })).status, 400, "the app's own host is replaced");

    writeFileSync(join(dir, 'not-ready.txt'), 'replica lag');
    const notReady = await get(port, '/readyz');
    assert.equal(notReady.status, 503);
    assert.deepEqual(JSON.parse(notReady.body), { status: 'unavailable', problem: 'replica lag' });
    rmSync(join(dir, 'not-ready.txt'));

    // SIGHUP: new workers import the module as it is now.
    writeFileSync(app, appSource('v2'));
    run.kill('SIGHUP');
    await waitUntil(() => /reload done/.test(run.stdout()), STEP_MS, 'the reload');
    for (let i = 0; i < 4; i++)
      assert.deepEqual(JSON.parse((await get(port, '/version/')).body), { version: 'v2' }, 'every worker serves v2');
    assert.equal(closes(dir).length, 2, 'the replaced workers ran close()');

    // A broken module: the new worker reports why, the reload stops, v2 keeps serving.
    writeFileSync(app, 'export const ready = () => null;\n');
    run.kill('SIGHUP');
    await waitUntil(() => /reload stopped/.test(run.stdout()), STEP_MS, 'the stopped reload');
    const died = entries(run).find((e) => /worker 1 \(pid \d+\) died/.test(String(e['msg'])));
    assert.match(String(died?.['msg']), new RegExp(`cannot load the app ${escape(app)}: it has no default export`));
    assert.deepEqual(JSON.parse((await get(port, '/version/')).body), { version: 'v2' });

    run.kill('SIGTERM');
    assert.equal((await run.waitExit(STEP_MS)).code, 0, run.stderr());
    const closed = closes(dir);
    assert.equal(closed.length, 4, 'every worker that served ran close() once');
    assert.ok(closed.every(([, inFlight]) => inFlight === 0));
  },
);

/** A string as a literal part of a regular expression. */
function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('broken modules: one line naming the file and the problem (in process)', async () => {
  const dir = join(tmp.path, 'broken');
  mkdirSync(dir, { recursive: true });
  const context = { worker: null, env: {}, log: { info() {}, warn() {}, error() {} } };
  const cases: [string, string, RegExp][] = [
    ['syntax.js', 'export default (;\n', /: the import failed: SyntaxError: /],
    ['throws.js', "throw new Error('no DATABASE_URL');\n", /: the import failed: no DATABASE_URL$/],
    ['nodefault.js', 'export const api = 1;\n', /: it has no default export \(export default the RestApi/],
    ['object.js', 'export default { urlpatterns: [] };\n', /: its default export is a plain object, not a RestApi$/],
    [
      'number.js',
      'export default () => 42;\n',
      /: what its default export \(a function\) returned is the number 42, not a RestApi$/,
    ],
    [
      'rejects.js',
      "export default async () => { throw new TypeError('bad env'); };\n",
      /: its default export \(a function\) threw: TypeError: bad env$/,
    ],
    [
      'ready.js',
      `import { RestApi } from '${REST}';\nexport default new RestApi({ urlpatterns: [] });\nexport const ready = 'yes';\n`,
      /: its export ready is the string "yes", not a function$/,
    ],
  ];
  for (const [name, source, problem] of cases) {
    const file = join(dir, name);
    writeFileSync(file, source);
    const loaded = await loadServeApp(file, context);
    assert.ok('problem' in loaded, name);
    assert.ok(loaded.problem.startsWith(`cannot load the app ${file}: `), loaded.problem);
    assert.match(loaded.problem, problem, name);
    assert.ok(!loaded.problem.includes('\n'), 'one line');
  }
  assert.deepEqual(appFile('missing.js', dir), {
    problem: `cannot load the app ${join(dir, 'missing.js')}: no such file`,
  });
  assert.deepEqual(appFile('.', dir), { problem: `cannot load the app ${dir}: not a file` });
  assert.equal(appFile('missing.js'.replace('missing', 'syntax'), dir), join(dir, 'syntax.js'));

  // A working module: a RestApi as it is, or what an (async) function of the context returns.
  writeFileSync(
    join(dir, 'ok.js'),
    `import { RestApi } from '${REST}';\nexport default async ({ worker, env }) => new RestApi({ urlpatterns: [], settings: { MAX_PAGE_SIZE: Number(env.SIZE) } });\n`,
  );
  const ok = await loadServeApp(join(dir, 'ok.js'), { ...context, worker: 3, env: { SIZE: '7' } });
  assert.ok(!('problem' in ok));
  assert.equal(ok.api.settings.MAX_PAGE_SIZE, 7);
  assert.equal(ok.ready, null);
  assert.equal(ok.close, null);
});

test('ready(): null is ready; a string, a rejection or no answer within the deadline is the problem', async () => {
  assert.equal(await appProblem(null, 1000), null);
  assert.equal(await appProblem(() => null, 1000), null);
  assert.equal(await appProblem(() => Promise.resolve('db down'), 1000), 'db down');
  assert.equal(await appProblem(() => Promise.reject(new Error('refused')), 1000), 'refused');
  assert.equal(await appProblem(() => new Promise<null>(() => {}), 50), 'no answer within 50 ms');
});

test("the API served: the command's hooks before the app's own, its request-id header and logger kept; the flags given replace parts of its settings", async () => {
  const own: AccessLogEntry[] = [];
  const ours: AccessLogEntry[] = [];
  const logger = { error() {}, warn() {} };
  const api = new RestApi({
    urlpatterns: [],
    settings: {
      COMPRESSION: { gzipLevel: 3 },
      CORS: { allowedOrigins: ['https://a.test'], exposedHeaders: ['Link'] },
      ALLOWED_HOSTS: ['api.test'],
    },
    onResponse: (e) => own.push(e),
    requestIdHeader: 'X-Trace-Id',
    logger,
  });
  const options = parseServeArgs(['--app', 'app.js', '--compression', 'gzip', '--cors-origins', 'https://b.test']);
  const served = servedAppApi(api, {
    options,
    onResponse: (e) => ours.push(e),
    logger: { error() {}, warn() {} },
    requestIdHeader: 'X-Request-Id',
  });
  assert.notEqual(served, api);
  assert.equal(served.logger, logger);
  assert.deepEqual(served.settings.ALLOWED_HOSTS, ['api.test'], "not given: the app's");
  assert.deepEqual(served.settings.COMPRESSION?.encodings, ['gzip']);
  assert.equal(served.settings.COMPRESSION?.gzipLevel, 3, "the rest of the app's COMPRESSION stands");
  assert.deepEqual(served.settings.CORS?.allowedOrigins, ['https://b.test']);
  assert.deepEqual(served.settings.CORS?.exposedHeaders, ['Link']);
  const out = await served.handle({
    method: 'GET',
    target: '/nowhere/',
    headers: [
      ['Host', 'api.test'],
      ['X-Trace-Id', 't-1'],
    ],
    body: null,
    secure: false,
  });
  assert.equal(out.status, 404);
  assert.ok(out.headers.some(([k, v]) => k === 'X-Trace-Id' && v === 't-1'));
  assert.equal(ours.length, 1);
  assert.equal(own.length, 1);
  assert.equal(ours[0]?.requestId, 't-1');

  // An API without its own: the command's logger and header; no flags given, its settings as they are.
  const plain = new RestApi({ urlpatterns: [], settings: { COMPRESSION: {} } });
  const commandLogger = { error() {}, warn() {} };
  const seen: AccessLogEntry[] = [];
  const served2 = servedAppApi(plain, {
    options: parseServeArgs(['--app', 'a.js']),
    onResponse: (e) => seen.push(e),
    logger: commandLogger,
    requestIdHeader: 'X-Request-Id',
  });
  assert.equal(served2.logger, commandLogger);
  assert.equal(served2.settings, plain.settings);
  const out2 = await served2.handle({
    method: 'GET',
    target: '/',
    headers: [['Host', 'x']],
    body: null,
    secure: false,
  });
  const id = out2.headers.find(([k]) => k === 'X-Request-Id')?.[1];
  assert.match(String(id), /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    seen.map((e) => [e.status, e.requestId]),
    [[404, id]],
  );

  const settings = createSettings({ COMPRESSION: { threshold: 10 }, DEFAULT_PAGINATION_CLASS: PageNumberPagination });
  assert.deepEqual(appSettingOverrides(parseServeArgs(['--app', 'a.js']), settings), {});
  assert.deepEqual(appSettingOverrides(parseServeArgs(['--app', 'a.js', '--compression', 'off']), settings), {
    COMPRESSION: null,
  });
  assert.deepEqual(
    appSettingOverrides(parseServeArgs(['--app', 'a.js', '--trust-proxy', '--allowed-hosts', 'h.test']), settings),
    {
      ALLOWED_HOSTS: ['h.test'],
      USE_X_FORWARDED_HOST: true,
      SECURE_PROXY_SSL_HEADER: ['X-Forwarded-Proto', 'https'],
    },
  );
  assert.deepEqual(
    appSettingOverrides(parseServeArgs(['--app', 'a.js'], {}, { EVENTIDE_TRUST_PROXY: '0' }), settings),
    { USE_X_FORWARDED_HOST: false, SECURE_PROXY_SSL_HEADER: null },
    'given in the environment counts as given',
  );
});

test("--app on the command line: EVENTIDE_APP, the demo's options refused (exit 2), their variables left to the app", async () => {
  assert.equal(parseServeArgs(['--app', 'dist/app.js']).app, 'dist/app.js');
  assert.equal(parseServeArgs([], {}, { EVENTIDE_APP: 'dist/app.js' }).app, 'dist/app.js');
  assert.equal(parseServeArgs([]).app, null);
  for (const flag of ['--database', '--rows', '--replicas', '--redis']) {
    const value = flag === '--rows' ? '10' : flag === '--redis' ? 'redis://127.0.0.1' : 'postgres://h/db';
    assert.throws(
      () => parseServeArgs(['--app', 'a.js', flag, value]),
      (e: unknown) =>
        e instanceof UsageError &&
        e.message === `${flag} is an option of the demo; with --app the module opens its own data`,
    );
    assert.throws(() => parseServeArgs([flag, value], {}, { EVENTIDE_APP: 'a.js' }), UsageError);
  }
  const o = parseServeArgs(
    ['--app', 'a.js'],
    {},
    { DATABASE_URL: 'sqlite:app.db', EVENTIDE_ROWS: 'many', EVENTIDE_REPLICAS: 'x' },
  );
  assert.equal(o.database, 'eventide-demo.sqlite3', "DATABASE_URL is the app's to read");
  assert.match(SERVE_USAGE, /--app FILE/);
  assert.match(SERVE_USAGE, /\[EVENTIDE_APP\]/);

  const run = serveApp(['--app', 'a.js', '--database', 'x.sqlite3']);
  const { code } = await run.waitExit(STEP_MS);
  assert.equal(code, 2);
  assert.match(
    run.stderr(),
    /^eventide serve: --database is an option of the demo; with --app the module opens its own data\n/,
  );
});

test(
  'a module that cannot be served: exit status 1 with its line, from one process and from the workers (no restart loop)',
  { timeout: 120_000 },
  async () => {
    const dir = join(tmp.path, 'exit');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'object.js');
    writeFileSync(file, 'export default { not: "an api" };\n');
    const single = serveApp(['--app', file]);
    assert.equal((await single.waitExit(STEP_MS)).code, 1);
    const fatal = entries(single).filter((e) => e['level'] === 'fatal');
    assert.deepEqual(
      fatal.map((e) => e['msg']),
      [`eventide serve: cannot load the app ${file}: its default export is a plain object, not a RestApi`],
    );

    const workers = serveApp(['--app', file, '--workers', '2']);
    assert.equal((await workers.waitExit(STEP_MS)).code, 1);
    const primary = entries(workers).filter((e) => e['pid'] === workers.child.pid && e['level'] === 'error');
    assert.ok(
      primary.some((e) =>
        new RegExp(
          `failed to start \\(exit code 1: cannot load the app ${escape(file)}: its default export is a plain object`,
        ).test(String(e['msg'])),
      ),
      workers.stdout(),
    );
    assert.doesNotMatch(workers.stdout(), /restarting it/);

    const missing = serveApp(['--app', join(dir, 'nope.js'), '--workers', '2']);
    assert.equal((await missing.waitExit(STEP_MS)).code, 1);
    assert.match(missing.stdout(), new RegExp(`cannot load the app ${escape(join(dir, 'nope.js'))}: no such file`));
    assert.doesNotMatch(missing.stdout(), /worker 1/, 'the primary checks the file before starting workers');
  },
);

test("serving an app loads none of the demo's modules, nor kysely, the SQL drivers or ioredis", () => {
  const { files, packages } = importGraph([join(ROOT, 'src', 'cli', 'serve.ts')]);
  const demo = [...files].filter((f) => /demo/.test(f));
  assert.deepEqual(demo, []);
  for (const p of ['kysely', 'better-sqlite3', 'pg', 'ioredis']) assert.ok(!packages.has(p), p);
});

test(
  'an app that leaves a timer running (no close()) still lets the process exit after SIGTERM',
  { timeout: 120_000 },
  async () => {
    const dir = join(tmp.path, 'timer');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'app.js');
    writeFileSync(
      file,
      `import { RestApi } from '${REST}';\nsetInterval(() => {}, 1000);\nexport default new RestApi({ urlpatterns: [] });\n`,
    );
    const run = serveApp(['--app', file]);
    await announcedApp(run);
    run.kill('SIGTERM');
    assert.equal((await run.waitExit(STEP_MS)).code, 0, run.stderr());
    assert.match(run.stdout(), /eventide serve: shut down/);
  },
);

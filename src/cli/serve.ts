/**
 * `eventide serve`: the demo catalog API, or your own `RestApi` (`--app
 * FILE`, see `serve-app.ts`), on EventHttp.
 *
 * ```text
 * eventide serve [--app FILE] [--host 127.0.0.1] [--port 8000] [--database FILE|postgres://...]
 *                [--rows 100000] [--workers N] [--allowed-hosts A,B]
 *                [--shutdown-delay 0] [--shutdown-timeout 10] [--max-restarts 5]
 *                [--restart-window 30] [--log-level info] [--log-format json|pretty]
 *                [--compression off|on|br,gzip] [--cors-origins ORIGIN,...]
 *                [--quiet] [--help]
 * ```
 *
 * Every option can also come from an environment variable (`EVENTIDE_PORT`,
 * `DATABASE_URL`, ...: `SERVE_ENV`); the command line wins.
 *
 * The SQLite file (default `eventide-demo.sqlite3` in the working directory)
 * is created and seeded on first start, with a progress bar on a terminal;
 * an existing file of the demo's shape is opened as it is. Logs go to
 * stdout through pino (`logging.ts`): JSON lines, or readable lines on a
 * terminal; one entry per request (unless `--quiet`) with its request id,
 * which is also sent back as `X-Request-Id`. `/healthz`, `/readyz` and
 * `/metrics` are served beside the API (`observability.ts`). SIGINT and
 * SIGTERM make `/readyz` answer 503 for `--shutdown-delay` seconds, then
 * close the listener and finish the requests in flight (at most
 * `--shutdown-timeout` seconds); the exit status is 0.
 *
 * With `--workers N` this process is a supervising primary (see
 * `cluster.ts`): N worker processes share the port, crashed workers are
 * restarted, SIGHUP replaces them one at a time; `/metrics`, asked of any
 * worker, is the primary's aggregate of all of them. The API accepts only
 * the host names of `--allowed-hosts` (default: the loopback names, the
 * `--host` address and `.example.com`).
 *
 * With `--app` the same applies to the module's API: each serving process
 * imports the module, `/readyz` asks its `ready()`, and its `close()` runs
 * once the requests in flight have finished at shutdown.
 *
 * @module
 */
import cluster from 'node:cluster';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { EventBase } from '../event/base.js';
import { EventHttp } from '../http/server.js';
import type { DemoDatabaseHandle } from './demo-data.js';
import type { RedisCountStore } from '../sql/redis-count.js';
import type { AccessLogEntry, RestApi } from '../rest/api.js';
import { supervisorMessage, workerMessage, WorkerSupervisor } from './cluster.js';
import { accessLogger, createServeLogger, logProcessWarnings, missingServePackages } from './logging.js';
import {
  clusterMetricsClient,
  databaseProblem,
  installHealthRoutes,
  serveClusterMetrics,
  ServeMetrics,
} from './observability.js';
import { appFile, appProblem, loadServeApp, servedAppApi } from './serve-app.js';
import { defaultAllowedHosts, parseServeArgs, SERVE_USAGE, UsageError, type ServeOptions } from './serve-options.js';

export {
  defaultAllowedHosts,
  parseServeArgs,
  SERVE_DEFAULTS,
  SERVE_ENV,
  SERVE_USAGE,
  UsageError,
  type ServeOptions,
} from './serve-options.js';

/** How long a stopping worker keeps reading the connections it accepted last before shutting down (ms). */
const LAME_DUCK_MS = 250;

/** How long `/readyz` waits for the database (ms). */
const READY_DEADLINE_MS = 1000;

/** The response header of the request id. */
const REQUEST_ID_HEADER = 'X-Request-Id';

/** How long a process that served an app may take to exit by itself once serving has ended (ms). */
const EXIT_GRACE_MS = 1000;

/** The environment variable that tells a worker its number (set by the supervisor). */
const WORKER_NUMBER_ENV = 'EVENTIDE_WORKER_NUMBER';

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function logFormat(o: ServeOptions): 'json' | 'pretty' {
  return o.logFormat ?? (process.stdout.isTTY === true ? 'pretty' : 'json');
}

function loggerFor(o: ServeOptions, worker: number | null): Logger {
  const log = createServeLogger({ level: o.logLevel, format: logFormat(o), worker });
  logProcessWarnings(log); // a fallback of the event layer, a deprecation: one entry in the log
  return log;
}

function progressBar(log: Logger): (done: number, total: number) => void {
  const tty = process.stderr.isTTY === true;
  let lastPct = -1;
  return (done, total) => {
    const pct = Math.floor((done / total) * 100);
    if (pct === lastPct) return;
    lastPct = pct;
    if (tty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(
        `\rseeding [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}% ${done}/${total} rows`,
      );
      if (done >= total) process.stderr.write('\n');
    } else if (pct % 10 === 0) {
      log.info({ done, total }, `seeding: ${pct}% (${done}/${total} rows)`);
    }
  };
}

function describeDb(o: ServeOptions, db: DemoDatabaseHandle): string {
  const where = db.kind === 'postgres' ? 'PostgreSQL' : `SQLite ${o.database}`;
  return `${where}, ${db.rowCount} rows${db.created ? ', seeded now' : ''}`;
}

/** The database for messages: a URL without its password. */
function shownDatabase(database: string): string {
  return database.replace(/^(\w+:\/\/[^:/@]*):[^@/]*@/, '$1:***@');
}

function announce(log: Logger, o: ServeOptions, port: number, description: string): void {
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/`;
  const what = o.app !== null ? 'eventide API' : 'eventide demo API';
  log.info({ url, port }, `${what} listening on ${url} (${description})`);
}

// The demo's modules (and kysely, the SQL drivers, ioredis) are loaded only to serve the demo, not for --app.
async function openDb(o: ServeOptions, log: Logger, seedQuietly: boolean): Promise<DemoDatabaseHandle> {
  const { openDemoDatabase } = await import('./demo-data.js');
  return openDemoDatabase(o.database, {
    rows: o.rows,
    ...(o.replicas.length > 0 ? { replicas: o.replicas, logger: log } : {}),
    ...(seedQuietly ? {} : { onProgress: progressBar(log) }),
  });
}

function cannotOpen(log: Logger, o: ServeOptions, e: unknown): string {
  const line = `cannot open the database ${shownDatabase(o.database)}: ${(e as Error).message}`;
  log.fatal({ err: e, database: shownDatabase(o.database) }, `eventide serve: ${line}`);
  return line;
}

/** The command's hooks on the API it serves: metrics and access log, logger. */
interface ServeHooks {
  onResponse: (e: AccessLogEntry) => void;
  logger: Logger;
}

/** What a serving process serves: the demo over its database, or an `--app` module. */
interface Served {
  /** What the announcement says is served. */
  readonly description: string;
  /** The API with the command's hooks. */
  api(hooks: ServeHooks): RestApi;
  /** What `/readyz` reports (null: ready). */
  problem(): Promise<string | null>;
  /** The field of `/readyz`'s 503 body that holds the problem. */
  readonly problemField: string;
  /** Releases what it opened, once the requests in flight have finished. */
  close(): Promise<void>;
}

/** The shared count cache of `--redis` (Redis unreachable: a warning, and counts stay local), or null. */
async function openCountStore(o: ServeOptions, log: Logger): Promise<RedisCountStore | null> {
  if (o.redis === null) return null;
  const { connectRedisCountStore } = await import('../sql/redis-count.js');
  return connectRedisCountStore({ url: o.redis, prefix: 'eventide:demo:count:', logger: log });
}

/** The demo over its database (and `--redis`'s count cache), or the logged reason it cannot open. */
async function openDemo(o: ServeOptions, log: Logger, seedQuietly: boolean): Promise<Served | string> {
  let db: DemoDatabaseHandle;
  try {
    db = await openDb(o, log, seedQuietly);
  } catch (e) {
    return cannotOpen(log, o, e);
  }
  const countStore = await openCountStore(o, log);
  const { buildDemoApi } = await import('./demo.js');
  return {
    description: describeDb(o, db),
    api: (hooks) =>
      buildDemoApi(db.items(), {
        ...(countStore ? { countStore } : {}),
        trustProxy: o.trustProxy,
        allowedHosts: o.allowedHosts ?? defaultAllowedHosts(o.host),
        onResponse: hooks.onResponse,
        logger: hooks.logger,
        requestIdHeader: REQUEST_ID_HEADER,
        compression: o.compression && { encodings: o.compression, threshold: o.compressionThreshold },
        cors: o.corsOrigins && { allowedOrigins: o.corsOrigins },
      }),
    problem: () => databaseProblem(db, READY_DEADLINE_MS),
    problemField: 'database',
    close: async () => {
      await countStore?.close();
      await db.close();
    },
  };
}

/** The `--app` module, imported and checked, or the logged reason it cannot be served. */
async function openApp(o: ServeOptions, app: string, log: Logger, worker: number | null): Promise<Served | string> {
  const failed = (problem: string): string => {
    log.fatal(`eventide serve: ${problem}`);
    return problem;
  };
  const file = appFile(app);
  if (typeof file !== 'string') return failed(file.problem);
  const loaded = await loadServeApp(file, { worker, env: process.env, log });
  if ('problem' in loaded) return failed(loaded.problem);
  const api = (hooks: ServeHooks): RestApi =>
    servedAppApi(loaded.api, { options: o, ...hooks, requestIdHeader: REQUEST_ID_HEADER });
  try {
    // The flags laid over the app's settings, checked before anything listens.
    api({ onResponse: () => {}, logger: log.child({}, { level: 'silent' }) });
  } catch (e) {
    await loaded.close?.();
    return failed(`cannot serve the app ${file} with these options: ${(e as Error).message}`);
  }
  return {
    description: `app ${file}`,
    api,
    problem: () => appProblem(loaded.ready, READY_DEADLINE_MS),
    problemField: 'problem',
    close: async () => {
      await loaded.close?.();
    },
  };
}

function openServed(
  o: ServeOptions,
  log: Logger,
  worker: number | null,
  seedQuietly: boolean,
): Promise<Served | string> {
  return o.app !== null ? openApp(o, o.app, log, worker) : openDemo(o, log, seedQuietly);
}

/** Closes what was served; false (logged) when the app's `close()` failed. */
async function closeServed(served: Served, log: Logger): Promise<boolean> {
  try {
    await served.close();
    return true;
  } catch (e) {
    log.error({ err: e }, `eventide serve: close() failed: ${(e as Error).message}`);
    return false;
  }
}

/**
 * The API, `/healthz`, `/readyz` and `/metrics` on an EventHttp of a
 * new EventBase (not dispatching yet). `aggregate` (in a worker) gives the
 * metrics of all workers; without it `/metrics` is this process's.
 */
function startHttp(
  o: ServeOptions,
  served: Served,
  log: Logger,
  stopping: () => boolean,
  aggregate: ((metrics: ServeMetrics) => () => Promise<string>) | null,
): { http: EventHttp; base: EventBase } {
  const base = new EventBase();
  const http = new EventHttp(base);
  const metrics = new ServeMetrics({ openConnections: () => http.conns.size });
  const access = o.quiet ? null : accessLogger(log);
  const onResponse = (e: AccessLogEntry): void => {
    metrics.observe(e);
    access?.(e);
  };
  const api = served.api({ onResponse, logger: log });
  http.setTimeout(60);
  http.setLogger(log);
  api.serve(http);
  const allMetrics = aggregate !== null ? aggregate(metrics) : () => metrics.registry.metrics();
  installHealthRoutes(http, {
    problem: () => served.problem(),
    problemField: served.problemField,
    metrics: allMetrics,
    stopping,
  });
  return { http, base };
}

/**
 * Stops an EventHttp within `seconds`: no new connections, requests in
 * flight finish, connections left at the deadline are closed (by
 * `shutdown()` itself; the timer one second later is a backstop).
 */
async function shutdownWithin(http: EventHttp, seconds: number): Promise<void> {
  const backstop = setTimeout(() => http.free(), seconds * 1000 + 1000);
  try {
    await http.shutdown(seconds);
  } finally {
    clearTimeout(backstop);
    http.free();
  }
}

/** Resolves at the first SIGINT or SIGTERM (later ones are ignored). */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => resolve(sig));
  });
}

/** One process: binds the port itself. */
async function runSingle(o: ServeOptions): Promise<number> {
  const log = loggerFor(o, null);
  const served = await openServed(o, log, null, false);
  if (typeof served === 'string') return 1;
  let stopping = false;
  const { http, base } = startHttp(o, served, log, () => stopping, null);
  let listening = http.bind(o.host, o.port);
  let why = '';
  if (listening) {
    // A host name is looked up first (without blocking the loop); its failure shows here.
    listening = await http.ready.then(
      () => true,
      (e: unknown) => ((why = `: ${(e as Error).message}`), false),
    );
  }
  if (!listening) {
    log.fatal({ host: o.host, port: o.port }, `eventide serve: cannot listen on ${o.host}:${o.port}${why}`);
    http.free();
    await closeServed(served, log);
    return 1;
  }
  const running = base.dispatch();
  // Handlers first, then the announcement: a supervisor may signal as soon as it reads it.
  const stopped = stopSignal();
  announce(log, o, http.getBoundPorts()[0] as number, served.description);
  const signal = await stopped;
  stopping = true;
  log.info({ signal, shutdownDelay: o.shutdownDelay }, 'eventide serve: shutting down');
  if (o.shutdownDelay > 0) await sleep(o.shutdownDelay * 1000);
  await shutdownWithin(http, o.shutdownTimeout);
  await running;
  const closed = await closeServed(served, log);
  log.info('eventide serve: shut down');
  return closed ? 0 : 1;
}

/** Sends a message to the primary and resolves once it is sent (or cannot be). */
function tellPrimary(message: object): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined || !process.connected) return resolve();
    try {
      process.send(message, undefined, {}, () => resolve());
    } catch {
      resolve();
    }
  });
}

/** A worker of the primary: listens through node:cluster (the port is shared), reports ready, stops when asked. */
async function runWorker(o: ServeOptions): Promise<number> {
  const n = Number(process.env[WORKER_NUMBER_ENV]);
  const worker = Number.isInteger(n) && n > 0 ? n : (cluster.worker?.id ?? null);
  const log = loggerFor(o, worker);
  // Stop requests count from the start: the primary may ask while this worker is still opening the database.
  let requestStop: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  let stopping = false;
  void stopRequested.then(() => (stopping = true));
  process.on('message', (m: unknown) => {
    if (workerMessage(m) === 'stop') requestStop();
  });
  void stopSignal().then(() => requestStop());
  // A terminal's hangup reaches the whole process group; reloading is the primary's business.
  process.on('SIGHUP', () => {});

  const served = await openServed(o, log, worker, true);
  if (typeof served === 'string') {
    await tellPrimary(supervisorMessage('failed', served));
    cluster.worker?.disconnect();
    return 1;
  }
  const server = createServer({ pauseOnConnect: true, allowHalfOpen: true, keepAlive: true });
  try {
    if (stopping) throw new Error('stopped while starting');
    server.listen({ host: o.host, port: o.port });
    await once(server, 'listening');
  } catch (e) {
    if (!stopping) {
      const line = `cannot listen on ${o.host}:${o.port}: ${(e as Error).message}`;
      log.fatal({ err: e }, `eventide serve: ${line}`);
      await tellPrimary(supervisorMessage('failed', line));
    }
    server.close();
    await closeServed(served, log);
    cluster.worker?.disconnect();
    return stopping ? 0 : 1;
  }
  // No await between 'listening' and accept(): no connection can arrive in between.
  const { http, base } = startHttp(
    o,
    served,
    log,
    () => stopping,
    (m) => clusterMetricsClient(m.registry),
  );
  if (!http.accept(server)) throw new Error('EventHttp cannot accept on the shared server');
  const running = base.dispatch();
  if (!stopping) process.send?.(supervisorMessage('ready'));
  await stopRequested;
  // Not ready any more, still serving for --shutdown-delay; then stop accepting,
  // read what was accepted last, and shut down within the deadline.
  if (o.shutdownDelay > 0) await sleep(o.shutdownDelay * 1000);
  server.close();
  const lameDuck = Math.min(LAME_DUCK_MS, o.shutdownTimeout * 1000);
  await sleep(lameDuck);
  await shutdownWithin(http, Math.max(0, o.shutdownTimeout - lameDuck / 1000));
  await running;
  const closed = await closeServed(served, log);
  // The IPC channel would keep this process alive.
  cluster.worker?.disconnect();
  return closed ? 0 : 1;
}

/**
 * The port the workers will share. A given port is used as it is (the
 * workers report when it is taken). For port 0 a free port is picked once,
 * so that workers started later (restarts, reloads) share that port even if
 * every worker died meanwhile; nobody knows that port yet, and a connection
 * the probe might accept all the same is closed at once.
 */
async function choosePort(o: ServeOptions): Promise<number> {
  if (o.port !== 0) return o.port;
  const probe = createServer((socket) => socket.destroy());
  probe.listen({ host: o.host, port: 0, exclusive: true });
  try {
    await once(probe, 'listening');
    return (probe.address() as AddressInfo).port;
  } finally {
    probe.close();
  }
}

/** The level of a supervisor line. */
function supervisorLevel(line: string): 'info' | 'warn' | 'error' {
  if (/giving up|failed to start/.test(line)) return 'error';
  return /died|killing|stopped|ignored/.test(line) ? 'warn' : 'info';
}

/** The options of the demo's workers: its data, and every flag (defaults included). */
function demoWorkerArgs(o: ServeOptions): string[] {
  return [
    // A DATABASE_URL (maybe with a password) reaches the workers through their environment, not their command line.
    ...(process.env['DATABASE_URL'] === o.database ? [] : ['--database', o.database]),
    // Likewise replicas and Redis given in the environment (EVENTIDE_REPLICAS, EVENTIDE_REDIS_URL).
    ...(o.replicas.length === 0 || process.env['EVENTIDE_REPLICAS'] === o.replicas.join(',')
      ? []
      : ['--replicas', o.replicas.join(',')]),
    ...(o.redis === null || process.env['EVENTIDE_REDIS_URL'] === o.redis ? [] : ['--redis', o.redis]),
    ...(o.trustProxy ? ['--trust-proxy'] : []),
    ...(o.compression === null
      ? []
      : ['--compression', o.compression.join(','), '--compression-threshold', String(o.compressionThreshold)]),
    ...(o.corsOrigins === null ? [] : ['--cors-origins', o.corsOrigins === '*' ? '*' : o.corsOrigins.join(',')]),
    '--rows',
    String(o.rows),
    '--allowed-hosts',
    (o.allowedHosts ?? defaultAllowedHosts(o.host)).join(','),
  ];
}

/** The options of an app's workers: the module, and the flags that change its settings only when given. */
function appWorkerArgs(o: ServeOptions, file: string): string[] {
  const given = (name: string): boolean => o.given.includes(name);
  return [
    '--app',
    file,
    ...(given('trust-proxy') && o.trustProxy ? ['--trust-proxy'] : []),
    ...(given('compression') ? ['--compression', o.compression === null ? 'off' : o.compression.join(',')] : []),
    ...(given('compression-threshold') ? ['--compression-threshold', String(o.compressionThreshold)] : []),
    ...(given('cors-origins') && o.corsOrigins !== null
      ? ['--cors-origins', o.corsOrigins === '*' ? '*' : o.corsOrigins.join(',')]
      : []),
    ...(given('allowed-hosts') && o.allowedHosts !== null ? ['--allowed-hosts', o.allowedHosts.join(',')] : []),
  ];
}

/** The primary of `--workers N`. */
async function runPrimary(o: ServeOptions): Promise<number> {
  const log = loggerFor(o, null);
  let description: string;
  let served: string[];
  if (o.app !== null) {
    // The workers import the module; the primary only checks that it is there.
    const file = appFile(o.app);
    if (typeof file !== 'string') {
      log.fatal(`eventide serve: ${file.problem}`);
      return 1;
    }
    description = `app ${file}`;
    served = appWorkerArgs(o, file);
  } else {
    try {
      const db = await openDb(o, log, false);
      description = describeDb(o, db);
      await db.close();
    } catch (e) {
      cannotOpen(log, o, e);
      return 1;
    }
    served = demoWorkerArgs(o);
  }
  let port: number;
  try {
    port = await choosePort(o);
  } catch (e) {
    log.fatal({ err: e }, `eventide serve: cannot listen on ${o.host}:${o.port}: ${(e as Error).message}`);
    return 1;
  }
  const args = [
    'serve',
    '--worker',
    '--host',
    o.host,
    '--port',
    String(port),
    ...served,
    '--shutdown-timeout',
    String(o.shutdownTimeout),
    '--shutdown-delay',
    String(o.shutdownDelay),
    '--log-level',
    o.logLevel,
    '--log-format',
    logFormat(o),
    ...(o.quiet ? ['--quiet'] : []),
  ];
  const supervisor = new WorkerSupervisor({
    workers: o.workers,
    exec: process.argv[1] as string,
    args,
    shutdownTimeout: o.shutdownTimeout + o.shutdownDelay,
    maxRestarts: o.maxRestarts,
    restartWindow: o.restartWindow,
    log: (line) => log[supervisorLevel(line)](`eventide serve: ${line}`),
    workerEnv: (n) => ({ [WORKER_NUMBER_ENV]: String(n) }),
  });
  const stopMetrics = serveClusterMetrics();
  // Handlers before the first fork: a signal during start-up stops the workers started so far.
  void stopSignal().then((signal) => {
    log.info({ signal, shutdownDelay: o.shutdownDelay }, 'eventide serve: shutting down');
    return supervisor.stop(0);
  });
  process.on('SIGHUP', () => void supervisor.reload());
  if (await supervisor.start()) announce(log, o, port, `${description}, ${o.workers} workers`);
  const status = await supervisor.finished;
  stopMetrics();
  log.info({ status }, 'eventide serve: shut down');
  return status;
}

/**
 * Runs `eventide serve` and resolves with the exit status (0 after
 * SIGINT/SIGTERM or `--help`, 1 when it cannot serve or the workers keep
 * crashing, 2 for a bad command line or environment variable, or when pino
 * or prom-client is not installed). `defaults`
 * replace the built-in defaults of the options (the environment variables
 * of `SERVE_ENV` override them, and the command line overrides both).
 * @example
 * ```ts
 * process.exitCode = await serve(['--port', '8000', '--workers', '4'], { maxRestarts: 10 });
 * ```
 */
export async function serve(args: readonly string[], defaults: Partial<ServeOptions> = {}): Promise<number> {
  let o: ServeOptions;
  try {
    o = parseServeArgs(args, defaults, process.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`eventide serve: ${e.message}\n${SERVE_USAGE}`);
    return 2;
  }
  if (o.help) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  const missing = missingServePackages();
  if (missing !== null) {
    process.stderr.write(`eventide serve: ${missing}\n`);
    return 2;
  }
  if (o.worker) {
    if (!cluster.isWorker) {
      process.stderr.write(
        `eventide serve: --worker is internal (the primary of --workers N passes it)\n${SERVE_USAGE}`,
      );
      return 2;
    }
    const status = await runWorker(o);
    if (o.app !== null) setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
    return status;
  }
  const status = await (o.workers === 0 ? runSingle(o) : runPrimary(o));
  // An app that left a timer or a connection open (no close(), or a close() that missed one)
  // must not keep a stopped service alive: exit a second after serving ends.
  if (o.app !== null && o.workers === 0) setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  return status;
}

/**
 * `eventide serve`: the demo catalog API on EventHttp.
 *
 * ```text
 * eventide serve [--host 127.0.0.1] [--port 8000] [--database FILE|postgres://...]
 *                [--rows 100000] [--workers N] [--allowed-hosts A,B]
 *                [--shutdown-timeout 10] [--max-restarts 5] [--restart-window 30]
 *                [--quiet] [--help]
 * ```
 *
 * The SQLite file (default `eventide-demo.sqlite3` in the working directory)
 * is created and seeded on first start, with a progress bar on a terminal;
 * an existing file of the demo's shape is opened as it is. One log line per
 * request on stdout (unless `--quiet`). SIGINT and SIGTERM finish the
 * requests in flight (at most `--shutdown-timeout` seconds) and exit with
 * status 0.
 *
 * With `--workers N` this process is a supervising primary (see
 * `cluster.ts`): N worker processes share the port, crashed workers are
 * restarted, SIGHUP replaces them one at a time. The API accepts only the
 * host names of `--allowed-hosts` (default: the loopback names, the
 * `--host` address and `.example.com`).
 *
 * @module
 */
import cluster from 'node:cluster';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { EventBase } from '../event/base.js';
import { EventHttp } from '../http/server.js';
import { openDemoDatabase, type DemoDatabaseHandle } from './demo-data.js';
import type { AccessLogEntry } from '../rest/api.js';
import { buildDemoApi } from './demo.js';
import { supervisorMessage, workerMessage, WorkerSupervisor } from './cluster.js';
import { defaultAllowedHosts, parseServeArgs, SERVE_USAGE, UsageError, type ServeOptions } from './serve-options.js';

export {
  defaultAllowedHosts,
  parseServeArgs,
  SERVE_DEFAULTS,
  SERVE_USAGE,
  UsageError,
  type ServeOptions,
} from './serve-options.js';

/** How long a stopping worker keeps reading the connections it accepted last before shutting down (ms). */
const LAME_DUCK_MS = 250;

function progressBar(): (done: number, total: number) => void {
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
      process.stderr.write(`seeding: ${pct}% (${done}/${total} rows)\n`);
    }
  };
}

function describeDb(o: ServeOptions, db: DemoDatabaseHandle): string {
  const where = db.kind === 'postgres' ? 'PostgreSQL' : `SQLite ${o.database}`;
  return `${where}, ${db.rowCount} rows${db.created ? ', seeded now' : ''}`;
}

function logLine(e: AccessLogEntry): void {
  process.stdout.write(
    `${e.remoteAddress ?? '-'} "${e.method} ${e.target}" ${e.status} ${e.bytes} ${e.ms.toFixed(1)}ms\n`,
  );
}

function announce(o: ServeOptions, port: number, description: string): void {
  process.stdout.write(
    `eventide demo API listening on http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/ (${description})\n`,
  );
}

async function openDb(o: ServeOptions, seedQuietly: boolean): Promise<DemoDatabaseHandle> {
  return openDemoDatabase(o.database, { rows: o.rows, ...(seedQuietly ? {} : { onProgress: progressBar() }) });
}

/** The demo API on an EventHttp of a new EventBase (not dispatching yet). */
function startHttp(o: ServeOptions, db: DemoDatabaseHandle): { http: EventHttp; base: EventBase } {
  const api = buildDemoApi(db.items(), {
    allowedHosts: o.allowedHosts ?? defaultAllowedHosts(o.host),
    ...(o.quiet ? {} : { onResponse: logLine }),
  });
  const base = new EventBase();
  const http = new EventHttp(base);
  http.setTimeout(60);
  api.serve(http);
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
  let db: DemoDatabaseHandle;
  try {
    db = await openDb(o, false);
  } catch (e) {
    process.stderr.write(`eventide serve: cannot open the database ${o.database}: ${(e as Error).message}\n`);
    return 1;
  }
  const { http, base } = startHttp(o, db);
  if (!http.bind(o.host, o.port)) {
    process.stderr.write(`eventide serve: cannot listen on ${o.host}:${o.port}\n`);
    http.free();
    await db.close();
    return 1;
  }
  const running = base.dispatch();
  // Handlers first, then the announcement: a supervisor may signal as soon as it reads it.
  const stopped = stopSignal();
  announce(o, http.getBoundPorts()[0] as number, describeDb(o, db));
  await stopped;
  process.stdout.write('eventide serve: shutting down\n');
  await shutdownWithin(http, o.shutdownTimeout);
  await running;
  await db.close();
  return 0;
}

/** A worker of the primary: listens through node:cluster (the port is shared), reports ready, stops when asked. */
async function runWorker(o: ServeOptions): Promise<number> {
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

  let db: DemoDatabaseHandle;
  try {
    db = await openDb(o, true);
  } catch (e) {
    process.stderr.write(
      `eventide serve: worker ${process.pid}: cannot open the database ${o.database}: ${(e as Error).message}\n`,
    );
    return 1;
  }
  const server = createServer({ pauseOnConnect: true, allowHalfOpen: true, keepAlive: true });
  try {
    if (stopping) throw new Error('stopped while starting');
    server.listen({ host: o.host, port: o.port });
    await once(server, 'listening');
  } catch (e) {
    if (!stopping)
      process.stderr.write(
        `eventide serve: worker ${process.pid}: cannot listen on ${o.host}:${o.port}: ${(e as Error).message}\n`,
      );
    server.close();
    await db.close();
    cluster.worker?.disconnect();
    return stopping ? 0 : 1;
  }
  // No await between 'listening' and accept(): no connection can arrive in between.
  const { http, base } = startHttp(o, db);
  if (!http.accept(server)) throw new Error('EventHttp cannot accept on the shared server');
  const running = base.dispatch();
  if (!stopping) process.send?.(supervisorMessage('ready'));
  await stopRequested;
  // Stop accepting, read what was accepted last, then shut down within the deadline.
  server.close();
  const lameDuck = Math.min(LAME_DUCK_MS, o.shutdownTimeout * 1000);
  await new Promise((r) => setTimeout(r, lameDuck));
  await shutdownWithin(http, Math.max(0, o.shutdownTimeout - lameDuck / 1000));
  await running;
  await db.close();
  // The IPC channel would keep this process alive.
  cluster.worker?.disconnect();
  return 0;
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

/** The primary of `--workers N`. */
async function runPrimary(o: ServeOptions): Promise<number> {
  let description: string;
  try {
    const db = await openDb(o, false);
    description = describeDb(o, db);
    await db.close();
  } catch (e) {
    process.stderr.write(`eventide serve: cannot open the database ${o.database}: ${(e as Error).message}\n`);
    return 1;
  }
  let port: number;
  try {
    port = await choosePort(o);
  } catch (e) {
    process.stderr.write(`eventide serve: cannot listen on ${o.host}:${o.port}: ${(e as Error).message}\n`);
    return 1;
  }
  const args = [
    'serve',
    '--worker',
    '--host',
    o.host,
    '--port',
    String(port),
    '--database',
    o.database,
    '--rows',
    String(o.rows),
    '--allowed-hosts',
    (o.allowedHosts ?? defaultAllowedHosts(o.host)).join(','),
    '--shutdown-timeout',
    String(o.shutdownTimeout),
    ...(o.quiet ? ['--quiet'] : []),
  ];
  const supervisor = new WorkerSupervisor({
    workers: o.workers,
    exec: process.argv[1] as string,
    args,
    shutdownTimeout: o.shutdownTimeout,
    maxRestarts: o.maxRestarts,
    restartWindow: o.restartWindow,
  });
  // Handlers before the first fork: a signal during start-up stops the workers started so far.
  void stopSignal().then(() => supervisor.stop(0));
  process.on('SIGHUP', () => void supervisor.reload());
  if (await supervisor.start()) announce(o, port, `${description}, ${o.workers} workers`);
  const status = await supervisor.finished;
  process.stdout.write('eventide serve: shut down\n');
  return status;
}

/**
 * Runs `eventide serve` and resolves with the exit status (0 after
 * SIGINT/SIGTERM or `--help`, 1 when it cannot serve or the workers keep
 * crashing, 2 for a bad command line). `defaults` replace the built-in
 * defaults of the options (the command line still overrides them).
 * @example
 * ```ts
 * process.exitCode = await serve(['--port', '8000', '--workers', '4'], { maxRestarts: 10 });
 * ```
 */
export async function serve(args: readonly string[], defaults: Partial<ServeOptions> = {}): Promise<number> {
  let o: ServeOptions;
  try {
    o = parseServeArgs(args, defaults);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`eventide serve: ${e.message}\n${SERVE_USAGE}`);
    return 2;
  }
  if (o.help) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  if (o.worker) {
    if (!cluster.isWorker) {
      process.stderr.write(
        `eventide serve: --worker is internal (the primary of --workers N passes it)\n${SERVE_USAGE}`,
      );
      return 2;
    }
    return runWorker(o);
  }
  return o.workers === 0 ? runSingle(o) : runPrimary(o);
}

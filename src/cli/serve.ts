/**
 * `eventide serve`: the demo catalog API on EventHttp.
 *
 * ```
 * eventide serve [--host 127.0.0.1] [--port 8000] [--database FILE|postgres://...]
 *                [--rows 100000] [--workers N] [--quiet]
 * ```
 *
 * The SQLite file (default `eventide-demo.sqlite3` in the working directory)
 * is created and seeded on first start, with a progress bar on a terminal;
 * an existing file of the demo's shape is opened as it is. With
 * `--workers N` the primary process binds the port and N worker processes
 * accept on it. One log line per request on stdout (unless `--quiet`);
 * SIGINT and SIGTERM finish the requests in flight and exit with status 0.
 *
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { EventBase } from '../event/base.js';
import { EventHttp } from '../http/server.js';
import { openDemoDatabase, type DemoDatabaseHandle } from '../rest/data/demo.js';
import type { AccessLogEntry } from '../rest/api.js';
import { buildDemoApi } from './demo.js';

/**
 * The options of `eventide serve`.
 * @example
 * ```ts
 * const o: ServeOptions = parseServeArgs(['--port', '9000']);
 * ```
 */
export interface ServeOptions {
  host: string;
  port: number;
  database: string;
  rows: number;
  workers: number;
  quiet: boolean;
  worker: boolean;
}

/**
 * An invalid command line: the message to print (exit status 2).
 * @example
 * ```ts
 * try { parseServeArgs(['--port', 'x']); } catch (e) { if (e instanceof UsageError) console.error(e.message); }
 * ```
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

function intOption(name: string, raw: string | undefined, min: number, max: number): number {
  if (raw === undefined || !/^\d+$/.test(raw)) throw new UsageError(`${name} needs an integer, got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/**
 * Parses the arguments of `eventide serve`.
 * @example
 * ```ts
 * parseServeArgs(['--rows', '1000', '--database', ':memory:']).rows; // 1000
 * ```
 */
export function parseServeArgs(args: readonly string[]): ServeOptions {
  const o: ServeOptions = { host: '127.0.0.1', port: 8000, database: 'eventide-demo.sqlite3', rows: 100_000, workers: 1, quiet: false, worker: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const value = (): string | undefined => (a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : args[++i]);
    switch (name) {
      case '--host':
        o.host = value() ?? '';
        if (o.host === '') throw new UsageError('--host needs an address');
        break;
      case '--port':
        o.port = intOption('--port', value(), 0, 65535);
        break;
      case '--database':
        o.database = value() ?? '';
        if (o.database === '') throw new UsageError('--database needs a file name or a postgres:// URL');
        break;
      case '--rows':
        o.rows = intOption('--rows', value(), 1, 100_000_000);
        break;
      case '--workers':
        o.workers = intOption('--workers', value(), 1, 64);
        break;
      case '--quiet':
        o.quiet = true;
        break;
      case '--worker':
        o.worker = true;
        break;
      default:
        throw new UsageError(`unknown option ${a}`);
    }
  }
  return o;
}

/** The usage text of `eventide serve`. @internal */
export const SERVE_USAGE =
  'Usage: eventide serve [--host 127.0.0.1] [--port 8000] [--database FILE|postgres://...] [--rows 100000] [--workers N] [--quiet]\n';

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
      process.stderr.write(`\rseeding [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}% ${done}/${total} rows`);
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
  process.stdout.write(`${e.remoteAddress ?? '-'} "${e.method} ${e.target}" ${e.status} ${e.bytes} ${e.ms.toFixed(1)}ms\n`);
}

async function openDb(o: ServeOptions, seedQuietly: boolean): Promise<DemoDatabaseHandle> {
  return openDemoDatabase(o.database, { rows: o.rows, ...(seedQuietly ? {} : { onProgress: progressBar() }) });
}

/** Serves on one EventHttp: a listening address, or a server handle passed by the primary. */
async function serveOne(o: ServeOptions, db: DemoDatabaseHandle, target: Server | null): Promise<{ port: number; stop(): Promise<void> }> {
  const api = buildDemoApi(db.items(), o.quiet ? {} : { onResponse: logLine });
  const base = new EventBase();
  const http = new EventHttp(base);
  if (target !== null) {
    if (!http.accept(target)) throw new Error('cannot accept on the server handle passed by the primary');
  } else if (!http.bind(o.host, o.port)) {
    throw new Error(`cannot listen on ${o.host}:${o.port}`);
  }
  http.setTimeout(60);
  api.serve(http);
  const running = base.dispatch();
  const port = target !== null ? 0 : (http.getBoundPorts()[0] as number);
  return {
    port,
    async stop() {
      await http.shutdown();
      http.free();
      await running;
    },
  };
}

function onStopSignal(handler: (signal: NodeJS.Signals) => void): void {
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      handler(sig);
    });
  }
}

async function runWorker(o: ServeOptions): Promise<number> {
  const db = await openDb(o, true);
  const [, handle] = (await once(process, 'message')) as [unknown, Server];
  const server = await serveOne(o, db, handle);
  // Stop on SIGINT/SIGTERM, and when the primary goes away (its IPC channel closes).
  const stopped = new Promise<void>((resolve) => {
    onStopSignal(() => resolve());
    process.once('disconnect', () => resolve());
  });
  process.send?.('ready');
  await stopped;
  await server.stop();
  await db.close();
  // The IPC channel to the primary would keep this process alive.
  if (process.connected) process.disconnect();
  return 0;
}

/**
 * Runs `eventide serve` and resolves with the exit status.
 * @example
 * ```ts
 * process.exitCode = await serve(['--port', '8000']);
 * ```
 */
export async function serve(args: readonly string[]): Promise<number> {
  let o: ServeOptions;
  try {
    o = parseServeArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`eventide serve: ${e.message}\n${SERVE_USAGE}`);
    return 2;
  }
  if (o.worker) return runWorker(o);
  let db: DemoDatabaseHandle;
  try {
    db = await openDb(o, false);
  } catch (e) {
    process.stderr.write(`eventide serve: cannot open the database ${o.database}: ${(e as Error).message}\n`);
    return 1;
  }
  if (o.workers === 1) {
    let server: Awaited<ReturnType<typeof serveOne>>;
    try {
      server = await serveOne(o, db, null);
    } catch (e) {
      process.stderr.write(`eventide serve: ${(e as Error).message}\n`);
      await db.close();
      return 1;
    }
    // Handlers first, then the announcement: a supervisor may signal as soon as it reads it.
    const stopped = new Promise<void>((resolve) => onStopSignal(() => resolve()));
    process.stdout.write(`eventide demo API listening on http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${server.port}/ (${describeDb(o, db)})\n`);
    await stopped;
    process.stdout.write('eventide serve: shutting down\n');
    await server.stop();
    await db.close();
    return 0;
  }
  // Several workers: the primary binds the port and hands the listening socket to each worker.
  const description = describeDb(o, db);
  await db.close();
  const listener = createServer({ pauseOnConnect: true });
  listener.on('error', () => {});
  try {
    listener.listen({ host: o.host, port: o.port, exclusive: false });
    await once(listener, 'listening');
  } catch (e) {
    process.stderr.write(`eventide serve: cannot listen on ${o.host}:${o.port}: ${(e as Error).message}\n`);
    return 1;
  }
  const port = (listener.address() as { port: number }).port;
  const children: ChildProcess[] = [];
  // Handlers before the first fork: a signal during start-up stops the workers started so far.
  let stopRequested = false;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
    onStopSignal((sig) => {
      stopRequested = true;
      for (const c of children) c.kill(sig);
      resolve();
    });
  });
  const script = process.argv[1] as string;
  for (let i = 0; i < o.workers && !stopRequested; i++) {
    const child = fork(script, ['serve', '--worker', '--database', o.database, '--rows', String(o.rows), ...(o.quiet ? ['--quiet'] : [])], { execArgv: process.execArgv });
    children.push(child);
    await once(child, 'spawn');
    child.send('server', listener);
    const [ready] = await Promise.race([once(child, 'message'), once(child, 'exit').then(() => ['exit']), stopped.then(() => ['stop'])]);
    if (ready === 'stop') break;
    if (ready !== 'ready') {
      process.stderr.write(`eventide serve: worker ${i + 1} failed to start\n`);
      for (const c of children) c.kill('SIGTERM');
      listener.close();
      return 1;
    }
  }
  listener.close();
  const exited = children.map((c) => (c.exitCode !== null ? Promise.resolve() : once(c, 'exit').then(() => undefined)));
  void Promise.race(exited).then(() => stop());
  if (!stopRequested) process.stdout.write(`eventide demo API listening on http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/ (${description}, ${o.workers} workers)\n`);
  await stopped;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(exited);
  process.stdout.write('eventide serve: shut down\n');
  return 0;
}

/**
 * Helpers for the `eventide serve` tests: starting the CLI, reading its
 * announcement and its workers' pids, plain HTTP requests with any Host
 * header (node:http; fetch cannot set Host), and process checks.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { runNode, type ExampleRun } from '../support/spawn.js';

/**
 * Starts `eventide serve --port 0 ARGS` through `bin/eventide.js` (the
 * command as installed) or the sources (`node --import tsx src/cli/main.ts`,
 * where the child is the serving process itself).
 */
export function startServe(args: string[], via: 'bin' | 'source' = 'bin'): ExampleRun {
  const cli = via === 'bin' ? ['bin/eventide.js'] : ['--import', 'tsx', 'src/cli/main.ts'];
  return runNode([...cli, 'serve', ...(args.includes('--port') ? [] : ['--port', '0']), ...args]);
}

/**
 * `eventide serve ARGS` from the sources (the child is the serving process),
 * with `env` over this process's environment; no `--port` is added (the
 * environment may name it).
 */
export function serveWithEnv(args: string[], env: Record<string, string> = {}): ExampleRun {
  return runNode(['--import', 'tsx', 'src/cli/main.ts', 'serve', ...args], { env: { ...process.env, ...env } });
}

/** Waits for the announcement; its origin (`http://127.0.0.1:PORT`) and port. */
export async function announced(run: ExampleRun, ms = 60_000): Promise<{ origin: string; port: number }> {
  await run.waitStdout('listening on http://', ms);
  const m = /eventide demo API listening on (http:\/\/(?:\[[^\]]+\]|[^:/]+):(\d+))\/ \(/.exec(run.stdout());
  assert.ok(m, `announcement: ${run.stdout()}`);
  return { origin: m[1] as string, port: Number(m[2]) };
}

/** One `worker N started (pid P)` line of the primary. */
export interface WorkerStart {
  n: number;
  pid: number;
}

/** Every `worker N started (pid P)` line so far, in order. */
export function workerStarts(run: ExampleRun): WorkerStart[] {
  return [...run.stdout().matchAll(/worker (\d+) started \(pid (\d+)\)/g)].map((m) => ({
    n: Number(m[1]),
    pid: Number(m[2]),
  }));
}

/** Waits until at least `count` workers have been reported started. */
export async function waitStarts(run: ExampleRun, count: number, ms = 60_000): Promise<WorkerStart[]> {
  await waitUntil(() => workerStarts(run).length >= count, ms, `${count} workers started`);
  return workerStarts(run);
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `cond` every 20 ms until it holds; rejects after `ms`. */
export async function waitUntil(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** Waits until the log (stdout) matches `re`. */
export async function waitLog(run: ExampleRun, re: RegExp, ms: number): Promise<void> {
  await waitUntil(() => re.test(run.stdout()), ms, String(re));
}

/** A response: status, headers and body text. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * GET `path` from 127.0.0.1:`port` on a new connection (`Connection:
 * close`), with an optional Host header; rejects on a socket error or after
 * `timeoutMs`.
 */
export function get(port: number, path: string, opts: { host?: string; timeoutMs?: number } = {}): Promise<Answer> {
  return getWith(port, path, opts.host !== undefined ? { Host: opts.host } : {}, opts.timeoutMs ?? 5000);
}

/**
 * GET `path` from 127.0.0.1:`port` on a new connection with these header
 * fields; rejects on a socket error or after `timeoutMs`.
 */
export function getWith(
  port: number,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** The outcome of one request of a load loop. */
export interface LoadResult {
  ok: boolean;
  status: number;
  error?: string;
  /** performance.now() when it was answered or failed. */
  at: number;
}

/**
 * Sends sequential requests (one at a time, each on a new connection)
 * until `until()` says stop, at most `max` of them and for at most `ms`.
 */
export async function sequentialLoad(
  port: number,
  path: string,
  until: () => boolean,
  max: number,
  ms: number,
): Promise<LoadResult[]> {
  const out: LoadResult[] = [];
  const end = Date.now() + ms;
  while (out.length < max && Date.now() < end && !until()) {
    try {
      const r = await get(port, path, { timeoutMs: 5000 });
      out.push({ ok: r.status === 200, status: r.status, at: performance.now() });
    } catch (e) {
      out.push({ ok: false, status: 0, error: (e as Error).message, at: performance.now() });
    }
  }
  return out;
}

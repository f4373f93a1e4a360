/**
 * Helpers for the `eventide serve --workers` tests (test/cli/workers*.test.ts,
 * one file per concern so that each stays far inside the runner's 120 s per
 * file on a loaded machine): a fresh SQLite file per server, the deadlines
 * of a process tree that starts node with tsx three or four times, starting
 * the demo with N workers, and a background load whose progress a test
 * waits on (a number of answers, not a sleep).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { tempDir, type ExampleRun } from '../support/spawn.js';
import { announced, get, startServe, waitStarts, type LoadResult, type WorkerStart } from './serve-support.js';

/**
 * How long a step of a process tree may take: a start (launcher, primary
 * and workers, each loading the sources through tsx), a reload, an exit.
 * Generous for a machine whose two cores are busy with other test files;
 * each test's own `timeout` bounds the whole.
 */
export const STEP_MS = 60_000;
/** The `timeout` of one test: a few steps. */
export const TEST_MS = 110_000;

/** A temporary directory for this file's databases (removed by `remove()` in an `after` hook). */
export function databases(prefix: string): { file(): string; remove(): void } {
  const tmp = tempDir(prefix);
  let files = 0;
  return {
    file: () => join(tmp.path, `demo-${++files}.sqlite3`),
    remove: () => tmp.remove(),
  };
}

/** A started `eventide serve --workers N`: the process, where it listens, and its workers' starts. */
export interface WorkersRun {
  run: ExampleRun;
  port: number;
  origin: string;
  starts: WorkerStart[];
}

/**
 * Starts `eventide serve --database <a new file> --rows 200 --workers N`
 * (then `extra`) through bin/eventide.js and waits for its announcement and
 * its N workers' starts (each within {@link STEP_MS}).
 */
export async function startWorkers(db: { file(): string }, workers: number, extra: string[] = []): Promise<WorkersRun> {
  const run = startServe(['--database', db.file(), '--rows', '200', '--workers', String(workers), ...extra]);
  const { port, origin } = await announced(run, STEP_MS);
  const starts = await waitStarts(run, workers, STEP_MS);
  return { run, port, origin, starts };
}

/**
 * Runs `steps` while a {@link BackgroundLoad} on `path` runs (stopped after
 * them, also when they fail), then asserts that none of its requests failed;
 * `t.diagnostic` tells how many ran `during` what.
 */
export async function assertEveryRequestOk(
  t: TestContext,
  port: number,
  path: string,
  during: string,
  steps: (load: BackgroundLoad) => Promise<void>,
): Promise<void> {
  const load = new BackgroundLoad(port, path);
  try {
    await steps(load);
  } finally {
    await load.stop();
  }
  const results = load.results;
  const failed = results.filter((r) => !r.ok);
  t.diagnostic(`${results.length} requests ${during}, ${failed.length} failed`);
  assert.deepEqual(failed, [], `${failed.length} of ${results.length} requests failed`);
}

/**
 * Requests sent one at a time (each on a new connection) in the
 * background until `stop()`, at most `max`, each answered within 5 s or
 * counted as failed.
 */
export class BackgroundLoad {
  readonly results: LoadResult[] = [];
  readonly #port: number;
  readonly #path: string;
  readonly #max: number;
  #stopped = false;
  #waiters: { count: number; resolve: () => void }[] = [];
  readonly #done: Promise<LoadResult[]>;

  constructor(port: number, path: string, max = 20_000) {
    this.#port = port;
    this.#path = path;
    this.#max = max;
    this.#done = this.#run();
  }

  async #run(): Promise<LoadResult[]> {
    while (!this.#stopped && this.results.length < this.#max) {
      try {
        const r = await get(this.#port, this.#path, { timeoutMs: 5000 });
        this.results.push({ ok: r.status === 200, status: r.status, at: performance.now() });
      } catch (e) {
        this.results.push({ ok: false, status: 0, error: (e as Error).message, at: performance.now() });
      }
      this.#wake();
    }
    this.#stopped = true;
    this.#wake();
    return this.results;
  }

  #wake(): void {
    const ready = this.#waiters.filter((w) => this.#stopped || this.results.length >= w.count);
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }

  /** Resolves once `n` more requests than now have been answered (or failed); rejects after `ms`. */
  async more(n: number, ms = STEP_MS): Promise<void> {
    const count = this.results.length + n;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#waiters.push({ count, resolve });
          this.#wake();
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the load did not reach ${count} requests within ${ms} ms`)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    if (this.results.length < count) throw new Error(`the load stopped after ${this.results.length} requests`);
  }

  /** Stops after the request in flight; resolves with every result. */
  stop(): Promise<LoadResult[]> {
    this.#stopped = true;
    return this.#done;
  }
}

/**
 * `eventide serve --workers N` when workers crash (a real process tree on
 * 127.0.0.1, see workers.test.ts): a worker killed under load is replaced
 * while the service keeps answering, and workers that keep crashing make the
 * primary give up with status 1. Loads are bounded by a number of requests
 * (each within 5 s), waits by log lines and exits, not by sleeps.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { killAll } from '../support/spawn.js';
import { alive, announced, sequentialLoad, sleep, startServe, waitStarts, workerStarts } from './serve-support.js';
import { databases, startWorkers, STEP_MS, TEST_MS } from './workers-support.js';

after(killAll);
const db = databases('eventide-workers-crash-');
after(() => db.remove());

test(
  'SIGKILL of a worker under load: the service keeps answering and the worker is replaced',
  { timeout: TEST_MS },
  async (t) => {
    const { run, port, starts: first } = await startWorkers(db, 2, ['--quiet']);
    assert.deepEqual(first.map((s) => s.n).sort(), [1, 2]);
    const w1 = first.find((s) => s.n === 1)?.pid as number;
    const w2 = first.find((s) => s.n === 2)?.pid as number;
    const path = '/page/items/?page=3';

    // Each phase is a number of requests (or the replacement's start), whatever the machine's speed.
    const before = await sequentialLoad(port, path, () => false, 20, STEP_MS);
    process.kill(w1, 'SIGKILL');
    const during = await sequentialLoad(port, path, () => workerStarts(run).length >= 3, 1000, STEP_MS);
    const starts = await waitStarts(run, 3, STEP_MS);
    const replacement = starts[2] as { n: number; pid: number };
    assert.equal(replacement.n, 1);
    assert.notEqual(replacement.pid, w1);
    assert.ok(alive(replacement.pid));
    assert.match(
      run.stdout(),
      new RegExp(`worker 1 \\(pid ${w1}\\) died \\(signal SIGKILL\\); restarting it in \\d+ ms`),
    );
    // After the replacement: every request answered, also once worker 2 is gone (the replacement alone serves then).
    const replaced = await sequentialLoad(port, path, () => false, 20, STEP_MS);
    process.kill(w2, 'SIGKILL');
    const alone = await sequentialLoad(port, path, () => false, 20, STEP_MS);
    await waitStarts(run, 4, STEP_MS);

    const all = [...before, ...during, ...replaced, ...alone];
    const failed = all.filter((r) => !r.ok);
    t.diagnostic(`${all.length} requests (${replaced.length} after the replacement), ${failed.length} failed`);
    assert.equal(before.length + replaced.length + alone.length, 60, 'every phase sent its requests');
    assert.ok(failed.length <= 2, `${failed.length} of ${all.length} failed: ${JSON.stringify(failed.slice(0, 5))}`);
    assert.ok(
      replaced.every((r) => r.ok),
      `after the replacement: ${JSON.stringify(replaced.filter((r) => !r.ok))}`,
    );
    assert.ok(
      alone.filter((r) => r.ok).length >= alone.length - 1,
      `with worker 2 killed: ${JSON.stringify(alone.filter((r) => !r.ok))}`,
    );
    assert.equal(run.child.exitCode, null, 'the primary keeps running');

    run.kill('SIGTERM');
    assert.equal((await run.waitExit(STEP_MS)).code, 0, run.stderr());
  },
);

test('workers that keep crashing make the primary give up with exit status 1', { timeout: TEST_MS }, async () => {
  const run = startServe([
    '--database',
    db.file(),
    '--rows',
    '200',
    '--workers',
    '1',
    '--max-restarts',
    '2',
    '--restart-window',
    '600',
    '--quiet',
  ]);
  await announced(run, STEP_MS);
  const killed = new Set<number>();
  const deadline = Date.now() + 90_000;
  // Kill every worker as soon as it is reported started: 1 + 2 restarts, the third crash gives up.
  while (run.child.exitCode === null && killed.size < 10 && Date.now() < deadline) {
    for (const { pid } of workerStarts(run)) {
      if (!killed.has(pid)) {
        killed.add(pid);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await sleep(20); // a poll of the log, not a wait for time to pass
  }
  const ex = await run.waitExit(STEP_MS);
  assert.equal(ex.code, 1, run.stderr());
  assert.equal(killed.size, 3, run.stderr());
  assert.match(run.stdout(), /3 crashes within 600 s \(more than --max-restarts 2\): giving up/);
  assert.match(run.stdout(), /restarting it in 100 ms[^]*restarting it in 200 ms/);
  for (const pid of killed) assert.equal(alive(pid), false, `pid ${pid}`);
});

/**
 * `eventide serve --workers N` reloads (a real process tree on 127.0.0.1,
 * see workers.test.ts): SIGHUP replaces every worker one at a time without
 * losing a request, with one worker too, and a SIGHUP during a reload runs
 * another. A background load runs throughout; the test waits for a number
 * of its answers before the signal and after the reload, not for time.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { killAll } from '../support/spawn.js';
import { alive, waitLog, waitUntil } from './serve-support.js';
import { assertEveryRequestOk, databases, startWorkers, STEP_MS, TEST_MS } from './workers-support.js';

after(killAll);
const db = databases('eventide-workers-reload-');
after(() => db.remove());

test('SIGHUP replaces every worker one at a time without losing a request', { timeout: TEST_MS }, async (t) => {
  const { run, port, starts } = await startWorkers(db, 2, ['--quiet']);
  const old = starts.map((s) => s.pid);
  await assertEveryRequestOk(t, port, '/cursor/items/', 'during the reload', async (load) => {
    await load.more(10); // served before the reload
    run.kill('SIGHUP');
    await waitLog(run, /reload done \(pids (\d+), (\d+)\)/, STEP_MS);
    await load.more(10); // and by the new workers after it
  });
  const m = /reload done \(pids (\d+), (\d+)\)/.exec(run.stdout());
  const fresh = [Number(m?.[1]), Number(m?.[2])];
  for (const pid of fresh) assert.ok(!old.includes(pid), `pid ${pid} was there before the reload`);
  await waitUntil(() => old.every((pid) => !alive(pid)), STEP_MS, 'the old workers to exit');
  assert.doesNotMatch(run.stdout(), /died|killing it/);
  run.kill('SIGTERM');
  assert.equal((await run.waitExit(STEP_MS)).code, 0, run.stderr());
});

test(
  'SIGHUP with one worker: the new worker serves before the old one stops; a SIGHUP during a reload runs another',
  { timeout: TEST_MS },
  async (t) => {
    const { run, port, starts } = await startWorkers(db, 1, ['--quiet']);
    const [first] = starts;
    await assertEveryRequestOk(t, port, '/page/items/?page=2', 'during two reloads', async (load) => {
      await load.more(10);
      run.kill('SIGHUP');
      await waitLog(run, /reloading: replacing/, STEP_MS);
      run.kill('SIGHUP');
      await waitLog(run, /reload done \(pids \d+\)[^]*reload done \(pids \d+\)/, 2 * STEP_MS);
      await load.more(10);
    });
    assert.match(run.stdout(), /another one will follow/);
    const pids = [...run.stdout().matchAll(/reload done \(pids (\d+)\)/g)].map((m) => Number(m[1]));
    assert.equal(new Set([first?.pid, ...pids]).size, 3, run.stderr());
    await waitUntil(() => !alive(first?.pid as number), STEP_MS, 'the first worker to exit');
    run.kill('SIGTERM');
    assert.equal((await run.waitExit(STEP_MS)).code, 0, run.stderr());
  },
);

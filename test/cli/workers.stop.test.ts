/**
 * Stopping `eventide serve --workers N` (a real process tree on 127.0.0.1,
 * see workers.test.ts): SIGTERM stops the workers and the primary with
 * status 0 (the primary's --shutdown-timeout is the deadline; the test only
 * bounds its wait), and the launcher's death (SIGKILL, no signal forwarded)
 * stops the primary and its workers too.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { killAll } from '../support/spawn.js';
import { requireTool } from '../support/tools.js';
import { alive, get, waitUntil } from './serve-support.js';
import { databases, startWorkers, STEP_MS, TEST_MS } from './workers-support.js';

after(killAll);
const db = databases('eventide-workers-stop-');
after(() => db.remove());
/** /proc/PID/stat names a process's parent: how the launcher test finds the primary. */
const procfs = requireTool(existsSync('/proc/self/stat') ? null : 'no /proc to find the primary by (Linux)');

test(
  'SIGTERM stops the workers and the primary with status 0, gracefully, within the shutdown deadline',
  { timeout: TEST_MS },
  async () => {
    const { run, origin, starts } = await startWorkers(db, 2, ['--shutdown-timeout', '3']);
    const pids = starts.map((s) => s.pid);
    assert.equal((await fetch(`${origin}/page/items/`)).status, 200);
    run.kill('SIGTERM');
    const ex = await run.waitExit(STEP_MS);
    assert.equal(ex.code, 0, run.stderr());
    assert.match(run.stdout(), /eventide serve: shut down/);
    assert.match(run.stdout(), /"method":"GET","path":"\/page\/items\/","route":"page-items","status":200/);
    await waitUntil(() => pids.every((pid) => !alive(pid)), STEP_MS, 'the workers to be gone');
    // Neither a crash nor the deadline: the workers stopped by themselves, before --shutdown-timeout.
    assert.doesNotMatch(run.stdout(), /died|killing it/);
  },
);

test(
  'the launcher (bin/eventide.js) killed with SIGKILL: the primary and its workers stop too',
  { timeout: TEST_MS },
  async (t) => {
    if (!procfs.check(t)) return;
    const { run, port, starts } = await startWorkers(db, 2, ['--quiet']);
    const workers = starts.map((s) => s.pid);
    // /proc/PID/stat: "pid (comm) state ppid ..."; the workers' parent is the primary.
    const primary = Number(/\) \S+ (\d+)/.exec(readFileSync(`/proc/${workers[0]}/stat`, 'utf8'))?.[1]);
    assert.ok(primary > 0 && primary !== run.child.pid && alive(primary));
    run.kill('SIGKILL');
    await run.waitExit(STEP_MS);
    await waitUntil(() => ![primary, ...workers].some(alive), STEP_MS, 'the primary and the workers to exit');
    await assert.rejects(get(port, '/page/items/', { timeoutMs: 2000 }));
  },
);

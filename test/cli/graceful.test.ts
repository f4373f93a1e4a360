/**
 * Reloads and shutdowns of `eventide serve` lose no request on kept-alive
 * connections: a bounded keep-alive load (wrk, and a Node client that
 * accounts for every request) through several SIGHUP reloads, and through
 * SIGTERM with workers and without. A request the service had received
 * (read, or still in the kernel) is answered, with `Connection: close` when
 * its connection is ending; what fails after SIGTERM is only a connection
 * refused once nothing listens any more, never a request sent and left
 * unanswered.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { killAll, tempDir } from '../support/spawn.js';
import { keepAliveLoad, type KeepAliveLoadResult } from '../support/keepalive-load.js';
import { announced, sleep, startServe, waitLog, waitStarts } from './serve-support.js';

after(killAll);
const tmp = tempDir('eventide-graceful-');
after(() => tmp.remove());
let files = 0;
/** A new SQLite file name per test (each server seeds its own). */
const dbFile = (): string => join(tmp.path, `demo-${++files}.sqlite3`);

const PATH = '/page/items/?page=2&page_size=5';

/** What wrk reported. */
interface WrkReport {
  requests: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  non2xx: number;
  text: string;
}

/** Runs `wrk -t1 -cN -dS` against `url` (bounded: it ends after `seconds`, killed 30 s later at the latest). */
function wrk(url: string, connections: number, seconds: number): Promise<WrkReport> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '5s', url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.on('error', (e) => {
      clearTimeout(kill);
      reject(new Error(`wrk could not run (.ci/run installs it): ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(kill);
      if (code !== 0) return reject(new Error(`wrk exited with ${code}: ${text}`));
      const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
      const num = (re: RegExp): number => Number(re.exec(text)?.[1] ?? 0);
      resolve({
        requests: num(/(\d+) requests in/),
        connect: Number(errors?.[1] ?? 0),
        read: Number(errors?.[2] ?? 0),
        write: Number(errors?.[3] ?? 0),
        timeout: Number(errors?.[4] ?? 0),
        non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
        text,
      });
    });
  });
}

/** The Node client's load: 8 kept-alive connections until `stop()` (at most `maxMs`); a refused connect is retried after 50 ms. */
function nodeLoad(port: number, maxMs: number): { stop(): Promise<KeepAliveLoadResult> } {
  let stopped = false;
  const run = keepAliveLoad({
    port,
    path: PATH,
    connections: 8,
    until: () => stopped,
    maxRequests: 2_000_000,
    maxMs,
    retryMs: 50,
  });
  return {
    stop: () => {
      stopped = true;
      return run;
    },
  };
}

function describeLoad(r: KeepAliveLoadResult): string {
  return `${JSON.stringify([...r.statuses])} closing=${r.closing} lost=${r.lost.length} refused=${r.refused} connects=${r.connects}`;
}

test('SIGHUP three times under keep-alive load (wrk and a Node client): not one request fails', async (t) => {
  const run = startServe(['--database', dbFile(), '--rows', '200', '--workers', '2', '--quiet']);
  const { origin, port } = await announced(run);
  await waitStarts(run, 2);
  const node = nodeLoad(port, 120_000);
  // 30 s of load: three reloads take about 20 s on a loaded machine (each starts two workers).
  const load = wrk(`${origin}${PATH}`, 32, 30);
  const loadEnds = Date.now() + 30_000;
  await sleep(1500);
  let reloads = 0;
  // Each reload replaces both workers; the next one starts once it is done (up to three, within wrk's run).
  for (let i = 1; i <= 3 && Date.now() < loadEnds - 4000; i++) {
    run.kill('SIGHUP');
    await waitLog(run, new RegExp(`(reload done[^]*){${i}}`), 60_000);
    reloads = i;
    await sleep(500);
  }
  const w = await load;
  const n = await node.stop();
  t.diagnostic(`${reloads} reloads; wrk: ${w.requests} requests; node: ${describeLoad(n)}`);
  assert.ok(reloads >= 2, `only ${reloads} reloads completed during the load: ${run.stdout().slice(-2000)}`);
  assert.ok(w.requests > 1000, w.text);
  assert.deepEqual(
    { connect: w.connect, read: w.read, write: w.write, timeout: w.timeout, non2xx: w.non2xx },
    { connect: 0, read: 0, write: 0, timeout: 0, non2xx: 0 },
    w.text,
  );
  assert.deepEqual(n.lost, [], describeLoad(n));
  assert.equal(n.refused, 0, describeLoad(n));
  assert.deepEqual([...n.statuses.keys()], [200], describeLoad(n));
  assert.ok(n.closing >= 8, `the reloads closed kept-alive connections with Connection: close: ${describeLoad(n)}`);
  assert.doesNotMatch(run.stdout(), /died|killing it/);
  run.kill('SIGTERM');
  assert.equal((await run.waitExit(30_000)).code, 0, run.stderr());
});

for (const workers of [['--workers', '2'], []]) {
  const what = workers.length > 0 ? 'with 2 workers' : 'in one process';
  test(`SIGTERM under keep-alive load ${what}: every request sent is answered; later connections are refused`, async (t) => {
    const run = startServe(['--database', dbFile(), '--rows', '200', ...workers, '--quiet']);
    const { origin, port } = await announced(run);
    if (workers.length > 0) await waitStarts(run, 2);
    const node = nodeLoad(port, 60_000);
    const load = wrk(`${origin}${PATH}`, 32, 5);
    await sleep(2000);
    run.kill('SIGTERM');
    const ex = await run.waitExit(30_000);
    const w = await load;
    const n = await node.stop();
    t.diagnostic(`wrk: ${w.requests} requests; node: ${describeLoad(n)}`);
    assert.equal(ex.code, 0, run.stderr());
    assert.ok(w.requests > 100, w.text);
    // After the service stopped, wrk's new connections are refused (counted as connect or write errors).
    assert.deepEqual(
      { read: w.read, timeout: w.timeout, non2xx: w.non2xx },
      { read: 0, timeout: 0, non2xx: 0 },
      w.text,
    );
    assert.deepEqual(n.lost, [], describeLoad(n));
    assert.deepEqual([...n.statuses.keys()], [200], describeLoad(n));
    assert.ok(n.closing >= 1, `the shutdown ended kept-alive connections with Connection: close: ${describeLoad(n)}`);
  });
}

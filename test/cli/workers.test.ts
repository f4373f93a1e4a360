/**
 * `eventide serve --workers N` as a real process tree (`node bin/eventide.js
 * serve ...`, the primary and its node:cluster workers) answering real HTTP
 * on 127.0.0.1: no start-up window where connections hang, crashed workers
 * replaced, repeated crashes ending the service with status 1, SIGHUP
 * replacing every worker without losing a request, SIGTERM stopping
 * everything with status 0, the launcher's death stopping the process
 * tree, a port in use failing at once.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, killAll, tempDir } from '../support/spawn.js';
import {
  alive,
  announced,
  get,
  sequentialLoad,
  sleep,
  startServe,
  waitLog,
  waitStarts,
  waitUntil,
  workerStarts,
} from './serve-support.js';

after(killAll);
const tmp = tempDir('eventide-workers-');
after(() => tmp.remove());
let files = 0;
/** A new SQLite file name per test (each server seeds its own). */
const dbFile = (): string => join(tmp.path, `demo-${++files}.sqlite3`);

/** Tries to connect once; the socket, or null when refused. */
function tryConnect(port: number): Promise<Socket | null> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => resolve(s));
    s.once('error', () => {
      s.destroy();
      resolve(null);
    });
  });
}

test('--workers 2: a request sent the first instant the port accepts connections is answered', async () => {
  const port = await freePort();
  const run = startServe([
    '--port',
    String(port),
    '--database',
    dbFile(),
    '--rows',
    '200',
    '--workers',
    '2',
    '--quiet',
  ]);
  let sock: Socket | null = null;
  const deadline = Date.now() + 60_000;
  for (let attempt = 0; attempt < 200_000 && sock === null && Date.now() < deadline; attempt++) {
    sock = await tryConnect(port);
    if (sock === null) {
      assert.equal(run.child.exitCode, null, `serve exited: ${run.stderr()}`);
      await sleep(1);
    }
  }
  assert.ok(sock, 'the port never accepted a connection');
  const chunks: Buffer[] = [];
  sock.on('data', (d: Buffer) => chunks.push(d));
  sock.write(`GET /limit/items/?limit=1&offset=199 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  const timer = setTimeout(() => sock?.destroy(new Error('no answer within 15 s')), 15_000);
  try {
    await once(sock, 'end');
  } finally {
    clearTimeout(timer);
    sock.destroy();
  }
  const text = Buffer.concat(chunks).toString('utf8');
  assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(text, /"count":200/);
  assert.match(text, /"id":200/);
  await announced(run);
  run.kill('SIGTERM');
  assert.equal((await run.waitExit(20_000)).code, 0, run.stderr());
});

test('SIGKILL of a worker under load: the service keeps answering and the worker is replaced', async (t) => {
  const run = startServe(['--database', dbFile(), '--rows', '200', '--workers', '2', '--quiet']);
  const { port } = await announced(run);
  const first = await waitStarts(run, 2);
  assert.deepEqual(first.map((s) => s.n).sort(), [1, 2]);
  const w1 = first.find((s) => s.n === 1)?.pid as number;
  const w2 = first.find((s) => s.n === 2)?.pid as number;
  const path = '/page/items/?page=3';

  const before = await sequentialLoad(port, path, () => false, 300, 1000);
  process.kill(w1, 'SIGKILL');
  const during = await sequentialLoad(port, path, () => workerStarts(run).length >= 3, 1000, 30_000);
  const starts = await waitStarts(run, 3);
  const replacement = starts[2] as { n: number; pid: number };
  assert.equal(replacement.n, 1);
  assert.notEqual(replacement.pid, w1);
  assert.ok(alive(replacement.pid));
  assert.match(
    run.stdout(),
    new RegExp(`worker 1 \\(pid ${w1}\\) died \\(signal SIGKILL\\); restarting it in \\d+ ms`),
  );
  // After the replacement: every request answered, also once worker 2 is gone (the replacement alone serves then).
  const replaced = await sequentialLoad(port, path, () => false, 300, 1000);
  process.kill(w2, 'SIGKILL');
  const alone = await sequentialLoad(port, path, () => false, 300, 1000);
  await waitStarts(run, 4);

  const all = [...before, ...during, ...replaced, ...alone];
  const failed = all.filter((r) => !r.ok);
  t.diagnostic(`${all.length} requests (${replaced.length} after the replacement), ${failed.length} failed`);
  assert.ok(all.length >= 50, `only ${all.length} requests sent`);
  assert.ok(failed.length <= 2, `${failed.length} of ${all.length} failed: ${JSON.stringify(failed.slice(0, 5))}`);
  assert.ok(
    replaced.length >= 10 && replaced.every((r) => r.ok),
    `after the replacement: ${JSON.stringify(replaced.filter((r) => !r.ok))}`,
  );
  assert.ok(
    alone.filter((r) => r.ok).length >= alone.length - 1,
    `with worker 2 killed: ${JSON.stringify(alone.filter((r) => !r.ok))}`,
  );
  assert.equal(run.child.exitCode, null, 'the primary keeps running');

  run.kill('SIGTERM');
  assert.equal((await run.waitExit(20_000)).code, 0, run.stderr());
});

test('workers that keep crashing make the primary give up with exit status 1', async () => {
  const run = startServe([
    '--database',
    dbFile(),
    '--rows',
    '200',
    '--workers',
    '1',
    '--max-restarts',
    '2',
    '--restart-window',
    '120',
    '--quiet',
  ]);
  await announced(run);
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
    await sleep(20);
  }
  const ex = await run.waitExit(30_000);
  assert.equal(ex.code, 1, run.stderr());
  assert.equal(killed.size, 3, run.stderr());
  assert.match(run.stdout(), /3 crashes within 120 s \(more than --max-restarts 2\): giving up/);
  assert.match(run.stdout(), /restarting it in 100 ms[^]*restarting it in 200 ms/);
  for (const pid of killed) assert.equal(alive(pid), false, `pid ${pid}`);
});

test('SIGHUP replaces every worker one at a time without losing a request', async (t) => {
  const run = startServe(['--database', dbFile(), '--rows', '200', '--workers', '2', '--quiet']);
  const { port } = await announced(run);
  const old = (await waitStarts(run, 2)).map((s) => s.pid);
  let loadDone = false;
  const load = sequentialLoad(port, '/cursor/items/', () => loadDone, 5000, 90_000);
  await sleep(500);
  run.kill('SIGHUP');
  await waitLog(run, /reload done \(pids (\d+), (\d+)\)/, 60_000);
  await sleep(500);
  loadDone = true;
  const results = await load;
  const failed = results.filter((r) => !r.ok);
  t.diagnostic(`${results.length} requests during the reload, ${failed.length} failed`);
  assert.ok(results.length >= 20, `only ${results.length} requests`);
  assert.deepEqual(failed, [], `${failed.length} of ${results.length} requests failed`);
  const m = /reload done \(pids (\d+), (\d+)\)/.exec(run.stdout());
  const fresh = [Number(m?.[1]), Number(m?.[2])];
  for (const pid of fresh) assert.ok(!old.includes(pid), `pid ${pid} was there before the reload`);
  await waitUntil(() => old.every((pid) => !alive(pid)), 15_000, 'the old workers to exit');
  assert.doesNotMatch(run.stdout(), /died|killing it/);
  run.kill('SIGTERM');
  assert.equal((await run.waitExit(20_000)).code, 0, run.stderr());
});

test('SIGHUP with one worker: the new worker serves before the old one stops; a SIGHUP during a reload runs another', async (t) => {
  const run = startServe(['--database', dbFile(), '--rows', '200', '--workers', '1', '--quiet']);
  const { port } = await announced(run);
  const [first] = await waitStarts(run, 1);
  let loadDone = false;
  const load = sequentialLoad(port, '/page/items/?page=2', () => loadDone, 5000, 90_000);
  await sleep(300);
  run.kill('SIGHUP');
  await waitLog(run, /reloading: replacing/, 20_000);
  run.kill('SIGHUP');
  await waitLog(run, /reload done \(pids \d+\)[^]*reload done \(pids \d+\)/, 90_000);
  await sleep(300);
  loadDone = true;
  const results = await load;
  const failed = results.filter((r) => !r.ok);
  t.diagnostic(`${results.length} requests during two reloads, ${failed.length} failed`);
  assert.ok(results.length >= 20, `only ${results.length} requests`);
  assert.deepEqual(failed, [], `${failed.length} of ${results.length} requests failed`);
  assert.match(run.stdout(), /another one will follow/);
  const pids = [...run.stdout().matchAll(/reload done \(pids (\d+)\)/g)].map((m) => Number(m[1]));
  assert.equal(new Set([first?.pid, ...pids]).size, 3, run.stderr());
  await waitUntil(() => !alive(first?.pid as number), 15_000, 'the first worker to exit');
  run.kill('SIGTERM');
  assert.equal((await run.waitExit(20_000)).code, 0, run.stderr());
});

test('SIGTERM stops the workers and the primary with status 0 within the shutdown deadline', async () => {
  const run = startServe(['--database', dbFile(), '--rows', '200', '--workers', '2', '--shutdown-timeout', '3']);
  const { origin } = await announced(run);
  const pids = (await waitStarts(run, 2)).map((s) => s.pid);
  assert.equal((await fetch(`${origin}/page/items/`)).status, 200);
  const t0 = performance.now();
  run.kill('SIGTERM');
  const ex = await run.waitExit(15_000);
  assert.equal(ex.code, 0, run.stderr());
  assert.ok(ex.at - t0 < 15_000);
  assert.match(run.stdout(), /eventide serve: shut down/);
  assert.match(run.stdout(), /"method":"GET","path":"\/page\/items\/","route":"page-items","status":200/);
  await waitUntil(() => pids.every((pid) => !alive(pid)), 5000, 'the workers to be gone');
  assert.doesNotMatch(run.stdout(), /died|killing it/);
});

test('the launcher (bin/eventide.js) killed with SIGKILL: the primary and its workers stop too', async (t) => {
  if (!existsSync('/proc/self/stat')) return t.skip('needs /proc to find the primary');
  const run = startServe(['--database', dbFile(), '--rows', '200', '--workers', '2', '--quiet']);
  const { port } = await announced(run);
  const workers = (await waitStarts(run, 2)).map((s) => s.pid);
  // /proc/PID/stat: "pid (comm) state ppid ..."; the workers' parent is the primary.
  const primary = Number(/\) \S+ (\d+)/.exec(readFileSync(`/proc/${workers[0]}/stat`, 'utf8'))?.[1]);
  assert.ok(primary > 0 && primary !== run.child.pid && alive(primary));
  run.kill('SIGKILL');
  await run.waitExit();
  await waitUntil(() => ![primary, ...workers].some(alive), 20_000, 'the primary and the workers to exit');
  await assert.rejects(get(port, '/page/items/', { timeoutMs: 2000 }));
});

test('a port in use: the workers cannot listen and the primary exits with status 1', async () => {
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  try {
    const port = (holder.address() as { port: number }).port;
    const run = startServe(['--port', String(port), '--database', dbFile(), '--rows', '200', '--workers', '2']);
    const ex = await run.waitExit(60_000);
    assert.equal(ex.code, 1, run.stderr());
    assert.match(run.stdout(), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
    assert.match(run.stdout(), /worker \d \(pid \d+\) failed to start \(exit code 1\)/);
    assert.doesNotMatch(run.stdout(), /listening on/);
  } finally {
    holder.close();
  }
});

test('finding 1 with --workers 2: MOVE with Upgrade and a body is answered and no worker dies', async () => {
  const run = startServe(['--database', dbFile(), '--rows', '200', '--workers', '2']);
  const { port } = await announced(run);
  const pids = (await waitStarts(run, 2)).map((s) => s.pid);
  for (let i = 0; i < 4; i++) {
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => {});
    await once(sock, 'connect');
    let text = '';
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => (text += d));
    sock.write(
      'MOVE /page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx',
    );
    await Promise.race([once(sock, 'close'), sleep(5000)]);
    sock.destroy();
    assert.match(text, /^HTTP\/1\.1 405 /, text);
  }
  assert.equal((await get(port, '/page/items/?page_size=1')).status, 200);
  assert.ok(pids.every(alive), 'the same workers still serve');
  assert.doesNotMatch(run.stdout(), /died/);
  run.kill('SIGTERM');
  assert.equal((await run.waitExit(15_000)).code, 0);
});

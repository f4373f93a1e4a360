/**
 * `eventide serve --workers N` as a real process tree (`node bin/eventide.js
 * serve ...`, the primary and its node:cluster workers) answering real HTTP
 * on 127.0.0.1: no start-up window where connections hang, a port in use
 * failing at once, a request that the primary must not see answered by a
 * worker. Crashes are in workers.crash.test.ts, reloads in
 * workers.reload.test.ts, stopping in workers.stop.test.ts (one file each,
 * so that every file stays far inside the runner's 120 s on a loaded
 * machine). Every wait is on an event (a log line, an answer, an exit) with
 * a generous bound, never a fixed sleep.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { rawConnection } from '../support/net.js';
import { freePort, killAll } from '../support/spawn.js';
import { alive, announced, get, sleep, startServe } from './serve-support.js';
import { databases, startWorkers, STEP_MS, TEST_MS } from './workers-support.js';

after(killAll);
const db = databases('eventide-workers-');
after(() => db.remove());

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

/** Resolves when `sock` closes; destroys it (an error) after `ms`. */
async function closed(sock: Socket, ms: number): Promise<void> {
  const timer = setTimeout(() => sock.destroy(new Error(`not closed within ${ms} ms`)), ms);
  try {
    await once(sock, 'close');
  } finally {
    clearTimeout(timer);
  }
}

test(
  '--workers 2: a request sent the first instant the port accepts connections is answered',
  { timeout: TEST_MS },
  async () => {
    const port = await freePort();
    const run = startServe([
      '--port',
      String(port),
      '--database',
      db.file(),
      '--rows',
      '200',
      '--workers',
      '2',
      '--quiet',
    ]);
    let sock: Socket | null = null;
    const deadline = Date.now() + STEP_MS;
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
    await closed(sock, STEP_MS);
    const text = Buffer.concat(chunks).toString('utf8');
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(text, /"count":200/);
    assert.match(text, /"id":200/);
    await announced(run, STEP_MS);
    run.kill('SIGTERM');
    assert.equal((await run.waitExit(STEP_MS)).code, 0, run.stderr());
  },
);

test('a port in use: the workers cannot listen and the primary exits with status 1', { timeout: TEST_MS }, async () => {
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  try {
    const port = (holder.address() as { port: number }).port;
    const run = startServe(['--port', String(port), '--database', db.file(), '--rows', '200', '--workers', '2']);
    const ex = await run.waitExit(STEP_MS);
    assert.equal(ex.code, 1, run.stderr());
    assert.match(run.stdout(), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
    assert.match(
      run.stdout(),
      /worker \d \(pid \d+\) failed to start \(exit code 1: cannot listen on 127\.0\.0\.1:\d+/,
    );
    assert.doesNotMatch(run.stdout(), /listening on/);
  } finally {
    holder.close();
  }
});

test(
  'finding 1 with --workers 2: MOVE with Upgrade and a body is answered and no worker dies',
  { timeout: TEST_MS },
  async () => {
    const { run, port, starts } = await startWorkers(db, 2);
    const pids = starts.map((s) => s.pid);
    for (let i = 0; i < 4; i++) {
      const c = await rawConnection(port);
      c.sock.write(
        'MOVE /page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx',
      );
      await closed(c.sock, STEP_MS).catch(() => {}); // the answer is checked below
      c.sock.destroy();
      assert.match(c.text(), /^HTTP\/1\.1 405 /, c.text());
    }
    assert.equal((await get(port, '/page/items/?page_size=1', { timeoutMs: STEP_MS })).status, 200);
    assert.ok(pids.every(alive), 'the same workers still serve');
    assert.doesNotMatch(run.stdout(), /died/);
    run.kill('SIGTERM');
    assert.equal((await run.waitExit(STEP_MS)).code, 0);
  },
);

/**
 * bench/http-rate.c and bench/http-rate.ts: the constant-rate client of the
 * equal-load latency run. Against node:http servers on 127.0.0.1 (port 0):
 * every request due in the window is counted and answered, a server stall
 * shows in the latency of every request due during it (measured from when
 * it was due, not when it left), and bad replies are errors. How close the
 * replies per second come to the offered rate, and how fast they come, are
 * timings of the machine: `npx tsx bench/http-rate.ts` prints and checks
 * them (rateRunProblems, tested here on given results). The latency bounds
 * below are lower bounds that a stall or a slow server made by the test
 * forces on any machine; a loaded one only raises them.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  compileRateClient,
  equalLoadRate,
  parseRateOutput,
  rateRunProblems,
  runRateClient,
  type RateOptions,
  type RateResult,
} from '../../bench/http-rate.js';
import { requireTool } from '../support/tools.js';

const dir = mkdtempSync(join(tmpdir(), 'eventide-http-rate-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const bin = compileRateClient(dir);
const cc = requireTool(
  bin === null ? 'no C compiler (cc, gcc or clang) builds bench/http-rate.c (apt-get install gcc libc6-dev)' : null,
);

/** The compiled client (the test fails when there is none: in CI, where `cc.skip` is false). */
function client(): string {
  cc.assert();
  return bin as string;
}

async function serve(handler: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
}

function options(port: number, over: Partial<RateOptions> = {}): RateOptions {
  return {
    host: '127.0.0.1',
    port,
    connections: 8,
    rate: 2000,
    warmupSeconds: 0.2,
    seconds: 1,
    timeoutSeconds: 5,
    path: '/',
    pin: false,
    ...over,
  };
}

const ok: RequestListener = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
  res.end('ok');
};

test('parseRateOutput reads the result line and turns a failure into an error', () => {
  const r = parseRateOutput(
    'noise\n{"ok":true,"offered":1000,"requests":1000,"seconds":1.000,"achieved":1000,"p50":40,"p90":50,"p99":90,"p999":300,"max":700,"overOneSecond":0,"lateSends":2}\n',
  );
  assert.equal(r.requests, 1000);
  assert.equal(r.p99, 90);
  assert.equal(r.lateSends, 2);
  assert.throws(() => parseRateOutput('{"ok":false,"error":"connect: Connection refused"}'), /Connection refused/);
  assert.throws(() => parseRateOutput(''), /printed no result/);
});

test('equalLoadRate: a share of the peer maximum, rounded down to a thousand, at least 1,000', () => {
  assert.equal(equalLoadRate(80_900, 0.75), 60_000);
  assert.equal(equalLoadRate(81_400, 0.75), 61_000);
  assert.equal(equalLoadRate(900, 0.5), 1000);
});

test('rateRunProblems: what a valid run shows, and each way a run misses it', () => {
  const valid: RateResult = {
    offered: 2000,
    requests: 2000,
    seconds: 1,
    achieved: 2028,
    p50: 40,
    p90: 50,
    p99: 90,
    p999: 300,
    max: 700,
    overOneSecond: 0,
    lateSends: 19,
  };
  const o = { rate: 2000, seconds: 1 };
  assert.deepEqual(rateRunProblems(valid, o), []);
  assert.deepEqual(rateRunProblems({ ...valid, requests: 1999 }, o), [
    '1999 requests counted in the window, 2000 were due',
  ]);
  assert.deepEqual(rateRunProblems({ ...valid, achieved: 1799 }, o), [
    '1799 replies/s, not within 10% of the 2000 offered',
  ]);
  assert.deepEqual(rateRunProblems({ ...valid, achieved: 2201 }, o), [
    '2201 replies/s, not within 10% of the 2000 offered',
  ]);
  assert.deepEqual(rateRunProblems({ ...valid, overOneSecond: 3 }, o), ['3 request(s) took over a second']);
  assert.deepEqual(rateRunProblems({ ...valid, lateSends: 21 }, o), ['21 requests sent late: the client fell behind']);
  assert.deepEqual(rateRunProblems({ ...valid, achieved: 2100 }, o, 0.01), [
    '2100 replies/s, not within 1% of the 2000 offered',
  ]);
});

test('counts every request due at the rate asked for, each answered', { skip: cc.skip }, async () => {
  const exe = client();
  let answered = 0;
  const { server, port } = await serve((req, res) => {
    answered++;
    ok(req, res);
  });
  try {
    const r = await runRateClient(exe, options(port));
    assert.equal(r.offered, 2000);
    assert.equal(r.requests, 2000); // due in the 1 s window at 2,000/s
    assert.ok(answered >= 2400, `${answered} requests reached the server (400 warm-up and 2,000 measured)`);
    assert.ok(r.achieved > 0, 'replies were counted in the window');
    assert.ok(r.p50 <= r.p90 && r.p90 <= r.p99 && r.p99 <= r.p999 && r.p999 <= r.max, JSON.stringify(r));
  } finally {
    await close(server);
  }
});

test(
  'a stall of the server counts for every request due during it (no coordinated omission)',
  { skip: cc.skip },
  async () => {
    const exe = client();
    let n = 0;
    const { server, port } = await serve((req, res) => {
      // 0.2 s warm-up (400 requests) + 0.3 s: the event loop blocks for 300 ms once
      if (++n === 1000) {
        const end = performance.now() + 300;
        while (performance.now() < end);
      }
      ok(req, res);
    });
    try {
      const r = await runRateClient(exe, options(port));
      assert.equal(r.requests, 2000);
      assert.ok(r.max >= 250_000, `max ${r.max} µs`);
      // about 600 requests were due during the stall, half of them 150 ms or more before it ended;
      // measured from when they left, only the 8 in flight would have been slow
      assert.ok(r.p90 >= 50_000, `p90 ${r.p90} µs`);
    } finally {
      await close(server);
    }
  },
);

test(
  'a server that cannot keep up answers fewer requests per second than were offered',
  { skip: cc.skip },
  async () => {
    const exe = client();
    // 10 ms per reply on each of 8 connections: at most about 800 replies per second
    const { server, port } = await serve((req, res) => setTimeout(() => ok(req, res), 10));
    try {
      const r = await runRateClient(exe, options(port));
      assert.equal(r.requests, 2000, 'every request due in the window is still answered and counted');
      assert.ok(r.achieved < 1000, `achieved ${r.achieved}`);
      assert.ok(r.p99 > 500_000, `p99 ${r.p99} µs: the backlog waits`);
    } finally {
      await close(server);
    }
  },
);

test('a reply other than 200, and a connection the server closes, are errors', { skip: cc.skip }, async () => {
  const exe = client();
  const notFound = await serve((_req, res) => {
    res.writeHead(404, { 'Content-Length': '0' });
    res.end();
  });
  try {
    await assert.rejects(runRateClient(exe, options(notFound.port, { seconds: 0.2 })), /not a 200/);
  } finally {
    await close(notFound.server);
  }
  const closing = await serve((_req, res) => res.socket?.destroy());
  try {
    await assert.rejects(runRateClient(exe, options(closing.port, { seconds: 0.2 })), /closed by the server/);
  } finally {
    await close(closing.server);
  }
});

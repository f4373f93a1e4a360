/**
 * Fairness: a connection gets a bounded share of work per turn of the loop,
 * so that accepting and serving a new connection never waits behind a
 * flood. Clients that pipeline hundreds of requests and never read their
 * replies each get a turn's budget of work (32 small replies, or about 32
 * KiB of larger ones), then wait while the server resumes as many waiting
 * connections per turn as keep the turn short (server-turns.ts), so the
 * others, and a new connection, go first.
 *
 * The tests count work, not time: how many flood requests the server ran
 * between the moment a new client connected and the moment its request was
 * answered, with the turn's time target at 0 (every turn counts as long,
 * so one waiting connection resumes per turn, whatever the machine's
 * speed; test/http/server-turns.test.ts checks how the count adapts).
 * Without the budget every flood connection runs its backlog until its
 * unsent replies reach the output high-water mark: over a thousand
 * requests here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { EventBuffer } from '../../src/event/buffer.js';
import { EventHttpRequest } from '../../src/http/request.js';
import { withServer } from '../support/http-server.js';
import { waitFor } from '../support/net.js';

const CONNECTIONS = 40;
const PIPELINED = 1500;
const BIG = 'x'.repeat(4096);

/** Opens `n` connections that pipeline `PIPELINED` requests for `path` each and never read. */
async function flood(port: number, n: number, path: string): Promise<Socket[]> {
  const batch = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: h\r\n\r\n`.repeat(PIPELINED), 'latin1');
  const socks: Socket[] = [];
  for (let i = 0; i < n; i++) {
    const s = connect({ port, host: '127.0.0.1' });
    s.on('error', () => {});
    s.pause(); // never reads
    socks.push(s);
  }
  await Promise.all(socks.map((s) => once(s, 'connect')));
  for (const s of socks) s.write(batch);
  return socks;
}

/** GET `path` on a new connection; resolves with the first line of the reply. */
function probe(port: number, path: string, onConnect: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' }, () => {
      onConnect();
      s.write(`GET ${path} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('end', () => resolve(text.split('\r\n')[0] ?? ''));
    s.on('error', reject);
  });
}

for (const style of ['synchronous', 'asynchronous'] as const) {
  test(`a new connection is answered after a turn of the flood's work, not its whole backlog (${style} replies)`, async (t) => {
    let handled = 0;
    await withServer(
      (http) => {
        http.setCallback('/big', (req) => {
          const reply = (): void => {
            handled++;
            const b = new EventBuffer();
            b.add(BIG);
            req.sendReply(200, 'OK', b);
          };
          // The web-API layer answers from a promise: the next pipelined request is parsed from a microtask.
          if (style === 'synchronous') reply();
          else queueMicrotask(reply);
        });
        http.setCallback('/healthz', (req: EventHttpRequest) => {
          const b = new EventBuffer();
          b.add(String(handled));
          req.sendReply(200, 'OK', b);
        });
      },
      async ({ http, port }) => {
        http.waiting.targetMs = 0;
        const socks = await flood(port, CONNECTIONS, '/big');
        try {
          // Every flood connection is accepted and at work.
          await waitFor(() => http.conns.size >= CONNECTIONS && handled >= CONNECTIONS * 8, 20_000);
          let atConnect = 0;
          const status = await probe(port, '/healthz', () => (atConnect = handled));
          const during = handled - atConnect;
          t.diagnostic(`flood requests run while the new connection waited: ${during} (${handled} in all)`);
          assert.equal(status, 'HTTP/1.1 200 OK');
          // A 4 KiB reply costs 5 of a connection's 32 units: 7 requests per connection per turn, and
          // (target 0) one waiting connection resumes per turn of the loop. A few turns pass between the
          // connect and the reply (accept, read, write, close); without the budget, every connection runs
          // until its replies reach the output high-water mark (over a thousand requests here).
          const perTurn = Math.ceil(32 / 5);
          assert.ok(during <= perTurn * 8, `${during} flood requests ran first (a turn runs at most ${perTurn})`);
        } finally {
          for (const s of socks) s.destroy();
        }
      },
    );
  });
}

/**
 * One client pipelines 1,000 requests (far more than a turn's budget) and
 * ends with `Connection: close` on the last, or with a FIN after it (the
 * connection learns of the end while it waits for its turns): every
 * request is answered, in order, then the server closes.
 */
for (const end of ['Connection: close', 'a half-close'] as const) {
  test(`a pipelining client that spends its budget is served in full, in order, over several turns (ending with ${end})`, async () => {
    await withServer(
      (http) => {
        http.setDefaultCallback((req) => {
          const b = new EventBuffer();
          b.add(req.getUri());
          req.sendReply(200, 'OK', b);
        });
      },
      async ({ port }) => {
        const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        await once(s, 'connect');
        const n = 1000;
        let sent = '';
        for (let i = 0; i < n; i++) {
          const close = end === 'Connection: close' && i === n - 1 ? 'Connection: close\r\n' : '';
          sent += `GET /${i} HTTP/1.1\r\nHost: h\r\n${close}\r\n`;
        }
        if (end === 'Connection: close') s.write(sent);
        else s.end(sent);
        let text = '';
        s.on('data', (d: Buffer) => (text += d.toString('latin1')));
        await once(s, 'end');
        const bodies = [...text.matchAll(/\r\n\r\n(\/\d+)/g)].map((m) => m[1]);
        assert.deepEqual(
          bodies,
          Array.from({ length: n }, (_, i) => `/${i}`),
        );
        s.destroy();
      },
    );
  });
}

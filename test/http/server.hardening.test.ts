/**
 * EventHttp against hostile clients: each finding of the hardening review as
 * a regression test with its exact bytes, over raw sockets on 127.0.0.1.
 * Every test ends with the loop settling without an exception (withServer):
 * no client may take the process down.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { EventHttpRequest } from '../../src/http/request.js';
import type { HttpLogger } from '../../src/http/log.js';
import { resolvesWithin, sleep } from '../support/net.js';
import { body, errorPage, errorResponse, withServer, hello, type Ctx } from '../support/http-server.js';

const GET_POST = EventHttpRequest.CMD_GET | EventHttpRequest.CMD_POST;

/** A logger that keeps what it is given. */
function recorder(): HttpLogger & { entries: { obj: Record<string, unknown>; msg: string | undefined }[] } {
  const entries: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
  return {
    entries,
    error: (obj, msg) => void entries.push({ obj, msg }),
    warn: (obj, msg) => void entries.push({ obj, msg }),
  };
}

const page405 = errorPage(405, 'Method Not Allowed');
const close405 = (allow: string): string =>
  `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/html\r\nAllow: ${allow}\r\nDate: {date}\r\nContent-Length: ${page405.length}\r\nConnection: close\r\n\r\n${page405}`;

test('finding 1: a disallowed method with Upgrade, Expect: 100-continue and a body is answered 405, not a crash', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ dial }) => {
      // The default methods: PROPFIND is known to the parser but not allowed.
      const a = await dial();
      a.write(
        'PROPFIND /page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n',
      );
      await a.expect(close405('GET, POST, HEAD, PUT, DELETE'));
      await a.expectClosed();
      const b = await dial();
      b.write(
        'MOVE / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx',
      );
      await b.expect(close405('GET, POST, HEAD, PUT, DELETE'));
      await b.expectClosed();
      // and the server still answers
      const c = await dial();
      c.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
    },
  );
});

test('finding 1 on a GET|POST server: any other method with a body (sized or chunked) gets 405 and a close', async () => {
  let calls = 0;
  await withServer(
    (http) => {
      http.setAllowedMethods(GET_POST);
      http.setDefaultCallback((req) => {
        calls++;
        req.sendReply(200, 'OK', body('hello'));
      });
    },
    async ({ dial }) => {
      for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND']) {
        for (const framing of [
          'Content-Length: 3\r\n\r\nabc',
          'Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
        ]) {
          const c = await dial();
          c.write(`${method} /about HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n${framing}`);
          await c.expect(close405('GET, POST'));
          await c.expectClosed();
        }
      }
      assert.equal(calls, 0, 'no callback ran');
    },
  );
});

test('finding 2: Upgrade does not bypass setAllowedMethods', async () => {
  let calls = 0;
  await withServer(
    (http) => {
      http.setAllowedMethods(GET_POST);
      http.setCallback('/about', (req) => {
        calls++;
        req.sendReply(200, 'OK', body('about'));
      });
    },
    async ({ dial }) => {
      const c = await dial();
      c.write('DELETE /about HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n');
      await c.expect(close405('GET, POST'));
      await c.expectClosed();
      assert.equal(calls, 0, 'the callback did not run');
    },
  );
});

test('a body over the limit: the declared length gets 413 before any body byte is sent; chunked is cut off', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ dial }) => {
      // The default limit is 1 MiB: 256 MiB declared, nothing sent after the head.
      const a = await dial();
      a.write(`POST /page/items/ HTTP/1.1\r\nHost: a\r\nContent-Length: ${256 * 1024 * 1024}\r\n\r\n`);
      await a.expect(errorResponse(413, 'Request Entity Too Large'));
      await a.expectClosed();
      // Chunked: cut off as soon as the total passes the limit.
      const b = await dial();
      b.write('POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      while (!b.closed && sent < 4 * 1024 * 1024) {
        b.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
        sent += chunk.length;
        await sleep(1);
      }
      await b.expect(errorResponse(413, 'Request Entity Too Large'));
      assert.ok(sent <= 2 * 1024 * 1024, `cut off after ${sent} bytes`);
    },
  );
});

test('setMaxBodySize: a raised limit accepts, a negative one means no limit', async () => {
  await withServer(
    (http) => {
      http.setMaxBodySize(4);
      http.setDefaultCallback((req) => req.sendReply(200, 'OK', body(String(req.getInputBuffer().length))));
    },
    async ({ dial, http }) => {
      const a = await dial();
      a.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n');
      await a.expect(errorResponse(413, 'Request Entity Too Large'));
      http.setMaxBodySize(-1);
      const b = await dial();
      b.write(`POST / HTTP/1.1\r\nHost: a\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`);
      b.write(Buffer.alloc(2 * 1024 * 1024, 0x62));
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 7\r\n\r\n2097152', 10_000);
    },
  );
});

test('a callback that throws ends its connection with a 500, is logged once, and the server goes on', async () => {
  const log = recorder();
  await withServer(
    (http) => {
      http.setLogger(log);
      http.setCallback('/throw', () => {
        throw new Error('boom');
      });
      http.setCallback('/after', (req) => {
        req.sendReply(200, 'OK', body('sent'));
        throw new Error('after the reply');
      });
      http.setCallback('/close-cb', (req) => {
        (req.getConnection() as { setCloseCallback(cb: () => void): void }).setCloseCallback(() => {
          throw new Error('in the close callback');
        });
        req.sendError(400);
      });
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /throw HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect(errorResponse(500, 'Internal Server Error'));
      await a.expectClosed();
      assert.equal(log.entries.length, 1);
      assert.match(String((log.entries[0]?.obj['err'] as Error).message), /boom/);
      assert.equal(log.entries[0]?.obj['target'], '/throw');

      const b = await dial();
      b.write('GET /after HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n');
      assert.ok(await b.closesWithin(10_000), 'closed after the throw');
      assert.equal(log.entries.length, 2);

      const c = await dial();
      c.write('GET /close-cb HTTP/1.1\r\nHost: a\r\n\r\n');
      await c.expect(errorResponse(400, 'Bad Request'));
      await c.expectClosed();
      assert.equal(log.entries.length, 3);

      const d = await dial();
      d.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
      await d.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
    },
  );
});

test('an upgrade callback that throws closes that connection only', async () => {
  const log = recorder();
  await withServer(
    (http) => {
      http.setLogger(log);
      http.setCallback('/ws', () => {
        throw new Error('upgrade handler failed');
      });
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nraw bytes');
      assert.ok(await a.closesWithin(10_000));
      assert.equal(log.entries.length, 1);
      const b = await dial();
      b.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
    },
  );
});

test('replies after the client left queue nothing and do not throw', async () => {
  const held: EventHttpRequest[] = [];
  await withServer(
    (http) => http.setDefaultCallback((req) => void held.push(req)),
    async ({ dial, http }) => {
      const a = await dial();
      a.write('GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.waitFor(() => held.length === 1, 10_000, 'the first request');
      a.sock.resetAndDestroy();
      await a.waitFor(() => http.conns.size === 0, 10_000, 'the server to see the reset');
      const req = held[0] as EventHttpRequest;
      const conn = req.getConnection() as { bev: { output: { length: number } } } | null;
      req.sendReplyStart(200, 'OK');
      for (let i = 0; i < 100; i++) req.sendReplyChunk(body('x'.repeat(1000)));
      req.sendReplyEnd();
      assert.equal(conn?.bev.output.length ?? 0, 0, 'nothing queued for a closed connection');
      assert.equal(held.length, 1, 'the pipelined request behind it never ran');
      // A client that half-closes is still answered; once the write fails the connection is gone.
      const b = await dial();
      b.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
      await b.waitFor(() => held.length === 2, 10_000, 'the second request');
      b.sock.resetAndDestroy();
      const late = held[1] as EventHttpRequest;
      const bconn = late.getConnection() as { bev: { output: { length: number } } } | null;
      late.sendReplyStart(200, 'OK');
      late.sendReplyChunk(body('first'));
      await b.waitFor(() => http.conns.size === 0, 10_000, 'the server to see the reset');
      const before = bconn?.bev.output.length ?? 0;
      for (let i = 0; i < 100; i++) late.sendReplyChunk(body('x'.repeat(1000)));
      late.sendReplyEnd();
      assert.equal(bconn?.bev.output.length ?? 0, before, 'nothing more queued once the connection is gone');
      assert.ok(before < 1000);
    },
  );
});

/** Requests for 10 KB replies (with the handler below), 100 in a batch. */
const FLOOD = Buffer.from('GET /page/items/?page_size=100 HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(100));
const BIG = 'y'.repeat(10_000);

/** The largest backlog of unsent replies among the server's connections. */
function unsent(http: Ctx['http']): number {
  let most = 0;
  for (const c of http.conns) most = Math.max(most, c.bev.unsentLength);
  return most;
}

/**
 * A client that pipelines 20,000 requests (200 MB of replies) and never reads a reply. Waits
 * until the server has answered up to its 1 MiB high-water mark, then gives it 100 more turns
 * of the loop (each may resume the connection, were it not held); returns the socket and the
 * backlog of unsent replies then.
 */
async function flood(port: number, http: Ctx['http']): Promise<{ hog: Socket; peak: number }> {
  const hog = connect(port, '127.0.0.1');
  hog.on('error', () => {});
  await once(hog, 'connect');
  hog.pause(); // never reads
  for (let i = 0; i < 200; i++) hog.write(FLOOD); // 1.1 MB: what the kernel does not take waits in Node
  const until = Date.now() + 10_000;
  while (unsent(http) < 1 << 20 && Date.now() < until) await sleep(5);
  assert.ok(unsent(http) >= 1 << 20, `the server answered up to its high-water mark (${unsent(http)} bytes unsent)`);
  for (let i = 0; i < 100; i++) await new Promise((r) => setImmediate(r));
  return { hog, peak: unsent(http) };
}

test('finding 4: a client that pipelines and never reads is bounded; another client is answered meanwhile', async () => {
  await withServer(
    (http) => {
      // An idle timeout far past the test's deadline: the hog stays connected throughout, so
      // the other client is answered while the hog is there, not once it was closed.
      http.setTimeout(600);
      http.setDefaultCallback((req) => req.sendReply(200, 'OK', body(BIG)));
    },
    async ({ http, port, dial }) => {
      const { hog, peak } = await flood(port, http);
      try {
        // 1 MiB high-water mark, plus the reply that crossed it and the socket's own buffer.
        assert.ok(peak < 3 * 1024 * 1024, `unsent output per connection peaked at ${peak} bytes`);
        assert.equal(http.conns.size, 1);
        const [hogConn] = http.conns;
        const other = await dial();
        other.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
        await other.expect(`HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: ${BIG.length}\r\n\r\n${BIG}`, 10_000);
        assert.ok(hogConn !== undefined && http.conns.has(hogConn), 'the hog is still connected');
        assert.ok(hogConn.bev.unsentLength > 0, 'with its replies still unread');
      } finally {
        hog.destroy();
      }
    },
  );
});

test('finding 4: a client that pipelines and never reads is closed after the idle timeout', async () => {
  await withServer(
    (http) => {
      http.setTimeout(2);
      http.setDefaultCallback((req) => req.sendReply(200, 'OK', body(BIG)));
    },
    async ({ http, port }) => {
      const { hog, peak } = await flood(port, http);
      try {
        assert.ok(peak < 3 * 1024 * 1024, `unsent output per connection peaked at ${peak} bytes`);
        // A client that reads nothing for the idle timeout is closed (the server forgets it; the
        // client sees the end once it reads again).
        const until = Date.now() + 15_000;
        while (http.conns.size > 0 && Date.now() < until) await sleep(50);
        assert.equal(http.conns.size, 0, 'the never-reading client is closed after the idle timeout');
        hog.resume();
        assert.ok(await resolvesWithin(once(hog, 'close'), 10_000), 'and its socket ends');
      } finally {
        hog.destroy();
      }
    },
  );
});

test('a pipelining client that reads slowly gets every reply, in order, with reading paused in between', async () => {
  const n = 400;
  const big = 'z'.repeat(20_000);
  await withServer(
    (http) => {
      http.setOutputHighWaterMark(64 * 1024);
      http.setDefaultCallback((req) => req.sendReply(200, 'OK', body(`${req.getUri()}:${big}`)));
    },
    async ({ port }) => {
      const sock = connect(port, '127.0.0.1');
      await once(sock, 'connect');
      let reqs = '';
      for (let i = 0; i < n; i++) reqs += `GET /${i} HTTP/1.1\r\nHost: a\r\n\r\n`;
      sock.write(reqs);
      let text = '';
      sock.setEncoding('latin1');
      sock.pause();
      const deadline = Date.now() + 20_000;
      while ((text.match(/HTTP\/1\.1 200/g) ?? []).length < n && Date.now() < deadline) {
        await sleep(2);
        let chunk: string | null;
        while ((chunk = sock.read(16 * 1024) as string | null) !== null) text += chunk;
      }
      sock.destroy();
      const order = [...text.matchAll(/\r\n\r\n\/(\d+):/g)].map((m) => Number(m[1]));
      assert.equal(order.length, n);
      assert.deepEqual(
        order,
        Array.from({ length: n }, (_, i) => i),
      );
    },
  );
});

test('finding 5: a head or a body trickled in is cut off at its deadline, not reset per byte', async () => {
  await withServer(
    (http) => {
      http.setTimeout(30);
      http.setHeadersTimeout(1);
      http.setBodyTimeout(1.5);
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      const head = await dial();
      const text = `GET / HTTP/1.1\r\nHost: a\r\nX-Slow: ${'z'.repeat(100)}\r\n\r\n`;
      let i = 0;
      const drip = setInterval(() => {
        if (i < text.length && !head.closed) head.write(text[i++] as string);
      }, 100);
      const bodyConn = await dial();
      bodyConn.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n');
      let j = 0;
      const drip2 = setInterval(() => {
        if (j < 100 && !bodyConn.closed) {
          bodyConn.write('b');
          j++;
        }
      }, 100);
      try {
        // A byte per 0.1 s completes the head after 13 s and the body after 10 s (later under
        // load): the cut-offs come before that, whenever the waits below end.
        assert.ok(await head.closesWithin(10_000), 'the trickled head is cut off');
        assert.ok(i < text.length, 'before the head was complete');
        assert.equal(head.text, '', 'without a reply');
        assert.ok(await bodyConn.closesWithin(10_000), 'the trickled body is cut off');
        assert.ok(j < 100, 'before the body was complete');
      } finally {
        clearInterval(drip);
        clearInterval(drip2);
      }
    },
  );
});

test('shutdown(deadline): connections still busy at the deadline are closed and the promise resolves', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ http, dial }) => {
      const c = await dial();
      c.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n');
      const drip = setInterval(() => {
        if (!c.closed) c.write('b');
      }, 100);
      const idle = await dial();
      idle.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
      await idle.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      await sleep(50);
      const t0 = Date.now();
      try {
        assert.ok(await resolvesWithin(http.shutdown(1), 10_000), 'shutdown resolved');
        assert.ok(Date.now() - t0 >= 800, 'it waited for the request in flight');
        // Both were closed before shutdown() resolved; the clients see it soon after.
        assert.ok(await idle.closesWithin(10_000), 'the idle connection was closed');
        assert.ok(await c.closesWithin(10_000), 'the trickling client was closed at the deadline');
      } finally {
        clearInterval(drip);
      }
    },
  );
});

/**
 * EventHttp on the wire: exact request bytes over raw `node:net` sockets to a
 * server on 127.0.0.1 (port 0) whose base dispatches during the test, exact
 * response bytes back (the Date value masked as `{date}`).
 *
 * Every test frees its server at the end and checks that `base.dispatch()`
 * then settles (a connection the server forgot to close would keep it
 * running).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { EventBuffer } from '../../src/event/buffer.js';
import { EventBufferEvent } from '../../src/event/bufferevent.js';
import { Event } from '../../src/event/event.js';
import { EventHttp } from '../../src/http/server.js';
import { EventHttpRequest } from '../../src/http/request.js';
import { resolvesWithin, sleep, waitFor } from '../support/net.js';
import { prng as rng } from '../support/http-fuzz.js';
import {
  mask,
  body,
  errorPage,
  notFoundPage,
  errorResponse,
  RawClient,
  withServer,
  hello,
} from '../support/http-server.js';

const OUT = EventHttpRequest.OUTPUT_HEADER;
const IN = EventHttpRequest.INPUT_HEADER;

// ------------------------------------------------------------------ status line, headers, keep-alive

test('the status line echoes the request version', async () => {
  await withServer(
    (http) => http.setCallback('/v', hello()),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /v HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      await a.expectQuietAndOpen();
      const b = await dial();
      b.write('GET /v HTTP/1.0\r\n\r\n');
      await b.expect('HTTP/1.0 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello');
      await b.expectClosed();
      // HTTP/1.2..1.9 are processed as 1.1
      const c = await dial();
      c.write('GET /v HTTP/1.2\r\nHost: a\r\n\r\n');
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
    },
  );
});

test('reused reply heads follow every change: headers, status, reason, length, version, keep-alive', async () => {
  // The server reuses the head text of the previous reply when nothing in it changed;
  // each step below changes one thing and must show up in the bytes.
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        const q = new URLSearchParams(req.getUri().split('?')[1] ?? '');
        const ct = q.get('ct');
        if (ct !== null) req.addHeader('Content-Type', ct, OUT);
        if (q.has('x')) req.addHeader('X-A', q.get('x') as string, OUT);
        req.sendReply(Number(q.get('code') ?? 200), q.get('reason'), body(q.get('b') ?? 'hello'));
      }),
    async ({ dial }) => {
      const a = await dial();
      const steps: [string, string][] = [
        [
          '/?ct=text/plain',
          'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello',
        ],
        [
          '/?ct=text/plain',
          'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello',
        ],
        [
          '/?ct=text/plain&b=hi',
          'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi',
        ],
        [
          '/?ct=text/html&b=hi',
          'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi',
        ],
        [
          '/?ct=text/html&x=1&b=hi',
          'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-A: 1\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi',
        ],
        [
          '/?ct=text/html&x=2&b=hi',
          'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-A: 2\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi',
        ],
        ['/?b=hi', 'HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi'],
        ['/?b=hi&code=201', 'HTTP/1.1 201 Created\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi'],
        ['/?b=hi&code=201&reason=Made', 'HTTP/1.1 201 Made\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi'],
        ['/?b=hi&code=201&reason=Made', 'HTTP/1.1 201 Made\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi'],
      ];
      for (const [target, expected] of steps) {
        a.write(`GET ${target} HTTP/1.1\r\nHost: a\r\n\r\n`);
        await a.expect(expected);
      }
      // the same reply for HTTP/1.0 with and without keep-alive, then HTTP/1.1 closing
      a.write('GET /?b=hi HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
      await a.expect('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi');
      a.write('GET /?b=hi HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi');
      a.write('GET /?b=hi HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi');
      await a.expectClosed();
      const b = await dial();
      b.write('GET /?b=hi HTTP/1.0\r\n\r\n');
      await b.expect('HTTP/1.0 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi');
      await b.expectClosed();
    },
  );
});

test('a reused reply head carries the current second in Date', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ dial }) => {
      const a = await dial();
      const dates: string[] = [];
      for (let i = 0; i < 2; i++) {
        const sent = Math.floor(Date.now() / 1000) * 1000; // the Date header has whole seconds
        a.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
        const got = await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
        const d = /Date: ([^\r]+)/.exec(got)?.[1] ?? '';
        // the server's clock between the request and the reply (no tolerance: the same clock)
        assert.ok(sent <= Date.parse(d) && Date.parse(d) <= Date.now(), `${d} outside [request, reply]`);
        dates.push(d);
        if (i === 0) await sleep(1100);
      }
      assert.notEqual(dates[0], dates[1], 'a second later the Date differs');
    },
  );
});

test('a reply the same as the last one goes out from its kept bytes; any difference is sent as built', async () => {
  // Each request names the reply: body text, status and a header.
  const replies: { text: string; code: number; header?: string }[] = [
    { text: 'hello', code: 200 },
    { text: 'hello', code: 200 },
    { text: 'hello', code: 200 }, // kept bytes from here on
    { text: 'world', code: 200 },
    { text: 'hello', code: 200 },
    { text: 'hello', code: 200 },
    { text: 'hello', code: 201 },
    { text: 'hello', code: 200, header: 'x' },
    { text: 'hello', code: 200, header: 'x' },
    { text: 'héllo €', code: 200 },
    { text: 'héllo €', code: 200 },
    { text: 'héllo €', code: 200 },
    { text: 'hello', code: 200 },
  ];
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        const r = replies[Number(req.getUri().slice(1))]!;
        if (r.header !== undefined) req.addHeader('X-Tag', r.header, OUT);
        const b = new EventBuffer();
        b.add(r.text);
        req.sendReply(r.code, r.code === 200 ? 'OK' : 'Created', b);
      }),
    async ({ dial }) => {
      const c = await dial();
      for (let i = 0; i < replies.length; i++) {
        const r = replies[i]!;
        c.write(`GET /${i} HTTP/1.1\r\nHost: a\r\n\r\n`);
        const bytes = Buffer.byteLength(r.text);
        const head = `HTTP/1.1 ${r.code} ${r.code === 200 ? 'OK' : 'Created'}\r\n${r.header === undefined ? '' : `X-Tag: ${r.header}\r\n`}`;
        // the body's bytes arrive as latin1 text here
        const got = await c.expect(
          `${head}Date: {date}\r\nContent-Length: ${bytes}\r\n\r\n${Buffer.from(r.text).toString('latin1')}`,
        );
        assert.ok(got.length > 0, `reply ${i}`);
      }
      await c.expectQuietAndOpen(50);
    },
  );
});

test('replies of a pipelined batch whose bodies repeat a text are copied from its bytes; any other text is encoded', async () => {
  const long = 'x'.repeat(300); // too long to be kept
  const texts = ['hello', 'hello', 'hello', 'world', 'hello', 'héllo €', 'héllo €', 'héllo €', long, long, 'hello'];
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        const b = new EventBuffer();
        b.add(texts[Number(req.getUri().slice(1))]!);
        req.sendReply(200, 'OK', b);
      }),
    async ({ dial }) => {
      const c = await dial();
      const heads = texts.map((_, i) => `${i === 6 ? 'HEAD' : 'GET'} /${i} HTTP/1.1\r\nHost: a\r\n\r\n`);
      for (let round = 0; round < 2; round++) {
        c.write(heads.join('')); // one write: the replies leave together, none alone
        const expected = texts.map((t, i) => {
          const bytes = Buffer.from(t);
          // a HEAD reply has the would-be body's length and no body
          return `HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: ${bytes.length}\r\n\r\n${i === 6 ? '' : bytes.toString('latin1')}`;
        });
        await c.expect(expected.join(''));
      }
      await c.expectQuietAndOpen(50);
    },
  );
});

test("a lone reply leaves when the connection's callback returns, not at the end of the loop turn", async () => {
  const unsent: number[] = [];
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        const bev = req.getBufferEvent();
        req.sendReply(200, 'OK', body('hello'));
        queueMicrotask(() => unsent.push(bev?.output.length ?? -1)); // runs once the read callback returned
      }),
    async ({ dial }) => {
      const c = await dial();
      for (let i = 0; i < 2; i++) {
        c.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
        await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      }
      assert.deepEqual(unsent, [0, 0]);
    },
  );
});

test('bind: several ports; a port in use is refused', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ http, port, base }) => {
      assert.equal(http.bind('127.0.0.1', port), false, 'the same address twice');
      const other = new EventHttp(base);
      try {
        assert.equal(other.bind('127.0.0.1', port), false, 'another server on a port in use');
      } finally {
        other.free();
      }
      assert.equal(http.bind('127.0.0.1', 0), true);
      const ports = http.getBoundPorts();
      assert.equal(ports.length, 2);
      assert.equal(ports[0], port);
      for (const p of ports) {
        const c = await RawClient.open(p);
        c.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
        await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      }
    },
  );
});

test('header order: user headers in insertion order, then Date, Content-Length, Connection: close', async () => {
  await withServer(
    (http) => {
      http.setCallback('/h', (req) => {
        req.addHeader('X-First', '1', OUT);
        req.addHeader('Set-Cookie', 'a=1', OUT);
        req.addHeader('Set-Cookie', 'b=2', OUT);
        req.addHeader('x-lower', 'v', OUT);
        req.addHeader('Connection', 'keep-alive', OUT); // the server decides: dropped
        req.sendReply(200, 'OK', body('hello'));
      });
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /h HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect(
        'HTTP/1.1 200 OK\r\nX-First: 1\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nx-lower: v\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello',
      );
      a.write('GET /h HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      await a.expect(
        'HTTP/1.1 200 OK\r\nX-First: 1\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nx-lower: v\r\nDate: {date}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello',
      );
      await a.expectClosed();
    },
  );
});

test('Content-Type only when set; a user Content-Length is not doubled', async () => {
  await withServer(
    (http) => {
      http.setCallback('/plain', (req) => {
        req.addHeader('Content-Type', 'text/plain; charset=utf-8', OUT);
        req.sendReply(200, 'OK', body('hi'));
      });
      http.setCallback('/none', (req) => req.sendReply(200, 'OK', body('hi')));
      http.setCallback('/len', (req) => {
        req.addHeader('Content-Length', '2', OUT);
        req.getOutputBuffer().add('hi');
        req.sendReply(201, 'Created');
      });
      http.setCallback('/empty', (req) => req.sendReply(204, 'No Content'));
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /plain HTTP/1.1\r\nHost: a\r\n\r\nGET /none HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect(
        'HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi',
      );
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nhi');
      a.write('GET /len HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect('HTTP/1.1 201 Created\r\nContent-Length: 2\r\nDate: {date}\r\n\r\nhi');
      a.write('GET /empty HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect('HTTP/1.1 204 No Content\r\nDate: {date}\r\n\r\n');
      await a.expectQuietAndOpen();
    },
  );
});

test('keep-alive: HTTP/1.1 stays open, Connection: close closes after the reply', async () => {
  await withServer(
    (http) => http.setDefaultCallback((req) => req.sendReply(200, 'OK', body(req.getUri()))),
    async ({ dial }) => {
      const a = await dial();
      for (const p of ['/1', '/2', '/3']) {
        a.write(`GET ${p} HTTP/1.1\r\nHost: a\r\n\r\n`);
        await a.expect(`HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n${p}`);
      }
      await a.expectQuietAndOpen();
      a.write('GET /4 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n/4');
      await a.expectClosed();
      // a Connection list with close in it counts too
      const b = await dial();
      b.write('GET /5 HTTP/1.1\r\nHost: a\r\nConnection: TE, Close\r\n\r\n');
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n/5');
      await b.expectClosed();
    },
  );
});

test('keep-alive: HTTP/1.0 closes unless it asks for keep-alive, then the reply says Connection: keep-alive', async () => {
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        req.addHeader('X-U', 'u', OUT);
        req.sendReply(200, 'OK', body('ok'));
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET / HTTP/1.0\r\n\r\n');
      await a.expect('HTTP/1.0 200 OK\r\nX-U: u\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
      await a.expectClosed();
      const b = await dial();
      b.write('GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
      await b.expect(
        'HTTP/1.0 200 OK\r\nX-U: u\r\nConnection: keep-alive\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nok',
      );
      await b.expectQuietAndOpen();
      b.write('GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n');
      await b.expect(
        'HTTP/1.0 200 OK\r\nX-U: u\r\nConnection: keep-alive\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nok',
      );
      b.write('GET / HTTP/1.0\r\n\r\n');
      await b.expect('HTTP/1.0 200 OK\r\nX-U: u\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
      await b.expectClosed();
    },
  );
});

// ------------------------------------------------------------------ pipelining

function pathEcho(req: EventHttpRequest): void {
  req.sendReply(200, 'OK', body(req.getUri()));
}

test('pipelining: three requests in one write are answered in order', async () => {
  await withServer(
    (http) => http.setDefaultCallback(pathEcho),
    async ({ dial }) => {
      const a = await dial();
      a.write(
        'GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /bb HTTP/1.1\r\nHost: x\r\n\r\nGET /ccc HTTP/1.1\r\nHost: x\r\n\r\n',
      );
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n/a');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 3\r\n\r\n/bb');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 4\r\n\r\n/ccc');
      await a.expectQuietAndOpen();
      // split anywhere, with a body in the middle request and a close at the end
      const b = await dial();
      const bytes =
        'GET /1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
      for (let i = 0; i < bytes.length; i += 7) {
        b.write(bytes.slice(i, i + 7));
        await sleep(1);
      }
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n/1');
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n/2');
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n/3');
      await b.expectClosed();
    },
  );
});

test('pipelining: an asynchronous first reply still comes first', async () => {
  const order: string[] = [];
  let release: (() => void) | null = null;
  await withServer(
    (http) => {
      http.setCallback('/slow', (req) => {
        order.push('slow');
        release = () => req.sendReply(200, 'OK', body('slow'));
      });
      http.setDefaultCallback((req) => {
        order.push(req.getUri());
        pathEcho(req);
      });
    },
    async ({ dial }) => {
      const a = await dial();
      a.write(
        'GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n',
      );
      await a.waitFor(() => release !== null, 10_000, 'the first request');
      await sleep(50);
      assert.deepEqual(order, ['slow'], 'one request at a time: the others wait for the first reply');
      (release as unknown as () => void)();
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 4\r\n\r\nslow');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n/b');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n/c');
      assert.deepEqual(order, ['slow', '/b', '/c']);
      await a.expectQuietAndOpen();
    },
  );
});

test('the unparsed rest of a read and a body survive reads of other connections meanwhile', async () => {
  // Reads of plain sockets land in one receive buffer that the base lends to all of them: what a
  // connection keeps past its read (the rest of a pipelined batch while a reply is pending, a body
  // read later) must be a copy, or the next read of any connection overwrites it.
  const replies: (() => void)[] = [];
  await withServer(
    (http) => {
      http.setCallback('/slow', (req) => {
        replies.push(() => req.sendReply(200, 'OK', body('slow')));
      });
      http.setCallback('/body', (req) => {
        replies.push(() => req.sendReply(200, 'OK', body(req.getInputBuffer().read(100)?.toString() ?? '')));
      });
      http.setDefaultCallback(pathEcho);
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /after-the-slow-one HTTP/1.1\r\nHost: x\r\n\r\n');
      const b = await dial();
      b.write('POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 14\r\n\r\nthe body of b!');
      await b.waitFor(() => replies.length === 2, 10_000, 'both requests being handled');
      // Other connections' reads land in the receive buffer meanwhile.
      for (let i = 0; i < 20; i++) {
        const c = await dial();
        c.write(`GET /${'x'.repeat(40 + i)} HTTP/1.1\r\nHost: x\r\n\r\n`);
        await c.expect(`HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: ${41 + i}\r\n\r\n/${'x'.repeat(40 + i)}`);
      }
      for (const reply of replies) reply();
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 4\r\n\r\nslow');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 19\r\n\r\n/after-the-slow-one');
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 14\r\n\r\nthe body of b!');
    },
  );
});

test('pipelined requests followed by a half-close are all answered, also after an asynchronous reply', async () => {
  // `printf 'GET ...GET ...' | nc host port` sends its requests and then shuts down its write side.
  await withServer(
    (http) => {
      http.setCallback('/slow', (req) => setTimeout(() => req.sendReply(200, 'OK', body('slow')), 100));
      http.setDefaultCallback(pathEcho);
    },
    async ({ dial }) => {
      // synchronous replies: all three answered, then closed
      const a = await dial();
      a.sock.end(
        'GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n',
      );
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n/a');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\n/b');
      await a.waitFor(() => a.closed);
      assert.match(
        mask(a.rest),
        /^HTTP\/1\.1 200 OK\r\nDate: \{date\}\r\nContent-Length: 2\r\n(Connection: close\r\n)?\r\n\/c$/,
      );
      // the same when the first reply is asynchronous
      const b = await dial();
      b.sock.end(
        'GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n',
      );
      await b.waitFor(() => b.closed);
      const replies = mask(b.text).match(/HTTP\/1\.1 200 OK\r\n/g) ?? [];
      assert.equal(replies.length, 3, `three replies before the close, got ${JSON.stringify(b.text)}`);
      assert.match(
        mask(b.text),
        /slowHTTP\/1\.1 200 OK\r\nDate: \{date\}\r\nContent-Length: 2\r\n\r\n\/bHTTP\/1\.1 200 OK\r\nDate: \{date\}\r\nContent-Length: 2\r\n(Connection: close\r\n)?\r\n\/c$/,
      );
    },
  );
});

/**
 * A server whose `/hold` request gets no reply until the test sends one (the
 * others echo their path): `run` gets the client, after it sent `/hold`, with
 * the pending request and its connection.
 */
async function withHeldRequest(
  run: (a: RawClient, req: EventHttpRequest, bev: EventBufferEvent) => Promise<void>,
): Promise<void> {
  let held: EventHttpRequest | null = null;
  await withServer(
    (http) => {
      http.setCallback('/hold', (req) => {
        held = req;
      });
      http.setDefaultCallback(pathEcho);
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
      await a.waitFor(() => held !== null, 10_000, 'the /hold request');
      const req = held as unknown as EventHttpRequest;
      const bev = req.getBufferEvent();
      assert.ok(bev !== null);
      await run(a, req, bev);
      a.destroy();
    },
  );
}

test('pipelined input is not buffered without bound while a request is being handled', async () => {
  // A client that keeps a request pending and streams more requests behind it
  // must meet backpressure (libevent disables reading while a request is
  // processed). Without it the server buffers everything it can read, and
  // the Buffer.concat of the growing backlog stalls the whole event loop.
  await withHeldRequest(async (a, _req, bev) => {
    const sock = bev.getSocket();
    assert.ok(sock !== null);
    const readBefore = sock.bytesRead;
    const one = Buffer.from('GET /x HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1');
    const chunk = Buffer.concat(Array.from({ length: Math.ceil(65536 / one.length) }, () => one));
    const total = 32 << 20;
    let sent = 0;
    const deadline = Date.now() + 1500;
    while (sent < total && Date.now() < deadline) {
      if (!a.sock.write(chunk)) await Promise.race([once(a.sock, 'drain'), sleep(50)]);
      sent += chunk.length;
    }
    await sleep(200);
    const buffered = sock.bytesRead - readBefore;
    assert.ok(
      buffered < 2 << 20,
      `the server read ${(buffered / 2 ** 20).toFixed(1)} MiB of pipelined requests while one request was pending`,
    );
  });
});

test('requests that arrive while one is handled wait in the input, reading stops at 64 KiB of them, and all are answered', async () => {
  // A read is parsed where it arrived when the connection can take it; a read that comes
  // while a request is handled must go into the input (counted against the backlog bound).
  await withHeldRequest(async (a, req, bev) => {
    // 2,048 requests of 32 bytes: 64 KiB, the bound, in one write.
    const one = 'GET /xxxxx HTTP/1.1\r\nHost: x\r\n\r\n';
    assert.equal(one.length, 32);
    a.write(one.repeat(2048));
    await a.waitFor(() => bev.input.length === 65536, 10_000, 'the requests in the input');
    await sleep(50);
    assert.equal(bev.getEnabled() & Event.READ, 0, 'reading stopped at the bound');
    req.sendReply(200, 'OK', body('held'));
    const count = (): number => a.text.split('HTTP/1.1 200 OK').length - 1;
    await a.waitFor(() => count() === 2049, 10_000, 'every reply');
    assert.ok(a.text.includes('\r\n\r\nheld'));
  });
});

// ------------------------------------------------------------------ Expect: 100-continue

test('Expect: 100-continue: interim 100, then the final reply', async () => {
  await withServer(
    (http) => {
      http.setMaxBodySize(1000);
      http.setCallback('/up', (req) => {
        const b = new EventBuffer();
        b.addBuffer(req.getInputBuffer());
        req.sendReply(200, 'OK', b);
      });
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('POST /up HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n');
      await a.expect('HTTP/1.1 100 Continue\r\n\r\n');
      await a.expectQuietAndOpen(100);
      a.write('hello');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      // chunked with 100-continue
      a.write('PUT /up HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nTransfer-Encoding: chunked\r\n\r\n');
      await a.expect('HTTP/1.1 100 Continue\r\n\r\n');
      a.write('3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nabcde');
      await a.expectQuietAndOpen();
    },
  );
});

test('Expect: 100-continue with a body over setMaxBodySize: 413 without 100', async () => {
  await withServer(
    (http) => {
      http.setMaxBodySize(10);
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n');
      await a.expect(errorResponse(413, 'Request Entity Too Large'));
      await a.expectClosed();
      assert.ok(!a.text.includes('100 Continue'));
    },
  );
});

test('Expect: 100-continue on a disallowed method: an immediate 405, no waiting for the body', async () => {
  // RFC 9110 10.1.1: a server that receives 100-continue MUST either send an
  // immediate final response, if the method, target and fields decide it, or
  // an immediate 100. A client waiting for either must not hang.
  let calls = 0;
  await withServer(
    (http) => {
      http.setAllowedMethods(EventHttpRequest.CMD_GET);
      http.setDefaultCallback((req) => {
        calls++;
        req.sendReply(200, 'OK', body('ok'));
      });
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n');
      const page = errorPage(405, 'Method Not Allowed');
      // the body is never sent: the server cannot keep the connection in sync, so it closes
      await a.expect(
        `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/html\r\nAllow: GET\r\nDate: {date}\r\nContent-Length: ${page.length}\r\nConnection: close\r\n\r\n${page}`,
        1000,
      );
      await a.expectClosed();
      assert.equal(calls, 0);
    },
  );
});

test('an Expect other than 100-continue: 417', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ dial }) => {
      const a = await dial();
      a.write('POST / HTTP/1.1\r\nHost: a\r\nExpect: the-unexpected\r\nContent-Length: 1\r\n\r\nx');
      await a.expect(errorResponse(417, 'Expectation Failed'));
      await a.expectClosed();
    },
  );
});

// ------------------------------------------------------------------ refused requests

test('oversized head: 431; request line over 8 KiB: 414', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ dial }) => {
      const a = await dial();
      a.write(`GET / HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(9000)}\r\n\r\n`);
      await a.expect(errorResponse(431, 'Client Error'));
      await a.expectClosed();
      const b = await dial();
      b.write(`GET /${'a'.repeat(8200)} HTTP/1.1\r\nHost: a\r\n\r\n`);
      await b.expect(errorResponse(414, 'Request-URI Too Large'));
      await b.expectClosed();
      // many small headers add up
      const c = await dial();
      c.write(
        `GET / HTTP/1.1\r\nHost: a\r\n${Array.from({ length: 90 }, (_, i) => `X-H${i}: ${'v'.repeat(100)}\r\n`).join('')}\r\n`,
      );
      await c.expect(errorResponse(431, 'Client Error'));
      await c.expectClosed();
    },
  );
});

test('setMaxHeadersSize: a smaller limit refuses a smaller head', async () => {
  await withServer(
    (http) => {
      http.setMaxHeadersSize(200);
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      const a = await dial();
      a.write(`GET / HTTP/1.1\r\nHost: a\r\nX-Pad: ${'p'.repeat(100)}\r\n\r\n`);
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      a.write(`GET / HTTP/1.1\r\nHost: a\r\nX-Pad: ${'p'.repeat(200)}\r\n\r\n`);
      await a.expect(errorResponse(431, 'Client Error'));
      await a.expectClosed();
    },
  );
});

test('body over setMaxBodySize: 413 for Content-Length and for a chunked total', async () => {
  let calls = 0;
  await withServer(
    (http) => {
      http.setMaxBodySize(8);
      http.setDefaultCallback((req) => {
        calls++;
        req.sendReply(200, 'OK', body(String(req.getInputBuffer().length)));
      });
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n12345678');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 1\r\n\r\n8');
      a.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\n123456789');
      await a.expect(errorResponse(413, 'Request Entity Too Large'));
      await a.expectClosed();
      const b = await dial();
      b.write('POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n3\r\n678\r\n0\r\n\r\n');
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 1\r\n\r\n8');
      b.write('POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n4\r\n6789\r\n0\r\n\r\n');
      await b.expect(errorResponse(413, 'Request Entity Too Large'));
      await b.expectClosed();
      assert.equal(calls, 2);
    },
  );
});

test('unknown method: 501; known but disallowed: 405 with Allow', async () => {
  await withServer(
    (http) => {
      http.setAllowedMethods(EventHttpRequest.CMD_GET | EventHttpRequest.CMD_HEAD | EventHttpRequest.CMD_PATCH);
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('FOO / HTTP/1.1\r\nHost: a\r\n\r\n');
      await a.expect(errorResponse(501, 'Not Implemented'));
      await a.expectClosed();
      const b = await dial();
      b.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi');
      const page = errorPage(405, 'Method Not Allowed');
      // A disallowed method with a body is answered before the body is read, and the connection closes.
      await b.expect(
        `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/html\r\nAllow: GET, HEAD, PATCH\r\nDate: {date}\r\nContent-Length: ${page.length}\r\nConnection: close\r\n\r\n${page}`,
      );
      await b.expectClosed();
      // Without a body the connection stays in sync and open.
      const c = await dial();
      c.write('DELETE / HTTP/1.1\r\nHost: a\r\n\r\n');
      await c.expect(
        `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/html\r\nAllow: GET, HEAD, PATCH\r\nDate: {date}\r\nContent-Length: ${page.length}\r\n\r\n${page}`,
      );
      c.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      c.write('PATCH / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n');
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
    },
  );
});

test('malformed requests: missing Host in 1.1, CL+TE, bad version, bare LF: 400 and close', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ dial }) => {
      const cases = [
        'GET / HTTP/1.1\r\n\r\n',
        'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        'GET / HTTP/x.y\r\nHost: a\r\n\r\n',
        'GET / HTTP/1.1\nHost: a\n\n',
        'GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n',
        'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n',
        'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
      ];
      for (const bytes of cases) {
        const a = await dial();
        a.write(bytes);
        await a.expect(errorResponse(400, 'Bad Request'));
        await a.expectClosed();
      }
      // HTTP/1.0 needs no Host
      const b = await dial();
      b.write('GET / HTTP/1.0\r\n\r\n');
      await b.expect('HTTP/1.0 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello');
    },
  );
});

test('HTTP/1.0 with Transfer-Encoding: chunked is answered, then closed', async () => {
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        const b = new EventBuffer();
        b.addBuffer(req.getInputBuffer());
        req.sendReply(200, 'OK', b);
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write('POST / HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
      await a.expect('HTTP/1.0 200 OK\r\nDate: {date}\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc');
      await a.expectClosed();
    },
  );
});

test('no path callback and no default callback: libevent 404 page, URI HTML-escaped', async () => {
  await withServer(
    () => {},
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /nothing?a=<b> HTTP/1.1\r\nHost: a\r\n\r\n');
      const page = notFoundPage('/nothing?a=&lt;b&gt;');
      assert.equal(page.length, 161);
      await a.expect(
        `HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nDate: {date}\r\nContent-Length: 161\r\n\r\n${page}`,
      );
      a.write(`GET /q?x="&'y HTTP/1.1\r\nHost: a\r\n\r\n`);
      const page2 = notFoundPage('/q?x=&quot;&amp;&#039;y');
      await a.expect(
        `HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nDate: {date}\r\nContent-Length: ${page2.length}\r\n\r\n${page2}`,
      );
    },
  );
});

// ------------------------------------------------------------------ callbacks

test('setCallback: exact match of the decoded path; duplicates refused; delCallback', async () => {
  let dup: boolean | null = null;
  let del: [boolean, boolean] | null = null;
  await withServer(
    (http) => {
      assert.equal(
        http.setCallback('/a b', (req) => req.sendReply(200, 'OK', body(`ab ${req.getUri()}`))),
        true,
      );
      assert.equal(http.setCallback('/x', hello('x')), true);
      dup = http.setCallback('/x', hello('second'));
      http.setCallback('/del', hello('del'));
      http.setCallback('/remove', (req) => {
        del = [http.delCallback('/del'), http.delCallback('/nope')];
        req.sendReply(200, 'OK', body('removed'));
      });
    },
    async ({ dial }) => {
      assert.equal(dup, false, 'a second setCallback for a path returns false');
      const a = await dial();
      a.write('GET /a%20b?q=1 HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 13\r\n\r\nab /a%20b?q=1');
      a.write('GET /x?y HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 1\r\n\r\nx');
      for (const miss of ['/x/', '/X', '/a%20b/', '/x/y', '/']) {
        a.write(`GET ${miss} HTTP/1.1\r\nHost: h\r\n\r\n`);
        const page = notFoundPage(miss);
        await a.expect(
          `HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nDate: {date}\r\nContent-Length: ${page.length}\r\n\r\n${page}`,
        );
      }
      a.write('GET /del HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 3\r\n\r\ndel');
      a.write('GET /remove HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 7\r\n\r\nremoved');
      assert.deepEqual(del, [true, false]);
      a.write('GET /del HTTP/1.1\r\nHost: h\r\n\r\n');
      const page = notFoundPage('/del');
      await a.expect(
        `HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nDate: {date}\r\nContent-Length: ${page.length}\r\n\r\n${page}`,
      );
    },
  );
});

test('the default callback gets what no path matches, with its argument', async () => {
  const args: unknown[] = [];
  await withServer(
    (http) => {
      http.setCallback(
        '/p',
        (req, arg) => {
          args.push(arg);
          req.sendReply(200, 'OK', body('p'));
        },
        { tag: 'path' },
      );
      http.setDefaultCallback((req, arg) => {
        args.push(arg);
        req.sendReply(200, 'OK', body('d'));
      }, 42);
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /p HTTP/1.1\r\nHost: h\r\n\r\nGET /other HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 1\r\n\r\np');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 1\r\n\r\nd');
      assert.deepEqual(args, [{ tag: 'path' }, 42]);
    },
  );
});

test('HEAD gets the headers (with the body length) but no body', async () => {
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        req.addHeader('Content-Type', 'text/plain', OUT);
        req.sendReply(200, 'OK', body('hello body\n'));
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write('HEAD / HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nContent-Length: 11\r\n\r\n');
      // nothing else came: the next reply starts right here
      a.write('GET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect(
        'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nContent-Length: 11\r\n\r\nhello body\n',
      );
      a.write('HEAD /missing HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
      await a.expect(
        'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nContent-Length: 11\r\nConnection: close\r\n\r\n',
      );
      await a.expectClosed();
    },
  );
});

test('sendError(418): libevent page, user headers dropped, connection closed', async () => {
  await withServer(
    (http) => {
      http.setCallback('/teapot', (req) => {
        req.addHeader('X-Dropped', '1', OUT);
        req.sendError(418);
      });
      http.setCallback('/reason', (req) => req.sendError(503, 'Busy <now>'));
    },
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /teapot HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect(errorResponse(418, 'Client Error'));
      await a.expectClosed();
      const b = await dial();
      b.write('GET /teapot HTTP/1.0\r\n\r\n');
      await b.expect(errorResponse(418, 'Client Error'), 10_000); // error pages always say HTTP/1.1
      await b.expectClosed();
      const c = await dial();
      c.write('GET /reason HTTP/1.1\r\nHost: h\r\n\r\n');
      await c.expect(errorResponse(503, 'Busy <now>'));
      await c.expectClosed();
    },
  );
});

test('chunked streaming: sendReplyStart/Chunk/End (1.1 chunked framing, 1.0 plain + close)', async () => {
  await withServer(
    (http) =>
      http.setCallback('/stream', (req) => {
        req.addHeader('Content-Type', 'text/plain', OUT);
        req.sendReplyStart(200, 'OK');
        req.sendReplyChunk(body('hello'));
        req.sendReplyChunk(new EventBuffer()); // empty: nothing (a 0 chunk would end the body)
        setTimeout(() => {
          req.sendReplyChunk(body(' streaming world!'));
          req.sendReplyEnd();
        }, 30);
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /stream HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect(
        'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nDate: {date}\r\n\r\n5\r\nhello\r\n11\r\n streaming world!\r\n0\r\n\r\n',
      );
      await a.expectQuietAndOpen();
      a.write('GET /stream HTTP/1.0\r\n\r\n');
      await a.expect(
        'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nConnection: close\r\n\r\nhello streaming world!',
      );
      await a.expectClosed();
      const b = await dial();
      b.write('GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
      await b.expect(
        'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nDate: {date}\r\nConnection: close\r\n\r\nhello streaming world!',
      );
      await b.expectClosed();
    },
  );
});

// ------------------------------------------------------------------ timeouts

test('setTimeout(1): idle keep-alive and slowloris connections are cut off, a slow handler is not', async () => {
  await withServer(
    (http) => {
      http.setTimeout(1);
      http.setCallback('/slow', (req) => setTimeout(() => req.sendReply(200, 'OK', body('late')), 1500));
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      const idle = await dial();
      idle.write('GET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await idle.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      const idleFrom = Date.now();

      const loris = await dial();
      const head = `GET / HTTP/1.1\r\nHost: h\r\nX-Slow: ${'z'.repeat(40)}\r\n\r\n`;
      let i = 0;
      const drip = setInterval(() => {
        if (i < head.length && !loris.closed) loris.write(head[i++] as string);
      }, 200);

      const slow = await dial();
      slow.write('GET /slow HTTP/1.1\r\nHost: h\r\n\r\n');

      const never = await dial(); // connects, sends nothing

      try {
        // The waits for what must happen are generous: the slowloris head would complete only
        // after 12 s, and nothing else would close these connections within 50 s.
        await slow.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 4\r\n\r\nlate', 10_000);
        assert.ok(await idle.closesWithin(10_000), 'the idle keep-alive connection is closed');
        const idleAfter = idle.closedAt - idleFrom;
        assert.ok(idleAfter >= 700, `idle connection closed after ${idleAfter} ms: not before its 1 s timeout`);
        assert.equal(idle.rest, '', 'closed silently');
        assert.ok(await loris.closesWithin(10_000), 'the slowloris connection is closed');
        const lorisAfter = loris.closedAt - loris.openedAt;
        assert.ok(lorisAfter >= 700, `slowloris closed after ${lorisAfter} ms: not before its 1 s timeout`);
        assert.ok(i < head.length, 'the slowloris head never completed');
        assert.equal(loris.text, '', 'no response to a head that never completed');
        assert.ok(await never.closesWithin(10_000), 'a connection that never sends is closed');
        assert.equal(slow.closed, false, 'the connection of the slow handler stays open after its reply');
        // and then it is idle: closed too
        assert.ok(await slow.closesWithin(10_000));
      } finally {
        clearInterval(drip);
      }
    },
  );
});

// ------------------------------------------------------------------ shutdown

test('shutdown(): idle connections closed, a request in flight completes with Connection: close, then it resolves', async () => {
  let release: (() => void) | null = null;
  await withServer(
    (http) => {
      http.setCallback('/inflight', (req) => {
        release = () => req.sendReply(200, 'OK', body('done'));
      });
      http.setDefaultCallback(hello());
    },
    async ({ http, port, dial }) => {
      const idle = await dial();
      idle.write('GET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await idle.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      const fresh = await dial(); // connected, nothing sent yet
      const busy = await dial();
      busy.write('GET /inflight HTTP/1.1\r\nHost: h\r\n\r\n');
      await busy.waitFor(() => release !== null, 10_000, 'the in-flight request');
      let resolved = false;
      // A deadline far past the waits below: what closes the idle connections is their 1 s
      // grace, and what resolves the promise is the last reply, not the deadline.
      const done = http.shutdown(600).then(() => {
        resolved = true;
      });
      assert.ok(await idle.closesWithin(10_000), 'idle keep-alive connection closed');
      assert.ok(await fresh.closesWithin(10_000), 'connection without a request closed');
      assert.equal(idle.rest, '');
      // no new connections
      const refused = connect(port, '127.0.0.1');
      const [err] = (await Promise.race([once(refused, 'error'), once(refused, 'close').then(() => [null])])) as [
        Error | null,
      ];
      refused.destroy();
      assert.ok(err === null || /ECONNREFUSED|ECONNRESET/.test(err.message), String(err));
      await sleep(50);
      assert.equal(resolved, false, 'still waiting for the request in flight');
      assert.equal(busy.closed, false);
      (release as unknown as () => void)();
      await busy.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 4\r\nConnection: close\r\n\r\ndone');
      await busy.expectClosed(10_000);
      assert.ok(await resolvesWithin(done, 10_000), 'shutdown() resolved');
      assert.equal(resolved, true);
    },
  );
});

test('shutdown(): a request sent on an idle keep-alive connection after shutdown() began is answered with Connection: close', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ http, dial }) => {
      const c = await dial();
      c.write('GET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
      // The server stops while the client's next request is on its way (here: sent just after).
      // The deadline is far past the waits below: the close comes after the answer.
      const done = http.shutdown(600);
      c.write('GET /next HTTP/1.1\r\nHost: h\r\n\r\n');
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello');
      await c.expectClosed(10_000);
      assert.ok(await resolvesWithin(done, 10_000), 'shutdown() resolved');
    },
  );
});

test('shutdown(): pipelined requests in the input when it begins are all answered, the last with Connection: close', async () => {
  let release: (() => void) | null = null;
  await withServer(
    (http) => {
      http.setCallback('/hold', (req) => {
        release = () => req.sendReply(200, 'OK', body('held'));
      });
      http.setDefaultCallback(hello());
    },
    async ({ http, dial }) => {
      const c = await dial();
      c.write('GET /hold HTTP/1.1\r\nHost: h\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\n');
      await c.waitFor(() => release !== null, 10_000, 'the held request');
      const done = http.shutdown();
      (release as unknown as () => void)();
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 4\r\n\r\nheld');
      await c.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello');
      await c.expectClosed();
      await done;
    },
  );
});

test('shutdown(): an idle connection is half-closed, then what its client still sends is read and dropped (a FIN, never a reset)', async () => {
  await withServer(
    (http) => http.setDefaultCallback(hello()),
    async ({ http, port }) => {
      const sock = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      await once(sock, 'connect');
      const errors: string[] = [];
      sock.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
      let received = '';
      sock.on('data', (d: Buffer) => (received += d.toString('latin1')));
      sock.write('GET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await waitFor(() => received.endsWith('hello'), 10_000);
      // A deadline far past the waits below: the FIN comes after the 1 s grace, the close
      // once the client closes too.
      const done = http.shutdown(600);
      assert.ok(await resolvesWithin(once(sock, 'end'), 10_000), 'a FIN from the server');
      // A request that crosses the close: the server reads and drops it; the client sees no reset.
      sock.write('GET /late HTTP/1.1\r\nHost: h\r\n\r\n'.repeat(200));
      await sleep(150);
      sock.write('GET /later HTTP/1.1\r\nHost: h\r\n\r\n'); // a closed socket would have answered the first with a reset
      await sleep(150);
      assert.deepEqual(errors, []);
      assert.match(received, /^HTTP\/1\.1 200 OK\r\n[^]*hello$/);
      sock.end();
      assert.ok(await resolvesWithin(done, 10_000), 'shutdown() resolved');
      assert.ok(await resolvesWithin(once(sock, 'close'), 10_000), 'the server closed');
      assert.deepEqual(errors, []);
    },
  );
});

test('shutdown() with no connection resolves at once', async () => {
  await withServer(
    () => {},
    async ({ http }) => {
      // Within the turn of the loop it was called in: before the next check phase.
      const nextTurn = new Promise<boolean>((r) => setImmediate(() => r(false)));
      assert.equal(await Promise.race([http.shutdown().then(() => true), nextTurn]), true, 'resolved at once');
    },
  );
});

// ------------------------------------------------------------------ robustness

test('clients that vanish mid-request do not crash the server', async () => {
  const rand = rng(20261121);
  const big = Buffer.alloc(4 << 20, 0x62);
  await withServer(
    (http) => {
      http.setMaxBodySize(1 << 20);
      http.setCallback('/async', (req) =>
        setTimeout(() => req.sendReply(200, 'OK', body('late')), 20 + Math.floor(rand() * 40)),
      );
      http.setCallback('/big', (req) => req.sendReply(200, 'OK', body(big)));
      http.setCallback('/stream', (req) => {
        req.sendReplyStart(200, 'OK');
        let n = 0;
        const t = setInterval(() => {
          req.sendReplyChunk(body('tick'));
          if (++n === 5) {
            clearInterval(t);
            req.sendReplyEnd();
          }
        }, 10);
      });
      http.setDefaultCallback((req) => req.sendReply(200, 'OK', body(String(req.getInputBuffer().length))));
    },
    async ({ dial }) => {
      const requests = [
        'GET / HTTP/1.1\r\nHost: h\r\n\r\n',
        'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n' + 'x'.repeat(100),
        'POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n',
        'GET /async HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n',
        'GET /big HTTP/1.1\r\nHost: h\r\n\r\n',
        'GET /stream HTTP/1.1\r\nHost: h\r\n\r\n',
        'POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n0123456789',
      ];
      const pending: Promise<void>[] = [];
      for (let k = 0; k < 60; k++) {
        const bytes = requests[k % requests.length] as string;
        const cut = Math.floor(rand() * (bytes.length + 1));
        const how = Math.floor(rand() * 3);
        const wait = Math.floor(rand() * 30);
        pending.push(
          (async () => {
            const c = await dial();
            c.write(bytes.slice(0, cut));
            await sleep(wait);
            if (how === 0) c.destroy();
            else if (how === 1) c.sock.resetAndDestroy();
            else {
              c.sock.end();
              await sleep(10);
              c.destroy();
            }
          })(),
        );
      }
      await Promise.all(pending);
      await sleep(200);
      const a = await dial();
      a.write('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 1\r\n\r\n3');
      a.write('GET /async HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 4\r\n\r\nlate');
    },
  );
});

test('a handler that replies after its client vanished does not crash the server', async () => {
  let later: (() => void)[] = [];
  await withServer(
    (http) => {
      http.setCallback('/held', (req) => {
        later.push(() => {
          req.addHeader('X-Late', '1', OUT);
          req.sendReply(200, 'OK', body('late'));
        });
      });
      http.setCallback('/held-stream', (req) => {
        req.sendReplyStart(200, 'OK');
        later.push(() => {
          req.sendReplyChunk(body('late'));
          req.sendReplyEnd();
        });
      });
      http.setDefaultCallback(hello());
    },
    async ({ dial }) => {
      for (const p of ['/held', '/held-stream', '/held']) {
        const c = await dial();
        const before = later.length;
        c.write(`GET ${p} HTTP/1.1\r\nHost: h\r\n\r\n`);
        await c.waitFor(() => later.length > before, 10_000, 'the request');
        c.sock.resetAndDestroy();
      }
      await sleep(100);
      const run = later;
      later = [];
      for (const f of run) f();
      await sleep(50);
      const a = await dial();
      a.write('GET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 5\r\n\r\nhello');
    },
  );
});

// ------------------------------------------------------------------ virtual hosts

test('virtual hosts: addVirtualHost pattern and addServerAlias pick the vhost callbacks', async () => {
  let api: EventHttp | null = null;
  let wild: EventHttp | null = null;
  try {
    await withServer(
      (http, base) => {
        api = new EventHttp(base);
        api.setCallback('/', (req) => req.sendReply(200, 'OK', body(`api ${req.getHost()}`)));
        api.setCallback('/only-api', hello('only-api'));
        assert.equal(api.addServerAlias('API-Alias.example'), true);
        wild = new EventHttp(base);
        wild.setDefaultCallback((req) => req.sendReply(200, 'OK', body(`wild ${req.getHost()}`)));
        assert.equal(http.addVirtualHost('api.example', api), true);
        assert.equal(http.addVirtualHost('*.wild.example', wild), true);
        http.setDefaultCallback((req) => req.sendReply(200, 'OK', body(`main ${req.getHost()}`)));
      },
      async ({ http, dial }) => {
        const a = await dial();
        const get = async (target: string, host: string, want: string): Promise<void> => {
          a.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
          await a.expect(`HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: ${want.length}\r\n\r\n${want}`);
        };
        await get('/', 'api.example', 'api api.example');
        await get('/', 'API.Example:8080', 'api API.Example');
        await get('/', 'api-alias.example', 'api api-alias.example');
        await get('/', 'other.example', 'main other.example');
        await get('/', 'x.wild.example', 'wild x.wild.example');
        await get('/', 'wild.example', 'main wild.example');
        await get('http://api.example/', 'other.example', 'api api.example'); // absolute form: the target's host wins
        await get('/only-api', 'api.example', 'only-api');
        await get('/only-api', 'other.example', 'main other.example');
        // removing the alias and the vhost
        assert.equal((api as unknown as EventHttp).removeServerAlias('api-alias.example'), true);
        assert.equal((api as unknown as EventHttp).removeServerAlias('api-alias.example'), false);
        await get('/', 'api-alias.example', 'main api-alias.example');
        assert.equal(http.removeVirtualHost(api as unknown as EventHttp), true);
        assert.equal(http.removeVirtualHost(api as unknown as EventHttp), false);
        await get('/', 'api.example', 'main api.example');
      },
    );
  } finally {
    (api as EventHttp | null)?.free();
    (wild as EventHttp | null)?.free();
  }
});

// ------------------------------------------------------------------ request object

test('the request: input headers in wire order, findHeader case-insensitive, method, URI, host, body', async () => {
  let seen: Record<string, unknown> | null = null;
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        seen = {
          headers: Object.entries(req.getInputHeaders()),
          xa: req.findHeader('x-a', IN),
          accept: req.findHeader('ACCEPT', IN),
          missing: req.findHeader('X-Missing', IN),
          badType: req.findHeader('x-a', 3),
          outBefore: req.findHeader('x-out', OUT),
          command: req.getCommand(),
          method: req.getMethod(),
          uri: req.getUri(),
          host: req.getHost(),
          version: req.getVersion(),
          body: req.getInputBuffer().read(100)?.toString('latin1') ?? null,
          responseCode: req.getResponseCode(),
        };
        req.addHeader('X-Out', 'o', OUT);
        assert.equal(req.findHeader('x-OUT', OUT), 'o');
        assert.equal(req.removeHeader('x-out', OUT), true);
        assert.equal(req.removeHeader('x-out', OUT), false);
        req.sendReply(200, 'OK', body('ok'));
        assert.equal(req.getResponseCode(), 200);
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write(
        'PUT /p/q?z=1 HTTP/1.1\r\nHost: Example.COM:8080\r\nX-B: 2\r\nx-a: 1\r\nX-A: 3\r\nAccept:   */*  \r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\nX-Trailer: t\r\n\r\n',
      );
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nok');
      assert.deepEqual(seen, {
        headers: [
          ['Host', 'Example.COM:8080'],
          ['X-B', '2'],
          ['x-a', '1'],
          ['X-A', '3'],
          ['Accept', '*/*'],
          ['Transfer-Encoding', 'chunked'],
        ],
        xa: '1',
        accept: '*/*',
        missing: null,
        badType: null,
        outBefore: null,
        command: EventHttpRequest.CMD_PUT,
        method: 'PUT',
        uri: '/p/q?z=1',
        host: 'Example.COM',
        version: [1, 1],
        body: 'body',
        responseCode: 0,
      });
    },
  );
});

test('a second reply to the same request is refused', async () => {
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        req.sendReply(200, 'OK', body('one'));
        req.sendReply(500, 'Again', body('two'));
        req.sendError(500);
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 3\r\n\r\none');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 3\r\n\r\none');
      await a.expectQuietAndOpen();
    },
  );
});

test('getConnection(): setCloseCallback runs when the connection closes', async () => {
  const closed: string[] = [];
  await withServer(
    (http) =>
      http.setDefaultCallback((req) => {
        const conn = req.getConnection() as {
          setCloseCallback: (cb: (c: unknown, arg: string) => void, arg: string) => void;
          getPeer: () => { address: string; port: number } | false;
        };
        const peer = conn.getPeer();
        assert.ok(peer !== false && peer.address === '127.0.0.1' && peer.port > 0);
        conn.setCloseCallback((_c, arg) => closed.push(arg), req.getUri());
        req.sendReply(200, 'OK', body('ok'));
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /one HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
      await a.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
      await a.expectClosed();
      const b = await dial();
      b.write('GET /two HTTP/1.1\r\nHost: h\r\n\r\n');
      await b.expect('HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nok');
      b.destroy();
      await waitFor(() => closed.length === 2, 10_000);
      assert.deepEqual(closed, ['/one', '/two']);
    },
  );
});

// ------------------------------------------------------------------ upgrade

test('upgrade: the callback gets the request, getBufferEvent() the connection with the bytes after the head', async () => {
  let seen: { upgrade: string | null; connection: string | null; input: string } | null = null;
  let owned: EventBufferEvent | null = null;
  await withServer(
    (http) =>
      http.setCallback('/ws', (req) => {
        const bev = req.getBufferEvent();
        assert.ok(bev !== null);
        owned = bev;
        seen = {
          upgrade: req.findHeader('upgrade', IN),
          connection: req.findHeader('connection', IN),
          input: bev.input.read(bev.input.length)?.toString('latin1') ?? '',
        };
        bev.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
        // from now on: an upper-casing echo
        bev.setCallbacks(
          (b) => {
            const data = b.input.read(b.input.length);
            if (data !== null) b.write(data.toString('latin1').toUpperCase());
          },
          null,
          (b, events) => {
            if ((events & (EventBufferEvent.EOF | EventBufferEvent.ERROR)) !== 0) {
              b.free();
              owned = null;
            }
          },
        );
        bev.enable(Event.READ | Event.WRITE);
      }),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nfirst-frame');
      await a.expect('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      assert.deepEqual(seen, { upgrade: 'websocket', connection: 'Upgrade', input: 'first-frame' });
      a.write('more bytes');
      await a.expect('MORE BYTES');
      a.sock.end();
      await a.waitFor(() => a.closed, 10_000, 'close');
      await waitFor(() => owned === null, 10_000);
      assert.equal(owned, null, 'the application freed the connection it took over');
    },
  );
});

test('upgrade request that no callback takes: 404, then the connection is closed', async () => {
  await withServer(
    (http) => http.setTimeout(1),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
      const page = notFoundPage('/ws');
      await a.expect(
        `HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nDate: {date}\r\nContent-Length: ${page.length}\r\n\r\n${page}`,
      );
      // The parser is past the head (upgraded): the connection cannot carry another
      // request, and nobody owns it. It must be closed (at the latest by the timeout),
      // and http.free() must not leave it behind (withServer checks the loop settles).
      assert.ok(await a.closesWithin(10_000), 'the server closes the declined upgrade connection');
    },
  );
});

test('upgrade declined by the callback with a normal reply: the connection is closed after it', async () => {
  await withServer(
    (http) => http.setCallback('/ws', (req) => req.sendReply(400, 'Bad Request', body('no'))),
    async ({ dial }) => {
      const a = await dial();
      a.write('GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
      await a.expect('HTTP/1.1 400 Bad Request\r\nDate: {date}\r\nContent-Length: 2\r\n\r\nno');
      assert.ok(await a.closesWithin(10_000), 'the server closes the declined upgrade connection');
    },
  );
});

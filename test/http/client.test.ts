import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { Event, EventBase, EventBuffer, EventDnsBase, EventSslContext, getLastError } from '../../src/event/index.js';
import { EventHttp, EventHttpConnection, EventHttpRequest } from '../../src/http/index.js';
import { testCerts } from '../support/certs.js';
import { dispatchWithin } from '../support/event-loop.js';
import { tcpServer } from '../support/net.js';
import { freePort } from '../support/spawn.js';

const { CMD_GET, CMD_POST, CMD_HEAD, CMD_PUT, OUTPUT_HEADER } = EventHttpRequest;

// No test may leave a promise rejection behind.
const rejections: unknown[] = [];
const onRejection = (reason: unknown): void => {
  rejections.push(reason);
};
process.on('unhandledRejection', onRejection);
after(() => {
  process.off('unhandledRejection', onRejection);
  assert.deepEqual(rejections, [], 'unhandled rejections');
});

/** What a raw server's handler sees: one request (head and Content-Length body) on one connection. */
interface RawRequest {
  /** The bytes of the request exactly as received. */
  raw: Buffer;
  head: string;
  body: Buffer;
  /** Index of the connection (0-based, in accept order). */
  conn: number;
  /** Index of the request on its connection (0-based). */
  n: number;
  sock: Socket;
}

interface RawServer {
  port: number;
  server: Server;
  requests: RawRequest[];
  /** Connections accepted so far. */
  accepted(): number;
  remotePorts: number[];
  close(): void;
}

/**
 * A TCP server on 127.0.0.1:0 that splits what it receives into requests
 * (head up to the blank line, then Content-Length bytes) and hands each to
 * `onRequest`, which writes whatever bytes the test wants.
 */
async function rawServer(
  onRequest: (r: RawRequest) => void,
  onConnection?: (sock: Socket, index: number) => void,
): Promise<RawServer> {
  const requests: RawRequest[] = [];
  const remotePorts: number[] = [];
  let accepted = 0;
  const { port, server, close } = await tcpServer((sock) => {
    const index = accepted++;
    remotePorts.push(sock.remotePort ?? -1);
    onConnection?.(sock, index);
    let got = Buffer.alloc(0);
    let n = 0;
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      for (;;) {
        const end = got.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = got.subarray(0, end).toString('latin1');
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        const len = m ? Number(m[1]) : 0;
        if (got.length < end + 4 + len) return;
        const raw = got.subarray(0, end + 4 + len);
        got = got.subarray(end + 4 + len);
        const r: RawRequest = { raw, head, body: raw.subarray(end + 4), conn: index, n: n++, sock };
        requests.push(r);
        onRequest(r);
      }
    });
  });
  return { port, server, requests, accepted: () => accepted, remotePorts, close };
}

/** Runs the base until `base.exit()` is called or `ms` pass (then the test fails). */
async function run(base: EventBase, ms = 10000): Promise<void> {
  assert.ok(await dispatchWithin(base, ms), `the loop did not end within ${ms} ms`);
}

interface Outcome {
  code: number | null;
  /** For a null outcome: what getLastError() said in the callback. */
  error?: { code: string; cause?: string } | null;
  reason?: string;
  body?: string;
  headers?: Record<string, string>;
  at: number;
}

function outcome(r: EventHttpRequest | null): Outcome {
  if (r === null) {
    const e = getLastError();
    const cause = (e?.cause as { code?: string } | undefined)?.code;
    return { code: null, error: e === null ? null : { code: e.code, ...(cause ? { cause } : {}) }, at: Date.now() };
  }
  const buf = r.getInputBuffer();
  return {
    code: r.getResponseCode(),
    reason: r.getResponseReason(),
    body: buf.read(buf.length)?.toString('latin1') ?? '',
    headers: r.getInputHeaders(),
    at: Date.now(),
  };
}

/** Makes `n` requests; collects the outcomes in order of arrival; exits the loop after the last. */
function requests(
  base: EventBase,
  conn: EventHttpConnection,
  list: { cmd?: number; uri: string; body?: string; headers?: [string, string][] }[],
  onDone?: () => void,
): { results: (Outcome & { i: number })[]; reqs: EventHttpRequest[] } {
  const results: (Outcome & { i: number })[] = [];
  const reqs = list.map((spec, i) => {
    const req = new EventHttpRequest((r) => {
      results.push({ ...outcome(r), i });
      if (results.length === list.length) {
        onDone?.();
        base.exit();
      }
    });
    for (const [k, v] of spec.headers ?? [['Host', 'test']]) req.addHeader(k, v, OUTPUT_HEADER);
    if (spec.body !== undefined) req.getOutputBuffer().add(spec.body);
    assert.equal(conn.makeRequest(req, spec.cmd ?? CMD_GET, spec.uri), true);
    return req;
  });
  return { results, reqs };
}

/** An EventHttp on 127.0.0.1:0 with a default callback replying `hello URI`. */
function echoServer(
  base: EventBase,
  ctx: EventSslContext | null = null,
): { http: EventHttp; port: number; peers: number[] } {
  const http = new EventHttp(base, ctx);
  const peers: number[] = [];
  http.setDefaultCallback((req) => {
    const peer = (req.getConnection() as { getPeer(): { port: number } | false }).getPeer();
    if (peer) peers.push(peer.port);
    const inBuf = req.getInputBuffer();
    const body = inBuf.read(inBuf.length)?.toString() ?? '';
    req.addHeader('Content-Type', 'text/plain', OUTPUT_HEADER);
    req.addHeader('X-Method', req.getMethod(), OUTPUT_HEADER);
    req.addHeader(
      'X-Content-Length',
      req.findHeader('Content-Length', EventHttpRequest.INPUT_HEADER) ?? '-',
      OUTPUT_HEADER,
    );
    const out = new EventBuffer();
    out.add(`hello ${req.getUri()}${body === '' ? '' : ` body=${body}`}\n`);
    req.sendReply(200, 'OK', out);
  });
  assert.ok(http.bind('127.0.0.1', 0));
  const [port] = http.getBoundPorts();
  return { http, port: port as number, peers };
}

describe('EventHttpConnection', { concurrency: true, timeout: 60000 }, () => {
  test('GET against EventHttp: three queued requests, one keep-alive connection, answered in order', async () => {
    const base = new EventBase();
    const { http, port, peers } = echoServer(base);
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
    const { results } = requests(base, conn, [{ uri: '/a' }, { uri: '/b?x=1' }, { uri: '/c' }]);
    await run(base);
    conn.free();
    http.free();
    assert.deepEqual(
      results.map((r) => [r.i, r.code, r.reason, r.body]),
      [
        [0, 200, 'OK', 'hello /a\n'],
        [1, 200, 'OK', 'hello /b?x=1\n'],
        [2, 200, 'OK', 'hello /c\n'],
      ],
    );
    assert.equal(results[0]?.headers?.['Content-Type'], 'text/plain');
    assert.equal(results[0]?.headers?.['Content-Length'], '9');
    assert.equal(peers.length, 3);
    assert.equal(new Set(peers).size, 1, 'all three requests over one TCP connection');
  });

  test('keep-alive reuse against a raw server: 3 requests, 1 accepted connection', async () => {
    const srv = await rawServer((r) =>
      r.sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${String(r.n).length}\r\n\r\n${r.n}`),
    );
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(base, conn, [{ uri: '/1' }, { uri: '/2' }, { uri: '/3' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => r.body),
      ['0', '1', '2'],
    );
    assert.equal(srv.accepted(), 1);
  });

  test('a request made from a callback reuses the connection', async () => {
    const srv = await rawServer((r) => r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const codes: (number | null)[] = [];
    const again = new EventHttpRequest((r) => {
      codes.push(r?.getResponseCode() ?? null);
      base.exit();
    });
    const first = new EventHttpRequest((r) => {
      codes.push(r?.getResponseCode() ?? null);
      assert.equal(r?.getConnection(), conn, 'getConnection() inside the callback');
      assert.equal(conn.makeRequest(again, CMD_GET, '/again'), true);
    });
    conn.makeRequest(first, CMD_GET, '/first');
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(codes, [200, 200]);
    assert.equal(srv.accepted(), 1);
    assert.equal(first.getConnection(), null, 'detached once its callback returned');
  });

  test('POST with a body: Content-Length added, the server reads the body', async () => {
    const base = new EventBase();
    const { http, port } = echoServer(base);
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
    const { results, reqs } = requests(base, conn, [
      { cmd: CMD_POST, uri: '/post', body: 'payload' },
      { cmd: CMD_POST, uri: '/empty' },
    ]);
    await run(base);
    conn.free();
    http.free();
    assert.equal(results[0]?.body, 'hello /post body=payload\n');
    assert.equal(results[0]?.headers?.['X-Content-Length'], '7');
    assert.equal(results[0]?.headers?.['X-Method'], 'POST');
    assert.equal(results[1]?.headers?.['X-Content-Length'], '0', 'POST without body: Content-Length: 0');
    assert.equal(reqs[0]?.getOutputBuffer().length, 0, 'the output buffer was drained when sent');
  });

  test('request bytes on the wire: request line HTTP/1.1, headers in order, no Host added, Content-Length only when needed', async () => {
    const srv = await rawServer((r) => r.sock.write('HTTP/1.1 204 No Content\r\n\r\n'));
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(base, conn, [
      { cmd: CMD_POST, uri: '/p?q=1', body: 'payload', headers: [] },
      { uri: '/', headers: [] },
      {
        uri: '/h',
        headers: [
          ['Host', 'example.org'],
          ['X-B', '2'],
          ['x-a', '1'],
          ['X-B', '3'],
        ],
      },
      { cmd: CMD_PUT, uri: '/put', headers: [['Content-Length', '3']], body: 'abc' },
      { cmd: CMD_HEAD, uri: 'http://proxy.example/abs', headers: [] },
    ]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => r.code),
      [204, 204, 204, 204, 204],
    );
    assert.deepEqual(
      srv.requests.map((r) => r.raw.toString('latin1')),
      [
        'POST /p?q=1 HTTP/1.1\r\nContent-Length: 7\r\n\r\npayload',
        'GET / HTTP/1.1\r\n\r\n',
        'GET /h HTTP/1.1\r\nHost: example.org\r\nX-B: 2\r\nx-a: 1\r\nX-B: 3\r\n\r\n',
        'PUT /put HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc',
        'HEAD http://proxy.example/abs HTTP/1.1\r\n\r\n',
      ],
    );
    assert.equal(srv.accepted(), 1);
  });

  test('chunked response split into many writes: de-chunked body, trailers ignored, connection reused', async () => {
    const srv = await rawServer((r) => {
      const parts = [
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-R: ',
        String(r.n),
        '\r\n\r\n5\r\nhel',
        'lo\r\n7;ext=1\r\n, world\r\n',
        '0\r\nX-Trailer: t\r\n\r\n',
      ];
      let i = 0;
      const next = (): void => {
        if (i < parts.length) r.sock.write(parts[i++] as string, () => setTimeout(next, 5));
      };
      next();
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(base, conn, [{ uri: '/1' }, { uri: '/2' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [r.code, r.body, r.headers?.['X-R'], r.headers?.['Transfer-Encoding']]),
      [
        [200, 'hello, world', '0', 'chunked'],
        [200, 'hello, world', '1', 'chunked'],
      ],
    );
    assert.equal(srv.accepted(), 1);
  });

  test('read-until-close response: the whole body, then the connection closes (close callback) and the next request reconnects', async () => {
    const srv = await rawServer((r) => {
      r.sock.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst part,');
      setTimeout(() => r.sock.end(` second part of ${r.conn}`), 30);
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const events: string[] = [];
    conn.setCloseCallback((c, arg) => {
      assert.equal(c, conn);
      events.push(`close:${arg}`);
    }, 'A');
    const { results } = requests(base, conn, [{ uri: '/1' }, { uri: '/2' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => r.body),
      ['first part, second part of 0', 'first part, second part of 1'],
    );
    assert.equal(srv.accepted(), 2);
    assert.deepEqual(events, ['close:A', 'close:A']);
  });

  test('HTTP/1.0 response without keep-alive: delivered, then a new connection', async () => {
    const srv = await rawServer((r) => r.sock.write('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(base, conn, [{ uri: '/1' }, { uri: '/2' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [r.code, r.body]),
      [
        [200, 'ok'],
        [200, 'ok'],
      ],
    );
    assert.equal(srv.accepted(), 2);
  });

  test('a streamed (chunked) reply from EventHttp and a 1 MiB body arrive whole', async () => {
    const base = new EventBase();
    const http = new EventHttp(base);
    http.setCallback('/stream', (req) => {
      req.sendReplyStart(200, 'OK');
      let i = 0;
      const tick = Event.timer(base, () => {
        const part = new EventBuffer();
        part.add(`part ${i}\n`);
        req.sendReplyChunk(part);
        if (++i < 5) tick.add(0.01);
        else {
          req.sendReplyEnd();
          tick.free();
        }
      });
      tick.add(0.01);
    });
    const big = Buffer.alloc(1 << 20, 'x');
    http.setCallback('/big', (req) => {
      const out = new EventBuffer();
      out.add(big);
      req.sendReply(200, 'OK', out);
    });
    assert.ok(http.bind('127.0.0.1', 0));
    const [port] = http.getBoundPorts();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port as number);
    const { results } = requests(base, conn, [{ uri: '/stream' }, { uri: '/big' }, { uri: '/stream' }]);
    await run(base);
    conn.free();
    http.free();
    const streamed = 'part 0\npart 1\npart 2\npart 3\npart 4\n';
    assert.deepEqual(
      results.map((r) => [r.code, r.headers?.['Transfer-Encoding'], r.body?.length]),
      [
        [200, 'chunked', streamed.length],
        [200, undefined, big.length],
        [200, 'chunked', streamed.length],
      ],
    );
    assert.equal(results[0]?.body, streamed);
  });

  test('HEAD: no body is read even with a Content-Length; the next response on the connection is intact', async () => {
    const srv = await rawServer((r) => {
      if (r.head.startsWith('HEAD')) r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n');
      else r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody');
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(base, conn, [{ cmd: CMD_HEAD, uri: '/' }, { uri: '/' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [r.code, r.body, r.headers?.['Content-Length']]),
      [
        [200, '', '100'],
        [200, 'body', '4'],
      ],
    );
    assert.equal(srv.accepted(), 1);
  });

  test('HEAD against EventHttp: status and headers, empty body', async () => {
    const base = new EventBase();
    const { http, port } = echoServer(base);
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
    const { results } = requests(base, conn, [{ cmd: CMD_HEAD, uri: '/x' }, { uri: '/y' }]);
    await run(base);
    conn.free();
    http.free();
    assert.deepEqual(
      results.map((r) => [r.code, r.body]),
      [
        [200, ''],
        [200, 'hello /y\n'],
      ],
    );
  });

  test('1xx interim responses are skipped', async () => {
    const srv = await rawServer((r) =>
      r.sock.write(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\nX-I: 1\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ndone',
      ),
    );
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(base, conn, [{ cmd: CMD_POST, uri: '/', body: 'x' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      [results[0]?.code, results[0]?.reason, results[0]?.body, results[0]?.headers?.['X-I']],
      [201, 'Created', 'done', undefined],
    );
  });

  test('ten queued requests are sent one at a time and answered in order', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const srv = await rawServer((r) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // answer later, and the later the lower the number, to catch reordering
      setTimeout(
        () => {
          inFlight--;
          const body = r.head.split(' ')[1] as string;
          r.sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        },
        20 - (r.n % 10) * 2,
      );
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const list = Array.from({ length: 10 }, (_, i) => ({ uri: `/r${i}` }));
    const { results } = requests(base, conn, list);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => r.i),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.deepEqual(
      results.map((r) => r.body),
      list.map((l) => l.uri),
    );
    assert.equal(maxInFlight, 1);
    assert.equal(srv.accepted(), 1);
  });

  test('timeout: a server that accepts and never answers → the callback gets null after about setTimeout(1)', async () => {
    const srv = await rawServer(() => {});
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    conn.setTimeout(1);
    let closes = 0;
    conn.setCloseCallback(() => closes++);
    const start = Date.now();
    const { results } = requests(base, conn, [{ uri: '/slow' }]);
    // The loop must end within 30 s: the default timeout (50 s) and request deadline (60 s)
    // would miss that by far, so the timeout that ended it is the 1 s one.
    try {
      await run(base, 30_000);
    } finally {
      conn.free();
      srv.close();
    }
    assert.equal(results[0]?.code, null);
    assert.deepEqual(results[0]?.error, { code: 'ERR_EVENT_TIMEOUT' });
    const took = (results[0]?.at ?? 0) - start;
    assert.ok(took >= 900, `timed out after ${took} ms: not before its 1 s timeout`);
    assert.equal(closes, 1, 'the connection was closed');
  });

  test('timeout of one request: the requests queued behind it go on over a new connection', async () => {
    const srv = await rawServer((r) => {
      if (r.conn === 0) return; // the first connection never answers
      r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    conn.setTimeout(0.3);
    const { results } = requests(base, conn, [{ uri: '/1' }, { uri: '/2' }, { uri: '/3' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [r.i, r.code]),
      [
        [0, null],
        [1, 200],
        [2, 200],
      ],
    );
    assert.equal(srv.accepted(), 2);
  });

  test('refused: the callback gets the request with response code 0, so do the requests queued behind it', async () => {
    const port = await freePort();
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
    const { results, reqs } = requests(base, conn, [{ uri: '/1' }, { uri: '/2' }]);
    await run(base);
    conn.free();
    assert.deepEqual(
      results.map((r) => [r.i, r.code, r.body]),
      [
        [0, 0, ''],
        [1, 0, ''],
      ],
    );
    assert.equal(reqs[0]?.getResponseCode(), 0);
  });

  test('setRetries: a connect that failed is tried again until the server is there', async () => {
    const port = await freePort();
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
    conn.setRetries(-1);
    conn.setInitialRetryTimeout(0.05);
    const { results } = requests(base, conn, [{ uri: '/late' }]);
    const server = createServer((s) => {
      s.on('error', () => {});
      s.once('data', () => s.end('HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlate'));
    });
    setTimeout(() => server.listen(port, '127.0.0.1'), 300);
    await run(base);
    conn.free();
    server.close();
    assert.deepEqual([results[0]?.code, results[0]?.body], [200, 'late']);
  });

  test('setRetries(2): three connect attempts, then code 0', async () => {
    const port = await freePort();
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
    conn.setRetries(2);
    conn.setInitialRetryTimeout(0.1);
    const start = Date.now();
    const { results } = requests(base, conn, [{ uri: '/' }]);
    await run(base);
    conn.free();
    const took = (results[0]?.at ?? 0) - start;
    assert.equal(results[0]?.code, 0);
    assert.ok(took >= 280, `gave up after ${took} ms (0.1 s + 0.2 s of delays expected)`);
  });

  test('404 and 500 reach the callback as they are', async () => {
    const base = new EventBase();
    const http = new EventHttp(base);
    http.setCallback('/boom', (req) => req.sendError(500));
    http.setCallback('/teapot', (req) => req.sendReply(418, "I'm a teapot"));
    assert.ok(http.bind('127.0.0.1', 0));
    const [port] = http.getBoundPorts();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port as number);
    const { results } = requests(base, conn, [{ uri: '/nothing?a=<b>' }, { uri: '/boom' }, { uri: '/teapot' }]);
    await run(base);
    conn.free();
    http.free();
    assert.deepEqual(
      results.map((r) => [r.code, r.reason]),
      [
        [404, 'Not Found'],
        [500, 'Internal Server Error'],
        [418, "I'm a teapot"],
      ],
    );
    assert.match(results[0]?.body ?? '', /The requested URL \/nothing\?a=&lt;b&gt; was not found/);
    assert.match(results[1]?.body ?? '', /<TITLE>500 Internal Server Error<\/TITLE>/);
  });

  test('the server closed the idle keep-alive connection: an idempotent request is sent again on a new connection', async () => {
    // Answers the first request of each connection (without Connection: close) and closes
    // the connection as soon as anything else arrives on it, without answering.
    const srv = await rawServer((r) => {
      if (r.n === 0) r.sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${String(r.conn).length}\r\n\r\n${r.conn}`);
      else r.sock.destroy();
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    let closes = 0;
    conn.setCloseCallback(() => closes++);
    const { results } = requests(base, conn, [{ uri: '/1' }, { uri: '/2' }, { cmd: CMD_PUT, uri: '/3', body: 'x' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [r.i, r.code, r.body]),
      [
        [0, 200, '0'],
        [1, 200, '1'],
        [2, 200, '2'],
      ],
    );
    assert.equal(srv.accepted(), 3);
    assert.equal(closes, 2);
  });

  test('the server closes after each response without saying so: every GET still succeeds', async () => {
    const srv = await rawServer((r) => r.sock.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(
      base,
      conn,
      Array.from({ length: 5 }, (_, i) => ({ uri: `/${i}` })),
    );
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => r.code),
      [200, 200, 200, 200, 200],
    );
    assert.equal(srv.accepted(), 5);
  });

  test('a POST is not sent again when the reused connection turns out to be closed: null', async () => {
    const srv = await rawServer((r) => {
      if (r.n === 0) r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      else r.sock.destroy();
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const { results } = requests(base, conn, [{ uri: '/1' }, { cmd: CMD_POST, uri: '/2', body: 'x' }, { uri: '/3' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [r.i, r.code]),
      [
        [0, 200],
        [1, null],
        [2, 200],
      ],
    );
    assert.deepEqual(results[1]?.error, { code: 'ERR_EVENT_PROTOCOL', cause: 'ERR_HTTP_INCOMPLETE' });
    assert.equal(srv.requests.filter((r) => r.head.startsWith('POST')).length, 1, 'the POST was sent once');
  });

  test('cancel(): a queued request and a request in flight never call back; the others go on', async () => {
    const srv = await rawServer((r) => {
      if (r.head.startsWith('GET /slow')) return; // never answered
      r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    let closes = 0;
    conn.setCloseCallback(() => closes++);
    const called: string[] = [];
    const mk = (uri: string): EventHttpRequest => {
      const req = new EventHttpRequest((r) => {
        called.push(`${uri}:${r?.getResponseCode() ?? 'null'}`);
        if (uri === '/last') base.exit();
      });
      assert.ok(conn.makeRequest(req, CMD_GET, uri));
      return req;
    };
    const slow = mk('/slow');
    const queued = mk('/queued');
    mk('/last');
    queued.cancel();
    // cancel the request in flight once the server has it
    const poll = setInterval(() => {
      if (srv.requests.length > 0) {
        clearInterval(poll);
        slow.cancel();
        slow.cancel(); // twice: nothing more
      }
    }, 5);
    await run(base);
    clearInterval(poll);
    conn.free();
    srv.close();
    assert.deepEqual(called, ['/last:200']);
    assert.deepEqual(
      srv.requests.map((r) => r.head.split('\r\n')[0]),
      ['GET /slow HTTP/1.1', 'GET /last HTTP/1.1'],
    );
    assert.equal(srv.accepted(), 2, 'the connection of the cancelled request was dropped');
    assert.equal(closes, 1);
    assert.equal(slow.getConnection(), null);
  });

  test('Connection: close response: the close callback runs (before the request callback), the next request reconnects', async () => {
    const srv = await rawServer((r) =>
      r.sock.write(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\n${r.conn}`),
    );
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const order: string[] = [];
    conn.setCloseCallback(() => order.push('close'));
    const list = [{ uri: '/1' }, { uri: '/2' }];
    const results: Outcome[] = [];
    for (const l of list) {
      const req = new EventHttpRequest((r) => {
        order.push(`cb${l.uri}`);
        results.push(outcome(r));
        if (results.length === 2) base.exit();
      });
      conn.makeRequest(req, CMD_GET, l.uri);
    }
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [r.code, r.body]),
      [
        [200, '0'],
        [200, '1'],
      ],
    );
    assert.deepEqual(order, ['close', 'cb/1', 'close', 'cb/2']);
    assert.equal(srv.accepted(), 2);
  });

  test('Connection: close in the request: EventHttp answers with Connection: close and the client closes', async () => {
    const base = new EventBase();
    const { http, port, peers } = echoServer(base);
    const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
    let closes = 0;
    conn.setCloseCallback(() => closes++);
    const { results } = requests(base, conn, [
      {
        uri: '/1',
        headers: [
          ['Host', 'x'],
          ['Connection', 'close'],
        ],
      },
      { uri: '/2' },
    ]);
    await run(base);
    conn.free();
    http.free();
    assert.deepEqual(
      results.map((r) => [r.code, r.headers?.['Connection']]),
      [
        [200, 'close'],
        [200, undefined],
      ],
    );
    assert.equal(new Set(peers).size, 2);
    assert.ok(closes >= 1);
  });

  test('the server closes an idle kept-alive connection: the close callback runs, the next request reconnects', async () => {
    const srv = await rawServer((r) => {
      r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      setTimeout(() => r.sock.end(), 50);
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const codes: (number | null)[] = [];
    conn.setCloseCallback(() => {
      if (codes.length === 1) {
        const req = new EventHttpRequest((r) => {
          codes.push(r?.getResponseCode() ?? null);
          base.exit();
        });
        conn.makeRequest(req, CMD_GET, '/second');
      }
    });
    const first = new EventHttpRequest((r) => codes.push(r?.getResponseCode() ?? null));
    conn.makeRequest(first, CMD_GET, '/first');
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(codes, [200, 200]);
    assert.equal(srv.accepted(), 2);
  });

  test('HTTPS against EventHttp with an EventSslContext: certificate and host name verified', async () => {
    const certs = await testCerts();
    const serverCtx = new EventSslContext(EventSslContext.TLS_SERVER_METHOD, {
      [EventSslContext.OPT_LOCAL_CERT]: certs.server,
      [EventSslContext.OPT_LOCAL_PK]: certs.serverKey,
    });
    const clientCtx = new EventSslContext(EventSslContext.TLS_CLIENT_METHOD, {
      [EventSslContext.OPT_CA_FILE]: certs.ca,
    });
    const base = new EventBase();
    const { http, port, peers } = echoServer(base, serverCtx);
    const byName = new EventHttpConnection(base, null, 'localhost', port, clientCtx);
    const byIp = new EventHttpConnection(base, null, '127.0.0.1', port, clientCtx);
    const untrusted = new EventHttpConnection(
      base,
      null,
      '127.0.0.1',
      port,
      new EventSslContext(EventSslContext.TLS_CLIENT_METHOD, {}),
    );
    const results: Record<string, Outcome[]> = { byName: [], byIp: [], untrusted: [] };
    let pending = 5;
    const go = (name: string, c: EventHttpConnection, uri: string, body?: string): void => {
      const req = new EventHttpRequest((r) => {
        results[name]?.push(outcome(r));
        if (--pending === 0) base.exit();
      });
      req.addHeader('Host', 'localhost', OUTPUT_HEADER);
      if (body !== undefined) req.getOutputBuffer().add(body);
      c.makeRequest(req, body === undefined ? CMD_GET : CMD_POST, uri);
    };
    go('byName', byName, '/s1');
    go('byName', byName, '/s2', 'secret');
    go('byIp', byIp, '/ip');
    go('untrusted', untrusted, '/u1');
    go('untrusted', untrusted, '/u2');
    await run(base);
    for (const c of [byName, byIp, untrusted]) c.free();
    http.free();
    assert.deepEqual(
      results.byName?.map((r) => [r.code, r.body]),
      [
        [200, 'hello /s1\n'],
        [200, 'hello /s2 body=secret\n'],
      ],
    );
    assert.deepEqual(
      results.byIp?.map((r) => [r.code, r.body]),
      [[200, 'hello /ip\n']],
    );
    assert.deepEqual(
      results.untrusted?.map((r) => r.code),
      [0, 0],
      'an unverifiable certificate: connection failed (code 0)',
    );
    assert.equal(peers.length, 3);
  });

  test('HTTPS: a certificate for another name is refused (code 0)', async () => {
    const certs = await testCerts();
    const serverCtx = new EventSslContext(EventSslContext.TLS_SERVER_METHOD, {
      [EventSslContext.OPT_LOCAL_CERT]: certs.other,
      [EventSslContext.OPT_LOCAL_PK]: certs.otherKey,
    });
    const clientCtx = new EventSslContext(EventSslContext.TLS_CLIENT_METHOD, {
      [EventSslContext.OPT_CA_FILE]: certs.ca,
    });
    const base = new EventBase();
    const { http, port } = echoServer(base, serverCtx);
    const conn = new EventHttpConnection(base, null, 'localhost', port, clientCtx);
    const { results } = requests(base, conn, [{ uri: '/' }]);
    await run(base);
    conn.free();
    http.free();
    assert.equal(results[0]?.code, 0);
  });

  test('malformed responses and limits: the callback gets null, the connection is dropped, the next request goes on', async () => {
    const replies: Record<string, string> = {
      '/garbage': 'HTTP/1.1 abc\r\n\r\n',
      '/bad-header': 'HTTP/1.1 200 OK\r\nBad Header\r\n\r\n',
      '/bad-chunk': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      '/smuggle': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      '/big-length': 'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world',
      '/big-chunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n',
      '/big-close': 'HTTP/1.1 200 OK\r\n\r\nhello world',
      '/big-head': `HTTP/1.1 200 OK\r\nX-Long: ${'x'.repeat(300)}\r\nContent-Length: 0\r\n\r\n`,
      '/cut': 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nonly this',
      '/ok': 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello worl',
    };
    const srv = await rawServer((r) => {
      const uri = r.head.split(' ')[1] as string;
      r.sock.end(replies[uri] ?? '');
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    conn.setMaxBodySize(10);
    conn.setMaxHeadersSize(256);
    const uris = Object.keys(replies);
    const { results } = requests(
      base,
      conn,
      uris.map((uri) => ({ uri })),
    );
    await run(base);
    conn.free();
    srv.close();
    assert.deepEqual(
      results.map((r) => [uris[r.i], r.code]),
      uris.map((u) => [u, u === '/ok' ? 200 : null]),
    );
    // why each one failed, as getLastError() told the callback
    const causes: Record<string, string> = {
      '/garbage': 'ERR_HTTP_BAD_STATUS_LINE',
      '/bad-header': 'ERR_HTTP_BAD_HEADER',
      '/bad-chunk': 'ERR_HTTP_BAD_CHUNK',
      '/smuggle': 'ERR_HTTP_SMUGGLING',
      '/big-length': 'ERR_HTTP_BODY_TOO_LARGE',
      '/big-chunked': 'ERR_HTTP_BODY_TOO_LARGE',
      '/big-close': 'ERR_HTTP_BODY_TOO_LARGE',
      '/big-head': 'ERR_HTTP_HEADER_TOO_LARGE',
      '/cut': 'ERR_HTTP_INCOMPLETE',
    };
    assert.deepEqual(
      Object.fromEntries(results.filter((r) => r.code === null).map((r) => [uris[r.i], r.error])),
      Object.fromEntries(Object.entries(causes).map(([u, cause]) => [u, { code: 'ERR_EVENT_PROTOCOL', cause }])),
    );
    assert.equal(srv.accepted(), uris.length);
  });

  test('setLocalAddress / setLocalPort: the socket is bound before connecting', async () => {
    const srv = await rawServer((r) => r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const localPort = await freePort();
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, 'localhost', srv.port);
    conn.setLocalAddress('127.0.0.1');
    conn.setLocalPort(localPort);
    const { results } = requests(base, conn, [{ uri: '/' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.equal(results[0]?.code, 200);
    assert.deepEqual(srv.remotePorts, [localPort]);
    conn.setLocalAddress('not an ip');
    assert.equal(getLastError()?.code, 'ERR_EVENT_ADDRESS');
  });

  test('a host name resolved by the system resolver (null DNS base)', async () => {
    const base = new EventBase();
    const { http, port } = echoServer(base);
    const conn = new EventHttpConnection(base, null, 'localhost', port);
    const { results } = requests(base, conn, [{ uri: '/by-name' }]);
    await run(base);
    conn.free();
    http.free();
    assert.equal(results[0]?.body, 'hello /by-name\n');
  });

  test('a host name resolved through an EventDnsBase', async () => {
    const base = new EventBase();
    const { http, port } = echoServer(base);
    const dns = new EventDnsBase(base, false);
    const conn = new EventHttpConnection(base, dns, '127.0.0.1', port);
    const byName = new EventHttpConnection(base, dns, 'localhost', port);
    byName.setLocalAddress('127.0.0.1'); // localhost may be ::1 too: stay on IPv4
    const a = requests(base, conn, [{ uri: '/dns-ip' }]);
    await run(base);
    const b = requests(base, byName, [{ uri: '/dns-name' }]);
    await run(base);
    conn.free();
    byName.free();
    http.free();
    assert.equal(a.results[0]?.body, 'hello /dns-ip\n');
    assert.equal(b.results[0]?.body, 'hello /dns-name\n');
  });

  test('a local port that is taken: the connection fails (code 0)', async () => {
    const srv = await rawServer((r) => r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const localPort = (taken.address() as { port: number }).port;
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    conn.setLocalAddress('127.0.0.1');
    conn.setLocalPort(localPort);
    const { results } = requests(base, conn, [{ uri: '/' }]);
    await run(base);
    conn.free();
    srv.close();
    taken.close();
    assert.equal(results[0]?.code, 0);
    assert.equal(srv.accepted(), 0);
  });

  test('a name that cannot be resolved: code 0', async () => {
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, 'bad..name', 80);
    const { results } = requests(base, conn, [{ uri: '/' }]);
    await run(base);
    conn.free();
    assert.equal(results[0]?.code, 0);
  });

  test('makeRequest refuses bad requests; getPeer, getBase, free', async () => {
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', 9);
    assert.equal(conn.getBase(), base);
    assert.deepEqual(conn.getPeer(), { address: '127.0.0.1', port: 9 });
    const req = new EventHttpRequest(() => assert.fail('no callback after free()'));
    assert.equal(conn.makeRequest({} as EventHttpRequest, CMD_GET, '/'), false);
    assert.equal(
      conn.makeRequest(new EventHttpRequest(null), CMD_GET, '/'),
      false,
      'no callback: not a client request',
    );
    assert.equal(conn.makeRequest(req, 3, '/'), false, 'unknown command');
    assert.equal(conn.makeRequest(req, CMD_GET, '/a b'), false, 'space in the URI');
    assert.equal(conn.makeRequest(req, CMD_GET, ''), false);
    assert.equal(conn.makeRequest(req, CMD_GET, '/'), true);
    assert.equal(conn.makeRequest(req, CMD_GET, '/'), false, 'already in use');
    const other = new EventHttpConnection(base, null, '127.0.0.1', 9);
    assert.equal(other.makeRequest(req, CMD_GET, '/'), false, 'in use on another connection');
    assert.equal(req.getConnection(), conn);
    req.sendReply(200, 'OK'); // not a server request: ignored
    conn.free();
    other.free();
    assert.equal(conn.getPeer(), false);
    assert.equal(conn.makeRequest(new EventHttpRequest(() => {}), CMD_GET, '/'), false);
    assert.equal(req.getConnection(), null);
    await base.loop(EventBase.LOOP_NONBLOCK);
    assert.throws(() => new EventHttpConnection(base, null, '127.0.0.1', 0), { code: 'ERR_EVENT_ADDRESS' });
    assert.throws(() => new EventHttpConnection(base, null, '', 80), { code: 'ERR_EVENT_INVALID_ARGUMENT' });
    assert.throws(() => new EventHttpConnection({} as EventBase, null, '127.0.0.1', 80), {
      code: 'ERR_EVENT_INVALID_ARGUMENT',
    });
  });

  test('a callback that throws ends the loop with that exception; the connection keeps working', async () => {
    const srv = await rawServer((r) => r.sock.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const boom = new EventHttpRequest(() => {
      throw new Error('boom');
    });
    conn.makeRequest(boom, CMD_GET, '/1');
    await assert.rejects(base.dispatch(), /boom/);
    const { results } = requests(base, conn, [{ uri: '/2' }]);
    await run(base);
    conn.free();
    srv.close();
    assert.equal(results[0]?.code, 200);
    assert.equal(srv.accepted(), 1);
  });
});

/**
 * The HTTP client is bounded by default: hostile servers (raw node:net on
 * 127.0.0.1:0) that send an endless body, endless interim responses or trickle
 * their response cannot make EventHttpConnection hold more than its body
 * limit, nor hold a request past its deadline. Each failure reaches the
 * callback as null, with the reason in getLastError().
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { EventBase, getLastError } from '../../src/event/index.js';
import { EventHttpConnection, EventHttpRequest, ResponseParser } from '../../src/http/index.js';
import { dispatchWithin } from '../support/event-loop.js';
import { socketIntervals, tcpServer } from '../support/net.js';
import { freePort } from '../support/spawn.js';

const { CMD_GET, OUTPUT_HEADER } = EventHttpRequest;
const MiB = 1024 * 1024;

/** A piece of an endless response: the same bytes over and over. */
const CHUNK_DATA = Buffer.alloc(64 * 1024, 0x61);
const CHUNK = Buffer.concat([Buffer.from(`${CHUNK_DATA.length.toString(16)}\r\n`), CHUNK_DATA, Buffer.from('\r\n')]);

interface Hostile {
  port: number;
  /** Bytes written to all connections so far. */
  written(): number;
  close(): void;
}

/**
 * A TCP server on 127.0.0.1:0 that calls `onRequest(sock, path)` for each
 * request head it receives (the client sends no bodies here) and writes
 * what the test wants, through `send` (which counts the bytes).
 */
async function hostile(onRequest: (send: Sender, path: string) => void, port = 0): Promise<Hostile> {
  const intervals = socketIntervals();
  let written = 0;
  const srv = await tcpServer((sock) => {
    let got = '';
    sock.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      let end: number;
      while ((end = got.indexOf('\r\n\r\n')) >= 0) {
        const path = got.slice(0, end).split(' ')[1] ?? '/';
        got = got.slice(end + 4);
        onRequest(
          {
            sock,
            write(bytes) {
              if (sock.destroyed || !sock.writable) return false;
              written += bytes.length;
              return sock.write(bytes);
            },
            every: (ms, fn) => intervals.every(sock, ms, fn),
          },
          path,
        );
      }
    });
  }, port);
  return {
    port: srv.port,
    written: () => written,
    close: () => {
      intervals.clear();
      srv.close();
    },
  };
}

interface Sender {
  sock: Socket;
  /** Writes (counted); false when the socket is gone or its buffer is full. */
  write(bytes: Buffer | string): boolean;
  /** Calls `fn` every `ms` until it returns false or the socket is gone (cleared by close()). */
  every(ms: number, fn: () => boolean | void): void;
}

/**
 * Writes `next()` as fast as the client takes it, until the socket is gone,
 * `next()` returns null or `limit` bytes were written (a bound for the test;
 * far above what the client may take, so that a client without a bound would
 * not finish either).
 */
function flood(s: Sender, next: () => Buffer | string | null, limit: number): void {
  let sent = 0;
  const pump = (): void => {
    while (sent < limit && !s.sock.destroyed) {
      const b = next();
      if (b === null) return;
      sent += b.length;
      if (!s.write(b)) {
        if (!s.sock.destroyed) s.sock.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

interface Result {
  /** The status, or null. */
  code: number | null;
  /** For null: getLastError()'s code and its cause's code, as the callback saw them. */
  error?: { code: string; cause?: string };
  /** Bytes in the request's input buffer when the callback ran (what the client holds). */
  buffered: number;
}

/** Makes one GET per path over `conn`; runs the base until every callback ran (at most `ms`). */
async function get(base: EventBase, conn: EventHttpConnection, paths: string[], ms = 20000): Promise<Result[]> {
  const results: Result[] = [];
  let done = 0;
  for (const [i, path] of paths.entries()) {
    const req = new EventHttpRequest((r) => {
      const buffered = req.getInputBuffer().length;
      if (r === null) {
        const e = getLastError();
        const cause = (e?.cause as { code?: string } | undefined)?.code;
        results[i] = {
          code: null,
          error: e === null ? { code: 'none' } : { code: e.code, ...(cause === undefined ? {} : { cause }) },
          buffered,
        };
      } else results[i] = { code: r.getResponseCode(), buffered };
      if (++done === paths.length) base.exit();
    });
    req.addHeader('Host', 'test', OUTPUT_HEADER);
    assert.equal(conn.makeRequest(req, CMD_GET, path), true);
  }
  assert.ok(await dispatchWithin(base, ms), `the requests did not end within ${ms} ms: ${JSON.stringify(results)}`);
  return results;
}

/** One connection to `port` on a new base; `setup` sets its limits. */
function client(
  port: number,
  setup?: (c: EventHttpConnection) => void,
): { base: EventBase; conn: EventHttpConnection } {
  const base = new EventBase();
  const conn = new EventHttpConnection(base, null, '127.0.0.1', port);
  setup?.(conn);
  return { base, conn };
}

const bodyTooLarge = { code: 'ERR_EVENT_PROTOCOL', cause: 'ERR_HTTP_BODY_TOO_LARGE' };
const tooManyInterim = { code: 'ERR_EVENT_PROTOCOL', cause: 'ERR_HTTP_TOO_MANY_INTERIM' };
const timedOut = { code: 'ERR_EVENT_TIMEOUT' };

describe('EventHttpConnection bounds against hostile servers', { concurrency: true, timeout: 90000 }, () => {
  const servers: Hostile[] = [];
  after(() => {
    for (const s of servers) s.close();
  });
  async function start(onRequest: (send: Sender, path: string) => void, port = 0): Promise<Hostile> {
    const s = await hostile(onRequest, port);
    servers.push(s);
    return s;
  }

  test('an endless chunked body with the default limit: null (body too large), never more than 8 MiB held', async () => {
    const srv = await start((s) => {
      s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      flood(s, () => CHUNK, 256 * MiB);
    });
    const { base, conn } = client(srv.port);
    const [r] = await get(base, conn, ['/endless']);
    conn.free();
    assert.equal(r?.code, null);
    assert.deepEqual(r?.error, bodyTooLarge);
    // The limit is checked at each chunk's size line: the chunk that would pass it is never read.
    assert.ok(r.buffered <= 8 * MiB, `held ${r.buffered} bytes`);
    assert.ok(r.buffered > 8 * MiB - CHUNK_DATA.length, `held ${r.buffered} bytes`);
    assert.ok(srv.written() > 8 * MiB);
  });

  test('an endless body until the close (no framing), 1 MiB limit: null, never more than 1 MiB held', async () => {
    const srv = await start((s) => {
      s.write('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n');
      flood(s, () => CHUNK_DATA, 64 * MiB);
    });
    const { base, conn } = client(srv.port, (c) => c.setMaxBodySize(MiB));
    const [r] = await get(base, conn, ['/endless']);
    conn.free();
    assert.deepEqual(r?.error, bodyTooLarge);
    assert.ok(r.buffered <= MiB, `held ${r.buffered} bytes`);
  });

  test('bodies just under and just over the limit, for each framing; the default limit is 8 MiB', async () => {
    const LIMIT = 1000;
    const body = (n: number): string => 'b'.repeat(n);
    const chunked = (n: number): string => `${(n - 1).toString(16)}\r\n${body(n - 1)}\r\n1\r\nb\r\n0\r\n\r\n`;
    const replies: Record<string, string> = {
      '/length-at': `HTTP/1.1 200 OK\r\nContent-Length: ${LIMIT}\r\n\r\n${body(LIMIT)}`,
      '/length-over': `HTTP/1.1 200 OK\r\nContent-Length: ${LIMIT + 1}\r\n\r\n${body(LIMIT + 1)}`,
      '/chunked-at': `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(LIMIT)}`,
      '/chunked-over': `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(LIMIT + 1)}`,
      '/close-at': `HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n${body(LIMIT)}`,
      '/close-over': `HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n${body(LIMIT + 1)}`,
    };
    const srv = await start((s, path) => {
      s.write(replies[path] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      if (path.startsWith('/close') || path.endsWith('-over')) s.sock.end();
    });
    const { base, conn } = client(srv.port, (c) => c.setMaxBodySize(LIMIT));
    const paths = Object.keys(replies);
    const results = await get(base, conn, paths);
    conn.free();
    assert.deepEqual(
      Object.fromEntries(results.map((r, i) => [paths[i], r.code === null ? r.error : [r.code, r.buffered]])),
      {
        '/length-at': [200, LIMIT],
        '/length-over': bodyTooLarge,
        '/chunked-at': [200, LIMIT],
        '/chunked-over': bodyTooLarge,
        '/close-at': [200, LIMIT],
        '/close-over': bodyTooLarge,
      },
    );
    // A declared length over the limit is refused before any of the body is read.
    assert.equal(results[1]?.buffered, 0);

    // the default: exactly 8 MiB is accepted, one byte more is refused
    const big = Buffer.alloc(8 * MiB + 1, 0x62);
    const srv2 = await start((s, path) => {
      const n = path === '/at' ? 8 * MiB : 8 * MiB + 1;
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${n}\r\n\r\n`);
      s.write(big.subarray(0, n));
    });
    const c2 = client(srv2.port);
    const [at, over] = await get(c2.base, c2.conn, ['/at', '/over']);
    c2.conn.free();
    assert.deepEqual([at?.code, at?.buffered], [200, 8 * MiB]);
    assert.deepEqual([over?.error, over?.buffered], [bodyTooLarge, 0]);
  });

  test('a large response within a raised limit arrives whole (24 MiB chunked, limit 32 MiB)', async () => {
    const SIZE = 24 * MiB;
    const srv = await start((s) => {
      s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      let left = SIZE / CHUNK_DATA.length;
      flood(s, () => (left > 0 ? (left--, CHUNK) : left-- === 0 ? '0\r\n\r\n' : null), 2 * SIZE);
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    conn.setMaxBodySize(32 * MiB);
    let got: Buffer | null = null;
    const req = new EventHttpRequest((r) => {
      const buf = r?.getInputBuffer();
      got = buf === undefined ? null : (buf.read(buf.length) ?? Buffer.alloc(0));
      base.exit();
    });
    req.addHeader('Host', 'test', OUTPUT_HEADER);
    conn.makeRequest(req, CMD_GET, '/big');
    const t = setTimeout(() => base.exit(), 30000);
    await base.dispatch();
    clearTimeout(t);
    conn.free();
    assert.ok(got !== null, `the request failed: ${getLastError()?.message}`);
    const body = got as Buffer;
    assert.equal(body.length, SIZE);
    assert.equal(body.indexOf(0x62), -1); // every byte is the pattern's
    assert.equal(body[0], 0x61);
    assert.equal(body[SIZE - 1], 0x61);
  });

  test('endless 103 Early Hints and endless 102 Processing: null (too many interim responses)', async () => {
    const srv = await start((s, path) => {
      const line =
        path === '/103'
          ? 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n'
          : 'HTTP/1.1 102 Processing\r\n\r\n';
      flood(s, () => line, 64 * MiB);
    });
    const { base, conn } = client(srv.port);
    const results = await get(base, conn, ['/103', '/102']);
    conn.free();
    assert.deepEqual(
      results.map((r) => r.error),
      [tooManyInterim, tooManyInterim],
    );
  });

  test('100 interim responses before the final one are accepted, 101 are not', async () => {
    const interim = 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n';
    const srv = await start((s, path) => {
      const n = path === '/100' ? 100 : 101;
      s.write(`${interim.repeat(n)}HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok`);
    });
    const { base, conn } = client(srv.port);
    const results = await get(base, conn, ['/100', '/101', '/100']);
    conn.free();
    assert.deepEqual(
      results.map((r) => r.code ?? r.error),
      [200, tooManyInterim, 200],
    );
  });

  test('the response parser alone: the 101st interim response is ERR_HTTP_TOO_MANY_INTERIM; the count restarts per response', () => {
    const interim = Buffer.from('HTTP/1.1 102 Processing\r\n\r\n');
    const final = Buffer.from('HTTP/1.1 204 No Content\r\n\r\n');
    const seen: string[] = [];
    const p = new ResponseParser({
      onResponse: (h) => seen.push(String(h.statusCode)),
      onInformational: () => seen.push('1xx'),
      onError: (e) => seen.push(e.code),
    });
    for (let round = 0; round < 2; round++) {
      p.addRequest('GET');
      for (let i = 0; i < 100; i++) p.execute(interim);
      p.execute(final);
    }
    p.addRequest('GET');
    for (let i = 0; i < 101; i++) p.execute(interim);
    const counts = seen.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
    assert.deepEqual(counts, { '1xx': 300, '204': 2, ERR_HTTP_TOO_MANY_INTERIM: 1 });
  });

  test('a response trickled a byte at a time: null at the request deadline (setRequestTimeout), whatever setTimeout says', async () => {
    const reply = `HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n${'t'.repeat(1000)}`;
    const srv = await start((s) => {
      let i = 0;
      // 20 s of trickle at most: far longer than the test waits (10 s), so only the deadline ends it
      s.every(20, () => i < reply.length && s.write(reply[i++] as string));
    });
    const { base, conn } = client(srv.port, (c) => {
      c.setTimeout(30); // a byte comes every 20 ms: the idle timeout never fires
      c.setRequestTimeout(0.5);
    });
    const [r] = await get(base, conn, ['/trickle'], 10000);
    conn.free();
    assert.deepEqual(r?.error, timedOut);
  });

  test('102 Processing every 20 ms (under the interim cap): null at the request deadline', async () => {
    const srv = await start((s) => {
      let i = 0;
      s.every(20, () => i++ < 1000 && s.write('HTTP/1.1 102 Processing\r\n\r\n'));
    });
    const { base, conn } = client(srv.port, (c) => {
      c.setTimeout(30);
      c.setRequestTimeout(0.5);
    });
    const [r] = await get(base, conn, ['/processing'], 10000);
    conn.free();
    assert.deepEqual(r?.error, timedOut);
  });

  test('the deadline counts from when the request is sent, not from makeRequest (a connect retry waited longer)', async () => {
    const port = await freePort();
    const { base, conn } = client(port, (c) => {
      c.setRetries(1);
      c.setInitialRetryTimeout(2); // a timer: the request waits at least 2 s before it is sent
      c.setRequestTimeout(1.5);
    });
    // nothing listens at first: the first connect is refused, the retry finds the server
    const up = new Promise<Hostile>((resolve, reject) => {
      setTimeout(() => {
        start((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'), port).then(resolve, reject);
      }, 100);
    });
    const [r] = await get(base, conn, ['/late']);
    conn.free();
    await up;
    assert.equal(r?.code ?? r?.error, 200);
  });

  test('setRequestTimeout: Infinity removes the deadline; 0, negative and NaN restore the default (60 s)', async () => {
    const reply = `HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n${'x'.repeat(20)}`;
    const srv = await start((s) => {
      let i = 0;
      // the response takes about a second, twice the first deadline set below
      s.every(20, () => i < reply.length && s.write(reply[i++] as string));
    });
    const runs = [Infinity, 0, -1, NaN].map(async (value) => {
      const { base, conn } = client(srv.port, (c) => {
        c.setRequestTimeout(0.5);
        c.setRequestTimeout(value);
      });
      const [r] = await get(base, conn, ['/slow']);
      conn.free();
      return r?.code ?? r?.error;
    });
    assert.deepEqual(await Promise.all(runs), [200, 200, 200, 200]);
  });

  test('a deadline set while the request is in flight applies to it (counted from its send)', async () => {
    const srv = await start((s) => {
      s.every(20, () => s.write('HTTP/1.1 102 Processing\r\n\r\n'));
    });
    const base = new EventBase();
    const conn = new EventHttpConnection(base, null, '127.0.0.1', srv.port);
    const req = new EventHttpRequest((r) => {
      const e = getLastError();
      outcome = r === null ? (e?.code ?? 'none') : r.getResponseCode();
      base.exit();
    });
    let outcome: string | number | undefined;
    req.addHeader('Host', 'test', OUTPUT_HEADER);
    conn.makeRequest(req, CMD_GET, '/');
    setTimeout(() => conn.setRequestTimeout(0.3), 200).unref();
    const t = setTimeout(() => base.exit(), 10000);
    await base.dispatch();
    clearTimeout(t);
    conn.free();
    assert.equal(outcome, 'ERR_EVENT_TIMEOUT');
  });
});

import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { socketIntervals, tcpServer } from '../support/net.js';
import { freePort, killAll, runExample, type ExampleRun } from '../support/spawn.js';

after(killAll);

/**
 * A raw TCP server on 127.0.0.1:0: records each request (up to the blank
 * line) and answers it with `respond(request)`; null: never answers.
 */
async function rawServer(
  respond: (request: string) => string | null,
): Promise<{ port: number; requests: string[]; close: () => void }> {
  const requests: string[] = [];
  const { port, close } = await tcpServer((sock) => {
    let got = '';
    sock.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        requests.push(got);
        const reply = respond(got);
        got = '';
        if (reply !== null) sock.write(reply);
      }
    });
  });
  return { port, requests, close };
}

/**
 * A hostile TCP server on 127.0.0.1:0: `onRequest(sock, every)` starts
 * writing whatever the test wants once a request head arrived; `every(ms, fn)`
 * repeats `fn` until it returns false or the socket is gone (all cleared by
 * close()).
 */
async function hostileServer(
  onRequest: (sock: Socket, every: (ms: number, fn: () => boolean) => void) => void,
): Promise<{ port: number; close: () => void }> {
  const intervals = socketIntervals();
  const srv = await tcpServer((sock) => {
    let got = '';
    sock.on('data', (d: Buffer) => {
      if (got.includes('\r\n\r\n')) return;
      got += d.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      onRequest(sock, (ms, fn) => intervals.every(sock, ms, fn));
    });
  });
  return {
    port: srv.port,
    close: () => {
      intervals.clear();
      srv.close();
    },
  };
}

/**
 * Writes `piece` as fast as the peer reads it, until the socket is gone or
 * `limit` bytes went out; `sent` counts the bytes written so far.
 */
function flood(sock: Socket, piece: Buffer | string, limit: number): { sent: number } {
  const count = { sent: 0 };
  const pump = (): void => {
    while (count.sent < limit && !sock.destroyed) {
      count.sent += piece.length;
      if (!sock.write(piece)) {
        sock.once('drain', pump);
        return;
      }
    }
  };
  pump();
  return count;
}

/** How a run of the client example ended. */
interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the client example with `args` until it exits (after `ms` it is
 * killed and the test fails), then closes `srv`: the exit code and output.
 */
async function runClient(srv: { close(): void }, args: string[], ms: number): Promise<ClientRun> {
  const client = runExample('http-client.ts', args);
  try {
    const { code } = await client.waitExit(ms);
    return { code, stdout: client.stdout(), stderr: client.stderr() };
  } finally {
    client.kill();
    srv.close();
  }
}

async function startHttpServerExample(): Promise<{ run: ExampleRun; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const run = runExample('http-server.ts', [String(port), '--host', '127.0.0.1']);
    try {
      await run.waitStderr(/Listening on /);
      return { run, port };
    } catch (err) {
      run.kill();
      if (attempt < 2 && /in use|EADDRINUSE/i.test(run.stderr())) continue;
      throw err;
    }
  }
}

describe('examples/http-client.ts', { concurrency: 4, timeout: 180000 }, () => {
  test('against the http-server example: Success: 200, an empty body, exit 0', { timeout: 30000 }, async () => {
    const { run: server, port } = await startHttpServerExample();
    try {
      const client = runExample('http-client.ts', ['127.0.0.1', String(port), '/about?from=client']);
      const { code } = await client.waitExit(15000);
      assert.equal(code, 0, client.stderr());
      assert.equal(client.stdout(), '_request_handler\nSuccess: 200\nBody:\n');
      assert.equal(client.stderr(), '');
      assert.equal(server.stdout(), '_http_about\nURI: /about?from=client\n\n >> Sending reply ...OK\n');
    } finally {
      server.kill();
    }
  });

  test(
    'the request on the wire, and a 200 body printed as it is (read 1024 bytes at a time)',
    { timeout: 30000 },
    async () => {
      const body = `${'a'.repeat(1500)}\nsecond line\n\n0\nlast line without newline`;
      const srv = await rawServer(
        () => `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      const client = await runClient(srv, ['127.0.0.1', String(srv.port), '/index.cphp?q=1'], 15000);
      assert.equal(client.code, 0, client.stderr);
      assert.deepEqual(srv.requests, [
        `GET /index.cphp?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Length: 0\r\n\r\n`,
      ]);
      assert.equal(client.stdout, `_request_handler\nSuccess: 200\nBody:\n${body}\n`);
    },
  );

  test('a chunked 200 is de-chunked', { timeout: 30000 }, async () => {
    const srv = await rawServer(
      () => 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nline1\n\r\n6\r\nline2\n\r\n0\r\n\r\n',
    );
    const client = await runClient(srv, ['127.0.0.1', String(srv.port), '/'], 15000);
    assert.equal(client.code, 0, client.stderr);
    assert.equal(client.stdout, '_request_handler\nSuccess: 200\nBody:\nline1\nline2\n');
  });

  test('404: "Unexpected response: 404", exit 1', { timeout: 30000 }, async () => {
    const srv = await rawServer(() => 'HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found');
    const client = await runClient(srv, ['127.0.0.1', String(srv.port), '/missing'], 15000);
    assert.equal(client.code, 1);
    assert.equal(client.stdout, '_request_handler\nUnexpected response: 404\n');
  });

  test('a refused port: "Connection refused", exit 1', { timeout: 30000 }, async () => {
    const port = await freePort();
    const client = runExample('http-client.ts', ['127.0.0.1', String(port), '/']);
    const { code } = await client.waitExit(15000);
    assert.equal(code, 1);
    assert.equal(client.stdout(), '_request_handler\nConnection refused\n');
  });

  test(
    'a server that never answers, --timeout 1: "Timed out" (the reason, with the timeout, on stderr), exit 1',
    { timeout: 30000 },
    async () => {
      const srv = await rawServer(() => null);
      const client = await runClient(srv, ['--timeout', '1', '127.0.0.1', String(srv.port), '/slow'], 20000);
      assert.equal(client.code, 1);
      assert.equal(client.stdout, '_request_handler\nTimed out\n');
      // the deadline set from --timeout ended it (not a timing: the message names the setting)
      assert.equal(client.stderr, 'GET /slow: No response within 1 s (setRequestTimeout)\n');
      assert.equal(srv.requests.length, 1);
    },
  );

  test("the default timeout is the PHP example's 5 seconds", { timeout: 30000 }, async () => {
    const srv = await rawServer(() => null);
    const client = await runClient(srv, ['127.0.0.1', String(srv.port), '/slow'], 25000);
    assert.equal(client.code, 1);
    assert.equal(client.stdout, '_request_handler\nTimed out\n');
    assert.equal(client.stderr, 'GET /slow: No response within 5 s (setRequestTimeout)\n');
  });

  describe('hostile servers: the example ends within its timeout, exit 1', { concurrency: 2 }, () => {
    const CHUNK = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')]);

    test('an endless chunked body: "Invalid response" (the 8 MiB body limit)', { timeout: 30000 }, async () => {
      let written = { sent: 0 };
      const srv = await hostileServer((sock) => {
        sock.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
        written = flood(sock, CHUNK, 512 * 1024 * 1024); // a bound for the test, far above the limit
      });
      const client = await runClient(srv, ['127.0.0.1', String(srv.port), '/endless'], 20000);
      assert.equal(client.code, 1);
      assert.equal(client.stdout, '_request_handler\nInvalid response\n');
      assert.match(client.stderr, /^GET \/endless: Response refused \(ERR_HTTP_BODY_TOO_LARGE\): .*8388608 bytes\n$/);
      assert.ok(written.sent > 8 * 1024 * 1024, `the server wrote ${written.sent} bytes`);
    });

    test(
      'endless 103 Early Hints: "Invalid response" (at most 100 interim responses)',
      { timeout: 30000 },
      async () => {
        const srv = await hostileServer((sock) => {
          flood(sock, 'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n', 64 * 1024 * 1024);
        });
        const client = await runClient(srv, ['127.0.0.1', String(srv.port), '/hints'], 20000);
        assert.equal(client.code, 1);
        assert.equal(client.stdout, '_request_handler\nInvalid response\n');
        assert.match(client.stderr, /\(ERR_HTTP_TOO_MANY_INTERIM\)/);
      },
    );

    test(
      '102 Processing every 0.5 s, --timeout 2: "Timed out" at the request deadline',
      { timeout: 30000 },
      async () => {
        const srv = await hostileServer((sock, every) => {
          let n = 0;
          every(500, () => n++ < 60 && sock.write('HTTP/1.1 102 Processing\r\n\r\n'));
        });
        const client = await runClient(srv, ['--timeout', '2', '127.0.0.1', String(srv.port), '/processing'], 20000);
        assert.equal(client.code, 1);
        assert.equal(client.stdout, '_request_handler\nTimed out\n');
        assert.match(client.stderr, /^GET \/processing: No complete response within 2 s \(setRequestTimeout\)\n$/);
      },
    );

    test(
      'a response trickled a byte at a time, --timeout 2: "Timed out" at the request deadline',
      { timeout: 30000 },
      async () => {
        const reply = `HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n${'x'.repeat(100)}`;
        const srv = await hostileServer((sock, every) => {
          let i = 0;
          // a byte every 250 ms: the 2 s without a byte never come, and the whole reply would take 35 s
          every(250, () => i < reply.length && sock.write(reply[i++] as string));
        });
        const client = await runClient(srv, ['--timeout', '2', '127.0.0.1', String(srv.port), '/trickle'], 20000);
        assert.equal(client.code, 1);
        assert.equal(client.stdout, '_request_handler\nTimed out\n');
        assert.match(client.stderr, /^GET \/trickle: No complete response within 2 s \(setRequestTimeout\)\n$/);
      },
    );
  });

  test('wrong arguments: the usage on stderr, exit 2', { timeout: 30000 }, async () => {
    const runs = [
      runExample('http-client.ts', []),
      runExample('http-client.ts', ['127.0.0.1', '80']),
      runExample('http-client.ts', ['127.0.0.1', '80', '/', 'extra']),
      runExample('http-client.ts', ['127.0.0.1', '0', '/']),
      runExample('http-client.ts', ['--timeout', 'soon', '127.0.0.1', '80', '/']),
      runExample('http-client.ts', ['127.0.0.1', '80', 'a b']),
    ];
    try {
      for (const run of runs) {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 2, run.stderr());
        assert.equal(run.stdout(), '');
        assert.match(run.stderr(), /Usage: npx tsx examples\/http-client\.ts \[--timeout SECONDS\] HOST PORT URI\n$/);
      }
      assert.match(runs[3]!.stderr(), /^Invalid port\n/);
      assert.match(runs[4]!.stderr(), /^Invalid timeout: soon\n/);
    } finally {
      for (const run of runs) run.kill();
    }
  });
});

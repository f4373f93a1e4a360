import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tcpServer } from '../support/net.js';
import { freePort, killAll, runExample } from '../support/spawn.js';

after(killAll);

/**
 * A raw TCP server on 127.0.0.1 (port 0): records the bytes of each request
 * up to the blank line, then writes `response` and closes.
 */
async function rawServer(
  response: Buffer,
): Promise<{ port: number; requests: Buffer[]; close: () => void; server: Server }> {
  const requests: Buffer[] = [];
  const { port, server, close } = await tcpServer((sock) => {
    let got = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.includes('\r\n\r\n')) {
        requests.push(got);
        sock.end(response);
      }
    });
  });
  return { port, requests, server, close };
}

// Binary-safe: bytes that are not valid UTF-8 must come out unchanged.
const RESPONSE = Buffer.concat([
  Buffer.from('HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nX-Test: raw\r\n\r\n'),
  Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]),
  Buffer.from('x'.repeat(5000) + '\nlast line\n'),
]);

describe('examples/http-client-raw.ts', { concurrency: true, timeout: 90000 }, () => {
  test(
    '--address IP:PORT sends exactly the documented request (no Host) and prints the raw response',
    { timeout: 20000 },
    async () => {
      const srv = await rawServer(RESPONSE);
      const run = runExample('http-client-raw.ts', ['--address', `127.0.0.1:${srv.port}`, '/index.html?a=1']);
      try {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 0, run.stderr());
        assert.equal(srv.requests.length, 1);
        assert.deepEqual(srv.requests[0], Buffer.from('GET /index.html?a=1 HTTP/1.0\r\nConnection: Close\r\n\r\n'));
        const expected = Buffer.concat([Buffer.from('Connected.\n'), RESPONSE, Buffer.from('Closing\nDone\n')]);
        assert.ok(run.stdoutBytes().equals(expected), `stdout: ${JSON.stringify(run.stdout().slice(0, 300))}`);
        assert.equal(run.stderr(), '');
      } finally {
        run.kill();
        srv.close();
      }
    },
  );

  test('host-name variant with localhost --port P sends the Host header', { timeout: 20000 }, async () => {
    const srv = await rawServer(RESPONSE);
    // `localhost` may resolve to ::1 first on some systems: listen there too when possible.
    const v6 = createServer((s) => srv.server.emit('connection', s));
    v6.on('error', () => {});
    v6.listen(srv.port, '::1');
    const run = runExample('http-client-raw.ts', ['localhost', '/', '--port', String(srv.port)]);
    try {
      const { code } = await run.waitExit(15000);
      assert.equal(code, 0, `${run.stdout()} ${run.stderr()}`);
      assert.equal(srv.requests.length, 1);
      assert.deepEqual(srv.requests[0], Buffer.from('GET / HTTP/1.0\r\nHost: localhost\r\nConnection: Close\r\n\r\n'));
      const expected = Buffer.concat([Buffer.from('Connected.\n'), RESPONSE, Buffer.from('Closing\nDone\n')]);
      assert.ok(run.stdoutBytes().equals(expected), `stdout: ${JSON.stringify(run.stdout().slice(0, 300))}`);
    } finally {
      run.kill();
      srv.close();
      v6.close();
    }
  });

  test('against node:http: the status line, headers and body are printed', { timeout: 20000 }, async () => {
    const server = createHttpServer((req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.end(`hello ${req.url} host=${req.headers.host ?? '-'} conn=${req.headers.connection ?? '-'}\n`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const run = runExample('http-client-raw.ts', ['127.0.0.1', '/greet', '--port', String(port)]);
    try {
      const { code } = await run.waitExit(15000);
      assert.equal(code, 0, run.stderr());
      const out = run.stdout();
      assert.match(out, /^Connected\.\nHTTP\/1\.1 200 OK\r\n/);
      assert.match(out, /\r\nContent-Type: text\/plain\r\n/);
      assert.match(out, /\r\n\r\nhello \/greet host=127\.0\.0\.1 conn=close\nClosing\nDone\n$/i);
    } finally {
      run.kill();
      server.closeAllConnections();
      server.close();
    }
  });

  test('a refused connection: the socket error, Closing, Done, exit 1', { timeout: 20000 }, async () => {
    const port = await freePort();
    const runs = [
      runExample('http-client-raw.ts', ['--address', `127.0.0.1:${port}`, '/']),
      runExample('http-client-raw.ts', ['127.0.0.1', '/', '--port', String(port)]),
    ];
    try {
      for (const run of runs) {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 1, run.stderr());
        assert.equal(run.stdout(), 'Socket error: Connection refused\nClosing\nDone\n');
      }
    } finally {
      for (const run of runs) run.kill();
    }
  });

  // Names under `.invalid` fail inside EventDnsBase (RFC 6761): no query leaves the machine.
  test('an unresolvable name under .invalid: "DNS error: ...", exit 1', { timeout: 20000 }, async () => {
    const run = runExample('http-client-raw.ts', ['no-such-host.invalid', '/']);
    try {
      const { code } = await run.waitExit(15000);
      assert.equal(code, 1, run.stderr());
      assert.equal(run.stdout(), 'DNS error: nodename nor servname provided, or not known\nClosing\nDone\n');
    } finally {
      run.kill();
    }
  });

  test('a malformed host name: "DNS error: ...", exit 1, no network query', { timeout: 20000 }, async () => {
    const run = runExample('http-client-raw.ts', ['bad..name', '/', '--port', '9']);
    try {
      const { code } = await run.waitExit(15000);
      assert.equal(code, 1, run.stderr());
      assert.equal(run.stdout(), 'DNS error: nodename nor servname provided, or not known\nClosing\nDone\n');
    } finally {
      run.kill();
    }
  });

  test('wrong arguments: the 3-line usage text, exit 2', { timeout: 20000 }, async () => {
    const runs = [
      runExample('http-client-raw.ts', []),
      runExample('http-client-raw.ts', ['example.org']),
      runExample('http-client-raw.ts', ['a', 'b', 'c']),
      runExample('http-client-raw.ts', ['--address', '127.0.0.1:80']),
    ];
    try {
      for (const run of runs) {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 2);
        assert.equal(run.stdout(), '');
        const lines = run.stderr().trimEnd().split('\n');
        assert.equal(lines.length, 3, run.stderr());
        assert.equal(lines[0], 'Trivial HTTP 0.x client');
        assert.match(lines[1] ?? '', /^Syntax: .*http-client-raw\.ts .*\[hostname\] \[resource\]/);
        assert.match(lines[2] ?? '', /^Example: .*http-client-raw\.ts www\.google\.com \/$/);
      }
    } finally {
      for (const run of runs) run.kill();
    }
  });

  test('an invalid --port or --address: message and usage, exit 2', { timeout: 20000 }, async () => {
    const runs = [
      runExample('http-client-raw.ts', ['localhost', '/', '--port', '70000']),
      runExample('http-client-raw.ts', ['--address', 'localhost:80', '/']),
    ];
    try {
      for (const run of runs) {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 2);
        assert.equal(run.stdout(), '');
      }
      assert.match(runs[0]!.stderr(), /^Invalid port\nTrivial HTTP 0\.x client\n/);
      assert.match(
        runs[1]!.stderr(),
        /^Invalid address: localhost:80 \(expected IP:PORT\)\nTrivial HTTP 0\.x client\n/,
      );
    } finally {
      for (const run of runs) run.kill();
    }
  });
});

import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { rawConnection, resolvesWithin } from '../support/net.js';
import { killAll, runExample, type ExampleRun, startServerExample } from '../support/spawn.js';

after(killAll);

/** Starts the HTTP server example on a free port of 127.0.0.1. */
function startServer(): Promise<{ run: ExampleRun; port: number }> {
  return startServerExample('http-server.ts', (port) => [String(port), '--host', '127.0.0.1']);
}

/** Runs curl with `args`; resolves with its stdout (`-i`: status line and headers included). */
function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '-i', '--max-time', '10', ...args], (err, stdout, stderr) => {
      if (err) reject(new Error(`curl ${args.join(' ')} failed: ${err.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Writes raw bytes and resolves with everything the server sends until it closes (at most 5 s). */
async function rawExchange(port: number, bytes: string): Promise<string> {
  const c = await rawConnection(port);
  c.sock.write(bytes);
  await resolvesWithin(once(c.sock, 'close'), 5000);
  c.sock.destroy();
  return c.text();
}

function status(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(response)?.[1]);
}

describe('examples/http-server.ts', { concurrency: true, timeout: 90000 }, () => {
  test('GET /about and another path: 200 OK, the handlers print the URI', { timeout: 30000 }, async () => {
    const { run, port } = await startServer();
    try {
      const about = await curl([`http://127.0.0.1:${port}/about`]);
      assert.equal(status(about), 200, about);
      assert.match(about, /\r\nContent-Length: 0\r\n/);
      const other = await curl([`http://127.0.0.1:${port}/some/where?x=1`]);
      assert.equal(status(other), 200, other);
      assert.equal(
        run.stdout(),
        '_http_about\nURI: /about\n\n >> Sending reply ...OK\n' +
          '_http_default\nURI: /some/where?x=1\n\n >> Sending reply ...OK\n',
      );
      assert.equal(run.child.exitCode, null, 'still running');
    } finally {
      run.kill();
    }
  });

  test('methods other than GET and POST: 405 with Allow: GET, POST; no handler runs', { timeout: 30000 }, async () => {
    const { run, port } = await startServer();
    try {
      const put = await curl(['-X', 'PUT', '-d', 'x', `http://127.0.0.1:${port}/about`]);
      assert.equal(status(put), 405, put);
      assert.match(put, /\r\nAllow: GET, POST\r\n/);
      const del = await curl(['-X', 'DELETE', `http://127.0.0.1:${port}/dump`]);
      assert.equal(status(del), 405, del);
      assert.equal(run.stdout(), '');
    } finally {
      run.kill();
    }
  });

  test(
    'client bytes in the dump are escaped: no ESC, NUL or raw high bytes reach the log',
    { timeout: 30000 },
    async () => {
      const { run, port } = await startServer();
      try {
        const body = 'ok line\n\x1b[31mred\x00\n';
        const reply = await rawExchange(
          port,
          `POST /dump HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Obs: caf\xe9\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\nConnection: close\r\n\r\n${body}`,
        );
        assert.match(reply, /^HTTP\/1\.1 200 OK\r\n/);
        const out = run.stdout();
        // eslint-disable-next-line no-control-regex -- the test looks for control bytes in the log
        assert.ok(!/[\x00-\x08\x0b-\x1f\x7f]/.test(out), `no control bytes in ${JSON.stringify(out)}`);
        assert.match(out, /\nX-Obs: caf\\xc3\\xa9\n/); // the client wrote é as UTF-8
        assert.match(out, /\nok line\n\\x1b\[31mred\\x00\n/);
      } finally {
        run.kill();
      }
    },
  );

  test(
    'hostile requests: Upgrade with a disallowed method and a body, chunked or sized, gets 405; the process stays up',
    { timeout: 30000 },
    async () => {
      const { run, port } = await startServer();
      try {
        const requests = [
          // finding 1: the upgrade path used to dispatch a null request and end the process
          'PROPFIND /page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n',
          'MOVE / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: 1\r\n\r\nx',
          'PUT /about HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n',
          // finding 2: Upgrade used to bypass setAllowedMethods
          'DELETE /about HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n',
        ];
        for (const raw of requests) {
          const reply = await rawExchange(port, raw);
          assert.match(reply, /^HTTP\/1\.1 405 Method Not Allowed\r\n/, raw);
          assert.match(reply, /\r\nAllow: GET, POST\r\n/);
          assert.match(reply, /\r\nConnection: close\r\n/);
        }
        assert.equal(run.stdout(), '', 'no handler ran');
        const about = await curl([`http://127.0.0.1:${port}/about`]);
        assert.equal(status(about), 200, 'the process still answers');
        assert.equal(run.child.exitCode, null, 'still running');
      } finally {
        run.kill();
      }
    },
  );

  test(
    'POST /dump prints the dump with the body lines; the 2nd /dump is answered, then the process exits 0',
    { timeout: 30000 },
    async () => {
      const { run, port } = await startServer();
      try {
        const first = await curl([
          '-H',
          'X-Test: yes',
          '--data-binary',
          'line1\nline2\r\nline3\n',
          `http://127.0.0.1:${port}/dump?a=1`,
        ]);
        assert.equal(status(first), 200, first);
        const out = run.stdout();
        assert.ok(
          out.startsWith(
            '_http_dump called\ndata: [4,8]\n\n===== DUMP =====\nCommand:2\nURI:/dump?a=1\nInput headers:\n',
          ),
          out,
        );
        assert.match(out, new RegExp(`\\nHost: 127\\.0\\.0\\.1:${port}\\n`));
        assert.match(out, /\nX-Test: yes\n/);
        assert.match(out, /\nContent-Length: 19\n/);
        assert.ok(
          out.endsWith(
            'Output headers:\n\n >> Sending reply ...OK\n\n >> Reading input buffer ...\nline1\nline2\nline3\nNo more data in the buffer\n',
          ),
          out,
        );
        assert.equal(run.child.exitCode, null, 'still running after the first /dump');

        const second = await curl([`http://127.0.0.1:${port}/dump`]);
        assert.equal(status(second), 200, 'the second /dump is answered before the exit');
        const { code } = await run.waitExit(10000);
        assert.equal(code, 0);
        const all = run.stdout();
        assert.ok(
          all.endsWith(
            'Command:1\nURI:/dump\nInput headers:\n' +
              `Host: 127.0.0.1:${port}\nUser-Agent: ${/User-Agent: (.*)\n/.exec(all)?.[1]}\nAccept: */*\n` +
              'Output headers:\n\n >> Sending reply ...OK\n\n >> Reading input buffer ...\nNo more data in the buffer\nCounter reached max requests 2. Exiting\n',
          ),
          all,
        );
      } finally {
        run.kill();
      }
    },
  );

  test(
    'body lines are read with EOL_ANY until none is left: an unterminated last line is not printed',
    { timeout: 30000 },
    async () => {
      const { run, port } = await startServer();
      try {
        const r = await curl(['--data-binary', 'line1\r\n\r\nline2', `http://127.0.0.1:${port}/dump`]);
        assert.equal(status(r), 200);
        assert.ok(
          run.stdout().endsWith(' >> Reading input buffer ...\nline1\nNo more data in the buffer\n'),
          run.stdout(),
        );
      } finally {
        run.kill();
      }
    },
  );

  test('an invalid port: "Invalid port", exit 1', { timeout: 30000 }, async () => {
    const runs = ['0', '65536', 'abc', '-5', '80.5'].map((p) => runExample('http-server.ts', [p]));
    try {
      for (const run of runs) {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 1);
        assert.equal(run.stderr(), 'Invalid port\n');
        assert.equal(run.stdout(), '');
      }
    } finally {
      for (const run of runs) run.kill();
    }
  });

  test('a port in use: the reason on stderr, exit 1', { timeout: 30000 }, async () => {
    const { run, port } = await startServer();
    const second = runExample('http-server.ts', [String(port), '--host', '127.0.0.1']);
    try {
      const { code } = await second.waitExit(15000);
      assert.equal(code, 1);
      assert.match(second.stderr(), new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port}: `));
    } finally {
      second.kill();
      run.kill();
    }
  });

  test('SIGTERM ends it with status 0', { timeout: 30000 }, async () => {
    const { run } = await startServer();
    try {
      run.kill('SIGTERM');
      const { code, signal } = await run.waitExit(10000);
      assert.equal(signal, null);
      assert.equal(code, 0);
    } finally {
      run.kill();
    }
  });
});

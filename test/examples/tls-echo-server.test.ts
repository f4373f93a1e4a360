import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { testCerts, type TestCerts } from '../support/certs.js';
import { waitFor } from '../support/net.js';
import { killAll, randomPayload, ROOT, runExample, type ExampleRun, startServerExample } from '../support/spawn.js';
import { requireCommand } from '../support/tools.js';

after(killAll);

const openssl = requireCommand('openssl', 'apt-get install openssl');

/** The environment of this process without the example's EVENTIDE_TLS_* variables, plus `extra`. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('EVENTIDE_TLS_')) delete env[k];
  return { ...env, ...extra };
}

/** Flags giving the example the test server certificate (signed by the test CA). */
function certArgs(c: TestCerts, withCa = true): string[] {
  return ['--cert', c.server, '--key', c.serverKey, ...(withCa ? ['--ca', c.ca] : [])];
}

/** Starts the example on a free port of 127.0.0.1 and waits for "Listening on". */
function startServer(
  args: (port: number) => string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ run: ExampleRun; port: number }> {
  return startServerExample('tls-echo-server.ts', args, { spawn: { env } });
}

/** A TLS client trusting the test CA (no client certificate unless given). */
async function tlsClient(port: number, c: TestCerts, clientCert?: { cert: string; key: string }): Promise<TLSSocket> {
  const sock = tlsConnect({
    host: '127.0.0.1',
    port,
    ca: readFileSync(c.ca),
    ...(clientCert ? { cert: readFileSync(clientCert.cert), key: readFileSync(clientCert.key) } : {}),
  });
  await once(sock, 'secureConnect');
  return sock;
}

/** Writes `data` and collects what comes back until `data.length` bytes arrived (rejects after `ms`). */
async function roundTrip(sock: TLSSocket, data: Buffer, ms = 15000): Promise<Buffer> {
  const got: Buffer[] = [];
  let n = 0;
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out with ${n} of ${data.length} bytes echoed`));
    }, ms);
    const onData = (d: Buffer): void => {
      got.push(d);
      n += d.length;
      if (n >= data.length) {
        cleanup();
        resolve(Buffer.concat(got));
      }
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error(`connection closed after ${n} of ${data.length} bytes echoed`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      sock.off('data', onData);
      sock.off('close', onEnd);
      sock.off('error', onEnd);
    };
    sock.on('data', onData);
    sock.once('close', onEnd);
    sock.once('error', onEnd);
    sock.write(data);
  });
}

/** Sum of the N of every "Received N bytes" line the server printed. */
function receivedTotal(stdout: string): number {
  let total = 0;
  for (const m of stdout.matchAll(/^Received (\d+) bytes\n----- data ----\n(\d+):\t/gm)) {
    assert.equal(m[1], m[2]);
    total += Number(m[1]);
  }
  return total;
}

describe('examples/tls-echo-server.ts', { concurrency: true, timeout: 120000 }, () => {
  test(
    'openssl s_client with a client certificate signed by the --ca: echo and the "Received" report',
    { timeout: 30000, skip: openssl.skip },
    async () => {
      const c = await testCerts();
      const { run, port } = await startServer((p) => [String(p), ...certArgs(c)]);
      const client = spawn(
        'openssl',
        [
          's_client',
          '-connect',
          `127.0.0.1:${port}`,
          '-CAfile',
          c.ca,
          '-cert',
          c.client,
          '-key',
          c.clientKey,
          '-quiet',
        ],
        {
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      try {
        let out = '';
        let err = '';
        client.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        client.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
        client.stdin.write('hello from s_client\n');
        await waitFor(() => out.includes('hello from s_client\n') || client.exitCode !== null, 20000).catch(() => {
          throw new Error(
            `no echo: s_client stdout=${JSON.stringify(out)} stderr=${JSON.stringify(err)} server=${run.stderr()}`,
          );
        });
        assert.equal(out, 'hello from s_client\n');
        assert.match(err, /verify return:1/); // s_client verified the server against the CA
        await waitFor(() => run.stdout().includes('hello from s_client'), 10000);
        assert.equal(run.stdout(), 'Received 20 bytes\n----- data ----\n20:\thello from s_client\n\n');
        assert.doesNotMatch(run.stderr(), /Bufferevent error/);
      } finally {
        client.kill('SIGKILL');
        run.kill();
      }
    },
  );

  test(
    'Node TLS client without a client certificate (cert and key from EVENTIDE_TLS_*): byte-exact echo, also 100 KiB',
    { timeout: 30000 },
    async () => {
      const c = await testCerts();
      const env = cleanEnv({ EVENTIDE_TLS_CERT: c.server, EVENTIDE_TLS_KEY: c.serverKey, EVENTIDE_TLS_CA: c.ca });
      const { run, port } = await startServer((p) => [String(p), '127.0.0.1'], env);
      let sock: TLSSocket | undefined;
      try {
        sock = await tlsClient(port, c);
        const hello = Buffer.from('hello tls\n');
        assert.deepEqual(await roundTrip(sock, hello), hello);
        const big = randomPayload(100 * 1024);
        const back = await roundTrip(sock, big);
        assert.equal(back.length, big.length);
        assert.ok(back.equals(big), 'echoed bytes differ');
        await waitFor(() => receivedTotal(run.stdout()) >= hello.length + big.length, 10000);
        assert.equal(receivedTotal(run.stdout()), hello.length + big.length);
        assert.ok(run.stdout().startsWith('Received 10 bytes\n----- data ----\n10:\thello tls\n\n'));
        sock.end();
        await once(sock, 'close');
        assert.doesNotMatch(run.stderr(), /Bufferevent error/);
        assert.equal(run.child.exitCode, null, 'the server keeps running');
      } finally {
        sock?.destroy();
        run.kill();
      }
    },
  );

  test('a plain-text client gets a "Bufferevent error" line and the server stays up', { timeout: 30000 }, async () => {
    const c = await testCerts();
    const { run, port } = await startServer((p) => [String(p), ...certArgs(c)]);
    try {
      const plain = netConnect({ host: '127.0.0.1', port });
      plain.on('error', () => {}); // a reset is fine
      await once(plain, 'connect');
      plain.write('GET / HTTP/1.0\r\n\r\n');
      await once(plain, 'close');
      await run.waitStderr(/Bufferevent error .*http request.*\.\n/, 10000);
      assert.equal(run.child.exitCode, null);
      // Still serving TLS clients.
      const sock = await tlsClient(port, c);
      try {
        assert.equal((await roundTrip(sock, Buffer.from('after\n'))).toString(), 'after\n');
      } finally {
        sock.destroy();
      }
    } finally {
      run.kill();
    }
  });

  test(
    'without --ca a client certificate from the private test CA is refused; clients without one still work',
    { timeout: 30000 },
    async () => {
      const c = await testCerts();
      const { run, port } = await startServer((p) => [String(p), ...certArgs(c, false)]);
      try {
        const refused = tlsConnect({
          host: '127.0.0.1',
          port,
          ca: readFileSync(c.ca),
          cert: readFileSync(c.client),
          key: readFileSync(c.clientKey),
        });
        refused.on('error', () => {});
        refused.on('secureConnect', () => refused.write('x'));
        const got: Buffer[] = [];
        refused.on('data', (d: Buffer) => got.push(d));
        await once(refused, 'close');
        assert.equal(Buffer.concat(got).length, 0, 'nothing echoed to a refused client');
        await run.waitStderr(/Bufferevent error .+\.\n/, 10000);
        assert.doesNotMatch(run.stdout(), /Received/);
        const ok = await tlsClient(port, c);
        try {
          assert.equal((await roundTrip(ok, Buffer.from('fine\n'))).toString(), 'fine\n');
        } finally {
          ok.destroy();
        }
      } finally {
        run.kill();
      }
    },
  );

  test('a missing certificate file: message naming the file, a hint, exit 1', { timeout: 20000 }, async () => {
    const c = await testCerts();
    const missing = join(c.dir, 'no-such-dir', 'missing-cert.pem');
    const run = runExample('tls-echo-server.ts', ['1', '--cert', missing, '--key', c.serverKey], {
      spawn: { env: cleanEnv() },
    });
    try {
      const { code } = await run.waitExit(15000);
      assert.equal(code, 1);
      assert.ok(run.stderr().includes(missing), run.stderr());
      assert.match(run.stderr(), /openssl req -x509/);
      assert.match(run.stderr(), /Failed creating SSL context\n$/);
      assert.doesNotMatch(run.stderr(), /Listening on/);
    } finally {
      run.kill();
    }
  });

  test(
    'without options or environment: cert.pem in the current directory, named in the error',
    { timeout: 20000 },
    async () => {
      const run = runExample('tls-echo-server.ts', [], { spawn: { env: cleanEnv() } });
      try {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 1);
        assert.ok(run.stderr().includes(join(ROOT, 'cert.pem')), run.stderr());
      } finally {
        run.kill();
      }
    },
  );

  test('a missing key file: message naming the key file, exit 1', { timeout: 20000 }, async () => {
    const c = await testCerts();
    const missing = join(c.dir, 'missing-key.pem');
    const run = runExample('tls-echo-server.ts', ['1', '--cert', c.server, '--key', missing], {
      spawn: { env: cleanEnv() },
    });
    try {
      const { code } = await run.waitExit(15000);
      assert.equal(code, 1);
      assert.ok(run.stderr().includes(missing), run.stderr());
    } finally {
      run.kill();
    }
  });

  for (const bad of ['0', '65536', 'abc', '-1', '']) {
    test(`invalid port ${JSON.stringify(bad)}: "Invalid port", exit 1`, { timeout: 20000 }, async () => {
      const c = await testCerts();
      const run = runExample('tls-echo-server.ts', [bad, ...certArgs(c)], { spawn: { env: cleanEnv() } });
      try {
        const { code } = await run.waitExit(15000);
        assert.equal(code, 1);
        assert.equal(run.stderr(), 'Invalid port\n');
        assert.equal(run.stdout(), '');
      } finally {
        run.kill();
      }
    });
  }
});

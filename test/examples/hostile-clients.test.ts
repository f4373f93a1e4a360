/**
 * The example servers against hostile clients: client bytes in the log are
 * escaped, stalled TLS handshakes and idle connections are timed out, output
 * for a client that never reads is bounded, and a log whose reader went
 * away does not end the server. Every server runs on 127.0.0.1 (or a UNIX
 * socket in a temporary directory); every flood is bounded in bytes and
 * every wait in time.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { testCerts, type TestCerts } from '../support/certs.js';
import { sleep, waitFor } from '../support/net.js';
import { exchange, killAll, runExample, startServerExample, tempDir, type ExampleRun } from '../support/spawn.js';
import { requireCommand } from '../support/tools.js';

after(killAll);

const python = requireCommand('python3', 'apt-get install python3', ['-c', 'import socket, select']);

const GREETING = '220 localhost eventide line server\r\n';
const EHLO_REPLY = '250-STARTTLS\r\n250 OK ehlo\r\n';
const MiB = 1024 * 1024;

/** The environment without the examples' EVENTIDE_* settings, plus `extra`. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('EVENTIDE_')) delete env[k];
  return { ...env, ...extra };
}

function startLineServer(c: TestCerts, extra: string[] = []): Promise<{ run: ExampleRun; port: number }> {
  return startServerExample(
    'line-server.ts',
    (p) => [String(p), '--host', '127.0.0.1', '--cert', c.server, '--key', c.serverKey, ...extra],
    {
      spawn: { env: cleanEnv() },
    },
  );
}

function startTlsEcho(c: TestCerts, extra: string[] = []): Promise<{ run: ExampleRun; port: number }> {
  return startServerExample(
    'tls-echo-server.ts',
    (p) => [String(p), '127.0.0.1', '--cert', c.server, '--key', c.serverKey, '--ca', c.ca, ...extra],
    {
      spawn: { env: cleanEnv() },
    },
  );
}

function startEcho(extra: string[] = [], env: Record<string, string> = {}): Promise<{ run: ExampleRun; port: number }> {
  return startServerExample('echo-server.ts', (p) => [String(p), '--host', '127.0.0.1', ...extra], {
    spawn: { env: cleanEnv(env) },
  });
}

/** Starts the UNIX echo server on `path` and waits for its banner. */
async function startUnixEcho(
  path: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<ExampleRun> {
  const run = runExample('unix-echo-server.ts', [path, ...extra], { spawn: { env: cleanEnv(env) } });
  await run.waitStderr(/Listening on unix:/);
  return run;
}

/** A client socket that records what it receives and when it was closed. */
class Peer {
  readonly chunks: Buffer[] = [];
  closed = false;
  error: string | null = null;
  readonly done: Promise<void>;

  constructor(readonly sock: Socket) {
    sock.on('data', (d: Buffer) => this.chunks.push(d));
    sock.on('error', (e: NodeJS.ErrnoException) => {
      this.error = e.code ?? e.message;
    });
    this.done = new Promise((resolve) =>
      sock.once('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  /** Everything received, one char per byte. */
  text(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  /** Waits until `text` was received (fails if the connection closes first or after `ms`). */
  async expect(text: string, ms = 10000): Promise<void> {
    await waitFor(() => this.text().includes(text) || this.closed, ms).catch(() => {});
    assert.ok(
      this.text().includes(text),
      `expected ${JSON.stringify(text)}, got ${JSON.stringify(this.text())} (closed: ${this.closed})`,
    );
  }

  /** Waits until the server closed the connection (EOF or reset), at most `ms`. */
  async closedWithin(ms: number): Promise<void> {
    await Promise.race([
      this.done,
      sleep(ms).then(() => {
        throw new Error(
          `the server did not close the connection within ${ms} ms (received ${JSON.stringify(this.text().slice(0, 200))})`,
        );
      }),
    ]);
  }
}

async function plainPeer(port: number): Promise<Peer> {
  const p = new Peer(netConnect({ host: '127.0.0.1', port }));
  await once(p.sock, 'connect');
  return p;
}

async function tlsPeer(port: number, c: TestCerts): Promise<Peer & { sock: TLSSocket }> {
  const sock = tlsConnect({ host: '127.0.0.1', port, ca: readFileSync(c.ca) });
  const p = new Peer(sock) as Peer & { sock: TLSSocket };
  await once(sock, 'secureConnect');
  return p;
}

/**
 * The first bytes of a TLS ClientHello record that announces 512 bytes and
 * never sends the rest: the server's TLS layer waits for more.
 */
function halfClientHello(): Buffer {
  return Buffer.concat([Buffer.from('1603010200' + '010001fc' + '0303', 'hex'), randomBytes(32)]);
}

/**
 * Writes 64 KiB units of `fill` until `total` bytes were queued or a write
 * stays blocked (no 'drain') for `stallMs`; the peer never reads. Returns
 * how many bytes the kernel accepted (queued minus what still waits in the
 * socket) and whether the writes stalled.
 */
async function floodUntilStall(
  sock: Socket,
  total: number,
  stallMs = 2000,
  fill = 0x61,
): Promise<{ accepted: number; stalled: boolean }> {
  const unit = Buffer.alloc(64 * 1024, fill);
  let queued = 0;
  while (queued < total) {
    if (!sock.writable) return { accepted: queued - sock.writableLength, stalled: false };
    const ok = sock.write(unit);
    queued += unit.length;
    if (ok) continue;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      once(sock, 'drain').then(() => 'drain'),
      once(sock, 'close').then(() => 'close'),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('stall'), stallMs);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === 'stall') return { accepted: queued - sock.writableLength, stalled: true };
    if (outcome === 'close') return { accepted: queued - sock.writableLength, stalled: false };
  }
  return { accepted: queued - sock.writableLength, stalled: false };
}

/** Lines of `text` matching `re`. */
function count(text: string, re: RegExp): number {
  return text.split('\n').filter((l) => re.test(l)).length;
}

describe('example servers against hostile clients', { concurrency: true, timeout: 180000 }, () => {
  test(
    'line-server: control bytes from a client are logged escaped (no ESC, NUL, BEL, DEL or high byte reaches stdout)',
    { timeout: 30000 },
    async () => {
      const c = await testCerts();
      const { run, port } = await startLineServer(c);
      const p = await plainPeer(port);
      try {
        await p.expect(GREETING);
        p.sock.write(Buffer.from('\x1b[31mEHLO\x00x\r\n', 'latin1'));
        p.sock.write(Buffer.from('\x07NOOP \x1b]0;pwned\x07 \x7f\xff\xc3\xa9 \\x41 tab\there\r\n', 'latin1'));
        p.sock.write('EHLO fine\r\n');
        await p.expect(EHLO_REPLY); // only the clean EHLO is answered
        await waitFor(() => count(run.stdout(), /^unknown command: /) === 2, 10000);
        const out = run.stdoutBytes();
        for (const b of [0x1b, 0x00, 0x07, 0x7f, 0x09, 0x0d])
          assert.equal(
            out.indexOf(b),
            -1,
            `byte 0x${b.toString(16)} in the log: ${JSON.stringify(out.toString('latin1'))}`,
          );
        assert.ok(
          out.every((b) => b < 0x80),
          'a byte >= 0x80 in the log',
        );
        const lines = run.stdout().split('\n');
        assert.ok(lines.includes('C(1): \\x1b[31mEHLO\\x00x'), run.stdout());
        assert.ok(lines.includes('unknown command: \\x1b[31mEHLO\\x00x'), run.stdout());
        assert.ok(
          lines.includes('unknown command: \\x07NOOP \\x1b]0;pwned\\x07 \\x7f\\xff\\xc3\\xa9 \\\\x41 tab\\x09here'),
          run.stdout(),
        );
        assert.ok(lines.includes('C(1): EHLO fine'), run.stdout());
      } finally {
        p.sock.destroy();
        run.kill();
      }
    },
  );

  test(
    'tls-echo-server: the data report escapes control bytes; the echo stays byte-exact',
    { timeout: 30000 },
    async () => {
      const c = await testCerts();
      const { run, port } = await startTlsEcho(c);
      const p = await tlsPeer(port, c);
      try {
        const data = Buffer.from('\x1b[2J\x00hi\r\n\xff\\', 'latin1');
        p.sock.write(data);
        await waitFor(() => Buffer.concat(p.chunks).length >= data.length, 10000);
        assert.ok(Buffer.concat(p.chunks).equals(data), 'echoed bytes differ');
        await waitFor(() => run.stdout().includes('Received 11 bytes'), 10000);
        const out = run.stdoutBytes();
        for (const b of [0x1b, 0x00, 0x0d]) assert.equal(out.indexOf(b), -1, `byte 0x${b.toString(16)} in the log`);
        assert.ok(
          out.every((b) => b < 0x80),
          'a byte >= 0x80 in the log',
        );
        assert.equal(run.stdout(), 'Received 11 bytes\n----- data ----\n11:\t\\x1b[2J\\x00hi\\x0d\n\\xff\\\\\n');
      } finally {
        p.sock.destroy();
        run.kill();
      }
    },
  );

  test(
    'tls-echo-server --handshake-timeout 1: 50 connections that never complete a handshake are closed; a TLS client is served meanwhile',
    { timeout: 60000 },
    async () => {
      const c = await testCerts();
      const { run, port } = await startTlsEcho(c, ['--handshake-timeout', '1']);
      const stalled: Peer[] = [];
      try {
        for (let i = 0; i < 50; i++) {
          const p = await plainPeer(port);
          if (i % 2 === 1) p.sock.write(halfClientHello()); // half of them send half a ClientHello
          stalled.push(p);
        }
        const ok = await tlsPeer(port, c);
        try {
          ok.sock.write('still served\n');
          await ok.expect('still served\n');
        } finally {
          ok.sock.destroy();
        }
        await Promise.all(stalled.map((p) => p.closedWithin(15000)));
        for (const p of stalled) assert.equal(p.text(), '', 'nothing but the end of the connection');
        await waitFor(
          () => count(run.stderr(), /^Handshake timeout \(1 s\): connection from 127\.0\.0\.1:\d+ closed$/) === 50,
          10000,
        ).catch(() => {
          throw new Error(`expected 50 handshake timeout lines: ${run.stderr()}`);
        });
        assert.equal(run.child.exitCode, null, 'the server keeps running');
      } finally {
        for (const p of stalled) p.sock.destroy();
        run.kill();
      }
    },
  );

  test(
    'line-server --handshake-timeout 1: 30 clients that send STARTTLS and stall are closed; a plain client is served meanwhile',
    { timeout: 60000 },
    async () => {
      const c = await testCerts();
      const { run, port } = await startLineServer(c, ['--handshake-timeout', '1']);
      const stalled: Peer[] = [];
      try {
        for (let i = 0; i < 30; i++) {
          const p = await plainPeer(port);
          await p.expect(GREETING);
          p.sock.write('STARTTLS\r\n');
          await p.expect('220 Ready to start TLS\r\n');
          if (i % 2 === 1) p.sock.write(halfClientHello());
          stalled.push(p);
        }
        const ok = await plainPeer(port);
        try {
          await ok.expect(GREETING);
          ok.sock.write('EHLO ok\r\n');
          await ok.expect(EHLO_REPLY);
        } finally {
          ok.sock.destroy();
        }
        await Promise.all(stalled.map((p) => p.closedWithin(15000)));
        await waitFor(
          () => count(run.stdout(), /^\*\(\d+\): closed \(TLS handshake timeout after 1 s\)$/) === 30,
          10000,
        ).catch(() => {
          throw new Error(`expected 30 handshake timeouts in the log: ${run.stdout().slice(-3000)}`);
        });
        assert.equal(run.child.exitCode, null, 'the server keeps running');
      } finally {
        for (const p of stalled) p.sock.destroy();
        run.kill();
      }
    },
  );

  test(
    '--idle-timeout 1: an idle connection is closed (line-server with 421, tls-echo-server, echo-server, unix-echo-server via EVENTIDE_IDLE_TIMEOUT)',
    { timeout: 60000 },
    async () => {
      const c = await testCerts();
      const tmp = tempDir('hostile-');
      const path = join(tmp.path, 'echo.sock');
      const [line, tlsEcho, echo, unixEcho] = await Promise.all([
        startLineServer(c, ['--idle-timeout', '1']),
        startTlsEcho(c, ['--idle-timeout', '1']),
        startEcho(['--idle-timeout', '1']),
        startUnixEcho(path, [], { EVENTIDE_IDLE_TIMEOUT: '1' }),
      ]);
      const peers: Peer[] = [];
      try {
        const lp = await plainPeer(line.port);
        peers.push(lp);
        await lp.expect(GREETING);
        await lp.closedWithin(15000);
        assert.equal(lp.text(), `${GREETING}421 Idle timeout\r\n`);
        await waitFor(() => line.run.stdout().includes('*(1): closed (idle timeout after 1 s)\n'), 10000);

        const tp = await tlsPeer(tlsEcho.port, c);
        peers.push(tp);
        tp.sock.write('x');
        await tp.expect('x');
        await tp.closedWithin(15000);
        await tlsEcho.run.waitStderr(/^Idle timeout \(1 s\): connection from 127\.0\.0\.1:\d+ closed$/m, 10000);

        const ep = await plainPeer(echo.port);
        peers.push(ep);
        ep.sock.write('y');
        await ep.expect('y');
        await ep.closedWithin(15000);
        await echo.run.waitStderr(/^Idle timeout \(1 s\): connection from 127\.0\.0\.1:\d+ closed$/m, 10000);

        const up = new Peer(netConnect({ path }));
        peers.push(up);
        await once(up.sock, 'connect');
        up.sock.write('z');
        await up.expect('z');
        await up.closedWithin(15000);
        await unixEcho.waitStderr(/^Idle timeout \(1 s\): connection closed$/m, 10000);

        for (const r of [line.run, tlsEcho.run, echo.run, unixEcho])
          assert.equal(r.child.exitCode, null, 'the server keeps running');
      } finally {
        for (const p of peers) p.sock.destroy();
        for (const r of [line.run, tlsEcho.run, echo.run, unixEcho]) r.kill();
        tmp.remove();
      }
    },
  );

  test('an invalid timeout value: a message and exit 1', { timeout: 20000 }, async () => {
    const run = runExample('echo-server.ts', ['--host', '127.0.0.1', '--idle-timeout', '5s'], {
      spawn: { env: cleanEnv() },
    });
    try {
      const { code } = await run.waitExit(15000);
      assert.equal(code, 1);
      assert.equal(run.stderr(), 'Invalid --idle-timeout: "5s" (seconds, 0..86400; 0 disables it)\n');
    } finally {
      run.kill();
    }
  });

  for (const kind of ['tcp', 'unix'] as const) {
    test(
      `${kind === 'tcp' ? 'echo-server' : 'unix-echo-server'}: a client that sends 64 MiB and never reads is no longer read from; another client is echoed meanwhile`,
      { timeout: 60000 },
      async () => {
        const tmp = tempDir('hostile-');
        const path = join(tmp.path, 'echo.sock');
        const server = kind === 'tcp' ? await startEcho() : { run: await startUnixEcho(path), port: 0 };
        const connectTo = (): Socket =>
          kind === 'tcp' ? netConnect({ host: '127.0.0.1', port: server.port }) : netConnect({ path });
        const flooder = connectTo();
        flooder.on('error', () => {});
        try {
          await once(flooder, 'connect');
          flooder.pause(); // never reads its echo
          const total = 64 * MiB;
          const { accepted, stalled } = await floodUntilStall(flooder, total);
          assert.ok(stalled, `the writes never blocked (${accepted} of ${total} bytes accepted)`);
          assert.ok(accepted < total / 2, `the server kept reading: ${accepted} of ${total} bytes accepted`);
          // Still stalled a moment later: the plateau is real.
          await sleep(500);
          assert.ok(flooder.writableLength > 0);
          const back = await exchange(kind === 'tcp' ? { port: server.port } : { path }, [Buffer.from('ping\n')], {
            timeoutMs: 10000,
          });
          assert.equal(back.toString(), 'ping\n');
          assert.equal(server.run.child.exitCode, null, 'the server keeps running');
        } finally {
          flooder.destroy();
          server.run.kill();
          tmp.remove();
        }
      },
    );
  }

  test(
    'line-server: floods are not buffered (64 MiB without a newline: 500 and EOF; EHLO lines whose replies are never read: reading stops)',
    { timeout: 90000 },
    async (t) => {
      const c = await testCerts();
      const { run, port } = await startLineServer(c);
      const p = await plainPeer(port);
      try {
        await p.expect(GREETING);
        const { accepted } = await floodUntilStall(p.sock, 64 * MiB, 2000, 0x41);
        await p.expect('500 Line too long\r\n');
        assert.ok(accepted < 32 * MiB, `the server kept reading a line without end: ${accepted} bytes accepted`);
        await waitFor(() => run.stdout().includes('*(1): closed (line too long)\n'), 10000);
        assert.ok(run.stdoutBytes().length < 64 * 1024, 'the log stays small');

        if (!python.checkPart(t, 'the EHLO flood part')) return;
        // A client with small socket buffers (set before connecting, so the kernel
        // cannot hide the backlog) sends up to 8 MiB of "EHLO\r\n" and never reads the
        // 4.5 times as many reply bytes. The server must stop reading it.
        const script = [
          'import socket, select, sys, time',
          'port, total = int(sys.argv[1]), int(sys.argv[2])',
          's = socket.socket()',
          's.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)',
          's.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)',
          "s.connect(('127.0.0.1', port))",
          's.setblocking(False)',
          "unit = b'EHLO\\r\\n' * 2730",
          'sent, stalled = 0, False',
          'while sent < total:',
          '    _, w, _ = select.select([], [s], [], 2.0)',
          '    if not w:',
          '        stalled = True',
          '        break',
          '    try:',
          '        sent += s.send(unit)',
          '    except BlockingIOError:',
          '        pass',
          "print(sent, 'stalled' if stalled else 'done', flush=True)",
          'time.sleep(60)',
        ].join('\n');
        const total = 8 * MiB;
        const py = spawn('python3', ['-c', script, String(port), String(total)], { stdio: ['ignore', 'pipe', 'pipe'] });
        try {
          let out = '';
          py.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
          await waitFor(() => out.includes('\n') || py.exitCode !== null, 60000);
          const [sentText, how] = out.trim().split(' ');
          const sent = Number(sentText);
          assert.equal(how, 'stalled', `the server read all ${sent} bytes of EHLO lines whose replies were never read`);
          assert.ok(sent < total / 2, `the server kept reading: ${sent} of ${total} bytes`);
          // Meanwhile another client is served.
          const q = await plainPeer(port);
          try {
            await q.expect(GREETING);
            q.sock.write('EHLO other\r\n');
            await q.expect(EHLO_REPLY);
          } finally {
            q.sock.destroy();
          }
          assert.equal(run.child.exitCode, null, 'the server keeps running');
        } finally {
          py.kill('SIGKILL');
        }
      } finally {
        p.sock.destroy();
        run.kill();
      }
    },
  );

  test(
    'line-server keeps serving when the reader of its log went away (the "exit 5 s after an unknown command": EPIPE on stdout)',
    { timeout: 30000 },
    async () => {
      const c = await testCerts();
      const { run, port } = await startLineServer(c);
      const p = await plainPeer(port);
      try {
        await p.expect(GREETING);
        p.sock.write('FOO bar\r\n'); // unknown: no reply, so a client would wait (5 s) and give up
        await run.waitStdout('unknown command: FOO bar\n');
        // As `| grep -m1 'unknown command'` or `| head` do: the reader of stdout is gone...
        run.child.stdout?.destroy();
        await sleep(200);
        // ...and the client gives up: the server's next log line ("closed") hits EPIPE.
        p.sock.end();
        await p.closedWithin(10000);
        await sleep(500);
        assert.equal(run.child.exitCode, null, `the server exited: ${run.stderr()}`);
        const q = await plainPeer(port);
        try {
          await q.expect(GREETING);
          q.sock.write('EHLO again\r\n');
          await q.expect(EHLO_REPLY);
        } finally {
          q.sock.destroy();
        }
        assert.doesNotMatch(run.stderr(), /EPIPE|Unhandled/);
      } finally {
        p.sock.destroy();
        run.kill();
      }
    },
  );
});

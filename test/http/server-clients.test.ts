/**
 * EventHttp against real clients: curl, Node's fetch, `openssl s_client`
 * (HTTPS) and a short bounded `wrk` smoke load. The server runs in this
 * process on 127.0.0.1 (port 0) while its base dispatches; the clients are
 * child processes (curl, openssl, wrk) or this process's own fetch.
 *
 * A client missing from the machine skips its tests with a message, or
 * fails them in CI (test/support/tools.ts); nothing is installed here
 * (`.ci/run` installs curl, openssl, wrk and iproute2's ss).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBase } from '../../src/event/base.js';
import { EventBuffer } from '../../src/event/buffer.js';
import { EventSslContext } from '../../src/event/ssl.js';
import { EventHttp } from '../../src/http/server.js';
import { EventHttpRequest } from '../../src/http/request.js';
import { testCerts } from '../support/certs.js';
import { sleep } from '../support/net.js';
import { requireCommand } from '../support/tools.js';

const OUT = EventHttpRequest.OUTPUT_HEADER;
const IN = EventHttpRequest.INPUT_HEADER;

const curl = requireCommand('curl', 'apt-get install curl');
const openssl = requireCommand('openssl', 'apt-get install openssl');
const wrk = requireCommand('wrk', 'apt-get install wrk');
const ss = requireCommand('ss', 'apt-get install iproute2');

interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a command (bounded by `timeoutMs`), collecting its output. */
function run(cmd: string, args: string[], timeoutMs = 20000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: 'buffer', timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code =
        err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null;
      resolve({ code, stdout, stderr: stderr.toString() });
    });
  });
}

function body(text: string | Buffer): EventBuffer {
  const b = new EventBuffer();
  b.add(text);
  return b;
}

/** The demo application the clients talk to. */
function app(http: EventHttp, seen: { connections: unknown[]; te: (string | null)[]; methods: string[] }): void {
  http.setCallback('/hello', (req) => {
    seen.connections.push(req.getConnection());
    seen.methods.push(req.getMethod());
    req.addHeader('Content-Type', 'text/plain', OUT);
    req.sendReply(200, 'OK', body('Hello, World!'));
  });
  http.setCallback('/other', (req) => {
    seen.connections.push(req.getConnection());
    req.addHeader('Content-Type', 'text/plain', OUT);
    req.sendReply(200, 'OK', body('other'));
  });
  http.setCallback('/echo', (req) => {
    seen.te.push(req.findHeader('Transfer-Encoding', IN));
    seen.methods.push(req.getMethod());
    const type = req.findHeader('Content-Type', IN);
    if (type !== null) req.addHeader('Content-Type', type, OUT);
    const b = new EventBuffer();
    b.addBuffer(req.getInputBuffer());
    req.sendReply(200, 'OK', b);
  });
  http.setCallback('/json', (req) => {
    const input = req.getInputBuffer();
    let reply: unknown;
    try {
      const doc = JSON.parse(input.read(input.length)?.toString('utf8') ?? '') as { a: number; b: number };
      reply = { sum: doc.a + doc.b, method: req.getMethod() };
    } catch {
      req.sendError(400);
      return;
    }
    req.addHeader('Content-Type', 'application/json', OUT);
    req.sendReply(200, 'OK', body(JSON.stringify(reply)));
  });
  http.setCallback('/slow', (req) => {
    const n = Number(new URL(req.getUri(), 'http://x').searchParams.get('n') ?? '0');
    setTimeout(() => req.sendReply(200, 'OK', body(`slow ${n}`)), 5 + ((n * 7) % 20));
  });
}

interface Ctx {
  base: EventBase;
  http: EventHttp;
  port: number;
  url: string;
  seen: { connections: unknown[]; te: (string | null)[]; methods: string[] };
}

/** Runs `fn` against a fresh dispatching server; frees it and checks the loop settles. */
async function withServer(fn: (ctx: Ctx) => Promise<void>, ctx: EventSslContext | null = null): Promise<void> {
  const base = new EventBase();
  const http = new EventHttp(base, ctx);
  assert.equal(http.bind('127.0.0.1', 0), true);
  const [port] = http.getBoundPorts() as [number];
  const seen = { connections: [] as unknown[], te: [] as (string | null)[], methods: [] as string[] };
  app(http, seen);
  const loop = base.dispatch();
  let outcome: { v: boolean } | { e: unknown } | null;
  try {
    await fn({ base, http, port, url: `${ctx === null ? 'http' : 'https'}://127.0.0.1:${port}`, seen });
  } finally {
    // Also when `fn` failed: its error is then what propagates.
    http.free();
    outcome = await Promise.race([
      loop.then(
        (v) => ({ v }),
        (e: unknown) => ({ e }),
      ),
      sleep(5000).then(() => null),
    ]);
  }
  assert.ok(outcome !== null, 'base.dispatch() settles after http.free()');
  assert.ok(!('e' in outcome), `the loop ended without an exception: ${'e' in outcome ? String(outcome.e) : ''}`);
}

function tempDir(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'eventide-http-clients-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every byte value, several times, in a scrambled order. */
function binaryPayload(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + (i >> 8)) & 0xff;
  return b;
}

// ------------------------------------------------------------------ curl

test('curl: GET', { skip: curl.skip }, async () => {
  await withServer(async ({ url }) => {
    const r = await run('curl', ['-sS', '-i', '--max-time', '10', `${url}/hello`]);
    assert.equal(r.code, 0, r.stderr);
    const text = r.stdout.toString('latin1');
    assert.match(
      text,
      /^HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\nDate: [^\r]+ GMT\r\nContent-Length: 13\r\n\r\nHello, World!$/,
    );
  });
});

test('curl: POST --data-binary echoes every byte', { skip: curl.skip }, async () => {
  const tmp = tempDir();
  try {
    const payload = binaryPayload(300_000);
    const file = join(tmp.dir, 'payload.bin');
    const out = join(tmp.dir, 'out.bin');
    writeFileSync(file, payload);
    await withServer(async ({ url, seen }) => {
      const r = await run('curl', [
        '-sS',
        '--max-time',
        '10',
        '-o',
        out,
        '-w',
        '%{http_code} %{size_download}',
        '-H',
        'Content-Type: application/octet-stream',
        '--data-binary',
        `@${file}`,
        `${url}/echo`,
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.toString(), `200 ${payload.length}`);
      assert.ok(readFileSync(out).equals(payload), 'the echoed body equals the upload');
      assert.deepEqual(seen.methods, ['POST']);
      assert.deepEqual(seen.te, [null]);
    });
  } finally {
    tmp.done();
  }
});

test('curl: --http1.0 gets an HTTP/1.0 reply and a closed connection', { skip: curl.skip }, async () => {
  await withServer(async ({ url }) => {
    const r = await run('curl', ['-sS', '-i', '--http1.0', '--max-time', '10', `${url}/hello`]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout.toString('latin1'),
      /^HTTP\/1\.0 200 OK\r\nContent-Type: text\/plain\r\nDate: [^\r]+\r\nContent-Length: 13\r\nConnection: close\r\n\r\nHello, World!$/,
    );
  });
});

test('curl: two URLs over one kept-alive connection', { skip: curl.skip }, async () => {
  await withServer(async ({ url, seen }) => {
    const r = await run('curl', [
      '-sS',
      '--max-time',
      '10',
      '-w',
      '[%{http_code} %{num_connects}]\\n',
      `${url}/hello`,
      `${url}/other`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout.toString(),
      'Hello, World![200 1]\nother[200 0]\n',
      'the second transfer made no new connection',
    );
    assert.equal(seen.connections.length, 2);
    assert.ok(
      seen.connections[0] !== null && seen.connections[0] === seen.connections[1],
      'both requests came over the same server connection',
    );
  });
});

test('curl: chunked upload (Transfer-Encoding: chunked, with Expect: 100-continue)', { skip: curl.skip }, async () => {
  const tmp = tempDir();
  try {
    const payload = binaryPayload(200_000);
    const file = join(tmp.dir, 'payload.bin');
    const out = join(tmp.dir, 'out.bin');
    writeFileSync(file, payload);
    await withServer(async ({ url, seen }) => {
      const r = await run('curl', [
        '-sS',
        '-v',
        '--max-time',
        '10',
        '-o',
        out,
        '-w',
        '%{http_code}',
        '-H',
        'Transfer-Encoding: chunked',
        '-H',
        'Expect: 100-continue',
        '--data-binary',
        `@${file}`,
        `${url}/echo`,
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.toString(), '200');
      assert.ok(readFileSync(out).equals(payload), 'the de-chunked body equals the upload');
      assert.deepEqual(seen.te, ['chunked']);
      assert.match(r.stderr, /< HTTP\/1\.1 100 Continue/, 'the server sent the interim 100');
    });
  } finally {
    tmp.done();
  }
});

// ------------------------------------------------------------------ fetch

test('fetch: GET, POST JSON, 10 concurrent requests', async () => {
  await withServer(async ({ url }) => {
    const res = await fetch(`${url}/hello`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain');
    assert.equal(res.headers.get('content-length'), '13');
    assert.equal(await res.text(), 'Hello, World!');

    const post = await fetch(`${url}/json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ a: 40, b: 2 }),
    });
    assert.equal(post.status, 200);
    assert.equal(post.headers.get('content-type'), 'application/json');
    assert.deepEqual(await post.json(), { sum: 42, method: 'POST' });

    const bad = await fetch(`${url}/json`, { method: 'POST', body: 'not json' });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /<H1>Bad Request<\/H1>/);

    const missing = await fetch(`${url}/missing?x=<y>&z="`); // fetch percent-encodes < > " in the URL
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /The requested URL \/missing\?x=%3Cy%3E&amp;z=%22 was not found/);

    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, n) => {
        const r = await fetch(`${url}/slow?n=${n}`);
        return `${r.status} ${await r.text()}`;
      }),
    );
    assert.deepEqual(
      results,
      Array.from({ length: 10 }, (_, n) => `200 slow ${n}`),
    );

    const put = await fetch(`${url}/echo`, { method: 'PUT', body: new Uint8Array(binaryPayload(70_000)) });
    assert.equal(put.status, 200);
    assert.ok(Buffer.from(await put.arrayBuffer()).equals(binaryPayload(70_000)));
  });
});

// ------------------------------------------------------------------ HTTPS with openssl s_client

test('HTTPS: openssl s_client against new EventHttp(base, serverCtx)', { skip: openssl.skip }, async () => {
  const certs = await testCerts();
  const ctx = new EventSslContext(EventSslContext.TLS_SERVER_METHOD, {
    [EventSslContext.OPT_LOCAL_CERT]: certs.server,
    [EventSslContext.OPT_LOCAL_PK]: certs.serverKey,
  });
  await withServer(async ({ port }) => {
    const child = spawn(
      'openssl',
      [
        's_client',
        '-connect',
        `127.0.0.1:${port}`,
        '-quiet',
        '-CAfile',
        certs.ca,
        '-verify_return_error',
        '-servername',
        'localhost',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15000);
    try {
      // Two requests over the TLS connection: a keep-alive one, then one that closes
      // (s_client -quiet ignores the end of its stdin and exits when the server closes).
      child.stdin.write('GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await sleep(300);
      child.stdin.write(
        'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 11\r\nConnection: close\r\n\r\nover TLS ok',
      );
      const [code] = (await once(child, 'close')) as [number | null];
      const text = Buffer.concat(out).toString('latin1');
      assert.equal(code, 0, `s_client exit status; stderr: ${err}`);
      assert.match(err, /verify return:1/, 'the certificate chain verified against ca.pem');
      assert.match(
        text,
        /^HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\nDate: [^\r]+\r\nContent-Length: 13\r\n\r\nHello, World!HTTP\/1\.1 200 OK\r\nDate: [^\r]+\r\nContent-Length: 11\r\nConnection: close\r\n\r\nover TLS ok$/,
      );
    } finally {
      clearTimeout(killer);
      child.kill();
    }
  }, ctx);
});

test('HTTPS: curl over TLS gets the reply; plain HTTP to the TLS port gets none', { skip: curl.skip }, async () => {
  const certs = await testCerts();
  const ctx = new EventSslContext(EventSslContext.TLS_SERVER_METHOD, {
    [EventSslContext.OPT_LOCAL_CERT]: certs.server,
    [EventSslContext.OPT_LOCAL_PK]: certs.serverKey,
  });
  await withServer(async ({ port }) => {
    const r = await run('curl', [
      '-sS',
      '--max-time',
      '10',
      '--cacert',
      certs.ca,
      `https://localhost:${port}/hello`,
      '--resolve',
      `localhost:${port}:127.0.0.1`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.toString(), 'Hello, World!');
    // plain HTTP to the TLS port: no HTTP answer
    const plain = await run('curl', ['-sS', '--max-time', '5', `http://127.0.0.1:${port}/hello`]);
    assert.notEqual(plain.code, 0);
    assert.equal(plain.stdout.toString(), '');
  }, ctx);
});

// ------------------------------------------------------------------ wrk smoke load

/** Established TCP connections whose local port is `port` (server side), via `ss`. */
function serverSideConnections(port: number): number | null {
  if (ss.missing !== null) return null; // in CI, ss's requirement fails the run
  const r = spawnSync('ss', ['-Htn', 'state', 'established', `( sport = :${port} )`], {
    encoding: 'utf8',
    timeout: 5000,
  });
  if (r.status !== 0) return null;
  return r.stdout.split('\n').filter((l) => l.trim() !== '').length;
}

test(
  'wrk: a short smoke load (-t1 -c8 -d1s), then the server still answers and no connection is left',
  { skip: wrk.skip },
  async () => {
    await withServer(async ({ url, port }) => {
      const r = await run('wrk', ['-t1', '-c8', '-d1s', '--timeout', '2s', `${url}/hello`], 30000);
      assert.equal(r.code, 0, r.stderr);
      const text = r.stdout.toString();
      const m = /(\d+) requests in ([\d.]+)s/.exec(text);
      assert.ok(m !== null, text);
      assert.ok(Number(m[1]) > 100, `wrk completed requests: ${text}`);
      assert.doesNotMatch(text, /Non-2xx or 3xx responses/, text);
      assert.doesNotMatch(text, /Socket errors:.*(read|write|timeout) [1-9]/, text);

      // the server still answers correctly
      const res = await fetch(`${url}/hello`, { headers: { Connection: 'close' } });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'Hello, World!');
      // a raw exchange too
      const s = connect(port, '127.0.0.1');
      await once(s, 'connect');
      s.end('GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      const chunks: Buffer[] = [];
      s.on('data', (d: Buffer) => chunks.push(d));
      await once(s, 'close');
      assert.match(Buffer.concat(chunks).toString('latin1'), /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nHello, World!$/);

      // wrk's connections are gone on the server side too
      if (serverSideConnections(port) !== null) {
        const until = Date.now() + 5000;
        let n = serverSideConnections(port) as number;
        while (n > 0 && Date.now() < until) {
          await sleep(50);
          n = serverSideConnections(port) as number;
        }
        assert.equal(n, 0, 'no established server-side connection is left after the load');
      }
    });
  },
);

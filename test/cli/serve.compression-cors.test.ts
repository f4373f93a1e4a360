/**
 * `eventide serve --compression` and `--cors-origins` (and their variables
 * `EVENTIDE_COMPRESSION`, `EVENTIDE_COMPRESSION_THRESHOLD`,
 * `EVENTIDE_CORS_ORIGINS`): parsed and checked like the other options, and
 * end to end over real sockets: a `fetch` with `Accept-Encoding: br` gets a
 * brotli reply that decodes to the plain one, a CORS preflight from an
 * allowed origin gets the CORS headers and one from another origin none;
 * through the primary of `--workers` too.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { killAll, type ExampleRun } from '../support/spawn.js';
import { parseServeArgs, SERVE_DEFAULTS, SERVE_USAGE, UsageError } from '../../src/cli/serve.js';
import { announced, serveWithEnv } from './serve-support.js';

after(killAll);
const dir = mkdtempSync(join(tmpdir(), 'eventide-serve-cc-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received (not decoded). */
  raw: Buffer;
}

/** One request on a new connection, the body left as it came (node:http does not decode it). */
function ask(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(5000, () => req.destroy(new Error(`no answer within 5 s for ${method} ${path}`)));
    req.on('error', reject);
    req.end();
  });
}

/** The field names of a `Vary` header, lower case. */
function vary(a: Answer): string[] {
  return String(a.headers['vary'] ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** Stops a server with SIGTERM and checks it exits 0. */
async function stop(run: ExampleRun): Promise<void> {
  run.kill('SIGTERM');
  const ex = await run.waitExit(20_000);
  assert.equal(ex.code, 0, run.stderr());
}

test('options: --compression, --compression-threshold, --cors-origins and their variables, checked', () => {
  const d = parseServeArgs([]);
  assert.deepEqual([d.compression, d.compressionThreshold, d.corsOrigins], [null, 1024, null]);
  assert.equal(SERVE_DEFAULTS.compressionThreshold, 1024);
  assert.deepEqual(parseServeArgs(['--compression', 'on']).compression, ['br', 'gzip']);
  assert.deepEqual(parseServeArgs(['--compression=GZIP, br']).compression, ['gzip', 'br']);
  assert.deepEqual(parseServeArgs(['--compression', 'gzip']).compression, ['gzip']);
  assert.equal(parseServeArgs(['--compression', 'off']).compression, null);
  assert.equal(parseServeArgs(['--compression', 'on', '--compression-threshold', '0']).compressionThreshold, 0);
  assert.deepEqual(parseServeArgs(['--cors-origins', 'https://app.example.com, http://localhost:3000']).corsOrigins, [
    'https://app.example.com',
    'http://localhost:3000',
  ]);
  assert.equal(parseServeArgs(['--cors-origins', '*']).corsOrigins, '*');

  const env = {
    EVENTIDE_COMPRESSION: 'br',
    EVENTIDE_COMPRESSION_THRESHOLD: '256',
    EVENTIDE_CORS_ORIGINS: 'https://a.example',
  };
  const e = parseServeArgs([], {}, env);
  assert.deepEqual([e.compression, e.compressionThreshold, e.corsOrigins], [['br'], 256, ['https://a.example']]);
  const c = parseServeArgs(['--compression', 'gzip', '--cors-origins', '*'], {}, env);
  assert.deepEqual(
    [c.compression, c.compressionThreshold, c.corsOrigins],
    [['gzip'], 256, '*'],
    'the command line wins',
  );
  assert.equal(parseServeArgs([], {}, { EVENTIDE_COMPRESSION: '' }).compression, null, 'an empty variable is unset');

  for (const [args, vars, message] of [
    [['--compression', 'zstd'], {}, /^--compression must be off, on, or codings among br, gzip/],
    [['--compression', 'br,br'], {}, /^--compression must be off, on/],
    [['--compression='], {}, /^--compression must be off, on/],
    [[], { EVENTIDE_COMPRESSION: 'deflate' }, /^EVENTIDE_COMPRESSION must be off, on/],
    [['--compression-threshold', '512'], {}, /^--compression-threshold needs --compression/],
    [
      ['--compression', 'off'],
      { EVENTIDE_COMPRESSION_THRESHOLD: '512' },
      /^EVENTIDE_COMPRESSION_THRESHOLD needs --compression/,
    ],
    [['--compression', 'on', '--compression-threshold', '-1'], {}, /^--compression-threshold needs an integer/],
    [['--cors-origins', ' , '], {}, /^--cors-origins needs \* or origins/],
    [['--cors-origins', '*,https://a.example'], {}, /^--cors-origins: \* allows every origin and stands alone/],
    [['--cors-origins', 'https://a.example/'], {}, /^--cors-origins: "https:\/\/a\.example\/" is not an origin/],
    [['--cors-origins', 'a.example'], {}, /^--cors-origins: "a\.example" is not an origin/],
    [[], { EVENTIDE_CORS_ORIGINS: 'https://a.example/path' }, /^EVENTIDE_CORS_ORIGINS: "https:\/\/a\.example\/path"/],
  ] as const) {
    assert.throws(
      () => parseServeArgs(args, {}, vars),
      (err: unknown) => err instanceof UsageError && message.test(err.message),
      `${args.join(' ')} ${JSON.stringify(vars)}`,
    );
  }
  for (const flag of ['--compression', '--compression-threshold', '--cors-origins'])
    assert.ok(SERVE_USAGE.includes(`  ${flag} `), flag);
  for (const variable of ['EVENTIDE_COMPRESSION]', 'EVENTIDE_COMPRESSION_THRESHOLD]', 'EVENTIDE_CORS_ORIGINS]'])
    assert.ok(SERVE_USAGE.includes(`[${variable}`), variable);
});

test('a bad --compression or EVENTIDE_CORS_ORIGINS exits with status 2, naming the option or the variable', async () => {
  const bad = serveWithEnv(['--port', '0', '--compression', 'zstd']);
  assert.equal((await bad.waitExit(20_000)).code, 2);
  assert.match(bad.stderr(), /^eventide serve: --compression must be off, on, or codings/);
  assert.match(bad.stderr(), /Usage: eventide serve/);
  const badEnv = serveWithEnv(['--port', '0'], { EVENTIDE_CORS_ORIGINS: 'https://app.example/' });
  assert.equal((await badEnv.waitExit(20_000)).code, 2);
  assert.match(badEnv.stderr(), /^eventide serve: EVENTIDE_CORS_ORIGINS: "https:\/\/app\.example\/" is not an origin/);
  assert.equal(badEnv.stdout(), '');
});

test('--workers 1 --compression on --cors-origins: brotli for Accept-Encoding: br, CORS headers for the allowed origin only', async () => {
  const run = serveWithEnv([
    '--workers',
    '1',
    '--database',
    join(dir, 'workers.sqlite3'),
    '--rows',
    '200',
    '--compression',
    'on',
    '--cors-origins',
    'https://app.example,http://localhost:5173',
  ]);
  try {
    const { port, origin } = await announced(run);
    // fetch decodes what it asked for; the header says what came.
    const res = await fetch(`${origin}/page/items/?page_size=50`, { headers: { 'Accept-Encoding': 'br' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-encoding'), 'br');
    const decoded = (await res.json()) as { results: unknown[] };
    assert.equal(decoded.results.length, 50);

    const plain = await ask(port, 'GET', '/page/items/?page_size=50', { 'Accept-Encoding': 'identity' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(vary(plain).includes('accept-encoding'), String(plain.headers['vary']));
    const br = await ask(port, 'GET', '/page/items/?page_size=50', { 'Accept-Encoding': 'br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.ok(br.raw.length < plain.raw.length / 2, `${br.raw.length} of ${plain.raw.length} bytes`);
    assert.equal(Number(br.headers['content-length']), br.raw.length);
    assert.deepEqual(JSON.parse(brotliDecompressSync(br.raw).toString('utf8')), JSON.parse(plain.raw.toString('utf8')));
    assert.deepEqual(JSON.parse(plain.raw.toString('utf8')), decoded);

    // A preflight from an allowed origin: 204 with the CORS headers.
    const preflight = await ask(port, 'OPTIONS', '/page/items/', {
      Origin: 'http://localhost:5173',
      'Access-Control-Request-Method': 'GET',
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.match(String(preflight.headers['access-control-allow-methods']), /\bGET\b/);
    assert.ok(vary(preflight).includes('origin'));
    // From another origin: the same 204 without any CORS header (the browser refuses).
    const refused = await ask(port, 'OPTIONS', '/page/items/', {
      Origin: 'https://evil.example',
      'Access-Control-Request-Method': 'GET',
    });
    assert.equal(refused.status, 204);
    assert.deepEqual(
      Object.keys(refused.headers).filter((h) => h.startsWith('access-control-')),
      [],
    );
    // An actual request from the allowed origin carries the origin back.
    const actual = await ask(port, 'GET', '/page/items/', { Origin: 'https://app.example' });
    assert.equal(actual.status, 200);
    assert.equal(actual.headers['access-control-allow-origin'], 'https://app.example');
    const other = await ask(port, 'GET', '/page/items/', { Origin: 'https://evil.example' });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  } finally {
    await stop(run);
  }
});

test('from the environment: EVENTIDE_COMPRESSION=gzip with a threshold, EVENTIDE_CORS_ORIGINS=*', async () => {
  const run = serveWithEnv(['--database', join(dir, 'env.sqlite3'), '--rows', '50'], {
    EVENTIDE_COMPRESSION: 'gzip',
    EVENTIDE_COMPRESSION_THRESHOLD: '2000',
    EVENTIDE_CORS_ORIGINS: '*',
  });
  try {
    const { port } = await announced(run);
    // brotli is not offered: gzip, though the client prefers br.
    const big = await ask(port, 'GET', '/page/items/?page_size=50', { 'Accept-Encoding': 'br, gzip;q=0.5' });
    assert.equal(big.headers['content-encoding'], 'gzip');
    const plain = await ask(port, 'GET', '/page/items/?page_size=50');
    assert.ok(plain.raw.length >= 2000, `${plain.raw.length} bytes`);
    assert.deepEqual(JSON.parse(gunzipSync(big.raw).toString('utf8')), JSON.parse(plain.raw.toString('utf8')));
    // Under the threshold: as it is, with Vary.
    const small = await ask(port, 'GET', '/page/items/?page_size=1', { 'Accept-Encoding': 'gzip' });
    assert.ok(small.raw.length < 2000, `${small.raw.length} bytes`);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.ok(vary(small).includes('accept-encoding'));
    // Every origin: Access-Control-Allow-Origin: *, no Vary: Origin.
    const preflight = await ask(port, 'OPTIONS', '/page/items/', {
      Origin: 'https://anyone.example',
      'Access-Control-Request-Method': 'GET',
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.ok(!vary(preflight).includes('origin'));
  } finally {
    await stop(run);
  }
});

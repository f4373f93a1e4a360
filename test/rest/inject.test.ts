/**
 * `RestApi.inject()`: a request run in process answers what the same request
 * answers over a socket. Each request goes to the demo API (and to a small
 * API with a body echo, a failing view and cookies) three ways: inject(),
 * EventHttp on 127.0.0.1:0 and node:http on 127.0.0.1:0, the wire requests
 * written byte for byte with the header fields inject() built; status,
 * reason phrase, header fields (Date and a generated request id aside) and
 * body bytes must be equal. Then what only inject() has: its defaults, its
 * typed errors, json() and a view's exception resolving as a 500.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { RestApi } from '../../src/rest/api.js';
import { APIView } from '../../src/rest/views.js';
import { Response } from '../../src/rest/response.js';
import { path } from '../../src/rest/urls/patterns.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { InjectError, REST_ERROR_CODES } from '../../src/rest/errors.js';
import { injectRawRequest, type InjectOptions, type InjectResponse } from '../../src/rest/inject.js';
import type { Request } from '../../src/rest/request.js';
import type { HttpLogger } from '../../src/http/log.js';
import { statusText } from '../../src/http/status.js';
import { buildDemoApi } from '../../src/cli/demo.js';
import { demoItem } from '../../src/cli/demo-data.js';
import { serveApi, TRANSPORTS, type Served, type Transport } from '../support/rest.js';

/** A response read off the wire. */
interface WireResponse {
  status: number;
  reason: string;
  headers: [string, string][];
  body: Buffer;
}

/** Sends `options` over a socket as inject() would hand them to the API (same fields, same order) and reads the answer. */
function overTheWire(port: number, options: InjectOptions): Promise<WireResponse> {
  const raw = injectRawRequest(options);
  const target = options.url.startsWith('/') ? raw.target : options.url;
  let head = `${raw.method} ${target} HTTP/1.1\r\n`;
  for (const [k, v] of raw.headers) head += `${k}: ${v}\r\n`;
  head += 'Connection: close\r\n\r\n';
  const bytes = Buffer.concat([Buffer.from(head, 'latin1'), raw.body ?? Buffer.alloc(0)]);
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    sock.setTimeout(30_000, () => sock.destroy(new Error('no answer within 30 s')));
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('error', reject);
    sock.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no complete head: ${JSON.stringify(all.toString('latin1'))}`));
      const lines = all.subarray(0, end).toString('latin1').split('\r\n');
      const m = /^HTTP\/1\.1 (\d{3}) (.*)$/.exec(lines[0] as string);
      if (m === null) return reject(new Error(`bad status line ${lines[0]}`));
      const headers = lines.slice(1).map((l): [string, string] => {
        const colon = l.indexOf(':');
        return [l.slice(0, colon), l.slice(colon + 1).trim()];
      });
      let body = all.subarray(end + 4);
      const length = headers.find(([k]) => k.toLowerCase() === 'content-length');
      if (raw.method === 'HEAD') body = Buffer.alloc(0);
      else if (length !== undefined) body = body.subarray(0, Number(length[1]));
      resolve({ status: Number(m[1]), reason: m[2] as string, headers, body });
    });
    sock.end(bytes);
  });
}

/** Fields a transport adds of its own (or that differ per request), left out of the comparison. */
const OWN = new Set(['date', 'connection', 'keep-alive']);

function comparable(pairs: readonly (readonly [string, string])[], ignore: readonly string[] = []): string[] {
  return pairs
    .filter(([k]) => !OWN.has(k.toLowerCase()) && !ignore.includes(k.toLowerCase()))
    .map(([k, v]) => `${k.toLowerCase()}: ${v}`)
    .sort();
}

/** inject() and the wire agree on status, reason, fields and body bytes. */
async function assertSame(
  api: RestApi,
  served: Served & { transport: Transport },
  options: InjectOptions,
  ignore: readonly string[] = [],
): Promise<InjectResponse> {
  const res = await api.inject(options);
  const wire = await overTheWire(served.port, options);
  const what = `${options.method ?? 'GET'} ${options.url}`;
  assert.equal(res.status, wire.status, `${what}: status`);
  // The reason phrase is EventHttp's; node:http has its own for a few codes (413 'Payload Too Large').
  if (served.transport === 'eventhttp') assert.equal(res.statusText, wire.reason, `${what}: reason phrase`);
  else assert.equal(res.statusText, statusText(wire.status));
  assert.deepEqual(comparable(res.rawHeaders, ignore), comparable(wire.headers, ignore), `${what}: header fields`);
  assert.ok(Buffer.from(res.rawBody).equals(wire.body), `${what}: body bytes`);
  assert.match(res.headers['date'] ?? '', /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  return res;
}

const quiet = (): HttpLogger & { errors: unknown[] } => {
  const errors: unknown[] = [];
  return { errors, error: (obj) => void errors.push(obj['err']), warn: () => undefined };
};

function demo(): RestApi {
  const rows = new ArrayQueryset(Array.from({ length: 250 }, (_, i) => demoItem(i + 1)));
  return buildDemoApi(rows, {
    allowedHosts: ['localhost', '127.0.0.1', '.example.com'],
    requestIdHeader: 'X-Request-Id',
    compression: { threshold: 256 },
    cors: { allowedOrigins: ['https://app.example.com'] },
    logger: quiet(),
  });
}

/** Requests of the demo, each over inject() and over both transports. */
const DEMO_REQUESTS: { options: InjectOptions; status: number }[] = [
  { options: { url: '/' }, status: 200 },
  { options: { url: '/page/items/?page=2', headers: { host: 'localhost:8000' } }, status: 200 },
  { options: { url: '/page/items/?page=last', headers: { host: 'api.example.com' } }, status: 200 },
  { options: { url: '/page/items/?page=999' }, status: 404 },
  { options: { url: '/limit/items/?limit=3&offset=6' }, status: 200 },
  { options: { url: '/cursor/items/?page_size=4' }, status: 200 },
  { options: { url: '/cursor/items/?cursor=bm9wZQ' }, status: 404 },
  { options: { url: '/link/items/?page=2' }, status: 200 },
  { options: { url: '/versioned/v1/items/' }, status: 200 },
  { options: { url: '/versioned/v2/items/7/' }, status: 200 },
  { options: { url: '/versioned/v9/items/' }, status: 404 },
  { options: { url: '/versioned/v2/items/100000/' }, status: 404 },
  { options: { url: '/header/version/', headers: { 'x-api-version': 'v2' } }, status: 200 },
  { options: { url: '/accept/version/', headers: { accept: 'application/json; version=v2' } }, status: 200 },
  { options: { url: '/accept/version/', headers: { accept: 'application/json; version=v7' } }, status: 406 },
  { options: { url: 'http://v2.example.com/host/version/' }, status: 200 },
  { options: { url: '/query/version/?version=v2' }, status: 200 },
  { options: { url: '/page/items/', headers: { accept: 'text/csv' } }, status: 406 },
  { options: { url: '/page/items/', headers: { accept: 'text/html' } }, status: 200 },
  { options: { method: 'POST', url: '/page/items/', body: { name: 'x' } }, status: 405 },
  { options: { method: 'DELETE', url: '/versioned/v1/items/3/' }, status: 405 },
  { options: { method: 'HEAD', url: '/page/items/?page=3' }, status: 200 },
  { options: { method: 'OPTIONS', url: '/page/items/' }, status: 200 },
  { options: { url: '/nowhere/' }, status: 404 },
  { options: { url: '/page/items' }, status: 301 },
  { options: { url: '/page/items/', headers: { host: 'evil.test' } }, status: 400 },
  { options: { url: '/page/items/?page_size=100', headers: { 'accept-encoding': 'gzip' } }, status: 200 },
  { options: { url: '/page/items/?page_size=100', headers: { 'accept-encoding': 'br' } }, status: 200 },
  { options: { url: '/page/items/', headers: { origin: 'https://app.example.com' } }, status: 200 },
  {
    options: {
      method: 'OPTIONS',
      url: '/page/items/',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    },
    status: 204,
  },
  { options: { url: '/openapi/v1.json' }, status: 200 },
  { options: { url: '/page/items/', headers: { 'x-request-id': 'trace-42' } }, status: 200 },
];

for (const transport of TRANSPORTS) {
  describe(`inject() answers as ${transport} does`, () => {
    const api = demo();
    let served: Served & { transport: Transport };
    before(async () => {
      served = { ...(await serveApi(api, transport)), transport };
    });
    after(async () => {
      await served.close();
    });

    for (const { options, status } of DEMO_REQUESTS) {
      test(`demo: ${options.method ?? 'GET'} ${options.url} ${JSON.stringify(options.headers ?? {})}`, async () => {
        const given = options.headers?.['x-request-id'] !== undefined;
        const res = await assertSame(api, served, options, given ? [] : ['x-request-id']);
        assert.equal(res.status, status);
        if (!given) assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
      });
    }

    smallApiTests(transport);
  });
}

test('pagination links are absolute URLs built from the Host (or the absolute url), versioning by path and header', async () => {
  const api = demo();
  const page = await api.inject({ url: '/page/items/?page=2', headers: { host: 'localhost:8000' } });
  const body = page.json<{ count: number; next: string | null; previous: string | null; results: { id: number }[] }>();
  assert.equal(body.next, 'http://localhost:8000/page/items/?page=3');
  assert.equal(body.previous, 'http://localhost:8000/page/items/');
  assert.deepEqual(
    body.results.map((r) => r.id),
    Array.from({ length: 10 }, (_, i) => i + 11),
  );
  const tls = await api.inject('https://api.example.com/page/items/?page=2');
  assert.equal(tls.json<{ next: string }>().next, 'https://api.example.com/page/items/?page=3');
  const byDefault = await api.inject('/page/items/');
  assert.equal(byDefault.json<{ next: string }>().next, 'http://localhost/page/items/?page=2');

  const v2 = await api.inject('/versioned/v2/items/7/');
  const v1 = await api.inject('/versioned/v1/items/7/');
  assert.notDeepEqual(Object.keys(v2.json<object>()).sort(), Object.keys(v1.json<object>()).sort());
  const header = await api.inject({ url: '/header/version/', headers: { 'X-API-Version': 'v2' } });
  assert.equal(header.json<{ version: string }>().version, 'v2');
  assert.match(header.headers['vary'] ?? '', /X-API-Version/i);
  const accept = await api.inject({ url: '/accept/version/', headers: { accept: 'application/json; version=v2' } });
  assert.equal(accept.headers['content-type'], 'application/json; version=v2');
});

test('HEAD: the headers of the GET, its Content-Length, no body', async () => {
  const api = demo();
  const get = await api.inject('/page/items/?page=3');
  const head = await api.inject({ method: 'head', url: '/page/items/?page=3' });
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  assert.equal(head.rawBody.length, 0);
  assert.equal(head.headers['content-length'], String(get.rawBody.length));
  assert.equal(head.headers['content-type'], get.headers['content-type']);
  assert.ok(get.rawBody.length > 0);
});

test('errors as the API renders them: 404, 405 with Allow, 406, 400 for a disallowed host', async () => {
  const api = demo();
  const r404 = await api.inject('/nowhere/');
  assert.deepEqual([r404.status, r404.statusText, r404.json()], [404, 'Not Found', { detail: 'Not found.' }]);
  const r405 = await api.inject({ method: 'PUT', url: '/page/items/', body: {} });
  assert.equal(r405.status, 405);
  assert.equal(r405.statusText, 'Method Not Allowed');
  assert.deepEqual(r405.json(), { detail: 'Method "PUT" not allowed.' });
  assert.match(r405.headers['allow'] ?? '', /GET/);
  const r406 = await api.inject({ url: '/page/items/', headers: { accept: 'application/xml' } });
  assert.equal(r406.status, 406);
  const r400 = await api.inject({ url: '/page/items/', headers: { host: 'evil.test:80' } });
  assert.equal(r400.status, 400);
  assert.deepEqual(r400.json(), { detail: "Invalid HTTP_HOST header: 'evil.test:80'." });
  const absolute = await api.inject('http://evil.test/page/items/');
  assert.equal(absolute.status, 400, 'the authority of an absolute url is the host checked');
});

test('the default Host passes the ALLOWED_HOSTS of the loopback names', async () => {
  class Hello extends APIView {
    override get(request: Request): Response {
      return new Response({ host: request.getHost(), secure: request.isSecure(), peer: request.raw.remoteAddress });
    }
  }
  const api = new RestApi({
    urlpatterns: [path('hello/', Hello.asView())],
    settings: { ALLOWED_HOSTS: ['localhost', '127.0.0.1', '[::1]'] },
    logger: quiet(),
  });
  const res = await api.inject('/hello/');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { host: 'localhost', secure: false, peer: '127.0.0.1' });
  const tls = await api.inject({ url: '/hello/', secure: true, remoteAddress: '10.0.0.7' });
  assert.deepEqual(tls.json(), { host: 'localhost', secure: true, peer: '10.0.0.7' });
  const absolute = await api.inject('https://127.0.0.1:8443/hello/');
  assert.deepEqual(absolute.json(), { host: '127.0.0.1:8443', secure: true, peer: '127.0.0.1' });
});

/** A small API: a body echo, a failing view, cookies, a header no codec sends, a small body limit. */
function small(log: HttpLogger): RestApi {
  class Echo extends APIView {
    override post(request: Request): Response {
      return new Response({ contentType: request.contentType, data: request.data }, { status: 201 });
    }
  }
  class Boom extends APIView {
    override get(): Response {
      throw new TypeError('the view broke');
    }
  }
  /** Repeated fields, which a Response's own headers cannot hold. */
  class CookieResponse extends Response {
    override headerEntries(): [string, string][] {
      return [
        ...super.headerEntries(),
        ['Set-Cookie', 'a=1; Path=/'],
        ['Set-Cookie', 'b=2, 3; Path=/'],
        ['X-Multi', 'one'],
        ['X-Multi', 'two'],
      ];
    }
  }
  class Cookies extends APIView {
    override get(): Response {
      return new CookieResponse({ ok: true });
    }
  }
  class BadHeader extends APIView {
    override get(): Response {
      return new Response({ ok: true }, { headers: { 'X-Bad': 'a\r\nInjected: 1' } });
    }
  }
  return new RestApi({
    urlpatterns: [
      path('echo/', Echo.asView()),
      path('boom/', Boom.asView()),
      path('cookies/', Cookies.asView()),
      path('bad-header/', BadHeader.asView()),
    ],
    settings: { MAX_BODY_SIZE: 64 },
    logger: log,
  });
}

function smallApiTests(transport: Transport): void {
  describe('a small API', () => {
    const log = quiet();
    const api = small(log);
    let served: Served & { transport: Transport };
    before(async () => {
      served = { ...(await serveApi(api, transport)), transport };
    });
    after(async () => {
      await served.close();
    });

    test('a JSON body, a text body and bytes', async () => {
      const json = await assertSame(api, served, { method: 'POST', url: '/echo/', body: { name: 'lamp', n: [1, 2] } });
      assert.equal(json.status, 201);
      assert.deepEqual(json.json(), { contentType: 'application/json', data: { name: 'lamp', n: [1, 2] } });
      const form = await assertSame(api, served, {
        method: 'POST',
        url: '/echo/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1&b=%C3%A9',
      });
      assert.deepEqual(form.json<{ data: unknown }>().data, { a: '1', b: 'é' });
      const bytes = await assertSame(api, served, {
        method: 'POST',
        url: '/echo/',
        headers: { 'content-type': 'application/json' },
        body: new TextEncoder().encode('{"x":"é"}'),
      });
      assert.deepEqual(bytes.json<{ data: unknown }>().data, { x: 'é' });
      const malformed = await assertSame(api, served, {
        method: 'POST',
        url: '/echo/',
        headers: { 'content-type': 'application/json' },
        body: '{"x":',
      });
      assert.equal(malformed.status, 400);
    });

    test('an exception in a view is its 500, logged; nothing is thrown out of inject()', async () => {
      const before = log.errors.length;
      const res = await assertSame(api, served, { url: '/boom/' });
      assert.equal(res.status, 500);
      assert.deepEqual(res.json(), { detail: 'A server error occurred.' });
      assert.equal(log.errors.length, before + 2, 'logged once per request (inject and the wire)');
      assert.ok(log.errors.slice(before).every((e) => e instanceof TypeError && e.message === 'the view broke'));
    });

    test('a response header no codec sends becomes the plain 500, logged', async () => {
      const before = log.errors.length;
      const res = await assertSame(api, served, { url: '/bad-header/' });
      assert.equal(res.status, 500);
      assert.equal(res.headers['x-bad'], undefined);
      assert.equal(res.body, '{"detail":"A server error occurred."}');
      assert.equal(log.errors.length, before + 2);
    });

    test('repeated fields: joined with ", ", Set-Cookie with a line feed', async () => {
      const res = await assertSame(api, served, { url: '/cookies/' });
      assert.equal(Object.getPrototypeOf(res.headers), Object.prototype, 'a plain object');
      assert.ok(Object.isFrozen(res.headers));
      assert.equal(res.headers['x-multi'], 'one, two');
      assert.deepEqual(res.headers['set-cookie']?.split('\n'), ['a=1; Path=/', 'b=2, 3; Path=/']);
      assert.deepEqual(
        res.rawHeaders.filter(([k]) => k === 'Set-Cookie').map(([, v]) => v),
        ['a=1; Path=/', 'b=2, 3; Path=/'],
      );
    });

    if (transport === 'node') {
      // EventHttp refuses a body over its limit in the HTTP layer (its own 413 page); node:http's adapter renders it.
      test('a body over MAX_BODY_SIZE: 413 as the node:http adapter answers it', async () => {
        const res = await assertSame(api, served, { method: 'POST', url: '/echo/', body: 'x'.repeat(65) });
        assert.equal(res.status, 413);
        assert.deepEqual(res.json(), { detail: 'Request body larger than 64 bytes.' });
      });
    }
  });
}

test('bad options throw InjectError ERR_REST_INJECT_OPTIONS before the API sees anything', async () => {
  let seen = 0;
  const api = new RestApi({ urlpatterns: [], onResponse: () => void seen++, logger: quiet() });
  const bad: [InjectOptions | string, RegExp][] = [
    ['items/', /neither a path starting with '\/'/],
    ['ftp://example.com/x', /scheme ftp/],
    ['http:///x', /needs a host/],
    ['/a b/', /space or a control character/],
    ['/a#b', /fragment/],
    ['/a\ud800', /not well-formed/],
    [{ url: '/x', headers: { 'x-a': 'a\r\nb: c' } }, /CR, LF or NUL/],
    [{ url: '/x', headers: { 'x-a': ['ok', 'a\nb'] } }, /CR, LF or NUL/],
    [{ url: '/x', headers: { 'bad name': 'v' } }, /not a header field name/],
    [{ url: '/x', headers: { 'x-a': 'ü€' } }, /beyond latin1/],
    [{ url: '/x', method: 'GE T' }, /not a method name/],
    [{ url: '/x', method: 'POST', body: 'abc', headers: { 'content-length': '5' } }, /does not match/],
    [{ url: '/x', method: 'POST', body: new Date() as unknown as string }, /not a Date/],
    [{ url: 'https://h.example/x', secure: false }, /contradicts/],
  ];
  for (const [options, message] of bad) {
    await assert.rejects(
      () => api.inject(options),
      (e: unknown) =>
        e instanceof InjectError &&
        e.code === 'ERR_REST_INJECT_OPTIONS' &&
        e.status === REST_ERROR_CODES.ERR_REST_INJECT_OPTIONS.status &&
        e.name === 'InjectError' &&
        message.test(e.message),
      JSON.stringify(options),
    );
  }
  assert.equal(seen, 0, 'no request reached the API');
});

test('non-ASCII in the url is percent-encoded; an object body is JSON unless a content type is given', async () => {
  class Echo extends APIView {
    override get(request: Request): Response {
      return new Response({ path: request.path, q: request.query.get('q'), full: request.getFullPath() });
    }
    override post(request: Request): Response {
      return new Response({ type: request.headers.get('content-type'), length: request.headers.get('content-length') });
    }
  }
  const api = new RestApi({ urlpatterns: [path('<str:name>/', Echo.asView())], logger: quiet() });
  const res = await api.inject('/café/?q=thé');
  assert.deepEqual(res.json(), { path: '/café/', q: 'thé', full: '/caf%C3%A9/?q=th%C3%A9' });
  const json = await api.inject({ method: 'POST', url: '/x/', body: [1, 'é'] });
  assert.deepEqual(json.json(), { type: 'application/json', length: String(Buffer.byteLength('[1,"é"]')) });
  const typed = await api.inject({
    method: 'POST',
    url: '/x/',
    body: { a: 1 },
    headers: { 'Content-Type': 'application/vnd.api+json' },
  });
  assert.deepEqual(typed.json(), { type: 'application/vnd.api+json', length: '7' });
});

test('json() on a body that is not JSON: InjectError ERR_REST_INJECT_NOT_JSON with the parse error as cause', async () => {
  const api = demo();
  const redirect = await api.inject('/page/items');
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers['location'], '/page/items/');
  const html = await api.inject({ url: '/page/items/', headers: { accept: 'text/html' } });
  for (const res of [redirect, html]) {
    assert.throws(
      () => res.json(),
      (e: unknown) =>
        e instanceof InjectError &&
        e.code === 'ERR_REST_INJECT_NOT_JSON' &&
        e.cause instanceof SyntaxError &&
        e.message.includes(`status ${res.status}`),
    );
  }
});

test('the access log sees an injected request as any other', async () => {
  const entries: { method: string; target: string; status: number; remoteAddress: string | null }[] = [];
  const rows = new ArrayQueryset(Array.from({ length: 30 }, (_, i) => demoItem(i + 1)));
  const api = buildDemoApi(rows, { onResponse: (e) => entries.push(e), logger: quiet() });
  await api.inject({ url: '/page/items/?page=2', remoteAddress: '192.0.2.1' });
  assert.deepEqual(entries, [
    {
      ...entries[0],
      method: 'GET',
      target: '/page/items/?page=2',
      status: 200,
      remoteAddress: '192.0.2.1',
    },
  ]);
});

test('the test file of docs/testing.md compiles under strict and passes', (t) => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const doc = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
  const blocks = [...doc.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  const file = blocks.find((b) => b.includes("from 'node:test'"));
  assert.ok(file !== undefined, 'docs/testing.md has a test file');
  const dir = mkdtempSync(join(tmpdir(), 'eventide-testing-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const entry = pathToFileURL(join(root, 'src', 'rest', 'index.js')).href;
  // Type-checked as written ('eventide/rest' mapped to the sources), run with the import as a file URL.
  const written = join(dir, 'written.test.ts');
  writeFileSync(written, file);
  const source = join(dir, 'items.test.ts');
  writeFileSync(source, file.replaceAll("from 'eventide/rest'", `from '${entry}'`));

  const program = ts.createProgram([written], {
    paths: { 'eventide/rest': [join(root, 'src', 'rest', 'index.ts')] },
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.es2024.string.d.ts'],
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(diagnostics, []);

  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', source], {
    cwd: root,
    // Without the runner's NODE_TEST_CONTEXT, which would make the child report to it instead of to stdout.
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^# pass 2$/m);
  assert.match(run.stdout, /^# fail 0$/m);
  assert.doesNotMatch(run.stdout + run.stderr, /warn/, 'no settings check warns');
});

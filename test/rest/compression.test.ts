/**
 * Response compression (the `COMPRESSION` setting): Accept-Encoding
 * negotiation, what is left alone, the settings, and real HTTP on both
 * transports with curl (`--compressed`, `Accept-Encoding: br`, `gzip`),
 * node:http and fetch, each decoded body compared with the plain one.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { RestApi } from '../../src/rest/api.js';
import {
  compressResponse,
  compressionSettings,
  isCompressibleType,
  negotiateEncoding,
  withVary,
} from '../../src/rest/compression.js';
import { ImproperlyConfigured } from '../../src/rest/errors.js';
import { Response, type RenderedResponse } from '../../src/rest/response.js';
import { createSettings } from '../../src/rest/settings.js';
import { path } from '../../src/rest/urls/patterns.js';
import { APIView } from '../../src/rest/views.js';
import { TRANSPORTS, serveApi, type Served } from '../support/rest.js';

const run = promisify(execFile);

/** A JSON body of about `n` bytes that compresses (repetitive, like a real list). */
function rows(n: number): { id: number; name: string }[] {
  const out: { id: number; name: string }[] = [];
  for (let i = 0, size = 0; size < n; i++, size += 40) out.push({ id: i, name: `item number ${i} of the catalog` });
  return out;
}

describe('negotiateEncoding', () => {
  const cases: [string | null, string | null][] = [
    [null, null],
    ['', null],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['deflate, gzip, br, zstd', 'br'],
    ['gzip;q=1, br;q=0.9', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', null],
    ['gzip;q=0', null],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['*;q=0', null],
    ['*;q=0, identity', null],
    ['identity', null],
    ['gzip;q=0.5, identity', null],
    ['gzip;q=0.5, identity;q=0.5', 'gzip'],
    ['identity;q=0, gzip;q=0.1', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=0.8, BR;Q=0.7', 'gzip'],
    ['br;q=2', null],
    ['br;q=abc, gzip', 'gzip'],
    ['deflate', null],
    [' gzip ; q=0.3 , br ; q=0.3 ', 'br'],
  ];
  for (const [header, want] of cases)
    test(`${JSON.stringify(header)} -> ${String(want)}`, () => assert.equal(negotiateEncoding(header), want));

  test('the order of available codings breaks ties; only available codings are chosen', () => {
    assert.equal(negotiateEncoding('gzip, br', ['gzip', 'br']), 'gzip');
    assert.equal(negotiateEncoding('br', ['gzip']), null);
    assert.equal(negotiateEncoding('*', ['gzip']), 'gzip');
  });
});

test('isCompressibleType: text-like types only', () => {
  for (const t of [
    'application/json',
    'application/json; charset=utf-8',
    'text/html; charset=utf-8',
    'text/csv',
    'application/problem+json',
    'application/vnd.oai.openapi+json;version=3.0',
    'application/vnd.oai.openapi',
    'image/svg+xml',
    'application/javascript',
  ])
    assert.equal(isCompressibleType(t), true, t);
  for (const t of ['image/png', 'image/jpeg', 'application/zip', 'application/octet-stream', 'video/mp4', '', null])
    assert.equal(isCompressibleType(t), false, String(t));
});

test('withVary: appends once, keeps Vary: *', () => {
  assert.deepEqual(withVary([], 'Accept-Encoding'), [['Vary', 'Accept-Encoding']]);
  assert.deepEqual(withVary([['Vary', 'Accept']], 'Accept-Encoding'), [['Vary', 'Accept, Accept-Encoding']]);
  assert.deepEqual(withVary([['vary', 'accept-encoding']], 'Accept-Encoding'), [['vary', 'accept-encoding']]);
  assert.deepEqual(withVary([['Vary', '*']], 'Origin'), [['Vary', '*']]);
});

describe('compressResponse', () => {
  const json = (body: Buffer, extra: [string, string][] = [], status = 200): RenderedResponse => ({
    status,
    headers: [['Content-Type', 'application/json'], ...extra],
    body,
  });
  const big = Buffer.from(JSON.stringify(rows(5000)));
  const gz = { headers: [['Accept-Encoding', 'gzip']] as [string, string][] };

  test('a large JSON body: gzip, Vary, weak ETag, no stale Content-Length', async () => {
    const out = await compressResponse(
      json(big, [
        ['ETag', '"abc"'],
        ['Content-Length', String(big.length)],
      ]),
      gz,
    );
    assert.ok(out.body.length < big.length / 4);
    assert.deepEqual(gunzipSync(out.body), big);
    assert.deepEqual(out.headers, [
      ['Content-Type', 'application/json'],
      ['ETag', 'W/"abc"'],
      ['Vary', 'Accept-Encoding'],
      ['Content-Encoding', 'gzip'],
    ]);
  });

  test('brotli; several Accept-Encoding fields are one list', async () => {
    const out = await compressResponse(json(big), {
      headers: [
        ['Accept-Encoding', 'gzip;q=0.5'],
        ['accept-encoding', 'br'],
      ],
    });
    assert.deepEqual(brotliDecompressSync(out.body), big);
    assert.ok(out.headers.some(([k, v]) => k === 'Content-Encoding' && v === 'br'));
  });

  test('a body above 64 KiB is compressed off the event loop (a promise) and decodes to the same bytes', async () => {
    const huge = Buffer.from(JSON.stringify(rows(2_000_000)));
    const pending = compressResponse(json(huge), { headers: [['Accept-Encoding', 'br']] });
    assert.ok(pending instanceof Promise);
    const out = await pending;
    assert.deepEqual(brotliDecompressSync(out.body), huge);
  });

  test('tiny bodies get Vary but stay as they are', () => {
    const small = Buffer.from('{"a":1}');
    const out = compressResponse(json(small), gz) as RenderedResponse;
    assert.equal(out.body, small);
    assert.deepEqual(out.headers, [
      ['Content-Type', 'application/json'],
      ['Vary', 'Accept-Encoding'],
    ]);
  });

  test('threshold setting; no Accept-Encoding: Vary only', () => {
    const body = Buffer.from(JSON.stringify(rows(200)));
    assert.ok(body.length < 1024);
    const out = compressResponse(json(body), gz, { threshold: 100 }) as RenderedResponse;
    assert.deepEqual(gunzipSync(out.body), body);
    const none = compressResponse(json(big), { headers: [] }) as RenderedResponse;
    assert.equal(none.body, big);
    assert.ok(none.headers.some(([k]) => k === 'Vary'));
  });

  test('left alone: 204, 304, images, already encoded, Content-Range, no-transform, unknown type', () => {
    const cases: RenderedResponse[] = [
      json(big, [], 204),
      json(big, [], 304),
      { status: 200, headers: [['Content-Type', 'image/png']], body: big },
      { status: 200, headers: [], body: big },
      json(big, [['Content-Encoding', 'gzip']]),
      json(big, [['Content-Range', 'bytes 0-10/100']]),
      json(big, [['Cache-Control', 'public, no-transform']]),
    ];
    for (const c of cases) assert.equal(compressResponse(c, gz), c);
  });

  test('a body that would not shrink goes out as it is', () => {
    const noise = randomBytes(4096);
    const out = compressResponse(json(noise), gz) as RenderedResponse;
    assert.equal(out.body, noise);
    assert.ok(!out.headers.some(([k]) => k === 'Content-Encoding'));
  });
});

test('the COMPRESSION setting: off by default, defaults filled in, mistakes refused', () => {
  assert.equal(createSettings().COMPRESSION, null);
  assert.deepEqual(createSettings({ COMPRESSION: {} }).COMPRESSION, {
    threshold: 1024,
    encodings: ['br', 'gzip'],
    gzipLevel: 6,
    brotliQuality: 4,
  });
  assert.deepEqual(compressionSettings({ threshold: 0, encodings: ['gzip'] })?.encodings, ['gzip']);
  for (const bad of [
    { threshold: -1 },
    { threshold: 1.5 },
    { encodings: ['deflate'] },
    { encodings: ['br', 'br'] },
    { encodings: 'br' },
    { gzipLevel: 0 },
    { brotliQuality: 12 },
    { level: 5 },
    [],
    true,
  ])
    assert.throws(() => createSettings({ COMPRESSION: bad as never }), ImproperlyConfigured, JSON.stringify(bad));
});

// ------------------------------------------------------------------ over HTTP

const BIG = { items: rows(20_000) };
const HUGE = { items: rows(300_000) };

class BigView extends APIView {
  override get() {
    return new Response(BIG);
  }
}
class HugeView extends APIView {
  override get() {
    return new Response(HUGE);
  }
}
class SmallView extends APIView {
  override get() {
    return new Response({ ok: true });
  }
}

function buildApi(compression: boolean): RestApi {
  return new RestApi({
    urlpatterns: [path('big/', BigView.asView()), path('huge/', HugeView.asView()), path('small/', SmallView.asView())],
    settings: compression ? { COMPRESSION: {} } : {},
  });
}

interface Fetched {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** curl with `-i`; the headers (lower-case names) and the body as received (decoded with --compressed). */
async function curl(args: string[]): Promise<Fetched> {
  const { stdout } = await run('curl', ['-s', '-i', ...args], { encoding: 'buffer', maxBuffer: 64 << 20 });
  const end = stdout.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = stdout.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Map<string, string>();
  for (const l of lines) {
    const i = l.indexOf(':');
    headers.set(l.slice(0, i).toLowerCase(), l.slice(i + 1).trim());
  }
  return { status: Number(statusLine?.split(' ')[1]), headers, body: stdout.subarray(end + 4) };
}

const plainBig = Buffer.from(JSON.stringify(BIG));
const plainHuge = Buffer.from(JSON.stringify(HUGE));

for (const transport of TRANSPORTS) {
  describe(`compression over HTTP (${transport})`, () => {
    let served: Served;
    let off: Served;
    before(async () => {
      served = await serveApi(buildApi(true), transport);
      off = await serveApi(buildApi(false), transport);
    });
    after(async () => {
      await served.close();
      await off.close();
    });

    test('curl --compressed: brotli, decoded body equal to the plain one', async () => {
      const r = await curl(['--compressed', `${served.origin}/big/`]);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-encoding'), 'br');
      assert.equal(r.headers.get('vary'), 'Accept, Accept-Encoding');
      assert.ok(Number(r.headers.get('content-length')) < plainBig.length / 4);
      assert.deepEqual(r.body, plainBig);
    });

    test("curl -H 'Accept-Encoding: br' and 'gzip': the raw bodies decode to the plain one", async () => {
      const br = await curl(['-H', 'Accept-Encoding: br', `${served.origin}/big/`]);
      assert.equal(br.headers.get('content-encoding'), 'br');
      assert.equal(Number(br.headers.get('content-length')), br.body.length);
      assert.deepEqual(brotliDecompressSync(br.body), plainBig);
      const gz = await curl(['-H', 'Accept-Encoding: gzip', `${served.origin}/big/`]);
      assert.equal(gz.headers.get('content-encoding'), 'gzip');
      assert.equal(Number(gz.headers.get('content-length')), gz.body.length);
      assert.deepEqual(gunzipSync(gz.body), plainBig);
    });

    test('a body of several MB (compressed on the thread pool)', async () => {
      const r = await curl(['--compressed', `${served.origin}/huge/`]);
      assert.equal(r.headers.get('content-encoding'), 'br');
      assert.deepEqual(r.body, plainHuge);
      const gz = await curl(['-H', 'Accept-Encoding: gzip', `${served.origin}/huge/`]);
      assert.deepEqual(gunzipSync(gz.body), plainHuge);
    });

    test('no Accept-Encoding, identity, gzip;q=0: the plain body, with Vary', async () => {
      for (const ae of [null, 'identity', 'gzip;q=0, br;q=0', '*;q=0']) {
        const r = await curl([...(ae === null ? [] : ['-H', `Accept-Encoding: ${ae}`]), `${served.origin}/big/`]);
        assert.equal(r.headers.get('content-encoding'), undefined, String(ae));
        assert.equal(r.headers.get('vary'), 'Accept, Accept-Encoding');
        assert.equal(Number(r.headers.get('content-length')), plainBig.length);
        assert.deepEqual(r.body, plainBig);
      }
    });

    test('HEAD: the headers of the GET (Content-Length the compressed length), no body', async () => {
      const get = await curl(['-H', 'Accept-Encoding: gzip', `${served.origin}/big/`]);
      const head = await curl(['-I', '-H', 'Accept-Encoding: gzip', `${served.origin}/big/`]);
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      for (const h of ['content-encoding', 'content-length', 'vary', 'content-type'])
        assert.equal(head.headers.get(h), get.headers.get(h), h);
    });

    test('a tiny body is not compressed', async () => {
      const r = await curl(['--compressed', `${served.origin}/small/`]);
      assert.equal(r.headers.get('content-encoding'), undefined);
      assert.match(r.headers.get('vary') ?? '', /Accept-Encoding/);
      assert.equal(r.body.toString(), '{"ok":true}');
    });

    test('fetch decodes it transparently', async () => {
      const res = await fetch(`${served.origin}/big/`, { headers: { 'Accept-Encoding': 'gzip, br' } });
      assert.equal(res.headers.get('content-encoding'), 'br');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), plainBig);
    });

    test('off by default: no Content-Encoding, no Vary: Accept-Encoding', async () => {
      const r = await curl(['--compressed', `${off.origin}/big/`]);
      assert.equal(r.headers.get('content-encoding'), undefined);
      assert.equal(r.headers.get('vary'), 'Accept');
      assert.deepEqual(r.body, plainBig);
    });
  });
}

/**
 * CORS (the `CORS` setting): the validation of the setting, the policy,
 * and preflights and actual requests over real HTTP on both transports
 * (node:http client, which may set `Origin`).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RestApi } from '../../src/rest/api.js';
import { CorsPolicy, corsSettings } from '../../src/rest/cors.js';
import { ImproperlyConfigured } from '../../src/rest/errors.js';
import { Response } from '../../src/rest/response.js';
import { createSettings, type SettingsInput } from '../../src/rest/settings.js';
import { path } from '../../src/rest/urls/patterns.js';
import { APIView } from '../../src/rest/views.js';
import { TRANSPORTS, callRaw, serveApi, type Served } from '../support/rest.js';

const APP = 'http://app.example.com';
const EVIL = 'http://evil.example.com';

test('the CORS setting: off by default, defaults filled in', () => {
  assert.equal(createSettings().CORS, null);
  assert.deepEqual(createSettings({ CORS: { allowedOrigins: [APP.toUpperCase()] } }).CORS, {
    allowedOrigins: [APP],
    allowedMethods: ['DELETE', 'GET', 'OPTIONS', 'PATCH', 'POST', 'PUT'],
    allowedHeaders: ['accept', 'authorization', 'content-type', 'user-agent', 'x-csrftoken', 'x-requested-with'],
    exposedHeaders: [],
    allowCredentials: false,
    maxAge: 86400,
  });
  assert.deepEqual(corsSettings({ allowedOrigins: '*', allowedMethods: ['get'] })?.allowedMethods, ['GET']);
});

test('the CORS setting: mistakes refused at start-up', () => {
  const bad: unknown[] = [
    { allowedOrigins: '*', allowCredentials: true },
    { allowedOrigins: [/.*/], allowCredentials: true },
    { allowedOrigins: [/example\.com/], allowCredentials: true },
    { allowedOrigins: ['null'], allowCredentials: true },
    { allowedOrigins: ['http://app.example.com/'] },
    { allowedOrigins: ['app.example.com'] },
    { allowedOrigins: ['*'] },
    { allowedOrigins: [/^https:\/\/a\.example$/g] },
    { allowedOrigins: 'http://app.example.com' },
    { allowedOrigins: [42] },
    {},
    { allowedOrigins: [APP], allowedHeaders: ['bad header'] },
    { allowedOrigins: [APP], allowCredentials: 'yes' },
    { allowedOrigins: [APP], maxAge: -1 },
    { allowedOrigins: [APP], exposeHeaders: ['Link'] },
    [APP],
  ];
  for (const b of bad)
    assert.throws(() => createSettings({ CORS: b as never }), ImproperlyConfigured, String(JSON.stringify(b)));
  // Anchored expressions are fine with credentials.
  createSettings({ CORS: { allowedOrigins: [/^https:\/\/[a-z0-9-]+\.example\.com$/], allowCredentials: true } });
});

test('CorsPolicy.allows: exact origins (case-insensitive), regular expressions, *', () => {
  const p = new CorsPolicy({ allowedOrigins: [APP, /^https:\/\/[a-z]+\.example\.org$/] });
  assert.equal(p.allows(APP), true);
  assert.equal(p.allows('HTTP://APP.EXAMPLE.COM'), true);
  assert.equal(p.allows('https://api.example.org'), true);
  assert.equal(p.allows('https://api.example.org.evil.com'), false);
  assert.equal(p.allows(`${APP}:8080`), false);
  assert.equal(p.allows(EVIL), false);
  assert.equal(p.allows('null'), false);
  assert.equal(new CorsPolicy({ allowedOrigins: '*' }).allows(EVIL), true);
});

class Items extends APIView {
  override get() {
    return new Response([1, 2, 3], { headers: { 'X-Total-Count': '3', Link: '</items/?page=2>; rel="next"' } });
  }
  override put() {
    return new Response({ updated: true });
  }
}

function buildApi(cors: SettingsInput['CORS']): RestApi {
  return new RestApi({
    urlpatterns: [path('items/', Items.asView())],
    settings: cors === undefined ? {} : { CORS: cors },
  });
}

const CONFIG = {
  allowedOrigins: [APP, /^http:\/\/[a-z]+\.example\.net$/],
  allowedHeaders: ['content-type', 'x-custom'],
  exposedHeaders: ['Link', 'X-Total-Count'],
  allowCredentials: true,
  maxAge: 600,
};

function corsHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (k.startsWith('access-control-')) out[k] = v;
  });
  return out;
}

for (const transport of TRANSPORTS) {
  describe(`CORS over HTTP (${transport})`, () => {
    let on: Served;
    let star: Served;
    let off: Served;
    before(async () => {
      on = await serveApi(buildApi(CONFIG), transport);
      star = await serveApi(buildApi({ allowedOrigins: '*', exposedHeaders: ['X-Total-Count'] }), transport);
      off = await serveApi(buildApi(undefined), transport);
    });
    after(async () => {
      await on.close();
      await star.close();
      await off.close();
    });

    const preflight = (origin: string) => ({
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'content-type, x-custom',
      },
    });

    test('preflight from an allowed origin: 204 with the Access-Control-Allow-* headers, no body', async () => {
      for (const origin of [APP, 'http://shop.example.net']) {
        const r = await callRaw(on.origin, '/items/', preflight(origin));
        assert.equal(r.status, 204);
        assert.equal(r.text, '');
        assert.deepEqual(corsHeaders(r.headers), {
          'access-control-allow-origin': origin,
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'DELETE, GET, OPTIONS, PATCH, POST, PUT',
          'access-control-allow-headers': 'content-type, x-custom',
          'access-control-max-age': '600',
        });
        assert.equal(r.headers.get('vary'), 'Origin');
      }
    });

    test('preflight from another origin: 204 without any CORS header (the browser blocks)', async () => {
      for (const origin of [EVIL, 'null', 'http://app.example.com.evil.com']) {
        const r = await callRaw(on.origin, '/items/', preflight(origin));
        assert.equal(r.status, 204);
        assert.deepEqual(corsHeaders(r.headers), {});
        assert.equal(r.headers.get('vary'), 'Origin');
      }
    });

    test('preflight of an unknown path is answered too (before routing)', async () => {
      const r = await callRaw(on.origin, '/nowhere/', preflight(APP));
      assert.equal(r.status, 204);
      assert.equal(r.headers.get('access-control-allow-origin'), APP);
    });

    test('actual request from an allowed origin: the origin, credentials, exposed headers, Vary', async () => {
      const r = await callRaw(on.origin, '/items/', { headers: { Origin: APP } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, [1, 2, 3]);
      assert.deepEqual(corsHeaders(r.headers), {
        'access-control-allow-origin': APP,
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers': 'Link, X-Total-Count',
      });
      assert.equal(r.headers.get('vary'), 'Accept, Origin');
      const put = await callRaw(on.origin, '/items/', { method: 'PUT', headers: { Origin: APP } });
      assert.equal(put.headers.get('access-control-allow-origin'), APP);
      const missing = await callRaw(on.origin, '/nowhere/', { headers: { Origin: APP } });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('access-control-allow-origin'), APP);
    });

    test('actual request from another origin, or without Origin: no CORS header, Vary: Origin', async () => {
      for (const headers of [{ Origin: EVIL }, {}] as Record<string, string>[]) {
        const r = await callRaw(on.origin, '/items/', { headers });
        assert.equal(r.status, 200);
        assert.deepEqual(corsHeaders(r.headers), {});
        assert.equal(r.headers.get('vary'), 'Accept, Origin');
      }
    });

    test('OPTIONS without Access-Control-Request-Method reaches the view (DRF metadata)', async () => {
      const r = await callRaw(on.origin, '/items/', { method: 'OPTIONS', headers: { Origin: APP } });
      assert.equal(r.status, 200);
      assert.equal((r.body as { name: string }).name, 'Items');
      assert.equal(r.headers.get('access-control-allow-origin'), APP);
    });

    test("allowedOrigins '*': Access-Control-Allow-Origin: *, no credentials, no Vary: Origin", async () => {
      const r = await callRaw(star.origin, '/items/', { headers: { Origin: EVIL } });
      assert.deepEqual(corsHeaders(r.headers), {
        'access-control-allow-origin': '*',
        'access-control-expose-headers': 'X-Total-Count',
      });
      assert.equal(r.headers.get('vary'), 'Accept');
      const p = await callRaw(star.origin, '/items/', preflight(EVIL));
      assert.equal(p.status, 204);
      assert.equal(p.headers.get('access-control-allow-origin'), '*');
      assert.equal(p.headers.get('access-control-allow-credentials'), null);
    });

    test('off by default: a preflight reaches the view, no CORS header', async () => {
      const r = await callRaw(off.origin, '/items/', preflight(APP));
      assert.equal(r.status, 200);
      assert.deepEqual(corsHeaders(r.headers), {});
      assert.equal(r.headers.get('vary'), 'Accept');
    });
  });
}

test('CORS and compression together', async () => {
  class Big extends APIView {
    override get() {
      return new Response({ text: 'abc '.repeat(1000) });
    }
  }
  const api = new RestApi({
    urlpatterns: [path('big/', Big.asView())],
    settings: { CORS: { allowedOrigins: [APP] }, COMPRESSION: {} },
  });
  const out = await api.handle({
    method: 'GET',
    target: '/big/',
    headers: [
      ['Host', 'testserver'],
      ['Origin', APP],
      ['Accept-Encoding', 'gzip'],
    ],
    body: null,
    secure: false,
  });
  const h = new Map(out.headers.map(([k, v]) => [k.toLowerCase(), v]));
  assert.equal(h.get('content-encoding'), 'gzip');
  assert.equal(h.get('access-control-allow-origin'), APP);
  assert.equal(h.get('vary'), 'Accept, Origin, Accept-Encoding');
});

/**
 * The API reference page (apiReferenceView) over plain HTTP on both
 * transports: the pages (one per version, the first at the prefix; a single
 * document), their headers (text/html, a Content-Security-Policy allowing
 * only 'self', no-cache, nosniff, no framing), the asset routes (the bytes
 * of swagger-ui-dist's files and the page's own script and stylesheet, with
 * their media types, ETag and 304, immutable caching for a hashed URL, HEAD),
 * 404 for unknown asset names and every path-traversal attempt, 405 for
 * other methods, the options checked, HTML escaped, and the error naming
 * swagger-ui-dist when the package is missing.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { RestApi } from '../../src/rest/api.js';
import { apiReferenceView } from '../../src/rest/docs.js';
import { loadReferenceAssets } from '../../src/rest/docs-assets.js';
import { ConfigurationError } from '../../src/rest/errors.js';
import { path } from '../../src/rest/urls/patterns.js';
import { TRANSPORTS, call, callRaw, serveApi, type Served } from '../support/rest.js';

const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function buildApi(): RestApi {
  const docs = apiReferenceView({ title: 'Items <API>', versions: { v1: '/openapi/v1.json', v2: '/openapi/v2.json' } });
  const single = apiReferenceView({ openapiUrl: '/openapi.json' });
  const remote = apiReferenceView({ openapiUrl: 'https://docs.example.com:8443/openapi.json' });
  return new RestApi({
    urlpatterns: [
      path('docs/', docs, { name: 'api-docs' }),
      path('docs/<path:page>', docs),
      path('single/', single, { name: 'single' }),
      path('single/<path:page>', single),
      path('remote/', remote, { name: 'remote' }),
    ],
  });
}

test('apiReferenceView checks its options', () => {
  assert.throws(() => apiReferenceView({}), /either openapiUrl or versions/);
  assert.throws(() => apiReferenceView({ openapiUrl: '/a', versions: { v1: '/b' } }), /either openapiUrl or versions/);
  assert.throws(() => apiReferenceView({ versions: {} }), /versions is empty/);
  assert.throws(() => apiReferenceView({ versions: { 'v/1': '/a' } }), /cannot be a version's page name/);
  assert.throws(() => apiReferenceView({ versions: { assets: '/a' } }), /cannot be a version's page name/);
  assert.throws(() => apiReferenceView({ versions: { v1: '' } }), /no URL for version v1/);
});

test('without swagger-ui-dist: a ConfigurationError that names the package and how to install it', () => {
  assert.throws(
    () => loadReferenceAssets('eventide-missing-swagger-ui-package'),
    (e: unknown) =>
      e instanceof ConfigurationError &&
      /needs the package eventide-missing-swagger-ui-package, which is not installed: npm install eventide-missing-swagger-ui-package/.test(
        e.message,
      ),
  );
});

test('the assets: the files of swagger-ui-dist, and the page script and stylesheet', () => {
  const assets = loadReferenceAssets();
  assert.deepEqual(
    [...assets.keys()].sort(),
    [
      'favicon-16x16.png',
      'favicon-32x32.png',
      'reference.css',
      'reference.js',
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ].sort(),
  );
  for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'])
    assert.ok(assets.get(name)?.body.equals(readFileSync(join(SWAGGER_DIR, name))), name);
});

for (const transport of TRANSPORTS) {
  describe(`API reference page over ${transport}`, () => {
    let s: Served;
    before(async () => {
      s = await serveApi(buildApi(), transport);
    });
    after(async () => {
      await s.close();
    });

    test('/docs/: the first version, the switcher, no inline script, strict headers', async () => {
      const r = await call(`${s.origin}/docs/`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(r.headers.get('content-security-policy'), CSP);
      assert.equal(r.headers.get('cache-control'), 'no-cache');
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(r.headers.get('x-frame-options'), 'DENY');
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
      const html = r.text;
      assert.match(html, /<main id="swagger-ui" data-openapi-url="\/openapi\/v1.json">/);
      assert.match(html, /<title>Items &#60;API&#62; \(v1\)<\/title>/, 'the title escaped');
      assert.ok(!html.includes('<API>'));
      assert.match(html, /<a href="\/docs\/" aria-current="page">v1<\/a>/);
      assert.match(html, /<a href="\/docs\/v2\/">v2<\/a>/);
      const assets = loadReferenceAssets();
      for (const name of ['swagger-ui-bundle.js', 'reference.js'])
        assert.ok(html.includes(`<script src="/docs/assets/${name}?v=${assets.get(name)?.hash}"></script>`), name);
      assert.ok(html.includes(`<link rel="stylesheet" href="/docs/assets/swagger-ui.css?v=`));
      assert.equal([...html.matchAll(/<script\b[^>]*>/g)].filter((m) => !m[0].includes(' src=')).length, 0);
      assert.ok(!/\bstyle=/.test(html), 'no inline style');
      assert.ok(!/https?:\/\//.test(html), 'no absolute URL: nothing from elsewhere');
    });

    test('/docs/v2/ and /docs/v1/: each version; /docs/v3/ and other pages are 404', async () => {
      const v2 = await call(`${s.origin}/docs/v2/`);
      assert.equal(v2.status, 200);
      assert.match(v2.text, /data-openapi-url="\/openapi\/v2.json"/);
      assert.match(v2.text, /<a href="\/docs\/v2\/" aria-current="page">v2<\/a>/);
      assert.match(v2.text, /<script src="\/docs\/assets\/swagger-ui-bundle.js\?v=/, 'assets under the prefix');
      const v1 = await call(`${s.origin}/docs/v1/`);
      assert.equal(v1.status, 200);
      assert.match(v1.text, /data-openapi-url="\/openapi\/v1.json"/);
      for (const p of ['/docs/v3/', '/docs/v2', '/docs/v2/x/', '/docs/index.html'])
        assert.equal((await call(`${s.origin}${p}`)).status, 404, p);
    });

    test('a single document: no switcher, no version pages', async () => {
      const r = await call(`${s.origin}/single/`);
      assert.equal(r.status, 200);
      assert.match(r.text, /data-openapi-url="\/openapi.json"/);
      assert.ok(!r.text.includes('API versions'));
      assert.match(r.text, /<title>API reference<\/title>/);
      assert.equal((await call(`${s.origin}/single/v1/`)).status, 404);
      assert.equal((await call(`${s.origin}/single/assets/reference.js`)).status, 200);
    });

    test('a document on another origin: that origin only is added to connect-src', async () => {
      const r = await call(`${s.origin}/remote/`);
      assert.equal(
        r.headers.get('content-security-policy'),
        CSP.replace("connect-src 'self'", "connect-src 'self' https://docs.example.com:8443"),
      );
    });

    test('assets: bytes, media types, ETag, caching, 304, HEAD', async () => {
      const assets = loadReferenceAssets();
      const types: Record<string, string> = {
        'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
        'swagger-ui.css': 'text/css; charset=utf-8',
        'favicon-32x32.png': 'image/png',
        'favicon-16x16.png': 'image/png',
        'reference.js': 'text/javascript; charset=utf-8',
        'reference.css': 'text/css; charset=utf-8',
      };
      for (const [name, type] of Object.entries(types)) {
        const a = assets.get(name);
        assert.ok(a);
        const res = await fetch(`${s.origin}/docs/assets/${name}?v=${a.hash}`);
        assert.equal(res.status, 200, name);
        assert.equal(res.headers.get('content-type'), type, name);
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(a.body), `${name}: the bytes`);
        assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', name);
        assert.equal(res.headers.get('etag'), a.etag);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('content-security-policy'), CSP);
        const plain = await call(`${s.origin}/docs/assets/${name}`);
        assert.equal(plain.headers.get('cache-control'), 'no-cache', `${name}: no hash, revalidate`);
        const stale = await call(`${s.origin}/docs/assets/${name}?v=old`);
        assert.equal(stale.headers.get('cache-control'), 'no-cache', `${name}: another hash, revalidate`);
        const again = await call(`${s.origin}/docs/assets/${name}`, { headers: { 'If-None-Match': a.etag } });
        assert.equal(again.status, 304, name);
        assert.equal(again.text, '');
        assert.equal(again.headers.get('etag'), a.etag);
        const other = await call(`${s.origin}/docs/assets/${name}`, { headers: { 'If-None-Match': '"nope"' } });
        assert.equal(other.status, 200);
      }
      const head = await callRaw(s.origin, '/docs/assets/swagger-ui.css', { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers.get('content-type'), 'text/css; charset=utf-8');
      const length = head.headers.get('content-length'); // node:http leaves it out for HEAD
      if (length !== null) assert.equal(length, String(assets.get('swagger-ui.css')?.body.length));
    });

    test('unknown asset names and path traversal: 404', async () => {
      for (const p of [
        '/docs/assets/',
        '/docs/assets/nope.js',
        '/docs/assets/index.html',
        '/docs/assets/package.json',
        '/docs/assets/swagger-ui.js.map',
        '/docs/assets/../package.json',
        '/docs/assets/../../package.json',
        '/docs/assets/%2e%2e/package.json',
        '/docs/assets/..%2fpackage.json',
        '/docs/assets/..%2f..%2f..%2fpackage.json',
        '/docs/assets/swagger-ui.css/../../../../etc/passwd',
        '/docs/assets/%2fetc%2fpasswd',
        '/docs/assets//etc/passwd',
        '/docs/assets/swagger-ui.css%00.js',
        '/docs/assets/SWAGGER-UI.CSS',
        '/docs/assets/.%2e/.%2e/package.json',
        '/docs/../package.json',
      ]) {
        const r = await callRaw(s.origin, p);
        assert.ok(r.status === 404 || r.status === 400, `${p}: ${r.status}`);
        assert.ok(!r.text.includes('"name"'), `${p}: no package.json`);
        assert.ok(!r.text.includes('root:'), `${p}: no /etc/passwd`);
      }
    });

    test('methods other than GET and HEAD: 405 with Allow', async () => {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const r = await call(`${s.origin}/docs/`, { method });
        assert.equal(r.status, 405, method);
        assert.equal(r.headers.get('allow'), 'GET, HEAD');
      }
    });
  });
}

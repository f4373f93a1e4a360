/**
 * The demo API's versioning endpoints over real HTTP, on both transports:
 * every scheme's missing, valid, invalid and empty-value cases with DRF's
 * statuses and texts, `reverse()` round trips (the URL an endpoint returns
 * resolves to the same view and version), `Vary`, and the order of the
 * initial checks (negotiation before versioning). Plus one run with curl.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { demoItem, itemFields, type Item } from '../../src/cli/demo-data.js';
import { buildDemoApi } from '../../src/cli/demo.js';
import { TRANSPORTS, serveApi, call, callRaw, type Served } from '../support/rest.js';

const rows: Item[] = Array.from({ length: 1000 }, (_, i) => demoItem(i + 1));
const api = buildDemoApi(new ArrayQueryset(rows, { fields: itemFields }));

type Out = { status: number; body: unknown; vary: string | null };

for (const transport of TRANSPORTS) {
  describe(`demo versioning over ${transport}`, () => {
    let s: Served;
    let o: string;
    before(async () => {
      s = await serveApi(api, transport);
      o = s.origin;
    });
    after(() => s.close());

    const get = async (path: string, headers: Record<string, string> = {}): Promise<Out> => {
      const r = await callRaw(o, path, { headers });
      return { status: r.status, body: r.body, vary: r.headers.get('vary') };
    };
    const version = (v: string | null, url: string) => ({ version: v, url });
    const nf = (detail: string) => ({ detail });

    test('Accept header: missing -> default, valid, invalid and empty -> 406, */* carries the parameter', async () => {
      assert.deepEqual((await get('/accept/version/')).body, version('v1', `${o}/accept/version/`));
      const v2 = await get('/accept/version/', { Accept: 'application/json; version=v2' });
      assert.deepEqual(v2.body, version('v2', `${o}/accept/version/`));
      assert.match(v2.vary ?? '', /Accept/);
      assert.deepEqual(
        (await get('/accept/version/', { Accept: '*/*; version=v2' })).body,
        version('v2', `${o}/accept/version/`),
      );
      const bad = await get('/accept/version/', { Accept: 'application/json; version=v3' });
      assert.deepEqual([bad.status, bad.body], [406, nf('Invalid version in "Accept" header.')]);
      const empty = await get('/accept/version/', { Accept: 'application/json; version=' });
      assert.deepEqual([empty.status, empty.body], [406, nf('Invalid version in "Accept" header.')]);
      const order = await get('/accept/version/', { Accept: 'text/csv; version=v9' });
      assert.deepEqual([order.status, order.body], [406, nf('Could not satisfy the request Accept header.')]);
      const r = await callRaw(o, '/accept/version/', { headers: { Accept: 'application/json; version=v2' } });
      assert.equal(r.headers.get('content-type'), 'application/json; version=v2');
    });

    test('URL path: /urlpath/version/ -> v1 with a versioned link; v2; v3 -> 404', async () => {
      assert.deepEqual((await get('/urlpath/version/')).body, version('v1', `${o}/urlpath/v1/version/`));
      assert.deepEqual((await get('/urlpath/v2/version/')).body, version('v2', `${o}/urlpath/v2/version/`));
      const bad = await get('/urlpath/v3/version/');
      assert.deepEqual([bad.status, bad.body], [404, nf('Invalid version in URL path.')]);
    });

    test('namespace: v1, v2, nested api:v2, no namespace -> default; v3 and legacy -> 404', async () => {
      assert.deepEqual((await get('/namespace/v1/version/')).body, version('v1', `${o}/namespace/v1/version/`));
      assert.deepEqual((await get('/namespace/v2/version/')).body, version('v2', `${o}/namespace/v2/version/`));
      assert.deepEqual((await get('/namespace/api/v2/version/')).body, version('v2', `${o}/namespace/v2/version/`));
      assert.deepEqual((await get('/namespace/version/')).body, version('v1', `${o}/namespace/v1/version/`));
      for (const p of ['/namespace/v3/version/', '/namespace/legacy/version/']) {
        const bad = await get(p);
        assert.deepEqual(
          [bad.status, bad.body],
          [404, nf('Invalid version in URL path. Does not match any version namespace.')],
          p,
        );
      }
    });

    test('host name: v2.example.com -> v2 with the host kept in links; raw IP and other shapes -> default; V2 -> 404', async () => {
      const v2 = await get('/host/version/', { Host: `v2.example.com:${s.port}` });
      assert.deepEqual(v2.body, version('v2', `http://v2.example.com:${s.port}/host/version/`));
      assert.match(v2.vary ?? '', /Host/);
      assert.deepEqual((await get('/host/version/')).body, version('v1', `${o}/host/version/`));
      for (const h of ['v2.example.co.uk', 'localhost', 'v2.example'])
        assert.equal(((await get('/host/version/', { Host: h })).body as { version: string }).version, 'v1', h);
      for (const h of ['v3.example.com', 'V2.example.com']) {
        const bad = await get('/host/version/', { Host: h });
        assert.deepEqual([bad.status, bad.body], [404, nf('Invalid version in hostname.')], h);
      }
    });

    test('query parameter: missing -> default with ?version=v1 in the link; last value wins; invalid and empty -> 404', async () => {
      assert.deepEqual((await get('/query/version/')).body, version('v1', `${o}/query/version/?version=v1`));
      assert.deepEqual(
        (await get('/query/version/?version=v1&version=v2')).body,
        version('v2', `${o}/query/version/?version=v2`),
      );
      for (const q of ['?version=v3', '?version=']) {
        const bad = await get(`/query/version/${q}`);
        assert.deepEqual([bad.status, bad.body], [404, nf('Invalid version in query parameter.')], q);
      }
    });

    test('custom header scheme: X-API-Version with Vary', async () => {
      const v2 = await get('/header/version/', { 'X-API-Version': 'v2' });
      assert.deepEqual(v2.body, version('v2', `${o}/header/version/`));
      assert.match(v2.vary ?? '', /X-API-Version/);
      const bad = await get('/header/version/', { 'X-API-Version': 'v9' });
      assert.deepEqual([bad.status, bad.body], [406, nf('Invalid version in "X-API-Version" header.')]);
    });

    test('reverse() round trips: every returned URL resolves to the same version and the same URL', async () => {
      const cases: [string, Record<string, string>][] = [
        ['/urlpath/version/', {}],
        ['/urlpath/v2/version/', {}],
        ['/namespace/version/', {}],
        ['/namespace/v2/version/', {}],
        ['/query/version/?version=v2', {}],
        ['/accept/version/', { Accept: 'application/json; version=v2' }],
      ];
      for (const [p, headers] of cases) {
        const first = (await get(p, headers)).body as { version: string; url: string };
        const again = (await get(first.url.slice(o.length), headers)).body as { version: string; url: string };
        assert.deepEqual(again, first, p);
      }
    });

    test('the versioned items endpoint renders a different serializer per version, links carry the version', async () => {
      const v1 = (await call(`${o}/versioned/v1/items/?page_size=1`)).body as { results: Record<string, unknown>[] };
      assert.deepEqual(v1.results[0], { url: `${o}/versioned/v1/items/1/`, id: 1, name: 'item-0000001', price: 419 });
      const v2 = (await call(`${o}/versioned/v2/items/?page_size=1`)).body as { results: Record<string, unknown>[] };
      assert.deepEqual(v2.results[0], {
        url: `${o}/versioned/v2/items/1/`,
        id: 1,
        name: 'item-0000001',
        created: '2020-01-01T00:00:01.037000Z',
        price: 419,
        category: 'beta',
      });
      const detail = await call(`${o}/versioned/v1/items/1/`);
      assert.deepEqual(detail.body, v1.results[0]);
      assert.equal((await call(`${o}/versioned/v3/items/`)).status, 404);
      assert.equal((await call(`${o}/versioned/v1/items/99999/`)).status, 404);
    });

    test('the API root links to everything; the OpenAPI documents differ per version', async () => {
      const root = (await call(`${o}/`)).body as Record<string, unknown>;
      assert.equal(root.page, `${o}/page/items/`);
      assert.equal((root.version as Record<string, string>).urlpath, `${o}/urlpath/v1/version/`);
      const d1 = (await call(`${o}/openapi/v1.json`)).body as { openapi: string; paths: Record<string, unknown> };
      const d2 = (await call(`${o}/openapi/v2.json`)).body as { paths: Record<string, unknown> };
      assert.equal(d1.openapi, '3.1.0');
      assert.ok('/versioned/v1/items/' in d1.paths && !('/versioned/v2/items/' in d1.paths));
      assert.ok(
        '/versioned/v2/items/' in d2.paths &&
          '/namespace/v2/version/' in d2.paths &&
          !('/namespace/v1/version/' in d2.paths),
      );
    });
  });
}

test('curl against the demo: a page, the Link header, a version', async () => {
  const s = await serveApi(api, 'eventhttp');
  try {
    const run = promisify(execFile);
    const page = await run('curl', ['-s', `${s.origin}/page/items/?page=2`]);
    const body = JSON.parse(page.stdout) as { count: number; next: string; previous: string };
    assert.deepEqual(
      [body.count, body.next, body.previous],
      [1000, `${s.origin}/page/items/?page=3`, `${s.origin}/page/items/`],
    );
    const link = await run('curl', ['-s', '-D', '-', '-o', '/dev/null', `${s.origin}/link/items/?page=2`]);
    assert.match(
      link.stdout,
      new RegExp(
        `Link: <${s.origin}/link/items/\\?page=3>; rel="next", <${s.origin}/link/items/>; rel="prev", <${s.origin}/link/items/>; rel="first", <${s.origin}/link/items/\\?page=100>; rel="last"\\r\\n`,
      ),
    );
    const v = await run('curl', ['-s', '-H', 'Accept: application/json; version=v2', `${s.origin}/accept/version/`]);
    assert.deepEqual(JSON.parse(v.stdout), { version: 'v2', url: `${s.origin}/accept/version/` });
  } finally {
    await s.close();
  }
});

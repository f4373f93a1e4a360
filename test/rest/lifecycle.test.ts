/**
 * Version lifecycle beyond headers, over real HTTP on both transports: the
 * `Link rel="successor-version"` built with reverse() for each scheme that
 * puts the version in the URL, deprecation per view, and the opt-in 410
 * Gone once a sunset has passed.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RestApi } from '../../src/rest/api.js';
import { Response } from '../../src/rest/response.js';
import { include, path } from '../../src/rest/urls/patterns.js';
import {
  AcceptHeaderVersioning,
  NamespaceVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
} from '../../src/rest/versioning.js';
import { APIView } from '../../src/rest/views.js';
import type { VersionLifecycle, VersioningClass } from '../../src/rest/contracts.js';
import { TRANSPORTS, serveApi, call, type Served } from '../support/rest.js';

const PAST = new Date('2020-01-01T00:00:00Z');
const FUTURE = new Date('2099-01-01T00:00:00Z');

function view(scheme: VersioningClass | null, own: VersionLifecycle | null = null) {
  return class extends APIView {
    override versioningClass = scheme;
    override deprecation = own;
    override get(request: { version: string | null }) {
      return new Response({ version: request.version });
    }
  }.asView();
}

const Items = view(URLPathVersioning);
const api = new RestApi({
  settings: {
    ALLOWED_VERSIONS: ['v1', 'v2', 'v0'],
    DEFAULT_VERSION: 'v2',
    VERSION_LIFECYCLE: {
      v1: { deprecation: new Date('2026-01-01T00:00:00Z'), sunset: FUTURE, successor: 'v2' },
      v0: { deprecation: true, sunset: PAST, successor: 'v1', goneAfterSunset: true, link: 'https://example.com/v0' },
    },
  },
  urlpatterns: [
    path('path/<str:version>/items/<int:pk>/', Items, { name: 'items' }),
    path('ns/v1/', include([path('items/', view(NamespaceVersioning), { name: 'ns-items' })], { namespace: 'v1' })),
    path('ns/v2/', include([path('items/', view(NamespaceVersioning), { name: 'ns-items' })], { namespace: 'v2' })),
    path('query/items/', view(QueryParameterVersioning), { name: 'query-items' }),
    path('accept/items/', view(AcceptHeaderVersioning), { name: 'accept-items' }),
    path(
      'old/',
      view(null, { deprecation: new Date('2026-06-01T00:00:00Z'), successor: 'new', link: 'https://example.com/old' }),
      {
        name: 'old',
      },
    ),
    path('retired/', view(null, { sunset: PAST, successor: 'new', goneAfterSunset: true }), { name: 'retired' }),
    path('retired-kept/', view(null, { sunset: PAST }), { name: 'retired-kept' }),
    path('new/', view(null), { name: 'new' }),
    // The version says one thing, the view another: the earlier dates win, both links are sent.
    path(
      'both/<str:version>/',
      view(URLPathVersioning, {
        deprecation: new Date('2025-06-01T00:00:00Z'),
        sunset: new Date('2098-01-01T00:00:00Z'),
      }),
      {
        name: 'both',
      },
    ),
  ],
});

for (const transport of TRANSPORTS) {
  describe(`version lifecycle over ${transport}`, () => {
    let s: Served;
    let o: string;
    before(async () => {
      s = await serveApi(api, transport);
      o = s.origin;
    });
    after(() => s.close());

    test('successor-version: the same route reversed in the successor for URL path, namespace and query schemes', async () => {
      const p = await call(`${o}/path/v1/items/7/`);
      assert.equal(p.status, 200);
      assert.equal(p.headers.get('deprecation'), '@1767225600');
      assert.equal(p.headers.get('sunset'), FUTURE.toUTCString());
      assert.equal(p.headers.get('link'), `<${o}/path/v2/items/7/>; rel="successor-version"`);
      const n = await call(`${o}/ns/v1/items/`);
      assert.equal(n.headers.get('link'), `<${o}/ns/v2/items/>; rel="successor-version"`);
      const q = await call(`${o}/query/items/?version=v1&x=1`);
      assert.equal(q.headers.get('link'), `<${o}/query/items/?version=v2>; rel="successor-version"`);
      // The URL does not carry the version: no successor link, the other headers stay.
      const a = await call(`${o}/accept/items/`, { headers: { Accept: 'application/json; version=v1' } });
      assert.equal(a.headers.get('link'), null);
      assert.equal(a.headers.get('deprecation'), '@1767225600');
      // The successor version itself has no lifecycle.
      const v2 = await call(`${o}/path/v2/items/7/`);
      assert.equal(v2.headers.get('link'), null);
      assert.equal(v2.headers.get('deprecation'), null);
    });

    test('goneAfterSunset: 410 with the detail, Sunset, the deprecation page and the successor link', async () => {
      const r = await call(`${o}/path/v0/items/7/`);
      assert.equal(r.status, 410);
      assert.deepEqual(r.body, { detail: `Version "v0" was retired on ${PAST.toUTCString()}.` });
      assert.equal(r.headers.get('sunset'), PAST.toUTCString());
      assert.equal(r.headers.get('deprecation'), '@1');
      assert.equal(
        r.headers.get('link'),
        `<https://example.com/v0>; rel="deprecation"; type="text/html", <${o}/path/v1/items/7/>; rel="successor-version"`,
      );
    });

    test('deprecation per view: headers on an unversioned view, successor by URL name; 410 only when asked for', async () => {
      const old = await call(`${o}/old/`);
      assert.equal(old.status, 200);
      assert.equal(old.headers.get('deprecation'), `@${Date.parse('2026-06-01T00:00:00Z') / 1000}`);
      assert.equal(
        old.headers.get('link'),
        `<https://example.com/old>; rel="deprecation"; type="text/html", <${o}/new/>; rel="successor-version"`,
      );
      const gone = await call(`${o}/retired/`);
      assert.deepEqual(
        [gone.status, gone.body],
        [410, { detail: `This endpoint was retired on ${PAST.toUTCString()}.` }],
      );
      assert.equal(gone.headers.get('link'), `<${o}/new/>; rel="successor-version"`);
      const kept = await call(`${o}/retired-kept/`);
      assert.equal(kept.status, 200, 'a past sunset alone changes nothing');
      assert.equal(kept.headers.get('sunset'), PAST.toUTCString());
      assert.equal((await call(`${o}/new/`)).headers.get('deprecation'), null);
    });

    test('version and view lifecycles together: the earlier deprecation and sunset', async () => {
      const r = await call(`${o}/both/v1/`);
      assert.equal(r.headers.get('deprecation'), `@${Date.parse('2025-06-01T00:00:00Z') / 1000}`);
      assert.equal(r.headers.get('sunset'), new Date('2098-01-01T00:00:00Z').toUTCString());
      assert.equal(r.headers.get('link'), `<${o}/both/v2/>; rel="successor-version"`);
    });
  });
}

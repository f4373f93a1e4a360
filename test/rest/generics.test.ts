/**
 * Generic views over real HTTP (both transports) and as objects:
 * `GenericAPIView` (queryset, serializer, `paginationClass`,
 * `filterBackends`, `paginateQueryset`, `getPaginatedResponse`, the
 * `paginator` property), `ListAPIView`, `ListModelMixin`,
 * `RetrieveAPIView`, a serializer chosen per version in
 * `getSerializerClass()`, and the version headers (`Deprecation`, `Sunset`,
 * `Link`, `Vary`) a versioned view sends.
 *
 * Pagination is automatic only in generic views and viewsets. A plain
 * `APIView` paginates by calling the pagination API itself (tested below as
 * "a plain APIView calls the pagination API itself"):
 *
 * @example
 * ```ts
 * import { APIView, PageNumberPagination, Response, type Request } from 'eventide/rest';
 *
 * class ItemsByHand extends APIView {
 *   override async get(request: Request): Promise<Response> {
 *     const paginator = new PageNumberPagination();
 *     paginator.pageSize = 5;
 *     const page = await paginator.paginateQueryset(items, request);
 *     const context = { request };
 *     if (page === null) return new Response(new ItemSerializer(await items.all(), { many: true, context }).data);
 *     return paginator.getPaginatedResponse(new ItemSerializer(page, { many: true, context }).data as unknown[]);
 *   }
 * }
 * // GET /by-hand/?page=2 -> {"count": 12, "next": ".../by-hand/?page=3", "previous": ".../by-hand/", "results": [items 6..10]}
 * ```
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RestApi } from '../../src/rest/api.js';
import {
  GenericAPIView,
  ListAPIView,
  ListModelMixin,
  RetrieveAPIView,
  type SerializerLike,
} from '../../src/rest/generics.js';
import { APIView } from '../../src/rest/views.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { OrderingFilter } from '../../src/rest/filters.js';
import { LinkHeaderPagination, PageNumberPagination, LimitOffsetPagination } from '../../src/rest/pagination/index.js';
import { Request } from '../../src/rest/request.js';
import { Response } from '../../src/rest/response.js';
import { JSONRenderer } from '../../src/rest/renderers.js';
import { CharField, IntegerField } from '../../src/rest/fields.js';
import { HyperlinkedIdentityField } from '../../src/rest/relations.js';
import { Serializer } from '../../src/rest/serializers.js';
import { createSettings, type SettingsInput } from '../../src/rest/settings.js';
import { ImproperlyConfigured } from '../../src/rest/errors.js';
import {
  AcceptHeaderVersioning,
  HeaderVersioning,
  HostNameVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
} from '../../src/rest/versioning.js';
import { path } from '../../src/rest/urls/patterns.js';
import { TRANSPORTS, serveApi, call, callRaw, type Served } from '../support/rest.js';

interface Item {
  id: number;
  name: string;
  price: number;
  category: string;
}
const CATEGORIES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
const rows: Item[] = Array.from({ length: 12 }, (_, i) => ({
  id: i + 1,
  name: `item-${i + 1}`,
  price: ((i + 1) * 7919) % 500,
  category: CATEGORIES[(i + 1) % 5] as string,
}));
const items = new ArrayQueryset(rows);

class ItemSerializer extends Serializer<Item> {
  static override fields = {
    url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
    id: new IntegerField({ readOnly: true }),
    name: new CharField(),
    price: new IntegerField(),
    category: new CharField(),
  };
}
class ItemSerializerV1 extends Serializer<Item> {
  static override fields = {
    url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
    id: new IntegerField({ readOnly: true }),
    name: new CharField(),
  };
}
class PlainSerializer extends Serializer<Item> {
  static override fields = {
    id: new IntegerField({ readOnly: true }),
    name: new CharField(),
    price: new IntegerField(),
  };
}

/** The spec's example: the serializer depends on `request.version`. */
class VersionedItemList extends ListAPIView {
  override queryset = items;
  override getSerializerClass(): SerializerLike {
    if (this.request.version === 'v1') return ItemSerializerV1;
    return ItemSerializer;
  }
}
class VersionedItemDetail extends RetrieveAPIView {
  override queryset = items;
  override getSerializerClass(): SerializerLike {
    if (this.request.version === 'v1') return ItemSerializerV1;
    return ItemSerializer;
  }
}

class Linked extends LinkHeaderPagination {
  override pageSize = 5;
}
class LinkedVersionedList extends VersionedItemList {
  override paginationClass = Linked;
}

/** Paginated by DEFAULT_PAGINATION_CLASS (PAGE_SIZE 5), ordered by DEFAULT_FILTER_BACKENDS. */
class DefaultList extends ListAPIView {
  override queryset = rows;
  override serializerClass = PlainSerializer;
}
class Unpaginated extends DefaultList {
  override paginationClass = null;
}
class LimitOffsetList extends DefaultList {
  override paginationClass = LimitOffsetPagination;
}
class PlainDetail extends RetrieveAPIView {
  override queryset = items;
  override serializerClass = PlainSerializer;
}
class ByName extends PlainDetail {
  override lookupField = 'name';
}
class ByNameKwarg extends PlainDetail {
  override lookupField = 'name';
  override lookupUrlKwarg = 'slug';
}
class NoQueryset extends ListAPIView {
  override serializerClass = PlainSerializer;
}

/** A custom base with a header every response gets; ListModelMixin adds GET -> list(). */
class Tagged extends GenericAPIView {
  override headers = { 'X-Base': 'tagged' };
  override queryset = items;
  override serializerClass = PlainSerializer;
}
class TaggedList extends ListModelMixin(Tagged) {}

/** The documented example: a plain APIView paginates by calling the pagination API itself. */
class ItemsByHand extends APIView {
  override async get(request: Request): Promise<Response> {
    const paginator = new PageNumberPagination();
    paginator.pageSize = 5;
    const page = await paginator.paginateQueryset(items, request);
    const context = { request };
    if (page === null) return new Response(new PlainSerializer(await items.all(), { many: true, context }).data);
    return paginator.getPaginatedResponse(new PlainSerializer(page, { many: true, context }).data as unknown[]);
  }
}
/** A plain APIView that returns its queryset as is: no pagination happens. */
class PlainList extends APIView {
  override async get(): Promise<Response> {
    return new Response(new PlainSerializer(await items.all(), { many: true }).data);
  }
}

const LIFECYCLE: SettingsInput['VERSION_LIFECYCLE'] = {
  v1: {
    deprecation: new Date('2026-01-01T00:00:00Z'),
    sunset: new Date('2027-01-01T00:00:00Z'),
    link: 'https://example.com/v1',
  },
};

/** Collects what the API logs as internal errors. */
const logger = { error: (obj: Record<string, unknown>) => void errors.push(obj.err), warn: () => {} };

function makeApi(): RestApi {
  return new RestApi({
    logger,
    urlpatterns: [
      path('items/', DefaultList.asView(), { name: 'plain-list' }),
      path('all/', Unpaginated.asView()),
      path('limit/', LimitOffsetList.asView()),
      path('plain/<int:pk>/', PlainDetail.asView()),
      path('by-name/<str:name>/', ByName.asView()),
      path('by-slug/<str:slug>/', ByNameKwarg.asView()),
      path('broken/', NoQueryset.asView()),
      path('tagged/', TaggedList.asView()),
      path('by-hand/', ItemsByHand.asView()),
      path('plain-view/', PlainList.asView()),
      path('items/<int:pk>/', VersionedItemDetail.asView(), { name: 'item-detail' }),
      path('<str:version>/items/', VersionedItemList.asView({ versioningClass: URLPathVersioning }), {
        name: 'item-list',
      }),
      path('<str:version>/items/<int:pk>/', VersionedItemDetail.asView({ versioningClass: URLPathVersioning }), {
        name: 'item-detail',
      }),
      path('<str:version>/linked/', LinkedVersionedList.asView({ versioningClass: URLPathVersioning })),
      path('accept/', VersionedItemList.asView({ versioningClass: AcceptHeaderVersioning })),
      path('host/', VersionedItemList.asView({ versioningClass: HostNameVersioning })),
      path('header/', VersionedItemList.asView({ versioningClass: HeaderVersioning })),
      path('query/', VersionedItemList.asView({ versioningClass: QueryParameterVersioning })),
    ],
    settings: {
      DEFAULT_RENDERER_CLASSES: [JSONRenderer],
      DEFAULT_PAGINATION_CLASS: PageNumberPagination,
      PAGE_SIZE: 5,
      DEFAULT_FILTER_BACKENDS: [OrderingFilter],
      ALLOWED_VERSIONS: ['v1', 'v2'],
      DEFAULT_VERSION: 'v2',
      VERSION_LIFECYCLE: LIFECYCLE,
    },
  });
}

const plain = (r: Item) => ({ id: r.id, name: r.name, price: r.price });
const errors: unknown[] = [];

for (const transport of TRANSPORTS) {
  describe(`generic views over ${transport}`, () => {
    let s: Served;
    before(async () => {
      s = await serveApi(makeApi(), transport);
    });
    after(async () => {
      await s.close();
    });

    test('ListAPIView: DEFAULT_PAGINATION_CLASS and PAGE_SIZE apply automatically', async () => {
      const r = await call(`${s.origin}/items/?page=2`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 12,
        next: `${s.origin}/items/?page=3`,
        previous: `${s.origin}/items/`,
        results: rows.slice(5, 10).map(plain),
      });
      assert.equal(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
    });

    test('paginationClass = null: the whole list as a bare array (page ignored)', async () => {
      const r = await call(`${s.origin}/all/?page=2`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, rows.map(plain));
    });

    test('a per-view paginationClass overrides the default one', async () => {
      const r = await call(`${s.origin}/limit/?limit=2&offset=2`);
      assert.deepEqual(r.body, {
        count: 12,
        next: `${s.origin}/limit/?limit=2&offset=4`,
        previous: `${s.origin}/limit/?limit=2`,
        results: rows.slice(2, 4).map(plain),
      });
    });

    test('filterBackends left undefined: DEFAULT_FILTER_BACKENDS runs before pagination', async () => {
      const r = await call(`${s.origin}/items/?ordering=-price`);
      const expected = [...rows]
        .sort((a, b) => b.price - a.price || b.id - a.id)
        .slice(0, 5)
        .map(plain);
      assert.deepEqual(r.body, {
        count: 12,
        next: `${s.origin}/items/?ordering=-price&page=2`,
        previous: null,
        results: expected,
      });
    });

    test('a plain APIView is not paginated automatically', async () => {
      const r = await call(`${s.origin}/plain-view/?page=2`);
      assert.deepEqual(r.body, rows.map(plain));
    });

    test('a plain APIView calls the pagination API itself (the documented example)', async () => {
      const r = await call(`${s.origin}/by-hand/?page=2`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 12,
        next: `${s.origin}/by-hand/?page=3`,
        previous: `${s.origin}/by-hand/`,
        results: rows.slice(5, 10).map(plain),
      });
      const bad = await call(`${s.origin}/by-hand/?page=4`);
      assert.equal(bad.status, 404);
      assert.deepEqual(bad.body, { detail: 'Invalid page.' });
    });

    test('ListModelMixin on a custom base: GET lists, the base keeps its behaviour', async () => {
      const r = await call(`${s.origin}/tagged/`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-base'), 'tagged');
      assert.equal(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
      assert.deepEqual((r.body as { results: unknown[] }).results, rows.slice(0, 5).map(plain));
      const post = await call(`${s.origin}/tagged/`, { method: 'POST' });
      assert.equal(post.status, 405);
      assert.deepEqual(post.body, { detail: 'Method "POST" not allowed.' });
    });

    test('RetrieveAPIView with <int:pk>: the row, or 404 {"detail": "Not found."}', async () => {
      const r = await call(`${s.origin}/plain/3/`);
      assert.equal(r.status, 200);
      assert.equal(r.text, `{"id":3,"name":"item-3","price":${rows[2]!.price}}`);
      assert.equal(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
      for (const missing of ['/plain/99/', '/plain/0/', '/plain/abc/', '/plain/-1/', '/plain/1.5/']) {
        const m = await call(s.origin + missing);
        assert.equal(m.status, 404, missing);
        assert.deepEqual(m.body, { detail: 'Not found.' }, missing);
      }
    });

    test('lookupField and lookupUrlKwarg', async () => {
      assert.deepEqual((await call(`${s.origin}/by-name/item-7/`)).body, plain(rows[6]!));
      assert.deepEqual((await call(`${s.origin}/by-name/item-70/`)).body, { detail: 'Not found.' });
      assert.deepEqual((await call(`${s.origin}/by-slug/item-8/`)).body, plain(rows[7]!));
    });

    test('a view without a queryset is a logged 500 (ImproperlyConfigured)', async () => {
      const n = errors.length;
      const r = await call(`${s.origin}/broken/`);
      assert.equal(r.status, 500);
      assert.deepEqual(r.body, { detail: 'A server error occurred.' });
      assert.equal(errors.length, n + 1);
      assert.ok(errors[n] instanceof ImproperlyConfigured);
      assert.equal(
        (errors[n] as Error).message,
        'NoQueryset should either include a `queryset` attribute, or override the `getQueryset()` method.',
      );
    });

    test('getSerializerClass() per version (URLPathVersioning): v1 and v2 shapes, versioned URLs', async () => {
      const v1 = await call(`${s.origin}/v1/items/?page=3`);
      assert.equal(v1.status, 200);
      assert.deepEqual(v1.body, {
        count: 12,
        next: null,
        previous: `${s.origin}/v1/items/?page=2`,
        results: rows.slice(10).map((r) => ({ url: `${s.origin}/v1/items/${r.id}/`, id: r.id, name: r.name })),
      });
      const v2 = await call(`${s.origin}/v2/items/`);
      assert.deepEqual((v2.body as { results: unknown[] }).results[0], {
        url: `${s.origin}/v2/items/1/`,
        id: 1,
        name: 'item-1',
        price: rows[0]!.price,
        category: 'beta',
      });
      const d1 = await call(`${s.origin}/v1/items/4/`);
      assert.equal(d1.text, `{"url":"${s.origin}/v1/items/4/","id":4,"name":"item-4"}`);
      const d2 = await call(`${s.origin}/v2/items/4/`);
      assert.deepEqual(Object.keys(d2.body as object), ['url', 'id', 'name', 'price', 'category']);
      const v3 = await call(`${s.origin}/v3/items/`);
      assert.equal(v3.status, 404);
      assert.deepEqual(v3.body, { detail: 'Invalid version in URL path.' });
      const missing = await call(`${s.origin}/v1/items/99/`);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { detail: 'Not found.' });
    });

    test('the other schemes pick the serializer from request.version too', async () => {
      const q = await call(`${s.origin}/query/?version=v1`);
      assert.deepEqual((q.body as { results: unknown[] }).results[0], {
        url: `${s.origin}/items/1/?version=v1`,
        id: 1,
        name: 'item-1',
      });
      const a = await call(`${s.origin}/accept/`, { headers: { accept: 'application/json; version=v1' } });
      assert.equal(a.headers.get('content-type'), 'application/json; version=v1');
      assert.deepEqual(Object.keys((a.body as { results: object[] }).results[0]!), ['url', 'id', 'name']);
      const h = await callRaw(s.origin, '/host/', { headers: { Host: 'v1.example.com' } });
      assert.equal(h.status, 200);
      assert.deepEqual((h.body as { results: unknown[] }).results[0], {
        url: 'http://v1.example.com/items/1/',
        id: 1,
        name: 'item-1',
      });
      const x = await call(`${s.origin}/header/`, { headers: { 'x-api-version': 'v1' } });
      assert.deepEqual(Object.keys((x.body as { results: object[] }).results[0]!), ['url', 'id', 'name']);
      const def = await call(`${s.origin}/header/`);
      assert.deepEqual(
        Object.keys((def.body as { results: object[] }).results[0]!),
        ['url', 'id', 'name', 'price', 'category'],
        'DEFAULT_VERSION v2',
      );
    });

    test('version lifecycle: v1 responses carry Deprecation, Sunset and Link; v2 responses do not', async () => {
      const v1 = await call(`${s.origin}/v1/items/`);
      assert.equal(v1.headers.get('deprecation'), '@1767225600');
      assert.equal(v1.headers.get('sunset'), 'Fri, 01 Jan 2027 00:00:00 GMT');
      assert.equal(v1.headers.get('link'), '<https://example.com/v1>; rel="deprecation"; type="text/html"');
      const d1 = await call(`${s.origin}/v1/items/2/`);
      assert.equal(d1.headers.get('deprecation'), '@1767225600');
      const v2 = await call(`${s.origin}/v2/items/`);
      assert.equal(v2.status, 200);
      assert.equal(v2.headers.get('deprecation'), null);
      assert.equal(v2.headers.get('sunset'), null);
      assert.equal(v2.headers.get('link'), null);
      const q1 = await call(`${s.origin}/query/?version=v1`);
      assert.equal(q1.headers.get('sunset'), 'Fri, 01 Jan 2027 00:00:00 GMT');
      const unversioned = await call(`${s.origin}/items/`);
      assert.equal(unversioned.headers.get('deprecation'), null);
    });

    test('version lifecycle: the deprecation link joins the pagination Link header', async () => {
      const r = await call(`${s.origin}/v1/linked/?page=2`);
      assert.equal(
        r.headers.get('link'),
        `<${s.origin}/v1/linked/?page=3>; rel="next", <${s.origin}/v1/linked/>; rel="prev", <${s.origin}/v1/linked/>; rel="first", <${s.origin}/v1/linked/?page=3>; rel="last", <https://example.com/v1>; rel="deprecation"; type="text/html"`,
      );
      const v2 = await call(`${s.origin}/v2/linked/?page=2`);
      assert.equal(
        v2.headers.get('link'),
        `<${s.origin}/v2/linked/?page=3>; rel="next", <${s.origin}/v2/linked/>; rel="prev", <${s.origin}/v2/linked/>; rel="first", <${s.origin}/v2/linked/?page=3>; rel="last"`,
      );
    });

    test('Vary names the request header the version came from', async () => {
      assert.equal((await call(`${s.origin}/accept/`)).headers.get('vary'), 'Accept');
      assert.equal((await call(`${s.origin}/host/`)).headers.get('vary'), 'Host');
      assert.equal((await call(`${s.origin}/header/`)).headers.get('vary'), 'X-API-Version');
      assert.equal(
        (await call(`${s.origin}/query/`)).headers.get('vary'),
        null,
        'a query parameter is part of the URL',
      );
      assert.equal((await call(`${s.origin}/v2/items/`)).headers.get('vary'), null, 'the path is part of the URL');
      const bad = await call(`${s.origin}/header/`, { headers: { 'x-api-version': 'v9' } });
      assert.equal(bad.status, 406);
      assert.deepEqual(bad.body, { detail: 'Invalid version in "X-API-Version" header.' });
    });
  });
}

// ------------------------------------------------------------------ objects

function requestFor(target: string, settings: SettingsInput = {}): Request {
  return new Request(
    { method: 'GET', target, headers: [['Host', 'testserver']], body: null, secure: false },
    createSettings(settings),
  );
}

function viewOf<V extends GenericAPIView>(Cls: new () => V, target = '/', settings: SettingsInput = {}): V {
  const view = new Cls();
  view.request = requestFor(target, settings);
  return view;
}

class Bare extends GenericAPIView {}
class WithPages extends GenericAPIView {
  override queryset = rows;
  override serializerClass = PlainSerializer;
  override paginationClass = PageNumberPagination;
}

test('paginator: one instance per view (per request), from paginationClass or DEFAULT_PAGINATION_CLASS', () => {
  const a = viewOf(WithPages);
  assert.ok(a.paginator instanceof PageNumberPagination);
  assert.equal(a.paginator, a.paginator, 'the same instance within a request');
  assert.notEqual(viewOf(WithPages).paginator, a.paginator, 'a new one per view instance');
  assert.equal(viewOf(Bare).paginator, null, 'no default pagination class');
  assert.ok(
    viewOf(Bare, '/', { DEFAULT_PAGINATION_CLASS: LimitOffsetPagination }).paginator instanceof LimitOffsetPagination,
  );
  const off = viewOf(Bare, '/', { DEFAULT_PAGINATION_CLASS: LimitOffsetPagination });
  off.paginationClass = null;
  assert.equal(off.paginator, null, 'null beats the default');
});

test('paginateQueryset / getPaginatedResponse', async () => {
  const v = viewOf(WithPages, '/x/?page=3', { PAGE_SIZE: 5, DEFAULT_PAGINATION_CLASS: PageNumberPagination });
  const page = await v.paginateQueryset(v.filterQueryset(v.getQueryset()));
  assert.deepEqual(page, rows.slice(10));
  const res = v.getPaginatedResponse(['a', 'b']);
  assert.deepEqual(res.data, { count: 12, next: null, previous: 'http://testserver/x/?page=2', results: ['a', 'b'] });

  const noSize = viewOf(WithPages, '/x/');
  assert.equal(await noSize.paginateQueryset(noSize.getQueryset()), null, 'no PAGE_SIZE: the paginator declines');

  const none = viewOf(Bare);
  none.queryset = rows;
  assert.equal(await none.paginateQueryset(none.getQueryset()), null);
  assert.throws(() => none.getPaginatedResponse([]), ImproperlyConfigured);
});

test('getQueryset wraps arrays; getSerializerClass / getQueryset without configuration throw ImproperlyConfigured', async () => {
  const v = viewOf(Bare);
  assert.throws(() => v.getQueryset(), {
    name: 'ImproperlyConfigured',
    message: 'Bare should either include a `queryset` attribute, or override the `getQueryset()` method.',
  });
  assert.throws(() => v.getSerializerClass(), {
    name: 'ImproperlyConfigured',
    message: 'Bare should either include a `serializerClass` attribute, or override the `getSerializerClass()` method.',
  });
  v.queryset = rows;
  const qs = v.getQueryset();
  assert.equal(await qs.count(), 12);
  assert.equal(qs.primaryKey, 'id');
  v.queryset = items;
  assert.equal(v.getQueryset(), items, 'a queryset is used as it is');
});

test('getSerializer passes many and the context (request, view, format)', () => {
  let seen: { many?: boolean; context?: Record<string, unknown> } | undefined;
  class Spy {
    readonly data = 'spy';
    constructor(_instance: unknown, options?: { many?: boolean; context?: Record<string, unknown> }) {
      seen = options;
    }
  }
  const v = viewOf(Bare);
  v.serializerClass = Spy;
  assert.equal(v.getSerializer([], { many: true }).data, 'spy');
  assert.equal(seen?.many, true);
  assert.equal(seen?.context?.['request'], v.request);
  assert.equal(seen?.context?.['view'], v);
  assert.equal(seen?.context?.['format'], null);
  v.getSerializer({});
  assert.equal(seen?.many, false);
});

test('getObject without the URL keyword argument is ImproperlyConfigured', async () => {
  const v = viewOf(PlainDetail);
  await assert.rejects(v.getObject(), {
    name: 'ImproperlyConfigured',
    message: /Expected view PlainDetail to be called with a URL keyword argument named "pk"/,
  });
});

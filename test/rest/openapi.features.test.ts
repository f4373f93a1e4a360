/**
 * OpenAPI document features: serializer schemas in `components.schemas`
 * (named after the class, unique) referred to with `$ref`; response headers
 * contributed by the paginator (`Link` for LinkHeaderPagination, its
 * total-count header when set, a custom `getPaginatedResponseHeaders()`),
 * the documented `Link` header matching the one sent; link examples of the
 * endpoint's own URL (from `serverUrl`, `exampleBaseUrl`, or the request
 * that fetched the document); `deprecated` for a view with a `deprecation`
 * of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestApi } from '../../src/rest/api.js';
import { CharField, IntegerField } from '../../src/rest/fields.js';
import { ListAPIView, RetrieveAPIView, type SerializerLike } from '../../src/rest/generics.js';
import { generateOpenApi, openApiView, type OpenApiDocument } from '../../src/rest/openapi.js';
import type { PaginatedSchemaOptions } from '../../src/rest/openapi-pagination.js';
import {
  CursorPagination,
  LinkHeaderPagination,
  PageNumberPagination,
  type JsonSchema,
} from '../../src/rest/pagination/index.js';
import { Serializer } from '../../src/rest/serializers.js';
import type { PaginationClass } from '../../src/rest/settings.js';
import { path } from '../../src/rest/urls/patterns.js';
import { URLPathVersioning } from '../../src/rest/versioning.js';
import { call, callRaw, serveApi } from '../support/rest.js';

type Json = Record<string, unknown>;
type Op = {
  deprecated?: boolean;
  responses: Record<string, { headers?: Record<string, Json>; content: Record<string, { schema: Json }> }>;
};
const op = (doc: OpenApiDocument, p: string, method = 'get'): Op => {
  const o = doc.paths[p]?.[method];
  assert.ok(o, `${method} ${p} in ${Object.keys(doc.paths).join(' ')}`);
  return o as unknown as Op;
};
const schema = (o: Op): Json => o.responses['200']?.content['application/json']?.schema as Json;
const headers = (o: Op): Record<string, Json> | undefined => o.responses['200']?.headers;

const rows = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` }));

class ItemSerializer extends Serializer {
  static override fields = { id: new IntegerField({ readOnly: true }), name: new CharField() };
}
/** Another class of the same name (as from another module). */
const OtherItemSerializer = (() => {
  class ItemSerializer extends Serializer {
    static override fields = { id: new IntegerField({ readOnly: true }) };
  }
  return ItemSerializer;
})();
class ItemSerializerV1 extends Serializer {
  static override fields = { name: new CharField() };
}

class Pages extends PageNumberPagination {
  override pageSize = 10;
}
class Linked extends LinkHeaderPagination {
  override pageSize = 10;
}
class LinkedCounted extends Linked {
  constructor() {
    super();
    (this as { totalCountHeader?: string | null }).totalCountHeader = 'X-Total-Count';
  }
}
class LinkedUncounted extends Linked {
  override includeCount = false;
}
/** A custom style with a header of its own: getPaginatedResponseHeaders() receives the endpoint's URL. */
class PageHeader extends PageNumberPagination {
  override pageSize = 10;
  getPaginatedResponseHeaders(options: PaginatedSchemaOptions = {}): Record<string, JsonSchema> {
    return { 'X-Page-Of': { description: String(options.url), schema: { type: 'string' } } };
  }
}

function list(name: string, pc: PaginationClass | null, ser: SerializerLike = ItemSerializer) {
  class L extends ListAPIView {
    override queryset = rows;
    override serializerClass = ser;
    override paginationClass = pc;
  }
  Object.defineProperty(L, 'name', { value: name });
  return L.asView();
}
class Detail extends RetrieveAPIView {
  override queryset = rows;
  override serializerClass: SerializerLike = ItemSerializer;
}
class OtherDetail extends Detail {
  override serializerClass = OtherItemSerializer;
}
/** A view deprecated on its own (APIView's `deprecation` lifecycle; set in the constructor, as the attribute is new). */
class DeprecatedDetail extends Detail {
  constructor() {
    super();
    (this as { deprecation?: unknown }).deprecation = { deprecation: new Date('2026-06-01T00:00:00Z') };
  }
}
class NotDeprecatedDetail extends Detail {
  constructor() {
    super();
    (this as { deprecation?: unknown }).deprecation = null;
  }
}

function buildApi(): RestApi {
  return new RestApi({
    urlpatterns: [
      path('items/', list('Items', Pages), { name: 'items' }),
      path('items/<int:pk>/', Detail.asView(), { name: 'item-detail' }),
      path('other/<int:pk>/', OtherDetail.asView(), { name: 'other-detail' }),
      path('cursor/', list('CursorItems', class extends CursorPagination {}), { name: 'cursor' }),
      path('link/', list('LinkItems', Linked), { name: 'link' }),
      path('link-counted/', list('LinkCounted', LinkedCounted), { name: 'link-counted' }),
      path('link-uncounted/', list('LinkUncounted', LinkedUncounted), { name: 'link-uncounted' }),
      path('page-header/', list('PageHeaderItems', PageHeader), { name: 'page-header' }),
      path('flat/', list('Flat', null), { name: 'flat' }),
      path('old/<int:pk>/', DeprecatedDetail.asView(), { name: 'old' }),
      path('current/<int:pk>/', NotDeprecatedDetail.asView(), { name: 'current' }),
      path('openapi.json', openApiView({ title: 'Items', version: null }), { name: 'openapi' }),
    ],
    settings: { DEFAULT_PAGINATION_CLASS: Pages },
  });
}

test('components.schemas: one per serializer class, named after it (unique), referred to with $ref', () => {
  const doc = generateOpenApi(buildApi(), { version: null });
  assert.deepEqual(
    Object.keys(doc.components?.schemas ?? {}).filter((n) => n.startsWith('Item')),
    ['ItemSerializer', 'ItemSerializer2'],
  );
  assert.deepEqual(doc.components?.schemas['ItemSerializer'], {
    type: 'object',
    properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } },
    required: ['id', 'name'],
  });
  assert.deepEqual(doc.components?.schemas['ItemSerializer2'], {
    type: 'object',
    properties: { id: { type: 'integer', readOnly: true } },
    required: ['id'],
  });
  const ref = { $ref: '#/components/schemas/ItemSerializer' };
  assert.deepEqual(schema(op(doc, '/items/{pk}/')), ref, 'a detail response is the $ref');
  assert.deepEqual(schema(op(doc, '/other/{pk}/')), { $ref: '#/components/schemas/ItemSerializer2' });
  assert.deepEqual(schema(op(doc, '/flat/')), { type: 'array', items: ref }, 'an unpaginated list');
  assert.deepEqual((schema(op(doc, '/items/'))['properties'] as Json)['results'], { type: 'array', items: ref });
});

test('components per version: each document holds the serializers of its own version', () => {
  class Versioned extends ListAPIView {
    override queryset = rows;
    override versioningClass = URLPathVersioning;
    override getSerializerClass() {
      return this.request.version === 'v1' ? ItemSerializerV1 : ItemSerializer;
    }
  }
  const api = new RestApi({
    urlpatterns: [path('<str:version>/items/', Versioned.asView(), { name: 'items' })],
    settings: { ALLOWED_VERSIONS: ['v1', 'v2'] },
  });
  const serializers = (version: string): string[] =>
    Object.keys(generateOpenApi(api, { version }).components?.schemas ?? {}).filter((n) => n.startsWith('Item'));
  assert.deepEqual(serializers('v1'), ['ItemSerializerV1']);
  assert.deepEqual(serializers('v2'), ['ItemSerializer']);
});

test('LinkHeaderPagination: the bare page, and the Link header (with X-Total-Count when set) on the response', () => {
  const doc = generateOpenApi(buildApi(), { version: null, serverUrl: 'http://h' });
  const link = op(doc, '/link/');
  assert.deepEqual(schema(link), { type: 'array', items: { $ref: '#/components/schemas/ItemSerializer' } });
  const h = headers(link);
  assert.deepEqual(Object.keys(h ?? {}), ['Link']);
  assert.deepEqual(h?.['Link']?.['schema'], { type: 'string' });
  assert.match(String(h?.['Link']?.['description']), /RFC 8288/);
  assert.equal(
    h?.['Link']?.['example'],
    '<http://h/link/?page=3>; rel="next", <http://h/link/>; rel="prev", <http://h/link/>; rel="first", <http://h/link/?page=13>; rel="last"',
  );
  const counted = headers(op(doc, '/link-counted/'));
  assert.deepEqual(Object.keys(counted ?? {}), ['Link', 'X-Total-Count']);
  assert.deepEqual(counted?.['X-Total-Count']?.['schema'], { type: 'integer', minimum: 0 });
  const uncounted = headers(op(doc, '/link-uncounted/'));
  assert.ok(!String(uncounted?.['Link']?.['example']).includes('rel="last"'), 'no last link without a count');
  assert.equal(headers(op(doc, '/items/')), undefined, 'other styles send no header');
  assert.deepEqual(headers(op(doc, '/page-header/')), {
    'X-Page-Of': { description: 'http://h/page-header/', schema: { type: 'string' } },
  });
});

test('the documented Link header has the rels, in the order, of the one sent', async () => {
  const served = await serveApi(buildApi(), 'node');
  try {
    const doc = (await call(`${served.origin}/openapi.json`)).body as OpenApiDocument;
    const documented = String(headers(op(doc, '/link-counted/'))?.['Link']?.['example']);
    const r = await call(`${served.origin}/link-counted/?page=2`);
    const rels = (s: string) => [...s.matchAll(/rel="(\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(rels(r.headers.get('link') ?? ''), rels(documented));
    assert.ok(documented.startsWith(`<${served.origin}/link-counted/?page=3>`), documented);
  } finally {
    await served.close();
  }
});

test('link examples: the endpoint URL from serverUrl (servers set) or exampleBaseUrl (no servers); none made up', () => {
  const api = buildApi();
  const next = (d: OpenApiDocument, p: string) =>
    ((schema(op(d, p))['properties'] as Record<string, Json>)['next'] as Json)['examples'];
  const withServer = generateOpenApi(api, { version: null, serverUrl: 'https://api.example.com/v/' });
  assert.deepEqual(withServer.servers, [{ url: 'https://api.example.com/v/' }]);
  assert.deepEqual(next(withServer, '/items/'), ['https://api.example.com/v/items/?page=4']);
  assert.match(
    String((next(withServer, '/cursor/') as string[])[0]),
    /^https:\/\/api\.example\.com\/v\/cursor\/\?cursor=/,
  );
  const withBase = generateOpenApi(api, { version: null, exampleBaseUrl: 'http://127.0.0.1:8000' });
  assert.equal(withBase.servers, undefined);
  assert.deepEqual(next(withBase, '/items/'), ['http://127.0.0.1:8000/items/?page=4']);
  assert.deepEqual(
    next(generateOpenApi(api, { version: null }), '/items/'),
    ['/items/?page=4'],
    'a path when no server is known',
  );
  assert.ok(!JSON.stringify(withServer).includes('api.example.org'));
});

test("openApiView: the link examples start with the request's origin (Host), one document per origin", async () => {
  const served = await serveApi(buildApi(), 'eventhttp');
  try {
    const a = (await callRaw(served.origin, '/openapi.json', { headers: { Host: 'a.test' } })).body as OpenApiDocument;
    const b = (await callRaw(served.origin, '/openapi.json', { headers: { Host: 'b.test:81' } }))
      .body as OpenApiDocument;
    assert.match(JSON.stringify(a.paths['/items/']), /"http:\/\/a\.test\/items\/\?page=4"/);
    assert.match(JSON.stringify(b.paths['/items/']), /"http:\/\/b\.test:81\/items\/\?page=4"/);
    // Many hosts: the cache stays bounded and every answer is right.
    for (let i = 0; i < 40; i++) {
      const d = (await callRaw(served.origin, '/openapi.json', { headers: { Host: `h${i}.test` } }))
        .body as OpenApiDocument;
      assert.match(JSON.stringify(d.paths['/items/']), new RegExp(`"http://h${i}\\.test/items/\\?page=4"`));
    }
  } finally {
    await served.close();
  }
});

test('deprecated: a view with a deprecation of its own (null: not deprecated)', () => {
  const doc = generateOpenApi(buildApi(), { version: null });
  assert.equal(op(doc, '/old/{pk}/').deprecated, true);
  assert.equal(op(doc, '/current/{pk}/').deprecated, undefined);
  assert.equal(op(doc, '/items/{pk}/').deprecated, undefined);
});

/**
 * OpenAPI documents: `generateOpenApi(api, { version })` and `openApiView()`.
 * Paths per version under URLPathVersioning (version substituted, routes
 * whose version pattern does not fit left out) and NamespaceVersioning
 * (namespace routes only in their version's document), the `version`
 * parameter of QueryParameterVersioning, the pagination parameters and
 * paginated response shapes of reference section 6 wrapping the
 * serializer's item schema, the OrderingFilter parameter, `deprecated` from
 * VERSION_LIFECYCLE, a minimal structural check of every document, and the
 * document served over HTTP (both transports).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RestApi } from '../../src/rest/api.js';
import { generateOpenApi, openApiView, serializerSchema, type OpenApiDocument } from '../../src/rest/openapi.js';
import { ListAPIView, RetrieveAPIView, type SerializerLike } from '../../src/rest/generics.js';
import { ReadOnlyModelViewSet } from '../../src/rest/viewsets.js';
import { DefaultRouter } from '../../src/rest/routers.js';
import { APIView } from '../../src/rest/views.js';
import { Response } from '../../src/rest/response.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { OrderingFilter } from '../../src/rest/filters.js';
import {
  CursorPagination,
  LimitOffsetPagination,
  PageNumberPagination,
  type JsonSchema,
} from '../../src/rest/pagination/index.js';
import { JSONRenderer } from '../../src/rest/renderers.js';
import { CharField, DateTimeField, IntegerField } from '../../src/rest/fields.js';
import { HyperlinkedIdentityField } from '../../src/rest/relations.js';
import { Serializer } from '../../src/rest/serializers.js';
import {
  AcceptHeaderVersioning,
  HeaderVersioning,
  NamespaceVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
} from '../../src/rest/versioning.js';
import type { SettingsInput } from '../../src/rest/settings.js';
import { include, path, rePath, type URLEntry } from '../../src/rest/urls/patterns.js';
import { TRANSPORTS, serveApi, call, type Served } from '../support/rest.js';
import {
  CURSOR_PARAMETER,
  LIMIT_PARAMETER,
  OFFSET_PARAMETER,
  PAGE_PARAMETER,
  PAGE_SIZE_PARAMETER,
} from '../support/schema-parameters.js';

const items = new ArrayQueryset([{ id: 1, name: 'one', price: 3, created: new Date('2020-01-01T00:00:01Z') }]);

class ItemSerializer extends Serializer {
  static override fields = {
    url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
    id: new IntegerField({ readOnly: true }),
    name: new CharField(),
    price: new IntegerField(),
    created: new DateTimeField({ readOnly: true }),
  };
}
class ItemSerializerV1 extends Serializer {
  static override fields = { id: new IntegerField({ readOnly: true }), name: new CharField() };
}

const ITEM: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri', readOnly: true },
    id: { type: 'integer', readOnly: true },
    name: { type: 'string' },
    price: { type: 'integer' },
    created: { type: 'string', format: 'date-time', readOnly: true },
  },
  // A response has every readable field: the read-only ones (always sent) too.
  required: ['url', 'id', 'name', 'price', 'created'],
};
const ITEM_V1: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } },
  required: ['id', 'name'],
};

class Pages extends PageNumberPagination {
  override pageSize = 10;
  override pageSizeQueryParam = 'page_size';
}
class Cursor extends CursorPagination {
  override pageSize = 10;
  override ordering = 'created';
}
class CursorSized extends Cursor {
  override pageSizeQueryParam = 'size';
}

class ItemList extends ListAPIView {
  override queryset = items;
  override getSerializerClass(): SerializerLike {
    return this.request.version === 'v1' ? ItemSerializerV1 : ItemSerializer;
  }
}
class ItemDetail extends RetrieveAPIView {
  override queryset = items;
  override serializerClass = ItemSerializer;
}
class PagedList extends ItemList {
  override paginationClass = Pages;
}
class LimitList extends ItemList {
  override paginationClass = LimitOffsetPagination;
}
class CursorList extends ItemList {
  override paginationClass = Cursor;
  override filterBackends = [OrderingFilter];
}
class CursorSizedList extends ItemList {
  override paginationClass = CursorSized;
}
class FlatList extends ItemList {
  override paginationClass = null;
}
class Hidden extends ItemList {
  override excludeFromSchema = true;
}
class Hello extends APIView {
  override description = 'Says hello.';
  override get(): Response {
    return new Response({ hello: 'world' });
  }
  override post(): Response {
    return new Response({}, { status: 201 });
  }
}
class ItemViewSet extends ReadOnlyModelViewSet {
  override queryset = items;
  override serializerClass = ItemSerializer;
}

const PAGE = PAGE_PARAMETER;
const PAGE_SIZE = PAGE_SIZE_PARAMETER;
const LIMIT = LIMIT_PARAMETER;
const OFFSET = OFFSET_PARAMETER;
const CURSOR = CURSOR_PARAMETER;
/** The ordering of a view whose valid fields are its serializer's (ItemSerializer): a comma-separated list of them. */
const ORDERING = {
  name: 'ordering',
  required: false,
  in: 'query',
  description: 'Which field to use when ordering the results.',
  schema: {
    type: 'array',
    items: { type: 'string', enum: ['id', '-id', 'name', '-name', 'price', '-price', 'created', '-created'] },
  },
  style: 'form',
  explode: false,
};
/** An `int` path parameter. */
const PK = { name: 'pk', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } };

/** A link of a page envelope: a URI or null (a JSON Schema 2020-12 type array), with the example of the endpoint's URL. */
const link = (example: string): JsonSchema => ({ type: ['string', 'null'], format: 'uri', examples: [example] });

function pageEnvelope(results: JsonSchema, url: string, param = 'page'): JsonSchema {
  return {
    type: 'object',
    required: ['count', 'next', 'previous', 'results'],
    properties: {
      count: { type: 'integer', minimum: 0, examples: [123] },
      next: link(`${url}?${param}=4`),
      previous: link(`${url}?${param}=2`),
      results,
    },
  };
}
function limitEnvelope(results: JsonSchema, url: string): JsonSchema {
  return {
    type: 'object',
    required: ['count', 'next', 'previous', 'results'],
    properties: {
      count: { type: 'integer', minimum: 0, examples: [123] },
      next: link(`${url}?limit=100&offset=400`),
      previous: link(`${url}?limit=100&offset=200`),
      results,
    },
  };
}
function cursorEnvelope(results: JsonSchema, url: string): JsonSchema {
  return {
    type: 'object',
    required: ['next', 'previous', 'results'],
    properties: {
      next: link(`${url}?cursor=cD00ODY%3D`),
      previous: link(`${url}?cursor=cj0xJnA9NDg3`),
      results,
    },
  };
}
const arrayOf = (item: JsonSchema): JsonSchema => ({ type: 'array', items: item });

type Operation = {
  operationId: string;
  parameters?: JsonSchema[];
  responses: Record<string, { content: Record<string, { schema: JsonSchema }> }>;
  deprecated?: boolean;
  description?: string;
  summary: string;
};
/** The document of each operation op() returned (schemaOf() resolves the operation's `$ref`s in it). */
const docOf = new WeakMap<object, OpenApiDocument>();
/**
 * The operation of `p` and `method`, its parameters without `?format=`
 * (which every operation has: openapi.contract.test.ts checks it), so that
 * these tests compare the parameters of each concern.
 */
const op = (doc: OpenApiDocument, p: string, method = 'get'): Operation => {
  const o = doc.paths[p]?.[method];
  assert.ok(o, `${method.toUpperCase()} ${p} in ${Object.keys(doc.paths).join(', ')}`);
  docOf.set(o, doc);
  const parameters = (o.parameters as JsonSchema[] | undefined)?.filter((x) => x.name !== 'format');
  const out = { ...o, parameters: parameters?.length ? parameters : undefined } as unknown as Operation;
  docOf.set(out, doc);
  return out;
};
/** `schema` with every `$ref` to `components.schemas` of `doc` replaced by the schema it names. */
function inlineRefs(doc: OpenApiDocument, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((x) => inlineRefs(doc, x));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas[name];
    assert.ok(target, `${ref} resolves`);
    return inlineRefs(doc, target);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(doc, v)]));
}
/** The response schema of an operation, `$ref`s resolved. */
const schemaOf = (o: Operation, status = '200'): JsonSchema =>
  inlineRefs(
    docOf.get(o) as OpenApiDocument,
    o.responses[status]?.content['application/json']?.schema ?? assert.fail(`no ${status} schema`),
  ) as JsonSchema;

/** Minimal structural validity, checked by hand. */
function checkStructure(doc: OpenApiDocument): void {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(typeof doc.info.title, 'string');
  assert.equal(typeof doc.info.version, 'string');
  const ids = new Set<string>();
  for (const [p, item] of Object.entries(doc.paths)) {
    assert.ok(p.startsWith('/'), `path ${p} starts with /`);
    const names = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, raw] of Object.entries(item)) {
      assert.ok(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method), method);
      const o = raw as unknown as Operation;
      assert.ok(o.responses && Object.keys(o.responses).length > 0, `${method} ${p} has responses`);
      for (const [status, r] of Object.entries(o.responses)) {
        assert.match(status, /^[1-5][0-9][0-9]$/);
        assert.equal(
          typeof (r as unknown as { description: unknown }).description,
          'string',
          'a response has a description',
        );
      }
      assert.ok(!ids.has(o.operationId), `operationId ${o.operationId} is unique`);
      ids.add(o.operationId);
      const params = (o.parameters ?? []) as { name: string; in: string; required?: boolean }[];
      const pathParams = params.filter((x) => x.in === 'path');
      assert.deepEqual(pathParams.map((x) => x.name).sort(), [...names].sort(), `path parameters of ${method} ${p}`);
      for (const x of pathParams) assert.equal(x.required, true, 'path parameters are required');
      const keys = params.map((x) => `${x.in}:${x.name}`);
      assert.equal(new Set(keys).size, keys.length, `no duplicate parameter in ${method} ${p}`);
      for (const x of params) assert.ok(['query', 'header', 'path', 'cookie'].includes(x.in));
    }
  }
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(doc)));
}

const LIFECYCLE: SettingsInput['VERSION_LIFECYCLE'] = {
  v1: { deprecation: new Date('2026-01-01T00:00:00Z'), sunset: new Date('2027-01-01T00:00:00Z') },
};

function urlPathApi(): RestApi {
  return new RestApi({
    urlpatterns: [
      rePath('^(?P<version>v1|v2)/items/$', ItemList.asView(), { name: 'item-list' }),
      path('<str:version>/items/<int:pk>/', ItemDetail.asView(), { name: 'item-detail' }),
      rePath('^(?P<version>v2)/paged/$', PagedList.asView(), { name: 'paged' }),
      rePath('^(?P<version>v[0-9]+)/limit/$', LimitList.asView(), { name: 'limit' }),
      rePath('^(?P<version>v1|v2)/cursor/$', CursorList.asView(), { name: 'cursor' }),
      rePath('^(?P<version>v1|v2)/cursor-sized/$', CursorSizedList.asView(), { name: 'cursor-sized' }),
      rePath('^(?P<version>v1|v2)/flat/$', FlatList.asView(), { name: 'flat' }),
      rePath('^(?P<version>v1|v2)/hidden/$', Hidden.asView(), { name: 'hidden' }),
      path('hello/', Hello.asView(), { name: 'hello' }),
      path('openapi.json', openApiView({ title: 'Items', version: 'v2' }), { name: 'openapi' }),
      rePath('^(?P<version>v1|v2)/openapi.json$', openApiView({ title: 'Items' }), { name: 'openapi-versioned' }),
    ],
    settings: {
      DEFAULT_RENDERER_CLASSES: [JSONRenderer],
      DEFAULT_VERSIONING_CLASS: URLPathVersioning,
      ALLOWED_VERSIONS: ['v1', 'v2'],
      DEFAULT_PAGINATION_CLASS: PageNumberPagination,
      PAGE_SIZE: 10,
      VERSION_LIFECYCLE: LIFECYCLE,
    },
  });
}

test('URLPathVersioning: each document has its version substituted into the paths', () => {
  const api = urlPathApi();
  const v1 = generateOpenApi(api, { version: 'v1', title: 'Items' });
  const v2 = generateOpenApi(api, { version: 'v2' });
  checkStructure(v1);
  checkStructure(v2);
  assert.deepEqual(v1.info, { title: 'Items', version: 'v1' });
  assert.deepEqual(Object.keys(v1.paths), [
    '/v1/items/',
    '/v1/items/{pk}/',
    '/v1/limit/',
    '/v1/cursor/',
    '/v1/cursor-sized/',
    '/v1/flat/',
    '/hello/',
  ]);
  assert.deepEqual(Object.keys(v2.paths), [
    '/v2/items/',
    '/v2/items/{pk}/',
    '/v2/paged/',
    '/v2/limit/',
    '/v2/cursor/',
    '/v2/cursor-sized/',
    '/v2/flat/',
    '/hello/',
  ]);
  assert.equal(v1.paths['/v1/paged/'], undefined, 'the route only fits v2');
  assert.deepEqual(op(v1, '/v1/items/{pk}/').parameters, [PK], 'the version is not a parameter');
  assert.equal(
    Object.keys(generateOpenApi(api, { version: 'v7' }).paths).includes('/v7/limit/'),
    true,
    'v[0-9]+ fits v7',
  );
});

test('URLPathVersioning: the serializer of each version (getSerializerClass() sees the version)', () => {
  const api = urlPathApi();
  assert.deepEqual(
    schemaOf(op(generateOpenApi(api, { version: 'v1' }), '/v1/items/')),
    pageEnvelope(arrayOf(ITEM_V1), '/v1/items/'),
  );
  assert.deepEqual(
    schemaOf(op(generateOpenApi(api, { version: 'v2' }), '/v2/items/')),
    pageEnvelope(arrayOf(ITEM), '/v2/items/'),
  );
});

test('the unversioned document keeps {version} and declares it', () => {
  const doc = generateOpenApi(urlPathApi(), { version: null });
  checkStructure(doc);
  assert.deepEqual(doc.info.version, '1.0.0');
  assert.deepEqual(op(doc, '/{version}/items/{pk}/').parameters, [
    { name: 'version', in: 'path', required: true, schema: { type: 'string' } },
    PK,
  ]);
  assert.ok(doc.paths['/{version}/paged/']);
});

test('pagination parameters of each list endpoint (reference section 6), then the filter parameters', () => {
  const doc = generateOpenApi(urlPathApi(), { version: 'v2' });
  assert.deepEqual(
    op(doc, '/v2/items/').parameters,
    [PAGE],
    'DEFAULT_PAGINATION_CLASS: page only (no page size parameter)',
  );
  assert.deepEqual(op(doc, '/v2/paged/').parameters, [PAGE, PAGE_SIZE]);
  assert.deepEqual(op(doc, '/v2/limit/').parameters, [LIMIT, OFFSET]);
  assert.deepEqual(op(doc, '/v2/cursor/').parameters, [CURSOR, ORDERING]);
  assert.deepEqual(op(doc, '/v2/cursor-sized/').parameters, [CURSOR, { ...PAGE_SIZE, name: 'size' }]);
  assert.equal(op(doc, '/v2/flat/').parameters, undefined, 'paginationClass = null: no pagination parameters');
  assert.deepEqual(
    op(doc, '/v2/items/{pk}/').parameters?.map((p) => p['name']),
    ['pk'],
    'a retrieve view has no pagination parameters',
  );
});

test("paginated response schemas (reference section 6 main shapes) wrap the serializer's item schema", () => {
  const doc = generateOpenApi(urlPathApi(), { version: 'v2' });
  assert.deepEqual(schemaOf(op(doc, '/v2/paged/')), pageEnvelope(arrayOf(ITEM), '/v2/paged/'));
  assert.deepEqual(schemaOf(op(doc, '/v2/limit/')), limitEnvelope(arrayOf(ITEM), '/v2/limit/'));
  assert.deepEqual(schemaOf(op(doc, '/v2/cursor/')), cursorEnvelope(arrayOf(ITEM), '/v2/cursor/'));
  assert.deepEqual(schemaOf(op(doc, '/v2/flat/')), arrayOf(ITEM));
  assert.deepEqual(schemaOf(op(doc, '/v2/items/{pk}/')), ITEM);
  assert.deepEqual(serializerSchema(ItemSerializer), ITEM);
});

test('deprecated: true for a version with a deprecation in VERSION_LIFECYCLE', () => {
  const api = urlPathApi();
  const v1 = generateOpenApi(api, { version: 'v1' });
  const v2 = generateOpenApi(api, { version: 'v2' });
  for (const item of Object.values(v1.paths))
    for (const o of Object.values(item)) assert.equal((o as Operation).deprecated, true);
  for (const item of Object.values(v2.paths))
    for (const o of Object.values(item)) assert.equal((o as Operation).deprecated, undefined);
});

test('plain APIViews: one operation per method, status 201 for POST; excluded views are absent', () => {
  const doc = generateOpenApi(urlPathApi(), { version: 'v2' });
  const hello = doc.paths['/hello/'] as Record<string, unknown>;
  assert.deepEqual(Object.keys(hello), ['get', 'post', 'head', 'options']);
  assert.deepEqual(op(doc, '/hello/').description, 'Says hello.');
  assert.deepEqual(
    Object.keys(op(doc, '/hello/', 'post').responses),
    ['201', '400', '404', '406', '413', '415'],
    'POST: created, the errors of a body (400 unparsable, 413 too large, 415 unsupported), of Accept, and 404:' +
      ' without DEFAULT_VERSION a route with no version in its path is refused (null is not an allowed version)',
  );
  assert.equal(op(doc, '/hello/').parameters, undefined, 'not a generic view: no pagination');
  assert.equal(doc.paths['/v2/hidden/'], undefined);
  assert.equal(doc.paths['/openapi.json'], undefined);
  assert.equal(doc.paths['/v2/openapi.json'], undefined);
});

test("NamespaceVersioning: namespaced routes only in their version's document", () => {
  const shared: URLEntry[] = [
    path('items/', ItemList.asView(), { name: 'item-list' }),
    path('items/<int:pk>/', ItemDetail.asView(), { name: 'item-detail' }),
  ];
  const only2: URLEntry[] = [path('extra/', PagedList.asView(), { name: 'extra' })];
  const build = (settings: SettingsInput) =>
    new RestApi({
      urlpatterns: [
        path('v1/', include(shared, { namespace: 'v1' })),
        path('v2/', include([...shared, ...only2], { namespace: 'v2' })),
        path('api/', include([path('v1/', include(shared, { namespace: 'v1' }))], { namespace: 'api' })),
        path('hello/', Hello.asView(), { name: 'hello' }),
      ],
      settings: {
        DEFAULT_VERSIONING_CLASS: NamespaceVersioning,
        DEFAULT_PAGINATION_CLASS: PageNumberPagination,
        PAGE_SIZE: 5,
        ...settings,
      },
    });
  const restricted = build({ ALLOWED_VERSIONS: ['v1', 'v2'] });
  const v1 = generateOpenApi(restricted, { version: 'v1' });
  const v2 = generateOpenApi(restricted, { version: 'v2' });
  checkStructure(v1);
  checkStructure(v2);
  assert.deepEqual(Object.keys(v1.paths), [
    '/v1/items/',
    '/v1/items/{pk}/',
    '/api/v1/items/',
    '/api/v1/items/{pk}/',
    '/hello/',
  ]);
  assert.deepEqual(Object.keys(v2.paths), ['/v2/items/', '/v2/items/{pk}/', '/v2/extra/', '/hello/']);
  assert.deepEqual(schemaOf(op(v1, '/v1/items/')), pageEnvelope(arrayOf(ITEM_V1), '/v1/items/'));
  assert.deepEqual(schemaOf(op(v2, '/v2/items/')), pageEnvelope(arrayOf(ITEM), '/v2/items/'));

  // Without ALLOWED_VERSIONS every namespace is a version: its first part.
  const open = build({});
  assert.deepEqual(Object.keys(generateOpenApi(open, { version: 'v1' }).paths), [
    '/v1/items/',
    '/v1/items/{pk}/',
    '/hello/',
  ]);
  assert.deepEqual(Object.keys(generateOpenApi(open, { version: 'api' }).paths), [
    '/api/v1/items/',
    '/api/v1/items/{pk}/',
    '/hello/',
  ]);
  assert.deepEqual(Object.keys(generateOpenApi(open, { version: 'v2' }).paths), [
    '/v2/items/',
    '/v2/items/{pk}/',
    '/v2/extra/',
    '/hello/',
  ]);
});

test('QueryParameterVersioning: a version query parameter; HeaderVersioning: a header; AcceptHeaderVersioning: a note', () => {
  const list = (cls: typeof ItemList) => [
    path('items/', cls.asView(), { name: 'item-list' }),
    path('items/<int:pk>/', ItemDetail.asView(), { name: 'item-detail' }),
  ];
  const q = generateOpenApi(
    new RestApi({
      urlpatterns: list(CursorList),
      settings: {
        DEFAULT_VERSIONING_CLASS: QueryParameterVersioning,
        ALLOWED_VERSIONS: ['v1', 'v2', null],
        DEFAULT_VERSION: 'v2',
      },
    }),
  );
  checkStructure(q);
  assert.equal(q.info.version, 'v2', 'DEFAULT_VERSION when no version is given');
  const VERSION = {
    name: 'version',
    in: 'query',
    required: false,
    description:
      'The API version. This document describes version `v2`: send `?version=v2`; without it the answer is version `v2`.',
    schema: { type: 'string', enum: ['v1', 'v2'], default: 'v2' },
    example: 'v2',
  };
  assert.deepEqual(op(q, '/items/').parameters, [VERSION, CURSOR, ORDERING]);
  assert.deepEqual(op(q, '/items/{pk}/').parameters, [PK, VERSION]);
  const open = generateOpenApi(
    new RestApi({
      urlpatterns: list(ItemList),
      settings: { DEFAULT_VERSIONING_CLASS: QueryParameterVersioning, VERSION_PARAM: 'v' },
    }),
    { version: '1.2' },
  );
  assert.deepEqual(op(open, '/items/{pk}/').parameters?.[1], {
    name: 'v',
    in: 'query',
    required: false,
    description: 'The API version. This document describes version `1.2`: send `?v=1.2`.',
    schema: { type: 'string' },
    example: '1.2',
  });

  const h = generateOpenApi(
    new RestApi({ urlpatterns: list(ItemList), settings: { DEFAULT_VERSIONING_CLASS: HeaderVersioning } }),
    { version: 'v1' },
  );
  assert.deepEqual(op(h, '/items/{pk}/').parameters?.[1], {
    name: 'X-API-Version',
    in: 'header',
    required: false,
    description: 'The API version. This document describes version `v1`: send the header `X-API-Version: v1`.',
    schema: { type: 'string' },
    example: 'v1',
  });
  checkStructure(h);

  const a = generateOpenApi(
    new RestApi({ urlpatterns: list(ItemList), settings: { DEFAULT_VERSIONING_CLASS: AcceptHeaderVersioning } }),
    { version: 'v1' },
  );
  assert.equal(
    op(a, '/items/').description,
    'The list of Item List.\n\nSend `Accept: application/json; version=v1` for this version.',
  );
});

test('viewsets behind a router: list is a list view, retrieve is not; operationIds stay unique', () => {
  const router = new DefaultRouter();
  router.register('items', ItemViewSet, { basename: 'item' });
  const api = new RestApi({
    urlpatterns: [...router.urls, path('copy/', include(router.urls))],
    settings: { DEFAULT_PAGINATION_CLASS: LimitOffsetPagination, PAGE_SIZE: 5 },
  });
  const doc = generateOpenApi(api);
  checkStructure(doc);
  assert.deepEqual(op(doc, '/items/').parameters, [LIMIT, OFFSET]);
  assert.equal(op(doc, '/items/').summary, 'Item List');
  assert.deepEqual(schemaOf(op(doc, '/items/')), limitEnvelope(arrayOf(ITEM), '/items/'));
  assert.deepEqual(op(doc, '/items/{pk}/').parameters, [
    { name: 'pk', in: 'path', required: true, schema: { type: 'string' } },
  ]);
  assert.deepEqual(schemaOf(op(doc, '/items/{pk}/')), ITEM);
  assert.deepEqual(Object.keys(doc.paths['/items/'] as object), ['get', 'head', 'options'], 'only bound methods');
  assert.deepEqual(
    schemaOf(op(doc, '/')),
    { type: 'object', properties: { items: { type: 'string', format: 'uri' } }, additionalProperties: false },
    "the API root: each prefix's list URL",
  );
  assert.equal(op(doc, '/').operationId, 'api_root_get');
  assert.equal(op(doc, '/copy/').operationId, 'api_root_get_2');
});

for (const transport of TRANSPORTS) {
  describe(`OpenAPI served over ${transport}`, () => {
    let s: Served;
    before(async () => {
      s = await serveApi(urlPathApi(), transport);
    });
    after(async () => {
      await s.close();
    });

    test('openApiView with a fixed version: valid JSON, openapi 3.1.0', async () => {
      const r = await call(`${s.origin}/openapi.json`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/json');
      const doc = JSON.parse(r.text) as OpenApiDocument;
      assert.equal(doc.openapi, '3.1.0');
      assert.deepEqual(doc.info, { title: 'Items', version: 'v2' });
      checkStructure(doc);
      const servers = [{ url: s.origin, description: 'This server.' }];
      assert.deepEqual(
        doc,
        JSON.parse(
          JSON.stringify(
            generateOpenApi(urlPathApi(), { title: 'Items', version: 'v2', exampleBaseUrl: s.origin, servers }),
          ),
        ),
        "the generated document, its link examples starting with the request's origin",
      );
      assert.deepEqual(doc.servers, servers, "without servers or serverUrl: the request's origin");
      assert.equal((await call(`${s.origin}/openapi.json`)).text, r.text, 'the same document again');
    });

    test("openApiView without a version: the request's version (URL path)", async () => {
      const v1 = await call(`${s.origin}/v1/openapi.json`);
      assert.equal(v1.status, 200);
      const doc1 = v1.body as OpenApiDocument;
      assert.equal(doc1.info.version, 'v1');
      assert.ok(doc1.paths['/v1/items/']);
      assert.equal(doc1.paths['/v1/paged/'], undefined);
      assert.equal(v1.headers.get('deprecation'), '@1767225600', "the deprecated version's document says so too");
      checkStructure(doc1);
      const doc2 = (await call(`${s.origin}/v2/openapi.json`)).body as OpenApiDocument;
      assert.equal(doc2.info.version, 'v2');
      assert.ok(doc2.paths['/v2/paged/']);
      assert.equal((await call(`${s.origin}/v3/openapi.json`)).status, 404);
    });
  });
}

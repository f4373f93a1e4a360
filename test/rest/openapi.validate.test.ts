/**
 * The generated OpenAPI documents are valid OpenAPI 3.1: checked with
 * @seriousme/openapi-schema-validator (the official OpenAPI 3.1 schema,
 * offline), and every Schema Object is compiled by Ajv's JSON Schema
 * 2020-12 validator in strict mode (so an OpenAPI 3.0 keyword such as
 * `nullable` is an error, not an ignored word), every `$ref` resolves, and
 * every `examples` value is valid against its own schema (link examples
 * being absolute URLs of the endpoint when the server is known).
 *
 * Documents: the demo catalog's v1 and v2 (as generated and as served over
 * a real socket, the link examples then starting with the request's
 * origin), and small APIs with every paginator (PageNumber, LimitOffset,
 * Cursor, Keyset, Relay connection, LinkHeader with and without a total-count header,
 * Envelope, PaginateByMax, PaginateByMaxCursor, uncounted page numbers and
 * limits, none) under every versioning scheme (URL path, namespace, query
 * parameter, header, Accept header, host name, none), deprecated versions
 * and views included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildDemoApi } from '../../src/cli/demo.js';
import { demoItem, type Item } from '../../src/cli/demo-data.js';
import { RestApi } from '../../src/rest/api.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { CharField, DateTimeField, IntegerField } from '../../src/rest/fields.js';
import { OrderingFilter } from '../../src/rest/filters.js';
import { ListAPIView, RetrieveAPIView } from '../../src/rest/generics.js';
import { generateOpenApi, openApiView, type OpenApiDocument } from '../../src/rest/openapi.js';
import {
  CursorPagination,
  EnvelopePagination,
  KeysetPagination,
  LimitOffsetPagination,
  LinkHeaderPagination,
  PageNumberPagination,
  PaginateByMaxCursorPagination,
  PaginateByMaxPagination,
  RelayConnectionPagination,
} from '../../src/rest/pagination/index.js';
import { Serializer } from '../../src/rest/serializers.js';
import type { PaginationClass, SettingsInput, VersioningClass } from '../../src/rest/settings.js';
import { include, path, rePath, type URLEntry } from '../../src/rest/urls/patterns.js';
import {
  AcceptHeaderVersioning,
  HeaderVersioning,
  HostNameVersioning,
  NamespaceVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
} from '../../src/rest/versioning.js';
import { call, serveApi } from '../support/rest.js';

type Json = Record<string, unknown>;

const validator = new Validator();

/** Every Schema Object of a document with where it is (components, parameters, responses, headers). */
function schemaObjects(doc: OpenApiDocument): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) out.push([`components.schemas.${name}`, s]);
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as {
        parameters?: { name: string; schema?: unknown }[];
        responses: Record<string, { content?: Record<string, { schema?: unknown }>; headers?: Record<string, Json> }>;
      };
      for (const prm of op.parameters ?? []) out.push([`${method} ${p} parameter ${prm.name}`, prm.schema]);
      for (const [status, r] of Object.entries(op.responses)) {
        for (const [type, c] of Object.entries(r.content ?? {}))
          out.push([`${method} ${p} ${status} ${type}`, c.schema]);
        for (const [h, header] of Object.entries(r.headers ?? {}))
          out.push([`${method} ${p} ${status} header ${h}`, header['schema']]);
      }
    }
  }
  return out;
}

/** `schema` with its `$ref`s to components.schemas replaced (each must resolve). */
function inline(doc: OpenApiDocument, schema: unknown, where: string): unknown {
  if (Array.isArray(schema)) return schema.map((x) => inline(doc, x, where));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (ref !== undefined) {
    assert.ok(typeof ref === 'string', where);
    const m = /^#\/components\/schemas\/([A-Za-z0-9._-]+)$/.exec(ref);
    assert.ok(m, `${where}: ${ref} points into components.schemas`);
    const target = doc.components?.schemas[m[1] as string];
    assert.ok(target, `${where}: ${ref} resolves`);
    return inline(doc, target, where);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(doc, v, where)]));
}

/** Each subschema carrying `examples`, for checking each example against it. */
function withExamples(schema: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(schema)) for (const x of schema) withExamples(x, out);
  else if (schema !== null && typeof schema === 'object') {
    if (Array.isArray((schema as Json)['examples'])) out.push(schema as Json);
    for (const [k, v] of Object.entries(schema)) if (k !== 'examples') withExamples(v, out);
  }
  return out;
}

/** Every URI example is absolute (`http(s)://`), and of `origin` when given. */
function checkUriExamples(s: Json, where: string, origin: string | null): void {
  if (s['format'] !== 'uri') return;
  for (const e of s['examples'] as unknown[]) {
    if (e === null) continue;
    assert.ok(typeof e === 'string', where);
    assert.ok(URL.canParse(e), `${where}: example ${e} is an absolute URI`);
    if (origin !== null) assert.equal(new URL(e).origin, origin, `${where}: example ${e}`);
    assert.ok(!e.includes('api.example.org'), `${where}: no made-up host`);
  }
}

/** What URI examples must start with: an origin, `null` (not checked) or `relative` (paths). */
type ExampleOrigin = string | null;
const RELATIVE: ExampleOrigin = 'relative';

/**
 * Validates a document: the OpenAPI 3.1 schema, strict JSON Schema 2020-12
 * for every Schema Object, resolving `$ref`s, valid examples, unique
 * operationIds. `origin`: what every URI example must start with (`null`:
 * examples are not checked for their origin; `'relative'`: they are paths).
 */
async function assertValid(doc: OpenApiDocument, label: string, origin: ExampleOrigin): Promise<void> {
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  const res = await validator.validate(copy);
  assert.equal(validator.version, '3.1', label);
  assert.ok(res.valid, `${label}: ${JSON.stringify(res.errors, null, 2)}`);
  assert.ok(!JSON.stringify(doc).includes('"nullable"'), `${label}: no OpenAPI 3.0 nullable`);
  const ajv = new Ajv2020({ strict: true, validateFormats: false, allErrors: true });
  ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']); // the OpenAPI base vocabulary
  for (const [where, raw] of schemaObjects(doc)) {
    assert.ok(raw !== undefined, `${label} ${where}: a schema`);
    const schema = inline(doc, raw, `${label} ${where}`);
    assert.doesNotThrow(() => ajv.compile(schema as Json), `${label} ${where}: strict JSON Schema 2020-12`);
    for (const s of withExamples(schema)) {
      const { examples, ...rest } = s;
      const check = ajv.compile(rest);
      for (const e of examples as unknown[])
        assert.ok(check(e), `${label} ${where}: example ${JSON.stringify(e)} fits ${JSON.stringify(rest)}`);
      if (origin === RELATIVE) {
        for (const e of examples as unknown[]) if (s['format'] === 'uri') assert.match(String(e), /^\//);
      } else checkUriExamples(s, `${label} ${where}`, origin);
    }
  }
  const ids = Object.values(doc.paths).flatMap((item) =>
    Object.values(item).map((o) => (o as { operationId: string }).operationId),
  );
  assert.equal(new Set(ids).size, ids.length, `${label}: unique operationIds`);
}

// ------------------------------------------------------------------ the demo catalog

const demoRows = new ArrayQueryset<Item>(Array.from({ length: 30 }, (_, i) => demoItem(i + 1)));

test('the demo catalog: v1 and v2 are valid OpenAPI 3.1 (generated, with a server URL)', async () => {
  const api = buildDemoApi(demoRows);
  for (const version of ['v1', 'v2']) {
    const doc = generateOpenApi(api, { title: 'eventide demo catalog', version, serverUrl: 'http://127.0.0.1:8000' });
    await assertValid(doc, `demo ${version}`, 'http://127.0.0.1:8000');
    assert.ok(Object.keys(doc.components?.schemas ?? {}).length > 0, 'serializer schemas in components');
    const link = (doc.paths['/link/items/']?.['get'] as { responses: Record<string, { headers?: Json }> }).responses[
      '200'
    ];
    assert.ok(link?.headers?.['Link'], 'the Link header of /link/items/');
  }
  await assertValid(generateOpenApi(api, { version: 'v2' }), 'demo v2 without a server', RELATIVE);
});

test('the demo catalog: /openapi/v1.json and /openapi/v2.json as served are valid, examples of the server', async () => {
  const served = await serveApi(buildDemoApi(demoRows), 'node');
  try {
    for (const version of ['v1', 'v2']) {
      const r = await call(`${served.origin}/openapi/${version}.json`);
      assert.equal(r.status, 200);
      const doc = r.body as OpenApiDocument;
      await assertValid(doc, `served demo ${version}`, served.origin);
      const page = JSON.stringify(doc.paths['/page/items/']);
      assert.ok(page.includes(`${served.origin}/page/items/?page=4`), 'a real next link of /page/items/');
    }
  } finally {
    await served.close();
  }
});

// ------------------------------------------------------------------ every paginator under every scheme

class ItemSerializer extends Serializer {
  static override fields = {
    id: new IntegerField({ readOnly: true }),
    name: new CharField(),
    price: new IntegerField({ allowNull: true }),
    created: new DateTimeField({ readOnly: true }),
  };
}
const rows = [{ id: 1, name: 'one', price: 3, created: new Date('2020-01-01T00:00:01Z') }];

const PAGINATORS: Record<string, PaginationClass | null> = {
  page: class extends PageNumberPagination {
    override pageSize = 10;
    override pageSizeQueryParam = 'page_size';
  },
  'page-uncounted': class extends PageNumberPagination {
    override pageSize = 10;
    override includeCount = false;
  },
  limit: class extends LimitOffsetPagination {
    override defaultLimit = 20;
  },
  'limit-uncounted': class extends LimitOffsetPagination {
    override defaultLimit = 20;
    override includeCount = false;
  },
  cursor: class extends CursorPagination {
    override pageSize = 10;
    override ordering = '-created';
  },
  keyset: class extends KeysetPagination {
    override pageSize = 10;
    override ordering = ['price', 'id'];
    override pageSizeQueryParam = 'page_size';
  },
  relay: class extends RelayConnectionPagination {
    override ordering = 'price';
    override pageSize = 10;
  },
  link: class extends LinkHeaderPagination {
    override pageSize = 10;
  },
  'link-counted': class extends LinkHeaderPagination {
    override pageSize = 10;
    constructor() {
      super();
      (this as { totalCountHeader?: string | null }).totalCountHeader = 'X-Total-Count';
    }
  },
  envelope: class extends EnvelopePagination {
    override pageSize = 10;
  },
  'by-max': class extends PaginateByMaxPagination {
    override pageSize = 10;
    override pageSizeQueryParam = 'page_size';
    override maxPageSize = 100;
  },
  'by-max-cursor': class extends PaginateByMaxCursorPagination {
    override pageSize = 10;
    override ordering = 'id';
    override pageSizeQueryParam = 'page_size';
    override maxPageSize = 100;
  },
  none: null,
};

function listRoutes(prefix: string): URLEntry[] {
  return Object.entries(PAGINATORS).flatMap(([name, pc]) => {
    class List extends ListAPIView {
      override queryset = rows;
      override serializerClass = ItemSerializer;
      override paginationClass = pc;
      override filterBackends = [OrderingFilter];
    }
    Object.defineProperty(List, 'name', { value: `${name}List` });
    return [path(`${prefix}${name}/items/`, List.asView(), { name: `${name}-items` })];
  });
}
class Detail extends RetrieveAPIView {
  override queryset = rows;
  override serializerClass = ItemSerializer;
}
/** Deprecated on its own (APIView's `deprecation`; set in the constructor, as the attribute is new). */
class OldDetail extends Detail {
  constructor() {
    super();
    (this as { deprecation?: unknown }).deprecation = { deprecation: new Date('2026-01-01T00:00:00Z') };
  }
}

const SETTINGS: SettingsInput = {
  ALLOWED_VERSIONS: ['v1', 'v2'],
  DEFAULT_VERSION: 'v1',
  VERSION_LIFECYCLE: { v1: { deprecation: new Date('2026-01-01T00:00:00Z') } },
};

function schemeApi(scheme: VersioningClass | null): RestApi {
  let urlpatterns: URLEntry[];
  if (scheme === URLPathVersioning) {
    urlpatterns = [
      ...listRoutes('<str:version>/'),
      rePath('^(?P<version>v1|v2)/items/(?P<pk>[0-9]+)/$', Detail.asView(), { name: 'item-detail' }),
      path('<str:version>/old/<int:pk>/', OldDetail.asView(), { name: 'old-detail' }),
    ];
  } else if (scheme === NamespaceVersioning) {
    const inner = (): URLEntry[] => [
      ...listRoutes(''),
      path('items/<int:pk>/', Detail.asView(), { name: 'item-detail' }),
    ];
    urlpatterns = [
      path('v1/', include(inner(), { namespace: 'v1' })),
      path('v2/', include(inner(), { namespace: 'v2' })),
    ];
  } else {
    urlpatterns = [
      ...listRoutes(''),
      path('items/<int:pk>/', Detail.asView(), { name: 'item-detail' }),
      path('old/<uuid:pk>/', OldDetail.asView(), { name: 'old-detail' }),
    ];
  }
  urlpatterns.push(path('openapi.json', openApiView({ title: 'Items' }), { name: 'openapi' }));
  return new RestApi({ urlpatterns, settings: { ...SETTINGS, DEFAULT_VERSIONING_CLASS: scheme } });
}

const SCHEMES: [string, VersioningClass | null][] = [
  ['URLPathVersioning', URLPathVersioning],
  ['NamespaceVersioning', NamespaceVersioning],
  ['QueryParameterVersioning', QueryParameterVersioning],
  ['HeaderVersioning', HeaderVersioning],
  ['AcceptHeaderVersioning', AcceptHeaderVersioning],
  ['HostNameVersioning', HostNameVersioning],
  ['no versioning', null],
];

for (const [label, scheme] of SCHEMES) {
  test(`every paginator under ${label}: valid OpenAPI 3.1 for each version`, async () => {
    const api = schemeApi(scheme);
    for (const version of scheme === null ? [null] : ['v1', 'v2']) {
      const doc = generateOpenApi(api, { title: 'Items', version, serverUrl: 'https://api.example.com/base' });
      await assertValid(doc, `${label} ${version}`, 'https://api.example.com');
      const listPaths = Object.keys(doc.paths).filter((p) => p.endsWith('/items/'));
      assert.equal(listPaths.length, Object.keys(PAGINATORS).length, `${label} ${version}: ${listPaths.join(' ')}`);
      for (const p of listPaths) {
        const text = JSON.stringify(doc.paths[p]);
        // Every style with links has examples of the endpoint (a Relay connection has cursors, not links).
        if (!p.includes('/none/') && !p.includes('/relay/'))
          assert.ok(text.includes(`https://api.example.com/base${p}?`), `${p}: examples of ${p}`);
      }
      // Deprecated: every operation of v1 (VERSION_LIFECYCLE), the OldDetail view's in every version.
      for (const [p, item] of Object.entries(doc.paths))
        for (const o of Object.values(item)) {
          const expected = version === 'v1' || p.includes('/old/') ? true : undefined;
          assert.equal((o as { deprecated?: boolean }).deprecated, expected, `${label} ${version} ${p}`);
        }
    }
  });
}

test('every paginator: the documents as served, examples of the request origin, are valid', async () => {
  const served = await serveApi(schemeApi(QueryParameterVersioning), 'eventhttp');
  try {
    for (const q of ['', '?version=v2']) {
      const r = await call(`${served.origin}/openapi.json${q}`);
      assert.equal(r.status, 200);
      await assertValid(r.body as OpenApiDocument, `served ${q || 'default'}`, served.origin);
    }
  } finally {
    await served.close();
  }
});

test('the checks bite: nullable, a dangling $ref, a wrong example, a response without description', async () => {
  const fresh = (): OpenApiDocument =>
    generateOpenApi(schemeApi(null), { version: null, serverUrl: 'https://api.example.com' });
  const ok = fresh();
  await assertValid(ok, 'fresh', 'https://api.example.com');
  const schemas = (d: OpenApiDocument): Record<string, Json> => d.components?.schemas as Record<string, Json>;
  const item = (d: OpenApiDocument): Json => schemas(d)['ItemSerializer'] as Json;

  const nullable = fresh();
  (item(nullable)['properties'] as Record<string, Json>)['name'] = { type: 'string', nullable: true };
  await assert.rejects(assertValid(nullable, 'nullable', null), /nullable/);

  const dangling = fresh();
  delete schemas(dangling)['ItemSerializer'];
  await assert.rejects(assertValid(dangling, 'dangling', null), /resolve/);

  const badExample = fresh();
  (item(badExample)['properties'] as Record<string, Json>)['id'] = { type: 'integer', examples: ['one'] };
  await assert.rejects(assertValid(badExample, 'example', null), /example "one"/);

  const noDescription = fresh();
  const get = noDescription.paths['/items/{pk}/']?.['get'] as { responses: Record<string, Json> };
  delete get.responses['200']?.['description'];
  await assert.rejects(assertValid(noDescription, 'description', null), /description/);
});

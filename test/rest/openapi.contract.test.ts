/**
 * The OpenAPI documents are a complete contract, checked against what the
 * server answers: each error status an operation can answer is declared
 * with its body schema and an example that is the exact body the demo
 * sends for that cause (invalid page, cursor, Relay count, object, version;
 * bad Accept); OPTIONS's example is the view's real metadata; `page`
 * takes `last`; read-only fields are required in responses; `next` and
 * `previous` are required and nullable; limits are `minimum`/`maximum` and
 * choices `enum`; operations are tagged and the tags described; `servers`,
 * `license` and `contact`; the browsable `text/html`, HEAD and OPTIONS are
 * declared; the root and the version endpoints have real schemas that their
 * bodies fit; each version's document lists only the routes that serve it;
 * and where an operation takes a body, request and response schemas are
 * split (`ItemSerializerRequest`) with the errors of a body declared.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildDemoApi } from '../../src/cli/demo.js';
import { demoItem, type Item } from '../../src/cli/demo-data.js';
import { RestApi } from '../../src/rest/api.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { CharField, IntegerField } from '../../src/rest/fields.js';
import { GenericAPIView, ListAPIView } from '../../src/rest/generics.js';
import { generateOpenApi, type OpenApiDocument } from '../../src/rest/openapi.js';
import { JSONRenderer } from '../../src/rest/renderers.js';
import type { Request } from '../../src/rest/request.js';
import { Response } from '../../src/rest/response.js';
import { Serializer } from '../../src/rest/serializers.js';
import { path } from '../../src/rest/urls/patterns.js';
import { URLPathVersioning } from '../../src/rest/versioning.js';
import { APIView, apiView } from '../../src/rest/views.js';
import { call, callRaw, serveApi, type Served } from '../support/rest.js';

type Json = Record<string, unknown>;

const rows = new ArrayQueryset<Item>(Array.from({ length: 30 }, (_, i) => demoItem(i + 1)));
let served: Served;
const docs: Record<string, OpenApiDocument> = {};

before(async () => {
  served = await serveApi(buildDemoApi(rows), 'node');
  for (const version of ['v1', 'v2'])
    docs[version] = (await call(`${served.origin}/openapi/${version}.json`)).body as OpenApiDocument;
});
after(async () => {
  await served.close();
});

const doc = (version = 'v1'): OpenApiDocument => docs[version] as OpenApiDocument;

function operation(d: OpenApiDocument, p: string, method = 'get'): Json {
  const o = d.paths[p]?.[method];
  assert.ok(o, `${method.toUpperCase()} ${p} is in the document`);
  return o;
}

function response(o: Json, status: number | string): Json {
  const r = (o.responses as Record<string, Json>)[String(status)];
  assert.ok(r, `status ${status} is declared (${Object.keys(o.responses as object).join(', ')})`);
  return r;
}

/** `schema` with every `$ref` to the document's components replaced by the schema it names. */
function inline(d: OpenApiDocument, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((x) => inline(d, x));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') return inline(d, d.components?.schemas[ref.replace('#/components/schemas/', '')]);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(d, v)]));
}

const ajv = new Ajv2020({ strict: false, validateFormats: false });

/** Asserts that `body` fits the JSON schema of `status` of an operation. */
function assertFits(d: OpenApiDocument, o: Json, status: number, body: unknown, label: string): void {
  const content = response(o, status).content as Record<string, { schema: unknown }>;
  const validate = ajv.compile(inline(d, content['application/json']?.schema) as object);
  assert.ok(validate(body), `${label}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(body)}`);
}

/**
 * The answer to a request causing a declared error: the status is declared
 * on the operation, the body is the named example exactly, and it fits the
 * declared schema.
 */
async function assertDeclared(
  p: string,
  query: string,
  status: number,
  example: string,
  options: { method?: string; headers?: Record<string, string>; docPath?: string; version?: string } = {},
): Promise<void> {
  const d = doc(options.version);
  const o = operation(d, options.docPath ?? p, (options.method ?? 'GET').toLowerCase());
  const r = await callRaw(served.origin, p + query, {
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
  });
  assert.equal(r.status, status, `${p}${query}: ${r.text}`);
  const content = response(o, status).content as Record<string, { examples: Record<string, { value: unknown }> }>;
  const examples = content['application/json']?.examples ?? {};
  assert.ok(examples[example], `${p} ${status}: example ${example} among ${Object.keys(examples).join(', ')}`);
  assert.deepEqual(r.body, examples[example]?.value, `${p}${query}: the example is the body sent`);
  assertFits(d, o, status, r.body, `${p}${query}`);
}

test('errors: each status the demo answers is declared, with the exact body as its example', async () => {
  await assertDeclared('/page/items/', '?page=99999', 404, 'invalidPage');
  await assertDeclared('/page/items/', '?page=abc', 404, 'invalidPage');
  await assertDeclared('/page-nocount/items/', '?page=last', 404, 'invalidPage');
  await assertDeclared('/link/items/', '?page=99999', 404, 'invalidPage');
  await assertDeclared('/cursor/items/', '?cursor=bad', 404, 'invalidCursor');
  await assertDeclared('/cursor-keyset/items/', '?cursor=bad', 404, 'invalidCursor');
  await assertDeclared('/cursor-relay/items/', '?after=bad', 404, 'invalidCursor');
  await assertDeclared('/cursor-relay/items/', '?first=0', 400, 'invalidCount');
  await assertDeclared('/cursor-relay/items/', '?after=a&before=b', 400, 'bothCursors');
  await assertDeclared('/versioned/v1/items/99999/', '', 404, 'notFound', { docPath: '/versioned/v1/items/{pk}/' });
  await assertDeclared('/versioned/v2/items/99999/', '', 404, 'notFound', {
    docPath: '/versioned/v2/items/{pk}/',
    version: 'v2',
  });
  await assertDeclared('/query/version/', '?version=v9', 404, 'invalidVersion');
  await assertDeclared('/host/version/', '', 404, 'invalidVersion', { headers: { Host: 'v9.example.com' } });
  await assertDeclared('/header/version/', '', 406, 'invalidVersion', { headers: { 'X-API-Version': 'v9' } });
  await assertDeclared('/accept/version/', '', 406, 'invalidVersion', {
    headers: { Accept: 'application/json; version=v9' },
  });
  for (const p of ['/', '/page/items/', '/versioned/v2/items/1/'])
    await assertDeclared(p, '', 406, 'notAcceptable', {
      headers: { Accept: 'text/csv' },
      docPath: p.replace('/1/', '/{pk}/'),
      version: 'v2',
    });
  await assertDeclared('/page/items/', '', 406, 'notAcceptable', {
    method: 'OPTIONS',
    headers: { Accept: 'text/csv' },
  });
  // Any route: ?format= that no renderer has; a Host that is no host name (where the answer builds a link:
  // the root, a page, a hyperlinked object; every request when ALLOWED_HOSTS is set).
  for (const p of ['/', '/page/items/', '/versioned/v1/items/1/']) {
    const docPath = p.replace('/1/', '/{pk}/');
    await assertDeclared(p, '?format=xml', 404, 'unknownFormat', { docPath });
    await assertDeclared(p, '', 400, 'invalidHost', { headers: { Host: 'bad_host' }, docPath });
  }
  // HEAD: the statuses of GET, without a body.
  const head = operation(doc(), '/page/items/', 'head');
  assert.equal((await callRaw(served.origin, '/page/items/?page=99999', { method: 'HEAD' })).status, 404);
  assert.equal(response(head, 404).content, undefined, 'HEAD declares no body');
  assert.deepEqual(Object.keys(head.responses as object), ['200', '400', '404', '406']);
});

test('?format= is a parameter of every operation, its enum the formats of the view; a Host not in ALLOWED_HOSTS is a declared 400', async () => {
  for (const [p, methods] of Object.entries(doc().paths))
    for (const [method, o] of Object.entries(methods)) {
      const format = (o.parameters as Json[] | undefined)?.find((x) => x.name === 'format');
      assert.deepEqual(format?.schema, { type: 'string', enum: ['json', 'api'] }, `${method} ${p}`);
      assert.ok((o.responses as Json)['400'], `${method} ${p} declares 400 (a Host that is no host name)`);
    }
  const r = await callRaw(served.origin, '/page/items/?format=api&page_size=1', {});
  assert.equal(r.status, 200);
  class Items extends ListAPIView {
    override queryset = rows;
    override serializerClass = DemoLike;
  }
  const api = new RestApi({
    urlpatterns: [path('items/', Items.asView(), { name: 'items' })],
    settings: { ALLOWED_HOSTS: ['api.example.com'], URL_FORMAT_OVERRIDE: null },
  });
  const o = operation(generateOpenApi(api), '/items/');
  assert.equal(
    (o.parameters as Json[] | undefined)?.find((x) => x.name === 'format'),
    undefined,
    'no ?format= when off',
  );
  const examples = (response(o, 400).content as Record<string, { examples: Record<string, { value: unknown }> }>)[
    'application/json'
  ]?.examples;
  const refused = await api.inject({ url: '/items/', headers: { host: 'evil.test' } });
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.json(), examples?.disallowedHost?.value);
  const invalid = await api.inject({ url: '/items/', headers: { host: 'bad_host' } });
  assert.deepEqual(invalid.json(), examples?.invalidHost?.value);
  const open = generateOpenApi(new RestApi({ urlpatterns: [path('items/', Items.asView(), { name: 'items' })] }));
  const openExamples = (
    response(operation(open, '/items/'), 400).content as Record<string, { examples: Record<string, unknown> }>
  )['application/json']?.examples;
  assert.deepEqual(Object.keys(openExamples ?? {}), ['invalidHost'], 'ALLOWED_HOSTS null: only the syntax check');
});

test('error components: ErrorDetail {detail} (required) and FieldErrors (messages by name)', () => {
  const schemas = doc().components?.schemas ?? {};
  assert.deepEqual((schemas['ErrorDetail'] as Json).required, ['detail']);
  assert.deepEqual((schemas['ErrorDetail'] as { properties: Json }).properties['detail'], {
    type: 'string',
    examples: ['Not found.'],
  });
  assert.deepEqual((schemas['FieldErrors'] as Json).additionalProperties, { type: 'array', items: { type: 'string' } });
  for (const [p, item] of Object.entries(doc().paths))
    for (const [method, o] of Object.entries(item))
      for (const [status, r] of Object.entries(o.responses as Record<string, Json>)) {
        assert.ok(typeof r.description === 'string' && r.description !== '', `${method} ${p} ${status}: a description`);
        if (Number(status) >= 400)
          assert.notEqual(method === 'head', r.content !== undefined, `${method} ${p} ${status}`);
      }
});

test('OPTIONS: the example is the metadata the view answers, and it fits ViewMetadata', async () => {
  for (const p of ['/', '/page/items/', '/query/version/']) {
    const o = operation(doc(), p, 'options');
    const r = await call(`${served.origin}${p}`, { method: 'OPTIONS' });
    assert.equal(r.status, 200);
    const content = response(o, 200).content as Record<string, { example: unknown; schema: unknown }>;
    assert.deepEqual(content['application/json']?.example, r.body, `OPTIONS ${p}`);
    assert.deepEqual(content['application/json']?.schema, { $ref: '#/components/schemas/ViewMetadata' });
    assertFits(doc(), o, 200, r.body, `OPTIONS ${p}`);
  }
});

test('page takes an integer or last (counted lists only); page=last answers 200', async () => {
  const page = (p: string): Json =>
    ((operation(doc(), p).parameters as Json[]).find((x) => x.name === 'page') as Json).schema as Json;
  assert.deepEqual(page('/page/items/'), {
    anyOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', enum: ['last'] },
    ],
  });
  assert.deepEqual(page('/page-nocount/items/'), { type: 'integer', minimum: 1 }, 'no last page without a count');
  const r = await call(`${served.origin}/page/items/?page=last`);
  assert.equal(r.status, 200);
  assertFits(doc(), operation(doc(), '/page/items/'), 200, r.body, 'page=last');
});

test('responses: read-only fields are required; next and previous are required and nullable; count where counted', () => {
  const schemas = doc('v2').components?.schemas ?? {};
  assert.deepEqual((schemas['ItemSerializer'] as Json).required, ['id', 'name', 'created', 'price', 'category']);
  assert.deepEqual((schemas['ItemSerializerV2'] as Json).required, [
    'url',
    'id',
    'name',
    'created',
    'price',
    'category',
  ]);
  const body = (p: string): Json =>
    (
      (response(operation(doc(), p), 200).content as Record<string, { schema: Json }>)['application/json'] as {
        schema: Json;
      }
    ).schema;
  for (const p of ['/page/items/', '/limit/items/'])
    assert.deepEqual(body(p).required, ['count', 'next', 'previous', 'results'], p);
  for (const p of ['/page-nocount/items/', '/cursor/items/', '/cursor-keyset/items/'])
    assert.deepEqual(body(p).required, ['next', 'previous', 'results'], p);
  const next = (body('/cursor/items/').properties as Json).next as Json;
  assert.deepEqual(next.type, ['string', 'null']);
});

test('limits as minimum/maximum, choices as enum', () => {
  const params = (p: string, d = doc()): Record<string, Json> =>
    Object.fromEntries((operation(d, p).parameters as Json[]).map((x) => [x.name as string, x]));
  const schema = (p: string, name: string, d = doc()): unknown => params(p, d)[name]?.schema;
  assert.deepEqual(schema('/page/items/', 'page_size'), { type: 'integer', minimum: 1, maximum: 100 });
  assert.deepEqual(schema('/limit/items/', 'limit'), { type: 'integer', minimum: 1, maximum: 100 });
  assert.deepEqual(schema('/limit/items/', 'offset'), { type: 'integer', minimum: 0 });
  assert.deepEqual(schema('/cursor-relay/items/', 'first'), { type: 'integer', minimum: 1, maximum: 100 });
  assert.deepEqual(schema('/cursor-relay/items/', 'last'), { type: 'integer', minimum: 1, maximum: 100 });
  assert.deepEqual(schema('/cursor-keyset/items/', 'page_size'), { type: 'integer', minimum: 1, maximum: 100 });
  const ordering = params('/cursor-ordering/items/')['ordering'] as Json;
  assert.deepEqual(ordering.schema, {
    type: 'array',
    items: { type: 'string', enum: ['created', '-created', 'price', '-price', 'id', '-id'] },
  });
  assert.equal(ordering.style, 'form');
  assert.equal(ordering.explode, false, '?ordering=price,-id');
  for (const d of [doc('v1'), doc('v2')]) {
    assert.deepEqual(schema('/query/version/', 'version', d), { type: 'string', enum: ['v1', 'v2'], default: 'v1' });
    assert.deepEqual(schema('/header/version/', 'X-API-Version', d), {
      type: 'string',
      enum: ['v1', 'v2'],
      default: 'v1',
    });
    assert.equal(params('/query/version/', d)['version']?.example, d.info.version, "the document's version");
  }
});

test('ordering=price,-id as the document writes it is what the server reads', async () => {
  const r = await call(`${served.origin}/cursor-ordering/items/?ordering=price,-id`);
  assert.equal(r.status, 200);
  const results = (r.body as { results: Item[] }).results;
  const sorted = [...results].sort((a, b) => a.price - b.price || b.id - a.id);
  assert.deepEqual(
    results.map((x) => x.id),
    sorted.map((x) => x.id),
  );
});

test('tags: every operation has tags (the first segment, or the view name for the root); the document lists them with descriptions', () => {
  const d = doc();
  const tags = new Set((d.tags ?? []).map((t) => t.name));
  for (const t of d.tags ?? []) assert.ok(t.description, `tag ${t.name} has a description`);
  const ids = new Set<string>();
  for (const [p, item] of Object.entries(d.paths))
    for (const [method, o] of Object.entries(item)) {
      const own = o.tags as string[];
      assert.ok(own.length > 0 && own.every((t) => tags.has(t)), `${method} ${p}: tags ${own.join(', ')}`);
      assert.ok(typeof o.summary === 'string' && o.summary !== '', `${method} ${p}: summary`);
      assert.ok(typeof o.description === 'string' && o.description !== '', `${method} ${p}: description`);
      assert.ok(!ids.has(o.operationId as string), `${o.operationId as string} is unique`);
      ids.add(o.operationId as string);
    }
  assert.deepEqual(operation(d, '/page/items/').tags, ['page']);
  assert.deepEqual(operation(d, '/versioned/v1/items/{pk}/', 'options').tags, ['versioned']);
  assert.deepEqual(operation(d, '/').tags, ['Root']);
  assert.equal(
    d.tags?.find((t) => t.name === 'page')?.description,
    'Page-number pagination, ordered by id: ?page=N, ?page=last, ?page_size=N (at most 100).',
    "one view under the tag: the view's description",
  );
  assert.equal(d.tags?.find((t) => t.name === 'versioned')?.description, 'The endpoints under `/versioned/`.');
});

test('tags of a view (openapi.tags) and of the document (OpenApiOptions.tags); a common prefix is skipped', () => {
  class Items extends ListAPIView {
    override queryset = rows;
    override serializerClass = DemoLike;
    override paginationClass = null;
  }
  class Health extends APIView {
    override openapi = { tags: ['meta'], summary: 'Health check', description: 'Whether the API is up.' };
    override get(): Response {
      return new Response({ ok: true });
    }
  }
  const api = new RestApi({
    urlpatterns: [
      path('api/items/', Items.asView(), { name: 'items' }),
      path('api/users/', Items.asView(), { name: 'users' }),
      path('api/health/', Health.asView(), { name: 'health' }),
    ],
    settings: { DEFAULT_RENDERER_CLASSES: [JSONRenderer] },
  });
  const d = generateOpenApi(api, { tags: [{ name: 'meta', description: 'About the API.' }, { name: 'users' }] });
  assert.deepEqual(operation(d, '/api/items/').tags, ['items'], 'the common /api/ prefix is skipped');
  assert.deepEqual(operation(d, '/api/users/').tags, ['users']);
  assert.deepEqual(operation(d, '/api/health/').tags, ['meta']);
  assert.deepEqual(operation(d, '/api/health/', 'head').tags, ['meta']);
  assert.equal(operation(d, '/api/health/').summary, 'Health check');
  assert.equal(operation(d, '/api/health/').description, 'Whether the API is up.');
  assert.deepEqual(d.tags, [
    { name: 'meta', description: 'About the API.' },
    { name: 'users', description: 'The endpoints under `/api/users/`.' },
    { name: 'items', description: 'The endpoints under `/api/items/`.' },
  ]);
});

class DemoLike extends Serializer<Item> {
  static override fields = { id: new IntegerField({ readOnly: true }), name: new CharField() };
}

test('servers, license and contact; the served document names its own origin as the server', () => {
  for (const d of [doc('v1'), doc('v2')]) {
    assert.deepEqual(d.info.license, { name: 'MIT', identifier: 'MIT' });
    assert.deepEqual(d.info.contact, { name: 'The eventide contributors' });
    assert.ok(d.info.description);
    assert.deepEqual(d.servers, [{ url: served.origin, description: 'This server.' }]);
  }
  const api = buildDemoApi(rows);
  const given = generateOpenApi(api, {
    version: 'v1',
    servers: [{ url: 'https://api.eventide.test', description: 'Production' }],
  });
  assert.deepEqual(given.servers, [{ url: 'https://api.eventide.test', description: 'Production' }]);
  assert.equal(generateOpenApi(api, { version: 'v1' }).servers, undefined, 'generated without a server: none');
});

test('a function view (apiView) declares its body schema, tags and summary with openapi', () => {
  const ping = apiView(['GET'], () => new Response({ pong: true }), {
    name: 'Ping',
    openapi: {
      tags: ['meta'],
      summary: 'Ping',
      responseSchema: { type: 'object', required: ['pong'], properties: { pong: { type: 'boolean' } } },
    },
  });
  const d = generateOpenApi(new RestApi({ urlpatterns: [path('ping/', ping, { name: 'ping' })] }));
  const o = operation(d, '/ping/');
  assert.deepEqual(o.tags, ['meta']);
  assert.equal(o.summary, 'Ping');
  assert.deepEqual((response(o, 200).content as Record<string, { schema: unknown }>)['application/json']?.schema, {
    type: 'object',
    required: ['pong'],
    properties: { pong: { type: 'boolean' } },
  });
});

test('the browsable text/html response, HEAD and OPTIONS are declared', () => {
  const d = doc();
  for (const [p, item] of Object.entries(d.paths)) {
    assert.ok(item.options, `OPTIONS ${p}`);
    if (item.get) assert.ok(item.head, `HEAD ${p}`);
    const ok = response(item.get as Json, 200).content as Json;
    assert.deepEqual(Object.keys(ok), ['application/json', 'text/html'], `GET ${p}: JSON and the browsable page`);
    const notAcceptable = response(item.get as Json, 406).content as Json;
    assert.deepEqual(Object.keys(notAcceptable), ['application/json'], '406 is rendered by the first renderer');
  }
  class JsonOnly extends APIView {
    override rendererClasses = [JSONRenderer];
    override get(): Response {
      return new Response({});
    }
  }
  const only = generateOpenApi(new RestApi({ urlpatterns: [path('j/', JsonOnly.asView(), { name: 'j' })] }));
  assert.deepEqual(Object.keys(response(operation(only, '/j/'), 200).content as Json), ['application/json']);
});

test('the root and the version endpoints have real schemas, and their bodies fit them', async () => {
  const d = doc();
  const checks: [string, string, Record<string, string>][] = [
    ['/', '/', {}],
    ['/accept/version/', '/accept/version/', {}],
    ['/urlpath/v1/version/', '/urlpath/v1/version/', {}],
    ['/urlpath/version/', '/urlpath/version/', {}],
    ['/namespace/v1/version/', '/namespace/v1/version/', {}],
    ['/namespace/version/', '/namespace/version/', {}],
    ['/host/version/', '/host/version/', {}],
    ['/query/version/', '/query/version/?version=v2', {}],
    ['/header/version/', '/header/version/', { 'X-API-Version': 'v2' }],
  ];
  for (const [docPath, url, headers] of checks) {
    const o = operation(d, docPath);
    const schema = (response(o, 200).content as Record<string, { schema: Json }>)['application/json']?.schema;
    assert.ok(schema && Object.keys(schema).length > 0 && schema.type === 'object', `${docPath}: a real schema`);
    assert.ok(Array.isArray(schema.required) && schema.required.length > 0, `${docPath}: required keys`);
    const r = await callRaw(served.origin, url, { headers });
    assert.equal(r.status, 200, url);
    assertFits(d, o, 200, r.body, url);
  }
});

test("each version's document lists only the routes that serve that version", async () => {
  const v1 = Object.keys(doc('v1').paths);
  const v2 = Object.keys(doc('v2').paths);
  for (const p of ['/urlpath/version/', '/namespace/version/']) {
    assert.ok(v1.includes(p), `${p} serves the default version v1`);
    assert.ok(!v2.includes(p), `${p} is not in the v2 document`);
    assert.equal(((await call(`${served.origin}${p}`)).body as { version: string }).version, 'v1', `${p} answers v1`);
  }
  assert.ok(v2.includes('/urlpath/v2/version/') && v2.includes('/namespace/v2/version/'));
  assert.ok(!v1.includes('/urlpath/v2/version/') && !v1.includes('/namespace/v2/version/'));
  // Routes of every version (query, header, Accept, host, unversioned) are in both.
  for (const p of ['/', '/page/items/', '/query/version/', '/header/version/', '/accept/version/', '/host/version/'])
    assert.ok(v1.includes(p) && v2.includes(p), p);
  // With no default version, a route without a version serves none: it is in every document.
  class Hello extends APIView {
    override versioningClass = URLPathVersioning;
    override get(): Response {
      return new Response({});
    }
  }
  const urlpatterns = [
    path('<str:version>/hello/', Hello.asView(), { name: 'hello' }),
    path('hello/', Hello.asView(), { name: 'hello-default' }),
  ];
  const withDefault = new RestApi({ urlpatterns, settings: { ALLOWED_VERSIONS: ['v1', 'v2'], DEFAULT_VERSION: 'v2' } });
  assert.deepEqual(Object.keys(generateOpenApi(withDefault, { version: 'v1' }).paths), ['/v1/hello/']);
  assert.deepEqual(Object.keys(generateOpenApi(withDefault, { version: 'v2' }).paths), ['/v2/hello/', '/hello/']);
  const noDefault = new RestApi({ urlpatterns, settings: { ALLOWED_VERSIONS: ['v1', 'v2', null] } });
  assert.deepEqual(Object.keys(generateOpenApi(noDefault, { version: 'v1' }).paths), ['/v1/hello/', '/hello/']);
});

test('a write: request and response schemas split (ItemSerializerRequest, PatchedItemSerializerRequest), the errors of a body declared', async () => {
  class WriteSerializer extends Serializer<Item> {
    static override fields = {
      id: new IntegerField({ readOnly: true }),
      name: new CharField({ maxLength: 20 }),
      price: new IntegerField({ minValue: 0 }),
      note: new CharField({ required: false }),
      secret: new CharField({ writeOnly: true }),
    };
  }
  class Items extends GenericAPIView {
    override queryset = rows;
    override serializerClass = WriteSerializer;
    override post(request: Request): Response {
      const s = new WriteSerializer(undefined, { data: request.data });
      s.isValid({ raiseException: true });
      return new Response({ id: 1, ...(s.validatedData as object) }, { status: 201 });
    }
    override patch(): Response {
      return new Response({});
    }
  }
  const api = new RestApi({
    urlpatterns: [path('items/', Items.asView(), { name: 'items' })],
    settings: { DEFAULT_RENDERER_CLASSES: [JSONRenderer] },
  });
  const d = generateOpenApi(api);
  const schemas = d.components?.schemas ?? {};
  assert.deepEqual(schemas['WriteSerializer'], {
    type: 'object',
    properties: {
      id: { type: 'integer', readOnly: true },
      name: { type: 'string' },
      price: { type: 'integer', minimum: 0 },
      note: { type: 'string' },
    },
    required: ['id', 'name', 'price', 'note'],
  });
  assert.deepEqual(schemas['WriteSerializerRequest'], {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 20 },
      price: { type: 'integer', minimum: 0 },
      note: { type: 'string' },
      secret: { type: 'string', writeOnly: true },
    },
    required: ['name', 'price', 'secret'],
  });
  assert.deepEqual((schemas['PatchedWriteSerializerRequest'] as Json).required, undefined, 'PATCH: nothing required');
  const post = operation(d, '/items/', 'post');
  assert.deepEqual(post.requestBody, {
    required: true,
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/WriteSerializerRequest' } },
      'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/WriteSerializerRequest' } },
    },
  });
  assert.deepEqual(Object.keys(post.responses as object), ['201', '400', '404', '406', '413', '415']);
  // The declared body errors are what the server answers.
  const s = await serveApi(api, 'node');
  try {
    const examples = (status: number, name: string): unknown =>
      (
        (response(post, status).content as Record<string, { examples: Record<string, { value: unknown }> }>)[
          'application/json'
        ]?.examples[name] as { value: unknown }
      ).value;
    const send = (body: string, type: string) =>
      call(`${s.origin}/items/`, { method: 'POST', body, headers: { 'Content-Type': type } });
    const invalid = await send('{}', 'application/json');
    assert.equal(invalid.status, 400);
    assert.deepEqual((invalid.body as Json).name, ['This field is required.']);
    assert.deepEqual(examples(400, 'invalidInput'), { name: ['This field is required.'] });
    const malformed = await send('{"name": ', 'application/json');
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, examples(400, 'malformedBody'));
    const unsupported = await send('name=x', 'text/plain');
    assert.equal(unsupported.status, 415);
    assert.deepEqual(unsupported.body, examples(415, 'unsupportedMediaType'));
  } finally {
    await s.close();
  }
});

/**
 * Every response README.md and docs/*.md show is what the API answers. The
 * demo's data set is deterministic (src/cli/demo-data.ts): the test seeds
 * the 100,000 rows `npm start` seeds, into an in-memory SQLite database,
 * serves the demo API on 127.0.0.1 (port 0; `http://127.0.0.1:8000` in an
 * example stands for that origin), sends each example's request and
 * compares the status, the headers shown and the body.
 *
 * The conventions (docs/guide.md follows them too; its examples are its own
 * project's, checked by test/docs.guide.test.ts):
 *
 * - A ```http block holds one or more exchanges: a request line
 *   (`GET /page/items/?page=2 HTTP/1.1`), its headers, a blank line, the
 *   status line (`HTTP/1.1 200 OK`: code and reason compared), the response
 *   headers the example cares about (each compared exactly; the others are
 *   not shown), a blank line, and the body (optional; compared when shown).
 * - In a ```sh block, a `curl` command on `http://127.0.0.1:8000` is a
 *   request (`-H` headers and `-X` are sent); `# ` lines right below it show
 *   the response: `# 404 {...}` a status and its body, `# {...}` a body of a
 *   200. A command without them must answer 2xx. A `# ...` at the end of the
 *   command line itself describes it and is not compared.
 * - A JSON body is compared structurally, keys in order. `...` elides: as
 *   the last element of an array (`[{"id": 4, ...}, ...]`) any further
 *   elements, as the last member of an object (`{"id": 500, ...}`) any
 *   further keys, `[... 100 items ...]` an array of that length, and the
 *   string `"..."` any value. A body that is not JSON is compared as text.
 * - The info string says where an example comes from: nothing more
 *   (```http) is the demo as `npm start` serves it; `fixture=NAME` an API
 *   whose settings the document shows next to the example, built below in
 *   `FIXTURES` from those settings; `illustrative: REASON` an example that is
 *   not checked, with the reason (an API of the reader's own, say).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDemoApi, ItemSerializer, ItemSerializerV1, ItemSerializerV2 } from '../src/cli/demo.js';
import { openDemoDatabase, type DemoDatabaseHandle, type Item } from '../src/cli/demo-data.js';
import { defaultAllowedHosts } from '../src/cli/serve-options.js';
import { RestApi } from '../src/rest/api.js';
import { ListAPIView, RetrieveAPIView } from '../src/rest/generics.js';
import { OrderingFilter } from '../src/rest/filters.js';
import { CursorPagination } from '../src/rest/pagination/cursor.js';
import type { SerializerClass } from '../src/rest/serializers.js';
import { path } from '../src/rest/urls/patterns.js';
import { URLPathVersioning } from '../src/rest/versioning.js';
import { serveApi, type Served } from './support/rest.js';
import {
  checkExchange,
  codeBlocks,
  curlExchanges,
  httpExchanges,
  metaAttributes,
  mismatches,
  parseLoose,
  type Exchange,
} from './support/doc-examples.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const DOC_ORIGIN = 'http://127.0.0.1:8000';
/** The documents whose examples come from the demo (docs/guide.md has a project of its own). */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'guide.md')
    .sort()
    .map((f) => `docs/${f}`),
];

/** An example to check: where it is, what API answers it, and the exchanges. */
interface Example {
  readonly where: string;
  readonly fixture: string;
  readonly exchanges: Exchange[];
}

function examplesOf(file: string): { checked: Example[]; illustrative: { where: string; reason: string }[] } {
  const checked: Example[] = [];
  const illustrative: { where: string; reason: string }[] = [];
  for (const block of codeBlocks(readFileSync(join(root, file), 'utf8'))) {
    const where = `${file}:${block.line}`;
    if (block.lang === 'http') {
      const reason = /^illustrative:\s*(.*)$/.exec(block.meta);
      if (reason !== null) illustrative.push({ where, reason: (reason[1] as string).trim() });
      else
        checked.push({
          where,
          fixture: metaAttributes(block.meta)['fixture'] ?? 'demo',
          exchanges: httpExchanges(block),
        });
    } else if (block.lang === 'sh' || block.lang === 'bash') {
      const found = curlExchanges(block, DOC_ORIGIN);
      if (found.length > 0)
        checked.push({ where, fixture: metaAttributes(block.meta)['fixture'] ?? 'demo', exchanges: found });
    }
  }
  return { checked, illustrative };
}

/** Signed cursors, as docs/pagination.md shows them: the demo's ordering endpoint with `CURSOR_SIGNING_KEY`. */
function signedCursors(demo: DemoDatabaseHandle): RestApi {
  class Newest extends CursorPagination {
    override pageSize = 2;
    override ordering = '-created';
  }
  class Items extends ListAPIView {
    override queryset = demo.items();
    override serializerClass = ItemSerializer;
    override paginationClass = Newest;
    override filterBackends = [OrderingFilter];
    override orderingFields = ['created', 'price', 'id'];
  }
  return new RestApi({
    urlpatterns: [path('items/', Items.asView())],
    settings: { CURSOR_SIGNING_KEY: 'a secret of at least 32 characters, from the environment' },
  });
}

/** The version lifecycle of docs/pagination.md: the demo's versioned items with `VERSION_LIFECYCLE`. */
function versionLifecycle(demo: DemoDatabaseHandle): RestApi {
  const serializerFor = (version: string | null): SerializerClass<Item> =>
    version === 'v2' ? ItemSerializerV2 : ItemSerializerV1;
  class VersionedItem extends RetrieveAPIView {
    override queryset = demo.items();
    override serializerClass = ItemSerializerV2;
    override versioningClass = URLPathVersioning;
    override getSerializerClass(): SerializerClass<Item> {
      return serializerFor(this.request.version);
    }
  }
  return new RestApi({
    urlpatterns: [
      path('versioned/<str:version>/items/<int:pk>/', VersionedItem.asView(), { name: 'versioned-item-detail' }),
    ],
    settings: {
      ALLOWED_VERSIONS: ['v0', 'v1', 'v2'],
      DEFAULT_VERSION: 'v2',
      VERSION_LIFECYCLE: {
        v0: {
          deprecation: new Date('2025-01-01'),
          sunset: new Date('2026-01-01'),
          successor: 'v1',
          goneAfterSunset: true,
        },
        v1: {
          deprecation: new Date('2026-01-01'),
          sunset: new Date('2030-01-01'),
          link: 'https://api.example.com/changes/v2',
          successor: 'v2',
          goneAfterSunset: true,
        },
      },
    },
  });
}

/** The demo with the COMPRESSION and CORS settings docs/production.md shows. */
function production(demo: DemoDatabaseHandle): RestApi {
  return buildDemoApi(demo.items(), {
    allowedHosts: defaultAllowedHosts('127.0.0.1'),
    compression: {},
    cors: {
      allowedOrigins: ['https://app.example.com', /^https:\/\/[a-z0-9-]+\.preview\.example\.com$/],
      exposedHeaders: ['Link', 'X-Total-Count'],
      allowCredentials: true,
    },
  });
}

/** Each fixture's API over the demo database (`demo` is what `npm start` serves). */
const FIXTURES: Record<string, (demo: DemoDatabaseHandle) => RestApi> = {
  demo: (demo) => buildDemoApi(demo.items(), { allowedHosts: defaultAllowedHosts('127.0.0.1') }),
  'serve-compression': (demo) =>
    buildDemoApi(demo.items(), {
      allowedHosts: defaultAllowedHosts('127.0.0.1'),
      compression: { encodings: ['br', 'gzip'] },
    }),
  'serve-cors': (demo) =>
    buildDemoApi(demo.items(), {
      allowedHosts: defaultAllowedHosts('127.0.0.1'),
      cors: { allowedOrigins: ['https://app.example.com'] },
    }),
  production,
  'signed-cursors': signedCursors,
  'version-lifecycle': versionLifecycle,
};

let demo: DemoDatabaseHandle;
const served = new Map<string, Served>();

before(async () => {
  demo = await openDemoDatabase(':memory:', { rows: 100_000 });
});
after(async () => {
  for (const s of served.values()) await s.close();
  await demo?.close();
});

async function origin(fixture: string): Promise<string> {
  let s = served.get(fixture);
  if (s === undefined) {
    const build = FIXTURES[fixture];
    assert.ok(build !== undefined, `no fixture ${fixture}`);
    s = await serveApi(build(demo), 'eventhttp');
    served.set(fixture, s);
  }
  return s.origin;
}

for (const file of DOCUMENTS) {
  const { checked, illustrative } = examplesOf(file);
  if (checked.length === 0 && illustrative.length === 0) continue;
  test(`${file}: every example response is what the API answers`, async () => {
    for (const ex of checked)
      for (const exchange of ex.exchanges)
        await checkExchange(`${file} (${ex.fixture})`, exchange, await origin(ex.fixture), DOC_ORIGIN);
    for (const { where, reason } of illustrative)
      assert.ok(reason.length > 10, `${where}: an illustrative example says why`);
  });
}

test('the conventions are in use: README and docs/pagination.md examples are checked', () => {
  const readme = examplesOf('README.md').checked.flatMap((e) => e.exchanges);
  const pagination = examplesOf('docs/pagination.md').checked.flatMap((e) => e.exchanges);
  assert.ok(readme.length >= 15, `README: ${readme.length} requests`);
  assert.ok(readme.filter((e) => e.body !== null).length >= 4, 'README shows bodies');
  assert.ok(pagination.length >= 10, `docs/pagination.md: ${pagination.length} requests`);
  // The demo has no /items/: examples on it name their fixture (the example of /items/?category=a is gone).
  for (const file of ['README.md', 'docs/pagination.md'])
    for (const e of examplesOf(file)
      .checked.filter((x) => x.fixture === 'demo')
      .flatMap((x) => x.exchanges))
      assert.doesNotMatch(e.target, /^\/items\//, `${file}:${e.line}`);
});

test('the checker: loose JSON, elisions, and what does not match', () => {
  const m = (example: string, actual: unknown): string[] => mismatches(parseLoose(example), actual);
  assert.deepEqual(m('{"a": 1, "b": [1, 2]}', { a: 1, b: [1, 2] }), []);
  assert.deepEqual(m('{"a": 1, ...}', { a: 1, z: 2 }), []);
  assert.deepEqual(m('{"a": 1}', { a: 1, z: 2 }), ['$.z: not in the example']);
  assert.deepEqual(m('{"b": 2, "a": 1}', { a: 1, b: 2 }), ['$: keys in another order: a, b (example: b, a)']);
  assert.deepEqual(m('[{"id": 4, ...}, ...]', [{ id: 4, x: 1 }, { id: 5 }]), []);
  assert.deepEqual(m('[{"id": 4, ...}, ...]', []), [
    '$: expected at least 1 elements, got 0',
    '$[0]: expected an object, got undefined',
  ]);
  assert.deepEqual(m('[1, 2]', [1, 2, 3]), ['$: expected 2 elements, got 3']);
  assert.deepEqual(m('{"r": [... 3 items ...]}', { r: [0, 0, 0] }), []);
  assert.equal(m('{"r": [... 3 items ...]}', { r: [0] }).length, 1);
  assert.deepEqual(m('{"next": "..."}', { next: null }), []);
  assert.deepEqual(m('{"id": 98822}', { id: 98821 }), ['$.id: expected 98822, got 98821']);
  assert.throws(() => parseLoose('{"a": 1,}'), SyntaxError);
  assert.throws(() => parseLoose('[..., 1]'), SyntaxError);
});

test('the checker: http blocks and curl lines', () => {
  const block = (lang: string, text: string) => ({ lang, meta: '', text, line: 1 });
  const [a, b] = httpExchanges(
    block(
      'http',
      'GET /x/?a=1 HTTP/1.1\nAccept: text/html\n\nHTTP/1.1 404 Not Found\nVary: Accept\n\n{"detail": "Not found."}\n\nHEAD /y/ HTTP/1.1\n\nHTTP/1.1 200 OK\n',
    ),
  );
  assert.deepEqual(a, {
    method: 'GET',
    target: '/x/?a=1',
    requestHeaders: { accept: 'text/html' },
    status: 404,
    reason: 'Not Found',
    headers: { vary: 'Accept' },
    body: '{"detail": "Not found."}',
    line: 1,
  });
  assert.deepEqual([b?.method, b?.target, b?.status, b?.body], ['HEAD', '/y/', 200, null]);
  assert.throws(() => httpExchanges(block('http', 'GET /x/\n\nHTTP/1.1 200 OK\n')), /a request line expected/);
  const curls = curlExchanges(
    block(
      'sh',
      [
        "curl -H 'Host: v2.example.com' http://127.0.0.1:8000/a/   # a comment, not a response",
        'curl http://127.0.0.1:8000/b/',
        '# 404 {"detail": "x"}',
        'curl -s -X OPTIONS -D - \\',
        '     http://127.0.0.1:8000/c/',
        '# HTTP/1.1 204 No Content',
        '# Vary: Origin',
        'curl https://elsewhere.example/',
      ].join('\n'),
    ),
    DOC_ORIGIN,
  );
  assert.deepEqual(
    curls.map((e) => [e.method, e.target, e.requestHeaders, e.status, e.headers, e.body]),
    [
      ['GET', '/a/', { host: 'v2.example.com' }, null, {}, null],
      ['GET', '/b/', {}, 404, {}, '{"detail": "x"}'],
      ['OPTIONS', '/c/', {}, 204, { vary: 'Origin' }, null],
    ],
  );
});

/**
 * A client generated from the demo's OpenAPI documents works as a client
 * author would write it. For each document (`/openapi/v1.json`,
 * `/openapi/v2.json`, served by the demo over a small SQLite data set on
 * 127.0.0.1), openapi-typescript generates the types (its Node API, in a
 * temporary directory), and a small program using openapi-fetch
 * (`createClient<paths>({ baseUrl })`) walks every list style of the demo:
 * page numbers (following `next` until it is null, and `page=last`),
 * limit/offset, cursors forward and back, keyset cursors, an ordered cursor
 * list, a Relay connection (edges, pageInfo) forward and back, the Link
 * header list; reads an item of the detail view and the 404 of a missing
 * one (its body typed `{ detail: string }`), the API root and the version
 * endpoints of each scheme.
 *
 * The program reads the fields that are always there without casts,
 * optional chaining or non-null assertions, into annotated variables
 * (`const next: string | null = page.next`, `item.created.length`), so it
 * compiles only when the document marks them required (and `next` nullable,
 * not optional). It is compiled with the TypeScript compiler API under
 * `strict` and `noUncheckedIndexedAccess` (no diagnostic allowed), emitted
 * and run against the demo, and what it walked is compared with the data
 * set (ids in each list's order).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { demoItem } from '../../src/cli/demo-data.js';
import {
  DEMO_ROWS,
  fetchDocument,
  LOOPBACK_ONLY,
  serveDemo,
  VERSIONS,
  type ApiVersion,
  type DemoServer,
} from '../support/openapi-tools.js';
import { killAll, ROOT, runNode, tempDir } from '../support/spawn.js';

/** The client program for the document of `version` (types in ./schema.ts). */
function clientProgram(version: ApiVersion): string {
  const v = version;
  /** The item reader of this version's versioned views. */
  const describeVersioned = v === 'v1' ? 'describeV1' : 'describeV2';
  return `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const origin = process.env['DEMO_ORIGIN'];
if (origin === undefined) throw new Error('DEMO_ORIGIN is not set');
// JSON answers only: the API also serves its browsable text/html, which a JSON client does not ask for.
const client = createClient<paths, 'application/json'>({ baseUrl: origin });

const GUARD = 50;

function fail(what: string, response: Response): never {
  throw new Error(what + ' answered ' + String(response.status));
}

function param(link: string, name: string): string {
  const value = new URL(link).searchParams.get(name);
  if (value === null) throw new Error('no ' + name + ' in ' + link);
  return value;
}

/** An item of the lists, every field read as the type it always has. */
function describeItem(item: { id: number; name: string; created: string; price: number; category: string }): string {
  return item.id.toFixed() + ' ' + item.name.toUpperCase() + ' ' + item.created.slice(0, 10) + ' ' + item.price.toFixed() + ' ' + item.category.length.toFixed();
}

/** A v1 item of the versioned views. */
function describeV1(item: { url: string; id: number; name: string; price: number }): string {
  return new URL(item.url).pathname + ' ' + item.id.toFixed() + ' ' + item.name.length.toFixed() + ' ' + item.price.toFixed();
}

/** A v2 item of the versioned views. */
function describeV2(item: { url: string; id: number; name: string; created: string; price: number; category: string }): string {
  return new URL(item.url).pathname + ' ' + describeItem(item);
}

async function pageNumbers(): Promise<{ ids: number[]; counts: number[]; last: number[] }> {
  const ids: number[] = [];
  const counts: number[] = [];
  let page = 1;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/page/items/', { params: { query: { page, page_size: 10 } } });
    if (data === undefined) return fail('page ' + String(page), response);
    const count: number = data.count;
    counts.push(count);
    for (const item of data.results) {
      describeItem(item);
      ids.push(item.id);
    }
    const next: string | null = data.next;
    const previous: string | null = data.previous;
    if ((page === 1) !== (previous === null)) throw new Error('previous of page ' + String(page) + ': ' + String(previous));
    if (next === null) {
      const lastPage = await client.GET('/page/items/', { params: { query: { page: 'last' } } });
      if (lastPage.data === undefined) return fail('page=last', lastPage.response);
      return { ids, counts, last: lastPage.data.results.map((item) => item.id) };
    }
    page = Number(param(next, 'page'));
  }
  throw new Error('page numbers: no end');
}

async function limitOffset(): Promise<number[]> {
  const ids: number[] = [];
  let offset = 0;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/limit/items/', { params: { query: { limit: 10, offset } } });
    if (data === undefined) return fail('offset ' + String(offset), response);
    for (const item of data.results) ids.push(item.id);
    const next: string | null = data.next;
    if (next === null) return ids;
    offset = Number(param(next, 'offset'));
  }
  throw new Error('limit/offset: no end');
}

/** The cursor list (-created): forward to the end, then back along the previous links. */
async function cursors(): Promise<{ forward: number[]; backward: number[] }> {
  const forward: number[] = [];
  let cursor: string | undefined = undefined;
  let previous: string | null = null;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/cursor/items/', { params: { query: { cursor } } });
    if (data === undefined) return fail('cursor', response);
    for (const item of data.results) forward.push(item.created.length === 27 ? item.id : -1);
    const next: string | null = data.next;
    previous = data.previous;
    if (next === null) break;
    cursor = param(next, 'cursor');
  }
  const pages: number[][] = [];
  for (let i = 0; i < GUARD && previous !== null; i++) {
    const { data, response } = await client.GET('/cursor/items/', { params: { query: { cursor: param(previous, 'cursor') } } });
    if (data === undefined) return fail('previous cursor', response);
    pages.unshift(data.results.map((item) => item.id));
    previous = data.previous;
  }
  return { forward, backward: pages.flat() };
}

async function cursorPrice(): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined = undefined;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/cursor-price/items/', { params: { query: { cursor, page_size: 4 } } });
    if (data === undefined) return fail('cursor-price', response);
    for (const item of data.results) ids.push(item.id);
    const next: string | null = data.next;
    if (next === null) return ids;
    cursor = param(next, 'cursor');
  }
  throw new Error('cursor-price: no end');
}

/** Page numbers without a count: next until null. */
async function uncounted(): Promise<number[]> {
  const ids: number[] = [];
  let page = 1;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/page-nocount/items/', { params: { query: { page } } });
    if (data === undefined) return fail('page-nocount ' + String(page), response);
    for (const item of data.results) ids.push(item.id);
    const next: string | null = data.next;
    if (next === null) return ids;
    page = Number(param(next, 'page'));
  }
  throw new Error('page-nocount: no end');
}

/** The versioned list of this version, in this version's item shape. */
async function versionedList(): Promise<number[]> {
  const ids: number[] = [];
  let page = 1;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/versioned/${v}/items/', { params: { query: { page, page_size: 10 } } });
    if (data === undefined) return fail('versioned page ' + String(page), response);
    const count: number = data.count;
    if (count !== ${DEMO_ROWS}) throw new Error('versioned count ' + String(count));
    for (const item of data.results) {
      ${describeVersioned}(item);
      ids.push(item.id);
    }
    const next: string | null = data.next;
    if (next === null) return ids;
    page = Number(param(next, 'page'));
  }
  throw new Error('versioned list: no end');
}

async function keyset(): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined = undefined;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/cursor-keyset/items/', { params: { query: { cursor, page_size: 7 } } });
    if (data === undefined) return fail('keyset', response);
    for (const item of data.results) ids.push(item.id);
    const next: string | null = data.next;
    if (next === null) return ids;
    cursor = param(next, 'cursor');
  }
  throw new Error('keyset: no end');
}

async function ordered(): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined = undefined;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/cursor-ordering/items/', {
      params: { query: { ordering: ['-price'], cursor, page_size: 10 } },
    });
    if (data === undefined) return fail('ordering', response);
    for (const item of data.results) ids.push(item.id);
    const next: string | null = data.next;
    if (next === null) return ids;
    cursor = param(next, 'cursor');
  }
  throw new Error('ordering: no end');
}

/** One page of the Relay connection (the query typed here, so a loop's cursor does not feed the call's inference). */
async function relayPage(query: { first?: number; last?: number; after?: string; before?: string }) {
  const { data, response } = await client.GET('/cursor-relay/items/', { params: { query } });
  if (data === undefined) return fail('relay ' + JSON.stringify(query), response);
  return data;
}

async function relay(): Promise<{ forward: number[]; backward: number[] }> {
  const forward: number[] = [];
  let after: string | undefined = undefined;
  for (let i = 0; i < GUARD; i++) {
    const data = await relayPage(after === undefined ? { first: 10 } : { first: 10, after });
    for (const edge of data.edges) {
      const position: string = edge.cursor;
      if (position.length === 0) throw new Error('an empty edge cursor');
      forward.push(edge.node.id);
    }
    const hasNext: boolean = data.pageInfo.hasNextPage;
    const end: string | null = data.pageInfo.endCursor;
    if (!hasNext || end === null) break;
    after = end;
  }
  const backward: number[] = [];
  let before: string | undefined = undefined;
  for (let i = 0; i < GUARD; i++) {
    const data = await relayPage(before === undefined ? { last: 10 } : { last: 10, before });
    backward.unshift(...data.edges.map((edge) => edge.node.id));
    const hasPrevious: boolean = data.pageInfo.hasPreviousPage;
    const start: string | null = data.pageInfo.startCursor;
    if (!hasPrevious || start === null) break;
    before = start;
  }
  return { forward, backward };
}

async function linkHeader(): Promise<number[]> {
  const ids: number[] = [];
  let page = 1;
  for (let i = 0; i < GUARD; i++) {
    const { data, response } = await client.GET('/link/items/', { params: { query: { page, page_size: 10 } } });
    if (data === undefined) return fail('link page ' + String(page), response);
    for (const item of data) ids.push(item.id);
    const next = /<([^>]+)>;\\s*rel="next"/.exec(response.headers.get('link') ?? '');
    if (next === null || next[1] === undefined) return ids;
    page = Number(param(next[1], 'page'));
  }
  throw new Error('link header: no end');
}

async function detail(): Promise<{ id: number; described: string; missing: { status: number; detail: string } }> {
  const { data, response } = await client.GET('/versioned/${v}/items/{pk}/', { params: { path: { pk: 7 } } });
  if (data === undefined) return fail('item 7', response);
  const described: string = ${describeVersioned}(data);
  const missing = await client.GET('/versioned/${v}/items/{pk}/', { params: { path: { pk: 999999999 } } });
  if (missing.error === undefined) return fail('item 999999999', missing.response);
  const message: string = missing.error.detail;
  return { id: data.id, described, missing: { status: missing.response.status, detail: message } };
}

async function root(): Promise<string[]> {
  const { data, response } = await client.GET('/');
  if (data === undefined) return fail('the API root', response);
  const links: string[] = [
    data.page,
    data.limit,
    data.cursor,
    data['cursor-price'],
    data['cursor-ordering'],
    data['cursor-keyset'],
    data['cursor-relay'],
    data['page-nocount'],
    data.link,
    data.versioned.v1,
    data.versioned.v2,
    data.version.accept,
    data.version.urlpath,
    data.version.namespace,
    data.version.host,
    data.version.query,
    data.version.header,
    data.openapi.v1,
    data.openapi.v2,
    data.docs,
  ];
  return links.map((link) => new URL(link).pathname);
}

async function versions(): Promise<Record<string, string>> {
  const seen: Record<string, string> = {};
  const note = (scheme: string, body: { version: string; url: string }): void => {
    seen[scheme] = body.version + ' ' + new URL(body.url).pathname;
  };
  const query = await client.GET('/query/version/', { params: { query: { version: '${v}' } } });
  if (query.data === undefined) return fail('query version', query.response);
  note('query', query.data);
  const header = await client.GET('/header/version/', { params: { header: { 'X-API-Version': '${v}' } } });
  if (header.data === undefined) return fail('header version', header.response);
  note('header', header.data);
  const accept = await client.GET('/accept/version/', { headers: { Accept: 'application/json; version=${v}' } });
  if (accept.data === undefined) return fail('accept version', accept.response);
  note('accept', accept.data);
  const host = await client.GET('/host/version/', { headers: { 'X-Forwarded-Host': '${v}.example.com' } });
  if (host.data === undefined) return fail('host version', host.response);
  note('host', host.data);
  const urlpath = await client.GET('/urlpath/${v}/version/');
  if (urlpath.data === undefined) return fail('urlpath version', urlpath.response);
  note('urlpath', urlpath.data);
  const namespace = await client.GET('/namespace/${v}/version/');
  if (namespace.data === undefined) return fail('namespace version', namespace.response);
  note('namespace', namespace.data);
  return seen;
}

const walked = {
  pages: await pageNumbers(),
  limits: await limitOffset(),
  cursors: await cursors(),
  keyset: await keyset(),
  cursorPrice: await cursorPrice(),
  uncounted: await uncounted(),
  versioned: await versionedList(),
  ordered: await ordered(),
  relay: await relay(),
  link: await linkHeader(),
  detail: await detail(),
  root: await root(),
  versions: await versions(),
};
process.stdout.write(JSON.stringify(walked) + '\\n');
`;
}

/** Casts, non-null assertions and optional chaining in `source` (the program must have none). */
function escapeHatches(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const at = (what: string): void => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${what} at line ${line + 1}: ${node.getText(source).slice(0, 80)}`);
    };
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isSatisfiesExpression(node)) at('a cast');
    else if (ts.isNonNullExpression(node)) at('a non-null assertion');
    else if (
      (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isCallExpression(node)) &&
      node.questionDotToken !== undefined
    )
      at('optional chaining');
    else if (node.kind === ts.SyntaxKind.AnyKeyword) at('any');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The compiler options of the client program: strict and noUncheckedIndexedAccess, emitted as ESM. */
function compilerOptions(outDir: string): ts.CompilerOptions {
  return {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    skipLibCheck: true,
    noEmitOnError: true,
    outDir,
  };
}

/** What the program prints. */
interface Walked {
  pages: { ids: number[]; counts: number[]; last: number[] };
  limits: number[];
  cursors: { forward: number[]; backward: number[] };
  keyset: number[];
  cursorPrice: number[];
  uncounted: number[];
  versioned: number[];
  ordered: number[];
  relay: { forward: number[]; backward: number[] };
  link: number[];
  detail: { id: number; described: string; missing: { status: number; detail: string } };
  root: string[];
  versions: Record<string, string>;
}

const rows = Array.from({ length: DEMO_ROWS }, (_, i) => demoItem(i + 1));
const byId = rows.map((r) => r.id);
const byPrice = [...rows].sort((a, b) => a.price - b.price || a.id - b.id).map((r) => r.id);
const byPriceDesc = [...rows].sort((a, b) => b.price - a.price || b.id - a.id).map((r) => r.id);
const byCreatedDesc = [...rows].sort((a, b) => b.created.getTime() - a.created.getTime()).map((r) => r.id);

for (const version of VERSIONS) {
  describe(
    `a client generated from /openapi/${version}.json (openapi-typescript, openapi-fetch)`,
    { timeout: 300_000 },
    () => {
      let demo: DemoServer | undefined;
      let tmp: { path: string; remove: () => void } | undefined;
      let diagnostics: string[] = [];
      let hatches: string[] = [];
      let generated = '';
      let walked: Walked | undefined;

      before(
        async () => {
          demo = await serveDemo();
          tmp = tempDir('eventide-client-');
          const dir = tmp.path;
          // openapi-fetch (and @types/node) resolve from the repository's node_modules.
          symlinkSync(join(ROOT, 'node_modules'), join(tmp.path, 'node_modules'), 'junction');
          await writeFile(join(tmp.path, 'package.json'), JSON.stringify({ type: 'module', private: true }));
          const doc = await fetchDocument(demo.origin, version);
          generated = astToString(await openapiTS(doc as unknown as OpenAPI3, { silent: true }));
          await writeFile(join(tmp.path, 'schema.ts'), generated);
          const program = join(tmp.path, 'client.ts');
          await writeFile(program, clientProgram(version));
          const outDir = join(tmp.path, 'out');
          await mkdir(outDir);
          const compiled = ts.createProgram([program], compilerOptions(outDir));
          const programSource = compiled.getSourceFile(program);
          if (programSource === undefined) throw new Error('the client program was not read');
          hatches = escapeHatches(programSource);
          const found = [...ts.getPreEmitDiagnostics(compiled)];
          diagnostics = found.map((d) => {
            const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
            if (d.file === undefined || d.start === undefined) return text;
            const { line } = d.file.getLineAndCharacterOfPosition(d.start);
            const source = d.file.text.split('\n')[line]?.trim() ?? '';
            return `${d.file.fileName.slice(dir.length + 1)}:${line + 1}: ${text}\n      ${source}`;
          });
          if (diagnostics.length > 0) return;
          const emitted = compiled.emit();
          if (emitted.emitSkipped) throw new Error('the client program was not emitted');
          // Run with the loopback guard: the client talks to the demo only.
          const run = runNode(['--import', pathToFileURL(LOOPBACK_ONLY).href, join(outDir, 'client.js')], {
            cwd: tmp.path,
            env: { ...process.env, DEMO_ORIGIN: demo.origin },
          });
          const exit = await run.waitExit(60_000);
          if (exit.code !== 0)
            throw new Error(`the client program failed (${exit.code}): ${run.stderr().slice(0, 3000)}`);
          walked = JSON.parse(run.stdout()) as Walked;
        },
        { timeout: 240_000 },
      );

      after(async () => {
        await demo?.close();
        tmp?.remove();
        killAll();
      });

      test('the generated types name every path of the document', () => {
        assert.match(generated, /export interface paths \{/);
        assert.match(generated, new RegExp(`"/versioned/${version}/items/\\{pk\\}/"`));
      });

      test('the client program has no casts, non-null assertions, optional chaining or any', () => {
        assert.deepEqual(hatches, []);
      });

      test('the client program compiles under strict and noUncheckedIndexedAccess', () => {
        assert.equal(diagnostics.length, 0, `${diagnostics.length} diagnostics:\n  - ${diagnostics.join('\n  - ')}`);
      });

      test('page numbers: following next until null gives every item by id, and page=last the last page', () => {
        assert.ok(walked, 'the program ran');
        assert.deepEqual(walked.pages.ids, byId);
        assert.deepEqual(walked.pages.counts, [DEMO_ROWS, DEMO_ROWS, DEMO_ROWS]);
        assert.deepEqual(walked.pages.last, byId.slice(20));
      });

      test('limit/offset, the Link header, uncounted pages, the versioned list and the cursor lists walk every item in order', () => {
        assert.ok(walked, 'the program ran');
        assert.deepEqual(walked.limits, byId);
        assert.deepEqual(walked.link, byId);
        assert.deepEqual(walked.keyset, byPrice);
        assert.deepEqual(walked.cursorPrice, byPrice);
        assert.deepEqual(walked.uncounted, byId);
        assert.deepEqual(walked.versioned, byId);
        assert.deepEqual(walked.ordered, byPriceDesc);
      });

      test('cursors and the Relay connection walk forward, and back along previous links', () => {
        assert.ok(walked, 'the program ran');
        assert.deepEqual(walked.cursors.forward, byCreatedDesc);
        // Back from the last page (items 21-25 of the order): the two pages before it.
        assert.deepEqual(walked.cursors.backward, byCreatedDesc.slice(0, 20));
        assert.deepEqual(walked.relay.forward, byPrice);
        assert.deepEqual(walked.relay.backward, byPrice);
      });

      test('the detail view, its 404 body, the API root and the version endpoints', () => {
        assert.ok(walked, 'the program ran');
        assert.equal(walked.detail.id, 7);
        assert.deepEqual(walked.detail.missing, { status: 404, detail: 'Not found.' });
        assert.ok(walked.root.includes('/page/items/') && walked.root.includes(`/versioned/${version}/items/`));
        assert.deepEqual(walked.versions, {
          query: `${version} /query/version/`,
          header: `${version} /header/version/`,
          accept: `${version} /accept/version/`,
          host: `${version} /host/version/`,
          urlpath: `${version} /urlpath/${version}/version/`,
          namespace: `${version} /namespace/${version}/version/`,
        });
      });
    },
  );
}

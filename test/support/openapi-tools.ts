/**
 * What the tests that hold the demo's OpenAPI documents against the
 * ecosystem's own tools share (test/rest/openapi.prism and
 * openapi.client): the demo API over a small SQLite data set on 127.0.0.1,
 * its documents, the document's operations and which of them a request
 * reaches, and a Prism proxy (`@stoplight/prism-cli`) in front of the demo:
 * started on 127.0.0.1 port 0, stopped, and its violations read.
 *
 * The request set itself is in {@link requestSet} (./openapi-requests.ts).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildDemoApi } from '../../src/cli/demo.js';
import { openDemoDatabase, type DemoDatabaseHandle } from '../../src/cli/demo-data.js';
import { serveApi } from './rest.js';
import { runNode, type ExampleRun } from './spawn.js';

/** The demo's API versions, each with its own document (`/openapi/<version>.json`). */
export const VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof VERSIONS)[number];

/** Rows of the demo data set: three pages of ten, the last one short. */
export const DEMO_ROWS = 25;

/** A JSON object as parsed. */
export type Json = Record<string, unknown>;

/** The demo API served on 127.0.0.1 (port 0) over an in-memory SQLite demo database. */
export interface DemoServer {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** The ids of the data set, in id order. */
  readonly ids: readonly number[];
  close(): Promise<void>;
}

/**
 * Serves the demo API (EventHttp, 127.0.0.1 port 0) over a fresh in-memory
 * SQLite demo database of `rows` rows. It trusts `X-Forwarded-Host`
 * (`trustProxy`): a proxy such as Prism does not pass `Host` on, so the
 * host-name versioning is reached through `X-Forwarded-Host`.
 * @example
 * ```ts
 * const demo = await serveDemo();
 * try { await fetch(`${demo.origin}/page/items/`); } finally { await demo.close(); }
 * ```
 */
export async function serveDemo(rows = DEMO_ROWS): Promise<DemoServer> {
  const db: DemoDatabaseHandle = await openDemoDatabase(':memory:', { rows });
  try {
    const served = await serveApi(buildDemoApi(db.items(), { trustProxy: true }), 'eventhttp');
    return {
      origin: served.origin,
      ids: Array.from({ length: rows }, (_, i) => i + 1),
      async close() {
        await served.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** A GET of `url` answered within `ms` (AbortSignal.timeout), as text. */
export async function fetchText(
  url: string,
  init: RequestInit = {},
  ms = 15_000,
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(ms), ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The demo's OpenAPI document of `version`, as served. */
export async function fetchDocument(origin: string, version: ApiVersion): Promise<Json> {
  const r = await fetchText(`${origin}/openapi/${version}.json`);
  if (r.status !== 200) throw new Error(`/openapi/${version}.json answered ${r.status}: ${r.text.slice(0, 300)}`);
  return JSON.parse(r.text) as Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** An operation of a document: its method (lower case), path template and a matcher for request paths. */
export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly templated: boolean;
  readonly responses: Json;
  matches(requestPath: string): boolean;
}

/** Every operation of `doc` (each method of each path). */
export function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  const paths = (doc['paths'] ?? {}) as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    const source = path
      .split(/(\{[^}]+\})/)
      .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    const re = new RegExp(`^${source}$`);
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      out.push({
        method,
        path,
        templated: path.includes('{'),
        responses: (op['responses'] ?? {}) as Json,
        matches: (p) => re.test(p),
      });
    }
  }
  return out;
}

/**
 * The operation a request reaches, as OpenAPI routes it: the path without
 * its query, a literal path before a templated one; null when none.
 */
export function matchOperation(ops: readonly Operation[], method: string, url: string): Operation | null {
  const path = url.split('?')[0] ?? url;
  const m = method.toLowerCase();
  const found = ops.filter((o) => o.method === m && o.matches(path));
  return found.find((o) => !o.templated) ?? found[0] ?? null;
}

/** Whether `status` is among an operation's responses (exactly, as `4XX`, or through `default`). */
export function declaresStatus(op: Operation, status: number): boolean {
  const s = String(status);
  return s in op.responses || `${s[0] ?? ''}XX` in op.responses || 'default' in op.responses;
}

/** One validation finding of Prism (an entry of its `sl-violations` header). */
export interface Violation {
  /** Where: `['request', 'query', 'page']`, `['response', 'body', ...]`, or `['request']` for an unrouted request. */
  readonly location: readonly string[];
  readonly severity: string;
  readonly code?: string | number;
  readonly message: string;
}

/** The violations of Prism's `sl-violations` header (none without the header; a truncated list as one violation). */
export function parseViolations(header: string | null): Violation[] {
  if (header === null || header === '') return [];
  try {
    const parsed = JSON.parse(header) as unknown;
    if (Array.isArray(parsed)) return parsed as Violation[];
  } catch {
    // Prism truncates a long list ("Too many violations! ..."): kept whole as one.
  }
  return [{ location: ['unknown'], severity: 'Error', message: header }];
}

/** Whether a violation is about the request (parameters, route) rather than the response. */
export function isRequestViolation(v: Violation): boolean {
  return v.location[0] === 'request';
}

/** A running Prism proxy. */
export interface PrismProxy {
  /** `http://127.0.0.1:PORT` of the proxy. */
  readonly origin: string;
  /** Prism's log so far (stdout and stderr, without colours). */
  log(): string;
  /** Stops Prism (SIGTERM, then SIGKILL after 5 s); resolves once it exited. */
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** The CLI script of `@stoplight/prism-cli` (a devDependency), run with this Node. */
export const PRISM_CLI = require.resolve('@stoplight/prism-cli/dist/index.js');

/**
 * The module preloaded into a tool's process (`--import`) that refuses, and
 * reports on stderr with {@link REFUSED_OUTSIDE}, every connection and DNS
 * lookup outside loopback (./loopback-only.mjs).
 */
export const LOOPBACK_ONLY = fileURLToPath(new URL('./loopback-only.mjs', import.meta.url));

/** How {@link LOOPBACK_ONLY} reports what it refused. */
export const REFUSED_OUTSIDE = 'eventide-loopback-only: refused';

/**
 * Starts `prism proxy <documentFile> <upstream>` on 127.0.0.1 port 0 and
 * waits (at most `ms`) until it listens. `--errors=false`: violations are
 * reported (`sl-violations`, the log) and the upstream's answer passes
 * unchanged; `--cors=false`: Prism adds no CORS headers and answers no
 * OPTIONS itself. Prism makes no outside calls of its own (no telemetry or
 * update check in 5.x; the document is a local file without remote
 * references, and proxy variables are removed from its environment so the
 * upstream is reached directly), and {@link LOOPBACK_ONLY}, preloaded,
 * refuses any it would make: the log then shows {@link REFUSED_OUTSIDE}.
 * @example
 * ```ts
 * const prism = await startPrism('/tmp/v1.json', demo.origin);
 * try { await fetch(`${prism.origin}/page/items/`); } finally { await prism.stop(); }
 * ```
 */
export async function startPrism(documentFile: string, upstream: string, ms = 60_000): Promise<PrismProxy> {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', NO_PROXY: '*', no_proxy: '*' };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'])
    delete env[name];
  const run: ExampleRun = runNode(
    [
      '--import',
      new URL('./loopback-only.mjs', import.meta.url).href,
      PRISM_CLI,
      'proxy',
      documentFile,
      upstream,
      '--errors=false',
      '--cors=false',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
    ],
    { env },
  );
  const stop = async (): Promise<void> => {
    if (run.child.exitCode !== null || run.child.signalCode !== null) return;
    run.kill('SIGTERM');
    await run.waitExit(5_000).catch(() => undefined);
  };
  try {
    await run.waitStdout('Prism is listening on', ms);
  } catch (err) {
    await stop();
    throw err;
  }
  const m = /Prism is listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(run.stdout());
  if (m === null || m[1] === undefined) {
    await stop();
    throw new Error(`Prism did not listen on 127.0.0.1: ${run.stdout().slice(0, 2000)}`);
  }
  return { origin: m[1], log: () => run.stdout() + run.stderr(), stop };
}

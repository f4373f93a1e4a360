/**
 * The demo's OpenAPI documents hold for what the demo really answers, as
 * Stoplight Prism sees it: each document (`/openapi/v1.json`,
 * `/openapi/v2.json`, saved to a local file) is loaded by `prism proxy` in
 * front of the demo API (a small SQLite data set on 127.0.0.1), and a broad
 * request set (test/support/openapi-requests.ts: every path with GET, HEAD,
 * OPTIONS and text/html, typical and edge parameters of every list style,
 * real and forged cursors, Relay arguments, orderings, the detail view and
 * a missing item, bad versions in every scheme, an unsatisfiable Accept) goes
 * through the proxy. Prism reports what it finds in the `sl-violations`
 * header of each answer; the tests collect them and print them on failure.
 *
 * - the request set reaches every operation of the document;
 * - the demo answers each request with the status the set expects (so the
 *   set exercises the error statuses it is meant to);
 * - a request within the contract gets no violation at all, and no answer
 *   (whatever the request) breaks the document: its status, media type,
 *   body and headers are declared;
 * - a request outside the contract (a parameter out of its declared range
 *   or type, a path or method the version does not serve) is flagged by
 *   Prism as such, i.e. the document states the limits the API applies.
 *
 * Prism runs with a preloaded guard (test/support/loopback-only.mjs) that
 * refuses any connection or DNS lookup outside loopback; a test checks its
 * log for one, and another that the guard works.
 *
 * Prism's forwarder drops `Host`, so the demo trusts `X-Forwarded-Host` and
 * the host-name versioning is reached through it; it follows redirects, so
 * the set has no 301 (a path without its trailing slash) either.
 *
 * HEAD is checked by the harness, not by Prism: Prism 5 cannot proxy a HEAD
 * answer that carries the GET's `Content-Type: application/json` (its
 * parseResponse reads a JSON body whenever the type is JSON and the status
 * is not 204, and answers 500 "invalid json response body"), which is what
 * HEAD must carry. So HEAD goes to the demo directly, and its path must
 * have a `head` operation declaring the status.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFile } from 'node:fs/promises';
import {
  declaresStatus,
  fetchDocument,
  isRequestViolation,
  LOOPBACK_ONLY,
  matchOperation,
  operations,
  parseViolations,
  REFUSED_OUTSIDE,
  serveDemo,
  startPrism,
  VERSIONS,
  type DemoServer,
  type Json,
  type Operation,
  type PrismProxy,
  type Violation,
} from '../support/openapi-tools.js';
import { realLinks, requestSet, type RequestCase } from '../support/openapi-requests.js';
import { killAll, runNode, tempDir } from '../support/spawn.js';

/** A request sent and what came back. */
interface Exchange {
  readonly case: RequestCase;
  readonly status: number;
  readonly contentType: string;
  /** Prism's findings (for HEAD: the harness's). */
  readonly violations: readonly Violation[];
  /** An error answer of Prism itself (it could not forward or validate), else null. */
  readonly prismError: string | null;
}

const REQUEST_DEADLINE = 15_000;

function describeCase(c: RequestCase): string {
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  return `${c.method} ${c.url}${headers === '' ? '' : ` [${headers}]`} (${c.note}; ${c.request})`;
}

/** HEAD, checked against the document by the harness (see the module's description). */
async function sendHead(demo: DemoServer, ops: readonly Operation[], c: RequestCase): Promise<Exchange> {
  const res = await fetch(demo.origin + c.url, {
    method: 'HEAD',
    headers: c.headers,
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_DEADLINE),
  });
  await res.arrayBuffer();
  const violations: Violation[] = [];
  const op = matchOperation(ops, 'HEAD', c.url);
  if (op === null) {
    violations.push({ location: ['request'], severity: 'Warning', message: 'no head operation at this path' });
  } else if (!declaresStatus(op, res.status)) {
    violations.push({
      location: ['response'],
      severity: 'Warning',
      message: `status ${res.status} is not declared by head ${op.path}`,
    });
  }
  return {
    case: c,
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    violations,
    prismError: null,
  };
}

async function sendThroughPrism(prism: PrismProxy, c: RequestCase): Promise<Exchange> {
  const res = await fetch(prism.origin + c.url, {
    method: c.method,
    headers: c.headers,
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_DEADLINE),
  });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let prismError: string | null = null;
  if (contentType.startsWith('application/problem+json')) {
    // Prism's own errors (the demo never answers problem+json): e.g. an upstream it could not read.
    prismError = text.slice(0, 500);
  }
  return {
    case: c,
    status: res.status,
    contentType,
    violations: parseViolations(res.headers.get('sl-violations')),
    prismError,
  };
}

/** The violations that count for a case: all of them within the contract, the answer's otherwise. */
function counted(x: Exchange): Violation[] {
  const found = x.case.request === 'valid' ? [...x.violations] : x.violations.filter((v) => !isRequestViolation(v));
  if (x.prismError !== null) found.push({ location: ['prism'], severity: 'Error', message: x.prismError });
  return found;
}

function report(title: string, lines: string[]): string {
  return `${title} (${lines.length}):\n${lines.map((l) => `  - ${l}`).join('\n')}`;
}

test('the loopback guard preloaded into Prism refuses connections and lookups outside loopback', async () => {
  const tmp = tempDir('eventide-loopback-');
  try {
    // The real connect and lookups are replaced first by ones that only report, so nothing leaves the process
    // even if the guard failed.
    const stub = join(tmp.path, 'stub.mjs');
    await writeFile(
      stub,
      [
        "import net from 'node:net';",
        "import dns from 'node:dns';",
        'net.Socket.prototype.connect = function (...a) {',
        '  const o = Array.isArray(a[0]) ? a[0][0] : a[0];',
        "  process.stdout.write('reached ' + String(o.host) + '\\n');",
        '  return this;',
        '};',
        "dns.lookup = (host, ...rest) => { process.stdout.write('reached ' + host + '\\n'); rest[rest.length - 1](null, '127.0.0.1', 4); };",
        "dns.promises.lookup = async (host) => { process.stdout.write('reached ' + host + '\\n'); return { address: '127.0.0.1', family: 4 }; };",
      ].join('\n'),
    );
    const probe = [
      "import net from 'node:net';",
      "import dns from 'node:dns';",
      "net.connect({ host: '192.0.2.1', port: 9 }).on('error', (e) => console.log('error: ' + e.message));",
      "net.connect({ host: '127.0.0.1', port: 9 });",
      "net.connect(9, 'example.com').on('error', () => {});",
      "dns.lookup('example.com', (e) => console.log('lookup: ' + String(e && e.message)));",
      "dns.promises.lookup('example.org').catch((e) => console.log('promise: ' + e.message));",
    ].join('\n');
    const run = runNode([
      '--import',
      pathToFileURL(stub).href,
      '--import',
      pathToFileURL(LOOPBACK_ONLY).href,
      '--input-type=module',
      '-e',
      probe,
    ]);
    const exit = await run.waitExit(30_000);
    assert.equal(exit.code, 0, run.stderr());
    const out = run.stdout();
    assert.match(out, /^reached 127\.0\.0\.1$/m);
    assert.doesNotMatch(out, /reached (192|example)/);
    assert.match(out, /error: eventide-loopback-only: refused a connection to 192\.0\.2\.1:9/);
    assert.match(out, /lookup: eventide-loopback-only: refused a lookup of example\.com/);
    assert.match(out, /promise: eventide-loopback-only: refused a lookup of example\.org/);
    assert.equal(run.stderr().split(REFUSED_OUTSIDE).length - 1, 4, run.stderr());
  } finally {
    tmp.remove();
  }
});

for (const version of VERSIONS) {
  describe(`Prism proxy over /openapi/${version}.json`, { timeout: 300_000 }, () => {
    let demo: DemoServer | undefined;
    let prism: PrismProxy | undefined;
    let tmp: { path: string; remove: () => void } | undefined;
    let ops: Operation[] = [];
    const exchanges: Exchange[] = [];

    before(
      async () => {
        demo = await serveDemo();
        tmp = tempDir('eventide-prism-');
        const doc: Json = await fetchDocument(demo.origin, version);
        ops = operations(doc);
        const file = join(tmp.path, `openapi-${version}.json`);
        await writeFile(file, JSON.stringify(doc, null, 2));
        prism = await startPrism(file, demo.origin);
        const cases = requestSet(version, await realLinks(demo.origin, version));
        for (const c of cases)
          exchanges.push(c.method === 'HEAD' ? await sendHead(demo, ops, c) : await sendThroughPrism(prism, c));
      },
      { timeout: 240_000 },
    );

    after(async () => {
      await prism?.stop();
      await demo?.close();
      tmp?.remove();
      killAll();
    });

    test('Prism made no connection and no lookup outside loopback', () => {
      assert.ok(prism, 'Prism ran');
      const refused = prism
        .log()
        .split('\n')
        .filter((line) => line.includes(REFUSED_OUTSIDE));
      assert.deepEqual(refused, []);
    });

    test('the request set reaches every operation of the document', () => {
      assert.ok(ops.length > 0, 'the document has operations');
      const reached = new Set<Operation>();
      for (const x of exchanges) {
        if (x.case.request !== 'valid') continue;
        const op = matchOperation(ops, x.case.method, x.case.url);
        if (op !== null) reached.add(op);
      }
      const missing = ops.filter((o) => !reached.has(o)).map((o) => `${o.method.toUpperCase()} ${o.path}`);
      assert.equal(missing.length, 0, report('operations no request of the set reaches', missing));
    });

    test('the demo answers each request with the status the set expects', () => {
      const wrong = exchanges
        .filter((x) => x.prismError === null && x.status !== x.case.status)
        .map((x) => `${describeCase(x.case)} -> ${x.status}, expected ${x.case.status}`);
      assert.equal(wrong.length, 0, report('unexpected statuses', wrong));
    });

    test('Prism reports no violation: requests within the contract, and every answer', (t) => {
      const found: string[] = [];
      let total = 0;
      for (const x of exchanges) {
        const vs = counted(x);
        total += vs.length;
        if (vs.length > 0)
          found.push(
            `${describeCase(x.case)} -> ${x.status} ${x.contentType}: ${vs
              .map((v) => `[${v.location.join('.')}] ${v.message}`)
              .join(' | ')}`,
          );
      }
      t.diagnostic(`${exchanges.length} requests, ${total} violations`);
      assert.equal(found.length, 0, report(`${total} violations in ${found.length} answers`, found));
    });

    test('Prism flags every request outside the contract (the document states what the API refuses)', () => {
      const unflagged = exchanges
        .filter((x) => x.case.request === 'invalid' && !x.violations.some(isRequestViolation))
        .map((x) => `${describeCase(x.case)} -> ${x.status}`);
      assert.equal(unflagged.length, 0, report('requests outside the contract that Prism accepted', unflagged));
    });
  });
}

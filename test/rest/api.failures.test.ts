/**
 * Nothing the request cycle or an adapter does can reject unhandled: over
 * real sockets on both transports (EventHttp, and node:http with
 * `createServer(api.nodeHandler())`), an `onResponse` that throws, a
 * compression or CORS step that throws, a response the codec refuses, and
 * (defence in depth) an API whose request cycle rejects or resolves with
 * something unwritable. Each time the process survives (a test-local
 * `unhandledRejection`/`uncaughtException` sentinel fails the test), the
 * client gets a reply or a clean close, and exactly one entry of the API's
 * logger carries the request id.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { RestApi, type RestApiOptions } from '../../src/rest/api.js';
import type { RawRequest } from '../../src/rest/contracts.js';
import { Response, type RenderedResponse } from '../../src/rest/response.js';
import { path } from '../../src/rest/urls/patterns.js';
import { TRANSPORTS, serveApi, type Served, type Transport } from '../support/rest.js';

type Entry = Record<string, unknown> & { msg?: string };

/** What process-level failure handlers saw while this file ran: must stay empty. */
const escaped: { kind: string; reason: unknown }[] = [];
const onUnhandled = (reason: unknown): void => void escaped.push({ kind: 'unhandledRejection', reason });
const onUncaught = (error: unknown): void => void escaped.push({ kind: 'uncaughtException', reason: error });
before(() => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUncaught);
});
after(() => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUncaught);
});

/** Lets pending rejections be reported (Node reports them after the microtask queue drains), then checks none were. */
async function assertNothingEscaped(): Promise<void> {
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    escaped.map((e) => `${e.kind}: ${String(e.reason)}`),
    [],
  );
}

/** A logger that keeps every entry. */
function collectingLogger(): { entries: Entry[]; error(o: Entry, m?: string): void; warn(o: Entry, m?: string): void } {
  const entries: Entry[] = [];
  return {
    entries,
    error: (o, m) => void entries.push({ ...o, msg: m }),
    warn: (o, m) => void entries.push({ ...o, msg: m }),
  };
}

/** The entries carrying this request id. */
function withId(entries: Entry[], id: string): Entry[] {
  return entries.filter((e) => e['requestId'] === id);
}

/** The answer of one request on a new connection: a reply, or a clean close (no reply). */
type Outcome =
  | { kind: 'reply'; status: number; headers: Record<string, string | string[] | undefined>; body: string }
  | { kind: 'closed'; error: string };

/** GET `target` on a new connection with `X-Request-Id: id` (and more headers); fails only when nothing happens within 5 s. */
function ask(s: Served, target: string, id: string, headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: s.port, path: target, agent: false, headers: { 'X-Request-Id': id, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            kind: 'reply',
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (e) => resolve({ kind: 'closed', error: e.message }));
      },
    );
    req.setTimeout(5000, () => {
      req.destroy();
      reject(new Error(`no reply and no close within 5 s for ${target}`));
    });
    req.on('error', (e) => resolve({ kind: 'closed', error: e.message }));
    req.end();
  });
}

const PLAIN_500 = '{"detail":"A server error occurred."}';

/**
 * A function view whose response sets `Vary` to a list, as `node:http`'s
 * `res.setHeader('Vary', [...])` takes it: from JavaScript nothing stops it,
 * and it makes the `Vary` handling of compression and CORS throw (a
 * `TypeError`: a list has no `split`).
 */
function listVary(): Promise<Response> {
  const r = new Response({ items: 'x'.repeat(2048) });
  r.setHeader('Vary', ['Cookie', 'Accept-Language'] as unknown as string);
  return Promise.resolve(r);
}

/** A function view answering 200 with a small body. */
function fine(): Promise<Response> {
  return Promise.resolve(new Response({ ok: true }));
}

/** A status no HTTP codec can send. */
function impossibleStatus(): Promise<Response> {
  return Promise.resolve(new Response({ ok: true }, { status: 1000 }));
}

const ROUTES = [
  path('list-vary/', listVary, { name: 'list-vary' }),
  path('fine/', fine, { name: 'fine' }),
  path('impossible/', impossibleStatus, { name: 'impossible' }),
];

/** Serves an API built with `options` (plus a collecting logger, request ids and the routes above) on `transport`. */
async function served(
  transport: Transport,
  options: Partial<RestApiOptions> = {},
  Api: typeof RestApi = RestApi,
): Promise<{ s: Served; log: ReturnType<typeof collectingLogger> }> {
  const log = collectingLogger();
  const api = new Api({ urlpatterns: ROUTES, logger: log, requestIdHeader: 'X-Request-Id', ...options });
  return { s: await serveApi(api, transport), log };
}

for (const transport of TRANSPORTS) {
  describe(`failures after the view over ${transport}`, () => {
    test('an onResponse that throws: logged once with the request id, the rendered reply is sent as it was', async () => {
      let calls = 0;
      const { s, log } = await served(transport, {
        onResponse: () => {
          calls++;
          throw new Error('access log is broken');
        },
      });
      try {
        const id = `on-response-${transport}`;
        const r = await ask(s, '/fine/', id);
        assert.equal(r.kind, 'reply');
        assert.equal(r.status, 200);
        assert.equal(r.body, '{"ok":true}');
        assert.equal(r.headers['x-request-id'], id);
        const mine = withId(log.entries, id);
        assert.equal(mine.length, 1, JSON.stringify(log.entries));
        assert.equal((mine[0]?.['err'] as Error).message, 'access log is broken');
        assert.match(String(mine[0]?.msg), /onResponse/);
        assert.equal(calls, 1);
        // The server keeps serving.
        const again = await ask(s, '/fine/', `${id}-again`);
        assert.equal(again.kind === 'reply' ? again.status : 0, 200);
        assert.equal(log.entries.length, 2);
      } finally {
        await s.close();
      }
      await assertNothingEscaped();
    });

    test('a compression step that throws: the plain 500, logged once with the request id', async () => {
      const seen: number[] = [];
      const { s, log } = await served(transport, {
        settings: { COMPRESSION: { threshold: 0 } },
        onResponse: (e) => void seen.push(e.status),
      });
      try {
        const id = `compression-${transport}`;
        const r = await ask(s, '/list-vary/', id, { 'Accept-Encoding': 'br' });
        assert.equal(r.kind, 'reply');
        assert.equal(r.status, 500);
        assert.equal(r.body, PLAIN_500);
        assert.match(String(r.headers['content-type']), /^application\/json/);
        assert.equal(r.headers['content-encoding'], undefined);
        assert.equal(r.headers['x-request-id'], id);
        const mine = withId(log.entries, id);
        assert.equal(mine.length, 1, JSON.stringify(log.entries));
        assert.ok(mine[0]?.['err'] instanceof TypeError);
        assert.equal(log.entries.length, 1);
        assert.deepEqual(seen, [500], 'the access entry reports the 500 that was sent');
        // Other responses are still compressed.
        const ok = await ask(s, '/fine/', `${id}-ok`, { 'Accept-Encoding': 'br' });
        assert.equal(ok.kind === 'reply' ? ok.status : 0, 200);
      } finally {
        await s.close();
      }
      await assertNothingEscaped();
    });

    test('a CORS step that throws: the plain 500 without CORS headers, logged once with the request id', async () => {
      const { s, log } = await served(transport, { settings: { CORS: { allowedOrigins: ['https://app.example'] } } });
      try {
        const id = `cors-${transport}`;
        const r = await ask(s, '/list-vary/', id, { Origin: 'https://app.example' });
        assert.equal(r.kind, 'reply');
        assert.equal(r.status, 500);
        assert.equal(r.body, PLAIN_500);
        assert.equal(r.headers['access-control-allow-origin'], undefined);
        assert.equal(r.headers['x-request-id'], id);
        const mine = withId(log.entries, id);
        assert.equal(mine.length, 1, JSON.stringify(log.entries));
        assert.ok(mine[0]?.['err'] instanceof TypeError);
        const ok = await ask(s, '/fine/', `${id}-ok`, { Origin: 'https://app.example' });
        assert.equal(ok.kind === 'reply' ? ok.headers['access-control-allow-origin'] : null, 'https://app.example');
      } finally {
        await s.close();
      }
      await assertNothingEscaped();
    });

    test('a status the codec refuses (1000): a 500, logged once with the request id; the server keeps serving', async () => {
      const { s, log } = await served(transport);
      try {
        const id = `status-${transport}`;
        const r = await ask(s, '/impossible/', id);
        assert.equal(r.kind, 'reply');
        assert.equal(r.status, 500);
        assert.equal(r.body, PLAIN_500);
        const mine = withId(log.entries, id);
        assert.equal(mine.length, 1, JSON.stringify(log.entries));
        assert.equal(log.entries.length, 1);
        const ok = await ask(s, '/fine/', `${id}-ok`);
        assert.equal(ok.kind === 'reply' ? ok.status : 0, 200);
      } finally {
        await s.close();
      }
      await assertNothingEscaped();
    });
  });

  describe(`the adapter's own guard over ${transport}`, () => {
    test('a request cycle that rejects: the connection is closed, logged once with the request id', async () => {
      class Rejecting extends RestApi {
        override handleWithId(): Promise<RenderedResponse> {
          return Promise.reject(new Error('the cycle rejected'));
        }
      }
      const { s, log } = await served(transport, {}, Rejecting);
      try {
        const id = `rejects-${transport}`;
        const r = await ask(s, '/fine/', id);
        assert.equal(r.kind, 'closed', JSON.stringify(r));
        const mine = withId(log.entries, id);
        assert.equal(mine.length, 1, JSON.stringify(log.entries));
        assert.equal((mine[0]?.['err'] as Error).message, 'the cycle rejected');
        assert.equal(log.entries.length, 1);
      } finally {
        await s.close();
      }
      await assertNothingEscaped();
    });

    test('a response that cannot be written (no header list): a 500 or a clean close, logged once with the request id', async () => {
      class Unwritable extends RestApi {
        override async handleWithId(raw: RawRequest, requestId: string | null): Promise<RenderedResponse> {
          const out = await super.handleWithId(raw, requestId);
          return { status: out.status, headers: null as unknown as [string, string][], body: out.body };
        }
      }
      const { s, log } = await served(transport, {}, Unwritable);
      try {
        const id = `unwritable-${transport}`;
        const r = await ask(s, '/fine/', id);
        if (r.kind === 'reply') assert.equal(r.status, 500);
        const mine = withId(log.entries, id);
        assert.equal(mine.length, 1, JSON.stringify(log.entries));
        assert.ok(mine[0]?.['err'] instanceof TypeError);
        assert.equal(log.entries.length, 1);
      } finally {
        await s.close();
      }
      await assertNothingEscaped();
    });
  });
}

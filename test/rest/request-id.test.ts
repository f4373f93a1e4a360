/**
 * Request ids (`RestApi`'s `requestIdHeader` option), over both transports:
 * the id reaches the view (`request.requestId`), the response header, the
 * `onResponse` entry and the internal-error entry, also across awaits and
 * with requests interleaved; and no AsyncLocalStorage (on Node 20 a
 * process-wide promise hook) is involved.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { executionAsyncResource } from 'node:async_hooks';
import { RestApi, type AccessLogEntry } from '../../src/rest/api.js';
import { APIView } from '../../src/rest/views.js';
import { Response } from '../../src/rest/response.js';
import { path } from '../../src/rest/urls/patterns.js';
import type { Request } from '../../src/rest/request.js';
import { TRANSPORTS, serveApi, call, type Served } from '../support/rest.js';

class Echo extends APIView {
  override async get(request: Request) {
    const before = request.requestId;
    await new Promise((r) => setTimeout(r, Number(request.query.get('wait') ?? 0)));
    return new Response({ before, after: request.requestId });
  }
}

class Broken extends APIView {
  override async get(): Promise<Response> {
    await new Promise((r) => setTimeout(r, 5));
    throw new Error('boom');
  }
}

class Probe extends APIView {
  override async get(request: Request) {
    await new Promise((r) => setImmediate(r));
    const resource = executionAsyncResource();
    const stores = Object.getOwnPropertySymbols(resource).filter((sym) => String(sym).includes('ResourceStore'));
    return new Response({ id: request.requestId, stores: stores.length });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const transport of TRANSPORTS) {
  describe(`request ids over ${transport}`, () => {
    const errors: Record<string, unknown>[] = [];
    const access: AccessLogEntry[] = [];
    let s: Served;
    before(async () => {
      const api = new RestApi({
        requestIdHeader: 'X-Request-Id',
        logger: { error: (obj) => void errors.push(obj), warn: () => {} },
        onResponse: (entry) => void access.push(entry),
        urlpatterns: [path('echo/', Echo.asView(), { name: 'echo' }), path('broken/', Broken.asView(), { name: 'b' })],
      });
      s = await serveApi(api, transport);
    });
    after(async () => {
      await s.close();
    });

    test("the client's id reaches the view, the response and the access entry; a bad one is replaced", async () => {
      const r = await call(`${s.origin}/echo/`, { headers: { 'X-Request-Id': 'edge-17' } });
      assert.deepEqual(r.body, { before: 'edge-17', after: 'edge-17' });
      assert.equal(r.headers.get('x-request-id'), 'edge-17');
      assert.equal(access.at(-1)?.requestId, 'edge-17');
      const bad = await call(`${s.origin}/echo/`, { headers: { 'X-Request-Id': 'x'.repeat(201) } });
      const id = bad.headers.get('x-request-id') ?? '';
      assert.match(id, UUID);
      assert.deepEqual(bad.body, { before: id, after: id });
    });

    test('interleaved requests keep their own ids across awaits', async () => {
      const ids = ['a-1', 'b-2', 'c-3', 'd-4'];
      const rs = await Promise.all(
        ids.map((id, i) =>
          call(`${s.origin}/echo/?wait=${(ids.length - i) * 10}`, { headers: { 'X-Request-Id': id } }),
        ),
      );
      assert.deepEqual(
        rs.map((r) => r.body),
        ids.map((id) => ({ before: id, after: id })),
      );
    });

    test('an internal error is logged once, with the request id', async () => {
      errors.length = 0;
      const r = await call(`${s.origin}/broken/`, { headers: { 'X-Request-Id': 'broken-1' } });
      assert.equal(r.status, 500);
      assert.equal(r.headers.get('x-request-id'), 'broken-1');
      assert.equal(errors.length, 1);
      assert.equal(errors[0]?.['requestId'], 'broken-1');
      assert.equal((errors[0]?.['err'] as Error).message, 'boom');
    });
  });
}

test('request ids keep no AsyncLocalStorage store on the async resources of a request', async () => {
  // AsyncLocalStorage (Node 20) keeps its store under a kResourceStore symbol on the
  // current async resource, and a process-wide init hook copies it to every new one.
  const api = new RestApi({ requestIdHeader: 'X-Request-Id', urlpatterns: [path('probe/', Probe.asView())] });
  const s = await serveApi(api, TRANSPORTS[0]);
  try {
    const r = await call(`${s.origin}/probe/`, { headers: { 'X-Request-Id': 'plain-1' } });
    assert.equal(r.headers.get('x-request-id'), 'plain-1');
    assert.deepEqual(r.body, { id: 'plain-1', stores: 0 });
  } finally {
    await s.close();
  }
});

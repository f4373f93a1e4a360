/**
 * The demo API against hostile requests, on both transports (EventHttp and
 * node:http), with the exact bytes of the hardening review: the process
 * stays up, oversized bodies are refused before they are read, and the host
 * that links are built with is the one the request really names.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { demoItem, itemFields, type Item } from '../../src/cli/demo-data.js';
import { buildDemoApi } from '../../src/cli/demo.js';
import { RestApi } from '../../src/rest/api.js';
import { createSettings } from '../../src/rest/settings.js';
import { rawConnection } from '../support/net.js';
import { TRANSPORTS, serveApi, call, type Served } from '../support/rest.js';

const rows: Item[] = Array.from({ length: 50 }, (_, i) => demoItem(i + 1));

/** Sends raw bytes, half-closes nothing, and collects what comes back until the server closes or `ms` pass. */
async function raw(port: number, bytes: string, ms = 10_000): Promise<{ text: string; closed: boolean }> {
  const c = await rawConnection(port);
  c.sock.write(bytes);
  const end = Date.now() + ms;
  while (!c.closed() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  c.sock.destroy();
  return { text: c.text(), closed: c.closed() };
}

/** The status of the final response (interim 1xx responses, such as node:http's 100 Continue, skipped). */
function statusOf(text: string): number {
  for (const m of text.matchAll(/(?:^|\r\n\r\n)HTTP\/1\.[01] (\d{3})/g)) {
    const status = Number(m[1]);
    if (status >= 200) return status;
  }
  return 0;
}

function jsonBody(text: string): unknown {
  const i = text.indexOf('\r\n\r\n');
  return JSON.parse(text.slice(i + 4));
}

for (const transport of TRANSPORTS) {
  describe(`hardening of the demo API over ${transport}`, () => {
    let served: Served;
    before(async () => {
      served = await serveApi(buildDemoApi(new ArrayQueryset(rows, { fields: itemFields })), transport);
    });
    after(() => served.close());

    test('finding 1: PROPFIND with Upgrade, Expect: 100-continue and a body does not take the server down', async () => {
      for (const [method, length] of [
        ['PROPFIND', 4],
        ['MOVE', 1],
      ] as const) {
        const r = await raw(
          served.port,
          `${method} /page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n${'x'.repeat(length)}`,
          1500,
        );
        if (r.text !== '') assert.ok([400, 405, 501].includes(statusOf(r.text)), r.text.slice(0, 80));
      }
      const ok = await call(`${served.origin}/page/items/?page_size=1`);
      assert.equal(ok.status, 200, 'the server still answers');
    });

    test('finding 3: a 256 MiB body to a GET-only view is refused with 413 before it is read', async () => {
      const r = await raw(
        served.port,
        `POST /page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${256 * 1024 * 1024}\r\n\r\n{`,
      );
      assert.equal(statusOf(r.text), 413, r.text.slice(0, 120));
      assert.ok(r.closed, 'the connection is closed: the rest of the body is never read');
    });

    test('a chunked body over MAX_BODY_SIZE is cut off with 413', async () => {
      const c = await rawConnection(served.port);
      const { sock } = c;
      sock.write(
        'POST /page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = `10000\r\n${'a'.repeat(0x10000)}\r\n`;
      let sent = 0;
      // Bounded: 8 MiB at most (the limit is 2.5 MiB).
      while (c.text() === '' && sent < 128 && !sock.destroyed) {
        if (!sock.write(chunk))
          await Promise.race([once(sock, 'drain').catch(() => {}), new Promise((r) => setTimeout(r, 20))]);
        sent++;
      }
      const end = Date.now() + 10_000;
      while (c.text() === '' && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      sock.destroy();
      assert.equal(statusOf(c.text()), 413, c.text().slice(0, 120));
    });

    test('finding 7: the authority of an absolute-form target wins over Host in every link', async () => {
      const r = await raw(
        served.port,
        'GET http://api.example.com:8443/page/items/?page_size=2 HTTP/1.1\r\nHost: evil.example:443\r\nConnection: close\r\n\r\n',
      );
      assert.equal(statusOf(r.text), 200, r.text.slice(0, 200));
      const body = jsonBody(r.text) as { next: string };
      assert.equal(body.next, 'http://api.example.com:8443/page/items/?page=2&page_size=2');
      assert.ok(!r.text.includes('evil.example'));
    });
  });
}

describe('ALLOWED_HOSTS over both transports', () => {
  for (const transport of TRANSPORTS) {
    test(`a host outside the list gets 400 with Django's text (${transport})`, async () => {
      const api = new RestApi({
        urlpatterns: buildDemoApi(new ArrayQueryset(rows, { fields: itemFields })).urlconf.patterns,
        settings: createSettings({ ALLOWED_HOSTS: ['127.0.0.1', 'localhost', '.example.com'] }),
      });
      const served = await serveApi(api, transport);
      try {
        const bad = await raw(
          served.port,
          'GET /page/items/ HTTP/1.1\r\nHost: evil.example:443\r\nConnection: close\r\n\r\n',
        );
        assert.equal(statusOf(bad.text), 400);
        assert.deepEqual(jsonBody(bad.text), { detail: "Invalid HTTP_HOST header: 'evil.example:443'." });
        // on every route, also those that build no URL (a 404, the version endpoints)
        for (const target of ['/nowhere/', '/query/version/?version=v2', '/openapi/v1.json']) {
          const r = await raw(served.port, `GET ${target} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`);
          assert.equal(statusOf(r.text), 400, target);
        }
        const sub = await raw(
          served.port,
          'GET /page/items/?page_size=1 HTTP/1.1\r\nHost: v2.example.com\r\nConnection: close\r\n\r\n',
        );
        assert.equal(statusOf(sub.text), 200);
        // The absolute-form authority is checked too, not the Host header.
        const abs = await raw(
          served.port,
          'GET http://evil.example/page/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        );
        assert.equal(statusOf(abs.text), 400);
      } finally {
        await served.close();
      }
    });
  }
});

/**
 * CORS in a real browser: headless Chromium (Debian's /usr/bin/chromium
 * driven by playwright-core). A page served from one 127.0.0.1 port fetches
 * the API served on another port (a different origin), on both transports:
 *
 * - from the allowed origin, a simple GET works and the page reads the
 *   exposed headers (`X-Total-Count`, `Link`) but not the others; a PUT with
 *   a JSON body and a custom header is preflighted (the API sees the
 *   OPTIONS) and works; credentials are allowed;
 * - from another origin (a third port), the browser blocks both, and the PUT
 *   never reaches the view.
 *
 * Without /usr/bin/chromium the test is skipped with a message, except in
 * CI (env CI set), where it fails.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { RestApi } from '../../src/rest/api.js';
import { Response } from '../../src/rest/response.js';
import { path } from '../../src/rest/urls/patterns.js';
import { APIView } from '../../src/rest/views.js';
import { assertChromium, browserSkip, launchChromium, type Browser } from '../support/browser.js';
import { TRANSPORTS, serveApi } from '../support/rest.js';

class Items extends APIView {
  override get() {
    return new Response([1, 2, 3], { headers: { 'X-Total-Count': '3', Link: '</items/?page=2>; rel="next"' } });
  }
  override put() {
    return new Response({ updated: true, custom: this.request.headers.get('x-custom') });
  }
}

/** A server of one empty HTML page: the origin the scripts run in. */
async function pageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end('<!doctype html><title>client</title><p>client</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface Outcome {
  ok: boolean;
  status?: number;
  body?: unknown;
  total?: string | null;
  link?: string | null;
  allow?: string | null;
  error?: string;
}

async function fetchFrom(browser: Browser, pageOrigin: string, url: string, init: RequestInit): Promise<Outcome> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pageOrigin + '/');
    return await page.evaluate(
      async ([u, i]): Promise<Outcome> => {
        try {
          const r = await fetch(u, i);
          return {
            ok: true,
            status: r.status,
            body: await r.json(),
            total: r.headers.get('X-Total-Count'),
            link: r.headers.get('Link'),
            allow: r.headers.get('Allow'),
          };
        } catch (e) {
          return { ok: false, error: String(e) };
        }
      },
      [url, init] as const,
    );
  } finally {
    await context.close();
  }
}

test(
  'CORS from headless Chromium: allowed origin works, another origin is blocked',
  { skip: browserSkip },
  async (t: TestContext) => {
    assertChromium();
    const allowed = await pageServer();
    const other = await pageServer();
    const browser = await launchChromium();
    try {
      for (const transport of TRANSPORTS) {
        await t.test(transport, async () => {
          const seen: string[] = [];
          const api = new RestApi({
            urlpatterns: [path('items/', Items.asView())],
            settings: {
              CORS: {
                allowedOrigins: [allowed.origin],
                allowedHeaders: ['content-type', 'x-custom'],
                exposedHeaders: ['Link', 'X-Total-Count'],
                allowCredentials: true,
              },
            },
            onResponse: (e) => seen.push(`${e.method} ${e.status}`),
          });
          const served = await serveApi(api, transport);
          const url = `${served.origin}/items/`;
          const put: RequestInit = {
            method: 'PUT',
            headers: { 'Content-Type': 'application/json', 'X-Custom': 'hello' },
            body: '{}',
            credentials: 'include',
          };
          try {
            const get = await fetchFrom(browser, allowed.origin, url, { credentials: 'include' });
            assert.deepEqual(get, {
              ok: true,
              status: 200,
              body: [1, 2, 3],
              total: '3',
              link: '</items/?page=2>; rel="next"',
              allow: null, // not exposed
            });
            assert.deepEqual(seen, ['GET 200']);

            const pre = await fetchFrom(browser, allowed.origin, url, put);
            assert.equal(pre.ok, true, pre.error);
            assert.equal(pre.status, 200);
            assert.deepEqual(pre.body, { updated: true, custom: 'hello' });
            assert.deepEqual(seen, ['GET 200', 'OPTIONS 204', 'PUT 200']);

            seen.length = 0;
            const blocked = await fetchFrom(browser, other.origin, url, {});
            assert.equal(blocked.ok, false);
            assert.match(blocked.error ?? '', /TypeError: Failed to fetch/);
            assert.deepEqual(seen, ['GET 200']); // sent, but the page may not read it

            seen.length = 0;
            const blockedPut = await fetchFrom(browser, other.origin, url, put);
            assert.equal(blockedPut.ok, false);
            assert.deepEqual(seen, ['OPTIONS 204']); // the preflight failed: the PUT was never sent
          } finally {
            await served.close();
          }
        });
      }
    } finally {
      await browser.close();
      allowed.server.close();
      other.server.close();
    }
  },
);

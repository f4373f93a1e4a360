/**
 * The API reference page in a real browser: headless Chromium (Debian's
 * /usr/bin/chromium driven by playwright-core, JavaScript enabled: Swagger UI
 * is a script) against the demo catalog (buildDemoApi() over in-memory
 * rows), served by EventHttp on 127.0.0.1 (port 0):
 *
 * - the API root links the reference (`docs`);
 * - /docs/ renders the operations of /openapi/v1.json (the text of
 *   `/page/items/` and the other paths), an operation opens with the example
 *   of its response, whose `next` link is a real link of the server;
 * - the version switcher goes to /docs/v2/, which renders v2's document;
 * - no request goes to any origin other than the server's, no console error,
 *   no page error, no Content-Security-Policy violation;
 * - screenshots test-artifacts/api-reference.png (1280x800) and
 *   test-artifacts/api-reference-phone.png (390x844).
 *
 * Without /usr/bin/chromium the test is skipped with a message, except in
 * CI (env CI set), where it fails.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, statSync } from 'node:fs';
import { EventBase } from '../../src/event/base.js';
import { EventHttp } from '../../src/http/server.js';
import { buildDemoApi } from '../../src/cli/demo.js';
import { demoItem, type Item } from '../../src/cli/demo-data.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { ARTIFACTS, assertChromium, browserSkip, launchChromium, type Browser, type Page } from '../support/browser.js';

/** What the page reported: requests to other origins, console errors and warnings, page errors. */
interface Watch {
  foreign: string[];
  problems: string[];
}

async function openReference(browser: Browser, origin: string, width: number, height: number, watch: Watch) {
  const context = await browser.newContext({ viewport: { width, height }, javaScriptEnabled: true });
  const page = await context.newPage();
  page.on('request', (r) => {
    if (!r.url().startsWith(`${origin}/`)) watch.foreign.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') watch.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => watch.problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => watch.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => {
    if (r.status() >= 400) watch.problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return page;
}

/** The paths of the operations the page shows. */
async function shownPaths(page: Page): Promise<string[]> {
  await page.locator('.opblock-summary-path').first().waitFor({ timeout: 20_000 });
  return (await page.locator('.opblock-summary-path').allInnerTexts()).map((t) => t.replace(/\u200b/g, '').trim());
}

test(
  'API reference page of the demo in headless Chromium',
  { skip: browserSkip, timeout: 90_000 },
  async (t: TestContext) => {
    assertChromium();
    const rows = new ArrayQueryset<Item>(Array.from({ length: 40 }, (_, i) => demoItem(i + 1)));
    const api = buildDemoApi(rows);
    const base = new EventBase();
    const http = new EventHttp(base);
    assert.ok(http.bind('127.0.0.1', 0), 'bind');
    const port = http.getBoundPorts()[0] as number;
    const origin = `http://127.0.0.1:${port}`;
    api.serve(http);
    const running = base.dispatch();
    let browser: Browser | null = null;
    try {
      const root = (await (await fetch(`${origin}/`)).json()) as { docs?: unknown };
      assert.equal(root.docs, `${origin}/docs/`, 'the API root links the reference');

      browser = await launchChromium();
      const watch: Watch = { foreign: [], problems: [] };
      const page = await openReference(browser, origin, 1280, 800, watch);

      await t.test('/docs/ renders the operations of v1', async () => {
        await page.goto(`${origin}/docs/`);
        const paths = await shownPaths(page);
        for (const p of ['/page/items/', '/limit/items/', '/cursor/items/', '/link/items/'])
          assert.ok(paths.includes(p), `${p} in ${paths.join(' ')}`);
        assert.ok(paths.includes('/versioned/v1/items/'), 'v1 paths');
        assert.ok(!paths.includes('/versioned/v2/items/'), 'not v2 paths');
        await page.getByText('/page/items/', { exact: true }).first().waitFor();
        assert.equal(await page.locator('nav[aria-label="API versions"] a[aria-current="page"]').innerText(), 'v1');
      });

      await t.test('an operation opens: its example has real links of the server', async () => {
        const op = page
          .locator('.opblock')
          .filter({ has: page.locator('.opblock-summary-path', { hasText: /^\/page\/items\/$/ }) });
        await op.locator('.opblock-summary').first().click();
        const example = op.locator('.responses-wrapper .highlight-code').first();
        await example.waitFor({ timeout: 10_000 });
        const text = await example.innerText();
        assert.ok(text.includes(`${origin}/page/items/?page=4`), text);
        assert.ok(!text.includes('api.example.org'), text);
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: `${ARTIFACTS}api-reference.png` });
        assert.ok(statSync(`${ARTIFACTS}api-reference.png`).size > 10_000);
      });

      await t.test('the version switcher: /docs/v2/ renders v2', async () => {
        await page.locator('nav[aria-label="API versions"] a', { hasText: 'v2' }).click();
        await page.waitForURL(`${origin}/docs/v2/`);
        const paths = await shownPaths(page);
        assert.ok(paths.includes('/versioned/v2/items/'), `v2 paths: ${paths.join(' ')}`);
        assert.ok(!paths.includes('/versioned/v1/items/'));
        assert.equal(await page.locator('nav[aria-label="API versions"] a[aria-current="page"]').innerText(), 'v2');
      });

      await t.test('on a phone', async () => {
        const phone = await openReference(browser as Browser, origin, 390, 844, watch);
        await phone.goto(`${origin}/docs/v2/`);
        await shownPaths(phone);
        await phone.screenshot({ path: `${ARTIFACTS}api-reference-phone.png` });
      });

      await t.test('nothing from elsewhere, no console error', () => {
        assert.deepEqual(watch.foreign, [], 'requests to other origins');
        assert.deepEqual(watch.problems, [], 'console errors, page errors, failed requests');
      });
    } finally {
      await browser?.close();
      http.free();
      await running;
    }
  },
);

/**
 * Test helpers for the headless-Chromium tests: Debian's /usr/bin/chromium
 * driven by playwright-core, with JavaScript disabled in the pages. Without
 * the browser the tests are skipped with a message, except in CI (env CI
 * set), where they fail (a requirement of test/support/tools.ts).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { requireTool } from './tools.js';

export type { Browser, Page };

/** Where the tests expect Chromium (`apt-get install chromium`). */
export const CHROMIUM = '/usr/bin/chromium';

/** The folder the tests write their screenshots to (test-artifacts/ at the top of the project, with a trailing slash). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

const chromium = requireTool(
  existsSync(CHROMIUM) ? null : `headless Chromium not found at ${CHROMIUM} (apt-get install chromium)`,
);

/** The `skip` option for a browser test: the reason when Chromium is missing outside CI, otherwise false. */
export const browserSkip: string | false = chromium.skip;

/** Fails the test when Chromium is missing (reached only in CI, where {@link browserSkip} does not skip). */
export function assertChromium(): void {
  chromium.assert();
}

/** The launch flags: headless, no sandbox, GPU, QUIC or background traffic, then `extra`. */
export function chromiumArgs(extra: string[] = []): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    ...extra,
  ];
}

/** Launches headless Chromium at {@link CHROMIUM} with {@link chromiumArgs}(`extraArgs`). */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs(extraArgs), headless: true });
}

/** What {@link openPage} sets up: the viewport, the colour scheme, extra request headers (none by default). */
export interface PageOptions {
  width: number;
  height: number;
  colorScheme: 'light' | 'dark';
  headers?: Record<string, string>;
}

/**
 * A page in a new context of `browser`, JavaScript disabled; the URL of every
 * request it makes that starts with none of `allowed` is pushed to `foreign`.
 */
export async function openPage(
  browser: Browser,
  options: PageOptions,
  allowed: readonly string[],
  foreign: string[],
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width, height: options.height },
    colorScheme: options.colorScheme,
    javaScriptEnabled: false,
    extraHTTPHeaders: options.headers ?? {},
  });
  const page = await context.newPage();
  page.on('request', (r) => {
    if (!allowed.some((prefix) => r.url().startsWith(prefix))) foreign.push(r.url());
  });
  return page;
}

// What the page functions below use of the DOM (the project compiles without the DOM lib).
declare const document: { readonly documentElement: { readonly scrollWidth: number } };
declare const window: { readonly innerWidth: number };
/** A pagination item (`li`) as controls() reads it. */
interface PaginationItem {
  readonly textContent: string | null;
  querySelector(selector: 'a'): { getAttribute(name: string): string | null } | null;
}

/** The pagination items as the user reads them: `«`, numbers, `…`, `»`, with [current] and (disabled) marks. */
export async function controls(page: Page): Promise<string> {
  return page.locator('nav[aria-label="Pagination"] li').evaluateAll((items: PaginationItem[]) =>
    items
      .map((li) => {
        const a = li.querySelector('a');
        const text = (li.textContent ?? '').trim();
        if (a === null) return text;
        if (a.getAttribute('aria-current') === 'page') return `[${text}]`;
        if (a.getAttribute('aria-disabled') === 'true') return `(${text})`;
        return text;
      })
      .join(' '),
  );
}

/** Fails when the page scrolls sideways (content wider than the viewport). */
export async function assertNoHorizontalScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  assert.ok(scroll <= width, `page is ${scroll}px wide in a ${width}px viewport`);
}

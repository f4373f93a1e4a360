import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request } from '../../../src/rest/request.js';
import { createSettings } from '../../../src/rest/settings.js';
import { ConfigurationError, ImproperlyConfigured } from '../../../src/rest/errors.js';
import {
  BasePagination,
  CursorPagination,
  escapeHtml,
  getDisplayedPageNumbers,
  getPageLinks,
  LimitOffsetPagination,
  NUMBERS_TEMPLATE,
  PAGE_BREAK,
  PageNumberPagination,
  PREVIOUS_AND_NEXT_TEMPLATE,
  renderNumbers,
  renderPreviousAndNext,
  renderTemplate,
  type HtmlContext,
  type PaginationTemplate,
} from '../../../src/rest/pagination/index.js';

function req(target: string): Request {
  return new Request(
    { method: 'GET', target, headers: [['Host', 'testserver']], body: null, secure: false },
    createSettings(),
  );
}
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1, created: i + 1 }));

/** Reference 8.5 notation: numbers separated by spaces, `…` for a break, `1..n` for a full run. */
function expand(spec: string): (number | null)[] {
  const out: (number | null)[] = [];
  for (const part of spec.split(' ')) {
    if (part === '…') out.push(null);
    else if (part.includes('..')) {
      const [a, b] = part.split('..').map(Number) as [number, number];
      for (let i = a; i <= b; i++) out.push(i);
    } else out.push(Number(part));
  }
  return out;
}

test('8.5 get_displayed_page_numbers: the whole table', () => {
  const table: Record<number, string[]> = {
    5: ['1..5', '1..5', '1..5', '1..5', '1..5'],
    6: ['1 2 3 … 6', '1 2 3 … 6', '1..6', '1..6', '1 … 4 5 6', '1 … 4 5 6'],
    7: ['1 2 3 … 7', '1 2 3 … 7', '1 2 3 4 … 7', '1..7', '1 … 4 5 6 7', '1 … 5 6 7', '1 … 5 6 7'],
    8: [
      '1 2 3 … 8',
      '1 2 3 … 8',
      '1 2 3 4 … 8',
      '1 2 3 4 5 … 8',
      '1 … 4 5 6 7 8',
      '1 … 5 6 7 8',
      '1 … 6 7 8',
      '1 … 6 7 8',
    ],
    9: [
      '1 2 3 … 9',
      '1 2 3 … 9',
      '1 2 3 4 … 9',
      '1 2 3 4 5 … 9',
      '1 … 4 5 6 … 9',
      '1 … 5 6 7 8 9',
      '1 … 6 7 8 9',
      '1 … 7 8 9',
      '1 … 7 8 9',
    ],
  };
  for (const [final, specs] of Object.entries(table)) {
    specs.forEach((spec, i) =>
      assert.deepEqual(getDisplayedPageNumbers(i + 1, Number(final)), expand(spec), `(${i + 1}, ${final})`),
    );
  }
});

test('5.1 examples and small lists', () => {
  assert.deepEqual(getDisplayedPageNumbers(7, 100), [1, null, 6, 7, 8, null, 100]);
  assert.deepEqual(getDisplayedPageNumbers(1, 1), [1]);
  assert.deepEqual(getDisplayedPageNumbers(2, 3), [1, 2, 3]);
  assert.throws(() => getDisplayedPageNumbers(0, 3), ConfigurationError);
  assert.throws(() => getDisplayedPageNumbers(4, 3), ConfigurationError);
});

test('5.2 link records', () => {
  const links = getPageLinks([1, 2, null, 9], 2, (n) => `/?page=${n}`);
  assert.deepEqual(links, [
    { url: '/?page=1', number: 1, isActive: false, isBreak: false },
    { url: '/?page=2', number: 2, isActive: true, isBreak: false },
    { url: null, number: null, isActive: false, isBreak: true },
    { url: '/?page=9', number: 9, isActive: false, isBreak: false },
  ]);
  assert.equal(links[2], PAGE_BREAK);
  assert.ok(Object.isFrozen(PAGE_BREAK));
});

const ctx: HtmlContext = {
  previous_url: 'http://h/items/?a=1&page=2',
  next_url: null,
  page_links: getPageLinks([1, null, 2, 3], 3, (n) =>
    n === 1 ? 'http://h/items/?a=1' : `http://h/items/?a=1&page=${n}`,
  ),
};

test('numbers template: accessible markup, DRF class names, escaped URLs', () => {
  const html = renderNumbers(ctx);
  assert.equal(
    html,
    [
      '<nav aria-label="Pagination">',
      '<ul class="pagination">',
      '<li><a href="http://h/items/?a=1&amp;page=2" rel="prev" aria-label="Previous"><span aria-hidden="true">&laquo;</span></a></li>',
      '<li><a href="http://h/items/?a=1" aria-label="Page 1">1</a></li>',
      '<li class="disabled"><span aria-hidden="true">&hellip;</span></li>',
      '<li><a href="http://h/items/?a=1&amp;page=2" aria-label="Page 2">2</a></li>',
      '<li class="active"><a href="http://h/items/?a=1&amp;page=3" aria-current="page" aria-label="Page 3">3</a></li>',
      '<li class="disabled"><a aria-disabled="true" aria-label="Next"><span aria-hidden="true">&raquo;</span></a></li>',
      '</ul>',
      '</nav>',
      '',
    ].join('\n'),
  );
  assert.doesNotMatch(html, /<link|<script|src=/);
});

test('previous-and-next template', () => {
  assert.equal(
    renderPreviousAndNext({ previous_url: null, next_url: 'http://h/?cursor=cD0x&x="<>' }),
    [
      '<nav aria-label="Pagination">',
      '<ul class="pager">',
      '<li class="previous disabled"><a aria-disabled="true" aria-label="Previous">&laquo; Previous</a></li>',
      '<li class="next"><a href="http://h/?cursor=cD0x&amp;x=&quot;&lt;&gt;" rel="next" aria-label="Next">Next &raquo;</a></li>',
      '</ul>',
      '</nav>',
      '',
    ].join('\n'),
  );
  assert.match(
    renderPreviousAndNext({ previous_url: '/p', next_url: null }),
    /<li class="previous"><a href="\/p" rel="prev"[^>]*>&laquo; Previous<\/a><\/li>\n<li class="next disabled"><a aria-disabled="true"/,
  );
  assert.equal(escapeHtml(`a&b<c>"d'`), 'a&amp;b&lt;c&gt;&quot;d&#039;');
});

test('a custom style renders its template with its HTML context; without one it has no controls', () => {
  class Plain extends BasePagination {
    // eslint-disable-next-line @typescript-eslint/require-await -- implements paginateQueryset(), which returns a promise
    async paginateQueryset<Row extends object>(): Promise<Row[] | null> {
      return null;
    }
    getPaginatedResponse(): never {
      throw new Error('unused');
    }
    override getNextLink(): string {
      return 'http://testserver/?at=2';
    }
  }
  assert.equal(new Plain().toHtml(), '');
  const withTemplate = new Plain();
  withTemplate.template = (ctx) => `next=${ctx.next_url ?? '-'} previous=${ctx.previous_url ?? '-'}`;
  assert.equal(withTemplate.toHtml(), 'next=http://testserver/?at=2 previous=-');
  withTemplate.template = PREVIOUS_AND_NEXT_TEMPLATE;
  assert.equal(withTemplate.toHtml(), renderPreviousAndNext(withTemplate.getHtmlContext()));
});

test('paginators render their controls through the registry', async () => {
  const p = new (class extends PageNumberPagination {
    override pageSize = 5;
  })();
  await p.paginateQueryset(rows(100), req('/?page=2'));
  assert.equal(p.toHtml(), renderNumbers(p.getHtmlContext()));
  assert.match(p.toHtml(), /<li class="active"><a href="http:\/\/testserver\/\?page=2" aria-current="page"/);
  const lo = new (class extends LimitOffsetPagination {
    override defaultLimit = 5;
  })();
  await lo.paginateQueryset(rows(100), req('/?offset=5'));
  assert.match(lo.toHtml(), /<ul class="pagination">/);
  const c = new (class extends CursorPagination {
    override pageSize = 5;
    override ordering = 'created';
  })();
  await c.paginateQueryset(rows(100), req('/'));
  assert.match(
    c.toHtml(),
    /<ul class="pager">[\s\S]*<li class="previous disabled">[\s\S]*<li class="next"><a href="http:\/\/testserver\/\?cursor=cD01" rel="next"/,
  );
});

test('templates: override per API (PAGINATION_TEMPLATES), per class (name or function), null disables', async () => {
  const p = new (class extends PageNumberPagination {
    override pageSize = 5;
  })();
  await p.paginateQueryset(rows(100), req('/'));
  const numbers: PaginationTemplate = (c) => `<p>${c.page_links!.length} links, next ${c.next_url}</p>`;
  assert.equal(p.toHtml({ [NUMBERS_TEMPLATE]: numbers }), '<p>5 links, next http://testserver/?page=2</p>');
  // Nothing was registered anywhere: without the table the built-in template renders.
  assert.match(p.toHtml(), /^<nav/);

  const named = new (class extends PageNumberPagination {
    override pageSize = 5;
    override template = 'my/pages.html';
  })();
  await named.paginateQueryset(rows(100), req('/?page=3'));
  const templates = createSettings({
    PAGINATION_TEMPLATES: { 'my/pages.html': (c) => `custom:${c.previous_url}` },
  }).PAGINATION_TEMPLATES;
  assert.equal(named.toHtml(templates), 'custom:http://testserver/?page=2');
  assert.throws(
    () => named.toHtml(),
    (e: unknown) => e instanceof ConfigurationError && /my\/pages\.html/.test(e.message),
  );
  assert.throws(() => createSettings({ PAGINATION_TEMPLATES: { x: 'nope' as never } }), ImproperlyConfigured);
  assert.throws(() => createSettings({ PAGINATION_TEMPLATES: [] as never }), ImproperlyConfigured);

  const fn = new (class extends CursorPagination {
    override pageSize = 5;
    override ordering = 'created';
    override template = (c: HtmlContext) => `next=${c.next_url === null ? 'none' : 'yes'}`;
  })();
  await fn.paginateQueryset(rows(100), req('/'));
  assert.equal(fn.toHtml(), 'next=yes');
  assert.equal(fn.displayPageControls, true);

  const off = new (class extends PageNumberPagination {
    override pageSize = 5;
    override template = null;
  })();
  await off.paginateQueryset(rows(100), req('/'));
  assert.equal(off.displayPageControls, false);
  assert.equal(off.toHtml(), '');

  assert.equal(
    renderTemplate(PREVIOUS_AND_NEXT_TEMPLATE, { previous_url: null, next_url: null }),
    renderPreviousAndNext({ previous_url: null, next_url: null }),
  );
});

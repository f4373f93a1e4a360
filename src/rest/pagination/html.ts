/**
 * HTML page controls: which page numbers to show ({@link getDisplayedPageNumbers}),
 * the link records ({@link getPageLinks}), the two built-in templates and the
 * template registry.
 *
 * A template is a function from the {@link HtmlContext} to markup. The
 * built-in ones are registered under Django REST framework's names
 * ({@link NUMBERS_TEMPLATE}, {@link PREVIOUS_AND_NEXT_TEMPLATE}); registering
 * a template under one of these names replaces it for every paginator, and
 * a paginator's `template` attribute picks another name (or a function) for
 * one class; `template = null` turns the controls off.
 *
 * The built-in markup is accessible (`<nav aria-label="Pagination">`,
 * `rel="prev"` / `rel="next"`, `aria-current="page"` on the current page,
 * disabled items `aria-disabled="true"` without `href`), escapes every URL,
 * loads no external assets, and keeps Django REST framework's (Bootstrap 3)
 * class names `pagination`, `pager`, `previous`, `next`, `active`,
 * `disabled` so existing styles apply.
 *
 * @module
 */
import { escapeHtml } from '../../http/html.js';
import { ConfigurationError } from '../errors.js';
import type { HtmlContext, PageLink, PaginationTemplate } from '../contracts.js';

/** The package's one HTML escape (`&`, `<`, `>`, `"`, and `'` as `&#039;`), re-exported for templates. */
export { escapeHtml } from '../../http/html.js';

export type { HtmlContext, PageLink, PaginationTemplate } from '../contracts.js';

/**
 * The page numbers to show for page `current` of `final`, with `null` for a
 * break (`…`): every page when there are at most five; otherwise the first,
 * the last, the current and its neighbours, pages 2-3 near the start and the
 * last three near the end, with a break wherever pages are left out (a
 * break never hides exactly one page).
 * @example
 * ```ts
 * getDisplayedPageNumbers(5, 9); // [1, null, 4, 5, 6, null, 9]
 * getDisplayedPageNumbers(1, 6); // [1, 2, 3, null, 6]
 * ```
 */
export function getDisplayedPageNumbers(current: number, final: number): (number | null)[] {
  if (!(Number.isSafeInteger(current) && Number.isSafeInteger(final) && current >= 1 && current <= final)) {
    throw new ConfigurationError(
      `getDisplayedPageNumbers needs 1 <= current <= final, got current ${current}, final ${final}.`,
    );
  }
  if (final <= 5) return Array.from({ length: final }, (_, i) => i + 1);
  const included = new Set([1, current - 1, current, current + 1, final]);
  if (current <= 4) included.add(2).add(3);
  if (current >= final - 3) included.add(final - 1).add(final - 2);
  const out: (number | null)[] = [...included].filter((n) => n >= 1 && n <= final).sort((a, b) => a - b);
  if (current > 4) out.splice(1, 0, null);
  if (current < final - 3) out.splice(out.length - 1, 0, null);
  return out;
}

/**
 * The shared record of a break (`…`) in the page links.
 * @example
 * ```ts
 * const links = getPageLinks(getDisplayedPageNumbers(5, 9), 5, (n) => `/items/?page=${n}`);
 * links.filter((l) => l !== PAGE_BREAK).length; // 5: the pages, without the two breaks
 * ```
 */
export const PAGE_BREAK: Readonly<PageLink> = Object.freeze({
  url: null,
  number: null,
  isActive: false,
  isBreak: true,
});

/**
 * Turns displayed page numbers into link records: a page gets `urlFor(n)`
 * and `isActive` when it is `current`; a break is {@link PAGE_BREAK}.
 * @example
 * ```ts
 * getPageLinks([1, 2, null, 9], 2, (n) => `/items/?page=${n}`);
 * // [{url: '/items/?page=1', number: 1, isActive: false, isBreak: false}, {..., number: 2, isActive: true}, PAGE_BREAK, {...}]
 * ```
 */
export function getPageLinks(
  pageNumbers: readonly (number | null)[],
  current: number,
  urlFor: (page: number) => string,
): PageLink[] {
  return pageNumbers.map((n) =>
    n === null ? PAGE_BREAK : { url: urlFor(n), number: n, isActive: n === current, isBreak: false },
  );
}

/**
 * The name of the page-numbers template (page-number and limit/offset styles).
 * @example
 * ```ts
 * const settings = createSettings({ PAGINATION_TEMPLATES: { [NUMBERS_TEMPLATE]: (ctx) => `<p>${ctx.page_links?.length ?? 0} pages</p>` } });
 * ```
 */
export const NUMBERS_TEMPLATE = 'rest_framework/pagination/numbers.html';

/**
 * The name of the previous-and-next template (cursor style).
 * @example
 * ```ts
 * class Feed extends CursorPagination { override template = PREVIOUS_AND_NEXT_TEMPLATE; }
 * ```
 */
export const PREVIOUS_AND_NEXT_TEMPLATE = 'rest_framework/pagination/previous_and_next.html';

function edgeItem(url: string | null, rel: 'prev' | 'next', label: string, text: string, liClass: string): string {
  const cls = (disabled: boolean) => [liClass, disabled ? 'disabled' : ''].filter(Boolean).join(' ');
  if (url === null) {
    const c = cls(true);
    return `<li class="${c}"><a aria-disabled="true" aria-label="${label}">${text}</a></li>`;
  }
  const c = cls(false);
  return `<li${c ? ` class="${c}"` : ''}><a href="${escapeHtml(url)}" rel="${rel}" aria-label="${label}">${text}</a></li>`;
}

/**
 * The built-in page-numbers template: `nav > ul.pagination` with a previous
 * item, one item per page link (`li.active` with `aria-current="page"` for
 * the current page), `li.disabled` with `…` for a break, and a next item.
 * @example
 * ```ts
 * renderNumbers({ previous_url: null, next_url: 'http://h/?page=2', page_links: getPageLinks([1, 2], 1, (n) => `http://h/?page=${n}`) });
 * ```
 */
export function renderNumbers(context: HtmlContext): string {
  const items = [edgeItem(context.previous_url, 'prev', 'Previous', '<span aria-hidden="true">&laquo;</span>', '')];
  for (const link of context.page_links ?? []) {
    if (link.isBreak) items.push('<li class="disabled"><span aria-hidden="true">&hellip;</span></li>');
    else if (link.isActive)
      items.push(
        `<li class="active"><a href="${escapeHtml(link.url ?? '')}" aria-current="page" aria-label="Page ${link.number}">${link.number}</a></li>`,
      );
    else
      items.push(
        `<li><a href="${escapeHtml(link.url ?? '')}" aria-label="Page ${link.number}">${link.number}</a></li>`,
      );
  }
  items.push(edgeItem(context.next_url, 'next', 'Next', '<span aria-hidden="true">&raquo;</span>', ''));
  return `<nav aria-label="Pagination">\n<ul class="pagination">\n${items.join('\n')}\n</ul>\n</nav>\n`;
}

/**
 * The built-in previous-and-next template: `nav > ul.pager` with
 * `li.previous` (`« Previous`) and `li.next` (`Next »`), each `disabled`
 * when there is no such page.
 * @example
 * ```ts
 * renderPreviousAndNext({ previous_url: null, next_url: 'http://h/?cursor=cD0x' });
 * ```
 */
export function renderPreviousAndNext(context: HtmlContext): string {
  const items = [
    edgeItem(context.previous_url, 'prev', 'Previous', '&laquo; Previous', 'previous'),
    edgeItem(context.next_url, 'next', 'Next', 'Next &raquo;', 'next'),
  ];
  return `<nav aria-label="Pagination">\n<ul class="pager">\n${items.join('\n')}\n</ul>\n</nav>\n`;
}

const builtins: ReadonlyMap<string, PaginationTemplate> = new Map([
  [NUMBERS_TEMPLATE, renderNumbers],
  [PREVIOUS_AND_NEXT_TEMPLATE, renderPreviousAndNext],
]);
/**
 * Renders `context` with a template given as a function or by name: the
 * name is looked up in `templates` (an API's `PAGINATION_TEMPLATES`), then
 * among the built-in templates; an unknown name throws
 * {@link ConfigurationError}.
 * @example
 * ```ts
 * const html = renderTemplate(PREVIOUS_AND_NEXT_TEMPLATE, { previous_url: null, next_url: null });
 * ```
 */
export function renderTemplate(
  template: string | PaginationTemplate,
  context: HtmlContext,
  templates: Readonly<Record<string, PaginationTemplate>> = {},
): string {
  if (typeof template === 'function') return template(context);
  const render = Object.hasOwn(templates, template) ? templates[template] : builtins.get(template);
  if (render === undefined)
    throw new ConfigurationError(
      `No pagination template is called ${JSON.stringify(template)}: add it to PAGINATION_TEMPLATES or give the template as a function.`,
    );
  return render(context);
}

/**
 * The page of the browsable interface: what {@link BrowsableAPIRenderer}
 * writes when a browser asks for `text/html` or a client sends
 * `?format=api`. One self-contained HTML document per response: the view's
 * name and description, the request line, the API version, format links,
 * the pagination controls of the view's paginator, the status line and
 * headers, and the JSON body pretty-printed with its absolute URLs as links.
 *
 * No external assets: the style sheet is inline, no script, no web fonts.
 * The layout is fluid (phones and desktops), long URLs wrap, and the colours
 * follow `prefers-color-scheme`.
 *
 * @module
 */
import { escapeHtml } from '../http/html.js';
import { statusText } from '../http/status.js';
import type { PaginationTemplate, Paginator, RenderContext, Renderer } from './contracts.js';
import { replaceQueryParam } from './query.js';

/** An absolute http(s) URL with a host and no whitespace or control characters. */
// eslint-disable-next-line no-control-regex -- the check rejects URLs with control characters, so it must name them
const HTTP_URL = /^https?:\/\/[^\s/?#\u0000-\u001f\u007f]+[^\s\u0000-\u001f\u007f]*$/i;

/**
 * JSON pretty-printed with four spaces (as `JSON.stringify` would, so
 * `toJSON()` and dropped `undefined` members behave the same), HTML-escaped,
 * keys and strings in `<span>`s for colouring, and every string value that
 * is an absolute http(s) URL made a link.
 * @example
 * ```ts
 * jsonToHtml({ next: 'http://h/items/?page=2' });
 * // '{\n    <span class="k">"next"</span>: "<a href="http://h/items/?page=2" rel="nofollow">http://h/items/?page=2</a>"\n}'
 * ```
 */
export function jsonToHtml(data: unknown): string {
  const text = JSON.stringify(data, null, 4) as string | undefined;
  if (text === undefined) return '';
  let out = '';
  let plain = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (text.charCodeAt(i) !== 34 /* " */) continue;
    // Find the closing quote, skipping escapes.
    let j = i + 1;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 92 /* \ */) j += 2;
      else if (c === 34) break;
      else j++;
    }
    out += text.slice(plain, i); // punctuation, numbers, literals: nothing to escape
    const token = text.slice(i, j + 1);
    const inner = escapeHtml(token.slice(1, -1));
    if (text.charCodeAt(j + 1) === 58 /* : */) {
      out += `<span class="k">"${inner}"</span>`;
    } else {
      const value = JSON.parse(token) as string;
      out += HTTP_URL.test(value)
        ? `<span class="s">"<a href="${escapeHtml(value)}" rel="nofollow">${inner}</a>"</span>`
        : `<span class="s">"${inner}"</span>`;
    }
    plain = j + 1;
    i = j;
  }
  return out + text.slice(plain);
}

/** What the page reads of a view, duck-typed (any {@link APIView}, a generic view for the paginator). */
interface ViewLike {
  getViewName?: () => string;
  getViewDescription?: () => string;
  getRenderers?: () => Renderer[];
  readonly paginator?: Paginator | null;
}

function asView(view: unknown): ViewLike | null {
  return typeof view === 'object' && view !== null ? view : null;
}

function viewRenderers(view: ViewLike | null): Renderer[] {
  if (view === null || typeof view.getRenderers !== 'function') return [];
  try {
    return view.getRenderers();
  } catch {
    return [];
  }
}

function isHtml(r: Pick<Renderer, 'format' | 'mediaType'>): boolean {
  return r.format === 'api' || r.mediaType.toLowerCase().startsWith('text/html');
}

/** The controls of the view's paginator when it wants them shown, else `''`. */
function paginationHtml(view: ViewLike | null, templates: Readonly<Record<string, PaginationTemplate>>): string {
  if (view === null || !('paginator' in view)) return '';
  let paginator: Paginator | null | undefined;
  try {
    paginator = view.paginator;
  } catch {
    return '';
  }
  if (paginator == null || paginator.displayPageControls !== true || typeof paginator.toHtml !== 'function') return '';
  const html = paginator.toHtml(templates).trim();
  if (html === '') return '';
  // The built-in templates bring their own <nav>; wrap a bare list from a custom one.
  return /^<nav[\s>]/i.test(html) ? html : `<nav aria-label="Pagination">${html}</nav>`;
}

/**
 * The `Content-Type` the JSON rendering of this response carries: the
 * view's first non-HTML renderer (JSON by default), or the response's own
 * content type, plus the version parameter under Accept-header versioning
 * (what {@link RestApi.render} writes).
 */
function jsonContentType(context: RenderContext, renderers: readonly Renderer[]): string {
  const response = context.response;
  if (response !== null && response.contentType !== null) return response.contentType;
  const json = renderers.find((r) => !isHtml(r));
  let ct =
    json === undefined
      ? 'application/json'
      : json.charset !== null
        ? `${json.mediaType}; charset=${json.charset}`
        : json.mediaType;
  const request = context.request;
  const scheme = request?.versioningScheme;
  if (request && scheme && request.version != null && scheme.varyHeaders.includes('Accept')) {
    ct += `; ${scheme.versionParam ?? request.settings.VERSION_PARAM}=${request.version}`;
  }
  return ct;
}

/** The status line and the headers as they go on the wire (before the transport adds Date/Content-Length). */
function headersHtml(context: RenderContext, status: number, renderers: readonly Renderer[]): string {
  let out = `<b>HTTP ${status} ${escapeHtml(statusText(status))}</b>`;
  const response = context.response;
  const entries = response !== null ? response.headerEntries() : [];
  let hasType = false;
  for (const [k, v] of entries) {
    if (k.toLowerCase() === 'content-type') hasType = true;
    out += `\n<b>${escapeHtml(k)}:</b> ${escapeHtml(v)}`;
  }
  if (!hasType) out += `\n<b>Content-Type:</b> ${escapeHtml(jsonContentType(context, renderers))}`;
  return out;
}

/** Links to the same URL in each format the view renders (`?format=json`), the current one marked. */
function formatsHtml(context: RenderContext, renderers: readonly Renderer[]): string {
  const request = context.request;
  const param = request?.settings.URL_FORMAT_OVERRIDE ?? null;
  if (request === null || param === null) return '';
  const formats: readonly Pick<Renderer, 'format' | 'mediaType'>[] =
    renderers.length > 0 ? renderers : [{ format: 'json', mediaType: 'application/json' }];
  const path = request.getFullPath();
  let items = '';
  for (const r of formats) {
    const href = escapeHtml(replaceQueryParam(path, param, r.format));
    const label = escapeHtml(r.format);
    items += isHtml(r)
      ? `<li><a href="${href}" aria-current="page">${label}</a></li>`
      : `<li><a href="${href}" rel="alternate" type="${escapeHtml(r.mediaType)}">${label}</a></li>`;
  }
  return `<div><dt>Formats</dt><dd><ul class="formats">${items}</ul></dd></div>`;
}

const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--panel:#f6f8fa;--link:#0550ae;--accent:#0969da;--on-accent:#fff;--key:#953800;--str:#0a3069;--bad:#b3261e;--good:#1a7f37}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--border:#3d444d;--panel:#151b23;--link:#58a6ff;--accent:#1f6feb;--on-accent:#fff;--key:#ffa657;--str:#a5d6ff;--bad:#ff7b72;--good:#3fb950}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--link)}
a:focus-visible{outline:3px solid var(--accent);outline-offset:2px;border-radius:2px}
.site{background:var(--panel);border-bottom:1px solid var(--border);padding:.5rem max(1rem,calc((100% - 70rem) / 2));font-weight:600}
.site span{color:var(--muted);font-weight:400}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:clamp(1.5rem,5vw,2.25rem);line-height:1.2;margin:.25rem 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
.description{margin:0 0 1rem;color:var(--muted);white-space:pre-line}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.875rem}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
.meta div{display:contents}
.meta dt{font-weight:600}
.meta dd{margin:0;min-width:0;overflow-wrap:anywhere}
.method{font-weight:700}
.formats{list-style:none;display:flex;flex-wrap:wrap;gap:.75rem;margin:0;padding:0}
.formats [aria-current]{font-weight:700;text-decoration:none;color:var(--fg)}
pre{background:var(--panel);border:1px solid var(--border);border-radius:6px;padding:.75rem 1rem;margin:0 0 1rem;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;tab-size:4}
.status b:first-child{color:var(--good)}
.status.error b:first-child{color:var(--bad)}
.json .k{color:var(--key)}
.json .s{color:var(--str)}
nav[aria-label="Pagination"]{margin:1rem 0}
nav[aria-label="Pagination"] ul{list-style:none;display:flex;flex-wrap:wrap;gap:.375rem;margin:0;padding:0}
nav[aria-label="Pagination"] ul.pager{justify-content:space-between}
nav[aria-label="Pagination"] li>a,nav[aria-label="Pagination"] li>span{display:inline-flex;align-items:center;justify-content:center;min-width:2.75rem;min-height:2.75rem;padding:.25rem .75rem;border:1px solid var(--border);border-radius:6px;text-decoration:none;background:var(--bg)}
nav[aria-label="Pagination"] a:hover{background:var(--panel)}
nav[aria-label="Pagination"] .active>a,nav[aria-label="Pagination"] [aria-current="page"]{background:var(--accent);border-color:var(--accent);color:var(--on-accent);font-weight:700}
nav[aria-label="Pagination"] .disabled>a,nav[aria-label="Pagination"] .disabled>span,nav[aria-label="Pagination"] [aria-disabled="true"]{color:var(--muted);border-style:dashed;pointer-events:none;cursor:default}
@media (max-width:40rem){main{padding:.75rem}.site{padding:.5rem .75rem}.meta{grid-template-columns:1fr;gap:0}.meta dd{margin-bottom:.5rem}pre{padding:.5rem .625rem;font-size:.8125rem}}
@media (forced-colors:active){nav[aria-label="Pagination"] [aria-current="page"]{border:2px solid CanvasText}}
`
  .trim()
  .replace(/\n/g, '');

/**
 * Renders the browsable page of one response: what `BrowsableAPIRenderer`
 * writes; call it directly to embed the page elsewhere.
 *
 * The page: `<title>` `<view name> – eventide`; a `<main>` with one `<h1>`
 * (the view name), the view description, a `<dl class="meta">` (request
 * method and path, API version or `none`, format links), the paginator's
 * controls (`<nav aria-label="Pagination">`, only when the paginator sets
 * `displayPageControls`), then the status line with the response headers
 * and the JSON body in two `<pre>` elements.
 * @example
 * ```ts
 * const html = renderBrowsablePage({ detail: 'Not found.' }, 'text/html', { request, response, view: null });
 * ```
 */
export function renderBrowsablePage(data: unknown, _acceptedMediaType: string | null, context: RenderContext): string {
  const view = asView(context.view);
  const request = context.request;
  const status = context.response?.status ?? 200;
  const renderers = viewRenderers(view);
  let name = typeof view?.getViewName === 'function' ? view.getViewName() : '';
  if (name === '') name = statusText(status);
  const description = typeof view?.getViewDescription === 'function' ? view.getViewDescription() : '';
  const title = escapeHtml(name);

  let meta = '';
  if (request !== null) {
    meta += `<div><dt>Request</dt><dd><code class="method">${escapeHtml(request.method)}</code> <code class="url">${escapeHtml(request.getFullPath())}</code></dd></div>`;
    meta += `<div><dt>Version</dt><dd><code class="version">${escapeHtml(request.version ?? 'none')}</code></dd></div>`;
    meta += formatsHtml(context, renderers);
  }

  return (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<meta name="color-scheme" content="light dark">\n<meta name="robots" content="noindex, nofollow">\n' +
    `<title>${title} \u2013 eventide</title>\n<style>${CSS}</style>\n</head>\n<body>\n` +
    '<header class="site">eventide <span>browsable API</span></header>\n<main>\n' +
    `<h1>${title}</h1>\n` +
    (description !== '' ? `<p class="description">${escapeHtml(description)}</p>\n` : '') +
    (meta !== '' ? `<dl class="meta">${meta}</dl>\n` : '') +
    paginationHtml(view, request?.settings.PAGINATION_TEMPLATES ?? {}) +
    '\n<section aria-labelledby="response-heading">\n<h2 id="response-heading">Response</h2>\n' +
    `<pre class="status${status >= 400 ? ' error' : ''}" aria-label="Status and headers">${headersHtml(context, status, renderers)}</pre>\n` +
    `<pre class="json" aria-label="Body (JSON)">${jsonToHtml(data)}</pre>\n` +
    '</section>\n</main>\n</body>\n</html>\n'
  );
}

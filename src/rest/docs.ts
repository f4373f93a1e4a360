/**
 * An interactive API reference page for the OpenAPI documents of an API
 * (Swagger UI), served by the library itself with no external asset: the
 * page, and Swagger UI's script and stylesheet (from the `swagger-ui-dist`
 * package, an optional peer dependency) under the view's own URL prefix,
 * with their media types, caching headers and a Content-Security-Policy
 * that allows the page's own origin only.
 *
 * @module
 */
import type { ApiRequest, Renderer, ViewFunction } from './contracts.js';
import { loadReferenceAssets, type ReferenceAsset } from './docs-assets.js';
import { MethodNotAllowed, NotFound } from './errors.js';
import { Response } from './response.js';
import { exceptionHandler } from './views.js';

/**
 * Options of {@link apiReferenceView}: one document (`openapiUrl`) or one
 * per version (`versions`), and the page title.
 * @example
 * ```ts
 * const one: ApiReferenceOptions = { openapiUrl: '/openapi.json' };
 * const each: ApiReferenceOptions = { title: 'Catalog', versions: { v1: '/openapi/v1.json', v2: '/openapi/v2.json' } };
 * ```
 */
export interface ApiReferenceOptions {
  /** The URL of the OpenAPI document, when there is one (relative to the page, or absolute). */
  openapiUrl?: string;
  /**
   * The URL of each version's document, by version: the first is the page at
   * the view's own URL, each one also has a page at `<version>/` below it.
   */
  versions?: Readonly<Record<string, string>>;
  /** The page title (`API reference` by default). */
  title?: string;
}

/** The base of every response of the view: no sniffing, no framing, no referrer. */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The page's policy: its own origin only (images may be `data:`, as Swagger UI's stylesheet icons are). */
function contentSecurityPolicy(connect: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connect].join(' ')}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Sends a body as it is (the response's `contentType` says what it is). */
const RAW: Renderer = {
  mediaType: 'application/octet-stream',
  format: 'raw',
  charset: null,
  render: (data) => data as Buffer | string,
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const VERSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;

function raw(body: Buffer | string, contentType: string, headers: Record<string, string>): Response {
  const r = new Response<Buffer | string>(body, { contentType, headers: { ...COMMON_HEADERS, ...headers } });
  r.renderer = RAW;
  r.mediaType = contentType;
  return r;
}

function assetResponse(request: ApiRequest, asset: ReferenceAsset, csp: string): Response {
  // A URL with the current hash never changes: cache it for good; otherwise revalidate.
  const versioned = request.query.get('v') === asset.hash;
  const headers: Record<string, string> = {
    'Content-Security-Policy': csp,
    'Cache-Control': versioned ? 'public, max-age=31536000, immutable' : 'no-cache',
    ETag: asset.etag,
  };
  const match = request.headers.get('if-none-match');
  if (match !== null && match.split(',').some((t) => t.trim().replace(/^W\//, '') === asset.etag)) {
    return new Response(undefined, { status: 304, headers: { ...COMMON_HEADERS, ...headers } });
  }
  return raw(asset.body, asset.contentType, headers);
}

interface Page {
  title: string;
  /** The path of the view's own URL (ends with `/`). */
  base: string;
  versions: readonly [string, string][];
  /** The version shown (`null`: the single document). */
  current: string | null;
  documentUrl: string;
  assets: ReadonlyMap<string, ReferenceAsset>;
}

function renderPage(p: Page): string {
  const src = (name: string): string => escapeHtml(`${p.base}assets/${name}?v=${p.assets.get(name)?.hash ?? ''}`);
  const first = p.versions[0]?.[0];
  const nav =
    p.versions.length > 1
      ? `<nav aria-label="API versions"><ul class="evt-ref-versions">${p.versions
          .map(([v]) => {
            const href = escapeHtml(v === first ? p.base : `${p.base}${encodeURIComponent(v)}/`);
            const current = v === p.current ? ' aria-current="page"' : '';
            return `<li><a href="${href}"${current}>${escapeHtml(v)}</a></li>`;
          })
          .join('')}</ul></nav>`
      : '';
  const title = escapeHtml(p.current === null ? p.title : `${p.title} (${p.current})`);
  const doc = escapeHtml(p.documentUrl);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/png" sizes="32x32" href="${src('favicon-32x32.png')}">
<link rel="stylesheet" href="${src('swagger-ui.css')}">
<link rel="stylesheet" href="${src('reference.css')}">
</head>
<body>
<header class="evt-ref-bar">
<span class="evt-ref-title">${escapeHtml(p.title)}</span>
${nav}
<a class="evt-ref-document" href="${doc}">OpenAPI document</a>
</header>
<main id="swagger-ui" data-openapi-url="${doc}">
<noscript><p class="evt-ref-noscript">The interactive reference needs JavaScript. The OpenAPI document is at <a href="${doc}">${doc}</a>.</p></noscript>
</main>
<script src="${src('swagger-ui-bundle.js')}"></script>
<script src="${src('reference.js')}"></script>
</body>
</html>
`;
}

/**
 * A view serving an interactive reference (Swagger UI) of the API's OpenAPI
 * documents, one page per version with a version switcher, and the files the
 * page needs, all under the view's own URL: mount it twice, at a prefix and
 * at `<path:page>` below it. With `versions`, the prefix shows the first
 * version and `<prefix><version>/` each version; `<prefix>assets/<name>`
 * serves Swagger UI's script and stylesheet (from the `swagger-ui-dist`
 * package, read on the first request: without it, that request fails with a
 * logged {@link ConfigurationError} naming the package) and the page's own
 * script and stylesheet. Any other path below the prefix is 404, methods
 * other than GET and HEAD 405.
 *
 * No request leaves the page's origin (save for the documents, when given
 * as absolute URLs of another origin): every response carries a
 * Content-Security-Policy allowing only `'self'` (`data:` images, for
 * Swagger UI's icons; the documents' origins in `connect-src`), `nosniff`
 * and `X-Frame-Options: DENY`. Pages are `Cache-Control: no-cache`; assets
 * have a strong `ETag` (304 on `If-None-Match`), and the page asks for them
 * with their content hash (`?v=`), which makes them
 * `public, max-age=31536000, immutable`.
 * @example
 * ```ts
 * const docs = apiReferenceView({ title: 'Catalog', versions: { v1: '/openapi/v1.json', v2: '/openapi/v2.json' } });
 * const urlpatterns = [
 *   path('openapi/v1.json', openApiView({ title: 'Catalog', version: 'v1' }), { name: 'openapi-v1' }),
 *   path('openapi/v2.json', openApiView({ title: 'Catalog', version: 'v2' }), { name: 'openapi-v2' }),
 *   path('docs/', docs, { name: 'api-docs' }), // v1; /docs/v2/ is v2
 *   path('docs/<path:page>', docs), // /docs/v1/, /docs/v2/, /docs/assets/...
 * ];
 * ```
 */
export function apiReferenceView(options: ApiReferenceOptions): ViewFunction {
  const { openapiUrl, versions } = options;
  if ((openapiUrl === undefined) === (versions === undefined))
    throw new TypeError('apiReferenceView: give either openapiUrl or versions');
  const entries: [string, string][] = versions !== undefined ? Object.entries(versions) : [];
  if (versions !== undefined && entries.length === 0) throw new TypeError('apiReferenceView: versions is empty');
  for (const [v, url] of entries) {
    if (!VERSION_NAME.test(v) || v === 'assets')
      throw new TypeError(`apiReferenceView: ${JSON.stringify(v)} cannot be a version's page name`);
    if (typeof url !== 'string' || url === '') throw new TypeError(`apiReferenceView: no URL for version ${v}`);
  }
  const title = options.title ?? 'API reference';
  // The documents' origins when they are absolute URLs elsewhere: the page fetches them.
  const connect = new Set<string>();
  for (const url of openapiUrl !== undefined ? [openapiUrl] : entries.map(([, u]) => u)) {
    if (/^https?:\/\//i.test(url)) connect.add(new URL(url).origin);
  }
  const csp = contentSecurityPolicy([...connect]);
  // Read on the first request (swagger-ui-dist is loaded only when the page is used), then kept.
  let assets: ReadonlyMap<string, ReferenceAsset> | null = null;

  const view = (request: ApiRequest): Promise<Response> => {
    try {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        throw new MethodNotAllowed(request.method, ['GET', 'HEAD']);
      const rest = request.kwargs['page'];
      const sub = typeof rest === 'string' ? rest : '';
      assets ??= loadReferenceAssets();
      if (sub.startsWith('assets/')) {
        const asset = assets.get(sub.slice('assets/'.length));
        if (asset === undefined) throw new NotFound();
        return Promise.resolve(assetResponse(request, asset, csp));
      }
      let current: string | null = null;
      let documentUrl = openapiUrl ?? '';
      if (versions !== undefined) {
        const found = sub === '' ? entries[0] : entries.find(([v]) => `${v}/` === sub);
        if (found === undefined) throw new NotFound();
        [current, documentUrl] = found;
      } else if (sub !== '') throw new NotFound();
      const base =
        sub !== '' && request.path.endsWith(sub)
          ? request.path.slice(0, request.path.length - sub.length)
          : request.path;
      const html = renderPage({ title, base, versions: entries, current, documentUrl, assets });
      return Promise.resolve(
        raw(html, 'text/html; charset=utf-8', { 'Content-Security-Policy': csp, 'Cache-Control': 'no-cache' }),
      );
    } catch (error) {
      return Promise.resolve(exceptionHandler(error, request));
    }
  };
  return view;
}

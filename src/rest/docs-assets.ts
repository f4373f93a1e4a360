/**
 * The files of the API reference page ({@link apiReferenceView} in
 * `./docs.js`): Swagger UI's script, stylesheet and icon, read from the
 * `swagger-ui-dist` package (an optional peer dependency, loaded the first
 * time the page is asked for; a missing one is a {@link ConfigurationError}
 * naming it), and the page's own small script and stylesheet. Each asset has
 * its media type, a strong `ETag` and a short content hash that the page puts
 * in the asset's URL (`?v=`), so that a versioned URL can be cached for good.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ConfigurationError } from './errors.js';

/**
 * The npm package the reference page takes Swagger UI from.
 * @example
 * ```ts
 * console.log(`npm install ${SWAGGER_UI_PACKAGE}`); // npm install swagger-ui-dist
 * ```
 */
export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';

/**
 * One file of the reference page, ready to send.
 * @example
 * ```ts
 * const css: ReferenceAsset | undefined = loadReferenceAssets().get('swagger-ui.css');
 * console.log(css?.contentType, css?.body.length); // text/css; charset=utf-8 187956
 * ```
 */
export interface ReferenceAsset {
  /** The file name, as in the URL (`swagger-ui-bundle.js`). */
  readonly name: string;
  /** The bytes. */
  readonly body: Buffer;
  /** The `Content-Type` value. */
  readonly contentType: string;
  /** The strong `ETag` value (quoted). */
  readonly etag: string;
  /** A short hash of the bytes, the `v` query parameter of the asset's URL on the page. */
  readonly hash: string;
}

/** The files taken from swagger-ui-dist, with their media types. */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/**
 * The page's script: starts Swagger UI on the `#swagger-ui` element with the
 * document URL of its `data-openapi-url` attribute. No inline script on the
 * page, so the Content-Security-Policy needs no `'unsafe-inline'`. No
 * validator badge (it would ask validator.swagger.io) and no configuration
 * from the query string.
 */
const PAGE_SCRIPT = `'use strict';
(function () {
  var node = document.getElementById('swagger-ui');
  if (node === null || typeof SwaggerUIBundle !== 'function') return;
  window.ui = SwaggerUIBundle({
    url: node.getAttribute('data-openapi-url'),
    domNode: node,
    deepLinking: true,
    validatorUrl: null,
    queryConfigEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    docExpansion: 'list',
    defaultModelsExpandDepth: 1,
    displayRequestDuration: true
  });
})();
`;

/** The page's stylesheet: the bar with the title, the version switcher and the document link. */
const PAGE_STYLES = `body { margin: 0; }
.evt-ref-bar {
  display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.25rem;
  padding: 0.75rem 1.25rem; background: #1b1b1b; color: #fff;
  font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 0.95rem;
}
.evt-ref-bar a { color: #fff; }
.evt-ref-title { font-weight: 600; margin-right: auto; }
.evt-ref-versions { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0; padding: 0; list-style: none; }
.evt-ref-versions a { display: inline-block; padding: 0.2rem 0.6rem; border: 1px solid #777; border-radius: 4px; text-decoration: none; }
.evt-ref-versions a[aria-current='page'] { background: #fff; color: #1b1b1b; border-color: #fff; }
.evt-ref-versions a:focus-visible, .evt-ref-document:focus-visible { outline: 2px solid #89bf04; outline-offset: 2px; }
.evt-ref-noscript { padding: 1.25rem; font-family: system-ui, sans-serif; }
`;

function asset(name: string, body: Buffer, contentType: string): ReferenceAsset {
  const digest = createHash('sha256').update(body).digest('base64url');
  return { name, body, contentType, etag: `"${digest.slice(0, 27)}"`, hash: digest.slice(0, 12) };
}

/**
 * The directory of an installed package, or a {@link ConfigurationError}
 * that names it when it is not installed. @internal
 */
export function packageDirectory(name: string, what: string): string {
  const require = createRequire(import.meta.url);
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch (cause) {
    if ((cause as { code?: string }).code === 'MODULE_NOT_FOUND') {
      throw new ConfigurationError(`${what} needs the package ${name}, which is not installed: npm install ${name}`, {
        cause,
      });
    }
    throw cause;
  }
}

/**
 * Reads the reference page's assets, by file name: `swagger-ui-bundle.js`,
 * `swagger-ui.css` and the two favicons from the package `packageName`
 * (swagger-ui-dist; another name in tests), and the page's own
 * `reference.js` and `reference.css`. Throws a {@link ConfigurationError}
 * naming the package when it is not installed. {@link apiReferenceView}
 * calls it once, on its first request.
 * @example
 * ```ts
 * const bundle = loadReferenceAssets().get('swagger-ui-bundle.js');
 * // { name: 'swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8', etag: '"..."', hash: '...', body: <Buffer ...> }
 * ```
 */
export function loadReferenceAssets(packageName: string = SWAGGER_UI_PACKAGE): Map<string, ReferenceAsset> {
  const dir = packageDirectory(packageName, 'The API reference page (apiReferenceView)');
  const out = new Map<string, ReferenceAsset>();
  for (const [name, type] of Object.entries(PACKAGE_FILES))
    out.set(name, asset(name, readFileSync(join(dir, name)), type));
  out.set('reference.js', asset('reference.js', Buffer.from(PAGE_SCRIPT), 'text/javascript; charset=utf-8'));
  out.set('reference.css', asset('reference.css', Buffer.from(PAGE_STYLES), 'text/css; charset=utf-8'));
  return out;
}

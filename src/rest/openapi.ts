/**
 * OpenAPI 3.1 documents generated from the URL conf, one per API version.
 *
 * For each route the document has an operation per method the view
 * handles, HEAD where it handles GET, and OPTIONS (see
 * `openapi-operations.ts`): the path parameters, the version parameter of
 * the versioning scheme, the pagination parameters of list endpoints with
 * their limits (`minimum`/`maximum`, `page` taking `last`) and the filter
 * backends' (the `ordering` choices as an `enum`), the success response in
 * every media type the view renders (the browsable `text/html` page
 * included) with the paginator's page schema and headers, and every error
 * status the operation can answer with its body schema and exact examples
 * (`openapi-errors.ts`). Serializer schemas live in `components.schemas`
 * (`openapi-components.ts`): one per class, every readable field required
 * in a response, and a request schema where an operation takes a body.
 * Operations are tagged by the route's first segment (or the view's
 * `openapi.tags`); the document's `tags` list them with a description.
 * Versioning is taken into account (DRF's generator ignores it): each
 * version's document lists only the routes that serve that version
 * (`openapi-versions.ts`). Schemas are JSON Schema 2020-12 (nullable values
 * have type arrays such as `['string', 'null']`; no `nullable`). See
 * docs/openapi.md.
 *
 * @module
 */
import type { ApiContext, JsonSchema, ViewFunction } from './contracts.js';
import { SchemaComponents } from './openapi-components.js';
import { routeOperations, type DocumentContext, type RouteOperations } from './openapi-operations.js';
import { placeVersion } from './openapi-versions.js';
import { APIView, apiView } from './views.js';
import { Response } from './response.js';

export { serializerSchema, serializerRequestSchema } from './openapi-components.js';

/**
 * A server of the API (`servers[]` of the document).
 * @example
 * ```ts
 * const s: OpenApiServer = { url: 'https://api.example.com', description: 'Production' };
 * ```
 */
export interface OpenApiServer {
  url: string;
  description?: string;
}

/**
 * A tag of the document (`tags[]`): its name and description.
 * @example
 * ```ts
 * const t: OpenApiTag = { name: 'items', description: 'The catalog items.' };
 * ```
 */
export interface OpenApiTag {
  name: string;
  description?: string;
}

/**
 * Options of {@link generateOpenApi} and {@link openApiView}.
 * @example
 * ```ts
 * const o: OpenApiOptions = {
 *   title: 'Catalog',
 *   version: 'v2',
 *   description: 'The demo catalog.',
 *   license: { name: 'MIT', identifier: 'MIT' },
 *   contact: { name: 'The catalog team', url: 'https://catalog.example.org/contact' },
 *   tags: [{ name: 'items', description: 'The catalog items.' }],
 * };
 * ```
 */
export interface OpenApiOptions {
  /** `info.title`. */
  title?: string;
  /** The API version the document describes (`null`: the unversioned API). */
  version?: string | null;
  /** `info.description`. */
  description?: string;
  /** `info.license`: a name and an SPDX `identifier` or a `url`. */
  license?: { name: string; identifier?: string; url?: string };
  /** `info.contact`. */
  contact?: { name?: string; url?: string; email?: string };
  /**
   * `servers`. Without it (and without `serverUrl`), {@link openApiView}
   * lists the origin of the request that fetched the document, and
   * {@link generateOpenApi} lists no server.
   */
  servers?: readonly OpenApiServer[];
  /** `servers[0].url`, when given (shorthand for `servers: [{ url }]`); the link examples then start with it. */
  serverUrl?: string;
  /**
   * What the link examples (`next`/`previous` of a page, the `Link` header)
   * start with when there is no server URL (`https://api.example.com`):
   * {@link openApiView} sets it to the origin of the request that fetched the
   * document. Without either the examples are paths.
   */
  exampleBaseUrl?: string;
  /**
   * The document's tags in order, with their descriptions. Tags used by
   * operations but not listed here follow, described from their views.
   */
  tags?: readonly OpenApiTag[];
}

/**
 * An OpenAPI 3.1 document (a plain JSON object).
 * @example
 * ```ts
 * const doc: OpenApiDocument = generateOpenApi(api, { version: 'v1' });
 * console.log(Object.keys(doc.paths));
 * ```
 */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description?: string;
    license?: { name: string; identifier?: string; url?: string };
    contact?: { name?: string; url?: string; email?: string };
  };
  servers?: OpenApiServer[];
  /** The tags of the operations, with descriptions. */
  tags?: OpenApiTag[];
  paths: Record<string, Record<string, JsonSchema>>;
  /** The schemas by name (serializers' response and request schemas, error bodies, OPTIONS metadata), referred to with `$ref`. */
  components?: { schemas: Record<string, JsonSchema> };
}

type ViewClass = new () => APIView;

/** The most documents {@link openApiView} keeps per API (versions times origins). */
const MAX_CACHED_DOCUMENTS = 16;

/** The literal segments every route shares at its start (`['api']`), stripped before tagging. */
function commonPrefix(routes: readonly RouteOperations[]): number {
  if (routes.length < 2) return 0;
  const first = routes[0]?.segments ?? [];
  let n = 0;
  while (n < first.length && routes.every((r) => r.segments.length > n + 1 && r.segments[n] === first[n])) n++;
  return n;
}

/** Sets each operation's tags and returns the document's tag list. */
function assignTags(routes: readonly RouteOperations[], given: readonly OpenApiTag[]): OpenApiTag[] {
  const skip = commonPrefix(routes);
  const found = new Map<string, { prefix: boolean; descriptions: Set<string> }>();
  for (const r of routes) {
    const segment = r.segments[skip];
    const tags = r.tags ?? [segment ?? r.name];
    const prefix = r.tags === null && segment !== undefined;
    for (const tag of tags) {
      let entry = found.get(tag);
      if (entry === undefined) found.set(tag, (entry = { prefix, descriptions: new Set() }));
      if (r.description !== '') entry.descriptions.add(r.description);
    }
    for (const op of Object.values(r.operations)) op.tags = [...tags];
  }
  const out: OpenApiTag[] = given.map((t) => ({ ...t }));
  for (const [name, entry] of found) {
    const listed = out.find((t) => t.name === name);
    const only = entry.descriptions.size === 1 ? [...entry.descriptions][0] : undefined;
    const description =
      only ??
      (entry.prefix
        ? `The endpoints under \`/${[...(routes[0]?.segments.slice(0, skip) ?? []), name].join('/')}/\`.`
        : `The ${name} endpoints.`);
    if (listed === undefined) out.push({ name, description });
    else if (listed.description === undefined) listed.description = description;
  }
  return out;
}

/**
 * Generates the OpenAPI 3.1 document of an API for one version.
 * @example
 * ```ts
 * const v2 = generateOpenApi(api, { title: 'Catalog', version: 'v2' });
 * ```
 */
export function generateOpenApi(
  api: Pick<ApiContext, 'settings' | 'urlconf'>,
  options: OpenApiOptions = {},
): OpenApiDocument {
  const settings = api.settings;
  const version = options.version === undefined ? settings.DEFAULT_VERSION : options.version;
  const ctx: DocumentContext = {
    settings,
    version,
    components: new SchemaComponents(),
    exampleBase: (options.serverUrl ?? options.exampleBaseUrl ?? '').replace(/\/+$/, ''),
    operationIds: new Set<string>(),
  };
  const routes: RouteOperations[] = [];
  for (const route of api.urlconf.routes()) {
    if (/\.\{format\}\/?$/.test(route.route)) continue; // format-suffix twins (DRF leaves them out too)
    const Cls = route.view.viewClass as ViewClass | undefined;
    if (typeof Cls !== 'function' || !(Cls.prototype instanceof APIView)) continue;
    const init = route.view.initkwargs ?? {};
    const view = new Cls();
    for (const [k, v] of Object.entries(init)) if (k !== 'actions') (view as unknown as Record<string, unknown>)[k] = v;
    if (view.excludeFromSchema) continue;
    const vClass = view.versioningClass === undefined ? settings.DEFAULT_VERSIONING_CLASS : view.versioningClass;
    const placed = placeVersion(route, vClass === null ? null : new vClass(), version, settings);
    if (placed === null) continue;
    routes.push(routeOperations(route, view, placed, ctx));
  }
  const tags = assignTags(routes, options.tags ?? []);
  const paths: OpenApiDocument['paths'] = {};
  for (const r of routes) Object.assign((paths[r.path] ??= {}), r.operations);
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: options.title ?? 'API', version: version ?? '1.0.0' },
    paths,
  };
  if (options.description !== undefined) doc.info.description = options.description;
  if (options.license !== undefined) doc.info.license = { ...options.license };
  if (options.contact !== undefined) doc.info.contact = { ...options.contact };
  const servers = options.servers ?? (options.serverUrl !== undefined ? [{ url: options.serverUrl }] : undefined);
  if (servers !== undefined) doc.servers = servers.map((s) => ({ ...s }));
  if (tags.length > 0) doc.tags = tags;
  if (Object.keys(ctx.components.schemas).length > 0) doc.components = { schemas: ctx.components.schemas };
  // Key order as readers expect it: openapi, info, servers, tags, paths, components.
  const { openapi, info, paths: p, components, ...rest } = doc;
  return { openapi, info, ...rest, paths: p, ...(components ? { components } : {}) };
}

/**
 * A view serving the OpenAPI document of the API that routes to it, for a
 * fixed version, or, with `version` undefined, for the version of the
 * request as the API's versioning scheme determines it (so
 * `rePath('^(?P<version>v1|v2)/openapi.json$', openApiView())` serves each
 * version's document under URL-path versioning). The link examples of the
 * document start with `serverUrl` when given, else with the origin of the
 * request (`exampleBaseUrl`); `servers` is `servers` (or `serverUrl`) when
 * given, else that origin (`[{ url: 'http://127.0.0.1:8000' }]`).
 * Documents are built once per API, version and origin (a few origins per
 * version are kept).
 * @example
 * ```ts
 * const urlpatterns = [
 *   path('openapi/v1.json', openApiView({ title: 'Catalog', version: 'v1' }), { name: 'openapi-v1' }),
 *   rePath('^(?P<version>v1|v2)/openapi.json$', openApiView({ title: 'Catalog' }), { name: 'openapi' }),
 * ];
 * ```
 */
export function openApiView(options: OpenApiOptions = {}): ViewFunction {
  const cache = new WeakMap<object, Map<string, OpenApiDocument>>();
  const fixed = options.version !== undefined;
  return apiView(
    ['GET'],
    (request) => {
      const api = request.api;
      if (api === null) return new Response({ detail: 'No API.' }, { status: 500 });
      const version = fixed ? (options.version as string | null) : request.version;
      const base = options.serverUrl ?? options.exampleBaseUrl ?? request.buildAbsoluteUri('/').replace(/\/+$/, '');
      let docs = cache.get(api);
      if (docs === undefined) cache.set(api, (docs = new Map<string, OpenApiDocument>()));
      const key = `${version ?? ''}\n${version === null ? 0 : 1}\n${base}`;
      let doc = docs.get(key);
      if (doc === undefined) {
        // The Host header picks the origin: keep a bounded number of documents, dropping the oldest.
        if (docs.size >= MAX_CACHED_DOCUMENTS) docs.delete(docs.keys().next().value as string);
        const servers =
          options.servers ??
          (options.serverUrl === undefined ? [{ url: base, description: 'This server.' }] : undefined);
        docs.set(
          key,
          (doc = generateOpenApi(api, { ...options, version, exampleBaseUrl: base, ...(servers ? { servers } : {}) })),
        );
      }
      return new Response(doc);
    },
    // A fixed version needs no versioning; otherwise the API's scheme determines the request's version.
    fixed
      ? { name: 'OpenApiView', versioningClass: null, excludeFromSchema: true }
      : { name: 'OpenApiView', excludeFromSchema: true },
  );
}

/**
 * The contracts of the web-API layer: the shapes in which its modules see
 * each other (request, response, settings, renderer, versioning scheme,
 * paginator, filter backend, view function, URL configuration, and the API
 * serving a request). The classes implement them (`Request`, `Response`,
 * `JSONRenderer`, `BaseVersioning`, `BasePagination`, `URLResolver`,
 * `RestApi`, ...); a module needing another's shape takes it from here, so
 * no modules of the layer import each other in a circle. Types only; the
 * module owning a concept re-exports its contract under the name users know.
 *
 * @module
 */
import type { HttpLogger } from '../http/log.js';
import type { Queryset } from './data/source.js';
import type { JsonSchema, SchemaError, SchemaParameter, SchemaSettings } from './schema-contracts.js';

export type { JsonSchema, SchemaError, SchemaParameter, SchemaSettings, ViewSchema } from './schema-contracts.js';

/**
 * What a transport hands to the web-API layer for one request.
 * @example
 * ```ts
 * const raw: RawRequest = { method: 'GET', target: '/items/?page=2', headers: [['Host', 'api.example.com']], body: null, secure: false };
 * ```
 */
export interface RawRequest {
  /** The method as sent (`GET`, `POST`, ...). */
  method: string;
  /** The request-target in origin form: raw path and query, percent-encoded as sent. */
  target: string;
  /** The authority of an absolute-form target (`GET http://h:8080/x`: `h:8080`), which names the host instead of `Host` (RFC 9112 3.2.2). */
  authority?: string | null;
  /** The header fields as `[name, value]` pairs in the order received. */
  headers: readonly (readonly [string, string])[];
  /** The body, or `null` when there is none. */
  body: Buffer | null;
  /** Whether the connection itself is TLS. */
  secure: boolean;
  /** The peer address, when known. */
  remoteAddress?: string | null;
  /** The transport's own request object (an `EventHttpRequest` or `IncomingMessage`). */
  native?: unknown;
}

/**
 * Case-insensitive read access to request headers (`RequestHeaders`).
 * @example
 * ```ts
 * const accept = (h: HeaderLookup): string => h.get('accept') ?? '*\/*';
 * ```
 */
export interface HeaderLookup {
  get(name: string): string | null;
  has(name: string): boolean;
  entries(): readonly (readonly [string, string])[];
}

/**
 * The decoded query parameters of a request (`QueryParams`): `get()` gives
 * the last value of a repeated key.
 * @example
 * ```ts
 * const page = (q: QueryLookup): string => q.get('page') ?? '1';
 * ```
 */
export interface QueryLookup {
  readonly raw: string;
  entries(): readonly [string, string][];
  get(key: string): string | null;
  getAll(key: string): string[];
  has(key: string): boolean;
  keys(): string[];
  toObject(): Record<string, string>;
}

/**
 * A request of the web API as every module sees it: exactly the public
 * members of `Request` (see there for their rules), so the two are
 * interchangeable.
 * @example
 * ```ts
 * const where = (request: ApiRequest): string => `${request.method} ${request.buildAbsoluteUri()}`;
 * ```
 */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly rawPath: string;
  readonly queryString: string;
  readonly headers: HeaderLookup;
  /** The settings of the API serving the request. */
  readonly settings: Settings;
  readonly raw: RawRequest;
  readonly query: QueryLookup;
  version: string | null;
  versioningScheme: VersioningScheme | null;
  resolverMatch: ResolverMatch | null;
  /** The API serving the request. */
  api: ApiContext | null;
  /** The request id (`RestApi`'s `requestIdHeader` option), or null. */
  requestId: string | null;
  /** The URL configuration `reverse()` uses with `{ request }`. */
  urlconf: UrlConf | null;
  acceptedRenderer: Renderer | null;
  acceptedMediaType: string | null;
  readonly kwargs: Record<string, unknown>;
  readonly scheme: 'http' | 'https';
  isSecure(): boolean;
  getHost(): string;
  readonly hostname: string;
  getFullPath(): string;
  buildAbsoluteUri(location?: string): string;
  readonly contentType: string;
  readonly data: unknown;
}

/**
 * A response of the web API as other modules see it: the public members of
 * `Response` (which views construct).
 * @example
 * ```ts
 * const created = (r: ApiResponse): boolean => r.status === 201 && r.hasHeader('Location');
 * ```
 */
export interface ApiResponse<T = unknown> {
  data: T;
  status: number;
  exception: boolean;
  templateName: string | null;
  contentType: string | null;
  renderer: Renderer | null;
  mediaType: string | null;
  request: ApiRequest | null;
  view: unknown;
  setHeader(name: string, value: string): this;
  getHeader(name: string): string | null;
  hasHeader(name: string): boolean;
  deleteHeader(name: string): this;
  addVary(...names: string[]): this;
  headerEntries(): [string, string][];
}

/**
 * What a renderer gets besides the data.
 * @example
 * ```ts
 * const ctx: RenderContext = { request, response, view: null };
 * ```
 */
export interface RenderContext {
  /** The request being answered. */
  readonly request: ApiRequest | null;
  /** The response being rendered. */
  readonly response: ApiResponse | null;
  /** The view instance that produced it, when there is one. */
  readonly view: unknown;
}

/**
 * A renderer: a media type, a short format name (for `?format=`) and a
 * `render()` function.
 * @example
 * ```ts
 * class CsvRenderer implements Renderer {
 *   readonly mediaType = 'text/csv'; readonly format = 'csv'; readonly charset = 'utf-8';
 *   render(data: unknown) { return (data as string[][]).map((r) => r.join(',')).join('\n'); }
 * }
 * ```
 */
export interface Renderer {
  /** The media type offered (`application/json`). */
  readonly mediaType: string;
  /** The `?format=` name (`json`). */
  readonly format: string;
  /** The charset written in `Content-Type`, or `null` for none (JSON). */
  readonly charset: string | null;
  /** Renders the data for the accepted media type (with its parameters). */
  render(data: unknown, acceptedMediaType: string | null, context: RenderContext): Buffer | string;
}

/**
 * A renderer class.
 * @example
 * ```ts
 * const classes: RendererClass[] = [JSONRenderer, BrowsableAPIRenderer];
 * ```
 */
export type RendererClass = new () => Renderer;

/**
 * Options of `URLResolver.reverse()`: positional `args` or keyword
 * `kwargs` (not both).
 * @example
 * ```ts
 * const o: ReverseArgs = { kwargs: { pk: 5 } };
 * ```
 */
export interface ReverseArgs {
  args?: readonly unknown[] | null;
  kwargs?: Readonly<Record<string, unknown>> | null;
}

/**
 * Options of `reverse()`: the arguments, and what to reverse against.
 * @example
 * ```ts
 * const o: ReverseOptions = { kwargs: { pk: 5 }, request, format: 'json' };
 * ```
 */
export interface ReverseOptions extends ReverseArgs {
  /** The current request: makes the URL absolute, applies its versioning scheme, and gives its API's URL configuration. */
  request?: ApiRequest | null;
  /** Adds a `format` keyword argument (for routes with a format suffix). */
  format?: string | null;
  /** The URL configuration; default: the request's. */
  urlconf?: UrlConf | null;
}

/**
 * A versioning scheme as the request cycle sees it: the public members of
 * `BaseVersioning`, which every scheme extends.
 * @example
 * ```ts
 * const vary = (s: VersioningScheme): readonly string[] => s.varyHeaders;
 * ```
 */
export interface VersioningScheme {
  defaultVersion: string | null | undefined;
  allowedVersions: readonly (string | null)[] | null | undefined;
  versionParam: string | undefined;
  readonly varyHeaders: readonly string[];
  determineVersion(request: ApiRequest): string | null;
  reverse(viewName: string, options?: ReverseOptions): string;
  getDefaultVersion(request: ApiRequest): string | null;
  getAllowedVersions(request: ApiRequest): readonly (string | null)[] | null;
  getVersionParam(request: ApiRequest): string;
  isAllowedVersion(version: string | null, request: ApiRequest): boolean;
  /** The answer to a version that is not allowed, for the OpenAPI document. */
  getSchemaErrors?(): SchemaError[];
}

/**
 * A versioning scheme class.
 * @example
 * ```ts
 * const cls: VersioningClass = QueryParameterVersioning;
 * ```
 */
export type VersioningClass = new () => VersioningScheme;

/**
 * A view as routes hold it: an async function of the request. `asView()`
 * of a view class returns one carrying the class and its init options.
 * @example
 * ```ts
 * const hello: ViewFunction = async () => new Response({ hello: 'world' });
 * ```
 */
export type ViewFunction = ((request: ApiRequest) => Promise<ApiResponse>) & {
  viewClass?: unknown;
  initkwargs?: Record<string, unknown>;
};

/**
 * What resolving a path found.
 * @example
 * ```ts
 * const m = resolver.resolve('/v1/items/5/');
 * // m.func, m.kwargs => { pk: 5 }, m.urlName => 'item-detail', m.namespace => 'v1', m.viewName => 'v1:item-detail'
 * ```
 */
export interface ResolverMatch {
  /** The view to call. */
  func: ViewFunction;
  /** Positional arguments (unnamed groups of regex routes without named groups; `''` for a group that did not take part). */
  args: string[];
  /** Keyword arguments: converted captures and the patterns' default `kwargs`. */
  kwargs: Record<string, unknown>;
  /** The endpoint's `name`, or `null`. */
  urlName: string | null;
  /** The route strings of every level joined (`v1/items/<int:pk>/`). */
  route: string;
  /** The instance namespaces from the outermost in. */
  namespaces: string[];
  /** {@link namespaces} joined with `:` (`''` when none). */
  namespace: string;
  /** The application names from the outermost in. */
  appNames: string[];
  /** {@link appNames} joined with `:`. */
  appName: string;
  /** Namespaces and the name joined with `:` (`v1:item-detail`); the function's name when unnamed. */
  viewName: string;
}

/**
 * One endpoint as `URLResolver.routes()` lists it (for OpenAPI generation
 * and route listings).
 * @example
 * ```ts
 * for (const r of resolver.routes()) console.log(r.route, r.viewName, r.pathParams);
 * // 'v1/items/{pk}/' 'v1:item-detail' [{ name: 'pk', converter: 'int', regex: '[0-9]+' }]
 * ```
 */
export interface RouteInfo {
  /** The full path template without the leading `/`, parameters as `{name}` (`v1/items/{pk}/`). */
  route: string;
  /** The route strings of every level joined, as written (`v1/items/<int:pk>/`). */
  pattern: string;
  /** The whole chain as one JavaScript regex source (`^v1/items/(?<p0>[0-9]+)/$`). */
  regex: string;
  /** The view. */
  view: ViewFunction;
  /** The endpoint's name, or `null`. */
  name: string | null;
  /** Instance namespaces joined with `:` (`''` when none). */
  namespace: string;
  /** Namespaces and name joined with `:`, or `null` for an unnamed endpoint. */
  viewName: string | null;
  /** Path parameters in order: their converter (`null` for a regex group) and its regex. */
  pathParams: { name: string; converter: string | null; regex: string | null }[];
  /** The default keyword arguments the view receives. */
  kwargs: Record<string, unknown>;
}

/**
 * A URL configuration (`URLResolver`): resolves paths, reverses names,
 * lists its routes.
 * @example
 * ```ts
 * const detail = (conf: UrlConf, pk: number): string => conf.reverse('item-detail', { kwargs: { pk } });
 * ```
 */
export interface UrlConf {
  /** The route matching a decoded request path, or `null`. */
  resolve(path: string): ResolverMatch | null;
  /** The percent-encoded path of a named route; throws `NoReverseMatch`. */
  reverse(viewName: string, options?: ReverseArgs): string;
  /** Every endpoint in definition order. */
  routes(): RouteInfo[];
}

/**
 * What a paginator or filter backend may read from the view that uses it
 * (its filter backends for the cursor style's ordering, the view's
 * `ordering` attribute).
 * @example
 * ```ts
 * const view: PaginatedView = { filterBackends: [OrderingFilter], ordering: ['-created'], orderingFields: ['created'] };
 * ```
 */
export interface PaginatedView {
  /** The request being handled (any view class has it; makes `this` of an `APIView` fit). */
  readonly request?: unknown;
  readonly filterBackends?: readonly (new () => object)[] | undefined;
  /** The default ordering (used by `OrderingFilter`). */
  readonly ordering?: string | readonly string[] | null | undefined;
  /** The fields a client may order by (`'__all__'` for every field of the queryset; absent: the serializer's readable fields). */
  readonly orderingFields?: readonly string[] | '__all__' | null | undefined;
  /** The view's serializer class (a generic view has one): its readable fields are the default ordering fields. */
  getSerializerClass?(): unknown;
}

/**
 * A pagination style as views, settings and the browsable page see it
 * (`BasePagination`, which every style extends, adds the HTML template).
 * @example
 * ```ts
 * const next = (p: Paginator): string | null => p.getNextLink();
 * ```
 */
export interface Paginator {
  displayPageControls: boolean;
  paginateQueryset<Row extends object>(
    queryset: Queryset<Row> | readonly Row[],
    request: ApiRequest,
    view?: PaginatedView | null,
  ): Promise<Row[] | null>;
  getPaginatedResponse(data: unknown[]): ApiResponse;
  getNextLink(): string | null;
  getPreviousLink(): string | null;
  toHtml(templates?: Readonly<Record<string, PaginationTemplate>>): string;
  /** The query parameters the style reads; `settings` gives the API-wide caps (`maximum` of a page size). */
  getSchemaOperationParameters(view?: PaginatedView | null, settings?: SchemaSettings | null): SchemaParameter[];
  getPaginatedResponseSchema(schema: JsonSchema): JsonSchema;
  /** The error answers of a list this style paginates (404 `Invalid page.`, ...), for the OpenAPI document. */
  getSchemaErrors?(): SchemaError[];
}

/**
 * A pagination class.
 * @example
 * ```ts
 * const cls: PaginationClass = PageNumberPagination;
 * ```
 */
export type PaginationClass = new () => Paginator;

/**
 * A filter backend (`BaseFilterBackend`): narrows or reorders a queryset.
 * @example
 * ```ts
 * const inStock: FilterBackend = { filterQueryset: (request, qs) => qs.filter('stock', 'gt', 0) };
 * ```
 */
export interface FilterBackend {
  filterQueryset<Row extends object>(request: ApiRequest, queryset: Queryset<Row>, view: PaginatedView): Queryset<Row>;
}

/**
 * A filter backend class.
 * @example
 * ```ts
 * const backends: FilterBackendClass[] = [OrderingFilter];
 * ```
 */
export type FilterBackendClass = new () => FilterBackend;

/**
 * The lifecycle of a version (`VERSION_LIFECYCLE`) or of one view (its
 * `deprecation` attribute): `Deprecation` (RFC 9745) and `Sunset` (RFC 8594)
 * headers, a `Link rel="deprecation"` to a page explaining it, a
 * `Link rel="successor-version"` (RFC 5829) to what replaces it, and, opt-in,
 * 410 Gone once the sunset has passed.
 * @example
 * ```ts
 * const v1: VersionLifecycle = {
 *   deprecation: new Date('2026-01-01'),
 *   sunset: new Date('2027-01-01'),
 *   link: 'https://example.com/v1-end',
 *   successor: 'v2',
 *   goneAfterSunset: true,
 * };
 * ```
 */
export interface VersionLifecycle {
  /** When the version was (or will be) deprecated; `true` means deprecated without a date. */
  deprecation?: Date | true;
  /** When the version stops working. */
  sunset?: Date;
  /** A page describing the deprecation (sent as `Link: <...>; rel="deprecation"`). */
  link?: string;
  /**
   * What replaces it, sent as `Link: <url>; rel="successor-version"`: for a
   * version, the successor version (the URL is the same route reversed in
   * that version; schemes whose URLs do not carry the version, Accept
   * header, custom header and host name, send no such link); for a view,
   * the URL name of the view that replaces it (reversed with the request).
   */
  successor?: string;
  /** After `sunset`, answer 410 Gone (with the `Sunset` and successor links) instead of serving. Default false. */
  goneAfterSunset?: boolean;
}

/**
 * One entry of the page-number controls: a page, or a break (`…`).
 * @example
 * ```ts
 * const link: PageLink = { url: 'http://h/items/?page=2', number: 2, isActive: false, isBreak: false };
 * ```
 */
export interface PageLink {
  url: string | null;
  number: number | null;
  isActive: boolean;
  isBreak: boolean;
}

/**
 * The context the HTML controls are rendered from.
 * @example
 * ```ts
 * const ctx: HtmlContext = { previous_url: null, next_url: 'http://h/items/?page=2', page_links: [] };
 * ```
 */
export interface HtmlContext {
  previous_url: string | null;
  next_url: string | null;
  page_links?: PageLink[];
}

/**
 * A template of the HTML controls: context in, markup out.
 * @example
 * ```ts
 * const escape = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
 * const plain: PaginationTemplate = (ctx) => (ctx.next_url ? `<a href="${escape(ctx.next_url)}">more</a>` : '');
 * ```
 */
export type PaginationTemplate = (context: HtmlContext) => string;

/**
 * Everything a web API can configure. All keys are optional in
 * `createSettings()`; the defaults are Django REST framework's.
 * @example
 * ```ts
 * const s: Settings = createSettings({ PAGE_SIZE: 10, DEFAULT_PAGINATION_CLASS: PageNumberPagination });
 * ```
 */
export interface Settings {
  /** Style applied to all list views; `null` (the default) means no pagination. */
  readonly DEFAULT_PAGINATION_CLASS: PaginationClass | null;
  /** Items per page; `null` (the default) leaves it to the pagination class; 0 turns pagination off. */
  readonly PAGE_SIZE: number | null;
  /**
   * The largest page size a client may ask for (`?page_size=`) on every
   * page-number and cursor class that sets no `maxPageSize` of its own;
   * `null` (the default, as in DRF) means no cap.
   */
  readonly MAX_PAGE_SIZE: number | null;
  /** The largest `?limit=` on every limit/offset class that sets no `maxLimit` of its own; `null` means no cap. */
  readonly MAX_LIMIT: number | null;
  /**
   * A secret that signs cursor tokens (`CursorPagination`,
   * `KeysetPagination`): each token then carries an HMAC bound to the path
   * and the query parameters other than the cursor and page size, and a
   * tampered or foreign token answers 404 `Invalid cursor`. `null` (the
   * default): DRF's unsigned tokens. At least 32 characters.
   */
  readonly CURSOR_SIGNING_KEY: string | null;
  /** Identifiers of configuration checks not to report (`'W001'`: `PAGE_SIZE` without `DEFAULT_PAGINATION_CLASS`). */
  readonly SILENCED_CHECKS: readonly string[];
  /** Versioning scheme used globally; `null` (the default) turns versioning off. */
  readonly DEFAULT_VERSIONING_CLASS: VersioningClass | null;
  /** The version of a request that carries none. */
  readonly DEFAULT_VERSION: string | null;
  /** The versions a scheme may return; `null` means any (`null` may be listed as a member). */
  readonly ALLOWED_VERSIONS: readonly (string | null)[] | null;
  /** The name of the version parameter (media-type parameter or query parameter). */
  readonly VERSION_PARAM: string;
  /** Renderers offered by content negotiation, in order of preference (default: JSON, then the browsable page). */
  readonly DEFAULT_RENDERER_CLASSES: readonly RendererClass[];
  /** Filter backends applied by generic list views (default: none). */
  readonly DEFAULT_FILTER_BACKENDS: readonly FilterBackendClass[];
  /** The query parameter that overrides content negotiation (`?format=json`); `null` disables it. */
  readonly URL_FORMAT_OVERRIDE: string | null;
  /** The query parameter of `OrderingFilter`. */
  readonly ORDERING_PARAM: string;
  /** `[header, value]`: a request whose header has that value is https (set only behind a trusted proxy). */
  readonly SECURE_PROXY_SSL_HEADER: readonly [string, string] | null;
  /** Use `X-Forwarded-Host` for the host of absolute URLs (only behind a trusted proxy). */
  readonly USE_X_FORWARDED_HOST: boolean;
  /** Host names accepted in `Host` (`'*'` any, `.example.com` a domain and its subdomains); `null` accepts any. */
  readonly ALLOWED_HOSTS: readonly string[] | null;
  /** Largest request body a view parses, in bytes. */
  readonly MAX_BODY_SIZE: number;
  /** Deprecation and sunset information per version. */
  readonly VERSION_LIFECYCLE: Readonly<Record<string, VersionLifecycle>>;
  /**
   * Templates of the HTML pagination controls by name, looked up before the
   * built-in ones (so an entry under a built-in name replaces it for this API).
   */
  readonly PAGINATION_TEMPLATES: Readonly<Record<string, PaginationTemplate>>;
  /**
   * Response compression (gzip, brotli) as `Accept-Encoding` asks, or
   * `null` (the default, as DRF: no compression). `{}` turns it on with the
   * defaults (see {@link CompressionSettings}).
   */
  readonly COMPRESSION: CompressionSettings | null;
  /** Cross-origin resource sharing, or `null` (the default): no CORS headers, preflights reach the views. */
  readonly CORS: CorsSettings | null;
}

/**
 * A content coding the API can compress with.
 * @example
 * ```ts
 * const codings: ContentCoding[] = ['br', 'gzip'];
 * ```
 */
export type ContentCoding = 'br' | 'gzip';

/**
 * The `COMPRESSION` setting: every field is optional and has a default.
 * @example
 * ```ts
 * const settings = createSettings({ COMPRESSION: { threshold: 2048, encodings: ['gzip'], gzipLevel: 5 } });
 * ```
 */
export interface CompressionSettings {
  /** Smallest body compressed, in bytes (default 1024): smaller bodies go out as they are. */
  readonly threshold?: number;
  /** The codings offered, in order of preference when the client accepts several equally (default `['br', 'gzip']`). */
  readonly encodings?: readonly ContentCoding[];
  /** zlib level of gzip, 1 (fastest) to 9 (smallest); default 6. */
  readonly gzipLevel?: number;
  /** Brotli quality, 0 to 11; default 4 (fast enough for dynamic responses). */
  readonly brotliQuality?: number;
}

/**
 * The `CORS` setting: which other origins may call the API from a browser,
 * with which methods and headers, and what they may read.
 * @example
 * ```ts
 * const settings = createSettings({
 *   CORS: { allowedOrigins: ['https://app.example.com', /^https:\/\/[a-z0-9-]+\.example\.com$/], exposedHeaders: ['Link', 'X-Total-Count'], allowCredentials: true },
 * });
 * ```
 */
export interface CorsSettings {
  /**
   * `'*'` (any origin, without credentials), or a list of exact origins
   * (`https://app.example.com`, no path, no trailing slash) and regular
   * expressions tested against the whole `Origin` value (anchor them).
   */
  readonly allowedOrigins: '*' | readonly (string | RegExp)[];
  /** Methods a preflight allows (default `DELETE, GET, OPTIONS, PATCH, POST, PUT`). */
  readonly allowedMethods?: readonly string[];
  /**
   * Request headers a preflight allows (default `accept, authorization,
   * content-type, user-agent, x-csrftoken, x-requested-with`).
   */
  readonly allowedHeaders?: readonly string[];
  /** Response headers the page may read besides the safelisted ones (`Link`, `X-Total-Count`...); default none. */
  readonly exposedHeaders?: readonly string[];
  /** Send `Access-Control-Allow-Credentials: true` (cookies, HTTP auth); default false. Not with `'*'`. */
  readonly allowCredentials?: boolean;
  /** Seconds a browser may cache a preflight (`Access-Control-Max-Age`); default 86400, `null` sends none. */
  readonly maxAge?: number | null;
}

/**
 * The API serving a request (`request.api`, a `RestApi`) as views see it:
 * its settings, URL configuration and logger, and reversing against its
 * URL configuration.
 * @example
 * ```ts
 * const home = (request: ApiRequest): string => request.api?.reverse('api-root', { request }) ?? '/';
 * ```
 */
export interface ApiContext {
  /** The validated settings. */
  readonly settings: Settings;
  /** The root URL configuration. */
  readonly urlconf: UrlConf;
  /** Where internal errors are logged (pino-compatible). */
  readonly logger: HttpLogger;
  /** `reverse()` against this API's URL configuration. */
  reverse(viewName: string, options?: ReverseOptions): string;
}

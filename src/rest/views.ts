/**
 * Class-based views: {@link APIView} runs DRF's request cycle (content
 * negotiation, then versioning, then the handler for the method), turns
 * exceptions into `{"detail": ...}` responses and sets the response headers
 * (`Allow`, `Vary`, version lifecycle headers). {@link apiView} makes a view
 * from a function. An internal error (anything but an API exception) is
 * logged once through the logger of the API serving the request.
 *
 * @module
 */
import type {
  ApiRequest,
  ApiResponse,
  Renderer,
  RendererClass,
  Settings,
  VersioningClass,
  VersionLifecycle,
  ViewFunction,
  ViewSchema,
} from './contracts.js';
import { APIException, MethodNotAllowed } from './errors.js';
import { addLifecycleHeaders, checkGone } from './lifecycle.js';
import { logInternalError } from './log.js';
import { selectRenderer } from './renderers.js';
import { Response } from './response.js';
import type { Request } from './request.js';

/**
 * The HTTP methods a view may handle, in DRF's order (the order of `Allow`).
 * @example
 * ```ts
 * HTTP_METHOD_NAMES.includes('patch'); // true
 * ```
 */
export const HTTP_METHOD_NAMES = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'] as const;

/**
 * One of {@link HTTP_METHOD_NAMES}.
 * @example
 * ```ts
 * const m: HttpMethodName = 'get';
 * ```
 */
export type HttpMethodName = (typeof HTTP_METHOD_NAMES)[number];

/**
 * A handler of one HTTP method.
 * @example
 * ```ts
 * const h: Handler = async (request) => new Response({ ok: true });
 * ```
 */
export type Handler = (request: Request) => Promise<ApiResponse> | ApiResponse;

const SERVER_ERROR = 'A server error occurred.';

/**
 * DRF's default exception handler: an {@link APIException} becomes its
 * status, headers and body; anything else is logged (through the logger of
 * the API serving `request`, with its method and path) and becomes a 500
 * `{"detail": "A server error occurred."}`.
 * @example
 * ```ts
 * const response = exceptionHandler(new NotFound('Invalid page.'), null); // 404
 * ```
 */
export function exceptionHandler(error: unknown, request: ApiRequest | null): Response {
  if (error instanceof APIException) {
    const r = new Response(error.body(), { status: error.status, headers: error.headers });
    r.exception = true;
    return r;
  }
  logInternalError(
    request?.api?.logger,
    error,
    request?.method ?? null,
    request?.path ?? null,
    undefined,
    request?.requestId ?? null,
  );
  return serverErrorResponse();
}

/**
 * The 500 `{"detail": "A server error occurred."}` response, without logging.
 * @internal
 */
export function serverErrorResponse(): Response {
  const r = new Response({ detail: SERVER_ERROR }, { status: 500 });
  r.exception = true;
  return r;
}

/** `ItemListView` -> `Item List`. */
function viewName(cls: { name: string }, suffix: string | null): string {
  let name = cls.name.replace(/ViewSet$|View$/, '');
  name = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .trim();
  return suffix ? `${name} ${suffix}` : name;
}

/** `Y` when `A` and `B` are the same type (readonly modifiers included), else `N`. */
type IfEqual<A, B, Y, N> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? Y : N;

/** The keys of `T` that are not `readonly` (getters without a setter are). */
type WritableKeys<T> = {
  [K in keyof T]-?: IfEqual<{ [Q in K]: T[K] }, { -readonly [Q in K]: T[K] }, K, never>;
}[keyof T];

/**
 * What `asView()` (and a viewset's `asViewSet()`) may set on the views it
 * builds: the view class's writable attributes that are not methods, each
 * with its type, all optional. An unknown name or a value of the wrong type
 * does not compile.
 * @example
 * ```ts
 * const attrs: ViewAttributes<ListAPIView> = { description: 'All items', paginationClass: null };
 * ```
 */
export type ViewAttributes<V> = {
  [K in WritableKeys<V> as NonNullable<V[K]> extends (...args: never[]) => unknown ? never : K]?: V[K];
};

/**
 * The base of class-based views. Define a method per HTTP verb (`get`,
 * `post`, ...); the others get 405 with `Allow`. HEAD runs `get`; OPTIONS
 * describes the view. Class attributes left `undefined` come from the
 * settings of the API (`rendererClasses` from `DEFAULT_RENDERER_CLASSES`,
 * `versioningClass` from `DEFAULT_VERSIONING_CLASS`).
 * @example
 * ```ts
 * class Hello extends APIView {
 *   override async get(request: Request) {
 *     return new Response({ hello: 'world', version: request.version });
 *   }
 * }
 * const urlpatterns = [path('hello/', Hello.asView(), { name: 'hello' })];
 * ```
 */
export class APIView {
  /** Renderers offered by content negotiation; `undefined` means `DEFAULT_RENDERER_CLASSES`. */
  rendererClasses: readonly RendererClass[] | undefined = undefined;
  /** The versioning scheme; `undefined` means `DEFAULT_VERSIONING_CLASS`, `null` turns versioning off. */
  versioningClass: VersioningClass | null | undefined = undefined;
  /** A human description shown by OPTIONS and the browsable page. */
  description = '';
  /** Leave this view out of generated OpenAPI documents. */
  excludeFromSchema = false;
  /** What the OpenAPI document says of this view (tags, summary, description, 200 body schema); `null`: derived. */
  openapi: ViewSchema | null = null;
  /**
   * This view's own lifecycle (deprecated, retired, replaced), whatever the
   * version: `{ deprecation: new Date('2026-06-01'), sunset: ..., successor:
   * 'items-v2' }` (the successor is a URL name). `null` (the default): none.
   * Its headers join those of the version's `VERSION_LIFECYCLE`.
   */
  deprecation: VersionLifecycle | null = null;
  /** Suffix of the view name (viewsets: `List`, `Instance`). */
  suffix: string | null = null;
  /** The request being handled (set by `dispatch`). */
  request!: Request;
  /** The URL keyword arguments of the matched route. */
  kwargs: Record<string, unknown> = {};
  /** The response headers every response of this view gets. */
  headers: Record<string, string> = {};
  /** The format given by a format suffix route (`items.json`), if any. */
  formatKwarg: string | null = null;

  /** The handler of GET (define it in a subclass). */
  get?(request: Request): Promise<ApiResponse> | ApiResponse;
  /** The handler of POST. */
  post?(request: Request): Promise<ApiResponse> | ApiResponse;
  /** The handler of PUT. */
  put?(request: Request): Promise<ApiResponse> | ApiResponse;
  /** The handler of PATCH. */
  patch?(request: Request): Promise<ApiResponse> | ApiResponse;
  /** The handler of DELETE. */
  delete?(request: Request): Promise<ApiResponse> | ApiResponse;
  /** The handler of HEAD (defaults to GET's). */
  head?(request: Request): Promise<ApiResponse> | ApiResponse;
  /** The handler of TRACE. */
  trace?(request: Request): Promise<ApiResponse> | ApiResponse;

  /**
   * The function routes call: builds a view instance per request, copies
   * `initkwargs` onto it, and dispatches.
   * @example
   * ```ts
   * path('items/', ItemList.asView({ description: 'All items' }), { name: 'item-list' });
   * // ItemList.asView({ paginationClass: 42 }) does not compile: initkwargs are the view's attributes, with their types
   * ```
   */
  static asView<V extends APIView>(this: new () => V, initkwargs: ViewAttributes<V> = {}): ViewFunction {
    const keys = Object.keys(initkwargs);
    const fn = (request: Request): Promise<Response> => {
      const view = new this();
      for (const k of keys)
        (view as unknown as Record<string, unknown>)[k] = (initkwargs as Record<string, unknown>)[k];
      return view.dispatch(request);
    };
    return Object.assign(fn, { viewClass: this, initkwargs });
  }

  /** The settings of the API serving the current request. */
  get settings(): Settings {
    return this.request.settings;
  }

  /** The methods this view answers, upper case, in `Allow` order. */
  get allowedMethods(): string[] {
    const out: string[] = [];
    const self = this as unknown as Record<string, unknown>;
    for (const m of HTTP_METHOD_NAMES) {
      if (typeof self[m] === 'function' || (m === 'head' && typeof self.get === 'function') || m === 'options')
        out.push(m.toUpperCase());
    }
    return out;
  }

  /** The view's display name (`ItemListView` -> `Item List`). */
  getViewName(): string {
    return viewName(this.constructor, this.suffix);
  }

  /** The view's description. */
  getViewDescription(): string {
    return this.description;
  }

  /** Instantiated renderers. */
  getRenderers(): Renderer[] {
    return (this.rendererClasses ?? this.settings.DEFAULT_RENDERER_CLASSES).map((C) => new C());
  }

  /** Runs the request cycle and returns the finalized response (never throws). */
  async dispatch(request: Request): Promise<Response> {
    this.request = request;
    this.kwargs = request.kwargs;
    const suffix = this.kwargs.format;
    if (typeof suffix === 'string' && suffix !== '') this.formatKwarg = suffix;
    let response: Response;
    try {
      this.initial(request);
      const handler = this.handlerFor(request.method);
      const returned = await handler.call(this, request);
      if (!(returned instanceof Response))
        throw new TypeError(
          `${this.constructor.name}.${request.method.toLowerCase()}() must return a Response, not ${typeof returned}`,
        );
      response = returned;
    } catch (error) {
      response = this.handleException(error);
    }
    return this.finalizeResponse(request, response);
  }

  /** The handler of a method, or one that raises 405. */
  protected handlerFor(method: string): Handler {
    const name = method.toLowerCase();
    const self = this as unknown as Record<string, Handler | undefined>;
    if ((HTTP_METHOD_NAMES as readonly string[]).includes(name)) {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- dispatch() calls handlers with handler.call(this, request)
      const h = self[name] ?? (name === 'head' ? self.get : name === 'options' ? this.options : undefined);
      if (typeof h === 'function') return h;
    }
    return () => {
      throw new MethodNotAllowed(method, this.allowedMethods);
    };
  }

  /** Content negotiation, then versioning (DRF's order: a bad Accept wins over a bad version). */
  initial(request: Request): void {
    this.performContentNegotiation(request);
    this.determineVersion(request);
    checkGone(request, this.deprecation);
  }

  /** Sets `request.acceptedRenderer` and `request.acceptedMediaType`. */
  performContentNegotiation(request: Request, force = false): void {
    const renderers = this.getRenderers();
    try {
      const [renderer, mediaType] = selectRenderer(request, renderers, this.formatKwarg);
      request.acceptedRenderer = renderer;
      request.acceptedMediaType = mediaType;
    } catch (error) {
      if (!force) throw error;
      const first = renderers[0] ?? null;
      request.acceptedRenderer = first;
      request.acceptedMediaType = first?.mediaType ?? null;
    }
  }

  /** Sets `request.version` and `request.versioningScheme`. */
  determineVersion(request: Request): void {
    const cls = this.versioningClass === undefined ? this.settings.DEFAULT_VERSIONING_CLASS : this.versioningClass;
    if (cls === null) {
      request.version = null;
      request.versioningScheme = null;
      return;
    }
    const scheme = new cls();
    request.versioningScheme = scheme;
    request.version = scheme.determineVersion(request);
  }

  /** OPTIONS: the view's name, description, and the media types it renders and parses. */

  options(_request: Request): Response {
    return new Response({
      name: this.getViewName(),
      description: this.getViewDescription(),
      renders: this.getRenderers().map((r) => r.mediaType),
      parses: ['application/json', 'application/x-www-form-urlencoded'],
    });
  }

  /** Turns an exception into a response (override to customise). */
  handleException(error: unknown): Response {
    return exceptionHandler(error, this.request ?? null);
  }

  /** Adds the negotiated renderer and the view's headers to the response. */
  finalizeResponse(request: Request, response: Response): Response {
    if (request.acceptedRenderer === null) this.performContentNegotiation(request, true);
    response.renderer = request.acceptedRenderer;
    response.mediaType = request.acceptedMediaType;
    response.request = request;
    response.view = this;
    response.setHeader('Allow', this.allowedMethods.join(', '));
    const renderers = this.rendererClasses ?? request.settings.DEFAULT_RENDERER_CLASSES;
    if (renderers.length > 1) response.addVary('Accept');
    for (const [k, v] of Object.entries(this.headers)) {
      if (k.toLowerCase() === 'vary') response.addVary(...v.split(',').map((s) => s.trim()));
      else response.setHeader(k, v);
    }
    const scheme = request.versioningScheme;
    if (scheme !== null && scheme.varyHeaders.length) response.addVary(...scheme.varyHeaders);
    addLifecycleHeaders(response, request, this.deprecation);
    return response;
  }
}

/**
 * Makes a view from a function (DRF's `@api_view`): the function handles the
 * listed methods (default GET); the view has the usual negotiation,
 * versioning, 405 and exception handling.
 * @example
 * ```ts
 * const ping = apiView(['GET'], async (request) => new Response({ pong: true, version: request.version }));
 * const urlpatterns = [path('ping/', ping, { name: 'ping' })];
 * ```
 */
export function apiView(
  methods: readonly string[],
  handler: Handler,
  attributes: Partial<
    Pick<APIView, 'rendererClasses' | 'versioningClass' | 'description' | 'excludeFromSchema' | 'openapi'>
  > & {
    name?: string;
  } = {},
): ViewFunction {
  const lower = methods.map((m) => m.toLowerCase());
  for (const m of lower) {
    if (!(HTTP_METHOD_NAMES as readonly string[]).includes(m))
      throw new TypeError(`apiView: unknown method ${m.toUpperCase()}`);
  }
  const cls = class extends APIView {};
  Object.defineProperty(cls, 'name', { value: attributes.name ?? (handler.name || 'FunctionView') });
  for (const m of lower) {
    if (m === 'options') continue;
    (cls.prototype as unknown as Record<string, Handler>)[m] = function (this: APIView, request: Request) {
      return handler.call(this, request);
    };
  }
  const init: Record<string, unknown> = {};
  if (attributes.excludeFromSchema !== undefined) init.excludeFromSchema = attributes.excludeFromSchema;
  if (attributes.rendererClasses !== undefined) init.rendererClasses = attributes.rendererClasses;
  if (attributes.versioningClass !== undefined) init.versioningClass = attributes.versioningClass;
  if (attributes.description !== undefined) init.description = attributes.description;
  if (attributes.openapi !== undefined) init.openapi = attributes.openapi;
  return cls.asView(init);
}

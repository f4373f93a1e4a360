/**
 * {@link RestApi}: one web API. It owns its URL configuration, its settings
 * (with the renderers content negotiation offers, `DEFAULT_RENDERER_CLASSES`,
 * and every other default), and its logger; nothing about it is
 * process-wide, so two APIs in one process each reverse against their own
 * routes and log to their own logger. Each request knows the API serving it
 * (`request.api`, `request.urlconf`), and whatever needs "the current API"
 * reads it from there.
 *
 * The request cycle ({@link RestApi.handle}: route, run the view, render) is
 * transport-neutral; the adapters serve it on `EventHttp`
 * ({@link RestApi.serve}, `adapters/eventhttp.ts`) and `node:http`
 * ({@link RestApi.nodeHandler}, `adapters/node.ts`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stderrLogger, type HttpLogger } from '../http/log.js';
import type { EventHttp } from '../http/server.js';
import { serveEventHttp } from './adapters/eventhttp.js';
import { nodeHandler } from './adapters/node.js';
import { SERVER_ERROR_JSON } from './adapters/common.js';
import { compressResponse } from './compression.js';
import type { ApiContext, ApiRequest, ApiResponse, RawRequest, ReverseOptions } from './contracts.js';
import { CorsPolicy } from './cors.js';
import { injectRequest, type InjectOptions, type InjectResponse } from './inject.js';
import { APIException, NotFound } from './errors.js';
import { logInternalError } from './log.js';
import { requestIdOf } from './request-id.js';
import { JSONRenderer } from './renderers.js';
import { Request } from './request.js';
import { Response, type RenderedResponse } from './response.js';
import { reverse } from './reverse.js';
import { checkSettings, createSettings, type Settings, type SettingsInput } from './settings.js';
import type { UrlPattern } from './urls/patterns.js';
import { URLResolver } from './urls/resolver.js';
import { exceptionHandler, serverErrorResponse } from './views.js';

/**
 * What {@link RestApi.handle} reports per request to `onResponse`.
 * @example
 * ```ts
 * const api = new RestApi({ urlpatterns: apiRoutes, onResponse: (e: AccessLogEntry) => console.log(`${e.method} ${e.target} ${e.status} ${e.ms.toFixed(1)}ms`) });
 * ```
 */
export interface AccessLogEntry {
  method: string;
  target: string;
  status: number;
  bytes: number;
  ms: number;
  remoteAddress: string | null;
  /** The request id (with the `requestIdHeader` option; null without it). */
  requestId?: string | null;
  /** The matched route's view name (`v1:item-list`; the function's name when unnamed), null when none matched. */
  route?: string | null;
}

/**
 * Options of {@link RestApi}.
 * @example
 * ```ts
 * const options: RestApiOptions = { urlpatterns: [path('items/', ItemList.asView(), { name: 'item-list' })], settings: { PAGE_SIZE: 10, DEFAULT_PAGINATION_CLASS: PageNumberPagination } };
 * ```
 */
export interface RestApiOptions {
  /** The routes. */
  urlpatterns: readonly UrlPattern[];
  /** Settings (validated by {@link createSettings}), or already-built settings. */
  settings?: SettingsInput | Settings;
  /** Redirect `/items` to `/items/` (301) when only the slashed path exists (Django's APPEND_SLASH). Default true. */
  appendSlash?: boolean;
  /** Called after each response is rendered. */
  onResponse?: (entry: AccessLogEntry) => void;
  /**
   * Where internal errors are logged (pino-compatible: `logger.error({ err,
   * method, path }, msg)`; a pino instance can be passed as it is). Default:
   * one line per error, plus its stack, on stderr.
   */
  logger?: HttpLogger;
  /**
   * Gives each request an id, sent back in this response header (say
   * `X-Request-Id`): the client's value of that header when it is 1 to 200
   * printable ASCII characters, a new UUID otherwise. The id is in the
   * `onResponse` entry, in the entry the API logs for an internal error of
   * the request (`requestId`), and in `request.requestId` for a view's own
   * log entries. Default: none.
   */
  requestIdHeader?: string | null;
}

const EMPTY = Buffer.alloc(0);

/** The plain 500 of an error after the view, when rendering it again could fail the same way. */
function plainServerError(): RenderedResponse {
  return { status: 500, headers: [['Content-Type', 'application/json']], body: Buffer.from(SERVER_ERROR_JSON) };
}

function isSettings(s: SettingsInput | Settings): s is Settings {
  return Object.isFrozen(s) && 'VERSION_LIFECYCLE' in s && 'MAX_BODY_SIZE' in s;
}

/**
 * The package-private method of {@link RestApi} that builds a new API from
 * an existing one's options (not exported from `eventide/rest`): `eventide
 * serve --app` lays its access log, request ids, metrics and flags over a
 * user's API with it.
 * @internal
 */
export const REBUILD: unique symbol = Symbol('eventide.rest.rebuild');

/**
 * A web API: routes, settings, a logger and the request cycle, independent
 * of the transport. Building one validates the settings (start-up errors
 * are {@link ImproperlyConfigured}). `reverse()` with a request it serves
 * uses its URL configuration; {@link RestApi.reverse} reverses against it
 * without a request.
 * @example
 * ```ts
 * import { EventBase } from 'eventide/event';
 * import { EventHttp } from 'eventide/http';
 * import { RestApi, path, APIView, Response } from 'eventide/rest';
 *
 * class Hello extends APIView { override get() { return new Response({ hello: 'world' }); } }
 * const api = new RestApi({ urlpatterns: [path('hello/', Hello.asView(), { name: 'hello' })] });
 * const base = new EventBase();
 * const http = new EventHttp(base);
 * http.bind('127.0.0.1', 8000);
 * api.serve(http);
 * await base.dispatch();
 * ```
 */
export class RestApi implements ApiContext {
  /** The validated settings. */
  readonly settings: Settings;
  /** The root URL resolver. */
  readonly urlconf: URLResolver;
  /** Where internal errors are logged. */
  readonly logger: HttpLogger;
  readonly #appendSlash: boolean;
  readonly #onResponse: ((entry: AccessLogEntry) => void) | null;
  /** The request-id header (`requestIdHeader`), or null: no request ids. */
  readonly #requestIdHeader: string | null;
  /** Renders responses no renderer was negotiated for (a 404 from routing, an error before negotiation). */
  readonly #jsonRenderer = new JSONRenderer();
  /** The `CORS` setting at work (null when it is off). */
  readonly #cors: CorsPolicy | null;
  /** The options it was built with ({@link REBUILD}). */
  readonly #options: RestApiOptions;

  constructor(options: RestApiOptions) {
    this.settings =
      options.settings !== undefined && isSettings(options.settings)
        ? options.settings
        : createSettings(options.settings);
    this.urlconf = new URLResolver(options.urlpatterns);
    const header = options.requestIdHeader ?? null;
    this.#requestIdHeader = header;
    this.logger = options.logger ?? stderrLogger();
    for (const w of checkSettings(this.settings)) this.logger.warn({ check: w.id, hint: w.hint }, w.message);
    this.#appendSlash = options.appendSlash ?? true;
    this.#onResponse = options.onResponse ?? null;
    this.#cors = this.settings.CORS !== null ? new CorsPolicy(this.settings.CORS) : null;
    this.#options = options;
  }

  /**
   * A new API over the same routes, built from the options this one was
   * built with as `change` rewrites them (their `settings` are this API's
   * validated settings). Package-private: `eventide serve --app`.
   * @internal
   */
  [REBUILD](change: (options: RestApiOptions & { readonly settings: Settings }) => RestApiOptions): RestApi {
    return new RestApi(change({ ...this.#options, settings: this.settings }));
  }

  /**
   * The URL of a named route in this API: `reverse()` against its URL
   * configuration (a `urlconf` in the options still wins). With a request
   * the URL is absolute and follows its versioning scheme.
   * @example
   * ```ts
   * api.reverse('item-detail', { kwargs: { pk: 5 } }); // '/items/5/'
   * ```
   */
  reverse(viewName: string, options: ReverseOptions = {}): string {
    return reverse(viewName, options.urlconf != null ? options : { ...options, urlconf: this.urlconf });
  }

  /**
   * Handles one request: routes it, runs the view, renders the response,
   * then adds CORS headers and compresses it (settings `CORS`,
   * `COMPRESSION`). **Never rejects** (and never throws): an error in the
   * view is its 500 (or its API exception's status); one in a step after it
   * (an exception handler, CORS, compression) is the plain 500
   * `{"detail": "A server error occurred."}`, logged once through
   * {@link RestApi.logger} with the request id; an `onResponse` that throws
   * is logged the same way and the response stays as it was rendered.
   * @example
   * ```ts
   * const out = await api.handle({ method: 'GET', target: '/items/', headers: [['Host', 'localhost']], body: null, secure: false });
   * out.status; // 200
   * ```
   */
  handle(raw: RawRequest): Promise<RenderedResponse> {
    return this.#handle(raw, undefined);
  }

  /**
   * Runs one request through this API in process, with no socket: the same
   * request cycle as {@link RestApi.handle} (host check, routing,
   * negotiation, versioning, pagination, rendering, CORS, compression,
   * request id, `onResponse`), and the response as a client reads it (with
   * `Content-Length` and `Date`; no body for HEAD). A string is the url of a
   * GET. Without a `host` header the request names `localhost`. Options no
   * client could send throw {@link InjectError} (`ERR_REST_INJECT_OPTIONS`);
   * anything the API answers, an exception in a view included, resolves.
   * @example
   * ```ts
   * const res = await api.inject({ method: 'GET', url: '/items/?page=2', headers: { accept: 'application/json' } });
   * console.log(res.status, res.headers['content-type'], res.json<{ count: number }>().count);
   * const detail = await api.inject('/items/5/');
   * ```
   */
  inject(options: InjectOptions | string): Promise<InjectResponse> {
    return injectRequest(this, options);
  }

  /**
   * The id of a request (`requestIdHeader`), or null without the option.
   * The adapters take it first so that what they log carries it too.
   * @internal
   */
  requestIdOf(raw: RawRequest): string | null {
    const header = this.#requestIdHeader;
    return header === null ? null : requestIdOf(raw.headers, header);
  }

  /**
   * {@link RestApi.handle} with the request's id already taken
   * ({@link RestApi.requestIdOf}); never rejects either.
   * @internal
   */
  handleWithId(raw: RawRequest, requestId: string | null): Promise<RenderedResponse> {
    return this.#handle(raw, requestId);
  }

  // The id travels with the request (request.requestId) to every entry eventide logs for it;
  // no AsyncLocalStorage: on Node 20 one enables a promise hook for the whole process, which
  // cost about a quarter of the CPU time of a cursor page.
  async #handle(raw: RawRequest, id: string | null | undefined): Promise<RenderedResponse> {
    const started = this.#onResponse !== null ? performance.now() : 0;
    let requestId: string | null = id ?? null;
    let request: Request | null = null;
    let out: RenderedResponse;
    try {
      if (id === undefined) requestId = this.requestIdOf(raw);
      try {
        request = new Request(raw, this.settings);
        request.urlconf = this.urlconf;
        request.api = this;
        request.requestId = requestId;
        // As Django's CommonMiddleware: a host outside ALLOWED_HOSTS is refused on every route,
        // not only where a URL gets built.
        if (this.settings.ALLOWED_HOSTS !== null) request.getHost();
        // A CORS preflight is answered here, before routing (as django-cors-headers' middleware does).
        const preflight = this.#cors?.preflight(request.method, request.headers) ?? null;
        const match = preflight === null ? this.urlconf.resolve(request.path) : null;
        let response: ApiResponse;
        if (preflight !== null) {
          response = preflight;
        } else if (match === null) {
          response = this.#notFound(request);
        } else {
          request.resolverMatch = match;
          response = await match.func(request);
        }
        out = this.render(response, request);
      } catch (error) {
        out = this.render(this.#failed(error, request, raw, requestId), request);
      }
      if (this.#cors !== null || this.settings.COMPRESSION !== null) out = await this.#finish(raw, out);
      this.#addRequestId(out, requestId);
    } catch (error) {
      // After the view (an exception handler, CORS, compression): the plain 500, logged once.
      logInternalError(
        this.logger,
        error,
        raw.method,
        raw.target,
        'internal error while finishing the response',
        requestId,
      );
      out = plainServerError();
      this.#addRequestId(out, requestId);
    }
    if (this.#onResponse !== null) {
      try {
        this.#onResponse({
          method: raw.method,
          target: raw.target,
          status: out.status,
          bytes: out.body.length,
          ms: performance.now() - started,
          remoteAddress: raw.remoteAddress ?? null,
          requestId,
          route: request?.resolverMatch?.viewName ?? null,
        });
      } catch (error) {
        // The response is rendered already: it goes out as it is.
        logInternalError(this.logger, error, raw.method, raw.target, 'the onResponse callback failed', requestId);
      }
    }
    return out;
  }

  /** The request id in its response header, unless the view set that header itself. */
  #addRequestId(out: RenderedResponse, requestId: string | null): void {
    const idHeader = this.#requestIdHeader;
    if (requestId === null || idHeader === null) return;
    const lower = idHeader.toLowerCase();
    if (!out.headers.some(([k]) => k.toLowerCase() === lower)) out.headers.push([idHeader, requestId]);
  }

  /** CORS headers (setting `CORS`), then compression (setting `COMPRESSION`): the last steps of every response. */
  #finish(raw: RawRequest, out: RenderedResponse): RenderedResponse | Promise<RenderedResponse> {
    if (this.#cors !== null) out = this.#cors.apply(raw.headers, out);
    const compression = this.settings.COMPRESSION;
    return compression !== null ? compressResponse(out, raw, compression) : out;
  }

  /** The response of an error raised outside a view's own handling (logged once when it is internal). */
  #failed(error: unknown, request: Request | null, raw: RawRequest, requestId: string | null): Response {
    if (request !== null || error instanceof APIException) return exceptionHandler(error, request);
    logInternalError(this.logger, error, raw.method, raw.target, undefined, requestId);
    return serverErrorResponse();
  }

  #notFound(request: Request): Response {
    if (
      this.#appendSlash &&
      !request.path.endsWith('/') &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      this.urlconf.resolve(request.path + '/') !== null
    ) {
      // A path starting with `//` would make a protocol-relative Location (an open redirect): escape it as Django does.
      const target = request.rawPath.startsWith('//') ? '/%2F' + request.rawPath.slice(2) : request.rawPath;
      const location = target + '/' + (request.queryString ? '?' + request.queryString : '');
      return new Response(undefined, { status: 301, headers: { Location: location } });
    }
    return exceptionHandler(new NotFound(), request);
  }

  /** Renders a response with its negotiated renderer (JSON when there is none). */
  render(response: ApiResponse, request: ApiRequest | null): RenderedResponse {
    let renderer = response.renderer ?? this.#jsonRenderer;
    let mediaType = response.mediaType ?? renderer.mediaType;
    let body: Buffer | string;
    try {
      body =
        response.data === undefined
          ? ''
          : renderer.render(response.data, mediaType, { request, response, view: response.view });
    } catch (error) {
      renderer = this.#jsonRenderer;
      mediaType = renderer.mediaType;
      if (error instanceof APIException) {
        response = exceptionHandler(error, request);
      } else {
        // Logged once, here: the 500 that replaces the response is not logged again.
        logInternalError(
          this.logger,
          error,
          request?.method ?? null,
          request?.path ?? null,
          'internal error while rendering the response',
        );
        response = serverErrorResponse();
      }
      body = renderer.render(response.data, mediaType, { request, response, view: null });
    }
    const headers = response.headerEntries();
    if (response.data !== undefined && !response.hasHeader('Content-Type')) {
      let ct =
        response.contentType ??
        (renderer.charset !== null ? `${renderer.mediaType}; charset=${renderer.charset}` : renderer.mediaType);
      const scheme = request?.versioningScheme;
      if (
        response.contentType === null &&
        scheme &&
        request?.version != null &&
        scheme.varyHeaders.includes('Accept')
      ) {
        ct += `; ${scheme.versionParam ?? request.settings.VERSION_PARAM}=${request.version}`;
      }
      headers.push(['Content-Type', ct]);
    }
    return {
      status: response.status,
      headers,
      body: typeof body === 'string' ? (body === '' ? EMPTY : Buffer.from(body, 'utf8')) : body,
    };
  }

  /**
   * Serves this API on an `EventHttp` server: installs the default
   * callback, allows every method a view may handle (OPTIONS and PATCH
   * included) and sets the server's body limit to `MAX_BODY_SIZE` (a
   * declared larger body is answered 413 before it is read). A client that
   * disconnects before its response is ready costs nothing more: the view
   * finishes and its response is dropped. A response the codec refuses (a
   * header with a control character, a status outside 100..999) becomes a
   * 500 logged through this API's logger; anything else that fails while
   * writing the response is logged once with the request id and closes that
   * connection only.
   * @example
   * ```ts
   * api.serve(http);
   * ```
   */
  serve(http: EventHttp): void {
    serveEventHttp(this, http);
  }

  /**
   * A `(req, res)` handler for `node:http` (and frameworks that take one).
   * A declared body larger than `MAX_BODY_SIZE` is answered 413 at once
   * and the connection closed without reading it; a chunked body is cut
   * off (413, closed) as soon as it passes the limit. A client that
   * disconnects early has its response dropped; a response node:http
   * cannot send (a header value with a control character, a status outside
   * 100..999) becomes a 500 logged through this API's logger; any other
   * failure while writing is logged once with the request id and destroys
   * that connection only.
   * @example
   * ```ts
   * import { createServer } from 'node:http';
   * createServer(api.nodeHandler()).listen(8000, '127.0.0.1');
   * ```
   */
  nodeHandler(): (req: IncomingMessage, res: ServerResponse) => void {
    return nodeHandler(this);
  }
}

/**
 * The request a view sees: method, decoded path, query parameters (the last
 * value of a repeated key wins), headers, host, scheme (honouring the
 * trusted-proxy settings), `buildAbsoluteUri()`, the parsed body, the API
 * version, and the matched route. It is built from a transport-neutral
 * {@link RawRequest} by the EventHttp and `node:http` adapters.
 *
 * @module
 */
import type {
  ApiContext,
  ApiRequest,
  HeaderLookup,
  QueryLookup,
  RawRequest,
  Renderer,
  ResolverMatch,
  Settings,
  UrlConf,
  VersioningScheme,
} from './contracts.js';
import { DisallowedHost, ParseError, UnsupportedMediaType, RequestTooLarge } from './errors.js';
import { QueryParams, parseQuery } from './query.js';

export type { ApiRequest, HeaderLookup, QueryLookup, RawRequest } from './contracts.js';

/**
 * Case-insensitive, read-only access to request headers.
 * @example
 * ```ts
 * const h = new RequestHeaders([['Accept', 'application/json']]);
 * h.get('accept'); // 'application/json'
 * ```
 */
export class RequestHeaders implements HeaderLookup {
  readonly #pairs: readonly (readonly [string, string])[];
  #map: Map<string, string> | null = null;

  constructor(pairs: readonly (readonly [string, string])[]) {
    this.#pairs = pairs;
  }

  /** The value of a header (repeated fields joined with `, `), or `null`. */
  get(name: string): string | null {
    if (this.#map === null) {
      const m = new Map<string, string>();
      for (const [k, v] of this.#pairs) {
        const key = k.toLowerCase();
        const prev = m.get(key);
        m.set(key, prev === undefined ? v : `${prev}, ${v}`);
      }
      this.#map = m;
    }
    return this.#map.get(name.toLowerCase()) ?? null;
  }

  /** Whether the header is present. */
  has(name: string): boolean {
    return this.get(name) !== null;
  }

  /** The fields as received. */
  entries(): readonly (readonly [string, string])[] {
    return this.#pairs;
  }
}

/** The characters `encodeURI` leaves as they are, but `#` and `?` (which `escapeUriPath` escapes). */
const URI_PLAIN = /^[A-Za-z0-9;,/:@&=+$\-_.!~*'()]*$/;

/** Django's `escape_uri_path`: re-escapes a decoded path for use in a URL. */
function escapeUriPath(path: string): string {
  if (URI_PLAIN.test(path)) return path;
  return encodeURI(path.toWellFormed()).replace(/[#?]/g, (c) => (c === '#' ? '%23' : '%3F'));
}

function decodePath(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The host of a request once checked (a side table: `Request` keeps no private fields, so it matches `ApiRequest`). */
const CHECKED_HOSTS = new WeakMap<Request, string>();

/**
 * One request to the web API.
 * @example
 * ```ts
 * class Show extends APIView {
 *   override async get(request: Request) {
 *     return new Response({ page: request.query.get('page'), version: request.version, self: request.buildAbsoluteUri() });
 *   }
 * }
 * ```
 */
export class Request implements ApiRequest {
  /** The method in upper case. */
  readonly method: string;
  /** The percent-decoded path (`/items/café/`). */
  readonly path: string;
  /** The path as sent, still percent-encoded. */
  readonly rawPath: string;
  /** The raw query string without `?` (empty when none). */
  readonly queryString: string;
  /** The request headers. */
  readonly headers: HeaderLookup;
  /** The settings of the API serving this request. */
  readonly settings: Settings;
  /** The raw request from the transport. */
  readonly raw: RawRequest;
  /** The query parameters (`get()` gives the last value of a repeated key). */
  readonly query: QueryLookup;
  /** The version the versioning scheme determined, or `null`. */
  version: string | null = null;
  /** The versioning scheme instance, or `null` when versioning is off. */
  versioningScheme: VersioningScheme | null = null;
  /** The route that matched this request (set by the URL resolver). */
  resolverMatch: ResolverMatch | null = null;
  /** The API serving this request (set by `RestApi.handle`): its settings, URL configuration and logger. */
  api: ApiContext | null = null;
  /**
   * The request id (`RestApi`'s `requestIdHeader` option: the client's
   * acceptable value of that header, else a new UUID), or null without it.
   * eventide puts it on its own log entries for the request; a view that
   * logs entries of its own adds it from here.
   */
  requestId: string | null = null;
  /** The URL configuration of the API (used by `reverse()` with `{ request }`; set by `RestApi.handle`). */
  urlconf: UrlConf | null = null;
  /** The renderer content negotiation chose (set by the view). */
  acceptedRenderer: Renderer | null = null;
  /** The media type content negotiation chose, with its parameters (set by the view). */
  acceptedMediaType: string | null = null;

  constructor(raw: RawRequest, settings: Settings) {
    this.raw = raw;
    this.settings = settings;
    this.method = raw.method.toUpperCase();
    const target = raw.target;
    const q = target.indexOf('?');
    const hash = target.indexOf('#');
    const pathEnd = q >= 0 ? q : hash >= 0 ? hash : target.length;
    this.rawPath = target.slice(0, pathEnd) || '/';
    this.queryString = q >= 0 ? target.slice(q + 1, hash > q ? hash : target.length) : '';
    this.path = decodePath(this.rawPath);
    this.headers = new RequestHeaders(raw.headers);
    // Parsed lazily on first use (content negotiation reads it on nearly every request).
    this.query = new QueryParams(this.queryString);
  }

  /** The URL keyword arguments of the matched route (`{}` before routing). */
  get kwargs(): Record<string, unknown> {
    return this.resolverMatch?.kwargs ?? {};
  }

  /** `http` or `https`: https when the connection is TLS or `SECURE_PROXY_SSL_HEADER` says so. */
  get scheme(): 'http' | 'https' {
    const proxy = this.settings.SECURE_PROXY_SSL_HEADER;
    if (proxy !== null) {
      const v = this.headers.get(proxy[0]);
      if (v !== null) return v.split(',', 1)[0]!.trim() === proxy[1] ? 'https' : 'http';
    }
    return this.raw.secure ? 'https' : 'http';
  }

  /** Whether the request arrived over https (directly or through a trusted proxy). */
  isSecure(): boolean {
    return this.scheme === 'https';
  }

  /**
   * The host with its port as the client named it: `X-Forwarded-Host` when
   * `USE_X_FORWARDED_HOST` is on, else the authority of an absolute-form
   * target, else `Host`. A host outside `ALLOWED_HOSTS` raises a 400.
   */
  getHost(): string {
    // Checked once: every link of the response asks again.
    const checked = CHECKED_HOSTS.get(this);
    if (checked !== undefined) return checked;
    let host: string | null = null;
    if (this.settings.USE_X_FORWARDED_HOST) {
      const fwd = this.headers.get('x-forwarded-host');
      if (fwd !== null) host = fwd.split(',', 1)[0]!.trim();
    }
    host ??= this.raw.authority ?? this.headers.get('host');
    if (host === null || host === '') host = this.raw.secure ? 'localhost:443' : 'localhost';
    // Django's syntax check comes first and applies whatever ALLOWED_HOSTS says ('*' or none included):
    // letters, digits, '.' and '-', or a bracketed IPv6 address, then an optional :port.
    if (!HOST_SYNTAX.test(host))
      throw new DisallowedHost(host, { reason: 'The domain name provided is not valid according to RFC 1034/1035.' });
    const allowed = this.settings.ALLOWED_HOSTS;
    if (allowed !== null && !hostAllowed(host, allowed)) throw new DisallowedHost(host);
    CHECKED_HOSTS.set(this, host);
    return host;
  }

  /** The host name without the port (`[::1]` keeps its brackets). */
  get hostname(): string {
    const host = this.getHost();
    if (host.startsWith('[')) {
      const end = host.indexOf(']');
      return end > 0 ? host.slice(0, end + 1) : host;
    }
    const colon = host.lastIndexOf(':');
    return colon >= 0 ? host.slice(0, colon) : host;
  }

  /** The path with the query string, as sent (`/items/?page=2`). */
  getFullPath(): string {
    return escapeUriPath(this.path) + (this.queryString ? '?' + this.queryString : '');
  }

  /**
   * An absolute URL: the request's own without an argument; `location` made
   * absolute against it otherwise (a full URL is returned as it is, a path
   * starting with `/` keeps the request's scheme and host).
   * @example
   * ```ts
   * request.buildAbsoluteUri('/items/'); // 'http://api.example.com/items/'
   * ```
   */
  buildAbsoluteUri(location?: string): string {
    const origin = `${this.scheme}://${this.getHost()}`;
    if (location === undefined) return origin + this.getFullPath();
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(location)) return location;
    if (location.startsWith('/') && !location.startsWith('//')) return origin + location;
    if (location.startsWith('//')) return `${this.scheme}:${location}`;
    return new URL(location, origin + this.getFullPath()).href;
  }

  /** The `Content-Type` media type of the body without parameters, lower case (`''` when absent). */
  get contentType(): string {
    const ct = this.headers.get('content-type');
    if (ct === null) return '';
    const semi = ct.indexOf(';');
    return (semi >= 0 ? ct.slice(0, semi) : ct).trim().toLowerCase();
  }

  /**
   * The parsed body: JSON (`application/json` and `+json` types) or form
   * data (`application/x-www-form-urlencoded`, last value per key). `{}`
   * for an empty body. Malformed input raises a 400 {@link ParseError}, an
   * unsupported content type a 415, an oversized body a 413.
   */
  get data(): unknown {
    if (PARSED.has(this)) return PARSED.get(this);
    PARSED.set(this, undefined); // parsed once: a body that failed to parse reads as undefined afterwards
    const data = parseBody(this);
    PARSED.set(this, data);
    return data;
  }
}

/**
 * Parsed bodies by request (a `Request` keeps no private state, so that it
 * and {@link ApiRequest} are interchangeable types). Only requests whose
 * body is read get an entry.
 */
const PARSED = new WeakMap<Request, unknown>();

function parseBody(request: Request): unknown {
  const body = request.raw.body;
  if (body === null || body.length === 0) return {};
  if (body.length > request.settings.MAX_BODY_SIZE) throw new RequestTooLarge(request.settings.MAX_BODY_SIZE);
  const type = request.contentType;
  if (type === 'application/json' || type.endsWith('+json')) {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch (cause) {
      throw new ParseError('JSON parse error - the body is not valid UTF-8.', { cause });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw new ParseError(`JSON parse error - ${(cause as Error).message}`, { cause });
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    const out: Record<string, string> = {};
    for (const [k, v] of parseQuery(body.toString('utf8'))) out[k] = v;
    return out;
  }
  throw new UnsupportedMediaType(type || 'none');
}

/** Django's host validation: `*`, exact names, `.domain` for a domain and its subdomains. */
/** Django's `host_validation_re` (matched against the lower-cased host). */
const HOST_SYNTAX = /^(?:[a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(?::[0-9]+)?$/i;

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  let name = host.toLowerCase();
  if (name.startsWith('[')) name = name.slice(0, name.indexOf(']') + 1);
  else if (name.lastIndexOf(':') >= 0) name = name.slice(0, name.lastIndexOf(':'));
  if (name.endsWith('.')) name = name.slice(0, -1);
  for (const pattern of allowed) {
    const p = pattern.toLowerCase();
    if (p === '*' || p === name) return true;
    if (p.startsWith('.') && (name === p.slice(1) || name.endsWith(p))) return true;
  }
  return false;
}

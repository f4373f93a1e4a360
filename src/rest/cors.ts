/**
 * Cross-origin resource sharing: the `CORS` setting (off by default), as
 * django-cors-headers does it for Django.
 *
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 *   is answered by the API itself, 204 with no body, before routing: for an
 *   allowed origin with `Access-Control-Allow-Origin`, `-Methods`,
 *   `-Headers`, `-Max-Age` (and `-Credentials`), for any other origin with
 *   no CORS header at all, so that the browser blocks the request.
 * - Every other response to an allowed origin gets
 *   `Access-Control-Allow-Origin` (the origin itself, or `*` when every
 *   origin is allowed), `Access-Control-Allow-Credentials: true` when
 *   credentials are allowed and `Access-Control-Expose-Headers`; a response
 *   that already has `Access-Control-Allow-Origin` (set by its view) is
 *   left as it is.
 * - Unless every origin is allowed, every response gets `Vary: Origin`, so
 *   that a cache never serves one origin's answer to another.
 *
 * An origin is never reflected blindly: it must be listed, or match one of
 * the listed regular expressions. `'*'` with credentials, a `null` origin
 * with credentials, and a regular expression with credentials that accepts
 * any origin (or is not anchored with `^` and `$`) are configuration errors.
 *
 * @module
 */
import type { CorsSettings, HeaderLookup } from './contracts.js';
import { ImproperlyConfigured } from './errors.js';
import { withVary } from './compression.js';
import { Response, type RenderedResponse } from './response.js';

export type { CorsSettings } from './contracts.js';

/**
 * The defaults of the `CORS` setting's optional fields (django-cors-headers').
 * @example
 * ```ts
 * CORS_DEFAULTS.allowedMethods; // ['DELETE', 'GET', 'OPTIONS', 'PATCH', 'POST', 'PUT']
 * ```
 */
export const CORS_DEFAULTS: Readonly<Required<Omit<CorsSettings, 'allowedOrigins'>>> = Object.freeze({
  allowedMethods: Object.freeze(['DELETE', 'GET', 'OPTIONS', 'PATCH', 'POST', 'PUT']),
  allowedHeaders: Object.freeze([
    'accept',
    'authorization',
    'content-type',
    'user-agent',
    'x-csrftoken',
    'x-requested-with',
  ]),
  exposedHeaders: Object.freeze([] as string[]),
  allowCredentials: false,
  maxAge: 86400,
});

const FIELDS = ['allowedOrigins', ...Object.keys(CORS_DEFAULTS)];
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+$/;
/** Origins no regular expression of a credentialed configuration should accept. */
const PROBES = ['https://cors-probe.invalid', 'http://evil.example', 'null'];

function tokens(key: string, v: unknown, fallback: readonly string[]): readonly string[] {
  if (v === undefined) return fallback;
  if (!Array.isArray(v) || !v.every((t) => typeof t === 'string' && TOKEN.test(t)))
    throw new ImproperlyConfigured(`CORS.${key} must be a list of header or method names.`);
  return Object.freeze([...(v as string[])]);
}

/**
 * Validates the `CORS` setting and fills in its defaults (`null` stays
 * `null`). Throws {@link ImproperlyConfigured}.
 * @internal
 */
export function corsSettings(input: unknown): Readonly<Required<CorsSettings>> | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input))
    throw new ImproperlyConfigured(
      `CORS must be an object ({ allowedOrigins: [...] }) or null, not ${Array.isArray(input) ? 'an array' : typeof input}.`,
    );
  const o = input as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!FIELDS.includes(key))
      throw new ImproperlyConfigured(`Unknown CORS field ${key} (known: ${FIELDS.join(', ')}).`);
  const credentials = o.allowCredentials ?? CORS_DEFAULTS.allowCredentials;
  if (typeof credentials !== 'boolean') throw new ImproperlyConfigured('CORS.allowCredentials must be a boolean.');
  const maxAge = o.maxAge === undefined ? CORS_DEFAULTS.maxAge : o.maxAge;
  if (maxAge !== null && !(typeof maxAge === 'number' && Number.isSafeInteger(maxAge) && maxAge >= 0))
    throw new ImproperlyConfigured('CORS.maxAge must be a non-negative integer (seconds) or null.');
  const origins = o.allowedOrigins;
  let allowed: '*' | readonly (string | RegExp)[];
  if (origins === '*') {
    if (credentials)
      throw new ImproperlyConfigured(
        "CORS.allowedOrigins '*' cannot be combined with allowCredentials: list the origins that may send credentials.",
      );
    allowed = '*';
  } else if (Array.isArray(origins)) {
    const list: (string | RegExp)[] = [];
    for (const entry of origins as unknown[]) {
      if (entry instanceof RegExp) {
        if (entry.global || entry.sticky)
          throw new ImproperlyConfigured(`CORS.allowedOrigins: ${String(entry)} must not have the g or y flag.`);
        if (credentials && (!/^\^.*[^\\]\$$/s.test(entry.source) || PROBES.some((p) => entry.test(p))))
          throw new ImproperlyConfigured(
            `CORS.allowedOrigins: ${String(entry)} may accept any origin, which allowCredentials forbids (anchor it at both ends: /^https:\\/\\/app\\.example\\.com$/).`,
          );
        list.push(entry);
      } else if (typeof entry === 'string') {
        const origin = entry.toLowerCase();
        if (origin === '*')
          throw new ImproperlyConfigured("CORS.allowedOrigins: '*' stands alone (allowedOrigins: '*'), not in a list.");
        if (origin === 'null' && credentials)
          throw new ImproperlyConfigured("CORS.allowedOrigins: the origin 'null' cannot be allowed with credentials.");
        if (origin !== 'null' && !ORIGIN.test(origin))
          throw new ImproperlyConfigured(
            `CORS.allowedOrigins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port], no path or trailing slash).`,
          );
        list.push(origin);
      } else {
        throw new ImproperlyConfigured('CORS.allowedOrigins entries must be origin strings or regular expressions.');
      }
    }
    allowed = Object.freeze(list);
  } else {
    throw new ImproperlyConfigured(
      "CORS.allowedOrigins must be '*' or a list of origins and regular expressions (['https://app.example.com']).",
    );
  }
  return Object.freeze({
    allowedOrigins: allowed,
    allowedMethods: Object.freeze(
      tokens('allowedMethods', o.allowedMethods, CORS_DEFAULTS.allowedMethods).map((m) => m.toUpperCase()),
    ),
    allowedHeaders: tokens('allowedHeaders', o.allowedHeaders, CORS_DEFAULTS.allowedHeaders),
    exposedHeaders: tokens('exposedHeaders', o.exposedHeaders, CORS_DEFAULTS.exposedHeaders),
    allowCredentials: credentials,
    maxAge,
  });
}

function header(headers: readonly (readonly [string, string])[], name: string): string | null {
  for (const [k, v] of headers) if (k.toLowerCase() === name) return v;
  return null;
}

/**
 * A validated `CORS` setting at work: whether an origin is allowed, the
 * answer to a preflight, the headers of every other response. `RestApi`
 * builds one when `CORS` is set.
 * @example
 * ```ts
 * const cors = new CorsPolicy({ allowedOrigins: ['https://app.example.com'], exposedHeaders: ['X-Total-Count'] });
 * cors.allows('https://app.example.com'); // true
 * cors.allows('https://evil.example'); // false
 * ```
 */
export class CorsPolicy {
  /** The setting with its defaults filled in. */
  readonly settings: Readonly<Required<CorsSettings>>;
  readonly #exact: ReadonlySet<string>;
  readonly #patterns: readonly RegExp[];
  readonly #any: boolean;

  /** Validates `settings` (an {@link ImproperlyConfigured} error when they are wrong). */
  constructor(settings: CorsSettings) {
    this.settings = corsSettings(settings) as Readonly<Required<CorsSettings>>;
    const origins = this.settings.allowedOrigins;
    this.#any = origins === '*';
    this.#exact = new Set(origins === '*' ? [] : origins.filter((o): o is string => typeof o === 'string'));
    this.#patterns = origins === '*' ? [] : origins.filter((o): o is RegExp => o instanceof RegExp);
  }

  /**
   * Whether `origin` (an `Origin` header value) may read the API's responses.
   * @example
   * ```ts
   * new CorsPolicy({ allowedOrigins: [/^https:\/\/[a-z]+\.example\.com$/] }).allows('https://app.example.com'); // true
   * ```
   */
  allows(origin: string): boolean {
    if (this.#any) return true;
    return this.#exact.has(origin.toLowerCase()) || this.#patterns.some((p) => p.test(origin));
  }

  /**
   * The answer to a CORS preflight (`OPTIONS` with `Origin` and
   * `Access-Control-Request-Method`): a 204 with the allow headers for an
   * allowed origin, a bare 204 for any other. `null` when the request is
   * not a preflight.
   * @example
   * ```ts
   * declare const cors: CorsPolicy;
   * const answer = cors.preflight(request.method, request.headers); // a Response, or null
   * ```
   */
  preflight(method: string, headers: HeaderLookup): Response | null {
    if (method !== 'OPTIONS') return null;
    const origin = headers.get('origin');
    if (origin === null || headers.get('access-control-request-method') === null) return null;
    const response = new Response(undefined, { status: 204 });
    if (!this.#any) response.addVary('Origin');
    if (!this.allows(origin)) return response;
    const s = this.settings;
    response.setHeader('Access-Control-Allow-Origin', this.#any ? '*' : origin);
    if (s.allowCredentials) response.setHeader('Access-Control-Allow-Credentials', 'true');
    response.setHeader('Access-Control-Allow-Methods', s.allowedMethods.join(', '));
    if (s.allowedHeaders.length > 0) response.setHeader('Access-Control-Allow-Headers', s.allowedHeaders.join(', '));
    if (s.maxAge !== null) response.setHeader('Access-Control-Max-Age', String(s.maxAge));
    return response;
  }

  /**
   * The CORS headers of a response (not a preflight's): `Vary: Origin`,
   * and for an allowed origin `Access-Control-Allow-Origin`, `-Credentials`
   * and `-Expose-Headers`. A response whose view set
   * `Access-Control-Allow-Origin` itself keeps its own.
   * @example
   * ```ts
   * declare const cors: CorsPolicy;
   * declare const raw: RawRequest;
   * const out = cors.apply(raw.headers, await api.handle(raw));
   * ```
   */
  apply(requestHeaders: readonly (readonly [string, string])[], out: RenderedResponse): RenderedResponse {
    const headers = this.#any ? out.headers.slice() : withVary(out.headers, 'Origin');
    const origin = header(requestHeaders, 'origin');
    if (
      origin !== null &&
      this.allows(origin) &&
      !headers.some(([k]) => k.toLowerCase() === 'access-control-allow-origin')
    ) {
      const s = this.settings;
      headers.push(['Access-Control-Allow-Origin', this.#any ? '*' : origin]);
      if (s.allowCredentials) headers.push(['Access-Control-Allow-Credentials', 'true']);
      if (s.exposedHeaders.length > 0) headers.push(['Access-Control-Expose-Headers', s.exposedHeaders.join(', ')]);
    }
    return { status: out.status, headers, body: out.body };
  }
}

/**
 * API versioning schemes (Django REST framework's): where a request's
 * version comes from, which versions are allowed, the error an invalid one
 * raises, and how `reverse()` writes the version into URLs.
 *
 * | Scheme | Version from | Invalid |
 * | --- | --- | --- |
 * | {@link AcceptHeaderVersioning} | `version` parameter of the accepted media type | 406 `Invalid version in "Accept" header.` |
 * | {@link URLPathVersioning} | URL keyword argument `version` | 404 `Invalid version in URL path.` |
 * | {@link NamespaceVersioning} | the matched URL namespace | 404 `Invalid version in URL path. Does not match any version namespace.` |
 * | {@link HostNameVersioning} | first label of a three-label host name | 404 `Invalid version in hostname.` |
 * | {@link QueryParameterVersioning} | `?version=` | 404 `Invalid version in query parameter.` |
 * | {@link HeaderVersioning} | the `X-API-Version` header (configurable) | 406 `Invalid version in "X-API-Version" header.` |
 *
 * A request without a version gets the default version. The allowed check:
 * with no (or an empty) allowed list anything goes, `null` included;
 * otherwise a version is allowed when it equals the default version (never
 * `null`) or is listed (`null` only when `null` is listed). A value that is
 * present but empty (`?version=`) is checked as `''`.
 *
 * Class attributes left `undefined` (`defaultVersion`, `allowedVersions`,
 * `versionParam`) fall back to the settings `DEFAULT_VERSION`,
 * `ALLOWED_VERSIONS` and `VERSION_PARAM` of the request.
 *
 * @module
 */
import type { ReverseOptions, SchemaError, VersioningScheme } from './contracts.js';
import { MediaType, parseAccept } from './mediatypes.js';
import { ImproperlyConfigured, NotAcceptable, NotFound } from './errors.js';
import { replaceQueryParam } from './query.js';
import type { Request } from './request.js';
import { plainReverse } from './reverse.js';

const NO_HEADERS: readonly string[] = Object.freeze([]);

/** The OpenAPI error answer to a version that is not allowed. */
function invalidVersion(status: 404 | 406, message: string): SchemaError[] {
  return [{ status, name: 'invalidVersion', summary: 'A version that is not allowed', value: { detail: message } }];
}
const ACCEPT: readonly string[] = Object.freeze(['Accept']);
const HOST: readonly string[] = Object.freeze(['Host']);

/**
 * The base of every versioning scheme. A subclass implements
 * {@link BaseVersioning.determineVersion}; a URL-based one also overrides
 * {@link BaseVersioning.reverse}. A new instance serves each request.
 * @example
 * ```ts
 * class ApiVersionCookie extends BaseVersioning {
 *   override determineVersion(request: Request): string | null {
 *     const m = /(?:^|;\s*)api_version=([^;]*)/.exec(request.headers.get('cookie') ?? '');
 *     const version = m ? m[1]! : this.getDefaultVersion(request);
 *     if (!this.isAllowedVersion(version, request)) throw new NotFound('Invalid version in cookie.');
 *     return version;
 *   }
 * }
 * ```
 */
export abstract class BaseVersioning implements VersioningScheme {
  /** The version of a request that carries none; `undefined`: the `DEFAULT_VERSION` setting. */
  defaultVersion: string | null | undefined = undefined;
  /** The allowed versions; `undefined`: the `ALLOWED_VERSIONS` setting. */
  allowedVersions: readonly (string | null)[] | null | undefined = undefined;
  /** The parameter / keyword name holding the version; `undefined`: the `VERSION_PARAM` setting. */
  versionParam: string | undefined = undefined;

  /** Request headers the version depends on; the view adds them to `Vary`. */
  get varyHeaders(): readonly string[] {
    return NO_HEADERS;
  }

  /** The request's version (or `null`); throws an API exception when it is not allowed. */
  abstract determineVersion(request: Request): string | null;

  /** The URL of a named route for this request's version (the base: no change). */
  reverse(viewName: string, options: ReverseOptions = {}): string {
    return plainReverse(viewName, options);
  }

  /** The effective default version. */
  getDefaultVersion(request: Request): string | null {
    return this.defaultVersion === undefined ? request.settings.DEFAULT_VERSION : this.defaultVersion;
  }

  /** The effective allowed list (`null`: no restriction). */
  getAllowedVersions(request: Request): readonly (string | null)[] | null {
    const allowed = this.allowedVersions === undefined ? request.settings.ALLOWED_VERSIONS : this.allowedVersions;
    if (allowed !== null && !Array.isArray(allowed)) {
      throw new ImproperlyConfigured(
        `allowedVersions of ${this.constructor.name} must be an array of version strings (for example ['v1', 'v2']), not ${typeof allowed === 'string' ? `the string ${JSON.stringify(allowed)}` : typeof allowed}.`,
      );
    }
    return allowed;
  }

  /** The effective parameter name. */
  getVersionParam(request: Request): string {
    return this.versionParam ?? request.settings.VERSION_PARAM;
  }

  /**
   * The answer to a version that is not allowed, for the OpenAPI document
   * (`[{ status: 404, value: { detail: 'Invalid version in query parameter.' }, ... }]`).
   * The base: none known (a custom scheme overrides it to declare its own).
   */
  getSchemaErrors(): SchemaError[] {
    return [];
  }

  /** Whether `version` may be used (see the module description). */
  isAllowedVersion(version: string | null, request: Request): boolean {
    const allowed = this.getAllowedVersions(request);
    if (allowed === null || allowed.length === 0) return true;
    return (version !== null && version === this.getDefaultVersion(request)) || allowed.includes(version);
  }
}

/**
 * The parameters of a media type (`application/json; version="1.0"`):
 * names lower-cased, values trimmed and unquoted; the last of a repeated
 * name wins. Parameters without `=` are ignored.
 * @example
 * ```ts
 * mediaTypeParams('application/json; Version="1.2"').get('version'); // '1.2'
 * ```
 */
export function mediaTypeParams(mediaType: string): Map<string, string> {
  return new Map(MediaType.parse(mediaType).params);
}

/**
 * The version is a parameter of the media type the client accepts
 * (`Accept: application/json; version=1.0`). It reads
 * `request.acceptedMediaType` (set by content negotiation, carrying the
 * Accept entry's parameters, so `*\/*; version=1.0` works too), else the
 * first entry of `Accept`. Invalid: 406 `Invalid version in "Accept" header.`
 * @example
 * ```ts
 * class ItemList extends ListAPIView { override versioningClass = AcceptHeaderVersioning; }
 * // GET /items/ with Accept: application/json; version=1.0  ->  request.version === '1.0'
 * ```
 */
export class AcceptHeaderVersioning extends BaseVersioning {
  /** The `detail` of the 406. */
  invalidVersionMessage = 'Invalid version in "Accept" header.';

  /** 406 with `invalidVersionMessage`. */
  override getSchemaErrors(): SchemaError[] {
    return invalidVersion(406, this.invalidVersionMessage);
  }

  override get varyHeaders(): readonly string[] {
    return ACCEPT;
  }

  override determineVersion(request: Request): string | null {
    const accepted = request.acceptedMediaType;
    const params =
      accepted !== null
        ? MediaType.parse(accepted).params
        : (parseAccept(request.headers.get('accept') ?? '')[0]?.params ?? new Map<string, string>());
    const value = params.get(this.getVersionParam(request).toLowerCase());
    const version = value === undefined ? this.getDefaultVersion(request) : value;
    if (!this.isAllowedVersion(version, request)) throw new NotAcceptable(this.invalidVersionMessage);
    return version;
  }
}

/**
 * The version is a keyword argument of the URL (`versionParam`, default
 * `version`), e.g. `rePath('^(?P<version>v1|v2)/items/$', ...)` or
 * `path('<str:version>/items/', ...)`. `reverse()` adds the request's
 * version to the keyword arguments (the caller's own `version` wins).
 * Invalid: 404 `Invalid version in URL path.`
 * @example
 * ```ts
 * const routes = [rePath('^(?P<version>v1|v2)/items/$', ItemList.asView(), { name: 'item-list' })];
 * // GET /v1/items/ -> request.version === 'v1'; reverse('item-list', { request }) -> 'http://host/v1/items/'
 * ```
 */
export class URLPathVersioning extends BaseVersioning {
  /** The `detail` of the 404. */
  invalidVersionMessage = 'Invalid version in URL path.';

  /** 404 with `invalidVersionMessage`. */
  override getSchemaErrors(): SchemaError[] {
    return invalidVersion(404, this.invalidVersionMessage);
  }

  override determineVersion(request: Request): string | null {
    const raw = request.resolverMatch?.kwargs[this.getVersionParam(request)];
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a URL keyword argument (a converter's value, of any type) is read as its String() text
    const version = raw === undefined || raw === null ? this.getDefaultVersion(request) : String(raw);
    if (!this.isAllowedVersion(version, request)) throw new NotFound(this.invalidVersionMessage);
    return version;
  }

  override reverse(viewName: string, options: ReverseOptions = {}): string {
    const request = options.request;
    if (request && request.version !== null) {
      options = { ...options, kwargs: { [this.getVersionParam(request)]: request.version, ...(options.kwargs ?? {}) } };
    }
    return super.reverse(viewName, options);
  }
}

/**
 * The version is the URL namespace that matched: the same routes included
 * under several prefixes, each with its own namespace
 * (`path('v1/', include(routes, { namespace: 'v1' }))`). Nested namespaces
 * are split on `:` and the first allowed part wins (`api:v2` -> `v2`).
 * `reverse()` looks the name up as `<version>:<name>`, falling back to the
 * plain name for routes outside the versioned namespaces. Invalid (a
 * namespace with no allowed part, even with a default version): 404
 * `Invalid version in URL path. Does not match any version namespace.`
 * @example
 * ```ts
 * const routes = [
 *   path('v1/', include(apiRoutes, { namespace: 'v1' })),
 *   path('v2/', include(apiRoutes, { namespace: 'v2' })),
 * ];
 * // GET /v2/items/ -> request.version === 'v2'; reverse('item-list', { request }) -> 'http://host/v2/items/'
 * ```
 */
export class NamespaceVersioning extends BaseVersioning {
  /** The `detail` of the 404. */
  invalidVersionMessage = 'Invalid version in URL path. Does not match any version namespace.';

  /** 404 with `invalidVersionMessage`. */
  override getSchemaErrors(): SchemaError[] {
    return invalidVersion(404, this.invalidVersionMessage);
  }

  override determineVersion(request: Request): string | null {
    const namespace = request.resolverMatch?.namespace ?? '';
    if (namespace === '') return this.getDefaultVersion(request);
    for (const part of namespace.split(':')) if (this.isAllowedVersion(part, request)) return part;
    throw new NotFound(this.invalidVersionMessage);
  }

  /** The view name a route of the request's version has (`v1:item-detail`); unchanged without a version. */
  getVersionedViewName(viewName: string, request: Request): string {
    return request.version === null ? viewName : `${request.version}:${viewName}`;
  }

  override reverse(viewName: string, options: ReverseOptions = {}): string {
    const request = options.request;
    if (request && request.version !== null) viewName = this.getVersionedViewName(viewName, request);
    return super.reverse(viewName, options);
  }
}

/**
 * The version is the first label of the host name (`v1.example.com`): the
 * host without its port must fully match `hostnameRegex`, whose group 1 is
 * the version. Hosts that do not match (`localhost`, `127.0.0.1`,
 * `v1.example.co.uk`) get the default version, which makes the scheme
 * awkward on raw IP addresses in development: set a default version, or
 * use names like `v1.localhost.test` mapped in `/etc/hosts`. The check is
 * case-sensitive (`V1.example.com` is `V1`). `reverse()` keeps the
 * request's host. Invalid: 404 `Invalid version in hostname.`
 * @example
 * ```ts
 * class ByHost extends HostNameVersioning { override allowedVersions = ['v1', 'v2']; }
 * // GET http://v2.api.example/items/ -> request.version === 'v2'
 * ```
 */
export class HostNameVersioning extends BaseVersioning {
  /** Matches the host name (without port); group 1 is the version. Matched from the start. */
  hostnameRegex: RegExp = /^([a-zA-Z0-9]+)\.[a-zA-Z0-9]+\.[a-zA-Z0-9]+$/;
  /** The `detail` of the 404. */
  invalidVersionMessage = 'Invalid version in hostname.';

  /** 404 with `invalidVersionMessage`. */
  override getSchemaErrors(): SchemaError[] {
    return invalidVersion(404, this.invalidVersionMessage);
  }

  override get varyHeaders(): readonly string[] {
    return HOST;
  }

  override determineVersion(request: Request): string | null {
    const m = this.hostnameRegex.exec(request.hostname);
    if (m === null || m.index !== 0 || m[1] === undefined) return this.getDefaultVersion(request);
    const version = m[1];
    if (!this.isAllowedVersion(version, request)) throw new NotFound(this.invalidVersionMessage);
    return version;
  }
}

/**
 * The version is a query parameter (`?version=1.0`, name from
 * `versionParam`; the last value of a repeated key wins). `reverse()` sets
 * the request's version on the result (which sorts its query keys).
 * Invalid: 404 `Invalid version in query parameter.`
 * @example
 * ```ts
 * // GET /items/?version=v2 -> request.version === 'v2'; reverse('item-list', { request }) -> 'http://host/items/?version=v2'
 * const settings = createSettings({ DEFAULT_VERSIONING_CLASS: QueryParameterVersioning, ALLOWED_VERSIONS: ['v1', 'v2'] });
 * ```
 */
export class QueryParameterVersioning extends BaseVersioning {
  /** The `detail` of the 404. */
  invalidVersionMessage = 'Invalid version in query parameter.';

  /** 404 with `invalidVersionMessage`. */
  override getSchemaErrors(): SchemaError[] {
    return invalidVersion(404, this.invalidVersionMessage);
  }

  override determineVersion(request: Request): string | null {
    const value = request.query.get(this.getVersionParam(request));
    const version = value === null ? this.getDefaultVersion(request) : value;
    if (!this.isAllowedVersion(version, request)) throw new NotFound(this.invalidVersionMessage);
    return version;
  }

  override reverse(viewName: string, options: ReverseOptions = {}): string {
    const url = super.reverse(viewName, options);
    const request = options.request;
    if (request && request.version !== null)
      return replaceQueryParam(url, this.getVersionParam(request), request.version);
    return url;
  }
}

/**
 * A custom scheme (the documented example): the version is a request
 * header, `X-API-Version` unless `headerName` says otherwise. A missing
 * header gives the default version; a present one, even empty, is checked.
 * `reverse()` is the plain one; the header is added to `Vary`. Invalid:
 * 406 `Invalid version in "X-API-Version" header.`
 * @example
 * ```ts
 * class ApiVersionHeader extends HeaderVersioning { override headerName = 'Api-Version'; override allowedVersions = ['1', '2']; }
 * // GET /items/ with Api-Version: 2 -> request.version === '2'
 * ```
 */
export class HeaderVersioning extends BaseVersioning {
  /** The request header carrying the version. */
  headerName = 'X-API-Version';

  /** The `detail` of the 406 (derived from `headerName`; override with a getter). */
  get invalidVersionMessage(): string {
    return `Invalid version in "${this.headerName}" header.`;
  }

  /** 406 with `invalidVersionMessage`. */
  override getSchemaErrors(): SchemaError[] {
    return invalidVersion(406, this.invalidVersionMessage);
  }

  override get varyHeaders(): readonly string[] {
    return [this.headerName];
  }

  override determineVersion(request: Request): string | null {
    const value = request.headers.get(this.headerName);
    const version = value === null ? this.getDefaultVersion(request) : value;
    if (!this.isAllowedVersion(version, request)) throw new NotAcceptable(this.invalidVersionMessage);
    return version;
  }
}

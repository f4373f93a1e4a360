/**
 * `reverse()` as Django REST framework defines it: a URL-configuration
 * reverse that knows about the request's versioning scheme, returns
 * absolute URLs when given the request, and carries the request's
 * `?format=` override onto the result.
 *
 * What it reverses against, in order: `options.urlconf`, else the URL
 * configuration of the API serving `options.request` (`request.urlconf`).
 * There is no process-wide default: without either it throws
 * {@link ImproperlyConfigured}. Outside a request, reverse against an API
 * with `api.reverse(name, options)` or pass `{ urlconf: api.urlconf }`.
 *
 * @module
 */
import type { ApiRequest, ReverseOptions, UrlConf } from './contracts.js';
import { ImproperlyConfigured, NoReverseMatch } from './errors.js';
import { replaceQueryParam } from './query.js';

export type { ReverseOptions } from './contracts.js';

/**
 * The URL configuration a reverse uses: `options.urlconf`, else the
 * request's; throws {@link ImproperlyConfigured} when there is neither.
 * @internal
 */
export function resolverFor(options: ReverseOptions): UrlConf {
  const conf = options.urlconf ?? options.request?.urlconf;
  if (conf == null) {
    throw new ImproperlyConfigured(
      'No URL configuration to reverse against: pass { request } (a request routed by a RestApi) or { urlconf }, or call api.reverse().',
    );
  }
  return conf;
}

/**
 * The reverse without versioning (DRF's `_reverse`): `format` joins the
 * keyword arguments, and the path is made absolute against the request when
 * one is given. Versioning schemes call this from their `reverse()`.
 * @example
 * ```ts
 * plainReverse('item-detail', { kwargs: { pk: 5 }, request }); // 'http://testserver/items/5/'
 * ```
 */
export function plainReverse(viewName: string, options: ReverseOptions = {}): string {
  let kwargs = options.kwargs ?? null;
  if (options.format !== undefined && options.format !== null) kwargs = { ...(kwargs ?? {}), format: options.format };
  const path = resolverFor(options).reverse(viewName, { args: options.args ?? null, kwargs });
  return options.request ? options.request.buildAbsoluteUri(path) : path;
}

/**
 * Copies the request's URL format override (`?format=json`, setting
 * `URL_FORMAT_OVERRIDE`) onto a reversed URL.
 * @example
 * ```ts
 * preserveBuiltinQueryParams('http://h/items/', request); // 'http://h/items/?format=json' for a ?format=json request
 * ```
 */
export function preserveBuiltinQueryParams(url: string, request: ApiRequest | null | undefined): string {
  if (!request) return url;
  const param = request.settings.URL_FORMAT_OVERRIDE;
  if (param) {
    const value = request.query.get(param);
    if (value !== null) return replaceQueryParam(url, param, value);
  }
  return url;
}

/**
 * The URL of a named route. With a request it is absolute
 * (`http://host/...`) and follows the request's versioning scheme (version
 * kwarg, `v1:` namespace, `?version=`); when the scheme's reverse finds no
 * route, the unversioned name is tried. The request's `?format=` is
 * carried over. Throws `NoReverseMatch` when nothing fits.
 * @example
 * ```ts
 * reverse('item-detail', { kwargs: { pk: 5 }, urlconf: api.urlconf }); // '/items/5/'
 * reverse('item-list', { request }); // 'http://testserver/v1/items/' under URLPathVersioning, version v1
 * ```
 */
export function reverse(viewName: string, options: ReverseOptions = {}): string {
  const request = options.request ?? null;
  const scheme = request?.versioningScheme ?? null;
  let url: string;
  if (scheme !== null) {
    try {
      url = scheme.reverse(viewName, options);
    } catch (e) {
      if (!(e instanceof NoReverseMatch)) throw e;
      url = plainReverse(viewName, options);
    }
  } else {
    url = plainReverse(viewName, options);
  }
  return preserveBuiltinQueryParams(url, request);
}

/**
 * A lazily reversed URL: reverses when first turned into a string (for
 * values defined before the routes are complete). The options are those of
 * {@link reverse}, read at that moment: give a `urlconf` (or a request).
 * @example
 * ```ts
 * const urlconf = new URLResolver([path('', itemList, { name: 'home' })]);
 * const home = reverseLazy('home', { urlconf });
 * `${home}`; // '/'
 * ```
 */
export function reverseLazy(viewName: string, options: ReverseOptions = {}): { toString(): string } {
  let value: string | null = null;
  return {
    toString: () => (value ??= reverse(viewName, options)),
  };
}

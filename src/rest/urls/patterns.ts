/**
 * The entries of a URL configuration: {@link path} (a route with typed
 * converters, `items/<int:pk>/`), {@link rePath} (a regular expression) and
 * {@link include} (routes mounted under a prefix, nestable, with
 * namespaces). Building an entry compiles its pattern, so a mistake fails
 * when the routes are built.
 *
 * @module
 */
import { ConfigurationError, ImproperlyConfigured } from '../errors.js';
import type { ViewFunction } from '../contracts.js';
import { checkConverter, type PathConverter } from './converters.js';
import { compileRegex, compileRoute, type Matcher } from './route.js';

export type { ViewFunction } from '../contracts.js';

/**
 * An endpoint route: a pattern and its view (built by {@link path} or {@link rePath}).
 * @example
 * ```ts
 * const entry: URLPattern = path('items/', itemList, { name: 'item-list' });
 * console.log(entry.name); // 'item-list'
 * ```
 */
export class URLPattern {
  /** @internal */
  readonly matcher: Matcher;
  /** The view. */
  readonly callback: ViewFunction;
  /** The name used by `reverse()`, or `null`. */
  readonly name: string | null;
  /** Extra keyword arguments passed to the view. */
  readonly defaultKwargs: Readonly<Record<string, unknown>>;

  /** @internal */
  constructor(matcher: Matcher, callback: ViewFunction, name: string | null, defaultKwargs: Record<string, unknown>) {
    this.matcher = matcher;
    this.callback = callback;
    this.name = name;
    this.defaultKwargs = defaultKwargs;
  }

  /** The route or regex as written. */
  get pattern(): string {
    return this.matcher.describe;
  }
}

/**
 * A group of routes under a prefix (built by {@link path} or {@link rePath}
 * with an {@link include}).
 * @example
 * ```ts
 * const entry = path('v1/', include(apiRoutes, { namespace: 'v1' }));
 * if (entry instanceof URLIncludePattern) console.log(entry.namespace); // 'v1'
 * ```
 */
export class URLIncludePattern {
  /** @internal */
  readonly matcher: Matcher;
  /** The included routes. */
  readonly entries: readonly URLEntry[];
  /** The instance namespace, or `null`. */
  readonly namespace: string | null;
  /** The application namespace, or `null`. */
  readonly appName: string | null;
  /** Extra keyword arguments passed to every included view. */
  readonly defaultKwargs: Readonly<Record<string, unknown>>;

  /** @internal */
  constructor(matcher: Matcher, inc: Include, defaultKwargs: Record<string, unknown>) {
    this.matcher = matcher;
    this.entries = inc.patterns;
    this.namespace = inc.namespace;
    this.appName = inc.appName;
    this.defaultKwargs = defaultKwargs;
  }

  /** The route or regex as written. */
  get pattern(): string {
    return this.matcher.describe;
  }
}

/**
 * One entry of a URL configuration.
 * @example
 * ```ts
 * const routes: URLEntry[] = [path('', itemList), path('v1/', include(apiRoutes, { namespace: 'v1' }))];
 * ```
 */
export type URLEntry = URLPattern | URLIncludePattern;

/**
 * Another name for {@link URLEntry}: what {@link path} and {@link rePath} return.
 * @example
 * ```ts
 * const urlpatterns: UrlPattern[] = [path('items/', itemList, { name: 'item-list' })];
 * ```
 */
export type UrlPattern = URLEntry;

/**
 * What {@link include} returns: routes to mount under a prefix.
 * @example
 * ```ts
 * const inc: Include = include([path('items/', itemList, { name: 'item-list' })], { namespace: 'v1' });
 * ```
 */
export class Include {
  /** The included routes. */
  readonly patterns: readonly URLEntry[];
  /** The instance namespace, or `null`. */
  readonly namespace: string | null;
  /** The application namespace, or `null`. */
  readonly appName: string | null;

  /** @internal */
  constructor(patterns: readonly URLEntry[], namespace: string | null, appName: string | null) {
    this.patterns = patterns;
    this.namespace = namespace;
    this.appName = appName;
  }
}

/**
 * Options of {@link path} and {@link rePath}.
 * @example
 * ```ts
 * const o: RouteOptions = { name: 'item-detail', kwargs: { format: 'json' } };
 * ```
 */
export interface RouteOptions {
  /** The name `reverse()` looks up (endpoints only). */
  name?: string;
  /** Extra keyword arguments for the view(s). */
  kwargs?: Record<string, unknown>;
  /**
   * Custom converters this route may use besides the built-in `int`,
   * `str`, `slug`, `uuid` and `path` (a custom name may not shadow one of
   * those). Only `path()` routes use converters.
   */
  converters?: Readonly<Record<string, PathConverter>>;
}

/**
 * Mounts routes under a prefix, optionally in a namespace. Namespaces nest
 * (`v1:nested:name`). An `appName` without a `namespace` names the instance
 * after the application; a `namespace` without `appName` uses the namespace
 * as the application name (Django refuses the latter; here it is allowed).
 * @example
 * ```ts
 * const routes = [
 *   path('v1/', include(apiRoutes, { namespace: 'v1' })),
 *   path('v2/', include(apiRoutes, { namespace: 'v2' })),
 * ];
 * ```
 */
export function include(
  patterns: readonly URLEntry[],
  options: { namespace?: string; appName?: string } = {},
): Include {
  // Checked through an `unknown` reference: Array.isArray() would narrow `patterns` to `readonly URLEntry[] & any[]`, with untyped entries.
  const given: unknown = patterns;
  if (!Array.isArray(given)) throw new ConfigurationError('include() needs an array of path()/rePath() entries.');
  for (const p of patterns) {
    if (!(p instanceof URLPattern) && !(p instanceof URLIncludePattern))
      throw new ConfigurationError('include() needs an array of path()/rePath() entries.');
  }
  for (const k of ['namespace', 'appName'] as const) {
    const v = options[k];
    if (v !== undefined && (typeof v !== 'string' || v === '' || v.includes(':')))
      throw new ConfigurationError(`include(): ${k} must be a non-empty string without ':'.`);
  }
  const appName = options.appName ?? options.namespace ?? null;
  return new Include([...patterns], options.namespace ?? appName, appName);
}

function isClass(f: unknown): boolean {
  return typeof f === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(f));
}

function makeEntry(
  matcherFor: (endpoint: boolean) => Matcher,
  view: ViewFunction | Include,
  options: RouteOptions,
  fn: string,
): URLEntry {
  const kwargs = options.kwargs ?? {};
  if (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs))
    throw new ConfigurationError(`${fn}(): kwargs must be an object.`);
  if (view instanceof Include) {
    if (options.name !== undefined)
      throw new ConfigurationError(`${fn}(): an include() takes no name; give it a namespace instead.`);
    return new URLIncludePattern(matcherFor(false), view, { ...kwargs });
  }
  if (typeof view !== 'function') throw new ConfigurationError(`${fn}(): the view must be a function or an include().`);
  if (isClass(view))
    throw new ConfigurationError(`${fn}(): got the class ${view.name}; pass ${view.name}.asView() instead.`);
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name.includes(':')))
    throw new ConfigurationError(`${fn}(): name must be a string without ':'.`);
  return new URLPattern(matcherFor(true), view, options.name ?? null, { ...kwargs });
}

/**
 * A route (`items/<int:pk>/`) to a view, or to an {@link include}.
 * Parameters are `<converter:name>` or `<name>` (a `str`); routes do not
 * start with `/`.
 * @example
 * ```ts
 * const routes = [
 *   path('items/', ItemList.asView(), { name: 'item-list' }),
 *   path('items/<int:pk>/', ItemDetail.asView(), { name: 'item-detail' }),
 *   path('v1/', include(apiRoutes, { namespace: 'v1' })),
 * ];
 * ```
 */
export function path(route: string, view: ViewFunction, options?: RouteOptions): URLPattern;
export function path(route: string, view: Include, options?: RouteOptions): URLIncludePattern;
export function path(route: string, view: ViewFunction | Include, options?: RouteOptions): URLEntry;
export function path(route: string, view: ViewFunction | Include, options: RouteOptions = {}): URLEntry {
  if (typeof route !== 'string') throw new ConfigurationError('path(): the route must be a string.');
  if (route.startsWith('/'))
    throw new ImproperlyConfigured(
      `URL route '${route}' starts with '/': routes are written without a leading slash ('${route.replace(/^\/+/, '')}').`,
    );
  const custom = options.converters;
  if (custom !== undefined) {
    if (typeof custom !== 'object' || custom === null || Array.isArray(custom))
      throw new ConfigurationError('path(): converters must be an object of name to converter.');
    for (const [name, converter] of Object.entries(custom)) checkConverter(name, converter);
  }
  return makeEntry((endpoint) => compileRoute(route, endpoint, custom), view, options, 'path');
}

/**
 * A `path()` whose routes may also use the given custom converters (Django's
 * `register_converter`, but owned by the routes that use it rather than
 * registered process-wide). Converters given in a route's own options are
 * added to these.
 * @example
 * ```ts
 * declare const archive: ViewFunction; // the articles of one year
 * const yyyy: PathConverter = { regex: '[0-9]{4}', toValue: Number, toUrl: (v) => String(v).padStart(4, '0') };
 * const datedPath = withConverters({ yyyy });
 * const routes = [datedPath('articles/<yyyy:year>/', archive, { name: 'archive' })];
 * ```
 */
export function withConverters(
  converters: Readonly<Record<string, PathConverter>>,
): (route: string, view: ViewFunction | Include, options?: RouteOptions) => URLEntry {
  for (const [name, converter] of Object.entries(converters)) checkConverter(name, converter);
  const shared = { ...converters };
  return (route, view, options = {}) =>
    path(route, view, { ...options, converters: { ...shared, ...options.converters } });
}

/**
 * A regular-expression route (Django's `re_path`). Named groups become
 * keyword arguments (strings); without named groups, the groups are
 * positional arguments. Python syntax (`(?P<name>...)`, `\Z`) is accepted.
 * An endpoint regex ending in `$` must match the whole path; one without
 * `$` matches a prefix (as in Django).
 * @example
 * ```ts
 * const routes = [rePath('^(?P<version>v1|v2)/items/$', itemList, { name: 'item-list' })];
 * ```
 */
export function rePath(regex: string | RegExp, view: ViewFunction, options?: RouteOptions): URLPattern;
export function rePath(regex: string | RegExp, view: Include, options?: RouteOptions): URLIncludePattern;
export function rePath(regex: string | RegExp, view: ViewFunction | Include, options?: RouteOptions): URLEntry;
export function rePath(regex: string | RegExp, view: ViewFunction | Include, options: RouteOptions = {}): URLEntry {
  if (typeof regex !== 'string' && !(regex instanceof RegExp))
    throw new ConfigurationError('rePath(): the pattern must be a string or a RegExp.');
  return makeEntry((endpoint) => compileRegex(regex, endpoint), view, options, 'rePath');
}

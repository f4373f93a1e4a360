/**
 * URL configuration in Django's style: {@link path}, {@link rePath} and
 * {@link include} build the entries, a {@link URLResolver} resolves request
 * paths to views and reverses view names to paths, custom converters ({@link withConverters})
 * adds path converters and {@link formatSuffixPatterns} adds `.json`-style
 * routes.
 *
 * @example
 * ```ts
 * import { URLResolver, path, include } from 'eventide/rest';
 * const resolver = new URLResolver([path('v1/', include([path('items/<int:pk>/', itemDetail, { name: 'item-detail' })], { namespace: 'v1' }))]);
 * resolver.reverse('v1:item-detail', { kwargs: { pk: 5 } }); // '/v1/items/5/'
 * ```
 * @module
 */
export { type PathConverter } from './converters.js';
export {
  URLPattern,
  URLIncludePattern,
  Include,
  include,
  path,
  rePath,
  withConverters,
  type URLEntry,
  type UrlPattern,
  type RouteOptions,
  type ViewFunction,
} from './patterns.js';
export { URLResolver, type ResolverMatch, type RouteInfo } from './resolver.js';
export { quotePath, type ReverseArgs } from './reverse.js';
export { formatSuffixPatterns } from './format-suffix.js';

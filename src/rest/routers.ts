/**
 * Routers generate the routes of viewsets: `prefix/` (list) and
 * `prefix/<lookup>/` (detail), named `<basename>-list` and
 * `<basename>-detail`. {@link DefaultRouter} adds an API root at `''`
 * that links to every registered list.
 *
 * @module
 */
import { ConfigurationError, NoReverseMatch } from './errors.js';
import type { Request } from './request.js';
import { Response } from './response.js';
import { reverse } from './reverse.js';
import { formatSuffixPatterns } from './urls/format-suffix.js';
import { rePath, type UrlPattern } from './urls/patterns.js';
import { APIView } from './views.js';
import { GenericAPIView } from './generics.js';
import { ReadOnlyModelViewSet, type ActionMap, type GenericViewSet } from './viewsets.js';

interface Registration {
  prefix: string;
  viewset: (new () => GenericViewSet) & { asViewSet: typeof GenericViewSet.asViewSet; prototype: GenericViewSet };
  basename: string;
}

const LIST: ActionMap = { get: 'list', post: 'create' };
const DETAIL: ActionMap = { get: 'retrieve', put: 'update', patch: 'partialUpdate', delete: 'destroy' };

/**
 * Whether a viewset offers an action. `list` and `retrieve` are defined on
 * every generic view (ListAPIView and RetrieveAPIView use them), so the
 * inherited ones count only for {@link ReadOnlyModelViewSet} and its
 * subclasses: a plain GenericViewSet with just `list()` gets no detail route
 * (as in DRF, where GenericViewSet has no actions of its own).
 */
function hasAction(viewset: Registration['viewset'], action: string): boolean {
  const proto = viewset.prototype as unknown as Record<string, unknown>;
  const fn = proto[action];
  if (typeof fn !== 'function') return false;
  if (
    fn === (GenericAPIView.prototype as unknown as Record<string, unknown>)[action] &&
    (viewset as unknown) !== ReadOnlyModelViewSet &&
    !(viewset.prototype instanceof ReadOnlyModelViewSet)
  )
    return false;
  return true;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Routes for registered viewsets.
 * @example
 * ```ts
 * const router = new SimpleRouter();
 * router.register('items', ItemViewSet, { basename: 'item' });
 * const urlpatterns = [...router.urls];
 * ```
 */
export class SimpleRouter {
  readonly #registry: Registration[] = [];
  readonly #trailingSlash: string;

  constructor(options: { trailingSlash?: boolean } = {}) {
    this.#trailingSlash = options.trailingSlash === false ? '' : '/';
  }

  /** Registers a viewset under a URL prefix (`basename` defaults to the prefix). */
  register(prefix: string, viewset: Registration['viewset'], options: { basename?: string } = {}): this {
    if (typeof viewset !== 'function' || typeof viewset.asViewSet !== 'function')
      throw new ConfigurationError(`register(${JSON.stringify(prefix)}): expected a viewset class.`);
    const basename = options.basename ?? prefix.replace(/\/+$/, '').split('/').pop() ?? prefix;
    if (basename === '')
      throw new ConfigurationError(
        `register(${JSON.stringify(prefix)}): give a basename; it cannot be derived from an empty prefix.`,
      );
    if (this.#registry.some((r) => r.basename === basename))
      throw new ConfigurationError(
        `Router with basename "${basename}" is already registered; give each registration a unique basename.`,
      );
    this.#registry.push({ prefix: prefix.replace(/^\/+|\/+$/g, ''), viewset, basename });
    return this;
  }

  /** What was registered. */
  get registry(): readonly { prefix: string; basename: string }[] {
    return this.#registry.map(({ prefix, basename }) => ({ prefix, basename }));
  }

  /** The generated routes. */
  get urls(): UrlPattern[] {
    const out: UrlPattern[] = [];
    for (const r of this.#registry) {
      const bound = (map: ActionMap): ActionMap =>
        Object.fromEntries(Object.entries(map).filter(([, a]) => hasAction(r.viewset, a)));
      const list = bound(LIST);
      const detail = bound(DETAIL);
      const p = escapeRegex(r.prefix);
      const inst = new r.viewset();
      const kwarg = inst.lookupUrlKwarg ?? inst.lookupField;
      const lookup = inst.lookupValueRegex ?? '[^/.]+';
      // An empty prefix (the router mounted where the resource lives) gives `^$` and `^<lookup>/$`, never a leading slash.
      const listRegex = p === '' ? '^$' : `^${p}${this.#trailingSlash}$`;
      const detailRegex = `^${p === '' ? '' : `${p}/`}(?<${kwarg}>${lookup})${this.#trailingSlash}$`;
      if (Object.keys(list).length)
        out.push(
          rePath(listRegex, r.viewset.asViewSet(list, { basename: r.basename, detail: false, suffix: 'List' }), {
            name: `${r.basename}-list`,
          }),
        );
      if (Object.keys(detail).length) {
        out.push(
          rePath(detailRegex, r.viewset.asViewSet(detail, { basename: r.basename, detail: true, suffix: 'Instance' }), {
            name: `${r.basename}-detail`,
          }),
        );
      }
    }
    return out;
  }
}

/**
 * A {@link SimpleRouter} with an API root view at `''` (name `api-root`)
 * answering `{"<prefix>": "<absolute URL of the list>", ...}`.
 * @example
 * ```ts
 * const router = new DefaultRouter();
 * router.register('items', ItemViewSet, { basename: 'item' });
 * const api = new RestApi({ urlpatterns: router.urls });
 * ```
 */
export class DefaultRouter extends SimpleRouter {
  readonly #formatSuffixes: boolean;

  /** `includeFormatSuffixes` (default true) adds `.json`-style routes, as DRF's DefaultRouter does. */
  constructor(options: { trailingSlash?: boolean; includeFormatSuffixes?: boolean } = {}) {
    super(options.trailingSlash === undefined ? {} : { trailingSlash: options.trailingSlash });
    this.#formatSuffixes = options.includeFormatSuffixes ?? true;
  }

  override get urls(): UrlPattern[] {
    const entries = this.registry.map((r) => [r.prefix, `${r.basename}-list`] as const);
    class APIRootView extends APIView {
      override description = 'The default basic root view for DefaultRouter';
      // The body: each registered prefix with the URL of its list (a prefix whose list cannot be reversed is left out).
      override openapi = {
        responseSchema: {
          type: 'object',
          properties: Object.fromEntries(entries.map(([prefix]) => [prefix, { type: 'string', format: 'uri' }])),
          additionalProperties: false,
        },
      };
      override get(request: Request): Response {
        const ns = request.resolverMatch?.namespace ?? '';
        const out: Record<string, string> = {};
        for (const [prefix, name] of entries) {
          try {
            const format = request.kwargs.format;
            out[prefix] = reverse(ns ? `${ns}:${name}` : name, {
              request,
              format: typeof format === 'string' ? format : null,
            });
          } catch (e) {
            if (!(e instanceof NoReverseMatch)) throw e;
          }
        }
        return new Response(out);
      }
    }
    Object.defineProperty(APIRootView, 'name', { value: 'ApiRootView' });
    const routes = [rePath('^$', APIRootView.asView(), { name: 'api-root' }), ...super.urls];
    return this.#formatSuffixes ? formatSuffixPatterns(routes) : routes;
  }
}

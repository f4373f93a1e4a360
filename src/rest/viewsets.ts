/**
 * Viewsets: one class holding the actions of a resource (`list`,
 * `retrieve`, ...), bound to HTTP methods when routed
 * (`asView({ get: 'list' })`), usually by a router.
 *
 * @module
 */
import { ConfigurationError, MethodNotAllowed } from './errors.js';
import { GenericAPIView } from './generics.js';
import type { Request } from './request.js';
import type { Response } from './response.js';
import type { ViewFunction } from './urls/patterns.js';
import { HTTP_METHOD_NAMES, type Handler, type ViewAttributes } from './views.js';

/**
 * HTTP method -> action name, as routers bind them.
 * @example
 * ```ts
 * const actions: ActionMap = { get: 'list' };
 * ```
 */
export type ActionMap = Partial<Record<(typeof HTTP_METHOD_NAMES)[number], string>>;

/**
 * A generic viewset: actions instead of method handlers. Subclass
 * {@link ReadOnlyModelViewSet} for list + retrieve. `Row` ties `queryset`
 * and `serializerClass` together, as in `GenericAPIView`.
 * @example
 * ```ts
 * class ItemViewSet extends GenericViewSet {
 *   override queryset = items;
 *   override serializerClass = ItemSerializer;
 *   override async list(request: Request) { return new Response(await this.getQueryset().all()); }
 * }
 * const listView = ItemViewSet.asViewSet({ get: 'list' });
 * ```
 */
export class GenericViewSet<Row extends object = object> extends GenericAPIView<Row> {
  /** The action of the current request (`list`, `retrieve`, ...). */
  action: string | null = null;
  /** The router's basename for this viewset. */
  basename: string | null = null;
  /** Whether the current route is a detail route. */
  detail = false;
  /** The regex routers give the lookup segment of detail routes (DRF's `lookup_value_regex`; `[0-9]+` for numeric keys). */
  lookupValueRegex = '[^/.]+';
  #actions: ActionMap = {};

  /**
   * A view function binding HTTP methods to actions.
   * @example
   * ```ts
   * path('items/', ItemViewSet.asViewSet({ get: 'list' }, { suffix: 'List' }), { name: 'item-list' });
   * ```
   */
  static asViewSet<V extends GenericViewSet>(
    this: new () => V,
    actions: ActionMap,
    initkwargs: ViewAttributes<V> = {},
  ): ViewFunction {
    if (Object.keys(actions).length === 0)
      throw new ConfigurationError(
        'asViewSet() needs at least one method -> action binding, for example { get: "list" }.',
      );
    const proto = this.prototype as unknown as Record<string, unknown>;
    for (const [method, action] of Object.entries(actions)) {
      if (!(HTTP_METHOD_NAMES as readonly string[]).includes(method))
        throw new ConfigurationError(`asViewSet(): ${method} is not an HTTP method name.`);
      if (typeof proto[action] !== 'function')
        throw new ConfigurationError(`asViewSet(): ${this.name} has no action ${action}.`);
    }
    const keys = Object.keys(initkwargs);
    const fn = (request: Request): Promise<Response> => {
      const view = new this();
      for (const k of keys)
        (view as unknown as Record<string, unknown>)[k] = (initkwargs as Record<string, unknown>)[k];
      view.#actions = actions;
      // DRF: OPTIONS is the implicit `metadata` action; HEAD runs GET's action.
      view.action =
        request.method === 'OPTIONS'
          ? (actions.options ?? 'metadata')
          : (actions[request.method.toLowerCase() as keyof ActionMap] ??
            (request.method === 'HEAD' ? (actions.get ?? null) : null));
      return view.dispatch(request);
    };
    return Object.assign(fn, { viewClass: this, initkwargs: { ...(initkwargs as Record<string, unknown>), actions } });
  }

  /** The methods bound on this route. */
  override get allowedMethods(): string[] {
    const out: string[] = [];
    for (const m of HTTP_METHOD_NAMES)
      if (this.#actions[m] !== undefined || (m === 'head' && this.#actions.get !== undefined) || m === 'options')
        out.push(m.toUpperCase());
    return out;
  }

  protected override handlerFor(method: string): Handler {
    const m = method.toLowerCase() as keyof ActionMap;
    const action = this.#actions[m] ?? (m === 'head' ? this.#actions.get : undefined);
    if (action !== undefined) {
      const fn = (this as unknown as Record<string, unknown>)[action];
      if (typeof fn === 'function') return fn as Handler;
    }
    // eslint-disable-next-line @typescript-eslint/unbound-method -- dispatch() calls handlers with handler.call(this, request)
    if (m === 'options') return this.options;
    return () => {
      throw new MethodNotAllowed(method, this.allowedMethods);
    };
  }
}

/**
 * A read-only viewset: `list` and `retrieve`, paginated like
 * `ListAPIView`.
 * @example
 * ```ts
 * class ItemViewSet extends ReadOnlyModelViewSet { override queryset = items; override serializerClass = ItemSerializer; }
 * const router = new DefaultRouter();
 * router.register('items', ItemViewSet, { basename: 'item' });
 * ```
 */
export class ReadOnlyModelViewSet<Row extends object = object> extends GenericViewSet<Row> {}

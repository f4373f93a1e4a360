/**
 * Generic views: {@link GenericAPIView} (queryset, serializer, filter
 * backends, pagination) and the ready-made {@link ListAPIView} and
 * {@link RetrieveAPIView}. Pagination applies automatically here, as in
 * Django REST framework; `paginationClass = null` turns it off.
 *
 * @module
 */
import type { ApiResponse, FilterBackendClass, PaginationClass, Paginator } from './contracts.js';
import { ArrayQueryset } from './data/array.js';
import { INVALID_POSITION, isQueryset, type Queryset } from './data/source.js';
import { ImproperlyConfigured, NotFound } from './errors.js';
import type { Request } from './request.js';
import type { SerializerContext } from './fields.js';
import { Response } from './response.js';
import { APIView } from './views.js';

/**
 * What a generic view needs of a serializer class: built with an instance
 * (or a list and `many: true`) and a context, it exposes `data`. With a
 * row type, a serializer declaring `toRepresentation(instance: Other)` for
 * an unrelated `Other` does not fit (`Serializer<Item>` fits
 * `SerializerLike<Item>`, `Serializer<Order>` does not).
 * @example
 * ```ts
 * const cls: SerializerLike<Item> = ItemSerializer;
 * ```
 */
export type SerializerLike<Row extends object = object> = new (
  instance: unknown,
  options?: { many?: boolean; context?: Record<string, unknown> },
) => { readonly data: unknown; toRepresentation?(instance: Row): unknown };

/**
 * The base of generic views: where the rows come from (`queryset` or
 * `getQueryset()`), how they render (`serializerClass` or
 * `getSerializerClass()`, which may pick per `request.version`), how they
 * are filtered (`filterBackends`) and paginated (`paginationClass`).
 *
 * `Row` (default `object`: any rows) ties them: in `ListAPIView<Item>` the
 * queryset must hold `Item`s and the serializer class take them
 * (`class Items extends ListAPIView<Item> { override queryset = items; override serializerClass = ItemSerializer; }`).
 * @example
 * ```ts
 * class Items extends GenericAPIView {
 *   override queryset = items;
 *   override serializerClass = ItemSerializer;
 *   override async get(request: Request) {
 *     const page = await this.paginateQueryset(this.filterQueryset(this.getQueryset()));
 *     return page ? this.getPaginatedResponse(this.getSerializer(page, { many: true }).data as unknown[]) : new Response([]);
 *   }
 * }
 * ```
 */
export class GenericAPIView<Row extends object = object> extends APIView {
  /** The rows: a Queryset or an array (wrapped in an `ArrayQueryset`). */
  queryset: Queryset<Row> | readonly Row[] | null = null;
  /** The serializer class. */
  serializerClass: SerializerLike<Row> | null = null;
  /** The field retrieve views look rows up by; `pk` means the queryset's primary key. */
  lookupField = 'pk';
  /** The URL keyword argument holding the lookup value (default: `lookupField`, or `pk` when the route says `pk`). */
  lookupUrlKwarg: string | null = null;
  /** The pagination style; `undefined` means `DEFAULT_PAGINATION_CLASS`, `null` turns pagination off. */
  paginationClass: PaginationClass | null | undefined = undefined;
  /** Filter backends; `undefined` means `DEFAULT_FILTER_BACKENDS`. */
  filterBackends: readonly FilterBackendClass[] | undefined = undefined;
  /** The default ordering (read by `OrderingFilter`). */
  ordering: string | readonly string[] | null = null;
  /** The fields a client may order by with `OrderingFilter` (`'__all__'` for every field). */
  orderingFields: readonly string[] | '__all__' | null = null;
  #paginator: Paginator | null | undefined = undefined;

  /** The queryset for this request (override to narrow it per request). */
  getQueryset(): Queryset<Row> {
    const qs = this.queryset;
    if (qs === null)
      throw new ImproperlyConfigured(
        `${this.constructor.name} should either include a \`queryset\` attribute, or override the \`getQueryset()\` method.`,
      );
    return isQueryset(qs) ? qs : new ArrayQueryset<Row>(qs);
  }

  /** The serializer class for this request (override to choose per `request.version`). */
  getSerializerClass(): SerializerLike<Row> {
    if (this.serializerClass === null)
      throw new ImproperlyConfigured(
        `${this.constructor.name} should either include a \`serializerClass\` attribute, or override the \`getSerializerClass()\` method.`,
      );
    return this.serializerClass;
  }

  /** The context handed to serializers: request, view and format. */
  getSerializerContext(): SerializerContext & { request: Request; view: GenericAPIView<Row> } {
    return { request: this.request, view: this, format: this.formatKwarg };
  }

  /** A serializer for an instance or (with `many`) a list. */
  getSerializer(instance: unknown, options: { many?: boolean } = {}): { readonly data: unknown } {
    const Cls = this.getSerializerClass();
    return new Cls(instance, { many: options.many ?? false, context: this.getSerializerContext() });
  }

  /** Runs the filter backends over a queryset. */
  filterQueryset<Row extends object>(queryset: Queryset<Row>): Queryset<Row> {
    let qs = queryset;
    for (const Backend of this.filterBackends ?? this.settings.DEFAULT_FILTER_BACKENDS)
      qs = new Backend().filterQueryset(this.request, qs, this);
    return qs;
  }

  /** The paginator of this request, or `null` when pagination is off. */
  get paginator(): Paginator | null {
    if (this.#paginator === undefined) {
      const cls = this.paginationClass === undefined ? this.settings.DEFAULT_PAGINATION_CLASS : this.paginationClass;
      this.#paginator = cls === null ? null : new cls();
    }
    return this.#paginator;
  }

  /** The rows of the requested page, or `null` when the list is not paginated. */
  async paginateQueryset<Row extends object>(queryset: Queryset<Row>): Promise<Row[] | null> {
    const p = this.paginator;
    return p === null ? null : p.paginateQueryset(queryset, this.request, this);
  }

  /** The paginated response for serialized page data. */
  getPaginatedResponse(data: unknown[]): ApiResponse {
    const p = this.paginator;
    if (p === null) throw new ImproperlyConfigured('getPaginatedResponse() called on a view without a paginator.');
    return p.getPaginatedResponse(data);
  }

  /** The row named by the URL (404 `Not found.` when there is none). */
  async getObject(): Promise<Row> {
    const kwarg =
      this.lookupUrlKwarg ??
      (this.lookupField in this.kwargs ? this.lookupField : 'pk' in this.kwargs ? 'pk' : this.lookupField);
    const raw = this.kwargs[kwarg];
    if (raw === undefined) {
      throw new ImproperlyConfigured(
        `Expected view ${this.constructor.name} to be called with a URL keyword argument named "${kwarg}". Fix your URL conf, or set \`lookupUrlKwarg\` on the view.`,
      );
    }
    const qs = this.filterQueryset(this.getQueryset());
    const field = this.lookupField === 'pk' ? qs.primaryKey : this.lookupField;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a URL keyword argument (a converter's value, of any type) is parsed from its String() text
    const value = qs.parsePosition(field, String(raw));
    if (value === INVALID_POSITION) throw new NotFound();
    const rows = await qs.filter(field, 'eq', value).slice(0, 1);
    if (rows.length === 0) throw new NotFound();
    return rows[0] as Row;
  }

  /** The list action: filter, paginate, serialize. */

  async list(_request: Request): Promise<ApiResponse> {
    const qs = this.filterQueryset(this.getQueryset());
    const page = await this.paginateQueryset(qs);
    if (page !== null) return this.getPaginatedResponse(this.getSerializer(page, { many: true }).data as unknown[]);
    return new Response(this.getSerializer(await qs.all(), { many: true }).data);
  }

  /** The retrieve action: one row by its lookup field. */

  async retrieve(_request: Request): Promise<Response> {
    return new Response(this.getSerializer(await this.getObject()).data);
  }
}

/**
 * Adds the list action as GET (DRF's `ListModelMixin` + `GenericAPIView`).
 * @example
 * ```ts
 * class ItemList extends ListAPIView {
 *   override queryset = items;
 *   override serializerClass = ItemSerializer;
 *   override paginationClass = PageNumberPagination;
 * }
 * ```
 */
export class ListAPIView<Row extends object = object> extends GenericAPIView<Row> {
  override get(request: Request): Promise<ApiResponse> {
    return this.list(request);
  }
}

/**
 * Adds the retrieve action as GET.
 * @example
 * ```ts
 * class ItemDetail extends RetrieveAPIView { override queryset = items; override serializerClass = ItemSerializer; }
 * path('items/<int:pk>/', ItemDetail.asView(), { name: 'item-detail' });
 * ```
 */
export class RetrieveAPIView<Row extends object = object> extends GenericAPIView<Row> {
  override get(request: Request): Promise<Response> {
    return this.retrieve(request);
  }
}

/**
 * A constructor of some generic view class (for mixins).
 * @example
 * ```ts
 * const Base: GenericViewConstructor = GenericAPIView;
 * ```
 */
export type GenericViewConstructor = abstract new () => GenericAPIView;

/**
 * DRF's `ListModelMixin` for custom bases: GET runs `list()`.
 * @example
 * ```ts
 * class Items extends ListModelMixin(GenericAPIView) { override queryset = items; }
 * ```
 */
export function ListModelMixin<T extends GenericViewConstructor>(Base: T): T {
  const Concrete = Base as unknown as typeof GenericAPIView;
  class WithList extends Concrete {
    override get(request: Request): Promise<ApiResponse> {
      return this.list(request);
    }
  }
  Object.defineProperty(WithList, 'name', { value: Base.name });
  return WithList as unknown as T;
}

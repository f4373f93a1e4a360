/**
 * Filter backends: classes a generic list view runs over its queryset before
 * paginating it (`filterBackends`, default `DEFAULT_FILTER_BACKENDS`).
 *
 * @module
 */
import type { FilterBackend, PaginatedView, SchemaParameter } from './contracts.js';
import type { Request } from './request.js';
import type { Queryset } from './data/source.js';
import { ImproperlyConfigured } from './errors.js';

export type { FilterBackendClass } from './contracts.js';

/**
 * The base of every filter backend.
 * @example
 * ```ts
 * class InStock extends BaseFilterBackend {
 *   override filterQueryset<Row extends object>(request: Request, qs: Queryset<Row>) { return qs.filter('stock', 'gt', 0); }
 * }
 * ```
 */
export abstract class BaseFilterBackend implements FilterBackend {
  /** Returns the narrowed (or reordered) queryset. */
  abstract filterQueryset<Row extends object>(
    request: Request,
    queryset: Queryset<Row>,
    view: PaginatedView,
  ): Queryset<Row>;
}

/**
 * Ordering chosen by the client: `?ordering=price,-created` (the parameter
 * name is the `ORDERING_PARAM` setting unless `orderingParam` is set).
 * Terms are split on commas and trimmed; a leading `-` means descending.
 * Only fields the view allows are kept: its `orderingFields`; every field
 * of the queryset with `'__all__'` (an explicit opt-in: hidden columns can
 * then be probed through the order of the results); without either, the
 * readable fields of the view's serializer (their `source`), as in DRF, and
 * a view with no serializer is misconfigured ({@link ImproperlyConfigured}).
 * When no valid term remains the view's `ordering` applies (a string is
 * one term).
 * `CursorPagination` asks this backend for its ordering too.
 * @example
 * ```ts
 * const view = { filterBackends: [OrderingFilter], orderingFields: ['price', 'created'], ordering: '-created' };
 * new OrderingFilter().getOrdering(request, items, view); // ['-price'] for ?ordering=-price,bogus
 * ```
 */
export class OrderingFilter extends BaseFilterBackend {
  /** The query parameter; `undefined` means the `ORDERING_PARAM` setting. */
  orderingParam: string | undefined = undefined;
  /** Its description in the OpenAPI document. */
  orderingDescription = 'Which field to use when ordering the results.';

  /** The name of the query parameter for this request. */
  getOrderingParam(request: Request): string {
    return this.orderingParam ?? request.settings.ORDERING_PARAM;
  }

  /** The valid ordering of the request, else the view's default, else `null`. */
  getOrdering<Row extends object>(request: Request, queryset: Queryset<Row>, view: PaginatedView): string[] | null {
    const raw = request.query.get(this.getOrderingParam(request));
    if (raw) {
      const terms = this.removeInvalidFields(
        queryset,
        raw.split(',').map((t) => t.trim()),
        view,
        request,
      );
      if (terms.length > 0) return terms;
    }
    return this.getDefaultOrdering(view);
  }

  /** The view's `ordering` as terms, or `null`. */
  getDefaultOrdering(view: PaginatedView): string[] | null {
    const ordering = view.ordering;
    if (ordering === null || ordering === undefined) return null;
    return typeof ordering === 'string' ? [ordering] : [...ordering];
  }

  /** The field names a client may order by. */
  getValidFields<Row extends object>(queryset: Queryset<Row>, view: PaginatedView, _request?: Request): string[] {
    const allowed = view.orderingFields;
    if (allowed === '__all__') return Object.keys(queryset.fields);
    if (allowed !== null && allowed !== undefined) return [...allowed];
    return this.getDefaultValidFields(queryset, view);
  }

  /**
   * The readable fields of the view's serializer, by source (DRF's
   * `get_default_valid_fields`): write-only fields and whole-object fields
   * (`source: '*'`, such as a hyperlinked identity) are left out, and so
   * are sources the queryset does not have.
   */
  getDefaultValidFields<Row extends object>(queryset: Queryset<Row>, view: PaginatedView): string[] {
    let cls: unknown;
    try {
      cls = typeof view.getSerializerClass === 'function' ? view.getSerializerClass() : null;
    } catch {
      cls = null;
    }
    const fields = (cls as { fields?: unknown } | null)?.fields;
    if (typeof fields !== 'object' || fields === null) {
      throw new ImproperlyConfigured(
        `Cannot use OrderingFilter on a view which does not have either a 'serializerClass', an overriding 'getSerializerClass' or 'orderingFields' attribute.`,
      );
    }
    const out: string[] = [];
    for (const [name, field] of Object.entries(
      fields as Record<string, { writeOnly?: boolean; source?: string | null }>,
    )) {
      if (field.writeOnly === true || field.source === '*') continue;
      const source = field.source ?? name;
      if (Object.hasOwn(queryset.fields, source)) out.push(source);
    }
    return out;
  }

  /** The terms naming a valid field (with at most one leading `-`). */
  removeInvalidFields<Row extends object>(
    queryset: Queryset<Row>,
    terms: readonly string[],
    view: PaginatedView,
    request: Request,
  ): string[] {
    const valid = new Set(this.getValidFields(queryset, view, request));
    return terms.filter((term) => valid.has(term.startsWith('-') ? term.slice(1) : term));
  }

  override filterQueryset<Row extends object>(
    request: Request,
    queryset: Queryset<Row>,
    view: PaginatedView,
  ): Queryset<Row> {
    const ordering = this.getOrdering(request, queryset, view);
    return ordering && ordering.length > 0 ? queryset.orderBy(...ordering) : queryset;
  }

  /**
   * The ordering query parameter for the OpenAPI document; its name is
   * `orderingParam`, else `settings.ORDERING_PARAM` when given, else
   * `ordering`. When the view's valid fields are known (its
   * `orderingFields`, its queryset's fields for `'__all__'`, else its
   * serializer's), the value is a comma-separated list of those fields, each
   * also with a leading `-` (`{"type": "array", "items": {"enum": ["price",
   * "-price", ...]}}`, `style: form`, `explode: false`); otherwise a string.
   */
  getSchemaOperationParameters(
    view?: PaginatedView | null,
    settings?: { readonly ORDERING_PARAM: string },
  ): SchemaParameter[] {
    const name = this.orderingParam ?? settings?.ORDERING_PARAM ?? 'ordering';
    const fields = view ? this.#schemaFields(view) : null;
    if (fields === null || fields.length === 0)
      return [
        { name, required: false, in: 'query', description: this.orderingDescription, schema: { type: 'string' } },
      ];
    return [
      {
        name,
        required: false,
        in: 'query',
        description: this.orderingDescription,
        schema: { type: 'array', items: { type: 'string', enum: fields.flatMap((f) => [f, `-${f}`]) } },
        style: 'form',
        explode: false,
      },
    ];
  }

  /** The valid fields of a view without a request, or `null` when they cannot be told. */
  #schemaFields(view: PaginatedView): string[] | null {
    const allowed = view.orderingFields;
    if (Array.isArray(allowed)) return [...(allowed as readonly string[])];
    try {
      const getQueryset = (view as { getQueryset?: () => Queryset<object> }).getQueryset;
      if (typeof getQueryset !== 'function') return null;
      return this.getValidFields(getQueryset.call(view), view);
    } catch {
      return null;
    }
  }
}

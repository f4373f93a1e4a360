/**
 * Custom pagination styles shipped ready to use: links in a `Link` header
 * ({@link LinkHeaderPagination}), a nested links envelope
 * ({@link EnvelopePagination}), and the client's `page_size=max`
 * ({@link PaginateByMaxPagination}, {@link PaginateByMaxCursorPagination},
 * {@link maxPageSizeRequested}).
 *
 * @module
 */
import type { Request } from '../request.js';
import { Response } from '../response.js';
import type { JsonSchema, PaginatedView, SchemaParameter, SchemaSettings } from './base.js';
import { CursorPagination } from './cursor.js';
import { PageNumberPagination } from './page-number.js';
import { removeQueryParam, replaceQueryParam } from '../query.js';

/**
 * Page-number pagination with the links in a `Link` response header
 * (RFC 8288) and the bare page as the body: `next` and `prev` where they
 * exist, then `first` and `last` (`last` only when the list is counted; see
 * `includeCount`). No header is sent for a list of one page. With
 * `totalCountHeader` set (`'X-Total-Count'`), the count is sent in that
 * header too.
 *
 * ```http
 * GET /link/items/?page=2 HTTP/1.1
 *
 * HTTP/1.1 200 OK
 * Link: <http://127.0.0.1:8000/link/items/?page=3>; rel="next", <http://127.0.0.1:8000/link/items/>; rel="prev", <http://127.0.0.1:8000/link/items/>; rel="first", <http://127.0.0.1:8000/link/items/?page=100>; rel="last"
 * X-Total-Count: 1000
 *
 * [{"id": 11, ...}, ...]
 * ```
 * @example
 * ```ts
 * class Items extends LinkHeaderPagination {
 *   override pageSize = 10;
 *   override totalCountHeader = 'X-Total-Count';
 * }
 * ```
 */
export class LinkHeaderPagination extends PageNumberPagination {
  /** A response header carrying the total count (`'X-Total-Count'`), or `null` (the default) for none. */
  totalCountHeader: string | null = null;

  override getPaginatedResponse(data: unknown[]): Response {
    const next = this.getNextLink();
    const previous = this.getPreviousLink();
    const links: string[] = [];
    if (next !== null) links.push(`<${next}>; rel="next"`);
    if (previous !== null) links.push(`<${previous}>; rel="prev"`);
    const page = this.page;
    const request = this.request;
    if (links.length > 0 && request !== null) {
      const url = request.buildAbsoluteUri();
      links.push(`<${removeQueryParam(url, this.pageQueryParam)}>; rel="first"`);
      if (page !== null) {
        const last = page.numPages;
        links.push(
          `<${last === 1 ? removeQueryParam(url, this.pageQueryParam) : replaceQueryParam(url, this.pageQueryParam, last)}>; rel="last"`,
        );
      }
    }
    const response = new Response(data);
    if (links.length > 0) response.setHeader('Link', links.join(', '));
    if (this.totalCountHeader !== null && page !== null) response.setHeader(this.totalCountHeader, String(page.count));
    return response;
  }

  /**
   * The bare page: the results list's schema. The links are in the `Link`
   * header, which the OpenAPI document declares on the response.
   */
  override getPaginatedResponseSchema(schema: JsonSchema, _options: { url?: string | null } = {}): JsonSchema {
    return schema;
  }
}

/**
 * Page-number pagination with the links nested:
 * `{links: {next, previous}, count, results}`.
 * @example
 * ```ts
 * class Items extends EnvelopePagination { override pageSize = 10; }
 * // {"links": {"next": "http://h/items/?page=3", "previous": "http://h/items/"}, "count": 42, "results": [...]}
 * ```
 */
export class EnvelopePagination extends PageNumberPagination {
  override getPaginatedResponse(data: unknown[]): Response {
    return new Response({
      links: { next: this.getNextLink(), previous: this.getPreviousLink() },
      count: this.page?.count ?? 0,
      results: data,
    });
  }

  /** `{links: {next, previous}, count, results}`, the links as {@link PageNumberPagination}'s (with their examples). */
  override getPaginatedResponseSchema(schema: JsonSchema, options: { url?: string | null } = {}): JsonSchema {
    const base = super.getPaginatedResponseSchema(schema, options) as { properties: Record<string, JsonSchema> };
    return {
      type: 'object',
      required: ['links', 'count', 'results'],
      properties: {
        links: {
          type: 'object',
          required: ['next', 'previous'],
          properties: { next: base.properties['next'], previous: base.properties['previous'] },
        },
        // The envelope always counts (0 without a page).
        count: base.properties['count'] ?? { type: 'integer', minimum: 0, examples: [123] },
        results: schema,
      },
    };
  }
}

/**
 * The `page_size=max` rule of the PaginateByMaxMixin extension: when the
 * paginator has a page-size parameter and a `maxPageSize`, and the client
 * sends the literal `max` as the page size, the answer is `maxPageSize`;
 * otherwise `null` (use the usual rule). Call it from `getPageSize()` of
 * your own subclass.
 * @example
 * ```ts
 * class Items extends PageNumberPagination {
 *   override pageSizeQueryParam = 'page_size';
 *   override maxPageSize = 500;
 *   override getPageSize(request: Request) { return maxPageSizeRequested(request, this) ?? super.getPageSize(request); }
 * }
 * ```
 */
export function maxPageSizeRequested(
  request: Request,
  paginator: { readonly pageSizeQueryParam: string | null; readonly maxPageSize: number | null },
): number | null {
  const param = paginator.pageSizeQueryParam;
  if (!param || !paginator.maxPageSize) return null;
  return request.query.get(param) === 'max' ? paginator.maxPageSize : null;
}

/** The page-size parameter of `params` also accepting `max` (when the class has a cap the value stands for). */
function withMaxSize(
  params: SchemaParameter[],
  paginator: { readonly pageSizeQueryParam: string | null; readonly maxPageSize: number | null },
): SchemaParameter[] {
  if (!paginator.pageSizeQueryParam || !paginator.maxPageSize) return params;
  return params.map((p) =>
    p.name === paginator.pageSizeQueryParam
      ? { ...p, schema: { anyOf: [p.schema, { type: 'string', enum: ['max'] }] } }
      : p,
  );
}

/**
 * {@link PageNumberPagination} where `?page_size=max` (the page-size
 * parameter with the value `max`) gives `maxPageSize` rows.
 * @example
 * ```ts
 * class Items extends PaginateByMaxPagination {
 *   override pageSizeQueryParam = 'page_size';
 *   override maxPageSize = 500;
 * }
 * ```
 */
export class PaginateByMaxPagination extends PageNumberPagination {
  override getPageSize(request: Request): number | null {
    return maxPageSizeRequested(request, this) ?? super.getPageSize(request);
  }

  /** The page size is a positive integer or `max`. */
  override getSchemaOperationParameters(
    view?: PaginatedView | null,
    settings?: SchemaSettings | null,
  ): SchemaParameter[] {
    return withMaxSize(super.getSchemaOperationParameters(view, settings), this);
  }
}

/**
 * {@link CursorPagination} where `?page_size=max` (the page-size parameter
 * with the value `max`) gives `maxPageSize` rows.
 * @example
 * ```ts
 * class Feed extends PaginateByMaxCursorPagination {
 *   override pageSizeQueryParam = 'page_size';
 *   override maxPageSize = 200;
 * }
 * ```
 */
export class PaginateByMaxCursorPagination extends CursorPagination {
  override getPageSize(request: Request): number | null {
    return maxPageSizeRequested(request, this) ?? super.getPageSize(request);
  }

  /** The page size is a positive integer or `max`. */
  override getSchemaOperationParameters(
    view?: PaginatedView | null,
    settings?: SchemaSettings | null,
  ): SchemaParameter[] {
    return withMaxSize(super.getSchemaOperationParameters(view, settings), this);
  }
}

/**
 * The contract every pagination style implements (Django REST framework's
 * `BasePagination`). A style keeps per-request state on its instance: the
 * view builds one paginator per request.
 *
 * @module
 */
import type { Request } from '../request.js';
import type { Response } from '../response.js';
import type { Queryset } from '../data/source.js';
import { renderTemplate, type PaginationTemplate } from './html.js';

/**
 * What a paginator may read from the view that uses it (its filter backends
 * for the cursor style's ordering, the view's `ordering` attribute).
 * @example
 * ```ts
 * const view: PaginatedView = { filterBackends: [OrderingFilter], ordering: ['-created'], orderingFields: ['created'] };
 * ```
 */
export interface PaginatedView {
  /** The request being handled (any view class has it; makes `this` of an `APIView` fit). */
  readonly request?: unknown;
  /** Filter backend classes of the view. */
  readonly filterBackends?: readonly (new () => object)[] | undefined;
  /** The view's default ordering (used by `OrderingFilter`). */
  readonly ordering?: string | readonly string[] | null | undefined;
  /** The fields a client may order by (`'__all__'` for every field). */
  readonly orderingFields?: readonly string[] | '__all__' | null | undefined;
}

/**
 * An OpenAPI query-parameter object as the schema methods return it.
 * @example
 * ```ts
 * const p: SchemaParameter = { name: 'page', required: false, in: 'query', description: 'A page number within the paginated result set.', schema: { type: 'integer' } };
 * ```
 */
export interface SchemaParameter {
  name: string;
  required: boolean;
  in: 'query';
  description: string;
  schema: { type: 'integer' | 'string' };
}

/**
 * The context the HTML controls are rendered from.
 * @example
 * ```ts
 * const ctx: HtmlContext = { previous_url: null, next_url: 'http://h/items/?page=2', page_links: [] };
 * ```
 */
export interface HtmlContext {
  previous_url: string | null;
  next_url: string | null;
  page_links?: PageLink[];
}

/**
 * One entry of the page-number controls: a page, or a break (`…`).
 * @example
 * ```ts
 * const link: PageLink = { url: 'http://h/items/?page=2', number: 2, isActive: false, isBreak: false };
 * ```
 */
export interface PageLink {
  url: string | null;
  number: number | null;
  isActive: boolean;
  isBreak: boolean;
}

/**
 * A JSON-schema object (OpenAPI 3.1 dialect).
 * @example
 * ```ts
 * const s: JsonSchema = { type: 'array', items: { type: 'object' } };
 * ```
 */
export type JsonSchema = { [key: string]: unknown };

/**
 * The base of every pagination style. Subclass it (or a built-in style) to
 * write your own: implement `paginateQueryset` and `getPaginatedResponse`,
 * and set `displayPageControls` when HTML controls should show.
 * @example
 * ```ts
 * class FirstTen extends BasePagination {
 *   override async paginateQueryset(qs: Queryset) { return qs.slice(0, 10); }
 *   override getPaginatedResponse(data: unknown[]) { return new Response({ first: data }); }
 * }
 * ```
 */
export abstract class BasePagination {
  /** Whether the browsable interface shows this paginator's controls for the current page. */
  displayPageControls = false;

  /**
   * The rows of the requested page, or `null` when pagination does not
   * apply to this request (the view then returns the whole list).
   */
  abstract paginateQueryset<Row extends object>(queryset: Queryset<Row> | readonly Row[], request: Request, view?: PaginatedView | null): Promise<Row[] | null>;

  /** The response for a serialized page. */
  abstract getPaginatedResponse(data: unknown[]): Response;

  /** The absolute URL of the next page, or `null`. */
  getNextLink(): string | null {
    return null;
  }

  /** The absolute URL of the previous page, or `null`. */
  getPreviousLink(): string | null {
    return null;
  }

  /** The context of the HTML controls. */
  getHtmlContext(): HtmlContext {
    return { previous_url: this.getPreviousLink(), next_url: this.getNextLink() };
  }

  /**
   * The HTML controls' template: a registered name or a function; `null`
   * (the default here) means no controls. The built-in styles set their own.
   */
  template: string | PaginationTemplate | null = null;

  /** The HTML of the controls: the template rendered with {@link getHtmlContext} (empty without a template). */
  toHtml(): string {
    return this.template === null ? '' : renderTemplate(this.template, this.getHtmlContext());
  }

  /** The query parameters this style reads, for the OpenAPI document. */
  getSchemaOperationParameters(_view?: PaginatedView | null): SchemaParameter[] {
    return [];
  }

  /** The response schema of a page, given the schema of the results list. */
  getPaginatedResponseSchema(schema: JsonSchema): JsonSchema {
    return schema;
  }
}

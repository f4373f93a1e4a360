/**
 * The contract every pagination style implements (Django REST framework's
 * `BasePagination`). A style keeps per-request state on its instance: the
 * view builds one paginator per request.
 *
 * @module
 */
import type {
  JsonSchema,
  PaginatedView,
  Paginator,
  SchemaError,
  SchemaParameter,
  SchemaSettings,
} from '../contracts.js';
import type { Request } from '../request.js';
import type { Response } from '../response.js';
import type { Queryset } from '../data/source.js';
import { renderTemplate, type HtmlContext, type PaginationTemplate } from './html.js';

export type { JsonSchema, PaginatedView, SchemaError, SchemaParameter, SchemaSettings } from '../contracts.js';
export type { HtmlContext, PageLink } from './html.js';

/**
 * The base of every pagination style. Subclass it (or a built-in style) to
 * write your own: implement `paginateQueryset` and `getPaginatedResponse`,
 * and set `displayPageControls` when HTML controls should show.
 * @example
 * ```ts
 * class FirstTen extends BasePagination {
 *   override async paginateQueryset<Row extends object>(qs: Queryset<Row> | readonly Row[]) { return asQueryset(qs).slice(0, 10); }
 *   override getPaginatedResponse(data: unknown[]) { return new Response({ first: data }); }
 * }
 * ```
 */
export abstract class BasePagination implements Paginator {
  /** Whether the browsable interface shows this paginator's controls for the current page. */
  displayPageControls = false;

  /**
   * The rows of the requested page, or `null` when pagination does not
   * apply to this request (the view then returns the whole list).
   */
  abstract paginateQueryset<Row extends object>(
    queryset: Queryset<Row> | readonly Row[],
    request: Request,
    view?: PaginatedView | null,
  ): Promise<Row[] | null>;

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
   * The HTML controls' template: a name (of the API's `PAGINATION_TEMPLATES`
   * or a built-in template) or a function; `null`
   * (the default here) means no controls. The built-in styles set their own.
   */
  template: string | PaginationTemplate | null = null;

  /**
   * The HTML of the controls: the template rendered with
   * {@link getHtmlContext} (empty without a template). A template given by
   * name is looked up in `templates` (the browsable page passes the API's
   * `PAGINATION_TEMPLATES`), then among the built-in ones.
   */
  toHtml(templates?: Readonly<Record<string, PaginationTemplate>>): string {
    return this.template === null ? '' : renderTemplate(this.template, this.getHtmlContext(), templates);
  }

  /**
   * The query parameters this style reads, for the OpenAPI document, with
   * the limits the style keeps (`minimum`, and `maximum` from its own cap
   * or, without one, the API's `MAX_PAGE_SIZE` / `MAX_LIMIT` in `settings`).
   */
  getSchemaOperationParameters(_view?: PaginatedView | null, _settings?: SchemaSettings | null): SchemaParameter[] {
    return [];
  }

  /**
   * The error answers of a list this style paginates, with the exact body
   * the style sends (404 `Invalid page.`, 404 `Invalid cursor`, 400 field
   * errors), for the OpenAPI document. The base: none.
   */
  getSchemaErrors(): SchemaError[] {
    return [];
  }

  /** The response schema of a page, given the schema of the results list. */
  getPaginatedResponseSchema(schema: JsonSchema): JsonSchema {
    return schema;
  }
}

/**
 * What a paginator contributes to a list operation of an OpenAPI document:
 * the response schema (from `getPaginatedResponseSchema(schema, { url })`,
 * the `url` being the endpoint's own URL so that the `next`/`previous`
 * examples are real links of it) and the response headers (from the
 * optional `getPaginatedResponseHeaders({ url })`; the `Link` header, and
 * the total-count header when one is set, for {@link LinkHeaderPagination}
 * and its subclasses that do not define it).
 *
 * @module
 */
import type { JsonSchema, Paginator } from './contracts.js';
import { LinkHeaderPagination } from './pagination/styles.js';
import { removeQueryParam, replaceQueryParam } from './query.js';

/**
 * The second argument of a paginator's `getPaginatedResponseSchema()` and of
 * its optional `getPaginatedResponseHeaders()`: the endpoint's URL, absolute
 * when the server is known (`https://api.example.com/items/`), else its path
 * (`/items/`); `null` or absent: unknown (the schemas then have no link
 * examples).
 * @example
 * ```ts
 * class Items extends PageNumberPagination {
 *   getPaginatedResponseHeaders(options: PaginatedSchemaOptions = {}) {
 *     return { 'X-Page': { description: `The page number of ${options.url ?? 'the list'}.`, schema: { type: 'integer' } } };
 *   }
 * }
 * ```
 */
export interface PaginatedSchemaOptions {
  /** The endpoint's URL (server URL and operation path), or `null` when unknown. */
  url?: string | null;
}

/**
 * A paginator as the OpenAPI generator calls it: the {@link Paginator}
 * contract, a `getPaginatedResponseSchema()` that takes the endpoint's URL,
 * and the optional `getPaginatedResponseHeaders()` (OpenAPI Header Objects
 * by header name).
 * @example
 * ```ts
 * const p = new PageNumberPagination() as SchemaPaginator;
 * p.getPaginatedResponseSchema({ type: 'array' }, { url: 'https://api.example.com/items/' });
 * ```
 */
export interface SchemaPaginator extends Paginator {
  getPaginatedResponseSchema(schema: JsonSchema, options?: PaginatedSchemaOptions): JsonSchema;
  getPaginatedResponseHeaders?(options?: PaginatedSchemaOptions): Record<string, JsonSchema> | null | undefined;
}

/**
 * The response headers of {@link LinkHeaderPagination}: `Link` (with an
 * example of the endpoint's links at page 2 when its URL is known) and, when the
 * paginator has a `totalCountHeader` name set, that header with the total
 * count. The property is read defensively: a paginator without it has no
 * count header.
 * @example
 * ```ts
 * linkPaginationHeaders(new LinkHeaderPagination(), { url: 'http://h/items/' });
 * // { Link: { description: '...', required: false, schema: { type: 'string' },
 * //   example: '<http://h/items/?page=3>; rel="next", <http://h/items/>; rel="prev", <http://h/items/>; rel="first", <http://h/items/?page=13>; rel="last"' } }
 * ```
 */
export function linkPaginationHeaders(
  paginator: LinkHeaderPagination,
  options: PaginatedSchemaOptions = {},
): Record<string, JsonSchema> {
  const url = options.url ?? null;
  const counted = paginator.includeCount;
  const link: JsonSchema = {
    description:
      'The links of the list (RFC 8288): `rel="next"` and `rel="prev"` where those pages exist, then `rel="first"`' +
      (counted ? ' and `rel="last"`' : ' (no `rel="last"`: the list is not counted)') +
      '; no header for a list of one page.',
    required: false,
    schema: { type: 'string' },
  };
  if (url !== null) {
    const param = paginator.pageQueryParam;
    const first = removeQueryParam(url, param);
    link.example =
      `<${replaceQueryParam(url, param, 3)}>; rel="next", <${first}>; rel="prev", <${first}>; rel="first"` +
      (counted ? `, <${replaceQueryParam(url, param, 13)}>; rel="last"` : '');
  }
  const headers: Record<string, JsonSchema> = { Link: link };
  const total = (paginator as { totalCountHeader?: unknown }).totalCountHeader;
  if (typeof total === 'string' && total !== '') {
    headers[total] = {
      description: 'The total number of results of the list.',
      required: false,
      schema: { type: 'integer', minimum: 0 },
      example: 123,
    };
  }
  return headers;
}

/**
 * The response of a paginated list operation: the paginator's page schema
 * around `list` (the schema of the results list), and the response headers
 * it sends (none for most styles).
 * @example
 * ```ts
 * const { schema, headers } = paginatedResponse(new LinkHeaderPagination(), { type: 'array' }, { url: '/items/' });
 * // schema: { type: 'array' }; headers: { Link: {...} }
 * ```
 */
export function paginatedResponse(
  paginator: Paginator,
  list: JsonSchema,
  options: PaginatedSchemaOptions = {},
): { schema: JsonSchema; headers: Record<string, JsonSchema> } {
  const p = paginator as SchemaPaginator;
  const schema = p.getPaginatedResponseSchema(list, options);
  let headers: Record<string, JsonSchema> = {};
  if (typeof p.getPaginatedResponseHeaders === 'function') headers = p.getPaginatedResponseHeaders(options) ?? {};
  else if (paginator instanceof LinkHeaderPagination) headers = linkPaginationHeaders(paginator, options);
  return { schema, headers };
}

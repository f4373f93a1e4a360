/**
 * Limit/offset pagination (`?limit=10&offset=40`).
 *
 * @module
 */
import { asQueryset } from '../data/array.js';
import type { Queryset } from '../data/source.js';
import { ConfigurationError } from '../errors.js';
import { positiveInt, pyIntBig, removeQueryParam, replaceQueryParam } from '../query.js';
import type { Request } from '../request.js';
import { Response } from '../response.js';
import {
  BasePagination,
  type HtmlContext,
  type JsonSchema,
  type PaginatedView,
  type SchemaParameter,
  type SchemaSettings,
} from './base.js';
import { exactCount, type CountStrategy } from './count.js';
import { pageSizeSchema, resolvePageSize } from './page-number.js';
import { NUMBERS_TEMPLATE, getDisplayedPageNumbers, getPageLinks, type PaginationTemplate } from './html.js';

interface State {
  request: Request;
  /** The count, or -1 when the list is not counted (`includeCount = false`). */
  count: number;
  /** Without a count: whether a row follows the page. */
  hasNext: boolean;
  limit: number;
  offset: number;
  /** The offset as the client wrote it when it is beyond 2^53 - 1 (links carry it exactly, as DRF's Python integers do); else null. */
  exactOffset: bigint | null;
}

/**
 * Limit/offset pagination: `limit` rows starting at `offset`. The body is
 * `{count, next, previous, results}`. An invalid, zero or negative `limit`
 * falls back to `defaultLimit`, a larger one is clamped to `maxLimit`; an
 * invalid or negative `offset` is 0, and an offset past the end gives an
 * empty page. This style never answers an error. Links always carry the
 * effective `limit`; the link back to offset 0 drops `offset`. An offset or
 * limit beyond any table (`?offset=99999999999999999999`) never reaches the
 * database as such: the offset is past the end (an empty page whose links
 * carry DRF's exact arithmetic), the limit reads to the end.
 * @example
 * ```ts
 * class Items extends LimitOffsetPagination {
 *   override defaultLimit = 20;
 *   override maxLimit = 100;
 * }
 * ```
 */
export class LimitOffsetPagination extends BasePagination {
  /** The limit when the client gives none; `undefined` means the `PAGE_SIZE` setting, `null` turns pagination off unless the client sends a limit. */
  defaultLimit: number | null | undefined = undefined;
  /** The limit query parameter. */
  limitQueryParam = 'limit';
  /** Its description in the OpenAPI document. */
  limitQueryDescription = 'Number of results to return per page.';
  /** The offset query parameter. */
  offsetQueryParam = 'offset';
  /** Its description in the OpenAPI document. */
  offsetQueryDescription = 'The initial index from which to return the results.';
  /** The largest limit a client may ask for (`null`: the `MAX_LIMIT` setting; 0: no cap). */
  maxLimit: number | null = null;
  /** The HTML controls' template: a registered name or a function; `null` disables the controls. */
  override template: string | PaginationTemplate | null = NUMBERS_TEMPLATE;
  /** How the envelope's `count` is computed (see `count.ts`). */
  countStrategy: CountStrategy = exactCount;
  /**
   * With `false`, nothing is counted: the page is read with one extra row,
   * which tells whether a next page exists, and the body is
   * `{next, previous, results}` without `count`; the HTML controls show the
   * pages up to the next one.
   */
  includeCount = true;

  #state: State | null = null;
  #request: Request | null = null;

  /** The request of the last {@link paginateQueryset} call. */
  get request(): Request | null {
    return this.#request;
  }

  /** The count of the current page's list (after {@link paginateQueryset}; `null` when not counted). */
  get count(): number | null {
    const c = this.#state?.count;
    return c === undefined || c < 0 ? null : c;
  }

  /** The effective limit (after {@link paginateQueryset}). */
  get limit(): number | null {
    return this.#state?.limit ?? null;
  }

  /** The effective offset (after {@link paginateQueryset}). */
  get offset(): number | null {
    return this.#state?.offset ?? null;
  }

  /** The limit for this request, or `null` for no pagination. */
  getLimit(request: Request): number | null {
    return resolvePageSize(
      request,
      { pageSize: this.defaultLimit, pageSizeQueryParam: this.limitQueryParam || null, maxPageSize: this.maxLimit },
      'MAX_LIMIT',
    );
  }

  /** The offset for this request (0 when absent or invalid). */
  getOffset(request: Request): number {
    const raw = request.query.get(this.offsetQueryParam);
    return (raw === null ? null : positiveInt(raw)) ?? 0;
  }

  override async paginateQueryset<Row extends object>(
    queryset: Queryset<Row> | readonly Row[],
    request: Request,
    _view?: PaginatedView | null,
  ): Promise<Row[] | null> {
    this.#request = request;
    this.#state = null;
    this.displayPageControls = false;
    const limit = this.getLimit(request);
    if (limit === null || limit === undefined) return null;
    const qs = asQueryset(queryset);
    const offset = this.getOffset(request);
    if (!this.includeCount) {
      const rows = await qs.slice(offset, offset + limit + 1);
      const hasNext = rows.length > limit;
      this.#state = { request, count: -1, hasNext, limit, offset, exactOffset: null };
      if ((hasNext || offset > 0) && this.template !== null) this.displayPageControls = true;
      return rows.slice(0, limit);
    }
    const count = await this.countStrategy.count(qs);
    this.#state = {
      request,
      count,
      hasNext: false,
      limit,
      offset,
      exactOffset: Number.isSafeInteger(offset) || !Number.isInteger(limit) ? null : this.#exactOffset(request, offset),
    };
    if (count > limit && this.template !== null) this.displayPageControls = true;
    if (count === 0 || offset > count) return [];
    return qs.slice(offset, offset + limit);
  }

  #current(): State {
    if (this.#state === null) throw new ConfigurationError('LimitOffsetPagination: call paginateQueryset() first.');
    return this.#state;
  }

  /** An offset beyond 2^53 - 1 exactly: the client's text when it reads as this offset, else the number's value. */
  #exactOffset(request: Request, offset: number): bigint | null {
    const raw = request.query.get(this.offsetQueryParam);
    const exact = raw === null ? null : pyIntBig(raw);
    if (exact !== null && Number(exact) === offset) return exact;
    return Number.isFinite(offset) ? BigInt(offset) : null;
  }

  override getPaginatedResponse(data: unknown[]): Response {
    if (this.#current().count < 0)
      return new Response({ next: this.getNextLink(), previous: this.getPreviousLink(), results: data });
    return new Response({
      count: this.#current().count,
      next: this.getNextLink(),
      previous: this.getPreviousLink(),
      results: data,
    });
  }

  override getNextLink(): string | null {
    const { request, count, limit, offset, hasNext } = this.#current();
    if (count < 0 ? !hasNext : offset + limit >= count) return null;
    const url = replaceQueryParam(request.buildAbsoluteUri(), this.limitQueryParam, limit);
    return replaceQueryParam(url, this.offsetQueryParam, offset + limit);
  }

  override getPreviousLink(): string | null {
    const { request, limit, offset, exactOffset } = this.#current();
    if (offset <= 0) return null;
    const url = replaceQueryParam(request.buildAbsoluteUri(), this.limitQueryParam, limit);
    if (exactOffset !== null) return replaceQueryParam(url, this.offsetQueryParam, exactOffset - BigInt(limit));
    if (offset - limit <= 0) return removeQueryParam(url, this.offsetQueryParam);
    return replaceQueryParam(url, this.offsetQueryParam, offset - limit);
  }

  override getHtmlContext(): HtmlContext {
    const { request, limit, offset, exactOffset, hasNext } = this.#current();
    let count = this.#current().count;
    // Without a count the known pages end at the next one.
    if (count < 0) count = offset + (hasNext ? limit + 1 : 1);
    const base = request.buildAbsoluteUri();
    // Past the end, offsets may be beyond 2^53: DRF's integer arithmetic, exactly.
    if (limit > 0 && Number.isInteger(limit) && (exactOffset !== null || (offset > count && Number.isInteger(offset))))
      return this.#pastTheEndHtmlContext(base, count, limit, exactOffset ?? BigInt(offset));
    let current = 1;
    let final = 1;
    if (limit) {
      current = Math.ceil(offset / limit) + 1;
      final = Math.max(1, Math.ceil((count - offset) / limit) + Math.ceil(offset / limit));
    }
    if (current > final) current = final;
    const urlFor = (n: number): string =>
      n === 1
        ? removeQueryParam(base, this.offsetQueryParam)
        : replaceQueryParam(base, this.offsetQueryParam, offset + (n - current) * limit);
    return {
      previous_url: this.getPreviousLink(),
      next_url: this.getNextLink(),
      page_links: getPageLinks(getDisplayedPageNumbers(current, final), current, urlFor),
    };
  }

  /** {@link getHtmlContext} for an offset past the end, in exact integers as DRF computes it. */
  #pastTheEndHtmlContext(base: string, count: number, limit: number, offset: bigint): HtmlContext {
    const l = BigInt(limit);
    const ceilDiv = (a: bigint): bigint => a / l + (a % l > 0n ? 1n : 0n); // l > 0; bigint division truncates
    let current = ceilDiv(offset) + 1n;
    let final = ceilDiv(BigInt(count) - offset) + ceilDiv(offset);
    if (final < 1n) final = 1n;
    if (current > final) current = final;
    const urlFor = (n: number): string =>
      n === 1
        ? removeQueryParam(base, this.offsetQueryParam)
        : replaceQueryParam(base, this.offsetQueryParam, offset + (BigInt(n) - current) * l);
    return {
      previous_url: this.getPreviousLink(),
      next_url: this.getNextLink(),
      // The page count is the list's (count / limit + 1 at most): small enough for numbers.
      page_links: getPageLinks(getDisplayedPageNumbers(Number(current), Number(final)), Number(current), urlFor),
    };
  }

  /** `limit`: a positive integer up to `maxLimit` (else `MAX_LIMIT`); `offset`: an integer from 0. */
  override getSchemaOperationParameters(
    _view?: PaginatedView | null,
    settings?: SchemaSettings | null,
  ): SchemaParameter[] {
    return [
      {
        name: this.limitQueryParam,
        required: false,
        in: 'query',
        description: this.limitQueryDescription,
        schema: pageSizeSchema(this.maxLimit, settings, 'MAX_LIMIT'),
      },
      {
        name: this.offsetQueryParam,
        required: false,
        in: 'query',
        description: this.offsetQueryDescription,
        schema: { type: 'integer', minimum: 0 },
      },
    ];
  }

  /**
   * The response schema of a page: `{count, next, previous, results}`
   * (no `count` when `includeCount` is false), `next` and `previous` a URI
   * or `null` (JSON Schema 2020-12 type arrays). With `options.url` (the
   * endpoint's URL, as the OpenAPI generator passes it), the links have
   * examples of that endpoint (`<url>?limit=100&offset=400` and `offset=200`,
   * the limit being `defaultLimit` when set).
   */
  override getPaginatedResponseSchema(schema: JsonSchema, options: { url?: string | null } = {}): JsonSchema {
    const url = options.url ?? null;
    const limit = typeof this.defaultLimit === 'number' && this.defaultLimit > 0 ? this.defaultLimit : 100;
    const link = (offset: number): JsonSchema =>
      url === null
        ? { type: ['string', 'null'], format: 'uri' }
        : {
            type: ['string', 'null'],
            format: 'uri',
            examples: [
              replaceQueryParam(
                replaceQueryParam(url, this.limitQueryParam, limit),
                this.offsetQueryParam,
                offset * limit,
              ),
            ],
          };
    const links = { next: link(4), previous: link(2), results: schema };
    return this.includeCount
      ? {
          type: 'object',
          required: ['count', 'next', 'previous', 'results'],
          properties: { count: { type: 'integer', minimum: 0, examples: [123] }, ...links },
        }
      : { type: 'object', required: ['next', 'previous', 'results'], properties: links };
  }
}

/**
 * Page-number pagination (`?page=4`, `?page=last`) and the Django-style
 * {@link Paginator} it is built on.
 *
 * @module
 */
import { asQueryset } from '../data/array.js';
import type { Queryset } from '../data/source.js';
import { ConfigurationError, NotFound } from '../errors.js';
import { positiveInt, pyIntBig, removeQueryParam, replaceQueryParam } from '../query.js';
import type { Request } from '../request.js';
import { Response } from '../response.js';
import {
  BasePagination,
  type HtmlContext,
  type JsonSchema,
  type PaginatedView,
  type SchemaError,
  type SchemaParameter,
  type SchemaSettings,
} from './base.js';
import { exactCount, type CountStrategy } from './count.js';
import { NUMBERS_TEMPLATE, getDisplayedPageNumbers, getPageLinks, type PaginationTemplate } from './html.js';

/**
 * A page number that cannot be served (Django's `InvalidPage`): the
 * paginator turns it into a 404 with `invalidPageMessage`.
 * @example
 * ```ts
 * const paginator = new Paginator(asQueryset(rows), 10);
 * try { await paginator.page('abc'); } catch (e) { if (e instanceof InvalidPage) console.log(e.message); }
 * ```
 */
export class InvalidPage extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPage';
  }
}

/**
 * The page number is not an integer (`That page number is not an integer`).
 * @example
 * ```ts
 * import assert from 'node:assert/strict';
 * const paginator = new Paginator(asQueryset(rows), 10);
 * await assert.rejects(paginator.validateNumber('1.5'), PageNotAnInteger);
 * ```
 */
export class PageNotAnInteger extends InvalidPage {
  constructor(message = 'That page number is not an integer') {
    super(message);
    this.name = 'PageNotAnInteger';
  }
}

/**
 * The page number is below 1 or past the last page
 * (`That page number is less than 1`, `That page contains no results`).
 * @example
 * ```ts
 * import assert from 'node:assert/strict';
 * const paginator = new Paginator(asQueryset(rows), 10);
 * await assert.rejects(paginator.validateNumber(0), EmptyPage);
 * ```
 */
export class EmptyPage extends InvalidPage {
  constructor(message: string) {
    super(message);
    this.name = 'EmptyPage';
  }
}

/**
 * Options of a {@link Paginator}.
 * @example
 * ```ts
 * const options: PaginatorOptions = { orphans: 2, countStrategy: cachedCount() };
 * ```
 */
export interface PaginatorOptions {
  /** A last page with at most this many rows is merged into the page before (default 0). */
  readonly orphans?: number;
  /** Whether page 1 of an empty list is valid (default `true`). */
  readonly allowEmptyFirstPage?: boolean;
  /** How the paginator counts (default {@link exactCount}). */
  readonly countStrategy?: CountStrategy;
}

/**
 * Splits a queryset into numbered pages (Django's `Paginator`): `count()`,
 * `numPages()`, `validateNumber(n)`, `page(n)`. The count is computed once
 * per paginator; override `count()` in a subclass to change it.
 * @example
 * ```ts
 * const paginator = new Paginator(asQueryset(rows), 10);
 * const page = await paginator.page(2);
 * page.objectList; // rows 11..20
 * ```
 */
export class Paginator<Row extends object = object> {
  /** The rows being paginated. */
  readonly objectList: Queryset<Row>;
  /** Rows per page. */
  readonly perPage: number;
  /** See {@link PaginatorOptions.orphans}. */
  readonly orphans: number;
  /** See {@link PaginatorOptions.allowEmptyFirstPage}. */
  readonly allowEmptyFirstPage: boolean;
  /** How {@link count} counts. */
  readonly countStrategy: CountStrategy;
  #count: Promise<number> | null = null;

  constructor(objectList: Queryset<Row> | readonly Row[], perPage: number, options: PaginatorOptions = {}) {
    this.objectList = asQueryset(objectList);
    this.perPage = perPage;
    this.orphans = options.orphans ?? 0;
    this.allowEmptyFirstPage = options.allowEmptyFirstPage ?? true;
    this.countStrategy = options.countStrategy ?? exactCount;
  }

  /** The number of rows (computed once). */
  count(): Promise<number> {
    return (this.#count ??= this.countStrategy.count(this.objectList));
  }

  /** The number of pages: at least 1 (an empty list has page 1) unless empty first pages are disallowed. */
  async numPages(): Promise<number> {
    const count = await this.count();
    if (count === 0 && !this.allowEmptyFirstPage) return 0;
    return Math.ceil(Math.max(1, count - this.orphans) / this.perPage);
  }

  /**
   * The page number as an integer (strings parse as Python's `int()`), or
   * {@link PageNotAnInteger} / {@link EmptyPage}.
   */
  async validateNumber(number: number | string | bigint): Promise<number> {
    let n: number;
    if (typeof number === 'number') {
      if (!Number.isFinite(number) || !Number.isInteger(number)) throw new PageNotAnInteger();
      n = number;
    } else if (typeof number === 'bigint') {
      n = Number(number);
    } else {
      const v = typeof number === 'string' ? pyIntBig(number) : null;
      if (v === null) throw new PageNotAnInteger();
      n = Number(v);
    }
    if (n < 1) throw new EmptyPage('That page number is less than 1');
    if (n > (await this.numPages())) {
      if (!(n === 1 && this.allowEmptyFirstPage)) throw new EmptyPage('That page contains no results');
    }
    return n;
  }

  /** The page `number` (validated). */
  async page(number: number | string | bigint): Promise<Page<Row>> {
    const n = await this.validateNumber(number);
    const count = await this.count();
    const bottom = (n - 1) * this.perPage;
    let top = bottom + this.perPage;
    if (top + this.orphans >= count) top = count;
    const rows = top > bottom ? await this.objectList.slice(bottom, top) : [];
    return new Page(rows, n, this, count, await this.numPages());
  }
}

/**
 * One page of a {@link Paginator} (Django's `Page`).
 * @example
 * ```ts
 * const page = await new Paginator(asQueryset(rows), 5).page(1);
 * if (page.hasNext()) console.log(page.nextPageNumber());
 * ```
 */
export class Page<Row extends object = object> {
  constructor(
    /** The rows of this page. */
    readonly objectList: Row[],
    /** The page number (1-based). */
    readonly number: number,
    /** The paginator this page came from. */
    readonly paginator: Paginator<Row>,
    /** The paginator's count. */
    readonly count: number,
    /** The paginator's number of pages. */
    readonly numPages: number,
  ) {}

  /** Whether a page follows. */
  hasNext(): boolean {
    return this.number < this.numPages;
  }

  /** Whether a page precedes. */
  hasPrevious(): boolean {
    return this.number > 1;
  }

  /** Whether there is any other page. */
  hasOtherPages(): boolean {
    return this.hasNext() || this.hasPrevious();
  }

  /** The next page number. */
  nextPageNumber(): number {
    return this.number + 1;
  }

  /** The previous page number. */
  previousPageNumber(): number {
    return this.number - 1;
  }

  /** The 1-based index of the first row (0 for an empty list). */
  startIndex(): number {
    return this.count === 0 ? 0 : this.paginator.perPage * (this.number - 1) + 1;
  }

  /** The 1-based index of the last row. */
  endIndex(): number {
    return this.number === this.numPages ? this.count : this.number * this.paginator.perPage;
  }
}

/**
 * A paginator class as `paginatorClass` takes it: `new (queryset, perPage, options)`.
 * @example
 * ```ts
 * class OnePage extends Paginator { override async count() { return 1; } }
 * const cls: PaginatorClass = OnePage;
 * ```
 */
export type PaginatorClass = new (
  objectList: Queryset<object>,
  perPage: number,
  options?: PaginatorOptions,
) => Paginator<object>;

/**
 * The page-size rule shared by the page-number and cursor styles: the
 * client's page size (`pageSizeQueryParam`, a strict positive int clamped to
 * `maxPageSize`) when valid, else `pageSize`, else the `PAGE_SIZE` setting.
 * @internal
 */
export function resolvePageSize(
  request: Request,
  options: { pageSize: number | null | undefined; pageSizeQueryParam: string | null; maxPageSize: number | null },
  cap: 'MAX_PAGE_SIZE' | 'MAX_LIMIT' = 'MAX_PAGE_SIZE',
): number | null {
  if (options.pageSizeQueryParam) {
    const raw = request.query.get(options.pageSizeQueryParam);
    if (raw !== null) {
      // A class without a cap of its own takes the API's (MAX_PAGE_SIZE, or MAX_LIMIT for limit/offset).
      const cutoff = options.maxPageSize ?? request.settings[cap];
      const n = positiveInt(raw, { strict: true, cutoff });
      if (n !== null) return n;
    }
  }
  return options.pageSize === undefined ? request.settings.PAGE_SIZE : options.pageSize;
}

/**
 * The schema of a client-chosen page size or limit: a positive integer, at
 * most `own` (the class's cap) or, when that is `null`, the API's cap from
 * `settings` (`MAX_PAGE_SIZE`, or `MAX_LIMIT` for limit/offset); a cap of
 * 0 or `null` states no `maximum`.
 * @internal
 */
export function pageSizeSchema(
  own: number | null,
  settings: SchemaSettings | null | undefined,
  cap: 'MAX_PAGE_SIZE' | 'MAX_LIMIT' = 'MAX_PAGE_SIZE',
): JsonSchema {
  const max = own ?? settings?.[cap] ?? null;
  return max !== null && max > 0 ? { type: 'integer', minimum: 1, maximum: max } : { type: 'integer', minimum: 1 };
}

/** Python `str.format` with the two placeholders of `invalidPageMessage`. @internal */
export function formatInvalidPage(message: string, pageNumber: string | number, reason: string): string {
  return message.replace(/\{\{|\}\}|\{page_number\}|\{message\}/g, (m) =>
    m === '{{' ? '{' : m === '}}' ? '}' : m === '{message}' ? reason : String(pageNumber),
  );
}

/**
 * Page-number pagination: `?page=2` (or a `lastPageStrings` value for the
 * last page). The body is `{count, next, previous, results}`; the link to
 * page 1 drops the `page` parameter. A page number that is not an integer,
 * below 1 or past the last page answers 404 `Invalid page.`; an empty
 * `?page=` is page 1. An empty list has one empty page.
 *
 * Attributes left `undefined` fall back to the settings (`pageSize` to
 * `PAGE_SIZE`); a falsy page size turns pagination off for the request.
 * @example
 * ```ts
 * class Items extends PageNumberPagination {
 *   override pageSize = 10;
 *   override pageSizeQueryParam = 'page_size';
 *   override maxPageSize = 100;
 * }
 * ```
 */
export class PageNumberPagination extends BasePagination {
  /** Rows per page; `undefined` means the `PAGE_SIZE` setting, `null` turns pagination off unless the client sets a size. */
  pageSize: number | null | undefined = undefined;
  /** The page-number query parameter. */
  pageQueryParam = 'page';
  /** Its description in the OpenAPI document. */
  pageQueryDescription = 'A page number within the paginated result set.';
  /** A query parameter letting the client choose the page size, or `null`. */
  pageSizeQueryParam: string | null = null;
  /** Its description in the OpenAPI document. */
  pageSizeQueryDescription = 'Number of results to return per page.';
  /** The largest page size a client may ask for (`null`: the `MAX_PAGE_SIZE` setting; 0: no cap). */
  maxPageSize: number | null = null;
  /** Page values that mean the last page (compared case-sensitively). */
  lastPageStrings: readonly string[] = ['last'];
  /** The HTML controls' template: a registered name or a function; `null` disables the controls. */
  override template: string | PaginationTemplate | null = NUMBERS_TEMPLATE;
  /** The 404 detail; `{page_number}` and `{message}` (the paginator's reason) are substituted. */
  invalidPageMessage = 'Invalid page.';
  /** The paginator class (Django's `django_paginator_class`). */
  paginatorClass: PaginatorClass = Paginator;
  /** How the envelope's `count` is computed (see `count.ts`). */
  countStrategy: CountStrategy = exactCount;
  /**
   * With `false`, nothing is counted: the page is read with one extra row,
   * which tells whether a next page exists, and the body is
   * `{next, previous, results}` without `count`. The last page cannot be
   * named (`?page=last` answers 404 `Invalid page.`), the HTML controls show
   * the pages up to the next one, and a page past the end is 404 as usual.
   */
  includeCount = true;

  #request: Request | null = null;
  #page: Page<object> | null = null;
  /** Without a count: the page number and whether a next page exists. */
  #uncounted: { number: number; hasNext: boolean } | null = null;

  /** The request of the last {@link paginateQueryset} call. */
  get request(): Request | null {
    return this.#request;
  }

  /** The current page (after {@link paginateQueryset}). */
  get page(): Page<object> | null {
    return this.#page;
  }

  /** The page size for this request, or `null` for no pagination. */
  getPageSize(request: Request): number | null {
    return resolvePageSize(request, this);
  }

  /** The requested page: the raw parameter, 1 when absent or empty, the last page for a `lastPageStrings` value. */
  async getPageNumber(request: Request, paginator: Paginator<object>): Promise<string | number> {
    const raw = request.query.get(this.pageQueryParam);
    if (raw === null || raw === '') return 1;
    if (this.lastPageStrings.includes(raw)) return paginator.numPages();
    return raw;
  }

  override async paginateQueryset<Row extends object>(
    queryset: Queryset<Row> | readonly Row[],
    request: Request,
    _view?: PaginatedView | null,
  ): Promise<Row[] | null> {
    this.#request = request;
    this.#page = null;
    this.#uncounted = null;
    this.displayPageControls = false;
    const pageSize = this.getPageSize(request);
    if (!pageSize) return null;
    if (!this.includeCount) return this.#paginateUncounted(asQueryset(queryset), request, pageSize);
    const paginator = new this.paginatorClass(asQueryset(queryset), pageSize, { countStrategy: this.countStrategy });
    const pageNumber = await this.getPageNumber(request, paginator);
    try {
      this.#page = await paginator.page(pageNumber);
    } catch (e) {
      if (e instanceof InvalidPage)
        throw new NotFound(formatInvalidPage(this.invalidPageMessage, pageNumber, e.message), { cause: e });
      throw e;
    }
    if (this.#page.numPages > 1 && this.template !== null) this.displayPageControls = true;
    return this.#page.objectList as Row[];
  }

  /** A page without a count: one extra row says whether there is a next page. */
  async #paginateUncounted<Row extends object>(qs: Queryset<Row>, request: Request, pageSize: number): Promise<Row[]> {
    const raw = request.query.get(this.pageQueryParam);
    let number = 1;
    if (raw !== null && raw !== '') {
      const reason = this.lastPageStrings.includes(raw) ? 'The last page is not known: this list is not counted' : null;
      const n = reason === null ? positiveInt(raw, { strict: true }) : null;
      if (n === null)
        throw new NotFound(
          formatInvalidPage(this.invalidPageMessage, raw, reason ?? 'That page number is not a positive integer'),
        );
      number = n;
    }
    const start = (number - 1) * pageSize;
    const rows = await qs.slice(start, start + pageSize + 1);
    if (rows.length === 0 && number > 1)
      throw new NotFound(formatInvalidPage(this.invalidPageMessage, raw ?? '', 'That page contains no results'));
    const hasNext = rows.length > pageSize;
    this.#uncounted = { number, hasNext };
    if ((hasNext || number > 1) && this.template !== null) this.displayPageControls = true;
    return rows.slice(0, pageSize);
  }

  #current(): { page: Page<object>; request: Request } {
    if (this.#page === null || this.#request === null)
      throw new ConfigurationError('PageNumberPagination: call paginateQueryset() first.');
    return { page: this.#page, request: this.#request };
  }

  override getPaginatedResponse(data: unknown[]): Response {
    if (this.#uncounted !== null)
      return new Response({ next: this.getNextLink(), previous: this.getPreviousLink(), results: data });
    const { page } = this.#current();
    return new Response({
      count: page.count,
      next: this.getNextLink(),
      previous: this.getPreviousLink(),
      results: data,
    });
  }

  override getNextLink(): string | null {
    const u = this.#uncounted;
    if (u !== null) {
      if (!u.hasNext) return null;
      return replaceQueryParam((this.#request as Request).buildAbsoluteUri(), this.pageQueryParam, u.number + 1);
    }
    const { page, request } = this.#current();
    if (!page.hasNext()) return null;
    return replaceQueryParam(request.buildAbsoluteUri(), this.pageQueryParam, page.nextPageNumber());
  }

  override getPreviousLink(): string | null {
    const u = this.#uncounted;
    if (u === null && !this.#current().page.hasPrevious()) return null;
    if (u !== null && u.number <= 1) return null;
    const url = (this.#request as Request).buildAbsoluteUri();
    const n = u !== null ? u.number - 1 : this.#current().page.previousPageNumber();
    return n === 1 ? removeQueryParam(url, this.pageQueryParam) : replaceQueryParam(url, this.pageQueryParam, n);
  }

  override getHtmlContext(): HtmlContext {
    const request = this.#request;
    const u = this.#uncounted;
    if (request === null || (u === null && this.#page === null))
      throw new ConfigurationError('PageNumberPagination: call paginateQueryset() first.');
    const base = request.buildAbsoluteUri();
    const urlFor = (n: number): string =>
      n === 1 ? removeQueryParam(base, this.pageQueryParam) : replaceQueryParam(base, this.pageQueryParam, n);
    // Without a count the known pages end at the next one: no link to a last page.
    const current = u !== null ? u.number : (this.#page as Page<object>).number;
    const final = u !== null ? u.number + (u.hasNext ? 1 : 0) : (this.#page as Page<object>).numPages;
    return {
      previous_url: this.getPreviousLink(),
      next_url: this.getNextLink(),
      page_links: getPageLinks(getDisplayedPageNumbers(current, final), current, urlFor),
    };
  }

  /**
   * `page`: a positive integer or, when the list is counted, one of
   * `lastPageStrings` (`{"anyOf": [{"type": "integer", "minimum": 1},
   * {"type": "string", "enum": ["last"]}]}`); the page size, when the
   * client may choose it, a positive integer up to the cap.
   */
  override getSchemaOperationParameters(
    _view?: PaginatedView | null,
    settings?: SchemaSettings | null,
  ): SchemaParameter[] {
    const number: JsonSchema = { type: 'integer', minimum: 1 };
    const params: SchemaParameter[] = [
      {
        name: this.pageQueryParam,
        required: false,
        in: 'query',
        description: this.pageQueryDescription,
        schema:
          this.includeCount && this.lastPageStrings.length > 0
            ? { anyOf: [number, { type: 'string', enum: [...this.lastPageStrings] }] }
            : number,
      },
    ];
    if (this.pageSizeQueryParam !== null) {
      params.push({
        name: this.pageSizeQueryParam,
        required: false,
        in: 'query',
        description: this.pageSizeQueryDescription,
        schema: pageSizeSchema(this.maxPageSize, settings),
      });
    }
    return params;
  }

  /** 404 with `invalidPageMessage` (a page past the end, or not a page number). */
  override getSchemaErrors(): SchemaError[] {
    return [
      {
        status: 404,
        name: 'invalidPage',
        summary: 'A page that does not exist',
        value: { detail: formatInvalidPage(this.invalidPageMessage, 10000, 'That page contains no results') },
      },
    ];
  }

  /**
   * The response schema of a page: `{count, next, previous, results}`
   * (no `count` when `includeCount` is false), `next` and `previous` a URI
   * or `null` (JSON Schema 2020-12 type arrays). With `options.url` (the
   * endpoint's URL: the server URL and the operation's path, as the OpenAPI
   * generator passes it), the links have examples of that endpoint
   * (`<url>?page=4` and `<url>?page=2`).
   */
  override getPaginatedResponseSchema(schema: JsonSchema, options: { url?: string | null } = {}): JsonSchema {
    const url = options.url ?? null;
    const link = (page: number): JsonSchema =>
      url === null
        ? { type: ['string', 'null'], format: 'uri' }
        : { type: ['string', 'null'], format: 'uri', examples: [replaceQueryParam(url, this.pageQueryParam, page)] };
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

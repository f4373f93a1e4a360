/**
 * Keyset cursor pagination: tokens that carry every ordering value of a
 * row, the primary-key tie-breaker included, and no offset, so walks never
 * repeat or skip a row whatever the ties, NULLs, insertions or deletions.
 *
 * @module
 */
import { asQueryset } from '../data/array.js';
import { INVALID_POSITION, type Queryset } from '../data/source.js';
import { ConfigurationError, NotFound } from '../errors.js';
import { removeQueryParam, replaceQueryParam } from '../query.js';
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
import { cursorOrdering, cursorParameters, invalidCursorError, invertTerm, nextPreviousSchema } from './cursor.js';
import { cursorBinding, signCursorToken, verifyCursorToken } from './signing.js';
import { PREVIOUS_AND_NEXT_TEMPLATE, type PaginationTemplate } from './html.js';
import { resolvePageSize } from './page-number.js';

/**
 * A decoded keyset cursor: the place in the ordering (`null`: the end of the
 * list, only reversed) and the direction.
 * @example
 * ```ts
 * const c: KeysetCursor = { values: ['487', '1021'], reverse: false };
 * ```
 */
export interface KeysetCursor {
  /** The row's values of each term of the ordering (tie-breaker included), as positions (`None` is written `null`). */
  readonly values: readonly (string | null)[] | null;
  /** Whether the page lies before the place (a `previous` link). */
  readonly reverse: boolean;
}

/** The longest token read; anything longer is an invalid cursor. */
const MAX_TOKEN_LENGTH = 8192;

/**
 * The token of a keyset cursor: URL-safe base64 (no padding) of the JSON
 * `{"k":[...]}` (the values) with `"r":1` when reversed; the end of the
 * list reversed is `{"r":1}`.
 * @example
 * ```ts
 * encodeKeysetToken({ values: ['487', '1021'], reverse: false }); // 'eyJrIjpbIjQ4NyIsIjEwMjEiXX0'
 * ```
 */
export function encodeKeysetToken(cursor: KeysetCursor): string {
  const body: { k?: readonly (string | null)[]; r?: 1 } = {};
  if (cursor.values !== null) body.k = cursor.values;
  if (cursor.reverse) body.r = 1;
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/**
 * Reads a keyset token, or returns `null` when it is not one (bad base64,
 * not JSON, wrong shape, values that are neither strings nor null, more
 * than 8,192 characters, or no place without the reverse flag).
 * @example
 * ```ts
 * decodeKeysetToken('eyJrIjpbIjQ4NyIsIjEwMjEiXX0'); // { values: ['487', '1021'], reverse: false }
 * decodeKeysetToken('cD00ODY='); // null
 * ```
 */
export function decodeKeysetToken(token: string): KeysetCursor | null {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { k, r } = body as { k?: unknown; r?: unknown };
  if (r !== undefined && r !== 1) return null;
  const reverse = r === 1;
  if (k === undefined) return reverse ? { values: null, reverse } : null;
  if (!Array.isArray(k) || k.length === 0 || !k.every((v) => v === null || typeof v === 'string')) return null;
  return { values: k as (string | null)[], reverse };
}

interface State {
  request: Request;
  baseUrl: string;
  /** The ordering terms applied, tie-breaker included. */
  key: readonly string[];
  source: Queryset<object>;
  cursor: KeysetCursor | null;
  pageSize: number;
  page: object[];
  hasNext: boolean;
  hasPrevious: boolean;
}

/**
 * Keyset cursor pagination. The client follows `next` / `previous` links
 * whose `?cursor=` token carries the values of every ordering term of the
 * row at the edge of the page, the primary key included; the next page is
 * the rows strictly after those values (`WHERE (price, id) > (?, ?)` on
 * SQL, served by an index on the ordering), the previous page the rows
 * strictly before them. There is no offset, so:
 *
 * - a walk forward (or backward) shows every row that exists throughout
 *   the walk exactly once, whatever the ties (10,000 rows of one price
 *   page like unique ones), NULLs (placed as the data sources place them)
 *   and rows inserted or deleted between requests;
 * - a page costs one index range scan wherever it is in the list.
 *
 * The body is `{next, previous, results}`, as with
 * {@link CursorPagination}, whose configuration it shares (`ordering`, an
 * `OrderingFilter` on the view, `pageSize`, `pageSizeQueryParam`,
 * `maxPageSize`); the tokens are not DRF's (see {@link encodeKeysetToken}).
 * A token that cannot be read, or whose values are not values of the
 * ordering's fields, answers 404 `Invalid cursor`.
 *
 * ```http
 * GET /cursor-keyset/items/?page_size=2 HTTP/1.1
 *
 * HTTP/1.1 200 OK
 * Content-Type: application/json
 *
 * {"next": "http://127.0.0.1:8000/cursor-keyset/items/?page_size=2&cursor=eyJrIjpbIjAiLCIxMDAwIl19",
 *  "previous": null,
 *  "results": [{"id": 500, "price": 0, ...}, {"id": 1000, "price": 0, ...}]}
 * ```
 * @example
 * ```ts
 * class ByPrice extends KeysetPagination {
 *   override ordering = 'price'; // not unique: the primary key breaks ties
 *   override pageSizeQueryParam = 'page_size';
 *   override maxPageSize = 100;
 * }
 * ```
 */
export class KeysetPagination extends BasePagination {
  /** The cursor query parameter. */
  cursorQueryParam = 'cursor';
  /** Its description in the OpenAPI document. */
  cursorQueryDescription = 'The pagination cursor value.';
  /** Rows per page; `undefined` means the `PAGE_SIZE` setting. */
  pageSize: number | null | undefined = undefined;
  /** The 404 detail of a bad cursor. */
  invalidCursorMessage = 'Invalid cursor';
  /** The ordering: a term (`'-created'`) or terms; the primary key is appended when no term is unique. */
  ordering: string | readonly string[] | null = '-created';
  /** The HTML controls' template: a name or a function; `null` disables the controls. */
  override template: string | PaginationTemplate | null = PREVIOUS_AND_NEXT_TEMPLATE;
  /** A query parameter letting the client choose the page size, or `null`. */
  pageSizeQueryParam: string | null = null;
  /** Its description in the OpenAPI document. */
  pageSizeQueryDescription = 'Number of results to return per page.';
  /** The largest page size a client may ask for (`null`: the `MAX_PAGE_SIZE` setting; 0: no cap). */
  maxPageSize: number | null = null;

  #state: State | null = null;

  /** The page size for this request, or `null` for no pagination. */
  getPageSize(request: Request): number | null {
    return resolvePageSize(request, this);
  }

  /** The ordering for this request (an `OrderingFilter` on the view decides first). */
  getOrdering(request: Request, queryset: Queryset<object>, view?: PaginatedView | null): readonly string[] {
    return cursorOrdering(this.ordering, request, queryset, view);
  }

  /** The cursor of the request, `null` without one; a token that cannot be read raises 404 `Invalid cursor`. */
  decodeCursor(request: Request): KeysetCursor | null {
    const token = request.query.get(this.cursorQueryParam);
    return token === null ? null : this.readToken(token, request);
  }

  /**
   * A token read back (its signature checked when the API signs cursors);
   * 404 `Invalid cursor` when it is not a token of this paginator.
   */
  protected readToken(token: string, request: Request): KeysetCursor {
    let t: string | null = token;
    const key = request.settings.CURSOR_SIGNING_KEY;
    if (key !== null) t = verifyCursorToken(token, key, this.#binding(request));
    const cursor = t === null ? null : decodeKeysetToken(t);
    if (cursor === null) throw new NotFound(this.invalidCursorMessage);
    return cursor;
  }

  /** The query parameters that carry the cursor and the page size (left out of what a signed token is bound to). */
  protected cursorParams(): (string | null)[] {
    return [this.cursorQueryParam, this.pageSizeQueryParam];
  }

  /**
   * The token of `cursor`, signed when the API has a `CURSOR_SIGNING_KEY`;
   * override together with {@link decodeCursor} for another format.
   */
  encodeCursor(cursor: KeysetCursor): string {
    const token = encodeKeysetToken(cursor);
    const request = this.#state?.request;
    const key = request?.settings.CURSOR_SIGNING_KEY ?? null;
    return request === undefined || key === null ? token : signCursorToken(token, key, this.#binding(request));
  }

  #binding(request: Request): string {
    return cursorBinding(request, this.cursorParams());
  }

  /** The rows of the current page, in list order (after {@link paginateQueryset}). */
  get pageRows(): readonly object[] {
    return this.#state?.page ?? [];
  }

  /** Whether a next page exists (after {@link paginateQueryset}). */
  get hasNext(): boolean {
    return this.#state?.hasNext ?? false;
  }

  /** Whether a previous page exists (after {@link paginateQueryset}). */
  get hasPrevious(): boolean {
    return this.#state?.hasPrevious ?? false;
  }

  override async paginateQueryset<Row extends object>(
    queryset: Queryset<Row> | readonly Row[],
    request: Request,
    view?: PaginatedView | null,
  ): Promise<Row[] | null> {
    this.#state = null;
    this.displayPageControls = false;
    const pageSize = this.getPageSize(request);
    if (!pageSize) return null;
    const source = asQueryset(queryset) as Queryset<object>;
    const ordering = this.getOrdering(request, source, view);
    const key = source.orderBy(...ordering).orderKey;
    const cursor = this.decodeCursor(request);
    // The full key orders the same way as the ordering (it ends in a unique term) and reverses exactly.
    let qs = cursor?.reverse === true ? source.orderBy(...key.map(invertTerm)) : source.orderBy(...key);
    if (cursor !== null && cursor.values !== null) qs = qs.seekAfter(this.#place(qs, key, cursor.values));
    const rows = await qs.slice(0, pageSize + 1);
    const more = rows.length > pageSize;
    const page = rows.slice(0, pageSize);
    const state: State = {
      request,
      baseUrl: request.buildAbsoluteUri(),
      key,
      source: qs,
      cursor,
      pageSize,
      page,
      hasNext: false,
      hasPrevious: false,
    };
    if (cursor?.reverse === true) {
      page.reverse();
      state.hasPrevious = more;
      state.hasNext = cursor.values !== null; // the place the cursor came from (none from the end of the list)
    } else {
      state.hasNext = more;
      state.hasPrevious = cursor !== null;
    }
    this.#state = state;
    if ((state.hasNext || state.hasPrevious) && this.template !== null) this.displayPageControls = true;
    return page as Row[];
  }

  /** The cursor's values read back as values of the key's fields; 404 when one is not. */
  #place(qs: Queryset<object>, key: readonly string[], values: readonly (string | null)[]): unknown[] {
    if (values.length !== key.length) throw new NotFound(this.invalidCursorMessage);
    return key.map((term, i) => {
      const field = term.startsWith('-') ? term.slice(1) : term;
      const position = values[i] as string | null;
      if (position === null) {
        if (qs.fields[field]?.nullable !== true) throw new NotFound(this.invalidCursorMessage);
        return null;
      }
      let value = qs.parsePosition(field, position);
      // NULL travels as JSON null: a position read as NULL is text `None` on a text field, else invalid.
      if (value === null) value = qs.fields[field]?.type === 'text' ? position : INVALID_POSITION;
      if (value === INVALID_POSITION) throw new NotFound(this.invalidCursorMessage);
      return value;
    });
  }

  #current(): State {
    if (this.#state === null) throw new ConfigurationError('KeysetPagination: call paginateQueryset() first.');
    return this.#state;
  }

  /** The place of a row: its values of every key term, as positions (`null` for NULL). */
  #valuesOf(row: object): (string | null)[] {
    const s = this.#current();
    return s.key.map((term) => {
      const field = term.startsWith('-') ? term.slice(1) : term;
      const v = (row as Record<string, unknown>)[field];
      return v === null || v === undefined ? null : s.source.position(row, field);
    });
  }

  /** The cursor of the next page: after the last row shown; from an empty page reached backwards, the start. */
  #nextCursor(): KeysetCursor | null | 'start' {
    const s = this.#current();
    if (!s.hasNext) return null;
    const last = s.page[s.page.length - 1];
    return last === undefined ? 'start' : { values: this.#valuesOf(last), reverse: false };
  }

  /** The cursor of the previous page: before the first row shown; from an empty page, the end of the list. */
  #previousCursor(): KeysetCursor | null {
    const s = this.#current();
    if (!s.hasPrevious) return null;
    const first = s.page[0];
    return { values: first === undefined ? null : this.#valuesOf(first), reverse: true };
  }

  /** The token of the next page (`''` for the start of the list), or `null`. */
  getNextCursor(): string | null {
    const c = this.#nextCursor();
    return c === null ? null : c === 'start' ? '' : this.encodeCursor(c);
  }

  /** The token of the previous page, or `null`. */
  getPreviousCursor(): string | null {
    const c = this.#previousCursor();
    return c === null ? null : this.encodeCursor(c);
  }

  override getNextLink(): string | null {
    const c = this.#nextCursor();
    if (c === null) return null;
    const url = this.#current().baseUrl;
    if (c === 'start') return removeQueryParam(url, this.cursorQueryParam);
    return replaceQueryParam(url, this.cursorQueryParam, this.encodeCursor(c));
  }

  override getPreviousLink(): string | null {
    const c = this.#previousCursor();
    return c === null ? null : replaceQueryParam(this.#current().baseUrl, this.cursorQueryParam, this.encodeCursor(c));
  }

  /**
   * The cursor of each row of the page: the token of the page that starts
   * right after it (Relay's per-edge cursor).
   */
  cursorFor(row: object): string {
    return this.encodeCursor({ values: this.#valuesOf(row), reverse: false });
  }

  override getPaginatedResponse(data: unknown[]): Response {
    return new Response({ next: this.getNextLink(), previous: this.getPreviousLink(), results: data });
  }

  override getHtmlContext(): HtmlContext {
    return { previous_url: this.getPreviousLink(), next_url: this.getNextLink() };
  }

  override getSchemaOperationParameters(
    _view?: PaginatedView | null,
    settings?: SchemaSettings | null,
  ): SchemaParameter[] {
    return cursorParameters(this, settings);
  }

  /** 404 with `invalidCursorMessage` (a token that does not decode, or is not this list's). */
  override getSchemaErrors(): SchemaError[] {
    return [invalidCursorError(this.invalidCursorMessage)];
  }

  /**
   * The response schema of a page: `{next, previous, results}`, the links a
   * URI or `null` (JSON Schema 2020-12 type arrays). With `options.url` (the
   * endpoint's URL, as the OpenAPI generator passes it), the links have
   * examples of that endpoint carrying real keyset tokens.
   */
  override getPaginatedResponseSchema(schema: JsonSchema, options: { url?: string | null } = {}): JsonSchema {
    return nextPreviousSchema(
      schema,
      options.url ?? null,
      this.cursorQueryParam,
      encodeKeysetToken({ values: ['486'], reverse: false }),
      encodeKeysetToken({ values: ['477'], reverse: true }),
    );
  }
}

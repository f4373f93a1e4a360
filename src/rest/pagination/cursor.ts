/**
 * Cursor pagination: opaque `?cursor=` tokens, previous / next only, keyset
 * queries whose cost does not grow with the position in the list.
 *
 * @module
 */
import { asQueryset } from '../data/array.js';
import { INVALID_POSITION, type Queryset } from '../data/source.js';
import { ConfigurationError, ImproperlyConfigured, NotFound } from '../errors.js';
import { encodeComponent, parseQuery, positiveInt, pyIntBig, queryParamSlot, replaceQueryParam } from '../query.js';
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
import { cursorBinding, signCursorToken, verifyCursorToken } from './signing.js';
import { PREVIOUS_AND_NEXT_TEMPLATE, type PaginationTemplate } from './html.js';
import { pageSizeSchema, resolvePageSize } from './page-number.js';

/**
 * A decoded cursor: skip `offset` rows after (or, reversed, before)
 * `position`, the value of the first ordering field written as Python's
 * `str()`; `null` position means the start (or, reversed, the end) of the list.
 * @example
 * ```ts
 * const c: Cursor = { offset: 0, reverse: true, position: '487' };
 * ```
 */
export interface Cursor {
  readonly offset: number;
  readonly reverse: boolean;
  readonly position: string | null;
}

/**
 * The token of a cursor, byte for byte Django REST framework's: the form
 * encoding of `o=<offset>` (when not 0), `r=1` (when reversed) and
 * `p=<position>` (when set), in that order, in standard base64 with padding.
 * The empty cursor is the empty string.
 * @example
 * ```ts
 * encodeCursorToken({ offset: 0, reverse: false, position: '486' }); // 'cD00ODY='
 * encodeCursorToken({ offset: 0, reverse: true, position: '487' }); // 'cj0xJnA9NDg3'
 * ```
 */
export function encodeCursorToken(cursor: Cursor): string {
  return asciiBase64(tokenText(cursor));
}

/** The text a token encodes: `o=<offset>&r=1&p=<position>`, each part only when set. */
function tokenText(cursor: Cursor): string {
  let text = cursor.offset !== 0 ? `o=${cursor.offset}` : '';
  if (cursor.reverse) text += text === '' ? 'r=1' : '&r=1';
  if (cursor.position !== null) text += (text === '' ? 'p=' : '&p=') + encodeComponent(cursor.position);
  return text;
}

/**
 * `encodeComponent(encodeCursorToken(cursor))`, the token as a query value
 * (`+`, `/` and `=` percent-encoded, as `quote_plus` writes them).
 */
function quotedCursorToken(cursor: Cursor): string {
  let token = asciiBase64(tokenText(cursor));
  if (token.indexOf('+') >= 0 || token.indexOf('/') >= 0) token = token.replace(BASE64_SIGNS, quoteSign);
  const n = token.length;
  if (n === 0 || token.charCodeAt(n - 1) !== 61) return token;
  return token.charCodeAt(n - 2) === 61 ? token.slice(0, n - 2) + '%3D%3D' : token.slice(0, n - 1) + '%3D';
}

const BASE64_SIGNS = /[+/]/g;

function quoteSign(c: string): string {
  return c === '+' ? '%2B' : '%2F';
}

/** The base64 alphabet's values by character code (-1: not in it). */
const B64 = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/**
 * Standard base64 with padding of ASCII text (a token's text is ASCII:
 * digits and form-encoded characters), by the runtime's native `btoa`.
 */
function asciiBase64(text: string): string {
  return btoa(text);
}

/**
 * The bytes of `token` as a latin1 string when it is base64 in its one
 * canonical form (only letters of the alphabet, a length that is a multiple
 * of 4, `=` only as the one or two last characters), on which the native
 * `atob` and Python's lenient decoder agree; otherwise `null`. `atob` also
 * takes white space and a missing pad, which Python reads otherwise: both
 * make the result shorter than a canonical token's, so they are told apart
 * by the length.
 */
function canonicalBase64(token: string): string | null {
  const n = token.length;
  if ((n & 3) !== 0) return null;
  const pads = n === 0 || token.charCodeAt(n - 1) !== 61 ? 0 : token.charCodeAt(n - 2) === 61 ? 2 : 1;
  let bytes: string;
  try {
    bytes = atob(token);
  } catch {
    return null; // a character outside the alphabet, or a misplaced pad
  }
  return bytes.length === (n >> 2) * 3 - pads ? bytes : null;
}

/**
 * Python's lenient `base64.b64decode` (`binascii.a2b_base64`, not strict):
 * characters outside the alphabet are skipped, decoding stops at the first
 * complete padding, and a last group of one character or a missing pad is
 * an error (`null`). Input must be ASCII. The bytes come back as a latin1
 * string (one character per byte).
 */
function a2bBase64(s: string): string | null {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return null;
  let out = '';
  let quad = 0;
  let left = 0;
  let pads = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 61) {
      if (quad >= 2 && quad + ++pads >= 4) return out;
      continue;
    }
    const v = c < 128 ? B64[c]! : -1;
    if (v < 0) continue;
    pads = 0;
    switch (quad) {
      case 0:
        quad = 1;
        left = v;
        break;
      case 1:
        quad = 2;
        out += String.fromCharCode(((left << 2) | (v >> 4)) & 0xff);
        left = v & 0x0f;
        break;
      case 2:
        quad = 3;
        out += String.fromCharCode(((left << 4) | (v >> 2)) & 0xff);
        left = v & 0x03;
        break;
      default:
        quad = 0;
        out += String.fromCharCode(((left << 6) | v) & 0xff);
        left = 0;
    }
  }
  return quad === 0 ? out : null;
}

/**
 * Reads a cursor token as Django REST framework does, or returns `null`
 * when it is invalid: non-ASCII text, bad base64 padding, non-ASCII decoded
 * bytes, an `o` that is not a non-negative integer, an `r` that is not an
 * integer. The first value of each key counts; unknown keys are ignored;
 * `o` is clamped to `offsetCutoff`. Without a cutoff, an `o` beyond 2^53 - 1
 * is also invalid (no source skips that many rows; DRF's database refuses
 * such an OFFSET with a 500). The position is not read here: the data
 * source validates it against its field ({@link Queryset.parsePosition}).
 * @example
 * ```ts
 * decodeCursorToken('cD00ODY='); // { offset: 0, reverse: false, position: '486' }
 * decodeCursorToken('123'); // null
 * ```
 */
export function decodeCursorToken(token: string, offsetCutoff: number | null = 1000): Cursor | null {
  const text = canonicalBase64(token) ?? a2bBase64(token);
  if (text === null) return null;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return null;
  // The first value of each key counts; absent keys read as o=0 and r=0.
  let o: string | null = null;
  let r: string | null = null;
  let p: string | null = null;
  for (const [k, v] of parseQuery(text)) {
    if (k === 'o') o ??= v;
    else if (k === 'r') r ??= v;
    else if (k === 'p') p ??= v;
  }
  const offset = o === null ? 0 : positiveInt(o, { cutoff: offsetCutoff });
  if (offset === null || !Number.isSafeInteger(offset)) return null;
  const reverse = r === null ? 0n : pyIntBig(r);
  if (reverse === null) return null;
  return { offset, reverse: reverse !== 0n, position: p };
}

/** A filter backend class that can answer the ordering (`OrderingFilter`). */
interface OrderingBackend {
  getOrdering(
    request: Request,
    queryset: Queryset<object>,
    view: PaginatedView,
  ): readonly string[] | string | null | undefined;
}

interface State {
  request: Request;
  queryset: Queryset<object>;
  baseUrl: string;
  /** The links' text around the token ({@link queryParamSlot} of `baseUrl`), made at the first link. */
  slot: { readonly key: string; readonly prefix: string; readonly suffix: string } | null;
  ordering: readonly string[];
  cursor: Cursor | null;
  pageSize: number;
  page: object[];
  hasNext: boolean;
  hasPrevious: boolean;
  nextPosition: string | null;
  previousPosition: string | null;
}

/**
 * Cursor pagination: the client follows `next` / `previous` links carrying
 * an opaque `?cursor=` token (DRF's format, see {@link encodeCursorToken}).
 * The body is `{next, previous, results}` (no count).
 *
 * The list is ordered by `ordering` (or what the view's `OrderingFilter`
 * answers); the first field's value is the cursor position, and an offset
 * counts rows sharing a position, so a non-unique first field works while
 * fewer than `offsetCutoff` rows share one value. The source appends the
 * primary key as tie-breaker, which keeps pages stable.
 *
 * Errors: a token that cannot be decoded answers 404 `Invalid cursor`. So
 * does a position the data source cannot use as a value of the ordering
 * field, which {@link Queryset.parsePosition} checks before anything
 * reaches SQL: `p=abc` or `p=99999999999999999999999999` on an integer
 * field (outside its declared `bits`, 64 by default), NaN where the driver
 * cannot order it, a datetime outside years 1..9999, U+0000 in text on
 * PostgreSQL, more than 4096 characters. A deliberate fix: Django REST
 * framework answers 500 there (the database refuses the value). Without an
 * `offsetCutoff`, an offset beyond 2^53 - 1 is invalid too; a page size
 * beyond it reads to the end of the list. Misconfiguration (no ordering,
 * `__` in a term, an ordering that is not a string or list) throws
 * {@link ImproperlyConfigured} (a 500).
 *
 * Links and tokens are DRF's exactly, including its limits: rows sharing a
 * position are counted by the offset (at most `offsetCutoff`), so a long run
 * of equal values, or a row inserted into one between requests, can repeat
 * or skip rows. {@link KeysetPagination} has none of these limits.
 * @example
 * ```ts
 * class Feed extends CursorPagination {
 *   override pageSize = 20;
 *   override ordering = '-created';
 * }
 * ```
 */
export class CursorPagination extends BasePagination {
  /** The cursor query parameter. */
  cursorQueryParam = 'cursor';
  /** Its description in the OpenAPI document. */
  cursorQueryDescription = 'The pagination cursor value.';
  /** Rows per page; `undefined` means the `PAGE_SIZE` setting. */
  pageSize: number | null | undefined = undefined;
  /** The 404 detail of a bad cursor (no trailing period, as in DRF). */
  invalidCursorMessage = 'Invalid cursor';
  /** The ordering: a term (`'-created'`) or terms; the first one's value is the position. */
  ordering: string | readonly string[] | null = '-created';
  /** The HTML controls' template: a registered name or a function; `null` disables the controls. */
  override template: string | PaginationTemplate | null = PREVIOUS_AND_NEXT_TEMPLATE;
  /** A query parameter letting the client choose the page size, or `null`. */
  pageSizeQueryParam: string | null = null;
  /** Its description in the OpenAPI document. */
  pageSizeQueryDescription = 'Number of results to return per page.';
  /** The largest page size a client may ask for (`null`: the `MAX_PAGE_SIZE` setting; 0: no cap). */
  maxPageSize: number | null = null;
  /** The largest offset a cursor may carry (larger ones are clamped). */
  offsetCutoff: number | null = 1000;

  #request: Request | null = null;
  #state: State | null = null;

  /** The request of the last {@link paginateQueryset} call. */
  get request(): Request | null {
    return this.#request;
  }

  /** The decoded request cursor (`null` without `?cursor=`). */
  get cursor(): Cursor | null {
    return this.#state?.cursor ?? null;
  }

  /** The absolute URL links are built from. */
  get baseUrl(): string | null {
    return this.#state?.baseUrl ?? null;
  }

  /** Whether a next page exists (after {@link paginateQueryset}). */
  get hasNext(): boolean {
    return this.#state?.hasNext ?? false;
  }

  /** Whether a previous page exists (after {@link paginateQueryset}). */
  get hasPrevious(): boolean {
    return this.#state?.hasPrevious ?? false;
  }

  /** The page size for this request, or `null` for no pagination. */
  getPageSize(request: Request): number | null {
    return resolvePageSize(request, this);
  }

  /**
   * The ordering for this request: the first filter backend of the view
   * that has `getOrdering` (an `OrderingFilter`) decides when it answers a
   * non-empty ordering; otherwise this class's `ordering`.
   */
  getOrdering(request: Request, queryset: Queryset<object>, view?: PaginatedView | null): readonly string[] {
    return cursorOrdering(this.ordering, request, queryset, view);
  }

  /** The cursor of the request, `null` when the parameter is absent; a bad token raises 404 `Invalid cursor`. */
  decodeCursor(request: Request): Cursor | null {
    let token = request.query.get(this.cursorQueryParam);
    if (token === null) return null;
    const key = request.settings.CURSOR_SIGNING_KEY;
    if (key !== null) {
      token = verifyCursorToken(token, key, cursorBinding(request, [this.cursorQueryParam, this.pageSizeQueryParam]));
      if (token === null) throw new NotFound(this.invalidCursorMessage);
    }
    const cursor = decodeCursorToken(token, this.offsetCutoff);
    if (cursor === null) throw new NotFound(this.invalidCursorMessage);
    return cursor;
  }

  /** The absolute URL of `cursor` (the current URL with the cursor parameter replaced). */
  encodeCursor(cursor: Cursor): string {
    const s = this.#current();
    const key = this.cursorQueryParam;
    if (s.slot === null || s.slot.key !== key) s.slot = { key, ...queryParamSlot(s.baseUrl, key) };
    const value =
      s.request.settings.CURSOR_SIGNING_KEY === null ? quotedCursorToken(cursor) : encodeComponent(this.#token(cursor));
    return s.slot.prefix + value + s.slot.suffix;
  }

  /** DRF's token of `cursor`, signed when the API has a `CURSOR_SIGNING_KEY`. */
  #token(cursor: Cursor): string {
    const token = encodeCursorToken(cursor);
    const request = this.#current().request;
    const key = request.settings.CURSOR_SIGNING_KEY;
    if (key === null) return token;
    return signCursorToken(token, key, cursorBinding(request, [this.cursorQueryParam, this.pageSizeQueryParam]));
  }

  override async paginateQueryset<Row extends object>(
    queryset: Queryset<Row> | readonly Row[],
    request: Request,
    view?: PaginatedView | null,
  ): Promise<Row[] | null> {
    this.#request = request;
    this.#state = null;
    this.displayPageControls = false;
    const pageSize = this.getPageSize(request);
    if (!pageSize) return null;
    const baseUrl = request.buildAbsoluteUri();
    const source = asQueryset(queryset) as Queryset<object>;
    const ordering = this.getOrdering(request, source, view);
    const cursor = this.decodeCursor(request);
    const { offset, reverse, position: current } = cursor ?? { offset: 0, reverse: false, position: null };

    let qs = reverse ? source.orderBy(...ordering.map(invertTerm)) : source.orderBy(...ordering);
    const first = ordering[0]!;
    const desc = first.startsWith('-');
    const field = desc ? first.slice(1) : first;
    if (current !== null) {
      const value = qs.parsePosition(field, current);
      if (value === INVALID_POSITION) throw new NotFound(this.invalidCursorMessage);
      qs = qs.filter(field, reverse !== desc ? 'lt' : 'gt', value);
    }
    const results = await qs.slice(offset, offset + pageSize + 1);
    const page = results.slice(0, pageSize);
    const following = results.length > pageSize ? qs.position(results[pageSize]!, field) : null;
    const hasFollowing = results.length > pageSize;
    const state: State = {
      request,
      queryset: qs,
      baseUrl,
      slot: null,
      ordering,
      cursor,
      pageSize,
      page,
      hasNext: false,
      hasPrevious: false,
      nextPosition: null,
      previousPosition: null,
    };
    if (reverse) {
      page.reverse();
      state.hasNext = current !== null || offset > 0;
      state.hasPrevious = hasFollowing;
      if (state.hasNext) state.nextPosition = current;
      if (state.hasPrevious) state.previousPosition = following;
    } else {
      state.hasNext = hasFollowing;
      state.hasPrevious = current !== null || offset > 0;
      if (state.hasNext) state.nextPosition = following;
      if (state.hasPrevious) state.previousPosition = current;
    }
    this.#state = state;
    if ((state.hasNext || state.hasPrevious) && this.template !== null) this.displayPageControls = true;
    return page as Row[];
  }

  #current(): State {
    if (this.#state === null) throw new ConfigurationError('CursorPagination: call paginateQueryset() first.');
    return this.#state;
  }

  #position(row: object): string {
    const s = this.#current();
    const first = s.ordering[0]!;
    return s.queryset.position(row, first.startsWith('-') ? first.slice(1) : first);
  }

  override getNextLink(): string | null {
    const c = this.#nextCursor();
    return c === null ? null : this.encodeCursor(c);
  }

  /**
   * The token of the next page (what `next` carries in its `cursor`
   * parameter), or `null`: for envelopes that return bare cursors.
   */
  getNextCursor(): string | null {
    const c = this.#nextCursor();
    return c === null ? null : this.#token(c);
  }

  /** The token of the previous page, or `null` (see {@link getNextCursor}). */
  getPreviousCursor(): string | null {
    const c = this.#previousCursor();
    return c === null ? null : this.#token(c);
  }

  #nextCursor(): Cursor | null {
    const s = this.#current();
    if (!s.hasNext) return null;
    const page = s.page;
    let compare =
      page.length > 0 && s.cursor !== null && s.cursor.reverse && s.cursor.offset !== 0
        ? this.#position(page[page.length - 1]!)
        : s.nextPosition;
    let offset = 0;
    let position: string | null = null;
    let marker = false;
    for (let i = page.length - 1; i >= 0; i--) {
      position = this.#position(page[i]!);
      if (position !== compare) {
        marker = true;
        break;
      }
      compare = position;
      offset += 1;
    }
    if (page.length > 0 && !marker) {
      if (!s.hasPrevious) {
        // At the start of the list: skip a page (DRF's page_size; the page is full here).
        offset = s.pageSize;
        position = null;
      } else if (s.cursor!.reverse) {
        offset = 0;
        position = s.previousPosition;
      } else {
        offset = s.cursor!.offset + s.pageSize;
        position = s.previousPosition;
      }
    }
    if (page.length === 0) position = s.nextPosition;
    return { offset, reverse: false, position };
  }

  override getPreviousLink(): string | null {
    const c = this.#previousCursor();
    return c === null ? null : this.encodeCursor(c);
  }

  #previousCursor(): Cursor | null {
    const s = this.#current();
    if (!s.hasPrevious) return null;
    const page = s.page;
    let compare =
      page.length > 0 && s.cursor !== null && !s.cursor.reverse && s.cursor.offset !== 0
        ? this.#position(page[0]!)
        : s.previousPosition;
    let offset = 0;
    let position: string | null = null;
    let marker = false;
    for (const row of page) {
      position = this.#position(row);
      if (position !== compare) {
        marker = true;
        break;
      }
      compare = position;
      offset += 1;
    }
    if (page.length > 0 && !marker) {
      if (!s.hasNext) {
        // At the end of the list: skip a page size back, as DRF does, even when this
        // last page is shorter (so the previous page overlaps it).
        offset = s.pageSize;
        position = null;
      } else if (s.cursor!.reverse) {
        offset = s.cursor!.offset + s.pageSize;
        position = s.nextPosition;
      } else {
        offset = 0;
        position = s.nextPosition;
      }
    }
    if (page.length === 0) position = s.previousPosition;
    return { offset, reverse: true, position };
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

  /** 404 with `invalidCursorMessage` (a cursor that does not decode, or is not this list's). */
  override getSchemaErrors(): SchemaError[] {
    return [invalidCursorError(this.invalidCursorMessage)];
  }

  /**
   * The response schema of a page: `{next, previous, results}`, the links a
   * URI or `null` (JSON Schema 2020-12 type arrays). With `options.url` (the
   * endpoint's URL, as the OpenAPI generator passes it), the links have
   * examples of that endpoint carrying real cursor tokens.
   */
  override getPaginatedResponseSchema(schema: JsonSchema, options: { url?: string | null } = {}): JsonSchema {
    return nextPreviousSchema(
      schema,
      options.url ?? null,
      this.cursorQueryParam,
      encodeCursorToken({ offset: 0, reverse: false, position: '486' }),
      encodeCursorToken({ offset: 0, reverse: true, position: '487' }),
    );
  }
}

/** The 404 of a cursor that cannot be read. @internal */
export function invalidCursorError(message: string): SchemaError {
  return { status: 404, name: 'invalidCursor', summary: 'A cursor that cannot be read', value: { detail: message } };
}

/**
 * The query parameters of a cursor style for the OpenAPI document: the
 * cursor, and the page size (a positive integer up to the cap) when the
 * client may choose it.
 * @internal
 */
export function cursorParameters(
  p: {
    readonly cursorQueryParam: string;
    readonly cursorQueryDescription: string;
    readonly pageSizeQueryParam: string | null;
    readonly pageSizeQueryDescription: string;
    readonly maxPageSize: number | null;
  },
  settings?: SchemaSettings | null,
): SchemaParameter[] {
  const params: SchemaParameter[] = [
    {
      name: p.cursorQueryParam,
      required: false,
      in: 'query',
      description: p.cursorQueryDescription,
      schema: { type: 'string' },
    },
  ];
  if (p.pageSizeQueryParam !== null) {
    params.push({
      name: p.pageSizeQueryParam,
      required: false,
      in: 'query',
      description: p.pageSizeQueryDescription,
      schema: pageSizeSchema(p.maxPageSize, settings),
    });
  }
  return params;
}

/**
 * `{next, previous, results}` with the links a URI or `null`; with `url`,
 * examples of that endpoint carrying the `next` and `previous` tokens.
 * @internal
 */
export function nextPreviousSchema(
  results: JsonSchema,
  url: string | null,
  param: string,
  next: string,
  previous: string,
): JsonSchema {
  const link = (token: string): JsonSchema =>
    url === null
      ? { type: ['string', 'null'], format: 'uri' }
      : { type: ['string', 'null'], format: 'uri', examples: [replaceQueryParam(url, param, token)] };
  return {
    type: 'object',
    required: ['next', 'previous', 'results'],
    properties: { next: link(next), previous: link(previous), results },
  };
}

/**
 * The ordering of a cursor page: the first filter backend of the view that
 * has `getOrdering` (an `OrderingFilter`) decides when it answers a
 * non-empty ordering; otherwise the paginator's own `ordering`.
 * Misconfiguration throws {@link ImproperlyConfigured}.
 * @internal
 */
export function cursorOrdering(
  own: string | readonly string[] | null,
  request: Request,
  queryset: Queryset<object>,
  view?: PaginatedView | null,
): readonly string[] {
  let ordering: unknown = own;
  const backend = (view?.filterBackends ?? []).find(
    (cls) => typeof (cls.prototype as Partial<OrderingBackend>).getOrdering === 'function',
  );
  if (backend !== undefined && view) {
    const answer = (new backend() as OrderingBackend).getOrdering(request, queryset, view);
    if (typeof answer === 'string' ? answer !== '' : Array.isArray(answer) && answer.length > 0) ordering = answer;
  }
  if (ordering === null || ordering === undefined) {
    throw new ImproperlyConfigured(
      'Using cursor pagination, but no ordering attribute was declared on the pagination class.',
    );
  }
  if (typeof ordering !== 'string' && !Array.isArray(ordering)) {
    throw new ImproperlyConfigured(`Invalid ordering. Expected string or tuple, but got ${typeof ordering}`);
  }
  const terms: readonly string[] = typeof ordering === 'string' ? [ordering] : (ordering as readonly string[]);
  if (terms.length === 0 || terms.some((t) => typeof t !== 'string')) {
    throw new ImproperlyConfigured(
      'Using cursor pagination, but the ordering is empty or holds something other than field names.',
    );
  }
  if (terms.some((t) => t.includes('__'))) {
    throw new ImproperlyConfigured(
      'Cursor pagination does not support double underscore lookups for orderings. Orderings should be an unchanging, unique or nearly-unique field on the model, such as "-created" or "pk".',
    );
  }
  return terms;
}

/** A term in the other direction (`price` and `-price`). @internal */
export function invertTerm(term: string): string {
  return term.startsWith('-') ? term.slice(1) : `-${term}`;
}

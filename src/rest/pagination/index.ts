/**
 * Pagination: the three built-in styles (page number, limit/offset,
 * cursor), the shipped custom styles, count strategies, the HTML controls
 * and their template registry.
 *
 * @example
 * ```ts
 * import { PageNumberPagination, cachedCount } from 'eventide/rest';
 * const itemCount = cachedCount({ ttl: 30_000 }); // created once: shared by every request
 * class Items extends PageNumberPagination {
 *   override pageSize = 20;
 *   override countStrategy = itemCount;
 * }
 * ```
 * @module
 */
export {
  BasePagination,
  type PaginatedView,
  type SchemaParameter,
  type HtmlContext,
  type PageLink,
  type JsonSchema,
} from './base.js';
export {
  PageNumberPagination,
  Paginator,
  Page,
  InvalidPage,
  PageNotAnInteger,
  EmptyPage,
  type PaginatorOptions,
  type PaginatorClass,
} from './page-number.js';
export { LimitOffsetPagination } from './limit-offset.js';
export { CursorPagination, encodeCursorToken, decodeCursorToken, type Cursor } from './cursor.js';
export { KeysetPagination, encodeKeysetToken, decodeKeysetToken, type KeysetCursor } from './keyset.js';
export { RelayConnectionPagination } from './relay.js';
export {
  getDisplayedPageNumbers,
  getPageLinks,
  PAGE_BREAK,
  NUMBERS_TEMPLATE,
  PREVIOUS_AND_NEXT_TEMPLATE,
  renderTemplate,
  renderNumbers,
  renderPreviousAndNext,
  escapeHtml,
  type PaginationTemplate,
} from './html.js';
export {
  LinkHeaderPagination,
  EnvelopePagination,
  PaginateByMaxPagination,
  PaginateByMaxCursorPagination,
  maxPageSizeRequested,
} from './styles.js';
export {
  exactCount,
  estimatedCount,
  cappedCount,
  cachedCount,
  type CountStrategy,
  type CachedCountOptions,
  type CountStore,
} from './count.js';

/**
 * The OpenAPI query parameters of the built-in paginators as the documents
 * declare them (DRF's names and descriptions, with this project's limits),
 * shared by the paginator tests and the document tests.
 */

/** `page`: a page number, or one of `lastPageStrings` (a counted list). */
export const PAGE_PARAMETER = {
  name: 'page',
  required: false,
  in: 'query',
  description: 'A page number within the paginated result set.',
  schema: {
    anyOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', enum: ['last'] },
    ],
  },
};

/** `page_size` without a cap (no `maximum`). */
export const PAGE_SIZE_PARAMETER = {
  name: 'page_size',
  required: false,
  in: 'query',
  description: 'Number of results to return per page.',
  schema: { type: 'integer', minimum: 1 },
};

/** `limit` without a cap (no `maximum`). */
export const LIMIT_PARAMETER = {
  name: 'limit',
  required: false,
  in: 'query',
  description: 'Number of results to return per page.',
  schema: { type: 'integer', minimum: 1 },
};

/** `offset`. */
export const OFFSET_PARAMETER = {
  name: 'offset',
  required: false,
  in: 'query',
  description: 'The initial index from which to return the results.',
  schema: { type: 'integer', minimum: 0 },
};

/** `cursor`. */
export const CURSOR_PARAMETER = {
  name: 'cursor',
  required: false,
  in: 'query',
  description: 'The pagination cursor value.',
  schema: { type: 'string' },
};

/**
 * The shared types of what views, paginators and versioning schemes say
 * about themselves in an OpenAPI document: JSON schemas, query parameters,
 * error answers, the caps the schema methods read, and a view's own
 * `openapi` attribute. `contracts.ts` re-exports them.
 *
 * @module
 */

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
  /** The value's schema: a type, and the limits and choices the server keeps (`minimum`, `maximum`, `enum`). */
  schema: JsonSchema;
  /** How a list is written (`form` with `explode: false`: `?ordering=price,-id`). */
  style?: 'form';
  explode?: boolean;
}

/**
 * An error answer the OpenAPI document declares for an operation, as a
 * paginator's `getSchemaErrors()` (and the generator) describe it: the
 * status, a name and summary for the example, and the exact body the
 * server sends (`{"detail": ...}`, or field errors `{"first": [...]}`).
 * @example
 * ```ts
 * const e: SchemaError = { status: 404, name: 'invalidPage', summary: 'A page that does not exist', value: { detail: 'Invalid page.' } };
 * ```
 */
export interface SchemaError {
  /** The HTTP status (400, 404, ...). */
  status: number;
  /** The example's key in the document (`invalidPage`): letters, digits, `.`, `_` and `-`. */
  name: string;
  /** What the example shows, in a few words. */
  summary: string;
  /** The response body, exactly as the server sends it. */
  value: { detail: string } | Record<string, readonly string[]>;
}

/**
 * The settings a schema method reads (the API-wide caps on client-chosen
 * page sizes and limits, stated as `maximum` in the document).
 * @example
 * ```ts
 * const s: SchemaSettings = { MAX_PAGE_SIZE: 100, MAX_LIMIT: 100 };
 * ```
 */
export interface SchemaSettings {
  readonly MAX_PAGE_SIZE: number | null;
  readonly MAX_LIMIT: number | null;
}

/**
 * What a view says about itself in the OpenAPI document (its `openapi`
 * attribute): the operations' tags (default: the first segment of the
 * route, e.g. `items` for `items/<int:pk>/`), summary (default: the view's
 * name) and description (default: its `description`), and the schema of
 * the 200 body of a view that answers a plain object (generic views have
 * their serializer's).
 * @example
 * ```ts
 * const info: ViewSchema = {
 *   tags: ['meta'],
 *   summary: 'Health',
 *   responseSchema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } },
 * };
 * ```
 */
export interface ViewSchema {
  /** The operations' tags (replacing the one taken from the route). */
  tags?: readonly string[];
  /** The operations' summary (replacing the view's name). */
  summary?: string;
  /** The operations' description (replacing the view's `description`). */
  description?: string;
  /** The JSON schema of the 200 body (for a view whose handler builds its own body). */
  responseSchema?: JsonSchema;
}

/**
 * A JSON-schema object (OpenAPI 3.1 dialect).
 * @example
 * ```ts
 * const s: JsonSchema = { type: 'array', items: { type: 'object' } };
 * ```
 */
export type JsonSchema = { [key: string]: unknown };

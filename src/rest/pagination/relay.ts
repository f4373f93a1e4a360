/**
 * Relay-style connections over keyset cursors: `first`/`after` and
 * `last`/`before` query parameters, `edges` with a cursor per item, and
 * `pageInfo` (the GraphQL Cursor Connections shape, as a REST body).
 *
 * @module
 */
import { NotFound, ValidationError } from '../errors.js';
import { positiveInt } from '../query.js';
import type { Request } from '../request.js';
import { Response } from '../response.js';
import type { JsonSchema, PaginatedView, SchemaError, SchemaParameter, SchemaSettings } from './base.js';
import { invalidCursorError } from './cursor.js';
import { pageSizeSchema } from './page-number.js';
import { KeysetPagination, type KeysetCursor } from './keyset.js';

/**
 * A Relay connection over {@link KeysetPagination}: the client pages
 * forward with `?first=N&after=<cursor>` and backward with
 * `?last=N&before=<cursor>`, where every cursor is an item's place in the
 * ordering (all ordering values and the primary key), so pages never
 * repeat or skip an item. `first`/`last` default to `pageSize` and are
 * capped by `maxPageSize` (else `MAX_PAGE_SIZE`); `last` without `before`
 * pages back from the end of the list. `after` and `before` together,
 * `first` and `last` together, or a size that is not a positive integer
 * answer 400 with the field's error (`{"last": [...]}`). Cursors are signed like the
 * other cursor styles when the API sets `CURSOR_SIGNING_KEY`.
 *
 * ```http
 * GET /cursor-relay/items/?first=2 HTTP/1.1
 *
 * HTTP/1.1 200 OK
 * Content-Type: application/json
 *
 * {"edges": [{"cursor": "eyJrIjpbIjAiLCI1MDAiXX0", "node": {"id": 500, "price": 0, ...}},
 *            {"cursor": "eyJrIjpbIjAiLCIxMDAwIl19", "node": {"id": 1000, "price": 0, ...}}],
 *  "pageInfo": {"hasNextPage": true, "hasPreviousPage": false,
 *               "startCursor": "eyJrIjpbIjAiLCI1MDAiXX0", "endCursor": "eyJrIjpbIjAiLCIxMDAwIl19"}}
 * ```
 * @example
 * ```ts
 * class ItemConnection extends RelayConnectionPagination {
 *   override ordering = 'price';
 *   override pageSize = 20;
 *   override maxPageSize = 100;
 * }
 * ```
 */
export class RelayConnectionPagination extends KeysetPagination {
  /** The forward page-size parameter. */
  firstQueryParam = 'first';
  /** The forward cursor parameter. */
  afterQueryParam = 'after';
  /** The backward page-size parameter. */
  lastQueryParam = 'last';
  /** The backward cursor parameter. */
  beforeQueryParam = 'before';

  /** `first` (or `last`) capped by `maxPageSize` / `MAX_PAGE_SIZE`, else the page size. */
  override getPageSize(request: Request): number | null {
    const raw = request.query.get(this.firstQueryParam) ?? request.query.get(this.lastQueryParam);
    if (raw !== null) {
      const n = positiveInt(raw, { strict: true, cutoff: this.maxPageSize ?? request.settings.MAX_PAGE_SIZE });
      if (n === null) {
        const param = request.query.get(this.firstQueryParam) !== null ? this.firstQueryParam : this.lastQueryParam;
        throw new ValidationError({ [param]: ['A positive integer is required.'] });
      }
      return n;
    }
    return this.pageSize === undefined ? request.settings.PAGE_SIZE : this.pageSize;
  }

  /** The place to page from: after `after`, before `before`, before the end for `last` alone, else the start. */
  override decodeCursor(request: Request): KeysetCursor | null {
    const q = request.query;
    const after = q.get(this.afterQueryParam);
    const before = q.get(this.beforeQueryParam);
    if (after !== null && before !== null)
      throw new ValidationError({
        [this.beforeQueryParam]: [`Give "${this.afterQueryParam}" or "${this.beforeQueryParam}", not both.`],
      });
    if (q.get(this.firstQueryParam) !== null && q.get(this.lastQueryParam) !== null)
      throw new ValidationError({
        [this.lastQueryParam]: [`Give "${this.firstQueryParam}" or "${this.lastQueryParam}", not both.`],
      });
    if (after !== null) return { values: this.#place(after, request), reverse: false };
    if (before !== null) return { values: this.#place(before, request), reverse: true };
    if (q.get(this.lastQueryParam) !== null) return { values: null, reverse: true };
    return null;
  }

  #place(token: string, request: Request): readonly (string | null)[] {
    const cursor = this.readToken(token, request);
    if (cursor.values === null || cursor.reverse) throw new NotFound(this.invalidCursorMessage);
    return cursor.values;
  }

  protected override cursorParams(): (string | null)[] {
    return [this.firstQueryParam, this.afterQueryParam, this.lastQueryParam, this.beforeQueryParam];
  }

  /** `{edges: [{cursor, node}], pageInfo: {hasNextPage, hasPreviousPage, startCursor, endCursor}}`. */
  override getPaginatedResponse(data: unknown[]): Response {
    const rows = this.pageRows;
    const edges = data.map((node, i) => ({ cursor: this.cursorFor(rows[i] as object), node }));
    return new Response({
      edges,
      pageInfo: {
        hasNextPage: this.hasNext,
        hasPreviousPage: this.hasPrevious,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges[edges.length - 1]?.cursor ?? null,
      },
    });
  }

  /** `first`/`last`: positive integers up to the cap; `after`/`before`: cursors. */
  override getSchemaOperationParameters(
    _view?: PaginatedView | null,
    settings?: SchemaSettings | null,
  ): SchemaParameter[] {
    const p = (name: string, description: string, schema: JsonSchema): SchemaParameter => ({
      name,
      required: false,
      in: 'query',
      description,
      schema,
    });
    const count = pageSizeSchema(this.maxPageSize, settings);
    return [
      p(this.firstQueryParam, 'Number of items after the cursor (forward).', count),
      p(this.afterQueryParam, 'The cursor of the item to page forward from.', { type: 'string' }),
      p(this.lastQueryParam, 'Number of items before the cursor (backward).', { ...count }),
      p(this.beforeQueryParam, 'The cursor of the item to page backward from.', { type: 'string' }),
    ];
  }

  /**
   * 400 field errors (a `first` or `last` that is not a positive integer;
   * both cursors, or both counts, given) and 404 `invalidCursorMessage`.
   */
  override getSchemaErrors(): SchemaError[] {
    return [
      {
        status: 400,
        name: 'invalidCount',
        summary: `A \`${this.firstQueryParam}\` that is not a positive integer`,
        value: { [this.firstQueryParam]: ['A positive integer is required.'] },
      },
      {
        status: 400,
        name: 'bothCursors',
        summary: `Both \`${this.afterQueryParam}\` and \`${this.beforeQueryParam}\``,
        value: {
          [this.beforeQueryParam]: [`Give "${this.afterQueryParam}" or "${this.beforeQueryParam}", not both.`],
        },
      },
      invalidCursorError(this.invalidCursorMessage),
    ];
  }

  override getPaginatedResponseSchema(schema: JsonSchema, _options: { url?: string | null } = {}): JsonSchema {
    const items = (schema as { items?: JsonSchema }).items ?? {};
    const cursor = { type: ['string', 'null'] };
    return {
      type: 'object',
      required: ['edges', 'pageInfo'],
      properties: {
        edges: {
          type: 'array',
          items: {
            type: 'object',
            required: ['cursor', 'node'],
            properties: { cursor: { type: 'string' }, node: items },
          },
        },
        pageInfo: {
          type: 'object',
          required: ['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'],
          properties: {
            hasNextPage: { type: 'boolean' },
            hasPreviousPage: { type: 'boolean' },
            startCursor: cursor,
            endCursor: cursor,
          },
        },
      },
    };
  }
}

/**
 * The error answers of an OpenAPI operation: each status the operation can
 * answer, with the body schema (`ErrorDetail`: `{"detail": "..."}`, or
 * `FieldErrors`: `{"first": ["A positive integer is required."]}`) and one
 * named example per cause, each the exact body the server sends
 * (`{"detail": "Invalid page."}`). The causes come from the paginator
 * (`getSchemaErrors()`), the versioning scheme, the version's lifecycle,
 * the kind of view (a detail view's 404 `Not found.`) and what every view
 * does (406 for an `Accept` it cannot answer; 400, 413 and 415 for a body).
 *
 * @module
 */
import type { JsonSchema, SchemaError, Settings } from './contracts.js';
import { DisallowedHost } from './errors.js';
import type { SchemaComponents } from './openapi-components.js';

/** The reason phrases of the statuses the documents declare. */
const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad request',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  410: 'Gone',
  413: 'Request body too large',
  415: 'Unsupported media type',
};

/** The media types a view answers with: the first is what a failed negotiation (406) falls back to. @internal */
export interface ResponseMediaTypes {
  /** Every renderer's media type, in the view's order. */
  readonly all: readonly string[];
}

/** Whether a media type carries JSON (`application/json`, `application/problem+json`...). @internal */
export function isJsonMediaType(mediaType: string): boolean {
  const type = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/** The schema of a body in a media type that is not JSON (the browsable page's HTML). @internal */
export function textBody(mediaType: string): JsonSchema {
  return mediaType.startsWith('text/html')
    ? { type: 'string', description: 'The browsable API page (HTML).' }
    : { type: 'string' };
}

/** 406: an `Accept` header the view has no renderer for. @internal */
export const NOT_ACCEPTABLE: SchemaError = {
  status: 406,
  name: 'notAcceptable',
  summary: 'An Accept header no renderer of the view satisfies',
  value: { detail: 'Could not satisfy the request Accept header.' },
};

/** 404 of a detail view: no object has the key in the URL. @internal */
export const OBJECT_NOT_FOUND: SchemaError = {
  status: 404,
  name: 'notFound',
  summary: 'No object with this key',
  value: { detail: 'Not found.' },
};

/**
 * 400: a `Host` the API refuses: one that is no host name (Django's syntax
 * check, whatever `ALLOWED_HOSTS` says) and, when `ALLOWED_HOSTS` is a list,
 * one not on it. With a list every request is checked; without one, a
 * request whose answer builds a link (a page's `next`, a hyperlinked
 * field). Declared on every operation: a status an operation can answer.
 * The examples are the bodies `Request.getHost()` answers with.
 * @internal
 */
export function hostErrors(settings: Settings): SchemaError[] {
  const out: SchemaError[] = [
    {
      status: 400,
      name: 'invalidHost',
      summary: 'A Host header that is no valid host name',
      value: {
        detail: new DisallowedHost('bad_host', {
          reason: 'The domain name provided is not valid according to RFC 1034/1035.',
        }).message,
      },
    },
  ];
  if (settings.ALLOWED_HOSTS !== null && !settings.ALLOWED_HOSTS.includes('*'))
    out.push({
      status: 400,
      name: 'disallowedHost',
      summary: 'A Host header not in ALLOWED_HOSTS',
      value: { detail: new DisallowedHost('evil.test').message },
    });
  return out;
}

/**
 * The `?format=` query parameter (`URL_FORMAT_OVERRIDE`) of a view whose
 * renderers have these formats, or `null` when the setting is off.
 * @internal
 */
export function formatParameter(settings: Settings, formats: readonly string[]): JsonSchema | null {
  const name = settings.URL_FORMAT_OVERRIDE;
  if (name === null || formats.length === 0) return null;
  return {
    name,
    in: 'query',
    required: false,
    description: 'A renderer by its format name instead of by `Accept`; a format the view does not render is 404.',
    schema: { type: 'string', enum: [...formats] },
  };
}

/** 404: a `?format=` value no renderer of the view has. @internal */
export const UNKNOWN_FORMAT: SchemaError = {
  status: 404,
  name: 'unknownFormat',
  summary: 'A format no renderer of the view has',
  value: { detail: 'Not found.' },
};

/** The errors of an operation that reads a body (400 unparsable, 413 too large, 415 unsupported type). @internal */
export function bodyErrors(maxBodySize: number): SchemaError[] {
  let message = 'Unexpected end of JSON input';
  try {
    JSON.parse('{"name": ');
  } catch (e) {
    message = (e as Error).message;
  }
  return [
    {
      status: 400,
      name: 'malformedBody',
      summary: 'A body that is not valid JSON',
      value: { detail: `JSON parse error - ${message}` },
    },
    {
      status: 413,
      name: 'bodyTooLarge',
      summary: 'A body larger than the API accepts',
      value: { detail: `Request body larger than ${maxBodySize} bytes.` },
    },
    {
      status: 415,
      name: 'unsupportedMediaType',
      summary: 'A body in a media type the view does not parse',
      value: { detail: 'Unsupported media type "text/plain" in request.' },
    },
  ];
}

/** Whether an error body is `{"detail": "..."}` (else field errors). */
function isDetail(value: SchemaError['value']): value is { detail: string } {
  return typeof (value as { detail?: unknown }).detail === 'string';
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * The error answers of one operation, collected from the causes that apply
 * to it; {@link OperationErrors.responses} writes them as OpenAPI Response
 * Objects by status.
 * @internal
 */
export class OperationErrors {
  readonly #byStatus = new Map<number, SchemaError[]>();

  /** Adds causes (a cause already there by status and name is kept once). */
  add(errors: readonly SchemaError[] | null | undefined): this {
    for (const e of errors ?? []) {
      let list = this.#byStatus.get(e.status);
      if (list === undefined) this.#byStatus.set(e.status, (list = []));
      if (!list.some((x) => x.name === e.name)) list.push(e);
    }
    return this;
  }

  /** The statuses collected, ascending. */
  get statuses(): number[] {
    return [...this.#byStatus.keys()].sort((a, b) => a - b);
  }

  /**
   * The Response Objects by status. With `bodiless` (HEAD) they have a
   * description only. A 406 is rendered by the view's first renderer (the
   * one a failed negotiation falls back to); the others in every media
   * type the view renders, the JSON ones with the schema and examples.
   */
  responses(
    components: SchemaComponents,
    media: ResponseMediaTypes,
    options: { bodiless?: boolean } = {},
  ): Record<string, JsonSchema> {
    const out: Record<string, JsonSchema> = {};
    for (const status of this.statuses) {
      const causes = this.#byStatus.get(status) ?? [];
      const reason = REASONS[status] ?? `Status ${status}`;
      const response: JsonSchema = {
        description: `${reason}: ${causes.map((c) => lowerFirst(c.summary)).join('; ')}.`,
      };
      if (options.bodiless !== true) {
        const details = causes.some((c) => isDetail(c.value));
        const fields = causes.some((c) => !isDetail(c.value));
        const schema =
          details && fields
            ? { anyOf: [components.builtIn('ErrorDetail'), components.builtIn('FieldErrors')] }
            : components.builtIn(fields ? 'FieldErrors' : 'ErrorDetail');
        const examples: Record<string, JsonSchema> = {};
        for (const c of causes) examples[c.name] = { summary: c.summary, value: c.value };
        const types = status === 406 ? media.all.slice(0, 1) : media.all;
        const content: Record<string, JsonSchema> = {};
        for (const type of types)
          content[type] = isJsonMediaType(type) ? { schema, examples } : { schema: textBody(type) };
        if (Object.keys(content).length > 0) response.content = content;
      }
      out[String(status)] = response;
    }
    return out;
  }
}

/**
 * The error registry of the web-API layer.
 *
 * Two families share one registry of stable codes, {@link REST_ERROR_CODES}:
 *
 * - **API exceptions** ({@link APIException} and its subclasses) are raised
 *   while handling a request and become the response: their `status` and a
 *   JSON body `{"detail": ...}` (Django REST framework's shape and texts).
 * - **Programming and configuration errors** ({@link ImproperlyConfigured},
 *   {@link NoReverseMatch}, {@link ConfigurationError}) are thrown at start-up
 *   or by `reverse()`; when one escapes a view the client gets a plain 500 and
 *   the error is logged.
 *
 * Every code is documented in `docs/errors.md` (a test checks it).
 *
 * @module
 */

/**
 * Every code of the web-API layer with its HTTP status (the answer when it
 * reaches a client) and a one-line description.
 * @example
 * ```ts
 * console.log(REST_ERROR_CODES.ERR_REST_NOT_FOUND.status); // 404
 * ```
 */
export const REST_ERROR_CODES = {
  ERR_REST_PARSE: {
    status: 400,
    description: 'The request body could not be parsed (malformed JSON or form data, or a body of the wrong encoding).',
  },
  ERR_REST_VALIDATION: { status: 400, description: 'Input data failed validation; `detail` holds the field errors.' },
  ERR_REST_DISALLOWED_HOST: {
    status: 400,
    description: 'The Host (or X-Forwarded-Host) header names a host outside ALLOWED_HOSTS.',
  },
  ERR_REST_NOT_FOUND: {
    status: 404,
    description:
      'The resource, page, cursor or version does not exist (`Not found.`, `Invalid page.`, `Invalid cursor`, `Invalid version in URL path.`, ...).',
  },
  ERR_REST_METHOD_NOT_ALLOWED: {
    status: 405,
    description: 'The view has no handler for the request method; the response carries `Allow`.',
  },
  ERR_REST_NOT_ACCEPTABLE: {
    status: 406,
    description:
      'No renderer satisfies the Accept header or `?format=`, or the version in the Accept header is not allowed.',
  },
  ERR_REST_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    description: 'The request body has a Content-Type no parser of the view accepts.',
  },
  ERR_REST_REQUEST_TOO_LARGE: { status: 413, description: 'The request body is larger than the configured maximum.' },
  ERR_REST_GONE: {
    status: 410,
    description:
      'The version (or the endpoint) was retired: its sunset date has passed and it is configured to answer 410.',
  },
  ERR_REST_SERVER: {
    status: 500,
    description:
      'A view, serializer or data source failed; the client gets `{"detail": "A server error occurred."}` and the cause is logged.',
  },
  ERR_REST_IMPROPERLY_CONFIGURED: {
    status: 500,
    description:
      'A setting or class attribute is invalid (checked at start-up where possible), for example ALLOWED_VERSIONS given as a string.',
  },
  ERR_REST_NO_REVERSE_MATCH: {
    status: 500,
    description: '`reverse()` found no route with that name, or the arguments do not fit its converters.',
  },
  ERR_REST_INVALID_ARGUMENT: {
    status: 500,
    description: 'A function of the layer was called with an argument of the wrong type or shape.',
  },
  ERR_REST_THROTTLE_RATE: {
    status: 500,
    description:
      "A throttle rate is not DRF's `num/period` (`'100/day'`): no single `/`, a number that is not an integer, a period not starting with s, m, h or d.",
  },
  ERR_REST_INJECT_OPTIONS: {
    status: 500,
    description:
      '`RestApi.inject()` was given options no client could send: a url that is neither a path starting with `/` nor an absolute http(s) URL, a header field with CR, LF or NUL, a body that is not a string, bytes or plain JSON data.',
  },
  ERR_REST_INJECT_NOT_JSON: {
    status: 500,
    description: "`json()` of an `inject()` response whose body is not JSON (a 301's empty body, the browsable page).",
  },
  ERR_REST_AUTHENTICATION_FAILED: {
    status: 401,
    description:
      'The credentials of the request are malformed or wrong (`Invalid basic header. ...`, `Invalid token header. ...`); 403 instead when no authentication class has a WWW-Authenticate header.',
  },
  ERR_REST_CREDENTIAL_FORMAT: {
    status: 500,
    description: 'A stored password hash or token record cannot be read (unknown algorithm, malformed field).',
  },
  ERR_REST_CREDENTIAL_LIMIT: {
    status: 500,
    description:
      'A stored password hash asks for more work than the limits allow (PBKDF2 iterations, scrypt memory or parallelism).',
  },
} as const satisfies Record<string, { status: number; description: string }>;

/**
 * A stable error code of the web-API layer.
 * @example
 * ```ts
 * const code: RestErrorCode = 'ERR_REST_NOT_FOUND';
 * ```
 */
export type RestErrorCode = keyof typeof REST_ERROR_CODES;

/**
 * Options of every error constructor of this module.
 * @example
 * ```ts
 * throw new ParseError('JSON parse error', { cause: err });
 * ```
 */
export interface RestErrorOptions {
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The base class of every error of the web-API layer.
 * @example
 * ```ts
 * try { reverse('nope'); } catch (e) { if (e instanceof RestError) console.log(e.code); }
 * ```
 */
export class RestError extends Error {
  /** The stable code from {@link REST_ERROR_CODES}. */
  readonly code: RestErrorCode;
  /** The HTTP status a client sees when this error ends a request. */
  readonly status: number;

  constructor(code: RestErrorCode, message: string, options: RestErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = REST_ERROR_CODES[code].status;
    this.name = 'RestError';
  }
}

/**
 * The `detail` of an API exception: a message, or a structure of messages
 * (validation errors per field).
 * @example
 * ```ts
 * const detail: ErrorDetail = { name: ['This field is required.'] };
 * ```
 */
export type ErrorDetail = string | readonly ErrorDetail[] | { readonly [key: string]: ErrorDetail };

/**
 * An error that becomes the response: `status` and `{"detail": ...}`.
 * Raise it (or a subclass) from a view, a paginator or a versioning scheme.
 * @example
 * ```ts
 * throw new APIException('Service temporarily unavailable.', { status: 503 });
 * ```
 */
export class APIException extends RestError {
  /** What the client reads in `detail`. */
  readonly detail: ErrorDetail;
  /** Extra response headers (for example `Allow` on a 405). */
  readonly headers: Record<string, string>;

  constructor(
    detail: ErrorDetail = 'A server error occurred.',
    options: RestErrorOptions & { status?: number; code?: RestErrorCode; headers?: Record<string, string> } = {},
  ) {
    super(options.code ?? 'ERR_REST_SERVER', typeof detail === 'string' ? detail : JSON.stringify(detail), options);
    if (options.status !== undefined) (this as { status: number }).status = options.status;
    this.detail = detail;
    this.headers = options.headers ?? {};
    this.name = 'APIException';
  }

  /** The response body: `{"detail": ...}`, or the field errors as they are for a validation error. */
  body(): unknown {
    return { detail: this.detail };
  }
}

/**
 * 400: the body could not be parsed.
 * @example
 * ```ts
 * throw new ParseError('JSON parse error - Unexpected token');
 * ```
 */
export class ParseError extends APIException {
  constructor(detail: ErrorDetail = 'Malformed request.', options: RestErrorOptions = {}) {
    super(detail, { ...options, code: 'ERR_REST_PARSE' });
    this.name = 'ParseError';
  }
}

/**
 * 400: input failed validation. The body is the errors themselves (DRF's
 * shape), not wrapped in `detail`.
 * @example
 * ```ts
 * throw new ValidationError({ name: ['This field is required.'] });
 * ```
 */
export class ValidationError extends APIException {
  constructor(detail: ErrorDetail = 'Invalid input.', options: RestErrorOptions = {}) {
    super(typeof detail === 'string' ? [detail] : detail, { ...options, code: 'ERR_REST_VALIDATION' });
    this.name = 'ValidationError';
  }

  override body(): unknown {
    return this.detail;
  }
}

/**
 * Python's `repr()` of a string, as Django quotes a host in its messages:
 * single quotes (double when the text has a single quote and no double),
 * backslash escapes for the quote, `\\`, `\n`, `\r`, `\t` and other
 * control characters.
 */
function pyStrRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === q || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + q;
}

/**
 * 400: the request's host is not in `ALLOWED_HOSTS`.
 * @example
 * ```ts
 * throw new DisallowedHost('evil.example');
 * ```
 */
export class DisallowedHost extends APIException {
  /** `reason`: a sentence appended to the detail (why the host is refused, when it is not ALLOWED_HOSTS). */
  constructor(host: string, options: RestErrorOptions & { reason?: string } = {}) {
    const { reason, ...rest } = options;
    super(`Invalid HTTP_HOST header: ${pyStrRepr(host)}.${reason ? ` ${reason}` : ''}`, {
      ...rest,
      code: 'ERR_REST_DISALLOWED_HOST',
    });
    this.name = 'DisallowedHost';
  }
}

/**
 * 404 with a `detail` text (`Not found.` by default).
 * @example
 * ```ts
 * throw new NotFound('Invalid page.');
 * ```
 */
export class NotFound extends APIException {
  constructor(detail: ErrorDetail = 'Not found.', options: RestErrorOptions = {}) {
    super(detail, { ...options, code: 'ERR_REST_NOT_FOUND' });
    this.name = 'NotFound';
  }
}

/**
 * 405 with `Allow`: `Method "PUT" not allowed.`
 * @example
 * ```ts
 * throw new MethodNotAllowed('PUT', ['GET', 'HEAD', 'OPTIONS']);
 * ```
 */
export class MethodNotAllowed extends APIException {
  constructor(method: string, allowed: readonly string[], options: RestErrorOptions = {}) {
    super(`Method "${method}" not allowed.`, {
      ...options,
      code: 'ERR_REST_METHOD_NOT_ALLOWED',
      headers: { Allow: allowed.join(', ') },
    });
    this.name = 'MethodNotAllowed';
  }
}

/**
 * 406: `Could not satisfy the request Accept header.` by default.
 * @example
 * ```ts
 * throw new NotAcceptable('Invalid version in "Accept" header.');
 * ```
 */
export class NotAcceptable extends APIException {
  constructor(detail: ErrorDetail = 'Could not satisfy the request Accept header.', options: RestErrorOptions = {}) {
    super(detail, { ...options, code: 'ERR_REST_NOT_ACCEPTABLE' });
    this.name = 'NotAcceptable';
  }
}

/**
 * 415: `Unsupported media type "text/csv" in request.`
 * @example
 * ```ts
 * throw new UnsupportedMediaType('text/csv');
 * ```
 */
export class UnsupportedMediaType extends APIException {
  constructor(mediaType: string, options: RestErrorOptions = {}) {
    super(`Unsupported media type "${mediaType}" in request.`, { ...options, code: 'ERR_REST_UNSUPPORTED_MEDIA_TYPE' });
    this.name = 'UnsupportedMediaType';
  }
}

/**
 * 413: the body is larger than the view accepts.
 * @example
 * ```ts
 * throw new RequestTooLarge(1_048_576);
 * ```
 */
export class RequestTooLarge extends APIException {
  constructor(limit: number, options: RestErrorOptions = {}) {
    super(`Request body larger than ${limit} bytes.`, { ...options, code: 'ERR_REST_REQUEST_TOO_LARGE' });
    this.name = 'RequestTooLarge';
  }
}

/**
 * 410: the version or endpoint was retired (its sunset date has passed and
 * its lifecycle says `goneAfterSunset`).
 * @example
 * ```ts
 * throw new Gone('Version "v1" was retired on Fri, 01 Jan 2027 00:00:00 GMT.');
 * ```
 */
export class Gone extends APIException {
  constructor(detail: ErrorDetail, options: RestErrorOptions = {}) {
    super(detail, { ...options, code: 'ERR_REST_GONE' });
    this.name = 'Gone';
  }
}

/**
 * A setting or class attribute is invalid. Thrown at start-up by the
 * settings check, or while handling a request when a view is misconfigured
 * (the client then gets a 500).
 * @example
 * ```ts
 * throw new ImproperlyConfigured('ALLOWED_VERSIONS must be an array, not a string.');
 * ```
 */
export class ImproperlyConfigured extends RestError {
  constructor(message: string, options: RestErrorOptions = {}) {
    super('ERR_REST_IMPROPERLY_CONFIGURED', message, options);
    this.name = 'ImproperlyConfigured';
  }
}

/**
 * `reverse()` found no route for the name and arguments.
 * @example
 * ```ts
 * try { reverse('missing'); } catch (e) { if (e instanceof NoReverseMatch) console.log(e.message); }
 * ```
 */
export class NoReverseMatch extends RestError {
  constructor(message: string, options: RestErrorOptions = {}) {
    super('ERR_REST_NO_REVERSE_MATCH', message, options);
    this.name = 'NoReverseMatch';
  }
}

/**
 * A function of the layer was called with an argument of the wrong type or
 * shape (a programming error, never the client's).
 * @example
 * ```ts
 * throw new ConfigurationError('path() needs a view function');
 * ```
 */
export class ConfigurationError extends RestError {
  constructor(message: string, options: RestErrorOptions = {}) {
    super('ERR_REST_INVALID_ARGUMENT', message, options);
    this.name = 'ConfigurationError';
  }
}

/**
 * A throttle rate that is not Django REST framework's `num/period`
 * (where DRF's `parse_rate` would fail while serving); `rate` is the
 * string as given.
 * @example
 * ```ts
 * declare function parseRate(rate: string): unknown;
 * try { parseRate('100 per day'); } catch (e) { if (e instanceof ThrottleRateError) console.log(e.rate); }
 * ```
 */
export class ThrottleRateError extends RestError {
  /** The rate string as given. */
  readonly rate: string;

  constructor(rate: string, reason: string, options: RestErrorOptions = {}) {
    super('ERR_REST_THROTTLE_RATE', `Invalid throttle rate ${JSON.stringify(rate)}: ${reason}`, options);
    this.rate = rate;
    this.name = 'ThrottleRateError';
  }
}

/**
 * A mistake in a call of `RestApi.inject()` (`ERR_REST_INJECT_OPTIONS`:
 * options no client could send, thrown before the API sees the request), or
 * `json()` of its response on a body that is not JSON
 * (`ERR_REST_INJECT_NOT_JSON`, the parse error as `cause`). Never a
 * client's error: an injected request the API refuses is its response.
 * @example
 * ```ts
 * try { await api.inject('items/'); } catch (e) { if (e instanceof InjectError) console.log(e.code); } // ERR_REST_INJECT_OPTIONS
 * ```
 */
export class InjectError extends RestError {
  constructor(
    code: 'ERR_REST_INJECT_OPTIONS' | 'ERR_REST_INJECT_NOT_JSON',
    message: string,
    options: RestErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'InjectError';
  }
}

/**
 * 401 (or 403, as the caller decides from the authentication classes'
 * headers): the request's credentials are malformed or wrong, with DRF's
 * texts (`Incorrect authentication credentials.` by default).
 * @example
 * ```ts
 * throw new AuthenticationFailed('Invalid token header. No credentials provided.');
 * ```
 */
export class AuthenticationFailed extends APIException {
  constructor(
    detail: ErrorDetail = 'Incorrect authentication credentials.',
    options: RestErrorOptions & { status?: number } = {},
  ) {
    super(detail, { ...options, code: 'ERR_REST_AUTHENTICATION_FAILED' });
    this.name = 'AuthenticationFailed';
  }
}

/**
 * A stored credential cannot be used: a password hash or token record that
 * cannot be read (`ERR_REST_CREDENTIAL_FORMAT`), or a password hash whose
 * parameters ask for more work than the limits allow
 * (`ERR_REST_CREDENTIAL_LIMIT`). A fault of the stored data, never the
 * client's; the message never holds a password, key or hash.
 * @example
 * ```ts
 * throw new CredentialFormatError('ERR_REST_CREDENTIAL_LIMIT', 'password hash: too many iterations');
 * ```
 */
export class CredentialFormatError extends RestError {
  constructor(
    code: 'ERR_REST_CREDENTIAL_FORMAT' | 'ERR_REST_CREDENTIAL_LIMIT',
    message: string,
    options: RestErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'CredentialFormatError';
  }
}

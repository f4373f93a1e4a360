/**
 * The error registry of the HTTP layer's codec.
 *
 * Every failure of the HTTP/1.1 parsers (`request-parser.ts`,
 * `response-parser.ts`, on the state machine of `machine.ts`) is an
 * {@link HttpParseError} with a stable `code` from {@link HTTP_ERROR_CODES}
 * and the HTTP `status` a server must answer with before closing the
 * connection (400, 413, 414, 417, 431, 501, 505). Codes never change meaning;
 * messages may be refined, so programs test `code` (or `status`), never the
 * message.
 *
 * The parsers never throw these errors: they hand them to the `onError`
 * callback and stop accepting input. `status` is the answer for a *request*
 * parser; the response parser (HTTP client side) reports the same codes, and
 * a proxy would map them to 502 Bad Gateway.
 *
 * @module
 */

/**
 * Every code of the HTTP codec with the status a server answers with and a
 * one-line description. The description is the documentation's summary; the
 * message of an error says what exactly went wrong.
 *
 * @example
 * ```ts
 * import { HTTP_ERROR_CODES } from 'eventide/http';
 * console.log(HTTP_ERROR_CODES.ERR_HTTP_URI_TOO_LONG.status); // 414
 * ```
 */
export const HTTP_ERROR_CODES = {
  ERR_HTTP_BAD_REQUEST_LINE: {
    status: 400,
    description:
      'The request line is malformed: the method is not a token, the separators are not single spaces, or the version is missing (HTTP/0.9 is not supported).',
  },
  ERR_HTTP_BAD_TARGET: {
    status: 400,
    description:
      'The request-target is not in origin-form, absolute-form, authority-form (CONNECT only) or asterisk-form (OPTIONS only), or holds a control, space or non-ASCII byte.',
  },
  ERR_HTTP_BAD_VERSION: {
    status: 400,
    description: 'The HTTP-version is malformed (it must be exactly `HTTP/` DIGIT `.` DIGIT, case-sensitive).',
  },
  ERR_HTTP_UNSUPPORTED_VERSION: {
    status: 505,
    description: 'The HTTP-version is well-formed but its major version is not 1 (for example HTTP/2.0 or HTTP/0.9).',
  },
  ERR_HTTP_URI_TOO_LONG: { status: 414, description: 'The request line is longer than `maxRequestLineBytes`.' },
  ERR_HTTP_HEADER_TOO_LARGE: {
    status: 431,
    description: 'The head (request line and header section), or the trailer section, is longer than `maxHeaderBytes`.',
  },
  ERR_HTTP_TOO_MANY_HEADERS: {
    status: 431,
    description: 'The header (or trailer) section has more than `maxHeaderCount` fields.',
  },
  ERR_HTTP_BAD_HEADER: {
    status: 400,
    description:
      'A field line is malformed: no colon, an invalid name, whitespace before the colon, obs-fold, or a control character in the value.',
  },
  ERR_HTTP_BAD_LINE_ENDING: {
    status: 400,
    description:
      'A line ends with a bare LF, or a bare CR (not followed by LF) appears in the head, a chunk line or the trailers.',
  },
  ERR_HTTP_BAD_CONTENT_LENGTH: {
    status: 400,
    description: 'A Content-Length value is empty, signed, non-decimal or not a list of identical decimal values.',
  },
  ERR_HTTP_SMUGGLING: {
    status: 400,
    description:
      'The framing is ambiguous: both Content-Length and Transfer-Encoding, or Content-Length fields with differing values.',
  },
  ERR_HTTP_BAD_TRANSFER_ENCODING: {
    status: 400,
    description:
      'Transfer-Encoding is malformed, lists `chunked` more than once, or its final coding is not `chunked`.',
  },
  ERR_HTTP_UNSUPPORTED_ENCODING: {
    status: 501,
    description: 'Transfer-Encoding names a transfer coding other than `chunked`, which the codec does not implement.',
  },
  ERR_HTTP_BAD_CHUNK: {
    status: 400,
    description:
      'The chunked body is malformed: an invalid or overflowing chunk size, an invalid chunk extension, or chunk data not followed by CRLF.',
  },
  ERR_HTTP_BODY_TOO_LARGE: {
    status: 413,
    description: 'The declared Content-Length, or the running total of a chunked body, is larger than `maxBodyBytes`.',
  },
  ERR_HTTP_UNSUPPORTED_METHOD: {
    status: 501,
    description: 'The method is a valid token but not one the codec knows (see `HTTP_METHODS`).',
  },
  ERR_HTTP_MISSING_HOST: { status: 400, description: 'An HTTP/1.1 request has no Host header field.' },
  ERR_HTTP_BAD_HOST: {
    status: 400,
    description:
      'A Host field (or the authority of the target) is not uri-host [":" port], or the request has more than one Host field.',
  },
  ERR_HTTP_EXPECTATION: {
    status: 417,
    description: 'An HTTP/1.1 request carries an Expect value other than `100-continue`.',
  },
  ERR_HTTP_INCOMPLETE: { status: 400, description: 'The input ended (`finish()`) in the middle of a message.' },
  ERR_HTTP_BAD_STATUS_LINE: {
    status: 502,
    description: 'A response status line is malformed or its status code is outside 100-599 (response parser only).',
  },
  ERR_HTTP_TOO_MANY_INTERIM: {
    status: 502,
    description: 'A response was preceded by more than 100 interim (1xx) responses (response parser only).',
  },
} as const satisfies Record<string, { status: number; description: string }>;

/**
 * A stable error code of the HTTP codec.
 *
 * @example
 * ```ts
 * const fatal: HttpErrorCode[] = ['ERR_HTTP_SMUGGLING', 'ERR_HTTP_BAD_CHUNK'];
 * if (err instanceof HttpParseError && fatal.includes(err.code)) console.warn('possible smuggling attempt', err.message);
 * ```
 */
export type HttpErrorCode = keyof typeof HTTP_ERROR_CODES;

/**
 * Options accepted by the {@link HttpParseError} constructor.
 *
 * @example
 * ```ts
 * const opts: HttpErrorOptions = { status: 502, cause: err };
 * throw new HttpParseError('ERR_HTTP_BAD_STATUS_LINE', 'Bad upstream response', opts);
 * ```
 */
export interface HttpErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
  /** The status to answer with, when it differs from the code's default. */
  status?: number;
}

/**
 * A message the codec refused. `status` is what a server answers with (it
 * then closes the connection); `code` is stable and documented in
 * {@link HTTP_ERROR_CODES}.
 *
 * @example
 * ```ts
 * import { RequestParser, HttpParseError } from 'eventide/http';
 * const p = new RequestParser({
 *   onRequest() {},
 *   onError(err: HttpParseError) {
 *     console.log(err.status, err.code); // 400 ERR_HTTP_MISSING_HOST
 *   },
 * });
 * p.execute(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
 * ```
 */
export class HttpParseError extends Error {
  /** The stable code; see {@link HTTP_ERROR_CODES}. */
  readonly code: HttpErrorCode;
  /** The HTTP status a server answers with. */
  readonly status: number;

  constructor(code: HttpErrorCode, message: string, options: HttpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? HTTP_ERROR_CODES[code].status;
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * Builds the error for a code (the counterpart of `createEventError`).
 *
 * @example
 * ```ts
 * const err = createHttpError('ERR_HTTP_BAD_HOST', 'Invalid Host header');
 * console.log(err.status); // 400
 * ```
 */
export function createHttpError(code: HttpErrorCode, message: string, options: HttpErrorOptions = {}): HttpParseError {
  return new HttpParseError(code, message, options);
}

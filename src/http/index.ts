/**
 * The HTTP layer: an HTTP/1.1 codec of our own, the server `EventHttp`, the
 * request object `EventHttpRequest` and the client `EventHttpConnection`.
 *
 * @example
 * ```ts
 * import { EventBase } from 'eventide/event';
 * import { EventHttp } from 'eventide/http';
 * const base = new EventBase();
 * const http = new EventHttp(base);
 * http.setDefaultCallback((req) => req.sendReply(200, 'OK'));
 * http.bind('127.0.0.1', 8080);
 * await base.dispatch();
 * ```
 * @module
 */
export { EventHttp, type HttpCallback } from './server.js';
export { HttpServerConnection } from './server-connection.js';
export { decodedPath } from './routing.js';
export { EventHttpRequest, type HttpRequestCallback } from './request.js';
export type { HttpConnection } from './contracts.js';
export { EventHttpConnection, type HttpCloseCallback } from './client.js';
export { RequestParser } from './request-parser.js';
export { ResponseParser } from './response-parser.js';
export { RequestHead, ResponseHead, type HeaderPair } from './head.js';
export type { ParserLimits } from './machine.js';
export { HTTP_METHODS, type HttpMethod } from './methods.js';
export { statusText } from './status.js';
export { httpDate } from './date.js';
export {
  HTTP_ERROR_CODES,
  HttpParseError,
  createHttpError,
  type HttpErrorCode,
  type HttpErrorOptions,
} from './errors.js';

/**
 * The contracts between a request and the connection that carries it, on
 * either side: {@link Exchange} (what a server or client connection does for
 * an `EventHttpRequest`), {@link ExchangeRequest} (what it reads and writes on
 * the request) and {@link HttpConnection} (what `getConnection()` returns).
 * Types only; this module imports nothing from the request, the server or
 * the client, which all depend on it.
 *
 * @module
 */
import type { EventBase } from '../event/base.js';
import type { EventBuffer } from '../event/buffer.js';
import type { EventBufferEvent } from '../event/bufferevent.js';
import type { HeaderList } from './headers.js';

/**
 * The connection of a request, as `EventHttpRequest.getConnection()` gives
 * it: the server's `HttpServerConnection` for a server request, the
 * `EventHttpConnection` for a client request. Both implement it.
 *
 * @example
 * ```ts
 * http.setDefaultCallback((req) => {
 *   const conn: HttpConnection | null = req.getConnection();
 *   conn?.setCloseCallback(() => console.log('closed'));
 *   console.log(conn?.getPeer()); // { address: '127.0.0.1', port: 50312 }
 *   req.sendReply(200, 'OK');
 * });
 * ```
 */
export interface HttpConnection {
  /** The peer's address and port (server side: the client's; client side: the server's), or false. */
  getPeer(): { address: string; port: number } | false;
  /** The EventBase the connection runs on. */
  getBase(): EventBase;
  /** Calls `cb(connection, arg)` when the connection closes. */
  setCloseCallback<A>(cb: (conn: HttpConnection, arg: A) => void, arg?: A): void;
}

/**
 * What an exchange reads and writes on the request it serves: every
 * `EventHttpRequest`, whatever its callback argument type, is one. Part of
 * the contract between requests and connections; applications do not use it.
 * @example
 * ```ts
 * function done(req: ExchangeRequest, code: number): void {
 *   req.replied = true;
 *   req.responseCode = code;
 *   req.exchange = null;
 * }
 * ```
 */
export interface ExchangeRequest {
  /** The method's `CMD_*` bit. */
  command: number;
  /** The HTTP version of the request. */
  major: number;
  minor: number;
  /** The headers to send. */
  readonly output: HeaderList;
  /** The body to send, when one was created. */
  readonly outputBufferIfAny: EventBuffer | null;
  /** The status of the reply sent (server) or the response (client). */
  responseCode: number;
  /** A reply was sent (or started). */
  replied: boolean;
  /** A streamed reply is in progress. */
  streaming: boolean;
  /** The exchange the request belongs to while it is in progress. */
  exchange: Exchange | null;
}

/**
 * What a server connection or client connection does for a request. Part
 * of the contract between requests and connections; applications do not
 * use it.
 * @example
 * ```ts
 * const refuse: Exchange = {
 *   reply: (req) => void (req.replied = true),
 *   error: (req, code) => void (req.responseCode = code),
 *   startChunked: () => {},
 *   chunk: () => {},
 *   endChunked: () => {},
 *   closeConnection: () => {},
 *   cancel: () => {},
 *   bufferEvent: () => null,
 *   connection: () => null,
 * };
 * ```
 */
export interface Exchange {
  reply(req: ExchangeRequest, code: number, reason: string | null, body: EventBuffer | null): void;
  error(req: ExchangeRequest, code: number, reason: string | null): void;
  startChunked(req: ExchangeRequest, code: number, reason: string | null): void;
  chunk(req: ExchangeRequest, buf: EventBuffer): void;
  endChunked(req: ExchangeRequest): void;
  closeConnection(req: ExchangeRequest): void;
  cancel(req: ExchangeRequest): void;
  bufferEvent(req: ExchangeRequest): EventBufferEvent | null;
  connection(req: ExchangeRequest): HttpConnection | null;
}

/**
 * One connection of an HTTP client: its bufferevent (plain or TLS), the
 * response parser and the state of the response being read, and the writing
 * of a request (head and body) onto it. When to connect, what to send and
 * what each outcome means are `client-engine.ts`'s business.
 *
 * @module
 */
import type { Socket } from 'node:net';
import type { EventBase } from '../event/base.js';
import { EventBufferEvent, type BufferEventEventCallback } from '../event/bufferevent.js';
import type { EventDnsRequest } from '../event/dns.js';
import type { EventSslContext } from '../event/ssl.js';
import { createHttpError, type HttpParseError } from './errors.js';
import type { ResponseHead } from './head.js';
import { lower } from './headers.js';
import type { ParserLimits } from './machine.js';
import { ResponseParser } from './response-parser.js';
import type { ExchangeRequest } from './contracts.js';
import type { EventHttpRequest } from './request.js';

const READ = 2;
const WRITE = 4;

/**
 * What the client uses of a request: every `EventHttpRequest<A>` is one,
 * whatever its `A`.
 * @internal
 * @example
 * ```ts
 * const r: ClientRequest = new EventHttpRequest((res) => console.log(res?.getResponseCode()), null);
 * ```
 */
export type ClientRequest = ExchangeRequest &
  Pick<
    EventHttpRequest,
    | 'method'
    | 'uri'
    | 'responseReason'
    | 'hasCallback'
    | 'runCallback'
    | 'setHead'
    | 'hasInputBuffer'
    | 'getInputBuffer'
  >;

/**
 * Where the response on a connection stands.
 * @internal
 * @example
 * ```ts
 * declare const conn: ClientConn; // the connection of the request in flight
 * if (conn.resp === Resp.Done) console.log('response complete');
 * ```
 */
export const enum Resp {
  /** No byte of the response yet. */
  None,
  /** Receiving the response. */
  Reading,
  /** The response is complete. */
  Done,
  /** The response was refused (malformed, too large, cut short). */
  Failed,
}

/**
 * One TCP (or TLS) connection of a client; a new one is made after each
 * close. Its parser's handlers record the response in its fields; the body
 * goes to the input buffer of the request in flight (`req`).
 * @internal
 * @example
 * ```ts
 * const conn = new ClientConn({ maxHeaderBytes: 65536, maxBodyBytes: Infinity, maxHeaderCount: 1000 });
 * conn.attach(base, null, null, () => {}, () => {}, onEvent).connect('127.0.0.1:8080');
 * ```
 */
export class ClientConn {
  bev: EventBufferEvent | null = null;
  dns: EventDnsRequest | null = null;
  readonly parser: ResponseParser;
  /** CONNECTED was received (for TLS: the handshake is done). */
  connected = false;
  /** A request was written on it and its response is not complete. */
  sent = false;
  /** Responses completed on it. */
  served = 0;
  closed = false;
  resp = Resp.None;
  head: ResponseHead | null = null;
  bodyBytes = 0;
  leftover = false;
  /** Why the response was refused (`resp` is `Failed`). */
  failure: HttpParseError | null = null;
  /** The request whose response is read (the last one sent). */
  req: ClientRequest | null = null;

  constructor(limits: ParserLimits) {
    this.parser = new ResponseParser(
      {
        onResponse: (head) => {
          this.head = head;
          this.resp = Resp.Reading;
        },
        onBody: (chunk) => {
          this.bodyBytes += chunk.length;
          const max = this.parser.maxBodyBytes;
          if (this.bodyBytes > max) {
            // Only a body read until the close gets here: the parser checks the others.
            if (this.resp !== Resp.Failed)
              this.failure = createHttpError('ERR_HTTP_BODY_TOO_LARGE', `Response body larger than ${max} bytes`);
            this.resp = Resp.Failed;
            return;
          }
          if (this.resp !== Resp.Reading) return;
          this.req?.getInputBuffer().appendOwned(chunk);
        },
        onMessageComplete: () => {
          if (this.resp === Resp.Reading) this.resp = Resp.Done;
          return false; // one response per request: stop here
        },
        onError: (err: HttpParseError) => {
          this.resp = Resp.Failed;
          this.failure = err;
        },
        onUpgrade: (head) => {
          // 101 Switching Protocols: not supported by this client; deliver the status and close.
          this.head = head;
          this.resp = Resp.Done;
          this.leftover = true;
        },
      },
      limits,
    );
  }

  /**
   * A buffered connection over `socket` (null: the bufferevent makes it on
   * connect()), with the client's callbacks, reading and writing.
   * @example
   * ```ts
   * const conn = new ClientConn({ maxHeaderBytes: 65536 });
   * conn.attach(base, ctx, null, () => {}, () => {}, onEvent).connectHost(null, 'example.org', 443, 0);
   * ```
   */
  attach(
    base: EventBase,
    ctx: EventSslContext | null,
    socket: Socket | null,
    onRead: () => void,
    onWritten: () => void,
    onEvent: BufferEventEventCallback,
  ): EventBufferEvent {
    const bev =
      ctx !== null
        ? EventBufferEvent.sslSocket(
            base,
            socket,
            ctx,
            EventBufferEvent.SSL_CONNECTING,
            EventBufferEvent.OPT_CLOSE_ON_FREE,
          )
        : new EventBufferEvent(base, socket, EventBufferEvent.OPT_CLOSE_ON_FREE);
    bev.setCallbacks(onRead, onWritten, onEvent, null);
    bev.enable(READ | WRITE);
    this.bev = bev;
    return bev;
  }

  /**
   * Writes a request: `METHOD URI HTTP/1.1`, the request's output headers,
   * `Content-Length` when the request sets no framing and has a body (or is a
   * POST or PUT), then the body; and prepares for its response.
   * @example
   * ```ts
   * declare const conn: ClientConn; // attached and connected
   * conn.send(req, 'GET', '/index.html', []);
   * ```
   */
  send(req: ClientRequest, method: string, uri: string, body: Buffer[]): void {
    let bodyLength = 0;
    for (const c of body) bodyLength += c.length;
    let head = `${method} ${uri} HTTP/1.1\r\n`;
    const names = req.output.names;
    const values = req.output.values;
    let framed = false;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const l = lower(name);
      if (l === 'content-length' || l === 'transfer-encoding') framed = true;
      head += `${name}: ${values[i] as string}\r\n`;
    }
    if (!framed && (bodyLength > 0 || method === 'POST' || method === 'PUT'))
      head += `Content-Length: ${bodyLength}\r\n`;
    head += '\r\n';
    const bev = this.bev as EventBufferEvent;
    bev.output.add(head);
    for (const c of body) bev.output.add(c);
    this.parser.addRequest(method);
    this.req = req;
    this.sent = true;
    this.resp = Resp.None;
    this.head = null;
    this.bodyBytes = 0;
    this.failure = null;
  }

  /**
   * Closes it: cancels a name resolution, frees the bufferevent (which
   * closes the socket). Idempotent; true the first time.
   * @example
   * ```ts
   * declare const conn: ClientConn;
   * if (conn.close() && conn.connected) console.log('closed a connected socket');
   * ```
   */
  close(): boolean {
    if (this.closed) return false;
    this.closed = true;
    this.req = null;
    this.dns?.cancel();
    this.dns = null;
    const bev = this.bev;
    this.bev = null;
    if (bev !== null) {
      bev.setCallbacks(null, null, null);
      bev.free();
    }
    return true;
  }
}

/**
 * The request said `Connection: close`.
 * @internal
 * @example
 * ```ts
 * declare const response: ResponseHead; // the response to req
 * const close = !response.keepAlive || asksClose(req); // the connection ends after this exchange
 * ```
 */
export function asksClose(req: ExchangeRequest): boolean {
  const names = req.output.names;
  for (let i = 0; i < names.length; i++) {
    if (lower(names[i] as string) === 'connection' && /(^|[\s,])close($|[\s,])/i.test(req.output.values[i] as string))
      return true;
  }
  return false;
}

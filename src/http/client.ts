/**
 * EventHttpConnection: the HTTP/1.1 client connection (libevent's
 * `evhttp_connection`): its public API, the checks of its arguments and its
 * settings. The requests travel through `client-engine.ts`.
 *
 * @module
 */
import { isIP } from 'node:net';
import { EventBase } from '../event/base.js';
import { EventDnsBase } from '../event/dns.js';
import { EventSslContext } from '../event/ssl.js';
import { createEventError, warn } from '../event/errors.js';
import { EventHttpRequest } from './request.js';
import type { HttpConnection } from './contracts.js';
import { commandName } from './methods.js';
import { isTarget } from './chars.js';
import { ClientEngine, DEFAULT_REQUEST_TIMEOUT, DEFAULT_TIMEOUT } from './client-engine.js';
import type { ClientRequest } from './client-conn.js';

/**
 * Close callback: `(connection, arg)`.
 * @example
 * ```ts
 * conn.setCloseCallback((c) => console.log('closed'));
 * ```
 */
export type HttpCloseCallback<A = unknown> = (conn: EventHttpConnection, arg: A) => void;

/**
 * An HTTP/1.1 client connection to one server (`address:port`, optionally
 * over TLS). It connects on the first request, keeps the connection alive
 * and reuses it: requests made while one is in flight wait in a queue and
 * are sent one after another over the same connection.
 *
 * Outcomes of a request, given to its callback `(request or null, arg)`:
 *
 * - a response (any status, 1xx interim responses skipped): the request,
 *   with `getResponseCode()`, `getResponseReason()`, `getInputHeaders()`
 *   and the de-chunked body in `getInputBuffer()`;
 * - the connection could not be established (refused, unreachable, name
 *   not resolved, TLS handshake or certificate refused), after the tries
 *   `setRetries()` allows: the request with response code **0**; every
 *   request queued behind it gets the same outcome (as in libevent);
 * - no response within `setTimeout()` seconds (no byte received for that
 *   long, connecting included), or no complete response within
 *   `setRequestTimeout()` seconds of the request being sent: **null**, with
 *   `ERR_EVENT_TIMEOUT` recorded;
 * - a response that cannot be accepted (malformed, head larger than
 *   `setMaxHeadersSize()`, body larger than `setMaxBodySize()`, more than
 *   100 interim 1xx responses) or a connection that closed in the middle of
 *   it: **null** (libevent's `evhttp_connection_fail_` gives NULL for all of
 *   these), with `ERR_EVENT_PROTOCOL` recorded, whose `cause` is the codec's
 *   `HttpParseError` (`ERR_HTTP_BODY_TOO_LARGE`, ...). The connection is
 *   closed; queued requests go on over a new one.
 * - `cancel()`: the callback does not run.
 *
 * For a null outcome, `getLastError()` in the callback says why (it is
 * recorded just before the callback runs, and published on the
 * `eventide:warning` channel).
 *
 * Bounded by default: a response body of at most 8 MiB
 * (`setMaxBodySize()`), a head of at most 64 KiB and 1000 fields
 * (`setMaxHeadersSize()`), at most 100 interim responses before the final
 * one, 50 s without a byte (`setTimeout()`) and 60 s for the whole response
 * (`setRequestTimeout()`): a server cannot make the client hold more memory
 * or wait longer than that (docs/security.md).
 *
 * Wire format: the request line is always `METHOD URI HTTP/1.1`; the
 * request's OUTPUT headers follow in order; **no Host header is added**
 * (add one yourself, as libevent requires); `Content-Length` is added when
 * neither it nor `Transfer-Encoding` was set and there is a body (the
 * request's output buffer), or the method is POST or PUT (libevent's rule,
 * `Content-Length: 0`). The body is the request's output buffer, which is
 * drained when the request is sent.
 *
 * Keep-alive: the connection is reused unless the response says
 * `Connection: close`, is HTTP/1.0 without keep-alive, or is delimited by
 * the end of the connection, or the request said `Connection: close`; the
 * next request then opens a new connection. An idle connection keeps
 * reading, so that a close by the server is noticed (the close callback
 * runs) — and, as in libevent, it keeps the loop running until the server
 * closes it, `free()` is called or the loop is ended. When a request sent
 * on a reused connection meets a closed connection before any byte of its
 * response (the server closed it meanwhile), an idempotent request (GET,
 * HEAD, PUT, DELETE, OPTIONS, TRACE) is sent once more over a new
 * connection, in addition to what `setRetries()` allows.
 *
 * All callbacks run from the base's loop.
 *
 * @example
 * ```ts
 * import { EventBase, getLastError } from 'eventide/event';
 * import { EventHttpConnection, EventHttpRequest } from 'eventide/http';
 * const base = new EventBase();
 * const conn = new EventHttpConnection(base, null, '127.0.0.1', 8010);
 * conn.setTimeout(5);
 * conn.setRequestTimeout(10);
 * const req = new EventHttpRequest((r, b) => {
 *   if (r === null) console.log('Failed:', getLastError()?.message);
 *   else if (r.getResponseCode() === 0) console.log('Connection refused');
 *   else console.log(r.getResponseCode(), r.getInputBuffer().read(1024)?.toString());
 *   b.exit();
 * }, base);
 * req.addHeader('Host', '127.0.0.1', EventHttpRequest.OUTPUT_HEADER);
 * conn.makeRequest(req, EventHttpRequest.CMD_GET, '/about');
 * await base.dispatch();
 * conn.free();
 * ```
 */
export class EventHttpConnection implements HttpConnection {
  #engine: ClientEngine<EventHttpConnection>;

  /**
   * Creates a connection to `address` (an IP address or a host name,
   * resolved through `dnsBase`, or the system resolver when null) and
   * `port`. Nothing happens until the first request. With an
   * EventSslContext (client method) it speaks HTTPS and verifies the server
   * as the context says (by default its certificate chain and its name:
   * `address`). Throws `ERR_EVENT_INVALID_ARGUMENT` for a bad argument.
   * @example
   * ```ts
   * const conn = new EventHttpConnection(base, null, 'example.org', 443,
   *   new EventSslContext(EventSslContext.TLS_CLIENT_METHOD, {}));
   * ```
   */
  constructor(
    base: EventBase,
    dnsBase: EventDnsBase | null,
    address: string,
    port: number,
    ctx: EventSslContext | null = null,
  ) {
    if (!(base instanceof EventBase))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventHttpConnection expects an EventBase');
    if (dnsBase !== null && dnsBase !== undefined && !(dnsBase instanceof EventDnsBase)) {
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventHttpConnection expects an EventDnsBase or null');
    }
    if (typeof address !== 'string' || address.length === 0 || /[\s/?#@]/.test(address)) {
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `Invalid address: ${JSON.stringify(String(address))}`);
    }
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw createEventError('ERR_EVENT_ADDRESS', `Invalid port: ${String(port)}`);
    if (ctx !== null && ctx !== undefined && !(ctx instanceof EventSslContext)) {
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventHttpConnection expects an EventSslContext or null');
    }
    const host = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
    this.#engine = new ClientEngine<EventHttpConnection>(this, base, dnsBase ?? null, host, port, ctx ?? null);
  }

  // ---------------------------------------------------------------- settings

  /**
   * Seconds without any byte of the response (connecting included) after
   * which a request's callback gets null; 0 or negative: the default, 50.
   * @example
   * ```ts
   * conn.setTimeout(5);
   * ```
   */
  setTimeout(seconds: number): void {
    const s = Number(seconds);
    this.#engine.setTimeout(s > 0 && Number.isFinite(s) ? s : DEFAULT_TIMEOUT);
  }

  /**
   * The deadline of a whole request in seconds: from when it is written
   * (connecting is bounded by `setTimeout()` and `setRetries()` instead) to
   * the last byte of its response, interim 1xx responses included. Unlike
   * `setTimeout()`, bytes that keep arriving do not extend it, so a server
   * that trickles its response or sends endless interim responses cannot
   * hold a request. Past it the request's callback gets null
   * (`ERR_EVENT_TIMEOUT` recorded) and the connection is closed. Default
   * 60; 0, negative or NaN: the default; `Infinity`: no deadline. A change
   * applies to the request in flight too (counted from when it was sent).
   * The resend of an idempotent request over a new connection (see above)
   * keeps the deadline of the first send.
   * @example
   * ```ts
   * conn.setRequestTimeout(10);
   * ```
   */
  setRequestTimeout(seconds: number): void {
    const s = Number(seconds);
    this.#engine.setRequestTimeout(s > 0 ? s : DEFAULT_REQUEST_TIMEOUT);
  }

  /**
   * How many more times a connect that failed is tried (with a delay of
   * 2 s, doubled for each further try; see `setInitialRetryTimeout()`)
   * before the waiting requests fail with code 0. -1 (any negative): for
   * ever. Default 0.
   * @example
   * ```ts
   * conn.setRetries(3);
   * ```
   */
  setRetries(retries: number): void {
    if (!Number.isInteger(retries)) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid number of retries: ${String(retries)}`);
      return;
    }
    this.#engine.retries = retries < 0 ? -1 : retries;
  }

  /**
   * The delay before the first re-try of a failed connect, in seconds
   * (libevent's `evhttp_connection_set_initial_retry_tv`; default 2); each
   * further try waits twice as long, at most 60 s.
   * @example
   * ```ts
   * conn.setInitialRetryTimeout(0.5);
   * ```
   */
  setInitialRetryTimeout(seconds: number): void {
    const s = Number(seconds);
    if (!(s >= 0) || !Number.isFinite(s)) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid retry timeout: ${String(seconds)}`);
      return;
    }
    this.#engine.retryDelay = s;
  }

  /**
   * Largest response body in bytes (declared Content-Length, chunked total
   * or bytes until the close); a bigger one fails the request (null,
   * `ERR_EVENT_PROTOCOL` recorded with an `ERR_HTTP_BODY_TOO_LARGE` cause):
   * a declared length at once, before any of the body is read, the others
   * as soon as their total passes the limit, so no more than the limit is
   * ever held. Default 8 MiB (the whole body is held in memory until the
   * callback runs): raise it for larger downloads. Negative: unlimited
   * (then only `setRequestTimeout()` bounds what a server can send).
   * @example
   * ```ts
   * conn.setMaxBodySize(64 << 20);
   * ```
   */
  setMaxBodySize(bytes: number): void {
    const n = Math.trunc(Number(bytes));
    this.#engine.setMaxBodySize(Number.isNaN(n) || n < 0 ? Infinity : n);
  }

  /**
   * Largest response head (status line and header fields) in bytes; a
   * bigger one fails the request (null). Default 65536; negative: unlimited.
   * @example
   * ```ts
   * conn.setMaxHeadersSize(16384);
   * ```
   */
  setMaxHeadersSize(bytes: number): void {
    const n = Math.trunc(Number(bytes));
    this.#engine.setMaxHeadersSize(Number.isNaN(n) || n < 0 ? Number.MAX_SAFE_INTEGER : n);
  }

  /**
   * The local IP address the socket is bound to before connecting (from
   * the next connection on). Not an IP address: ignored (false recorded).
   * @example
   * ```ts
   * conn.setLocalAddress('127.0.0.1');
   * ```
   */
  setLocalAddress(address: string): void {
    if (typeof address !== 'string' || isIP(address) === 0) {
      warn('ERR_EVENT_ADDRESS', `Invalid local address: ${String(address)}`);
      return;
    }
    this.#engine.localAddress = address;
  }

  /**
   * The local port the socket is bound to before connecting (from the next
   * connection on; 0: any).
   * @example
   * ```ts
   * conn.setLocalPort(40000);
   * ```
   */
  setLocalPort(port: number): void {
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      warn('ERR_EVENT_ADDRESS', `Invalid local port: ${String(port)}`);
      return;
    }
    this.#engine.localPort = port;
  }

  /**
   * Calls `cb(connection, arg)` from the loop each time an established
   * connection closes: after a response that closes it (before that
   * request's callback, as in libevent), when the server closes an idle
   * connection, after a failure, a timeout or the cancel of a request in
   * flight. Not called by `free()`.
   * @example
   * ```ts
   * conn.setCloseCallback((c) => console.log('closed', c.getPeer()));
   * ```
   */
  setCloseCallback<A>(cb: HttpCloseCallback<A> | null, arg?: A): void {
    if (cb !== null && typeof cb !== 'function') {
      warn('ERR_EVENT_INVALID_ARGUMENT', 'setCloseCallback expects a function');
      return;
    }
    this.#engine.closeCb = cb === null ? null : { cb: cb as HttpCloseCallback<unknown>, arg };
  }

  // ---------------------------------------------------------------- information

  /**
   * The server's address and port as given to the constructor (libevent's
   * `evhttp_connection_get_peer`); false after `free()`.
   * @example
   * ```ts
   * conn.getPeer(); // { address: '127.0.0.1', port: 8010 }
   * ```
   */
  getPeer(): { address: string; port: number } | false {
    if (this.#engine.freed) return false;
    return { address: this.#engine.address, port: this.#engine.port };
  }

  /**
   * The connection's EventBase.
   * @example
   * ```ts
   * conn.getBase().exit();
   * ```
   */
  getBase(): EventBase {
    return this.#engine.base;
  }

  // ---------------------------------------------------------------- requests

  /**
   * Queues a request: `command` is an `EventHttpRequest.CMD_*` constant,
   * `uri` the request target (`/path?query`, or an absolute URI for a
   * proxy). False (reason recorded) after `free()`, for an object that is
   * not a client request (no callback), a request already made and not yet
   * finished, an unknown command, or a URI with spaces or control bytes.
   * @example
   * ```ts
   * req.addHeader('Host', 'example.org', EventHttpRequest.OUTPUT_HEADER);
   * conn.makeRequest(req, EventHttpRequest.CMD_GET, '/index.html');
   * ```
   */
  makeRequest<A>(req: EventHttpRequest<A>, command: number, uri: string): boolean {
    if (this.#engine.freed) return warn('ERR_EVENT_FREED', 'EventHttpConnection is freed');
    if (!(req instanceof EventHttpRequest)) return warn('ERR_EVENT_INVALID_ARGUMENT', 'Invalid HTTP request object');
    const r: ClientRequest = req;
    if (!r.hasCallback) return warn('ERR_EVENT_INVALID_ARGUMENT', 'Unconfigured HTTP request object passed');
    if (ClientEngine.isActive(r)) return warn('ERR_EVENT_INVALID_ARGUMENT', 'The request is already in use');
    const method = Number.isInteger(command) ? commandName(command) : null;
    if (method === null)
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid HTTP request type passed: ${String(command)}`);
    if (typeof uri !== 'string' || !isTarget(uri)) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid request URI: ${JSON.stringify(String(uri))}`);
    }
    this.#engine.enqueue(r, command, method, uri);
    return true;
  }

  /**
   * Closes the connection and drops every request: their callbacks will
   * not run. The object can no longer be used.
   * @example
   * ```ts
   * conn.free();
   * ```
   */
  free(): void {
    this.#engine.free();
  }
}

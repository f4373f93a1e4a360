/**
 * EventHttpRequest: one HTTP exchange, on the server (the request received,
 * the reply to send) or on the client (the request to send, the response
 * received).
 *
 * @module
 */
import { EventBuffer } from '../event/buffer.js';
import type { EventBufferEvent } from '../event/bufferevent.js';
import { createEventError, warn } from '../event/errors.js';
import { HeaderList } from './headers.js';
import { isToken } from './chars.js';
import {
  CMD_CONNECT,
  CMD_DELETE,
  CMD_GET,
  CMD_HEAD,
  CMD_OPTIONS,
  CMD_PATCH,
  CMD_POST,
  CMD_PUT,
  CMD_TRACE,
} from './methods.js';
import type { Exchange, HttpConnection } from './contracts.js';
import { stripPort } from './routing.js';

/**
 * Callback of a client request: the request with its response, or null on timeout.
 * @example
 * ```ts
 * const done: HttpRequestCallback = (req) => console.log(req === null ? 'Timed out' : req.getResponseCode());
 * ```
 */
export type HttpRequestCallback<A = unknown> = (req: EventHttpRequest<A> | null, arg: A) => void;

/**
 * An HTTP request: the server hands one to each path callback; a client
 * creates one with a callback and passes it to `EventHttpConnection.makeRequest()`.
 *
 * @example
 * ```ts
 * http.setCallback('/about', (req) => {
 *   req.addHeader('Content-Type', 'text/plain', EventHttpRequest.OUTPUT_HEADER);
 *   const body = new EventBuffer();
 *   body.add('about eventide\n');
 *   req.sendReply(200, 'OK', body);
 * });
 * ```
 */
export class EventHttpRequest<A = unknown> {
  static readonly CMD_GET = CMD_GET;
  static readonly CMD_POST = CMD_POST;
  static readonly CMD_HEAD = CMD_HEAD;
  static readonly CMD_PUT = CMD_PUT;
  static readonly CMD_DELETE = CMD_DELETE;
  static readonly CMD_OPTIONS = CMD_OPTIONS;
  static readonly CMD_TRACE = CMD_TRACE;
  static readonly CMD_CONNECT = CMD_CONNECT;
  static readonly CMD_PATCH = CMD_PATCH;
  /** Header type: the headers received (server: the request's; client: the response's). */
  static readonly INPUT_HEADER = 1;
  /** Header type: the headers to send (server: the reply's; client: the request's). */
  static readonly OUTPUT_HEADER = 2;

  #cb: HttpRequestCallback<A> | null;
  #arg: A;
  /** @internal */ command = 0;
  /** @internal */ method = '';
  /** @internal */ uri = '';
  /** The host as received (Host header or absolute-form authority, port included). @internal */ rawHost = '';
  #host: string | null = null;
  /** @internal */ major = 1;
  /** @internal */ minor = 1;
  #input: HeaderList | null = null;
  #head: { readonly headers: [string, string][] } | null = null;
  /** @internal */ output = new HeaderList();
  #inputBuffer: EventBuffer | null = null;
  #outputBuffer: EventBuffer | null = null;
  /** @internal */ responseCode = 0;
  /** @internal */ responseReason = '';
  /** @internal */ exchange: Exchange | null = null;
  /** @internal */ replied = false;
  /** A streamed reply is in progress. @internal */ streaming = false;
  #freed = false;

  /**
   * Creates a client request whose callback receives the request once the
   * response is complete (or with code 0 when the connection failed), or
   * null when the request timed out.
   * @example
   * ```ts
   * const req = new EventHttpRequest((r) => console.log(r?.getResponseCode()), null);
   * ```
   */
  constructor(cb: HttpRequestCallback<A> | null = null, arg?: A) {
    if (cb !== null && typeof cb !== 'function')
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventHttpRequest expects a callback function');
    this.#cb = cb;
    this.#arg = arg as A;
  }

  /** The received headers (built from the parsed head on first use). @internal */
  get input(): HeaderList {
    let h = this.#input;
    if (h === null) {
      h = new HeaderList();
      const head = this.#head;
      if (head !== null) for (const [k, v] of head.headers) h.add(k, v);
      this.#input = h;
    }
    return h;
  }

  /** Sets the parsed head whose fields are the input headers. @internal */
  setHead(head: { readonly headers: [string, string][] }): void {
    this.#head = head;
    this.#input = null;
  }

  /** Whether this is a client request (made with a callback). @internal */
  get hasCallback(): boolean {
    return this.#cb !== null;
  }

  /** Runs the client callback: with the request, or with null (timeout, refused response). @internal */
  runCallback(withRequest: boolean): void {
    const cb = this.#cb;
    if (cb !== null) cb(withRequest ? this : null, this.#arg);
  }

  /**
   * The method as a CMD_* constant (0 for a method without one).
   * @example
   * ```ts
   * if (req.getCommand() === EventHttpRequest.CMD_POST) console.log('a form or an upload');
   * ```
   */
  getCommand(): number {
    return this.command;
  }

  /**
   * The method name as received (`GET`, `PROPFIND`...).
   * @example
   * ```ts
   * console.log(req.getMethod()); // 'PROPFIND'
   * ```
   */
  getMethod(): string {
    return this.method;
  }

  /**
   * The request target as received, with its query (absolute form kept).
   * @example
   * ```ts
   * req.getUri(); // '/dump?x=1'
   * ```
   */
  getUri(): string {
    return this.uri;
  }

  /**
   * The host: from an absolute-form target, else the Host header without its port.
   * @example
   * ```ts
   * req.getHost(); // 'example.com'
   * ```
   */
  getHost(): string {
    return (this.#host ??= stripPort(this.rawHost));
  }

  /**
   * The HTTP version of the request as `[major, minor]`.
   * @example
   * ```ts
   * const [major, minor] = req.getVersion(); // [1, 1]
   * ```
   */
  getVersion(): [number, number] {
    return [this.major, this.minor];
  }

  /**
   * The input headers as an object in wire order (case-sensitive keys; a
   * repeated name keeps its last value).
   * @example
   * ```ts
   * const host = req.getInputHeaders()['Host'];
   * ```
   */
  getInputHeaders(): Record<string, string> {
    return this.input.toObject();
  }

  /**
   * The input headers as `[name, value]` pairs in the order received, names
   * as sent and repeated fields kept (what `getInputHeaders()` folds).
   * @example
   * ```ts
   * for (const [name, value] of req.getInputHeaderPairs()) console.log(name, value);
   * ```
   */
  getInputHeaderPairs(): [string, string][] {
    return this.input.entries();
  }

  /**
   * Whether the request carried a body (`getInputBuffer()` would otherwise
   * create an empty buffer).
   * @example
   * ```ts
   * const body = req.hasInputBody() ? req.getInputBuffer().read(1 << 20) : null;
   * ```
   */
  hasInputBody(): boolean {
    return this.#inputBuffer !== null && this.#inputBuffer.length > 0;
  }

  /**
   * The output headers as an object in insertion order.
   * @example
   * ```ts
   * console.log(req.getOutputHeaders()); // { 'Content-Type': 'text/plain' }
   * ```
   */
  getOutputHeaders(): Record<string, string> {
    return this.output.toObject();
  }

  /**
   * Server: the request body (de-chunked). Client: the response body.
   * @example
   * ```ts
   * const firstLine = req.getInputBuffer().readLine(EventBuffer.EOL_ANY);
   * ```
   */
  getInputBuffer(): EventBuffer {
    return (this.#inputBuffer ??= new EventBuffer());
  }

  /**
   * Server: the reply body to send. Client: the request body.
   * @example
   * ```ts
   * req.getOutputBuffer().add('payload');
   * ```
   */
  getOutputBuffer(): EventBuffer {
    return (this.#outputBuffer ??= new EventBuffer());
  }

  /** Whether an input buffer exists and holds data. @internal */
  get hasInputBuffer(): boolean {
    return this.#inputBuffer !== null;
  }

  /** The output buffer if one was created. @internal */
  get outputBufferIfAny(): EventBuffer | null {
    return this.#outputBuffer;
  }

  /**
   * The response status (client), or the status of the reply sent (server); 0 before.
   * @example
   * ```ts
   * req.getResponseCode(); // 200
   * ```
   */
  getResponseCode(): number {
    return this.responseCode;
  }

  /**
   * The response's reason phrase.
   * @example
   * ```ts
   * req.getResponseReason(); // 'OK'
   * ```
   */
  getResponseReason(): string {
    return this.responseReason;
  }

  /**
   * Adds a header (duplicates allowed, sent in order). Any type other than
   * OUTPUT_HEADER means INPUT_HEADER, as in the PHP extension. Names must be
   * tokens; values with CR, LF or NUL (they would split the message) or with
   * characters beyond U+00FF (fields are sent as latin1 bytes) are refused (false).
   * @example
   * ```ts
   * req.addHeader('Content-Type', 'text/plain', EventHttpRequest.OUTPUT_HEADER);
   * ```
   */
  addHeader(name: string, value: string, type: number): boolean {
    if (
      typeof name !== 'string' ||
      typeof value !== 'string' ||
      name.length === 0 ||
      !validName(name) ||
      !validValue(value)
    ) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid header ${JSON.stringify(String(name))}`);
    }
    (type === EventHttpRequest.OUTPUT_HEADER ? this.output : this.input).add(name, value);
    return true;
  }

  /**
   * Removes the first header of that name (case-insensitive); false when absent.
   * @example
   * ```ts
   * req.removeHeader('Server', EventHttpRequest.OUTPUT_HEADER);
   * ```
   */
  removeHeader(name: string, type: number): boolean {
    return (type === EventHttpRequest.OUTPUT_HEADER ? this.output : this.input).remove(name);
  }

  /**
   * Removes every output header.
   * @example
   * ```ts
   * req.clearHeaders();
   * ```
   */
  clearHeaders(): void {
    this.output.clear();
  }

  /**
   * The first value of a header (case-insensitive), or null. A type other
   * than INPUT_HEADER / OUTPUT_HEADER records "Invalid HTTP request type passed: N".
   * @example
   * ```ts
   * const length = req.findHeader('content-length', EventHttpRequest.INPUT_HEADER); // '42' or null
   * ```
   */
  findHeader(name: string, type: number): string | null {
    if (type !== EventHttpRequest.INPUT_HEADER && type !== EventHttpRequest.OUTPUT_HEADER) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid HTTP request type passed: ${String(type)}`);
      return null;
    }
    return (type === EventHttpRequest.OUTPUT_HEADER ? this.output : this.input).get(name);
  }

  /**
   * Sends the reply: status, output headers, and the body (the output buffer
   * plus `buf`, which is emptied). HEAD requests get no body.
   * @example
   * ```ts
   * const body = new EventBuffer();
   * body.add('hello\n');
   * req.sendReply(200, 'OK', body);
   * ```
   */
  sendReply(code: number, reason: string | null, buf: EventBuffer | null = null): void {
    const ex = this.#serverExchange('sendReply');
    if (ex === null) return;
    if (!validStatus(code)) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid status code: ${String(code)}`);
      return;
    }
    ex.reply(this, code, reason, buf);
  }

  /**
   * Sends libevent's HTML error page for `code` (reason null: the standard
   * phrase) with `Connection: close`; output headers added before are dropped.
   * @example
   * ```ts
   * req.sendError(404);
   * ```
   */
  sendError(code: number, reason: string | null = null): void {
    const ex = this.#serverExchange('sendError');
    if (ex === null) return;
    if (!validStatus(code)) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid status code: ${String(code)}`);
      return;
    }
    ex.error(this, code, reason);
  }

  /**
   * Starts a streamed reply: chunked for HTTP/1.1 (unless a Content-Length
   * was set), read-until-close for HTTP/1.0.
   * @example
   * ```ts
   * req.sendReplyStart(200, 'OK');
   * const part = new EventBuffer();
   * part.add('first part\n');
   * req.sendReplyChunk(part);
   * req.sendReplyEnd();
   * ```
   */
  sendReplyStart(code: number, reason: string | null): void {
    const ex = this.#serverExchange('sendReplyStart');
    if (ex === null) return;
    if (!validStatus(code)) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid status code: ${String(code)}`);
      return;
    }
    ex.startChunked(this, code, reason);
  }

  /**
   * Sends one part of a streamed reply (the buffer is drained).
   * @example
   * ```ts
   * const part = new EventBuffer();
   * part.add('data: tick\n\n');
   * req.sendReplyChunk(part); // part is empty afterwards
   * ```
   */
  sendReplyChunk(buf: EventBuffer): void {
    this.exchange?.chunk(this, buf);
  }

  /**
   * Ends a streamed reply.
   * @example
   * ```ts
   * req.sendReplyEnd();
   * ```
   */
  sendReplyEnd(): void {
    this.exchange?.endChunked(this);
  }

  /**
   * Cancels a pending client request: its callback will not run.
   * @example
   * ```ts
   * req.cancel();
   * ```
   */
  cancel(): void {
    this.exchange?.cancel(this);
  }

  /**
   * Closes the request's connection at once, without a reply.
   * @example
   * ```ts
   * req.closeConnection();
   * ```
   */
  closeConnection(): void {
    this.exchange?.closeConnection(this);
  }

  /**
   * The connection of the request: the server's connection (with
   * `setCloseCallback()`, `getPeer()`, `getBase()`) for a server request, the
   * EventHttpConnection for a client request; null when there is none.
   * @example
   * ```ts
   * req.getConnection()?.setCloseCallback(() => console.log('closed'));
   * ```
   */
  getConnection(): HttpConnection | null {
    return this.exchange?.connection(this) ?? null;
  }

  /**
   * The connection's EventBufferEvent, or null.
   * @example
   * ```ts
   * const directions = req.getBufferEvent()?.getEnabled(); // Event.READ | Event.WRITE bits
   * ```
   */
  getBufferEvent(): EventBufferEvent | null {
    return this.exchange?.bufferEvent(this) ?? null;
  }

  /**
   * Releases the request object. A server request that was not answered is
   * answered with 500 first, so that the client does not hang.
   * @example
   * ```ts
   * req.free();
   * ```
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    if (this.#cb === null && this.exchange !== null && !this.replied) this.sendError(500);
  }

  #serverExchange(what: string): Exchange | null {
    if (this.replied) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `${what}: the request was already answered`);
      return null;
    }
    if (this.exchange === null || this.#cb !== null) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `${what}: not a server request`);
      return null;
    }
    return this.exchange;
  }
}

function validStatus(code: number): boolean {
  return Number.isInteger(code) && code >= 100 && code <= 999;
}

const knownNames = new Set<string>();

function validName(name: string): boolean {
  if (knownNames.has(name)) return true;
  if (!isToken(name)) return false;
  if (knownNames.size < 1024) knownNames.add(name);
  return true;
}

let lastValidValue = '';

function validValue(value: string): boolean {
  if (value === lastValidValue) return true; // the same value again (a Content-Type, say)
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 13 || c === 10 || c === 0 || c > 255) return false; // fields are sent as latin1 bytes
  }
  if (value.length <= 256) lastValidValue = value;
  return true;
}

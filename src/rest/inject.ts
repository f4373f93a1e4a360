/**
 * In-process requests: {@link injectRequest} (what `RestApi.inject()` does)
 * runs one request through an API's whole request cycle (host check,
 * routing, negotiation, versioning, pagination, rendering, CORS,
 * compression, request ids, the access log) with no socket, and answers
 * what a client would have read: the status, the header fields (with the
 * `Content-Length` and `Date` the transports add) and the body.
 *
 * The request is built the way the adapters build theirs, so a view cannot
 * tell it from one that came over a connection: an origin-form target, the
 * header fields as pairs (a default `Host` when none is given, and the
 * body's `Content-Length`), the body as bytes, the peer address and whether
 * the connection is TLS. What only a codec refuses (a malformed target or
 * header field) is refused here before the API sees it, with an
 * {@link InjectError}, so that a test finds its own mistake at once rather
 * than as a 400.
 *
 * @module
 */
import { isToken } from '../http/chars.js';
import { httpDate } from '../http/date.js';
import { statusText } from '../http/status.js';
import { SERVER_ERROR_JSON, unsendable, type ServedApi } from './adapters/common.js';
import type { RawRequest } from './contracts.js';
import { InjectError, RequestTooLarge } from './errors.js';
import { logInternalError } from './log.js';
import type { RenderedResponse } from './response.js';
import { exceptionHandler } from './views.js';

/**
 * A request for `RestApi.inject()`. Every field is optional except `url`.
 * @example
 * ```ts
 * const options: InjectOptions = {
 *   method: 'POST',
 *   url: '/v1/items/',
 *   headers: { accept: 'application/json' },
 *   body: { name: 'lamp' }, // sent as JSON, with content-type: application/json
 * };
 * ```
 */
export interface InjectOptions {
  /** The method (default `GET`); upper-cased, so `get` is `GET`. */
  method?: string;
  /**
   * The request-target: a path with its query in origin form
   * (`/v1/items/?page=2`), or an absolute `http:` or `https:` URL, whose
   * authority is then the request's host (the `Host` field unless one is
   * given, and the host links are built from, as for an absolute-form
   * target on the wire) and whose scheme sets `secure`. Characters beyond
   * ASCII are percent-encoded (UTF-8); a space, a control character or a
   * fragment (`#`) is refused.
   */
  url: string;
  /**
   * Header fields; an array sends the field once per value. Without `host`
   * the request names `localhost` (the authority of an absolute `url`
   * instead), which every `ALLOWED_HOSTS` that accepts the loopback names
   * allows, the default (`null`, any host) included.
   */
  headers?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The body: a string (sent as UTF-8), bytes, or a plain object or array,
   * sent as JSON with `content-type: application/json` unless the headers
   * name another type. `Content-Length` is added unless given (a given one
   * must match the body). A body larger than `MAX_BODY_SIZE` is answered 413
   * as the transports answer it.
   */
  body?: string | Uint8Array | Readonly<Record<string, unknown>> | readonly unknown[] | null;
  /** The peer address the API sees (default `127.0.0.1`). */
  remoteAddress?: string;
  /** Whether the request came over TLS (default false; an `https:` URL sets it). */
  secure?: boolean;
}

/**
 * What `RestApi.inject()` answers: the response as a client reads it.
 * @example
 * ```ts
 * const res: InjectResponse = await api.inject('/items/');
 * if (res.status === 200) console.log(res.headers['content-type'], res.json<{ results: unknown[] }>().results.length);
 * ```
 */
export interface InjectResponse {
  /** The status code. */
  readonly status: number;
  /** The reason phrase the transports send with it (`OK`, `Not Found`). */
  readonly statusText: string;
  /**
   * The header fields by lower-cased name; a repeated field's values are
   * joined with `, `, except `set-cookie`, whose values are joined with a
   * line feed (`res.headers['set-cookie']?.split('\n')`): a cookie may hold
   * a comma, a field value never holds a line feed. `content-length` and
   * `date` are there as the transports add them.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The header fields as `[name, value]` pairs in the order a transport writes them, names as the API spelled them. */
  readonly rawHeaders: readonly (readonly [string, string])[];
  /** The body decoded as UTF-8 (empty for HEAD, 1xx, 204 and 304 as on the wire). */
  readonly body: string;
  /** The body's bytes. */
  readonly rawBody: Uint8Array;
  /**
   * The body parsed as JSON; an {@link InjectError}
   * (`ERR_REST_INJECT_NOT_JSON`, the parse error as its `cause`) when it is
   * not JSON. The type argument is a claim about the body, not a check.
   */
  json<T = unknown>(): T;
}

const SERVER_ERROR_BODY = Buffer.from(SERVER_ERROR_JSON);
const ABSOLUTE = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

/** Whether a status answers without a body on the wire (1xx, 204, 304). */
function bodiless(status: number): boolean {
  return status < 200 || status === 204 || status === 304;
}

function invalid(message: string): InjectError {
  return new InjectError('ERR_REST_INJECT_OPTIONS', `inject(): ${message}`);
}

/** Percent-encodes what is beyond ASCII; refuses spaces, controls and a fragment. */
function checkTarget(target: string, url: string): string {
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i);
    if (c <= 32 || c === 127 || c === 35)
      throw invalid(
        `the url ${JSON.stringify(url)} holds ${c === 35 ? 'a fragment (#)' : 'a space or a control character'}; encode it (encodeURIComponent) or leave it out`,
      );
  }
  try {
    // eslint-disable-next-line no-control-regex -- the range is every character beyond ASCII
    return target.replace(/[^\x00-\x7f]+/gu, (s) => encodeURI(s));
  } catch (error) {
    throw new InjectError(
      'ERR_REST_INJECT_OPTIONS',
      `inject(): the url ${JSON.stringify(url)} is not well-formed UTF-16`,
      {
        cause: error,
      },
    );
  }
}

interface Target {
  target: string;
  authority: string | null;
  secure: boolean | null;
}

function parseUrl(url: unknown): Target {
  if (typeof url !== 'string') throw invalid(`url must be a string, not ${typeof url}`);
  if (url.startsWith('/')) return { target: checkTarget(url, url), authority: null, secure: null };
  const m = ABSOLUTE.exec(url);
  if (m === null)
    throw invalid(
      `the url ${JSON.stringify(url)} is neither a path starting with '/' (origin form: '/items/?page=2') nor an absolute http(s) URL`,
    );
  const scheme = (m[1] as string).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https')
    throw invalid(`the url ${JSON.stringify(url)} has the scheme ${scheme}: only http and https are served`);
  const authority = m[2] as string;
  if (authority === '' || authority.includes('@'))
    throw invalid(`the url ${JSON.stringify(url)} needs a host (and no user information)`);
  const rest = m[3] as string;
  const target = rest === '' ? '/' : rest.startsWith('/') ? rest : '/' + rest;
  return { target: checkTarget(target, url), authority, secure: scheme === 'https' };
}

function isPlainData(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The body's bytes, and the content type it implies (JSON data). */
function bodyOf(body: InjectOptions['body']): { bytes: Buffer | null; json: boolean } {
  if (body === undefined || body === null) return { bytes: null, json: false };
  if (typeof body === 'string') return { bytes: Buffer.from(body, 'utf8'), json: false };
  if (body instanceof Uint8Array)
    return { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength), json: false };
  if (typeof body === 'object' && isPlainData(body))
    return { bytes: Buffer.from(JSON.stringify(body), 'utf8'), json: true };
  throw invalid(
    `body must be a string, a Uint8Array, or a plain object or array (sent as JSON), not ${describe(body)}`,
  );
}

function describe(v: unknown): string {
  if (typeof v !== 'object' || v === null) return typeof v;
  const ctor = (Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return ctor !== undefined && ctor !== '' ? `a ${ctor}` : 'an object';
}

function checkHeaderValue(name: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid(`the value of the header ${JSON.stringify(name)} must be a string`);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 13 || c === 10 || c === 0)
      throw invalid(`the value of the header ${JSON.stringify(name)} holds a CR, LF or NUL: ${JSON.stringify(value)}`);
    if (c > 255)
      throw invalid(
        `the value of the header ${JSON.stringify(name)} holds ${JSON.stringify(value[i])}, beyond latin1: header fields are bytes (encode it)`,
      );
  }
  return value;
}

/** The request's header pairs, with the defaults a client adds (Host, Content-Length, Content-Type of JSON). */
function headerPairs(options: InjectOptions, target: Target, body: Buffer | null, json: boolean): [string, string][] {
  const pairs: [string, string][] = [];
  const given = options.headers ?? {};
  if (typeof given !== 'object' || given === null) throw invalid('headers must be an object of names and values');
  for (const [name, value] of Object.entries(given)) {
    if (!isToken(name)) throw invalid(`${JSON.stringify(name)} is not a header field name (a token)`);
    if (Array.isArray(value)) for (const v of value as unknown[]) pairs.push([name, checkHeaderValue(name, v)]);
    else pairs.push([name, checkHeaderValue(name, value)]);
  }
  const has = (lower: string): [string, string] | undefined => pairs.find(([k]) => k.toLowerCase() === lower);
  if (has('host') === undefined) pairs.unshift(['Host', target.authority ?? 'localhost']);
  if (body !== null) {
    const length = has('content-length');
    if (length === undefined) {
      if (has('transfer-encoding') === undefined) pairs.push(['Content-Length', String(body.length)]);
    } else if (length[1].trim() !== String(body.length)) {
      throw invalid(`content-length ${JSON.stringify(length[1])} does not match the body's ${body.length} bytes`);
    }
    if (json && has('content-type') === undefined) pairs.push(['Content-Type', 'application/json']);
  }
  return pairs;
}

/**
 * The raw request `options` describe, as an adapter would hand it to the
 * request cycle.
 * @internal
 * @example
 * ```ts
 * injectRawRequest({ url: '/items/' }).headers; // [['Host', 'localhost']]
 * ```
 */
export function injectRawRequest(options: InjectOptions): RawRequest {
  if (typeof options !== 'object' || options === null) throw invalid('the options must be an object with a url');
  const target = parseUrl(options.url);
  const method = options.method ?? 'GET';
  if (typeof method !== 'string' || !isToken(method))
    throw invalid(`${JSON.stringify(method)} is not a method name (a token such as GET)`);
  if (options.secure !== undefined && typeof options.secure !== 'boolean') throw invalid('secure must be a boolean');
  if (target.secure !== null && options.secure !== undefined && options.secure !== target.secure)
    throw invalid(`secure: ${options.secure} contradicts the url's scheme (${options.url})`);
  const remoteAddress = options.remoteAddress ?? '127.0.0.1';
  if (typeof remoteAddress !== 'string') throw invalid('remoteAddress must be a string');
  const { bytes, json } = bodyOf(options.body);
  return {
    method: method.toUpperCase(),
    target: target.target,
    authority: target.authority,
    headers: headerPairs(options, target, bytes, json),
    body: bytes !== null && bytes.length > 0 ? bytes : null,
    secure: target.secure ?? options.secure ?? false,
    remoteAddress,
    native: null,
  };
}

class InjectedResponse implements InjectResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly rawHeaders: readonly (readonly [string, string])[];
  readonly rawBody: Uint8Array;
  #body: string | null = null;

  constructor(status: number, rawHeaders: [string, string][], rawBody: Buffer) {
    this.status = status;
    this.statusText = statusText(status);
    this.rawHeaders = Object.freeze(rawHeaders.map((p) => Object.freeze(p)));
    const headers = new Map<string, string>();
    for (const [k, v] of rawHeaders) {
      const name = k.toLowerCase();
      const before = headers.get(name);
      headers.set(name, before === undefined ? v : `${before}${name === 'set-cookie' ? '\n' : ', '}${v}`);
    }
    // A plain object (assert.deepEqual compares it with a literal); fromEntries makes even `__proto__` an own key.
    this.headers = Object.freeze(Object.fromEntries(headers));
    this.rawBody = rawBody;
  }

  get body(): string {
    return (this.#body ??= Buffer.from(this.rawBody.buffer, this.rawBody.byteOffset, this.rawBody.byteLength).toString(
      'utf8',
    ));
  }

  json<T = unknown>(): T {
    try {
      return JSON.parse(this.body) as T;
    } catch (error) {
      const type = this.headers['content-type'] ?? 'none';
      const start = this.body.length > 60 ? `${this.body.slice(0, 60)}...` : this.body;
      throw new InjectError(
        'ERR_REST_INJECT_NOT_JSON',
        `the response body is not JSON (status ${this.status}, content-type ${type}): ${JSON.stringify(start)}`,
        { cause: error },
      );
    }
  }
}

/** The header fields as a transport writes them: Connection is its own, Content-Length and Date are added. */
function wireHeaders(out: RenderedResponse): [string, string][] {
  const pairs: [string, string][] = [];
  let hasLength = false;
  let hasDate = false;
  for (const [k, v] of out.headers) {
    const l = k.toLowerCase();
    if (l === 'connection') continue; // the server decides
    if (l === 'content-length' || l === 'transfer-encoding') hasLength = true;
    if (l === 'date') hasDate = true;
    pairs.push([k, v]);
  }
  if (!hasDate) pairs.push(['Date', httpDate()]);
  // HEAD: the length of the GET's body, which is not sent.
  if (!hasLength && !bodiless(out.status)) pairs.push(['Content-Length', String(out.body.length)]);
  return pairs;
}

/** Why a transport could not send these header fields, or null. */
function unsendableHeaders(out: RenderedResponse): string | null {
  for (const [k, v] of out.headers) {
    if (typeof k !== 'string' || !isToken(k)) return `invalid response header ${JSON.stringify(k)}`;
    if (typeof v !== 'string' || /[\r\n\0]|[^\0-\xff]/u.test(v)) return `invalid response header ${JSON.stringify(k)}`;
  }
  return null;
}

/**
 * Runs one request through `api`'s request cycle in process (what
 * `RestApi.inject()` does). Bad options throw {@link InjectError}
 * (`ERR_REST_INJECT_OPTIONS`) before the API sees anything; everything
 * after that resolves, as a transport would answer: an exception in a view
 * is its 500, a response no transport could send (a header value with a
 * control character, a status outside 100..999) the plain logged 500.
 * @internal
 * @example
 * ```ts
 * const res = await injectRequest(api, { url: '/items/' }); // the same as api.inject('/items/')
 * ```
 */
export async function injectRequest(api: ServedApi, options: InjectOptions | string): Promise<InjectResponse> {
  const raw = injectRawRequest(typeof options === 'string' ? { url: options } : options);
  const head = raw.method === 'HEAD';
  const requestId = api.requestIdOf(raw);
  let out: RenderedResponse;
  const limit = api.settings.MAX_BODY_SIZE;
  if (raw.body !== null && raw.body.length > limit) {
    out = api.render(exceptionHandler(new RequestTooLarge(limit), null), null);
  } else {
    out = await api.handleWithId(raw, requestId);
  }
  const refused = unsendable(out) ?? unsendableHeaders(out);
  if (refused !== null) {
    logInternalError(api.logger, new Error(refused), raw.method, raw.target, undefined, requestId);
    out = { status: 500, headers: [['Content-Type', 'application/json']], body: SERVER_ERROR_BODY };
  }
  const body = head || bodiless(out.status) ? Buffer.alloc(0) : out.body;
  return new InjectedResponse(out.status, wireHeaders(out), body);
}

/**
 * The HTTP method table: every method the HTTP layer knows, its libevent
 * `CMD_*` bit, and the lookups derived from that one table (by bytes for the
 * request parser, by bit for the client and the `Allow` header).
 *
 * @module
 */

/**
 * `EventHttpRequest::CMD_GET`: the first of the `CMD_*` bits, one per
 * method, which combine with `|` into a mask of methods.
 * @example
 * ```ts
 * if (head.cmd === CMD_GET) console.log('GET', head.target);
 * const allowed = CMD_GET | CMD_HEAD | CMD_POST;
 * allowHeaderValue(allowed); // 'GET, POST, HEAD'
 * ```
 */
export const CMD_GET = 1;
/** `EventHttpRequest::CMD_POST`; see {@link CMD_GET}. */
export const CMD_POST = 2;
/** `EventHttpRequest::CMD_HEAD`; see {@link CMD_GET}. */
export const CMD_HEAD = 4;
/** `EventHttpRequest::CMD_PUT`; see {@link CMD_GET}. */
export const CMD_PUT = 8;
/** `EventHttpRequest::CMD_DELETE`; see {@link CMD_GET}. */
export const CMD_DELETE = 16;
/** `EventHttpRequest::CMD_OPTIONS`; see {@link CMD_GET}. */
export const CMD_OPTIONS = 32;
/** `EventHttpRequest::CMD_TRACE`; see {@link CMD_GET}. */
export const CMD_TRACE = 64;
/** `EventHttpRequest::CMD_CONNECT`; see {@link CMD_GET}. */
export const CMD_CONNECT = 128;
/** `EventHttpRequest::CMD_PATCH`; see {@link CMD_GET}. */
export const CMD_PATCH = 256;

/**
 * The methods the parser knows, mapped to their libevent `CMD_*` bit
 * (GET=1 ... PATCH=256 as in libevent 2.1; the WebDAV methods use the bits
 * libevent 2.2 gives them). A method outside this table is answered 501.
 *
 * @example
 * ```ts
 * const allowed = HTTP_METHODS.GET | HTTP_METHODS.POST | HTTP_METHODS.HEAD;
 * if ((head.cmd & allowed) === 0) socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\r\n');
 * ```
 */
export const HTTP_METHODS = Object.freeze({
  GET: CMD_GET,
  POST: CMD_POST,
  HEAD: CMD_HEAD,
  PUT: CMD_PUT,
  DELETE: CMD_DELETE,
  OPTIONS: CMD_OPTIONS,
  TRACE: CMD_TRACE,
  CONNECT: CMD_CONNECT,
  PATCH: CMD_PATCH,
  PROPFIND: 512,
  PROPPATCH: 1024,
  MKCOL: 2048,
  LOCK: 4096,
  UNLOCK: 8192,
  COPY: 16384,
  MOVE: 32768,
} as const);

/**
 * A method name of {@link HTTP_METHODS}.
 * @example
 * ```ts
 * const m: HttpMethod = 'PROPFIND';
 * ```
 */
export type HttpMethod = keyof typeof HTTP_METHODS;

/**
 * The method names in table order (index = the parser's method index): the
 * first of the lookups by method index ({@link METHOD_NAMES},
 * {@link METHOD_CMDS}, {@link M_CONNECT}, {@link M_OPTIONS}).
 * @internal
 * @example
 * ```ts
 * const m = lookupMethod(Buffer.from('OPTIONS * HTTP/1.1'), 0, 7);
 * METHOD_NAMES[m]; // 'OPTIONS'
 * METHOD_CMDS[m]; // 32 (CMD_OPTIONS)
 * m === M_OPTIONS; // true: the asterisk-form target is allowed
 * ```
 */
export const METHOD_NAMES = Object.keys(HTTP_METHODS) as HttpMethod[];
/** The `CMD_*` bit of each method, by method index; see {@link METHOD_NAMES}. @internal */
export const METHOD_CMDS = METHOD_NAMES.map((m) => HTTP_METHODS[m]);
/** The method index of CONNECT; see {@link METHOD_NAMES}. @internal */
export const M_CONNECT = METHOD_NAMES.indexOf('CONNECT');
/** The method index of OPTIONS; see {@link METHOD_NAMES}. @internal */
export const M_OPTIONS = METHOD_NAMES.indexOf('OPTIONS');

const METHOD_BYTES = METHOD_NAMES.map((m) => Buffer.from(m, 'latin1'));
/** (length << 8 | first byte) -> method index + 1; every (length, first letter) pair is unique. */
const METHOD_SLOT = new Uint8Array(16 << 8);
METHOD_BYTES.forEach((b, i) => {
  const key = (b.length << 8) | b[0]!;
  if (METHOD_SLOT[key] !== 0) throw new Error('method table collision');
  METHOD_SLOT[key] = i + 1;
});

/**
 * The method index of the token `buf[s, e)` (case-sensitive), or -1 when it
 * is not in {@link HTTP_METHODS}.
 * @internal
 * @example
 * ```ts
 * const m = lookupMethod(Buffer.from('GET / HTTP/1.1'), 0, 3); // 0
 * console.log(METHOD_NAMES[m]); // 'GET'
 * ```
 */
export function lookupMethod(buf: Buffer, s: number, e: number): number {
  const len = e - s;
  if (len > 15) return -1;
  const slot = METHOD_SLOT[(len << 8) | buf[s]!]!;
  if (slot === 0) return -1;
  const m = METHOD_BYTES[slot - 1]!;
  for (let k = 1; k < len; k++) if (buf[s + k] !== m[k]) return -1;
  return slot - 1;
}

/**
 * The methods `EventHttpRequest` has a `CMD_*` constant for (libevent 2.1's
 * nine, GET to PATCH): the ones a client request can be made with and the
 * `Allow` header of a 405 lists.
 */
const COMMAND_MASK =
  CMD_GET | CMD_POST | CMD_HEAD | CMD_PUT | CMD_DELETE | CMD_OPTIONS | CMD_TRACE | CMD_CONNECT | CMD_PATCH;
/** [bit, name] of those methods, in bit order. */
const COMMANDS: readonly (readonly [number, HttpMethod])[] = METHOD_NAMES.filter(
  (m) => (HTTP_METHODS[m] & COMMAND_MASK) !== 0,
).map((m) => [HTTP_METHODS[m], m] as const);
const COMMAND_NAMES: ReadonlyMap<number, HttpMethod> = new Map<number, HttpMethod>(COMMANDS);

/**
 * The method name of an `EventHttpRequest.CMD_*` constant, or null (not one
 * of them, or not a single bit).
 * @internal
 * @example
 * ```ts
 * commandName(CMD_POST); // 'POST'
 * commandName(CMD_GET | CMD_POST); // null
 * ```
 */
export function commandName(cmd: number): HttpMethod | null {
  return COMMAND_NAMES.get(cmd) ?? null;
}

/**
 * The value of an `Allow` header for a mask of `CMD_*` bits: the names of
 * the `EventHttpRequest.CMD_*` methods in it, in bit order.
 * @internal
 * @example
 * ```ts
 * allowHeaderValue(CMD_GET | CMD_HEAD); // 'GET, HEAD'
 * ```
 */
export function allowHeaderValue(mask: number): string {
  return COMMANDS.filter(([bit]) => (mask & bit) !== 0)
    .map(([, n]) => n)
    .join(', ');
}

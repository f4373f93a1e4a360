/**
 * The `Authorization` header parsers of Basic and Token authentication, as
 * Django REST framework 3.14 reads the header:
 *
 * - the header is bytes (a string from Node's HTTP parser holds one byte
 *   per character, latin-1; a character beyond U+00FF is taken as its UTF-8
 *   bytes), split on runs of ASCII whitespace (space, `\t`, `\n`, `\v`,
 *   `\f`, `\r`), like Python's `bytes.split()`;
 * - the scheme (first word) is compared ASCII-case-insensitively; another
 *   scheme, or no header, is `null` (this class does not apply);
 * - one word: `... No credentials provided.`; more than two: `... should
 *   not contain spaces.`;
 * - Token: the key must be UTF-8 (`... should not contain invalid
 *   characters.`);
 * - Basic: the credentials are base64-decoded leniently, as Python's
 *   `base64.b64decode` does (characters outside the alphabet are skipped,
 *   decoding stops at complete padding, a bad length is an error), then
 *   read as UTF-8, or latin-1 when they are not UTF-8, and split at the
 *   first `:` (no `:`: the password is empty).
 *
 * Errors are {@link AuthenticationFailed} with DRF's exact texts; they never
 * hold the credentials.
 *
 * Internal: not exported yet (issue 29: the authentication classes build on it).
 * @module
 */
import { AuthenticationFailed } from '../errors.js';

/**
 * The `Authorization` header as a request holds it.
 * @internal
 * @example
 * ```ts
 * const h: AuthorizationHeader = 'Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';
 * ```
 */
export type AuthorizationHeader = string | Uint8Array | undefined;

/**
 * What a Basic header holds.
 * @internal
 * @example
 * ```ts
 * const c: BasicCredentials = { userid: 'ann', password: 'secret' };
 * ```
 */
export interface BasicCredentials {
  readonly userid: string;
  readonly password: string;
}

function headerBytes(header: AuthorizationHeader): Uint8Array {
  if (header === undefined) return new Uint8Array(0);
  if (typeof header !== 'string') return header;
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\xff]*$/.test(header) ? Buffer.from(header, 'latin1') : Buffer.from(header, 'utf8');
}

/** Python's `bytes.isspace()` for one byte. */
function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

/** Python's `bytes.split()` with no separator. */
function splitWords(bytes: Uint8Array): Uint8Array[] {
  const words: Uint8Array[] = [];
  let i = 0;
  while (i < bytes.length) {
    while (i < bytes.length && isSpace(bytes[i] as number)) i++;
    if (i >= bytes.length) break;
    const start = i;
    while (i < bytes.length && !isSpace(bytes[i] as number)) i++;
    words.push(bytes.subarray(start, i));
  }
  return words;
}

/** ASCII-case-insensitive comparison of a word with a lower-case ASCII keyword. */
function isKeyword(word: Uint8Array, keyword: string): boolean {
  if (word.length !== keyword.length) return false;
  for (let i = 0; i < word.length; i++) {
    const b = word[i] as number;
    const lower = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
    if (lower !== keyword.charCodeAt(i)) return false;
  }
  return true;
}

/** UTF-8 decoding that refuses what Python's strict `decode('utf-8')` refuses; null when it fails. */
function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The value of a base64 character, or -1 outside the alphabet. */
function b64Value(c: number): number {
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 26;
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 52;
  if (c === 0x2b) return 62;
  if (c === 0x2f) return 63;
  return -1;
}

/**
 * Python's non-strict `binascii.a2b_base64` (3.11): skips characters outside
 * the alphabet, ignores `=` before a quantum has two characters, stops at
 * complete padding; null where Python raises `binascii.Error`.
 */
function lenientBase64(input: Uint8Array): Uint8Array | null {
  const out: number[] = [];
  let quad = 0;
  let left = 0;
  let pads = 0;
  for (const c of input) {
    if (c === 0x3d) {
      if (quad >= 2 && quad + ++pads >= 4) return Uint8Array.from(out);
      continue;
    }
    const v = b64Value(c);
    if (v < 0) continue;
    pads = 0;
    if (quad === 0) {
      left = v;
      quad = 1;
    } else if (quad === 1) {
      out.push(((left << 2) | (v >> 4)) & 0xff);
      left = v & 0x0f;
      quad = 2;
    } else if (quad === 2) {
      out.push(((left << 4) | (v >> 2)) & 0xff);
      left = v & 0x03;
      quad = 3;
    } else {
      out.push(((left << 6) | v) & 0xff);
      quad = 0;
    }
  }
  return quad === 0 ? Uint8Array.from(out) : null;
}

/**
 * The key of an `Authorization: Token <key>` header (`keyword` is the
 * scheme, `Token` by default, as DRF's `TokenAuthentication.keyword`); null
 * when the header is absent or of another scheme; throws
 * {@link AuthenticationFailed} with DRF's texts when it is malformed.
 * @internal
 * @example
 * ```ts
 * console.log(parseTokenHeader('Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b')); // the key
 * console.log(parseTokenHeader('Basic YTpi')); // null
 * ```
 */
export function parseTokenHeader(header: AuthorizationHeader, keyword = 'Token'): string | null {
  const words = splitWords(headerBytes(header));
  const first = words[0];
  if (first === undefined || !isKeyword(first, keyword.toLowerCase())) return null;
  if (words.length === 1) throw new AuthenticationFailed('Invalid token header. No credentials provided.');
  if (words.length > 2) throw new AuthenticationFailed('Invalid token header. Token string should not contain spaces.');
  const key = utf8(words[1] as Uint8Array);
  if (key === null)
    throw new AuthenticationFailed('Invalid token header. Token string should not contain invalid characters.');
  return key;
}

/**
 * The user id and password of an `Authorization: Basic <base64>` header;
 * null when the header is absent or of another scheme; throws
 * {@link AuthenticationFailed} with DRF's texts when it is malformed.
 * @internal
 * @example
 * ```ts
 * console.log(parseBasicHeader('Basic YW5uOnNlY3JldA==')); // { userid: 'ann', password: 'secret' }
 * ```
 */
export function parseBasicHeader(header: AuthorizationHeader): BasicCredentials | null {
  const words = splitWords(headerBytes(header));
  const first = words[0];
  if (first === undefined || !isKeyword(first, 'basic')) return null;
  if (words.length === 1) throw new AuthenticationFailed('Invalid basic header. No credentials provided.');
  if (words.length > 2)
    throw new AuthenticationFailed('Invalid basic header. Credentials string should not contain spaces.');
  const bytes = lenientBase64(words[1] as Uint8Array);
  if (bytes === null) throw new AuthenticationFailed('Invalid basic header. Credentials not correctly base64 encoded.');
  const text = utf8(bytes) ?? Buffer.from(bytes).toString('latin1');
  const colon = text.indexOf(':');
  return colon < 0 ? { userid: text, password: '' } : { userid: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * Character classes of HTTP/1.1 (RFC 9110/9112) as 256-entry byte tables,
 * and the checks of header names and request-targets given as strings,
 * made from the same tables.
 *
 * @module
 */

function table(pred: (c: number) => boolean): Uint8Array {
  const t = new Uint8Array(256);
  for (let c = 0; c < 256; c++) t[c] = pred(c) ? 1 : 0;
  return t;
}

/**
 * An ASCII letter.
 * @internal
 * @example
 * ```ts
 * isAlpha(0x41); // true ('A')
 * ```
 */
export const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/**
 * An ASCII digit.
 * @internal
 * @example
 * ```ts
 * isDigit(0x30); // true ('0')
 * ```
 */
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const oneOf =
  (set: string) =>
  (c: number): boolean =>
    c < 128 && set.includes(String.fromCharCode(c));

/**
 * tchar (RFC 9110 5.6.2): the characters of a token (method, header name).
 * The first of the byte tables (256 entries, indexed by a byte): the
 * classes {@link TCHAR}, {@link VALUE}, {@link TARGET}, {@link REGNAME},
 * {@link SCHEME}, {@link QDTEXT} and {@link QPAIR} hold 1 for a member and 0
 * elsewhere; {@link HEX} and {@link LOWER} map a byte to a value.
 * @internal
 * @example
 * ```ts
 * const buf = Buffer.from('Content-Type: text/plain');
 * let i = 0;
 * while (i < buf.length && TCHAR[buf[i]!] === 1) i++; // i === 12: the name ends at ':'
 * VALUE[0x7f]; // 0: DEL may not appear in a field value
 * HEX[0x66]; // 15 ('f')
 * LOWER[0x41]; // 0x61 ('A' -> 'a')
 * ```
 */
export const TCHAR = table((c) => isAlpha(c) || isDigit(c) || oneOf("!#$%&'*+-.^_`|~")(c));
/** field-vchar / SP / HTAB / obs-text: what a field value may contain; a byte table (see {@link TCHAR}). @internal */
export const VALUE = table((c) => c === 9 || (c >= 32 && c !== 127));
/** What a request-target may contain (visible ASCII); a byte table (see {@link TCHAR}). @internal */
export const TARGET = table((c) => c > 32 && c < 127);
/** reg-name characters (unreserved / sub-delims / "%" of pct-encoded); a byte table (see {@link TCHAR}). @internal */
export const REGNAME = table((c) => isAlpha(c) || isDigit(c) || oneOf("-._~!$&'()*+,;=%")(c));
/** URI scheme characters after the first; a byte table (see {@link TCHAR}). @internal */
export const SCHEME = table((c) => isAlpha(c) || isDigit(c) || c === 43 || c === 45 || c === 46);
/** qdtext (RFC 9110 5.6.4); a byte table (see {@link TCHAR}). @internal */
export const QDTEXT = table(
  (c) => c === 9 || c === 32 || c === 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e) || c >= 0x80,
);
/** Characters a quoted-pair may escape; a byte table (see {@link TCHAR}). @internal */
export const QPAIR = table((c) => c === 9 || (c >= 32 && c !== 127));
/** Hex digit values, -1 elsewhere; a byte table (see {@link TCHAR}). @internal */
export const HEX = new Int8Array(256).fill(-1);
for (let c = 0; c < 256; c++) {
  if (isDigit(c)) HEX[c] = c - 48;
  else if (c >= 65 && c <= 70) HEX[c] = c - 55;
  else if (c >= 97 && c <= 102) HEX[c] = c - 87;
}
/** ASCII lower-casing of a byte; a byte table (see {@link TCHAR}). @internal */
export const LOWER = new Uint8Array(256);
for (let c = 0; c < 256; c++) LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;

/**
 * Whether a string is a token (RFC 9110 5.6.2): one or more tchar. Header
 * names given by applications are checked with it.
 * @internal
 * @example
 * ```ts
 * isToken('Content-Type'); // true
 * isToken('Bad Name'); // false
 * ```
 */
export function isToken(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 255 || TCHAR[c] !== 1) return false;
  }
  return true;
}

/**
 * Whether a string is a possible request-target: one or more visible ASCII
 * characters (no space, no control, nothing beyond 0x7E), what the request
 * parser accepts.
 * @internal
 * @example
 * ```ts
 * isTarget('/a?b=1'); // true
 * isTarget('/a b'); // false
 * ```
 */
export function isTarget(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 255 || TARGET[c] !== 1) return false;
  }
  return true;
}

type Latin1Buffer = Buffer & { latin1Slice?: (start: number, end: number) => string };
const HAS_LATIN1_SLICE = typeof (Buffer.prototype as Latin1Buffer).latin1Slice === 'function';

/**
 * One latin1 decoding of a byte range (the fastest Buffer-to-string path).
 * @internal
 * @example
 * ```ts
 * latin1(Buffer.from('Host: example.com'), 0, 4); // 'Host'
 * ```
 */
export function latin1(buf: Buffer, s: number, e: number): string {
  return HAS_LATIN1_SLICE ? (buf as Latin1Buffer).latin1Slice!(s, e) : buf.toString('latin1', s, e);
}

/**
 * The bytes of a lowercase ASCII constant, for {@link eqLower}.
 * @internal
 * @example
 * ```ts
 * const B_HOST = asciiLower('host'); // Uint8Array [0x68, 0x6f, 0x73, 0x74]
 * ```
 */
export const asciiLower = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));

/**
 * ASCII case-insensitive comparison with a lowercase constant made of
 * letters, digits and "-". `c | 0x20` is exact here: the only other bytes
 * it maps onto those are controls (CR -> "-", 0x10-0x19 -> digits), which
 * never reach this point (names are tokens, values exclude controls).
 * @internal
 * @example
 * ```ts
 * eqLower(Buffer.from('HOST: a'), 0, asciiLower('host')); // true
 * ```
 */
export function eqLower(buf: Uint8Array, s: number, lower: Uint8Array): boolean {
  const n = lower.length;
  for (let k = 0; k < n; k++) if ((buf[s + k]! | 0x20) !== lower[k]) return false;
  return true;
}

/**
 * Query strings and URLs the way Django REST framework reads and writes them:
 * {@link QueryParams} (the last value of a repeated key wins, raw order
 * kept), {@link pyInt} (Python's `int()` on a string), and the link builders
 * {@link replaceQueryParam} / {@link removeQueryParam} (keys sorted,
 * form-encoded, fragment kept).
 *
 * @module
 */

/**
 * The decoded parameters of a query string, in the order they were sent.
 * `get()` returns the **last** value of a repeated key (Django's QueryDict);
 * `getAll()` returns every value. Blank values are kept (`?a` and `?a=` both
 * give `a` = `''`); `+` decodes to a space; invalid UTF-8 decodes to U+FFFD.
 * @example
 * ```ts
 * const q = new QueryParams('page=3&page=2&q=a+b');
 * q.get('page'); // '2'
 * q.getAll('page'); // ['3', '2']
 * q.get('q'); // 'a b'
 * ```
 */
export class QueryParams {
  readonly #raw: string;
  #pairs: [string, string][] | null = null;
  #last: Map<string, string> | null = null;

  /** @param raw the query string without its leading `?` (a leading `?` is ignored). */
  constructor(raw: string) {
    this.#raw = raw.startsWith('?') ? raw.slice(1) : raw;
  }

  /** The query string as it was sent, without `?`. */
  get raw(): string {
    return this.#raw;
  }

  /** Every `[key, value]` pair in the order sent. */
  entries(): readonly [string, string][] {
    if (this.#pairs === null) this.#pairs = parseQuery(this.#raw);
    return this.#pairs;
  }

  /** The last value of `key`, or `null` when it is absent. */
  get(key: string): string | null {
    if (this.#raw === '') return null;
    if (this.#last === null) {
      const m = new Map<string, string>();
      for (const [k, v] of this.entries()) m.set(k, v);
      this.#last = m;
    }
    return this.#last.get(key) ?? null;
  }

  /** Every value of `key` in the order sent (empty when absent). */
  getAll(key: string): string[] {
    const out: string[] = [];
    for (const [k, v] of this.entries()) if (k === key) out.push(v);
    return out;
  }

  /** Whether `key` was sent at all (even with an empty value). */
  has(key: string): boolean {
    return this.get(key) !== null;
  }

  /** The distinct keys in order of first appearance. */
  keys(): string[] {
    return [...new Set(this.entries().map(([k]) => k))];
  }

  /** A plain object of the last value per key. */
  toObject(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of this.entries()) out[k] = v;
    return out;
  }
}

/**
 * Splits a query string into decoded `[key, value]` pairs as Python's
 * `parse_qsl(keep_blank_values=True)` does: `&` separates, empty segments are
 * skipped, `+` is a space, percent escapes are UTF-8 with replacement.
 * @example
 * ```ts
 * parseQuery('a&b=&c=%C3%A9'); // [['a', ''], ['b', ''], ['c', 'é']]
 * ```
 */
export function parseQuery(raw: string): [string, string][] {
  const out: [string, string][] = [];
  if (raw === '') return out;
  let start = 0;
  const n = raw.length;
  while (start <= n) {
    let end = raw.indexOf('&', start);
    if (end < 0) end = n;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      const hasEq = eq >= 0 && eq < end;
      const k = decodeComponent(raw.slice(start, hasEq ? eq : end));
      const v = hasEq ? decodeComponent(raw.slice(eq + 1, end)) : '';
      out.push([k, v]);
    }
    start = end + 1;
  }
  return out;
}

const needsDecode = /[%+]/;

/**
 * Decodes one form-encoded component: `+` to space, `%XX` escapes as UTF-8
 * (invalid sequences become U+FFFD, malformed escapes stay as they are).
 * @example
 * ```ts
 * decodeComponent('a+b%2Fc'); // 'a b/c'
 * ```
 */
export function decodeComponent(s: string): string {
  if (!needsDecode.test(s)) return s;
  // Fast path: `+` and escapes of ASCII characters, decoded here; anything else (an escape of a
  // byte >= 0x80, a malformed escape) takes decodeURIComponent's way below, from the start.
  let out = '';
  let plain = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 43) {
      out += s.slice(plain, i) + ' ';
      plain = i + 1;
    } else if (c === 37) {
      const h = i + 2 < s.length ? hexVal(s.charCodeAt(i + 1)) : -1;
      const l = h >= 0 && h < 8 ? hexVal(s.charCodeAt(i + 2)) : -1;
      if (l < 0) return decodeUriComponent(s);
      out += s.slice(plain, i) + String.fromCharCode(h * 16 + l);
      i += 2;
      plain = i + 1;
    }
  }
  return out + s.slice(plain);
}

/** {@link decodeComponent} through `decodeURIComponent` (UTF-8), loosely when it refuses the text. */
function decodeUriComponent(s: string): string {
  const plus = s.includes('+') ? s.replaceAll('+', ' ') : s;
  if (!plus.includes('%')) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    return decodePercentLoose(plus);
  }
}

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** Percent-decoding that never throws: bytes gathered, then UTF-8 with replacement. */
function decodePercentLoose(s: string): string {
  const bytes: number[] = [];
  let out = '';
  const flush = (): void => {
    if (bytes.length) {
      out += Buffer.from(bytes).toString('utf8');
      bytes.length = 0;
    }
  };
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 37 && i + 2 < s.length) {
      const h = hexVal(s.charCodeAt(i + 1));
      const l = hexVal(s.charCodeAt(i + 2));
      if (h >= 0 && l >= 0) {
        bytes.push(h * 16 + l);
        i += 2;
        continue;
      }
    }
    flush();
    out += s[i];
  }
  flush();
  return out;
}

/** How {@link encodeComponent} writes each ASCII character it escapes: `+` for a space, `%XX` otherwise. */
const FORM_ESCAPES: readonly string[] = Array.from({ length: 128 }, (_, c) =>
  c === 32 ? '+' : '%' + (c < 16 ? '0' : '') + c.toString(16).toUpperCase(),
);

/**
 * Form-encodes one component as Python's `quote_plus(safe='')`: ASCII
 * letters, digits and `_ . - ~` stay, space becomes `+`, everything else is
 * percent-encoded UTF-8.
 * @example
 * ```ts
 * encodeComponent('a b/é*'); // 'a+b%2F%C3%A9%2A'
 * ```
 */
export function encodeComponent(s: string): string {
  let out = '';
  let plain = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      (c >= 97 && c <= 122) ||
      (c >= 65 && c <= 90) ||
      (c >= 48 && c <= 57) ||
      c === 95 ||
      c === 46 ||
      c === 45 ||
      c === 126
    )
      continue;
    if (i > plain) out += s.slice(plain, i);
    if (c < 128) out += FORM_ESCAPES[c]!;
    else {
      // Encode the whole code point (and a lone surrogate as U+FFFD).
      const cp = s.codePointAt(i) as number;
      const lone = cp <= 0xffff && c >= 0xd800 && c <= 0xdfff;
      out += encodeURIComponent(lone ? '\ufffd' : String.fromCodePoint(cp));
      if (cp > 0xffff) i++;
    }
    plain = i + 1;
  }
  return plain === 0 ? s : out + s.slice(plain);
}

/** Compares strings by code point, as Python does. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * Builds a form-encoded query string from pairs, grouping the values of a
 * key together and sorting keys by code point (the order DRF's link
 * builders produce).
 * @example
 * ```ts
 * encodeSortedQuery([['z', '1'], ['a', ''], ['z', '2']]); // 'a=&z=1&z=2'
 * ```
 */
export function encodeSortedQuery(pairs: Iterable<readonly [string, string]>): string {
  const groups = new Map<string, string[]>();
  for (const [k, v] of pairs) {
    const g = groups.get(k);
    if (g) g.push(v);
    else groups.set(k, [v]);
  }
  const keys = [...groups.keys()].sort(compareCodePoints);
  let out = '';
  for (const k of keys) {
    const ek = encodeComponent(k);
    for (const v of groups.get(k) as string[]) out += (out ? '&' : '') + ek + '=' + encodeComponent(v);
  }
  return out;
}

interface SplitUrl {
  head: string;
  query: string;
  fragment: string;
}

function splitUrl(url: string): SplitUrl {
  const hash = url.indexOf('#');
  const fragment = hash >= 0 ? url.slice(hash) : '';
  const rest = hash >= 0 ? url.slice(0, hash) : url;
  const q = rest.indexOf('?');
  return q >= 0 ? { head: rest.slice(0, q), query: rest.slice(q + 1), fragment } : { head: rest, query: '', fragment };
}

function rebuild(u: SplitUrl, pairs: [string, string][]): string {
  const q = encodeSortedQuery(pairs);
  return u.head + (q ? '?' + q : '') + u.fragment;
}

/**
 * Sets `key` to exactly one `value` in the URL's query string (all earlier
 * values dropped), sorts all keys and re-encodes them form-style, keeping the
 * fragment: DRF's `replace_query_param`.
 * @example
 * ```ts
 * replaceQueryParam('http://h/items/?page=2&zeta=1&alpha=', 'page', 3);
 * // 'http://h/items/?alpha=&page=3&zeta=1'
 * ```
 */
export function replaceQueryParam(url: string, key: string, value: string | number | bigint): string {
  const r = queryParamSlot(url, key);
  return r.prefix + encodeComponent(String(value)) + r.suffix;
}

/**
 * What {@link replaceQueryParam} writes around the value, for one URL and
 * key: `prefix + encodeComponent(value) + suffix` is
 * `replaceQueryParam(url, key, value)`. A paginator building several links
 * from one request URL parses that URL once.
 * @example
 * ```ts
 * const slot = queryParamSlot('http://h/items/?zeta=1&page=2&alpha=', 'page');
 * // { prefix: 'http://h/items/?alpha=&page=', suffix: '&zeta=1' }
 * ```
 */
export function queryParamSlot(url: string, key: string): { readonly prefix: string; readonly suffix: string } {
  const u = splitUrl(url);
  // The other keys sorted (DRF's replace_query_param sorts them all); the key itself has one value,
  // so it sits between the keys before it and the keys after it.
  const before: [string, string][] = [];
  const after: [string, string][] = [];
  for (const pair of parseQuery(u.query)) {
    const c = compareCodePoints(pair[0], key);
    if (c < 0) before.push(pair);
    else if (c > 0) after.push(pair);
  }
  const head = before.length === 0 ? '' : encodeSortedQuery(before);
  const tail = after.length === 0 ? '' : encodeSortedQuery(after);
  return {
    prefix: `${u.head}?${head === '' ? '' : head + '&'}${encodeComponent(key)}=`,
    suffix: (tail === '' ? '' : '&' + tail) + u.fragment,
  };
}

/**
 * Removes `key` from the URL's query string, sorting and re-encoding the
 * rest; with nothing left the URL has no `?`: DRF's `remove_query_param`.
 * @example
 * ```ts
 * removeQueryParam('http://h/items/?page=2', 'page'); // 'http://h/items/'
 * ```
 */
export function removeQueryParam(url: string, key: string): string {
  const u = splitUrl(url);
  return rebuild(
    u,
    parseQuery(u.query).filter(([k]) => k !== key),
  );
}

const PY_SPACE: ReadonlySet<number> = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
const DECIMAL = /\p{Nd}/u;

/** The value 0-9 of a Unicode decimal digit, or -1. */
function digitValue(cp: number): number {
  if (cp >= 48 && cp <= 57) return cp - 48;
  if (cp < 128 || !DECIMAL.test(String.fromCodePoint(cp))) return -1;
  // Decimal digits come in contiguous runs of ten starting at zero.
  let start = cp;
  while (DECIMAL.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** The most digits Python's `int()` reads (CPython 3.11+ default). */
const PY_INT_MAX_STR_DIGITS = 4300;

/**
 * Parses a string exactly as Python's `int(s)` does (base 10): surrounding
 * whitespace, a sign, any Unicode decimal digits, single underscores between
 * digits. Returns a `bigint`, or `null` where Python raises `ValueError`.
 * @example
 * ```ts
 * pyIntBig(' +1_0 '); // 10n
 * pyIntBig('1.5'); // null
 * ```
 */
export function pyIntBig(s: string): bigint | null {
  let i = 0;
  let end = s.length;
  while (i < end && PY_SPACE.has(s.charCodeAt(i))) i++;
  while (end > i && PY_SPACE.has(s.charCodeAt(end - 1))) end--;
  if (i === end) return null;
  let neg = false;
  const sign = s.charCodeAt(i);
  if (sign === 43 || sign === 45) {
    neg = sign === 45;
    i++;
  }
  let digits = '';
  let lastUnderscore = true; // an underscore may not lead
  while (i < end) {
    const cp = s.codePointAt(i) as number;
    if (cp === 95) {
      if (lastUnderscore) return null;
      lastUnderscore = true;
      i++;
      continue;
    }
    const d = digitValue(cp);
    if (d < 0) return null;
    digits += String.fromCharCode(48 + d);
    lastUnderscore = false;
    i += cp > 0xffff ? 2 : 1;
  }
  if (digits === '' || lastUnderscore) return null;
  // CPython 3.11+ refuses to read more than 4300 digits (sys.get_int_max_str_digits(), the
  // CVE-2020-10735 limit): int() raises ValueError, so DRF treats such a number as invalid.
  if (digits.length > PY_INT_MAX_STR_DIGITS) return null;
  const v = BigInt(digits);
  return neg ? -v : v;
}

/**
 * {@link pyIntBig} as a `number` (values beyond 2^53 are approximated,
 * which keeps comparisons with page counts right).
 * @example
 * ```ts
 * pyInt('02'); // 2
 * pyInt('٢'); // 2 (Arabic-Indic digit two)
 * pyInt('abc'); // null
 * ```
 */
export function pyInt(s: string): number | null {
  const v = pyIntBig(s);
  return v === null ? null : Number(v);
}

/**
 * DRF's `_positive_int`: Python `int()`, then negative is invalid, zero is
 * invalid when `strict`, and a truthy `cutoff` clamps the value. Returns
 * `null` for invalid input.
 * @example
 * ```ts
 * positiveInt('1000', { strict: true, cutoff: 100 }); // 100
 * positiveInt('0', { strict: true }); // null
 * positiveInt('0'); // 0
 * ```
 */
export function positiveInt(s: string, options: { strict?: boolean; cutoff?: number | null } = {}): number | null {
  const v = pyInt(s);
  if (v === null || v < 0 || (options.strict && v === 0)) return null;
  return options.cutoff ? Math.min(v, options.cutoff) : v;
}

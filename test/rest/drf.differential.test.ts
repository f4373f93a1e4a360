/**
 * Differential test: the eventide demo API (src/cli/demo.ts, on EventHttp)
 * against the same endpoints in Django REST framework 3.14 (bench/drf:
 * Django 3.2 and DRF 3.14 for /usr/bin/python3, served by
 * bench/drf/serve.py), both on 127.0.0.1 over the same temporary SQLite
 * files: the demo data set (1,000 rows: every price held by two rows) and a
 * table of long runs of equal prices (300 demo rows, price / 50: ten values,
 * about 30 rows each, longer than a page).
 *
 * Generated requests (a seeded generator; `EVENTIDE_DIFF_SEED=N` replays a
 * run, every failure prints its seed) go to both servers; each pair of
 * answers is compared: the status, the media type, the JSON body (each
 * server's own origin `http://127.0.0.1:PORT` replaced by `{origin}`, key
 * order included), the `Link` header and the `Location` header. Covered:
 * page numbers and page sizes, limits and offsets (0, negatives,
 * non-numbers, Python `int()` spellings, 2^53 + 1, 20 digits and more),
 * cursor walks (`next` to the end, then `previous` back to the start) on
 * unique and non-unique orderings, crafted and hostile cursor tokens,
 * `?ordering=` (valid, unknown and hidden fields, `-` prefixes, several
 * fields), the five DRF versioning schemes (valid, missing, not allowed,
 * odd values), the versioned list and detail, the root, and odd input
 * (unicode, long values, repeated parameters, unknown routes, Host headers).
 *
 * Not compared: the demo's endpoints DRF does not have (eventide's own
 * HeaderVersioning and OpenAPI documents, which bench/drf routes only for
 * the root's links; keyset cursors and page numbers without a count, left
 * out of eventide's root: EVENTIDE_ONLY_ROOT_KEYS), HTML renderings (the
 * browsable API), and the parameters of `Content-Type` (eventide echoes the
 * Accept header's `version`, DRF does not: only the media type is compared).
 *
 * What is not a match:
 * - MASKS: Django's own HTML error pages (no route matched, a Host Django
 *   refuses) against eventide's JSON: the status is compared, not the body.
 * - DELIBERATE: where eventide differs from DRF 3.14 on purpose; eventide's
 *   documented answer is asserted instead.
 * - PENDING_FIXES: known differences being fixed in src/ now, and the ones
 *   this test found; their cases are reported as TODO subtests (the suite
 *   stays green). Remove an entry once its fix has landed: the last test
 *   names the entries no case matched.
 *
 * Skipped as a whole when /usr/bin/python3 cannot import rest_framework
 * (`apt-get install python3-djangorestframework`; .ci/run installs it),
 * except in CI, where it fails (test/support/tools.ts).
 */
import { describe, test, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildDemoApi } from '../../src/cli/demo.js';
import { openDemoDatabase, type DemoDatabaseHandle } from '../../src/cli/demo-data.js';
import { serveApi, type Served } from '../support/rest.js';
import { drfAvailability, rawGet, startDrf, type DrfPeer, type RawAnswer } from '../support/drf-peer.js';
import { requireTool } from '../support/tools.js';

const SEED = Number(process.env['EVENTIDE_DIFF_SEED'] ?? 20261124);
if (!Number.isSafeInteger(SEED)) throw new Error(`EVENTIDE_DIFF_SEED must be an integer, not ${SEED}`);
const REPLAY = `seed ${SEED}; replay with EVENTIDE_DIFF_SEED=${SEED} node scripts/run-tests.mjs drf.differential`;
/** `EVENTIDE_DIFF_VERBOSE=1`: one line per request (the path, both statuses, what differs). */
const VERBOSE = process.env['EVENTIDE_DIFF_VERBOSE'] === '1';
const ROWS = 1000;
const TIE_ROWS = 300;
/** Every server's own origin becomes this before answers are compared. */
const ORIGIN = '{origin}';

// ====================================================================== what is compared

type Target = 'demo' | 'ties';

/** A request: a path with its query, sent as given (already percent-encoded), and headers. */
interface Probe {
  path: string;
  headers?: Record<string, string>;
}

/** One server's answer, normalized. */
interface Side {
  status: number;
  /** The media type of Content-Type, without parameters. */
  type: string;
  /** The body: canonical JSON text (key order kept) when it is JSON, else the text. */
  body: string;
  json: unknown;
  link: string | null;
  location: string | null;
}

/** A request and both answers. */
interface Case {
  target: Target;
  probe: Probe;
  url: URL;
  ev: Side;
  drf: Side;
}

const COMPARED = ['status', 'type', 'body', 'link', 'location'] as const;

function side(a: RawAnswer, origin: string): Side {
  const norm = (s: string | null): string | null => (s === null ? null : s.replaceAll(origin, ORIGIN));
  const text = norm(a.text) as string;
  const type = (a.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  let json: unknown = undefined;
  let body = text;
  if (type === 'application/json' && text !== '') {
    try {
      json = JSON.parse(text);
      body = JSON.stringify(json);
    } catch {
      // not JSON after all: compared as text
    }
  }
  return { status: a.status, type, body, json, link: norm(a.link), location: norm(a.location) };
}

/**
 * Endpoints of the demo DRF does not express (eventide's keyset cursors, page
 * numbers without a count): their entries are dropped from eventide's root
 * before it is compared. A new demo endpoint shows up as a root difference
 * until bench/drf mirrors it or it is listed here.
 */
const EVENTIDE_ONLY_ROOT_KEYS = ['cursor-keyset', 'cursor-relay', 'page-nocount', 'docs'];

/** eventide's root without the entries DRF cannot have. */
function withoutEventideOnly(url: URL, s: Side): Side {
  if (url.pathname !== '/' || s.json === null || typeof s.json !== 'object' || Array.isArray(s.json)) return s;
  const json = Object.fromEntries(Object.entries(s.json).filter(([k]) => !EVENTIDE_ONLY_ROOT_KEYS.includes(k)));
  return { ...s, json, body: JSON.stringify(json) };
}

function differing(c: Case): string[] {
  return COMPARED.filter((k) => c.ev[k] !== c.drf[k]);
}

// ====================================================================== reading requests the way Django does

/** Django's QueryDict (parse_qsl, keep_blank_values): `&`-separated, `+` is a space, UTF-8 with replacement. */
function lastParam(url: URL, key: string): string | null {
  const all = url.searchParams.getAll(key);
  return all.length === 0 ? null : all[all.length - 1]!;
}

/** The value of a Unicode decimal digit (digits come in runs of ten starting at zero). */
function digitValue(ch: string): number {
  let cp = ch.codePointAt(0)!;
  let start = cp;
  while (start > 0 && /\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  cp -= start;
  return cp % 10;
}

/** Python's `int(str)` (whitespace, sign, underscores between digits, any decimal digit), or null. */
function pythonInt(s: string): bigint | null {
  const m = /^([+-]?)(\p{Nd}(?:_?\p{Nd})*)$/u.exec(s.trim());
  if (!m) return null;
  const digits = [...m[2]!.replaceAll('_', '')].map((d) => digitValue(d)).join('');
  const v = BigInt(digits);
  return m[1] === '-' ? -v : v;
}

/** The decoded fields of the request's cursor (first value of each key), or null when absent or not base64 text. */
function cursorFields(url: URL): Map<string, string> | null {
  const token = lastParam(url, 'cursor');
  if (token === null || /[^\x20-\x7e]/.test(token)) return null;
  const text = Buffer.from(token, 'base64').toString('latin1');
  const fields = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(text)) if (!fields.has(k)) fields.set(k, v);
  return fields;
}

const ORDERING_FIELDS = ['created', 'price', 'id'];

const UNIQUE_FIELDS = ['created', 'id'];

/** The ordering terms of a cursor list, as DRF's OrderingFilter and CursorPagination choose them; null elsewhere. */
function cursorTerms(url: URL): string[] | null {
  if (url.pathname === '/cursor/items/') return ['-created'];
  if (url.pathname === '/cursor-price/items/') return ['price', 'id'];
  if (url.pathname !== '/cursor-ordering/items/') return null;
  const raw = lastParam(url, 'ordering');
  if (raw) {
    const valid = raw
      .split(',')
      .map((t) => t.trim())
      .filter((t) => ORDERING_FIELDS.includes(t.startsWith('-') ? t.slice(1) : t));
    if (valid.length > 0) return valid;
  }
  return ['-created'];
}

/** The field whose value is the cursor position (the first term's), or null when the path is no cursor list. */
function cursorField(url: URL): string | null {
  return cursorTerms(url)?.[0]?.replace(/^-/, '') ?? null;
}

const isPageNumberList = (url: URL): boolean =>
  ['/page/items/', '/link/items/'].includes(url.pathname) || /^\/versioned\/[^/]+\/items\/$/.test(url.pathname);

// ====================================================================== masks, deliberate differences, pending fixes

interface Mask {
  id: string;
  reason: string;
  applies(c: Case): boolean;
  /** What still has to hold of eventide's answer (an assertion message), or null. */
  check(c: Case): string | null;
}

/**
 * Django-specific answers that cannot match: only the status is compared.
 */
const MASKS: readonly Mask[] = [
  {
    id: 'django-404-page',
    reason:
      "No route matched: Django's URL resolver answers its HTML 404 page (no DRF view runs); eventide answers 404 JSON {detail: 'Not found.'}.",
    applies: (c) => c.drf.type === 'text/html' && c.drf.status === 404 && c.ev.status === 404,
    check: (c) => (c.ev.body === '{"detail":"Not found."}' ? null : `eventide's 404 body is ${c.ev.body}`),
  },
  {
    id: 'redirect-media-type',
    reason:
      "CommonMiddleware's APPEND_SLASH redirect (301, empty body): Django labels the empty body text/html, eventide sends no Content-Type. Status, Location and (empty) body compared.",
    applies: (c) =>
      c.drf.status === 301 &&
      c.ev.status === 301 &&
      c.drf.body === '' &&
      c.ev.body === '' &&
      c.ev.location === c.drf.location &&
      c.ev.link === c.drf.link,
    check: () => null,
  },
  {
    id: 'django-400-page',
    reason:
      "A Host header Django refuses (DisallowedHost) or a request its server refuses: Django's HTML 400 page; eventide answers 400 too (its HTTP layer's page or JSON {detail: 'Invalid HTTP_HOST header: ...'}).",
    applies: (c) => c.drf.type === 'text/html' && c.drf.status === 400 && c.ev.status === 400,
    check: () => null,
  },
];

interface Deliberate {
  id: string;
  reason: string;
  applies(c: Case): boolean;
  /**
   * eventide's documented answer: fixed (a null body: any), DRF's answer to
   * another request, or a check of eventide's answer (null when it holds).
   */
  expect: { status: number; body: string | null } | { drfPath(c: Case): string } | { verify(c: Case): string | null };
}

const INVALID_CURSOR = { status: 404, body: '{"detail":"Invalid cursor"}' };

/**
 * Where eventide differs from DRF 3.14 on purpose (eventide's documented
 * behaviour is asserted instead of DRF's answer).
 */
const DELIBERATE: readonly Deliberate[] = [
  {
    id: 'request-line-over-8-kib',
    reason:
      "EventHttp answers 414 to a request line over 8 KiB (its default limit, docs/security.md); Django's development servers read up to 64 KiB.",
    applies: (c) => `GET ${c.probe.path} HTTP/1.1`.length > 8192,
    expect: { status: 414, body: null },
  },
  {
    id: 'cursor-position-outside-32-bits',
    reason:
      'item.id and item.price are declared 32-bit (itemFields: the PostgreSQL schema says integer), so a cursor position outside -2^31..2^31-1 is 404 Invalid cursor on every source (docs/security.md). DRF on SQLite compares it (a page, usually empty) or, beyond 64 bits, fails (500).',
    applies: (c) => {
      const field = cursorField(c.url);
      const p = cursorFields(c.url)?.get('p');
      if ((field !== 'price' && field !== 'id') || p === undefined || c.drf.status === 404) return false;
      const v = pythonInt(p);
      return v !== null && (v < -(2n ** 31n) || v >= 2n ** 31n);
    },
    expect: INVALID_CURSOR,
  },
  {
    id: 'cursor-position-refused-by-database',
    reason:
      "DRF hands the cursor position to the database unchecked: a value the column cannot take (p=abc or p=1.5 on price, p=not-a-date or an impossible date on created, an empty p) is a 500 (Django's error page). eventide checks the position against the field first (Queryset.parsePosition) and answers 404 Invalid cursor (docs/security.md, 'Deliberate differences from DRF').",
    applies: (c) => cursorField(c.url) !== null && lastParam(c.url, 'cursor') !== null && c.drf.status === 500,
    expect: INVALID_CURSOR,
  },
  {
    id: 'detail-id-beyond-column',
    reason:
      'A detail id beyond 64 bits: SQLite refuses to bind it and DRF answers 500; eventide reads the id through the field (parsePosition) and answers 404 Not found. (docs/security.md).',
    applies: (c) => /^\/versioned\/[^/]+\/items\/\d+\/$/.test(c.url.pathname) && c.drf.status === 500,
    expect: { status: 404, body: '{"detail":"Not found."}' },
  },
  {
    id: 'empty-page-number',
    reason:
      "`?page=` (empty): DRF 3.14 answers 404 Invalid page.; DRF 3.15 and later read it as page 1, which eventide follows (it targets DRF's current behaviour). Asserted: eventide's answer equals DRF's to the same request with page=1.",
    applies: (c) => isPageNumberList(c.url) && lastParam(c.url, 'page') === '',
    expect: {
      drfPath: (c) => {
        const u = new URL(c.url.href);
        const all = u.searchParams.getAll('page');
        all[all.length - 1] = '1';
        u.searchParams.delete('page');
        for (const v of all) u.searchParams.append('page', v);
        return u.pathname + u.search;
      },
    },
  },
  {
    id: 'order-of-ties',
    reason:
      "?ordering= naming no unique field (price, -price, price,-price): DRF adds no tie-breaker, so rows of equal price come in the database's order (SQLite scans the (price, id) index in the direction of the first term); eventide appends the primary key in the direction of the last term (SqlQueryset, 'the primary key as tie-breaker, which keeps pages stable'). The two differ when the first and last terms point opposite ways. Asserted: the same status and links, the same sequence of prices, and eventide's rows of equal price in id order of the last term's direction.",
    applies: (c) => {
      const terms = c.url.pathname === '/cursor-ordering/items/' ? cursorTerms(c.url) : null;
      return (
        terms !== null &&
        !terms.some((t) => UNIQUE_FIELDS.includes(t.replace(/^-/, ''))) &&
        c.ev.status === 200 &&
        c.drf.status === 200 &&
        c.ev.body !== c.drf.body
      );
    },
    expect: {
      verify: (c) => {
        type Page = { next: unknown; previous: unknown; results: { id: number; price: number }[] };
        const e = c.ev.json as Page;
        const d = c.drf.json as Page;
        if (e.next !== d.next || e.previous !== d.previous) return 'the links differ';
        const prices = (p: Page): string => p.results.map((r) => r.price).join();
        if (prices(e) !== prices(d)) return `prices ${prices(e)} vs ${prices(d)}`;
        const terms = cursorTerms(c.url)!;
        const down = terms[terms.length - 1]!.startsWith('-');
        for (let i = 1; i < e.results.length; i++) {
          const [a, b] = [e.results[i - 1]!, e.results[i]!];
          if (a.price === b.price && (down ? a.id < b.id : a.id > b.id))
            return `ids ${a.id}, ${b.id} (price ${a.price}) not in ${down ? 'descending' : 'ascending'} order`;
        }
        return null;
      },
    },
  },
];

interface Pending {
  id: string;
  note: string;
  matches(c: Case): boolean;
}

/**
 * Known differences being fixed in src/ now, and the ones this test found:
 * the differing cases they match are TODO subtests, not failures. Remove an
 * entry once its fix has landed (the last test names the entries no case
 * matched). Fixed since the test was written: the previous link of a cursor
 * page of ties at the end of the list reached by an offset
 * (`/cursor/items/?cursor=<o=999>`); offsets beyond any double in links;
 * Python's 4300-digit int() limit; Django's Host syntax check; `<int:pk>`
 * beyond 2^53. Not applicable: OrderingFilter without `ordering_fields`
 * (the demo's only OrderingFilter view sets them; see test/rest/filters.test.ts).
 */
const PENDING_FIXES: readonly Pending[] = [];

// ====================================================================== a seeded generator

class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  /** mulberry32: uniform in [0, 1). */
  next(): number {
    this.#s = (this.#s + 0x6d2b79f5) >>> 0;
    let t = this.#s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Form-encodes a query value or key (space as `+`, as DRF writes links). */
const enc = (s: string): string =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%20', '+');

/** A query string from pairs; a value of `null` is a bare key (`?a`). Keys and values are encoded unless raw. */
function query(pairs: readonly (readonly [string, string | null])[], raw = false): string {
  if (pairs.length === 0) return '';
  const e = raw ? (s: string): string => s : enc;
  return `?${pairs.map(([k, v]) => (v === null ? e(k) : `${e(k)}=${e(v)}`)).join('&')}`;
}

/** Integer-ish values for page, page_size, limit, offset: valid, edge, Python spellings, hostile. */
function intish(r: Rng, typical: () => number): string {
  switch (r.int(0, 9)) {
    case 0:
    case 1:
    case 2:
      return String(typical());
    case 3:
      return r.pick(['0', '-1', '-0', `-${r.int(1, 2000)}`, '00', '1', '2']);
    case 4:
      return r.pick(['', 'abc', 'last', 'LAST', 'Last', '1.5', '2.0', '1e1', '0x2', 'NaN', 'Infinity', 'None', 'true']);
    case 5:
      return r.pick([
        ' 2',
        '2 ',
        '+2',
        '02',
        '1_0',
        '1__0',
        '_1',
        '1_',
        '\u0662',
        '\uff12',
        '\u00b2',
        '\u{1d7da}',
        '2\t',
      ]);
    case 6:
      return r.pick([
        '9007199254740993',
        '9007199254740992',
        '9007199254740991',
        '99999999999999999999',
        '18446744073709551616',
        '-99999999999999999999',
        '2147483648',
      ]);
    case 7:
      return r.chance(0.5) ? '9'.repeat(r.int(16, 40)) : `1${'0'.repeat(r.int(15, 30))}${r.int(0, 9)}`;
    case 8:
      return r.pick([
        '9'.repeat(400),
        '1'.repeat(4300),
        '1'.repeat(4301),
        `${'0'.repeat(4301)}5`,
        '1_'.repeat(2200) + '1',
      ]);
    default:
      return String(typical() + r.int(-3, 3));
  }
}

/** Parameters that are not the endpoint's own, carried into links (sorted, re-encoded). */
function noise(r: Rng): [string, string | null][] {
  const out: [string, string | null][] = [];
  const n = r.chance(0.6) ? 0 : r.int(1, 3);
  for (let i = 0; i < n; i++) {
    out.push(
      r.pick<[string, string | null]>([
        ['zeta', '1'],
        ['alpha', ''],
        ['a', null],
        ['q', 'a b/c'],
        ['x', '\u00e9*~!'],
        ['format', 'json'],
        ['\u00e9', '\u2603'],
        ['x', 'y'.repeat(r.int(50, 1500))],
        ['A', 'B'],
        ['_', '-.~'],
        ['x', '\'"<>&'],
      ]),
    );
  }
  return out;
}

/** Shuffles the pairs (parameter order must not matter to the links: DRF sorts them). */
function shuffle<T>(r: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/** A cursor token as DRF writes it: base64 of the form-encoded fields (standard alphabet, padded). */
function token(fields: readonly (readonly [string, string])[]): string {
  return Buffer.from(fields.map(([k, v]) => `${k}=${enc(v)}`).join('&'), 'latin1').toString('base64');
}

/** Python's `str()` of an aware UTC datetime. */
function pyDatetime(ms: number): string {
  const iso = new Date(ms).toISOString();
  const frac = ms % 1000;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac === 0 ? '' : `.${String(frac * 1000).padStart(6, '0')}`}+00:00`;
}

const createdMs = (i: number): number => Date.UTC(2020, 0, 1) + i * 1000 + ((i * 37) % 1000);

/** A cursor position for `field` (valid, between rows, out of range, other spellings, garbage). */
function position(r: Rng, field: string, rows: number, maxPrice: number): string {
  if (field === 'created') {
    switch (r.int(0, 5)) {
      case 0:
      case 1:
        return pyDatetime(createdMs(r.int(1, rows)));
      case 2:
        return pyDatetime(createdMs(r.int(0, rows + 1)) + r.int(1, 999));
      case 3:
        return r.pick([
          '2020-01-01',
          '2020-01-01 00:08:20',
          '2020-01-01T00:08:20.5Z',
          '2020-01-01T05:38:20+05:30',
          '2020-01-01 00:08:20.500000',
          '1999-01-01 00:00:00+00:00',
          '9999-12-31 23:59:59+00:00',
          '0001-01-01 00:00:00+00:00',
        ]);
      case 4:
        return r.pick([
          'not-a-date',
          '',
          'None',
          '2020-02-30 00:00:00+00:00',
          '2020-01-01 00:08:20.5000001+00:00',
          '9999-12-31 23:59:59-01:00',
          '2020-01-01 25:00:00',
        ]);
      default:
        return pyDatetime(createdMs(r.pick([1, rows, rows - 1, 2])));
    }
  }
  const top = field === 'price' ? maxPrice : rows;
  switch (r.int(0, 5)) {
    case 0:
    case 1:
    case 2:
      return String(r.int(0, top));
    case 3:
      return r.pick(['-1', '0', String(top), String(top + 1), '2147483647', '-2147483648']);
    case 4:
      return r.pick([
        '2147483648',
        '-2147483649',
        '9223372036854775807',
        '9223372036854775808',
        '99999999999999999999',
      ]);
    default:
      return r.pick(['abc', '', '1.5', ' 5', '+5', '0005', '5_0', '\u0665', 'None', '5 ', '1e2']);
  }
}

/** A crafted cursor parameter value: DRF-shaped tokens with odd fields, and hostile tokens. */
function craftedCursor(r: Rng, field: string, rows: number, maxPrice: number): string {
  const fields: [string, string][] = [];
  if (r.chance(0.5))
    fields.push([
      'o',
      r.chance(0.7)
        ? String(r.pick([r.int(0, 15), r.int(0, 1200), rows - 1, rows, 999, 1000, 1001, 5000]))
        : r.pick(['-1', '', 'x', '9007199254740993', '1_0', ' 3', '\u0663', '99999999999999999999']),
    ]);
  if (r.chance(0.4)) fields.push(['r', r.pick(['1', '1', '0', '2', '-1', 'abc', '', ' 1', '1_0'])]);
  if (r.chance(0.8)) fields.push(['p', position(r, field, rows, maxPrice)]);
  if (r.chance(0.1)) fields.push([r.pick(['o', 'r', 'p', 'x']), r.pick(['1', '2', 'abc'])]);
  if (r.chance(0.15)) shuffle(r, fields);
  let t = token(fields);
  switch (r.int(0, 12)) {
    case 0:
      t = t.replace(/=+$/, ''); // padding dropped
      break;
    case 1:
      t = t.replaceAll('+', '-').replaceAll('/', '_'); // the URL-safe alphabet
      break;
    case 2:
      t = `${t.slice(0, 2)}!${t.slice(2)}`; // a character outside the alphabet
      break;
    case 3:
      t = r.pick(['', '123', 'cj0x', '====', 'cD0', '%E2%82%AC', '\u00e9', 'cD0xMA==cD0yMA==', 'AAAA', '////']);
      break;
    case 4:
      t = Buffer.from(Array.from({ length: r.int(1, 24) }, () => r.int(0, 255))).toString('base64');
      break;
    default:
      break;
  }
  return t;
}

// ====================================================================== the run

interface Pair {
  ev: Served;
  drf: DrfPeer;
  db: DemoDatabaseHandle;
}

/** What one section saw. */
class Recorder {
  readonly counts = { same: 0, masked: 0, deliberate: 0, pending: 0, failed: 0 };
  readonly failures: string[] = [];
  readonly pending = new Map<string, string[]>();
  readonly deliberate = new Map<string, number>();
  requests = 0;
}

function show(s: Side): string {
  const body = s.body.length > 700 ? `${s.body.slice(0, 700)}... (${s.body.length} chars)` : s.body;
  return `${s.status} ${s.type || '-'}${s.link !== null ? ` Link: ${s.link}` : ''}${s.location !== null ? ` Location: ${s.location}` : ''} ${body}`;
}

/** The first place two JSON values differ, as `$.results.0.id: 1 vs 2`. */
function firstDiff(a: unknown, b: unknown, at = '$'): string | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join() !== kb.join()) return `${at}: keys ${ka.join(',')} vs ${kb.join(',')}`;
    for (const k of ka) {
      const d = firstDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d !== null) return d;
    }
  }
  return `${at}: ${JSON.stringify(a)?.slice(0, 300)} vs ${JSON.stringify(b)?.slice(0, 300)}`;
}

function describeCase(c: Case, why: string): string {
  const where = c.target === 'ties' ? ' [equal-prices table]' : '';
  const hs = c.probe.headers ? ` ${JSON.stringify(c.probe.headers)}` : '';
  const path =
    c.probe.path.length > 300 ? `${c.probe.path.slice(0, 300)}... (${c.probe.path.length} chars)` : c.probe.path;
  const d = c.ev.json !== undefined && c.drf.json !== undefined ? firstDiff(c.ev.json, c.drf.json) : null;
  return `GET ${path}${hs}${where}: ${why}${d !== null ? `\n  first difference (eventide vs DRF): ${d}` : ''}\n  eventide: ${show(c.ev)}\n  DRF:      ${show(c.drf)}`;
}

type Outcome = 'same' | 'masked' | 'deliberate' | 'pending' | 'failed';

const peer = drfAvailability();
const drf = requireTool('missing' in peer ? peer.missing : null);

describe('the demo API against Django REST framework 3.14 (differential)', { skip: drf.skip }, () => {
  const pairs = new Map<Target, Pair>();
  const dbs: DemoDatabaseHandle[] = [];
  const servers: Served[] = [];
  const peers: DrfPeer[] = [];
  let dir = '';
  let total = 0;
  /** Cases of each PENDING_FIXES entry over the whole run. */
  const pendingHits = new Map<string, number>();
  const started = performance.now();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventide-drf-diff-'));
    const files: Record<Target, string> = { demo: join(dir, 'demo.sqlite3'), ties: join(dir, 'ties.sqlite3') };
    const open = async (target: Target): Promise<{ db: DemoDatabaseHandle; ev: Served }> => {
      const db = await openDemoDatabase(files[target], { rows: target === 'demo' ? ROWS : TIE_ROWS });
      dbs.push(db);
      if (target === 'ties') await sql`update item set price = price / 50`.execute(db.db);
      const ev = await serveApi(buildDemoApi(db.items(), { allowedHosts: ['*'] }), 'eventhttp');
      servers.push(ev);
      return { db, ev };
    };
    const demo = await open('demo');
    const ties = await open('ties');
    // Both Django servers start at once (most of the start-up time).
    const launched = await Promise.allSettled([startDrf(files.demo), startDrf(files.ties)]);
    for (const s of launched) if (s.status === 'fulfilled') peers.push(s.value);
    for (const s of launched) if (s.status === 'rejected') throw s.reason;
    pairs.set('demo', { ...demo, drf: peers[0]! });
    pairs.set('ties', { ...ties, drf: peers[1]! });
  });

  after(async () => {
    for (const p of peers) await p.stop();
    for (const s of servers) await s.close();
    for (const db of dbs) await db.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
    console.log(
      `# drf.differential: ${total} requests to each server in ${((performance.now() - started) / 1000).toFixed(1)} s (${'versions' in peer ? peer.versions : ''}; ${REPLAY})`,
    );
  });

  /** Sends a probe to both servers of `target`, compares, records; returns the case and its outcome. */
  async function check(rec: Recorder, target: Target, probe: Probe): Promise<{ c: Case; outcome: Outcome }> {
    const p = pairs.get(target)!;
    const [e, d] = await Promise.all([
      rawGet(p.ev.port, probe.path, probe.headers),
      rawGet(p.drf.port, probe.path, probe.headers),
    ]);
    rec.requests++;
    total++;
    const url = new URL(probe.path, 'http://x');
    const c: Case = {
      target,
      probe,
      url,
      ev: withoutEventideOnly(url, side(e, p.ev.origin)),
      drf: side(d, p.drf.origin),
    };
    const fail = (why: string): { c: Case; outcome: Outcome } => {
      rec.counts.failed++;
      rec.failures.push(describeCase(c, why));
      return { c, outcome: 'failed' };
    };
    const diff = differing(c);
    const deliberate = DELIBERATE.find((x) => x.applies(c));
    const pending = (): Pending | undefined => PENDING_FIXES.find((x) => x.matches(c));
    const outcome = async (): Promise<{ c: Case; outcome: Outcome }> => {
      if (deliberate !== undefined) {
        let problem: string | null;
        if ('verify' in deliberate.expect) problem = deliberate.expect.verify(c);
        else {
          let want: { status: number; body: string | null };
          if ('drfPath' in deliberate.expect) {
            want = side(await rawGet(p.drf.port, deliberate.expect.drfPath(c), probe.headers), p.drf.origin);
            total++;
          } else want = deliberate.expect;
          problem =
            c.ev.status === want.status && (want.body === null || c.ev.body === want.body)
              ? null
              : `eventide should answer ${want.status} ${want.body?.slice(0, 300) ?? ''}`;
        }
        if (problem === null) {
          rec.counts.deliberate++;
          rec.deliberate.set(deliberate.id, (rec.deliberate.get(deliberate.id) ?? 0) + 1);
          return { c, outcome: 'deliberate' };
        }
        const known = pending();
        if (known !== undefined) return record(known, `deliberate difference ${deliberate.id}, and ${problem}`);
        return fail(`deliberate difference ${deliberate.id}: ${problem}`);
      }
      if (diff.length === 0) {
        rec.counts.same++;
        return { c, outcome: 'same' };
      }
      const mask = MASKS.find((m) => m.applies(c));
      if (mask !== undefined) {
        const problem = mask.check(c);
        if (problem !== null) return fail(`${mask.id}: ${problem}`);
        rec.counts.masked++;
        return { c, outcome: 'masked' };
      }
      const known = pending();
      if (known !== undefined) return record(known, `differs in ${diff.join(', ')}`);
      return fail(`differs in ${diff.join(', ')}`);
    };
    const record = (known: Pending, why: string): { c: Case; outcome: Outcome } => {
      rec.counts.pending++;
      pendingHits.set(known.id, (pendingHits.get(known.id) ?? 0) + 1);
      const list = rec.pending.get(known.id) ?? [];
      list.push(describeCase(c, why));
      rec.pending.set(known.id, list);
      return { c, outcome: 'pending' };
    };
    const result = await outcome();
    if (VERBOSE)
      console.log(
        `# ${target} ${probe.path.slice(0, 200)} ${JSON.stringify(probe.headers ?? {})} -> ${c.ev.status}/${c.drf.status} ${result.outcome}${diff.length > 0 ? ` (${diff.join(',')})` : ''}`,
      );
    return result;
  }

  /** Local path of a link both servers wrote (`{origin}/x/?y` -> `/x/?y`). */
  const local = (link: string): string => {
    assert.ok(link.startsWith(`${ORIGIN}/`), `a link to another origin: ${link}`);
    return link.slice(ORIGIN.length);
  };

  const linkOf = (c: Case, key: 'next' | 'previous'): string | null => {
    const v = (c.drf.json as Record<string, unknown> | undefined)?.[key];
    return typeof v === 'string' ? v : null;
  };

  /**
   * Follows `next` from `start` to the end, then `previous` back to the
   * start, comparing every page; stops where the answers part.
   * `maxPages` bounds each direction.
   */
  async function walk(rec: Recorder, target: Target, start: string, maxPages: number): Promise<void> {
    let { c, outcome } = await check(rec, target, { path: start });
    for (const key of ['next', 'previous'] as const) {
      let pages = 0;
      for (;;) {
        if (outcome !== 'same') return;
        const link = linkOf(c, key);
        if (link === null) break;
        if (++pages > maxPages) {
          rec.counts.failed++;
          rec.failures.push(`walk from ${start} (${target}): no end after ${maxPages} ${key} links`);
          return;
        }
        ({ c, outcome } = await check(rec, target, { path: local(link) }));
      }
    }
  }

  /** A few steps from a page in random directions (both links agreed on every page). */
  async function wander(rec: Recorder, r: Rng, target: Target, start: string, steps: number): Promise<void> {
    let { c, outcome } = await check(rec, target, { path: start });
    for (let i = 0; i < steps && outcome === 'same'; i++) {
      const link = linkOf(c, r.chance(0.5) ? 'next' : 'previous') ?? linkOf(c, 'next') ?? linkOf(c, 'previous');
      if (link === null) return;
      ({ c, outcome } = await check(rec, target, { path: local(link) }));
    }
  }

  async function finish(t: TestContext, rec: Recorder): Promise<void> {
    const k = rec.counts;
    const deliberate = [...rec.deliberate].map(([id, n]) => `${id} ${n}`).join(', ');
    t.diagnostic(
      `${rec.requests} requests: ${k.same} same, ${k.masked} masked, ${k.deliberate} deliberate${deliberate ? ` (${deliberate})` : ''}, ${k.pending} pending, ${k.failed} failed`,
    );
    for (const p of PENDING_FIXES) {
      const hits = rec.pending.get(p.id);
      if (hits === undefined) continue;
      await t.test(`PENDING_FIXES ${p.id}: ${hits.length} case(s)`, { todo: p.note }, () => {
        assert.fail(`${hits.length} case(s) (${REPLAY}):\n${hits.slice(0, 4).join('\n\n')}`);
      });
    }
    if (rec.failures.length > 0)
      assert.fail(
        `${rec.failures.length} difference(s) with DRF (${REPLAY}):\n\n${rec.failures.slice(0, 10).join('\n\n')}`,
      );
  }

  const opts = { timeout: 120_000 };

  test(
    `page numbers and page sizes: /page/items/, /link/items/ (Link header), /versioned/vN/items/ (seed ${SEED})`,
    opts,
    async (t) => {
      const r = new Rng(SEED + 1);
      const rec = new Recorder();
      for (const path of ['/page/items/', '/link/items/', '/page/items/?page=last', '/link/items/?page=100'])
        await check(rec, 'demo', { path });
      for (let i = 0; i < 130; i++) {
        const base = r.pick([
          '/page/items/',
          '/page/items/',
          '/link/items/',
          '/versioned/v1/items/',
          '/versioned/v2/items/',
        ]);
        const ps: [string, string | null][] = [];
        if (r.chance(0.8))
          ps.push([
            'page',
            r.chance(0.15) ? r.pick(['last', 'LAST', '', '101', '100']) : intish(r, () => r.int(1, 101)),
          ]);
        if (r.chance(0.45)) ps.push(['page_size', intish(r, () => r.int(1, 120))]);
        if (r.chance(0.1)) ps.push(['page', intish(r, () => r.int(1, 30))]);
        ps.push(...noise(r));
        await check(rec, 'demo', { path: base + query(shuffle(r, ps)) });
      }
      await finish(t, rec);
    },
  );

  test(`limits and offsets: /limit/items/ (seed ${SEED})`, opts, async (t) => {
    const r = new Rng(SEED + 2);
    const rec = new Recorder();
    for (const q of [
      '',
      '?offset=995',
      '?offset=1000',
      '?offset=5000',
      '?limit=5&offset=5',
      '?offset=99999999999999999999',
    ])
      await check(rec, 'demo', { path: `/limit/items/${q}` });
    for (let i = 0; i < 120; i++) {
      const ps: [string, string | null][] = [];
      if (r.chance(0.7)) ps.push(['limit', intish(r, () => r.int(1, 120))]);
      if (r.chance(0.8)) ps.push(['offset', intish(r, () => r.pick([r.int(0, 1010), r.int(990, 1005), r.int(0, 30)]))]);
      if (r.chance(0.1)) ps.push([r.pick(['limit', 'offset']), intish(r, () => r.int(0, 50))]);
      ps.push(...noise(r));
      await check(rec, 'demo', { path: `/limit/items/${query(shuffle(r, ps))}` });
    }
    await finish(t, rec);
  });

  test(
    `cursor walks on 1,000 rows: next to the end and previous back, unique and non-unique orderings (seed ${SEED})`,
    opts,
    async (t) => {
      const r = new Rng(SEED + 3);
      const rec = new Recorder();
      await walk(rec, 'demo', '/cursor/items/', 150);
      await walk(rec, 'demo', `/cursor-price/items/?page_size=${r.int(8, 40)}`, 150);
      await walk(rec, 'demo', `/cursor-ordering/items/?ordering=price&page_size=${r.int(25, 100)}`, 60);
      await walk(
        rec,
        'demo',
        `/cursor-ordering/items/?ordering=${r.pick(['-price', '-price,id', 'price,-id'])}&page_size=${r.int(30, 100)}`,
        60,
      );
      await walk(
        rec,
        'demo',
        `/cursor-ordering/items/?ordering=${r.pick(['id', '-id', 'created', '-created,price'])}&page_size=${r.int(40, 100)}${r.chance(0.5) ? '&zeta=1&alpha=' : ''}`,
        60,
      );
      // Runs of two equal prices split by small pages, from crafted positions.
      for (let i = 0; i < 8; i++) {
        const cur = token([
          ['o', String(r.int(0, 2))],
          ...(r.chance(0.3) ? [['r', '1'] as [string, string]] : []),
          ['p', String(r.int(0, 499))],
        ]);
        await wander(rec, r, 'demo', `/cursor-price/items/?page_size=${r.int(1, 3)}&cursor=${enc(cur)}`, 6);
      }
      await finish(t, rec);
    },
  );

  test(`cursor walks over long runs of equal prices (300 rows, ten prices) (seed ${SEED})`, opts, async (t) => {
    const r = new Rng(SEED + 4);
    const rec = new Recorder();
    await walk(rec, 'ties', '/cursor-price/items/', 60);
    await walk(rec, 'ties', `/cursor-price/items/?page_size=${r.int(4, 25)}`, 100);
    await walk(rec, 'ties', `/cursor-ordering/items/?ordering=-price&page_size=${r.int(7, 40)}`, 60);
    await walk(rec, 'ties', `/cursor-ordering/items/?ordering=price,-created&page_size=${r.int(40, 100)}`, 20);
    for (let i = 0; i < 12; i++) {
      const fields: [string, string][] = [];
      if (r.chance(0.7)) fields.push(['o', String(r.pick([r.int(1, 40), r.int(0, 5)]))]);
      if (r.chance(0.4)) fields.push(['r', '1']);
      if (r.chance(0.9)) fields.push(['p', String(r.int(-1, 10))]);
      const ordering = r.pick(['', '', 'ordering=price&', 'ordering=-price&']);
      const path = ordering === '' ? '/cursor-price/items/' : '/cursor-ordering/items/';
      await wander(rec, r, 'ties', `${path}?${ordering}page_size=${r.int(1, 12)}&cursor=${enc(token(fields))}`, 5);
    }
    await finish(t, rec);
  });

  test(`cursor tokens: crafted fields, odd positions and offsets, hostile tokens (seed ${SEED})`, opts, async (t) => {
    const r = new Rng(SEED + 5);
    const rec = new Recorder();
    const o = (n: number): string => enc(token([['o', String(n)]]));
    for (const path of [
      `/cursor/items/?cursor=${o(999)}`,
      `/cursor-price/items/?cursor=${o(998)}`,
      `/cursor/items/?cursor=${o(5000)}`,
      '/cursor/items/?cursor=',
      '/cursor/items/?cursor=cj0x',
      '/cursor/items/?cursor=123',
      '/cursor/items/?cursor=%E2%82%AC',
    ])
      await check(rec, 'demo', { path });
    for (let i = 0; i < 140; i++) {
      const base = r.pick(['/cursor/items/', '/cursor-price/items/', '/cursor-ordering/items/']);
      const ordering =
        base === '/cursor-ordering/items/' ? r.pick(['-created', 'price', '-price', 'id', '-id', 'created']) : null;
      const field = cursorField(new URL(`${base}?ordering=${ordering ?? ''}`, 'http://x'))!;
      const ps: [string, string | null][] = [];
      if (ordering !== null) ps.push(['ordering', ordering]);
      if (base !== '/cursor/items/' && r.chance(0.4)) ps.push(['page_size', intish(r, () => r.int(1, 30))]);
      const raw = `cursor=${encodeURIComponent(craftedCursor(r, field, ROWS, 499))}`;
      if (r.chance(0.1)) ps.push(['cursor', token([['p', '5']])]);
      ps.push(...noise(r));
      const q = query(shuffle(r, ps));
      const path = `${base}${q === '' ? '?' : `${q}&`}${raw}`;
      if (r.chance(0.25)) await wander(rec, r, 'demo', path, 3);
      else await check(rec, 'demo', { path });
    }
    for (let i = 0; i < 30; i++) {
      const ordering = r.pick(['', 'ordering=price&', 'ordering=-price&', 'ordering=-created&']);
      const path = ordering === '' ? '/cursor-price/items/' : '/cursor-ordering/items/';
      const field = ordering.includes('created') ? 'created' : 'price';
      const cur = craftedCursor(r, field, TIE_ROWS, 10);
      await check(rec, 'ties', {
        path: `${path}?${ordering}page_size=${r.int(1, 15)}&cursor=${encodeURIComponent(cur)}`,
      });
    }
    await finish(t, rec);
  });

  test(
    `?ordering= with cursor pagination: valid, unknown and hidden fields, - prefixes, several fields (seed ${SEED})`,
    opts,
    async (t) => {
      const r = new Rng(SEED + 6);
      const rec = new Recorder();
      const terms = [
        'created',
        '-created',
        'price',
        '-price',
        'id',
        '-id',
        'name',
        '-name',
        'category',
        'pk',
        'bogus',
        '--price',
        '-',
        '',
        ' price',
        'price ',
        'Price',
        'created__year',
        '?',
        '\u00e9',
        'url',
        '-pk',
      ];
      for (let i = 0; i < 90; i++) {
        const ps: [string, string | null][] = [];
        const n = r.int(1, 3);
        ps.push(['ordering', Array.from({ length: n }, () => r.pick(terms)).join(r.chance(0.9) ? ',' : ', ')]);
        if (r.chance(0.15)) ps.push(['ordering', r.pick(terms)]);
        if (r.chance(0.6)) ps.push(['page_size', String(r.int(1, 30))]);
        ps.push(...noise(r));
        const path = `/cursor-ordering/items/${query(shuffle(r, ps))}`;
        if (r.chance(0.3)) await wander(rec, r, r.chance(0.5) ? 'demo' : 'ties', path, 3);
        else await check(rec, r.chance(0.8) ? 'demo' : 'ties', { path });
      }
      // Terms pointing opposite ways: the order of ties (see DELIBERATE order-of-ties).
      for (const o of ['price,-price', '-price,price', '-price,%20price'])
        for (const target of ['demo', 'ties'] as const)
          await check(rec, target, { path: `/cursor-ordering/items/?ordering=${o}&page_size=20` });
      // OrderingFilter on the other list endpoints is not configured: the parameter is carried, not applied.
      for (const path of [
        '/page/items/?ordering=-id',
        '/limit/items/?ordering=price',
        '/cursor/items/?ordering=price',
        '/cursor-price/items/?ordering=-price',
      ])
        await check(rec, 'demo', { path });
      await finish(t, rec);
    },
  );

  test(
    `versioning: AcceptHeader, URLPath, Namespace, HostName, QueryParameter; the versioned list and detail; the root (seed ${SEED})`,
    opts,
    async (t) => {
      const r = new Rng(SEED + 7);
      const rec = new Recorder();
      const accepts = [
        'application/json',
        '*/*',
        'application/json; version=v1',
        'application/json; version=v2',
        'application/json; version=v3',
        'application/json; version=',
        'application/json; version=V2',
        'application/json; version="v2"',
        'application/json;version=v2',
        'application/json; VERSION=v2',
        '*/*; version=v2',
        'application/*; version=v2',
        'application/json; version=v2, */*; version=v1',
        'text/csv; version=v2',
        'application/json; q=0.5; version=v2',
        'application/json; version=v1; version=v2',
        'application/json; indent=4; version=v2',
        'application/xml',
        'application/json; version=v2 ',
        'application/json; version=\u00e9',
        'application/json; version=v2; charset=utf-8',
        ', , application/json; version=v2',
      ];
      for (const a of accepts) await check(rec, 'demo', { path: '/accept/version/', headers: { Accept: a } });
      await check(rec, 'demo', { path: '/accept/version/' });
      for (const v of [
        'v1',
        'v2',
        'v3',
        'V1',
        '%76%32',
        'v2%20',
        '%20',
        'v1.0',
        '%C3%A9',
        'v1;x',
        'v2%2F',
        '..',
        'v'.repeat(2000),
      ])
        await check(rec, 'demo', { path: `/urlpath/${v}/version/` });
      for (const q of ['', '?format=json', '?version=v2', '?x=1&format=json'])
        await check(rec, 'demo', { path: `/urlpath/version/${q}` });
      for (const ns of ['v1', 'v2', 'v3', 'legacy', 'api/v2', '', 'V1', 'api', 'api/v1', '%76%31'])
        await check(rec, 'demo', { path: `/namespace/${ns}${ns === '' ? '' : '/'}version/` });
      const hosts = [
        'v1.example.com',
        'v2.example.com',
        'v3.example.com',
        'V2.example.com',
        'v2.example.com:8080',
        'v2.example.co.uk',
        'v2.example',
        'v2.example.com.',
        'v2.ex-ample.com',
        'localhost',
        '127.0.0.1',
        '[::1]:80',
        'v2.example.com:abc',
        'v2_x.example.com',
        'V2.EXAMPLE.COM',
        'xn--v2-kva.example.com',
        'v1.example.com:0',
        'a.b.c',
      ];
      for (const h of hosts) await check(rec, 'demo', { path: '/host/version/', headers: { Host: h } });
      await check(rec, 'demo', { path: '/host/version/' });
      await check(rec, 'demo', { path: '/host/version/?format=json', headers: { Host: 'v2.example.com' } });
      for (const q of [
        '',
        '?version=v1',
        '?version=v2',
        '?version=v3',
        '?version=',
        '?version=%20v2',
        '?version=V2',
        '?version=v1&version=v2',
        '?version=v2&version=',
        '?version=%C3%A9',
        `?version=${'v'.repeat(3000)}`,
        '?version=v2%00',
        '?b=1&version=v2&a=2',
        '?version',
        '?version=v2&format=json',
        '?VERSION=v2',
      ])
        await check(rec, 'demo', { path: `/query/version/${q}` });
      for (let i = 0; i < 40; i++) {
        const v = r.pick(['v1', 'v2', 'v1', 'v2', 'v3', 'V1', '%20']);
        const ps: [string, string | null][] = [];
        if (r.chance(0.6)) ps.push(['page', intish(r, () => r.int(1, 101))]);
        if (r.chance(0.3)) ps.push(['page_size', String(r.int(1, 40))]);
        ps.push(...noise(r));
        await check(rec, 'demo', { path: `/versioned/${v}/items/${query(shuffle(r, ps))}` });
      }
      const ids = [
        '1',
        '1000',
        '1001',
        '0',
        '00001',
        '2147483647',
        '2147483648',
        '9223372036854775807',
        '9223372036854775808',
        '99999999999999999999',
        '-1',
        'abc',
        '1.0',
        '%201',
        String(r.int(1, 1000)),
        String(r.int(1, 1000)),
      ];
      for (const id of ids)
        await check(rec, 'demo', {
          path: `/versioned/${r.pick(['v1', 'v2', 'v3'])}/items/${id}/${r.chance(0.2) ? '?format=json' : ''}`,
        });
      for (const path of [
        '/versioned/v1/items/7/',
        '/versioned/v2/items/7/',
        '/versioned/v3/items/9223372036854775807/',
        '/versioned/v3/items/99999999999999999999/',
      ])
        await check(rec, 'demo', { path });
      const roots: Probe[] = [
        { path: '/' },
        { path: '/?format=json' },
        { path: '/?zeta=1&alpha=' },
        { path: '/', headers: { Host: 'v2.example.com' } },
        { path: '/', headers: { Accept: 'application/json; version=v2' } },
      ];
      for (const probe of roots) await check(rec, 'demo', probe);
      await finish(t, rec);
    },
  );

  test(
    `odd and hostile input: routes, query strings, unicode, long values, repeated parameters, Host headers (seed ${SEED})`,
    opts,
    async (t) => {
      const r = new Rng(SEED + 8);
      const rec = new Recorder();
      const paths = [
        '/page/items',
        '/cursor/items',
        '/PAGE/items/',
        '/page//items/',
        '/page/items/x/',
        '/nothing/',
        '/page/',
        '/page/items/?',
        '/page/items/?&&&',
        '/page/items/?=',
        '/page/items/?page',
        '/page/items/?page&page=2',
        '/page/items/?x=%',
        '/page/items/?x=%zz',
        '/page/items/?x=%C3',
        '/page/items/?x=%FF&page=2',
        '/page/items/?page=%00',
        '/page/items/?page=2%00',
        '/page/items/?format=json',
        '/page/items/?format=xml',
        '/page/items/?format=',
        '/page/items/?page=2;page=3',
        '/page/items/?a=1;b=2&page=2',
        '/page/items/?page=2&page=3',
        '/page/items/?page=3&page=',
        '/limit/items/?limit=5&limit=7&offset=3&offset=1',
        '/page/items/?page=%EF%BC%93',
        '/page/items/?page=%D9%A3',
        '/page/items/?page=%C2%B2',
        '/page/items/?page_size=%EF%BC%95',
        '/cursor-ordering/items/?ordering=%EF%BD%90rice',
        '/page/items/?page=2&%C3%A9=%E2%98%83',
        '/page/items/?page=2&q=a%20b%2Fc',
        '/page/items/?page=2&q=a+b',
        `/page/items/?page=2&x=${'a'.repeat(6000)}`,
        `/page/items/?${'k'.repeat(3000)}=1&page=3`,
        `/limit/items/?offset=${'1'.repeat(300)}`,
        '/page/items/?page=2%23fragment',
        '/page/items/?page_size=0&page=2',
        '/page/items/?page_size=-3&page=2',
        '/page/items/?page_size=abc&page=2',
        '/page/items/?page_size=1000&page=2',
        '/link/items/?page=100&page_size=10',
        '/link/items/?page_size=1000',
        '/link/items/?page=0',
        '/versioned/v1/items/?page=last',
        '/cursor-price/items/?page_size=100',
        '/cursor-price/items/?page_size=101',
        `/limit/items/?offset=${'9'.repeat(400)}`,
        '/limit/items/?offset=9007199254741001&limit=7',
        `/page/items/?page_size=${'1'.repeat(4301)}`,
        `/limit/items/?limit=${'0'.repeat(4301)}5`,
      ];
      for (const path of paths) await check(rec, 'demo', { path });
      const hosts = [
        '',
        'evil.example:443',
        'a b',
        'localhost:8000',
        'EXAMPLE.com',
        '[::1]',
        '1.2.3.4:5',
        'x'.repeat(300),
      ];
      for (let i = 0; i < 24; i++)
        await check(rec, 'demo', {
          path: r.pick([
            '/page/items/?page=2',
            '/limit/items/?offset=5',
            '/cursor/items/',
            '/versioned/v2/items/3/',
            '/',
          ]),
          headers: { Host: r.pick(hosts) },
        });
      await finish(t, rec);
    },
  );

  test('PENDING_FIXES entries that matched nothing', (t) => {
    const unused = PENDING_FIXES.filter((p) => !pendingHits.has(p.id)).map((p) => p.id);
    t.diagnostic(
      unused.length > 0
        ? `no case of ${unused.join(', ')} in this run (${REPLAY}): remove an entry once its fix has landed`
        : 'every PENDING_FIXES entry still has cases',
    );
  });
});

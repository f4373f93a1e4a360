/**
 * The request set that test/rest/openapi.prism sends through a Prism proxy
 * to the demo API, one set per document: every path the version serves
 * with GET, HEAD, OPTIONS, `Accept: text/html` and an Accept the API cannot
 * satisfy; `?format=` with each renderer's format and one no renderer has; typical and edge parameters of each list style (page numbers
 * with `last`, past the end, 0 and text; page sizes and limits at 1, at the
 * maximum and past it; offsets; cursors taken from real `next` and
 * `previous` links and forged or garbled ones; Relay first/last/after/before;
 * orderings); the detail view of an item and of a missing one; and bad
 * versions in each scheme the demo has (URL path, namespace, query
 * parameter, header, Accept, host name).
 *
 * Each case says whether the request is within the document's contract
 * (`valid`: Prism must find nothing at all), outside it (`invalid`: a
 * parameter out of its declared range or type, a path the version does not
 * serve, so Prism must flag the request, and the answer must still be
 * declared), or either (`either`: the contract may or may not admit it, only
 * the answer is held to the document), and which status the demo answers
 * (so the set keeps exercising the statuses it is meant to).
 */
import type { ApiVersion, Json } from './openapi-tools.js';
import { fetchText } from './openapi-tools.js';

/** Whether a request is within the document's contract (see the module's description). */
export type RequestKind = 'valid' | 'invalid' | 'either';

/** One request of the set. */
export interface RequestCase {
  readonly method: 'GET' | 'HEAD' | 'OPTIONS' | 'POST';
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly request: RequestKind;
  /** The status the demo answers. */
  readonly status: number;
  /** What the case is about (printed with its violations). */
  readonly note: string;
}

/** Links and cursors read from the demo's own answers (the way a client gets them). */
export interface RealLinks {
  /** Per list (its path with any fixed query): the first page's `next` link and the second page's `previous` link, as path and query. */
  readonly next: Readonly<Record<string, string>>;
  readonly previous: Readonly<Record<string, string>>;
  /** The cursor values of those links, per list. */
  readonly nextCursor: Readonly<Record<string, string>>;
  /** Relay: the end cursor of `?first=5` and the start cursor of the page after it. */
  readonly relayEnd: string;
  readonly relayStart: string;
  /** The Link header's targets of `/link/items/?page=2` (rel to path and query). */
  readonly linkHeader: Readonly<Record<string, string>>;
}

const CURSOR_LISTS = [
  '/cursor/items/',
  '/cursor-price/items/',
  '/cursor-ordering/items/',
  '/cursor-ordering/items/?ordering=price',
  '/cursor-ordering/items/?ordering=-id',
  '/cursor-keyset/items/',
] as const;

const NUMBERED_LISTS = ['/page/items/', '/limit/items/', '/page-nocount/items/'] as const;

/** `http://host/p?q` to `/p?q`. */
function local(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

async function getJson(origin: string, url: string): Promise<{ body: Json; headers: Headers }> {
  const r = await fetchText(origin + url);
  if (r.status !== 200) throw new Error(`${url} answered ${r.status}: ${r.text.slice(0, 200)}`);
  return { body: JSON.parse(r.text) as Json, headers: r.headers };
}

function cursorOf(url: string): string {
  const c = new URL(url, 'http://x').searchParams.get('cursor');
  if (c === null) throw new Error(`no cursor in ${url}`);
  return c;
}

/** Reads the links and cursors of the demo's lists (directly from the demo, not through a proxy). */
export async function realLinks(origin: string, version: ApiVersion): Promise<RealLinks> {
  const next: Record<string, string> = {};
  const previous: Record<string, string> = {};
  const nextCursor: Record<string, string> = {};
  for (const list of [...CURSOR_LISTS, ...NUMBERED_LISTS, `/versioned/${version}/items/`]) {
    const first = (await getJson(origin, list)).body;
    if (typeof first['next'] !== 'string') throw new Error(`${list}: no next link`);
    next[list] = local(first['next']);
    const second = (await getJson(origin, next[list])).body;
    if (typeof second['previous'] !== 'string') throw new Error(`${list}: no previous link on page 2`);
    previous[list] = local(second['previous']);
    if ((CURSOR_LISTS as readonly string[]).includes(list)) nextCursor[list] = cursorOf(next[list]);
  }
  const relay1 = (await getJson(origin, '/cursor-relay/items/?first=5')).body;
  const relayEnd = (relay1['pageInfo'] as Json)['endCursor'];
  if (typeof relayEnd !== 'string') throw new Error('relay: no endCursor');
  const relay2 = (await getJson(origin, `/cursor-relay/items/?first=5&after=${encodeURIComponent(relayEnd)}`)).body;
  const relayStart = (relay2['pageInfo'] as Json)['startCursor'];
  if (typeof relayStart !== 'string') throw new Error('relay: no startCursor');
  const linkHeader: Record<string, string> = {};
  const link = (await getJson(origin, '/link/items/?page=2')).headers.get('link') ?? '';
  for (const m of link.matchAll(/<([^>]+)>;\s*rel="([^"]+)"/g))
    if (m[1] !== undefined && m[2] !== undefined) linkHeader[m[2]] = local(m[1]);
  return { next, previous, nextCursor, relayEnd, relayStart, linkHeader };
}

const b64 = (text: string): string => encodeURIComponent(Buffer.from(text).toString('base64'));
const b64url = (text: string): string => Buffer.from(text).toString('base64url');
const enc = encodeURIComponent;

/**
 * The request set for the document of `version`, with cursors and links
 * from `links` (read from the same demo data set).
 */
export function requestSet(version: ApiVersion, links: RealLinks): RequestCase[] {
  const other: ApiVersion = version === 'v1' ? 'v2' : 'v1';
  const cases: RequestCase[] = [];
  const add = (
    url: string,
    status: number,
    note: string,
    o: { request?: RequestKind; headers?: Record<string, string>; method?: RequestCase['method'] } = {},
  ): void => {
    cases.push({
      method: o.method ?? 'GET',
      url,
      headers: o.headers ?? {},
      request: o.request ?? 'valid',
      status,
      note,
    });
  };
  const at = (record: Readonly<Record<string, string>>, key: string): string => {
    const v = record[key];
    if (v === undefined) throw new Error(`no link for ${key}`);
    return v;
  };

  // Every path the version serves: GET, HEAD, OPTIONS, the browsable HTML, and an Accept nobody can satisfy.
  const served: [string, Record<string, string>][] = [
    ['/', {}],
    ['/page/items/', {}],
    ['/limit/items/', {}],
    ['/cursor/items/', {}],
    ['/cursor-price/items/', {}],
    ['/cursor-ordering/items/', {}],
    ['/cursor-keyset/items/', {}],
    ['/cursor-relay/items/', {}],
    ['/page-nocount/items/', {}],
    ['/link/items/', {}],
    [`/versioned/${version}/items/`, {}],
    [`/versioned/${version}/items/7/`, {}],
    ['/accept/version/', version === 'v1' ? {} : { Accept: `application/json; version=${version}` }],
    [`/urlpath/${version}/version/`, {}],
    [`/namespace/${version}/version/`, {}],
    ['/host/version/', version === 'v1' ? {} : { 'X-Forwarded-Host': `${version}.example.com` }],
    [version === 'v1' ? '/query/version/' : `/query/version/?version=${version}`, {}],
    ['/header/version/', version === 'v1' ? {} : { 'X-API-Version': version }],
  ];
  if (version === 'v1') served.push(['/urlpath/version/', {}], ['/namespace/version/', {}]);
  if (version === 'v2') served.push(['/namespace/api/v2/version/', {}]);
  for (const [url, headers] of served) {
    add(url, 200, 'the view', { headers });
    add(url, 200, 'HEAD of the view', { headers, method: 'HEAD' });
    add(url, 200, 'OPTIONS of the view (its metadata)', { headers, method: 'OPTIONS' });
    add(url, 200, 'the browsable API (Accept: text/html)', {
      headers: { ...headers, Accept: headers['Accept'] === undefined ? 'text/html' : `text/html; version=${version}` },
    });
    add(url, 406, 'an Accept the API cannot satisfy', { headers: { ...headers, Accept: 'application/xml' } });
  }
  add('/page/items/', 405, 'a method the view does not have', { method: 'POST', request: 'invalid' });
  // ?format= (URL_FORMAT_OVERRIDE): a renderer by its format name, or 404 for one the view lacks.
  for (const url of ['/', '/page/items/', `/versioned/${version}/items/7/`]) {
    const sep = url.includes('?') ? '&' : '?';
    add(`${url}${sep}format=json`, 200, '?format=json');
    add(`${url}${sep}format=api`, 200, '?format=api (the browsable API)');
    add(`${url}${sep}format=xml`, 404, 'a format no renderer has', { request: 'invalid' });
  }
  for (const accept of ['*/*', 'application/*', 'application/json, text/html;q=0.9', 'application/json; indent=4'])
    add('/page/items/', 200, `Accept: ${accept} (JSON)`, { headers: { Accept: accept } });
  add('/page/items/', 200, 'Accept: text/* (the browsable API)', { headers: { Accept: 'text/*' } });
  add('/page/items/?page=abc', 404, 'an invalid page in the browsable API', {
    headers: { Accept: 'text/html' },
    request: 'invalid',
  });
  add('/cursor-relay/items/?first=0', 400, 'an invalid first in the browsable API', {
    headers: { Accept: 'text/html' },
    request: 'invalid',
  });
  // HEAD is checked by the harness (status declared), not by Prism: its parameters are not checked.
  add('/page/items/?page=abc', 404, 'HEAD of an invalid page', { method: 'HEAD', request: 'either' });

  // Page numbers (3 pages of 10 in the data set).
  for (const list of ['/page/items/', '/link/items/', `/versioned/${version}/items/`]) {
    add(`${list}?page=1`, 200, 'page 1');
    add(`${list}?page=2`, 200, 'page 2');
    add(`${list}?page=3`, 200, 'the last page by number');
    add(`${list}?page=last`, 200, 'page=last (a last_page_strings value)');
    add(`${list}?page=4`, 404, 'a page past the end: Invalid page.');
    add(`${list}?page=999999`, 404, 'a page far past the end: Invalid page.');
    add(`${list}?page=0`, 404, 'page 0: Invalid page.', { request: 'invalid' });
    add(`${list}?page=-1`, 404, 'a negative page: Invalid page.', { request: 'invalid' });
    add(`${list}?page=abc`, 404, 'a page that is no number: Invalid page.', { request: 'invalid' });
    add(`${list}?page_size=1`, 200, 'page_size 1');
    add(`${list}?page_size=100`, 200, 'page_size at its maximum');
    add(`${list}?page=2&page_size=5`, 200, 'page 2 of 5');
    add(`${list}?page_size=101`, 200, 'page_size over its maximum (clamped to 100)', { request: 'invalid' });
    add(`${list}?page_size=0`, 200, 'page_size 0 (the default size is used)', { request: 'invalid' });
    add(`${list}?page_size=abc`, 200, 'page_size that is no number (the default size is used)', { request: 'invalid' });
  }
  add('/page-nocount/items/?page=2', 200, 'page 2 without a count');
  add('/page-nocount/items/?page=3', 200, 'the last page without a count');
  add('/page-nocount/items/?page=4', 404, 'past the end without a count: Invalid page.');
  add('/page-nocount/items/?page=last', 404, 'page=last without a count (no last page): Invalid page.', {
    request: 'either',
  });
  add('/page-nocount/items/?page=0', 404, 'page 0 without a count', { request: 'invalid' });
  add('/page-nocount/items/?page=abc', 404, 'a page that is no number, without a count', { request: 'invalid' });
  for (const list of ['/page/items/', '/page-nocount/items/', `/versioned/${version}/items/`]) {
    add(at(links.next, list), 200, 'the next link of page 1');
    add(at(links.previous, list), 200, 'the previous link of page 2');
  }
  for (const [rel, url] of Object.entries(links.linkHeader)) add(url, 200, `the Link header's rel="${rel}" target`);

  // Limit/offset.
  const lim = '/limit/items/';
  add(`${lim}?limit=1`, 200, 'limit 1');
  add(`${lim}?limit=100`, 200, 'limit at its maximum');
  add(`${lim}?limit=5&offset=20`, 200, 'the last five');
  add(`${lim}?offset=0`, 200, 'offset 0');
  add(`${lim}?offset=25`, 200, 'offset at the end: no results');
  add(`${lim}?offset=1000`, 200, 'offset past the end: no results');
  add(`${lim}?limit=101`, 200, 'limit over its maximum (clamped)', { request: 'invalid' });
  add(`${lim}?limit=0`, 200, 'limit 0 (the default limit is used)', { request: 'invalid' });
  add(`${lim}?limit=-1`, 200, 'a negative limit (the default limit is used)', { request: 'invalid' });
  add(`${lim}?limit=abc`, 200, 'a limit that is no number (the default limit is used)', { request: 'invalid' });
  add(`${lim}?offset=-1`, 200, 'a negative offset (0 is used)', { request: 'invalid' });
  add(`${lim}?offset=abc`, 200, 'an offset that is no number (0 is used)', { request: 'invalid' });
  add(at(links.next, lim), 200, 'the next link of the first page');
  add(at(links.previous, lim), 200, 'the previous link of the second page');

  // Cursors: real ones from next/previous links, forged and garbled ones.
  for (const list of CURSOR_LISTS) {
    const real = at(links.nextCursor, list);
    const sep = list.includes('?') ? '&' : '?';
    add(at(links.next, list), 200, 'the next link of the first page');
    add(at(links.previous, list), 200, 'the previous link of the second page');
    add(`${list}${sep}cursor=garbage`, 404, 'a cursor that is no token: Invalid cursor');
    add(`${list}${sep}cursor=A${real}`, 404, 'a real cursor shifted by one character (garbled)');
    add(`${list}${sep}cursor=${b64('p=not-a-position')}`, 404, 'a forged position');
    add(`${list}${sep}cursor=${b64('o=-5')}`, 404, 'a forged negative offset');
    add(`${list}${sep}cursor=%00%FF`, 404, 'a cursor of raw bytes');
  }
  add(`/cursor/items/?cursor=${b64('r=1&o=999999999999999999999')}`, 200, 'a forged huge offset, reversed: no results');
  add(
    `/cursor/items/?cursor=${enc(at(links.nextCursor, '/cursor-price/items/'))}`,
    404,
    "another list's cursor (price positions on a -created list)",
  );
  for (const list of ['/cursor-price/items/', '/cursor-ordering/items/', '/cursor-keyset/items/']) {
    add(`${list}?page_size=1`, 200, 'page_size 1');
    add(`${list}?page_size=100`, 200, 'page_size at its maximum');
    add(`${list}?page_size=101`, 200, 'page_size over its maximum (clamped)', { request: 'invalid' });
    add(`${list}?page_size=0`, 200, 'page_size 0 (the default size is used)', { request: 'invalid' });
    add(`${list}?page_size=abc`, 200, 'page_size that is no number', { request: 'invalid' });
  }
  for (const ordering of ['price', '-price', 'id', '-id', 'created', '-created'])
    add(`/cursor-ordering/items/?ordering=${ordering}`, 200, `ordering=${ordering}`);
  add('/cursor-ordering/items/?ordering=price,id', 200, 'two ordering terms', { request: 'either' });
  add('/cursor-ordering/items/?ordering=name', 200, 'ordering on a field not offered (ignored)', {
    request: 'invalid',
  });
  add('/cursor-ordering/items/?ordering=bogus', 200, 'ordering on no field (ignored)', { request: 'invalid' });

  // Relay connections.
  const relay = '/cursor-relay/items/';
  const end = enc(links.relayEnd);
  const start = enc(links.relayStart);
  add(`${relay}?first=5`, 200, 'first 5');
  add(`${relay}?last=5`, 200, 'last 5');
  add(`${relay}?first=1`, 200, 'first 1');
  add(`${relay}?first=100`, 200, 'first at its maximum');
  add(`${relay}?first=5&after=${end}`, 200, 'forward from a real endCursor');
  add(`${relay}?last=5&before=${start}`, 200, 'backward from a real startCursor');
  add(`${relay}?after=${end}`, 200, 'after alone (the default size)');
  add(`${relay}?before=${start}`, 200, 'before alone');
  add(`${relay}?first=101`, 200, 'first over its maximum (clamped)', { request: 'invalid' });
  add(`${relay}?first=0`, 400, 'first 0: A positive integer is required.', { request: 'invalid' });
  add(`${relay}?first=-1`, 400, 'a negative first', { request: 'invalid' });
  add(`${relay}?first=abc`, 400, 'first that is no number', { request: 'invalid' });
  add(`${relay}?last=0`, 400, 'last 0', { request: 'invalid' });
  add(`${relay}?first=2&last=2`, 400, 'first and last together');
  add(`${relay}?after=garbage`, 404, 'after that is no token: Invalid cursor');
  add(`${relay}?before=garbage`, 404, 'before that is no token: Invalid cursor');
  add(`${relay}?after=${b64url('{"k":["x"]}')}`, 404, 'a forged after');
  add(`${relay}?before=${enc(links.relayStart.slice(0, -3))}`, 404, 'a truncated real before');
  add(
    `${relay}?after=${enc(at(links.nextCursor, '/cursor-keyset/items/'))}`,
    200,
    "the keyset list's cursor as after (the same price, id positions)",
  );

  // The detail view.
  const detail = `/versioned/${version}/items`;
  add(`${detail}/1/`, 200, 'the first item');
  add(`${detail}/25/`, 200, 'the last item');
  add(`${detail}/999999999/`, 404, 'a missing item: Not found.');
  add(`${detail}/999999999/`, 404, 'a missing item in the browsable API', { headers: { Accept: 'text/html' } });
  add(`${detail}/0/`, 404, 'item 0: Not found.', { request: 'either' });
  add(`${detail}/999999999/`, 404, 'HEAD of a missing item', { method: 'HEAD' });
  add(`${detail}/999999999/`, 200, 'OPTIONS of a missing item (the view, not the object)', { method: 'OPTIONS' });
  add(`${detail}/abc/`, 404, 'an id that is no number: no route', { request: 'invalid' });

  // Versions: the other version's paths, versions nobody serves, in each scheme.
  add(`/versioned/${other}/items/`, 200, "the other version's list", { request: 'invalid' });
  add(`/versioned/${other}/items/7/`, 200, "the other version's detail", { request: 'invalid' });
  add('/versioned/v3/items/', 404, 'URL path: a version not served: Invalid version in URL path.', {
    request: 'invalid',
  });
  add('/versioned/v3/items/7/', 404, 'URL path: a version not served, detail', { request: 'invalid' });
  add(`/urlpath/${other}/version/`, 200, "URL path: the other version's path", { request: 'invalid' });
  add('/urlpath/v3/version/', 404, 'URL path: a version not served', { request: 'invalid' });
  if (version === 'v2') {
    add('/urlpath/version/', 200, 'URL path without a version: it answers v1', { request: 'invalid' });
    add('/namespace/version/', 200, 'namespace without a version: it answers v1', { request: 'invalid' });
  } else {
    add('/namespace/api/v2/version/', 200, 'namespace api:v2 (a v2 path)', { request: 'invalid' });
  }
  add(`/namespace/${other}/version/`, 200, "namespace: the other version's path", { request: 'invalid' });
  add('/namespace/v3/version/', 404, 'namespace: a version not allowed', { request: 'invalid' });
  add('/namespace/legacy/version/', 404, 'namespace: a namespace that is no version', { request: 'invalid' });
  add('/query/version/?version=v3', 404, 'query parameter: a version not served', { request: 'invalid' });
  // Prism reads an empty query value as absent (its form deserializer returns undefined for a falsy
  // value), so no document can make it flag this request; the 404 must still be declared.
  add('/query/version/?version=', 404, 'query parameter: an empty version', { request: 'either' });
  add(`/query/version/?version=${other}`, 200, 'query parameter: the other version', { request: 'either' });
  add('/header/version/', 406, 'X-API-Version: a version not served', {
    headers: { 'X-API-Version': 'v3' },
    request: 'invalid',
  });
  add('/header/version/', 200, 'X-API-Version: the other version', {
    headers: { 'X-API-Version': other },
    request: 'either',
  });
  add('/accept/version/', 406, 'Accept: a version not served', {
    headers: { Accept: 'application/json; version=v3' },
  });
  add('/host/version/', 404, 'host name: a version not served', {
    headers: { 'X-Forwarded-Host': 'v3.example.com' },
  });
  if (version === 'v1')
    add('/host/version/', 200, 'host name: v1 by name', { headers: { 'X-Forwarded-Host': 'v1.example.com' } });
  return cases;
}

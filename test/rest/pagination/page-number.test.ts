import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request } from '../../../src/rest/request.js';
import { createSettings } from '../../../src/rest/settings.js';
import { APIException, NotFound } from '../../../src/rest/errors.js';
import { ArrayQueryset } from '../../../src/rest/data/array.js';
import {
  EmptyPage,
  Page,
  PageNotAnInteger,
  PageNumberPagination,
  Paginator,
} from '../../../src/rest/pagination/index.js';
import { ARRAY_TARGETS, link, pageNumberReferenceCases, req } from './cases.js';
import { PAGE_PARAMETER, PAGE_SIZE_PARAMETER } from '../../support/schema-parameters.js';

interface Row {
  id: number;
}
const rows = (from: number, to: number, step = 1): Row[] => {
  const out: Row[] = [];
  for (let i = from; i <= to; i += step) out.push({ id: i });
  return out;
};
const ids = (page: Row[] | null): number[] | null => (page === null ? null : page.map((r) => r.id));

// --- reference 8.1 and 8.2: the shared case tables (cases.ts), here on the in-memory sources ---

for (const target of ARRAY_TARGETS) pageNumberReferenceCases(target);

class FivePagination extends PageNumberPagination {
  override pageSize = 5;
}
const hundred = rows(1, 100);

test('8.2 schema of the paginated response (main): JSON Schema 2020-12 type arrays, examples of the given URL', () => {
  const p = new FivePagination();
  const schema = p.getPaginatedResponseSchema({ type: 'string' }, { url: 'http://testserver/items/?q=1' });
  assert.equal(
    JSON.stringify(schema),
    JSON.stringify({
      type: 'object',
      required: ['count', 'next', 'previous', 'results'],
      properties: {
        count: { type: 'integer', minimum: 0, examples: [123] },
        next: { type: ['string', 'null'], format: 'uri', examples: ['http://testserver/items/?page=4&q=1'] },
        previous: { type: ['string', 'null'], format: 'uri', examples: ['http://testserver/items/?page=2&q=1'] },
        results: { type: 'string' },
      },
    }),
  );
  p.pageQueryParam = 'p';
  const prop = (s: Record<string, unknown>, name: string) =>
    (s.properties as Record<string, Record<string, unknown>>)[name];
  assert.deepEqual(prop(schema, 'next')?.examples, ['http://testserver/items/?page=4&q=1']);
  assert.deepEqual(prop(p.getPaginatedResponseSchema({}, { url: '/items/' }), 'previous')?.examples, ['/items/?p=2']);
  // Without a URL: no example (no made-up host).
  assert.deepEqual(prop(p.getPaginatedResponseSchema({}), 'next'), { type: ['string', 'null'], format: 'uri' });
  p.includeCount = false;
  const uncounted = p.getPaginatedResponseSchema({});
  assert.deepEqual(uncounted.required, ['next', 'previous', 'results'], 'no count without includeCount');
  assert.equal(prop(uncounted, 'count'), undefined);
});

test('schema operation parameters (section 6)', () => {
  const p = new PageNumberPagination();
  // A page number, or one of lastPageStrings (the list is counted).
  const page = PAGE_PARAMETER;
  assert.deepEqual(p.getSchemaOperationParameters(null), [page]);
  p.pageSizeQueryParam = 'size';
  const size = { ...PAGE_SIZE_PARAMETER, name: 'size' };
  assert.deepEqual(p.getSchemaOperationParameters(null), [page, size], 'no cap: no maximum');
  const capped = { ...size, schema: { type: 'integer', minimum: 1, maximum: 50 } };
  assert.deepEqual(p.getSchemaOperationParameters(null, { MAX_PAGE_SIZE: 50, MAX_LIMIT: 7 }), [page, capped]);
  p.maxPageSize = 20;
  assert.deepEqual(
    p.getSchemaOperationParameters(null, { MAX_PAGE_SIZE: 50, MAX_LIMIT: 7 })[1]?.schema,
    { type: 'integer', minimum: 1, maximum: 20 },
    "the class's own cap wins",
  );
  p.maxPageSize = 0;
  assert.deepEqual(p.getSchemaOperationParameters(null, { MAX_PAGE_SIZE: 50, MAX_LIMIT: 7 })[1], size, '0: no cap');
  p.lastPageStrings = ['last', 'end'];
  assert.deepEqual(p.getSchemaOperationParameters(null)[0]?.schema, {
    anyOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', enum: ['last', 'end'] },
    ],
  });
  p.includeCount = false;
  assert.deepEqual(
    p.getSchemaOperationParameters(null)[0]?.schema,
    { type: 'integer', minimum: 1 },
    'not counted: no last page to name',
  );
  assert.deepEqual(p.getSchemaErrors(), [
    { status: 404, name: 'invalidPage', summary: 'A page that does not exist', value: { detail: 'Invalid page.' } },
  ]);
});

// --- reference 2.1 table (1000 rows, page_size 10, max 100) ---

class TablePagination extends PageNumberPagination {
  override pageSize = 10;
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 100;
}
const thousand = new ArrayQueryset(rows(1, 1000), { fields: { id: { type: 'integer', unique: true } } }).orderBy('id');

async function table(query: string): Promise<{
  status: number;
  data: { count?: number; next?: string | null; previous?: string | null; results?: number[]; detail?: string };
}> {
  const p = new TablePagination();
  try {
    const page = await p.paginateQueryset(thousand, req(`/items/${query}`));
    return { status: 200, data: p.getPaginatedResponse(ids(page)!).data as never };
  } catch (e) {
    if (e instanceof APIException) return { status: e.status, data: e.body() as never };
    throw e;
  }
}
const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('2.1 no param: page 1', async () => {
  const r = await table('');
  assert.deepEqual(r.data, {
    count: 1000,
    next: 'http://testserver/items/?page=2',
    previous: null,
    results: range(1, 10),
  });
});

test('2.1 page=2: previous is the base URL without page', async () => {
  const r = await table('?page=2');
  assert.deepEqual(r.data, {
    count: 1000,
    next: 'http://testserver/items/?page=3',
    previous: 'http://testserver/items/',
    results: range(11, 20),
  });
});

test('2.1 page=last and page=100', async () => {
  for (const q of ['?page=last', '?page=100']) {
    const r = await table(q);
    assert.deepEqual(r.data, {
      count: 1000,
      next: null,
      previous: 'http://testserver/items/?page=99',
      results: range(991, 1000),
    });
  }
});

test('2.1 invalid pages: 404 Invalid page.', async () => {
  for (const q of [
    '?page=101',
    '?page=0',
    '?page=-1',
    '?page=abc',
    '?page=1.5',
    '?page=LAST',
    '?page=2.0',
    '?page=1e1',
    '?page=0x2',
    '?page=99999999999999999999999',
    '?page=%202%202',
  ]) {
    const r = await table(q);
    assert.equal(r.status, 404, q);
    assert.deepEqual(r.data, { detail: 'Invalid page.' }, q);
  }
});

test('2.1 page= (empty) is page 1 (main)', async () => {
  const r = await table('?page=');
  assert.equal(r.status, 200);
  assert.deepEqual(r.data.results, range(1, 10));
  assert.equal(r.data.next, 'http://testserver/items/?page=2');
});

test('2.1 page values parsed as Python int()', async () => {
  const cases: [string, number][] = [
    ['?page=%202', 2],
    ['?page=+2', 2],
    ['?page=%2B2', 2],
    ['?page=02', 2],
    ['?page=1_0', 10],
    ['?page=%D9%A2', 2],
    ['?page=%EF%BC%92', 2],
    ['?page=2&page=3', 3],
  ];
  for (const [q, n] of cases) {
    const r = await table(q);
    assert.equal(r.status, 200, q);
    assert.deepEqual(r.data.results, range((n - 1) * 10 + 1, n * 10), q);
  }
  // Links are numeric.
  assert.equal((await table('?page=1_0')).data.next, 'http://testserver/items/?page=11');
});

test('2.1 page_size clamped; invalid sizes fall back; links keep the raw value', async () => {
  const big = await table('?page_size=1000');
  assert.deepEqual(big.data.results, range(1, 100));
  assert.equal(big.data.next, 'http://testserver/items/?page=2&page_size=1000');
  for (const v of ['0', '-3', 'abc']) {
    const r = await table(`?page_size=${v}`);
    assert.deepEqual(r.data.results, range(1, 10), v);
    assert.equal(r.data.next, `http://testserver/items/?page=2&page_size=${v}`);
  }
});

// --- reference 1.2 link examples ---

test('1.2 link building: sorting, blanks, encoding, bare keys', async () => {
  const five = class extends TablePagination {};
  const p = new five();
  await p.paginateQueryset(thousand, req('/items/?page=2&zeta=1&alpha=&page_size=5'));
  assert.equal(p.getNextLink(), 'http://testserver/items/?alpha=&page=3&page_size=5&zeta=1');
  assert.equal(p.getPreviousLink(), 'http://testserver/items/?alpha=&page_size=5&zeta=1');
  await p.paginateQueryset(thousand, req('/items/?page=2&q=a%20b%2Fc'));
  assert.equal(p.getNextLink(), 'http://testserver/items/?page=3&q=a+b%2Fc');
  await p.paginateQueryset(thousand, req('/items/?page=2&x=%C3%A9%2A~%21'));
  assert.equal(p.getNextLink(), 'http://testserver/items/?page=3&x=%C3%A9%2A~%21');
  await p.paginateQueryset(thousand, req('/items/?page=2&x=%FF'));
  assert.equal(p.getNextLink(), 'http://testserver/items/?page=3&x=%EF%BF%BD');
  await p.paginateQueryset(thousand, req('/items/?a&page=2'));
  assert.equal(p.getNextLink(), 'http://testserver/items/?a=&page=3');
  assert.equal(p.getPreviousLink(), 'http://testserver/items/?a=');
  await p.paginateQueryset(thousand, req('/items/?page=2'));
  assert.equal(p.getPreviousLink(), 'http://testserver/items/');
});

test('links are absolute: https behind a trusted proxy, host with port', async () => {
  const p = new TablePagination();
  const request = new Request(
    {
      method: 'GET',
      target: '/items/?page=2',
      headers: [
        ['Host', 'api.example.com:8443'],
        ['X-Forwarded-Proto', 'https'],
      ],
      body: null,
      secure: false,
    },
    createSettings({ SECURE_PROXY_SSL_HEADER: ['X-Forwarded-Proto', 'https'] }),
  );
  await p.paginateQueryset(thousand, request);
  assert.equal(p.getNextLink(), 'https://api.example.com:8443/items/?page=3');
});

// --- page size from settings, disabled pagination, empty list ---

test('pageSize undefined falls back to PAGE_SIZE; null / no setting disables; a client size can enable', async () => {
  const p = new PageNumberPagination();
  assert.equal(await p.paginateQueryset(hundred, req('/')), null);
  assert.deepEqual(
    ids(await p.paginateQueryset(hundred, req('/', { PAGE_SIZE: 3, DEFAULT_PAGINATION_CLASS: PageNumberPagination }))),
    [1, 2, 3],
  );
  const off = new (class extends PageNumberPagination {
    override pageSize = null;
  })();
  assert.equal(
    await off.paginateQueryset(hundred, req('/', { PAGE_SIZE: 3, DEFAULT_PAGINATION_CLASS: PageNumberPagination })),
    null,
  );
  const clientOn = new (class extends PageNumberPagination {
    override pageSizeQueryParam = 'page_size';
  })();
  assert.equal(await clientOn.paginateQueryset(hundred, req('/')), null);
  assert.deepEqual(ids(await clientOn.paginateQueryset(hundred, req('/?page_size=2'))), [1, 2]);
  assert.equal(await clientOn.paginateQueryset(hundred, req('/?page_size=0')), null);
});

test('page 1 of an empty list: count 0, no links; page 2 is 404', async () => {
  const p = new FivePagination();
  assert.deepEqual(await p.paginateQueryset([], req('/')), []);
  assert.deepEqual(p.getPaginatedResponse([]).data, { count: 0, next: null, previous: null, results: [] });
  assert.equal(p.displayPageControls, false);
  assert.deepEqual(p.getHtmlContext().page_links, [link('/', 1, true)]);
  assert.deepEqual(await p.paginateQueryset([], req('/?page=last')), []);
  await assert.rejects(p.paginateQueryset([], req('/?page=2')), NotFound);
});

test('lastPageStrings, invalidPageMessage placeholders, pageQueryParam', async () => {
  const p = new (class extends FivePagination {
    override lastPageStrings = ['end', 'LAST'];
    override invalidPageMessage = 'Page {page_number}: {message}. {{literal}}';
    override pageQueryParam = 'p';
  })();
  assert.deepEqual(ids(await p.paginateQueryset(hundred, req('/?p=end'))), [96, 97, 98, 99, 100]);
  assert.deepEqual(ids(await p.paginateQueryset(hundred, req('/?p=LAST'))), [96, 97, 98, 99, 100]);
  assert.equal(p.getPreviousLink(), 'http://testserver/?p=19');
  const detail = async (q: string) => {
    try {
      await p.paginateQueryset(hundred, req(q));
      return null;
    } catch (e) {
      return (e as NotFound).detail;
    }
  };
  assert.equal(await detail('/?p=last'), 'Page last: That page number is not an integer. {literal}');
  assert.equal(await detail('/?p=0'), 'Page 0: That page number is less than 1. {literal}');
  assert.equal(await detail('/?p=21'), 'Page 21: That page contains no results. {literal}');
});

test('Paginator and Page (Django semantics)', async () => {
  const paginator = new Paginator(rows(1, 23), 5, { orphans: 3 });
  assert.equal(await paginator.count(), 23);
  assert.equal(await paginator.numPages(), 4);
  const last = await paginator.page(4);
  assert.ok(last instanceof Page);
  assert.deepEqual(ids(last.objectList), [16, 17, 18, 19, 20, 21, 22, 23]);
  assert.equal(last.startIndex(), 16);
  assert.equal(last.endIndex(), 23);
  assert.equal(last.hasNext(), false);
  assert.equal(last.hasPrevious(), true);
  assert.equal(last.previousPageNumber(), 3);
  assert.equal(await paginator.validateNumber('  3 '), 3);
  assert.equal(await paginator.validateNumber(2n), 2);
  await assert.rejects(paginator.validateNumber(1.5), PageNotAnInteger);
  await assert.rejects(
    paginator.validateNumber('x'),
    (e: unknown) => e instanceof PageNotAnInteger && e.message === 'That page number is not an integer',
  );
  await assert.rejects(
    paginator.validateNumber(0),
    (e: unknown) => e instanceof EmptyPage && e.message === 'That page number is less than 1',
  );
  await assert.rejects(
    paginator.validateNumber(5),
    (e: unknown) => e instanceof EmptyPage && e.message === 'That page contains no results',
  );
  const empty = new Paginator([], 5, { allowEmptyFirstPage: false });
  assert.equal(await empty.numPages(), 0);
  await assert.rejects(empty.page(1), EmptyPage);
  const first = await new Paginator([], 5).page(1);
  assert.equal(first.startIndex(), 0);
  assert.equal(first.endIndex(), 0);
});

test('state is per call and getters expose it', async () => {
  const p = new FivePagination();
  assert.equal(p.page, null);
  assert.throws(() => p.getNextLink(), /paginateQueryset/);
  const request = req('/?page=3');
  await p.paginateQueryset(hundred, request);
  assert.equal(p.request, request);
  const page = p.page as Page | null;
  assert.equal(page?.number, 3);
  assert.equal(page?.count, 100);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ArrayQueryset } from '../../../src/rest/data/array.js';
import { LimitOffsetPagination, PAGE_BREAK } from '../../../src/rest/pagination/index.js';
import { ARRAY_TARGETS, limitOffsetReferenceCases, link, range, req } from './cases.js';
import { LIMIT_PARAMETER, OFFSET_PARAMETER } from '../../support/schema-parameters.js';

interface Row {
  id: number;
}
const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ id: i + 1 }));
const ids = (page: Row[] | null): number[] | null => (page === null ? null : page.map((r) => r.id));

// --- reference 8.3: the shared case table (cases.ts), here on the in-memory sources ---

for (const target of ARRAY_TARGETS) limitOffsetReferenceCases(target);

test('8.3 schema of the paginated response (main: type arrays, examples of the given URL) and parameters', () => {
  const p = new LimitOffsetPagination();
  assert.equal(
    JSON.stringify(p.getPaginatedResponseSchema({ type: 'string' }, { url: 'http://testserver/items/' })),
    JSON.stringify({
      type: 'object',
      required: ['count', 'next', 'previous', 'results'],
      properties: {
        count: { type: 'integer', minimum: 0, examples: [123] },
        next: { type: ['string', 'null'], format: 'uri', examples: ['http://testserver/items/?limit=100&offset=400'] },
        previous: {
          type: ['string', 'null'],
          format: 'uri',
          examples: ['http://testserver/items/?limit=100&offset=200'],
        },
        results: { type: 'string' },
      },
    }),
  );
  const offset = OFFSET_PARAMETER;
  assert.deepEqual(p.getSchemaOperationParameters(null), [LIMIT_PARAMETER, offset]);
  // The limit's cap: the class's maxLimit, else MAX_LIMIT (not MAX_PAGE_SIZE).
  const settings = { MAX_PAGE_SIZE: 50, MAX_LIMIT: 70 };
  assert.deepEqual(p.getSchemaOperationParameters(null, settings)[0]?.schema, {
    type: 'integer',
    minimum: 1,
    maximum: 70,
  });
  p.maxLimit = 30;
  assert.deepEqual(p.getSchemaOperationParameters(null, settings)[0]?.schema, {
    type: 'integer',
    minimum: 1,
    maximum: 30,
  });
  assert.deepEqual(p.getSchemaErrors(), [], 'limit/offset answers every value (invalid ones fall back)');
});

// --- reference 3.1 table (1000 rows, default 10, max 100) ---

class TablePagination extends LimitOffsetPagination {
  override defaultLimit = 10;
  override maxLimit = 100;
}
const thousand = new ArrayQueryset(rows(1000));

async function table(query: string) {
  const p = new TablePagination();
  const page = ids(await p.paginateQueryset(thousand, req(`/items/${query}`)));
  return p.getPaginatedResponse(page!).data as {
    count: number;
    next: string | null;
    previous: string | null;
    results: number[];
  };
}

test('3.1 rows of the table', async () => {
  const u = (q: string) => `http://testserver/items/${q}`;
  assert.deepEqual(await table(''), {
    count: 1000,
    next: u('?limit=10&offset=10'),
    previous: null,
    results: range(1, 10),
  });
  assert.deepEqual(await table('?limit=5&offset=5'), {
    count: 1000,
    next: u('?limit=5&offset=10'),
    previous: u('?limit=5'),
    results: range(6, 10),
  });
  for (const l of ['0', '-1', 'abc']) {
    const r = await table(`?limit=${l}`);
    assert.deepEqual(r.results, range(1, 10), l);
    assert.equal(r.next, u(`?limit=10&offset=10`));
  }
  const clamped = await table('?limit=1000');
  assert.deepEqual(clamped.results, range(1, 100));
  assert.equal(clamped.next, u('?limit=100&offset=100'));
  for (const o of ['-5', 'abc']) {
    const r = await table(`?offset=${o}`);
    assert.deepEqual(r.results, range(1, 10));
    assert.equal(r.next, u('?limit=10&offset=10'));
    assert.equal(r.previous, null);
  }
  assert.deepEqual(await table('?offset=3'), {
    count: 1000,
    next: u('?limit=10&offset=13'),
    previous: u('?limit=10'),
    results: range(4, 13),
  });
  assert.deepEqual(await table('?offset=995'), {
    count: 1000,
    next: null,
    previous: u('?limit=10&offset=985'),
    results: range(996, 1000),
  });
  assert.deepEqual(await table('?offset=1000'), {
    count: 1000,
    next: null,
    previous: u('?limit=10&offset=990'),
    results: [],
  });
  assert.deepEqual(await table('?offset=5000'), {
    count: 1000,
    next: null,
    previous: u('?limit=10&offset=4990'),
    results: [],
  });
  const extra = await table('?offset=15&limit=10&x=1');
  assert.equal(extra.next, u('?limit=10&offset=25&x=1'));
  assert.equal(extra.previous, u('?limit=10&offset=5&x=1'));
  assert.deepEqual(extra.results, range(16, 25));
});

test('5.3 offset far past the end of a million rows (count from a strategy)', async () => {
  const p = new (class extends TablePagination {
    // eslint-disable-next-line @typescript-eslint/require-await -- a CountStrategy's count() returns a promise
    override countStrategy = { name: 'fixed', count: async () => 1_000_000 };
  })();
  assert.deepEqual(await p.paginateQueryset([], req('/items/?limit=10&offset=2000000')), []);
  assert.equal(p.getNextLink(), null);
  assert.equal(p.getPreviousLink(), 'http://testserver/items/?limit=10&offset=1999990');
  assert.deepEqual(p.getHtmlContext().page_links, [
    link('/items/?limit=10', 1),
    PAGE_BREAK,
    link('/items/?limit=10&offset=1999980', 99998),
    link('/items/?limit=10&offset=1999990', 99999),
    link('/items/?limit=10&offset=2000000', 100000, true),
  ]);
});

test('page links do not add limit when the request has none; controls only when count > limit', async () => {
  const p = new TablePagination();
  await p.paginateQueryset(thousand, req('/?offset=20'));
  assert.deepEqual(p.getHtmlContext().page_links!.slice(0, 4), [
    link('/', 1),
    link('/?offset=10', 2),
    link('/?offset=20', 3, true),
    link('/?offset=30', 4),
  ]);
  await p.paginateQueryset(new ArrayQueryset(rows(10)), req('/'));
  assert.equal(p.displayPageControls, false);
  assert.deepEqual(p.getHtmlContext().page_links, [link('/', 1, true)]);
  const noTemplate = new (class extends TablePagination {
    override template = null;
  })();
  await noTemplate.paginateQueryset(thousand, req('/'));
  assert.equal(noTemplate.displayPageControls, false);
  assert.equal(noTemplate.toHtml(), '');
});

test('empty list: count 0, empty results; getters', async () => {
  const p = new TablePagination();
  assert.deepEqual(await p.paginateQueryset([], req('/?offset=5')), []);
  assert.deepEqual(p.getPaginatedResponse([]).data, {
    count: 0,
    next: null,
    previous: 'http://testserver/?limit=10',
    results: [],
  });
  assert.equal(p.count, 0);
  assert.equal(p.limit, 10);
  assert.equal(p.offset, 5);
  assert.deepEqual(p.getHtmlContext().page_links, [link('/', 1, true)]);
});

test('custom parameter names', async () => {
  const p = new (class extends TablePagination {
    override limitQueryParam = 'n';
    override offsetQueryParam = 'skip';
  })();
  assert.deepEqual(ids(await p.paginateQueryset(thousand, req('/?n=3&skip=3'))), [4, 5, 6]);
  assert.equal(p.getNextLink(), 'http://testserver/?n=3&skip=6');
  assert.equal(p.getPreviousLink(), 'http://testserver/?n=3');
  assert.deepEqual(
    p.getSchemaOperationParameters().map((x) => x.name),
    ['n', 'skip'],
  );
});

test('an offset beyond any double (400 digits) keeps DRF exact integer links, never Infinity', async () => {
  const big = '9'.repeat(400);
  const p = new LimitOffsetPagination();
  p.defaultLimit = 10;
  assert.deepEqual(await p.paginateQueryset(rows(5), req(`/items/?offset=${big}`)), []);
  assert.equal(p.getNextLink(), null);
  assert.equal(p.getPreviousLink(), `http://testserver/items/?limit=10&offset=${BigInt(big) - 10n}`);
  const html = p.getHtmlContext();
  assert.ok(html.page_links?.every((l) => l.url === null || !l.url.includes('Infinity')));
  assert.doesNotMatch(JSON.stringify(html), /Infinity|NaN/);
});

/**
 * Pagination over real HTTP, on both transports (EventHttp and node:http).
 *
 * The integration tests of DRF's tests/test_pagination.py (reference 8.1)
 * ported one by one: a `ListAPIView` over the items 1..100 whose filter
 * backend keeps the 50 even ones (2..100), page size 5, page-size parameter
 * `page_size`, maximum 20. DRF's expected URLs are relative to
 * `http://testserver`; here they are relative to `http://127.0.0.1:PORT` and
 * compared exactly after that substitution. Then limit/offset, cursor
 * (with `OrderingFilter`), and the `Link` header style over HTTP.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RestApi } from '../../src/rest/api.js';
import { ListAPIView, type SerializerLike } from '../../src/rest/generics.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import type { Queryset } from '../../src/rest/data/source.js';
import { BaseFilterBackend, OrderingFilter } from '../../src/rest/filters.js';
import {
  CursorPagination,
  LimitOffsetPagination,
  LinkHeaderPagination,
  PageNumberPagination,
} from '../../src/rest/pagination/index.js';
import type { Request } from '../../src/rest/request.js';
import { JSONRenderer } from '../../src/rest/renderers.js';
import { path } from '../../src/rest/urls/patterns.js';
import { TRANSPORTS, serveApi, call, type Served } from '../support/rest.js';

interface Row {
  id: number;
  even: boolean;
  price: number;
}

/** DRF's PassThroughSerializer: an item is its id. */
class PassThrough {
  readonly data: unknown;
  constructor(instance: unknown, options: { many?: boolean } = {}) {
    this.data = options.many ? (instance as Row[]).map((r) => r.id) : (instance as Row).id;
  }
}
const passThrough: SerializerLike = PassThrough;

/** DRF's EvenItemsOnly. */
class EvenItemsOnly extends BaseFilterBackend {
  override filterQueryset<R extends object>(_request: Request, queryset: Queryset<R>): Queryset<R> {
    return queryset.filter('even', 'eq', true);
  }
}

// price = (7 i) mod 20 on 1..20 is a permutation of 0..19 (unique prices).
const rows100: Row[] = Array.from({ length: 100 }, (_, i) => ({
  id: i + 1,
  even: (i + 1) % 2 === 0,
  price: ((i + 1) * 7) % 20,
}));
const rows20 = rows100.slice(0, 20);
const items100 = new ArrayQueryset(rows100);
const items20 = new ArrayQueryset(rows20);

class BasicPagination extends PageNumberPagination {
  override pageSize = 5;
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 20;
}

class PaginatedList extends ListAPIView {
  override queryset = items100;
  override serializerClass = passThrough;
  override filterBackends = [EvenItemsOnly];
  override paginationClass = BasicPagination;
}

class UnpaginatedList extends ListAPIView {
  override queryset = items100;
  override serializerClass = passThrough;
  override paginationClass = null;
}

class LimitOffset extends LimitOffsetPagination {
  override defaultLimit = 10;
  override maxLimit = 15;
}

class LimitOffsetList extends ListAPIView {
  override queryset = items100;
  override serializerClass = passThrough;
  override filterBackends = [];
  override paginationClass = LimitOffset;
}

class ById extends CursorPagination {
  override pageSize = 5;
  override ordering = 'id';
}

class CursorList extends ListAPIView {
  override queryset = items20;
  override serializerClass = passThrough;
  override filterBackends = [OrderingFilter];
  override orderingFields = ['price', 'id'];
  override paginationClass = ById;
}

class Linked extends LinkHeaderPagination {
  override pageSize = 5;
}

class LinkedList extends ListAPIView {
  override queryset = items20;
  override serializerClass = passThrough;
  override filterBackends = [];
  override paginationClass = Linked;
}

class CountedLinkedList extends LinkedList {
  override paginationClass = class extends Linked {
    override totalCountHeader = 'X-Total-Count';
  };
}

function makeApi(): RestApi {
  return new RestApi({
    urlpatterns: [
      path('', PaginatedList.asView()),
      path('unpaginated/', UnpaginatedList.asView()),
      path('limit/', LimitOffsetList.asView()),
      path('cursor/', CursorList.asView()),
      path('linked/', LinkedList.asView()),
      path('counted/', CountedLinkedList.asView()),
    ],
    settings: { DEFAULT_RENDERER_CLASSES: [JSONRenderer] },
  });
}

const range = (from: number, to: number, step = 1): number[] => {
  const out: number[] = [];
  for (let i = from; i <= to; i += step) out.push(i);
  return out;
};

/** The token of a cursor (offset, reverse, position), as DRF writes it into a URL. */
function token(position: string | null, options: { offset?: number; reverse?: boolean } = {}): string {
  const parts: string[] = [];
  if (options.offset) parts.push(`o=${options.offset}`);
  if (options.reverse) parts.push('r=1');
  if (position !== null) parts.push(`p=${encodeURIComponent(position)}`);
  return encodeURIComponent(Buffer.from(parts.join('&'), 'ascii').toString('base64'));
}

interface Envelope {
  count?: number;
  next: string | null;
  previous: string | null;
  results: number[];
}

for (const transport of TRANSPORTS) {
  describe(`pagination over ${transport}`, () => {
    let s: Served;
    /** DRF's `http://testserver` URLs, here. */
    let u: (relative: string) => string;
    const get = async (target: string) => {
      const r = await call(s.origin + target);
      return { status: r.status, body: r.body as Envelope, headers: r.headers, text: r.text };
    };
    before(async () => {
      s = await serveApi(makeApi(), transport);
      u = (relative) => s.origin + relative;
    });
    after(async () => {
      await s.close();
    });

    // ---------------------------------------------------------- reference 8.1

    test('test_filtered_items_are_paginated', async () => {
      const r = await get('/?page=2');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { count: 50, next: u('/?page=3'), previous: u('/'), results: [12, 14, 16, 18, 20] });
      assert.equal(
        r.text,
        `{"count":50,"next":"${u('/?page=3')}","previous":"${u('/')}","results":[12,14,16,18,20]}`,
        'key order count, next, previous, results',
      );
    });

    test('test_setting_page_size', async () => {
      const r = await get('/?page_size=10');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 50,
        next: u('/?page=2&page_size=10'),
        previous: null,
        results: range(2, 20, 2),
      });
    });

    test('test_setting_page_size_over_maximum', async () => {
      const r = await get('/?page_size=1000');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 50,
        next: u('/?page=2&page_size=1000'),
        previous: null,
        results: range(2, 40, 2),
      });
    });

    test('test_setting_page_size_to_zero', async () => {
      const r = await get('/?page_size=0');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 50,
        next: u('/?page=2&page_size=0'),
        previous: null,
        results: [2, 4, 6, 8, 10],
      });
    });

    test('test_additional_query_params_are_preserved', async () => {
      const r = await get('/?page=2&filter=even');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 50,
        next: u('/?filter=even&page=3'),
        previous: u('/?filter=even'),
        results: [12, 14, 16, 18, 20],
      });
    });

    test('test_empty_query_params_are_preserved', async () => {
      const r = await get('/?page=2&filter=');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 50,
        next: u('/?filter=&page=3'),
        previous: u('/?filter='),
        results: [12, 14, 16, 18, 20],
      });
    });

    test('test_404_not_found_for_zero_page', async () => {
      const r = await get('/?page=0');
      assert.equal(r.status, 404);
      assert.equal(r.text, '{"detail":"Invalid page."}');
    });

    test('test_404_not_found_for_invalid_page', async () => {
      const r = await get('/?page=invalid');
      assert.equal(r.status, 404);
      assert.equal(r.text, '{"detail":"Invalid page."}');
    });

    test('test_unpaginated_list (paginationClass = null)', async () => {
      const r = await call(`${s.origin}/unpaginated/?page=2`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, range(1, 100));
    });

    test('last page and page past the end', async () => {
      const last = await get('/?page=last');
      assert.deepEqual(last.body, { count: 50, next: null, previous: u('/?page=9'), results: [92, 94, 96, 98, 100] });
      const past = await get('/?page=11');
      assert.equal(past.status, 404);
      assert.deepEqual(past.body, { detail: 'Invalid page.' });
    });

    // ------------------------------------------------------------ limit/offset

    test('limit/offset: no offset', async () => {
      const r = await get('/limit/?limit=5');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        count: 100,
        next: u('/limit/?limit=5&offset=5'),
        previous: null,
        results: [1, 2, 3, 4, 5],
      });
    });

    test('limit/offset: single offset, previous drops the offset', async () => {
      const r = await get('/limit/?limit=5&offset=1');
      assert.deepEqual(r.body, {
        count: 100,
        next: u('/limit/?limit=5&offset=6'),
        previous: u('/limit/?limit=5'),
        results: [2, 3, 4, 5, 6],
      });
    });

    test('limit/offset: default limit written into the links', async () => {
      const r = await get('/limit/?offset=10');
      assert.deepEqual(r.body, {
        count: 100,
        next: u('/limit/?limit=10&offset=20'),
        previous: u('/limit/?limit=10'),
        results: range(11, 20),
      });
    });

    test('limit/offset: limit clamped to max_limit', async () => {
      const r = await get('/limit/?limit=11235&offset=50');
      assert.deepEqual(r.body, {
        count: 100,
        next: u('/limit/?limit=15&offset=65'),
        previous: u('/limit/?limit=15&offset=35'),
        results: range(51, 65),
      });
    });

    test('limit/offset: ending offset and invalid values (no errors in this style)', async () => {
      const end = await get('/limit/?limit=5&offset=95');
      assert.deepEqual(end.body, {
        count: 100,
        next: null,
        previous: u('/limit/?limit=5&offset=90'),
        results: [96, 97, 98, 99, 100],
      });
      const bad = await get('/limit/?limit=invalid&offset=invalid');
      assert.equal(bad.status, 200);
      assert.deepEqual(bad.body, {
        count: 100,
        next: u('/limit/?limit=10&offset=10'),
        previous: null,
        results: range(1, 10),
      });
      const beyond = await get('/limit/?limit=5&offset=1000');
      assert.deepEqual(beyond.body, { count: 100, next: null, previous: u('/limit/?limit=5&offset=995'), results: [] });
    });

    // ------------------------------------------------------------------ cursor

    test('cursor: first page, forward and back, exact tokens', async () => {
      const first = await get('/cursor/');
      assert.equal(first.status, 200);
      assert.equal(token('5'), 'cD01');
      assert.deepEqual(first.body, { next: u('/cursor/?cursor=cD01'), previous: null, results: [1, 2, 3, 4, 5] });
      assert.equal(first.text.startsWith('{"next":'), true, 'no count in a cursor page');

      const second = await get('/cursor/?cursor=cD01');
      assert.equal(token('10'), 'cD0xMA%3D%3D');
      assert.equal(token('6', { reverse: true }), 'cj0xJnA9Ng%3D%3D');
      assert.deepEqual(second.body, {
        next: u('/cursor/?cursor=cD0xMA%3D%3D'),
        previous: u('/cursor/?cursor=cj0xJnA9Ng%3D%3D'),
        results: [6, 7, 8, 9, 10],
      });

      const back = await get('/cursor/?cursor=cj0xJnA9Ng%3D%3D');
      assert.deepEqual(back.body, {
        next: u(`/cursor/?cursor=${token('5')}`),
        previous: null,
        results: [1, 2, 3, 4, 5],
      });

      const last = await get(`/cursor/?cursor=${token('15')}`);
      assert.deepEqual(last.body, {
        next: null,
        previous: u(`/cursor/?cursor=${token('16', { reverse: true })}`),
        results: [16, 17, 18, 19, 20],
      });
    });

    test('cursor: invalid cursors are 404 {"detail": "Invalid cursor"}', async () => {
      for (const bad of [
        '123',
        token(null, { offset: -1 }),
        encodeURIComponent(Buffer.from('r=abc').toString('base64')),
        '%E2%82%AC',
      ]) {
        const r = await get(`/cursor/?cursor=${bad}`);
        assert.equal(r.status, 404, bad);
        assert.equal(r.text, '{"detail":"Invalid cursor"}', bad);
      }
    });

    test('cursor + OrderingFilter: ?ordering=price orders by price and the tokens carry prices', async () => {
      const byPrice = [...rows20].sort((a, b) => a.price - b.price).map((r) => r.id);
      assert.deepEqual(byPrice.slice(0, 5), [20, 3, 6, 9, 12]);
      const first = await get('/cursor/?ordering=price');
      assert.equal(token('4'), 'cD00');
      assert.deepEqual(first.body, {
        next: u('/cursor/?cursor=cD00&ordering=price'),
        previous: null,
        results: byPrice.slice(0, 5),
      });
      const second = await get('/cursor/?cursor=cD00&ordering=price');
      assert.deepEqual(second.body, {
        next: u(`/cursor/?cursor=${token('9')}&ordering=price`),
        previous: u(`/cursor/?cursor=${token('5', { reverse: true })}&ordering=price`),
        results: byPrice.slice(5, 10),
      });
      const back = await get(`/cursor/?cursor=${token('5', { reverse: true })}&ordering=price`);
      assert.deepEqual(back.body.results, byPrice.slice(0, 5));
      assert.equal(back.body.previous, null);

      const desc = await get('/cursor/?ordering=-price');
      assert.deepEqual(desc.body, {
        next: u(`/cursor/?cursor=${token('15')}&ordering=-price`),
        previous: null,
        results: [17, 14, 11, 8, 5],
      });
      const desc2 = await get(`/cursor/?cursor=${token('15')}&ordering=-price`);
      assert.deepEqual(desc2.body.results, [2, 19, 16, 13, 10], 'prices 14..10 after 15, descending');

      const ignored = await get('/cursor/?ordering=bogus');
      assert.deepEqual(
        ignored.body,
        { next: u('/cursor/?cursor=cD01&ordering=bogus'), previous: null, results: [1, 2, 3, 4, 5] },
        'an unknown field keeps the paginator ordering',
      );
    });

    // --------------------------------------------------------------- Link header

    test('LinkHeaderPagination: the Link header, bare body', async () => {
      const mid = await call(`${s.origin}/linked/?page=2`);
      assert.equal(mid.status, 200);
      const firstLast = `<${u('/linked/')}>; rel="first", <${u('/linked/?page=4')}>; rel="last"`;
      assert.equal(
        mid.headers.get('link'),
        `<${u('/linked/?page=3')}>; rel="next", <${u('/linked/')}>; rel="prev", ${firstLast}`,
      );
      assert.deepEqual(mid.body, [6, 7, 8, 9, 10]);
      const first = await call(`${s.origin}/linked/`);
      assert.equal(first.headers.get('link'), `<${u('/linked/?page=2')}>; rel="next", ${firstLast}`);
      const last = await call(`${s.origin}/linked/?page=last`);
      assert.equal(last.headers.get('link'), `<${u('/linked/?page=3')}>; rel="prev", ${firstLast}`);
      assert.deepEqual(last.body, [16, 17, 18, 19, 20]);
      const counted = await call(`${s.origin}/counted/?page=2`);
      assert.equal(counted.headers.get('x-total-count'), '20');
      assert.match(counted.headers.get('link') ?? '', /rel="last"$/);
      assert.equal(mid.headers.get('x-total-count'), null, 'only when asked for');
      const bad = await call(`${s.origin}/linked/?page=9`);
      assert.equal(bad.status, 404);
      assert.equal(bad.headers.get('link'), null);
    });
  });
}

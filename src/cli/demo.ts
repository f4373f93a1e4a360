/**
 * The demo catalog API that `npm start` serves: the demo `item` table
 * through every pagination style and every versioning scheme.
 *
 * @module
 */
import type { Queryset } from '../rest/data/source.js';
import type { Item } from './demo-data.js';
import { RestApi, type AccessLogEntry } from '../rest/api.js';
import type { HttpLogger } from '../http/log.js';
import type { CompressionSettings, CorsSettings } from '../rest/contracts.js';
import { OrderingFilter } from '../rest/filters.js';
import { ListAPIView, RetrieveAPIView } from '../rest/generics.js';
import { openApiView, type OpenApiOptions } from '../rest/openapi.js';
import { apiReferenceView } from '../rest/docs.js';
import { CursorPagination } from '../rest/pagination/cursor.js';
import { KeysetPagination } from '../rest/pagination/keyset.js';
import { RelayConnectionPagination } from '../rest/pagination/relay.js';
import { LimitOffsetPagination } from '../rest/pagination/limit-offset.js';
import { PageNumberPagination } from '../rest/pagination/page-number.js';
import { LinkHeaderPagination } from '../rest/pagination/styles.js';
import { cachedCount, type CountStore } from '../rest/pagination/count.js';
import type { Request } from '../rest/request.js';
import { Response } from '../rest/response.js';
import { reverse } from '../rest/reverse.js';
import { CharField, DateTimeField, IntegerField } from '../rest/fields.js';
import { HyperlinkedIdentityField } from '../rest/relations.js';
import { Serializer, type SerializerClass } from '../rest/serializers.js';
import { include, path, type UrlPattern } from '../rest/urls/patterns.js';
import {
  AcceptHeaderVersioning,
  HeaderVersioning,
  HostNameVersioning,
  NamespaceVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
} from '../rest/versioning.js';
import { APIView } from '../rest/views.js';
import type { JsonSchema } from '../rest/contracts.js';
import type { VersioningClass } from '../rest/settings.js';

/**
 * An item as the list endpoints render it.
 * @example
 * ```ts
 * import { demoItem } from './demo-data.js';
 * const row = demoItem(1);
 * new ItemSerializer(row).data; // { id: 1, name: 'item-0000001', created: '2020-01-01T00:00:01.037000Z', price: 419, category: 'beta' }
 * ```
 */
export class ItemSerializer extends Serializer<Item> {
  static override fields = {
    id: new IntegerField({ readOnly: true }),
    name: new CharField(),
    created: new DateTimeField({ readOnly: true }),
    price: new IntegerField(),
    category: new CharField(),
  };
}

/**
 * Version 1 of the versioned items endpoint: a link, the id, name and price.
 * @example
 * ```ts
 * import { demoItem } from './demo-data.js';
 * const row = demoItem(1);
 * new ItemSerializerV1(row, { context: { request } }).data; // { url, id, name, price }
 * ```
 */
export class ItemSerializerV1 extends Serializer<Item> {
  static override fields = {
    url: new HyperlinkedIdentityField({ viewName: 'versioned-item-detail' }),
    id: new IntegerField({ readOnly: true }),
    name: new CharField(),
    price: new IntegerField(),
  };
}

/**
 * Version 2: everything of v1 plus `created` and `category`.
 * @example
 * ```ts
 * import { demoItem } from './demo-data.js';
 * const row = demoItem(1);
 * new ItemSerializerV2(row, { context: { request } }).data; // { url, id, name, created, price, category }
 * ```
 */
export class ItemSerializerV2 extends Serializer<Item> {
  static override fields = {
    url: ItemSerializerV1.fields.url,
    id: ItemSerializerV1.fields.id,
    name: ItemSerializerV1.fields.name,
    created: new DateTimeField({ readOnly: true }),
    price: ItemSerializerV1.fields.price,
    category: new CharField(),
  };
}

class PagePagination extends PageNumberPagination {
  override pageSize = 10;
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 100;
}

class LimitPagination extends LimitOffsetPagination {
  override defaultLimit = 10;
  override maxLimit = 100;
}

/** Page numbers without counting the table: one extra row tells whether there is a next page. */
class UncountedPagePagination extends PageNumberPagination {
  override pageSize = 10;
  override includeCount = false;
}

/** Relay connections (first/after, last/before, edges and pageInfo) over keyset cursors on price. */
class RelayPricePagination extends RelayConnectionPagination {
  override pageSize = 10;
  override ordering = 'price';
}

/** Keyset cursors on a non-unique field: the primary key breaks ties, and walks never repeat or skip a row. */
class KeysetPricePagination extends KeysetPagination {
  override pageSize = 10;
  override ordering = 'price';
  override pageSizeQueryParam = 'page_size';
}

class CreatedCursor extends CursorPagination {
  override pageSize = 10;
  override ordering = '-created';
}

class PriceCursor extends CursorPagination {
  override pageSize = 10;
  override ordering: readonly string[] = ['price', 'id'];
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 100;
}

class OrderableCursor extends CursorPagination {
  override pageSize = 10;
  override ordering = '-created';
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 100;
}

class LinkPagination extends LinkHeaderPagination {
  override pageSize = 10;
  override pageSizeQueryParam = 'page_size';
  override maxPageSize = 100;
}

/** The list endpoints the root links to: its key, and the route name. */
const ENDPOINTS: readonly (readonly [string, string])[] = [
  ['page', 'page-items'],
  ['limit', 'limit-items'],
  ['cursor', 'cursor-items'],
  ['cursor-price', 'cursor-price-items'],
  ['cursor-ordering', 'cursor-ordering-items'],
  ['cursor-keyset', 'cursor-keyset-items'],
  ['cursor-relay', 'cursor-relay-items'],
  ['page-nocount', 'page-nocount-items'],
  ['link', 'link-items'],
];

/** The root's keys of the list endpoints. */
const DEMO_LIST_KEYS: readonly string[] = ENDPOINTS.map(([key]) => key);

/** A URI (an absolute URL the API built). */
const URI: JsonSchema = { type: 'string', format: 'uri' };

/** The body of the version endpoints: the version the scheme read, and the endpoint's own URL. */
const VERSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['version', 'url'],
  properties: {
    // Every scheme refuses a version outside ALLOWED_VERSIONS, and DEFAULT_VERSION is v1: never null here.
    version: { type: 'string', enum: ['v1', 'v2'], description: 'The version of the request.' },
    url: { ...URI, description: "This endpoint's URL, as reverse() builds it for the request." },
  },
};

/** An object of links, by name. */
const links = (names: readonly string[], description: string): JsonSchema => ({
  type: 'object',
  description,
  required: [...names],
  properties: Object.fromEntries(names.map((n) => [n, URI])),
});

/** The body of the API root: a link to every endpoint. */
const ROOT_SCHEMA: JsonSchema = {
  type: 'object',
  required: [...DEMO_LIST_KEYS, 'versioned', 'version', 'openapi', 'docs'],
  properties: {
    ...Object.fromEntries(DEMO_LIST_KEYS.map((k) => [k, { ...URI, description: `The items list of /${k}/items/.` }])),
    versioned: links(['v1', 'v2'], 'The URL-path versioned items list, by version.'),
    version: links(
      ['accept', 'urlpath', 'namespace', 'host', 'query', 'header'],
      'The version endpoint of each versioning scheme.',
    ),
    openapi: links(['v1', 'v2'], 'The OpenAPI document of each version.'),
    docs: { ...URI, description: 'The API reference page.' },
  },
};

/**
 * The options of {@link buildDemoApi}.
 * @example
 * ```ts
 * const options: DemoApiOptions = { allowedHosts: ['localhost', '127.0.0.1', '.example.com'] };
 * ```
 */
export interface DemoApiOptions {
  /** Called after each response (the access log). */
  onResponse?: (entry: AccessLogEntry) => void;
  /**
   * `ALLOWED_HOSTS`: the host names accepted in `Host` (`'*'` any,
   * `.example.com` a domain and its subdomains); a request naming another
   * host gets 400 wherever its host is used (absolute URLs). Absent or null:
   * no check (any host goes into the URLs the API builds).
   */
  allowedHosts?: readonly string[] | null;
  /** Where the API logs (pino-compatible; default: stderr). */
  logger?: HttpLogger;
  /** The request-id header (`X-Request-Id`), see `RestApiOptions.requestIdHeader`; default: no request ids. */
  requestIdHeader?: string | null;
  /** Where the cached counts live (a Redis store shared by processes and hosts); default: in this process. */
  countStore?: CountStore;
  /** Behind a trusted proxy: links from `X-Forwarded-Host`, https from `X-Forwarded-Proto` (default false). */
  trustProxy?: boolean;
  /** The `COMPRESSION` setting (docs/production.md); default null: no compression. */
  compression?: CompressionSettings | null;
  /** The `CORS` setting (docs/production.md); default null: no CORS headers. */
  cors?: CorsSettings | null;
}

/**
 * Builds the demo API over a queryset of items.
 * @example
 * ```ts
 * import { openDemoDatabase } from './demo-data.js';
 * const demo = await openDemoDatabase('demo.sqlite3', { rows: 100_000 });
 * const api = buildDemoApi(demo.items(), { allowedHosts: ['localhost', '127.0.0.1', '[::1]', '.example.com'] });
 * api.serve(http);
 * ```
 */
export function buildDemoApi(items: Queryset<Item>, options: DemoApiOptions = {}): RestApi {
  const byId = items.orderBy('id');
  /** One count cache per API for the page-number and limit/offset lists (counts reused for 5 s). */
  const itemCount = cachedCount({ ttl: 5_000, ...(options.countStore ? { store: options.countStore } : {}) });
  class CountedPages extends PagePagination {
    override countStrategy = itemCount;
  }
  class CountedLimits extends LimitPagination {
    override countStrategy = itemCount;
  }

  class PageItems extends ListAPIView {
    override description = 'Page-number pagination, ordered by id: ?page=N, ?page=last, ?page_size=N (at most 100).';
    override queryset = byId;
    override serializerClass = ItemSerializer;
    override paginationClass = CountedPages;
  }
  class LimitItems extends ListAPIView {
    override description = 'Limit/offset pagination, ordered by id: ?limit=N (at most 100) and ?offset=N.';
    override queryset = byId;
    override serializerClass = ItemSerializer;
    override paginationClass = CountedLimits;
  }
  class CursorItems extends ListAPIView {
    override description = 'Cursor pagination, newest first (-created).';
    override queryset = items;
    override serializerClass = ItemSerializer;
    override paginationClass = CreatedCursor;
  }
  class CursorPriceItems extends ListAPIView {
    override description = 'Cursor pagination on a non-unique field: ordering price, id; ?page_size=N (at most 100).';
    override queryset = items;
    override serializerClass = ItemSerializer;
    override paginationClass = PriceCursor;
  }
  class CursorOrderingItems extends ListAPIView {
    override description =
      'Cursor pagination with ?ordering= on created, price or id (a leading - reverses); ?page_size=N (at most 100).';
    override queryset = items;
    override serializerClass = ItemSerializer;
    override paginationClass = OrderableCursor;
    override filterBackends = [OrderingFilter];
    override orderingFields = ['created', 'price', 'id'];
    override ordering = '-created';
  }
  class CursorKeysetItems extends ListAPIView {
    override description =
      'Keyset cursor pagination on price (not unique: id breaks ties); pages never repeat or skip a row; ?page_size=N (at most 100).';
    override queryset = items;
    override serializerClass = ItemSerializer;
    override paginationClass = KeysetPricePagination;
  }
  class CursorRelayItems extends ListAPIView {
    override description =
      'A Relay connection on price (id breaks ties): ?first=N&after=<cursor> forward, ?last=N&before=<cursor> backward (N at most 100); edges with a cursor per item, and pageInfo.';
    override queryset = items;
    override serializerClass = ItemSerializer;
    override paginationClass = RelayPricePagination;
  }
  class PageNocountItems extends ListAPIView {
    override description =
      'Page-number pagination without a count, ordered by id: no count query, no last page; one extra row tells whether a next page exists.';
    override queryset = byId;
    override serializerClass = ItemSerializer;
    override paginationClass = UncountedPagePagination;
  }
  class LinkItems extends ListAPIView {
    override description = 'Page-number pagination with the links in a Link header; the body is the bare page.';
    override queryset = byId;
    override serializerClass = ItemSerializer;
    override paginationClass = LinkPagination;
  }
  class VersionedItems extends ListAPIView {
    override description =
      'Items whose shape depends on the version in the URL path: v1 has url, id, name, price; v2 adds created and category.';
    override queryset = byId;
    override serializerClass = ItemSerializerV2;
    override paginationClass = CountedPages;
    override versioningClass = URLPathVersioning;
    override getSerializerClass(): SerializerClass<Item> {
      return this.request.version === 'v1' ? ItemSerializerV1 : ItemSerializerV2;
    }
  }
  class VersionedItem extends RetrieveAPIView {
    override description = 'One item by its id, in the shape of the version in the URL path (as the list).';
    override queryset = items;
    override serializerClass = ItemSerializerV2;
    override versioningClass = URLPathVersioning;
    override getSerializerClass(): SerializerClass<Item> {
      return this.request.version === 'v1' ? ItemSerializerV1 : ItemSerializerV2;
    }
  }

  /** `{"version": ..., "url": <its own URL through reverse()>}` under a given scheme. */
  function versionView(scheme: VersioningClass, name: string): ReturnType<typeof APIView.asView> {
    class VersionView extends APIView {
      override description = `The API version as ${scheme.name} reads it, and this endpoint's own URL through reverse().`;
      override versioningClass = scheme;
      override openapi = { responseSchema: VERSION_SCHEMA };
      override get(request: Request): Response {
        return new Response({
          version: request.version,
          url: reverse(request.resolverMatch?.urlName ?? name, { request }),
        });
      }
    }
    Object.defineProperty(VersionView, 'name', { value: `${scheme.name.replace(/Versioning$/, '')}Version` });
    return VersionView.asView();
  }

  const namespaceVersion = (): UrlPattern[] => [
    path('version/', versionView(NamespaceVersioning, 'namespace-version'), { name: 'namespace-version' }),
  ];

  class Root extends APIView {
    override description =
      'The eventide demo catalog: the same items through every pagination style, and every versioning scheme.';
    override versioningClass = null;
    override openapi = { responseSchema: ROOT_SCHEMA };
    override get(request: Request): Response {
      const link = (name: string, kwargs?: Record<string, unknown>): string =>
        reverse(name, { request, kwargs: kwargs ?? null });
      const body: Record<string, unknown> = {};
      for (const [key, name] of ENDPOINTS) body[key] = link(name);
      body.versioned = {
        v1: link('versioned-item-list', { version: 'v1' }),
        v2: link('versioned-item-list', { version: 'v2' }),
      };
      body.version = {
        accept: link('accept-version'),
        urlpath: link('urlpath-version', { version: 'v1' }),
        namespace: link('namespace-version'),
        host: link('host-version'),
        query: link('query-version'),
        header: link('header-version'),
      };
      body.openapi = { v1: link('openapi-v1'), v2: link('openapi-v2') };
      body.docs = link('api-docs');
      return new Response(body);
    }
  }

  /** What both documents say of the API besides its routes. */
  const openapi: OpenApiOptions = {
    title: 'eventide demo catalog',
    description:
      'The eventide demo catalog: the same items through every pagination style, and every versioning scheme.',
    license: { name: 'MIT', identifier: 'MIT' },
    contact: { name: 'The eventide contributors' },
  };
  const referenceView = apiReferenceView({
    title: 'eventide demo catalog',
    versions: { v1: '/openapi/v1.json', v2: '/openapi/v2.json' },
  });
  const urlpatterns: UrlPattern[] = [
    path('', Root.asView(), { name: 'api-root' }),
    path('page/items/', PageItems.asView(), { name: 'page-items' }),
    path('limit/items/', LimitItems.asView(), { name: 'limit-items' }),
    path('cursor/items/', CursorItems.asView(), { name: 'cursor-items' }),
    path('cursor-price/items/', CursorPriceItems.asView(), { name: 'cursor-price-items' }),
    path('cursor-ordering/items/', CursorOrderingItems.asView(), { name: 'cursor-ordering-items' }),
    path('cursor-keyset/items/', CursorKeysetItems.asView(), { name: 'cursor-keyset-items' }),
    path('cursor-relay/items/', CursorRelayItems.asView(), { name: 'cursor-relay-items' }),
    path('page-nocount/items/', PageNocountItems.asView(), { name: 'page-nocount-items' }),
    path('link/items/', LinkItems.asView(), { name: 'link-items' }),
    path('versioned/<str:version>/items/', VersionedItems.asView(), { name: 'versioned-item-list' }),
    path('versioned/<str:version>/items/<int:pk>/', VersionedItem.asView(), { name: 'versioned-item-detail' }),
    path('accept/version/', versionView(AcceptHeaderVersioning, 'accept-version'), { name: 'accept-version' }),
    path('urlpath/<str:version>/version/', versionView(URLPathVersioning, 'urlpath-version'), {
      name: 'urlpath-version',
    }),
    path('urlpath/version/', versionView(URLPathVersioning, 'urlpath-version'), { name: 'urlpath-version' }),
    path('namespace/v1/', include(namespaceVersion(), { namespace: 'v1' })),
    path('namespace/v2/', include(namespaceVersion(), { namespace: 'v2' })),
    path('namespace/v3/', include(namespaceVersion(), { namespace: 'v3' })),
    path('namespace/legacy/', include(namespaceVersion(), { namespace: 'legacy' })),
    path(
      'namespace/api/',
      include([path('v2/', include(namespaceVersion(), { namespace: 'v2' }))], { namespace: 'api' }),
    ),
    path('namespace/', include(namespaceVersion())),
    path('host/version/', versionView(HostNameVersioning, 'host-version'), { name: 'host-version' }),
    path('query/version/', versionView(QueryParameterVersioning, 'query-version'), { name: 'query-version' }),
    path('header/version/', versionView(HeaderVersioning, 'header-version'), { name: 'header-version' }),
    path('openapi/v1.json', openApiView({ ...openapi, version: 'v1' }), { name: 'openapi-v1' }),
    path('openapi/v2.json', openApiView({ ...openapi, version: 'v2' }), { name: 'openapi-v2' }),
    // The API reference (Swagger UI, served by the API itself): /docs/ is v1, /docs/v2/ v2.
    path('docs/', referenceView, { name: 'api-docs' }),
    path('docs/<path:page>', referenceView),
  ];

  return new RestApi({
    urlpatterns,
    settings: {
      ALLOWED_VERSIONS: ['v1', 'v2'],
      DEFAULT_VERSION: 'v1',
      // A safe cap on every client-chosen page size and limit (each demo class also sets its own).
      MAX_PAGE_SIZE: 100,
      MAX_LIMIT: 100,
      ALLOWED_HOSTS: options.allowedHosts != null ? [...options.allowedHosts] : null,
      ...(options.trustProxy === true
        ? { USE_X_FORWARDED_HOST: true, SECURE_PROXY_SSL_HEADER: ['X-Forwarded-Proto', 'https'] as [string, string] }
        : {}),
      COMPRESSION: options.compression ?? null,
      CORS: options.cors ?? null,
    },
    ...(options.onResponse ? { onResponse: options.onResponse } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    requestIdHeader: options.requestIdHeader ?? null,
  });
}

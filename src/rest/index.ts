/**
 * The web-API layer: settings, requests and responses, URL confs with
 * `reverse()`, class-based and generic views, viewsets and routers, content
 * negotiation and renderers (JSON, browsable HTML), serializers, the five
 * versioning schemes, pagination (page number, limit/offset, cursor, custom
 * styles), filters, the in-memory data source (SQL sources are `eventide/sql`),
 * OpenAPI documents and an interactive API reference page, served on
 * `EventHttp` or `node:http`.
 *
 * @example
 * ```ts
 * import { RestApi, ListAPIView, PageNumberPagination, Serializer, IntegerField, CharField, path } from 'eventide/rest';
 *
 * class ItemSerializer extends Serializer {
 *   static override fields = { id: new IntegerField({ readOnly: true }), name: new CharField() };
 * }
 * class ItemList extends ListAPIView {
 *   override queryset = [{ id: 1, name: 'one' }, { id: 2, name: 'two' }];
 *   override serializerClass = ItemSerializer;
 *   override paginationClass = PageNumberPagination;
 * }
 * const api = new RestApi({ urlpatterns: [path('items/', ItemList.asView(), { name: 'item-list' })], settings: { PAGE_SIZE: 10, DEFAULT_PAGINATION_CLASS: PageNumberPagination } });
 * ```
 * @module
 */
export { RestApi, type RestApiOptions, type AccessLogEntry } from './api.js';
export type { ServeAppContext, ServeAppModule } from './app-module.js';
export type { InjectOptions, InjectResponse } from './inject.js';
export { createSettings, checkSettings, type SettingsInput, type SettingsWarning } from './settings.js';
export {
  compressResponse,
  isCompressibleType,
  negotiateEncoding,
  COMPRESSION_DEFAULTS,
  type CompressionSettings,
  type ContentCoding,
} from './compression.js';
export { CorsPolicy, CORS_DEFAULTS, type CorsSettings } from './cors.js';
export type {
  Settings,
  PaginationClass,
  VersioningClass,
  VersionLifecycle,
  ApiRequest,
  HeaderLookup,
  QueryLookup,
  RawRequest,
  ApiResponse,
  RenderContext,
  Renderer,
  RendererClass,
  ViewFunction,
  ResolverMatch,
  RouteInfo,
  ReverseArgs,
  ReverseOptions,
  FilterBackendClass,
  PaginatedView,
  SchemaParameter,
  SchemaError,
  SchemaSettings,
  ViewSchema,
  JsonSchema,
} from './contracts.js';
export {
  REST_ERROR_CODES,
  RestError,
  APIException,
  ParseError,
  ValidationError,
  DisallowedHost,
  NotFound,
  MethodNotAllowed,
  NotAcceptable,
  UnsupportedMediaType,
  RequestTooLarge,
  Gone,
  ImproperlyConfigured,
  NoReverseMatch,
  ConfigurationError,
  InjectError,
  type RestErrorCode,
  type RestErrorOptions,
  type ErrorDetail,
} from './errors.js';
export { replaceQueryParam, removeQueryParam } from './query.js';
export { Request } from './request.js';
export { Response, type RenderedResponse } from './response.js';
export { MediaType, parseAccept } from './mediatypes.js';
export { JSONRenderer, BrowsableAPIRenderer, selectRenderer } from './renderers.js';
export { renderBrowsablePage } from './browsable.js';
export {
  APIView,
  apiView,
  exceptionHandler,
  HTTP_METHOD_NAMES,
  type HttpMethodName,
  type Handler,
  type ViewAttributes,
} from './views.js';
export {
  GenericAPIView,
  ListAPIView,
  RetrieveAPIView,
  ListModelMixin,
  type SerializerLike,
  type GenericViewConstructor,
} from './generics.js';
export { GenericViewSet, ReadOnlyModelViewSet, type ActionMap } from './viewsets.js';
export { SimpleRouter, DefaultRouter } from './routers.js';
export { type PathConverter } from './urls/converters.js';
export {
  path,
  rePath,
  withConverters,
  include,
  URLPattern,
  URLIncludePattern,
  Include,
  type URLEntry,
  type UrlPattern,
  type RouteOptions,
} from './urls/patterns.js';
export { URLResolver } from './urls/resolver.js';
export { formatSuffixPatterns } from './urls/format-suffix.js';
export { reverse, reverseLazy } from './reverse.js';
export {
  BaseVersioning,
  AcceptHeaderVersioning,
  URLPathVersioning,
  NamespaceVersioning,
  HostNameVersioning,
  QueryParameterVersioning,
  HeaderVersioning,
} from './versioning.js';
export {
  Field,
  ReadOnlyField,
  CharField,
  IntegerField,
  FloatField,
  BooleanField,
  DateTimeField,
  SerializerMethodField,
  type SerializerContext,
  type FieldParent,
  type FieldCall,
  type FieldOptions,
  type CharFieldOptions,
  type IntegerFieldOptions,
  type FieldTypes,
  type FieldInput,
  type FieldOutput,
  type IsReadOnlyField,
  type IsWriteOnlyField,
  type IsOptionalField,
} from './fields.js';
export {
  HyperlinkedRelatedField,
  HyperlinkedIdentityField,
  type HyperlinkOptions,
  type HyperlinkedRelatedFieldOptions,
} from './relations.js';
export {
  Serializer,
  serializer,
  type SerializerOptions,
  type SerializerClass,
  type SerializedObject,
  type DefinedSerializerClass,
  type InferOutput,
  type InferInput,
  type OutputOfFields,
  type InputOfFields,
  type SourceRowOf,
} from './serializers.js';
export { BaseFilterBackend, OrderingFilter } from './filters.js';
export {
  BasePagination,
  PageNumberPagination,
  LimitOffsetPagination,
  CursorPagination,
  KeysetPagination,
  RelayConnectionPagination,
  LinkHeaderPagination,
  EnvelopePagination,
  PaginateByMaxPagination,
  PaginateByMaxCursorPagination,
  Paginator,
  Page,
  InvalidPage,
  PageNotAnInteger,
  EmptyPage,
  encodeCursorToken,
  decodeCursorToken,
  encodeKeysetToken,
  decodeKeysetToken,
  NUMBERS_TEMPLATE,
  PREVIOUS_AND_NEXT_TEMPLATE,
  exactCount,
  estimatedCount,
  cappedCount,
  cachedCount,
  type Cursor,
  type KeysetCursor,
  type PaginatorOptions,
  type PaginatorClass,
  type PaginationTemplate,
  type HtmlContext,
  type PageLink,
  type CountStrategy,
  type CachedCountOptions,
  type CountStore,
} from './pagination/index.js';
export {
  generateOpenApi,
  openApiView,
  serializerSchema,
  serializerRequestSchema,
  type OpenApiOptions,
  type OpenApiDocument,
  type OpenApiServer,
  type OpenApiTag,
} from './openapi.js';
export { type PaginatedSchemaOptions, type SchemaPaginator } from './openapi-pagination.js';
export { apiReferenceView, type ApiReferenceOptions } from './docs.js';
export {
  INVALID_POSITION,
  type Queryset,
  type FieldType,
  type FieldBits,
  type FieldInfo,
  type Comparison,
  type CountOptions,
} from './data/source.js';
export { ArrayQueryset, asQueryset, type ArrayQuerysetOptions } from './data/array.js';

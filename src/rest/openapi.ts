/**
 * OpenAPI 3.1 documents generated from the URL conf, one per API version.
 *
 * For each route and method the document has an operation with its path
 * parameters, the pagination parameters and paginated response shape of list
 * endpoints (from the paginator's `getSchemaOperationParameters()` and
 * `getPaginatedResponseSchema(schema, { url })`, `url` being the endpoint's
 * own URL so that the link examples are real links of it), the response
 * headers a paginator sends (the optional `getPaginatedResponseHeaders()`;
 * `Link` for `LinkHeaderPagination`), the filter backends' parameters, and
 * the serializer's fields as the response schema: one schema per serializer
 * class in `components.schemas`, named after the class, that operations
 * refer to with `$ref`. Schemas are JSON Schema 2020-12 (nullable values
 * have type arrays such as `['string', 'null']`; no `nullable`). Versioning
 * is taken into account (DRF's generator ignores it): URL-path routes appear
 * with the version substituted, namespace routes only in their version's
 * document, query, header and host schemes are described as a parameter or
 * in the description. Operations of a deprecated version (a `deprecation`
 * in `VERSION_LIFECYCLE`) and of a view with a `deprecation` of its own are
 * `deprecated: true`. See docs/openapi.md.
 *
 * @module
 */
import type { ApiContext, JsonSchema, RouteInfo, Settings, VersioningScheme, ViewFunction } from './contracts.js';
import { GenericAPIView, RetrieveAPIView } from './generics.js';
import { BooleanField, CharField, DateTimeField, type Field, FloatField, IntegerField } from './fields.js';
import { HyperlinkedRelatedField } from './relations.js';
import { Serializer } from './serializers.js';
import type { Request } from './request.js';
import {
  AcceptHeaderVersioning,
  HeaderVersioning,
  HostNameVersioning,
  NamespaceVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
} from './versioning.js';
import { APIView, apiView, HTTP_METHOD_NAMES } from './views.js';
import { Response } from './response.js';
import { paginatedResponse } from './openapi-pagination.js';

/**
 * Options of {@link generateOpenApi}.
 * @example
 * ```ts
 * const o: OpenApiOptions = { title: 'Catalog', version: 'v2', description: 'The demo catalog.' };
 * ```
 */
export interface OpenApiOptions {
  /** `info.title`. */
  title?: string;
  /** The API version the document describes (`null`: the unversioned API). */
  version?: string | null;
  /** `info.description`. */
  description?: string;
  /** `servers[0].url`, when given; the link examples then start with it. */
  serverUrl?: string;
  /**
   * What the link examples (`next`/`previous` of a page, the `Link` header)
   * start with when there is no `serverUrl` (`https://api.example.com`):
   * {@link openApiView} sets it to the origin of the request that fetched the
   * document. Without either the examples are paths.
   */
  exampleBaseUrl?: string;
}

/**
 * An OpenAPI 3.1 document (a plain JSON object).
 * @example
 * ```ts
 * const doc: OpenApiDocument = generateOpenApi(api, { version: 'v1' });
 * console.log(Object.keys(doc.paths));
 * ```
 */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  /** The serializers' schemas by name (the serializer class's name, made unique), referred to with `$ref`. */
  components?: { schemas: Record<string, JsonSchema> };
}

type ViewClass = new () => APIView;

/** The most documents {@link openApiView} keeps per API (versions times origins). */
const MAX_CACHED_DOCUMENTS = 16;

function fieldSchema(field: Field): JsonSchema {
  let s: JsonSchema;
  if (field instanceof HyperlinkedRelatedField) s = { type: 'string', format: 'uri' };
  else if (field instanceof DateTimeField) s = { type: 'string', format: 'date-time' };
  else if (field instanceof IntegerField) s = { type: 'integer' };
  else if (field instanceof FloatField) s = { type: 'number' };
  else if (field instanceof BooleanField) s = { type: 'boolean' };
  else if (field instanceof CharField) s = { type: 'string' };
  else s = {};
  if (field.readOnly) s.readOnly = true;
  if (field.allowNull && typeof s.type === 'string') s.type = [s.type, 'null'];
  return s;
}

/**
 * The JSON schema of a serializer class's output.
 * @example
 * ```ts
 * serializerSchema(ItemSerializer); // { type: 'object', properties: { id: { type: 'integer', readOnly: true }, ... } }
 * ```
 */
export function serializerSchema(cls: { readonly fields: Readonly<Record<string, Field>> }): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(cls.fields)) {
    if (field.writeOnly) continue;
    properties[name] = fieldSchema(field);
    if (field.required) required.push(name);
  }
  const out: JsonSchema = { type: 'object', properties };
  if (required.length) out.required = required;
  return out;
}

/**
 * The serializers' schemas of one document (`components.schemas`): one per
 * serializer class, named after the class (`ItemSerializer`), a number
 * appended when another class has the same name (`ItemSerializer2`).
 */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};
  readonly #names = new Map<unknown, string>();

  /** A `$ref` to the schema of `cls`, added on first use. */
  ref(cls: typeof Serializer): JsonSchema {
    let name = this.#names.get(cls);
    if (name === undefined) {
      const schema = serializerSchema(cls);
      const base = cls.name.replace(/[^A-Za-z0-9._-]+/g, '_') || 'Serializer';
      name = base;
      for (let n = 2; Object.hasOwn(this.schemas, name) || name === '__proto__'; n++) name = `${base}${n}`;
      this.#names.set(cls, name);
      this.schemas[name] = schema;
    }
    return { $ref: `#/components/schemas/${name}` };
  }
}

/** Whether the view says it is deprecated (its `deprecation` attribute, when it has one, is set). */
function viewDeprecated(view: APIView): boolean {
  const own = (view as { deprecation?: unknown }).deprecation;
  return own !== undefined && own !== null && own !== false;
}

interface VersionPlacement {
  path: string;
  parameters: JsonSchema[];
  note: string | null;
  /** The path parameter replaced by the version (URL-path versioning), left out of the path parameters. */
  substituted: string | null;
}

/**
 * The source of the capturing group named `name` in a regex source (`v1|v2`
 * for `(?<version>v1|v2)`), or `null` when there is none. Escapes and
 * character classes are skipped while looking for the closing parenthesis.
 */
function groupSource(regex: string, name: string): string | null {
  const open = `(?<${name}>`;
  const at = regex.indexOf(open);
  if (at < 0) return null;
  const start = at + open.length;
  let depth = 1;
  let inClass = false;
  for (let i = start; i < regex.length; i++) {
    const c = regex[i];
    if (c === '\\') i++;
    else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return regex.slice(start, i);
  }
  return null;
}

/** Whether `value` fits the pattern of path parameter `param` of a route (`true` when it cannot be told). */
function fitsParam(route: RouteInfo, param: { name: string; regex: string | null }, value: string): boolean {
  const source = param.regex ?? groupSource(route.regex, param.name);
  if (source === null) return true;
  try {
    return new RegExp(`^(?:${source})$`).test(value);
  } catch {
    return true;
  }
}

/** Where the version goes for this route and scheme; `null`: the route is not part of that version. */
function placeVersion(
  route: RouteInfo,
  scheme: VersioningScheme | null,
  version: string | null,
  settings: Settings,
): VersionPlacement | null {
  let path = '/' + route.route;
  const none: VersionPlacement = { path, parameters: [], note: null, substituted: null };
  if (scheme === null || version === null) return none;
  const param = scheme.versionParam ?? settings.VERSION_PARAM;
  const allowed = (scheme.allowedVersions === undefined ? settings.ALLOWED_VERSIONS : scheme.allowedVersions) ?? [];
  const known = allowed.filter((v): v is string => typeof v === 'string');
  if (scheme instanceof URLPathVersioning) {
    const p = route.pathParams.find((x) => x.name === param);
    if (p === undefined) return none;
    if (!fitsParam(route, p, version)) return null;
    path = path.replace(`{${param}}`, version);
    return { path, parameters: [], note: null, substituted: param };
  }
  if (scheme instanceof NamespaceVersioning) {
    // A route outside any namespace serves the default version: it is part of every document.
    if (route.namespace === '') return none;
    // As NamespaceVersioning.determineVersion: the first allowed part of the namespace (any part when nothing is listed).
    const defaultVersion = scheme.defaultVersion === undefined ? settings.DEFAULT_VERSION : scheme.defaultVersion;
    const routeVersion = route.namespace
      .split(':')
      .find((part) => allowed.length === 0 || part === defaultVersion || allowed.includes(part));
    return routeVersion === version ? none : null;
  }
  if (scheme instanceof QueryParameterVersioning) {
    const schema: JsonSchema = { type: 'string' };
    if (known.length) schema.enum = known;
    schema.default = version;
    return {
      ...none,
      parameters: [{ name: param, in: 'query', required: false, description: 'The API version.', schema }],
    };
  }
  if (scheme instanceof HeaderVersioning) {
    return {
      ...none,
      parameters: [
        {
          name: scheme.headerName,
          in: 'header',
          required: false,
          description: 'The API version.',
          schema: { type: 'string', default: version },
        },
      ],
    };
  }
  if (scheme instanceof AcceptHeaderVersioning)
    return { ...none, note: `Send \`Accept: application/json; ${param}=${version}\` for this version.` };
  if (scheme instanceof HostNameVersioning)
    return { ...none, note: `Use the host name \`${version}.<domain>\` for this version.` };
  return none;
}

function pathParameters(route: RouteInfo, excluded: string | null): JsonSchema[] {
  return route.pathParams
    .filter((p) => p.name !== excluded)
    .map((p) => ({
      name: p.name,
      in: 'path',
      required: true,
      schema:
        p.converter === 'int'
          ? { type: 'integer' }
          : p.converter === 'uuid'
            ? { type: 'string', format: 'uuid' }
            : { type: 'string' },
    }));
}

function isListView(path: string, method: string, view: APIView, action: string | null): boolean {
  if (action !== null) return action === 'list';
  if (method !== 'get') return false;
  if (view instanceof RetrieveAPIView) return false;
  const last =
    path
      .replace(/^\/+|\/+$/g, '')
      .split('/')
      .pop() ?? '';
  return !last.includes('{');
}

/**
 * Generates the OpenAPI 3.1 document of an API for one version.
 * @example
 * ```ts
 * const v2 = generateOpenApi(api, { title: 'Catalog', version: 'v2' });
 * ```
 */
export function generateOpenApi(
  api: Pick<ApiContext, 'settings' | 'urlconf'>,
  options: OpenApiOptions = {},
): OpenApiDocument {
  const settings = api.settings;
  const version = options.version === undefined ? settings.DEFAULT_VERSION : options.version;
  const lifecycle = version !== null ? settings.VERSION_LIFECYCLE[version] : undefined;
  const paths: OpenApiDocument['paths'] = {};
  const components = new SchemaComponents();
  const exampleBase = (options.serverUrl ?? options.exampleBaseUrl ?? '').replace(/\/+$/, '');
  const operationIds = new Set<string>();
  for (const route of api.urlconf.routes()) {
    if (/\.\{format\}\/?$/.test(route.route)) continue; // format-suffix twins (DRF leaves them out too)
    const Cls = route.view.viewClass as ViewClass | undefined;
    if (typeof Cls !== 'function' || !(Cls.prototype instanceof APIView)) continue;
    const init = route.view.initkwargs ?? {};
    const view = new Cls();
    for (const [k, v] of Object.entries(init)) if (k !== 'actions') (view as unknown as Record<string, unknown>)[k] = v;
    if (view.excludeFromSchema) continue;
    const vClass = view.versioningClass === undefined ? settings.DEFAULT_VERSIONING_CLASS : view.versioningClass;
    const scheme = vClass === null ? null : new vClass();
    const placed = placeVersion(route, scheme, version, settings);
    if (placed === null) continue;
    const actions = init.actions as Record<string, string> | undefined;
    const methods = actions
      ? Object.keys(actions)
      : HTTP_METHOD_NAMES.filter(
          (m) =>
            m !== 'head' && m !== 'options' && typeof (view as unknown as Record<string, unknown>)[m] === 'function',
        );
    for (const method of methods) {
      const action = actions?.[method] ?? null;
      // Viewsets: the action of this method, as a request would set it (getSerializerClass() may depend on it).
      if (action !== null && 'action' in view) (view as unknown as { action: string | null }).action = action;
      let operationId = `${(route.viewName ?? Cls.name).replace(/[^A-Za-z0-9]+/g, '_')}_${method}`;
      if (operationIds.has(operationId)) {
        let n = 2;
        while (operationIds.has(`${operationId}_${n}`)) n++;
        operationId = `${operationId}_${n}`;
      }
      operationIds.add(operationId);
      const op: JsonSchema = { operationId, summary: view.getViewName() };
      const description = [view.description, placed.note].filter(Boolean).join('\n\n');
      if (description) op.description = description;
      const parameters: JsonSchema[] = [...pathParameters(route, placed.substituted), ...placed.parameters];
      let body: JsonSchema = {};
      let headers: Record<string, JsonSchema> = {};
      if (view instanceof GenericAPIView) {
        let ser: JsonSchema = {};
        try {
          let sc: unknown = view.serializerClass;
          try {
            // Serializers chosen per version: ask getSerializerClass() with a request carrying the version.
            view.request = { version, settings, query: null, headers: null } as unknown as Request;
            sc = view.getSerializerClass();
          } catch {
            /* keep serializerClass */
          }
          if (typeof sc === 'function' && sc.prototype instanceof Serializer)
            ser = components.ref(sc as typeof Serializer);
        } catch {
          ser = {};
        }
        body = ser;
        if (isListView(placed.path, method, view, action)) {
          const pc = view.paginationClass === undefined ? settings.DEFAULT_PAGINATION_CLASS : view.paginationClass;
          const list: JsonSchema = { type: 'array', items: ser };
          if (pc !== null) {
            const paginator = new pc();
            parameters.push(...(paginator.getSchemaOperationParameters(view) as unknown as JsonSchema[]));
            ({ schema: body, headers } = paginatedResponse(paginator, list, { url: exampleBase + placed.path }));
          } else body = list;
          for (const B of view.filterBackends ?? settings.DEFAULT_FILTER_BACKENDS) {
            const backend = new B() as {
              getSchemaOperationParameters?: (view: GenericAPIView, settings: Settings) => unknown;
            };
            if (typeof backend.getSchemaOperationParameters === 'function') {
              const params = backend.getSchemaOperationParameters(view, settings);
              if (Array.isArray(params)) parameters.push(...(params as JsonSchema[]));
            }
          }
        }
      }
      if (parameters.length) op.parameters = parameters;
      const response: JsonSchema = { description: '', content: { 'application/json': { schema: body } } };
      if (Object.keys(headers).length > 0) response.headers = headers;
      op.responses = { [method === 'post' ? '201' : method === 'delete' ? '204' : '200']: response };
      if (lifecycle?.deprecation !== undefined || viewDeprecated(view)) op.deprecated = true;
      (paths[placed.path] ??= {})[method] = op;
    }
  }
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: options.title ?? 'API', version: version ?? '1.0.0' },
    paths,
  };
  if (options.description !== undefined) doc.info.description = options.description;
  if (options.serverUrl !== undefined) doc.servers = [{ url: options.serverUrl }];
  if (Object.keys(components.schemas).length > 0) doc.components = { schemas: components.schemas };
  return doc;
}

/**
 * A view serving the OpenAPI document of the API that routes to it, for a
 * fixed version, or, with `version` undefined, for the version of the
 * request as the API's versioning scheme determines it (so
 * `rePath('^(?P<version>v1|v2)/openapi.json$', openApiView())` serves each
 * version's document under URL-path versioning). The link examples of the
 * document start with `serverUrl` when given, else with the origin of the
 * request (`exampleBaseUrl`); `servers` is set only from `serverUrl`.
 * Documents are built once per API, version and origin (a few origins per
 * version are kept).
 * @example
 * ```ts
 * const urlpatterns = [
 *   path('openapi/v1.json', openApiView({ title: 'Catalog', version: 'v1' }), { name: 'openapi-v1' }),
 *   rePath('^(?P<version>v1|v2)/openapi.json$', openApiView({ title: 'Catalog' }), { name: 'openapi' }),
 * ];
 * ```
 */
export function openApiView(options: OpenApiOptions = {}): ViewFunction {
  const cache = new WeakMap<object, Map<string, OpenApiDocument>>();
  const fixed = options.version !== undefined;
  return apiView(
    ['GET'],
    (request) => {
      const api = request.api;
      if (api === null) return new Response({ detail: 'No API.' }, { status: 500 });
      const version = fixed ? (options.version as string | null) : request.version;
      const base = options.serverUrl ?? options.exampleBaseUrl ?? request.buildAbsoluteUri('/').replace(/\/+$/, '');
      let docs = cache.get(api);
      if (docs === undefined) cache.set(api, (docs = new Map<string, OpenApiDocument>()));
      const key = `${version ?? ''}\n${version === null ? 0 : 1}\n${base}`;
      let doc = docs.get(key);
      if (doc === undefined) {
        // The Host header picks the origin: keep a bounded number of documents, dropping the oldest.
        if (docs.size >= MAX_CACHED_DOCUMENTS) docs.delete(docs.keys().next().value as string);
        docs.set(key, (doc = generateOpenApi(api, { ...options, version, exampleBaseUrl: base })));
      }
      return new Response(doc);
    },
    // A fixed version needs no versioning; otherwise the API's scheme determines the request's version.
    fixed
      ? { name: 'OpenApiView', versioningClass: null, excludeFromSchema: true }
      : { name: 'OpenApiView', excludeFromSchema: true },
  );
}

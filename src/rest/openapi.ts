/**
 * OpenAPI 3.1 documents generated from the URL conf, one per API version.
 *
 * For each route and method the document has an operation with its path
 * parameters, the pagination parameters and paginated response shape of list
 * endpoints (from the paginator's `getSchemaOperationParameters()` and
 * `getPaginatedResponseSchema()`), the filter backends' parameters, and the
 * serializer's fields as the response schema. Versioning is taken into
 * account (DRF's generator ignores it): URL-path routes appear with the
 * version substituted, namespace routes only in their version's document,
 * query, header and host schemes are described as a parameter or in the
 * description, and operations of a deprecated version are `deprecated`.
 *
 * @module
 */
import type { RestApi } from './api.js';
import { OrderingFilter } from './filters.js';
import { GenericAPIView, RetrieveAPIView } from './generics.js';
import type { JsonSchema } from './pagination/base.js';
import {
  BooleanField,
  CharField,
  DateTimeField,
  type Field,
  FloatField,
  HyperlinkedRelatedField,
  IntegerField,
  Serializer,
} from './serializers.js';
import type { Settings } from './settings.js';
import type { Request } from './request.js';
import type { RouteInfo } from './urls.js';
import { AcceptHeaderVersioning, HeaderVersioning, HostNameVersioning, NamespaceVersioning, QueryParameterVersioning, URLPathVersioning } from './versioning.js';
import type { BaseVersioning } from './versioning.js';
import { APIView, apiView, HTTP_METHOD_NAMES } from './views.js';
import { Response } from './response.js';
import type { ViewFunction } from './urls.js';

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
  /** `servers[0].url`, when given. */
  serverUrl?: string;
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
}

type ViewClass = new () => APIView;

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

interface VersionPlacement {
  path: string;
  parameters: JsonSchema[];
  note: string | null;
}

/** Where the version goes for this route and scheme; `null`: the route is not part of that version. */
function placeVersion(route: RouteInfo, scheme: BaseVersioning | null, version: string | null, settings: Settings): VersionPlacement | null {
  let path = '/' + route.route;
  if (scheme === null || version === null) return { path, parameters: [], note: null };
  const param = scheme.versionParam ?? settings.VERSION_PARAM;
  const allowed = (scheme.allowedVersions === undefined ? settings.ALLOWED_VERSIONS : scheme.allowedVersions) ?? [];
  const known = allowed.filter((v): v is string => typeof v === 'string');
  if (scheme instanceof URLPathVersioning) {
    const p = route.pathParams.find((x) => x.name === param);
    if (p === undefined) return { path, parameters: [], note: null };
    if (p.regex !== null && !new RegExp(`^(?:${p.regex})$`).test(version)) return null;
    path = path.replace(`{${param}}`, version);
    return { path, parameters: [], note: null };
  }
  if (scheme instanceof NamespaceVersioning) {
    const parts = route.namespace ? route.namespace.split(':') : [];
    const versions = parts.filter((p) => known.includes(p));
    if (versions.length > 0 && !versions.includes(version)) return null;
    if (parts.length > 0 && versions.length === 0) return null;
    return { path, parameters: [], note: null };
  }
  if (scheme instanceof QueryParameterVersioning) {
    return { path, parameters: [{ name: param, in: 'query', required: false, description: 'The API version.', schema: { type: 'string', enum: known.length ? known : undefined, default: version } }], note: null };
  }
  if (scheme instanceof HeaderVersioning) {
    return { path, parameters: [{ name: scheme.headerName, in: 'header', required: false, description: 'The API version.', schema: { type: 'string', default: version } }], note: null };
  }
  if (scheme instanceof AcceptHeaderVersioning) return { path, parameters: [], note: `Send \`Accept: application/json; ${param}=${version}\` for this version.` };
  if (scheme instanceof HostNameVersioning) return { path, parameters: [], note: `Use the host name \`${version}.<domain>\` for this version.` };
  return { path, parameters: [], note: null };
}

function pathParameters(route: RouteInfo, excluded: string | null): JsonSchema[] {
  return route.pathParams
    .filter((p) => p.name !== excluded)
    .map((p) => ({
      name: p.name,
      in: 'path',
      required: true,
      schema: p.converter === 'int' ? { type: 'integer' } : p.converter === 'uuid' ? { type: 'string', format: 'uuid' } : { type: 'string' },
    }));
}

function isListView(path: string, method: string, view: APIView, action: string | null): boolean {
  if (action !== null) return action === 'list';
  if (method !== 'get') return false;
  if (view instanceof RetrieveAPIView) return false;
  const last = path.replace(/^\/+|\/+$/g, '').split('/').pop() ?? '';
  return !last.includes('{');
}

/**
 * Generates the OpenAPI 3.1 document of an API for one version.
 * @example
 * ```ts
 * const v2 = generateOpenApi(api, { title: 'Catalog', version: 'v2' });
 * ```
 */
export function generateOpenApi(api: RestApi, options: OpenApiOptions = {}): OpenApiDocument {
  const settings = api.settings;
  const version = options.version === undefined ? settings.DEFAULT_VERSION : options.version;
  const lifecycle = version !== null ? settings.VERSION_LIFECYCLE[version] : undefined;
  const paths: OpenApiDocument['paths'] = {};
  for (const route of api.urlconf.routes()) {
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
      : HTTP_METHOD_NAMES.filter((m) => m !== 'head' && m !== 'options' && typeof (view as unknown as Record<string, unknown>)[m] === 'function');
    const versionParam = scheme instanceof URLPathVersioning ? (scheme.versionParam ?? settings.VERSION_PARAM) : null;
    for (const method of methods) {
      const action = actions?.[method] ?? null;
      const op: JsonSchema = {
        operationId: `${(route.viewName ?? Cls.name).replace(/[^A-Za-z0-9]+/g, '_')}_${method}`,
        summary: view.getViewName(),
      };
      const description = [view.description, placed.note].filter(Boolean).join('\n\n');
      if (description) op.description = description;
      const parameters: JsonSchema[] = [...pathParameters(route, versionParam), ...placed.parameters];
      let body: JsonSchema = {};
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
          if (typeof sc === 'function' && sc.prototype instanceof Serializer) ser = serializerSchema(sc as typeof Serializer);
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
            body = paginator.getPaginatedResponseSchema(list);
          } else body = list;
          for (const B of view.filterBackends ?? settings.DEFAULT_FILTER_BACKENDS) {
            const backend = new B();
            if (backend instanceof OrderingFilter) parameters.push(...(backend.getSchemaOperationParameters(view, settings) as unknown as JsonSchema[]));
          }
        }
      }
      if (parameters.length) op.parameters = parameters;
      op.responses = { [method === 'post' ? '201' : method === 'delete' ? '204' : '200']: { description: '', content: { 'application/json': { schema: body } } } };
      if (lifecycle?.deprecation !== undefined) op.deprecated = true;
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
  return doc;
}

/**
 * A view serving the OpenAPI document of the API that routes to it, for a
 * fixed version (or, with `version` undefined, the request's version).
 * @example
 * ```ts
 * const urlpatterns = [path('openapi/v1.json', openApiView({ title: 'Catalog', version: 'v1' }), { name: 'openapi-v1' })];
 * ```
 */
export function openApiView(options: OpenApiOptions = {}): ViewFunction {
  const cache = new WeakMap<object, OpenApiDocument>();
  return apiView(
    ['GET'],
    (request) => {
      const api = request.api;
      if (api === null) return new Response({ detail: 'No API.' }, { status: 500 });
      let doc = options.version === undefined ? null : cache.get(api) ?? null;
      if (doc === null) {
        doc = generateOpenApi(api, { ...options, version: options.version === undefined ? request.version : options.version });
        if (options.version !== undefined) cache.set(api, doc);
      }
      return new Response(doc);
    },
    { name: 'OpenApiView', versioningClass: null, excludeFromSchema: true },
  );
}

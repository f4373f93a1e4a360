/**
 * The operations of one route in an OpenAPI document: one per method the
 * view handles, plus HEAD (where GET is handled: the same statuses and
 * headers, no body) and OPTIONS (the view's metadata). Each has its
 * parameters (path, version, pagination with their limits, filters), its
 * success response in every media type the view renders (the browsable
 * `text/html` page included), a request body where the method takes one,
 * and every error it can answer with its exact body (see
 * `openapi-errors.ts`).
 *
 * @module
 */
import type { JsonSchema, RouteInfo, SchemaError, Settings } from './contracts.js';
import { GenericAPIView, RetrieveAPIView } from './generics.js';
import { SchemaComponents } from './openapi-components.js';
import {
  bodyErrors,
  formatParameter,
  hostErrors,
  isJsonMediaType,
  NOT_ACCEPTABLE,
  OBJECT_NOT_FOUND,
  OperationErrors,
  textBody,
  UNKNOWN_FORMAT,
  type ResponseMediaTypes,
} from './openapi-errors.js';
import { paginatedResponse } from './openapi-pagination.js';
import type { VersionPlacement } from './openapi-versions.js';
import type { Request } from './request.js';
import { Serializer } from './serializers.js';
import { APIView, HTTP_METHOD_NAMES } from './views.js';

/** What the operations of one document share. @internal */
export interface DocumentContext {
  readonly settings: Settings;
  readonly version: string | null;
  readonly components: SchemaComponents;
  /** What link examples start with (a server URL or an origin; `''`: paths). */
  readonly exampleBase: string;
  /** The operationIds given so far (each is unique in the document). */
  readonly operationIds: Set<string>;
}

/** The operations of one route, and what its tags are made from. @internal */
export interface RouteOperations {
  readonly path: string;
  /** Operations by method (`get`, `head`, `options`, ...). */
  readonly operations: Record<string, JsonSchema>;
  /** The view's own tags (`openapi.tags`), or `null`: from the route. */
  readonly tags: readonly string[] | null;
  /** The route's literal segments (`['versioned', 'items']` for `versioned/{version}/items/{pk}/`). */
  readonly segments: readonly string[];
  /** The view's name (the tag of a route without a literal segment). */
  readonly name: string;
  /** The view's description (a tag's description when it is the only one under the tag). */
  readonly description: string;
}

/** The media types a view reads bodies in (those of `Request.data`). */
const PARSED_MEDIA_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;

const BODY_METHODS = ['post', 'put', 'patch'] as const;

/** A serializer class as the schemas read it. */
type SerializerClass = typeof Serializer;

function pathParameters(route: RouteInfo, excluded: string | null): JsonSchema[] {
  return route.pathParams
    .filter((p) => p.name !== excluded)
    .map((p) => ({
      name: p.name,
      in: 'path',
      required: true,
      schema:
        p.converter === 'int'
          ? { type: 'integer', minimum: 0 }
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

/** Whether the view says it is deprecated (its `deprecation` attribute, when it has one, is set). */
function viewDeprecated(view: APIView): boolean {
  const own = (view as { deprecation?: unknown }).deprecation;
  return own !== undefined && own !== null && own !== false;
}

/** The 410 a version or view with `goneAfterSunset` answers once its sunset has passed. */
function goneErrors(settings: Settings, version: string | null, view: APIView): SchemaError[] {
  const out: SchemaError[] = [];
  const lifecycle = version === null ? undefined : settings.VERSION_LIFECYCLE[version];
  if (lifecycle?.goneAfterSunset === true && lifecycle.sunset !== undefined)
    out.push({
      status: 410,
      name: 'versionRetired',
      summary: 'The version is retired (after its sunset)',
      value: { detail: `Version "${version ?? ''}" was retired on ${lifecycle.sunset.toUTCString()}.` },
    });
  const own = view.deprecation;
  if (own !== null && own.goneAfterSunset === true && own.sunset !== undefined)
    out.push({
      status: 410,
      name: 'endpointRetired',
      summary: 'The endpoint is retired (after its sunset)',
      value: { detail: `This endpoint was retired on ${own.sunset.toUTCString()}.` },
    });
  return out;
}

/** The serializer class of a generic view for this document's version, or `null`. */
function serializerOf(view: APIView): SerializerClass | null {
  if (!(view instanceof GenericAPIView)) return null;
  let sc: unknown = view.serializerClass;
  try {
    sc = view.getSerializerClass();
  } catch {
    /* keep serializerClass */
  }
  return typeof sc === 'function' && sc.prototype instanceof Serializer ? (sc as SerializerClass) : null;
}

/** A body in each media type: the schema for JSON ones (with `examples` when given), a string otherwise. */
function contentOf(media: readonly string[], schema: JsonSchema, example?: unknown): Record<string, JsonSchema> {
  const content: Record<string, JsonSchema> = {};
  for (const type of media) {
    if (!isJsonMediaType(type)) content[type] = { schema: textBody(type) };
    else content[type] = example === undefined ? { schema } : { schema, example };
  }
  return content;
}

/** The view's OPTIONS body for this document, when it can be computed (`undefined` otherwise). */
function optionsExample(view: APIView, request: Request): unknown {
  try {
    return view.options(request).data;
  } catch {
    return undefined;
  }
}

/**
 * The operations of a route for one document, or `null` when the view is
 * not a class-based view or is left out of documents.
 * @internal
 */
export function routeOperations(
  route: RouteInfo,
  view: APIView,
  placed: VersionPlacement,
  ctx: DocumentContext,
): RouteOperations {
  const { settings, version, components } = ctx;
  const init = route.view.initkwargs ?? {};
  const request = { version, settings, query: null, headers: null } as unknown as Request;
  view.request = request;
  const info = view.openapi ?? {};
  const summary = info.summary ?? view.getViewName();
  const description = info.description ?? view.getViewDescription();
  const renderers = view.getRenderers();
  const media: ResponseMediaTypes = { all: [...new Set(renderers.map((r) => r.mediaType))] };
  const format = formatParameter(settings, [...new Set(renderers.map((r) => r.format))]);
  // Parameters every operation of the route has: its path's, the version's, `?format=`.
  const routeParameters = (): JsonSchema[] => [
    ...pathParameters(route, placed.substituted),
    ...placed.parameters,
    ...(format === null ? [] : [format]),
  ];
  const lifecycle = version !== null ? settings.VERSION_LIFECYCLE[version] : undefined;
  const deprecated = lifecycle?.deprecation !== undefined || viewDeprecated(view);
  // What any request to this route can be answered: a refused Host, a bad Accept or format, a bad
  // version, a retired version or view.
  const common = (): OperationErrors =>
    new OperationErrors()
      .add(hostErrors(settings))
      .add([NOT_ACCEPTABLE])
      .add(format === null ? [] : [UNKNOWN_FORMAT])
      .add(placed.errors)
      .add(goneErrors(settings, version, view));
  const actions = init.actions as Record<string, string> | undefined;
  const self = view as unknown as Record<string, unknown>;
  const methods = actions
    ? Object.keys(actions)
    : HTTP_METHOD_NAMES.filter((m) => m !== 'head' && m !== 'options' && typeof self[m] === 'function');
  const idBase = (route.viewName ?? view.constructor.name).replace(/[^A-Za-z0-9]+/g, '_');
  const operationId = (method: string): string => {
    let id = `${idBase}_${method}`;
    if (ctx.operationIds.has(id)) {
      let n = 2;
      while (ctx.operationIds.has(`${id}_${n}`)) n++;
      id = `${id}_${n}`;
    }
    ctx.operationIds.add(id);
    return id;
  };
  const note = placed.note;
  const withNote = (text: string): string => [text, note].filter(Boolean).join('\n\n');
  const operations: Record<string, JsonSchema> = {};
  let getOperation: { op: JsonSchema; errors: OperationErrors; headers: Record<string, JsonSchema> } | null = null;

  for (const method of methods) {
    const action = actions?.[method] ?? null;
    // Viewsets: the action of this method, as a request would set it (getSerializerClass() may depend on it).
    if (action !== null && 'action' in view) (view as unknown as { action: string | null }).action = action;
    const errors = common();
    const parameters: JsonSchema[] = routeParameters();
    const serializer = serializerOf(view);
    let body: JsonSchema = info.responseSchema ?? {};
    let headers: Record<string, JsonSchema> = {};
    let fallback = `${summary}.`;
    let success = method === 'post' ? 'Created.' : method === 'delete' ? 'Deleted.' : 'The result.';
    if (view instanceof GenericAPIView) {
      const item: JsonSchema = serializer === null ? {} : components.ref(serializer);
      if (info.responseSchema === undefined) body = item;
      if (isListView(placed.path, method, view, action)) {
        const pc = view.paginationClass === undefined ? settings.DEFAULT_PAGINATION_CLASS : view.paginationClass;
        const list: JsonSchema = { type: 'array', items: item };
        fallback = `The list of ${summary}.`;
        success = 'The list.';
        if (pc !== null) {
          const paginator = new pc();
          parameters.push(...(paginator.getSchemaOperationParameters(view, settings) as unknown as JsonSchema[]));
          if (typeof paginator.getSchemaErrors === 'function') errors.add(paginator.getSchemaErrors());
          ({ schema: body, headers } = paginatedResponse(paginator, list, { url: ctx.exampleBase + placed.path }));
          success = 'A page of the list.';
        } else body = list;
        for (const B of view.filterBackends ?? settings.DEFAULT_FILTER_BACKENDS) {
          const backend = new B() as {
            getSchemaOperationParameters?: (view: unknown, settings: Settings) => unknown;
          };
          if (typeof backend.getSchemaOperationParameters === 'function') {
            const params = backend.getSchemaOperationParameters(view, settings);
            if (Array.isArray(params)) parameters.push(...(params as JsonSchema[]));
          }
        }
      } else if (placed.path.includes('{') && method !== 'post') {
        fallback = `One object of ${summary}, by its key.`;
        success = 'The object.';
        errors.add([OBJECT_NOT_FOUND]);
      }
    }
    const op: JsonSchema = {
      operationId: operationId(method),
      summary: methods.length > 1 && method !== methods[0] ? `${summary} (${method.toUpperCase()})` : summary,
      description: withNote(description || fallback),
    };
    if (parameters.length) op.parameters = parameters;
    if ((BODY_METHODS as readonly string[]).includes(method)) {
      const schema = serializer === null ? { type: 'object' } : components.requestRef(serializer, method === 'patch');
      op.requestBody = {
        required: method !== 'patch',
        content: Object.fromEntries(PARSED_MEDIA_TYPES.map((t) => [t, { schema }])),
      };
      errors.add(bodyErrors(settings.MAX_BODY_SIZE));
      if (serializer !== null) {
        const requestSchema = components.schemas[String(schema.$ref).split('/').pop() ?? ''];
        const first = (requestSchema?.required as string[] | undefined)?.[0];
        if (first !== undefined)
          errors.add([
            {
              status: 400,
              name: 'invalidInput',
              summary: 'Input that fails validation',
              value: { [first]: ['This field is required.'] },
            },
          ]);
      }
    }
    const status = method === 'post' ? '201' : method === 'delete' ? '204' : '200';
    const response: JsonSchema = { description: success };
    if (status !== '204') response.content = contentOf(media.all, body);
    if (Object.keys(headers).length > 0) response.headers = headers;
    op.responses = { [status]: response, ...errors.responses(components, media) };
    if (deprecated) op.deprecated = true;
    operations[method] = op;
    if (method === 'get') getOperation = { op, errors, headers };
  }

  if (getOperation !== null) {
    const { op: get, errors, headers } = getOperation;
    const ok: JsonSchema = { description: 'The headers GET sends, without the body.' };
    if (Object.keys(headers).length > 0) ok.headers = headers;
    const head: JsonSchema = {
      operationId: operationId('head'),
      summary: `${summary} (headers only)`,
      description: withNote('As GET, without the body: the status and the headers only.'),
    };
    if (get.parameters !== undefined) head.parameters = get.parameters;
    head.responses = { '200': ok, ...errors.responses(components, media, { bodiless: true }) };
    if (deprecated) head.deprecated = true;
    operations.head = head;
  }

  const metadata = APIView.prototype.options === view.options ? components.builtIn('ViewMetadata') : { type: 'object' };
  const options: JsonSchema = {
    operationId: operationId('options'),
    summary: `${summary} (metadata)`,
    description: withNote("The view's metadata: its name and description, and the media types it renders and parses."),
  };
  const parameters = routeParameters();
  if (parameters.length) options.parameters = parameters;
  options.responses = {
    '200': {
      description: "The view's metadata.",
      content: contentOf(media.all, metadata, optionsExample(view, request)),
    },
    ...common().responses(components, media),
  };
  if (deprecated) options.deprecated = true;
  operations.options = options;

  return {
    path: placed.path,
    operations,
    tags: info.tags ? [...info.tags] : null,
    segments: route.route.split('/').filter((s) => s !== '' && !s.includes('{')),
    name: summary,
    description,
  };
}

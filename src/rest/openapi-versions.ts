/**
 * Where a route goes in the OpenAPI document of one API version: under
 * URL-path versioning its path with the version substituted (or nowhere,
 * when the route's version pattern does not fit, or when a route without a
 * version in it serves another version: the scheme's default); under
 * namespace versioning only in its namespace's version (a route outside
 * any namespace serves the default version; without a default version such
 * routes serve no version and are in every document); under query-parameter and
 * header versioning in every document, with the version parameter (`enum`
 * of the allowed versions, `default` the default version, `example` the
 * document's); under Accept-header and host-name versioning in every
 * document, with a note. Whether the route can answer the scheme's
 * invalid-version error is part of the placement.
 *
 * @module
 */
import type { JsonSchema, RouteInfo, SchemaError, Settings, VersioningScheme } from './contracts.js';
import {
  AcceptHeaderVersioning,
  HeaderVersioning,
  HostNameVersioning,
  NamespaceVersioning,
  QueryParameterVersioning,
  URLPathVersioning,
} from './versioning.js';

/** Where a route goes in one version's document. @internal */
export interface VersionPlacement {
  /** The operation's path (`/v2/items/{pk}/`). */
  path: string;
  /** Parameters the scheme adds (the query parameter or header carrying the version). */
  parameters: JsonSchema[];
  /** A sentence for the description (how to ask for this version), or `null`. */
  note: string | null;
  /** The path parameter replaced by the version (URL-path versioning), left out of the path parameters. */
  substituted: string | null;
  /** The scheme's answers to a version it does not allow, when a request to this path can carry one. */
  errors: SchemaError[];
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

/** The version parameter's schema: the allowed versions (the default among them), and the default. */
function versionSchema(known: readonly string[], defaultVersion: string | null): JsonSchema {
  const schema: JsonSchema = { type: 'string' };
  if (known.length) {
    const choices = defaultVersion !== null && !known.includes(defaultVersion) ? [defaultVersion, ...known] : known;
    schema.enum = [...choices];
  }
  if (defaultVersion !== null) schema.default = defaultVersion;
  return schema;
}

/**
 * Where the route goes for this scheme in the document of `version`;
 * `null`: the route is not part of that version.
 * @internal
 */
export function placeVersion(
  route: RouteInfo,
  scheme: VersioningScheme | null,
  version: string | null,
  settings: Settings,
): VersionPlacement | null {
  let path = '/' + route.route;
  const none: VersionPlacement = { path, parameters: [], note: null, substituted: null, errors: [] };
  if (scheme === null) return none;
  const errors = typeof scheme.getSchemaErrors === 'function' ? scheme.getSchemaErrors() : [];
  if (version === null) return { ...none, errors };
  const param = scheme.versionParam ?? settings.VERSION_PARAM;
  const allowed = (scheme.allowedVersions === undefined ? settings.ALLOWED_VERSIONS : scheme.allowedVersions) ?? [];
  const known = allowed.filter((v): v is string => typeof v === 'string');
  const defaultVersion = scheme.defaultVersion === undefined ? settings.DEFAULT_VERSION : scheme.defaultVersion;
  const describes = `This document describes version \`${version}\``;
  if (scheme instanceof URLPathVersioning) {
    const p = route.pathParams.find((x) => x.name === param);
    // A route without the version in its path serves the default version: it belongs to that document only
    // (without a default version it serves none, in every document; 404 when `null` is not an allowed version).
    if (p === undefined) {
      if (defaultVersion !== null) return defaultVersion === version ? none : null;
      return allowed.length > 0 && !allowed.includes(null) ? { ...none, errors } : none;
    }
    if (!fitsParam(route, p, version)) return null;
    path = path.replace(`{${param}}`, version);
    return { ...none, path, substituted: param };
  }
  if (scheme instanceof NamespaceVersioning) {
    // A route outside any namespace serves the default version (without one: no version, in every document).
    if (route.namespace === '') return defaultVersion === null || defaultVersion === version ? none : null;
    // As NamespaceVersioning.determineVersion: the first allowed part of the namespace (any part when nothing is listed).
    const routeVersion = route.namespace
      .split(':')
      .find((part) => allowed.length === 0 || part === defaultVersion || allowed.includes(part));
    return routeVersion === version ? none : null;
  }
  if (scheme instanceof QueryParameterVersioning || scheme instanceof HeaderVersioning) {
    const header = scheme instanceof HeaderVersioning;
    const sent = header ? `the header \`${scheme.headerName}: ${version}\`` : `\`?${param}=${version}\``;
    const fallback = defaultVersion === null ? '' : `; without it the answer is version \`${defaultVersion}\``;
    return {
      ...none,
      errors,
      parameters: [
        {
          name: header ? scheme.headerName : param,
          in: header ? 'header' : 'query',
          required: false,
          description: `The API version. ${describes}: send ${sent}${fallback}.`,
          schema: versionSchema(known, defaultVersion),
          example: version,
        },
      ],
    };
  }
  if (scheme instanceof AcceptHeaderVersioning)
    return { ...none, errors, note: `Send \`Accept: application/json; ${param}=${version}\` for this version.` };
  if (scheme instanceof HostNameVersioning)
    return { ...none, errors, note: `Use the host name \`${version}.<domain>\` for this version.` };
  // Another scheme: its errors may apply anywhere.
  return { ...none, errors };
}

/**
 * Version and endpoint lifecycle: the `Deprecation`, `Sunset` and `Link`
 * (`deprecation`, `successor-version`) headers of a response, and the
 * opt-in 410 Gone once a sunset has passed, from the API's
 * `VERSION_LIFECYCLE` (per version) and a view's `deprecation` (per view).
 *
 * @module
 */
import type { VersionLifecycle } from './contracts.js';
import { Gone, NoReverseMatch } from './errors.js';
import type { Request } from './request.js';
import type { Response } from './response.js';
import { reverse } from './reverse.js';
import { NamespaceVersioning, QueryParameterVersioning, URLPathVersioning } from './versioning.js';

/** What lifecycle applies to a request: the version's, the view's, or both. */
interface Lifecycles {
  readonly version: VersionLifecycle | undefined;
  readonly view: VersionLifecycle | null;
}

function lifecycles(request: Request, view: VersionLifecycle | null): Lifecycles {
  const v = request.version;
  return { version: v === null ? undefined : request.settings.VERSION_LIFECYCLE[v], view };
}

/**
 * Raises 410 {@link Gone} when the request's version, or the view, has a
 * sunset in the past and `goneAfterSunset` set.
 * @internal
 */
export function checkGone(request: Request, view: VersionLifecycle | null, now: number = Date.now()): void {
  const { version, view: own } = lifecycles(request, view);
  if (version?.goneAfterSunset === true && version.sunset !== undefined && version.sunset.getTime() <= now)
    throw new Gone(`Version "${request.version}" was retired on ${version.sunset.toUTCString()}.`);
  if (own?.goneAfterSunset === true && own.sunset !== undefined && own.sunset.getTime() <= now)
    throw new Gone(`This endpoint was retired on ${own.sunset.toUTCString()}.`);
}

/**
 * The URL of the request's route in `successor` (another version), or
 * `null` when the scheme does not put the version in the URL or the route
 * does not exist there.
 */
function successorVersionUrl(request: Request, successor: string): string | null {
  const scheme = request.versioningScheme;
  const match = request.resolverMatch;
  if (match === null || match.urlName === null) return null;
  if (
    !(scheme instanceof URLPathVersioning) &&
    !(scheme instanceof NamespaceVersioning) &&
    !(scheme instanceof QueryParameterVersioning)
  )
    return null;
  const kwargs = { ...match.kwargs };
  if (scheme instanceof URLPathVersioning) delete kwargs[scheme.versionParam ?? request.settings.VERSION_PARAM];
  const current = request.version;
  // reverse() writes the request's version into the URL: the successor's, for this one call.
  request.version = successor;
  try {
    return reverse(match.urlName, { request, kwargs });
  } catch (e) {
    if (e instanceof NoReverseMatch) return null;
    throw e;
  } finally {
    request.version = current;
  }
}

function linkTo(url: string, rel: string, type?: string): string {
  return `<${url}>; rel="${rel}"${type ? `; type="${type}"` : ''}`;
}

function appendLink(response: Response, link: string): void {
  const prev = response.getHeader('Link');
  response.setHeader('Link', prev ? `${prev}, ${link}` : link);
}

function deprecationValue(d: Date | true): string {
  return d === true ? '@1' : `@${Math.floor(d.getTime() / 1000)}`;
}

/**
 * Adds the lifecycle headers of the request's version and of the view:
 * `Deprecation` (the earlier of the two dates), `Sunset` (the earlier),
 * `Link rel="deprecation"` for each page, and `Link rel="successor-version"`.
 * @internal
 */
export function addLifecycleHeaders(response: Response, request: Request, view: VersionLifecycle | null): void {
  const { version, view: own } = lifecycles(request, view);
  const all = [version, own].filter((l): l is VersionLifecycle => l !== undefined && l !== null);
  if (all.length === 0) return;
  const deprecations = all.map((l) => l.deprecation).filter((d): d is Date | true => d !== undefined);
  if (deprecations.length > 0) {
    const dated = deprecations.filter((d): d is Date => d instanceof Date).sort((a, b) => a.getTime() - b.getTime());
    response.setHeader('Deprecation', deprecationValue(dated[0] ?? true));
  }
  const sunsets = all.map((l) => l.sunset).filter((d): d is Date => d instanceof Date);
  if (sunsets.length > 0)
    response.setHeader('Sunset', sunsets.sort((a, b) => a.getTime() - b.getTime())[0]!.toUTCString());
  for (const l of all) if (l.link !== undefined) appendLink(response, linkTo(l.link, 'deprecation', 'text/html'));
  if (version?.successor !== undefined) {
    const url = successorVersionUrl(request, version.successor);
    if (url !== null) appendLink(response, linkTo(url, 'successor-version'));
  }
  if (own?.successor !== undefined) {
    try {
      appendLink(response, linkTo(reverse(own.successor, { request }), 'successor-version'));
    } catch (e) {
      if (!(e instanceof NoReverseMatch)) throw e;
    }
  }
}

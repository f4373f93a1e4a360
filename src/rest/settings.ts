/**
 * The settings of a web API: one object with Django REST framework's keys
 * (`DEFAULT_PAGINATION_CLASS`, `PAGE_SIZE`, `DEFAULT_VERSIONING_CLASS`,
 * `DEFAULT_VERSION`, `ALLOWED_VERSIONS`, `VERSION_PARAM`, ...), checked when
 * the API is built so that a mistake fails at start-up with a clear
 * {@link ImproperlyConfigured} error instead of a 500 on some request.
 *
 * Views and paginators read the settings of the API that serves them
 * (`request.settings`); a class attribute left `undefined` falls back to the
 * setting of the same meaning.
 *
 * @module
 */
import type { FilterBackendClass, RendererClass, Settings } from './contracts.js';
import { compressionSettings } from './compression.js';
import { corsSettings } from './cors.js';
import { ImproperlyConfigured } from './errors.js';
import { BrowsableAPIRenderer, JSONRenderer } from './renderers.js';

export type { PaginationClass, Settings, VersioningClass, VersionLifecycle } from './contracts.js';

/**
 * The settings a caller may give: any subset of {@link Settings}.
 * @example
 * ```ts
 * const user: SettingsInput = { ALLOWED_VERSIONS: ['v1', 'v2'], DEFAULT_VERSION: 'v1' };
 * ```
 */
export type SettingsInput = { -readonly [K in keyof Settings]?: Settings[K] };

/** The renderers when `DEFAULT_RENDERER_CLASSES` is not given: JSON first, then the browsable page. */
const DEFAULT_RENDERERS: readonly RendererClass[] = Object.freeze([JSONRenderer, BrowsableAPIRenderer]);
/** The filter backends when `DEFAULT_FILTER_BACKENDS` is not given: none. */
const NO_FILTERS: readonly FilterBackendClass[] = Object.freeze([]);

const KEYS: readonly (keyof Settings)[] = [
  'DEFAULT_PAGINATION_CLASS',
  'PAGE_SIZE',
  'MAX_PAGE_SIZE',
  'MAX_LIMIT',
  'SILENCED_CHECKS',
  'CURSOR_SIGNING_KEY',
  'DEFAULT_VERSIONING_CLASS',
  'DEFAULT_VERSION',
  'ALLOWED_VERSIONS',
  'VERSION_PARAM',
  'DEFAULT_RENDERER_CLASSES',
  'DEFAULT_FILTER_BACKENDS',
  'URL_FORMAT_OVERRIDE',
  'ORDERING_PARAM',
  'SECURE_PROXY_SSL_HEADER',
  'USE_X_FORWARDED_HOST',
  'ALLOWED_HOSTS',
  'MAX_BODY_SIZE',
  'VERSION_LIFECYCLE',
  'PAGINATION_TEMPLATES',
  'COMPRESSION',
  'CORS',
];

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- describes a rejected setting value of any type in an error message
  return typeof v === 'function' ? 'a function' : `${typeof v} ${String(v)}`;
}

function isClass(v: unknown): boolean {
  return typeof v === 'function' && v.prototype !== undefined;
}

/**
 * Validates settings and fills in the defaults. Throws
 * {@link ImproperlyConfigured} naming the key and what is wrong: an unknown
 * key (a likely typo), `ALLOWED_VERSIONS` given as a string, `PAGE_SIZE` not
 * a positive integer, `PAGE_SIZE` without a pagination class, a class
 * setting that is not a class, ...
 * @example
 * ```ts
 * const settings = createSettings({
 *   DEFAULT_PAGINATION_CLASS: PageNumberPagination,
 *   PAGE_SIZE: 10,
 *   DEFAULT_VERSIONING_CLASS: URLPathVersioning,
 *   ALLOWED_VERSIONS: ['v1', 'v2'],
 *   DEFAULT_VERSION: 'v1',
 * });
 * ```
 */
export function createSettings(input: SettingsInput = {}): Settings {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ImproperlyConfigured(`Settings must be an object, not ${describe(input)}.`);
  }
  for (const key of Object.keys(input)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const near = KEYS.find((k) => k.replace(/_/g, '') === key.toUpperCase().replace(/_/g, ''));
      throw new ImproperlyConfigured(`Unknown setting ${key}${near ? ` (did you mean ${near}?)` : ''}.`);
    }
  }
  const s: { -readonly [K in keyof Settings]: Settings[K] } = {
    DEFAULT_PAGINATION_CLASS: input.DEFAULT_PAGINATION_CLASS ?? null,
    PAGE_SIZE: input.PAGE_SIZE ?? null,
    MAX_PAGE_SIZE: input.MAX_PAGE_SIZE ?? null,
    MAX_LIMIT: input.MAX_LIMIT ?? null,
    SILENCED_CHECKS: Object.freeze([...(input.SILENCED_CHECKS ?? [])]),
    CURSOR_SIGNING_KEY: input.CURSOR_SIGNING_KEY ?? null,
    DEFAULT_VERSIONING_CLASS: input.DEFAULT_VERSIONING_CLASS ?? null,
    DEFAULT_VERSION: input.DEFAULT_VERSION ?? null,
    ALLOWED_VERSIONS: input.ALLOWED_VERSIONS ?? null,
    VERSION_PARAM: input.VERSION_PARAM ?? 'version',
    DEFAULT_RENDERER_CLASSES: input.DEFAULT_RENDERER_CLASSES ?? DEFAULT_RENDERERS,
    DEFAULT_FILTER_BACKENDS: input.DEFAULT_FILTER_BACKENDS ?? NO_FILTERS,
    URL_FORMAT_OVERRIDE: input.URL_FORMAT_OVERRIDE === undefined ? 'format' : input.URL_FORMAT_OVERRIDE,
    ORDERING_PARAM: input.ORDERING_PARAM ?? 'ordering',
    SECURE_PROXY_SSL_HEADER: input.SECURE_PROXY_SSL_HEADER ?? null,
    USE_X_FORWARDED_HOST: input.USE_X_FORWARDED_HOST ?? false,
    ALLOWED_HOSTS: input.ALLOWED_HOSTS ?? null,
    MAX_BODY_SIZE: input.MAX_BODY_SIZE ?? 2_621_440,
    VERSION_LIFECYCLE: input.VERSION_LIFECYCLE ?? {},
    PAGINATION_TEMPLATES: Object.freeze({ ...input.PAGINATION_TEMPLATES }),
    COMPRESSION: compressionSettings(input.COMPRESSION),
    CORS: corsSettings(input.CORS),
  };
  const templates: unknown = input.PAGINATION_TEMPLATES ?? {};
  if (
    typeof templates !== 'object' ||
    templates === null ||
    Array.isArray(templates) ||
    !Object.values(templates).every((t) => typeof t === 'function')
  ) {
    throw new ImproperlyConfigured(
      `PAGINATION_TEMPLATES must be an object of template name to function (context to markup), not ${describe(templates)}.`,
    );
  }
  const bad = (key: string, want: string, got: unknown): never => {
    throw new ImproperlyConfigured(`${key} must be ${want}, not ${describe(got)}.`);
  };
  if (s.DEFAULT_PAGINATION_CLASS !== null && !isClass(s.DEFAULT_PAGINATION_CLASS))
    bad('DEFAULT_PAGINATION_CLASS', 'a pagination class or null', s.DEFAULT_PAGINATION_CLASS);
  if (s.DEFAULT_VERSIONING_CLASS !== null && !isClass(s.DEFAULT_VERSIONING_CLASS))
    bad('DEFAULT_VERSIONING_CLASS', 'a versioning class or null', s.DEFAULT_VERSIONING_CLASS);
  if (s.PAGE_SIZE !== null && !(Number.isSafeInteger(s.PAGE_SIZE) && s.PAGE_SIZE >= 0))
    bad('PAGE_SIZE', 'a non-negative integer or null', s.PAGE_SIZE);
  for (const key of ['MAX_PAGE_SIZE', 'MAX_LIMIT'] as const) {
    const v = s[key];
    if (v !== null && !(Number.isSafeInteger(v) && v > 0)) bad(key, 'a positive integer or null', v);
  }
  const signingKey: unknown = s.CURSOR_SIGNING_KEY;
  if (signingKey !== null) {
    // The key itself never appears in the message.
    if (typeof signingKey !== 'string')
      bad('CURSOR_SIGNING_KEY', 'a secret string of at least 32 characters, or null', typeof signingKey);
    else if (signingKey.length < 32)
      throw new ImproperlyConfigured(
        `CURSOR_SIGNING_KEY must be a secret string of at least 32 characters, not one of ${signingKey.length}.`,
      );
  }
  const silenced: unknown = input.SILENCED_CHECKS ?? [];
  if (!Array.isArray(silenced) || !silenced.every((c) => typeof c === 'string'))
    bad('SILENCED_CHECKS', 'an array of check identifiers', silenced);
  if (s.DEFAULT_VERSION !== null && typeof s.DEFAULT_VERSION !== 'string')
    bad('DEFAULT_VERSION', 'a string or null', s.DEFAULT_VERSION);
  if (s.ALLOWED_VERSIONS !== null) {
    if (!Array.isArray(s.ALLOWED_VERSIONS))
      bad('ALLOWED_VERSIONS', 'an array of version strings (for example ["v1", "v2"])', s.ALLOWED_VERSIONS);
    for (const v of s.ALLOWED_VERSIONS as unknown[])
      if (v !== null && typeof v !== 'string') bad('each entry of ALLOWED_VERSIONS', 'a string or null', v);
  }
  if (typeof s.VERSION_PARAM !== 'string' || s.VERSION_PARAM === '')
    bad('VERSION_PARAM', 'a non-empty string', s.VERSION_PARAM);
  if (!Array.isArray(s.DEFAULT_RENDERER_CLASSES) || !s.DEFAULT_RENDERER_CLASSES.every(isClass))
    bad('DEFAULT_RENDERER_CLASSES', 'an array of renderer classes', s.DEFAULT_RENDERER_CLASSES);
  if (!Array.isArray(s.DEFAULT_FILTER_BACKENDS) || !s.DEFAULT_FILTER_BACKENDS.every(isClass))
    bad('DEFAULT_FILTER_BACKENDS', 'an array of filter backend classes', s.DEFAULT_FILTER_BACKENDS);
  if (s.URL_FORMAT_OVERRIDE !== null && (typeof s.URL_FORMAT_OVERRIDE !== 'string' || s.URL_FORMAT_OVERRIDE === ''))
    bad('URL_FORMAT_OVERRIDE', 'a non-empty string or null', s.URL_FORMAT_OVERRIDE);
  if (typeof s.ORDERING_PARAM !== 'string' || s.ORDERING_PARAM === '')
    bad('ORDERING_PARAM', 'a non-empty string', s.ORDERING_PARAM);
  if (s.SECURE_PROXY_SSL_HEADER !== null) {
    const h = s.SECURE_PROXY_SSL_HEADER as unknown;
    if (!Array.isArray(h) || h.length !== 2 || typeof h[0] !== 'string' || typeof h[1] !== 'string')
      bad('SECURE_PROXY_SSL_HEADER', 'a [header, value] pair of strings or null', h);
  }
  if (typeof s.USE_X_FORWARDED_HOST !== 'boolean') bad('USE_X_FORWARDED_HOST', 'a boolean', s.USE_X_FORWARDED_HOST);
  if (
    s.ALLOWED_HOSTS !== null &&
    (!Array.isArray(s.ALLOWED_HOSTS) || !s.ALLOWED_HOSTS.every((h) => typeof h === 'string'))
  )
    bad('ALLOWED_HOSTS', 'an array of host names or null', s.ALLOWED_HOSTS);
  if (!(Number.isSafeInteger(s.MAX_BODY_SIZE) && s.MAX_BODY_SIZE >= 0))
    bad('MAX_BODY_SIZE', 'a non-negative integer', s.MAX_BODY_SIZE);
  if (typeof s.VERSION_LIFECYCLE !== 'object' || s.VERSION_LIFECYCLE === null || Array.isArray(s.VERSION_LIFECYCLE))
    bad('VERSION_LIFECYCLE', 'an object keyed by version', s.VERSION_LIFECYCLE);
  for (const [version, life] of Object.entries(s.VERSION_LIFECYCLE)) {
    const key = `VERSION_LIFECYCLE[${JSON.stringify(version)}]`;
    if (typeof life !== 'object' || life === null) bad(key, 'an object', life);
    if (
      life.deprecation !== undefined &&
      life.deprecation !== true &&
      !(life.deprecation instanceof Date && !Number.isNaN(life.deprecation.getTime()))
    )
      bad(`${key}.deprecation`, 'a valid Date or true', life.deprecation);
    if (life.sunset !== undefined && !(life.sunset instanceof Date && !Number.isNaN(life.sunset.getTime())))
      bad(`${key}.sunset`, 'a valid Date', life.sunset);
    if (life.link !== undefined && typeof life.link !== 'string') bad(`${key}.link`, 'a URL string', life.link);
    if (life.successor !== undefined) {
      if (typeof life.successor !== 'string' || life.successor === '')
        bad(`${key}.successor`, 'a version string', life.successor);
      else if (s.ALLOWED_VERSIONS !== null && !s.ALLOWED_VERSIONS.includes(life.successor))
        bad(`${key}.successor`, 'one of ALLOWED_VERSIONS', life.successor);
    }
    if (life.goneAfterSunset !== undefined && typeof life.goneAfterSunset !== 'boolean')
      bad(`${key}.goneAfterSunset`, 'a boolean', life.goneAfterSunset);
    if (life.goneAfterSunset === true && life.sunset === undefined)
      bad(`${key}.goneAfterSunset`, 'set only with a sunset date', true);
  }
  if (s.ALLOWED_VERSIONS) s.ALLOWED_VERSIONS = Object.freeze([...s.ALLOWED_VERSIONS]);
  return Object.freeze(s);
}

/**
 * A configuration check's finding (Django's system checks): an identifier,
 * the message and a hint.
 * @example
 * ```ts
 * for (const w of checkSettings(createSettings({ PAGE_SIZE: 10 }))) console.warn(w.id, w.message);
 * ```
 */
export interface SettingsWarning {
  readonly id: string;
  readonly message: string;
  readonly hint: string;
}

/**
 * The warnings settings deserve (DRF's system checks), minus those listed
 * in `SILENCED_CHECKS`. `W001`: `PAGE_SIZE` without
 * `DEFAULT_PAGINATION_CLASS` (fine when views set their own pagination
 * class: silence it then). A `RestApi` logs them once, when it is built.
 * @example
 * ```ts
 * checkSettings(createSettings({ PAGE_SIZE: 10 })); // [{ id: 'W001', ... }]
 * checkSettings(createSettings({ PAGE_SIZE: 10, SILENCED_CHECKS: ['W001'] })); // []
 * ```
 */
export function checkSettings(settings: Settings): SettingsWarning[] {
  const out: SettingsWarning[] = [];
  if (settings.PAGE_SIZE && settings.DEFAULT_PAGINATION_CLASS === null) {
    out.push({
      id: 'W001',
      message:
        'You have specified a default PAGE_SIZE pagination setting, without specifying also a DEFAULT_PAGINATION_CLASS.',
      hint: 'The default for DEFAULT_PAGINATION_CLASS is null. If you wish to define PAGE_SIZE globally whilst defining paginationClass on a per-view basis you may silence this check (SILENCED_CHECKS: ["W001"]).',
    });
  }
  return out.filter((w) => !settings.SILENCED_CHECKS.includes(w.id));
}

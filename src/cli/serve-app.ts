/**
 * `eventide serve --app FILE`: loading the user's module (the contract is
 * `ServeAppModule` of `eventide/rest`), checking it, and the API the command
 * serves in its stead.
 *
 * Each serving process (each worker of `--workers N`) imports the module
 * itself; a primary only checks that the file exists, so that it holds
 * nothing the module opens. What the module exports is checked at once: a
 * file that cannot be imported, no default export, a default export that is
 * not a `RestApi` (or a function whose result is not one), a `ready` or
 * `close` that is not a function: one line naming the file and the problem.
 *
 * The API served is a copy of the module's, built from the same options
 * (`REBUILD` of `RestApi`): its `onResponse` first feeds the command's
 * metrics and access log, then calls the app's own; it has request ids
 * (`X-Request-Id` unless the app chose another header); it logs through
 * the command's logger unless the app gave its own; and the flags given
 * (`--allowed-hosts`, `--trust-proxy`, `--compression`,
 * `--compression-threshold`, `--cors-origins`) replace the matching part of
 * its settings. Anything else of the app stands.
 *
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RestApi, REBUILD, type AccessLogEntry } from '../rest/api.js';
import type { ServeAppContext } from '../rest/app-module.js';
import type { HttpLogger } from '../http/log.js';
import { createSettings, type SettingsInput } from '../rest/settings.js';
import type { ServeOptions } from './serve-options.js';

/**
 * A loaded app module: its API as it built it, and its optional hooks.
 * @example
 * ```ts
 * declare const app: LoadedApp;
 * const problem = app.ready !== null ? await app.ready() : null;
 * ```
 */
export interface LoadedApp {
  /** The module's absolute path. */
  readonly file: string;
  /** The API the module's default export is or returned. */
  readonly api: RestApi;
  /** Its `ready` export, or null. */
  readonly ready: (() => Promise<string | null> | string | null) | null;
  /** Its `close` export, or null. */
  readonly close: (() => Promise<void> | void) | null;
}

/**
 * The absolute path of `--app FILE` (relative to `cwd`), or why it cannot be
 * served (it does not exist, or is not a file): a check that imports nothing.
 * @example
 * ```ts
 * const where = appFile('dist/app.js');
 * if (typeof where !== 'string') console.error(where.problem);
 * ```
 */
export function appFile(file: string, cwd: string = process.cwd()): string | { problem: string } {
  const abs = isAbsolute(file) ? file : resolve(cwd, file);
  if (!existsSync(abs)) return { problem: `cannot load the app ${abs}: no such file` };
  if (!statSync(abs).isFile()) return { problem: `cannot load the app ${abs}: not a file` };
  return abs;
}

/** A value as a message names it. */
function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') {
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `an instance of ${name}` : 'a plain object';
  }
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.slice(0, 40))}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `the ${typeof v} ${String(v)}`;
  return typeof v;
}

/** The first line of an error's message. */
function firstLine(e: unknown): string {
  const text = e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);
  return text.split('\n')[0] ?? '';
}

/** Why a value is not the API, or null when it is one. */
function notAnApi(v: unknown, what: string): string | null {
  if (v instanceof RestApi) return null;
  const name = (v as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  if (name === 'RestApi')
    return (
      `${what} is a RestApi of another copy of eventide: import eventide/rest from the installation that runs ` +
      'eventide serve, as an ES module ("type": "module" in package.json, or a .mjs file)'
    );
  return `${what} is ${describe(v)}, not a RestApi`;
}

/**
 * Imports the module at `file` (absolute) and checks its exports; a default
 * export that is a function is called with `context` (and awaited). Resolves
 * with the app, or with the one-line problem (`cannot load the app FILE:
 * ...`); never rejects.
 * @example
 * ```ts
 * declare const context: ServeAppContext;
 * const loaded = await loadServeApp('/srv/api/dist/app.js', context);
 * if ('problem' in loaded) console.error(loaded.problem);
 * ```
 */
export async function loadServeApp(file: string, context: ServeAppContext): Promise<LoadedApp | { problem: string }> {
  const fail = (problem: string): { problem: string } => ({ problem: `cannot load the app ${file}: ${problem}` });
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const hint =
      code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?ts$/.test(file)
        ? ' (a .ts file needs a TypeScript loader: node --import tsx, or build it to .js)'
        : '';
    return fail(`the import failed: ${firstLine(e)}${hint}`);
  }
  for (const hook of ['ready', 'close'] as const) {
    if (mod[hook] !== undefined && typeof mod[hook] !== 'function')
      return fail(`its export ${hook} is ${describe(mod[hook])}, not a function`);
  }
  if (!('default' in mod) || mod['default'] === undefined)
    return fail('it has no default export (export default the RestApi, or a function returning it)');
  let api: unknown = mod['default'];
  if (typeof api === 'function') {
    try {
      api = await (api as (c: ServeAppContext) => unknown)(context);
    } catch (e) {
      return fail(`its default export (a function) threw: ${firstLine(e)}`);
    }
    const problem = notAnApi(api, 'what its default export (a function) returned');
    if (problem !== null) return fail(problem);
  } else {
    const problem = notAnApi(api, 'its default export');
    if (problem !== null) return fail(problem);
  }
  return {
    file,
    api: api as RestApi,
    ready: (mod['ready'] as LoadedApp['ready'] | undefined) ?? null,
    close: (mod['close'] as LoadedApp['close'] | undefined) ?? null,
  };
}

/**
 * What `/readyz` reports for an app: null when its `ready()` returns null
 * within `deadlineMs`; otherwise the string it returned, its rejection's
 * message, or that it did not answer in time. Without `ready`, always null.
 * @example
 * ```ts
 * declare const app: LoadedApp;
 * const problem = await appProblem(app.ready, 1000); // null: ready
 * ```
 */
export async function appProblem(ready: LoadedApp['ready'], deadlineMs: number): Promise<string | null> {
  if (ready === null) return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>(
    (r) => (timer = setTimeout(() => r(`no answer within ${deadlineMs} ms`), deadlineMs)),
  );
  try {
    const answer = Promise.resolve(ready()).then((v) =>
      v === null || v === undefined ? null : typeof v === 'string' ? v : `ready() returned ${describe(v)}`,
    );
    return await Promise.race([answer, late]);
  } catch (e) {
    return firstLine(e) || 'ready() failed';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the command lays over an app's API.
 * @example
 * ```ts
 * import type { ServeOptions } from './serve-options.js';
 * declare const o: ServeOptions;
 * const hooks: AppHooks = { options: o, onResponse: () => {}, logger: { error() {}, warn() {} }, requestIdHeader: 'X-Request-Id' };
 * ```
 */
export interface AppHooks {
  /** The command's options: the flags given among them change the settings. */
  readonly options: ServeOptions;
  /** The command's metrics and access log, called before the app's own `onResponse`. */
  readonly onResponse: (entry: AccessLogEntry) => void;
  /** The logger of an API built without one. */
  readonly logger: HttpLogger;
  /** The request-id header of an API built without one. */
  readonly requestIdHeader: string;
}

/**
 * The settings that the flags given replace in an app's settings
 * (`settings` are the app's): `--allowed-hosts` its `ALLOWED_HOSTS`,
 * `--trust-proxy` `USE_X_FORWARDED_HOST` and `SECURE_PROXY_SSL_HEADER`,
 * `--compression` (and `--compression-threshold`) the codings (and the
 * threshold) of `COMPRESSION` (`off`: null), `--cors-origins` the allowed
 * origins of `CORS`, the rest of each setting as the app has it.
 * @example
 * ```ts
 * import { parseServeArgs } from './serve-options.js';
 * const o = parseServeArgs(['--app', 'app.js', '--allowed-hosts', 'api.example.com']);
 * appSettingOverrides(o, createSettings({})); // { ALLOWED_HOSTS: ['api.example.com'] }
 * ```
 */
export function appSettingOverrides(o: ServeOptions, settings: SettingsInput): SettingsInput {
  const given = (name: string): boolean => o.given.includes(name);
  const out: { -readonly [K in keyof SettingsInput]: SettingsInput[K] } = {};
  if (given('allowed-hosts') && o.allowedHosts !== null) out.ALLOWED_HOSTS = [...o.allowedHosts];
  if (given('trust-proxy')) {
    out.USE_X_FORWARDED_HOST = o.trustProxy;
    out.SECURE_PROXY_SSL_HEADER = o.trustProxy ? ['X-Forwarded-Proto', 'https'] : null;
  }
  if (given('compression'))
    out.COMPRESSION =
      o.compression === null
        ? null
        : {
            ...settings.COMPRESSION,
            encodings: o.compression,
            ...(given('compression-threshold') ? { threshold: o.compressionThreshold } : {}),
          };
  if (given('cors-origins') && o.corsOrigins !== null)
    out.CORS = { ...settings.CORS, allowedOrigins: o.corsOrigins === '*' ? '*' : [...o.corsOrigins] };
  return out;
}

/**
 * The API the command serves for an app: a copy of `api` with `hooks` laid
 * over it (see the module's description). Throws `ImproperlyConfigured`
 * when a flag makes the app's settings invalid (`--cors-origins '*'` with
 * the app's `allowCredentials`).
 * @example
 * ```ts
 * declare const app: LoadedApp;
 * declare const hooks: AppHooks;
 * servedAppApi(app.api, hooks).serve(http);
 * ```
 */
export function servedAppApi(api: RestApi, hooks: AppHooks): RestApi {
  return api[REBUILD]((options) => {
    const overrides = appSettingOverrides(hooks.options, options.settings);
    const own = options.onResponse;
    const ours = hooks.onResponse;
    return {
      ...options,
      settings:
        Object.keys(overrides).length > 0 ? createSettings({ ...options.settings, ...overrides }) : options.settings,
      logger: options.logger ?? hooks.logger,
      requestIdHeader: options.requestIdHeader ?? hooks.requestIdHeader,
      onResponse:
        own === undefined
          ? ours
          : (e) => {
              ours(e);
              own(e);
            },
    };
  });
}

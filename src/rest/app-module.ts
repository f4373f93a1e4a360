/**
 * The contract of an app module, the ES module that `eventide serve --app
 * FILE` serves (docs/serve.md, "Serving your own API"): its default export
 * is a {@link RestApi} or a function (maybe async) that builds one from a
 * {@link ServeAppContext}; it may also export `ready()` (what `/readyz`
 * asks) and `close()` (called at shutdown once the requests in flight have
 * finished). Types only: the command loads the module and checks it.
 *
 * @module
 */
import type { HttpLogger } from '../http/log.js';
import type { RestApi } from './api.js';

/**
 * What `eventide serve --app` passes to an app module's default export when
 * that is a function: which worker builds the API, the environment, and the
 * command's logger (pino at run time: JSON lines on stdout carrying `pid`
 * and `worker`; pass it as the API's `logger` to have internal errors there
 * with their request ids, as the command does for an API built without one).
 * Each process (each worker of `--workers N`) imports the module and calls
 * the function once.
 * @example
 * ```ts
 * import { RestApi, type ServeAppContext } from 'eventide/rest';
 *
 * // app.ts: `export default app;`
 * const app = ({ worker, env, log }: ServeAppContext): RestApi => {
 *   log.info({ worker, region: env['REGION'] ?? 'local' }, 'building the API');
 *   return new RestApi({ urlpatterns: [], settings: { PAGE_SIZE: Number(env['PAGE_SIZE'] ?? 20) }, logger: log });
 * };
 * ```
 */
export interface ServeAppContext {
  /** The worker number, 1..N under `--workers N`; null when one process serves. */
  readonly worker: number | null;
  /** The process environment (`process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The command's logger: `log.info({ ... }, 'message')`, and `warn`, `error` alike. */
  readonly log: HttpLogger & { info(obj: Record<string, unknown>, msg?: string): void };
}

/**
 * The exports `eventide serve --app` reads from an app module. `default`:
 * the API, or a function (maybe async) returning it. `ready()`: null when
 * the service can take traffic, otherwise why not (`/readyz` answers 503
 * with it; an answer later than 1 s, or a rejection, is a problem too).
 * `close()`: releases what the module opened (a database pool), called once
 * the requests in flight have finished at shutdown.
 * @example
 * ```ts
 * import { RestApi, type ServeAppModule } from 'eventide/rest';
 *
 * // app.ts: `export default api; export { ready, close };`
 * const pool = { ok: true, end: async (): Promise<void> => {} };
 * const api: ServeAppModule['default'] = new RestApi({ urlpatterns: [] });
 * const ready: ServeAppModule['ready'] = () => (pool.ok ? null : 'the database is down');
 * const close: ServeAppModule['close'] = () => pool.end();
 * ```
 */
export interface ServeAppModule {
  /** The API, or a function (maybe async) that builds it. */
  readonly default: RestApi | ((context: ServeAppContext) => RestApi | Promise<RestApi>);
  /** Null when ready; otherwise the problem, as `/readyz` reports it. */
  readonly ready?: () => Promise<string | null> | string | null;
  /** Called at shutdown once the requests in flight have finished. */
  readonly close?: () => Promise<void> | void;
}

/**
 * Fallbacks: where the event layer relies on a Node.js internal, what it
 * does when the runtime lacks it (or the environment asks it not to use
 * it), and the one warning per process that says so.
 *
 * | fallback | the internal | without it |
 * |---|---|---|
 * | `lent-reads` | `net.Socket`'s `onread` fields and `_handle.useUserBuffer()` | sockets are read as streams (slower, same bytes) |
 * | `sync-bind` | `process.binding('tcp_wrap')` | TCP listeners listen asynchronously: a failure reaches the error callback and `ready` |
 * | `active-handles` | `process._getActiveHandles()` | a descriptor number is not matched to the socket or server of this process that holds it: adopting it fails with `ERR_EVENT_INVALID_DESCRIPTOR` (libuv refuses a second handle on it, so it is never closed twice); a descriptor nothing holds is adopted as before |
 *
 * `EVENTIDE_FORCE_FALLBACK` (a comma-separated list of these names, or
 * `all`) forces them, for tests and for runtimes where an internal exists
 * but misbehaves. Each fallback taken is reported once per process with
 * `process.emitWarning()` (type `EventideWarning`, code
 * `EVENTIDE_FALLBACK_<NAME>`): visible on stderr by default, to
 * `process.on('warning')`, and silenced by `--no-warnings`.
 *
 * @module
 */

/**
 * The fallbacks of the event layer (the names `EVENTIDE_FORCE_FALLBACK` takes).
 * @example
 * ```ts
 * const forced: Fallback[] = ['lent-reads', 'sync-bind'];
 * process.env.EVENTIDE_FORCE_FALLBACK = forced.join(',');
 * ```
 */
export type Fallback = 'lent-reads' | 'sync-bind' | 'active-handles';

/** The environment variable that forces fallbacks. @internal */
export const FORCE_FALLBACK_ENV = 'EVENTIDE_FORCE_FALLBACK';

/** What each fallback means for the program, for its warning. */
const CONSEQUENCE: ReadonlyMap<Fallback, string> = new Map<Fallback, string>([
  ['lent-reads', 'sockets are read as Readable streams (correct, but more work per read)'],
  [
    'sync-bind',
    'TCP listeners listen asynchronously (a failure reaches the error callback and `ready`, not the constructor)',
  ],
  [
    'active-handles',
    'a descriptor number cannot be matched to the socket or server of this process that holds it, so adopting one that is held fails (ERR_EVENT_INVALID_DESCRIPTOR) instead of reusing it',
  ],
]);

/** The fallbacks already reported in this process (a runtime's capabilities are the process's). */
const reported = new Set<Fallback>();

/**
 * Whether the environment forces `f` (`EVENTIDE_FORCE_FALLBACK`).
 * @internal
 * @example
 * ```ts
 * if (forcedFallback('lent-reads')) console.log('reading sockets as streams');
 * ```
 */
export function forcedFallback(f: Fallback): boolean {
  const v = process.env[FORCE_FALLBACK_ENV];
  if (v === undefined || v === '') return false;
  for (const part of v.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === f || name === 'all') return true;
  }
  return false;
}

/**
 * Reports, once per process, that fallback `f` is taken and why (`why`:
 * "forced by EVENTIDE_FORCE_FALLBACK", "this runtime has no ...").
 * @internal
 * @example
 * ```ts
 * reportFallback('sync-bind', "process.binding('tcp_wrap') is not available");
 * ```
 */
export function reportFallback(f: Fallback, why: string): void {
  if (reported.has(f)) return;
  reported.add(f);
  process.emitWarning(`eventide: ${why}: ${CONSEQUENCE.get(f) ?? ''}`, {
    type: 'EventideWarning',
    code: `EVENTIDE_FALLBACK_${f.toUpperCase().replaceAll('-', '_')}`,
  });
}

/**
 * The active handles of the process (`process._getActiveHandles()`), or
 * null when they cannot be listed (the runtime lacks it, or the
 * `active-handles` fallback is forced), reported once.
 * @internal
 * @example
 * ```ts
 * import { Socket } from 'node:net';
 * declare const fd: number;
 * const owner = activeHandles()?.find((h) => h instanceof Socket && (h as { _handle?: { fd?: number } })._handle?.fd === fd);
 * ```
 */
export function activeHandles(): unknown[] | null {
  if (forcedFallback('active-handles')) {
    reportFallback('active-handles', `${FORCE_FALLBACK_ENV} forces it`);
    return null;
  }
  const list = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles;
  if (typeof list !== 'function') {
    reportFallback('active-handles', 'this runtime has no process._getActiveHandles()');
    return null;
  }
  return list.call(process);
}

/**
 * The logs of `eventide serve`, through pino: one JSON object per line
 * (`time` as ISO 8601, `level` as its name, `pid`, `worker` in a worker
 * process, `msg`, and the fields of the entry), or a readable single line
 * per entry on a terminal (`--log-format pretty`). Access entries carry
 * `requestId`, `method`, `path`, `route`, `status`, `bytes`, `durationMs`
 * and `remoteAddress`; errors carry `err` with its `type`, `message` and
 * `stack`.
 *
 * Only this layer loads pino: `eventide/http` and `eventide/rest` take any
 * pino-compatible logger and load nothing.
 *
 * @module
 */
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type * as Pino from 'pino';
import { loadOptional } from '../sql/drivers.js';
import type { AccessLogEntry } from '../rest/api.js';

/**
 * The optional peer packages `eventide serve` needs: pino (its logs, here)
 * and prom-client (its `/metrics`, `observability.ts`).
 * @example
 * ```ts
 * SERVE_PACKAGES.join(' '); // 'pino prom-client'
 * ```
 */
export const SERVE_PACKAGES = Object.freeze(['pino', 'prom-client'] as const);

/**
 * Why `eventide serve` cannot run, in one line, when a package of
 * {@link SERVE_PACKAGES} cannot be found from here (it is not installed),
 * or null when all are: the command checks before it starts anything, and
 * prints the line instead of the stack of a failed import.
 * @example
 * ```ts
 * missingServePackages(); // null, or 'the package pino is not installed (eventide serve needs pino and prom-client): npm install pino prom-client'
 * ```
 */
export function missingServePackages(): string | null {
  const require = createRequire(import.meta.url);
  const missing = SERVE_PACKAGES.filter((name) => {
    try {
      require.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return null;
  const which = missing.length === 1 ? `the package ${missing[0]} is` : `the packages ${missing.join(' and ')} are`;
  return `${which} not installed (eventide serve needs ${SERVE_PACKAGES.join(' and ')}): npm install ${SERVE_PACKAGES.join(' ')}`;
}

/**
 * The levels of `--log-level`, most verbose first; `silent` logs nothing.
 * @example
 * ```ts
 * LOG_LEVELS.includes('debug'); // true
 * ```
 */
export const LOG_LEVELS = Object.freeze(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const);

/**
 * A level of {@link LOG_LEVELS}.
 * @example
 * ```ts
 * const level: LogLevel = 'warn';
 * ```
 */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * `json`: one JSON object per line; `pretty`: one readable line per entry.
 * @example
 * ```ts
 * const format: LogFormat = process.stdout.isTTY ? 'pretty' : 'json';
 * ```
 */
export type LogFormat = 'json' | 'pretty';

/**
 * How {@link createServeLogger} builds the logger.
 * @example
 * ```ts
 * const o: ServeLoggerOptions = { level: 'info', format: 'json', worker: 2 };
 * ```
 */
export interface ServeLoggerOptions {
  /** The lowest level written. */
  level: LogLevel;
  /** The line format. */
  format: LogFormat;
  /** The worker number (1..N) in a worker of `--workers N`; absent in a single process or the primary. */
  worker?: number | null;
  /** Where lines go (default: stdout, written synchronously so that nothing is lost at exit). */
  write?: (line: string) => void;
}

/**
 * The logger of `eventide serve`.
 * @example
 * ```ts
 * const log = createServeLogger({ level: 'info', format: 'json' });
 * log.info({ port: 8000 }, 'listening');
 * ```
 */
export function createServeLogger(o: ServeLoggerOptions): Logger {
  // pino is an optional peer of the package: only the command needs it.
  const { pino } = loadOptional('pino', 'eventide serve (its logs)') as typeof Pino;
  const base: Record<string, unknown> = { pid: process.pid };
  if (o.worker != null) base['worker'] = o.worker;
  const options = {
    level: o.level,
    base,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  const write = o.write;
  if (o.format === 'pretty') {
    const out = write ?? ((line: string) => void process.stdout.write(line));
    return pino(options, { write: (json: string) => out(prettyLine(json)) });
  }
  if (write !== undefined) return pino(options, { write });
  return pino(options, pino.destination({ fd: 1, sync: true }));
}

/**
 * Sends the process's warnings (`process.emitWarning()`: eventide's
 * fallbacks, Node's deprecations) to `log` at level `warn`, instead of
 * Node's own line on stderr: one entry each, with its `code`.
 * @example
 * ```ts
 * logProcessWarnings(createServeLogger({ level: 'info', format: 'json' }));
 * ```
 */
export function logProcessWarnings(log: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (w: Error & { code?: string }) => {
    log.warn({ warning: w.name, code: w.code }, w.message);
  });
}

/** A field of a log entry as text: a string as it is, anything else as JSON. */
function text(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
}

const PRETTY_SKIP: readonly string[] = Object.freeze(['time', 'level', 'pid', 'worker', 'msg', 'err']);
const ACCESS_FIELDS: readonly string[] = Object.freeze(['method', 'path', 'status', 'bytes', 'durationMs']);

/**
 * One JSON log line as a readable line: `HH:MM:SS.mmm LEVEL [pid/worker]
 * message key=value...`, an error's stack on the lines after it. A line that
 * is not JSON is returned as it is.
 * @example
 * ```ts
 * prettyLine('{"level":"info","time":"2024-01-02T03:04:05.678Z","pid":7,"msg":"hello","port":80}\n');
 * // '03:04:05.678 INFO  [7] hello port=80\n'
 * ```
 */
export function prettyLine(json: string): string {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(text(e['time']))?.[1] ?? text(e['time']);
  const level = text(e['level']).toUpperCase();
  const who = e['worker'] !== undefined ? `${text(e['pid'])}/w${text(e['worker'])}` : text(e['pid']);
  const isAccess = e['method'] !== undefined && e['status'] !== undefined && e['durationMs'] !== undefined;
  const head = isAccess
    ? `${text(e['method'])} ${text(e['path'])} ${text(e['status'])} ${text(e['bytes'])}B ${Number(e['durationMs']).toFixed(1)}ms`
    : text(e['msg']);
  const rest: string[] = [];
  for (const [k, v] of Object.entries(e)) {
    if (PRETTY_SKIP.includes(k) || (isAccess && ACCESS_FIELDS.includes(k)) || v === undefined || v === null) continue;
    rest.push(`${k}=${typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)}`);
  }
  const err = e['err'] as { stack?: unknown; message?: unknown } | undefined | null;
  const stack =
    err !== undefined && err !== null
      ? `\n    ${text(err.stack ?? err.message ?? err)
          .split('\n')
          .join('\n    ')}`
      : '';
  return `${time} ${level.padEnd(5)} [${who}] ${head}${rest.length > 0 ? ` ${rest.join(' ')}` : ''}${stack}\n`;
}

/**
 * The `onResponse` of a `RestApi` that logs one `info` entry per response
 * (`requestId`, `method`, `path`, `route`, `status`, `bytes`, `durationMs`,
 * `remoteAddress`).
 * @example
 * ```ts
 * const log = createServeLogger({ level: 'info', format: 'json' });
 * const onResponse = accessLogger(log);
 * ```
 */
export function accessLogger(log: Logger): (e: AccessLogEntry) => void {
  return (e) => {
    if (!log.isLevelEnabled('info')) return;
    log.info(
      {
        requestId: e.requestId ?? undefined,
        method: e.method,
        path: e.target,
        route: e.route ?? undefined,
        status: e.status,
        bytes: e.bytes,
        durationMs: Math.round(e.ms * 1000) / 1000,
        remoteAddress: e.remoteAddress ?? undefined,
      },
      'request',
    );
  };
}

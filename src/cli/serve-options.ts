/**
 * The command line of `eventide serve`: its options, their defaults, the
 * environment variables that set them ({@link SERVE_ENV}), the usage text,
 * and the default `ALLOWED_HOSTS` of the demo API.
 *
 * Precedence: the command line, then the environment, then the `defaults`
 * given to {@link parseServeArgs}, then {@link SERVE_DEFAULTS}. An
 * environment variable set to the empty string counts as unset.
 *
 * With `--app` (or `EVENTIDE_APP`) the command serves that module instead of
 * the demo: the demo's own options ({@link DEMO_ONLY_OPTIONS}) are refused on
 * the command line, and their variables (`DATABASE_URL` above all) are left
 * to the app to read.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { COMPRESSION_DEFAULTS, type ContentCoding } from '../rest/compression.js';
import { corsSettings } from '../rest/cors.js';
import { LOG_LEVELS, type LogFormat, type LogLevel } from './logging.js';

/**
 * The options of `eventide serve`.
 * @example
 * ```ts
 * const o: ServeOptions = parseServeArgs(['--port', '9000']);
 * ```
 */
export interface ServeOptions {
  /** An ES module whose default export is the `RestApi` to serve (or builds it); null: the demo. */
  app: string | null;
  /** The address to listen on. */
  host: string;
  /** The TCP port; 0 picks a free one. */
  port: number;
  /** A SQLite file name or a `postgres://` URL. */
  database: string;
  /** PostgreSQL read replicas (`postgres://` URLs) the reads are spread over; none by default. */
  replicas: string[];
  /** A Redis server (`redis://`) holding the count cache every process and host shares; null: each process counts. */
  redis: string | null;
  /** Rows to seed a new database with. */
  rows: number;
  /** Worker processes under a supervising primary; 0: one process serves, no workers. */
  workers: number;
  /** No access log lines. */
  quiet: boolean;
  /** Behind a trusted proxy: build links from `X-Forwarded-Host`, and `X-Forwarded-Proto: https` means https. */
  trustProxy: boolean;
  /** `ALLOWED_HOSTS` of the API; null: {@link defaultAllowedHosts} of `host`. */
  allowedHosts: string[] | null;
  /** The codings of the `COMPRESSION` setting, in order of preference; null: no compression. */
  compression: ContentCoding[] | null;
  /** The smallest body compressed, in bytes (`COMPRESSION.threshold`). */
  compressionThreshold: number;
  /** The allowed origins of the `CORS` setting (`'*'`: any); null: no CORS headers. */
  corsOrigins: '*' | string[] | null;
  /** Seconds the requests in flight may take after SIGTERM/SIGINT before their connections are closed. */
  shutdownTimeout: number;
  /** Seconds between SIGTERM/SIGINT and closing the listener: `/readyz` answers 503, everything else is still served. */
  shutdownDelay: number;
  /** The lowest level logged. */
  logLevel: LogLevel;
  /** The log line format; null: `pretty` when stdout is a terminal, `json` otherwise. */
  logFormat: LogFormat | null;
  /** With workers: restarts allowed within `restartWindow` seconds; one more crash makes the primary give up. */
  maxRestarts: number;
  /** With workers: the window (seconds) in which restarts are counted. */
  restartWindow: number;
  /** `--help`: print the usage and exit 0. */
  help: boolean;
  /** Internal: this process is a worker started by the primary. */
  worker: boolean;
  /**
   * The options the command line or the environment set, by name without
   * `--` (`compression`, `allowed-hosts`...): with `--app`, the flags that
   * change the app's settings apply only when given.
   */
  given: readonly string[];
}

/**
 * The defaults of every option.
 * @example
 * ```ts
 * SERVE_DEFAULTS.shutdownTimeout; // 10
 * ```
 */
export const SERVE_DEFAULTS: Readonly<ServeOptions> = Object.freeze({
  app: null,
  host: '127.0.0.1',
  port: 8000,
  database: 'eventide-demo.sqlite3',
  replicas: [],
  redis: null,
  rows: 100_000,
  workers: 0,
  quiet: false,
  trustProxy: false,
  allowedHosts: null,
  compression: null,
  compressionThreshold: COMPRESSION_DEFAULTS.threshold,
  corsOrigins: null,
  shutdownTimeout: 10,
  shutdownDelay: 0,
  logLevel: 'info',
  logFormat: null,
  maxRestarts: 5,
  restartWindow: 30,
  help: false,
  worker: false,
  given: [],
});

/**
 * The options of the demo alone: refused on the command line with `--app`
 * (the app opens its own database), their variables ignored.
 * @example
 * ```ts
 * DEMO_ONLY_OPTIONS.includes('database'); // true
 * ```
 */
export const DEMO_ONLY_OPTIONS: readonly string[] = Object.freeze(['database', 'rows', 'replicas', 'redis']);

/**
 * An invalid command line: the message to print (exit status 2).
 * @example
 * ```ts
 * try { parseServeArgs(['--port', 'x']); } catch (e) { if (e instanceof UsageError) console.error(e.message); }
 * ```
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

function shown(raw: string | undefined): string {
  return raw === undefined ? 'nothing' : JSON.stringify(raw);
}

function intOption(name: string, raw: string | undefined, min: number, max: number): number {
  if (raw === undefined || !/^\d+$/.test(raw)) throw new UsageError(`${name} needs an integer, got ${shown(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function secondsOption(name: string, raw: string | undefined, min: number, max: number): number {
  if (raw === undefined || !/^\d+(\.\d+)?$/.test(raw))
    throw new UsageError(`${name} needs a number of seconds, got ${shown(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`${name} must be between ${min} and ${max} seconds, got ${n}`);
  return n;
}

function hostList(label: string, raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  if (list.length === 0) throw new UsageError(`${label} needs a comma-separated list of host names, got ${shown(raw)}`);
  const bad = list.find((h) => /[\s/\\@]/.test(h));
  if (bad !== undefined) throw new UsageError(`${label}: ${JSON.stringify(bad)} is not a host name`);
  return list;
}

/**
 * The environment variable of each option that takes a value (and of
 * `--quiet`): `EVENTIDE_<OPTION>`, and `DATABASE_URL` for `--database`.
 * @example
 * ```ts
 * SERVE_ENV['port']; // 'EVENTIDE_PORT'
 * ```
 */
export const SERVE_ENV: Readonly<Record<string, string>> = Object.freeze({
  app: 'EVENTIDE_APP',
  host: 'EVENTIDE_HOST',
  port: 'EVENTIDE_PORT',
  database: 'DATABASE_URL',
  replicas: 'EVENTIDE_REPLICAS',
  redis: 'EVENTIDE_REDIS_URL',
  rows: 'EVENTIDE_ROWS',
  workers: 'EVENTIDE_WORKERS',
  'allowed-hosts': 'EVENTIDE_ALLOWED_HOSTS',
  compression: 'EVENTIDE_COMPRESSION',
  'compression-threshold': 'EVENTIDE_COMPRESSION_THRESHOLD',
  'cors-origins': 'EVENTIDE_CORS_ORIGINS',
  'shutdown-timeout': 'EVENTIDE_SHUTDOWN_TIMEOUT',
  'shutdown-delay': 'EVENTIDE_SHUTDOWN_DELAY',
  'max-restarts': 'EVENTIDE_MAX_RESTARTS',
  'restart-window': 'EVENTIDE_RESTART_WINDOW',
  'log-level': 'EVENTIDE_LOG_LEVEL',
  'log-format': 'EVENTIDE_LOG_FORMAT',
  quiet: 'EVENTIDE_QUIET',
  'trust-proxy': 'EVENTIDE_TRUST_PROXY',
});

/** A yes/no variable: 1, true, yes or 0, false, no. */
function flagOption(label: string, raw: string | undefined): boolean {
  const v = raw?.toLowerCase();
  if (v === '1' || v === 'true' || v === 'yes') return true;
  if (v === '0' || v === 'false' || v === 'no') return false;
  throw new UsageError(`${label} must be 1, true, yes, 0, false or no, got ${shown(raw)}`);
}

/** `off`, `on` (brotli, then gzip), or the codings in order of preference (`gzip`, `gzip,br`). */
function compressionOption(label: string, raw: string | undefined): ContentCoding[] | null {
  const v = (raw ?? '').trim().toLowerCase();
  if (v === 'off') return null;
  if (v === 'on') return [...COMPRESSION_DEFAULTS.encodings];
  const list = v.split(',').map((c) => c.trim());
  const known: readonly string[] = COMPRESSION_DEFAULTS.encodings;
  if (v === '' || !list.every((c) => known.includes(c)) || new Set(list).size !== list.length)
    throw new UsageError(
      `${label} must be off, on, or codings among ${known.join(', ')} separated by commas (br,gzip), got ${shown(raw)}`,
    );
  return list as ContentCoding[];
}

/** `*`, or origins (`scheme://host[:port]`) separated by commas, each checked as the `CORS` setting checks it. */
function originList(label: string, raw: string | undefined): '*' | string[] {
  const list = (raw ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  if (list.length === 0)
    throw new UsageError(
      `${label} needs * or origins separated by commas (https://app.example.com), got ${shown(raw)}`,
    );
  if (list.includes('*')) {
    if (list.length > 1) throw new UsageError(`${label}: * allows every origin and stands alone, not in a list`);
    return '*';
  }
  for (const origin of list) {
    try {
      corsSettings({ allowedOrigins: [origin] });
    } catch {
      throw new UsageError(
        `${label}: ${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path, no trailing slash)`,
      );
    }
  }
  return list;
}

/** Sets option `name` of `o` from `raw`; `label` names it in messages (`--port` or `EVENTIDE_PORT`). */
function setOption(o: ServeOptions, name: string, raw: string | undefined, label: string): void {
  switch (name) {
    case 'app':
      if (raw === undefined || raw === '') throw new UsageError(`${label} needs the path of an ES module`);
      o.app = raw;
      return;
    case 'host':
      if (raw === undefined || raw === '') throw new UsageError(`${label} needs an address`);
      o.host = raw;
      return;
    case 'port':
      o.port = intOption(label, raw, 0, 65535);
      return;
    case 'database':
      if (raw === undefined || raw === '') throw new UsageError(`${label} needs a file name or a postgres:// URL`);
      o.database = raw;
      return;
    case 'replicas': {
      const urls = (raw ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter((u) => u !== '');
      const bad = urls.find((u) => !/^postgres(?:ql)?:\/\//i.test(u));
      if (urls.length === 0 || bad !== undefined)
        throw new UsageError(`${label} needs postgres:// URLs separated by commas${bad ? `, got ${shown(bad)}` : ''}`);
      o.replicas = urls;
      return;
    }
    case 'redis':
      if (raw === undefined || !/^rediss?:\/\//i.test(raw))
        throw new UsageError(`${label} needs a redis:// URL, got ${shown(raw)}`);
      o.redis = raw;
      return;
    case 'rows':
      o.rows = intOption(label, raw, 1, 100_000_000);
      return;
    case 'workers':
      o.workers = intOption(label, raw, 1, 64);
      return;
    case 'allowed-hosts':
      o.allowedHosts = hostList(label, raw);
      return;
    case 'compression':
      o.compression = compressionOption(label, raw);
      return;
    case 'compression-threshold':
      o.compressionThreshold = intOption(label, raw, 0, 1024 * 1024 * 1024);
      return;
    case 'cors-origins':
      o.corsOrigins = originList(label, raw);
      return;
    case 'shutdown-timeout':
      o.shutdownTimeout = secondsOption(label, raw, 0, 3600);
      return;
    case 'shutdown-delay':
      o.shutdownDelay = secondsOption(label, raw, 0, 3600);
      return;
    case 'max-restarts':
      o.maxRestarts = intOption(label, raw, 0, 1000);
      return;
    case 'restart-window':
      o.restartWindow = secondsOption(label, raw, 1, 86_400);
      return;
    case 'log-level': {
      const level = LOG_LEVELS.find((l) => l === raw?.toLowerCase());
      if (level === undefined)
        throw new UsageError(`${label} must be one of ${LOG_LEVELS.join(', ')}, got ${shown(raw)}`);
      o.logLevel = level;
      return;
    }
    case 'log-format': {
      const f = raw?.toLowerCase();
      if (f !== 'json' && f !== 'pretty') throw new UsageError(`${label} must be json or pretty, got ${shown(raw)}`);
      o.logFormat = f;
      return;
    }
    case 'quiet':
      o.quiet = flagOption(label, raw);
      return;
    case 'trust-proxy':
      o.trustProxy = flagOption(label, raw);
      return;
  }
}

/**
 * Parses the arguments of `eventide serve`; the variables of
 * {@link SERVE_ENV} in `env` come before them, and `defaults` replace the
 * built-in defaults ({@link SERVE_DEFAULTS}) before both. Throws a
 * {@link UsageError} for an invalid command line or variable (the message
 * names the option or the variable).
 * @example
 * ```ts
 * parseServeArgs(['--rows', '1000', '--database', ':memory:']).rows; // 1000
 * parseServeArgs(['--port', '9000'], {}, { EVENTIDE_PORT: '8080', EVENTIDE_HOST: '0.0.0.0' }); // port 9000, host 0.0.0.0
 * ```
 */
export function parseServeArgs(
  args: readonly string[],
  defaults: Partial<ServeOptions> = {},
  env: Readonly<Record<string, string | undefined>> = {},
): ServeOptions {
  const o: ServeOptions = { ...SERVE_DEFAULTS, ...defaults };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: joinValues(args), options: PARSE_OPTIONS, strict: true, allowPositionals: false }));
  } catch (e) {
    throw usageFrom(e as Error & { code?: string });
  }
  const isApp = 'app' in values || (env[SERVE_ENV['app'] as string] ?? '') !== '' || o.app !== null;
  const given = new Set<string>();
  for (const [name, variable] of Object.entries(SERVE_ENV)) {
    const raw = env[variable];
    // With --app, DATABASE_URL and the demo's other variables are the app's to read.
    if (raw === undefined || raw === '' || (isApp && DEMO_ONLY_OPTIONS.includes(name))) continue;
    setOption(o, name, raw, variable);
    given.add(name);
  }
  for (const [name, spec] of Object.entries(PARSE_OPTIONS)) {
    if (!(name in values)) continue;
    if (isApp && DEMO_ONLY_OPTIONS.includes(name))
      throw new UsageError(`--${name} is an option of the demo; with --app the module opens its own data`);
    if (name !== 'help' && name !== 'worker') given.add(name);
    if (spec.type !== 'string') continue;
    setOption(o, name, values[name] as string | undefined, `--${name}`);
  }
  o.given = [...given];
  if (!isApp && o.replicas.length > 0 && !/^postgres(?:ql)?:\/\//i.test(o.database))
    throw new UsageError('--replicas needs a postgres:// --database (the primary)');
  const threshold =
    values['compression-threshold'] !== undefined
      ? '--compression-threshold'
      : (env[SERVE_ENV['compression-threshold'] as string] ?? '') !== ''
        ? SERVE_ENV['compression-threshold']
        : undefined;
  if (threshold !== undefined && o.compression === null)
    throw new UsageError(`${threshold} needs --compression (compression is off)`);
  if (values['quiet'] === true) o.quiet = true;
  if (values['trust-proxy'] === true) o.trustProxy = true;
  if (values['help'] === true) o.help = true;
  if (values['worker'] === true) o.worker = true;
  return o;
}

/** The options of `eventide serve` as `node:util` `parseArgs` takes them. */
const PARSE_OPTIONS = {
  app: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  database: { type: 'string' },
  replicas: { type: 'string' },
  redis: { type: 'string' },
  rows: { type: 'string' },
  workers: { type: 'string' },
  'allowed-hosts': { type: 'string' },
  compression: { type: 'string' },
  'compression-threshold': { type: 'string' },
  'cors-origins': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'shutdown-delay': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'max-restarts': { type: 'string' },
  'restart-window': { type: 'string' },
  quiet: { type: 'boolean' },
  'trust-proxy': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  worker: { type: 'boolean' },
} as const;

/**
 * `--name value` as `--name=value` for the options that take a value, so a
 * value that starts with `-` (`--shutdown-timeout -1`) reaches its check and
 * its message instead of parseArgs' "ambiguous" error.
 */
function joinValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const name = a.startsWith('--') ? a.slice(2) : '';
    const spec = (PARSE_OPTIONS as Record<string, { type: string }>)[name];
    if (spec?.type === 'string' && i + 1 < args.length) out.push(`${a}=${args[++i] as string}`);
    else out.push(a);
  }
  return out;
}

/** A parseArgs error as the usage message of the option it is about. */
function usageFrom(e: Error & { code?: string }): UsageError {
  const quoted = /'(-[^' ]+)/.exec(e.message)?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${quoted}`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument ${/'([^']+)'/.exec(e.message)?.[1] ?? ''}`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(`${quoted} needs a value`);
    default:
      return new UsageError(e.message);
  }
}

/**
 * The `ALLOWED_HOSTS` of the demo API when `--allowed-hosts` is not given:
 * the loopback names, the `--host` address (bracketed when IPv6) and
 * `.example.com` (the domain and its subdomains: the host-name versioning
 * endpoint answers `v1.example.com` and `v2.example.com`).
 * @example
 * ```ts
 * defaultAllowedHosts('0.0.0.0'); // ['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '.example.com']
 * ```
 */
export function defaultAllowedHosts(host: string): string[] {
  const list = ['localhost', '127.0.0.1', '[::1]'];
  const named = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  if (!list.includes(named.toLowerCase())) list.push(named);
  list.push('.example.com');
  return list;
}

/**
 * The usage text of `eventide serve`: every option with its default, the
 * signals and the exit statuses.
 * @example
 * ```ts
 * process.stdout.write(SERVE_USAGE);
 * ```
 */
export const SERVE_USAGE = `Usage: eventide serve [OPTIONS]

Serves the demo catalog API, or your own RestApi with --app, on EventHttp,
with /healthz, /readyz and /metrics beside it. Each option can also be set
by the environment variable in brackets; the command line wins.

Options:
  --app FILE                serve this ES module instead of the demo: its
                            default export is a RestApi, or a function (maybe
                            async) of { worker, env, log } returning one; it
                            may export ready() (for /readyz) and close()
                            (called at shutdown); relative to the working
                            directory; a .ts file needs a loader such as tsx
                            (node --import tsx). --database, --rows,
                            --replicas and --redis are the demo's
                            [EVENTIDE_APP]
  --host ADDRESS            address to listen on (default ${SERVE_DEFAULTS.host})
                            [EVENTIDE_HOST]
  --port N                  TCP port, 0 for a free one (default ${SERVE_DEFAULTS.port})
                            [EVENTIDE_PORT]
  --database FILE|URL       SQLite file, created and seeded when missing, or a
                            postgres:// URL (default ${SERVE_DEFAULTS.database})
                            [DATABASE_URL]
  --replicas URL,URL,...    PostgreSQL read replicas: reads are spread over the
                            healthy ones, the primary (--database) serves when
                            none is (default: none) [EVENTIDE_REPLICAS]
  --redis URL               redis:// server holding the count cache that every
                            process and host shares; unreachable: counts stay
                            local, with a warning (default: none)
                            [EVENTIDE_REDIS_URL]
  --rows N                  rows to seed a new database with (default ${SERVE_DEFAULTS.rows})
                            [EVENTIDE_ROWS]
  --workers N               serve from N worker processes (1..64) under a
                            supervising primary that restarts crashed workers
                            (default: none, this one process serves)
                            [EVENTIDE_WORKERS]
  --allowed-hosts A,B,...   host names accepted in the Host header; '*' accepts
                            any, '.example.com' a domain and its subdomains
                            (default localhost,127.0.0.1,[::1], the --host
                            address, .example.com; with --app, the app's
                            ALLOWED_HOSTS); others get 400
                            [EVENTIDE_ALLOWED_HOSTS]
  --compression off|on|CODINGS
                            compress responses of text and JSON (br or gzip,
                            as the client's Accept-Encoding asks): on is
                            br,gzip; or the codings in order of preference,
                            br, gzip or both (default off)
                            [EVENTIDE_COMPRESSION]
  --compression-threshold BYTES
                            with --compression: the smallest body compressed
                            (default ${SERVE_DEFAULTS.compressionThreshold}) [EVENTIDE_COMPRESSION_THRESHOLD]
  --cors-origins ORIGIN,... origins whose pages may call the API from a
                            browser (CORS), as scheme://host[:port]; * allows
                            every origin, without credentials (default: none,
                            no CORS headers) [EVENTIDE_CORS_ORIGINS]
  --shutdown-delay SECS     on SIGTERM/SIGINT, keep serving this long with
                            /readyz answering 503 before the listener closes
                            (default ${SERVE_DEFAULTS.shutdownDelay}) [EVENTIDE_SHUTDOWN_DELAY]
  --shutdown-timeout SECS   then, how long requests in flight may take before
                            their connections are closed (default ${SERVE_DEFAULTS.shutdownTimeout})
                            [EVENTIDE_SHUTDOWN_TIMEOUT]
  --max-restarts N          with --workers: restarts allowed within the restart
                            window; one more crash stops the service with
                            exit status 1 (default ${SERVE_DEFAULTS.maxRestarts}) [EVENTIDE_MAX_RESTARTS]
  --restart-window SECS     with --workers: the window of --max-restarts (default ${SERVE_DEFAULTS.restartWindow})
                            [EVENTIDE_RESTART_WINDOW]
  --log-level LEVEL         trace, debug, info, warn, error, fatal or silent
                            (default ${SERVE_DEFAULTS.logLevel}) [EVENTIDE_LOG_LEVEL]
  --log-format json|pretty  JSON lines, or one readable line per entry
                            (default: pretty on a terminal, json otherwise)
                            [EVENTIDE_LOG_FORMAT]
  --quiet                   no access log entries [EVENTIDE_QUIET=1|true|yes]
  --trust-proxy             behind a load balancer that sets them: links use
                            X-Forwarded-Host, and X-Forwarded-Proto: https
                            means https (default: off; never without a proxy
                            that overwrites them) [EVENTIDE_TRUST_PROXY=1]
  -h, --help                show this text

Logs go to stdout: one entry per request (request id, method, path, route,
status, bytes, duration); the request id is the client's X-Request-Id when
it is 1..200 printable characters, a new UUID otherwise, and is sent back
in X-Request-Id. An empty environment variable counts as unset.

With --app, --allowed-hosts, --compression, --cors-origins and
--trust-proxy replace the matching part of the app's settings when given;
otherwise the app's settings stand.

Routes beside the API: GET /healthz (200 while the process answers),
/readyz (200 when the database answers within 1 s, or with --app when the
module's ready() returns null within 1 s; 503 otherwise and from SIGTERM
on), /metrics (Prometheus text; with --workers, aggregated over all workers
by the primary).

Signals: SIGINT and SIGTERM stop the service: /readyz answers 503 for
--shutdown-delay seconds, then the listener closes and the requests in
flight finish (at most --shutdown-timeout seconds); exit status 0. With
--workers, SIGHUP replaces the workers one at a time without dropping
requests (with --app, each new worker imports the module afresh); a
crashed worker is restarted after 0.1 s, doubling up to 5 s.
Exit status: 0 after SIGINT/SIGTERM; 1 when the database or the --app
module cannot be opened, the port cannot be used, a worker fails to start,
or the workers keep crashing; 2 for a bad command line or environment
variable, or when pino or prom-client is not installed (npm install pino
prom-client).
`;

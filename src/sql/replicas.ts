/**
 * PostgreSQL read replicas: {@link ReplicaRouter} is a {@link SqlExecutor}
 * that sends each read of a `SqlQueryset` (pages, counts, estimates) to a
 * healthy replica, takes a replica that fails out of the rotation, probes
 * it again after a backoff, and reads from the primary when no replica is
 * healthy. {@link openPostgresReplicas} builds one from URLs, with pools
 * whose connects and queries have deadlines, and checks every server at
 * start-up.
 *
 * A failed read on a replica is retried on the next healthy replica and
 * then on the primary, so a replica that goes down costs the requests in
 * flight no error. Only reads go through the router: writes use the
 * primary's own Kysely ({@link PostgresReplicas.primary}). Replicas lag
 * behind the primary: a row just written may not be on the page read next.
 *
 * @module
 */
import { CompiledQuery, Kysely, PostgresDialect, type QueryResult } from 'kysely';
import { ConfigurationError } from '../rest/errors.js';
import { loadPostgresDriver } from './drivers.js';
import { redactUrl, SqlUnavailableError, withDeadline } from './errors.js';
import type { SqlExecutor } from './queryset.js';

/**
 * A pino-compatible logger (only `warn` is required; `info` is used when present).
 * @example
 * ```ts
 * const logger: SqlLogger = { warn: (obj, msg) => console.warn(msg, obj) };
 * ```
 */
export interface SqlLogger {
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
}

/**
 * How {@link ReplicaRouter} picks among healthy replicas: `'round-robin'`
 * takes them in turn, `'least-busy'` takes the one with the fewest queries
 * in flight (ties in turn).
 * @example
 * ```ts
 * const balance: ReplicaBalance = 'least-busy';
 * ```
 */
export type ReplicaBalance = 'round-robin' | 'least-busy';

/**
 * Options of {@link ReplicaRouter}.
 * @example
 * ```ts
 * declare const primary: SqlExecutor, replica: SqlExecutor;
 * const options: ReplicaRouterOptions = { primary, replicas: [replica], retryAfter: 500 };
 * ```
 */
export interface ReplicaRouterOptions {
  /** Serves reads when no replica is healthy. */
  readonly primary: SqlExecutor;
  /** The replicas, in order. */
  readonly replicas: readonly SqlExecutor[];
  /** Names for logs and {@link ReplicaRouter.status} (default `replica 1`, `replica 2`...). */
  readonly names?: readonly string[];
  /** Default `'least-busy'`. */
  readonly balance?: ReplicaBalance;
  /** Milliseconds before a failed replica is probed again; doubles after each failed probe (default 1000). */
  readonly retryAfter?: number;
  /** The longest wait between probes (default 30 000). */
  readonly maxRetryAfter?: number;
  /** A read on a replica that takes longer fails over to the next server, in ms (default 10 000; 0: none). */
  readonly queryTimeout?: number;
  /** Checks a replica before it rejoins (default: `select 1` within `queryTimeout`). */
  readonly probe?: (replica: SqlExecutor) => Promise<void>;
  /** Told once when a replica leaves the rotation and once when it comes back. */
  readonly logger?: SqlLogger;
  /** The clock in ms (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * The state of one replica, as {@link ReplicaRouter.status} reports it.
 * @example
 * ```ts
 * declare const router: ReplicaRouter;
 * const down = router.status().filter((s: ReplicaStatus) => !s.healthy);
 * ```
 */
export interface ReplicaStatus {
  readonly name: string;
  readonly healthy: boolean;
  /** Queries running on it now. */
  readonly inFlight: number;
  /** Reads it answered. */
  readonly reads: number;
  /** Reads or probes that failed. */
  readonly failures: number;
  /** When it is probed next (ms, the router's clock), or null when healthy. */
  readonly retryAt: number | null;
  /** The last failure's message, or null. */
  readonly lastError: string | null;
}

interface Target {
  readonly name: string;
  readonly db: SqlExecutor;
  healthy: boolean;
  inFlight: number;
  reads: number;
  failures: number;
  /** Failed probes in a row (the backoff exponent). */
  strikes: number;
  retryAt: number;
  probing: boolean;
  lastError: string | null;
}

/** SQLSTATE classes and codes, and Node/pg messages, that mean "this server cannot serve now". */
const DOWN_CODES: ReadonlySet<string> = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery mode)
  '53300', // too_many_connections
  '53100', // disk_full
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const DOWN_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|terminating connection|the database system is|Client has encountered a connection error|not queryable/i;

/**
 * Whether an error of a read means the server is unavailable (`'down'`: take
 * it out and read elsewhere), the read only conflicted with replication
 * (`'retry'`: read elsewhere, SQLSTATE 40001 on a hot standby), or the
 * query itself failed (`'fatal'`: no other server would answer it).
 * @internal
 */
export function classifyReadError(err: unknown): 'down' | 'retry' | 'fatal' {
  const raw = (err as { code?: unknown } | null)?.code;
  const code = typeof raw === 'string' ? raw : '';
  if (DOWN_CODES.has(code) || code.startsWith('08')) return 'down';
  if (code === '40001') return 'retry';
  if (DOWN_MESSAGE.test(String((err as Error | null)?.message ?? ''))) return 'down';
  return 'fatal';
}

/**
 * A {@link SqlExecutor} for reads over a primary and its replicas. Pass it
 * as a `SqlQueryset`'s `db`: every query of the queryset goes to a healthy
 * replica (see {@link ReplicaBalance}); a read that fails because the
 * replica is unavailable (connection refused or lost, timeout, `the
 * database system is in recovery mode` or shutting down...) marks it down
 * and is retried on the next replica, then on the primary. A down replica
 * gets no reads; after `retryAfter` ms (doubling up to `maxRetryAfter`) the
 * next read starts a probe in the background and the replica rejoins when
 * the probe succeeds. Errors of the query itself (a syntax error, a missing
 * table) are thrown as they are.
 * @example
 * ```ts
 * import { Kysely, PostgresDialect } from 'kysely';
 * import pg from 'pg';
 * const primary = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: 'postgres://db1/app' }) }) });
 * const replica = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: 'postgres://db2/app' }) }) });
 * const reads = new ReplicaRouter({ primary, replicas: [replica] });
 * const items = new SqlQueryset<Item>({ db: reads, table: 'item', fields: itemFields, dialect: 'postgres' });
 * ```
 */
export class ReplicaRouter implements SqlExecutor {
  readonly #primary: SqlExecutor;
  readonly #targets: Target[];
  readonly #balance: ReplicaBalance;
  readonly #retryAfter: number;
  readonly #maxRetryAfter: number;
  readonly #queryTimeout: number;
  readonly #probe: (replica: SqlExecutor) => Promise<void>;
  readonly #logger: SqlLogger | undefined;
  readonly #now: () => number;
  #next = 0;
  #primaryReads = 0;

  constructor(options: ReplicaRouterOptions) {
    if (!isExecutor(options?.primary))
      throw new ConfigurationError('ReplicaRouter needs a primary executor (a Kysely instance)');
    if (!Array.isArray(options.replicas) || !(options.replicas as unknown[]).every(isExecutor))
      throw new ConfigurationError('ReplicaRouter replicas must be an array of executors (Kysely instances)');
    const balance = options.balance ?? 'least-busy';
    if (balance !== 'least-busy' && balance !== 'round-robin')
      throw new ConfigurationError(
        `ReplicaRouter balance must be 'least-busy' or 'round-robin', not ${String(balance)}`,
      );
    this.#retryAfter = positive(options.retryAfter, 1000, 'retryAfter');
    this.#maxRetryAfter = Math.max(this.#retryAfter, positive(options.maxRetryAfter, 30_000, 'maxRetryAfter'));
    this.#queryTimeout = positive(options.queryTimeout, 10_000, 'queryTimeout');
    this.#primary = options.primary;
    this.#balance = balance;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#probe =
      options.probe ??
      (async (db) => {
        await withDeadline(db.executeQuery(CompiledQuery.raw('select 1')), this.#queryTimeout, 'probe timed out');
      });
    this.#targets = (options.replicas as readonly SqlExecutor[]).map((db: SqlExecutor, i) => ({
      name: options.names?.[i] ?? `replica ${i + 1}`,
      db,
      healthy: true,
      inFlight: 0,
      reads: 0,
      failures: 0,
      strikes: 0,
      retryAt: 0,
      probing: false,
      lastError: null,
    }));
  }

  /** The primary executor (for reads that must see the latest writes, and for writes). */
  get primary(): SqlExecutor {
    return this.#primary;
  }

  /** Reads the primary answered because no replica could. */
  get primaryReads(): number {
    return this.#primaryReads;
  }

  /** Each replica's state. */
  status(): ReplicaStatus[] {
    return this.#targets.map((t) => ({
      name: t.name,
      healthy: t.healthy,
      inFlight: t.inFlight,
      reads: t.reads,
      failures: t.failures,
      retryAt: t.healthy ? null : t.retryAt,
      lastError: t.lastError,
    }));
  }

  /**
   * Takes a replica out of the rotation as if a read had failed on it
   * (`index` in the order given); it is probed after the backoff.
   */
  markDown(index: number, reason: unknown): void {
    const t = this.#targets[index];
    if (t === undefined) throw new ConfigurationError(`ReplicaRouter has no replica ${index}`);
    this.#down(t, reason);
  }

  async executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> {
    const tried = new Set<Target>();
    for (let attempt = 0; attempt < this.#targets.length; attempt++) {
      const t = this.#pick(tried);
      if (t === null) break;
      tried.add(t);
      t.inFlight++;
      try {
        const result = await withDeadline(
          t.db.executeQuery(query),
          this.#queryTimeout,
          `read on ${t.name} timed out after ${this.#queryTimeout} ms`,
        );
        t.reads++;
        return result;
      } catch (err) {
        const kind = classifyReadError(err);
        if (kind === 'fatal') throw err;
        t.failures++;
        if (kind === 'down') this.#down(t, err);
      } finally {
        t.inFlight--;
      }
    }
    this.#primaryReads++;
    return this.#primary.executeQuery(query);
  }

  /** A healthy replica not yet tried, or null; starts the probes that are due. */
  #pick(tried: ReadonlySet<Target>): Target | null {
    const n = this.#targets.length;
    const now = this.#now();
    let best: Target | null = null;
    for (let k = 0; k < n; k++) {
      const t = this.#targets[(this.#next + k) % n]!;
      if (!t.healthy) {
        if (!t.probing && now >= t.retryAt) this.#startProbe(t);
        continue;
      }
      if (tried.has(t)) continue;
      if (best === null || (this.#balance === 'least-busy' && t.inFlight < best.inFlight)) best = t;
      if (this.#balance === 'round-robin') break;
    }
    this.#next = (this.#next + 1) % Math.max(1, n);
    return best;
  }

  #down(t: Target, err: unknown): void {
    t.lastError = String((err as Error | null)?.message ?? err);
    t.retryAt = this.#now() + this.#retryAfter;
    if (!t.healthy) return;
    t.healthy = false;
    t.strikes = 0;
    this.#logger?.warn(
      { replica: t.name, err: t.lastError, retryAfter: this.#retryAfter },
      `replica ${t.name} is out of the rotation: ${t.lastError}`,
    );
  }

  #startProbe(t: Target): void {
    t.probing = true;
    this.#probe(t.db).then(
      () => {
        t.probing = false;
        t.healthy = true;
        t.strikes = 0;
        const log = this.#logger;
        const msg = `replica ${t.name} is back in the rotation`;
        if (log?.info !== undefined) log.info({ replica: t.name }, msg);
        else log?.warn({ replica: t.name }, msg);
      },
      (err: unknown) => {
        t.probing = false;
        t.failures++;
        t.strikes++;
        t.lastError = String((err as Error | null)?.message ?? err);
        t.retryAt = this.#now() + Math.min(this.#maxRetryAfter, this.#retryAfter * 2 ** Math.min(t.strikes, 20));
      },
    );
  }
}

function isExecutor(x: unknown): x is SqlExecutor {
  return typeof (x as Partial<SqlExecutor> | null | undefined)?.executeQuery === 'function';
}

function positive(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && value >= 0 && Number.isFinite(value)))
    throw new ConfigurationError(`ReplicaRouter ${what} must be a non-negative number of milliseconds`);
  return value;
}

// ---------------------------------------------------------------------------
// PostgreSQL pools from URLs

/**
 * Options of {@link openPostgresReplicas}.
 * @example
 * ```ts
 * const options: PostgresReplicasOptions = {
 *   primary: 'postgres://app@db1:5432/app',
 *   replicas: ['postgres://app@db2:5432/app', 'postgres://app@db3:5432/app'],
 *   connectTimeout: 3000,
 * };
 * ```
 */
export interface PostgresReplicasOptions extends Omit<ReplicaRouterOptions, 'primary' | 'replicas' | 'names'> {
  /** The primary's URL (`postgres://user@host:port/db`). */
  readonly primary: string;
  /** The replicas' URLs (default none: every read goes to the primary). */
  readonly replicas?: readonly string[];
  /** Connections per pool (default 10). */
  readonly poolSize?: number;
  /** Deadline of a connection attempt and of the start-up probes, in ms (default 5000). */
  readonly connectTimeout?: number;
  /** Throw {@link SqlUnavailableError} `ERR_SQL_REPLICA_UNREACHABLE` when a replica does not answer at start-up (default false: it starts out of the rotation). */
  readonly requireReplicas?: boolean;
}

/**
 * An open primary with its replicas.
 * @example
 * ```ts
 * const dbs: PostgresReplicas<DB> = await openPostgresReplicas<DB>({ primary: 'postgres://db1/app', replicas: ['postgres://db2/app'] });
 * await dbs.primary.insertInto('item').values({ id: 1, name: 'a', created: '2020-01-01', price: 1, category: 'alpha' }).execute();
 * ```
 */
export interface PostgresReplicas<DB> {
  /** The executor for reads: give it to `SqlQueryset` as `db`. */
  readonly reads: ReplicaRouter;
  /** The primary, for writes, schema changes and reads that must see them. */
  readonly primary: Kysely<DB>;
  /** One Kysely per replica, in the order of the URLs. */
  readonly replicas: readonly Kysely<DB>[];
  /** Closes every pool. */
  close(): Promise<void>;
}

/**
 * Opens a pool on the primary and on each replica and checks each with
 * `select 1` within `connectTimeout`. An unreachable primary is a
 * {@link SqlUnavailableError} (`ERR_SQL_PRIMARY_UNREACHABLE`); an
 * unreachable replica is logged and starts out of the rotation (or, with
 * `requireReplicas`, is `ERR_SQL_REPLICA_UNREACHABLE`). Nothing waits past
 * the deadline. Pools answer idle-connection errors (a server restarting)
 * by dropping the connection, never by crashing the process.
 * @example
 * ```ts
 * const dbs = await openPostgresReplicas<DB>({
 *   primary: 'postgres://app@db1/app',
 *   replicas: ['postgres://app@db2/app'],
 *   logger: { warn: (obj, msg) => console.warn(msg) },
 * });
 * const items = new SqlQueryset<Item>({ db: dbs.reads, table: 'item', fields: itemFields, dialect: 'postgres' });
 * console.log(await items.count());
 * await dbs.close();
 * ```
 */
export async function openPostgresReplicas<DB = Record<string, Record<string, unknown>>>(
  options: PostgresReplicasOptions,
): Promise<PostgresReplicas<DB>> {
  if (typeof options?.primary !== 'string' || !/^postgres(?:ql)?:\/\//i.test(options.primary))
    throw new ConfigurationError('openPostgresReplicas needs a primary postgres:// URL');
  const urls = options.replicas ?? [];
  for (const u of urls)
    if (typeof u !== 'string' || !/^postgres(?:ql)?:\/\//i.test(u))
      throw new ConfigurationError(`openPostgresReplicas: a replica must be a postgres:// URL, not ${String(u)}`);
  const connectTimeout = options.connectTimeout ?? 5000;
  const queryTimeout = options.queryTimeout ?? 10_000;
  const { Pool } = loadPostgresDriver<PgPoolLike>();
  const open = (url: string): Kysely<DB> => {
    const pool = new Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: connectTimeout,
      ...(queryTimeout > 0 ? { query_timeout: queryTimeout } : {}),
      idleTimeoutMillis: 10_000,
    });
    // An idle connection that the server drops (a restart, a failover) is an 'error' event of the pool.
    pool.on('error', () => {});
    // One lost while a client is checked out (a query running on a server that stops) is an 'error'
    // event of that client, which the pool does not listen to then: without this listener it would be
    // an uncaught exception. The query fails with that error (a read then goes to another server);
    // the pool drops the client when it is released.
    pool.on('connect', (client) => client.on('error', () => {}));
    return new Kysely<DB>({ dialect: new PostgresDialect({ pool: pool as never }) });
  };
  const primary = open(options.primary);
  const replicas = urls.map(open);
  const names = urls.map((u) => redactUrl(u));
  const all = [primary, ...replicas];
  const close = async (): Promise<void> => {
    await Promise.all(all.map((db) => db.destroy().catch(() => {})));
  };
  const check = (db: Kysely<DB>, url: string): Promise<unknown> =>
    withDeadline(
      db.executeQuery(CompiledQuery.raw('select 1')),
      connectTimeout,
      `no answer from ${redactUrl(url)} within ${connectTimeout} ms`,
    );
  const [first, ...rest] = await Promise.allSettled([
    check(primary, options.primary),
    ...replicas.map((db, i) => check(db, urls[i]!)),
  ]);
  if (first?.status === 'rejected') {
    const reason = first.reason as unknown;
    await close();
    const target = redactUrl(options.primary);
    throw new SqlUnavailableError(
      'ERR_SQL_PRIMARY_UNREACHABLE',
      target,
      `Cannot reach the PostgreSQL primary ${target} within ${connectTimeout} ms: ${messageOf(reason)}`,
      { cause: reason },
    );
  }
  const failedIndex = rest.findIndex((r) => r.status === 'rejected');
  if (failedIndex >= 0 && options.requireReplicas === true) {
    await close();
    const target = names[failedIndex]!;
    const reason = (rest[failedIndex] as PromiseRejectedResult).reason as unknown;
    throw new SqlUnavailableError(
      'ERR_SQL_REPLICA_UNREACHABLE',
      target,
      `Cannot reach the PostgreSQL replica ${target} within ${connectTimeout} ms: ${messageOf(reason)}`,
      { cause: reason },
    );
  }
  const reads = new ReplicaRouter({ ...options, primary, replicas, names, queryTimeout });
  rest.forEach((r, i) => {
    if (r.status === 'rejected') reads.markDown(i, r.reason);
  });
  return { reads, primary, replicas, close };
}

function messageOf(err: unknown): string {
  return String((err as Error | null)?.message ?? err);
}

/** The part of pg's Pool used here. */
interface PgPoolLike {
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(
    event: 'connect',
    listener: (client: { on(event: 'error', listener: (err: Error) => void): unknown }) => void,
  ): unknown;
}

/**
 * Health and metrics of `eventide serve`, outside the web API (path
 * callbacks of the `EventHttp` server, so they are in no OpenAPI document,
 * not in the API root, not behind `ALLOWED_HOSTS`, and not access-logged):
 *
 * - `GET /healthz`: 200 `{"status":"ok"}` whenever the process answers.
 * - `GET /readyz`: 200 `{"status":"ready"}` when the database answers
 *   `SELECT id FROM item LIMIT 1` within the deadline; 503 `{"status":"unavailable",...}` when
 *   it fails or is too slow, and 503 `{"status":"shutting down"}` from
 *   SIGTERM/SIGINT until the listener closes. With `--app` the module's
 *   `ready()` stands for the database (`{"status":"unavailable","problem":...}`).
 * - `GET /metrics`: the Prometheus text format (prom-client). Counters of
 *   the API's requests by method, route (the URL name, `<unmatched>` for
 *   none) and status; a latency histogram by method and route; the open
 *   connections; and prom-client's default process metrics, among them the
 *   event-loop lag (`nodejs_eventloop_lag_seconds`). With `--workers N`
 *   the worker that takes the request asks the primary, which collects
 *   every worker's metrics (prom-client's `AggregatorRegistry` over
 *   node:cluster) and answers with their aggregate: counters and histograms
 *   summed, the lag averaged.
 *
 * Only this layer loads prom-client.
 *
 * @module
 */
import cluster from 'node:cluster';
import type { Counter, Histogram, Registry } from 'prom-client';
import type * as Prom from 'prom-client';
import { loadOptional } from '../sql/drivers.js';

/** prom-client, an optional peer of the package: only the command needs it. */
function prom(): typeof Prom {
  return loadOptional('prom-client', 'eventide serve (its /metrics)') as typeof Prom;
}
import { EventBuffer } from '../event/buffer.js';
import type { EventHttp } from '../http/server.js';
import { EventHttpRequest } from '../http/request.js';
import type { AccessLogEntry } from '../rest/api.js';
import type { DemoDatabaseHandle } from './demo-data.js';

/** The label of requests no route matched. */
const UNMATCHED = '<unmatched>';

/**
 * The metrics of one serving process, in a registry of their own.
 * @example
 * ```ts
 * const metrics = new ServeMetrics({ openConnections: () => 0 });
 * metrics.observe({ method: 'GET', target: '/page/items/', status: 200, bytes: 512, ms: 1.5, remoteAddress: null, route: 'page-items' });
 * const text = await metrics.registry.metrics();
 * ```
 */
export class ServeMetrics {
  /** The registry holding them. */
  readonly registry: Registry;
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #latency: Histogram<'method' | 'route'>;

  /**
   * Registers the metrics; `openConnections` is read at each scrape.
   * @example
   * ```ts
   * declare const http: EventHttp;
   * const metrics = new ServeMetrics({ openConnections: () => http.conns.size });
   * ```
   */
  constructor(o: { openConnections: () => number; workerLabel?: string }) {
    const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = prom();
    this.registry = new Registry();
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
    this.#requests = new Counter({
      name: 'eventide_http_requests_total',
      help: 'Requests answered by the API, by method, route (URL name) and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.#latency = new Histogram({
      name: 'eventide_http_request_duration_seconds',
      help: 'Time from the parsed request to the rendered response, by method and route.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const open = o.openConnections;
    new Gauge({
      name: 'eventide_http_open_connections',
      help: 'HTTP connections open now (summed over the workers).',
      registers: [this.registry],
      collect() {
        this.set(open());
      },
    });
  }

  /**
   * Counts one response (the `onResponse` entry of the API).
   * @example
   * ```ts
   * import { buildDemoApi } from './demo.js';
   * declare const metrics: ServeMetrics;
   * const api = buildDemoApi(items, { onResponse: (e) => metrics.observe(e) });
   * ```
   */
  observe(e: AccessLogEntry): void {
    const route = e.route ?? UNMATCHED;
    this.#requests.inc({ method: e.method, route, status: String(e.status) });
    this.#latency.observe({ method: e.method, route }, e.ms / 1000);
  }
}

/** A message of the metrics exchange between a worker and the primary. */
interface MetricsMessage {
  eventideMetrics: number;
  text?: string;
  error?: string;
}

function metricsMessage(m: unknown): MetricsMessage | null {
  return typeof m === 'object' && m !== null && typeof (m as MetricsMessage).eventideMetrics === 'number'
    ? (m as MetricsMessage)
    : null;
}

/**
 * In the primary of `--workers N`: answers the workers' requests for the
 * aggregated metrics of all workers. Returns a function that stops it.
 * @example
 * ```ts
 * const stopServing = serveClusterMetrics();
 * ```
 */
export function serveClusterMetrics(): () => void {
  const aggregator = new (prom().AggregatorRegistry)();
  const onMessage = (worker: import('node:cluster').Worker, m: unknown): void => {
    const ask = metricsMessage(m);
    if (ask === null || ask.text !== undefined || ask.error !== undefined) return;
    const reply = (r: MetricsMessage): void => {
      if (worker.isConnected()) worker.send(r, () => {});
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ eventideMetrics: ask.eventideMetrics, text }),
      (e: unknown) => reply({ eventideMetrics: ask.eventideMetrics, error: (e as Error).message }),
    );
  };
  cluster.on('message', onMessage);
  return () => void cluster.off('message', onMessage);
}

/**
 * In a worker of `--workers N`: makes `registry` part of the primary's
 * aggregate and returns a function that asks the primary for the aggregate
 * (rejects after `timeoutMs`).
 * @example
 * ```ts
 * declare const metrics: ServeMetrics;
 * const aggregate = clusterMetricsClient(metrics.registry);
 * const text = await aggregate();
 * ```
 */
export function clusterMetricsClient(registry: Registry, timeoutMs = 6000): () => Promise<string> {
  const { AggregatorRegistry } = prom();
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one makes prom-client answer the primary's requests for this worker's metrics.
  new AggregatorRegistry();
  const pending = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();
  let next = 1;
  process.on('message', (m: unknown) => {
    const r = metricsMessage(m);
    const p = r !== null ? pending.get(r.eventideMetrics) : undefined;
    if (r === null || p === undefined) return;
    pending.delete(r.eventideMetrics);
    if (r.text !== undefined) p.resolve(r.text);
    else p.reject(new Error(r.error ?? 'no metrics'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the primary did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (t) => (clearTimeout(timer), resolve(t)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      if (process.send === undefined) reject(new Error('no IPC channel to the primary'));
      else process.send({ eventideMetrics: id } satisfies MetricsMessage);
    });
}

/**
 * Whether the demo database answers a trivial query (`SELECT id FROM item
 * LIMIT 1`: the connection works and the table is there) within
 * `deadlineMs`: null when it does, the reason otherwise.
 * @example
 * ```ts
 * import { openDemoDatabase } from './demo-data.js';
 * const demo = await openDemoDatabase(':memory:', { rows: 10 });
 * (await databaseProblem(demo, 1000)) === null; // true
 * ```
 */
export async function databaseProblem(db: DemoDatabaseHandle, deadlineMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${deadlineMs} ms`), deadlineMs);
  });
  try {
    const probe = db.db.selectFrom('item').select('id').limit(1).execute();
    return await Promise.race([probe.then(() => null), late]);
  } catch (e) {
    return (e as Error).message || String(e);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the health routes need from the serving process.
 * @example
 * ```ts
 * const routes: HealthRoutes = { problem: async () => null, metrics: async () => '', stopping: () => false };
 * ```
 */
export interface HealthRoutes {
  /** Null when ready; otherwise why not (the database, or an app's `ready()`). */
  problem(): Promise<string | null>;
  /** The field of the 503 body that holds the problem (default `database`). */
  problemField?: string;
  /** The Prometheus text of `/metrics`. */
  metrics(): Promise<string>;
  /** True from the stop signal on. */
  stopping(): boolean;
}

function reply(req: EventHttpRequest, status: number, type: string, body: string): void {
  req.addHeader('Content-Type', type, EventHttpRequest.OUTPUT_HEADER);
  req.addHeader('Cache-Control', 'no-store', EventHttpRequest.OUTPUT_HEADER);
  const buf = new EventBuffer();
  buf.add(body);
  req.sendReply(status, null, buf);
}

const JSON_TYPE = 'application/json';

/**
 * Installs `/healthz`, `/readyz` and `/metrics` on an `EventHttp` server
 * (path callbacks: they take precedence over the API's default callback).
 * @example
 * ```ts
 * declare const http: EventHttp;
 * installHealthRoutes(http, { problem: async () => null, metrics: async () => '', stopping: () => false });
 * ```
 */
export function installHealthRoutes(http: EventHttp, routes: HealthRoutes): void {
  http.setCallback('/healthz', (req) => reply(req, 200, JSON_TYPE, '{"status":"ok"}'));
  http.setCallback('/readyz', (req) => {
    if (routes.stopping()) {
      reply(req, 503, JSON_TYPE, '{"status":"shutting down"}');
      return;
    }
    void routes.problem().then((problem) => {
      if (problem === null && !routes.stopping()) reply(req, 200, JSON_TYPE, '{"status":"ready"}');
      else
        reply(
          req,
          503,
          JSON_TYPE,
          JSON.stringify(
            problem === null
              ? { status: 'shutting down' }
              : { status: 'unavailable', [routes.problemField ?? 'database']: problem },
          ),
        );
    });
  });
  http.setCallback('/metrics', (req) => {
    routes.metrics().then(
      (text) => reply(req, 200, 'text/plain; version=0.0.4; charset=utf-8', text),
      (e: unknown) => reply(req, 503, 'text/plain; charset=utf-8', `metrics unavailable: ${(e as Error).message}\n`),
    );
  });
}

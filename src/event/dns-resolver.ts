/**
 * The resolver of an `EventDnsBase`: A / AAAA questions sent to the
 * configured nameservers through `node:dns` `Resolver`s (one per attempt,
 * so that the timeout and the number of attempts are exactly the configured
 * ones), rotating over the nameservers and avoiding those that keep
 * failing, at most `max-inflight` on the wire, the same question in flight
 * asked once, search domains tried in turn, AF_UNSPEC lookups merged; and
 * lookups through the system resolver (getaddrinfo).
 *
 * @module
 */
import { lookup as systemLookup, Resolver, type LookupAddress, type RecordWithTtl } from 'node:dns';
import type { DnsCache } from './dns-cache.js';
import type { DnsConfig, Nameserver } from './dns-config.js';
import { AF } from './address.js';
import {
  failure,
  failureOf,
  type EventDnsAddress,
  type Failure,
  type Outcome,
  type QueryResult,
} from './dns-outcome.js';
import { now } from './shared.js';

/** Errors after which a query is sent again (to the next nameserver) while attempts remain. */
const RETRYABLE: ReadonlySet<string> = new Set([
  'ETIMEOUT',
  'ECONNREFUSED',
  'ESERVFAIL',
  'EREFUSED',
  'ENOTIMP',
  'EBADRESP',
  'EOF',
]);
/** Errors that count against a nameserver's health. */
const SERVER_FAILURE: ReadonlySet<string> = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ESERVFAIL', 'EREFUSED', 'ENOTIMP']);
/** A nameserver that failed `max-timeouts` times in a row is avoided for this long. */
const SERVER_DOWN_MS = 10_000;

/** Something in flight that `free()` must stop (a query attempt, a timer). */
interface Abortable {
  abort(): void;
}

/**
 * Lookups of one DNS base, over its configuration and its cache.
 * @internal
 * @example
 * ```ts
 * import { AF } from './address.js';
 * import { DnsCache } from './dns-cache.js';
 * import { DnsConfig } from './dns-config.js';
 * const config = new DnsConfig({ serversChanged: () => {}, inflightChanged: () => {} });
 * const resolver = new DnsResolver(config, new DnsCache(), false);
 * const outcome = await resolver.lookup('example.org', AF.UNSPEC);
 * ```
 */
export class DnsResolver {
  readonly #config: DnsConfig;
  readonly #cache: DnsCache;
  /** Use the system resolver (getaddrinfo) while no nameserver is configured. */
  readonly #systemFallback: boolean;
  #freed = false;
  /** The next nameserver in rotation. */
  #rr = 0;
  #queries = new Map<string, Promise<QueryResult>>();
  #pending = new Set<Abortable>();
  #running = 0;
  #waiting = new Set<() => void>();

  constructor(config: DnsConfig, cache: DnsCache, systemFallback: boolean) {
    this.#config = config;
    this.#cache = cache;
    this.#systemFallback = systemFallback;
  }

  /** One lookup of (hostname, family); never rejects. */
  async lookup(hostname: string, family: number): Promise<Outcome> {
    if (this.#config.servers.length === 0) {
      if (this.#systemFallback) return lookupWithSystem(hostname, family);
      return { error: failure('ENOTFOUND', 'getaddrinfo', hostname, 'no nameservers configured'), addresses: [] };
    }
    const candidates = this.#config.candidates(hostname);
    if (family === AF.INET || family === AF.INET6) {
      const type = family === AF.INET ? 4 : 6;
      const r = await this.#search(candidates, type);
      if (!r.ok) return { error: { code: r.code, cause: r.cause }, addresses: [] };
      return { error: null, addresses: r.addresses.map((address) => ({ address, family: type })) };
    }
    return new Promise<Outcome>((resolve) => {
      let r4: QueryResult | null = null;
      let r6: QueryResult | null = null;
      let done = false;
      let timer: NodeJS.Timeout | null = null;
      const skew: Abortable = { abort: () => finish() };
      const finish = (): void => {
        if (done) return;
        done = true;
        if (timer !== null) clearTimeout(timer);
        this.#pending.delete(skew);
        const addresses: EventDnsAddress[] = [];
        if (r4?.ok) for (const a of r4.addresses) addresses.push({ address: a, family: 4 });
        if (r6?.ok) for (const a of r6.addresses) addresses.push({ address: a, family: 6 });
        if (addresses.length > 0) {
          resolve({ error: null, addresses });
          return;
        }
        resolve({ error: mergeFailures(r4, r6, hostname), addresses: [] });
      };
      const check = (): void => {
        if (done) return;
        if (r4 !== null && r6 !== null) finish();
        else if (((r4?.ok ?? false) || (r6?.ok ?? false)) && timer === null) {
          this.#pending.add(skew);
          timer = setTimeout(finish, this.#config.skewMs);
        }
      };
      void this.#search(candidates, 4).then((r) => {
        r4 = r;
        check();
      });
      void this.#search(candidates, 6).then((r) => {
        r6 = r;
        check();
      });
    });
  }

  /** Forgets the questions in flight (the nameservers changed: their answers are stale). */
  clearQueries(): void {
    this.#queries.clear();
  }

  /** Abandons everything in flight; answers still arriving are not cached. */
  free(): void {
    this.#freed = true;
    for (const p of [...this.#pending]) p.abort();
    this.#pending.clear();
    this.#waiting.clear();
    this.#queries.clear();
  }

  /** Tries the candidates in order while the answers are NXDOMAIN / NODATA. */
  async #search(candidates: string[], type: 4 | 6): Promise<QueryResult> {
    let last: QueryResult | null = null;
    let nodata: QueryResult | null = null;
    for (const qname of candidates) {
      if (this.#freed) break;
      const r = await this.#query(qname, type);
      if (r.ok) return r;
      if (r.code !== 'ENOTFOUND' && r.code !== 'ENODATA') return r;
      if (r.code === 'ENODATA' && nodata === null) nodata = r;
      last = r;
    }
    const q = candidates[0] ?? '';
    return nodata ?? last ?? { ok: false, ...failure('ECANCELLED', type === 4 ? 'queryA' : 'queryAaaa', q) };
  }

  /** One question (name, type): from the cache, joined to the same question in flight, or sent. */
  #query(qname: string, type: 4 | 6): Promise<QueryResult> {
    const key = `${type}|${qname.toLowerCase()}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const inflight = this.#queries.get(key);
    if (inflight !== undefined) return inflight;
    const serverGen = this.#config.serverGen;
    const promise: Promise<QueryResult> = (async (): Promise<QueryResult> => {
      const attempts = this.#config.attempts;
      let r: QueryResult = { ok: false, ...failure('ECANCELLED', type === 4 ? 'queryA' : 'queryAaaa', qname) };
      for (let i = 0; i < attempts && !this.#freed; i++) {
        r = await this.#attempt(qname, type);
        if (r.ok || !RETRYABLE.has(r.code)) break;
      }
      return r;
    })().then((r) => {
      if (this.#queries.get(key) === promise) this.#queries.delete(key);
      if (!this.#freed && serverGen === this.#config.serverGen) this.#cache.store(key, r);
      return r;
    });
    this.#queries.set(key, promise);
    return promise;
  }

  /** One send of one question to one nameserver, within `max-inflight`; never rejects. */
  #attempt(qname: string, type: 4 | 6): Promise<QueryResult> {
    const syscall = type === 4 ? 'queryA' : 'queryAaaa';
    return new Promise<QueryResult>((resolve) => {
      let state: 'queued' | 'running' | 'done' = 'queued';
      let resolver: Resolver | null = null;
      let timer: NodeJS.Timeout | null = null;
      let server: Nameserver | null = null;
      const finish = (r: QueryResult): void => {
        if (state === 'done') return;
        const wasRunning = state === 'running';
        state = 'done';
        this.#pending.delete(attempt);
        this.#waiting.delete(start);
        if (timer !== null) clearTimeout(timer);
        if (resolver !== null) {
          const res = resolver;
          resolver = null;
          if (!r.ok && (r.code === 'ETIMEOUT' || r.code === 'ECANCELLED')) res.cancel();
        }
        if (server !== null && !r.ok && r.code !== 'ECANCELLED') this.#noteServer(server, r.code);
        else if (server !== null && r.ok) this.#noteServer(server, null);
        if (wasRunning) {
          this.#running--;
          this.pump();
        }
        resolve(r);
      };
      const start = (): void => {
        if (state !== 'queued') return;
        state = 'running';
        this.#running++;
        server = this.#pickServer();
        if (server === null) {
          finish({ ok: false, ...failure('ENOTFOUND', syscall, qname, 'no nameservers configured') });
          return;
        }
        const timeoutMs = Math.max(1, Math.round(this.#config.timeoutMs));
        const res = new Resolver({ timeout: timeoutMs, tries: 1 });
        resolver = res;
        try {
          res.setServers([server.spec]);
        } catch (err) {
          finish({ ok: false, ...failureOf(err, syscall, qname) });
          return;
        }
        timer = setTimeout(() => finish({ ok: false, ...failure('ETIMEOUT', syscall, qname) }), timeoutMs);
        const cb = (err: NodeJS.ErrnoException | null, records: RecordWithTtl[]): void => {
          if (err) {
            finish({ ok: false, ...failureOf(err, syscall, qname) });
            return;
          }
          if (records.length === 0) {
            finish({ ok: false, ...failure('ENODATA', syscall, qname) });
            return;
          }
          let ttl = Infinity;
          for (const rec of records) ttl = Math.min(ttl, rec.ttl);
          finish({ ok: true, addresses: records.map((rec) => rec.address), ttl: Number.isFinite(ttl) ? ttl : 0 });
        };
        if (type === 4) res.resolve4(qname, { ttl: true }, cb);
        else res.resolve6(qname, { ttl: true }, cb);
      };
      const attempt: Abortable = { abort: () => finish({ ok: false, ...failure('ECANCELLED', syscall, qname) }) };
      this.#pending.add(attempt);
      if (this.#running < this.#config.maxInflight) start();
      else this.#waiting.add(start);
    });
  }

  /** Starts queued attempts while below `max-inflight`. */
  pump(): void {
    while (this.#running < this.#config.maxInflight && this.#waiting.size > 0) {
      const next = this.#waiting.values().next().value as () => void;
      this.#waiting.delete(next);
      next();
    }
  }

  /** The next nameserver in rotation, skipping those marked down while others are up. */
  #pickServer(): Nameserver | null {
    const servers = this.#config.servers;
    const n = servers.length;
    if (n === 0) return null;
    const t = now();
    for (let i = 0; i < n; i++) {
      const idx = (this.#rr + i) % n;
      const s = servers[idx] as Nameserver;
      if (s.downUntil <= t) {
        this.#rr = (idx + 1) % n;
        return s;
      }
    }
    const idx = this.#rr % n;
    this.#rr = (idx + 1) % n;
    return servers[idx] as Nameserver;
  }

  #noteServer(s: Nameserver, code: string | null): void {
    if (code === null || !SERVER_FAILURE.has(code)) {
      s.failures = 0;
      s.downUntil = 0;
      return;
    }
    s.failures++;
    if (s.failures >= this.#config.maxTimeouts) s.downUntil = now() + SERVER_DOWN_MS;
  }
}

/** The more informative failure of the two halves of an AF_UNSPEC lookup. */
function mergeFailures(r4: QueryResult | null, r6: QueryResult | null, hostname: string): Failure {
  const fails = [r4, r6].filter((r): r is { ok: false } & Failure => r !== null && !r.ok);
  const pick =
    fails.find((f) => f.code === 'ENOTFOUND') ??
    fails.find((f) => f.code !== 'ENODATA' && f.code !== 'ECANCELLED') ??
    fails.find((f) => f.code === 'ENODATA') ??
    fails[0];
  if (pick === undefined) return failure('ETIMEOUT', 'getaddrinfo', hostname);
  return { code: pick.code, cause: pick.cause };
}

/**
 * getaddrinfo through `dns.lookup`; never rejects.
 * @internal
 * @example
 * ```ts
 * import { AF } from './address.js';
 * const outcome = await lookupWithSystem('localhost', AF.INET);
 * ```
 */
export function lookupWithSystem(hostname: string, family: number): Promise<Outcome> {
  const fam = family === AF.INET ? 4 : family === AF.INET6 ? 6 : 0;
  return new Promise<Outcome>((resolve) => {
    try {
      systemLookup(
        hostname,
        { family: fam, all: true },
        (err: NodeJS.ErrnoException | null, addrs: LookupAddress[]) => {
          if (err) {
            resolve({ error: failureOf(err, 'getaddrinfo', hostname), addresses: [] });
            return;
          }
          const addresses: EventDnsAddress[] = [];
          for (const a of addrs) {
            if (a.family === 4 || a.family === 6) addresses.push({ address: a.address, family: a.family });
          }
          if (addresses.length === 0) resolve({ error: failure('ENOTFOUND', 'getaddrinfo', hostname), addresses: [] });
          else resolve({ error: null, addresses });
        },
      );
    } catch (err) {
      resolve({ error: failureOf(err, 'getaddrinfo', hostname), addresses: [] });
    }
  });
}

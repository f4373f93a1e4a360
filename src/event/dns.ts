/**
 * EventDnsBase: an asynchronous DNS resolver bound to an EventBase, the
 * counterpart of libevent's `evdns_base` as the PHP extension exposes it.
 *
 * Configuration follows libevent: nameservers, search domains, `ndots`,
 * timeouts and attempts come from a resolv.conf-style file or from the
 * setters; host names from a hosts file answer without any query.
 *
 * Resolution (used by `EventBufferEvent.connectHost()` and the HTTP client)
 * sends A / AAAA queries to the configured nameservers through `node:dns`
 * `Resolver`s (one per attempt, so that the timeout and the number of
 * attempts are exactly the configured ones), merges concurrent lookups of the
 * same name and family into one, and caches answers for their TTL. Results
 * are delivered through the EventBase: the callback runs only while the base
 * dispatches, never synchronously, and a running loop waits for lookups in
 * flight.
 *
 * Differences from libevent (all documented on the members concerned):
 * - an idle DNS base never keeps the loop alive (libevent 2.1.12 kept
 *   `loop()` running forever as soon as a nameserver was configured);
 * - `parseResolvConf()` returns `false` when it warns, instead of always `true`;
 * - a base made with `true` whose resolv.conf lists no usable nameserver uses
 *   the system resolver (`getaddrinfo`) instead of querying 127.0.0.1;
 * - `addSearch()` appends (libevent prepends, so the last domain added was tried first);
 * - a name with a trailing dot is absolute: no search domain is appended;
 * - an IP literal of the wrong family fails at once instead of being sent as a name;
 * - answers are cached for their TTL, negative answers for 5 seconds.
 *
 * @module
 */
import { lookup as systemLookup, Resolver, type LookupAddress, type RecordWithTtl } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { domainToASCII } from 'node:url';
import { EventBase, Handle } from './base.js';
import { createEventError, EventDnsError, EventError, warn } from './errors.js';

// ---------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------

/**
 * One resolved address.
 * @example
 * ```ts
 * const a: EventDnsAddress = { address: '192.0.2.1', family: 4 };
 * ```
 */
export interface EventDnsAddress {
  /** The address in text form, without brackets (`"192.0.2.1"`, `"2001:db8::1"`). */
  address: string;
  /** 4 for IPv4, 6 for IPv6. */
  family: 4 | 6;
}

/**
 * Callback of {@link EventDnsBase.resolve}: an error (`null` on success) and
 * the addresses (empty on failure). IPv4 addresses come before IPv6 ones for
 * DNS answers; hosts-file answers keep the order of the file.
 * @example
 * ```ts
 * const cb: EventDnsCallback = (err, addrs) => {
 *   if (err) console.error(EventDnsBase.errorString(err));
 *   else console.log(addrs[0]?.address);
 * };
 * ```
 */
export type EventDnsCallback = (err: EventDnsError | null, addresses: EventDnsAddress[]) => void;

/**
 * A pending resolution, returned by {@link EventDnsBase.resolve}.
 * @example
 * ```ts
 * const req = dns.resolve('example.org', EventUtil.AF_UNSPEC, cb);
 * req.cancel(); // cb will not run
 * ```
 */
export interface EventDnsRequest {
  /**
   * Cancels the request: its callback will not run and it no longer keeps the
   * loop alive. No effect once the callback ran. Other callers waiting for the
   * same name are not affected.
   */
  cancel(): void;
}

// ---------------------------------------------------------------------------
// Constants and error texts
// ---------------------------------------------------------------------------

/** Address families, the values of `EventUtil.AF_*`. */
const AF_UNSPEC = 0;
const AF_INET = 2;
const AF_INET6 = 10;

const OPTION_SEARCH = 1;
const OPTION_NAMESERVERS = 2;
const OPTION_MISC = 4;
const OPTION_HOSTSFILE = 8;
const OPTIONS_ALL = 15;
const INITIALIZE_NAMESERVERS = 1;
const DISABLE_WHEN_INACTIVE = 32768;
const NAMESERVERS_NO_DEFAULT = 65536;

const SYSTEM_RESOLV_CONF = '/etc/resolv.conf';
const SYSTEM_HOSTS = '/etc/hosts';

/** How long NXDOMAIN / NODATA answers are cached. */
const NEGATIVE_TTL_MS = 5000;
/** At most this many cached answers per DNS base (oldest dropped first). */
const CACHE_MAX = 1024;
/** A nameserver that failed `max-timeouts` times in a row is avoided for this long. */
const SERVER_DOWN_MS = 10_000;

/** Texts of libevent's `evutil_gai_strerror()` plus evdns' timeout text. */
const TEXT = {
  NONAME: 'nodename nor servname provided, or not known',
  NODATA: 'no address associated with nodename',
  ADDRFAMILY: 'address family for nodename not supported',
  AGAIN: 'temporary failure in name resolution',
  FAIL: 'non-recoverable failure in name resolution',
  TIMEOUT: 'request timed out',
  CANCEL: 'Request canceled',
  MEMORY: 'memory allocation failure',
} as const;

/** Resolver / getaddrinfo error codes (as Node names them) → text. */
const CODE_TEXT: Readonly<Record<string, string>> = {
  ENOTFOUND: TEXT.NONAME,
  EBADNAME: TEXT.NONAME,
  ENONAME: TEXT.NONAME,
  EAI_NONAME: TEXT.NONAME,
  ENODATA: TEXT.NODATA,
  EAI_NODATA: TEXT.NODATA,
  EADDRFAMILY: TEXT.ADDRFAMILY,
  EAI_ADDRFAMILY: TEXT.ADDRFAMILY,
  ETIMEOUT: TEXT.TIMEOUT,
  ETIMEDOUT: TEXT.TIMEOUT,
  ESERVFAIL: TEXT.AGAIN,
  EREFUSED: TEXT.AGAIN,
  ECONNREFUSED: TEXT.AGAIN,
  EAI_AGAIN: TEXT.AGAIN,
  EAI_FAIL: TEXT.FAIL,
  EFORMERR: TEXT.FAIL,
  ENOTIMP: TEXT.FAIL,
  EBADRESP: TEXT.FAIL,
  EBADQUERY: TEXT.FAIL,
  EBADFAMILY: TEXT.FAIL,
  EOF: TEXT.FAIL,
  ECANCELLED: TEXT.CANCEL,
  EDESTRUCTION: TEXT.CANCEL,
  ENOMEM: TEXT.MEMORY,
  EAI_MEMORY: TEXT.MEMORY,
};

/** Errors after which a query is sent again (to the next nameserver) while attempts remain. */
const RETRYABLE = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ESERVFAIL', 'EREFUSED', 'ENOTIMP', 'EBADRESP', 'EOF']);
/** Errors that count against a nameserver's health. */
const SERVER_FAILURE = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ESERVFAIL', 'EREFUSED', 'ENOTIMP']);

const now = (): number => performance.now();
const noop = (): void => {};

// ---------------------------------------------------------------------------
// Internal result types
// ---------------------------------------------------------------------------

/** The failure of a query or lookup: a Node-style code and the underlying error. */
interface Failure {
  code: string;
  cause: Error;
}

type QueryResult = { ok: true; addresses: string[]; ttl: number } | ({ ok: false } & Failure);

type Outcome = { error: null; addresses: EventDnsAddress[] } | { error: Failure; addresses: [] };

function failure(code: string, syscall: string, hostname: string, detail?: string): Failure {
  const err = new Error(`${syscall} ${code} ${hostname}${detail === undefined ? '' : ` (${detail})`}`) as Error & {
    code: string;
    syscall: string;
    hostname: string;
  };
  err.code = code;
  err.syscall = syscall;
  err.hostname = hostname;
  return { code, cause: err };
}

function failureOf(err: unknown, syscall: string, hostname: string): Failure {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && err instanceof Error) return { code, cause: err };
  return failure(typeof code === 'string' ? code : 'EBADRESP', syscall, hostname, err instanceof Error ? err.message : undefined);
}

function dnsError(f: Failure): EventDnsError {
  return createEventError('ERR_EVENT_DNS', CODE_TEXT[f.code] ?? TEXT.FAIL, { cause: f.cause }) as EventDnsError;
}

// ---------------------------------------------------------------------------
// Address helpers
// ---------------------------------------------------------------------------

/** Expands an IPv6 address to 8 lower-case groups (for comparisons); zone ids are kept. */
function canonicalV6(addr: string): string {
  let zone = '';
  const pct = addr.indexOf('%');
  if (pct >= 0) {
    zone = addr.slice(pct);
    addr = addr.slice(0, pct);
  }
  let groups: string[];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (tail) {
    const o = (tail[1] as string).split('.').map(Number);
    addr = `${addr.slice(0, -(tail[1] as string).length)}${(((o[0] as number) << 8) | (o[1] as number)).toString(16)}:${(((o[2] as number) << 8) | (o[3] as number)).toString(16)}`;
  }
  const dbl = addr.indexOf('::');
  if (dbl >= 0) {
    const head = addr.slice(0, dbl) === '' ? [] : addr.slice(0, dbl).split(':');
    const rest = addr.slice(dbl + 2) === '' ? [] : addr.slice(dbl + 2).split(':');
    groups = [...head, ...new Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  } else {
    groups = addr.split(':');
  }
  return groups.map((g) => parseInt(g, 16).toString(16)).join(':') + zone.toLowerCase();
}

interface SockAddr {
  host: string;
  family: 4 | 6;
  /** undefined when the text named no port. */
  port: number | undefined;
}

/**
 * Parses "ip", "ip:port", "[ipv6]", "[ipv6]:port" and a bare IPv6 address,
 * as libevent's `evutil_parse_sockaddr_port()` does. Returns null for
 * anything else or a port above 65535.
 */
function parseSockAddr(text: string): SockAddr | null {
  const s = text.trim();
  if (s === '') return null;
  let host: string;
  let portText: string | undefined;
  let family: 4 | 6;
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0) return null;
    host = s.slice(1, end);
    const rest = s.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return null;
      portText = rest.slice(1);
    }
    if (!isIPv6(host)) return null;
    family = 6;
  } else if (isIPv6(s)) {
    host = s;
    family = 6;
  } else {
    const colon = s.indexOf(':');
    host = colon < 0 ? s : s.slice(0, colon);
    if (colon >= 0) portText = s.slice(colon + 1);
    if (!isIPv4(host)) return null;
    family = 4;
  }
  let port: number | undefined;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText)) return null;
    port = Number(portText);
    if (port > 65535) return null;
  }
  return { host, family, port };
}

/** An IP literal (IPv4, IPv6 with or without brackets), or null. */
function ipLiteral(name: string): EventDnsAddress | null {
  if (isIPv4(name)) return { address: name, family: 4 };
  const inner = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (isIPv6(inner)) return { address: inner, family: 6 };
  return null;
}

function familyAllows(family: number, f: 4 | 6): boolean {
  return family === AF_UNSPEC || (family === AF_INET ? f === 4 : f === 6);
}

function validFamily(family: unknown): family is number {
  return family === AF_UNSPEC || family === AF_INET || family === AF_INET6;
}

/** Whether a host name (without its trailing dot) can be sent as a query. */
function validName(name: string): boolean {
  if (name === '' || name.length > 253) return false;
  if (/[\s[\]:/\\@\x00-\x1f\x7f]/.test(name)) return false;
  for (const label of name.split('.')) {
    if (label === '' || label.length > 63) return false;
  }
  return true;
}

/** An option name as libevent's `str_matches_option()` accepts it: `name` or `name:` (or `name:junk`). */
function optionName(option: string): string {
  const colon = option.indexOf(':');
  return colon < 0 ? option : option.slice(0, colon);
}

/** libevent's strtoint(): an optionally signed decimal integer, else null. */
function parseIntStrict(v: string): number | null {
  return /^[+-]?\d+$/.test(v.trim()) ? Number(v.trim()) : null;
}

/** libevent's evdns_strtotimeval(): non-negative seconds, at least 1 ms; milliseconds or null. */
function parseSeconds(v: string): number | null {
  const t = v.trim();
  if (!/^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  const s = Number(t);
  if (!Number.isFinite(s) || s < 0.001) return null;
  return s * 1000;
}

// ---------------------------------------------------------------------------
// Delivery through the EventBase
// ---------------------------------------------------------------------------

const PENDING = 0;
const READY = 1;
const DONE = 2;
const CANCELLED = 3;

/**
 * One caller's pending resolution. Holds a `ref()` on the base from creation
 * until its callback ran or it was cancelled; the answer activates its handle
 * and the callback runs from the base's loop.
 */
class Delivery implements EventDnsRequest {
  readonly #base: EventBase;
  readonly #cb: EventDnsCallback;
  readonly #handle: Handle;
  readonly #onEnd: (d: Delivery) => void;
  #state = PENDING;
  #err: EventDnsError | null = null;
  #addresses: EventDnsAddress[] = [];

  constructor(base: EventBase, cb: EventDnsCallback, onEnd: (d: Delivery) => void) {
    this.#base = base;
    this.#cb = cb;
    this.#onEnd = onEnd;
    this.#handle = new Handle(base, () => this.#run(), noop);
    base.ref();
  }

  settle(outcome: Outcome): void {
    if (this.#state !== PENDING) return;
    this.#state = READY;
    if (outcome.error === null) this.#addresses = outcome.addresses.map((a) => ({ address: a.address, family: a.family }));
    else this.#err = dnsError(outcome.error);
    this.#base.activate(this.#handle, 0x01);
  }

  cancel(): void {
    if (this.#state === DONE || this.#state === CANCELLED) return;
    if (this.#state === READY) this.#base.deactivate(this.#handle);
    this.#state = CANCELLED;
    this.#release();
  }

  #run(): void {
    if (this.#state !== READY) return;
    this.#state = DONE;
    this.#release();
    this.#cb(this.#err, this.#addresses);
  }

  #release(): void {
    this.#onEnd(this);
    if (!this.#base.freed) this.#base.unref();
  }
}

/** Something in flight that `free()` must stop (a query attempt, a timer). */
interface Abortable {
  abort(): void;
}

interface Nameserver {
  /** The address as `setServers()` takes it. */
  spec: string;
  /** Identity for duplicate detection. */
  key: string;
  failures: number;
  downUntil: number;
}

interface LookupEntry {
  deliveries: Set<Delivery>;
}

function checkCallback(cb: unknown): asserts cb is EventDnsCallback {
  if (typeof cb !== 'function') throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'The callback must be a function');
}

function checkLookupArgs(hostname: unknown, family: unknown, cb: unknown): asserts hostname is string {
  if (typeof hostname !== 'string') throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'The host name must be a string');
  if (!validFamily(family)) {
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `Invalid address family: ${String(family)} (expected AF_UNSPEC, AF_INET or AF_INET6)`);
  }
  checkCallback(cb);
}

/** Answers an IP literal, or returns null when `name` is not one. */
function literalOutcome(name: string, family: number): Outcome | null {
  const lit = ipLiteral(name);
  if (lit === null) return null;
  if (!familyAllows(family, lit.family)) return { error: failure('EADDRFAMILY', 'getaddrinfo', name), addresses: [] };
  return { error: null, addresses: [lit] };
}

// ---------------------------------------------------------------------------
// EventDnsBase
// ---------------------------------------------------------------------------

/**
 * Whether a name is under the reserved `.invalid` domain (RFC 6761 6.4):
 * such names never resolve and are never sent to a resolver.
 * @internal
 */
export function isInvalidName(name: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return n === 'invalid' || n.endsWith('.invalid');
}

/**
 * An asynchronous DNS resolver bound to an EventBase (libevent's `evdns_base`).
 *
 * Loop liveness: a DNS base keeps `dispatch()` / `loop()` running only while a
 * lookup is in flight (until its callback ran). An idle DNS base never keeps
 * the loop alive, with or without nameservers, so `DISABLE_WHEN_INACTIVE` is
 * the only behaviour. This deliberately differs from the observed libevent
 * 2.1.12 behaviour, where any DNS base with a nameserver made `loop()` never
 * return (and the PHP HTTP client example had to call `exit()`).
 *
 * @example
 * ```ts
 * import { EventBase, EventDnsBase, EventUtil } from 'eventide/event';
 * const base = new EventBase();
 * const dns = new EventDnsBase(base, false);
 * dns.addNameserverIp('127.0.0.1:5353');
 * dns.addSearch('internal');
 * dns.resolve('svc', EventUtil.AF_INET, (err, addrs) => {
 *   console.log(err ? EventDnsBase.errorString(err) : addrs.map((a) => a.address));
 * });
 * await base.dispatch(); // returns once the answer was delivered
 * ```
 */
export class EventDnsBase {
  /** `parseResolvConf()` flag: read `domain`, `search` and the `ndots` option. */
  static readonly OPTION_SEARCH = OPTION_SEARCH;
  /** `parseResolvConf()` flag: read `nameserver` lines. */
  static readonly OPTION_NAMESERVERS = OPTION_NAMESERVERS;
  /** `parseResolvConf()` flag: read the other options (`timeout`, `attempts`, `max-timeouts`, `max-inflight`). */
  static readonly OPTION_MISC = OPTION_MISC;
  /** `parseResolvConf()` flag: also load the system hosts file (/etc/hosts). */
  static readonly OPTION_HOSTSFILE = OPTION_HOSTSFILE;
  /** `parseResolvConf()` flag: all of the above. */
  static readonly OPTIONS_ALL = OPTIONS_ALL;
  /** Constructor flag: read the system configuration (/etc/resolv.conf and /etc/hosts); same as `true`. */
  static readonly INITIALIZE_NAMESERVERS = INITIALIZE_NAMESERVERS;
  /** Constructor flag: do not keep the loop alive while idle. Accepted; an idle DNS base never keeps the loop alive here. */
  static readonly DISABLE_WHEN_INACTIVE = DISABLE_WHEN_INACTIVE;
  /** Constructor flag: when resolv.conf lists no nameserver, do not fall back to the system resolver. */
  static readonly NAMESERVERS_NO_DEFAULT = NAMESERVERS_NO_DEFAULT;

  readonly #base: EventBase;
  #freed = false;
  /** Use the system resolver (getaddrinfo) while no nameserver is configured. */
  #systemFallback = false;

  // configuration
  #servers: Nameserver[] = [];
  #rr = 0;
  #searchDomains: string[] = [];
  #ndots = 1;
  #timeoutMs = 5000;
  #attempts = 3;
  #maxTimeouts = 3;
  #maxInflight = 64;
  #skewMs = 3000;
  #hosts = new Map<string, EventDnsAddress[]>();
  /** Bumped by every configuration change that affects how a name resolves. */
  #gen = 0;
  /** Bumped when the nameserver list changes (cached answers become stale). */
  #serverGen = 0;

  // state
  #deliveries = new Set<Delivery>();
  #lookups = new Map<string, LookupEntry>();
  #queries = new Map<string, Promise<QueryResult>>();
  #cache = new Map<string, { expires: number; result: QueryResult }>();
  #pending = new Set<Abortable>();
  #running = 0;
  #waiting = new Set<() => void>();

  /**
   * Creates a DNS base.
   *
   * - `true` (or `INITIALIZE_NAMESERVERS`): reads /etc/resolv.conf
   *   (nameservers, `search`/`domain`, options) and /etc/hosts. When the file
   *   lists no usable nameserver, lookups not answered by the hosts file use
   *   the system resolver (`getaddrinfo`), unless `NAMESERVERS_NO_DEFAULT` is
   *   also given.
   * - `false` (or 0): empty; with no nameserver added, lookups answer only
   *   from IP literals, `localhost` and the hosts entries loaded, and the
   *   system resolver is never used.
   * - any other integer must combine only `INITIALIZE_NAMESERVERS`,
   *   `DISABLE_WHEN_INACTIVE` and `NAMESERVERS_NO_DEFAULT`, else an
   *   `EventDnsError` (`ERR_EVENT_DNS`, "Invalid initialization flags") is thrown.
   *
   * Other types throw `ERR_EVENT_INVALID_ARGUMENT`.
   * @example
   * ```ts
   * const dns = new EventDnsBase(base, true);
   * console.log(dns.countNameservers()); // 1 with a typical /etc/resolv.conf
   * ```
   */
  constructor(base: EventBase, initialize: boolean | number) {
    if (!(base instanceof EventBase)) throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventDnsBase expects an EventBase');
    let flags: number;
    if (typeof initialize === 'boolean') flags = initialize ? INITIALIZE_NAMESERVERS : 0;
    else if (typeof initialize === 'number' && Number.isInteger(initialize)) {
      if ((initialize & ~(INITIALIZE_NAMESERVERS | DISABLE_WHEN_INACTIVE | NAMESERVERS_NO_DEFAULT)) !== 0 || initialize < 0) {
        throw createEventError('ERR_EVENT_DNS', 'Invalid initialization flags');
      }
      flags = initialize;
    } else {
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `EventDnsBase: the initialization argument must be a boolean or an integer, ${typeof initialize} given`);
    }
    this.#base = base;
    if ((flags & INITIALIZE_NAMESERVERS) !== 0) {
      this.#systemFallback = (flags & NAMESERVERS_NO_DEFAULT) === 0;
      this.#parseResolvConf(OPTIONS_ALL, SYSTEM_RESOLV_CONF);
    }
  }

  // ------------------------------------------------------------------ configuration

  /**
   * Reads a resolv.conf-style file, applying what `flags` selects
   * (`OPTION_*` bits): `nameserver` lines (an address may carry a port,
   * `127.0.0.1:5353`), `domain` / `search` (replacing the search list),
   * `options ndots:N timeout:S attempts:N max-timeouts:N max-inflight:N`;
   * `OPTION_HOSTSFILE` also loads /etc/hosts. With `OPTION_SEARCH` and no
   * search domain in the file, the domain part of the host name is used.
   *
   * Returns `false` with a warning for flags outside `OPTIONS_ALL`
   * ("Invalid flags"), a file that cannot be read ("Failed to open file";
   * nothing is changed) and, with `OPTION_NAMESERVERS`, a file that lists no
   * usable nameserver ("No nameservers listed in the file"; the rest of the
   * file is applied). The PHP extension warns the same but always returns
   * true; here the result tells the truth.
   * @example
   * ```ts
   * if (!dns.parseResolvConf(EventDnsBase.OPTIONS_ALL, '/etc/resolv.conf')) console.error(getLastError()?.message);
   * ```
   */
  parseResolvConf(flags: number, file: string): boolean {
    if (this.#freed) return this.#freedWarning();
    if (typeof flags !== 'number' || !Number.isInteger(flags) || (flags & ~OPTIONS_ALL) !== 0 || flags < 0) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'Invalid flags');
    }
    if (typeof file !== 'string') return warn('ERR_EVENT_INVALID_ARGUMENT', 'The file name must be a string');
    const r = this.#parseResolvConf(flags, file);
    if (r.ok) return true;
    return warn('ERR_EVENT_DNS', r.message, r.cause);
  }

  /**
   * Adds a nameserver: `"ip"`, `"ip:port"`, `"[ipv6]"`, `"[ipv6]:port"` or a
   * bare IPv6 address; port 53 when none (or 0) is given. Returns false for
   * anything else, a port above 65535, or a nameserver already added.
   * Cached answers are dropped.
   * @example
   * ```ts
   * dns.addNameserverIp('127.0.0.1:5353'); // true
   * dns.addNameserverIp('resolver.example'); // false: addresses only
   * ```
   */
  addNameserverIp(ip: string): boolean {
    if (this.#freed) return this.#freedWarning();
    if (typeof ip !== 'string') return warn('ERR_EVENT_INVALID_ARGUMENT', 'The nameserver address must be a string');
    const r = this.#addNameserver(ip);
    if (r === 'ok') return true;
    return warn('ERR_EVENT_INVALID_ARGUMENT', r === 'duplicate' ? `Nameserver already added: ${ip}` : `Unable to parse nameserver address ${ip}`);
  }

  /**
   * Loads a hosts file (/etc/hosts format: an address, then names, `#`
   * comments). Entries are added to those already loaded; names match without
   * regard to case. A name found there is answered from it without any query;
   * when it has no address of the family asked for, the lookup fails with
   * "address family for nodename not supported", as in libevent. Returns
   * false when the file cannot be read.
   * @example
   * ```ts
   * dns.loadHosts('/etc/hosts');
   * ```
   */
  loadHosts(path: string): boolean {
    if (this.#freed) return this.#freedWarning();
    if (typeof path !== 'string') return warn('ERR_EVENT_INVALID_ARGUMENT', 'The hosts file name must be a string');
    let text: string;
    try {
      text = readFileSync(path, 'latin1');
    } catch (err) {
      return warn('ERR_EVENT_DNS', `Failed to load hosts file ${path}`, err);
    }
    this.#parseHosts(text);
    return true;
  }

  /**
   * Removes all search domains. `ndots` is kept (libevent resets it to 1).
   * @example
   * ```ts
   * dns.clearSearch();
   * ```
   */
  clearSearch(): void {
    if (this.#freed) {
      this.#freedWarning();
      return;
    }
    this.#searchDomains = [];
    this.#gen++;
  }

  /**
   * Appends a search domain (leading dots are ignored). A name with fewer dots
   * than `ndots` is tried with each search domain in turn, then as given; a
   * name with at least `ndots` dots is tried as given first. The search goes
   * on only while the answers are "no such name" or "no data"; a name ending
   * with a dot is never extended. libevent prepends instead (the last domain
   * added is tried first); here the order is the order of the calls.
   * @example
   * ```ts
   * dns.addSearch('example.org'); // "www" is looked up as "www.example.org" first
   * ```
   */
  addSearch(domain: string): void {
    if (this.#freed) {
      this.#freedWarning();
      return;
    }
    if (typeof domain !== 'string') {
      warn('ERR_EVENT_INVALID_ARGUMENT', 'The search domain must be a string');
      return;
    }
    const d = domain.trim().replace(/^\.+/, '');
    if (d === '' || d === '.') {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid search domain: ${JSON.stringify(domain)}`);
      return;
    }
    this.#searchDomains.push(d);
    this.#gen++;
  }

  /**
   * Sets `ndots`: names with at least this many dots are tried as given before
   * the search domains (default 1). Negative or non-integer values are ignored
   * with a warning.
   * @example
   * ```ts
   * dns.setSearchNdots(2);
   * ```
   */
  setSearchNdots(ndots: number): void {
    if (this.#freed) {
      this.#freedWarning();
      return;
    }
    if (typeof ndots !== 'number' || !Number.isInteger(ndots) || ndots < 0) {
      warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid ndots value: ${String(ndots)}`);
      return;
    }
    this.#ndots = ndots;
    this.#gen++;
  }

  /**
   * Sets a resolver option; the name may carry a trailing colon (`"timeout:"`).
   *
   * | name | value | default |
   * |---|---|---|
   * | `ndots` | integer ≥ 0 | 1 |
   * | `timeout` | seconds per attempt, at least 0.001 | 5 |
   * | `attempts` | sends per query, clipped to 1..255 | 3 |
   * | `max-timeouts` | failures in a row before a nameserver is avoided for 10 s, clipped to 1..255 | 3 |
   * | `max-inflight` | queries on the wire at once, clipped to 1..65000 | 64 |
   * | `getaddrinfo-allow-skew` | seconds an AF_UNSPEC lookup waits for the other family once one answered | 3 |
   *
   * Returns false for an unknown name or a value that is not a number.
   * @example
   * ```ts
   * dns.setOption('timeout', '0.5');
   * dns.setOption('attempts:', '2');
   * dns.setOption('rotate', '1'); // false
   * ```
   */
  setOption(name: string, value: string): boolean {
    if (this.#freed) return this.#freedWarning();
    if (typeof name !== 'string' || typeof value !== 'string') {
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'The option name and value must be strings');
    }
    const r = this.#setOption(optionName(name.trim()), value, OPTIONS_ALL);
    if (r === 'ok') return true;
    return warn('ERR_EVENT_INVALID_ARGUMENT', r === 'unknown' ? `Unknown DNS option ${name}` : `Invalid value for DNS option ${name}: ${value}`);
  }

  /**
   * The number of configured nameservers.
   * @example
   * ```ts
   * new EventDnsBase(base, false).countNameservers(); // 0
   * ```
   */
  countNameservers(): number {
    return this.#freed ? 0 : this.#servers.length;
  }

  /**
   * Frees the DNS base: lookups in flight are cancelled (their callbacks never
   * run, including answers already waiting for the loop) and stop keeping the
   * loop alive; queries on the wire are abandoned. Further calls warn and
   * return false (or do nothing); `resolve()` throws.
   * @example
   * ```ts
   * dns.free();
   * ```
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    for (const d of [...this.#deliveries]) d.cancel();
    this.#deliveries.clear();
    for (const p of [...this.#pending]) p.abort();
    this.#pending.clear();
    this.#waiting.clear();
    this.#lookups.clear();
    this.#queries.clear();
    this.#cache.clear();
    this.#servers = [];
    this.#hosts.clear();
  }

  /** The EventBase the callbacks run on. @internal */
  get base(): EventBase {
    return this.#base;
  }

  /** Whether `free()` was called. @internal */
  get freed(): boolean {
    return this.#freed;
  }

  // ------------------------------------------------------------------ resolution

  /**
   * Resolves `hostname` to addresses of `family` (`EventUtil.AF_UNSPEC` = 0,
   * `AF_INET` = 2, `AF_INET6` = 10). Used by `EventBufferEvent.connectHost()`
   * and the HTTP client.
   *
   * In order: an IP literal (IPv4, IPv6 with or without brackets) answers at
   * once; `localhost` and names of the loaded hosts files answer from them
   * (`localhost` is 127.0.0.1 and ::1 unless a hosts file defines it);
   * a name that cannot be a host name (empty label, longer than 253
   * characters, spaces...) fails at once; otherwise (international names in
   * their punycode form) A and/or AAAA queries go to the nameservers (search domains and
   * `ndots` applied, `timeout` per attempt, `attempts` sends, rotating over
   * the nameservers). AF_UNSPEC sends both queries, reports IPv4 addresses
   * first, and once one family answered waits at most
   * `getaddrinfo-allow-skew` seconds for the other. A base made with `true`
   * whose resolv.conf listed no usable nameserver asks the system resolver
   * (`dns.lookup`, getaddrinfo) instead.
   *
   * Concurrent lookups of the same name and family share one query. Answers
   * are cached for their TTL (TTL 0: not cached); "no such name" and "no
   * data" answers for 5 seconds; failures such as timeouts are not cached;
   * changing the nameservers empties the cache. System-resolver answers are
   * not cached.
   *
   * The callback runs from the EventBase's loop, never synchronously and
   * only while the base dispatches; until then the lookup keeps the loop
   * alive. On failure it gets an `EventDnsError` whose message is the text of
   * {@link EventDnsBase.errorString} and whose `cause` is the resolver's error
   * (with its `code`, e.g. `ENOTFOUND`).
   *
   * Throws `ERR_EVENT_INVALID_ARGUMENT` for a bad argument or family,
   * `ERR_EVENT_FREED` after `free()`, `ERR_EVENT_BASE_FREED` when the base was freed.
   * @internal
   * @example
   * ```ts
   * dns.resolve('svc.test', EventUtil.AF_UNSPEC, (err, addrs) => {
   *   if (err) bev.fail(EventDnsBase.errorString(err));
   *   else bev.connectTo(addrs[0]);
   * });
   * ```
   */
  resolve(hostname: string, family: number, cb: EventDnsCallback): EventDnsRequest {
    checkLookupArgs(hostname, family, cb);
    if (this.#freed) throw createEventError('ERR_EVENT_FREED', 'EventDnsBase is not initialized');
    if (this.#base.freed) throw createEventError('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');

    const immediate = literalOutcome(hostname, family) ?? this.#hostsOutcome(hostname, family);
    if (immediate !== null) {
      const d = this.#newDelivery(cb, null);
      d.settle(immediate);
      return d;
    }
    // International names are sent in their ASCII (punycode) form.
    const qname = /[^\x00-\x7f]/.test(hostname) ? domainToASCII(hostname) : hostname;
    if (!validName(qname.endsWith('.') ? qname.slice(0, -1) : qname)) {
      const d = this.#newDelivery(cb, null);
      d.settle({ error: failure('EBADNAME', 'getaddrinfo', hostname), addresses: [] });
      return d;
    }

    const key = `${this.#gen}|${family}|${qname.toLowerCase()}`;
    let entry = this.#lookups.get(key);
    if (entry === undefined) {
      const created: LookupEntry = { deliveries: new Set() };
      entry = created;
      this.#lookups.set(key, created);
      this.#lookup(qname, family)
        .catch((err: unknown): Outcome => ({ error: failureOf(err, 'getaddrinfo', hostname), addresses: [] }))
        .then((outcome) => {
          if (this.#lookups.get(key) === created) this.#lookups.delete(key);
          for (const d of [...created.deliveries]) d.settle(outcome);
          created.deliveries.clear();
        });
    }
    return this.#newDelivery(cb, entry);
  }

  /**
   * Resolves with the system resolver only (`dns.lookup`, getaddrinfo; it
   * reads /etc/hosts and resolv.conf itself), delivering through `base` as
   * {@link EventDnsBase.resolve} does. IP literals answer at once. For
   * `connectHost()` without a DNS base; nothing is cached or merged.
   * @internal
   * @example
   * ```ts
   * EventDnsBase.resolveSystem(base, 'localhost', EventUtil.AF_INET, (err, addrs) => {});
   * ```
   */
  static resolveSystem(base: EventBase, hostname: string, family: number, cb: EventDnsCallback): EventDnsRequest {
    if (!(base instanceof EventBase)) throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'resolveSystem expects an EventBase');
    checkLookupArgs(hostname, family, cb);
    if (base.freed) throw createEventError('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');
    const d = new Delivery(base, cb, noop);
    const immediate = literalOutcome(hostname, family);
    if (immediate !== null) d.settle(immediate);
    else void lookupWithSystem(hostname, family).then((o) => d.settle(o));
    return d;
  }

  /**
   * The text of a resolver failure, in getaddrinfo style (libevent's
   * `evutil_gai_strerror()` wording, which the PHP extension's
   * `getDnsErrorString()` shows); `""` for `null` / `undefined`.
   *
   * Accepts an `EventDnsError` (its message; any `EventError` gives its
   * message), a Node `dns` / `dns.lookup` error or an error code string (an
   * unknown string is returned as it is). Mapping of codes:
   *
   * | code(s) | text |
   * |---|---|
   * | `ENOTFOUND` (NXDOMAIN, getaddrinfo EAI_NONAME), `EBADNAME`, no nameserver | nodename nor servname provided, or not known |
   * | `ENODATA` (the name exists, no address of that family) | no address associated with nodename |
   * | `EADDRFAMILY` (IP literal or hosts entry of the other family) | address family for nodename not supported |
   * | `ETIMEOUT` (every attempt timed out) | request timed out |
   * | `ESERVFAIL`, `EREFUSED`, `ECONNREFUSED`, `EAI_AGAIN` | temporary failure in name resolution |
   * | `EFORMERR`, `ENOTIMP`, `EBADRESP`, `EOF`, `EAI_FAIL`, anything else | non-recoverable failure in name resolution |
   * | `ECANCELLED` | Request canceled |
   *
   * libevent itself reports every failure but NXDOMAIN as "non-recoverable
   * failure in name resolution"; the finer mapping is deliberate.
   * @example
   * ```ts
   * EventDnsBase.errorString('ENOTFOUND'); // "nodename nor servname provided, or not known"
   * EventDnsBase.errorString(null); // ""
   * ```
   */
  static errorString(err: unknown): string {
    if (err === null || err === undefined) return '';
    if (typeof err === 'string') return CODE_TEXT[err] ?? err;
    if (err instanceof EventError) return err.message;
    const e = err as { code?: unknown; message?: unknown };
    if (typeof e.code === 'string') return CODE_TEXT[e.code] ?? TEXT.FAIL;
    if (typeof e.message === 'string' && e.message !== '') return e.message;
    return TEXT.FAIL;
  }

  /**
   * The same as the static {@link EventDnsBase.errorString}, for callers that
   * hold a DNS base (`EventBufferEvent.getDnsErrorString()`).
   * @internal
   * @example
   * ```ts
   * dns.resolve(host, family, (err) => { if (err) text = dns.errorString(err); });
   * ```
   */
  errorString(err: unknown): string {
    return EventDnsBase.errorString(err);
  }

  // ------------------------------------------------------------------ internals: deliveries

  #newDelivery(cb: EventDnsCallback, entry: LookupEntry | null): Delivery {
    const d = new Delivery(this.#base, cb, (x) => {
      this.#deliveries.delete(x);
      entry?.deliveries.delete(x);
    });
    this.#deliveries.add(d);
    entry?.deliveries.add(d);
    return d;
  }

  #freedWarning(): false {
    return warn('ERR_EVENT_FREED', 'EventDnsBase is not initialized');
  }

  // ------------------------------------------------------------------ internals: configuration

  #addNameserver(text: string): 'ok' | 'invalid' | 'duplicate' {
    const sa = parseSockAddr(text);
    if (sa === null) return 'invalid';
    const port = sa.port === undefined || sa.port === 0 ? 53 : sa.port;
    const spec = sa.family === 6 ? `[${sa.host}]:${port}` : `${sa.host}:${port}`;
    try {
      scratchResolver().setServers([spec]);
    } catch {
      return 'invalid';
    }
    const key = `${sa.family === 6 ? canonicalV6(sa.host) : sa.host}|${port}`;
    if (this.#servers.some((s) => s.key === key)) return 'duplicate';
    this.#servers.push({ spec, key, failures: 0, downUntil: 0 });
    this.#serverChanged();
    return 'ok';
  }

  #serverChanged(): void {
    this.#gen++;
    this.#serverGen++;
    this.#cache.clear();
    this.#queries.clear();
  }

  #setOption(name: string, value: string, flags: number): 'ok' | 'unknown' | 'invalid' {
    const clip = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
    switch (name) {
      case 'ndots': {
        const n = parseIntStrict(value);
        if (n === null || n < 0) return 'invalid';
        if ((flags & OPTION_SEARCH) === 0) return 'ok';
        this.#ndots = n;
        this.#gen++;
        return 'ok';
      }
      case 'timeout':
      case 'getaddrinfo-allow-skew': {
        const ms = parseSeconds(value);
        if (ms === null) return 'invalid';
        if ((flags & OPTION_MISC) === 0) return 'ok';
        if (name === 'timeout') this.#timeoutMs = ms;
        else this.#skewMs = ms;
        return 'ok';
      }
      case 'attempts':
      case 'max-timeouts':
      case 'max-inflight': {
        const n = parseIntStrict(value);
        if (n === null) return 'invalid';
        if ((flags & OPTION_MISC) === 0) return 'ok';
        if (name === 'attempts') this.#attempts = clip(n, 1, 255);
        else if (name === 'max-timeouts') this.#maxTimeouts = clip(n, 1, 255);
        else {
          this.#maxInflight = clip(n, 1, 65000);
          this.#pump();
        }
        return 'ok';
      }
      default:
        return 'unknown';
    }
  }

  #parseResolvConf(flags: number, file: string): { ok: true } | { ok: false; message: string; cause?: unknown } {
    if ((flags & OPTION_HOSTSFILE) !== 0) {
      try {
        this.#parseHosts(readFileSync(SYSTEM_HOSTS, 'latin1'));
      } catch {
        // no system hosts file: `localhost` is built in anyway
      }
    }
    let text: string;
    try {
      text = readFileSync(file, 'latin1');
    } catch (err) {
      return { ok: false, message: 'Failed to open file', cause: err };
    }
    let sawSearch = false;
    for (const raw of text.split('\n')) {
      const tokens = raw.split(/[ \t\r]+/).filter((t) => t !== '');
      const first = tokens[0];
      if (first === undefined) continue;
      if (first === 'nameserver' && (flags & OPTION_NAMESERVERS) !== 0) {
        const ns = tokens[1];
        if (ns !== undefined) this.#addNameserver(ns);
      } else if (first === 'domain' && (flags & OPTION_SEARCH) !== 0) {
        const d = tokens[1];
        if (d !== undefined) {
          this.#searchDomains = [];
          this.#addSearchQuiet(d);
          sawSearch = true;
        }
      } else if (first === 'search' && (flags & OPTION_SEARCH) !== 0) {
        this.#searchDomains = [];
        for (const d of tokens.slice(1)) {
          if (d.startsWith('#') || d.startsWith(';')) break;
          this.#addSearchQuiet(d);
        }
        sawSearch = true;
      } else if (first === 'options') {
        for (const opt of tokens.slice(1)) {
          const colon = opt.indexOf(':');
          this.#setOption(colon < 0 ? opt : opt.slice(0, colon), colon < 0 ? '' : opt.slice(colon + 1), flags);
        }
      }
    }
    this.#gen++;
    if ((flags & OPTION_SEARCH) !== 0 && (!sawSearch || this.#searchDomains.length === 0)) {
      // libevent: without a search list, use the domain of the host name
      this.#searchDomains = [];
      const host = osHostname();
      const dot = host.indexOf('.');
      if (dot >= 0) this.#addSearchQuiet(host.slice(dot + 1));
    }
    if ((flags & OPTION_NAMESERVERS) !== 0 && this.#servers.length === 0) {
      return { ok: false, message: 'No nameservers listed in the file' };
    }
    return { ok: true };
  }

  #addSearchQuiet(domain: string): void {
    const d = domain.replace(/^\.+/, '');
    if (d !== '' && d !== '.') this.#searchDomains.push(d);
  }

  #parseHosts(text: string): void {
    for (const raw of text.split('\n')) {
      const hash = raw.indexOf('#');
      const line = hash >= 0 ? raw.slice(0, hash) : raw;
      const tokens = line.split(/[ \t\r]+/).filter((t) => t !== '');
      const addr = tokens[0];
      if (addr === undefined || tokens.length < 2) continue;
      const sa = parseSockAddr(addr);
      if (sa === null || sa.port !== undefined) continue;
      const entry: EventDnsAddress = { address: sa.family === 6 ? sa.host.toLowerCase() : sa.host, family: sa.family };
      for (const name of tokens.slice(1)) {
        const key = name.toLowerCase();
        const list = this.#hosts.get(key);
        if (list === undefined) this.#hosts.set(key, [entry]);
        else list.push(entry);
      }
    }
    this.#gen++;
  }

  #hostsOutcome(hostname: string, family: number): Outcome | null {
    let key = hostname.toLowerCase();
    if (key.endsWith('.')) key = key.slice(0, -1);
    const entries = this.#hosts.get(key) ?? (key === 'localhost' ? LOCALHOST : undefined);
    if (entries === undefined) {
      // RFC 6761 6.4: names under .invalid never resolve, and are never sent to a nameserver.
      if (isInvalidName(key)) return { error: failure('ENOTFOUND', 'getaddrinfo', hostname, 'reserved name (RFC 6761)'), addresses: [] };
      return null;
    }
    const matching = entries.filter((e) => familyAllows(family, e.family));
    if (matching.length === 0) return { error: failure('EADDRFAMILY', 'getaddrinfo', hostname), addresses: [] };
    return { error: null, addresses: matching };
  }

  // ------------------------------------------------------------------ internals: lookups

  /** One lookup of (hostname, family); never rejects. */
  async #lookup(hostname: string, family: number): Promise<Outcome> {
    if (this.#servers.length === 0) {
      if (this.#systemFallback) return lookupWithSystem(hostname, family);
      return { error: failure('ENOTFOUND', 'getaddrinfo', hostname, 'no nameservers configured'), addresses: [] };
    }
    const candidates = this.#candidates(hostname);
    if (family === AF_INET || family === AF_INET6) {
      const type = family === AF_INET ? 4 : 6;
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
          timer = setTimeout(finish, this.#skewMs);
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

  /** The names to query for `hostname`, in order (search domains and ndots applied). */
  #candidates(hostname: string): string[] {
    if (hostname.endsWith('.')) return [hostname.slice(0, -1)];
    if (this.#searchDomains.length === 0) return [hostname];
    const withDomains = this.#searchDomains.map((d) => `${hostname}.${d.endsWith('.') ? d.slice(0, -1) : d}`);
    const dots = hostname.split('.').length - 1;
    return dots >= this.#ndots ? [hostname, ...withDomains] : [...withDomains, hostname];
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
    if (cached !== undefined) {
      if (cached.expires > now()) return Promise.resolve(cached.result);
      this.#cache.delete(key);
    }
    const inflight = this.#queries.get(key);
    if (inflight !== undefined) return inflight;
    const serverGen = this.#serverGen;
    const promise: Promise<QueryResult> = (async (): Promise<QueryResult> => {
      const attempts = this.#attempts;
      let r: QueryResult = { ok: false, ...failure('ECANCELLED', type === 4 ? 'queryA' : 'queryAaaa', qname) };
      for (let i = 0; i < attempts && !this.#freed; i++) {
        r = await this.#attempt(qname, type);
        if (r.ok || !RETRYABLE.has(r.code)) break;
      }
      return r;
    })().then((r) => {
      if (this.#queries.get(key) === promise) this.#queries.delete(key);
      if (!this.#freed && serverGen === this.#serverGen) this.#store(key, r);
      return r;
    });
    this.#queries.set(key, promise);
    return promise;
  }

  #store(key: string, r: QueryResult): void {
    let ms: number;
    if (r.ok) ms = r.ttl * 1000;
    else if (r.code === 'ENOTFOUND' || r.code === 'ENODATA') ms = NEGATIVE_TTL_MS;
    else return;
    if (!(ms > 0)) return;
    this.#cache.delete(key);
    if (this.#cache.size >= CACHE_MAX) {
      const oldest = this.#cache.keys().next();
      if (oldest.done !== true) this.#cache.delete(oldest.value);
    }
    this.#cache.set(key, { expires: now() + ms, result: r });
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
          this.#pump();
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
        const timeoutMs = Math.max(1, Math.round(this.#timeoutMs));
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
      if (this.#running < this.#maxInflight) start();
      else this.#waiting.add(start);
    });
  }

  /** Starts queued attempts while below `max-inflight`. */
  #pump(): void {
    while (this.#running < this.#maxInflight && this.#waiting.size > 0) {
      const next = this.#waiting.values().next().value as () => void;
      this.#waiting.delete(next);
      next();
    }
  }

  /** The next nameserver in rotation, skipping those marked down while others are up. */
  #pickServer(): Nameserver | null {
    const servers = this.#servers;
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
    if (s.failures >= this.#maxTimeouts) s.downUntil = now() + SERVER_DOWN_MS;
  }
}

// ---------------------------------------------------------------------------
// Module helpers
// ---------------------------------------------------------------------------

const LOCALHOST: readonly EventDnsAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

let scratch: Resolver | null = null;
/** A resolver used only to validate nameserver addresses with `setServers()`. */
function scratchResolver(): Resolver {
  scratch ??= new Resolver();
  return scratch;
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

/** getaddrinfo through `dns.lookup`; never rejects. */
function lookupWithSystem(hostname: string, family: number): Promise<Outcome> {
  const fam = family === AF_INET ? 4 : family === AF_INET6 ? 6 : 0;
  return new Promise<Outcome>((resolve) => {
    try {
      systemLookup(hostname, { family: fam, all: true }, (err: NodeJS.ErrnoException | null, addrs: LookupAddress[]) => {
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
      });
    } catch (err) {
      resolve({ error: failureOf(err, 'getaddrinfo', hostname), addresses: [] });
    }
  });
}

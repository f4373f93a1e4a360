/**
 * The configuration of an `EventDnsBase`, as libevent's evdns keeps it:
 * nameservers, search domains and `ndots`, the resolver options (timeout,
 * attempts, ...) and the hosts entries; reading resolv.conf and hosts files
 * into it, and answering from the hosts entries.
 *
 * @module
 */
import { Resolver } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { familyAllows, isInvalidName } from './dns-names.js';
import { failure, type EventDnsAddress, type Outcome } from './dns-outcome.js';

/**
 * The flags of `parseResolvConf()` and of the `EventDnsBase` constructor.
 * @internal
 * @example
 * ```ts
 * const config = new DnsConfig({ serversChanged: () => {}, inflightChanged: () => {} });
 * config.parseResolvConf(DNS_FLAGS.OPTION_NAMESERVERS | DNS_FLAGS.OPTION_SEARCH, '/etc/resolv.conf'); // { ok: true }
 * ```
 */
export const DNS_FLAGS = {
  /** `parseResolvConf()`: read `domain`, `search` and the `ndots` option. */
  OPTION_SEARCH: 1,
  /** `parseResolvConf()`: read `nameserver` lines. */
  OPTION_NAMESERVERS: 2,
  /** `parseResolvConf()`: read the other options. */
  OPTION_MISC: 4,
  /** `parseResolvConf()`: also load the system hosts file. */
  OPTION_HOSTSFILE: 8,
  /** `parseResolvConf()`: all of the above. */
  OPTIONS_ALL: 15,
  /** Constructor: read the system configuration. */
  INITIALIZE_NAMESERVERS: 1,
  /** Constructor: do not keep the loop alive while idle (always the case). */
  DISABLE_WHEN_INACTIVE: 32768,
  /** Constructor: no fallback to the system resolver. */
  NAMESERVERS_NO_DEFAULT: 65536,
} as const;

/**
 * The system configuration files.
 * @internal
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * const text = readFileSync(SYSTEM_RESOLV_CONF, 'latin1');
 * ```
 */
export const SYSTEM_RESOLV_CONF = '/etc/resolv.conf';
const SYSTEM_HOSTS = '/etc/hosts';

const LOCALHOST: readonly EventDnsAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * One configured nameserver and its health.
 * @internal
 */
export interface Nameserver {
  /** The address as `setServers()` takes it. */
  spec: string;
  /** Identity for duplicate detection. */
  key: string;
  /** Failures in a row. */
  failures: number;
  /** Avoided until this time (performance.now() milliseconds). */
  downUntil: number;
}

/**
 * What the configuration tells its owner.
 * @internal
 */
export interface DnsConfigHooks {
  /** The nameserver list changed: cached answers and questions in flight are stale. */
  serversChanged(): void;
  /** `max-inflight` changed: queued attempts may start. */
  inflightChanged(): void;
}

/**
 * The configuration of one DNS base. Its setters report problems by their
 * results; the owner turns them into warnings.
 * @internal
 * @example
 * ```ts
 * import { DnsCache } from './dns-cache.js';
 * const cache = new DnsCache();
 * const config = new DnsConfig({ serversChanged: () => cache.clear(), inflightChanged: () => {} });
 * config.addNameserver('127.0.0.1:5353'); // 'ok'
 * ```
 */
export class DnsConfig {
  #servers: Nameserver[] = [];
  #searchDomains: string[] = [];
  #ndots = 1;
  #timeoutMs = 5000;
  #attempts = 3;
  #maxTimeouts = 3;
  #maxInflight = 64;
  #skewMs = 3000;
  #hosts = new Map<string, EventDnsAddress[]>();
  #gen = 0;
  #serverGen = 0;
  readonly #hooks: DnsConfigHooks;
  /** A resolver used only to validate nameserver addresses with `setServers()`. */
  #scratch: Resolver | null = null;

  constructor(hooks: DnsConfigHooks) {
    this.#hooks = hooks;
  }

  /** The nameservers, in rotation order. */
  get servers(): readonly Nameserver[] {
    return this.#servers;
  }
  /** Seconds per attempt, in milliseconds. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }
  /** Sends per question. */
  get attempts(): number {
    return this.#attempts;
  }
  /** Failures in a row after which a nameserver is avoided for a while. */
  get maxTimeouts(): number {
    return this.#maxTimeouts;
  }
  /** Questions on the wire at once. */
  get maxInflight(): number {
    return this.#maxInflight;
  }
  /** How long an AF_UNSPEC lookup waits for the other family once one answered, in milliseconds. */
  get skewMs(): number {
    return this.#skewMs;
  }
  /** Bumped by every change that affects how a name resolves. */
  get gen(): number {
    return this.#gen;
  }
  /** Bumped when the nameserver list changes (cached answers become stale). */
  get serverGen(): number {
    return this.#serverGen;
  }

  /** Adds a nameserver (`ip`, `ip:port`, `[ipv6]`, `[ipv6]:port`, bare IPv6; port 53 when 0 or none). */
  addNameserver(text: string): 'ok' | 'invalid' | 'duplicate' {
    const sa = parseSockAddr(text);
    if (sa === null) return 'invalid';
    const port = sa.port === undefined || sa.port === 0 ? 53 : sa.port;
    const spec = sa.family === 6 ? `[${sa.host}]:${port}` : `${sa.host}:${port}`;
    try {
      this.#scratch ??= new Resolver();
      this.#scratch.setServers([spec]);
    } catch {
      return 'invalid';
    }
    const key = `${sa.family === 6 ? canonicalV6(sa.host) : sa.host}|${port}`;
    if (this.#servers.some((s) => s.key === key)) return 'duplicate';
    this.#servers.push({ spec, key, failures: 0, downUntil: 0 });
    this.#gen++;
    this.#serverGen++;
    this.#hooks.serversChanged();
    return 'ok';
  }

  /** Removes every search domain. */
  clearSearch(): void {
    this.#searchDomains = [];
    this.#gen++;
  }

  /** Appends a search domain, already checked by the caller. */
  addSearch(domain: string): void {
    this.#searchDomains.push(domain);
    this.#gen++;
  }

  /** Sets `ndots`, already checked by the caller. */
  setNdots(ndots: number): void {
    this.#ndots = ndots;
    this.#gen++;
  }

  /** Sets an option (a name without its colon); `flags` (`OPTION_*`) says which kinds apply. */
  setOption(name: string, value: string, flags: number): 'ok' | 'unknown' | 'invalid' {
    const clip = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
    switch (name) {
      case 'ndots': {
        const n = parseIntStrict(value);
        if (n === null || n < 0) return 'invalid';
        if ((flags & DNS_FLAGS.OPTION_SEARCH) === 0) return 'ok';
        this.#ndots = n;
        this.#gen++;
        return 'ok';
      }
      case 'timeout':
      case 'getaddrinfo-allow-skew': {
        const ms = parseSeconds(value);
        if (ms === null) return 'invalid';
        if ((flags & DNS_FLAGS.OPTION_MISC) === 0) return 'ok';
        if (name === 'timeout') this.#timeoutMs = ms;
        else this.#skewMs = ms;
        return 'ok';
      }
      case 'attempts':
      case 'max-timeouts':
      case 'max-inflight': {
        const n = parseIntStrict(value);
        if (n === null) return 'invalid';
        if ((flags & DNS_FLAGS.OPTION_MISC) === 0) return 'ok';
        if (name === 'attempts') this.#attempts = clip(n, 1, 255);
        else if (name === 'max-timeouts') this.#maxTimeouts = clip(n, 1, 255);
        else {
          this.#maxInflight = clip(n, 1, 65000);
          this.#hooks.inflightChanged();
        }
        return 'ok';
      }
      default:
        return 'unknown';
    }
  }

  /** Reads a resolv.conf-style file, applying what `flags` selects. */
  parseResolvConf(flags: number, file: string): { ok: true } | { ok: false; message: string; cause?: unknown } {
    if ((flags & DNS_FLAGS.OPTION_HOSTSFILE) !== 0) {
      try {
        this.parseHosts(readFileSync(SYSTEM_HOSTS, 'latin1'));
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
      if (first === 'nameserver' && (flags & DNS_FLAGS.OPTION_NAMESERVERS) !== 0) {
        const ns = tokens[1];
        if (ns !== undefined) this.addNameserver(ns);
      } else if (first === 'domain' && (flags & DNS_FLAGS.OPTION_SEARCH) !== 0) {
        const d = tokens[1];
        if (d !== undefined) {
          this.#searchDomains = [];
          this.#addSearchQuiet(d);
          sawSearch = true;
        }
      } else if (first === 'search' && (flags & DNS_FLAGS.OPTION_SEARCH) !== 0) {
        this.#searchDomains = [];
        for (const d of tokens.slice(1)) {
          if (d.startsWith('#') || d.startsWith(';')) break;
          this.#addSearchQuiet(d);
        }
        sawSearch = true;
      } else if (first === 'options') {
        for (const opt of tokens.slice(1)) {
          const colon = opt.indexOf(':');
          this.setOption(colon < 0 ? opt : opt.slice(0, colon), colon < 0 ? '' : opt.slice(colon + 1), flags);
        }
      }
    }
    this.#gen++;
    if ((flags & DNS_FLAGS.OPTION_SEARCH) !== 0 && (!sawSearch || this.#searchDomains.length === 0)) {
      // libevent: without a search list, use the domain of the host name
      this.#searchDomains = [];
      const host = osHostname();
      const dot = host.indexOf('.');
      if (dot >= 0) this.#addSearchQuiet(host.slice(dot + 1));
    }
    if ((flags & DNS_FLAGS.OPTION_NAMESERVERS) !== 0 && this.#servers.length === 0) {
      return { ok: false, message: 'No nameservers listed in the file' };
    }
    return { ok: true };
  }

  #addSearchQuiet(domain: string): void {
    const d = domain.replace(/^\.+/, '');
    if (d !== '' && d !== '.') this.#searchDomains.push(d);
  }

  /** Adds the entries of a hosts file's text (an address, then names; `#` comments). */
  parseHosts(text: string): void {
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

  /** The answer of the hosts entries (and built-in `localhost`, and `.invalid`), or null when they have none. */
  hostsOutcome(hostname: string, family: number): Outcome | null {
    let key = hostname.toLowerCase();
    if (key.endsWith('.')) key = key.slice(0, -1);
    const entries = this.#hosts.get(key) ?? (key === 'localhost' ? LOCALHOST : undefined);
    if (entries === undefined) {
      // RFC 6761 6.4: names under .invalid never resolve, and are never sent to a nameserver.
      if (isInvalidName(key))
        return { error: failure('ENOTFOUND', 'getaddrinfo', hostname, 'reserved name (RFC 6761)'), addresses: [] };
      return null;
    }
    const matching = entries.filter((e) => familyAllows(family, e.family));
    if (matching.length === 0) return { error: failure('EADDRFAMILY', 'getaddrinfo', hostname), addresses: [] };
    return { error: null, addresses: matching };
  }

  /** The names to query for `hostname`, in order (search domains and ndots applied). */
  candidates(hostname: string): string[] {
    if (hostname.endsWith('.')) return [hostname.slice(0, -1)];
    if (this.#searchDomains.length === 0) return [hostname];
    const withDomains = this.#searchDomains.map((d) => `${hostname}.${d.endsWith('.') ? d.slice(0, -1) : d}`);
    const dots = hostname.split('.').length - 1;
    return dots >= this.#ndots ? [hostname, ...withDomains] : [...withDomains, hostname];
  }

  /** Forgets the nameservers and the hosts entries (the DNS base is freed). */
  clear(): void {
    this.#servers = [];
    this.#hosts.clear();
  }
}

// ---------------------------------------------------------------------------
// Parsing helpers
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

/**
 * An option name as libevent's `str_matches_option()` accepts it: `name` or `name:` (or `name:junk`).
 * @internal
 * @example
 * ```ts
 * optionName('timeout:'); // 'timeout'
 * ```
 */
export function optionName(option: string): string {
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

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
import { readFileSync } from 'node:fs';
import { domainToASCII } from 'node:url';
import { EventBase } from './base.js';
import { DnsCache } from './dns-cache.js';
import { DNS_FLAGS, DnsConfig, optionName, SYSTEM_RESOLV_CONF } from './dns-config.js';
import { Delivery } from './dns-delivery.js';
import { checkLookupArgs, literalOutcome, validName } from './dns-names.js';
import {
  errorText,
  failure,
  failureOf,
  type EventDnsCallback,
  type EventDnsRequest,
  type Outcome,
} from './dns-outcome.js';
import { DnsResolver, lookupWithSystem } from './dns-resolver.js';
import { createEventError, warn } from './errors.js';
import { noop } from './shared.js';

export type { EventDnsAddress, EventDnsCallback, EventDnsRequest } from './dns-outcome.js';

interface LookupEntry {
  deliveries: Set<Delivery>;
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
  static readonly OPTION_SEARCH = DNS_FLAGS.OPTION_SEARCH;
  /** `parseResolvConf()` flag: read `nameserver` lines. */
  static readonly OPTION_NAMESERVERS = DNS_FLAGS.OPTION_NAMESERVERS;
  /** `parseResolvConf()` flag: read the other options (`timeout`, `attempts`, `max-timeouts`, `max-inflight`). */
  static readonly OPTION_MISC = DNS_FLAGS.OPTION_MISC;
  /** `parseResolvConf()` flag: also load the system hosts file (/etc/hosts). */
  static readonly OPTION_HOSTSFILE = DNS_FLAGS.OPTION_HOSTSFILE;
  /** `parseResolvConf()` flag: all of the above. */
  static readonly OPTIONS_ALL = DNS_FLAGS.OPTIONS_ALL;
  /** Constructor flag: read the system configuration (/etc/resolv.conf and /etc/hosts); same as `true`. */
  static readonly INITIALIZE_NAMESERVERS = DNS_FLAGS.INITIALIZE_NAMESERVERS;
  /** Constructor flag: do not keep the loop alive while idle. Accepted; an idle DNS base never keeps the loop alive here. */
  static readonly DISABLE_WHEN_INACTIVE = DNS_FLAGS.DISABLE_WHEN_INACTIVE;
  /** Constructor flag: when resolv.conf lists no nameserver, do not fall back to the system resolver. */
  static readonly NAMESERVERS_NO_DEFAULT = DNS_FLAGS.NAMESERVERS_NO_DEFAULT;

  readonly #base: EventBase;
  #freed = false;
  readonly #config: DnsConfig;
  readonly #cache = new DnsCache();
  readonly #resolver: DnsResolver;
  #deliveries = new Set<Delivery>();
  #lookups = new Map<string, LookupEntry>();

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
    if (!(base instanceof EventBase))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventDnsBase expects an EventBase');
    let flags: number;
    const { INITIALIZE_NAMESERVERS, DISABLE_WHEN_INACTIVE, NAMESERVERS_NO_DEFAULT } = DNS_FLAGS;
    if (typeof initialize === 'boolean') flags = initialize ? INITIALIZE_NAMESERVERS : 0;
    else if (typeof initialize === 'number' && Number.isInteger(initialize)) {
      if (
        (initialize & ~(INITIALIZE_NAMESERVERS | DISABLE_WHEN_INACTIVE | NAMESERVERS_NO_DEFAULT)) !== 0 ||
        initialize < 0
      ) {
        throw createEventError('ERR_EVENT_DNS', 'Invalid initialization flags');
      }
      flags = initialize;
    } else {
      throw createEventError(
        'ERR_EVENT_INVALID_ARGUMENT',
        `EventDnsBase: the initialization argument must be a boolean or an integer, ${typeof initialize} given`,
      );
    }
    this.#base = base;
    const initializing = (flags & INITIALIZE_NAMESERVERS) !== 0;
    this.#config = new DnsConfig({
      serversChanged: () => {
        this.#cache.clear();
        this.#resolver.clearQueries();
      },
      inflightChanged: () => this.#resolver.pump(),
    });
    this.#resolver = new DnsResolver(this.#config, this.#cache, initializing && (flags & NAMESERVERS_NO_DEFAULT) === 0);
    if (initializing) this.#config.parseResolvConf(DNS_FLAGS.OPTIONS_ALL, SYSTEM_RESOLV_CONF);
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
    if (typeof flags !== 'number' || !Number.isInteger(flags) || (flags & ~DNS_FLAGS.OPTIONS_ALL) !== 0 || flags < 0) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'Invalid flags');
    }
    if (typeof file !== 'string') return warn('ERR_EVENT_INVALID_ARGUMENT', 'The file name must be a string');
    const r = this.#config.parseResolvConf(flags, file);
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
    const r = this.#config.addNameserver(ip);
    if (r === 'ok') return true;
    return warn(
      'ERR_EVENT_INVALID_ARGUMENT',
      r === 'duplicate' ? `Nameserver already added: ${ip}` : `Unable to parse nameserver address ${ip}`,
    );
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
    this.#config.parseHosts(text);
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
    this.#config.clearSearch();
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
    this.#config.addSearch(d);
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
    this.#config.setNdots(ndots);
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
    const r = this.#config.setOption(optionName(name.trim()), value, DNS_FLAGS.OPTIONS_ALL);
    if (r === 'ok') return true;
    return warn(
      'ERR_EVENT_INVALID_ARGUMENT',
      r === 'unknown' ? `Unknown DNS option ${name}` : `Invalid value for DNS option ${name}: ${value}`,
    );
  }

  /**
   * The number of configured nameservers.
   * @example
   * ```ts
   * new EventDnsBase(base, false).countNameservers(); // 0
   * ```
   */
  countNameservers(): number {
    return this.#freed ? 0 : this.#config.servers.length;
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
    this.#resolver.free();
    this.#lookups.clear();
    this.#cache.clear();
    this.#config.clear();
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
   *   if (err) console.error(EventDnsBase.errorString(err));
   *   else console.log(addrs.map((a) => a.address));
   * });
   * ```
   */
  resolve(hostname: string, family: number, cb: EventDnsCallback): EventDnsRequest {
    checkLookupArgs(hostname, family, cb);
    if (this.#freed) throw createEventError('ERR_EVENT_FREED', 'EventDnsBase is not initialized');
    if (this.#base.freed) throw createEventError('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');

    const immediate = literalOutcome(hostname, family) ?? this.#config.hostsOutcome(hostname, family);
    if (immediate !== null) {
      const d = this.#newDelivery(cb, null);
      d.settle(immediate);
      return d;
    }
    // International names are sent in their ASCII (punycode) form.
    // eslint-disable-next-line no-control-regex -- any character outside ASCII marks an international name
    const qname = /[^\x00-\x7f]/.test(hostname) ? domainToASCII(hostname) : hostname;
    if (!validName(qname.endsWith('.') ? qname.slice(0, -1) : qname)) {
      const d = this.#newDelivery(cb, null);
      d.settle({ error: failure('EBADNAME', 'getaddrinfo', hostname), addresses: [] });
      return d;
    }

    const key = `${this.#config.gen}|${family}|${qname.toLowerCase()}`;
    let entry = this.#lookups.get(key);
    if (entry === undefined) {
      const created: LookupEntry = { deliveries: new Set() };
      entry = created;
      this.#lookups.set(key, created);
      void this.#resolver
        .lookup(qname, family)
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
    if (!(base instanceof EventBase))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'resolveSystem expects an EventBase');
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
    return errorText(err);
  }

  /**
   * The same as the static {@link EventDnsBase.errorString}, for callers that
   * hold a DNS base (`EventBufferEvent.getDnsErrorString()`).
   * @internal
   * @example
   * ```ts
   * let text = '';
   * dns.resolve('svc.test', EventUtil.AF_INET, (err) => { if (err) text = dns.errorString(err); });
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
}

/**
 * EventDnsBase tests. No traffic leaves the machine: every query goes to a
 * tiny DNS server on 127.0.0.1 run by the test itself, and only names under
 * `.test` (reserved, RFC 2606) are looked up.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBase } from '../../src/event/base.js';
import { EventDnsBase, type EventDnsAddress } from '../../src/event/dns.js';
import {
  EventDnsError,
  EventArgumentError,
  EventStateError,
  getLastError,
  clearLastError,
} from '../../src/event/errors.js';

const AF_UNSPEC = 0;
const AF_INET = 2;
const AF_INET6 = 10;
const NONAME = 'nodename nor servname provided, or not known';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Whether `p` settles within `turns` turns of Node's loop (before the check
 * phase of the last): "at once", counted in turns rather than milliseconds,
 * so that a busy machine cannot make it false. Waiting for a resolver or a
 * timer would need I/O or a timer phase, never a fixed number of turns.
 */
async function settlesWithinTurns(p: Promise<unknown>, turns: number): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns && !settled; i++) await new Promise((r) => setImmediate(r));
  return settled;
}

// ---------------------------------------------------------------------------
// A tiny authoritative DNS server (UDP, 127.0.0.1, ephemeral port)
// ---------------------------------------------------------------------------

interface Zone {
  A?: string[];
  AAAA?: string[];
  /** TTL of the answers in seconds (default 60). */
  ttl?: number;
  /** Answer after this many milliseconds. */
  delay?: number;
  /** Never answer AAAA questions for this name. */
  dropAAAA?: boolean;
  /** Answer with this RCODE (2 SERVFAIL, 5 REFUSED...) instead. */
  rcode?: number;
}

interface DnsServer {
  port: number;
  /** Every question received, as "name/A" or "name/AAAA" (name lower-cased). */
  log: string[];
  /** Questions received for one name and type. */
  count(q: string): number;
  /** Highest number of questions waiting for their (delayed) answer at once. */
  maxOutstanding: number;
  close(): Promise<void>;
}

function v6Bytes(addr: string): Buffer {
  const [head = '', tail] = addr.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const b = Buffer.alloc(16);
  groups.forEach((g, i) => b.writeUInt16BE(parseInt(g, 16), i * 2));
  return b;
}

function parseQuestion(msg: Buffer): { name: string; type: number; end: number } | null {
  if (msg.length < 12 || msg.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let off = 12;
  for (;;) {
    const len = msg[off];
    if (len === undefined) return null;
    off++;
    if (len === 0) break;
    labels.push(msg.subarray(off, off + len).toString('latin1'));
    off += len;
  }
  if (off + 4 > msg.length) return null;
  return { name: labels.join('.'), type: msg.readUInt16BE(off), end: off + 4 };
}

async function startDnsServer(zones: Record<string, Zone>, opts: { silent?: boolean } = {}): Promise<DnsServer> {
  const sock: UdpSocket = createSocket('udp4');
  const log: string[] = [];
  let outstanding = 0;
  const server: DnsServer = {
    port: 0,
    log,
    count: (q) => log.filter((x) => x === q).length,
    maxOutstanding: 0,
    close: async () => {
      sock.close();
      await once(sock, 'close');
    },
  };
  sock.on('message', (msg, rinfo) => {
    const q = parseQuestion(msg);
    if (q === null) return;
    const name = q.name.toLowerCase();
    const typeName = q.type === 1 ? 'A' : q.type === 28 ? 'AAAA' : String(q.type);
    log.push(`${name}/${typeName}`);
    if (opts.silent) return;
    const zone = zones[name];
    if (zone?.dropAAAA && q.type === 28) return;
    let rcode = 0;
    const answers: Buffer[] = [];
    if (zone === undefined)
      rcode = 3; // NXDOMAIN
    else if (zone.rcode !== undefined) rcode = zone.rcode;
    else {
      const addrs = q.type === 1 ? (zone.A ?? []) : q.type === 28 ? (zone.AAAA ?? []) : [];
      for (const a of addrs) {
        const rdata = q.type === 1 ? Buffer.from(a.split('.').map(Number)) : v6Bytes(a);
        const rr = Buffer.alloc(12);
        rr.writeUInt16BE(0xc00c, 0); // pointer to the question name
        rr.writeUInt16BE(q.type, 2);
        rr.writeUInt16BE(1, 4); // IN
        rr.writeUInt32BE(zone.ttl ?? 60, 6);
        rr.writeUInt16BE(rdata.length, 10);
        answers.push(rr, rdata);
      }
    }
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8000 | 0x0400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length / 2, 6);
    const reply = Buffer.concat([header, msg.subarray(12, q.end), ...answers]);
    const send = (): void => {
      sock.send(reply, rinfo.port, rinfo.address);
    };
    if (zone?.delay) {
      outstanding++;
      server.maxOutstanding = Math.max(server.maxOutstanding, outstanding);
      setTimeout(() => {
        outstanding--;
        send();
      }, zone.delay);
    } else send();
  });
  sock.bind(0, '127.0.0.1');
  await once(sock, 'listening');
  server.port = sock.address().port;
  return server;
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

const ZONES: Record<string, Zone> = {
  'svc.test': { A: ['10.0.0.1'], ttl: 60 },
  'multi.test': { A: ['10.0.0.2', '10.0.0.3'] },
  'v6only.test': { AAAA: ['2001:db8::6'] },
  'dual.test': { A: ['10.0.0.4'], AAAA: ['2001:db8::4'] },
  'ttl1.test': { A: ['10.0.0.5'], ttl: 1 },
  'ttl0.test': { A: ['10.0.0.9'], ttl: 0 },
  'slow.test': { A: ['10.0.0.6'], delay: 300 },
  'slow1.test': { A: ['10.0.1.1'], delay: 100 },
  'slow2.test': { A: ['10.0.1.2'], delay: 100 },
  'slow3.test': { A: ['10.0.1.3'], delay: 100 },
  'half.test': { A: ['10.0.0.7'], AAAA: ['2001:db8::7'], dropAAAA: true },
  'concurrent.test': { A: ['10.0.0.8'], delay: 50 },
  'servfail.test': { rcode: 2 },
  'deep.svc.test': { A: ['10.0.2.1'] },
};

let server: DnsServer;
let blackhole: DnsServer;
const tmp = mkdtempSync(join(tmpdir(), 'eventide-dns-'));

after(async () => {
  await server?.close();
  await blackhole?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function servers(): Promise<void> {
  server ??= await startDnsServer(ZONES);
  blackhole ??= await startDnsServer({}, { silent: true });
}

function newDns(base: EventBase, srv: DnsServer = server): EventDnsBase {
  const dns = new EventDnsBase(base, false);
  assert.equal(dns.addNameserverIp(`127.0.0.1:${srv.port}`), true);
  return dns;
}

interface Answer {
  err: EventDnsError | null;
  addrs: EventDnsAddress[];
}

/** Resolves and dispatches until the callback ran. */
async function resolveOnce(base: EventBase, dns: EventDnsBase, name: string, family: number): Promise<Answer> {
  let got: Answer | null = null;
  dns.resolve(name, family, (err, addrs) => {
    got = { err, addrs };
  });
  await base.dispatch();
  assert.ok(got, 'the callback ran during dispatch');
  return got;
}

// ---------------------------------------------------------------------------
// Construction and configuration
// ---------------------------------------------------------------------------

test('constants have the libevent values', () => {
  assert.deepEqual(
    [
      EventDnsBase.OPTION_SEARCH,
      EventDnsBase.OPTION_NAMESERVERS,
      EventDnsBase.OPTION_MISC,
      EventDnsBase.OPTION_HOSTSFILE,
      EventDnsBase.OPTIONS_ALL,
      EventDnsBase.INITIALIZE_NAMESERVERS,
      EventDnsBase.DISABLE_WHEN_INACTIVE,
      EventDnsBase.NAMESERVERS_NO_DEFAULT,
    ],
    [1, 2, 4, 8, 15, 1, 32768, 65536],
  );
});

test('constructor: initialization flags are validated', () => {
  const base = new EventBase();
  assert.equal(new EventDnsBase(base, false).countNameservers(), 0);
  assert.equal(new EventDnsBase(base, 0).countNameservers(), 0);
  assert.equal(new EventDnsBase(base, EventDnsBase.DISABLE_WHEN_INACTIVE).countNameservers(), 0);
  assert.equal(new EventDnsBase(base, EventDnsBase.NAMESERVERS_NO_DEFAULT).countNameservers(), 0);
  for (const init of [true, EventDnsBase.INITIALIZE_NAMESERVERS, 1 | 32768 | 65536] as const) {
    assert.ok(new EventDnsBase(base, init).countNameservers() >= 0);
  }
  const invalidFlags = (e: unknown): boolean =>
    e instanceof EventDnsError && e.code === 'ERR_EVENT_DNS' && e.message === 'Invalid initialization flags';
  assert.throws(() => new EventDnsBase(base, -1), invalidFlags);
  assert.throws(() => new EventDnsBase(base, 2), invalidFlags);
  assert.throws(() => new EventDnsBase(base, 4 | 1), invalidFlags);
  assert.throws(() => new EventDnsBase(base, 1 << 20), invalidFlags);
  const badArg = (e: unknown): boolean => e instanceof EventArgumentError && e.code === 'ERR_EVENT_INVALID_ARGUMENT';
  assert.throws(() => new EventDnsBase(base, 'yes' as never), badArg);
  assert.throws(() => new EventDnsBase(base, {} as never), badArg);
  assert.throws(() => new EventDnsBase(base, 1.5), badArg);
  assert.throws(() => new EventDnsBase({} as EventBase, false), badArg);
});

test('constructor with true reads the nameservers of /etc/resolv.conf (no query is sent)', () => {
  const base = new EventBase();
  let expected = 0;
  if (existsSync('/etc/resolv.conf')) {
    const seen = new Set<string>();
    for (const line of readFileSync('/etc/resolv.conf', 'latin1').split('\n')) {
      const [kw, addr] = line.trim().split(/\s+/);
      if (kw === 'nameserver' && addr !== undefined && (isIPv4(addr) || isIPv6(addr))) seen.add(addr);
    }
    expected = seen.size;
  }
  assert.equal(new EventDnsBase(base, true).countNameservers(), expected);
});

test('addNameserverIp accepts ip, ip:port, [ipv6]:port, bare ipv6; rejects garbage and duplicates', () => {
  const dns = new EventDnsBase(new EventBase(), false);
  assert.equal(dns.addNameserverIp('127.0.0.1'), true);
  assert.equal(dns.addNameserverIp('127.0.0.1:5353'), true);
  assert.equal(dns.addNameserverIp('[::1]:5353'), true);
  assert.equal(dns.addNameserverIp('::2'), true);
  assert.equal(dns.addNameserverIp('[::3]'), true);
  assert.equal(dns.countNameservers(), 5);
  clearLastError();
  for (const bad of [
    'garbage',
    '',
    'resolver.test',
    '1.2.3.4:99999',
    '1.2.3.4:',
    '1.2.3.4:x',
    '[::1',
    '[::1]x',
    '1.2.3',
    '[1.2.3.4]:53',
  ]) {
    assert.equal(dns.addNameserverIp(bad), false, bad);
  }
  assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_ARGUMENT');
  // duplicates: same address and port (53 when absent or 0; IPv6 in any spelling)
  assert.equal(dns.addNameserverIp('127.0.0.1:53'), false);
  assert.equal(dns.addNameserverIp('127.0.0.1:0'), false);
  assert.equal(dns.addNameserverIp('[0:0::1]:5353'), false);
  assert.equal(dns.addNameserverIp('[::2]:53'), false);
  assert.equal(dns.countNameservers(), 5);
});

test('setOption: known names with or without a colon; unknown names and bad values give false', () => {
  const dns = new EventDnsBase(new EventBase(), false);
  for (const [name, value] of [
    ['ndots', '2'],
    ['ndots:', '0'],
    ['timeout', '0.5'],
    ['timeout:', '3'],
    ['max-timeouts', '5'],
    ['max-timeouts:', '1000'],
    ['max-inflight', '10'],
    ['max-inflight:', '0'],
    ['attempts', '2'],
    ['attempts:', '300'],
    ['getaddrinfo-allow-skew', '1.5'],
  ] as const) {
    assert.equal(dns.setOption(name, value), true, `${name} ${value}`);
  }
  for (const [name, value] of [
    ['rotate', '1'],
    ['nonsense', '1'],
    ['', '1'],
    ['ndotsx', '1'],
    ['ndots', 'abc'],
    ['ndots', '-1'],
    ['timeout', 'abc'],
    ['timeout', '0'],
    ['timeout', '-1'],
    ['attempts', ''],
    ['max-inflight', '1.5'],
  ] as const) {
    assert.equal(dns.setOption(name, value), false, `${name} ${value}`);
  }
});

test('parseResolvConf: nameservers, search and options; flags select what is read', async () => {
  await servers();
  const file = join(tmp, 'resolv.conf');
  writeFileSync(
    file,
    [
      '# test resolver',
      `nameserver 127.0.0.1:${server.port}`,
      'nameserver 127.0.0.2:1',
      'nameserver not-an-ip',
      'search test example.test',
      'options ndots:2 timeout:0.5 attempts:2 rotate',
      '',
    ].join('\n'),
  );
  const base = new EventBase();

  const onlySearch = new EventDnsBase(base, false);
  assert.equal(onlySearch.parseResolvConf(EventDnsBase.OPTION_SEARCH, file), true);
  assert.equal(onlySearch.countNameservers(), 0);

  const dns = new EventDnsBase(base, false);
  assert.equal(dns.parseResolvConf(EventDnsBase.OPTIONS_ALL, file), true);
  assert.equal(dns.countNameservers(), 2);

  // ndots:2 + search: "svc.test" has one dot, so "svc.test.test" is tried first
  const first = server.log.length;
  const { err, addrs } = await resolveOnce(base, dns, 'svc.test', AF_INET);
  assert.equal(err, null);
  assert.deepEqual(addrs, [{ address: '10.0.0.1', family: 4 }]);
  assert.deepEqual(server.log.slice(first), ['svc.test.test/A', 'svc.test.example.test/A', 'svc.test/A']);

  // bad flags
  clearLastError();
  assert.equal(dns.parseResolvConf(16, file), false);
  assert.equal(getLastError()?.message, 'Invalid flags');
  assert.equal(dns.parseResolvConf(-1, file), false);

  // a missing file: warning, false (the PHP extension says true), nothing changed
  assert.equal(dns.parseResolvConf(EventDnsBase.OPTION_NAMESERVERS, join(tmp, 'missing.conf')), false);
  assert.equal(getLastError()?.message, 'Failed to open file');
  assert.equal(getLastError()?.code, 'ERR_EVENT_DNS');
  assert.equal(dns.countNameservers(), 2);

  // no nameserver in the file
  const empty = join(tmp, 'empty.conf');
  writeFileSync(empty, 'search test\n');
  const d2 = new EventDnsBase(base, false);
  assert.equal(d2.parseResolvConf(EventDnsBase.OPTION_NAMESERVERS, empty), false);
  assert.equal(getLastError()?.message, 'No nameservers listed in the file');
  assert.equal(d2.parseResolvConf(EventDnsBase.OPTION_SEARCH, empty), true);
});

// ---------------------------------------------------------------------------
// Answers without queries
// ---------------------------------------------------------------------------

test('IP literals answer at once, without any query', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  const before = server.log.length;
  assert.deepEqual((await resolveOnce(base, dns, '192.0.2.1', AF_UNSPEC)).addrs, [{ address: '192.0.2.1', family: 4 }]);
  assert.deepEqual((await resolveOnce(base, dns, '192.0.2.1', AF_INET)).addrs, [{ address: '192.0.2.1', family: 4 }]);
  assert.deepEqual((await resolveOnce(base, dns, '::1', AF_UNSPEC)).addrs, [{ address: '::1', family: 6 }]);
  assert.deepEqual((await resolveOnce(base, dns, '[2001:db8::1]', AF_INET6)).addrs, [
    { address: '2001:db8::1', family: 6 },
  ]);
  const mismatch = await resolveOnce(base, dns, '192.0.2.1', AF_INET6);
  assert.ok(mismatch.err instanceof EventDnsError);
  assert.equal(mismatch.err.message, 'address family for nodename not supported');
  assert.deepEqual(mismatch.addrs, []);
  assert.equal(
    (await resolveOnce(base, dns, '::1', AF_INET)).err?.message,
    'address family for nodename not supported',
  );
  assert.equal(server.log.length, before, 'no query was sent');

  // also without any nameserver
  const bare = new EventDnsBase(base, false);
  assert.deepEqual((await resolveOnce(base, bare, '10.9.8.7', AF_UNSPEC)).addrs, [{ address: '10.9.8.7', family: 4 }]);
});

test('hosts file entries and localhost answer without queries', async () => {
  await servers();
  const hosts = join(tmp, 'hosts');
  writeFileSync(
    hosts,
    [
      '# comment line',
      '10.1.1.1   MyHost  alias.test   # trailing comment',
      '2001:db8::5 myhost',
      '10.2.2.2\tv4only.test',
      '10.3.3.3:80 broken.test',
      'not-an-address bad.test',
      '',
    ].join('\n'),
  );
  const base = new EventBase();
  const dns = newDns(base);
  assert.equal(dns.loadHosts(hosts), true);
  assert.equal(dns.loadHosts(join(tmp, 'no-such-hosts')), false);
  const before = server.log.length;

  assert.deepEqual((await resolveOnce(base, dns, 'myhost', AF_UNSPEC)).addrs, [
    { address: '10.1.1.1', family: 4 },
    { address: '2001:db8::5', family: 6 },
  ]);
  assert.deepEqual((await resolveOnce(base, dns, 'MYHOST', AF_INET)).addrs, [{ address: '10.1.1.1', family: 4 }]);
  assert.deepEqual((await resolveOnce(base, dns, 'myhost.', AF_INET6)).addrs, [{ address: '2001:db8::5', family: 6 }]);
  assert.deepEqual((await resolveOnce(base, dns, 'alias.test', AF_INET)).addrs, [{ address: '10.1.1.1', family: 4 }]);
  const wrongFamily = await resolveOnce(base, dns, 'v4only.test', AF_INET6);
  assert.equal(wrongFamily.err?.message, 'address family for nodename not supported');
  // localhost is built in when no hosts file defines it
  const bare = new EventDnsBase(base, false);
  assert.deepEqual((await resolveOnce(base, bare, 'localhost', AF_UNSPEC)).addrs, [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ]);
  assert.deepEqual((await resolveOnce(base, bare, 'LocalHost', AF_INET6)).addrs, [{ address: '::1', family: 6 }]);
  assert.equal(server.log.length, before, 'no query was sent');

  // malformed lines were skipped: those names go to DNS (NXDOMAIN here)
  assert.equal((await resolveOnce(base, dns, 'broken.test', AF_INET)).err?.message, NONAME);
});

test('without nameservers (initialize false) names fail without using the system resolver', async () => {
  const base = new EventBase();
  const dns = new EventDnsBase(base, false);
  const answer = resolveOnce(base, dns, 'svc.test', AF_UNSPEC);
  assert.ok(await settlesWithinTurns(answer, 5), 'answered without waiting for a resolver');
  const { err, addrs } = await answer;
  assert.ok(err instanceof EventDnsError);
  assert.equal(err.message, NONAME);
  assert.equal(dns.errorString(err), NONAME);
  assert.deepEqual(addrs, []);
});

// ---------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------

test('A and AAAA by family; AF_UNSPEC gives IPv4 first', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  assert.deepEqual((await resolveOnce(base, dns, 'multi.test', AF_INET)).addrs, [
    { address: '10.0.0.2', family: 4 },
    { address: '10.0.0.3', family: 4 },
  ]);
  assert.deepEqual((await resolveOnce(base, dns, 'v6only.test', AF_INET6)).addrs, [
    { address: '2001:db8::6', family: 6 },
  ]);
  assert.deepEqual((await resolveOnce(base, dns, 'dual.test', AF_INET6)).addrs, [
    { address: '2001:db8::4', family: 6 },
  ]);
  assert.deepEqual((await resolveOnce(base, dns, 'dual.test', AF_UNSPEC)).addrs, [
    { address: '10.0.0.4', family: 4 },
    { address: '2001:db8::4', family: 6 },
  ]);
  assert.deepEqual((await resolveOnce(base, dns, 'v6only.test', AF_UNSPEC)).addrs, [
    { address: '2001:db8::6', family: 6 },
  ]);
  assert.deepEqual((await resolveOnce(base, dns, 'svc.test.', AF_INET)).addrs, [{ address: '10.0.0.1', family: 4 }]);
  assert.equal(server.count('dual.test/A'), 1, 'the A answer of dual.test was cached');
});

test('NXDOMAIN and NODATA give an EventDnsError with the documented text', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  const nx = await resolveOnce(base, dns, 'nosuchname.test', AF_UNSPEC);
  assert.ok(nx.err instanceof EventDnsError);
  assert.equal(nx.err.code, 'ERR_EVENT_DNS');
  assert.equal(nx.err.message, NONAME);
  assert.equal((nx.err.cause as { code?: string }).code, 'ENOTFOUND');
  assert.equal(EventDnsBase.errorString(nx.err), NONAME);
  assert.deepEqual(nx.addrs, []);

  const nodata = await resolveOnce(base, dns, 'v6only.test', AF_INET);
  assert.equal(nodata.err?.message, 'no address associated with nodename');
  assert.equal((nodata.err?.cause as { code?: string }).code, 'ENODATA');

  const bad = await resolveOnce(base, dns, 'bad..name', AF_INET);
  assert.equal(bad.err?.message, NONAME);
  assert.equal(server.log.includes('bad..name/A'), false);
});

test('errorString maps resolver codes to getaddrinfo-style texts', () => {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a static method that does not use this
  const e = EventDnsBase.errorString;
  assert.equal(e(null), '');
  assert.equal(e(undefined), '');
  assert.equal(e('ENOTFOUND'), NONAME);
  assert.equal(e('EAI_NONAME'), NONAME);
  assert.equal(e('ENODATA'), 'no address associated with nodename');
  assert.equal(e('ETIMEOUT'), 'request timed out');
  assert.equal(e('ESERVFAIL'), 'temporary failure in name resolution');
  assert.equal(e('EAI_AGAIN'), 'temporary failure in name resolution');
  assert.equal(e('EFORMERR'), 'non-recoverable failure in name resolution');
  assert.equal(e('ECANCELLED'), 'Request canceled');
  assert.equal(e(Object.assign(new Error('getaddrinfo ENOTFOUND x.test'), { code: 'ENOTFOUND' })), NONAME);
  assert.equal(e(Object.assign(new Error('weird'), { code: 'EWEIRD' })), 'non-recoverable failure in name resolution');
  assert.equal(e('some text'), 'some text');
});

test('10 concurrent lookups of one name send one query and all get the answer', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  const results: Answer[] = [];
  for (let i = 0; i < 10; i++) dns.resolve('concurrent.test', AF_INET, (err, addrs) => results.push({ err, addrs }));
  await base.dispatch();
  assert.equal(results.length, 10);
  for (const r of results) {
    assert.equal(r.err, null);
    assert.deepEqual(r.addrs, [{ address: '10.0.0.8', family: 4 }]);
  }
  assert.equal(server.count('concurrent.test/A'), 1);
  // the callers got their own arrays
  assert.notEqual(results[0]?.addrs, results[1]?.addrs);
});

test('answers are cached for their TTL; TTL 0 is not cached', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  await resolveOnce(base, dns, 'ttl1.test', AF_INET);
  assert.equal(server.count('ttl1.test/A'), 1);
  const again = await resolveOnce(base, dns, 'ttl1.test', AF_INET);
  assert.deepEqual(again.addrs, [{ address: '10.0.0.5', family: 4 }]);
  assert.equal(server.count('ttl1.test/A'), 1, 'within the TTL: no new query');
  await sleep(1100);
  await resolveOnce(base, dns, 'ttl1.test', AF_INET);
  assert.equal(server.count('ttl1.test/A'), 2, 'after the TTL: a new query');

  await resolveOnce(base, dns, 'ttl0.test', AF_INET);
  await resolveOnce(base, dns, 'ttl0.test', AF_INET);
  assert.equal(server.count('ttl0.test/A'), 2);

  // negative answers are cached briefly
  await resolveOnce(base, dns, 'negative.test', AF_INET);
  await resolveOnce(base, dns, 'negative.test', AF_INET);
  assert.equal(server.count('negative.test/A'), 1);

  // another DNS base has its own cache; changing the nameservers empties it
  const other = newDns(base);
  await resolveOnce(base, other, 'svc.test', AF_INET);
  const n = server.count('svc.test/A');
  await resolveOnce(base, other, 'svc.test', AF_INET);
  assert.equal(server.count('svc.test/A'), n);
  assert.equal(other.addNameserverIp(`127.0.0.1:${blackhole.port}`), true);
  other.setOption('timeout', '0.1');
  other.setOption('attempts', '4');
  await resolveOnce(base, other, 'svc.test', AF_INET);
  assert.equal(server.count('svc.test/A'), n + 1);
});

test('search domains and ndots', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  dns.addSearch('test');
  let first = server.log.length;
  assert.deepEqual((await resolveOnce(base, dns, 'svc', AF_INET)).addrs, [{ address: '10.0.0.1', family: 4 }]);
  assert.deepEqual(server.log.slice(first), ['svc.test/A']);

  // enough dots: tried as given first
  first = server.log.length;
  assert.deepEqual((await resolveOnce(base, dns, 'deep.svc.test', AF_INET)).addrs, [
    { address: '10.0.2.1', family: 4 },
  ]);
  assert.deepEqual(server.log.slice(first), ['deep.svc.test/A']);

  // fewer dots than ndots: search domains first, in the order added, then the name itself
  dns.setSearchNdots(3);
  dns.addSearch('.nothing.test');
  first = server.log.length;
  assert.deepEqual((await resolveOnce(base, dns, 'deep.svc', AF_INET)).addrs, [{ address: '10.0.2.1', family: 4 }]);
  assert.deepEqual(server.log.slice(first), [], '"deep.svc.test" came from the cache');
  first = server.log.length;
  const miss = await resolveOnce(base, dns, 'nothere', AF_INET);
  assert.equal(miss.err?.message, NONAME);
  assert.deepEqual(server.log.slice(first), ['nothere.test/A', 'nothere.nothing.test/A', 'nothere/A']);

  // a trailing dot is absolute
  first = server.log.length;
  assert.equal((await resolveOnce(base, dns, 'svc.', AF_INET)).err?.message, NONAME);
  assert.deepEqual(server.log.slice(first), ['svc/A']);

  dns.clearSearch();
  first = server.log.length;
  assert.equal((await resolveOnce(base, dns, 'other', AF_INET)).err?.message, NONAME);
  assert.deepEqual(server.log.slice(first), ['other/A']);
});

test('timeout against a server that never answers', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base, blackhole);
  assert.equal(dns.setOption('timeout', '0.2'), true);
  assert.equal(dns.setOption('attempts', '1'), true);
  let t0 = performance.now();
  const r = await resolveOnce(base, dns, 'svc.test', AF_INET);
  let elapsed = performance.now() - t0;
  assert.ok(r.err instanceof EventDnsError);
  assert.equal(r.err.message, 'request timed out');
  assert.equal((r.err.cause as { code?: string }).code, 'ETIMEOUT');
  assert.ok(elapsed >= 180, `elapsed ${elapsed}: not before the 0.2 s timeout`);
  assert.equal(blackhole.count('svc.test/A'), 1);

  // attempts: 2 → two sends, about twice the time; timeouts are not cached
  dns.setOption('attempts', '2');
  t0 = performance.now();
  const r2 = await resolveOnce(base, dns, 'svc.test', AF_INET);
  elapsed = performance.now() - t0;
  assert.equal(r2.err?.message, 'request timed out');
  assert.equal(blackhole.count('svc.test/A'), 3);
  assert.ok(elapsed >= 380, `elapsed ${elapsed}: not before two 0.2 s timeouts`);
});

test('a timed-out attempt is retried on the next nameserver', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base, blackhole);
  assert.equal(dns.addNameserverIp(`127.0.0.1:${server.port}`), true);
  dns.setOption('timeout', '0.2');
  dns.setOption('attempts', '2');
  const before = blackhole.count('dual.test/A');
  const r = await resolveOnce(base, dns, 'dual.test', AF_INET);
  assert.equal(r.err, null);
  assert.deepEqual(r.addrs, [{ address: '10.0.0.4', family: 4 }]);
  assert.equal(blackhole.count('dual.test/A'), before + 1);
});

test('SERVFAIL is retried and then reported as a temporary failure', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  dns.setOption('attempts', '2');
  const r = await resolveOnce(base, dns, 'servfail.test', AF_INET);
  assert.equal(r.err?.message, 'temporary failure in name resolution');
  assert.equal(server.count('servfail.test/A'), 2);
});

// Waiting for the AAAA answer instead would take the 600 s timeout: far past this test's own.
test('AF_UNSPEC waits at most getaddrinfo-allow-skew for the second family', { timeout: 60_000 }, async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  dns.setOption('getaddrinfo-allow-skew', '0.2');
  dns.setOption('timeout', '600');
  const t0 = performance.now();
  const r = await resolveOnce(base, dns, 'half.test', AF_UNSPEC);
  const elapsed = performance.now() - t0;
  assert.deepEqual(r.addrs, [{ address: '10.0.0.7', family: 4 }]);
  assert.ok(elapsed >= 180, `elapsed ${elapsed}: not before the 0.2 s skew`);
  dns.free(); // abandons the AAAA query still on the wire
});

test('max-inflight limits the queries on the wire', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  dns.setOption('max-inflight', '1');
  const before = server.maxOutstanding;
  server.maxOutstanding = 0;
  const got: string[] = [];
  for (const n of ['slow1.test', 'slow2.test', 'slow3.test']) {
    dns.resolve(n, AF_INET, (err, addrs) => got.push(err ? err.message : (addrs[0]?.address ?? '')));
  }
  await base.dispatch();
  assert.deepEqual(got.sort(), ['10.0.1.1', '10.0.1.2', '10.0.1.3']);
  assert.equal(server.maxOutstanding, 1);
  server.maxOutstanding = Math.max(before, 1);
});

// ---------------------------------------------------------------------------
// Delivery through the EventBase, loop liveness, free()
// ---------------------------------------------------------------------------

test('callbacks run only while the base dispatches, never synchronously', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  const got: string[] = [];
  dns.resolve('127.0.0.1', AF_INET, () => got.push('literal'));
  dns.resolve('svc.test', AF_INET, () => got.push('dns'));
  assert.deepEqual(got, [], 'not synchronously');
  await sleep(150); // the answer has arrived by now
  assert.ok(server.count('svc.test/A') >= 1);
  assert.deepEqual(got, [], 'not while the base is idle');
  await base.dispatch();
  assert.deepEqual(got.sort(), ['dns', 'literal']);
});

test('the loop waits for a lookup in flight, then ends', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  let at = 0;
  let ended = false;
  let endedAtOnce = false;
  const t0 = performance.now();
  dns.resolve('slow.test', AF_INET, (err, addrs) => {
    assert.equal(err, null);
    assert.deepEqual(addrs, [{ address: '10.0.0.6', family: 4 }]);
    at = performance.now() - t0;
    setImmediate(() => (endedAtOnce = ended)); // the next check phase of Node's loop
  });
  assert.equal(await base.dispatch().finally(() => (ended = true)), true);
  assert.ok(at >= 250, `callback after ${at} ms: not before the server's 0.3 s delay`);
  await new Promise((r) => setImmediate(r));
  assert.ok(endedAtOnce, 'the loop ended right after the callback, in the same turn');
});

test('an idle DNS base with nameservers does not keep the loop alive', async () => {
  await servers();
  const base = new EventBase();
  newDns(base);
  new EventDnsBase(base, true);
  const ended = base.dispatch();
  assert.ok(await settlesWithinTurns(ended, 1), 'the loop ended at once');
  assert.equal(await ended, true);
});

test('a lookup started inside a callback keeps the loop running', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  const got: string[] = [];
  dns.resolve('svc.test', AF_INET, (_e, a) => {
    got.push(a[0]?.address ?? '');
    dns.resolve('slow.test', AF_INET, (_e2, b) => got.push(b[0]?.address ?? ''));
  });
  await base.dispatch();
  assert.deepEqual(got, ['10.0.0.1', '10.0.0.6']);
});

test('an exception in a callback rejects dispatch and releases the lookup', async () => {
  const base = new EventBase();
  const dns = new EventDnsBase(base, false);
  dns.resolve('127.0.0.1', AF_INET, () => {
    throw new Error('boom');
  });
  await assert.rejects(base.dispatch(), /boom/);
  const ended = base.dispatch();
  assert.ok(await settlesWithinTurns(ended, 1), 'nothing keeps the loop: it ends at once');
  assert.equal(await ended, true);
});

test('free() cancels lookups in flight: callbacks never run, the loop ends', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  let called = 0;
  dns.resolve('slow.test', AF_INET, () => called++);
  dns.resolve('192.0.2.9', AF_INET, () => called++); // answered, waiting for the loop
  dns.free();
  const ended = base.dispatch();
  assert.ok(await settlesWithinTurns(ended, 1), 'the loop ended at once');
  assert.equal(await ended, true);
  await sleep(400); // the slow answer would have arrived
  await base.dispatch();
  assert.equal(called, 0);
  // a freed DNS base
  assert.equal(dns.countNameservers(), 0);
  assert.equal(dns.addNameserverIp('127.0.0.1'), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_FREED');
  assert.throws(
    () => dns.resolve('svc.test', AF_INET, () => {}),
    (e: unknown) => e instanceof EventStateError && e.code === 'ERR_EVENT_FREED',
  );
  dns.free(); // twice is harmless
});

test('cancel() of one request leaves the others sharing its query', async () => {
  await servers();
  const base = new EventBase();
  const dns = newDns(base);
  const got: string[] = [];
  const a = dns.resolve('slow.test', AF_UNSPEC, () => got.push('a'));
  dns.resolve('slow.test', AF_UNSPEC, () => got.push('b'));
  a.cancel();
  a.cancel();
  await base.dispatch();
  assert.deepEqual(got, ['b']);
});

test('resolve() validates its arguments', () => {
  const dns = new EventDnsBase(new EventBase(), false);
  const badArg = (e: unknown): boolean => e instanceof EventArgumentError && e.code === 'ERR_EVENT_INVALID_ARGUMENT';
  assert.throws(() => dns.resolve('svc.test', 7, () => {}), badArg);
  assert.throws(() => dns.resolve(42 as never, AF_INET, () => {}), badArg);
  assert.throws(() => dns.resolve('svc.test', AF_INET, null as never), badArg);
});

test('resolveSystem answers IP literals through the base', async () => {
  const base = new EventBase();
  let got: EventDnsAddress[] | null = null;
  EventDnsBase.resolveSystem(base, '[::1]', AF_UNSPEC, (_e, a) => (got = a));
  assert.equal(got, null);
  await base.dispatch();
  assert.deepEqual(got, [{ address: '::1', family: 6 }]);
});

test('names under .invalid fail locally (RFC 6761), without any query', async () => {
  const { EventBase: Base } = await import('../../src/event/base.js');
  const { EventDnsBase: Dns } = await import('../../src/event/dns.js');
  const base = new Base();
  const dns = new Dns(base, true); // even with the system's nameservers configured
  let text = '';
  let addrs = -1;
  dns.resolve('no-such-host.invalid', 0, (err, addresses) => {
    text = err ? Dns.errorString(err) : '';
    addrs = addresses.length;
  });
  await base.dispatch();
  assert.equal(addrs, 0);
  assert.equal(text, 'nodename nor servname provided, or not known');
  dns.free();
});

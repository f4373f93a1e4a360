/**
 * Memory at scale: 10,000 idle keep-alive connections on the demo server
 * (`eventide serve`, EventHttp) and on node:http, RSS per connection side by
 * side (issue 16: no more than node:http's).
 *
 *   npx tsx bench/idle.ts                      (about 1 min)
 *   npx tsx bench/idle.ts --connections 20000  (more connections; default 10000)
 *   npx tsx bench/idle.ts --rounds 3           (more rounds, alternating order; medians)
 *   npx tsx bench/idle.ts --only eventide      (a subset of: eventide, node)
 *   npx tsx bench/idle.ts --heap-profile       (no RSS figures: heap snapshots before and
 *                                               after the connections, the objects they
 *                                               added per connection, by constructor)
 *   npx tsx bench/idle.ts --tsx                (eventide's sources through tsx instead of the
 *                                               tsc build made at the start)
 *
 * Servers, one at a time, each in its own child process on 127.0.0.1, port 0,
 * pinned to CPU 0 (taskset), with `ulimit -n 65536` (a `bash -c` wrapper):
 * - eventide: `node .tmp/bench-dist/src/cli/main.js serve --port 0 --quiet
 *   --database :memory: --rows 100 --log-format json` (src/ compiled by tsc
 *   at the start, as the package ships it; `--tsx`: `node --import tsx
 *   src/cli/main.ts serve ...`, whose esbuild transform costs about 250
 *   bytes more per named closure) (the demo API, one
 *   process, an in-memory SQLite database); the clients ask `GET /healthz`
 *   (`--path` for another URL). Its idle timeout is serve's fixed 60 s
 *   (`http.setTimeout(60)` in src/cli/serve.ts) and the headers deadline
 *   EventHttp's default 30 s: every connection is held well inside both.
 * - node:http: answers every request with the same `200`, `Content-Type:
 *   application/json` and `{"status":"ok"}`; `keepAliveTimeout`,
 *   `headersTimeout` and `requestTimeout` are 10 min (the defaults, 5 s
 *   keep-alive, would close the idle connections during the hold).
 * Both run under `node --expose-gc` with a small `--import` hook: on SIGUSR2
 * it runs a full GC and prints `process.memoryUsage()` to stderr (and, with
 * `--heap-profile`, writes a heap snapshot).
 *
 * Per server: a warm-up (4 connections x 50 requests, then closed), 1 s of
 * rest, then "before": VmRSS from /proc/PID/status, then the GC'd heap
 * figures. A client process (node:net, pinned to CPU 1, its own `ulimit -n`)
 * opens `--connections` TCP connections (at most 256 connecting at a time;
 * several source addresses 127.0.0.x above 20,000), sends ONE keep-alive
 * request on each, reads its complete reply (200, Content-Length or chunked)
 * and leaves the connection open and idle. When all are answered: 2 s of
 * rest, "after" (VmRSS, then the GC'd heap), a fresh request on a new
 * connection (it must be answered while the others are open), then the
 * connections stay idle until 6 s after the last answer; the client then
 * reports how many the server closed (a `close` it did not initiate) and
 * closes them all. Reported: (after - before) / connections in KiB, for
 * VmRSS (the figure of the issue: target eventide / node:http <= 1x),
 * heap used after GC, and external + ArrayBuffer memory; the open file
 * descriptors the server gained (a check that it holds every connection).
 *
 * Results go to bench/results/idle.json (`--json FILE` elsewhere,
 * `--no-json` not at all; `--heap-profile` writes nothing).
 */
import {
  argValue,
  buildForBench,
  median,
  pinned,
  have,
  useTsx,
  workload,
  writeResults,
  type WorkloadResult,
} from './lib.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const HOST = '127.0.0.1';
const BODY = '{"status":"ok"}';
const NOFILE = 65536;
/** Connections per source address (the ephemeral port range is about 28,000 wide). */
const PER_SOURCE = 20_000;
/** Connections connecting (or waiting for their reply) at a time. */
const CONCURRENCY = 256;
const SETTLE_MS = 2000;
const HOLD_MS = 6000;
/** The whole run, at most (then everything is killed). */
const DEADLINE_MS = 15 * 60_000;
/** One server's measurement, at most. */
const PHASE_MS = 180_000;

type Kind = 'eventide' | 'node';
const KINDS: Kind[] = ['eventide', 'node'];
const LABEL: Record<Kind, string> = { eventide: 'eventide serve', node: 'node:http' };

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// ====================================================================== memory hook (both servers)

/**
 * The `--import` hook of both servers: SIGUSR2 runs a full GC (`--expose-gc`)
 * and prints `IDLE_MEM {memoryUsage}` to stderr; with IDLE_SNAPSHOT_DIR set
 * it also writes a heap snapshot there and prints `IDLE_SNAPSHOT file`.
 */
const HOOK = `import { writeHeapSnapshot } from 'node:v8';
let n = 0;
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  process.stderr.write('IDLE_MEM ' + JSON.stringify(m) + '\\n');
  const dir = process.env.IDLE_SNAPSHOT_DIR;
  if (dir) {
    const file = writeHeapSnapshot(dir + '/' + process.pid + '-' + n++ + '.heapsnapshot');
    process.stderr.write('IDLE_SNAPSHOT ' + file + '\\n');
  }
});
`;
const HOOK_URL = `data:text/javascript,${encodeURIComponent(HOOK)}`;

// ====================================================================== node:http server (child role)

function nodeServer(): void {
  const long = 600_000;
  const server = createHttpServer(
    { keepAliveTimeout: long, headersTimeout: long, requestTimeout: long },
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(BODY.length) });
      res.end(BODY);
    },
  );
  server.keepAliveTimeout = long;
  server.listen(0, HOST, () =>
    process.stderr.write(`Listening on ${HOST}:${(server.address() as { port: number }).port}\n`),
  );
  const stop = (): void => process.exit(0);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// ====================================================================== HTTP/1.1 reply reading (client and driver)

/** A complete reply at the start of `buf` (latin1): its status and length, or null while incomplete. */
export function completeReply(buf: string): { status: number; length: number; close: boolean } | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.slice(0, end);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? Number.NaN);
  const close = /\r\nconnection:[ \t]*close/i.test(head);
  const cl = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
  if (cl !== null) {
    const length = end + 4 + Number(cl[1]);
    return buf.length >= length ? { status, length, close } : null;
  }
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
    // the last chunk (trailers are not expected)
    const body = end + 4;
    if (buf.startsWith('0\r\n\r\n', body)) return { status, length: body + 5, close };
    const at = buf.indexOf('\r\n0\r\n\r\n', body);
    return at >= 0 ? { status, length: at + 7, close } : null;
  }
  return { status, length: end + 4, close };
}

function request(path: string, port: number): Buffer {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAccept: application/json\r\n\r\n`, 'latin1');
}

/** `count` requests one after another on one new connection, then closed: the statuses and the last body. */
function sequential(port: number, path: string, count: number): Promise<{ statuses: number[]; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: HOST, port });
    const statuses: number[] = [];
    let buf = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      s.destroy();
      reject(new Error(why));
    };
    const timer = setTimeout(() => fail(`no reply within 10 s (${statuses.length} of ${count} answered)`), 10_000);
    s.setNoDelay(true);
    s.on('connect', () => s.write(request(path, port)));
    s.on('error', (e: Error) => fail(e.message));
    s.on('close', () => fail('connection closed before the reply'));
    s.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      const r = completeReply(buf);
      if (r === null) return;
      statuses.push(r.status);
      if (statuses.length < count) {
        buf = buf.slice(r.length);
        s.write(request(path, port));
        return;
      }
      clearTimeout(timer);
      s.removeAllListeners('close');
      s.destroy();
      resolve({ statuses, body: buf.slice(buf.indexOf('\r\n\r\n') + 4, r.length) });
    });
  });
}

// ====================================================================== client (child role)

/**
 * Opens `--connections` connections to `--port`, one request each, reads
 * the replies, keeps the connections. stdout lines: `ANSWERED ok failed ms
 * firstError`; then on stdin `report` -> `CLOSES byServer errors extraBytes`,
 * `exit` -> closes everything and exits.
 */
async function client(): Promise<void> {
  const port = Number(argValue('--port'));
  const n = Number(argValue('--connections'));
  const path = argValue('--path') ?? '/';
  const sources = Math.max(1, Math.ceil(n / PER_SOURCE));
  const req = request(path, port);
  const sockets: Socket[] = [];
  let ok = 0;
  let failed = 0;
  let closedByServer = 0;
  let errors = 0;
  let extra = 0;
  let firstError = '';
  let closing = false;
  const open = (i: number): Promise<void> =>
    new Promise((done) => {
      const s = connect({ host: HOST, port, ...(sources > 1 ? { localAddress: `127.0.0.${1 + (i % sources)}` } : {}) });
      sockets.push(s);
      let buf = '';
      let answered = false;
      const finish = (good: boolean, why: string): void => {
        if (answered) return;
        answered = true;
        buf = '';
        if (good) ok++;
        else {
          failed++;
          firstError ||= why;
        }
        done();
      };
      s.setNoDelay(true);
      s.on('connect', () => s.write(req));
      s.on('data', (d: Buffer) => {
        if (answered) {
          extra += d.length;
          return;
        }
        buf += d.toString('latin1');
        const r = completeReply(buf);
        if (r === null) return;
        if (r.length < buf.length) extra += buf.length - r.length;
        finish(r.status === 200 && !r.close, `status ${r.status}${r.close ? ', Connection: close' : ''}`);
      });
      s.on('error', (e: Error) => {
        errors++;
        firstError ||= e.message;
        finish(false, e.message);
      });
      s.on('close', () => {
        if (!closing) closedByServer++;
        finish(false, 'closed before the reply');
      });
    });
  const t0 = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await open(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, n) }, worker));
  process.stdout.write(
    `ANSWERED ${ok} ${failed} ${Math.round(performance.now() - t0)} ${JSON.stringify(firstError)}\n`,
  );
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'report') process.stdout.write(`CLOSES ${closedByServer} ${errors} ${extra}\n`);
    else if (line === 'exit') break;
  }
  closing = true;
  for (const s of sockets) s.destroy();
  process.exit(0);
}

// ====================================================================== driver

interface Env {
  pin: boolean;
  connections: number;
  path: string;
  snapshotDir: string | null;
  /** The tsc build eventide runs from, or null (`--tsx`: the sources through tsx). */
  dist: string | null;
}

interface Server {
  child: ChildProcess;
  port: number;
  /** stderr lines not consumed yet. */
  lines: string[];
  waiters: (() => void)[];
  output: string;
}

/**
 * `bash -c 'ulimit -n 65536; exec "$@"'` around a (pinned) command; where
 * the hard limit is lower and cannot be raised (a container without
 * CAP_SYS_RESOURCE), the hard limit.
 */
function withNofile(cmd: string, args: string[]): [string, string[]] {
  return [
    'bash',
    ['-c', `ulimit -n ${NOFILE} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"`, 'bash', cmd, ...args],
  ];
}

/** The open-file limit the children get (see withNofile). */
function nofileLimit(): number {
  const r = spawnSync('bash', ['-c', `ulimit -n ${NOFILE} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; ulimit -n`], {
    encoding: 'utf8',
  });
  const n = r.stdout.trim();
  return n === 'unlimited' ? Infinity : Number(n);
}

async function startServer(env: Env, kind: Kind): Promise<Server> {
  const node = [process.execPath, '--expose-gc', '--import', HOOK_URL, '--import', 'tsx'];
  const serve =
    env.dist !== null
      ? [process.execPath, '--expose-gc', '--import', HOOK_URL, join(env.dist, 'src', 'cli', 'main.js')]
      : [...node, 'src/cli/main.ts'];
  const args =
    kind !== 'node'
      ? [
          ...serve,
          'serve',
          '--host',
          HOST,
          '--port',
          '0',
          '--quiet',
          '--database',
          ':memory:',
          '--rows',
          '100',
          '--log-format',
          'json',
        ]
      : [...node, SELF, '--role', 'node-server'];
  const [cmd, full] = withNofile(...pinned(env.pin, 0, args[0] as string, args.slice(1)));
  const envVars = { ...process.env, ...(env.snapshotDir !== null ? { IDLE_SNAPSHOT_DIR: env.snapshotDir } : {}) };
  const child = spawn(cmd, full, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: envVars });
  const s: Server = { child, port: 0, lines: [], waiters: [], output: '' };
  const onLine = (line: string): void => {
    s.output += `${line}\n`;
    s.lines.push(line);
    for (const w of s.waiters.splice(0)) w();
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', onLine);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', onLine);
  s.port = Number((await waitLine(s, /(?:Listening on [\d.]+:|"port":)(\d+)/, 30_000))[1]);
  return s;
}

/** The first unconsumed output line of the server matching `re` (consumed with those before it). */
async function waitLine(s: Server, re: RegExp, ms: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const i = s.lines.findIndex((l) => re.test(l));
    if (i >= 0) {
      const line = s.lines[i] as string;
      s.lines.splice(0, i + 1);
      return re.exec(line) as RegExpExecArray;
    }
    if (s.child.exitCode !== null || s.child.signalCode !== null)
      throw new Error(`server exited (${s.child.exitCode ?? s.child.signalCode}):\n${s.output}`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`server: no line matching ${re} within ${ms} ms:\n${s.output}`);
    await new Promise<void>((r) => {
      const t = setTimeout(r, Math.min(left, 500));
      s.waiters.push(() => {
        clearTimeout(t);
        r();
      });
    });
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

interface Mem {
  /** VmRSS and RssAnon, bytes. */
  rss: number;
  anon: number;
  /** After a full GC (process.memoryUsage()), bytes. */
  rssGc: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  fds: number;
  snapshot: string | null;
}

function procStatus(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Number(m[1]) * 1024;
}

/** VmRSS first (as it is), then the heap after a full GC (SIGUSR2 to the hook). */
async function sample(s: Server, env: Env): Promise<Mem> {
  const pid = s.child.pid as number;
  const rss = procStatus(pid, 'VmRSS');
  const anon = procStatus(pid, 'RssAnon');
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  s.child.kill('SIGUSR2');
  const m = JSON.parse((await waitLine(s, /^IDLE_MEM (.*)$/, 30_000))[1] as string) as NodeJS.MemoryUsage;
  const snapshot =
    env.snapshotDir !== null ? ((await waitLine(s, /^IDLE_SNAPSHOT (.*)$/, 300_000))[1] as string) : null;
  return {
    rss,
    anon,
    rssGc: m.rss,
    heapUsed: m.heapUsed,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    fds,
    snapshot,
  };
}

interface Row {
  kind: Kind;
  before: Mem;
  after: Mem;
  connectMs: number;
  answered: number;
  failed: number;
  firstError: string;
  closedByServer: number;
  clientErrors: number;
  extraBytes: number;
  fresh: { ok: boolean; ms: number; detail: string };
  heldMs: number;
}

async function measure(env: Env, kind: Kind): Promise<Row> {
  const s = await startServer(env, kind);
  let cl: ChildProcess | null = null;
  const phase = setTimeout(() => {
    process.stderr.write(`${LABEL[kind]}: not done within ${PHASE_MS / 1000} s, killing\n`);
    s.child.kill('SIGKILL');
    cl?.kill('SIGKILL');
  }, PHASE_MS);
  try {
    const path = env.path === '' ? (kind === 'node' ? '/' : '/healthz') : env.path;
    // warm-up, and a check of the answer
    const warm = await Promise.all(Array.from({ length: 4 }, () => sequential(s.port, path, 50)));
    const bad = warm.flatMap((w) => w.statuses).filter((x) => x !== 200);
    if (bad.length > 0) throw new Error(`${LABEL[kind]} answered ${path} with ${bad[0]}`);
    if (env.path === '' && warm[0]?.body !== BODY)
      throw new Error(`${LABEL[kind]} answered ${JSON.stringify(warm[0]?.body)}`);
    // a full GC, so that "before" does not count the warm-up's garbage
    s.child.kill('SIGUSR2');
    await waitLine(s, /^IDLE_MEM /, 30_000);
    if (env.snapshotDir !== null) rmSync((await waitLine(s, /^IDLE_SNAPSHOT (.*)$/, 300_000))[1] as string);
    await sleep(1000);
    const before = await sample(s, env);

    const [cmd, full] = withNofile(
      ...pinned(env.pin, 1, process.execPath, [
        '--import',
        'tsx',
        SELF,
        '--role',
        'client',
        '--port',
        String(s.port),
        '--connections',
        String(env.connections),
        '--path',
        path,
      ]),
    );
    const c = spawn(cmd, full, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    cl = c;
    const clientLines = createInterface({ input: c.stdout })[Symbol.asyncIterator]();
    const clientLine = async (prefix: string): Promise<string[]> => {
      for (;;) {
        const r = await clientLines.next();
        if (r.done === true) throw new Error(`client exited before ${prefix}`);
        const line = r.value;
        if (line.startsWith(`${prefix} `)) return line.slice(prefix.length + 1).split(' ');
      }
    };
    try {
      const a = await clientLine('ANSWERED');
      const answeredAt = performance.now();
      const answered = Number(a[0]);
      const failed = Number(a[1]);
      const connectMs = Number(a[2]);
      const firstError = JSON.parse(a.slice(3).join(' ')) as string;
      await sleep(SETTLE_MS);
      const after = await sample(s, env);
      // a fresh request on a new connection while the others are open
      const t0 = performance.now();
      let fresh: Row['fresh'];
      try {
        const r = await sequential(s.port, path, 1);
        fresh = { ok: r.statuses[0] === 200, ms: performance.now() - t0, detail: `status ${r.statuses[0]}` };
      } catch (e) {
        fresh = { ok: false, ms: performance.now() - t0, detail: (e as Error).message };
      }
      const left = HOLD_MS - (performance.now() - answeredAt);
      if (left > 0) await sleep(left);
      c.stdin.write('report\n');
      const r = await clientLine('CLOSES');
      const heldMs = performance.now() - answeredAt;
      return {
        kind,
        before,
        after,
        connectMs,
        answered,
        failed,
        firstError,
        closedByServer: Number(r[0]),
        clientErrors: Number(r[1]),
        extraBytes: Number(r[2]),
        fresh,
        heldMs,
      };
    } finally {
      if (c.exitCode === null && c.signalCode === null) {
        const exited = once(c, 'exit');
        c.stdin.end('exit\n');
        const t = setTimeout(() => c.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(t);
      }
    }
  } finally {
    clearTimeout(phase);
    await stopChild(s.child);
  }
}

// ---------------------------------------------------------------------- heap snapshot comparison

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/**
 * Self size and count per kind of object of a heap snapshot. A kind is the
 * node type and constructor (or name); property and element backing stores,
 * closures, contexts and other internal nodes are named by what holds them
 * (`<- Owner.edge`, two levels for closures and contexts), so that a
 * difference points at a class in src/.
 */
function heapSummary(file: string): Map<string, { size: number; count: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { meta } = snap.snapshot;
  const nf = meta.node_fields;
  const types = meta.node_types[0];
  const etypes = meta.edge_types[0];
  const width = nf.length;
  const iType = nf.indexOf('type');
  const iName = nf.indexOf('name');
  const iSize = nf.indexOf('self_size');
  const iEdges = nf.indexOf('edge_count');
  const ew = meta.edge_fields.length;
  const eType = meta.edge_fields.indexOf('type');
  const eName = meta.edge_fields.indexOf('name_or_index');
  const eTo = meta.edge_fields.indexOf('to_node');
  const count = snap.nodes.length / width;
  // the first strong retainer of every node, and the edge's name
  const owner = new Int32Array(count).fill(-1);
  const via = new Array<string>(count);
  for (let n = 0, e = 0; n < count; n++) {
    const edges = snap.nodes[n * width + iEdges] as number;
    for (let k = 0; k < edges; k++, e += ew) {
      const to = (snap.edges[e + eTo] as number) / width;
      const et = etypes[snap.edges[e + eType] as number];
      if (owner[to] !== -1 || et === 'weak' || et === 'shortcut') continue;
      owner[to] = n;
      const name = snap.edges[e + eName] as number;
      via[to] = et === 'element' || et === 'hidden' ? `[${name}]` : (snap.strings[name] ?? '?');
    }
  }
  const typeOf = (n: number): string => types[snap.nodes[n * width + iType] as number] ?? '?';
  const nameOf = (n: number): string => {
    const s = snap.strings[snap.nodes[n * width + iName] as number] ?? '?';
    return s.length > 50 ? `${s.slice(0, 47)}...` : s;
  };
  const label = (n: number): string => {
    const t = typeOf(n);
    return t === 'object' || t === 'native' ? nameOf(n) : t === 'closure' ? `closure ${nameOf(n) || '(anonymous)'}` : t;
  };
  const held = (n: number, levels: number): string => {
    let out = '';
    for (let m = n, l = 0; l < levels && owner[m] !== -1; l++) {
      const o = owner[m] as number;
      out += ` <- ${label(o)}.${via[m]}`;
      m = o;
    }
    return out;
  };
  const out = new Map<string, { size: number; count: number }>();
  for (let n = 0; n < count; n++) {
    const type = typeOf(n);
    const name = nameOf(n);
    let key: string;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') key = 'strings';
    else if (type === 'number') key = `number${held(n, 1)}`;
    else if (type === 'closure') key = `closure ${name || '(anonymous)'}${held(n, 2)}`;
    else if (type === 'array' || type === 'hidden' || type === 'object shape')
      key = `${type} ${name}${held(n, name === '(object properties)' || name === '(object elements)' ? 3 : 1)}`;
    else if (name === 'system / Context' || name === 'Object' || name === 'Array') key = `${name}${held(n, 2)}`;
    else if (type === 'object' || type === 'native') key = name;
    else key = `${type} ${name}`;
    const e = out.get(key) ?? { size: 0, count: 0 };
    e.size += snap.nodes[n * width + iSize] as number;
    e.count++;
    out.set(key, e);
  }
  return out;
}

function compareSnapshots(kind: Kind, before: string, after: string, n: number): void {
  const a = heapSummary(before);
  const b = heapSummary(after);
  const rows: { key: string; size: number; count: number }[] = [];
  for (const [key, v] of b) {
    const w = a.get(key) ?? { size: 0, count: 0 };
    rows.push({ key, size: v.size - w.size, count: v.count - w.count });
  }
  rows.sort((x, y) => y.size - x.size);
  const total = rows.reduce((t, r) => t + r.size, 0);
  console.log(
    `\n${LABEL[kind]}: JS heap objects added by ${n.toLocaleString('en-US')} idle connections (after - before, self sizes, per connection)`,
  );
  console.log(`total ${(total / n).toFixed(0)} bytes per connection\n`);
  console.log('| bytes / conn | objects / conn | constructor, or what holds it (<- holder.property) |');
  console.log('|---:|---:|---|');
  for (const r of rows.slice(0, 40)) {
    if (Math.abs(r.size / n) < 8) break;
    console.log(`| ${(r.size / n).toFixed(1)} | ${(r.count / n).toFixed(2)} | ${r.key.replace(/\|/g, '\\|')} |`);
  }
}

// ---------------------------------------------------------------------- main

const kib = (bytes: number): string => (Number.isFinite(bytes) ? (bytes / 1024).toFixed(2) : 'n/a');
const mib = (bytes: number): string => (Number.isFinite(bytes) ? (bytes / 1048576).toFixed(1) : 'n/a');

async function main(): Promise<void> {
  if (process.platform !== 'linux') {
    console.error('bench/idle.ts reads /proc: Linux only');
    process.exit(2);
  }
  const cpus = availableParallelism();
  const pin = cpus >= 2 && have('taskset', ['-V']);
  const connections = Number(argValue('--connections') ?? 10_000);
  if (!Number.isInteger(connections) || connections < 1 || connections > 60_000)
    throw new Error('--connections must be an integer from 1 to 60000');
  const nofile = nofileLimit();
  if (!(connections + 200 <= nofile))
    throw new Error(
      `--connections ${connections}: the open-file limit the processes can get is ${nofile} (ulimit -Hn); at most ${nofile - 200} connections`,
    );
  const rounds = Math.max(1, Number(argValue('--rounds') ?? 1));
  const only = (argValue('--only')?.split(',') ?? KINDS) as Kind[];
  for (const k of only) if (!KINDS.includes(k)) throw new Error(`--only: unknown server ${k}`);
  const heapProfile = process.argv.includes('--heap-profile');
  const snapshotDir = heapProfile ? mkdtempSync(join(tmpdir(), 'eventide-idle-heap-')) : null;
  // eventide as the package ships it (a tsc build of src/), or its sources through tsx (`--tsx`)
  const dist = useTsx() ? null : only.includes('eventide') ? buildForBench() : null;
  const env: Env = { pin, connections, path: argValue('--path') ?? '', snapshotDir, dist };
  const deadline = setTimeout(() => {
    console.error(`bench/idle.ts: not finished within ${DEADLINE_MS / 60_000} min, giving up`);
    process.exit(1);
  }, DEADLINE_MS);
  deadline.unref();
  console.log(
    `Idle keep-alive connections: ${connections.toLocaleString('en-US')} per server, one request each (${env.path || 'eventide GET /healthz, node:http GET /'}), then idle`,
  );
  console.log(
    `node ${process.version}, ${cpus} CPUs, ${pin ? 'server pinned to CPU 0, client to CPU 1 (taskset)' : 'NOT pinned (taskset missing or < 2 CPUs)'}; ulimit -n ${nofile} for server and client`,
  );
  try {
    const rows: Row[] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? only : [...only].reverse();
      for (const kind of order) {
        const row = await measure(env, kind);
        rows.push(row);
        process.stderr.write(
          `  ${LABEL[kind].padEnd(21)} ${heapProfile ? '(heap snapshots: no RSS figure)' : `${kib((row.after.rss - row.before.rss) / connections)} KiB RSS / connection`}, ${row.answered} answered in ${(row.connectMs / 1000).toFixed(1)} s\n`,
        );
        if (heapProfile && row.before.snapshot !== null && row.after.snapshot !== null) {
          compareSnapshots(kind, row.before.snapshot, row.after.snapshot, connections);
          rmSync(row.before.snapshot, { force: true });
          rmSync(row.after.snapshot, { force: true });
        }
      }
    }
    if (heapProfile) return;

    const per = (kind: Kind, f: (r: Row) => number): number => {
      const rs = rows.filter((x) => x.kind === kind);
      return rs.length === 0 ? Number.NaN : median(rs.map((x) => f(x) / connections));
    };
    const rssPer = (r: Row): number => r.after.rss - r.before.rss;
    const gcPer = (r: Row): number => r.after.rssGc - r.before.rssGc;
    const heapPer = (r: Row): number => r.after.heapUsed - r.before.heapUsed;
    const extPer = (r: Row): number => r.after.external - r.before.external;
    const fdsPer = (r: Row): number => r.after.fds - r.before.fds;
    console.log('');
    console.log(
      '| server | RSS before | RSS after | RSS / conn | RSS / conn after GC | JS heap / conn after GC | external / conn | fds / conn | answered | closed by server | fresh request |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const kind of only) {
      const rs = rows.filter((x) => x.kind === kind);
      if (rs.length === 0) continue;
      const last = rs[rs.length - 1] as Row;
      console.log(
        `| ${LABEL[kind]} | ${mib(median(rs.map((x) => x.before.rss)))} MiB | ${mib(median(rs.map((x) => x.after.rss)))} MiB | ${kib(per(kind, rssPer))} KiB | ${kib(per(kind, gcPer))} KiB | ${kib(per(kind, heapPer))} KiB | ${kib(per(kind, extPer))} KiB | ${per(kind, fdsPer).toFixed(2)} | ${Math.min(...rs.map((x) => x.answered)).toLocaleString('en-US')} | ${Math.max(...rs.map((x) => x.closedByServer))} | ${rs.every((x) => x.fresh.ok) ? `ok (${last.fresh.ms.toFixed(1)} ms)` : `FAILED: ${rs.find((x) => !x.fresh.ok)?.fresh.detail}`} |`,
      );
    }
    for (const r of rows) {
      const problems: string[] = [];
      if (r.failed > 0) problems.push(`${r.failed} connections not answered (${r.firstError})`);
      if (r.closedByServer > 0) problems.push(`${r.closedByServer} connections closed by the server during the hold`);
      if (r.clientErrors > 0) problems.push(`${r.clientErrors} socket errors`);
      if (r.extraBytes > 0) problems.push(`${r.extraBytes} unexpected bytes after the replies`);
      if (!r.fresh.ok) problems.push(`the fresh request failed: ${r.fresh.detail}`);
      if (problems.length > 0) console.log(`WARNING ${LABEL[r.kind]}: ${problems.join('; ')}`);
    }
    const held = Math.min(...rows.map((r) => r.heldMs));
    console.log(
      `\nconnections held idle ${(held / 1000).toFixed(1)} s or more after the last answer (measured ${SETTLE_MS / 1000} s after it); opening and answering all took ${rows.map((r) => `${LABEL[r.kind]} ${(r.connectMs / 1000).toFixed(1)} s`).join(', ')}`,
    );
    const results: WorkloadResult[] = [];
    const nd = (f: (r: Row) => number): number => per('node', f);
    const peers = (f: (r: Row) => number): { name: string; value: number }[] =>
      only.includes('node') ? [{ name: LABEL.node, value: nd(f) / 1024 }] : [];
    const target = only.includes('node') ? { peer: LABEL.node, op: '<=' as const, value: 1 } : null;
    const variants: { kind: Kind; suffix: string }[] = [{ kind: 'eventide', suffix: '' }];
    if (only.includes('node')) console.log('\neventide / node:http (lower is better):');
    for (const { kind, suffix } of variants) {
      if (!only.includes(kind)) continue;
      const rss = workload(
        `RSS per idle connection${suffix}`,
        'KiB',
        per(kind, rssPer) / 1024,
        peers(rssPer),
        target,
        false,
      );
      const heap = workload(
        `JS heap per idle connection${suffix} (after GC)`,
        'KiB',
        per(kind, heapPer) / 1024,
        peers(heapPer),
        null,
        false,
      );
      results.push(rss, heap);
      if (only.includes('node'))
        console.log(
          `  ${LABEL[kind].padEnd(21)} RSS per idle connection ${(rss.peers[0]?.ratio ?? Number.NaN).toFixed(2)}x (target <= 1x: ${rss.met === true ? 'met' : 'MISSED'}); JS heap after GC ${(heap.peers[0]?.ratio ?? Number.NaN).toFixed(2)}x`,
        );
    }
    results.sort((a, b) => Number(b.name.startsWith('RSS')) - Number(a.name.startsWith('RSS')));
    if (rounds === 1)
      console.log('\n(one round: RSS moves with the allocator and GC timing; compare only numbers from the same run)');
    writeResults('idle', {
      pinned: pin,
      placement: pin ? 'servers on CPU 0, the client on CPU 1 (taskset)' : 'not pinned (taskset missing or < 2 CPUs)',
      workloads: results,
      notes: [
        `${connections} idle keep-alive connections, one request each, memory ${SETTLE_MS / 1000} s after the last answer minus before; medians of ${rounds} round(s)`,
        `closed by the server during the hold: ${only.map((k) => `${LABEL[k]} ${Math.max(...rows.filter((r) => r.kind === k).map((r) => r.closedByServer))}`).join(', ')}; fresh request while open: ${rows.every((r) => r.fresh.ok) ? 'answered' : 'FAILED'}`,
      ],
    });
  } finally {
    if (snapshotDir !== null) rmSync(snapshotDir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === SELF;

if (!isMain) {
  // imported (for completeReply): run nothing
} else if (process.argv.includes('--role')) {
  const role = argValue('--role');
  if (role === 'node-server') nodeServer();
  else if (role === 'client')
    client().catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  else {
    console.error(`unknown --role ${String(role)}`);
    process.exit(2);
  }
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

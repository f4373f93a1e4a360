/**
 * Paginated lists over a 1,000,000-row SQLite table (the demo data
 * set): the eventide demo API (`eventide serve`, EventHttp, one process)
 * against the same endpoints in Django REST framework 3.14 (bench/drf/,
 * gunicorn with one sync worker), and its cursor endpoint against a
 * hand-written fastify 5 + better-sqlite3 endpoint (bench/peers/fastify-cursor.ts),
 * measured in the same run by the same load generator, wrk.
 *
 *   npx tsx bench/pagination.ts                 (about 2.5 min)
 *   npx tsx bench/pagination.ts --quick         (2 s per measurement: a smoke run)
 *   npx tsx bench/pagination.ts --duration 20   (seconds per measurement; default 10)
 *   npx tsx bench/pagination.ts --only cursor   (a subset of page, limit, cursor)
 *   npx tsx bench/pagination.ts --no-drf        (without DRF: against the recorded anchors)
 *   npx tsx bench/pagination.ts --no-fastify    (without the fastify peer)
 *   npx tsx bench/pagination.ts --workers 1,2   (then the cursor endpoint again with N processes per server:
 *                                                `eventide serve --workers N` against fastify on N node:cluster workers)
 *   npx tsx bench/pagination.ts --profile       (eventide only, under `node --cpu-prof`:
 *                                                where the time of each endpoint goes)
 *
 * The database is `bench/.data/items-1000000.sqlite3`, created once through
 * `openDemoDatabase` (in WAL mode) and reused. The Django peer needs Debian's
 * python3-djangorestframework and gunicorn for /usr/bin/python3; the script
 * installs them with apt-get when it can, and otherwise measures eventide
 * alone (comparing with the recorded anchors instead).
 *
 * Placement: the servers are pinned to CPU 0 (`taskset -c 0`), wrk and this
 * script (the latency client) to CPU 1. Only 127.0.0.1 is used.
 *
 * Measured:
 * 1. requests/s (`wrk -t1 -c32`, 1 s warm-up then `--duration` s) for
 *    page 2, page 99,999 (OFFSET 999,980), limit/offset at offsets 10 and
 *    999,980, and a cursor page near the oldest rows; the page-number and
 *    limit/offset endpoints of the demo use a cached count, filled by the
 *    warm-up; DRF counts on every request;
 *    fastify is measured at the cursor endpoint only;
 * 2. the time of one cursor page (median of sequential requests on an open
 *    connection) after the rows ranked 10, 100,000 and 990,000 in `-created`
 *    order: flat for keyset pagination;
 * 3. with `--workers N,M`: the cursor endpoint with N (then M) processes per
 *    server, not pinned (see the README).
 * Before measuring, the servers' answers to the same URLs are compared (the
 * same JSON once the host:port is replaced); fastify's cursor pages must be
 * byte-identical to eventide's, or its ratio is not reported (DIFFER).
 *
 * The requests/s figures (ratios eventide / DRF, or eventide / the recorded
 * anchor without DRF, and eventide / fastify; targets; the machine and the command) are also written
 * to bench/results/pagination.json (`--json FILE` elsewhere, `--no-json` not
 * at all); `npm run bench:report` draws them.
 */
import {
  argValue,
  buildForBench,
  clockTicks,
  cpuSeconds,
  have,
  machineBusySeconds,
  parseWrkTotals,
  pinned,
  runWrkProcess,
  toMicros,
  workload,
  useTsx,
  writeResults,
  type WorkloadResult,
} from './lib.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const HOST = '127.0.0.1';
const ROWS = 1_000_000;
const DATA_DIR = join(ROOT, 'bench', '.data');
const DB_FILE = join(DATA_DIR, `items-${ROWS}.sqlite3`);
const DRF_DIR = join(ROOT, 'bench', 'drf');
const PYTHON = '/usr/bin/python3';
const FASTIFY_PEER = join(ROOT, 'bench', 'peers', 'fastify-cursor.ts');
/** wrk's connections for every server (issue 16 mentions -c16 for the fastify comparison: see the README). */
const CONNECTIONS = 32;
/** Measured anchors (the 2-core machine the project started on): DRF 3.14, gunicorn 1 worker, 1M rows. */
const ANCHOR = { page: 100, cursor: 740 };
/** Cursor-page latency is "flat" when the slowest position is within this factor of the fastest. */
const FLAT = 1.5;

type Group = 'page' | 'limit' | 'cursor';
const GROUPS: Group[] = ['page', 'limit', 'cursor'];
type Kind = 'eventide' | 'drf' | 'fastify';
const LABEL: Record<Kind, string> = { eventide: 'eventide', drf: 'DRF', fastify: 'fastify' };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ====================================================================== the demo data and DRF's cursor tokens

/** Row i's `created`, as the demo data set defines it. */
function createdOf(i: number): Date {
  return new Date(Date.UTC(2020, 0, 1) + i * 1000 + ((i * 37) % 1000));
}

/** Python's `str()` of an aware UTC datetime: `2020-01-01 00:00:20.740000+00:00`. */
function pyStr(d: Date): string {
  const iso = d.toISOString(); // 2020-01-01T00:00:20.740Z
  const ms = d.getUTCMilliseconds();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${ms === 0 ? '' : `.${String(ms * 1000).padStart(6, '0')}`}+00:00`;
}

/** Python's `urllib.parse.quote_plus`. */
function quotePlus(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9_.~-]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The cursor token DRF builds for a position (no offset, not reversed). */
function cursorToken(position: string): string {
  return Buffer.from(`p=${quotePlus(position)}`, 'ascii').toString('base64');
}

/**
 * The cursor page after the row ranked `rank` (1 = newest) in `-created`
 * order: the rows ranked rank+1 .. rank+10.
 */
function cursorPath(rank: number): string {
  return `/cursor/items/?cursor=${quotePlus(cursorToken(pyStr(createdOf(ROWS - rank + 1))))}`;
}

interface Endpoint {
  group: Group;
  name: string;
  path: string;
  /** The ratio eventide / DRF to reach, and the recorded anchor it compares with when DRF is missing. */
  target?: { ratio: number; rps?: number; anchor: number };
  /** Measured against fastify too: the ratio eventide / fastify to reach. */
  fastify?: number;
}

const ENDPOINTS: Endpoint[] = [
  { group: 'page', name: 'page 2', path: '/page/items/?page=2', target: { ratio: 50, anchor: ANCHOR.page } },
  { group: 'page', name: 'page 99,999', path: '/page/items/?page=99999' },
  { group: 'limit', name: 'limit offset 10', path: '/limit/items/?offset=10' },
  { group: 'limit', name: 'limit offset 999,980', path: '/limit/items/?offset=999980' },
  {
    group: 'cursor',
    name: 'cursor near the end',
    path: cursorPath(ROWS - 20 + 1),
    // issue 16: >= 25x DRF (was 15x, about 11,000 req/s against the anchor), and >= 1.2x fastify
    target: { ratio: 25, rps: 25 * ANCHOR.cursor, anchor: ANCHOR.cursor },
    fastify: 1.2,
  },
];

/** Cursor pages timed one request at a time: after these ranks. */
const LATENCY_RANKS = [10, 100_000, 990_000];

// ====================================================================== processes

const live = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Every process whose parent chain leads to `pid` (Linux /proc), deepest last. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  try {
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return [];
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [c, pp] of parent) {
      if (pp === p) {
        out.push(c);
        walk(c);
      }
    }
  };
  walk(pid);
  return out;
}

function killPid(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** SIGTERM to a server and its children, SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const pid = child.pid as number;
  const kids = descendants(pid);
  const exited = once(child, 'exit');
  killPid(pid, 'SIGTERM');
  const t = setTimeout(() => {
    killPid(pid, 'SIGKILL');
    for (const k of kids) killPid(k, 'SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(t);
  // a gunicorn worker normally leaves with its master; make sure
  for (const k of kids) killPid(k, 'SIGKILL');
}

async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => stopChild(c)));
}

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${sig}: stopping the servers\n`);
    void stopAll().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  for (const c of live) {
    for (const k of descendants(c.pid as number)) killPid(k, 'SIGKILL');
    killPid(c.pid as number, 'SIGKILL');
  }
});

/** CPU seconds of a server: the process and its children (gunicorn's worker). */
function treeCpuSeconds(pid: number, tck: number): number {
  let sum = cpuSeconds(pid, tck);
  for (const k of descendants(pid)) {
    const c = cpuSeconds(k, tck);
    if (Number.isFinite(c)) sum += c;
  }
  return sum;
}

/** Runs apt-get install (as root only), bounded in time; true when it succeeded. */
function aptInstall(packages: string[]): boolean {
  if (process.getuid?.() !== 0 || !have('apt-get', ['--version'])) return false;
  const run = (args: string[]): boolean =>
    spawnSync('apt-get', args, {
      stdio: 'ignore',
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  process.stderr.write(`installing ${packages.join(' ')} (apt-get)...\n`);
  if (run(['install', '-y', '--no-install-recommends', ...packages])) return true;
  return run(['update']) && run(['install', '-y', '--no-install-recommends', ...packages]);
}

/** Django, DRF and gunicorn versions for /usr/bin/python3, or null. */
function peerVersions(): string | null {
  const r = spawnSync(
    PYTHON,
    [
      '-c',
      'import django, rest_framework, gunicorn; print("Django %s, DRF %s, gunicorn %s" % (django.get_version(), rest_framework.VERSION, gunicorn.__version__))',
    ],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  return r.status === 0 ? r.stdout.trim() : null;
}

async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, HOST);
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  s.close();
  await once(s, 'close');
  return port;
}

// ====================================================================== servers

interface Env {
  pin: boolean;
  /** CPUs of the machine (the scaling run lets its servers use all of them). */
  cpus: number;
  tck: number;
  duration: number;
  warmup: number;
  latencyRequests: number;
  /** The tsc build eventide and the fastify peer run from, or null (`--tsx`: the sources through tsx). */
  dist: string | null;
}

interface Server {
  kind: Kind;
  child: ChildProcess;
  port: number;
  /** Worker processes (`--workers N`), 0 for one process. */
  workers: number;
}

/**
 * The command line of a server: pinned to CPU 0, or with `workers` > 0 (the
 * scaling run) allowed on every CPU (this script pins itself to CPU 1 and its
 * children would inherit that).
 */
function placed(env: Env, workers: number, cmd: string, args: string[]): [string, string[]] {
  if (workers === 0) return pinned(env.pin, 0, cmd, args);
  return env.pin ? ['taskset', ['-c', `0-${env.cpus - 1}`, cmd, ...args]] : [cmd, args];
}

/** Waits for `pattern` on the child's output (stdout and stderr); rejects when it exits first or after `ms`. */
function waitFor(child: ChildProcess, pattern: RegExp, what: string, ms: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${ms / 1000} s:\n${text}`)), ms);
    const onData = (d: string): void => {
      text += d;
      const m = pattern.exec(text);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? sig}) before it was ready:\n${text}`));
    });
  });
}

async function startEventide(env: Env, nodeArgs: string[] = [], workers = 0): Promise<Server> {
  const [cmd, args] = placed(env, workers, process.execPath, [
    ...nodeArgs,
    ...(env.dist !== null ? [join(env.dist, 'src', 'cli', 'main.js')] : ['--import', 'tsx', 'src/cli/main.ts']),
    'serve',
    '--database',
    DB_FILE,
    '--port',
    '0',
    '--quiet',
    ...(workers > 0 ? ['--workers', String(workers)] : []),
  ]);
  const child = track(spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  const m = await waitFor(child, /listening on http:\/\/[\d.]+:(\d+)\//, 'eventide serve', 60_000);
  return { kind: 'eventide', child, port: Number(m[1]), workers };
}

/** The hand-written fastify cursor endpoint (bench/peers/fastify-cursor.ts); `workers` > 0: node:cluster workers. */
async function startFastify(env: Env, workers = 0): Promise<Server> {
  const [cmd, args] = placed(env, workers, process.execPath, [
    ...(env.dist !== null
      ? [join(env.dist, 'bench', 'peers', 'fastify-cursor.js')]
      : ['--import', 'tsx', FASTIFY_PEER]),
    '--database',
    DB_FILE,
    '--port',
    '0',
    ...(workers > 0 ? ['--workers', String(workers)] : []),
  ]);
  const child = track(spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  const m = await waitFor(child, /fastify listening on http:\/\/[\d.]+:(\d+)\//, 'the fastify peer', 60_000);
  return { kind: 'fastify', child, port: Number(m[1]), workers };
}

async function startDrf(env: Env): Promise<Server> {
  const port = await freePort();
  const gunicorn = [
    '-m',
    'gunicorn',
    '--chdir',
    DRF_DIR,
    '--workers',
    '1',
    '--worker-class',
    'sync',
    '--bind',
    `${HOST}:${port}`,
    '--log-level',
    'info',
    'drfbench.wsgi:application',
  ];
  const [cmd, args] = pinned(env.pin, 0, PYTHON, gunicorn);
  const child = track(
    spawn(cmd, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DRFBENCH_DATABASE: DB_FILE, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: '' },
    }),
  );
  await waitFor(child, /Booting worker with pid/, 'gunicorn', 60_000);
  // the worker imports Django after that line: wait for a first answer
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await request(port, '/page/items/?page=1', 10_000);
      if (r.status === 200) break;
      throw new Error(`status ${r.status}: ${r.body.slice(0, 500)}`);
    } catch (e) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`the DRF server does not answer: ${(e as Error).message}`, { cause: e });
      await sleep(200);
    }
  }
  return { kind: 'drf', child, port, workers: 0 };
}

// ====================================================================== a minimal HTTP/1.1 client (timing)

interface Answer {
  status: number;
  head: string;
  body: string;
  /** Request written to response complete, in ms. */
  ms: number;
}

interface Conn {
  socket: Socket;
  buf: Buffer;
  closed: boolean;
  error: Error | null;
  wake: (() => void) | null;
}

/**
 * One connection reused while the server keeps it open (DRF's sync worker
 * closes it after each answer: then the next request connects first, outside
 * the timed part). No Accept header, like wrk.
 */
class Client {
  #port: number;
  #conn: Conn | null = null;

  constructor(port: number) {
    this.#port = port;
  }

  async #connect(): Promise<Conn> {
    const socket = connect({ host: HOST, port: this.#port, noDelay: true });
    const c: Conn = { socket, buf: Buffer.alloc(0), closed: false, error: null, wake: null };
    socket.on('data', (d: Buffer) => {
      c.buf = c.buf.length === 0 ? d : Buffer.concat([c.buf, d]);
      c.wake?.();
    });
    socket.on('close', () => {
      c.closed = true;
      c.wake?.();
    });
    socket.on('error', (e) => {
      c.error = e;
      c.wake?.();
    });
    await once(socket, 'connect');
    this.#conn = c;
    return c;
  }

  async get(path: string, timeoutMs = 10_000): Promise<Answer> {
    const old = this.#conn;
    const c = old !== null && !old.closed && old.error === null ? old : await this.#connect();
    const t0 = process.hrtime.bigint();
    c.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}:${this.#port}\r\n\r\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = c.buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = c.buf.subarray(0, end).toString('latin1');
        const len = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        if (len === null) throw new Error(`no Content-Length in ${head}`);
        const total = end + 4 + Number(len[1]);
        if (c.buf.length >= total) {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          const body = c.buf.subarray(end + 4, total).toString('utf8');
          c.buf = c.buf.subarray(total);
          if (/\r\nconnection:\s*close/i.test(head)) this.close();
          return { status: Number(head.slice(9, 12)), head, body, ms };
        }
      }
      if (c.error !== null) throw c.error;
      if (c.closed) throw new Error('connection closed before the answer was complete');
      const left = deadline - Date.now();
      if (left <= 0) {
        this.close();
        throw new Error(`no answer to ${path} within ${timeoutMs} ms`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        c.wake = () => {
          clearTimeout(t);
          c.wake = null;
          resolve();
        };
      });
    }
  }

  close(): void {
    this.#conn?.socket.destroy();
    this.#conn = null;
  }
}

async function request(port: number, path: string, timeoutMs = 10_000): Promise<Answer> {
  const c = new Client(port);
  try {
    return await c.get(path, timeoutMs);
  } finally {
    c.close();
  }
}

/** Medians etc. of `n` sequential requests (after `warm` untimed ones), bounded by `budgetMs`. */
async function timeRequests(
  port: number,
  path: string,
  n: number,
  warm: number,
  budgetMs: number,
): Promise<{ median: number; p90: number; min: number; n: number }> {
  const c = new Client(port);
  const times: number[] = [];
  const deadline = Date.now() + budgetMs;
  try {
    for (let i = 0; i < warm + n && Date.now() < deadline; i++) {
      const a = await c.get(path);
      if (a.status !== 200) throw new Error(`${path} answered ${a.status}`);
      if (i >= warm) times.push(a.ms);
    }
  } finally {
    c.close();
  }
  const s = times.sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return { median: at(0.5), p90: at(0.9), min: s[0] ?? Number.NaN, n: s.length };
}

// ====================================================================== wrk

interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  p50us: number;
  p99us: number;
  errors: string;
  wrkCpu: number;
}

function parseWrk(out: string): Omit<WrkResult, 'wrkCpu'> {
  const p50 = /^\s+50%\s+([\d.]+\w+)/m.exec(out);
  const p99 = /^\s+99%\s+([\d.]+\w+)/m.exec(out);
  return {
    ...parseWrkTotals(out),
    p50us: p50 ? toMicros(p50[1] as string) : Number.NaN,
    p99us: p99 ? toMicros(p99[1] as string) : Number.NaN,
  };
}

async function runWrk(env: Env, port: number, path: string, seconds: number): Promise<WrkResult> {
  const args = [
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    '--timeout',
    '5s',
    `http://${HOST}:${port}${path}`,
  ];
  const { out, wrkCpu } = await runWrkProcess(env.pin, env.tck, args, seconds, track);
  return { ...parseWrk(out), wrkCpu };
}

interface Row {
  endpoint: Endpoint;
  kind: Kind;
  wrk: WrkResult;
  cpuUsPerReq: number;
  serverLoad: number;
  otherLoad: number;
}

/**
 * Waits until the server has answered what wrk left in flight when it
 * stopped (up to 32 requests of up to tens of ms each): a request behind
 * them, then until the server's CPU use stays below 10% for 200 ms.
 */
async function settle(env: Env, s: Server): Promise<void> {
  try {
    await request(s.port, '/cursor/items/', 120_000);
  } catch {
    // measured anyway
  }
  const pid = s.child.pid as number;
  const deadline = Date.now() + 60_000;
  let prev = treeCpuSeconds(pid, env.tck);
  while (Date.now() < deadline) {
    await sleep(200);
    const now = treeCpuSeconds(pid, env.tck);
    if (!(now - prev >= 0.02)) break;
    prev = now;
  }
}

async function measure(env: Env, s: Server, e: Endpoint): Promise<Row> {
  if (env.warmup > 0) {
    await runWrk(env, s.port, e.path, env.warmup);
    await settle(env, s);
  }
  const pid = s.child.pid as number;
  const c0 = treeCpuSeconds(pid, env.tck);
  const m0 = machineBusySeconds(env.tck);
  const wrk = await runWrk(env, s.port, e.path, env.duration);
  const c1 = treeCpuSeconds(pid, env.tck);
  const m1 = machineBusySeconds(env.tck);
  const server = c1 - c0;
  await settle(env, s);
  process.stderr.write(
    `  ${`${LABEL[s.kind]}${s.workers > 0 ? ` x${s.workers}` : ''}`.padEnd(11)} ${e.name.padEnd(22)} ${Math.round(wrk.rps).toLocaleString('en-US').padStart(8)} req/s${wrk.errors ? `  (${wrk.errors})` : ''}\n`,
  );
  return {
    endpoint: e,
    kind: s.kind,
    wrk,
    cpuUsPerReq: (server * 1e6) / wrk.requests,
    serverLoad: server / wrk.seconds,
    otherLoad: Math.max(0, m1 - m0 - server - (Number.isFinite(wrk.wrkCpu) ? wrk.wrkCpu : 0)) / wrk.seconds,
  };
}

// ====================================================================== checks

/** Two servers' answers to the same URL, compared once the host:port is replaced. */
async function compareAnswers(ev: Server, peer: Server, path: string): Promise<{ same: boolean; detail: string }> {
  const [a, b] = await Promise.all([request(ev.port, path), request(peer.port, path)]);
  const norm = (s: string, port: number): string => s.split(`${HOST}:${port}`).join('HOST');
  const ta = norm(a.body, ev.port);
  const tb = norm(b.body, peer.port);
  const ctA = /\r\ncontent-type:\s*([^\r]*)/i.exec(a.head)?.[1];
  const ctB = /\r\ncontent-type:\s*([^\r]*)/i.exec(b.head)?.[1];
  if (a.status !== b.status) return { same: false, detail: `status ${a.status} vs ${b.status}` };
  if (ctA !== ctB) return { same: false, detail: `Content-Type ${ctA} vs ${ctB}` };
  if (ta === tb) return { same: true, detail: `${a.status}, ${a.body.length} bytes` };
  let i = 0;
  while (i < ta.length && ta[i] === tb[i]) i++;
  return {
    same: false,
    detail: `differ at byte ${i}: eventide ...${ta.slice(Math.max(0, i - 40), i + 60)}... ${LABEL[peer.kind]} ...${tb.slice(Math.max(0, i - 40), i + 60)}...`,
  };
}

/** The cursor pages fastify must answer byte for byte as eventide does: the measured one and the timed ones. */
function fastifyChecks(): [string, string][] {
  return [
    ['cursor, first page', '/cursor/items/'],
    ['cursor near the end', cursorPath(ROWS - 20 + 1)],
    ...LATENCY_RANKS.map((r): [string, string] => [`cursor after row ${r.toLocaleString('en-US')}`, cursorPath(r)]),
  ];
}

/** The installed fastify's version. */
function fastifyVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(join(ROOT, 'node_modules', 'fastify', 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return '?';
  }
}

/** The first cursor page's next link must carry the token this script computes for rank 10. */
async function checkTokens(port: number): Promise<void> {
  const a = await request(port, '/cursor/items/');
  const next = (JSON.parse(a.body) as { next: string | null }).next;
  const want = `http://${HOST}:${port}${cursorPath(10)}`;
  if (next !== want)
    throw new Error(`cursor token mismatch: the server's next link is ${next}, this script computes ${want}`);
}

/**
 * Whether the page-number count is cached: the time of page 3 right after
 * a request that filled the cache, 50 ms later and 1 s later, against the
 * time of a page that never counts (the first cursor page). A page that
 * counts 1,000,000 rows takes milliseconds more.
 */
async function countCache(port: number): Promise<string> {
  const c = new Client(port);
  try {
    const plain: number[] = [];
    for (let i = 0; i < 7; i++) plain.push((await c.get('/cursor/items/')).ms);
    const base = plain.sort((x, y) => x - y)[3] as number;
    const path = '/page/items/?page=3';
    for (let i = 0; i < 3; i++) await c.get(path); // file pages in memory
    await sleep(50);
    const first = (await c.get(path)).ms;
    const again = (await c.get(path)).ms;
    await sleep(50);
    const soon = (await c.get(path)).ms;
    await sleep(1000);
    const later = (await c.get(path)).ms;
    const cached = (ms: number): boolean => ms < 3 * base + 1;
    const verdict =
      cached(soon) && cached(later)
        ? 'the count is cached'
        : cached(again)
          ? 'COUNTED AGAIN after 50 ms: the cache lives only milliseconds (the demo asks for 5 s)'
          : 'COUNTED on every request';
    return `page 3 ${first.toFixed(2)} ms, right after ${again.toFixed(2)} ms, 50 ms later ${soon.toFixed(2)} ms, 1 s later ${later.toFixed(2)} ms (a page without a count: ${base.toFixed(2)} ms): ${verdict}`;
  } finally {
    c.close();
  }
}

// ====================================================================== profile

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

function summariseProfile(file: string, requests: number, top = 25): void {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  let idle = 0;
  const short = (url: string): string => {
    if (url.startsWith('node:')) return 'node: internals';
    const nm = url.lastIndexOf('/node_modules/');
    if (nm >= 0)
      return url
        .slice(nm + 14)
        .split('/')
        .slice(0, url.slice(nm + 14).startsWith('@') ? 2 : 1)
        .join('/');
    const i = url.lastIndexOf('/src/');
    return i >= 0 ? `src/${url.slice(i + 5)}` : basename(url);
  };
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i + 1] ?? prof.timeDeltas[i] ?? 0;
    const node = byId.get(prof.samples[i] as number);
    if (node === undefined) continue;
    total += dt;
    const f = node.callFrame;
    if (f.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    const where = f.url === '' ? '' : short(f.url);
    self.set(
      `${f.functionName || '(anonymous)'}  ${where}`,
      (self.get(`${f.functionName || '(anonymous)'}  ${where}`) ?? 0) + dt,
    );
    const mod = f.url === '' ? f.functionName : where;
    byFile.set(mod, (byFile.get(mod) ?? 0) + dt);
  }
  const busy = total - idle;
  const per = (v: number): string => `${(v / requests).toFixed(1).padStart(6)} µs/req`;
  console.log(
    `  busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled (start-up included), ${requests} requests: ${(busy / requests).toFixed(1)} µs per request`,
  );
  console.log(
    "  top self time by function (native calls count in their JavaScript caller: better-sqlite3 in Kysely's executeQuery):",
  );
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${((v / busy) * 100).toFixed(1).padStart(5)}% ${per(v)}  ${k}`);
  console.log('  self time by module:');
  for (const [k, v] of [...byFile.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14))
    console.log(`    ${((v / busy) * 100).toFixed(1).padStart(5)}% ${per(v)}  ${k}`);
}

async function profile(env: Env, endpoints: Endpoint[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'eventide-pagination-prof-'));
  try {
    for (const e of endpoints) {
      const sub = join(dir, String(endpoints.indexOf(e)));
      const s = await startEventide(env, ['--cpu-prof', `--cpu-prof-dir=${sub}`]);
      let wrk: WrkResult;
      let requests = 0;
      try {
        if (e.group !== 'cursor') await request(s.port, e.path); // fills the count cache
        wrk = await runWrk(env, s.port, e.path, env.duration);
        requests = wrk.requests + 2;
      } finally {
        await stopChild(s.child, 15_000);
      }
      console.log(`\n${e.name} (${e.path}) under --cpu-prof: ${Math.round(wrk.rps).toLocaleString('en-US')} req/s`);
      const files = existsSync(sub) ? readdirSync(sub).filter((f) => f.endsWith('.cpuprofile')) : [];
      if (files.length === 0) {
        console.log('  no .cpuprofile written');
        continue;
      }
      summariseProfile(join(sub, files[0] as string), requests);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ====================================================================== main

async function ensureDatabase(): Promise<void> {
  mkdirSync(DATA_DIR, { recursive: true });
  const fresh = !existsSync(DB_FILE);
  if (fresh) process.stderr.write(`creating ${DB_FILE} (${ROWS.toLocaleString('en-US')} rows, once)...\n`);
  const { openDemoDatabase } = await import('../src/cli/demo-data.js');
  const db = await openDemoDatabase(DB_FILE, { rows: ROWS });
  try {
    if (db.rowCount !== ROWS)
      throw new Error(`${DB_FILE} holds ${db.rowCount} rows, not ${ROWS}: delete it to have it created again`);
  } finally {
    await db.close();
  }
  // openDemoDatabase creates files in WAL mode; one made by an earlier version is switched
  // (both servers read this one file, so both read it in the same mode).
  const { default: Database } = await import('better-sqlite3');
  const raw = new Database(DB_FILE);
  try {
    if (raw.pragma('journal_mode', { simple: true }) !== 'wal') raw.pragma('journal_mode = WAL');
  } finally {
    raw.close();
  }
}

function fmtRps(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? 'n/a' : Math.round(x).toLocaleString('en-US');
}

function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return 'n/a';
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`;
}

async function main(): Promise<void> {
  if (!have('wrk', ['--version']) && !(aptInstall(['wrk']) && have('wrk', ['--version']))) {
    console.error('wrk is not installed: apt-get install -y wrk');
    process.exit(2);
  }
  const cpus = availableParallelism();
  const pin = cpus >= 2 && have('taskset', ['-V']);
  // this script (the latency client) on the load generator's CPU
  if (pin) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const quick = process.argv.includes('--quick');
  const duration = Number(argValue('--duration') ?? (quick ? 2 : 10));
  if (!(Number.isInteger(duration) && duration > 0))
    throw new Error('--duration needs a positive whole number of seconds');
  const only = (argValue('--only')?.split(',') ?? GROUPS) as Group[];
  for (const g of only) if (!GROUPS.includes(g)) throw new Error(`--only takes page, limit, cursor; not ${g}`);
  // eventide and the fastify peer as tsc compiles them (the JavaScript a deployment runs), or `--tsx`
  const dist = useTsx() ? null : buildForBench();
  const env: Env = { pin, cpus, tck: clockTicks(), duration, warmup: 1, latencyRequests: quick ? 50 : 200, dist };
  const endpoints = ENDPOINTS.filter((e) => only.includes(e.group));
  const workerCounts = (argValue('--workers')?.split(',') ?? []).map(Number);
  for (const n of workerCounts)
    if (!(Number.isInteger(n) && n >= 1)) throw new Error('--workers takes worker counts >= 1, e.g. --workers 1,2');
  const scalingEndpoint = ENDPOINTS.find((e) => e.fastify !== undefined)!;

  await ensureDatabase();
  const wrkVersion = (spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? 'wrk').trim();
  console.log(
    `Paginated lists, ${ROWS.toLocaleString('en-US')} rows in SQLite (${DB_FILE.slice(ROOT.length)}); wrk -t1 -c${CONNECTIONS} -d${duration}s after a ${env.warmup} s warm-up`,
  );
  console.log(
    `node ${process.version}, ${cpus} CPUs, ${pin ? 'servers pinned to CPU 0, wrk and the latency client to CPU 1 (taskset)' : 'NOT pinned (taskset missing or < 2 CPUs)'}; ${wrkVersion}`,
  );

  if (process.argv.includes('--profile')) {
    await profile(env, endpoints);
    return;
  }

  const noPeer = process.argv.includes('--no-drf');
  let versions = noPeer ? null : peerVersions();
  if (versions === null && !noPeer && aptInstall(['python3-djangorestframework', 'gunicorn']))
    versions = peerVersions();
  const servers: Server[] = [];
  try {
    const ev = await startEventide(env);
    servers.push(ev);
    let fa: Server | null = null;
    let faMissing = '';
    if (process.argv.includes('--no-fastify')) faMissing = 'left out (--no-fastify)';
    else if (!endpoints.some((e) => e.fastify !== undefined)) faMissing = 'not needed (no cursor endpoint measured)';
    else {
      try {
        fa = await startFastify(env);
        servers.push(fa);
      } catch (e) {
        faMissing = `the fastify peer did not start: ${(e as Error).message}`;
      }
    }
    let drf: Server | null = null;
    let missing = '';
    if (noPeer) missing = 'left out (--no-drf)';
    else if (versions === null)
      missing = `Django REST framework or gunicorn is missing for ${PYTHON} and could not be installed (apt-get install -y --no-install-recommends python3-djangorestframework gunicorn)`;
    else {
      try {
        drf = await startDrf(env);
        servers.push(drf);
      } catch (e) {
        missing = `the DRF server did not start: ${(e as Error).message}`;
      }
    }
    console.log(
      `eventide: ${dist !== null ? 'src/cli/main.ts compiled by tsc (.tmp/bench-dist)' : 'src/cli/main.ts through tsx'} serve (EventHttp, one process); peer: ${drf !== null ? `${versions}, gunicorn 1 sync worker (bench/drf)` : `MISSING: ${missing}`}`,
    );
    console.log(
      `cursor peer: ${fa !== null ? `fastify ${fastifyVersion()} + better-sqlite3, hand-written, one process (bench/peers/fastify-cursor.ts)` : `none: ${faMissing}`}`,
    );

    // ---- same answers, same tokens
    await checkTokens(ev.port);
    if (drf !== null) await checkTokens(drf.port);
    let faSame = false;
    let faDiffer = '';
    if (fa !== null) {
      try {
        await checkTokens(fa.port);
        faSame = true;
      } catch (e) {
        faDiffer = (e as Error).message;
      }
    }
    const tokenServers = ['eventide', drf !== null && 'DRF', faSame && 'fastify'].filter(Boolean).join(', ');
    console.log(
      `\ncursor tokens: computed as DRF does (base64 of "p=" + quote_plus(str(created))), equal to the next link of: ${tokenServers}`,
    );
    if (drf !== null) {
      console.log('same JSON from both servers (host:port replaced):');
      const checks: [string, string][] = [
        ['page 2', '/page/items/?page=2'],
        ['page 99,999', '/page/items/?page=99999'],
        ['limit offset 10', '/limit/items/?offset=10'],
        ['cursor, first page', '/cursor/items/'],
        ['cursor near the end', cursorPath(ROWS - 20 + 1)],
        ...LATENCY_RANKS.map((r): [string, string] => [`cursor after row ${r.toLocaleString('en-US')}`, cursorPath(r)]),
      ];
      for (const [name, path] of checks) {
        const r = await compareAnswers(ev, drf, path);
        console.log(`  ${r.same ? 'match' : 'DIFFER'}  ${name.padEnd(26)} ${r.detail}`);
      }
    }
    if (fa !== null) {
      // the ratio against fastify is reported only when every measured or timed cursor page is byte-identical
      console.log(
        `fastify against eventide (status, Content-Type and body byte for byte, host:port replaced):${faDiffer ? `\n  DIFFER  first page's next link: ${faDiffer}` : ''}`,
      );
      for (const [name, path] of fastifyChecks()) {
        const r = await compareAnswers(ev, fa, path);
        console.log(`  ${r.same ? 'match' : 'DIFFER'}  ${name.padEnd(26)} ${r.detail}`);
        if (!r.same) {
          faSame = false;
          faDiffer ||= `${name}: ${r.detail}`;
        }
      }
      if (!faSame) console.log('  DIFFER: fastify answers differently; its figures and ratio are not reported');
    }
    const faOk = fa !== null && faSame ? fa : null;
    if (only.includes('page')) console.log(`\neventide page-number count cache: ${await countCache(ev.port)}`);

    // ---- requests/s
    console.log('');
    const rows: Row[] = [];
    for (const e of endpoints) {
      rows.push(await measure(env, ev, e));
      if (drf !== null) rows.push(await measure(env, drf, e));
      if (faOk !== null && e.fastify !== undefined) rows.push(await measure(env, faOk, e));
    }

    // ---- cursor page time by position
    const lat: {
      rank: number;
      ev: Awaited<ReturnType<typeof timeRequests>>;
      drf: Awaited<ReturnType<typeof timeRequests>> | null;
      fa: Awaited<ReturnType<typeof timeRequests>> | null;
    }[] = [];
    if (only.includes('cursor')) {
      for (const rank of LATENCY_RANKS) {
        const path = cursorPath(rank);
        const a = await timeRequests(ev.port, path, env.latencyRequests, 20, 20_000);
        const b = drf !== null ? await timeRequests(drf.port, path, env.latencyRequests, 20, 60_000) : null;
        const c = faOk !== null ? await timeRequests(faOk.port, path, env.latencyRequests, 20, 20_000) : null;
        lat.push({ rank, ev: a, drf: b, fa: c });
      }
    }

    // ---- --workers N: the cursor endpoint with N processes per server
    const scaling: { n: number; ev: Row; fa: Row | null; detail: string }[] = [];
    if (workerCounts.length > 0) {
      console.log(
        `\n--workers ${workerCounts.join(',')}: ${scalingEndpoint.name}, eventide serve --workers N against fastify on N node:cluster workers (SCHED_NONE), servers on ${pin ? `any of the ${cpus} CPUs` : 'any CPU'}, wrk ${pin ? 'on CPU 1' : 'not pinned'}`,
      );
      // the single-process servers stay idle meanwhile
      for (const n of workerCounts) {
        const es = await startEventide(env, [], n);
        let fs: Server | null = null;
        let detail = '';
        try {
          if (process.argv.includes('--no-fastify')) detail = 'fastify left out (--no-fastify)';
          else {
            try {
              fs = await startFastify(env, n);
              const r = await compareAnswers(es, fs, scalingEndpoint.path);
              if (!r.same) {
                detail = `DIFFER: ${r.detail}`;
                console.log(`  ${n} workers: fastify DIFFER ${r.detail}`);
                await stopChild(fs.child, 10_000);
                fs = null;
              }
            } catch (e) {
              detail = `the fastify peer did not start: ${(e as Error).message}`;
              fs = null;
            }
          }
          const a = await measure(env, es, scalingEndpoint);
          const b = fs !== null ? await measure(env, fs, scalingEndpoint) : null;
          scaling.push({ n, ev: a, fa: b, detail });
        } finally {
          await stopChild(es.child, 15_000);
          if (fs !== null) await stopChild(fs.child, 15_000);
        }
      }
    }

    // ---- report
    console.log('');
    console.log(
      `| endpoint | eventide req/s | DRF req/s | ratio | target | met? | eventide CPU / req | DRF CPU / req | eventide p99 | DRF p99 | errors |`,
    );
    console.log(`|---|---:|---:|---:|---|---|---:|---:|---:|---:|---|`);
    for (const e of endpoints) {
      const a = rows.find((r) => r.endpoint === e && r.kind === 'eventide');
      const b = rows.find((r) => r.endpoint === e && r.kind === 'drf');
      if (a === undefined) continue;
      let ratio = 'n/a';
      let target = '-';
      let met = '-';
      if (b !== undefined) {
        const x = a.wrk.rps / b.wrk.rps;
        ratio = `${x.toFixed(1)}x`;
        if (e.target !== undefined) {
          target = `>= ${e.target.ratio}x${e.target.rps !== undefined ? ` (~${fmtRps(e.target.rps)} req/s)` : ''}`;
          met = x >= e.target.ratio ? 'met' : 'MISSED';
        }
      } else if (e.target !== undefined) {
        const x = a.wrk.rps / e.target.anchor;
        ratio = `${x.toFixed(1)}x anchor`;
        target = `>= ${e.target.ratio}x the anchor ${e.target.anchor} req/s`;
        met = x >= e.target.ratio ? 'met (vs anchor)' : 'MISSED (vs anchor)';
      }
      const errs = [
        a.wrk.errors && `eventide ${a.wrk.errors.replace('socket errors: ', '')}`,
        b?.wrk.errors && `DRF ${b.wrk.errors.replace('socket errors: ', '')}`,
      ]
        .filter(Boolean)
        .join('; ');
      console.log(
        `| ${e.name} | ${fmtRps(a.wrk.rps)} | ${fmtRps(b?.wrk.rps)} | ${ratio} | ${target} | ${met} | ${fmtUs(a.cpuUsPerReq)} | ${b ? fmtUs(b.cpuUsPerReq) : 'n/a'} | ${fmtUs(a.wrk.p99us)} | ${b ? fmtUs(b.wrk.p99us) : 'n/a'} | ${errs || '-'} |`,
      );
    }
    const cursorRow = rows.find((r) => r.kind === 'eventide' && r.endpoint.target?.rps !== undefined);
    if (cursorRow !== undefined) {
      const want = cursorRow.endpoint.target!.rps!;
      console.log(
        `\ncursor near the end, absolute: ${fmtRps(cursorRow.wrk.rps)} req/s against about ${fmtRps(want)} (${cursorRow.endpoint.target!.ratio}x the anchor ${ANCHOR.cursor}): ${cursorRow.wrk.rps >= want ? 'met' : 'MISSED'}`,
      );
    }
    const faRows = endpoints.filter((e) => e.fastify !== undefined);
    if (faRows.length > 0) {
      console.log('\nAgainst the hand-written fastify endpoint (same run, same wrk):');
      console.log(
        `| endpoint | eventide req/s | fastify req/s | ratio | target | met? | eventide CPU / req | fastify CPU / req | eventide p99 | fastify p99 | errors |`,
      );
      console.log(`|---|---:|---:|---:|---|---|---:|---:|---:|---:|---|`);
      for (const e of faRows) {
        const a = rows.find((r) => r.endpoint === e && r.kind === 'eventide');
        const b = rows.find((r) => r.endpoint === e && r.kind === 'fastify');
        if (a === undefined) continue;
        const why = fa === null ? faMissing : !faSame ? 'DIFFER: not reported' : 'n/a';
        const x = b !== undefined ? a.wrk.rps / b.wrk.rps : Number.NaN;
        const errs = [
          a.wrk.errors && `eventide ${a.wrk.errors.replace('socket errors: ', '')}`,
          b?.wrk.errors && `fastify ${b.wrk.errors.replace('socket errors: ', '')}`,
        ]
          .filter(Boolean)
          .join('; ');
        console.log(
          `| ${e.name} | ${fmtRps(a.wrk.rps)} | ${b ? fmtRps(b.wrk.rps) : why} | ${b ? `${x.toFixed(2)}x` : 'n/a'} | >= ${e.fastify}x | ${b ? (x >= e.fastify! ? 'met' : 'MISSED') : '-'} | ${fmtUs(a.cpuUsPerReq)} | ${b ? fmtUs(b.cpuUsPerReq) : 'n/a'} | ${fmtUs(a.wrk.p99us)} | ${b ? fmtUs(b.wrk.p99us) : 'n/a'} | ${errs || '-'} |`,
        );
      }
    }
    if (drf !== null) {
      const dp = rows.find((r) => r.kind === 'drf' && r.endpoint.path === '/page/items/?page=2');
      const dc = rows.find((r) => r.kind === 'drf' && r.endpoint === cursorRow?.endpoint);
      const parts = [
        dp && `page-number ${fmtRps(dp.wrk.rps)} (anchor ~${ANCHOR.page})`,
        dc && `cursor ${fmtRps(dc.wrk.rps)} (anchor ~${ANCHOR.cursor})`,
      ].filter(Boolean);
      if (parts.length > 0) console.log(`DRF in this run vs the recorded anchors, req/s: ${parts.join(', ')}`);
    }
    const loads = rows.map(
      (r) =>
        `${LABEL[r.kind]} ${r.endpoint.name} ${Math.round(r.serverLoad * 100)}% (others ${Math.round(r.otherLoad * 100)}%)`,
    );
    for (const sc of scaling)
      for (const r of [sc.ev, sc.fa])
        if (r !== null)
          loads.push(
            `${LABEL[r.kind]} x${sc.n} ${Math.round(r.serverLoad * 100)}% (others ${Math.round(r.otherLoad * 100)}%)`,
          );
    console.log(
      `server CPU use during the runs, and CPU use by other processes (share of one CPU): ${loads.join(', ')}`,
    );

    if (lat.length > 0) {
      console.log('\nTime of one cursor page (sequential requests on an open connection; median, p90):');
      console.log(
        `| after row (-created) | eventide median | eventide p90 | DRF median | DRF p90 | fastify median | fastify p90 |`,
      );
      console.log(`|---:|---:|---:|---:|---:|---:|---:|`);
      for (const l of lat) {
        console.log(
          `| ${l.rank.toLocaleString('en-US')} | ${fmtUs(l.ev.median * 1000)} | ${fmtUs(l.ev.p90 * 1000)} | ${l.drf ? fmtUs(l.drf.median * 1000) : 'n/a'} | ${l.drf ? fmtUs(l.drf.p90 * 1000) : 'n/a'} | ${l.fa ? fmtUs(l.fa.median * 1000) : 'n/a'} | ${l.fa ? fmtUs(l.fa.p90 * 1000) : 'n/a'} |`,
        );
      }
      const flat = (xs: number[]): number => Math.max(...xs) / Math.min(...xs);
      const fe = flat(lat.map((l) => l.ev.median));
      console.log(
        `eventide max/min of the medians: ${fe.toFixed(2)} (flat, <= ${FLAT}: ${fe <= FLAT ? 'met' : 'MISSED'}); n = ${lat[0]!.ev.n} per position`,
      );
      if (lat.every((l) => l.drf !== null))
        console.log(
          `DRF max/min of the medians: ${flat(lat.map((l) => l.drf!.median)).toFixed(2)} (DRF's sync worker closes the connection after every answer: its figures exclude connecting)`,
        );
      if (lat.every((l) => l.fa !== null))
        console.log(`fastify max/min of the medians: ${flat(lat.map((l) => l.fa!.median)).toFixed(2)}`);
    }

    if (scaling.length > 0) {
      console.log(
        `\n${scalingEndpoint.name} with N processes per server (${pin ? `servers on any of the ${cpus} CPUs, wrk on CPU 1` : 'not pinned'}; informational):`,
      );
      console.log(
        `| workers | eventide req/s | fastify req/s | ratio | eventide CPU / req | fastify CPU / req | eventide CPU use | fastify CPU use | errors |`,
      );
      console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|---|`);
      for (const sc of scaling) {
        const b = sc.fa;
        const errs = [
          sc.ev.wrk.errors && `eventide ${sc.ev.wrk.errors.replace('socket errors: ', '')}`,
          b?.wrk.errors && `fastify ${b.wrk.errors.replace('socket errors: ', '')}`,
          sc.detail,
        ]
          .filter(Boolean)
          .join('; ');
        console.log(
          `| ${sc.n} | ${fmtRps(sc.ev.wrk.rps)} | ${b ? fmtRps(b.wrk.rps) : 'n/a'} | ${b ? `${(sc.ev.wrk.rps / b.wrk.rps).toFixed(2)}x` : 'n/a'} | ${fmtUs(sc.ev.cpuUsPerReq)} | ${b ? fmtUs(b.cpuUsPerReq) : 'n/a'} | ${Math.round(sc.ev.serverLoad * 100)}% | ${b ? `${Math.round(b.serverLoad * 100)}%` : 'n/a'} | ${errs || '-'} |`,
        );
      }
    }

    const worst = Math.max(
      0,
      ...rows.map((r) => r.otherLoad),
      ...scaling.flatMap((sc) => [sc.ev.otherLoad, sc.fa?.otherLoad ?? 0]),
    );
    const results: WorkloadResult[] = [];
    for (const e of endpoints) {
      const a = rows.find((r) => r.endpoint === e && r.kind === 'eventide');
      const b = rows.find((r) => r.endpoint === e && r.kind === 'drf');
      const c = rows.find((r) => r.endpoint === e && r.kind === 'fastify');
      if (a === undefined) continue;
      if (b !== undefined) {
        const t = e.target !== undefined ? { peer: LABEL.drf, op: '>=' as const, value: e.target.ratio } : null;
        results.push(workload(e.name, 'req/s', a.wrk.rps, [{ name: LABEL.drf, value: b.wrk.rps }], t));
      } else if (e.target !== undefined) {
        const anchor = `${LABEL.drf} (recorded anchor, not this run)`;
        results.push(
          workload(e.name, 'req/s', a.wrk.rps, [{ name: anchor, value: e.target.anchor }], {
            peer: anchor,
            op: '>=',
            value: e.target.ratio,
          }),
        );
      }
      // The hand-written peer is its own workload: one target per workload in the results.
      if (c !== undefined)
        results.push(
          workload(
            `${e.name} vs hand-written fastify`,
            'req/s',
            a.wrk.rps,
            [{ name: LABEL.fastify, value: c.wrk.rps }],
            e.fastify !== undefined ? { peer: LABEL.fastify, op: '>=', value: e.fastify } : null,
          ),
        );
    }
    for (const sc of scaling) {
      results.push(
        workload(
          `${scalingEndpoint.name}, ${sc.n} worker${sc.n === 1 ? '' : 's'} per server`,
          'req/s',
          sc.ev.wrk.rps,
          sc.fa !== null ? [{ name: `${LABEL.fastify} (node:cluster)`, value: sc.fa.wrk.rps }] : [],
          null,
        ),
      );
    }
    const notes = [
      `wrk -t1 -c${CONNECTIONS} -d${duration}s after a ${env.warmup} s warm-up, ${ROWS.toLocaleString('en-US')} rows; the same -c${CONNECTIONS} for every server (issue 16 mentions wrk -c16 for the fastify comparison)`,
    ];
    if (drf === null) notes.push(`Django REST framework ${missing}: ratios against the recorded anchors`);
    for (const e of endpoints) {
      if (e.fastify === undefined) continue;
      const a = rows.find((r) => r.endpoint === e && r.kind === 'eventide');
      const c = rows.find((r) => r.endpoint === e && r.kind === 'fastify');
      if (a === undefined) continue;
      if (c !== undefined) {
        const x = a.wrk.rps / c.wrk.rps;
        notes.push(
          `${e.name}: eventide / fastify ${x.toFixed(2)}x, target >= ${e.fastify}x ${x >= e.fastify ? 'met' : 'MISSED'} (fastify ${fastifyVersion()} + better-sqlite3 by hand, bench/peers/fastify-cursor.ts, answers checked byte for byte)`,
        );
      } else
        notes.push(
          `${e.name}: fastify ${fa === null ? faMissing : `DIFFER, not reported: ${faDiffer}`} (target >= ${e.fastify}x)`,
        );
    }
    if (scaling.length > 0)
      notes.push(
        `--workers ${workerCounts.join(',')}: eventide serve --workers N against fastify on N node:cluster workers (SCHED_NONE), ${pin ? `servers on any of the ${cpus} CPUs, wrk on CPU 1` : 'not pinned'}; informational, no target`,
      );
    if (lat.length > 0)
      notes.push(
        `cursor page time by position (eventide median): ${lat.map((l) => `after ${l.rank}: ${fmtUs(l.ev.median * 1000)}`).join(', ')}`,
      );
    if (worst > 0.1) notes.push(`disturbed: other processes used up to ${Math.round(worst * 100)}% of a CPU`);
    writeResults('pagination', {
      pinned: pin,
      placement: pin ? 'servers on CPU 0, wrk and the latency client on CPU 1 (taskset)' : 'not pinned',
      workloads: results,
      notes,
    });
    if (worst > 0.1)
      console.log(
        `\nWARNING: other processes used up to ${Math.round(worst * 100)}% of a CPU during a measurement: the figures are disturbed; run again on an idle machine.`,
      );
    console.log('\n(figures drift from run to run; compare only numbers from the same run)');
  } finally {
    for (const s of servers) await stopChild(s.child, 10_000);
    await stopAll();
  }
}

main().catch(async (err: unknown) => {
  console.error(err);
  await stopAll();
  process.exit(1);
});

/**
 * HTTP hello world: EventHttp against node:http and a raw node:net server
 * (a fixed reply per request: the upper bound for a JavaScript server),
 * measured in the same run by the same load generator, wrk.
 *
 *   npx tsx bench/http.ts                     (about 1.5 min)
 *   npx tsx bench/http.ts --duration 20       (seconds per measurement; default 10: the latency tail needs the samples)
 *   npx tsx bench/http.ts --rounds 3          (more rounds, alternating order; medians)
 *   npx tsx bench/http.ts --only eventide,node (a subset of eventide, node, raw, lent)
 *   npx tsx bench/http.ts --profile           (EventHttp only, under `node --cpu-prof`,
 *                                              keep-alive then pipelined load; prints
 *                                              where its CPU time goes)
 *
 * Placement: each server runs in its own child process pinned to CPU 0
 * (`taskset -c 0`), wrk (`-t1`) pinned to CPU 1 (`taskset -c 1`); without
 * taskset or with fewer than 2 CPUs nothing is pinned and the report says so.
 * Only 127.0.0.1 is used. wrk must be installed (`apt-get install -y wrk`).
 *
 * Every server answers `GET /` with the 13-byte body `Hello, World!` and
 * `Content-Type: text/plain` (EventHttp and node:http add Date; the raw
 * server sends a fixed byte string and counts requests by their `\r\n\r\n`,
 * also across reads, answering all requests of a read with one write). Two
 * raw servers: `raw` reads with the socket's stream (`'data'` events, as code
 * written by hand does: the peer of the target), `lent` with Node's `onread`
 * option (one reused buffer, no stream: the read path EventHttp's sockets
 * use; a reference without a target).
 *
 * Workloads (wrk -t1 -c64, `--latency`):
 * 1. keep-alive: one request at a time per connection;
 * 2. pipelined: 16 requests per write (a Lua script, `pipeline.lua`, written
 *    to a temporary directory).
 * Each workload gets a 1 s warm-up, then a measured run of `--duration` s.
 * Reported: requests/s, p99 latency, and the server's CPU time per request
 * (utime + stime of the server process from /proc/PID/stat before and after
 * the measured run, divided by the requests wrk completed).
 *
 * 3. keep-alive at an equal offered load (when EventHttp and node:http both
 *    run): wrk measures each server at its own maximum, so their closed-loop
 *    latencies come from different loads. bench/http-rate.c (compiled now;
 *    see bench/http-rate.ts) then offers both servers the same requests per
 *    second, `--rate-fraction` (default 0.75) of node:http's closed-loop
 *    maximum or `--rate N`, over the same 64 connections, and measures each
 *    request from the moment it was due. `--no-rate` skips it.
 *
 * Then the ratios against the targets: EventHttp / raw node:net requests/s
 * >= 0.9x keep-alive and >= 0.5x pipelined; EventHttp's keep-alive p99 at
 * the equal load, and its pipelined p99, lower than node:http's.
 *
 * The servers are bench/peers/hello-servers.ts, each in its own process,
 * run from a tsc build (`.tmp/bench-dist`, made at the start: EventHttp as
 * the package ships it, and no server carrying tsx's module loader thread);
 * `--tsx` runs the sources through tsx instead.
 *
 * The results (medians, ratios, targets, the machine and the command) are
 * also written to bench/results/http.json (`--json FILE` elsewhere,
 * `--no-json` not at all); `npm run bench:report` draws them.
 */
import {
  argValue,
  buildForBench,
  clockTicks,
  cpuSeconds,
  have,
  machineBusySeconds,
  median,
  parseWrkTotals,
  pinned,
  runWrkProcess,
  toMicros,
  workload,
  writeResults,
  useTsx,
  type WorkloadResult,
} from './lib.js';
import { compileRateClient, equalLoadRate, runRateClient, type RateResult } from './http-rate.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SERVERS = join(ROOT, 'bench', 'peers', 'hello-servers.ts');
const HOST = '127.0.0.1';
const BODY = 'Hello, World!';
/** Issue 16's targets: EventHttp's requests/s against the raw node:net server's, in the same run. */
const TARGET = { keepAlive: 0.9, pipelined: 0.5 };
/** The equal-load run offers this share of node:http's closed-loop keep-alive maximum. */
const RATE_FRACTION = 0.75;

type Kind = 'eventide' | 'node' | 'raw' | 'lent';
const KINDS: Kind[] = ['eventide', 'node', 'raw', 'lent'];
const LABEL: Record<Kind, string> = {
  eventide: 'EventHttp',
  node: 'node:http',
  raw: 'raw node:net',
  lent: 'raw node:net, onread',
};

// ====================================================================== driver

interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  p99us: number;
  avgUs: number;
  errors: string;
  raw: string;
  /** CPU seconds wrk used (sampled from /proc while it ran). */
  wrkCpu: number;
}

interface Row {
  kind: Kind;
  mode: Mode;
  wrk: WrkResult;
  cpuUsPerReq: number;
  /** Share of one CPU the server used during the measured run. */
  serverLoad: number;
  /** Share of one CPU that other processes (not the server, not wrk) used: interference. */
  otherLoad: number;
}

type Mode = 'keep-alive' | 'pipelined';
const MODES: Mode[] = ['keep-alive', 'pipelined'];
const PIPELINE = 16;

function parseWrk(out: string): WrkResult {
  const p99 = /^EVENTIDE_P99 (\d+) ([\d.]+)/m.exec(out);
  const avg = /^\s*Latency\s+(\S+)/m.exec(out);
  return {
    ...parseWrkTotals(out),
    p99us: p99 ? Number(p99[1]) : Number.NaN,
    avgUs: avg ? toMicros(avg[1] as string) : Number.NaN,
    raw: out,
    wrkCpu: Number.NaN,
  };
}

/**
 * wrk's `done()` hook printing a p99 that survives wrk's latency
 * correction. wrk records one latency sample per *batch* of pipelined
 * requests but corrects for coordinated omission with an interval computed
 * per *response*; the phantom samples it then adds can fall below the
 * recorded minimum, where its percentile scan never looks, and every
 * percentile above the share of samples it can see prints as `0.00us`. The
 * hook finds that share (the highest percentile that is not 0) by bisection
 * and prints the 99th percentile of the samples in range: exactly wrk's p99
 * when nothing fell out of range (keep-alive), the batch p99 when pipelining.
 */
const P99_LUA = `done = function(summary, latency, requests)
  local lo, hi = 0, 100
  for i = 1, 40 do
    local mid = (lo + hi) / 2
    if latency:percentile(mid) > 0 then lo = mid else hi = mid end
  end
  io.write(string.format("EVENTIDE_P99 %d %.6f\\n", latency:percentile(0.99 * lo), lo))
end
`;

interface Env {
  pin: boolean;
  tck: number;
  lua: string;
  latencyLua: string;
  connections: number;
  duration: number;
  /** The tsc build EventHttp runs from, or null (`--tsx`: the sources through tsx). */
  dist: string | null;
}

async function runWrk(env: Env, port: number, mode: Mode, seconds: number): Promise<WrkResult> {
  const args = ['-t1', `-c${env.connections}`, `-d${seconds}s`, '--latency', '--timeout', '5s'];
  args.push('-s', mode === 'pipelined' ? env.lua : env.latencyLua);
  args.push(`http://${HOST}:${port}/`);
  const { out, wrkCpu } = await runWrkProcess(env.pin, env.tck, args, seconds);
  return { ...parseWrk(out), wrkCpu };
}

interface Started {
  child: ChildProcess;
  port: number;
}

async function startServer(env: Env, kind: Kind, nodeArgs: string[] = []): Promise<Started> {
  // the tsc build of bench/peers/hello-servers.ts (no tsx loader thread in the server), or its source through tsx
  const script =
    env.dist === null ? ['--import', 'tsx', SERVERS] : [join(env.dist, 'bench', 'peers', 'hello-servers.js')];
  const [cmd, args] = pinned(env.pin, 0, process.execPath, [...nodeArgs, ...script, '--kind', kind]);
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'pipe'] });
  let err = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start: ${err}`)), 30000);
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /Listening on [\d.]+:(\d+)/.exec(err);
      if (m !== null) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited (${code}): ${err}`));
    });
  });
  // a correct answer first
  const res = await fetch(`http://${HOST}:${port}/`);
  const text = await res.text();
  if (res.status !== 200 || text !== BODY)
    throw new Error(`${kind} server answered ${res.status} ${JSON.stringify(text)}`);
  return { child, port };
}

async function stopServer(s: Started): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = once(s.child, 'exit');
  s.child.kill('SIGTERM');
  const t = setTimeout(() => s.child.kill('SIGKILL'), 10000);
  await exited;
  clearTimeout(t);
}

async function measure(env: Env, kind: Kind, modes: Mode[]): Promise<Row[]> {
  const s = await startServer(env, kind);
  const rows: Row[] = [];
  try {
    for (const mode of modes) {
      await runWrk(env, s.port, mode, 1); // warm-up
      const pid = s.child.pid as number;
      const c0 = cpuSeconds(pid, env.tck);
      const m0 = machineBusySeconds(env.tck);
      const wrk = await runWrk(env, s.port, mode, env.duration);
      const c1 = cpuSeconds(pid, env.tck);
      const m1 = machineBusySeconds(env.tck);
      const server = c1 - c0;
      rows.push({
        kind,
        mode,
        wrk,
        cpuUsPerReq: (server * 1e6) / wrk.requests,
        serverLoad: server / wrk.seconds,
        otherLoad: Math.max(0, m1 - m0 - server - (Number.isFinite(wrk.wrkCpu) ? wrk.wrkCpu : 0)) / wrk.seconds,
      });
      process.stderr.write(
        `  ${LABEL[kind].padEnd(13)} ${mode.padEnd(10)} ${Math.round(wrk.rps).toLocaleString('en-US').padStart(10)} req/s\n`,
      );
    }
  } finally {
    await stopServer(s);
  }
  return rows;
}

interface RateRow {
  kind: Kind;
  result: RateResult;
  /** Share of one CPU the server used during the run (warm-up included). */
  serverLoad: number;
}

/** One server at a fixed offered load (after a 1 s closed-loop warm-up for its JIT). */
async function measureAtRate(env: Env, kind: Kind, bin: string, rate: number): Promise<RateRow> {
  const s = await startServer(env, kind);
  try {
    await runWrk(env, s.port, 'keep-alive', 1);
    const pid = s.child.pid as number;
    const t0 = performance.now();
    const c0 = cpuSeconds(pid, env.tck);
    const result = await runRateClient(bin, {
      host: HOST,
      port: s.port,
      connections: env.connections,
      rate,
      warmupSeconds: 1,
      seconds: env.duration,
      timeoutSeconds: 10,
      path: '/',
      pin: env.pin,
    });
    const c1 = cpuSeconds(pid, env.tck);
    const serverLoad = (c1 - c0) / ((performance.now() - t0) / 1000);
    process.stderr.write(
      `  ${LABEL[kind].padEnd(13)} ${`${rate.toLocaleString('en-US')} req/s offered`.padEnd(24)} p99 ${fmtUs(result.p99)}\n`,
    );
    return { kind, result, serverLoad };
  } finally {
    await stopServer(s);
  }
}

function fmtCpu(us: number): string {
  return Number.isFinite(us) ? `${us.toFixed(2)} µs` : 'n/a';
}

function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return 'n/a';
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`;
}

// ---------------------------------------------------------------------- profile

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `src/...` for the package's sources, the URL for node: internals, else the file name. */
function shortUrl(url: string): string {
  if (url.startsWith('node:')) return url;
  const i = url.lastIndexOf('/src/');
  return i >= 0 && !url.includes('/node_modules/') ? `src/${url.slice(i + 5)}` : basename(url);
}

function summariseProfile(file: string, top = 30): void {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  for (const n of prof.nodes) byId.set(n.id, n);
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i + 1] ?? prof.timeDeltas[i] ?? 0;
    const node = byId.get(prof.samples[i] as number);
    if (node === undefined) continue;
    const f = node.callFrame;
    total += dt;
    if (f.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    // line numbers of the package's sources are positions in tsx's transpiled output: left out
    const short = shortUrl(f.url);
    const where = f.url === '' ? '' : short.startsWith('src/') ? short : `${short}:${f.lineNumber + 1}`;
    const key = `${f.functionName || '(anonymous)'}  ${where}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    const mod = f.url === '' ? f.functionName : f.url.startsWith('node:') ? 'node: internals' : shortUrl(f.url);
    byFile.set(mod, (byFile.get(mod) ?? 0) + dt);
  }
  const busy = total - idle;
  console.log(`\nProfile ${file}`);
  console.log(
    `samples: ${(total / 1e6).toFixed(2)} s, idle ${((idle / total) * 100).toFixed(1)}%; percentages below are of the busy time (${(busy / 1e6).toFixed(2)} s)\n`,
  );
  console.log('Top self time by function:');
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
  }
  console.log('\nSelf time by module:');
  for (const [k, v] of [...byFile.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`  ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
  }
}

async function profile(env: Env): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'eventide-http-prof-'));
  try {
    for (const mode of MODES) {
      const sub = join(dir, mode);
      const s = await startServer(env, 'eventide', ['--cpu-prof', `--cpu-prof-dir=${sub}`]);
      try {
        const wrk = await runWrk(env, s.port, mode, env.duration);
        console.log(
          `\nEventHttp ${mode} under --cpu-prof: ${Math.round(wrk.rps).toLocaleString('en-US')} req/s, p99 ${fmtUs(wrk.p99us)}`,
        );
      } finally {
        await stopServer(s);
      }
      const files = readdirSync(sub).filter((f) => f.endsWith('.cpuprofile'));
      if (files.length === 0) throw new Error('no .cpuprofile written');
      summariseProfile(join(sub, files[0] as string));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------- main

async function main(): Promise<void> {
  if (!have('wrk', ['--version'])) {
    console.error('wrk is not installed: apt-get install -y wrk');
    process.exit(2);
  }
  const cpus = availableParallelism();
  const pin = cpus >= 2 && have('taskset', ['-V']);
  const duration = Number(argValue('--duration') ?? 10);
  const rounds = Math.max(1, Number(argValue('--rounds') ?? 1));
  const only = (argValue('--only')?.split(',') ?? KINDS) as Kind[];
  const dir = mkdtempSync(join(tmpdir(), 'eventide-http-bench-'));
  const lua = join(dir, 'pipeline.lua');
  const latencyLua = join(dir, 'latency.lua');
  writeFileSync(latencyLua, P99_LUA);
  writeFileSync(
    lua,
    `init = function(args)\n  local r = {}\n  for i = 1, ${PIPELINE} do\n    r[i] = wrk.format(nil, "/")\n  end\n  req = table.concat(r)\nend\n\nrequest = function()\n  return req\nend\n\n${P99_LUA}`,
  );
  const dist = useTsx() ? null : buildForBench();
  const env: Env = { pin, tck: clockTicks(), lua, latencyLua, connections: 64, duration, dist };
  const wrkVersion = spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? 'wrk';
  console.log(
    `HTTP hello world (${BODY.length}-byte body), wrk -t1 -c${env.connections} -d${duration}s --latency; pipelined: ${PIPELINE} requests per write`,
  );
  console.log(
    `node ${process.version}, ${cpus} CPUs, ${pin ? 'server pinned to CPU 0, wrk to CPU 1 (taskset)' : 'NOT pinned (taskset missing or < 2 CPUs)'}; ${wrkVersion.trim()}; EventHttp ${dist === null ? 'from the sources through tsx (--tsx)' : 'from a tsc build of src/ (.tmp/bench-dist)'}`,
  );
  try {
    if (process.argv.includes('--profile')) {
      await profile(env);
      return;
    }
    const rows: Row[] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? only : [...only].reverse();
      for (const kind of order) rows.push(...(await measure(env, kind, MODES)));
    }
    const agg = (
      kind: Kind,
      mode: Mode,
    ): {
      rps: number;
      p99: number;
      avg: number;
      cpu: number;
      errors: string;
      load: number;
      wrkLoad: number;
      other: number;
    } | null => {
      const rs = rows.filter((x) => x.kind === kind && x.mode === mode);
      if (rs.length === 0) return null;
      return {
        rps: median(rs.map((x) => x.wrk.rps)),
        p99: median(rs.map((x) => x.wrk.p99us)),
        avg: median(rs.map((x) => x.wrk.avgUs)),
        cpu: median(rs.map((x) => x.cpuUsPerReq)),
        errors: [...new Set(rs.map((x) => x.wrk.errors).filter((e) => e !== ''))].join('; '),
        load: median(rs.map((x) => x.serverLoad)),
        wrkLoad: median(rs.map((x) => x.wrk.wrkCpu / x.wrk.seconds)),
        other: Math.max(...rs.map((x) => x.otherLoad)),
      };
    };
    console.log('');
    console.log(
      `| server | workload | req/s | p99 latency | avg latency | server CPU / req | server CPU use | wrk CPU use | other processes | errors |`,
    );
    console.log(`|---|---|---:|---:|---:|---:|---:|---:|---:|---|`);
    for (const mode of MODES) {
      for (const kind of only) {
        const a = agg(kind, mode);
        if (a === null) continue;
        const pct = (x: number): string => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : 'n/a');
        console.log(
          `| ${LABEL[kind]} | ${mode} | ${Math.round(a.rps).toLocaleString('en-US')} | ${fmtUs(a.p99)} | ${fmtUs(a.avg)} | ${a.cpu.toFixed(2)} µs | ${pct(a.load)} | ${pct(a.wrkLoad)} | ${pct(a.other)} | ${a.errors || '-'} |`,
        );
      }
    }
    const e = (m: Mode): ReturnType<typeof agg> => agg('eventide', m);
    const n = (m: Mode): ReturnType<typeof agg> => agg('node', m);
    const ek = e('keep-alive');
    const nk = n('keep-alive');
    const ep = e('pipelined');
    const np = n('pipelined');
    const rk = agg('raw', 'keep-alive');
    const rp = agg('raw', 'pipelined');
    const mark = (ok: boolean): string => (ok ? 'met' : 'MISSED');
    if (ek !== null && ep !== null && rk !== null && rp !== null) {
      const xk = ek.rps / rk.rps;
      const xp = ep.rps / rp.rps;
      console.log('');
      console.log('EventHttp / raw node:net (the upper bound of a JavaScript server on Node):');
      console.log(
        `  keep-alive req/s   ${xk.toFixed(2)}x   (target >= ${TARGET.keepAlive}x: ${mark(xk >= TARGET.keepAlive)})`,
      );
      console.log(
        `  pipelined req/s    ${xp.toFixed(2)}x   (target >= ${TARGET.pipelined}x: ${mark(xp >= TARGET.pipelined)})`,
      );
      console.log(
        `  CPU per request    keep-alive ${fmtCpu(ek.cpu)} vs ${fmtCpu(rk.cpu)}, pipelined ${fmtCpu(ep.cpu)} vs ${fmtCpu(rp.cpu)}`,
      );
    }
    const lk = agg('lent', 'keep-alive');
    const lp = agg('lent', 'pipelined');
    if (ek !== null && ep !== null && lk !== null && lp !== null) {
      console.log('EventHttp / raw node:net reading with onread (the read path EventHttp uses; a reference):');
      console.log(
        `  req/s              keep-alive ${(ek.rps / lk.rps).toFixed(2)}x, pipelined ${(ep.rps / lp.rps).toFixed(2)}x (no target)`,
      );
    }
    if (ek !== null && nk !== null && ep !== null && np !== null) {
      console.log('EventHttp / node:http:');
      console.log(
        `  req/s              keep-alive ${(ek.rps / nk.rps).toFixed(2)}x, pipelined ${(ep.rps / np.rps).toFixed(2)}x (no target)`,
      );
      console.log(
        process.argv.includes('--no-rate')
          ? `  keep-alive p99     ${fmtUs(ek.p99)} vs ${fmtUs(nk.p99)}   (target: lower: ${mark(ek.p99 < nk.p99)})`
          : `  keep-alive p99     ${fmtUs(ek.p99)} vs ${fmtUs(nk.p99)}   (closed loop, each at its own maximum; the target is judged at an equal load, below)`,
      );
      console.log(
        `  pipelined p99      ${fmtUs(ep.p99)} vs ${fmtUs(np.p99)}   (target: lower: ${mark(ep.p99 < np.p99)})`,
      );
      console.log(
        `  CPU per request    keep-alive ${(ek.cpu / nk.cpu).toFixed(2)}x, pipelined ${(ep.cpu / np.cpu).toFixed(2)}x (lower is better)`,
      );
    }
    // Latency at an equal offered load: each server gets the same requests per second.
    const rateBin = nk !== null && ek !== null && !process.argv.includes('--no-rate') ? compileRateClient(dir) : null;
    const rate =
      nk === null
        ? Number.NaN
        : Number(argValue('--rate') ?? equalLoadRate(nk.rps, Number(argValue('--rate-fraction') ?? RATE_FRACTION)));
    const rateRows: RateRow[] = [];
    if (rateBin !== null) {
      process.stderr.write(`equal load: ${rate.toLocaleString('en-US')} req/s offered to each server\n`);
      for (let r = 0; r < rounds; r++) {
        const order: Kind[] = r % 2 === 0 ? ['eventide', 'node'] : ['node', 'eventide'];
        for (const kind of order) rateRows.push(await measureAtRate(env, kind, rateBin, rate));
      }
    } else if (nk !== null && ek !== null && !process.argv.includes('--no-rate')) {
      console.log('\n(no C compiler: the equal-load latency run was skipped)');
    }
    const rateAgg = (kind: Kind): (RateResult & { load: number }) | null => {
      const rs = rateRows.filter((x) => x.kind === kind);
      if (rs.length === 0) return null;
      const m = (f: (x: RateRow) => number): number => median(rs.map(f));
      return {
        offered: rate,
        requests: m((x) => x.result.requests),
        seconds: m((x) => x.result.seconds),
        achieved: m((x) => x.result.achieved),
        p50: m((x) => x.result.p50),
        p90: m((x) => x.result.p90),
        p99: m((x) => x.result.p99),
        p999: m((x) => x.result.p999),
        max: m((x) => x.result.max),
        overOneSecond: Math.max(...rs.map((x) => x.result.overOneSecond)),
        lateSends: Math.max(...rs.map((x) => x.result.lateSends)),
        load: m((x) => x.serverLoad),
      };
    };
    const er = rateAgg('eventide');
    const nr = rateAgg('node');
    const rateNotes: string[] = [];
    if (er !== null && nr !== null && nk !== null) {
      console.log('');
      console.log(
        `Keep-alive at an equal offered load: ${rate.toLocaleString('en-US')} req/s to each server (${((rate / nk.rps) * 100).toFixed(0)}% of node:http's maximum above), ${env.connections} connections, one request in flight on each; latency from the moment each request was due (bench/http-rate.c)`,
      );
      console.log('| server | answered req/s | p50 | p90 | p99 | p99.9 | max | server CPU use | late sends |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const [kind, a] of [
        ['eventide', er],
        ['node', nr],
      ] as const)
        console.log(
          `| ${LABEL[kind]} | ${Math.round(a.achieved).toLocaleString('en-US')} | ${fmtUs(a.p50)} | ${fmtUs(a.p90)} | ${fmtUs(a.p99)} | ${fmtUs(a.p999)} | ${fmtUs(a.max)} | ${Math.round(a.load * 100)}% | ${a.lateSends} |`,
        );
      console.log(
        `  keep-alive p99 at equal load   ${fmtUs(er.p99)} vs ${fmtUs(nr.p99)}   (target: lower: ${mark(er.p99 < nr.p99)})`,
      );
      const ev = rateRows.filter((x) => x.kind === 'eventide').map((x) => x.result.p99);
      const nd = rateRows.filter((x) => x.kind === 'node').map((x) => x.result.p99);
      if (ev.length > 1) {
        const lower = ev.filter((v, i) => v < (nd[i] as number)).length;
        const line = `keep-alive p99 at ${rate.toLocaleString('en-US')} req/s by round: ${LABEL.eventide} ${ev.map(fmtUs).join(' / ')}, ${LABEL.node} ${nd.map(fmtUs).join(' / ')} (${LABEL.eventide} lower in ${lower} of ${ev.length})`;
        console.log(`  ${line}`);
        rateNotes.push(line);
      }
      rateNotes.push(
        `equal load: ${rate.toLocaleString('en-US')} req/s to each server (${((rate / nk.rps) * 100).toFixed(0)}% of node:http's maximum), bench/http-rate.c, ${env.connections} connections, ${duration} s; CPU use ${Math.round(er.load * 100)}% / ${Math.round(nr.load * 100)}%`,
      );
    }
    const results: WorkloadResult[] = [];
    for (const mode of MODES) {
      const ev = agg('eventide', mode);
      if (ev === null) continue;
      const peers = (['node', 'raw', 'lent'] as Kind[]).flatMap((k) => {
        const a = agg(k, mode);
        return a === null ? [] : [{ name: LABEL[k], value: a.rps }];
      });
      const target = {
        peer: LABEL.raw,
        op: '>=' as const,
        value: mode === 'keep-alive' ? TARGET.keepAlive : TARGET.pipelined,
      };
      results.push(workload(`${mode} req/s`, 'req/s', ev.rps, peers, target));
      const cpuPeers = (['raw', 'lent', 'node'] as Kind[]).flatMap((k) => {
        const a = agg(k, mode);
        return a === null ? [] : [{ name: LABEL[k], value: a.cpu }];
      });
      results.push(workload(`${mode} server CPU per request`, 'µs', ev.cpu, cpuPeers, null, false));
      const np99 = agg('node', mode);
      // keep-alive: the target is judged at an equal load when that run was made (see the module comment)
      const closedLoopTarget = mode === 'pipelined' || er === null;
      if (np99 !== null)
        results.push(
          workload(
            mode === 'keep-alive' ? 'keep-alive p99, closed loop' : `${mode} p99 latency`,
            'µs',
            ev.p99,
            [{ name: LABEL.node, value: np99.p99 }],
            closedLoopTarget ? { peer: LABEL.node, op: '<=', value: 1 } : null,
            false,
          ),
        );
      if (mode === 'keep-alive' && er !== null && nr !== null)
        results.push(
          workload(
            'keep-alive p99 at equal load',
            'µs',
            er.p99,
            [{ name: LABEL.node, value: nr.p99 }],
            { peer: LABEL.node, op: '<=', value: 1 },
            false,
          ),
        );
    }
    // The p99 of a closed-loop run moves with the rare stalls of the server's core (see bench/README):
    // each round's figures, paired, show whether a difference is more than that noise.
    const p99Rounds = (mode: Mode): string | null => {
      const ev = rows.filter((x) => x.kind === 'eventide' && x.mode === mode).map((x) => x.wrk.p99us);
      const nd = rows.filter((x) => x.kind === 'node' && x.mode === mode).map((x) => x.wrk.p99us);
      if (ev.length < 2 || ev.length !== nd.length) return null;
      const lower = ev.filter((v, i) => v < (nd[i] as number)).length;
      return `${mode} p99 by round: ${LABEL.eventide} ${ev.map(fmtUs).join(' / ')}, ${LABEL.node} ${nd.map(fmtUs).join(' / ')} (${LABEL.eventide} lower in ${lower} of ${ev.length})`;
    };
    const byRound = MODES.map(p99Rounds).filter((x): x is string => x !== null);
    if (byRound.length > 0) console.log(`\n${byRound.join('\n')}`);
    const worst = Math.max(...rows.map((x) => x.otherLoad));
    if (worst > 0.1)
      console.log(
        `\nWARNING: other processes used up to ${Math.round(worst * 100)}% of a CPU during a measurement: the figures are disturbed (a server or wrk sharing its core); run again on an idle machine.`,
      );
    if (rounds === 1)
      console.log('\n(one round: figures drift from run to run; compare only numbers from the same run)');
    writeResults('http', {
      pinned: pin,
      placement: pin ? 'servers on CPU 0, wrk on CPU 1 (taskset)' : 'not pinned (taskset missing or < 2 CPUs)',
      workloads: results,
      notes: [
        `wrk -t1 -c${env.connections} -d${duration}s, medians of ${rounds} round(s)`,
        ...byRound,
        ...rateNotes,
        ...(worst > 0.1 ? [`disturbed: other processes used up to ${Math.round(worst * 100)}% of a CPU`] : []),
      ],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === SELF;

if (isMain) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

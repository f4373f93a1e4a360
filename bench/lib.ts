/**
 * What the benchmark scripts share: command-line flags, tool checks, CPU
 * accounting from /proc, running wrk and parsing its output, taskset
 * pinning, and the results file every benchmark writes (`writeResults`:
 * bench/results/NAME.json, or `--json FILE`, or nothing with `--no-json`).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The value after `--name` on the command line, or undefined. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Whether a command can be started. */
export function have(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).error === undefined;
}

/** Clock ticks per second of /proc figures. */
export function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** utime + stime of a process in seconds (Linux /proc), or NaN. */
export function cpuSeconds(pid: number, tck: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state is index 0, so utime (field 14) is index 11 and stime (15) index 12.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / tck;
  } catch {
    return Number.NaN;
  }
}

/** Busy time of the whole machine in seconds (all CPUs, /proc/stat), or NaN. */
export function machineBusySeconds(tck: number): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user): busy = all but idle and iowait
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return (total - (f[3] ?? 0) - (f[4] ?? 0)) / tck;
  } catch {
    return Number.NaN;
  }
}

/** A wrk duration (`250.3us`, `1.2ms`, `3s`, `1m`) in microseconds, or NaN. */
export function toMicros(v: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v.trim());
  if (m === null) return Number.NaN;
  const x = Number(m[1]);
  return m[2] === 'us' ? x : m[2] === 'ms' ? x * 1e3 : m[2] === 's' ? x * 1e6 : x * 60e6;
}

/** Requests and seconds of a wrk run, and its error lines (socket errors, non-2xx). */
export function parseWrkTotals(out: string): { requests: number; seconds: number; rps: number; errors: string } {
  const req = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(out);
  if (req === null) throw new Error(`cannot parse wrk output:\n${out}`);
  const errs: string[] = [];
  const sock = /Socket errors: (.*)/.exec(out);
  if (sock !== null) errs.push(`socket errors: ${sock[1]}`);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx !== null) errs.push(`non-2xx: ${non2xx[1]}`);
  const requests = Number(req[1]);
  const seconds = toMicros(`${req[2]}${req[3]}`) / 1e6;
  return { requests, seconds, rps: requests / seconds, errors: errs.join('; ') };
}

/** Compiles one C file (`-O2`) into `out` with the first of cc, gcc and clang that works; null without one. */
export function compileC(source: string, out: string): string | null {
  for (const cc of ['cc', 'gcc', 'clang']) {
    try {
      execFileSync(cc, ['-O2', '-o', out, source], { stdio: 'pipe', timeout: 60000 });
      return out;
    } catch {
      // next compiler
    }
  }
  return null;
}

/** The median (NaN for no values). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0
    ? Number.NaN
    : s.length % 2 === 1
      ? (s[m] as number)
      : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** The command line that runs `cmd` on CPU `cpu` through taskset (when `pin`). */
export function pinned(pin: boolean, cpu: number, cmd: string, args: string[]): [string, string[]] {
  return pin ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args];
}

/**
 * Runs wrk (`args` end with the URL) on CPU 1 when `pin`, killed if it outlives
 * `seconds` by 30 s. Returns its output and its own CPU seconds (the last
 * /proc sample before it exited: it prints its report at the very end).
 * `onSpawn` sees the child first (to stop it on Ctrl-C, say).
 */
export async function runWrkProcess(
  pin: boolean,
  tck: number,
  args: string[],
  seconds: number,
  onSpawn?: (child: ChildProcess) => void,
): Promise<{ out: string; wrkCpu: number }> {
  const [cmd, full] = pinned(pin, 1, 'wrk', args);
  const child = spawn(cmd, full, { stdio: ['ignore', 'pipe', 'pipe'] });
  onSpawn?.(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
  let wrkCpu = Number.NaN;
  const sample = setInterval(() => {
    const c = cpuSeconds(child.pid as number, tck);
    if (Number.isFinite(c)) wrkCpu = c;
  }, 100);
  const [code] = (await once(child, 'close')) as [number | null];
  clearInterval(sample);
  clearTimeout(killer);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${err}${out}`);
  return { out, wrkCpu };
}

// ================================================================== results

/** One peer's figure for a workload, and eventide's figure divided by it. */
export interface PeerResult {
  /** The peer's name, e.g. `node:http` or `Django REST framework`. */
  name: string;
  /** The peer's figure, in the workload's unit. */
  value: number;
  /** eventide's figure / the peer's figure. */
  ratio: number;
}

/** The target of a workload: `ratio op value` against the named peer. */
export interface Target {
  peer: string;
  op: '>=' | '<=';
  value: number;
  /** As printed, e.g. `>= 1.4x`. */
  text: string;
}

/** One workload of a benchmark run. */
export interface WorkloadResult {
  name: string;
  /** The unit of the figures (`req/s`, `MB/s`, `µs`, ...). */
  unit: string;
  /** Whether a larger figure is better (rates) or worse (latencies). */
  higherIsBetter: boolean;
  eventide: number;
  peers: PeerResult[];
  target: Target | null;
  /** Whether the target was met (null: no target). */
  met: boolean | null;
}

/** What a benchmark writes to bench/results/NAME.json (or `--json FILE`). */
export interface BenchResults {
  schema: 1;
  benchmark: string;
  /** ISO 8601, when the run ended. */
  date: string;
  node: string;
  cpus: { count: number; model: string };
  /** Whether the processes were pinned to CPUs with taskset. */
  pinned: boolean;
  /** How: e.g. `servers on CPU 0, wrk on CPU 1 (taskset)`, or why not. */
  placement: string;
  /** The command line as run, from the repository root. */
  command: string;
  workloads: WorkloadResult[];
  notes?: string[];
}

const BENCH_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The default results file of a benchmark: bench/results/NAME.json. */
export function resultsFile(name: string): string {
  return join(BENCH_ROOT, 'bench', 'results', `${name}.json`);
}

/** The command line of this process as one would type it: `npx tsx bench/x.ts --flags`. */
export function commandLine(): string {
  const script = process.argv[1] === undefined ? '?' : relative(BENCH_ROOT, resolve(process.argv[1]));
  const quote = (a: string): string => (/^[\w./:,=@%+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['npx', 'tsx', script, ...process.argv.slice(2)].map(quote).join(' ');
}

/**
 * A workload result: ratios eventide / peer for every peer, and whether the
 * target (against `target.peer`) holds. Non-finite figures are kept as null
 * in the JSON (JSON.stringify), and then the target counts as missed.
 */
export function workload(
  name: string,
  unit: string,
  eventide: number,
  peers: { name: string; value: number }[],
  target: { peer: string; op: '>=' | '<='; value: number } | null,
  higherIsBetter = true,
): WorkloadResult {
  const ps = peers.map((p) => ({ name: p.name, value: p.value, ratio: eventide / p.value }));
  let met: boolean | null = null;
  let t: Target | null = null;
  if (target !== null) {
    t = { ...target, text: `${target.op} ${target.value}x` };
    const r = ps.find((p) => p.name === target.peer)?.ratio ?? Number.NaN;
    met = Number.isFinite(r) && (target.op === '>=' ? r >= target.value : r <= target.value);
  }
  return { name, unit, higherIsBetter, eventide, peers: ps, target: t, met };
}

/**
 * Writes a benchmark's results as JSON to `--json FILE` or else
 * bench/results/NAME.json (`--no-json`: nothing), and says where.
 */
export function writeResults(
  name: string,
  run: { pinned: boolean; placement: string; workloads: WorkloadResult[]; notes?: string[] },
): string | null {
  if (process.argv.includes('--no-json')) return null;
  const file = resolve(argValue('--json') ?? resultsFile(name));
  const cpuList = cpus();
  const out: BenchResults = {
    schema: 1,
    benchmark: name,
    date: new Date().toISOString(),
    node: process.version,
    cpus: { count: cpuList.length, model: cpuList[0]?.model.trim() ?? 'unknown' },
    pinned: run.pinned,
    placement: run.placement,
    command: commandLine(),
    workloads: run.workloads,
    ...(run.notes !== undefined && run.notes.length > 0 ? { notes: run.notes } : {}),
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\nresults written to ${relative(process.cwd(), file) || file}`);
  return file;
}

/** Where {@link buildForBench} puts the compiled sources (git-ignored). */
export const BENCH_DIST = join(BENCH_ROOT, '.tmp', 'bench-dist');

/**
 * Compiles `src/`, `examples/` and `bench/peers/` with tsc, the project's compiler settings,
 * into {@link BENCH_DIST} (JavaScript only: no declarations, no source maps),
 * so that benchmarks measure the code as the package ships it (`npm run
 * build`) and not the sources run through tsx (whose esbuild transform keeps
 * function names with a `__name()` call per named closure: slower and about
 * 250 bytes more per closure). Returns the directory; `src/X.ts` becomes
 * `BENCH_DIST/src/X.js`. Takes a few seconds; throws with tsc's output when
 * it fails.
 */
export function buildForBench(): string {
  const dir = BENCH_DIST;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: { noEmit: false, rootDir: '../..', outDir: '.', declaration: false, sourceMap: false },
      include: ['../../src', '../../examples', '../../bench/peers'],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [join(BENCH_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config],
    {
      cwd: BENCH_ROOT,
      encoding: 'utf8',
    },
  );
  if (tsc.status !== 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  return dir;
}

/** `--tsx`: run the TypeScript sources through tsx instead of a tsc build (for profiles that map to the sources). */
export function useTsx(): boolean {
  return process.argv.includes('--tsx');
}

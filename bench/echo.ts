/**
 * TCP echo: the eventide echo server (examples/echo-server.ts) against a
 * `node:net` server doing `socket.pipe(socket)`, measured in the same run by
 * the same load client.
 *
 *   npx tsx bench/echo.ts                 (about 1.5 minutes on a 2-core machine)
 *   npx tsx bench/echo.ts --quick         (1 round, 256 MiB streams, 2 s ping-pong)
 *   npx tsx bench/echo.ts --rounds 5      (more rounds; medians are reported)
 *   npx tsx bench/echo.ts --profile       (eventide server only, under
 *                                          `node --cpu-prof`; prints where its time goes)
 *   npx tsx bench/echo.ts --node-client   (use the Node.js load client even if a C compiler exists)
 *   npx tsx bench/echo.ts --tsx           (run both servers' TypeScript sources through tsx instead
 *                                          of the tsc build in .tmp/bench-dist that is made at the start)
 *
 * Servers: examples/echo-server.ts and bench/peers/echo-net.ts (the peer),
 * both from the tsc build made at the start (`--tsx`: both through tsx), so
 * neither carries tsx's module loader thread.
 *
 * Placement: each server runs in its own child process pinned to CPU 0
 * (`taskset -c 0`), the load client in another child process pinned to
 * CPU 1 (`taskset -c 1`); without taskset or with fewer than 2 CPUs nothing
 * is pinned (the report says so). Only 127.0.0.1 is used.
 *
 * The load client is bench/echo-client.c, compiled at run time with cc/gcc
 * into a temporary directory (removed at the end); without a compiler, a
 * Node.js client (this file, `--role client`) is used instead. Both servers
 * always face the same client.
 *
 * Workloads:
 * 1. stream 1 GiB in 64 KiB writes over 1 connection: the client writes and
 *    reads concurrently (at most 4 MiB in flight per connection), checks
 *    every byte (C client) and the byte count; MB/s = 10^6 bytes echoed / s.
 * 2. the same over 50 connections (1 GiB in total).
 * 3. ping-pong of 64-byte messages over 50 connections for 5 s: round trips/s.
 *
 * Each server gets a warm-up (a 256 MiB stream and 1 s of ping-pong), then
 * `rounds` rounds (default 3) run every workload on both servers, the order
 * of the servers alternating between rounds; the table shows medians, the
 * servers' CPU time per unit of work (from /proc/PID/stat), and the ratio
 * eventide / node:net against the targets (>= 0.9 streaming, >= 1.0
 * ping-pong: issue 16). Every loop is bounded in count and time.
 *
 * The results (medians, ratios, targets, the machine and the command) are
 * also written to bench/results/echo.json (`--json FILE` elsewhere,
 * `--no-json` not at all); `npm run bench:report` draws them.
 */
import {
  argValue,
  buildForBench,
  compileC,
  median,
  useTsx,
  workload,
  writeResults,
  type WorkloadResult,
} from './lib.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const HOST = '127.0.0.1';
const MiB = 1 << 20;
const GiB = 1 << 30;

interface ClientResult {
  ok: boolean;
  mode?: string;
  bytes?: number;
  roundtrips?: number;
  seconds?: number;
  error?: string;
}

// ====================================================================== roles

/** Node.js load client, same arguments and output as bench/echo-client.c (byte count checked, not contents). */
async function nodeClient(a: string[]): Promise<ClientResult> {
  const [mode, host = HOST, portS, connsS, p5, p6, timeoutS] = a;
  const port = Number(portS);
  const conns = Number(connsS);
  const timeoutMs = Number(timeoutS) * 1000;
  const sockets: Socket[] = [];
  for (let i = 0; i < conns; i++) {
    const s = connect({ host, port, noDelay: true });
    s.on('error', () => {});
    sockets.push(s);
  }
  await Promise.all(sockets.map((s) => once(s, 'connect')));
  const t0 = performance.now();
  let watchdog: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    watchdog = setTimeout(() => reject(new Error('timeout')), timeoutMs);
  });
  try {
    if (mode === 'stream') {
      const total = Number(p5);
      const wsize = Number(p6);
      const chunk = Buffer.alloc(wsize, 0x61);
      const WINDOW = 4 * MiB;
      const one = (s: Socket, target: number): Promise<number> =>
        new Promise((resolve, reject) => {
          let sent = 0;
          let recvd = 0;
          const pump = (): void => {
            while (sent < target && sent - recvd < WINDOW) {
              const n = Math.min(wsize, target - sent);
              sent += n;
              if (!s.write(n === wsize ? chunk : chunk.subarray(0, n))) {
                s.once('drain', pump);
                return;
              }
            }
            if (sent === target) s.end();
          };
          s.on('data', (d: Buffer) => {
            const wasFull = sent - recvd >= WINDOW;
            recvd += d.length;
            if (recvd > target) reject(new Error('received more bytes than sent'));
            else if (recvd === target) resolve(recvd);
            else if (wasFull && sent - recvd < WINDOW) pump();
          });
          s.once('close', () => (recvd === target ? resolve(recvd) : reject(new Error('connection closed early'))));
          pump();
        });
      const shares = sockets.map((_, i) => Math.floor(total / conns) + (i < total % conns ? 1 : 0));
      const got = (
        await Promise.race([Promise.all(sockets.map((s, i) => one(s, shares[i] as number))), timeout])
      ).reduce((x, y) => x + y, 0);
      if (got !== total) throw new Error('byte count mismatch');
      return { ok: true, mode, bytes: got, seconds: (performance.now() - t0) / 1000 };
    }
    const msize = Number(p5);
    const durationMs = Number(p6) * 1000;
    let rts = 0;
    const one = (s: Socket, id: number): Promise<void> =>
      new Promise((resolve, reject) => {
        let seq = 0;
        let msg = Buffer.alloc(msize, (id * 7) & 0xff);
        let got = 0;
        s.on('data', (d: Buffer) => {
          if (!d.equals(msg.subarray(got, got + d.length))) reject(new Error('echoed message differs'));
          got += d.length;
          if (got < msize) return;
          got = 0;
          rts++;
          if (performance.now() - t0 >= durationMs) {
            s.destroy();
            resolve();
            return;
          }
          seq++;
          msg = Buffer.alloc(msize, (seq * 31 + id * 7) & 0xff);
          s.write(msg);
        });
        s.write(msg);
      });
    await Promise.race([Promise.all(sockets.map(one)), timeout]);
    return { ok: true, mode, roundtrips: rts, seconds: (performance.now() - t0) / 1000 };
  } finally {
    clearTimeout(watchdog);
    for (const s of sockets) s.destroy();
  }
}

// ====================================================================== driver

interface Server {
  name: 'eventide' | 'node:net';
  port: number;
  child: ChildProcess;
}

interface Workload {
  key: string;
  label: (quick: boolean) => string;
  unit: string;
  /** Client arguments after the mode/host/port. */
  args: (quick: boolean) => string[];
  mode: 'stream' | 'pingpong';
  target: number;
  /** Work units of a result (MB for streams, round trips for ping-pong). */
  units: (r: ClientResult) => number;
  /** The rate shown: MB/s or round trips/s. */
  rate: (r: ClientResult) => number;
  cpuUnit: string;
}

const WORKLOADS: Workload[] = [
  {
    key: 'stream1',
    label: (q) => `stream ${q ? '256 MiB' : '1 GiB'}, 64 KiB writes, 1 conn`,
    unit: 'MB/s',
    mode: 'stream',
    args: (q) => ['1', String(q ? 256 * MiB : GiB), String(64 * 1024), '120'],
    target: 0.9,
    units: (r) => (r.bytes ?? 0) / 1e6,
    rate: (r) => (r.bytes ?? 0) / 1e6 / (r.seconds ?? 1),
    cpuUnit: 'µs/MB',
  },
  {
    key: 'stream50',
    label: (q) => `stream ${q ? '256 MiB' : '1 GiB'}, 64 KiB writes, 50 conns`,
    unit: 'MB/s',
    mode: 'stream',
    args: (q) => ['50', String(q ? 256 * MiB : GiB), String(64 * 1024), '120'],
    target: 0.9,
    units: (r) => (r.bytes ?? 0) / 1e6,
    rate: (r) => (r.bytes ?? 0) / 1e6 / (r.seconds ?? 1),
    cpuUnit: 'µs/MB',
  },
  {
    key: 'pingpong',
    label: (q) => `ping-pong 64 B, 50 conns, ${q ? 2 : 5} s`,
    unit: 'rt/s',
    mode: 'pingpong',
    args: (q) => ['50', '64', q ? '2' : '5', '60'],
    target: 1.0,
    units: (r) => r.roundtrips ?? 0,
    rate: (r) => (r.roundtrips ?? 0) / (r.seconds ?? 1),
    cpuUnit: 'µs/rt',
  },
];

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

const PIN = availableParallelism() >= 2 && hasTaskset();

/** The command for a process pinned to `cpu` (or not pinned). */
function pinned(cpu: number, cmd: string, args: string[]): [string, string[]] {
  return PIN ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args];
}

async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, HOST);
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  srv.close();
  await once(srv, 'close');
  return port;
}

/** Starts a server child and waits (at most 30 s) for its "Listening on" line. */
async function startServer(name: Server['name'], nodeArgs: string[], dist: string | null): Promise<Server> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    // eventide: the example compiled by tsc (`dist`), or its source through tsx (`--tsx`)
    const script =
      name === 'eventide'
        ? dist !== null
          ? [join(dist, 'examples', 'echo-server.js'), String(port), '--host', '127.0.0.1']
          : ['--import', 'tsx', 'examples/echo-server.ts', String(port), '--host', '127.0.0.1']
        : dist !== null
          ? [join(dist, 'bench', 'peers', 'echo-net.js'), String(port)]
          : ['--import', 'tsx', 'bench/peers/echo-net.ts', String(port)];
    const [cmd, args] = pinned(0, process.execPath, [...nodeArgs, ...script]);
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const ok = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 30000);
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        if (/Listening on/.test(err)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ok) return { name, port, child };
    if (child.exitCode === null) child.kill('SIGKILL');
    if (!/EADDRINUSE/.test(err)) throw new Error(`${name} server did not start: ${err}`);
  }
  throw new Error(`${name} server: no free port`);
}

async function stopServer(s: Server): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = once(s.child, 'exit');
  s.child.kill('SIGTERM');
  const t = setTimeout(() => s.child.kill('SIGKILL'), 15000);
  await exited;
  clearTimeout(t);
}

/** CPU seconds (user + system) used so far by a process, or NaN when /proc is not there. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

/** Runs the load client once (pinned to CPU 1), at most `limitMs`. */
function runClient(
  client: string[],
  mode: string,
  port: number,
  rest: string[],
  limitMs: number,
): Promise<ClientResult> {
  const [cmd, args] = pinned(1, client[0] as string, [...client.slice(1), mode, HOST, String(port), ...rest]);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as ClientResult);
      } catch {
        resolve({ ok: false, error: `client failed: ${out} ${err}`.trim() });
      }
    });
  });
}

/** Compiles the C client into `dir`; null without a compiler. */
function compileClient(dir: string): string | null {
  return compileC(join(ROOT, 'bench', 'echo-client.c'), join(dir, 'echo-client'));
}

function fmt(n: number, digits = 0): string {
  return Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '-';
}

/** Top self-time functions of a .cpuprofile. */
function summarizeProfile(file: string, top = 30): string {
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
  }
  const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[] };
  const byKey = new Map<string, number>();
  let total = 0;
  for (const n of prof.nodes) {
    const hits = n.hitCount ?? 0;
    total += hits;
    const url = n.callFrame.url.replace(/^file:\/\//, '').replace(ROOT, '');
    const key = `${n.callFrame.functionName || '(anonymous)'}  ${url}${url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
    byKey.set(key, (byKey.get(key) ?? 0) + hits);
  }
  const rows = [...byKey.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return rows.map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const profile = process.argv.includes('--profile');
  const rounds = Math.max(1, Math.min(20, Number(argValue('--rounds') ?? (quick ? 1 : 3)) || 3));
  const tmp = mkdtempSync(join(tmpdir(), 'eventide-bench-'));
  const servers: Server[] = [];
  try {
    const compiled = process.argv.includes('--node-client') ? null : compileClient(tmp);
    const client =
      compiled !== null
        ? [compiled]
        : [process.execPath, '--import', 'tsx', join(ROOT, 'bench', 'echo.ts'), '--role', 'client'];
    const profDir = join(tmp, 'prof');
    const evArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
    const dist = useTsx() ? null : buildForBench();
    servers.push(await startServer('eventide', evArgs, dist));
    if (!profile) servers.push(await startServer('node:net', [], null));

    console.log(
      `TCP echo, ${HOST}; node ${process.version}; ${availableParallelism()} CPUs; ` +
        (PIN ? 'servers pinned to CPU 0, client to CPU 1' : 'NOT pinned (taskset missing or < 2 CPUs)'),
    );
    console.log(
      `load client: ${compiled !== null ? 'bench/echo-client.c (compiled now, epoll)' : 'Node.js (--role client)'}; rounds: ${rounds}${quick ? ' (quick)' : ''}${profile ? '; eventide under --cpu-prof' : ''}\n`,
    );

    const run = async (s: Server, w: Workload, rest: string[]): Promise<{ r: ClientResult; cpu: number }> => {
      const c0 = cpuSeconds(s.child.pid);
      const r = await runClient(client, w.mode, s.port, rest, 180000);
      const cpu = cpuSeconds(s.child.pid) - c0;
      if (!r.ok) throw new Error(`${s.name} / ${w.label(quick)}: ${r.error ?? 'failed'}`);
      return { r, cpu };
    };

    // Warm-up (JIT, buffers) on every server.
    for (const s of servers) {
      await run(s, WORKLOADS[0] as Workload, ['1', String(256 * MiB), String(64 * 1024), '120']);
      await run(s, WORKLOADS[2] as Workload, ['50', '64', '1', '60']);
    }

    const rates = new Map<string, number[]>();
    const cpus = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      for (const w of WORKLOADS) {
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const s of order) {
          const { r, cpu } = await run(s, w, w.args(quick));
          const k = `${w.key}|${s.name}`;
          (rates.get(k) ?? rates.set(k, []).get(k)!).push(w.rate(r));
          (cpus.get(k) ?? cpus.set(k, []).get(k)!).push((cpu * 1e6) / w.units(r));
          process.stderr.write(
            `  round ${round + 1}: ${w.label(quick).padEnd(40)} ${s.name.padEnd(9)} ${fmt(w.rate(r)).padStart(10)} ${w.unit}\n`,
          );
        }
      }
    }

    const head = ['workload', 'eventide', 'node:net', 'ratio', 'target', '', 'server CPU eventide / node:net'];
    const rows: string[][] = [];
    const verdicts: boolean[] = [];
    const results: WorkloadResult[] = [];
    for (const w of WORKLOADS) {
      const ev = median(rates.get(`${w.key}|eventide`) ?? []);
      const nn = median(rates.get(`${w.key}|node:net`) ?? []);
      const ratio = ev / nn;
      const ok = ratio >= w.target;
      if (!profile) verdicts.push(ok);
      results.push(
        workload(w.label(quick), w.unit, ev, [{ name: 'node:net', value: nn }], {
          peer: 'node:net',
          op: '>=',
          value: w.target,
        }),
      );
      const ce = median(cpus.get(`${w.key}|eventide`) ?? []);
      const cn = median(cpus.get(`${w.key}|node:net`) ?? []);
      rows.push([
        w.label(quick),
        `${fmt(ev)} ${w.unit}`,
        profile ? '-' : `${fmt(nn)} ${w.unit}`,
        profile ? '-' : `${ratio.toFixed(2)}x`,
        `>= ${w.target}x`,
        profile ? '' : ok ? 'ok' : 'MISSED',
        `${fmt(ce, 1)} / ${profile ? '-' : fmt(cn, 1)} ${w.cpuUnit}`,
      ]);
    }
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
    const line = (r: string[]): string =>
      r
        .map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
        .join('  ');
    console.log(line(head));
    console.log(widths.map((n) => '-'.repeat(n)).join('  '));
    for (const r of rows) console.log(line(r));
    console.log(
      `\nmedians of ${rounds} round(s); MB = 10^6 bytes echoed; CPU = user+system time of the server process per unit`,
    );
    if (!profile) console.log(verdicts.every(Boolean) ? 'all targets met' : 'some targets MISSED');
    if (!profile)
      writeResults('echo', {
        pinned: PIN,
        placement: PIN
          ? 'servers on CPU 0, load client on CPU 1 (taskset)'
          : 'not pinned (taskset missing or < 2 CPUs)',
        workloads: results,
        notes: [`medians of ${rounds} round(s)`],
      });

    if (profile) {
      await stopServer(servers[0] as Server);
      const files = existsSync(profDir) ? readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')) : [];
      if (files.length === 0) console.log('\nno profile written');
      else {
        console.log(`\neventide server, self time (top functions, ${files[0]}):`);
        console.log(summarizeProfile(join(profDir, files[0] as string)));
      }
    }
  } finally {
    for (const s of servers) await stopServer(s);
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ====================================================================== entry

const role = argValue('--role');
if (role === 'client') {
  const a = process.argv.slice(process.argv.indexOf('--role') + 2);
  nodeClient(a).then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (e: unknown) => {
      process.stdout.write(`${JSON.stringify({ ok: false, error: e instanceof Error ? e.message : String(e) })}\n`);
      process.exitCode = 1;
    },
  );
} else {
  await main();
}

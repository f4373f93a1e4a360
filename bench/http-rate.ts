/**
 * Latency at a fixed offered load: the constant-rate client
 * (bench/http-rate.c, compiled at run time) and what bench/http.ts needs to
 * run it.
 *
 * A closed-loop run (wrk) measures each server at its own maximum rate, so
 * two servers' latencies there come from different loads, and its p99 is
 * set by the few-millisecond stalls every process on the core sees (see
 * bench/README, "What the keep-alive p99 measures"). The client here offers
 * the same requests per second to each server, due on a fixed schedule, and
 * measures every request from the moment it was due: the latency a user of
 * a server with that much traffic sees.
 *
 * Run by itself, it checks the client on this machine (timings are a
 * benchmark's printed verdict, not a test's assertion; the test,
 * test/bench/http-rate.test.ts, checks counts and errors):
 *
 *   npx tsx bench/http-rate.ts                 (2,000 req/s over 8 connections for 2 s to a node:http hello world)
 *   npx tsx bench/http-rate.ts --rate 20000 --seconds 5 --connections 64
 *
 * It prints the result and {@link rateRunProblems}: the requests due in the
 * window, the replies per second within 10% of the offered rate, none over
 * one second, under 1% sent late; it exits 1 when one of them is missed.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { argValue, compileC, pinned } from './lib.js';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'http-rate.c');

/** One run of the constant-rate client. Latencies in microseconds. */
export interface RateResult {
  /** Requests per second offered. */
  offered: number;
  /** Requests due in the measured window (all of them answered). */
  requests: number;
  seconds: number;
  /** Replies that came in the measured window, per second (below `offered` when the server fell behind). */
  achieved: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  /** Requests that took more than one second. */
  overOneSecond: number;
  /** Requests the client sent more than 1 ms late on a free connection (the client fell behind). */
  lateSends: number;
}

/** What the client was asked to do. */
export interface RateOptions {
  host: string;
  port: number;
  connections: number;
  /** Requests per second, all connections together. */
  rate: number;
  warmupSeconds: number;
  seconds: number;
  /** How long to wait for the last replies after the window. */
  timeoutSeconds: number;
  path: string;
  /** Pin the client to CPU 1 with taskset. */
  pin: boolean;
}

/** Compiles bench/http-rate.c into `dir`; null without a C compiler. */
export function compileRateClient(dir: string): string | null {
  return compileC(SOURCE, join(dir, 'http-rate'));
}

/** Reads the client's one line of JSON; throws with its error when it failed. */
export function parseRateOutput(out: string): RateResult {
  const line = out.trim().split('\n').pop() ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`http-rate printed no result: ${JSON.stringify(out.slice(0, 500))}`);
  }
  const r = parsed as { ok?: boolean; error?: string } & Partial<RateResult>;
  if (r.ok !== true) throw new Error(`http-rate failed: ${r.error ?? line}`);
  return {
    offered: Number(r.offered),
    requests: Number(r.requests),
    seconds: Number(r.seconds),
    achieved: Number(r.achieved),
    p50: Number(r.p50),
    p90: Number(r.p90),
    p99: Number(r.p99),
    p999: Number(r.p999),
    max: Number(r.max),
    overOneSecond: Number(r.overOneSecond),
    lateSends: Number(r.lateSends),
  };
}

/** Runs the compiled client once; resolves with its result, rejects with its error. */
export function runRateClient(bin: string, o: RateOptions): Promise<RateResult> {
  const args = [
    o.host,
    String(o.port),
    String(o.connections),
    String(o.rate),
    String(o.warmupSeconds),
    String(o.seconds),
    String(o.timeoutSeconds),
    o.path,
  ];
  const [cmd, argv] = pinned(o.pin, 1, bin, args);
  const limitMs = (o.warmupSeconds + o.seconds + o.timeoutSeconds + 10) * 1000;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseRateOutput(out));
      } catch (e) {
        reject(new Error(`${(e as Error).message}${err === '' ? '' : ` (stderr: ${err.trim()})`}`));
      }
    });
  });
}

/**
 * The offered load of the equal-load run: `fraction` of the peer's
 * closed-loop maximum, rounded down to a thousand requests per second (at
 * least 1,000).
 */
export function equalLoadRate(peerMax: number, fraction: number): number {
  return Math.max(1000, Math.floor((peerMax * fraction) / 1000) * 1000);
}

/**
 * What a run at a load that both the server and the client sustain shows,
 * and a benchmark checks before it reports latencies: every request due in
 * the window was counted, the replies per second stay within `tolerance` of
 * the offered rate (a stall of the machine at the window's edge moves some
 * in or out), no request took over a second, and the client sent under 1%
 * of the requests late (it kept up). Returns what was missed (empty: the run
 * is valid). Timings of the machine: printed, never a test's assertion.
 */
export function rateRunProblems(r: RateResult, o: Pick<RateOptions, 'rate' | 'seconds'>, tolerance = 0.1): string[] {
  const problems: string[] = [];
  const due = Math.round(o.rate * o.seconds);
  if (r.requests !== due) problems.push(`${r.requests} requests counted in the window, ${due} were due`);
  if (Math.abs(r.achieved - o.rate) > o.rate * tolerance)
    problems.push(
      `${Math.round(r.achieved)} replies/s, not within ${Math.round(tolerance * 100)}% of the ${o.rate} offered`,
    );
  if (r.overOneSecond > 0) problems.push(`${r.overOneSecond} request(s) took over a second`);
  if (r.lateSends > r.requests * 0.01) problems.push(`${r.lateSends} requests sent late: the client fell behind`);
  return problems;
}

/** The self-check of the command line (see the module comment). */
async function main(): Promise<void> {
  const o: RateOptions = {
    host: '127.0.0.1',
    port: 0,
    connections: Number(argValue('--connections') ?? 8),
    rate: Number(argValue('--rate') ?? 2000),
    warmupSeconds: 0.5,
    seconds: Number(argValue('--seconds') ?? 2),
    timeoutSeconds: 5,
    path: '/',
    pin: false,
  };
  const dir = mkdtempSync(join(tmpdir(), 'eventide-http-rate-'));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
    res.end('ok');
  });
  try {
    const bin = compileRateClient(dir);
    if (bin === null) throw new Error('no C compiler (cc, gcc or clang) could build bench/http-rate.c');
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    o.port = (server.address() as { port: number }).port;
    const r = await runRateClient(bin, o);
    const us = (n: number): string => `${(n / 1000).toFixed(2)} ms`;
    console.log(
      `http-rate against node:http: ${o.rate.toLocaleString('en-US')} req/s offered over ${o.connections} connections for ${o.seconds} s`,
    );
    console.log(
      `  ${r.requests.toLocaleString('en-US')} requests, ${Math.round(r.achieved).toLocaleString('en-US')} replies/s; p50 ${us(r.p50)}, p90 ${us(r.p90)}, p99 ${us(r.p99)}, p99.9 ${us(r.p999)}, max ${us(r.max)}; ${r.overOneSecond} over 1 s, ${r.lateSends} sent late`,
    );
    const problems = rateRunProblems(r, o);
    for (const p of problems) console.log(`  MISSED: ${p}`);
    console.log(problems.length === 0 ? '  valid: the client offered the load and measured it' : '  INVALID run');
    process.exitCode = problems.length === 0 ? 0 : 1;
  } finally {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

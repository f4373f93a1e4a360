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
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileC, pinned } from './lib.js';

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

/**
 * Self instructions per function from callgrind output files written with
 * `--dump-instr=yes`, JIT-compiled JavaScript named from V8's perf map
 * (`node --perf-basic-prof` writes `/tmp/perf-PID.map`). callgrind alone
 * names JIT code by address only; this maps each instruction address to the
 * V8 code object that holds it. Used by `bench/instructions.ts --annotate`.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';

/** One code range of V8's perf map. */
export interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** Reads a perf map (`/tmp/perf-PID.map`: `START SIZE NAME` per line, hexadecimal), sorted by start; none: empty. */
export function readPerfMap(file: string): CodeRange[] {
  if (!existsSync(file)) return [];
  const ranges: CodeRange[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const a = line.indexOf(' ');
    const b = line.indexOf(' ', a + 1);
    if (a < 0 || b < 0) continue;
    const start = parseInt(line.slice(0, a), 16);
    const size = parseInt(line.slice(a + 1, b), 16);
    ranges.push({ start, end: start + size, name: shortName(line.slice(b + 1)) });
  }
  ranges.sort((x, y) => x.start - y.start);
  return ranges;
}

/** `JS:*reuseHead file:///.../src/http/request-parser.js:457:13` -> `*reuseHead src/http/request-parser.js:457`. */
function shortName(name: string): string {
  return name
    .replace(/^JS:/, '')
    .replace(/file:\/\/\/\S*?\/(src|bench|node_modules)\//, '$1/')
    .replace(/:(\d+):\d+$/, ':$1');
}

/** The code range holding `addr`, by binary search (the last range added wins on overlap). */
function lookup(ranges: CodeRange[], addr: number): string | null {
  let lo = 0;
  let hi = ranges.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((ranges[mid] as CodeRange).start <= addr) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return null;
  const r = ranges[found] as CodeRange;
  return addr < r.end ? r.name : null;
}

/**
 * Adds the self cost (first event, Ir) of every cost line in one callgrind
 * output file to `into`, keyed by function: JIT code by its perf-map name,
 * other code by callgrind's function name. Call cost lines (inclusive costs)
 * are skipped; positions are `instr line` with callgrind's relative
 * subposition compression.
 */
export function addSelfCosts(file: string, ranges: CodeRange[], into: Map<string, number>): void {
  const names = new Map<string, string>();
  let fn = '';
  let addr = 0;
  let skipNext = false;
  const named = (spec: string): string => {
    // "(12) name" defines id 12, "(12)" refers to it
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (m === null) return spec;
    if (m[2] !== undefined) names.set(m[1] as string, m[2]);
    return names.get(m[1] as string) ?? spec;
  };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const c = line.charCodeAt(0);
    const isCost = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42; // digit + - *
    if (!isCost) {
      if (line.startsWith('fn=')) fn = named(line.slice(3));
      else if (line.startsWith('calls=')) skipNext = true;
      else if (line.startsWith('cfn=')) named(line.slice(4));
      continue;
    }
    const parts = line.split(' ');
    const p = parts[0] as string;
    if (p === '*') {
      // same instruction as before
    } else if (p.startsWith('+')) addr += parseInt(p.slice(1), 16);
    else if (p.startsWith('-')) addr -= parseInt(p.slice(1), 16);
    else addr = parseInt(p, 16);
    if (skipNext) {
      skipNext = false;
      continue;
    }
    const ir = Number(parts[2] ?? 0);
    if (ir === 0) continue;
    const key = fn.startsWith('0x') ? (lookup(ranges, addr) ?? '(unnamed JIT code)') : fn;
    into.set(key, (into.get(key) ?? 0) + ir);
  }
}

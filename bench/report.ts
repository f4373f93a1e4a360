/**
 * Draws the recorded benchmark results as one SVG chart.
 *
 *   npm run bench:report                       (bench/results/*.json -> docs/bench.svg)
 *   npx tsx bench/report.ts --dir DIR --out FILE
 *   npm run bench:report -- --markdown         (the README table instead, on stdout)
 *
 * Reads every `*.json` written by the benchmarks (`writeResults` in
 * bench/lib.ts) and draws, per benchmark, a caption (what, when, the
 * command, the machine) and per workload and peer a horizontal bar of the
 * ratio eventide / peer on a log scale, starting at 1x (right of the 1x line:
 * eventide's figure is larger; for latencies smaller is better), a black tick
 * at the target, the ratio and target in words, and met (green) / MISSED
 * (red) / no target (grey). The output depends only on the JSON (no clock,
 * no locale): the same files give the same bytes.
 */
import type { BenchResults, WorkloadResult } from './lib.js';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The benchmarks in the order they are drawn (others follow by name). */
const ORDER = ['buffer', 'echo', 'http', 'pagination'];

const TITLES: Readonly<Record<string, string>> = {
  buffer: 'EventBuffer vs Buffer idioms',
  echo: 'TCP echo server vs node:net pipe()',
  http: 'HTTP hello world: EventHttp vs node:http and a raw node:net server (wrk)',
  pagination: 'Paginated lists over 1,000,000 SQLite rows: the demo API vs Django REST framework (wrk)',
};

const COLOR = { met: '#2e7d32', missed: '#c62828', none: '#78909c' };

const W = 1000;
const LABEL_X = 16;
const BAR_X0 = 400;
const BAR_X1 = 760;
const TEXT_X = 772;
const ROW_H = 36;

/** Escapes text for XML content and attribute values. */
export function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A number with thousands separators and `digits` decimals (no locale). */
export function fmtNumber(x: number, digits = 0): string {
  if (!Number.isFinite(x)) return 'n/a';
  const [int, frac] = Math.abs(x).toFixed(digits).split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${x < 0 ? '-' : ''}${grouped}${frac !== undefined ? `.${frac}` : ''}`;
}

/** A ratio as shown: 2 decimals below 10, 1 below 100, none above. */
export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return 'n/a';
  return `${r.toFixed(r < 10 ? 2 : r < 100 ? 1 : 0)}x`;
}

/** A figure in its unit, with sensible precision. */
function fmtValue(x: number, unit: string): string {
  if (!Number.isFinite(x)) return 'n/a';
  if (unit === 'µs' && x >= 1000) return `${fmtNumber(x / 1000, 2)} ms`;
  return `${fmtNumber(x, x < 10 ? 2 : x < 100 ? 1 : 0)} ${unit}`;
}

function sortResults(results: BenchResults[]): BenchResults[] {
  const rank = (b: string): number => (ORDER.includes(b) ? ORDER.indexOf(b) : ORDER.length);
  return [...results].sort((a, b) => rank(a.benchmark) - rank(b.benchmark) || (a.benchmark < b.benchmark ? -1 : 1));
}

/** The log-scale domain [lo, hi] (powers of 1, 2, 5 x 10^n) covering every ratio, target and 1x. */
function domain(results: BenchResults[]): [number, number] {
  const xs = [1];
  for (const r of results)
    for (const w of r.workloads) {
      for (const p of w.peers) if (Number.isFinite(p.ratio) && p.ratio > 0) xs.push(p.ratio);
      if (w.target !== null) xs.push(w.target.value);
    }
  const steps = ticksBetween(1e-6, 1e9);
  const min = Math.min(...xs) / 1.15;
  const max = Math.max(...xs) * 1.15;
  const lo = [...steps].reverse().find((s) => s <= min) ?? 1e-6;
  const hi = steps.find((s) => s >= max) ?? 1e9;
  return [lo, hi];
}

/** 1, 2, 5 x 10^n between lo and hi (inclusive). */
function ticksBetween(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = -6; e <= 9; e++)
    for (const m of [1, 2, 5]) {
      const v = Number(`${m}e${e}`);
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  return out;
}

function tickLabel(v: number): string {
  return `${v >= 1 ? fmtNumber(v) : String(v)}x`;
}

function verdict(w: WorkloadResult, peer: string): { color: string; word: string } {
  if (w.target === null || w.target.peer !== peer) return { color: COLOR.none, word: '' };
  return w.met === true ? { color: COLOR.met, word: 'met' } : { color: COLOR.missed, word: 'MISSED' };
}

/**
 * The SVG chart of a set of benchmark results (see the file comment). Pure:
 * the same results give the same string.
 */
export function renderSvg(input: BenchResults[]): string {
  const results = sortResults(input);
  const [lo, hi] = domain(results);
  const x = (v: number): number =>
    BAR_X0 + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (BAR_X1 - BAR_X0);
  const px = (n: number): string => (Math.round(n * 10) / 10).toString();
  const body: string[] = [];
  const t = (xx: number, yy: number, text: string, attrs = ''): void => {
    body.push(`<text x="${px(xx)}" y="${px(yy)}"${attrs ? ` ${attrs}` : ''}>${xmlEscape(text)}</text>`);
  };

  let y = 28;
  let row = 0;
  t(LABEL_X, y, 'eventide against its peers: ratio eventide / peer, measured in the same run', 'class="title"');
  y += 18;
  t(
    LABEL_X,
    y,
    'Bar from 1x to the ratio (log scale); black tick = target; green = target met, red = missed, grey = no target. For latencies a ratio below 1x is better.',
    'class="small"',
  );
  y += 26;
  const ticks = ticksBetween(lo, hi);
  // Labels on every 1-2-5 tick over up to three decades, else on the powers of ten only.
  const labelled = Math.log10(hi / lo) > 3.01 ? ticks.filter((v) => Number.isInteger(Math.log10(v))) : ticks;
  const axis = (yy: number): void => {
    for (const v of labelled) t(x(v), yy, tickLabel(v), 'class="tick" text-anchor="middle"');
  };
  // Grid lines run through the rows only (not through the captions).
  const grid: string[] = [];
  const gridFor = (top: number, bottom: number): void => {
    for (const v of ticks)
      grid.push(
        `<line x1="${px(x(v))}" y1="${px(top)}" x2="${px(x(v))}" y2="${px(bottom)}" class="${v === 1 ? 'one' : 'grid'}"/>`,
      );
  };
  axis(y);
  y += 10;

  for (const r of results) {
    y += 14;
    t(LABEL_X, y, `${r.benchmark}: ${TITLES[r.benchmark] ?? r.benchmark}`, 'class="head"');
    y += 16;
    t(LABEL_X, y, `$ ${r.command}`, 'class="cmd"');
    y += 15;
    const machine = `${r.date} · node ${r.node} · ${r.cpus.count} CPUs (${r.cpus.model}) · ${r.pinned ? 'pinned' : 'not pinned'}: ${r.placement}`;
    t(LABEL_X, y, machine, 'class="small"');
    for (const n of r.notes ?? []) {
      y += 14;
      t(LABEL_X, y, n, 'class="small"');
    }
    y += 8;
    const sectionTop = y;
    for (const w of r.workloads) {
      for (const p of w.peers) {
        const top = y;
        const mid = top + ROW_H / 2;
        if (row++ % 2 === 0) body.push(`<rect x="0" y="${px(top)}" width="${W}" height="${ROW_H}" class="row"/>`);
        t(LABEL_X + 8, mid - 3, w.name, 'class="label"');
        t(
          LABEL_X + 8,
          mid + 12,
          `vs ${p.name}: ${fmtValue(w.eventide, w.unit)} / ${fmtValue(p.value, w.unit)}`,
          'class="sub"',
        );
        const v = verdict(w, p.name);
        if (Number.isFinite(p.ratio) && p.ratio > 0) {
          const a = x(1);
          const b = x(p.ratio);
          body.push(
            `<rect x="${px(Math.min(a, b))}" y="${px(mid - 7)}" width="${px(Math.max(1, Math.abs(b - a)))}" height="14" fill="${v.color}"/>`,
          );
        }
        let words = fmtRatio(p.ratio);
        if (w.target !== null && w.target.peer === p.name) {
          const tx = x(w.target.value);
          body.push(`<line x1="${px(tx)}" y1="${px(mid - 12)}" x2="${px(tx)}" y2="${px(mid + 12)}" class="target"/>`);
          words += `  target ${w.target.text}  ${v.word}`;
        }
        t(TEXT_X, mid + 4, words, `class="value" fill="${v.word === '' ? '#37474f' : v.color}"`);
        y += ROW_H + 2;
      }
    }
    gridFor(sectionTop, y - 2);
  }
  y += 8;
  axis(y + 4);
  const height = Math.ceil(y + 18);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    `<title>eventide benchmarks: ratio eventide / peer per workload, with targets</title>`,
    `<style>`,
    `.title { font-size: 16px; font-weight: bold; fill: #212121; }`,
    `.head { font-size: 14px; font-weight: bold; fill: #212121; }`,
    `.cmd { font-size: 12px; font-family: Menlo, Consolas, monospace; fill: #37474f; }`,
    `.small { font-size: 11px; fill: #546e7a; }`,
    `.tick { font-size: 10px; fill: #78909c; }`,
    `.label { font-size: 12px; fill: #212121; }`,
    `.sub { font-size: 11px; fill: #546e7a; }`,
    `.value { font-size: 12px; font-weight: bold; }`,
    `.row { fill: #f5f7f8; }`,
    `.grid { stroke: #cfd8dc; stroke-width: 1; }`,
    `.one { stroke: #455a64; stroke-width: 1.5; }`,
    `.target { stroke: #000000; stroke-width: 3; }`,
    `</style>`,
    `<rect x="0" y="0" width="${W}" height="${height}" fill="#ffffff"/>`,
    ...body.filter((l) => l.startsWith('<rect x="0"')),
    ...grid,
    ...body.filter((l) => !l.startsWith('<rect x="0"')),
    `</svg>`,
    '',
  ].join('\n');
}

/**
 * The results as a Markdown table (one row per workload and peer: the
 * benchmark's command and date (UTC, to the minute), the workload, eventide's and the peer's figures, the ratio,
 * the target and met/MISSED), for README.md. Pure, like renderSvg.
 */
export function renderMarkdown(input: BenchResults[]): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|');
  const lines = ['| benchmark | workload | eventide | peer | ratio | target |', '|---|---|---:|---|---:|---|'];
  for (const r of sortResults(input)) {
    let first = true;
    for (const w of r.workloads)
      for (const p of w.peers) {
        const target = w.target?.peer === p.name ? `${w.target.text} ${w.met === true ? 'met' : 'MISSED'}` : '-';
        lines.push(
          `| ${first ? `\`${cell(r.command)}\`, ${r.date.slice(0, 16).replace('T', ' ')} UTC` : 'same'} | ${cell(w.name)} | ${fmtValue(w.eventide, w.unit)} | ${fmtValue(p.value, w.unit)} (${cell(p.name)}) | ${fmtRatio(p.ratio)} | ${target} |`,
        );
        first = false;
      }
  }
  return `${lines.join('\n')}\n`;
}

/** Every results file in `dir` (sorted by name), parsed. */
export function readResults(dir: string): BenchResults[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as BenchResults)
    .filter((r) => r.schema === 1 && Array.isArray(r.workloads));
}

function main(): void {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const dir = resolve(arg('--dir') ?? join(ROOT, 'bench', 'results'));
  const out = resolve(arg('--out') ?? join(ROOT, 'docs', 'bench.svg'));
  const results = readResults(dir);
  if (results.length === 0) {
    console.error(`no results in ${dir}: run a benchmark first (npx tsx bench/buffer.ts --quick)`);
    process.exit(1);
  }
  if (process.argv.includes('--markdown')) {
    process.stdout.write(renderMarkdown(results));
    return;
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, renderSvg(results));
  for (const r of sortResults(results)) {
    console.log(`${r.benchmark} (${r.date}, ${r.command})`);
    for (const w of r.workloads)
      for (const p of w.peers) {
        const v = w.target?.peer === p.name ? ` target ${w.target.text} ${w.met === true ? 'met' : 'MISSED'}` : '';
        console.log(`  ${w.name} vs ${p.name}: ${fmtRatio(p.ratio)}${v}`);
      }
  }
  console.log(`wrote ${relative(process.cwd(), out) || out}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

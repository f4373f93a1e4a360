/**
 * bench/report.ts: the SVG chart of recorded benchmark results is
 * well-formed (balanced tags, escaped text), names every benchmark, workload,
 * ratio and target with its verdict and caption, and is deterministic.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { workload, type BenchResults } from '../../bench/lib.js';
import { fmtNumber, fmtRatio, readResults, renderMarkdown, renderSvg, xmlEscape } from '../../bench/report.js';

const base = {
  schema: 1 as const,
  node: 'v20.20.2',
  cpus: { count: 2, model: 'AMD EPYC' },
  pinned: true,
  placement: 'servers on CPU 0, wrk on CPU 1 (taskset)',
};

const SAMPLE: BenchResults[] = [
  {
    ...base,
    benchmark: 'http',
    date: '2026-11-24T13:10:00.000Z',
    command: 'npx tsx bench/http.ts --duration 5',
    workloads: [
      workload(
        'keep-alive req/s',
        'req/s',
        73_783,
        [
          { name: 'node:http', value: 38_255 },
          { name: 'raw node:net', value: 91_588 },
        ],
        { peer: 'node:http', op: '>=', value: 1.4 },
      ),
      workload(
        'keep-alive p99 latency',
        'µs',
        3110,
        [{ name: 'node:http', value: 4230 }],
        {
          peer: 'node:http',
          op: '<=',
          value: 1,
        },
        false,
      ),
    ],
  },
  {
    ...base,
    benchmark: 'buffer',
    date: '2026-11-24T13:05:00.000Z',
    command: 'npx tsx bench/buffer.ts --quick',
    pinned: false,
    placement: 'one process, not pinned',
    workloads: [
      workload('lines <&> "quoted"', 'MB/s', 1000, [{ name: "Buffer.concat + indexOf('\\r\\n')", value: 500 }], {
        peer: "Buffer.concat + indexOf('\\r\\n')",
        op: '>=',
        value: 3,
      }),
    ],
    notes: ['medians of 3 runs'],
  },
  {
    ...base,
    benchmark: 'pagination',
    date: '2026-11-24T13:20:00.000Z',
    command: 'npx tsx bench/pagination.ts --quick',
    workloads: [
      workload('page 2', 'req/s', 12_597, [{ name: 'DRF', value: 73 }], { peer: 'DRF', op: '>=', value: 50 }),
      workload('page 99,999', 'req/s', 33, [{ name: 'DRF', value: 25 }], null),
    ],
  },
];

/** Checks that every tag is closed in order and the text holds no bare `<` or `&`; returns the element names. */
function checkWellFormed(xml: string): string[] {
  const src = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  const names: string[] = [];
  const re = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  let roots = 0;
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const text = src.slice(i, lt < 0 ? src.length : lt);
    assert.doesNotMatch(text, /&(?!(?:amp|lt|gt|quot|apos|#\d+);)/, `bare & in text: ${text}`);
    if (lt < 0) break;
    re.lastIndex = lt;
    const m = re.exec(src);
    assert.ok(m !== null, `malformed tag at ${src.slice(lt, lt + 60)}`);
    const [all, close, name, , self] = m as unknown as [string, string, string, string, string];
    if (close === '/') {
      assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
    } else {
      if (stack.length === 0) roots++;
      names.push(name);
      if (self !== '/') stack.push(name);
    }
    i = lt + all.length;
  }
  assert.deepEqual(stack, [], 'unclosed elements');
  assert.equal(roots, 1, 'one root element');
  return names;
}

test('renderSvg draws a well-formed SVG with one root <svg>', () => {
  const svg = renderSvg(SAMPLE);
  const names = checkWellFormed(svg);
  assert.equal(names[0], 'svg');
  assert.match(svg, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.ok(names.filter((n) => n === 'line').length >= 4, 'target ticks and grid lines');
});

test('every benchmark, workload, peer, ratio, target and verdict appears, with date and command', () => {
  const svg = renderSvg(SAMPLE);
  for (const r of SAMPLE) {
    assert.ok(svg.includes(xmlEscape(r.command)), r.command);
    assert.ok(svg.includes(r.date), r.date);
    for (const w of r.workloads) {
      assert.ok(svg.includes(xmlEscape(w.name)), w.name);
      for (const p of w.peers) {
        assert.ok(svg.includes(`vs ${xmlEscape(p.name)}`), p.name);
        assert.ok(svg.includes(fmtRatio(p.ratio)), `${w.name}: ${fmtRatio(p.ratio)}`);
      }
      if (w.target !== null) assert.ok(svg.includes(`target ${xmlEscape(w.target.text)}`), w.target.text);
    }
  }
  // 73,783 / 38,255 = 1.93x (met), 73,783 / 91,588 = 0.81x (no target), p99 0.74x <= 1x (met),
  // 2x against >= 3x (missed), 172.6x >= 50x (met), 1.32x without a target.
  for (const s of [
    '1.93x  target &gt;= 1.4x  met',
    '0.81x<',
    '0.74x  target &lt;= 1x  met',
    '2.00x  target &gt;= 3x  MISSED',
    '173x  target &gt;= 50x  met',
    '1.32x<',
  ])
    assert.ok(svg.includes(s), s);
  assert.ok(svg.includes('lines &lt;&amp;&gt; &quot;quoted&quot;'), 'text is escaped');
  // drawn in the fixed order buffer, echo, http, pagination
  assert.ok(svg.indexOf('buffer: ') < svg.indexOf('http: ') && svg.indexOf('http: ') < svg.indexOf('pagination: '));
});

test('the output is deterministic and does not depend on the input order', () => {
  assert.equal(renderSvg(SAMPLE), renderSvg([...SAMPLE].reverse()));
});

test('non-finite figures (null in JSON) draw no bar and read n/a', () => {
  const json = JSON.parse(
    JSON.stringify([
      {
        ...SAMPLE[2]!,
        workloads: [
          workload('broken', 'req/s', Number.NaN, [{ name: 'DRF', value: 10 }], { peer: 'DRF', op: '>=', value: 50 }),
        ],
      },
    ]),
  ) as BenchResults[];
  const svg = renderSvg(json);
  checkWellFormed(svg);
  assert.ok(svg.includes('n/a  target &gt;= 50x  MISSED'));
});

test('readResults reads the JSON files of a directory; fmtNumber groups thousands without a locale', () => {
  const dir = mkdtempSync(join(tmpdir(), 'eventide-report-'));
  try {
    for (const r of SAMPLE) writeFileSync(join(dir, `${r.benchmark}.json`), JSON.stringify(r));
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const read = readResults(dir);
    assert.deepEqual(
      read.map((r) => r.benchmark),
      ['buffer', 'http', 'pagination'],
    );
    assert.equal(renderSvg(read), renderSvg(SAMPLE));
    assert.ok(readFileSync(join(dir, 'http.json'), 'utf8').includes('"ratio"'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(fmtNumber(1234567.891, 1), '1,234,567.9');
  assert.equal(fmtNumber(-999), '-999');
});

test('renderMarkdown gives one table row per workload and peer, with command, date, figures, ratio and target', () => {
  const md = renderMarkdown(SAMPLE).trimEnd().split('\n');
  assert.equal(md.length, 2 + 6);
  assert.equal(
    md[2],
    '| `npx tsx bench/buffer.ts --quick`, 2026-11-24 13:05 UTC | lines <&> "quoted" | 1,000 MB/s | 500 MB/s (Buffer.concat + indexOf(\'\\r\\n\')) | 2.00x | >= 3x MISSED |',
  );
  assert.equal(
    md[3],
    '| `npx tsx bench/http.ts --duration 5`, 2026-11-24 13:10 UTC | keep-alive req/s | 73,783 req/s | 38,255 req/s (node:http) | 1.93x | >= 1.4x met |',
  );
  assert.equal(md[4], '| same | keep-alive req/s | 73,783 req/s | 91,588 req/s (raw node:net) | 0.81x | - |');
  assert.equal(md[5], '| same | keep-alive p99 latency | 3.11 ms | 4.23 ms (node:http) | 0.74x | <= 1x met |');
});

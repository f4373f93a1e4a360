/**
 * bench/callgrind-annotate.ts: self instructions per function from a
 * callgrind file written with `--dump-instr=yes`, JIT code named from a V8
 * perf map; call costs (inclusive) are not counted as the caller's own, and
 * the relative subposition compression of addresses is followed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { addSelfCosts, readPerfMap } from '../../bench/callgrind-annotate.js';

const PERF_MAP = [
  '7f0000001000 100 JS:*reuseHead file:///work/x/.tmp/bench-dist/src/http/request-parser.js:418:20',
  '7f0000002000 80 JS:~onStreamRead node:internal/stream_base_commons:168:22',
  'garbage line',
  '',
].join('\n');

// positions: instr line; fn ids defined once and referred to after; a call's cost line follows calls=
const CALLGRIND = [
  '# callgrind format',
  'version: 1',
  'positions: instr line',
  'events: Ir',
  'fl=(1) ???',
  'fn=(1) 0x000000007f0000001000',
  '0x7f0000001000 0 10',
  '+4 * 5', // 0x...1004, still reuseHead
  'cfn=(2) Builtins_KeyedLoadIC_Megamorphic',
  'calls=1 0x55 0',
  '+2 * 1000', // inclusive cost of the call: not reuseHead's own
  '* * 7', // same instruction (0x...1006), reuseHead's own again
  'fn=(3) 0x000000007f0000002000',
  '0x7f0000002010 0 20',
  '-8 0 1', // 0x...2008: onStreamRead
  '0x7f0000009000 0 3', // inside no code range
  'fn=(2)',
  '0x55 0 40',
  '+1 0 2',
  'fn=(4) malloc',
  '0x99 0 11',
  'summary: 1099',
  '',
].join('\n');

test('self costs per function: JIT code by its perf-map name, call costs left out, relative addresses followed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'eventide-cg-'));
  try {
    writeFileSync(join(dir, 'perf.map'), PERF_MAP);
    writeFileSync(join(dir, 'callgrind.out'), CALLGRIND);
    const ranges = readPerfMap(join(dir, 'perf.map'));
    assert.equal(ranges.length, 2);
    const costs = new Map<string, number>();
    addSelfCosts(join(dir, 'callgrind.out'), ranges, costs);
    assert.deepEqual(Object.fromEntries(costs), {
      '*reuseHead src/http/request-parser.js:418': 22,
      '~onStreamRead node:internal/stream_base_commons:168': 21,
      '(unnamed JIT code)': 3,
      Builtins_KeyedLoadIC_Megamorphic: 42,
      malloc: 11,
    });
    // a second file adds to the same totals
    addSelfCosts(join(dir, 'callgrind.out'), ranges, costs);
    assert.equal(costs.get('malloc'), 22);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no perf map (node without --perf-basic-prof): every JIT address is unnamed', () => {
  assert.deepEqual(readPerfMap(join(tmpdir(), 'eventide-no-such-perf.map')), []);
});

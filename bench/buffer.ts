/**
 * EventBuffer against the usual Node.js idioms, measured in the same run.
 *
 *   npx tsx bench/buffer.ts            (about 15 s on a 2-core machine)
 *   npx tsx bench/buffer.ts --quick    (fewer repetitions)
 *
 * 1. Line splitting: a 64 MiB stream of 100-byte CRLF-terminated lines
 *    arriving in 64 KiB chunks (so chunk boundaries split lines).
 *    Ours: appendOwned (or addReference) each chunk, then
 *    readLineBuffer(EOL_CRLF) until null. Peer: Buffer.concat + indexOf('\r\n')
 *    + subarray. Target: ours >= 3x faster.
 * 2. Bulk: 64 MiB through in 16 KiB pieces, add() then read(16384) (or
 *    remove() into a Uint8Array), against Buffer.concat + subarray.
 *    Target: ratio >= 1.0.
 *
 * Each case runs once to warm up, then the cases of a group run in rotating
 * order for REPEAT rounds (3 x REPEAT for the short bulk cases); medians are
 * reported.
 *
 * The results (as MB/s, so the ratio eventide / peer = peer time / our
 * time; targets; the machine and the command) are also written to
 * bench/results/buffer.json (`--json FILE` elsewhere, `--no-json` not at
 * all); `npm run bench:report` draws them.
 */
import assert from 'node:assert/strict';
import { EventBuffer } from '../src/event/buffer.js';
import { workload, writeResults } from './lib.js';

const quick = process.argv.includes('--quick');
const REPEAT = quick ? 3 : 7;
const MiB = 1 << 20;

interface Row {
  group: string;
  name: string;
  ms: number;
  bytes: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Runs every case once to warm up, then `repeat` rounds in which each case
 * runs once (in rotating order, so that load changes on a shared machine hit
 * all cases alike); checks every result and returns the median times (ms).
 */
function measureGroup<T>(cases: (() => T)[], check: (r: T) => void, repeat: number): number[] {
  for (const fn of cases) check(fn());
  const times: number[][] = cases.map(() => []);
  for (let round = 0; round < repeat; round++) {
    for (let k = 0; k < cases.length; k++) {
      const idx = (round + k) % cases.length;
      const t0 = process.hrtime.bigint();
      const r = cases[idx]!();
      times[idx]!.push(Number(process.hrtime.bigint() - t0) / 1e6);
      check(r);
    }
  }
  return times.map(median);
}

// ------------------------------------------------------------ 1. lines

const LINE_LEN = 100; // 98 bytes + CRLF
const STREAM = 64 * MiB;
const CHUNK = 64 * 1024;

function makeStream(): Buffer {
  const s = Buffer.allocUnsafe(STREAM);
  const line = Buffer.alloc(LINE_LEN);
  for (let i = 0; i < LINE_LEN - 2; i++) line[i] = 0x61 + (i % 26);
  line[LINE_LEN - 2] = 0x0d;
  line[LINE_LEN - 1] = 0x0a;
  for (let o = 0; o < STREAM; o += LINE_LEN) line.copy(s, o, 0, Math.min(LINE_LEN, STREAM - o));
  return s;
}

const stream = makeStream();
/** Fresh views of the stream for every run, as a socket would hand out fresh Buffers. */
function chunksOf(s: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let o = 0; o < s.length; o += CHUNK) out.push(s.subarray(o, o + CHUNK));
  return out;
}

interface LineResult {
  lines: number;
  total: number;
}

function oursOwned(): LineResult {
  const chunks = chunksOf(stream);
  const buf = new EventBuffer();
  let lines = 0;
  let total = 0;
  for (const c of chunks) {
    buf.appendOwned(c);
    let l: Buffer | null;
    while ((l = buf.readLineBuffer(EventBuffer.EOL_CRLF)) !== null) {
      lines++;
      total += l.length;
    }
  }
  return { lines, total };
}

function oursReference(): LineResult {
  const chunks = chunksOf(stream);
  const buf = new EventBuffer();
  let lines = 0;
  let total = 0;
  for (const c of chunks) {
    buf.addReference(c);
    let l: Buffer | null;
    while ((l = buf.readLineBuffer(EventBuffer.EOL_CRLF)) !== null) {
      lines++;
      total += l.length;
    }
  }
  return { lines, total };
}

function peerConcat(): LineResult {
  const chunks = chunksOf(stream);
  let buf = Buffer.alloc(0);
  let lines = 0;
  let total = 0;
  let i: number;
  for (const c of chunks) {
    buf = Buffer.concat([buf, c]);
    while ((i = buf.indexOf('\r\n')) !== -1) {
      const line = buf.subarray(0, i);
      buf = buf.subarray(i + 2);
      lines++;
      total += line.length;
    }
  }
  return { lines, total };
}

const expectedLines = Math.floor(STREAM / LINE_LEN);
const expectedTotal = expectedLines * (LINE_LEN - 2);
const checkLines = (r: LineResult): void => {
  assert.equal(r.lines, expectedLines);
  assert.equal(r.total, expectedTotal);
};

// ------------------------------------------------------------- 2. bulk

const PIECE = 16 * 1024;
const BULK = 64 * MiB;
const piece = Buffer.alloc(PIECE);
for (let i = 0; i < PIECE; i++) piece[i] = i & 0xff;

interface BulkResult {
  bytes: number;
  sum: number;
}

function bulkOursRead(): BulkResult {
  const buf = new EventBuffer();
  let bytes = 0;
  let sum = 0;
  for (let moved = 0; moved < BULK; moved += PIECE) {
    buf.add(piece);
    const out = buf.read(PIECE)!;
    bytes += out.length;
    sum += out[out.length - 1]!;
  }
  return { bytes, sum };
}

function bulkOursRemove(): BulkResult {
  const buf = new EventBuffer();
  const out = new Uint8Array(PIECE);
  let bytes = 0;
  let sum = 0;
  for (let moved = 0; moved < BULK; moved += PIECE) {
    buf.add(piece);
    const n = buf.remove(out, PIECE);
    bytes += n;
    sum += out[n - 1]!;
  }
  return { bytes, sum };
}

function bulkPeerSubarray(): BulkResult {
  let pending = Buffer.alloc(0);
  let bytes = 0;
  let sum = 0;
  for (let moved = 0; moved < BULK; moved += PIECE) {
    pending = Buffer.concat([pending, piece]);
    const out = pending.subarray(0, PIECE);
    pending = pending.subarray(PIECE);
    bytes += out.length;
    sum += out[out.length - 1]!;
  }
  return { bytes, sum };
}

function bulkPeerCopy(): BulkResult {
  let pending = Buffer.alloc(0);
  const out = new Uint8Array(PIECE);
  let bytes = 0;
  let sum = 0;
  for (let moved = 0; moved < BULK; moved += PIECE) {
    pending = Buffer.concat([pending, piece]);
    const n = pending.copy(out, 0, 0, PIECE);
    pending = pending.subarray(n);
    bytes += n;
    sum += out[n - 1]!;
  }
  return { bytes, sum };
}

const checkBulk = (r: BulkResult): void => {
  assert.equal(r.bytes, BULK);
  assert.equal(r.sum, (BULK / PIECE) * 0xff);
};

// --------------------------------------------------------------- run

const started = Date.now();
const rows: Row[] = [];
const LINES = 'lines (64 MiB, 100 B CRLF lines, 64 KiB chunks)';
const BULKG = 'bulk (64 MiB through, 16 KiB add + take)';

const lineTimes = measureGroup([oursOwned, oursReference, peerConcat], checkLines, REPEAT);
rows.push({
  group: LINES,
  name: 'EventBuffer appendOwned + readLineBuffer(EOL_CRLF)',
  ms: lineTimes[0]!,
  bytes: STREAM,
});
rows.push({
  group: LINES,
  name: 'EventBuffer addReference + readLineBuffer(EOL_CRLF)',
  ms: lineTimes[1]!,
  bytes: STREAM,
});
rows.push({
  group: LINES,
  name: "peer: Buffer.concat + indexOf('\\r\\n') + subarray",
  ms: lineTimes[2]!,
  bytes: STREAM,
});
// The bulk cases take ~10 ms each: more rounds for a stable median.
const bulkTimes = measureGroup([bulkOursRead, bulkPeerSubarray, bulkOursRemove, bulkPeerCopy], checkBulk, REPEAT * 3);
rows.push({ group: BULKG, name: 'EventBuffer add + read(16384)', ms: bulkTimes[0]!, bytes: BULK });
rows.push({ group: BULKG, name: 'peer: Buffer.concat + subarray', ms: bulkTimes[1]!, bytes: BULK });
rows.push({ group: BULKG, name: 'EventBuffer add + remove(Uint8Array, 16384)', ms: bulkTimes[2]!, bytes: BULK });
rows.push({ group: BULKG, name: 'peer: Buffer.concat + copy + subarray', ms: bulkTimes[3]!, bytes: BULK });

const mbps = (r: Row): number => r.bytes / 1e6 / (r.ms / 1000);
const nameWidth = Math.max(...rows.map((r) => r.name.length));
console.log(
  `EventBuffer benchmark (node ${process.version}; medians of ${REPEAT} (lines) / ${REPEAT * 3} (bulk) interleaved runs after 1 warm-up)\n`,
);
let group = '';
for (const r of rows) {
  if (r.group !== group) {
    group = r.group;
    console.log(group);
  }
  console.log(
    `  ${r.name.padEnd(nameWidth)}  ${r.ms.toFixed(1).padStart(8)} ms  ${mbps(r).toFixed(0).padStart(6)} MB/s`,
  );
}
const byName = (n: string): Row => rows.find((r) => r.name === n)!;
const ratio = (ours: string, peer: string): number => byName(peer).ms / byName(ours).ms;
const r1 = ratio(
  'EventBuffer appendOwned + readLineBuffer(EOL_CRLF)',
  "peer: Buffer.concat + indexOf('\\r\\n') + subarray",
);
const r1b = ratio(
  'EventBuffer addReference + readLineBuffer(EOL_CRLF)',
  "peer: Buffer.concat + indexOf('\\r\\n') + subarray",
);
const r2 = ratio('EventBuffer add + read(16384)', 'peer: Buffer.concat + subarray');
const r2b = ratio('EventBuffer add + remove(Uint8Array, 16384)', 'peer: Buffer.concat + copy + subarray');
console.log('\nratios (peer time / our time; higher is better)');
console.log(`  lines, appendOwned:   ${r1.toFixed(2)}x  (target >= 3.00x) ${r1 >= 3 ? 'ok' : 'BELOW TARGET'}`);
console.log(`  lines, addReference:  ${r1b.toFixed(2)}x  (target >= 3.00x) ${r1b >= 3 ? 'ok' : 'BELOW TARGET'}`);
console.log(`  bulk, read():         ${r2.toFixed(2)}x  (target >= 1.00x) ${r2 >= 1 ? 'ok' : 'BELOW TARGET'}`);
console.log(`  bulk, remove():       ${r2b.toFixed(2)}x  (target >= 1.00x) ${r2b >= 1 ? 'ok' : 'BELOW TARGET'}`);
const bufferWorkload = (label: string, ours: string, peer: string, target: number): ReturnType<typeof workload> =>
  workload(label, 'MB/s', mbps(byName(ours)), [{ name: peer.replace(/^peer: /, ''), value: mbps(byName(peer)) }], {
    peer: peer.replace(/^peer: /, ''),
    op: '>=',
    value: target,
  });
writeResults('buffer', {
  pinned: false,
  placement: 'one process, not pinned',
  workloads: [
    bufferWorkload(
      'lines, appendOwned + readLineBuffer',
      'EventBuffer appendOwned + readLineBuffer(EOL_CRLF)',
      "peer: Buffer.concat + indexOf('\\r\\n') + subarray",
      3,
    ),
    bufferWorkload(
      'lines, addReference + readLineBuffer',
      'EventBuffer addReference + readLineBuffer(EOL_CRLF)',
      "peer: Buffer.concat + indexOf('\\r\\n') + subarray",
      3,
    ),
    bufferWorkload('bulk, add + read(16384)', 'EventBuffer add + read(16384)', 'peer: Buffer.concat + subarray', 1),
    bufferWorkload(
      'bulk, add + remove(Uint8Array)',
      'EventBuffer add + remove(Uint8Array, 16384)',
      'peer: Buffer.concat + copy + subarray',
      1,
    ),
  ],
  notes: [`medians of ${REPEAT} (lines) / ${REPEAT * 3} (bulk) interleaved runs${quick ? ' (--quick)' : ''}`],
});
console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(1)} s`);

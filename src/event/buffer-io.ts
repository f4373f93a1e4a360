/**
 * `EventBuffer` and descriptors: the bytes at the front of a buffer as the
 * writes that send them (large chunks as they are, runs of small ones
 * joined), writing them until one falls short, and the error of a read
 * that would block.
 *
 * @module
 */
import { constants as osConstants } from 'node:os';
import { makeView } from './buffer-chunk.js';
import type { Cursor } from './buffer-scan.js';
import { writeDescriptor, type Descriptor } from './descriptor.js';

/** Writes batch chunks smaller than this... */
const WRITE_DIRECT = 16384;
/** ...into writes of about this size. */
const WRITE_BATCH = 65536;

/**
 * The first `total` bytes (`0 < total <= length`) as the units to write:
 * chunks of 16 KiB or more as views, runs of smaller ones joined into
 * writes of about 64 KiB. The chunks' memory is marked shared.
 * @internal
 * @example
 * ```ts
 * import { Chunk } from './buffer-chunk.js';
 * import { cursorOf } from './buffer-scan.js';
 * const q = [new Chunk(Buffer.from('HTTP/1.1 200 OK\r\n'), 0, 17, 17, false), new Chunk(Buffer.from('\r\n'), 0, 2, 2, false)];
 * const units = unitsOf(cursorOf(q, 0, q.length, 19), 19); // one unit: the two small chunks joined
 * const { written } = writeUnits(1, units); // 19, on stdout
 * ```
 */
export function unitsOf(cur: Cursor, total: number): Buffer[] {
  const q = cur.q;
  // Chunks of WRITE_DIRECT bytes or more are written as they are; runs of
  // smaller ones are joined into writes of about WRITE_BATCH bytes.
  const units: Buffer[] = [];
  let group: Buffer[] = [];
  let groupLen = 0;
  let queued = 0;
  for (let i = cur.h; queued < total; i++) {
    const c = q[i]!;
    const k = Math.min(c.end - c.start, total - queued);
    const v = makeView(c.ab, c.off + c.start, k);
    c.shared = true;
    queued += k;
    if (k >= WRITE_DIRECT) {
      if (groupLen > 0) units.push(group.length === 1 ? group[0]! : Buffer.concat(group, groupLen));
      group = [];
      groupLen = 0;
      units.push(v);
    } else {
      group.push(v);
      groupLen += k;
      if (groupLen >= WRITE_BATCH) {
        units.push(group.length === 1 ? group[0]! : Buffer.concat(group, groupLen));
        group = [];
        groupLen = 0;
      }
    }
  }
  if (groupLen > 0) units.push(group.length === 1 ? group[0]! : Buffer.concat(group, groupLen));
  return units;
}

/**
 * Writes `units` in order while each is written whole; what was written,
 * and the error that stopped it (null when none).
 * @internal
 * @example
 * ```ts
 * const { written, failure } = writeUnits(1, [Buffer.from('hello\n')]); // 6, null (stdout)
 * ```
 */
export function writeUnits(desc: Descriptor, units: readonly Buffer[]): { written: number; failure: Error | null } {
  let written = 0;
  let failure: Error | null = null;
  for (const u of units) {
    const r = writeDescriptor(desc, u);
    if (r instanceof Error) {
      failure = r;
      break;
    }
    written += r;
    if (r < u.length) break;
  }
  return { written, failure };
}

/**
 * The error of a read that would block (`EAGAIN`).
 * @internal
 * @example
 * ```ts
 * import { EventUtil, setLastSocketError } from './util.js';
 * setLastSocketError(eagain());
 * EventUtil.getLastSocketError(); // 'Resource temporarily unavailable'
 * ```
 */
export function eagain(): Error {
  return Object.assign(new Error('Resource temporarily unavailable'), {
    code: 'EAGAIN',
    errno: -(osConstants.errno.EAGAIN ?? 11),
    syscall: 'read',
  });
}

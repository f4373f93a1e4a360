/**
 * The fallbacks of the event layer (src/event/fallbacks.ts), each forced
 * with EVENTIDE_FORCE_FALLBACK in a child process: the work still gets done
 * (bytes echoed, listeners listening; a descriptor another socket holds is
 * refused with a typed error, never opened twice), the fallback
 * path is the one taken, and each fallback is reported once per process
 * however often it is taken. Without the variable, no fallback is taken and
 * nothing is reported: on every Node.js that CI runs, the fast paths are
 * really in use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/spawn.js';

interface ChildReport {
  echoes: string[];
  lent: boolean[];
  listeningAtOnce: boolean[];
  listeningLater: boolean[];
  adopted: string[];
}

/** Runs the fixture with `force` (unset when null); its report and the warning codes on its stderr. */
function runChild(force: string | null): { report: ChildReport; warnings: string[]; stderr: string } {
  const env = { ...process.env };
  delete env.EVENTIDE_FORCE_FALLBACK;
  if (force !== null) env.EVENTIDE_FORCE_FALLBACK = force;
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/event/fixtures/fallback-child.ts'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `child failed: ${r.stderr}`);
  const warnings = [...r.stderr.matchAll(/\[(EVENTIDE_FALLBACK_[A-Z_]+)\] EventideWarning/g)].map(
    (m) => m[1] as string,
  );
  return { report: JSON.parse(r.stdout) as ChildReport, warnings, stderr: r.stderr };
}

const ECHOES = ['ping 0', 'ping 1', 'ping 2'];
/**
 * A descriptor that a socket of this process holds, when the sockets cannot
 * be listed: libuv refuses a second handle on it (EEXIST), which is a typed
 * error, never a second socket that would close the descriptor twice.
 */
const HELD = 'ERR_EVENT_INVALID_DESCRIPTOR: Invalid file descriptor: N (a socket of this process holds it)';

test('no fallback by default: reads are lent, listeners listen at once, descriptors find their sockets; nothing is reported', () => {
  const { report, warnings, stderr } = runChild(null);
  assert.deepEqual(report, {
    echoes: ECHOES,
    lent: [true, true, true],
    listeningAtOnce: [true, true],
    listeningLater: [true, true],
    adopted: ['its socket', 'its socket'],
  });
  assert.deepEqual(warnings, [], stderr);
});

test('EVENTIDE_FORCE_FALLBACK=all: every fallback taken, the same bytes, each reported once', () => {
  const { report, warnings, stderr } = runChild('all');
  assert.deepEqual(report, {
    echoes: ECHOES,
    lent: [false, false, false],
    listeningAtOnce: [false, false],
    listeningLater: [true, true],
    adopted: [HELD, HELD],
  });
  assert.deepEqual(
    warnings.sort(),
    ['EVENTIDE_FALLBACK_ACTIVE_HANDLES', 'EVENTIDE_FALLBACK_LENT_READS', 'EVENTIDE_FALLBACK_SYNC_BIND'],
    stderr,
  );
});

test('EVENTIDE_FORCE_FALLBACK=lent-reads: only that one', () => {
  const { report, warnings, stderr } = runChild(' Lent-Reads ');
  assert.deepEqual(report.lent, [false, false, false]);
  assert.deepEqual(report.echoes, ECHOES);
  assert.deepEqual(report.listeningAtOnce, [true, true]);
  assert.deepEqual(report.adopted, ['its socket', 'its socket']);
  assert.deepEqual(warnings, ['EVENTIDE_FALLBACK_LENT_READS'], stderr);
});

test('EVENTIDE_FORCE_FALLBACK=sync-bind,active-handles: those two', () => {
  const { report, warnings, stderr } = runChild('sync-bind,active-handles');
  assert.deepEqual(report.lent, [true, true, true]);
  assert.deepEqual(report.listeningAtOnce, [false, false]);
  assert.deepEqual(report.listeningLater, [true, true]);
  assert.deepEqual(report.adopted, [HELD, HELD]);
  assert.deepEqual(warnings.sort(), ['EVENTIDE_FALLBACK_ACTIVE_HANDLES', 'EVENTIDE_FALLBACK_SYNC_BIND'], stderr);
});

test('CI runs the HTTP and echo suites with lent reads off as well (docs/architecture.md, "Fallbacks")', () => {
  const run = readFileSync(join(ROOT, '.ci/run'), 'utf8');
  const line = run
    .split('\n')
    .find((l) => l.startsWith('EVENTIDE_FORCE_FALLBACK=lent-reads node scripts/run-tests.mjs'));
  assert.ok(line !== undefined, '.ci/run has the run with lent reads off');
  for (const suite of ['test/http', 'test/examples/echo-server', 'test/examples/hostile-clients'])
    assert.ok(line.split(' ').includes(suite), `${suite} in: ${line}`);
});

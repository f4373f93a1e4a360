/**
 * The throttling core against Django REST framework 3.14's own classes, run
 * live (drf_throttle.py under /usr/bin/python3): for fast-check generated
 * request-time sequences, the memory store allows exactly what DRF's
 * SimpleRateThrottle allows, with DRF's wait(), 429 detail and Retry-After;
 * getIdent is DRF's get_ident and parseRate is DRF's parse_rate.
 *
 * Seeded: the seed is printed (a diagnostic); EVENTIDE_THROTTLE_SEED=N
 * replays a run. Each test sends all its cases to one Python process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { drfAvailability, PYTHON } from '../../support/drf-peer.js';
import { requireTool } from '../../support/tools.js';
import { parseRate } from '../../../src/rest/throttling/rate.js';
import { throttledResponse } from '../../../src/rest/throttling/history.js';
import { getIdent } from '../../../src/rest/throttling/ident.js';
import { MemoryThrottleStore } from '../../../src/rest/throttling/memory-store.js';
import { ThrottleRateError } from '../../../src/rest/errors.js';
import { identCase, rateString, throttleCase, type IdentCase, type ThrottleCase } from './generators.js';

const availability = drfAvailability();
const drf = requireTool('missing' in availability ? availability.missing : null);
const SCRIPT = fileURLToPath(new URL('./drf_throttle.py', import.meta.url));
const SEED = Number(process.env.EVENTIDE_THROTTLE_SEED ?? Math.floor(Math.random() * 2 ** 31));

type DrfStep = [allowed: boolean, wait: number | null, detail: string | null, retryAfter: string | null];
type DrfRate = { error: string } | { num: number | 'big+' | 'big-'; duration: number };
interface DrfAnswer {
  throttle: DrfStep[][];
  ident: (string | null)[];
  rate: DrfRate[];
}

function askDrf(doc: { throttle?: ThrottleCase[]; ident?: IdentCase[]; rate?: string[] }): DrfAnswer {
  const r = spawnSync(PYTHON, ['-B', SCRIPT], {
    input: JSON.stringify(doc),
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONWARNINGS: 'ignore' },
  });
  assert.equal(r.status, 0, `drf_throttle.py failed: ${r.error?.message ?? r.stderr}`);
  return JSON.parse(r.stdout) as DrfAnswer;
}

/** One case through a fresh memory store, in DRF's step shape. */
export async function ours(c: ThrottleCase, store = new MemoryThrottleStore()): Promise<DrfStep[]> {
  const rate = parseRate(c.rate);
  assert.ok(rate !== null);
  const out: DrfStep[] = [];
  for (const t of c.times) {
    const d = await store.hit('throttle_probe_case', t, rate.numRequests, rate.duration);
    if (d.allowed) out.push([true, null, null, null]);
    else {
      const { detail, retryAfter } = throttledResponse(d.wait);
      out.push([false, d.wait, detail, retryAfter]);
    }
  }
  return out;
}

test(
  'memory store = DRF SimpleRateThrottle: allowed set, wait(), 429 detail and Retry-After',
  { skip: drf.skip },
  async (t) => {
    drf.assert();
    t.diagnostic(`seed ${SEED} (EVENTIDE_THROTTLE_SEED=${SEED} replays)`);
    const cases = [
      // A window's edge: an entry exactly `duration` old is expired (DRF's <=).
      { rate: '2/m', times: [1000, 1030, 1060, 1060, 1090, 1120.5] },
      // The clock stepping back; the history then expires as a whole `duration` after the last allowed request.
      { rate: '3/s', times: [10, 10.25, 9.5, 10.5, 10.75, 12, 11.5, 11.5] },
      ...fc.sample(throttleCase, { seed: SEED, numRuns: 400 }),
    ];
    const answer = askDrf({ throttle: cases });
    let refused = 0;
    let allowed = 0;
    for (const [i, c] of cases.entries()) {
      const expected = answer.throttle[i] as DrfStep[];
      assert.deepEqual(await ours(c), expected, `seed ${SEED}, case ${i}: ${JSON.stringify(c)}`);
      for (const s of expected)
        if (s[0]) allowed++;
        else refused++;
    }
    t.diagnostic(`${cases.length} sequences, ${allowed} allowed and ${refused} refused requests agree`);
    assert.ok(allowed > 100 && refused > 100, 'the sequences exercise both answers');
  },
);

test('getIdent = DRF get_ident over X-Forwarded-For, REMOTE_ADDR and NUM_PROXIES', { skip: drf.skip }, (t) => {
  drf.assert();
  t.diagnostic(`seed ${SEED}`);
  const cases = fc.sample(identCase, { seed: SEED, numRuns: 1500 });
  const answer = askDrf({ ident: cases });
  for (const [i, c] of cases.entries()) {
    const headers: [string, string][] = c.xff === null ? [] : [['X-Forwarded-For', c.xff]];
    assert.equal(
      getIdent({ headers, remoteAddress: c.remote }, c.numProxies),
      answer.ident[i],
      `seed ${SEED}: ${JSON.stringify(c)}`,
    );
  }
});

test('parseRate = DRF parse_rate; ThrottleRateError exactly where DRF raises', { skip: drf.skip }, (t) => {
  drf.assert();
  t.diagnostic(`seed ${SEED}`);
  const rates = fc.sample(rateString, { seed: SEED, numRuns: 2000 });
  const answer = askDrf({ rate: rates });
  let errorsSeen = 0;
  for (const [i, r] of rates.entries()) {
    const expected = answer.rate[i] as DrfRate;
    const label = `seed ${SEED}: ${JSON.stringify(r.slice(0, 40))}`;
    if ('error' in expected) {
      errorsSeen++;
      assert.throws(
        () => parseRate(r),
        (e: unknown) => e instanceof ThrottleRateError && e.code === 'ERR_REST_THROTTLE_RATE',
        label,
      );
      continue;
    }
    const got = parseRate(r);
    assert.ok(got !== null, label);
    assert.equal(got.duration, expected.duration, label);
    if (expected.num === 'big+') assert.ok(got.numRequests > 2 ** 53, label);
    else if (expected.num === 'big-') assert.ok(got.numRequests < -(2 ** 53), label);
    else assert.equal(got.numRequests, expected.num, label);
  }
  assert.ok(errorsSeen > 100 && errorsSeen < rates.length - 100, 'both valid and invalid rates were generated');
});

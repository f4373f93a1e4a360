/**
 * The throttling core without DRF at hand: the memory store's bound and
 * expiry, the 429 texts at their edges, several throttles' waits, the cache
 * key, getIdent's own refusals and its multiple-header rule, and
 * ThrottleRateError. (drf.differential checks the algorithm, get_ident and
 * parse_rate against DRF itself.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MAX_THROTTLE_KEYS, MemoryThrottleStore } from '../../../src/rest/throttling/memory-store.js';
import { checkHistory, longestWait, throttledResponse } from '../../../src/rest/throttling/history.js';
import { throttleCacheKey } from '../../../src/rest/throttling/store.js';
import { getIdent } from '../../../src/rest/throttling/ident.js';
import { parseRate } from '../../../src/rest/throttling/rate.js';
import { ConfigurationError, ImproperlyConfigured, ThrottleRateError } from '../../../src/rest/errors.js';

test('memory store: a new key past maxKeys evicts the key allowed longest ago', async () => {
  const store = new MemoryThrottleStore({ maxKeys: 3 });
  for (const k of ['a', 'b', 'c']) assert.equal((await store.hit(k, 10, 1, 60)).allowed, true);
  assert.equal(store.size, 3);
  assert.equal((await store.hit('d', 11, 1, 60)).allowed, true);
  assert.equal(store.size, 3);
  assert.equal((await store.hit('a', 12, 1, 60)).allowed, true, 'a was evicted: it starts afresh');
  assert.equal((await store.hit('c', 12, 1, 60)).allowed, false, 'c was kept');
  assert.equal((await store.hit('d', 12, 1, 60)).allowed, false, 'd was kept');
});

test('memory store: expired histories are dropped first when room is needed', async () => {
  const store = new MemoryThrottleStore({ maxKeys: 3 });
  await store.hit('old', 0, 1, 1); // expires at 1
  await store.hit('b', 5, 1, 60);
  await store.hit('c', 6, 1, 60);
  await store.hit('d', 7, 1, 60); // needs room: 'old' is expired
  assert.equal(store.size, 3);
  assert.equal((await store.hit('b', 8, 1, 60)).allowed, false, 'b was kept');
});

test('memory store: the default bound, the prefix, and a bad maxKeys', async () => {
  assert.equal(DEFAULT_MAX_THROTTLE_KEYS, 10_000);
  const store = new MemoryThrottleStore({ prefix: 'p:' });
  assert.deepEqual(await store.hit('k', 0, 1, 60), { allowed: true, wait: null });
  assert.deepEqual(await store.hit('k', 15, 1, 60), { allowed: false, wait: 45 });
  for (const maxKeys of [0, -1, 1.5, Number.NaN])
    assert.throws(() => new MemoryThrottleStore({ maxKeys }), ConfigurationError);
});

test('checkHistory leaves a refused history alone and prunes an allowed one', () => {
  const history = [50, 10, 0];
  assert.deepEqual(checkHistory(history, 61, 2, 60), { allowed: false, wait: (60 - (61 - 10)) / 1 });
  assert.deepEqual(history, [50, 10, 0]);
  assert.deepEqual(checkHistory(history, 71, 2, 60), { allowed: true, wait: null });
  assert.deepEqual(history, [71, 50]);
});

test("the 429's detail and Retry-After at their edges", () => {
  assert.deepEqual(throttledResponse(0.2), {
    detail: 'Request was throttled. Expected available in 1 second.',
    retryAfter: '1',
  });
  assert.deepEqual(throttledResponse(1.0001), {
    detail: 'Request was throttled. Expected available in 2 seconds.',
    retryAfter: '2',
  });
  assert.deepEqual(throttledResponse(0), {
    detail: 'Request was throttled. Expected available in 0 seconds.',
    retryAfter: null,
  });
  assert.deepEqual(throttledResponse(-0.5), {
    detail: 'Request was throttled. Expected available in 0 seconds.',
    retryAfter: null,
  });
  assert.deepEqual(throttledResponse(null), { detail: 'Request was throttled.', retryAfter: null });
  assert.equal(longestWait([null, 3, 10.5, 2]), 10.5);
  assert.equal(longestWait([null, null]), null);
  assert.equal(longestWait([]), null);
});

test("throttleCacheKey is DRF's cache_format", () => {
  assert.equal(throttleCacheKey('user', '42'), 'throttle_user_42');
  assert.equal(throttleCacheKey('anon', null), 'throttle_anon_None');
});

test('getIdent: several X-Forwarded-For fields count as one; a negative or fractional NUM_PROXIES is refused', () => {
  const raw = {
    headers: [
      ['x-forwarded-for', '203.0.113.7'],
      ['X-Forwarded-For', '10.0.0.2'],
    ] as [string, string][],
    remoteAddress: '10.0.0.1',
  };
  assert.equal(getIdent(raw, null), '203.0.113.7,10.0.0.2');
  assert.equal(getIdent(raw, 1), '10.0.0.2');
  assert.equal(getIdent(raw, 2), '203.0.113.7');
  assert.equal(getIdent({ headers: [] }, 1), null);
  for (const n of [-1, 0.5]) assert.throws(() => getIdent(raw, n), ImproperlyConfigured);
});

test('ThrottleRateError names the rate and its code', () => {
  assert.equal(parseRate(null), null);
  assert.throws(
    () => parseRate('100 per day'),
    (e: unknown) =>
      e instanceof ThrottleRateError &&
      e.code === 'ERR_REST_THROTTLE_RATE' &&
      e.status === 500 &&
      e.rate === '100 per day' &&
      e.message.includes('"100 per day"'),
  );
});

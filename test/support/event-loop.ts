/** Test helpers for running an EventBase's loop under a deadline, so that a test that hangs fails instead. */
import type { EventBase } from '../../src/event/base.js';

/**
 * Dispatches `base` until its loop ends (`base.exit()`, or nothing left to
 * wait for) or `ms` pass, when it calls `base.exit()` itself. True when the
 * loop ended before the deadline; the deadline's timer is cleared either way.
 * @example
 * ```ts
 * assert.ok(await dispatchWithin(base, 10_000), 'the loop did not end within 10 s');
 * ```
 */
export async function dispatchWithin(base: EventBase, ms: number): Promise<boolean> {
  let timedOut = false;
  const t = setTimeout(() => {
    timedOut = true;
    base.exit();
  }, ms);
  try {
    await base.dispatch();
  } finally {
    clearTimeout(t);
  }
  return !timedOut;
}

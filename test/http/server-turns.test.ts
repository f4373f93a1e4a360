/**
 * WaitingConnections (src/http/server-turns.ts): waiting connections are
 * resumed oldest first, as many per turn of the loop as keep the turn near
 * its time target: the count halves after a turn longer than the target and
 * doubles after one shorter than half of it. The tests fix the target at
 * the extremes (0: every turn is too long; 10 minutes: every turn is short)
 * so that what they count does not depend on the machine's speed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WaitingConnections } from '../../src/http/server-turns.js';
import type { HostedConnection } from '../../src/http/server-host.js';

/**
 * `n` connections that each spend their turn again (wait once more) until
 * they have been resumed `rounds` times; resolves with how many were
 * resumed in each turn, and the order of the first turns' resumptions.
 */
function run(targetMs: number, n: number, rounds: number): Promise<{ perTurn: number[]; order: number[] }> {
  const waiting = new WaitingConnections();
  waiting.targetMs = targetMs;
  const perTurn: number[] = [];
  const order: number[] = [];
  let inTurn = 0;
  let left = n;
  return new Promise((resolve) => {
    const conns: HostedConnection[] = Array.from({ length: n }, (_, id) => {
      let resumed = 0;
      const conn: HostedConnection = {
        resume() {
          // All resumptions of one turn run in one callback: a microtask closes the turn's count.
          if (inTurn++ === 0)
            queueMicrotask(() => {
              perTurn.push(inTurn);
              inTurn = 0;
              if (left === 0) resolve({ perTurn, order });
            });
          order.push(id);
          if (++resumed < rounds) waiting.add(conn);
          else left--;
        },
      };
      return conn;
    });
    for (const c of conns) waiting.add(c);
  });
}

test('turns longer than the target: the count halves to one connection per turn', async () => {
  const { perTurn } = await run(0, 10, 2);
  assert.deepEqual(perTurn.slice(0, 6), [4, 2, 1, 1, 1, 1]);
  assert.equal(
    perTurn.reduce((a, b) => a + b, 0),
    20,
  );
});

test('turns shorter than half the target: the count doubles until every waiting connection goes on in one turn', async () => {
  const { perTurn } = await run(600_000, 40, 8);
  assert.deepEqual(perTurn.slice(0, 5), [4, 8, 16, 32, 40]);
  assert.ok(
    perTurn.slice(5).every((k) => k <= 40),
    String(perTurn),
  );
});

test('oldest first: a connection that waits again goes behind those already waiting', async () => {
  const { order } = await run(0, 3, 3);
  // Turn 1 resumes 3 (of its 4): 0, 1, 2; each waits again in that order; then one per turn.
  assert.deepEqual(order, [0, 1, 2, 0, 1, 2, 0, 1, 2]);
});

/**
 * The end-of-turn queue of bufferevents (src/event/bufferevent-turn.ts):
 * members queued in one turn of Node's loop flush together in its check
 * phase, turn after turn (the queue's storage is reused, its count reset),
 * and a member queued while a flush runs waits for the next turn.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Turn, type TurnMember } from '../../src/event/bufferevent-turn.js';

const turnEnd = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function member(log: string[], name: string, onFlush?: () => void): TurnMember {
  return {
    flushQueued(): void {
      log.push(name);
      onFlush?.();
    },
  };
}

test('members of one turn flush together at its end, in order, turn after turn', async () => {
  const log: string[] = [];
  for (let turn = 0; turn < 3; turn++) {
    const a = member(log, `a${turn}`);
    const b = member(log, `b${turn}`);
    Turn.queue(a);
    assert.ok(Turn.isOnly(a));
    Turn.queue(b);
    assert.ok(!Turn.isOnly(a) && !Turn.isOnly(b));
    assert.deepEqual(log, [], 'nothing before the end of the turn');
    await turnEnd();
    assert.deepEqual(log, [`a${turn}`, `b${turn}`]);
    log.length = 0;
  }
  // a later turn with one member: the slots of earlier turns are not counted
  const c = member(log, 'c');
  Turn.queue(c);
  assert.ok(Turn.isOnly(c));
  await turnEnd();
  assert.deepEqual(log, ['c']);
});

test('a member queued while the flush runs waits for the next turn', async () => {
  const log: string[] = [];
  const late = member(log, 'late');
  const first = member(log, 'first', () => Turn.queue(late));
  Turn.queue(first);
  await turnEnd();
  assert.deepEqual(log, ['first'], 'late is not flushed in the turn that was flushing');
  assert.ok(Turn.isOnly(late), 'it is the only member of the next turn');
  await turnEnd();
  assert.deepEqual(log, ['first', 'late']);
  // two queued during a flush that has more members to run, over several turns (the queues swap)
  for (let turn = 0; turn < 3; turn++) {
    log.length = 0;
    const l1 = member(log, 'l1');
    const l2 = member(log, 'l2');
    Turn.queue(
      member(log, 'one', () => {
        Turn.queue(l1);
        Turn.queue(l2);
      }),
    );
    Turn.queue(member(log, 'two'));
    await turnEnd();
    assert.deepEqual(log, ['one', 'two']);
    await turnEnd();
    assert.deepEqual(log, ['one', 'two', 'l1', 'l2']);
  }
});

test('the clock is read once per turn and forgotten when the turn ends', async () => {
  const t1 = Turn.clock();
  const until = performance.now() + 3;
  while (performance.now() < until); // time passes within the turn
  assert.equal(Turn.clock(), t1, 'the same value until the turn ends');
  await turnEnd();
  assert.ok(Turn.clock() > t1, 'a new turn reads the clock again');
});

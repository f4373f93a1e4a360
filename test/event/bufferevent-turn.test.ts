/**
 * The end-of-turn queue of bufferevents (src/event/bufferevent-turn.ts):
 * members queued in one turn of Node's loop flush together in its check
 * phase, turn after turn (the queue's storage is reused, its count reset),
 * and a member queued while a flush runs waits for the next turn. Each
 * EventBase owns its turn: two bases in one process share neither queue nor
 * clock, and a base's loop ending flushes its own members only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBase } from '../../src/event/base.js';
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
  const turn = new Turn();
  const log: string[] = [];
  for (let round = 0; round < 3; round++) {
    const a = member(log, `a${round}`);
    const b = member(log, `b${round}`);
    turn.queue(a);
    assert.ok(turn.isOnly(a));
    turn.queue(b);
    assert.ok(!turn.isOnly(a) && !turn.isOnly(b));
    assert.deepEqual(log, [], 'nothing before the end of the turn');
    await turnEnd();
    assert.deepEqual(log, [`a${round}`, `b${round}`]);
    log.length = 0;
  }
  // a later turn with one member: the slots of earlier turns are not counted
  const c = member(log, 'c');
  turn.queue(c);
  assert.ok(turn.isOnly(c));
  await turnEnd();
  assert.deepEqual(log, ['c']);
});

test('a member queued while the flush runs waits for the next turn', async () => {
  const turn = new Turn();
  const log: string[] = [];
  const late = member(log, 'late');
  const first = member(log, 'first', () => turn.queue(late));
  turn.queue(first);
  await turnEnd();
  assert.deepEqual(log, ['first'], 'late is not flushed in the turn that was flushing');
  assert.ok(turn.isOnly(late), 'it is the only member of the next turn');
  await turnEnd();
  assert.deepEqual(log, ['first', 'late']);
  // two queued during a flush that has more members to run, over several turns (the queues swap)
  for (let round = 0; round < 3; round++) {
    log.length = 0;
    const l1 = member(log, 'l1');
    const l2 = member(log, 'l2');
    turn.queue(
      member(log, 'one', () => {
        turn.queue(l1);
        turn.queue(l2);
      }),
    );
    turn.queue(member(log, 'two'));
    await turnEnd();
    assert.deepEqual(log, ['one', 'two']);
    await turnEnd();
    assert.deepEqual(log, ['one', 'two', 'l1', 'l2']);
  }
});

test('the clock is read once per turn and forgotten when the turn ends', async () => {
  const turn = new Turn();
  const t1 = turn.clock();
  const until = performance.now() + 3;
  while (performance.now() < until); // time passes within the turn
  assert.equal(turn.clock(), t1, 'the same value until the turn ends');
  await turnEnd();
  assert.ok(turn.clock() > t1, 'a new turn reads the clock again');
});

test('a base owns its turn: two bases in one process share neither queue nor clock', async () => {
  const a = new EventBase();
  const b = new EventBase();
  assert.notEqual(a.turn, b.turn);
  const log: string[] = [];
  const ma = member(log, 'a');
  const mb = member(log, 'b');
  a.turn.queue(ma);
  b.turn.queue(mb);
  assert.ok(a.turn.isOnly(ma), "b's member is not in a's turn");
  assert.ok(b.turn.isOnly(mb), "a's member is not in b's turn");
  const ta = a.turn.clock();
  const until = performance.now() + 3;
  while (performance.now() < until); // time passes within the turn
  assert.ok(b.turn.clock() > ta, "b reads the clock for its own turn, not a's value");
  assert.equal(a.turn.clock(), ta);
  await turnEnd();
  assert.deepEqual(log, ['a', 'b'], 'each turn flushes in the check phase');
  a.free();
  b.free();
});

test("a base's loop ending flushes its own queued members, not another base's", async () => {
  const a = new EventBase();
  const b = new EventBase();
  const log: string[] = [];
  a.turn.queue(member(log, 'a'));
  b.turn.queue(member(log, 'b'));
  const ended = a.loop(); // nothing pending: the loop ends at once
  assert.deepEqual(log, ['a'], "a's loop end flushed a's member before its promise settled, and only that");
  assert.equal(await ended, true);
  assert.deepEqual(log, ['a'], "b's member waits for its own turn's end");
  await turnEnd();
  assert.deepEqual(log, ['a', 'b']);
  a.free();
  b.free();
});

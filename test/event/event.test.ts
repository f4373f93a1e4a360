import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, closeSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { EventBase, Event, EventArgumentError, getLastError, clearLastError } from '../../src/event/index.js';
import { socketPair, sleep } from '../support/net.js';

const SIGUSR2 = 12;

test('flag constants have libevent values', () => {
  assert.deepEqual(
    [Event.TIMEOUT, Event.READ, Event.WRITE, Event.SIGNAL, Event.PERSIST, Event.ET],
    [1, 2, 4, 8, 16, 32],
  );
});

test('bad input: unknown flag bits, invalid descriptors, invalid signals throw typed errors', () => {
  const base = new EventBase();
  const cb = (): void => {};
  const code = (c: string) => (e: unknown) => e instanceof EventArgumentError && e.code === c;
  assert.throws(() => new Event(base, process.stdin, 64, cb), code('ERR_EVENT_INVALID_MASK'));
  assert.throws(() => new Event(base, process.stdin, Event.READ | 1024, cb), code('ERR_EVENT_INVALID_MASK'));
  assert.throws(() => new Event(base, -1, 0, cb), code('ERR_EVENT_INVALID_DESCRIPTOR'));
  assert.throws(() => new Event(base, -1, Event.READ, cb), /Invalid file descriptor/);
  assert.throws(() => new Event(base, 987654, Event.READ, cb), code('ERR_EVENT_INVALID_DESCRIPTOR'));
  assert.throws(() => new Event(base, {} as never, Event.READ, cb), code('ERR_EVENT_INVALID_DESCRIPTOR'));
  assert.throws(() => new Event(base, 1.5, Event.READ, cb), code('ERR_EVENT_INVALID_DESCRIPTOR'));
  assert.throws(() => new Event(base, 0, Event.SIGNAL, cb), code('ERR_EVENT_INVALID_SIGNAL'));
  assert.throws(() => new Event(base, 65, Event.SIGNAL, cb), code('ERR_EVENT_INVALID_SIGNAL'));
  assert.throws(() => Event.signal(base, 9, cb), /Invalid signal passed/); // SIGKILL cannot be caught
  assert.throws(() => Event.signal(base, -3, cb), code('ERR_EVENT_INVALID_SIGNAL'));
  assert.throws(() => new Event(base, SIGUSR2, Event.SIGNAL | Event.READ, cb), code('ERR_EVENT_INVALID_MASK'));
  assert.throws(() => new Event({} as EventBase, -1, Event.TIMEOUT, cb), EventArgumentError);
  // a pure timer ignores the descriptor
  assert.ok(new Event(base, -1, Event.TIMEOUT, cb));
});

test('pending, isPending(flags), del, removeTimer', () => {
  const base = new EventBase();
  const { close } = { close: () => {} };
  const ev = new Event(base, process.stdin, Event.READ, () => {});
  assert.equal(ev.pending, false);
  assert.equal(ev.add(5), true);
  assert.equal(ev.pending, true);
  assert.equal(ev.isPending(Event.READ), true);
  assert.equal(ev.isPending(Event.TIMEOUT), true);
  assert.equal(ev.isPending(Event.WRITE), false);
  assert.equal(ev.removeTimer(), true);
  assert.equal(ev.isPending(Event.TIMEOUT), false);
  assert.equal(ev.isPending(Event.READ), true);
  assert.equal(ev.del(), true);
  assert.equal(ev.pending, false);
  assert.equal(ev.del(), true, 'del of a non-pending event is true');
  ev.free();
  assert.equal(ev.pending, false);
  assert.equal(ev.add(), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_FREED');
  assert.equal(ev.del(), false);
  close();
});

test('a timer added without a timeout is accepted but never fires and is not pending', async () => {
  const base = new EventBase();
  const t = Event.timer(base, () => assert.fail('must not fire'));
  assert.equal(t.add(), true);
  assert.equal(t.pending, false);
  assert.equal(await base.loop(), true);
});

test('re-adding a pending event with a timeout reschedules it; without one it changes nothing', async () => {
  const base = new EventBase();
  const fired: string[] = [];
  // A timer between the two deadlines tells them apart by order, whatever the machine's load.
  const between = Event.timer(base, () => fired.push('between'));
  between.add(2);
  const t = Event.timer(base, () => {
    fired.push('t');
    between.del();
  });
  t.add(5);
  t.add(0.05);
  t.add(); // keeps the 0.05 s timeout
  assert.equal(t.isPending(Event.TIMEOUT), true);
  await base.loop();
  assert.deepEqual(fired, ['t'], 'the timer fired at its new deadline, before the 2 s one');
});

test('deadlines moved while the loop runs: one pushed back does not run early, one pulled in is not late', async () => {
  for (const from of ['callback', 'node timer'] as const) {
    const base = new EventBase();
    const order: string[] = [];
    const a = Event.timer(base, () => order.push('a'));
    const b = Event.timer(base, () => order.push('b'));
    const c = Event.timer(base, () => order.push('c'));
    const move = (): void => {
      a.add(0.4); // was due at 0.05 s: now after b
      c.add(0.02); // was due at 5 s: now first
    };
    a.add(0.05);
    b.add(0.2);
    c.add(5);
    if (from === 'callback') Event.timer(base, move).add(0.005);
    else setTimeout(move, 5);
    await base.loop();
    assert.deepEqual(order, ['c', 'b', 'a'], from);
  }
});

test('timer callback receives (arg); TIMEOUT events receive (-1, TIMEOUT, arg); data is read/write', async () => {
  const base = new EventBase();
  const calls: unknown[][] = [];
  Event.timer(base, (...args: unknown[]) => calls.push(args), 'targ').add(0);
  const ev = new Event<string>(base, 123, Event.TIMEOUT, (...args: unknown[]) => calls.push(args), 'earg');
  ev.data = 'changed';
  assert.equal(ev.data, 'changed');
  ev.add(0);
  await base.loop();
  assert.deepEqual(calls, [['targ'], [-1, Event.TIMEOUT, 'changed']]);
});

test('I/O event with a timeout: TIMEOUT when nothing happens, READ when data comes first', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const seen: number[] = [];
  const ev = new Event(base, server, Event.READ, (_fd, what) => seen.push(what));
  ev.add(0.05);
  await base.loop();
  assert.deepEqual(seen, [Event.TIMEOUT]);
  ev.add(5);
  client.write('x');
  await base.loop();
  assert.deepEqual(seen, [Event.TIMEOUT, Event.READ]);
  assert.equal(ev.pending, false, 'a non-persistent event is no longer pending after firing');
  close();
});

test('callback receives the same descriptor object, the fired flags and the arg', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  let got: unknown[] = [];
  const ev = new Event(base, server, Event.READ, (...a: unknown[]) => (got = a), { k: 1 });
  ev.add();
  client.write('y');
  await base.loop();
  assert.equal(got[0], server);
  assert.equal(got[1], Event.READ);
  assert.deepEqual(got[2], { k: 1 });
  close();
});

test('level-triggered: READ|PERSIST fires again on the next iteration while not drained', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  let calls = 0;
  const ev = new Event(base, server, Event.READ | Event.PERSIST, () => {
    calls++;
    if (calls === 5) {
      server.read(); // drain
      ev.del();
    }
  });
  ev.add();
  client.write('data');
  await base.loop();
  assert.equal(calls, 5);
  close();
});

test('edge-triggered: READ|PERSIST|ET fires once per arrival even when not drained', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  let calls = 0;
  const ev = new Event(base, server, Event.READ | Event.PERSIST | Event.ET, () => {
    calls++;
  });
  ev.add();
  client.write('data');
  base.exit(0.15);
  await base.loop();
  assert.equal(calls, 1);
  ev.free();
  close();
});

test('WRITE fires on a writable socket; persistent timeouts restart after each callback', async () => {
  const base = new EventBase();
  const { server, close } = await socketPair();
  const seen: number[] = [];
  const w = new Event(base, server, Event.WRITE, (_fd, what) => seen.push(what));
  w.add();
  await base.loop();
  assert.deepEqual(seen, [Event.WRITE]);

  let n = 0;
  const p = new Event(base, server, Event.READ | Event.PERSIST, (_fd, what) => {
    assert.equal(what, Event.TIMEOUT);
    if (++n === 3) p.del();
  });
  p.add(0.02);
  await base.loop();
  assert.equal(n, 3);
  close();
});

test('EOF keeps a socket readable (level-triggered), as libevent reports it', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  let calls = 0;
  const ev = new Event(base, server, Event.READ | Event.PERSIST, () => {
    server.read();
    if (++calls === 3) ev.del();
  });
  ev.add();
  client.end();
  await base.loop();
  assert.equal(calls, 3);
  close();
});

test('Node streams work as descriptors (PassThrough, like a pipe)', async () => {
  const base = new EventBase();
  const pipe = new PassThrough();
  const got: string[] = [];
  const ev = new Event(base, pipe, Event.READ | Event.PERSIST, () => {
    const c = pipe.read() as Buffer | null;
    if (c === null) {
      ev.del();
      return;
    }
    got.push(c.toString());
    if (got.length === 2) pipe.end();
  });
  ev.add();
  pipe.write('one');
  setTimeout(() => pipe.write('two'), 20);
  await base.loop();
  assert.deepEqual(got, ['one', 'two']);
});

test('a numeric descriptor of a regular file is always ready (poll semantics)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evtest-'));
  const file = join(dir, 'f.txt');
  writeFileSync(file, 'abc');
  const fd = openSync(file, 'r');
  try {
    const base = new EventBase();
    let calls = 0;
    const ev = new Event(base, fd, Event.READ | Event.PERSIST, (d, what) => {
      assert.equal(d, fd);
      assert.equal(what, Event.READ);
      if (++calls === 3) ev.del();
    });
    ev.add();
    await base.loop();
    assert.equal(calls, 3);
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a numeric socket descriptor is adopted and watched', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  assert.ok(fd > 2);
  // The descriptor belongs to a Node socket of this process: the event watches that socket.
  let got = '';
  const ev = new Event(base, fd, Event.READ | Event.PERSIST, (d) => {
    assert.equal(d, fd);
    got += String(server.read() ?? '');
    if (got === 'ping') ev.del();
  });
  ev.add();
  client.write('ping');
  await base.loop();
  assert.equal(got, 'ping');
  close();
});

test('set(): reconfigures a non-pending event, refuses a pending one', async () => {
  const base = new EventBase();
  const other = new EventBase();
  const { client, server, close } = await socketPair();
  const seen: string[] = [];
  const ev = new Event<unknown>(base, server, Event.READ, () => seen.push('old'));
  ev.add();
  clearLastError();
  assert.equal(ev.set(base, server, Event.WRITE), false);
  assert.equal(getLastError()?.message, "Can't modify pending event");
  assert.equal(getLastError()?.code, 'ERR_EVENT_PENDING');
  ev.del();
  assert.equal(
    ev.set(other, client, Event.WRITE, () => seen.push('new')),
    true,
  );
  assert.equal(ev.set(other, -5, Event.READ), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_DESCRIPTOR');
  assert.equal(ev.set(other, client, 4096), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_MASK');
  ev.add();
  await base.loop(); // nothing of `other` runs here
  assert.equal(seen.length, 0);
  await other.loop();
  assert.deepEqual(seen, ['new']);
  ev.add(1);
  assert.equal(
    ev.setTimer(other, () => {}),
    false,
  );
  assert.equal(getLastError()?.message, "Can't modify pending timer");
  ev.del();
  assert.equal(
    ev.setTimer(other, (a) => seen.push(String(a)), 'timer!'),
    true,
  );
  ev.add(0);
  await other.loop();
  assert.deepEqual(seen, ['new', 'timer!']);
  assert.equal(base.set(ev), true);
  close();
});

test('signals: Event.signal is persistent and its callback gets (signum, arg)', async () => {
  const base = new EventBase();
  const seen: unknown[][] = [];
  const ev = Event.signal(
    base,
    SIGUSR2,
    (signum, arg) => {
      seen.push([signum, arg]);
      if (seen.length === 2) base.exit();
      else process.kill(process.pid, 'SIGUSR2');
    },
    'sarg',
  );
  assert.equal(ev.add(), true);
  assert.equal(ev.isPending(Event.SIGNAL), true);
  setTimeout(() => process.kill(process.pid, 'SIGUSR2'), 10);
  await base.loop();
  assert.deepEqual(seen, [
    [SIGUSR2, 'sarg'],
    [SIGUSR2, 'sarg'],
  ]);
  assert.equal(ev.pending, true, 'still pending after firing');
  ev.del();
  assert.equal(process.listenerCount('SIGUSR2'), 0, 'the process handler is removed with the last signal event');
});

test('signals arriving while the base is idle are delivered at the next dispatch', async () => {
  const base = new EventBase();
  let got = 0;
  const ev = new Event(base, SIGUSR2, Event.SIGNAL, (fd, what) => {
    assert.equal(fd, SIGUSR2);
    assert.equal(what, Event.SIGNAL);
    got++;
  });
  ev.add();
  process.kill(process.pid, 'SIGUSR2');
  await sleep(50);
  assert.equal(got, 0);
  await base.loop();
  assert.equal(got, 1);
  assert.equal(ev.pending, false, 'a non-persistent signal event fires once');
});

test('a deleted event does not run even if it was already active', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  let b: Event | null = null;
  const a = Event.timer(base, () => {
    ran.push('a');
    b?.del();
  });
  b = Event.timer(base, () => ran.push('b'));
  a.add(0.01);
  b.add(0.01);
  await base.loop();
  assert.deepEqual(ran, ['a']);
});

test('add(0) inside a callback runs on a later iteration, not re-entrantly', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  const t = Event.timer(base, () => ran.push('t'));
  Event.timer(base, () => {
    t.add(0);
    ran.push('first-done');
  }).add(0);
  await base.loop();
  assert.deepEqual(ran, ['first-done', 't']);
});

test('bad timeouts are refused with false', () => {
  const base = new EventBase();
  const t = Event.timer(base, () => {});
  assert.equal(t.add(Number.NaN), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_ARGUMENT');
  assert.equal(t.pending, false);
});

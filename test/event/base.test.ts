import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBase, EventConfig, Event, EventConfigError, EventError, getLastError } from '../../src/event/index.js';
import { socketPair, sleep } from '../support/net.js';

test('EventConfig: avoiding the only method or requiring a missing feature throws ERR_EVENT_BASE_CONFIG', () => {
  const method = new EventBase().getMethod();
  const avoid = new EventConfig();
  assert.equal(avoid.avoidMethod('select'), true);
  assert.ok(new EventBase(avoid)); // avoiding another method is fine
  avoid.avoidMethod(method);
  assert.throws(
    () => new EventBase(avoid),
    (e: unknown) =>
      e instanceof EventConfigError && e.code === 'ERR_EVENT_BASE_CONFIG' && /cannot be constructed/.test(e.message),
  );

  const req = new EventConfig();
  assert.equal(req.requireFeatures(EventConfig.FEATURE_FDS | EventConfig.FEATURE_ET | EventConfig.FEATURE_O1), true);
  assert.ok(new EventBase(req));
  req.requireFeatures(8); // early close: not a feature here
  assert.throws(
    () => new EventBase(req),
    (e: unknown) => e instanceof EventError && e.code === 'ERR_EVENT_BASE_CONFIG',
  );
  assert.equal(new EventConfig().requireFeatures(-1), false);
  assert.throws(() => new EventBase({} as EventConfig), /EventConfig/);
});

test('getMethod / getFeatures / getSupportedMethods tell the truth', () => {
  const base = new EventBase();
  const expected = process.platform === 'linux' ? 'epoll' : base.getMethod();
  assert.equal(base.getMethod(), expected);
  assert.deepEqual(Event.getSupportedMethods(), [expected]);
  const f = base.getFeatures();
  assert.equal(f & EventConfig.FEATURE_ET, EventConfig.FEATURE_ET);
  assert.equal(f & EventConfig.FEATURE_O1, EventConfig.FEATURE_O1);
  assert.equal(f & EventConfig.FEATURE_FDS, EventConfig.FEATURE_FDS);
  assert.equal(f, 7);
});

test('dispatch with nothing pending settles at once; callbacks never run while not dispatching', async () => {
  const base = new EventBase();
  assert.equal(await base.dispatch(), true);
  let ran = 0;
  const t = Event.timer(base, () => ran++);
  t.add(0);
  await sleep(30);
  assert.equal(ran, 0, 'a due timer does not fire outside dispatch');
  assert.equal(await base.loop(), true);
  assert.equal(ran, 1);
});

test('timers fire in deadline order and dispatch settles when nothing is pending', async () => {
  const base = new EventBase();
  const order: string[] = [];
  Event.timer(base, (a) => order.push(a), 'c').add(0.06);
  Event.timer(base, (a) => order.push(a), 'a').add(0.01);
  Event.timer(base, (a) => order.push(a), 'b').add(0.03);
  assert.equal(await base.dispatch(), true);
  assert.deepEqual(order, ['a', 'b', 'c']);
  assert.equal(base.gotExit(), false);
  assert.equal(base.gotStop(), false);
});

test('LOOP_ONCE runs both timers due at the same instant, then returns', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  const a = Event.timer(base, () => ran.push('a'));
  const b = Event.timer(base, () => ran.push('b'));
  const late = Event.timer(base, () => ran.push('late'));
  a.add(0.02);
  b.add(0.02);
  late.add(5);
  assert.equal(await base.loop(EventBase.LOOP_ONCE), true);
  assert.deepEqual(ran, ['a', 'b']);
  assert.equal(late.pending, true);
  late.del();
});

test('LOOP_NONBLOCK runs what is ready and returns without waiting', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  Event.timer(base, () => ran.push('now')).add(0);
  const far = Event.timer(base, () => ran.push('far'));
  far.add(10);
  await base.loop(EventBase.LOOP_NONBLOCK);
  assert.deepEqual(ran, ['now'], 'the 10 s timer did not run: the loop did not wait for it');
  assert.equal(await base.loop(EventBase.LOOP_NONBLOCK), true);
  assert.deepEqual(ran, ['now']);
  far.del();
});

test('exit(0) lets the current iteration finish: a second timer due at the same instant still runs', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  const a = Event.timer(base, () => {
    ran.push('a');
    base.exit();
  });
  const b = Event.timer(base, () => ran.push('b'));
  const c = Event.timer(base, () => ran.push('c'));
  a.add(0.02);
  b.add(0.02);
  c.add(0.5);
  assert.equal(await base.loop(), true);
  assert.deepEqual(ran, ['a', 'b']);
  assert.equal(base.gotExit(), true);
  assert.equal(base.gotStop(), false);
  assert.equal(c.pending, true);
  // the next loop carries on where this one stopped
  await base.loop();
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.equal(base.gotExit(), false, 'gotExit is reset when a loop starts');
});

test('exit() before the loop makes the next loop return after its first iteration', async () => {
  const base = new EventBase();
  const far = Event.timer(base, () => assert.fail('must not run'));
  far.add(30);
  base.exit();
  assert.equal(await base.loop(), true); // the 30 s timer would have failed the test (and rejected the loop)
  assert.equal(base.gotExit(), true);
  far.del();
});

test('exit(seconds) ends the loop when its timer fires; other exits stay scheduled', async () => {
  const base = new EventBase();
  let ticks = 0;
  const tick = new Event(base, -1, Event.TIMEOUT | Event.PERSIST, () => ticks++);
  tick.add(0.01);
  base.exit(0.3);
  base.exit(0.08);
  await base.loop();
  assert.equal(base.gotExit(), true);
  assert.ok(ticks >= 1);
  const before = ticks;
  await base.loop(); // the 0.3 s exit is still scheduled and ends this loop too
  assert.equal(base.gotExit(), true);
  assert.ok(ticks > before);
  tick.free();
  assert.equal(await base.loop(), true);
});

test('an exit timer keeps the loop alive until it fires', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  base.exit(0.05);
  Event.timer(base, () => ran.push('t')).add(0.01);
  await base.loop();
  assert.deepEqual(ran, ['t']);
  assert.equal(base.gotExit(), true);
});

test('stop() returns right after the running callback; others run in the next loop', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  const a = Event.timer(base, () => {
    ran.push('a');
    base.stop();
  });
  const b = Event.timer(base, () => ran.push('b'));
  a.add(0.02);
  b.add(0.02);
  await base.loop();
  assert.deepEqual(ran, ['a']);
  assert.equal(base.gotStop(), true);
  assert.equal(base.gotExit(), false);
  await base.loop();
  assert.deepEqual(ran, ['a', 'b']);
  assert.equal(base.gotStop(), false);
});

test('stop() while the loop is not running is forgotten', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  assert.equal(base.stop(), true);
  Event.timer(base, () => ran.push('a')).add(0.01);
  Event.timer(base, () => ran.push('b')).add(0.03);
  await base.loop();
  assert.deepEqual(ran, ['a', 'b']);
  assert.equal(base.gotStop(), false);
});

test('stop() from outside a callback ends a waiting loop', async () => {
  const base = new EventBase();
  const far = Event.timer(base, () => {});
  far.add(30);
  const p = base.loop();
  setTimeout(() => base.stop(), 20);
  assert.equal(await p, true);
  assert.equal(base.gotStop(), true);
  far.del();
});

test('an exception from a callback stops the loop, rejects dispatch and deletes the throwing event', async () => {
  const base = new EventBase();
  const ran: string[] = [];
  const boom = new Error('boom');
  const a = new Event(base, -1, Event.TIMEOUT | Event.PERSIST, () => {
    ran.push('a');
    throw boom;
  });
  const b = Event.timer(base, () => ran.push('b'));
  a.add(0.02);
  b.add(0.02);
  await assert.rejects(base.dispatch(), (e) => e === boom);
  assert.equal(base.gotStop(), true);
  assert.equal(a.pending, false, 'the throwing event was deleted');
  assert.deepEqual(ran, ['a']);
  assert.equal(await base.dispatch(), true, 'the loop can be started again');
  assert.deepEqual(ran, ['a', 'b']);
});

test('a loop() inside a callback of the same base resolves false (reentrant)', async () => {
  const base = new EventBase();
  let inner: boolean | undefined;
  Event.timer(base, () => {
    void base.loop().then((v) => (inner = v));
  }).add(0);
  await base.loop();
  await sleep(0);
  assert.equal(inner, false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_LOOP_REENTRANT');
});

test('priorities: the lower number runs first when both are active together', async () => {
  const base = new EventBase();
  assert.equal(base.priorityInit(2), true);
  const ran: string[] = [];
  const lo = Event.timer(base, () => ran.push('prio1'));
  const hi = Event.timer(base, () => ran.push('prio0'));
  assert.equal(lo.setPriority(1), true);
  assert.equal(hi.setPriority(0), true);
  lo.add(0.02);
  hi.add(0.02);
  await base.loop();
  assert.deepEqual(ran, ['prio0', 'prio1']);
  assert.equal(hi.setPriority(2), false);
  assert.equal(getLastError()?.message, 'Unable to set event priority: 2');
  assert.equal(base.priorityInit(0), false);
  assert.equal(base.priorityInit(256), false);
});

test('priorities order active I/O events of one iteration', async () => {
  const base = new EventBase();
  base.priorityInit(3);
  const { client, server, close } = await socketPair();
  const ran: string[] = [];
  const evs = [2, 0, 1].map((p) => {
    const ev = new Event(base, server, Event.READ, () => ran.push(`p${p}`));
    ev.setPriority(p);
    return ev;
  });
  client.write('x');
  await sleep(50);
  for (const ev of evs) ev.add();
  await base.loop();
  assert.deepEqual(ran, ['p0', 'p1', 'p2']);
  close();
});

test('getTimeOfDayCached is stable within an iteration and updateCacheTime refreshes it', async () => {
  const base = new EventBase();
  const seen: number[] = [];
  Event.timer(base, () => {
    seen.push(base.getTimeOfDayCached());
    const spin = Date.now() + 5;
    while (Date.now() < spin);
    seen.push(base.getTimeOfDayCached());
    base.updateCacheTime();
    seen.push(base.getTimeOfDayCached());
  }).add(0);
  await base.loop();
  assert.equal(seen[0], seen[1]);
  assert.ok((seen[2] as number) > (seen[1] as number));
  assert.ok(Math.abs(base.getTimeOfDayCached() - Date.now() / 1000) < 1);
});

test('NO_CACHE_TIME makes getTimeOfDayCached read the clock', async () => {
  const cfg = new EventConfig();
  cfg.setFlags(EventBase.NO_CACHE_TIME);
  const base = new EventBase(cfg);
  const seen: number[] = [];
  Event.timer(base, () => {
    seen.push(base.getTimeOfDayCached());
    const spin = Date.now() + 3;
    while (Date.now() < spin);
    seen.push(base.getTimeOfDayCached());
  }).add(0);
  await base.loop();
  assert.ok((seen[1] as number) > (seen[0] as number));
});

test('free(): the base ends its loop and refuses further work', async () => {
  const base = new EventBase();
  const t = Event.timer(base, () => assert.fail('freed base must not call back'));
  t.add(0.05);
  const p = base.loop();
  base.free();
  assert.equal(await p, true);
  assert.equal(await base.loop(), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_BASE_FREED');
  assert.equal(base.exit(), false);
  assert.equal(t.add(1), false);
  base.free(); // twice is harmless
});

test('readiness that arrives while the base is idle is delivered at the next dispatch', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const got: string[] = [];
  const ev = new Event(base, server, Event.READ | Event.PERSIST, () => {
    const chunk = server.read() as Buffer | null;
    if (chunk) got.push(chunk.toString());
    ev.del();
  });
  ev.add();
  client.write('hello');
  await sleep(50);
  assert.equal(got.length, 0);
  await base.loop();
  assert.deepEqual(got, ['hello']);
  close();
});

test('maxDispatchInterval limits callbacks per iteration without losing any', async () => {
  const cfg = new EventConfig();
  cfg.setMaxDispatchInterval(-1, 2, 0);
  const base = new EventBase(cfg);
  const ran: number[] = [];
  for (let i = 0; i < 5; i++) Event.timer(base, () => ran.push(i)).add(0.01);
  await sleep(30); // all five are due when the loop starts (under load their adds may be a millisecond apart)
  await base.loop(EventBase.LOOP_ONCE);
  assert.deepEqual(ran, [0, 1]);
  await base.loop();
  assert.deepEqual(ran, [0, 1, 2, 3, 4]);
});

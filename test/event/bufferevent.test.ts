import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket, connect as netConnect } from 'node:net';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { EventBase, Event, EventBuffer, EventUtil, getLastError } from '../../src/event/index.js';
import { EventBufferEvent } from '../../src/event/bufferevent.js';
import { resolvesWithin, socketPair, sleep, waitFor } from '../support/net.js';

const { READING, WRITING, EOF, ERROR, TIMEOUT, CONNECTED, OPT_CLOSE_ON_FREE } = EventBufferEvent;

/** A node:net echo server on 127.0.0.1:0. */
async function echoServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    s.on('error', () => {});
    s.pipe(s);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port, sockets };
}

test('constants have libevent values', () => {
  assert.deepEqual([READING, WRITING, EOF, ERROR, TIMEOUT, CONNECTED], [1, 2, 16, 32, 64, 128]);
  assert.deepEqual(
    [
      EventBufferEvent.OPT_CLOSE_ON_FREE,
      EventBufferEvent.OPT_THREADSAFE,
      EventBufferEvent.OPT_DEFER_CALLBACKS,
      EventBufferEvent.OPT_UNLOCK_CALLBACKS,
    ],
    [1, 2, 4, 8],
  );
  assert.deepEqual(
    [EventBufferEvent.SSL_OPEN, EventBufferEvent.SSL_CONNECTING, EventBufferEvent.SSL_ACCEPTING],
    [0, 1, 2],
  );
});

test('connect + write + read over a real socket; CONNECTED then EOF', async () => {
  const { server, port } = await echoServer();
  const base = new EventBase();
  const events: number[] = [];
  let got = '';
  const bev = new EventBufferEvent(
    base,
    null,
    0,
    (b) => {
      got += b.input.read(4096)?.toString() ?? '';
      if (got === 'hello world') b.getSocket()?.end();
    },
    null,
    (b, ev) => {
      events.push(ev);
      if (ev & (EOF | ERROR)) {
        b.free();
      }
    },
  );
  assert.equal(bev.getEnabled(), Event.WRITE, 'only WRITE is enabled at first');
  assert.equal(bev.enable(Event.READ | Event.WRITE), true);
  assert.equal(bev.getEnabled(), Event.READ | Event.WRITE);
  bev.write('hello ');
  bev.output.add('world');
  assert.equal(bev.fd, null, 'no socket before connect');
  assert.equal(bev.connect(`127.0.0.1:${port}`), true);
  await base.dispatch();
  assert.equal(got, 'hello world');
  assert.deepEqual(events, [CONNECTED, READING | EOF]);
  server.close();
});

test('connect(): malformed addresses give false; a missing UNIX path is false at once', () => {
  const base = new EventBase();
  for (const bad of ['nonsense', 'example.com:80', '1.2.3.4:65536', '1.2.3.4:-1', '[::1', 'unix:']) {
    const bev = new EventBufferEvent(base, null);
    assert.equal(bev.connect(bad), false, bad);
    assert.equal(getLastError()?.code, 'ERR_EVENT_ADDRESS');
    bev.free();
  }
  const bev = new EventBufferEvent(base, null);
  assert.equal(bev.connect('unix:/nonexistent/dir/sock'), false);
  assert.equal(EventUtil.getLastSocketErrno(), 2);
  bev.free();
});

test('connection refused: ERROR only, errno 111 / Connection refused', async () => {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  await once(srv, 'close');
  const base = new EventBase();
  const events: number[] = [];
  const bev = new EventBufferEvent(base, null, 0, null, null, (b, ev) => {
    events.push(ev);
    b.free();
  });
  assert.equal(bev.connect(`127.0.0.1:${port}`), true);
  await base.dispatch();
  assert.deepEqual(events, [ERROR]);
  assert.equal(EventUtil.getLastSocketErrno(), 111);
  assert.equal(EventUtil.getLastSocketError(), 'Connection refused');
});

test('connect over a UNIX socket', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bev-'));
  const path = join(dir, 's.sock');
  const srv = createServer((s) => s.end('unix ok'));
  srv.listen(path);
  await once(srv, 'listening');
  try {
    const base = new EventBase();
    let got = '';
    const bev = new EventBufferEvent(
      base,
      null,
      0,
      (b) => (got += b.read(100)?.toString() ?? ''),
      null,
      (b, ev) => {
        if (ev & EOF) b.free();
      },
    );
    bev.enable(Event.READ);
    assert.equal(bev.connect(`unix:${path}`), true);
    await base.dispatch();
    assert.equal(got, 'unix ok');
  } finally {
    srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('echo of a 1 MiB random payload through two bufferevents is byte-exact', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  // server side: echo
  const srv = new EventBufferEvent(
    base,
    server,
    OPT_CLOSE_ON_FREE,
    (b) => b.output.addBuffer(b.input),
    null,
    (b, ev) => {
      if (ev & (EOF | ERROR)) b.free();
    },
  );
  srv.enable(Event.READ | Event.WRITE);
  const payload = randomBytes(1 << 20);
  const received = new EventBuffer();
  const cli = new EventBufferEvent(base, client, OPT_CLOSE_ON_FREE, (b) => {
    b.readBuffer(received);
    if (received.length === payload.length) b.free();
  });
  cli.enable(Event.READ | Event.WRITE);
  for (let off = 0; off < payload.length; off += 1000) cli.write(payload.subarray(off, off + 1000));
  await base.dispatch();
  assert.equal(received.length, payload.length);
  assert.ok((received.pullup(-1) as Buffer).equals(payload));
  close();
});

test('output queued during one turn of the loop leaves in one write per connection, before the next turn', async () => {
  const base = new EventBase();
  const pairs = await Promise.all([socketPair(), socketPair(), socketPair()]);
  const writes = new Map<Socket, number>();
  const afterCallback: number[] = [];
  const bevs: EventBufferEvent[] = [];
  for (const { server } of pairs) {
    // Count what reaches Node's socket (an instrument on Node's object, not a mock of ours).
    const write = server.write.bind(server) as (chunk: Buffer, cb?: () => void) => boolean;
    writes.set(server, 0);
    (server as unknown as { write: typeof write }).write = (chunk, cb) => {
      writes.set(server, (writes.get(server) ?? 0) + 1);
      return write(chunk, cb);
    };
    const bev = new EventBufferEvent(base, server, 0, (b) => {
      const msg = b.read(100)?.toString() ?? '';
      // three separate writes from one callback
      b.write(`1:${msg};`);
      b.write(`2:${msg};`);
      b.output.add(`3:${msg}\n`);
      assert.equal(writes.get(server), 0, 'nothing written synchronously from the callback');
      // Not at the end of the callback either: at the end of the turn, after every ready connection's callbacks.
      queueMicrotask(() => afterCallback.push(writes.get(server) ?? -1));
    });
    bev.enable(Event.READ | Event.WRITE);
    bevs.push(bev);
  }
  const loop = base.dispatch();
  const replies = pairs.map(({ client }) => once(client, 'data').then(([d]) => (d as Buffer).toString()));
  pairs.forEach(({ client }, i) => client.write(`m${i}`));
  assert.deepEqual(await Promise.all(replies), ['1:m0;2:m0;3:m0\n', '1:m1;2:m1;3:m1\n', '1:m2;2:m2;3:m2\n']);
  assert.deepEqual([...writes.values()], [1, 1, 1], 'one write per connection');
  assert.deepEqual(afterCallback, [0, 0, 0], 'the writes come after the callbacks and their microtasks');
  // Output queued outside any callback, and output held while WRITE is disabled, go out too.
  const [b0] = bevs as [EventBufferEvent];
  b0.disable(Event.WRITE);
  b0.write('held');
  await new Promise((r) => setImmediate(r));
  await sleep(20);
  assert.equal(writes.get(pairs[0].server), 1, 'nothing written while WRITE is disabled');
  const late = once(pairs[0].client, 'data');
  b0.enable(Event.WRITE);
  assert.equal(((await late)[0] as Buffer).toString(), 'held');
  for (const b of bevs) b.free();
  for (const p of pairs) p.close();
  await loop;
});

test('output queued in the last turn is handed to the socket before dispatch() settles', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const bev = new EventBufferEvent(base, server, 0, (b) => {
    b.write(`reply to ${b.read(100)?.toString() ?? ''}`);
    base.exit(); // a program that exits as soon as its loop ends
  });
  bev.enable(Event.READ | Event.WRITE);
  const received: Buffer[] = [];
  client.on('data', (d: Buffer) => received.push(d));
  const ended = once(client, 'end');
  client.write('ping');
  await base.dispatch();
  server.destroy(); // at once: only what already reached the kernel gets through
  await ended;
  assert.equal(Buffer.concat(received).toString(), 'reply to ping');
  bev.free();
  close();
});

test('callbacks never run while the base is idle; data waits for the next dispatch', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const got: string[] = [];
  const bev = new EventBufferEvent(base, server, 0, (b) => {
    got.push(b.read(100)?.toString() ?? '');
    b.disable(Event.READ);
  });
  bev.enable(Event.READ);
  client.write('early');
  await sleep(50);
  assert.equal(got.length, 0);
  await base.dispatch();
  assert.deepEqual(got, ['early']);
  bev.free();
  close();
});

test('read watermarks: low delays the callback, high stops reading until drained', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const sizes: number[] = [];
  const bev = new EventBufferEvent(base, server, 0, (b) => {
    sizes.push(b.input.length);
    b.input.drain(b.input.length);
    b.disable(Event.READ);
  });
  bev.setWatermark(Event.READ, 10, 0);
  bev.enable(Event.READ);
  client.write('12345');
  setTimeout(() => client.write('67890abc'), 30);
  await base.dispatch();
  assert.deepEqual(sizes, [13], 'the read callback waited for 10 bytes');

  // High watermark: with the callback not draining, reading stops near `high`.
  const big = Buffer.alloc(4 << 20, 0x61);
  let calls = 0;
  bev.setCallbacks(
    () => {
      calls++;
    },
    null,
    null,
  );
  bev.setWatermark(Event.READ, 0, 100000);
  bev.enable(Event.READ);
  client.write(big);
  base.exit(0.3);
  await base.dispatch();
  const held = bev.input.length;
  assert.ok(held >= 100000 && held < 100000 + (1 << 20), `input stopped near the high mark (${held})`);
  // Draining below the mark resumes reading.
  bev.input.drain(held);
  bev.setCallbacks(
    (b) => {
      b.input.drain(b.input.length);
    },
    null,
    null,
  );
  let total = held;
  bev.setCallbacks(
    (b) => {
      total += b.input.length;
      b.input.drain(b.input.length);
      if (total === big.length) b.disable(Event.READ);
    },
    null,
    null,
  );
  await base.dispatch();
  assert.equal(total, big.length, 'nothing was lost');
  assert.ok(calls >= 1);
  bev.free();
  close();
});

test('read high watermark: input drained by another event (not the read callback) resumes reading', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const big = Buffer.alloc(2 << 20, 0x62);
  let total = 0;
  let draining = false;
  const bev = new EventBufferEvent(base, server, 0, (b) => {
    if (!draining) return; // below: reading stops at the high mark, nothing drains
    total += b.input.length;
    b.input.drain(b.input.length);
    if (total === big.length) base.exit();
  });
  bev.setWatermark(Event.READ, 0, 100000);
  bev.enable(Event.READ);
  client.write(big);
  // A timer, not the read callback, drains the input once reading has stopped.
  Event.timer(base, () => {
    draining = true;
    total += bev.input.length;
    bev.input.drain(bev.input.length);
  }).add(0.2);
  const guard = Event.timer(base, () => base.exit());
  guard.add(5);
  try {
    await base.dispatch();
    assert.equal(total, big.length, 'reading resumed after the drain and nothing was lost');
  } finally {
    guard.del();
    bev.free();
    close();
    client.destroy();
  }
});

test('write callback runs when the output drains (to the low watermark)', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  client.resume();
  let drained = 0;
  const bev = new EventBufferEvent(base, server, 0, null, (b) => {
    drained++;
    assert.equal(b.output.length, 0);
  });
  bev.write(Buffer.alloc(256 * 1024));
  await base.dispatch();
  assert.equal(drained, 1);
  // enabling WRITE on an idle open connection runs the write callback once (as libevent does)
  bev.enable(Event.WRITE);
  await base.dispatch();
  assert.equal(drained, 2);
  bev.free();
  close();
});

test('read timeout delivers READING|TIMEOUT and disables READ', async () => {
  const base = new EventBase();
  const { server, close } = await socketPair();
  const events: number[] = [];
  const bev = new EventBufferEvent(base, server, 0, null, null, (b, ev) => events.push(ev));
  bev.enable(Event.READ);
  bev.setTimeouts(0.05, 0);
  await base.dispatch();
  assert.deepEqual(events, [READING | TIMEOUT]);
  assert.equal(bev.getEnabled() & Event.READ, 0);
  bev.free();
  close();
});

test('each read pushes the read timeout back; it fires a full timeout after the last read', async () => {
  // 15 bytes, one every 100 ms (1.5 s of reads), against a 1 s read timeout: the timeout comes
  // after the last of them was read, an order of events rather than a duration. Without the
  // push-back it would come at 1 s, with 10 or 11 read (the writer's timer and the base's are
  // Node timers of one process: a stall delays both). Each read leaves 0.9 s for a stall.
  const BYTES = 15;
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const events: { ev: number; read: number; at: number }[] = [];
  let read = 0;
  let lastRead = 0;
  const bev = new EventBufferEvent(
    base,
    server,
    0,
    (b) => {
      read += b.input.length;
      b.input.drain(b.input.length);
      lastRead = performance.now();
    },
    null,
    (b, ev) => {
      events.push({ ev, read, at: performance.now() });
      b.getBase().exit();
    },
  );
  let sent = 0;
  const timer = setInterval(() => {
    if (++sent <= BYTES) client.write('x');
  }, 100);
  const guard = Event.timer(base, () => base.exit());
  guard.add(30);
  try {
    bev.enable(Event.READ);
    bev.setTimeouts(1, 0);
    await base.dispatch();
    assert.equal(events.length, 1, 'one event (not the 30 s guard)');
    assert.equal(events[0]!.ev, READING | TIMEOUT);
    assert.equal(events[0]!.read, BYTES, 'no timeout while bytes kept coming: it came after the last one');
    assert.ok(events[0]!.at - lastRead >= 995, `a full timeout after the last read (${events[0]!.at - lastRead} ms)`);
  } finally {
    clearInterval(timer);
    guard.del();
    bev.free();
    close();
  }
});

test('holdReadsFor: its callback takes a read with takeHeld(); what it leaves, and reads for another callback, land in input', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const seen: string[] = [];
  let leave = false;
  const taker = (b: EventBufferEvent): void => {
    assert.equal(b.input.length, 0, 'the read is not in the input');
    const n = b.heldLength;
    if (leave) {
      seen.push(`left ${n}`);
      b.getBase().exit();
      return;
    }
    const chunk = b.takeHeld();
    assert.ok(chunk !== null && chunk.length === n);
    assert.equal(b.takeHeld(), null, 'taken once');
    seen.push(`took ${chunk.toString()}`);
    b.getBase().exit();
  };
  const bev = new EventBufferEvent(base, server, 0, taker);
  bev.holdReadsFor(taker);
  bev.enable(Event.READ);
  client.write('one');
  await base.dispatch();
  leave = true;
  client.write('two');
  await base.dispatch();
  assert.equal(bev.input.read(100)?.toString(), 'two', 'what the callback left is in the input');
  // Another read callback: reads go into the input as always.
  bev.setCallbacks(
    (b) => {
      seen.push(`input ${b.input.read(100)?.toString() ?? ''}`);
      b.getBase().exit();
    },
    null,
    null,
  );
  client.write('three');
  await base.dispatch();
  assert.deepEqual(seen, ['took one', 'left 3', 'input three']);
  bev.free();
  close();
});

test('holdReadsFor: a read reported inside the callback goes into the input; the held one is not lost', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const got: string[] = [];
  let first = true;
  const taker = (b: EventBufferEvent): void => {
    if (first) {
      first = false;
      server.emit('data', Buffer.from('two')); // a read reported while this one is handled
    }
    got.push(b.takeHeld()?.toString() ?? `input ${b.input.read(100)?.toString() ?? ''}`);
    if (got.length === 2) b.getBase().exit();
  };
  // A socket that already has a 'data' listener is read as a stream (its reads are not lent),
  // where a read can be reported while another one is handled.
  const other = (): void => {};
  server.on('data', other);
  const bev = new EventBufferEvent(base, server, 0, taker);
  server.off('data', other);
  bev.holdReadsFor(taker);
  bev.enable(Event.READ);
  client.write('one');
  const returned = await resolvesWithin(base.dispatch(), 20_000);
  if (!returned) base.exit();
  assert.deepEqual(got, ['one', 'input two']);
  bev.free();
  close();
});

test('write timeout delivers WRITING|TIMEOUT when the peer does not read', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  client.pause();
  const events: number[] = [];
  const bev = new EventBufferEvent(base, server, 0, null, null, (b, ev) => {
    events.push(ev);
    b.free();
  });
  bev.setTimeouts(0, 0.2);
  bev.write(Buffer.alloc(32 << 20));
  await base.dispatch();
  assert.deepEqual(events, [WRITING | TIMEOUT]);
  close();
});

test(
  'progress pushes a write timeout back: a write the socket cannot take at once, read slowly, ends without a timeout',
  { timeout: 60_000 },
  async () => {
    // A write timeout counts time without progress (a 1 MiB piece handed to the socket, see
    // WRITE_PIECE). The test drives the reader: a step every 150 ms lets it take another
    // 1 MiB, so progress comes about every step, many times per 2 s timeout (a loaded machine
    // has more than 1.8 s of stall per step), while the 32 MiB outlast the timeout: bytes
    // still wait 2.5 s after the write (checked below). The timeout fires if progress does
    // not push it back; an order of events decides, not a duration.
    const TIMEOUT_S = 2;
    const STEP = 1 << 20;
    const total = 32 << 20;
    const base = new EventBase();
    const { client, server, close } = await socketPair();
    const events: number[] = [];
    const bev = new EventBufferEvent(base, server, 0, null, null, (b, ev) => {
      events.push(ev);
      b.getBase().exit();
    });
    let got = 0;
    let allowed = 0;
    client.pause();
    client.on('data', (d: Buffer) => {
      got += d.length;
      if (got >= allowed) client.pause();
      if (got === total) base.exit();
    });
    client.pause();
    let waitingLater = -1;
    let check: NodeJS.Timeout | undefined;
    const guard = Event.timer(base, () => base.exit());
    let ended = true;
    let loop: Promise<boolean> = Promise.resolve(true);
    try {
      bev.enable(Event.READ); // keeps the loop running once all is sent, until the reader has it all
      bev.setTimeouts(0, TIMEOUT_S);
      guard.add(40);
      check = setTimeout(() => (waitingLater = bev.unsentLength), TIMEOUT_S * 1250);
      bev.write(Buffer.alloc(total));
      ended = false;
      loop = base.dispatch().finally(() => (ended = true));
      // Bounded: twice the steps the bytes need, then the rest at once.
      for (let step = 0; step < (2 * total) / STEP && !ended && got < total; step++) {
        await sleep(150);
        allowed = Math.min(total, allowed + STEP);
        client.resume();
      }
      allowed = total;
      client.resume();
      await loop;
      assert.deepEqual(events, [], 'no WRITING|TIMEOUT while the bytes kept leaving');
      assert.equal(got, total);
      assert.ok(
        waitingLater > 0,
        `bytes still waited ${TIMEOUT_S * 1.25} s after the write (${waitingLater} bytes): only progress kept the timeout back`,
      );
    } finally {
      clearTimeout(check);
      guard.del();
      if (!ended) base.exit();
      await loop;
      bev.free();
      close();
    }
  },
);

test('a write that leaves at once ends the loop with READ disabled, a write timeout set and nothing waiting', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  let got = '';
  client.setEncoding('latin1').on('data', (c: string) => (got += c));
  const bev = new EventBufferEvent(base, server, 0);
  bev.setTimeouts(0, 30);
  bev.write('pong');
  try {
    // Only the pending write keeps the loop running: once sent, dispatch() returns, well before
    // the 30 s timeout would end it.
    const returned = await resolvesWithin(base.dispatch(), 20_000);
    if (!returned) base.exit();
    assert.ok(returned, 'dispatch() returned once the write was sent');
    await waitFor(() => got === 'pong', 10_000);
  } finally {
    bev.free();
    close();
  }
});

test(
  'a write timeout counts only while output waits: once everything is sent it lapses',
  { timeout: 10_000 },
  async () => {
    const base = new EventBase();
    const { client, server, close } = await socketPair();
    let got = 0;
    client.on('data', (c: Buffer) => (got += c.length));
    const events: number[] = [];
    const bev = new EventBufferEvent(base, server, 0, null, null, (_b, ev) => events.push(ev));
    // three timeouts long once the peer has it all, nothing left to send: no WRITING|TIMEOUT
    const stop = new Event(base, -1, Event.TIMEOUT, () => base.exit());
    client.on('data', () => {
      if (got === 4 && !stop.isPending(Event.TIMEOUT)) stop.add(0.35);
    });
    const guard = Event.timer(base, () => base.exit());
    guard.add(8);
    try {
      bev.setTimeouts(0, 0.1);
      bev.write('ping');
      await base.dispatch();
      assert.equal(got, 4);
      assert.equal(events.length, 0, `no event while nothing waits: ${events.join()}`);
      // the deadline still holds afterwards: a peer that stops reading gets WRITING|TIMEOUT
      client.pause();
      bev.setCallbacks(null, null, (b, ev) => {
        events.push(ev);
        b.getBase().exit();
      });
      bev.write(Buffer.alloc(32 << 20));
      await base.dispatch();
      assert.deepEqual(events, [WRITING | TIMEOUT]);
    } finally {
      stop.del();
      guard.del();
      bev.free();
      close();
    }
  },
);

test('free() with OPT_CLOSE_ON_FREE sends what is left in output, then closes', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const chunks: Buffer[] = [];
  client.on('data', (c: Buffer) => chunks.push(c));
  const bev = new EventBufferEvent(base, server, OPT_CLOSE_ON_FREE);
  bev.write('250 OK quit\r\n');
  bev.free();
  await once(client, 'end');
  assert.equal(Buffer.concat(chunks).toString(), '250 OK quit\r\n');
  assert.equal(bev.write('x'), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_FREED');
  bev.free();
  close();
});

test('close() closes the socket without freeing: true, then false', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const bev = new EventBufferEvent(base, server);
  assert.ok((bev.fd ?? -1) > 2);
  assert.equal(bev.close(), true);
  assert.equal(bev.close(), false);
  assert.equal(bev.fd, null);
  client.resume();
  await once(client, 'close');
  bev.free();
  close();
});

test('setCallbacks takes functions or [object, method] pairs; the write callback may be null', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const handler = {
    seen: [] as string[],
    onRead(this: { seen: string[] }, b: EventBufferEvent<string>, arg: string) {
      this.seen.push(`${b.read(10)?.toString()}:${arg}`);
      b.free();
    },
  };
  const bev = new EventBufferEvent<string>(base, server);
  bev.setCallbacks([handler, 'onRead'], null, null, 'ARG');
  bev.enable(Event.READ);
  client.write('x');
  await base.dispatch();
  assert.deepEqual(handler.seen, ['x:ARG']);
  assert.throws(() => bev.setCallbacks([handler, 'nope'], null, null), /not a method/);
  close();
});

test('createPair: what one side writes the other reads; freeing one side delivers no EOF', async () => {
  const base = new EventBase();
  const [a, b] = EventBufferEvent.createPair(base);
  assert.equal(a.fd, null);
  const got: string[] = [];
  const events: number[] = [];
  b.setCallbacks(
    (x) => got.push(x.read(100)?.toString() ?? ''),
    null,
    (_x, ev) => events.push(ev),
  );
  b.enable(Event.READ);
  a.write('ping');
  await base.dispatch();
  assert.deepEqual(got, ['ping']);
  a.free();
  await base.dispatch();
  assert.deepEqual(events, []);
  b.free();
});

test('the event callback gets data first, then EOF, when both arrive together', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const order: string[] = [];
  const bev = new EventBufferEvent(
    base,
    server,
    0,
    (b) => order.push(`data:${b.read(100)?.toString()}`),
    null,
    (b, ev) => {
      order.push(`event:${ev}`);
      b.free();
    },
  );
  bev.enable(Event.READ);
  client.end('last words');
  await sleep(50);
  await base.dispatch();
  assert.deepEqual(order, ['data:last words', `event:${READING | EOF}`]);
  close();
});

test('a peer reset delivers ERROR|READING with the errno', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const events: number[] = [];
  const bev = new EventBufferEvent(base, server, 0, null, null, (b, ev) => {
    events.push(ev);
    b.free();
  });
  bev.enable(Event.READ);
  client.resetAndDestroy();
  await base.dispatch();
  assert.equal(events.length, 1);
  assert.ok((events[0] as number) & (ERROR | EOF));
  close();
});

test('connectHost with the system resolver (localhost, no network traffic)', async () => {
  const { server, port } = await echoServer();
  const base = new EventBase();
  const events: number[] = [];
  const bev = new EventBufferEvent(base, null, 0, null, null, (b, ev) => {
    events.push(ev);
    b.free();
  });
  assert.equal(bev.connectHost(null, 'localhost', port, 99), false);
  assert.equal(bev.connectHost(null, 'localhost', 70000), false);
  assert.equal(bev.connectHost(null, 'localhost', port, EventUtil.AF_INET), true);
  await base.dispatch();
  assert.deepEqual(events, [CONNECTED]);
  server.close();
});

test('connectHost: a resolver failure gives ERROR and getDnsErrorString() text (a .invalid name: no query sent)', async () => {
  const base = new EventBase();
  const events: number[] = [];
  const bev = new EventBufferEvent(base, null, 0, null, null, (b, ev) => {
    events.push(ev);
    b.free();
  });
  assert.equal(bev.connectHost(null, 'no-such-host.invalid', 80), true);
  await base.dispatch();
  assert.deepEqual(events, [ERROR]);
  assert.equal(bev.getDnsErrorString(), 'nodename nor servname provided, or not known');
});

test('bad arguments: options, masks, priorities', async () => {
  const base = new EventBase();
  assert.throws(() => new EventBufferEvent(base, null, 99), /Invalid options/);
  assert.throws(() => new EventBufferEvent({} as EventBase, null), /EventBase/);
  assert.throws(() => new EventBufferEvent(base, -4), /Invalid file descriptor/);
  const bev = new EventBufferEvent(base, null);
  assert.equal(bev.enable(64), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_MASK');
  assert.equal(bev.setPriority(5), false);
  base.priorityInit(2);
  assert.equal(bev.setPriority(1), true);
  assert.equal(bev.read(-1), null);
  bev.free();
  // a socket given by number is adopted
  const { client, server, close } = await socketPair();
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  const byFd = new EventBufferEvent(base, fd);
  assert.equal(byFd.getSocket(), server);
  byFd.free();
  client.destroy();
  close();
  void netConnect;
});

test('output.length is the unsent backlog while the peer does not read; nothing is lost when it does', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  client.pause();
  const total = 16 << 20;
  const bev = new EventBufferEvent(base, server, 0);
  // a producer writing 64 KiB per tick, faster than a paused peer takes it
  let next = 0;
  const producer = new Event(base, -1, Event.TIMEOUT | Event.PERSIST, () => {
    bev.write(Buffer.alloc(total / 256, next++));
    if (next === 256) {
      producer.free();
      base.exit(0.05); // pending output keeps the loop alive (the peer does not read): end it here
    }
  });
  producer.add(0.0005);
  await base.dispatch();
  assert.ok(bev.output.length > 0, 'bytes the socket could not take yet stay in output');
  assert.ok(bev.output.length < total);
  let got = 0;
  let ok = true;
  let expectByte = 0;
  let inChunk = 0;
  client.on('data', (d: Buffer) => {
    for (const b of [d[0], d[d.length - 1]]) if (b === undefined) ok = false;
    got += d.length;
    // bytes arrive in order: check the run of each fill value
    for (let i = 0; i < d.length; i++) {
      if (d[i] !== expectByte) ok = false;
      if (++inChunk === total / 256) {
        inChunk = 0;
        expectByte++;
      }
    }
  });
  client.resume();
  await base.dispatch();
  while (got < total) await sleep(10);
  assert.equal(got, total);
  assert.ok(ok, 'bytes arrived in order');
  assert.equal(bev.output.length, 0);
  bev.free();
  close();
});

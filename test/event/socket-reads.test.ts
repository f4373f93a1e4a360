/**
 * Lent reads (src/event/socket-reads.ts): plain sockets of a base read into
 * one receive buffer, over real TCP sockets on 127.0.0.1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, Socket, type Server } from 'node:net';
import { EventBase } from '../../src/event/base.js';
import { EventBufferEvent } from '../../src/event/bufferevent.js';
import { Event } from '../../src/event/event.js';
import { LANDING_BYTES, ReadLanding } from '../../src/event/socket-reads.js';
import { socketPair, sleep, waitFor } from '../support/net.js';

/** Node's field holding a socket's `onread` buffer (what lending sets), or undefined. */
function onreadBuffer(sock: Socket): unknown {
  const k = Object.getOwnPropertySymbols(sock).find((s) => s.description === 'kBuffer');
  return k === undefined ? undefined : (sock as unknown as Record<symbol, unknown>)[k];
}

test('lend(): a plain socket nothing has read from; not twice, nor a socket with a data listener, buffered bytes, a derived class or destroyed', async () => {
  const landing = new ReadLanding();
  const got: string[] = [];
  const a = await socketPair();
  assert.equal(
    landing.lend(a.client, (n, buf) => {
      got.push(buf.subarray(0, n).toString());
      return true;
    }),
    true,
  );
  assert.equal(onreadBuffer(a.client), landing.buffer);
  assert.equal(landing.buffer.length, LANDING_BYTES);
  assert.equal(
    landing.lend(a.client, () => true),
    false,
    'lent already',
  );
  a.client.resume();
  a.server.write('lent');
  await waitFor(() => got.join('') === 'lent');

  const b = await socketPair();
  b.client.on('data', () => {});
  assert.equal(
    landing.lend(b.client, () => true),
    false,
    'a data listener reads it',
  );

  const c = await socketPair();
  c.server.write('early');
  await waitFor(() => c.client.readableLength > 0);
  assert.equal(
    landing.lend(c.client, () => true),
    false,
    'bytes are buffered in its stream',
  );

  const d = await socketPair();
  class Derived extends Socket {}
  const derived = new Derived();
  assert.equal(
    landing.lend(derived, () => true),
    false,
    'a derived socket (TLS sockets are)',
  );
  d.client.destroy();
  assert.equal(
    landing.lend(d.client, () => true),
    false,
    'destroyed',
  );
  for (const p of [a, b, c, d]) p.close();
});

test('bufferevents on many connections keep what they read intact while every read lands in the same buffer', async () => {
  // Each server side keeps its input unread until everything arrived: the input must hold
  // copies, since each later read of any connection lands in the same receive buffer.
  const base = new EventBase();
  const N = 12;
  const MESSAGES = 40;
  const bevs: EventBufferEvent[] = [];
  const srv: Server = createServer({ pauseOnConnect: true }, (sock) => {
    const bev = new EventBufferEvent(base, sock, EventBufferEvent.OPT_CLOSE_ON_FREE);
    bev.setCallbacks(() => {}, null, null);
    bev.enable(Event.READ);
    bevs.push(bev);
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  const keep = Event.timer(base, () => {}); // the base dispatches (and its bufferevents read) until the end
  keep.add(60);
  const loop = base.dispatch();
  const clients: Socket[] = [];
  for (let i = 0; i < N; i++) {
    const c = connect(port, '127.0.0.1');
    await once(c, 'connect');
    clients.push(c);
  }
  await waitFor(() => bevs.length === N);
  const expected = clients.map(() => '');
  for (let m = 0; m < MESSAGES; m++) {
    for (let i = 0; i < N; i++) {
      const text = `<${i}:${m}:${String.fromCharCode(97 + ((i + m) % 26)).repeat(1 + ((i * 7 + m) % 50))}>`;
      expected[i] += text;
      clients[i]!.write(text);
    }
    await sleep(1); // separate reads
  }
  const total = expected.reduce((n, e) => n + e.length, 0);
  await waitFor(() => bevs.reduce((n, b) => n + b.input.length, 0) === total);
  const byFirst = new Map(bevs.map((b) => [b.input.substr(0, 8)?.toString().split(':')[0] ?? '', b]));
  for (let i = 0; i < N; i++) {
    const bev = byFirst.get(`<${i}`);
    assert.ok(bev !== undefined);
    assert.equal(bev.input.substr(0)?.toString(), expected[i], `connection ${i}`);
  }
  for (const b of bevs) b.free();
  for (const c of clients) c.destroy();
  srv.close();
  keep.del();
  await loop;
});

test('a bufferevent freed without closing leaves its socket to the next owner, whose data events get what arrives', async () => {
  const base = new EventBase();
  const { client, server, close } = await socketPair();
  const bev = new EventBufferEvent(base, server, 0);
  const firstRead = new Promise<string>((resolve) =>
    bev.setCallbacks(
      (b) => {
        resolve(b.input.read(100)?.toString() ?? '');
        b.getBase().exit();
      },
      null,
      null,
    ),
  );
  bev.enable(Event.READ);
  const loop = base.dispatch();
  client.write('for the bufferevent');
  assert.equal(await firstRead, 'for the bufferevent');
  await loop;
  assert.equal(onreadBuffer(server), base.readLanding.buffer, 'its reads were lent');
  bev.free();
  assert.equal(server.destroyed, false);
  const chunks: string[] = [];
  server.on('data', (d: Buffer) => chunks.push(d.toString()));
  client.write('for the next owner');
  await waitFor(() => chunks.join('') === 'for the next owner');
  close();
});

/**
 * Lent reads on the Node.js that runs the tests: .ci/run runs test/event on
 * every Node it supports (20, 22, 24), and src/event/socket-reads.ts relies
 * on private parts of `net.Socket` (the `onread` fields kBuffer, kBufferCb,
 * kBufferGen and the handle's useUserBuffer()). A Node without them takes
 * the stream fallback, which must not pass unnoticed; one that kept the names
 * with another meaning could hand a connection bytes of another. So, over
 * real sockets on 127.0.0.1:
 *
 * - a socket an EventListener accepted and one a bufferevent connected are
 *   read through their base's receive buffer (each read's bytes are in that
 *   memory when the callback gets them), and no fallback is reported;
 * - many connections, whose reads all land in that one buffer, each get back
 *   exactly their own bytes: clients (plain sockets and bufferevents) send
 *   distinct pseudo-random streams in pieces of random sizes (a few bytes to
 *   more than the buffer), the server echoes them through bufferevents, some
 *   of which keep bytes across reads, and every client compares what comes
 *   back with what it sent, byte for byte.
 *
 * With EVENTIDE_FORCE_FALLBACK naming lent-reads, the stream path is
 * expected instead (and the echo must be the same).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import { EventBase } from '../../src/event/base.js';
import { EventBufferEvent } from '../../src/event/bufferevent.js';
import { Event } from '../../src/event/event.js';
import { forcedFallback } from '../../src/event/fallbacks.js';
import { EventListener } from '../../src/event/listener.js';
import { LANDING_BYTES } from '../../src/event/socket-reads.js';
import { waitFor } from '../support/net.js';

/** Whether reads are expected to be lent (not forced into the stream fallback). */
const LENT = !forcedFallback('lent-reads');

/** Node's field holding a socket's `onread` buffer (what lending sets), or undefined. */
function onreadBuffer(sock: Socket): unknown {
  const k = Object.getOwnPropertySymbols(sock).find((s) => s.description === 'kBuffer');
  return k === undefined ? undefined : (sock as unknown as Record<symbol, unknown>)[k];
}

/** A listener on 127.0.0.1:0 and its port. */
function listen(base: EventBase, onAccept: (sock: Socket) => void): { listener: EventListener<null>; port: number } {
  const listener = new EventListener<null>(
    base,
    (_l, sock) => onAccept(sock),
    null,
    EventListener.OPT_CLOSE_ON_FREE,
    -1,
    '127.0.0.1:0',
  );
  const name = listener.getSocketName();
  const port = name === false ? undefined : name.port;
  assert.ok(port !== undefined && port > 0);
  return { listener, port };
}

/** Fallback warnings (EventideWarning) emitted while `run` runs. */
async function fallbackWarnings(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (w: Error & { code?: string }): void => {
    if (w.name === 'EventideWarning') seen.push(`${w.code ?? ''}: ${w.message}`);
  };
  process.on('warning', onWarning);
  try {
    await run();
    await turn(); // warnings are emitted on the next tick
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

/** One read as a read callback saw it. */
interface Read {
  /** The bufferevent said the bytes are lent (valid until the callback returns). */
  lent: boolean;
  /** The bytes were in the base's receive buffer. */
  inLanding: boolean;
  text: string;
}

test(`lent reads are in use on Node ${process.version}: an accepted and a connected socket read into their base's receive buffer`, async (t) => {
  const base = new EventBase();
  const landing = base.readLanding.buffer;
  const serverReads: Read[] = [];
  const clientReads: Read[] = [];
  let accepted: Socket | null = null;
  let server: EventBufferEvent | null = null;
  let client: EventBufferEvent | null = null;
  t.after(() => {
    server?.free();
    client?.free();
  });
  /** A read callback taking each read where it landed (holdReadsFor), recording it, then `then`. */
  const recorder =
    (into: Read[], then: (bev: EventBufferEvent, text: string) => void) =>
    (bev: EventBufferEvent): void => {
      const held = bev.takeHeld();
      const bytes = held ?? bev.input.read(bev.input.length) ?? Buffer.alloc(0);
      const text = bytes.toString();
      into.push({ lent: held !== null && bev.heldLent, inLanding: bytes.buffer === landing.buffer, text });
      then(bev, text);
    };

  const warnings = await fallbackWarnings(async () => {
    const { listener, port } = listen(base, (sock) => {
      accepted = sock;
      const onRead = recorder(serverReads, (bev, text) => bev.write(`echo: ${text}`));
      server = new EventBufferEvent(base, sock, EventBufferEvent.OPT_CLOSE_ON_FREE, onRead);
      server.holdReadsFor(onRead);
      server.enable(Event.READ | Event.WRITE);
    });
    const onClientRead = recorder(clientReads, () => base.exit());
    client = new EventBufferEvent(base, null, 0, onClientRead, null, (bev, events) => {
      if (events & EventBufferEvent.CONNECTED) bev.write('ping from the client');
    });
    client.holdReadsFor(onClientRead);
    client.enable(Event.READ | Event.WRITE);
    assert.equal(client.connect(`127.0.0.1:${port}`), true);
    const deadline = Event.timer(base, () => base.exit());
    deadline.add(30);
    await base.dispatch();
    deadline.del();
    listener.free();
  });

  assert.deepEqual(
    serverReads.map((r) => r.text),
    ['ping from the client'],
  );
  assert.deepEqual(
    clientReads.map((r) => r.text),
    ['echo: ping from the client'],
  );
  for (const [side, reads] of [
    ['accepted', serverReads],
    ['connected', clientReads],
  ] as const) {
    assert.deepEqual(
      reads.map((r) => [r.lent, r.inLanding]),
      [[LENT, LENT]],
      `${side} socket: each read's bytes are lent, in the receive buffer`,
    );
  }
  const sockets = [accepted as Socket | null, (client as EventBufferEvent | null)?.getSocket() ?? null];
  for (const sock of sockets) {
    assert.ok(sock !== null);
    assert.equal(onreadBuffer(sock) === landing, LENT, "Node's onread field holds the receive buffer");
    assert.equal(sock.listenerCount('data'), LENT ? 0 : 1, 'nothing reads it as a stream');
  }
  if (LENT) assert.deepEqual(warnings, [], 'no fallback was taken');
});

/** xorshift32: the same numbers for the same seed (a connection's bytes, the piece sizes). */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

/** `n` pseudo-random bytes of stream `seed`. */
function stream(seed: number, n: number): Buffer {
  const next = random(seed);
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i += 4) {
    const v = next();
    for (let k = 0; k < 4 && i + k < n; k++) out[i + k] = (v >>> (8 * k)) & 0xff;
  }
  return out;
}

/** Piece sizes adding up to `total`: a few bytes, a few KiB, or more than the receive buffer. */
function pieces(next: () => number, total: number): number[] {
  const sizes: number[] = [];
  for (let left = total; left > 0;) {
    const kind = next() % 10;
    const max = kind < 4 ? 64 : kind < 7 ? 4096 : LANDING_BYTES + 4096;
    const n = Math.min(left, 1 + (next() % max));
    sizes.push(n);
    left -= n;
  }
  return sizes;
}

/** A client's view of its echo: bytes compared so far and the first difference. */
class Check {
  got = 0;
  mismatch: string | null = null;
  constructor(
    readonly name: string,
    readonly sent: Buffer,
  ) {}

  /** Compares the next bytes of the echo with what was sent at that offset. */
  take(bytes: Uint8Array): void {
    if (this.mismatch !== null) return;
    const want = this.sent.subarray(this.got, this.got + bytes.length);
    if (bytes.length > want.length || Buffer.compare(bytes, want) !== 0) {
      let at = 0;
      while (at < want.length && bytes[at] === want[at]) at++;
      this.mismatch = `${this.name}: byte ${this.got + at} differs (${bytes.length} bytes read at ${this.got})`;
    }
    this.got += bytes.length;
  }

  get done(): boolean {
    return this.mismatch !== null || this.got >= this.sent.length;
  }
}

test(`on Node ${process.version}, many connections reading into one buffer each get back exactly their own bytes`, async (t) => {
  const CONNECTIONS = 24; // half plain sockets, half bufferevents on the server's base
  const BYTES = 192 * 1024; // each way, per connection
  const seed = (Date.now() ^ (process.pid << 16)) >>> 0;
  const next = random(seed);
  const base = new EventBase();
  const landing = base.readLanding.buffer;
  /** Which server connection each read callback was for, in order (to see that they interleave). */
  const readOrder: number[] = [];
  const heldLent: boolean[] = [];
  const serverSockets: Socket[] = [];
  const serverBevs: EventBufferEvent[] = [];

  /**
   * Server side, two kinds by accept order: even ones keep what they read
   * in their input until a random amount has gathered (a read watermark),
   * so their copies live across later reads of every connection; odd ones
   * take each read where it landed and echo a copy of it.
   */
  const { listener, port } = listen(base, (sock) => {
    const id = serverSockets.length;
    serverSockets.push(sock);
    let echoed = 0;
    const bev = new EventBufferEvent(base, sock, EventBufferEvent.OPT_CLOSE_ON_FREE);
    serverBevs.push(bev);
    if (id % 2 === 0) {
      const gather = 1 + (next() % (3 * LANDING_BYTES));
      bev.setWatermark(Event.READ, Math.min(gather, BYTES), 0);
      bev.setCallbacks(
        (b) => {
          readOrder.push(id);
          echoed += b.input.length;
          b.output.addBuffer(b.input);
          b.setWatermark(Event.READ, Math.max(1, Math.min(gather, BYTES - echoed)), 0);
        },
        null,
        null,
      );
    } else {
      const onRead = (b: EventBufferEvent): void => {
        readOrder.push(id);
        const held = b.takeHeld();
        if (held !== null) {
          heldLent.push(b.heldLent && held.buffer === landing.buffer);
          b.output.add(held); // add() copies: the memory is the next read's
        }
        b.output.addBuffer(b.input);
      };
      bev.setCallbacks(onRead, null, null);
      bev.holdReadsFor(onRead);
    }
    bev.enable(Event.READ | Event.WRITE);
  });

  const keep = Event.timer(base, () => {}); // the base dispatches until the end
  keep.add(120);
  const loop = base.dispatch();

  const checks: Check[] = [];
  const senders: Promise<void>[] = [];
  const clientBevs: EventBufferEvent[] = [];
  const plainClients: Socket[] = [];
  t.after(async () => {
    for (const c of plainClients) c.destroy();
    for (const b of [...clientBevs, ...serverBevs]) b.free();
    listener.free();
    keep.del();
    base.exit();
    await loop;
  });
  for (let i = 0; i < CONNECTIONS; i++) {
    const sent = stream(seed + 7919 * (i + 1), BYTES);
    const sizes = pieces(next, BYTES);
    const check = new Check(`connection ${i} (seed ${seed})`, sent);
    checks.push(check);
    let write: (piece: Buffer) => void;
    if (i % 2 === 0) {
      const sock = connect(port, '127.0.0.1');
      plainClients.push(sock);
      sock.on('data', (d: Buffer) => check.take(d));
      write = (piece) => void sock.write(piece);
    } else {
      // A bufferevent on the same base: a connected socket whose reads are lent too.
      const bev = new EventBufferEvent(base, null, 0);
      clientBevs.push(bev);
      const onRead = (b: EventBufferEvent): void => {
        const held = b.takeHeld();
        if (held !== null) {
          heldLent.push(b.heldLent && held.buffer === landing.buffer);
          check.take(held); // compared where it landed
        }
        const rest = b.input.read(b.input.length);
        if (rest !== null) check.take(rest);
      };
      bev.setCallbacks(onRead, null, null);
      bev.holdReadsFor(onRead);
      bev.enable(Event.READ | Event.WRITE);
      assert.equal(bev.connect(`127.0.0.1:${port}`), true);
      write = (piece) => void bev.write(piece);
    }
    senders.push(
      (async () => {
        let off = 0;
        for (const n of sizes) {
          write(sent.subarray(off, off + n));
          off += n;
          await turn(); // the next piece in a later turn: reads of all connections interleave
        }
      })(),
    );
  }
  await Promise.all(senders);
  await waitFor(() => checks.every((c) => c.done), 90_000);

  assert.deepEqual(
    checks.map((c) => c.mismatch).filter((m) => m !== null),
    [],
    'every connection got back its own bytes',
  );
  assert.deepEqual(
    checks.map((c) => c.got),
    checks.map(() => BYTES),
  );
  assert.equal(serverSockets.length, CONNECTIONS);
  // the test did what it says: reads of different connections alternated, through one buffer
  let switches = 0;
  for (let k = 1; k < readOrder.length; k++) if (readOrder[k] !== readOrder[k - 1]) switches++;
  assert.ok(switches >= CONNECTIONS, `reads of different connections interleaved (${switches} switches)`);
  assert.ok(heldLent.length > CONNECTIONS, 'reads taken where they landed');
  assert.deepEqual([...new Set(heldLent)], [LENT], 'each read taken where it landed was lent, in the receive buffer');
  for (const sock of [...serverSockets, ...clientBevs.map((b) => b.getSocket())]) {
    assert.ok(sock !== null);
    assert.equal(onreadBuffer(sock) === landing, LENT, 'every bufferevent socket reads into the receive buffer');
  }
});

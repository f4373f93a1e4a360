import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, Server, type Socket } from 'node:net';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBase } from '../../src/event/base.js';
import { Event } from '../../src/event/event.js';
import {
  EventArgumentError,
  EventSystemError,
  getLastError,
  clearLastError,
  type EventError,
} from '../../src/event/errors.js';
import { EventListener, type AcceptCallback } from '../../src/event/listener.js';
import { EventUtil } from '../../src/event/util.js';
import { sleep } from '../support/net.js';
import { optionalFeature } from '../support/tools.js';

const ERRNO = osConstants.errno as Record<string, number>;

function portOf<T>(l: EventListener<T>): number {
  const name = l.getSocketName();
  assert.ok(name !== false && typeof name.port === 'number', 'listener has a port');
  return name.port;
}

const localPorts = new WeakMap<Socket, number>();

/** Connects and remembers the client's local port (it reads as undefined once the socket closed). */
async function dial(port: number, host = '127.0.0.1'): Promise<Socket> {
  const c = connect(port, host);
  await once(c, 'connect');
  localPorts.set(c, c.localPort as number);
  return c;
}

/** The local port a client had when it connected. */
function lp(c: Socket | undefined): number | undefined {
  return c === undefined ? undefined : localPorts.get(c);
}

async function dialUnix(path: string): Promise<Socket> {
  const c = connect(path);
  await once(c, 'connect');
  return c;
}

/** Reads until `n` bytes arrived. */
async function readBytes(s: Socket, n: number): Promise<string> {
  const chunks: Buffer[] = [];
  let got = 0;
  s.resume();
  while (got < n) {
    const [chunk] = (await once(s, 'data')) as [Buffer];
    chunks.push(chunk);
    got += chunk.length;
  }
  return Buffer.concat(chunks).toString();
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'eventide-listener-'));
}

const isCode =
  (code: string, cls: new (...a: never[]) => EventError = EventArgumentError) =>
  (e: unknown): boolean =>
    e instanceof cls && e.code === code;

async function hasIPv6Loopback(): Promise<boolean> {
  const s = createServer();
  try {
    s.listen(0, '::1');
    await once(s, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    s.close();
  }
}

/** A server that is listening on 127.0.0.1, ready to use. */
/** Connects to a listener that must be listening on 127.0.0.1. */
async function dialLoopback<T>(listener: EventListener<T>): Promise<Socket> {
  const name = listener.getSocketName();
  assert.ok(name !== false);
  assert.equal(name.address, '127.0.0.1');
  return dial(name.port as number);
}

/** A listener on `target` that takes one connection (destroys it) and frees itself; how many it took. */
function acceptOnce(base: EventBase, target: string): { listener: EventListener<null>; accepted: () => number } {
  let n = 0;
  const listener = new EventListener(
    base,
    (l, socket) => {
      n++;
      socket.destroy();
      l.free();
    },
    null,
    0,
    -1,
    target,
  );
  return { listener, accepted: () => n };
}

async function listeningServer(opts: { pauseOnConnect?: boolean } = {}): Promise<Server> {
  const s = createServer(opts);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return s;
}

test('constants have the libevent values', () => {
  assert.deepEqual(
    [
      EventListener.OPT_LEAVE_SOCKETS_BLOCKING,
      EventListener.OPT_CLOSE_ON_FREE,
      EventListener.OPT_CLOSE_ON_EXEC,
      EventListener.OPT_REUSEABLE,
      EventListener.OPT_THREADSAFE,
      EventListener.OPT_DISABLED,
      EventListener.OPT_DEFERRED_ACCEPT,
    ],
    [1, 2, 4, 8, 16, 32, 64],
  );
});

test('TCP: the accept callback gets (listener, socket, [ip, port], arg), only while dispatching', async () => {
  const base = new EventBase();
  const seen: { listener: unknown; address: [string, number] | null; arg: unknown; socket: Socket }[] = [];
  const all =
    EventListener.OPT_CLOSE_ON_FREE |
    EventListener.OPT_REUSEABLE |
    EventListener.OPT_CLOSE_ON_EXEC |
    EventListener.OPT_LEAVE_SOCKETS_BLOCKING |
    EventListener.OPT_THREADSAFE |
    EventListener.OPT_DEFERRED_ACCEPT;
  const listener = new EventListener(
    base,
    (l, socket, address, arg) => {
      seen.push({ listener: l, address, arg, socket });
      assert.equal(base.dispatching, true);
      l.free();
    },
    { tag: 'ctx' },
    all,
    -1,
    '127.0.0.1:0',
  );
  const port = portOf(listener);
  assert.ok(port > 0 && port <= 65535);
  assert.equal(typeof listener.fd, 'number');
  assert.equal(listener.getBase(), base);
  const client = await dial(port);
  try {
    await sleep(50);
    assert.equal(seen.length, 0, 'nothing is delivered while the base is not dispatching');
    assert.equal(await base.dispatch(), true);
    assert.equal(seen.length, 1);
    const [s] = seen;
    assert.ok(s);
    assert.equal(s.listener, listener);
    assert.deepEqual(s.arg, { tag: 'ctx' });
    assert.deepEqual(s.address, [client.localAddress, lp(client)]);
    assert.equal(s.socket.remotePort, lp(client));
    // the accepted socket works
    s.socket.write('pong');
    assert.equal(await readBytes(client, 4), 'pong');
    s.socket.destroy();
  } finally {
    client.destroy();
    listener.free();
  }
});

test('several connections waiting while idle are all delivered, in order, at the next dispatch', async () => {
  const base = new EventBase();
  const ports: number[] = [];
  const listener = new EventListener(
    base,
    (l, socket, address) => {
      ports.push(address?.[1] ?? -1);
      socket.destroy();
      if (ports.length === 3) l.free();
    },
    null,
    0,
    -1,
    '127.0.0.1:0',
  );
  const port = portOf(listener);
  const clients: Socket[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      clients.push(await dial(port));
      await sleep(20);
    }
    await sleep(30);
    assert.equal(ports.length, 0);
    await base.dispatch();
    assert.deepEqual(
      ports,
      clients.map((c) => lp(c)),
    );
  } finally {
    for (const c of clients) c.destroy();
    listener.free();
  }
});

test('accepted sockets start paused: bytes written at once are not read into JS and not lost', async () => {
  const base = new EventBase();
  let accepted: Socket | null = null;
  let flowingAtAccept: boolean | null | undefined;
  let bufferedAtAccept = -1;
  const listener = new EventListener(
    base,
    (l, socket) => {
      accepted = socket;
      flowingAtAccept = socket.readableFlowing;
      bufferedAtAccept = socket.readableLength;
      l.free();
    },
    null,
    0,
    -1,
    '127.0.0.1:0',
  );
  const client = connect(portOf(listener), '127.0.0.1');
  client.write('hello, paused world'); // written immediately on connect
  try {
    await once(client, 'connect');
    await sleep(50);
    await base.dispatch();
    assert.ok(accepted !== null);
    const sock = accepted as Socket;
    assert.equal(flowingAtAccept, false);
    assert.equal(bufferedAtAccept, 0);
    let early = 0;
    sock.on('data', () => early++); // with readableFlowing === false this does not start the flow
    await sleep(50);
    assert.equal(early, 0);
    assert.equal(sock.readableLength, 0, 'nothing was read into the stream');
    assert.equal(await readBytes(sock, 19), 'hello, paused world');
    sock.destroy();
  } finally {
    client.destroy();
    listener.free();
  }
});

test('UNIX socket: accept with address null, getSocketName gives the path; the path is not unlinked first', async () => {
  const dir = tempDir();
  const path = join(dir, 'echo.sock');
  const base = new EventBase();
  try {
    let address: [string, number] | null | undefined;
    let server: Socket | null = null;
    const listener = new EventListener(
      base,
      (l, socket, addr) => {
        address = addr;
        server = socket;
        l.free();
      },
      null,
      EventListener.OPT_CLOSE_ON_FREE | EventListener.OPT_REUSEABLE,
      -1,
      `unix:${path}`,
    );
    assert.deepEqual(listener.getSocketName(), { address: path, family: EventUtil.AF_UNIX });
    assert.ok(existsSync(path));
    const client = await dialUnix(path);
    await base.dispatch();
    assert.equal(address, null);
    assert.ok(server !== null);
    client.write('ping');
    assert.equal(await readBytes(server as Socket, 4), 'ping');
    (server as Socket).destroy();
    client.destroy();
    listener.free();

    // A stale file at the path: EADDRINUSE, and the file stays (the example unlinks it itself).
    const stale = join(dir, 'stale.sock');
    writeFileSync(stale, '');
    assert.throws(
      () => new EventListener(base, () => {}, null, 0, -1, `UNIX:${stale}`),
      (e: unknown) =>
        isCode('ERR_EVENT_LISTENER', EventSystemError)(e) &&
        (e as EventSystemError).errno === ERRNO.EADDRINUSE &&
        (e as Error).message.includes(stale),
    );
    assert.ok(existsSync(stale));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('IPv6: [::1]:0 delivers ["::1", port]', async (t) => {
  if (!optionalFeature((await hasIPv6Loopback()) ? null : 'no IPv6 loopback on this machine').check(t)) return;
  const base = new EventBase();
  let address: [string, number] | null = null;
  const listener = new EventListener(
    base,
    (l, socket, addr) => {
      address = addr;
      socket.destroy();
      l.free();
    },
    null,
    0,
    -1,
    '[::1]:0',
  );
  const name = listener.getSocketName();
  assert.ok(name !== false);
  assert.equal(name.address, '::1');
  assert.equal(name.family, EventUtil.AF_INET6);
  const client = await dial(name.port as number, '::1');
  try {
    await base.dispatch();
    assert.deepEqual(address, ['::1', lp(client)]);
  } finally {
    client.destroy();
    listener.free();
  }
});

test('an enabled listener keeps the loop running; disable() and free() release it', async () => {
  const base = new EventBase();
  const listener = new EventListener(base, () => {}, null, 0, -1, '127.0.0.1:0');
  try {
    let done = false;
    const p = base.dispatch().then(() => (done = true));
    await sleep(60);
    assert.equal(done, false, 'still dispatching while enabled');
    assert.equal(listener.disable(), true);
    await p;
    assert.equal(done, true);

    assert.equal(await base.dispatch(), true, 'a disabled listener does not hold the loop');

    assert.equal(listener.enable(), true);
    done = false;
    const p2 = base.dispatch().then(() => (done = true));
    await sleep(60);
    assert.equal(done, false);
    listener.free();
    await p2;
    assert.equal(done, true);
  } finally {
    listener.free();
  }
});

test('disable/enable: connections arriving while disabled wait, enable() delivers them; OPT_DISABLED starts disabled', async () => {
  const base = new EventBase();
  const got: number[] = [];
  const listener = new EventListener(
    base,
    (l, socket, address) => {
      got.push(address?.[1] ?? -1);
      socket.destroy();
    },
    null,
    EventListener.OPT_DISABLED,
    -1,
    '127.0.0.1:0',
  );
  const port = portOf(listener);
  const clients: Socket[] = [];
  try {
    clients.push(await dial(port));
    const expected = clients.map((c) => lp(c));
    base.exit(0.15);
    await base.dispatch();
    assert.deepEqual(got, [], 'nothing while disabled');

    assert.equal(listener.enable(), true);
    const timer = Event.timer(base, () => listener.disable());
    timer.add(0.1);
    await base.dispatch(); // ends when the timer disables the listener
    assert.deepEqual(got, expected);

    clients.push(await dial(port));
    expected.push(lp(clients[1]));
    base.exit(0.1);
    await base.dispatch();
    assert.equal(got.length, 1, 'disabled again: nothing delivered');
    listener.enable();
    Event.timer(base, () => listener.free()).add(0.1);
    await base.dispatch();
    assert.deepEqual(got, expected);
  } finally {
    for (const c of clients) c.destroy();
    listener.free();
  }
});

test('setCallback replaces the callback and its argument (an omitted argument becomes null)', async () => {
  const base = new EventBase();
  const calls: string[] = [];
  const second: AcceptCallback<string | null> = (l, socket, _a, arg) => {
    calls.push(`second:${String(arg)}`);
    socket.destroy();
    l.disable();
  };
  const listener = new EventListener<string | null>(
    base,
    (l, socket, _a, arg) => {
      calls.push(`first:${String(arg)}`);
      socket.destroy();
      l.setCallback(second, 'two');
      l.disable();
    },
    'one',
    0,
    -1,
    '127.0.0.1:0',
  );
  const port = portOf(listener);
  const clients: Socket[] = [];
  try {
    clients.push(await dial(port));
    await base.dispatch();
    listener.enable();
    clients.push(await dial(port));
    await base.dispatch();
    listener.setCallback(second);
    listener.enable();
    clients.push(await dial(port));
    await base.dispatch();
    assert.deepEqual(calls, ['first:one', 'second:two', 'second:null']);
    assert.equal(listener.setCallback('nope' as unknown as AcceptCallback<string | null>), false);
    assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_ARGUMENT');
  } finally {
    for (const c of clients) c.destroy();
    listener.free();
  }
});

test('a null callback listens without delivering (and without holding the loop) until setCallback()', async () => {
  const base = new EventBase();
  const listener = new EventListener<number>(base, null, 7, 0, -1, '127.0.0.1:0');
  const client = await dial(portOf(listener));
  try {
    assert.equal(await base.dispatch(), true, 'ends at once: nothing can be delivered');
    let got: number | null = null;
    listener.setCallback((l, socket, _a, arg) => {
      got = arg;
      socket.destroy();
      l.free();
    }, 9);
    await base.dispatch();
    assert.equal(got, 9);
  } finally {
    client.destroy();
    listener.free();
  }
});

test('getSocketName returns the real bound port; fd; after free() everything is "not initialized"', async () => {
  const base = new EventBase();
  const listener = new EventListener(base, () => {}, null, 0, 16, '127.0.0.1:0');
  const name = listener.getSocketName();
  assert.ok(name !== false);
  assert.equal(name.address, '127.0.0.1');
  assert.equal(name.family, EventUtil.AF_INET);
  assert.ok((name.port as number) > 0);
  // it really listens there
  const client = await dial(name.port as number);
  client.destroy();
  const fd = listener.fd;
  assert.ok(typeof fd === 'number' && fd >= 0);
  assert.equal(EventUtil.getSocketFd(fd), fd);

  listener.free();
  listener.free(); // harmless
  assert.equal(listener.fd, null);
  clearLastError();
  assert.equal(listener.getSocketName(), false);
  assert.equal(getLastError()?.code, 'ERR_EVENT_FREED');
  assert.equal(getLastError()?.message, 'EventListener is not initialized');
  for (const call of [
    () => listener.enable(),
    () => listener.disable(),
    () => listener.setCallback(() => {}),
    () => listener.setErrorCallback(() => {}),
  ]) {
    clearLastError();
    assert.equal(call(), false);
    assert.equal(getLastError()?.code, 'ERR_EVENT_FREED');
  }
  assert.equal(listener.getBase(), base);
  // the port is free again
  const again = new EventListener(base, () => {}, null, 0, -1, `127.0.0.1:${name.port as number}`);
  assert.equal(portOf(again), name.port);
  again.free();
});

test('a port in use throws EventSystemError ERR_EVENT_LISTENER naming the address (also with OPT_REUSEABLE)', async (t) => {
  const base = new EventBase();
  const busy = await listeningServer();
  const { port } = busy.address() as { port: number };
  try {
    for (const flags of [
      0,
      EventListener.OPT_REUSEABLE,
      EventListener.OPT_REUSEABLE | EventListener.OPT_CLOSE_ON_FREE,
    ]) {
      assert.throws(
        () => new EventListener(base, () => {}, null, flags, -1, `127.0.0.1:${port}`),
        (e: unknown) => {
          assert.ok(e instanceof EventSystemError);
          assert.equal(e.code, 'ERR_EVENT_LISTENER');
          assert.equal(e.message, `Failed to listen on 127.0.0.1:${port}: address already in use (EADDRINUSE)`);
          assert.equal(e.errno, ERRNO.EADDRINUSE);
          assert.equal(typeof e.syscall, 'string');
          assert.equal((e.cause as NodeJS.ErrnoException).code, 'EADDRINUSE');
          return true;
        },
      );
      assert.equal(EventUtil.getLastSocketErrno(), ERRNO.EADDRINUSE);
      assert.equal(EventUtil.getLastSocketError(), 'Address already in use');
    }
    // an address that is not local (unless the system allows non-local binds)
    try {
      new EventListener(base, () => {}, null, 0, -1, '192.0.2.1:0').free();
      t.diagnostic('non-local bind allowed on this system');
    } catch (e) {
      assert.ok(isCode('ERR_EVENT_LISTENER', EventSystemError)(e));
      assert.equal((e as EventSystemError).errno, ERRNO.EADDRNOTAVAIL);
      assert.match((e as Error).message, /^Failed to listen on 192\.0\.2\.1:0: /);
    }
  } finally {
    busy.close();
  }
});

test('malformed addresses and out-of-range ports throw ERR_EVENT_ADDRESS "Failed to parse network address X"', () => {
  const base = new EventBase();
  for (const target of [
    '127.0.0.1',
    '[::1]',
    '::1',
    '::1:0',
    '127.0.0.1:65536',
    '127.0.0.1:99999',
    '1.2.3.4:-1',
    '1.2.3.4:',
    ' 127.0.0.1:80',
    '256.1.1.1:80',
    'unix:',
    'not an address',
    '',
  ]) {
    assert.throws(
      () => new EventListener(base, () => {}, null, 0, -1, target),
      (e: unknown) =>
        isCode('ERR_EVENT_ADDRESS')(e) && (e as Error).message === `Failed to parse network address ${target}`,
      JSON.stringify(target),
    );
  }
  // a host name that does not resolve is reported the same way (as PHP's parser does)
  assert.throws(
    () => new EventListener(base, () => {}, null, 0, -1, 'no-such-host.invalid:80'),
    isCode('ERR_EVENT_ADDRESS'),
  );
});

test('localhost names are the loopback at once, without a lookup: localhost:0 listens on 127.0.0.1', async () => {
  const base = new EventBase();
  let address: [string, number] | null = null;
  const listener = new EventListener(
    base,
    (l, socket, addr) => {
      address = addr;
      socket.destroy();
      l.free();
    },
    null,
    0,
    -1,
    'localhost:0',
  );
  const client = await dialLoopback(listener);
  try {
    await base.dispatch();
    assert.deepEqual(address, ['127.0.0.1', lp(client)]);
  } finally {
    client.destroy();
    listener.free();
  }
});

test('other host names are looked up without blocking the loop: the listener listens once "127.1" resolves', async () => {
  // getaddrinfo() reads "127.1" as 127.0.0.1 (inet_aton), without asking a resolver.
  const base = new EventBase();
  const { listener, accepted } = acceptOnce(base, '127.1:0');
  try {
    // The constructor returned before the lookup: nothing listens yet.
    assert.equal(listener.getSocketName(), false);
    await listener.ready;
    const client = await dialLoopback(listener);
    try {
      await base.dispatch();
      assert.equal(accepted(), 1);
    } finally {
      client.destroy();
    }
  } finally {
    listener.free();
  }
});

test('a looked-up host name whose port is taken: ready rejects and the error callback runs, the constructor does not throw', async () => {
  const taken = await listeningServer();
  const port = (taken.address() as { port: number }).port;
  const base = new EventBase();
  let errors = 0;
  const listener = new EventListener(base, () => {}, null, 0, -1, `127.1:${port}`);
  listener.setErrorCallback(() => {
    errors++;
    base.exit();
  });
  try {
    await assert.rejects(listener.ready, (e: unknown) => {
      assert.ok(e instanceof EventSystemError);
      assert.equal(e.code, 'ERR_EVENT_LISTENER');
      assert.match(e.message, new RegExp(`^Failed to listen on 127\\.1:${port}: .*\\(EADDRINUSE\\)$`));
      return true;
    });
    await base.dispatch();
    assert.equal(errors, 1);
    assert.equal(EventUtil.getLastSocketErrno(), ERRNO.EADDRINUSE);
  } finally {
    listener.free();
    taken.close();
  }
});

test('a listener freed before its host name resolved never listens', async () => {
  const listening = (): number =>
    (process as unknown as { _getActiveHandles(): unknown[] })
      ._getActiveHandles()
      .filter((h) => h instanceof Server && h.listening).length;
  const before = listening();
  const base = new EventBase();
  const listener = new EventListener(base, () => {}, null, 0, -1, '127.1:0');
  listener.free();
  await assert.rejects(listener.ready, (e: unknown) => (e as { code?: unknown }).code === 'ERR_EVENT_FREED');
  await sleep(100); // the lookup has come back by now
  assert.equal(listening(), before);
});

test('UNIX path in a missing directory or a non-writable directory: ERR_EVENT_LISTENER', (t) => {
  const base = new EventBase();
  const dir = tempDir();
  try {
    const missing = join(dir, 'no', 'such', 'dir', 'x.sock');
    assert.throws(
      () => new EventListener(base, () => {}, null, 0, -1, `unix:${missing}`),
      (e: unknown) => {
        assert.ok(e instanceof EventSystemError);
        assert.equal(e.code, 'ERR_EVENT_LISTENER');
        assert.equal(e.message, `Failed to listen on unix:${missing}: no such file or directory (ENOENT)`);
        assert.equal(e.errno, ERRNO.ENOENT);
        return true;
      },
    );
    let readonly: string | null = null;
    if (process.getuid?.() !== 0) {
      const ro = join(dir, 'ro');
      mkdirSync(ro);
      chmodSync(ro, 0o555);
      readonly = join(ro, 'x.sock');
    } else if (process.platform === 'linux') {
      readonly = '/proc/eventide-listener-test.sock'; // not writable, even for root
    }
    if (readonly === null) {
      t.diagnostic('no non-writable directory available for this user');
      return;
    }
    assert.throws(
      () => new EventListener(base, () => {}, null, 0, -1, `unix:${readonly}`),
      (e: unknown) => {
        assert.ok(e instanceof EventSystemError);
        assert.equal(e.code, 'ERR_EVENT_LISTENER');
        assert.ok(e.message.startsWith(`Failed to listen on unix:${readonly}: `), e.message);
        assert.ok(e.errno > 0);
        return true;
      },
    );
  } finally {
    try {
      chmodSync(join(dir, 'ro'), 0o755);
    } catch {
      // not created
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

// eslint-disable-next-line @typescript-eslint/require-await -- assert.rejects takes a promise-returning function
test('backlog 0 with a string target fails; bad arguments throw typed errors', async () => {
  const base = new EventBase();
  assert.throws(
    () => new EventListener(base, () => {}, null, 0, 0, '127.0.0.1:0'),
    isCode('ERR_EVENT_LISTENER', EventSystemError),
  );
  assert.throws(
    () => new EventListener(base, () => {}, null, 0, 1.5, '127.0.0.1:0'),
    isCode('ERR_EVENT_INVALID_ARGUMENT'),
  );
  assert.throws(
    () => new EventListener(base, () => {}, null, 0.5, -1, '127.0.0.1:0'),
    isCode('ERR_EVENT_INVALID_ARGUMENT'),
  );
  assert.throws(
    () => new EventListener(base, 'cb' as unknown as AcceptCallback, null, 0, -1, '127.0.0.1:0'),
    isCode('ERR_EVENT_INVALID_ARGUMENT'),
  );
  assert.throws(
    () => new EventListener({} as EventBase, () => {}, null, 0, -1, '127.0.0.1:0'),
    isCode('ERR_EVENT_INVALID_ARGUMENT'),
  );
  assert.throws(
    () => new EventListener(base, () => {}, null, 0, -1, {} as unknown as string),
    isCode('ERR_EVENT_INVALID_ARGUMENT'),
  );
  assert.throws(() => new EventListener(base, () => {}, null, 0, -1, -1), isCode('ERR_EVENT_INVALID_DESCRIPTOR'));
  assert.throws(() => new EventListener(base, () => {}, null, 0, -1, 2.5), isCode('ERR_EVENT_INVALID_DESCRIPTOR'));
  // a descriptor that is not open, and one that is not a socket
  assert.throws(
    () => new EventListener(base, () => {}, null, 0, -1, 987654),
    (e: unknown) => isCode('ERR_EVENT_LISTENER', EventSystemError)(e) && (e as EventSystemError).errno === ERRNO.EBADF,
  );
  const dir = tempDir();
  const file = join(dir, 'plain');
  writeFileSync(file, 'x');
  const fd = openSync(file, 'r');
  try {
    assert.throws(
      () => new EventListener(base, () => {}, null, 0, -1, fd),
      (e: unknown) =>
        isCode('ERR_EVENT_LISTENER', EventSystemError)(e) &&
        (e as EventSystemError).errno === ERRNO.ENOTSOCK &&
        /fd \d+/.test((e as Error).message),
    );
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  const freed = new EventBase();
  freed.free();
  assert.throws(
    () => new EventListener(freed, () => {}, null, 0, -1, '127.0.0.1:0'),
    (e: unknown) => (e as EventError).code === 'ERR_EVENT_BASE_FREED',
  );
});

test('adopting a listening net.Server (backlog 0): its connections are delivered; free() leaves it to its owner unless OPT_CLOSE_ON_FREE', async () => {
  const base = new EventBase();
  const server = await listeningServer({ pauseOnConnect: true });
  const { port } = server.address() as { port: number };
  const clients: Socket[] = [];
  try {
    let address: [string, number] | null = null;
    const listener = new EventListener(
      base,
      (l, socket, addr) => {
        address = addr;
        socket.destroy();
        l.free();
      },
      null,
      0,
      0,
      server,
    );
    await listener.ready;
    assert.equal(portOf(listener), port);
    assert.equal(listener.fd, EventUtil.getSocketFd(server));
    clients.push(await dial(port));
    await base.dispatch();
    assert.deepEqual(address, ['127.0.0.1', lp(clients[0])]);
    assert.equal(server.listening, true, 'not closed without OPT_CLOSE_ON_FREE');
    assert.equal(server.listenerCount('connection'), 0, 'handlers removed');

    const closing = new EventListener(base, () => {}, null, EventListener.OPT_CLOSE_ON_FREE, 0, server);
    closing.free();
    assert.equal(server.listening, false, 'closed with OPT_CLOSE_ON_FREE');
  } finally {
    for (const c of clients) c.destroy();
    server.close();
  }
});

test('adopting a net.Server still starting to listen: ready resolves; the same fd number also adopts it', async () => {
  const base = new EventBase();
  const server = createServer({ pauseOnConnect: true });
  server.listen(0, '127.0.0.1');
  assert.equal(server.listening, false);
  const got: number[] = [];
  const listener = new EventListener(
    base,
    (l, socket, addr) => {
      got.push(addr?.[1] ?? -1);
      socket.destroy();
      l.free();
    },
    null,
    0,
    -1,
    server,
  );
  const clients: Socket[] = [];
  try {
    assert.equal(listener.fd, null, 'no descriptor yet');
    await listener.ready;
    const port = portOf(listener);
    clients.push(await dial(port));
    await base.dispatch();
    assert.deepEqual(got, [lp(clients[0])]);

    // an fd owned by a net.Server of this process is adopted, not opened twice
    const fd = EventUtil.getSocketFd(server);
    const byFd = new EventListener(
      base,
      (l, socket, addr) => {
        got.push(addr?.[1] ?? -1);
        socket.destroy();
        l.free();
      },
      null,
      0,
      -1,
      fd,
    );
    assert.equal(byFd.fd, fd);
    clients.push(await dial(port));
    await base.dispatch();
    assert.deepEqual(
      got,
      clients.map((c) => lp(c)),
    );
    assert.equal(server.listening, true);
  } finally {
    for (const c of clients) c.destroy();
    listener.free();
    server.close();
  }
});

test('an adopted server that fails to listen: the error callback runs with the errno, ready rejects', async () => {
  const base = new EventBase();
  const busy = await listeningServer();
  const { port } = busy.address() as { port: number };
  const server = createServer();
  server.listen(port, '127.0.0.1');
  const errors: [number, string, unknown][] = [];
  const listener = new EventListener(base, () => {}, 'data', 0, -1, server);
  listener.setErrorCallback((l, arg) => {
    assert.equal(l, listener);
    errors.push([EventUtil.getLastSocketErrno(), EventUtil.getLastSocketError(), arg]);
  });
  try {
    await assert.rejects(
      listener.ready,
      (e: unknown) =>
        isCode('ERR_EVENT_LISTENER', EventSystemError)(e) && (e as EventSystemError).errno === ERRNO.EADDRINUSE,
    );
    assert.equal(await base.dispatch(), true, 'the loop ends: a listener that cannot listen does not hold it');
    assert.deepEqual(errors, [[ERRNO.EADDRINUSE, 'Address already in use', 'data']]);
  } finally {
    listener.free();
    busy.close();
    server.close();
  }
});

test('accept errors go to the error callback from the loop (errno set); without one, a warning is recorded', async () => {
  const base = new EventBase();
  const server = await listeningServer();
  const emfile = (): NodeJS.ErrnoException =>
    Object.assign(new Error('accept EMFILE'), { errno: -(ERRNO.EMFILE as number), code: 'EMFILE', syscall: 'accept' });
  const listener = new EventListener(base, () => {}, 'ctx', 0, 0, server);
  try {
    const seen: [number, string, unknown][] = [];
    listener.setErrorCallback((l, arg) => {
      seen.push([EventUtil.getLastSocketErrno(), EventUtil.getLastSocketError(), arg]);
      l.getBase().exit();
    });
    server.emit('error', emfile());
    assert.deepEqual(seen, [], 'not delivered while idle');
    await base.dispatch();
    assert.deepEqual(seen, [[ERRNO.EMFILE, 'Too many open files', 'ctx']]);

    listener.setErrorCallback(null);
    clearLastError();
    Event.timer(base, () => server.emit('error', emfile())).add(0.01);
    base.exit(0.1);
    await base.dispatch();
    const w = getLastError();
    assert.equal(w?.code, 'ERR_EVENT_LISTENER');
    assert.equal(w?.message, 'Error from accept() call: Too many open files');
  } finally {
    listener.free();
    server.close();
  }
});

test('a throwing accept callback disables the listener, destroys the socket and rejects the loop', async () => {
  const base = new EventBase();
  const boom = new Error('boom');
  let calls = 0;
  const listener = new EventListener(
    base,
    () => {
      calls++;
      throw boom;
    },
    null,
    0,
    -1,
    '127.0.0.1:0',
  );
  const port = portOf(listener);
  const clients: Socket[] = [];
  try {
    const first = await dial(port);
    clients.push(first);
    const closed = once(first, 'close');
    await assert.rejects(base.dispatch(), (e) => e === boom);
    assert.equal(calls, 1);
    assert.equal(base.gotStop(), true);
    await closed; // the server side was destroyed

    // disabled: a second connection is not delivered
    clients.push(await dial(port));
    base.exit(0.1);
    assert.equal(await base.dispatch(), true);
    assert.equal(calls, 1);

    let delivered = 0;
    listener.setCallback((l, socket) => {
      delivered++;
      socket.destroy();
      l.free();
    });
    listener.enable();
    await base.dispatch();
    assert.equal(delivered, 1);
  } finally {
    for (const c of clients) c.destroy();
    listener.free();
  }
});

test('descriptor target: a bound socket fd listens; free() without OPT_CLOSE_ON_FREE keeps it, the next listener on it gets what arrived', async () => {
  const binding = (
    process as unknown as {
      binding: (m: string) => {
        TCP: new (t: number) => { bind(a: string, p: number): number; fd: number };
        constants: { SERVER: number };
      };
    }
  ).binding('tcp_wrap');
  const raw = new binding.TCP(binding.constants.SERVER);
  assert.equal(raw.bind('127.0.0.1', 0), 0);
  const fd = raw.fd;
  const base = new EventBase();
  const clients: Socket[] = [];
  const got: string[] = [];
  const first = new EventListener(
    base,
    (l, socket, addr, arg) => {
      got.push(`${String(arg)}:${addr?.[1] ?? -1}`);
      socket.destroy();
      l.free();
    },
    'a',
    0,
    -1,
    fd,
  );
  let second: EventListener<string> | null = null;
  try {
    const port = portOf(first);
    assert.equal(first.fd, fd);
    clients.push(await dial(port));
    const p0 = lp(clients[0]);
    await base.dispatch();
    assert.deepEqual(got, [`a:${p0}`]);

    // parked: still listening, the connection waits
    clients.push(await dial(port));
    const p1 = lp(clients[1]);
    await sleep(30);
    second = new EventListener(
      base,
      (l, socket, addr, arg) => {
        got.push(`${arg}:${addr?.[1] ?? -1}`);
        socket.destroy();
        l.disable();
      },
      'b',
      EventListener.OPT_CLOSE_ON_FREE,
      0,
      fd,
    );
    assert.throws(
      () => new EventListener(base, () => {}, null, 0, -1, fd),
      isCode('ERR_EVENT_LISTENER', EventSystemError),
    );
    await base.dispatch();
    assert.deepEqual(got, [`a:${p0}`, `b:${p1}`]);
    second.free();
    await sleep(20);
    const refused = connect(port, '127.0.0.1');
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    assert.equal(err.code, 'ECONNREFUSED', 'closed with OPT_CLOSE_ON_FREE');
  } finally {
    for (const c of clients) c.destroy();
    first.free();
    second?.free();
  }
});

test('a listener and its queued connections are released by free() inside the loop', async () => {
  const base = new EventBase();
  const { listener, accepted } = acceptOnce(base, '127.0.0.1:0'); // a second queued connection is closed, not delivered
  const port = portOf(listener);
  const a = await dial(port);
  const b = await dial(port);
  try {
    await sleep(50);
    const closedB = once(b, 'close');
    const closedA = once(a, 'close');
    await base.dispatch();
    assert.equal(accepted(), 1);
    await Promise.all([closedA, closedB]);
  } finally {
    a.destroy();
    b.destroy();
  }
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventUtil, setLastSocketError, setUnixPeerPath } from '../../src/event/util.js';
import { getLastError, clearLastError, EventError } from '../../src/event/errors.js';
import { pollSourceOf } from '../../src/event/descriptor.js';
import { optionalFeature } from '../support/tools.js';

interface Pair {
  server: net.Server;
  client: net.Socket;
  accepted: net.Socket;
  close(): Promise<void>;
}

async function tcpPair(): Promise<Pair> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const acceptedP = once(server, 'connection') as Promise<[net.Socket]>;
  const port = (server.address() as net.AddressInfo).port;
  const client = net.connect(port, '127.0.0.1');
  await once(client, 'connect');
  const [accepted] = await acceptedP;
  return {
    server,
    client,
    accepted,
    async close() {
      client.destroy();
      accepted.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('EventUtil constants', () => {
  test('Linux values', () => {
    const expected: Record<string, number> = {
      AF_UNSPEC: 0,
      AF_UNIX: 1,
      AF_INET: 2,
      AF_INET6: 10,
      SOL_SOCKET: 1,
      SOL_TCP: 6,
      SOL_UDP: 17,
      IPPROTO_IP: 0,
      IPPROTO_TCP: 6,
      IPPROTO_UDP: 17,
      IPPROTO_IPV6: 41,
      SOCK_RAW: 3,
      SO_DEBUG: 1,
      SO_REUSEADDR: 2,
      SO_TYPE: 3,
      SO_ERROR: 4,
      SO_DONTROUTE: 5,
      SO_BROADCAST: 6,
      SO_SNDBUF: 7,
      SO_RCVBUF: 8,
      SO_KEEPALIVE: 9,
      SO_OOBINLINE: 10,
      SO_LINGER: 13,
      SO_RCVLOWAT: 18,
      SO_SNDLOWAT: 19,
      SO_RCVTIMEO: 20,
      SO_SNDTIMEO: 21,
      TCP_NODELAY: 1,
      LIBEVENT_VERSION_NUMBER: 0x02010c00,
    };
    for (const [name, value] of Object.entries(expected)) {
      assert.equal((EventUtil as unknown as Record<string, number>)[name], value, name);
    }
  });

  test('new EventUtil() throws', () => {
    const Ctor = EventUtil as unknown as new () => unknown;
    assert.throws(
      () => new Ctor(),
      (e: unknown) => e instanceof EventError && e.code === 'ERR_EVENT_INVALID_ARGUMENT',
    );
  });

  test('sslRandPoll() is true', () => {
    assert.equal(EventUtil.sslRandPoll(), true);
  });
});

describe('getSocketName / getPeerName', () => {
  test('TCP on 127.0.0.1', async () => {
    const p = await tcpPair();
    try {
      const srvAddr = p.server.address() as net.AddressInfo;
      assert.deepEqual(EventUtil.getSocketName(p.server), {
        address: '127.0.0.1',
        port: srvAddr.port,
        family: EventUtil.AF_INET,
      });
      const local = p.client.address() as net.AddressInfo;
      assert.deepEqual(EventUtil.getSocketName(p.client), {
        address: '127.0.0.1',
        port: local.port,
        family: EventUtil.AF_INET,
      });
      assert.deepEqual(EventUtil.getPeerName(p.client), {
        address: '127.0.0.1',
        port: srvAddr.port,
        family: EventUtil.AF_INET,
      });
      assert.deepEqual(EventUtil.getSocketName(p.accepted), {
        address: '127.0.0.1',
        port: srvAddr.port,
        family: EventUtil.AF_INET,
      });
      assert.deepEqual(EventUtil.getPeerName(p.accepted), {
        address: '127.0.0.1',
        port: local.port,
        family: EventUtil.AF_INET,
      });
      clearLastError();
      assert.equal(EventUtil.getPeerName(p.server), false);
      assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_DESCRIPTOR');
    } finally {
      await p.close();
    }
  });

  test('IPv6 loopback when available', async (t) => {
    const server = net.createServer();
    try {
      server.listen(0, '::1');
      await once(server, 'listening');
    } catch (err) {
      optionalFeature(`no IPv6 loopback (${(err as Error).message})`).check(t);
      return;
    }
    const port = (server.address() as net.AddressInfo).port;
    assert.deepEqual(EventUtil.getSocketName(server), { address: '::1', port, family: EventUtil.AF_INET6 });
    await new Promise<void>((r) => server.close(() => r()));
  });

  test('closed, unbound and non-socket values give false with a warning', async () => {
    const p = await tcpPair();
    await p.close();
    clearLastError();
    assert.equal(EventUtil.getSocketName(p.client), false);
    assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_DESCRIPTOR');
    assert.equal(EventUtil.getPeerName(p.client), false);
    assert.equal(EventUtil.getSocketName(new net.Socket()), false);
    assert.equal(EventUtil.getSocketName(net.createServer()), false);
    assert.equal(EventUtil.getSocketName({} as net.Socket), false);
    assert.match(getLastError()?.message ?? '', /not a socket/);
  });

  test('UNIX-domain socket: the path, no port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventide-util-'));
    const path = join(dir, 's.sock');
    const server = net.createServer();
    try {
      server.listen(path);
      await once(server, 'listening');
      const acceptedP = once(server, 'connection') as Promise<[net.Socket]>;
      const client = net.connect(path);
      await once(client, 'connect');
      const [accepted] = await acceptedP;
      assert.deepEqual(EventUtil.getSocketName(server), { address: path, family: EventUtil.AF_UNIX });
      assert.deepEqual(EventUtil.getSocketName(accepted), { address: path, family: EventUtil.AF_UNIX });
      // A client is unnamed, and so is the peer of an accepted socket.
      assert.deepEqual(EventUtil.getSocketName(client), { address: '', family: EventUtil.AF_UNIX });
      assert.deepEqual(EventUtil.getPeerName(accepted), { address: '', family: EventUtil.AF_UNIX });
      // Node does not expose getpeername() for UNIX sockets: unknown until recorded.
      clearLastError();
      assert.equal(EventUtil.getPeerName(client), false);
      assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_DESCRIPTOR');
      setUnixPeerPath(client, path);
      assert.deepEqual(EventUtil.getPeerName(client), { address: path, family: EventUtil.AF_UNIX });
      // TCP-only options are not supported on a UNIX socket.
      assert.equal(EventUtil.setSocketOption(client, EventUtil.SOL_TCP, EventUtil.TCP_NODELAY, 1), false);
      assert.equal(getLastError()?.code, 'ERR_EVENT_SOCKET_OPTION');
      client.destroy();
      accepted.destroy();
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('setSocketOption', () => {
  test('supported options', async () => {
    const p = await tcpPair();
    try {
      assert.equal(EventUtil.setSocketOption(p.client, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1), true);
      assert.equal(EventUtil.setSocketOption(p.client, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, false), true);
      assert.equal(EventUtil.setSocketOption(p.client, EventUtil.SOL_TCP, EventUtil.TCP_NODELAY, 1), true);
      assert.equal(EventUtil.setSocketOption(p.accepted, EventUtil.IPPROTO_TCP, EventUtil.TCP_NODELAY, true), true);
      assert.equal(
        EventUtil.setSocketOption(p.client, EventUtil.SOL_SOCKET, EventUtil.SO_LINGER, { l_onoff: 0, l_linger: 0 }),
        true,
      );
      if (process.platform !== 'win32') {
        assert.equal(EventUtil.setSocketOption(p.server, EventUtil.SOL_SOCKET, EventUtil.SO_REUSEADDR, 1), true);
      }
      // Not connected yet: Node applies it on connect.
      assert.equal(EventUtil.setSocketOption(new net.Socket(), EventUtil.SOL_TCP, EventUtil.TCP_NODELAY, 1), true);
    } finally {
      await p.close();
    }
  });

  test('unsupported options', async () => {
    const p = await tcpPair();
    try {
      const cases: [number, number, number | { l_onoff: number; l_linger: number } | { sec: number; usec: number }][] =
        [
          [EventUtil.SOL_SOCKET, EventUtil.SO_RCVBUF, 65536],
          [EventUtil.SOL_SOCKET, EventUtil.SO_SNDBUF, 65536],
          [EventUtil.SOL_SOCKET, EventUtil.SO_BROADCAST, 1],
          [EventUtil.SOL_SOCKET, EventUtil.SO_REUSEADDR, 1],
          [EventUtil.SOL_SOCKET, EventUtil.SO_RCVTIMEO, { sec: 1, usec: 0 }],
          [EventUtil.SOL_SOCKET, EventUtil.SO_SNDTIMEO, { sec: 1, usec: 0 }],
          [EventUtil.SOL_SOCKET, EventUtil.SO_LINGER, { l_onoff: 1, l_linger: 0 }],
          [EventUtil.IPPROTO_IP, 1, 1],
        ];
      for (const [level, opt, value] of cases) {
        clearLastError();
        assert.equal(EventUtil.setSocketOption(p.client, level, opt, value), false, `${level}/${opt}`);
        const err = getLastError();
        assert.equal(err?.code, 'ERR_EVENT_SOCKET_OPTION');
        assert.match(err?.message ?? '', /^Unable to set socket option .*: not supported by Node\.js for this socket/);
      }
      clearLastError();
      assert.equal(EventUtil.setSocketOption(p.server, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1), false);
      assert.equal(getLastError()?.code, 'ERR_EVENT_SOCKET_OPTION');
    } finally {
      await p.close();
    }
  });

  test('shape validation messages', async () => {
    const p = await tcpPair();
    try {
      const check = (opt: number, value: unknown, message: string): void => {
        clearLastError();
        assert.equal(EventUtil.setSocketOption(p.client, EventUtil.SOL_SOCKET, opt, value as number), false);
        assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_ARGUMENT');
        assert.equal(getLastError()?.message, message);
      };
      check(EventUtil.SO_RCVTIMEO, { usec: 0 }, 'no key "sec" passed in optval');
      check(EventUtil.SO_SNDTIMEO, { sec: 1 }, 'no key "usec" passed in optval');
      check(EventUtil.SO_RCVTIMEO, 5, 'no key "sec" passed in optval');
      check(EventUtil.SO_LINGER, { l_linger: 5 }, 'no key "l_onoff" passed in optval');
      check(EventUtil.SO_LINGER, { l_onoff: 1 }, 'no key "l_linger" passed in optval');
      clearLastError();
      assert.equal(
        EventUtil.setSocketOption(p.client, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, { sec: 1, usec: 0 }),
        false,
      );
      assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_ARGUMENT');
    } finally {
      await p.close();
    }
  });

  test('non-socket and closed socket', async () => {
    clearLastError();
    assert.equal(EventUtil.setSocketOption({} as net.Socket, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1), false);
    assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_DESCRIPTOR');
    assert.equal(
      EventUtil.setSocketOption(42 as unknown as net.Socket, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1),
      false,
    );
    const p = await tcpPair();
    await p.close();
    clearLastError();
    assert.equal(EventUtil.setSocketOption(p.client, EventUtil.SOL_SOCKET, EventUtil.SO_KEEPALIVE, 1), false);
    assert.equal(getLastError()?.code, 'ERR_EVENT_SOCKET_OPTION');
    assert.match(getLastError()?.message ?? '', /errno: 9/);
  });
});

describe('getSocketFd / createSocket', () => {
  test('a socket gives its fd, junk gives -1', async () => {
    const p = await tcpPair();
    try {
      const fd = EventUtil.getSocketFd(p.client);
      assert.ok(Number.isInteger(fd) && fd >= 0, `fd ${fd}`);
      assert.notEqual(EventUtil.getSocketFd(p.accepted), fd);
      assert.equal(EventUtil.getSocketFd(7), 7);
    } finally {
      await p.close();
    }
    assert.equal(EventUtil.getSocketFd({}), -1);
    assert.equal(EventUtil.getSocketFd(null), -1);
    assert.equal(EventUtil.getSocketFd('3'), -1);
    assert.equal(EventUtil.getSocketFd(-5), -1);
    assert.equal(EventUtil.getSocketFd(1.5), -1);
    assert.equal(EventUtil.getSocketFd(p.client), -1); // closed
  });

  test('createSocket rejects what is not an open socket', () => {
    clearLastError();
    assert.equal(EventUtil.createSocket(-1), false);
    assert.equal(getLastError()?.code, 'ERR_EVENT_INVALID_DESCRIPTOR');
    assert.equal(EventUtil.createSocket(1.5), false);
    assert.equal(EventUtil.createSocket(987654), false);
    assert.match(getLastError()?.message ?? '', /not open/);
  });
});

describe('last socket error', () => {
  test('starts as Success', () => {
    setLastSocketError(null);
    assert.equal(EventUtil.getLastSocketErrno(), 0);
    assert.equal(EventUtil.getLastSocketError(), 'Success');
  });

  test('a real failed connect: 111 / Connection refused', async () => {
    const port = await closedPort();
    const sock = net.connect(port, '127.0.0.1');
    pollSourceOf(sock); // the event layer watches it and records its error
    const [err] = (await once(sock, 'error').catch((e: unknown) => [e])) as [NodeJS.ErrnoException];
    assert.equal(err.code, 'ECONNREFUSED');
    setLastSocketError(null);
    // The socket's own recorded error is reported when the socket is given.
    assert.equal(EventUtil.getLastSocketErrno(sock), 111);
    assert.equal(EventUtil.getLastSocketError(sock), 'Connection refused');
    assert.equal(EventUtil.getLastSocketErrno(), 0);
    setLastSocketError(err);
    assert.equal(EventUtil.getLastSocketErrno(), 111);
    assert.equal(EventUtil.getLastSocketError(), 'Connection refused');
  });

  test('codes, numbers and fallbacks', () => {
    const e = new Error('x') as NodeJS.ErrnoException;
    e.code = 'EADDRINUSE';
    setLastSocketError(e);
    assert.equal(EventUtil.getLastSocketErrno(), 98);
    assert.equal(EventUtil.getLastSocketError(), 'Address already in use');
    setLastSocketError({ errno: -11, code: 'EAGAIN' });
    assert.equal(EventUtil.getLastSocketErrno(), 11);
    assert.equal(EventUtil.getLastSocketError(), 'Resource temporarily unavailable');
    const texts: Record<string, string> = {
      ECONNRESET: 'Connection reset by peer',
      EPIPE: 'Broken pipe',
      ETIMEDOUT: 'Connection timed out',
      ENOENT: 'No such file or directory',
      EACCES: 'Permission denied',
      EMFILE: 'Too many open files',
      ENETUNREACH: 'Network is unreachable',
    };
    for (const [code, text] of Object.entries(texts)) {
      setLastSocketError({ code });
      assert.equal(EventUtil.getLastSocketError(), text, code);
      assert.ok(EventUtil.getLastSocketErrno() > 0);
    }
    setLastSocketError(104);
    assert.equal(EventUtil.getLastSocketError(), 'Connection reset by peer');
    // libuv's text, capitalised, for codes outside the table.
    setLastSocketError({ code: 'EISCONN' });
    assert.equal(EventUtil.getLastSocketErrno(), 106);
    assert.equal(EventUtil.getLastSocketError(), 'Socket is already connected');
    // No errno at all: the error's own message.
    setLastSocketError(new Error('something odd'));
    assert.equal(EventUtil.getLastSocketErrno(), 0);
    assert.equal(EventUtil.getLastSocketError(), 'something odd');
    setLastSocketError(0);
    assert.equal(EventUtil.getLastSocketError(), 'Success');
  });
});

describe('createSocket on a real socket descriptor', () => {
  test('wraps an inherited socketpair fd (child process)', async () => {
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const utilUrl = new URL('../../src/event/util.ts', import.meta.url).href;
    const script = `
      import { EventUtil } from ${JSON.stringify(utilUrl)};
      import net from 'node:net';
      const s = EventUtil.createSocket(0);
      const name = s ? EventUtil.getSocketName(s) : null;
      process.stdout.write(JSON.stringify({ ok: s instanceof net.Socket, same: s === process.stdin, fd: EventUtil.getSocketFd(s), name }));
      process.exit(0);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
    const r = JSON.parse(out) as { ok: boolean; same: boolean; fd: number; name: unknown };
    assert.equal(r.ok, true);
    assert.equal(r.same, true);
    assert.equal(r.fd, 0);
    assert.deepEqual(r.name, { address: '', family: EventUtil.AF_UNIX });
  });
});

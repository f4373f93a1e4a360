/** Test helpers: real sockets on 127.0.0.1, port 0. */
import { createServer, connect, type Socket, type Server } from 'node:net';
import { once } from 'node:events';

/** A connected TCP socket pair over loopback. */
export async function socketPair(): Promise<{ client: Socket; server: Socket; close: () => void }> {
  const srv: Server = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  const accepted = once(srv, 'connection') as Promise<[Socket]>;
  const client = connect(port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = await accepted;
  srv.close();
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
    },
  };
}

/** A TCP server on 127.0.0.1 that remembers the connections it accepted. */
export interface TcpServer {
  server: Server;
  port: number;
  /** Destroys the connections still open and stops listening. */
  close: () => void;
}

/**
 * Listens on 127.0.0.1:`port` (0: a free one) and hands each connection to
 * `onConnection`, its socket errors ignored (the client under test may
 * reset it); close() destroys the connections still open.
 * @example
 * ```ts
 * const srv = await tcpServer((sock) => sock.end('HTTP/1.1 204 No Content\r\n\r\n'));
 * try { ... srv.port ... } finally { srv.close(); }
 * ```
 */
export async function tcpServer(onConnection: (sock: Socket) => void, port = 0): Promise<TcpServer> {
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => {});
    onConnection(sock);
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** Timers that repeat writes on sockets of a server under test; `clear()` stops them all (when the server closes). */
export interface SocketIntervals {
  /** Calls `fn` every `ms` until it returns false or `sock` is destroyed. */
  every(sock: Socket, ms: number, fn: () => boolean | void): void;
  clear(): void;
}

/**
 * Empty {@link SocketIntervals}: what a hostile server repeats on its
 * connections (a trickled reply, endless interim responses), all stopped by
 * one `clear()`.
 * @example
 * ```ts
 * const intervals = socketIntervals();
 * let n = 0;
 * intervals.every(sock, 500, () => n++ < 60 && sock.write('HTTP/1.1 102 Processing\r\n\r\n'));
 * // on close: intervals.clear();
 * ```
 */
export function socketIntervals(): SocketIntervals {
  const timers = new Set<NodeJS.Timeout>();
  return {
    every(sock, ms, fn) {
      const t = setInterval(() => {
        if (sock.destroyed || fn() === false) {
          clearInterval(t);
          timers.delete(t);
        }
      }, ms);
      timers.add(t);
    },
    clear() {
      for (const t of timers) clearInterval(t);
      timers.clear();
    },
  };
}

/** A client connection that collects what it receives as latin1 text. */
export interface RawConnection {
  sock: Socket;
  /** Everything received so far. */
  text(): string;
  /** Whether the socket has closed. */
  closed(): boolean;
}

/**
 * Connects to 127.0.0.1:`port` and collects what comes back as latin1 text,
 * socket errors ignored (a server may reset it: the test reads the outcome
 * from `text()` and `closed()`).
 * @example
 * ```ts
 * const c = await rawConnection(port);
 * c.sock.write('GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
 * await once(c.sock, 'close');
 * assert.match(c.text(), /^HTTP\/1\.1 200 /);
 * ```
 */
export async function rawConnection(port: number): Promise<RawConnection> {
  const sock = connect(port, '127.0.0.1');
  sock.on('error', () => {});
  await once(sock, 'connect');
  let text = '';
  let closed = false;
  sock.setEncoding('latin1');
  sock.on('data', (d: string) => (text += d));
  sock.on('close', () => (closed = true));
  return { sock, text: () => text, closed: () => closed };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Waits until `cond()` holds, polling every 5 ms, failing after `ms`. */
export async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('waitFor: condition not met in time');
    await sleep(5);
  }
}

/**
 * True once `p` resolves, false when `ms` pass first (a rejection of `p` rejects). The timer
 * is cleared as soon as `p` settles, so a generous bound on something that must happen costs
 * nothing when it comes early, and leaves nothing that holds the test file open.
 */
export async function resolvesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

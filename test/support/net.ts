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

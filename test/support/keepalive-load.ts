/**
 * A keep-alive load for shutdown and reload tests: `connections` raw TCP
 * clients (node:net), each sending one GET at a time over a kept-alive
 * connection and reconnecting when the server closes it. Every request is
 * accounted for, so a test can tell a request the server lost (written,
 * then the connection ended or was reset without its response) from one
 * that was never sent (the connection was refused: the service had
 * stopped listening).
 */
import { connect, type Socket } from 'node:net';

/** What the load saw. */
export interface KeepAliveLoadResult {
  /** Complete responses, by status. */
  statuses: Map<number, number>;
  /** Responses that carried `Connection: close`. */
  closing: number;
  /** Requests written whose connection ended or failed before their response was complete. */
  lost: { error: string; at: number }[];
  /** Connections refused (nothing was sent on them). */
  refused: number;
  /** Connections opened. */
  connects: number;
}

/** Options of {@link keepAliveLoad}. */
export interface KeepAliveLoadOptions {
  port: number;
  path: string;
  connections: number;
  /** Stop when this says so (checked before each request). */
  until: () => boolean;
  /** At most this many requests in all. */
  maxRequests: number;
  /** And for at most this long (ms). */
  maxMs: number;
  /** After a refused connection, wait this long (ms) before trying again (default 20). */
  retryMs?: number;
}

/** The status, the body length and `Connection: close` of a response head, or null when incomplete. */
function parseHead(buf: Buffer): { end: number; status: number; length: number; close: boolean } | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.toString('latin1', 0, end);
  const status = Number(head.slice(9, 12));
  const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const close = /\r\nconnection:\s*close/i.test(head);
  return { end: end + 4, status, length: cl ? Number(cl[1]) : 0, close };
}

/**
 * Runs the load until `until()`, `maxRequests` or `maxMs`; resolves with
 * what it saw once every client has stopped.
 * @example
 * ```ts
 * let stop = false;
 * const load = keepAliveLoad({ port, path: '/healthz', connections: 8, until: () => stop, maxRequests: 50_000, maxMs: 30_000 });
 * // ... reload the server ...
 * stop = true;
 * assert.deepEqual((await load).lost, []);
 * ```
 */
export async function keepAliveLoad(o: KeepAliveLoadOptions): Promise<KeepAliveLoadResult> {
  const result: KeepAliveLoadResult = { statuses: new Map(), closing: 0, lost: [], refused: 0, connects: 0 };
  const deadline = Date.now() + o.maxMs;
  let sent = 0;
  const more = (): boolean => !o.until() && sent < o.maxRequests && Date.now() < deadline;
  const request = Buffer.from(
    `GET ${o.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`,
    'latin1',
  );

  /** One client: connections one after another until the load ends. */
  const client = async (): Promise<void> => {
    while (more()) {
      const outcome = await new Promise<'closed' | 'refused' | 'done'>((resolve) => {
        const sock: Socket = connect({ host: '127.0.0.1', port: o.port });
        let buf: Buffer = Buffer.alloc(0);
        let waiting = false; // a request was written and its response is not complete
        let connected = false;
        let settled = false;
        const finish = (how: 'closed' | 'refused' | 'done', error?: string): void => {
          if (settled) return;
          settled = true;
          if (waiting) result.lost.push({ error: error ?? 'the connection ended', at: performance.now() });
          sock.destroy();
          resolve(how);
        };
        const send = (): void => {
          if (!more()) return finish('done');
          sent++;
          waiting = true;
          sock.write(request);
        };
        sock.on('connect', () => {
          connected = true;
          result.connects++;
          send();
        });
        sock.on('data', (d: Buffer) => {
          buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
          for (;;) {
            const h = parseHead(buf);
            if (h === null || buf.length < h.end + h.length) return;
            buf = buf.subarray(h.end + h.length);
            waiting = false;
            result.statuses.set(h.status, (result.statuses.get(h.status) ?? 0) + 1);
            if (h.close) {
              result.closing++;
              return finish('closed');
            }
            send();
          }
        });
        sock.on('error', (e: NodeJS.ErrnoException) => {
          if (!connected && (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET')) {
            result.refused++;
            return finish('refused');
          }
          finish('closed', `${e.code ?? e.message}`);
        });
        sock.on('end', () => finish('closed', 'EOF'));
        sock.on('close', () => finish('closed', 'closed'));
      });
      if (outcome === 'refused') await new Promise((r) => setTimeout(r, o.retryMs ?? 20));
    }
  };
  await Promise.all(Array.from({ length: o.connections }, () => client()));
  return result;
}

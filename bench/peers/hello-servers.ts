/**
 * The servers of bench/http.ts, one per process: each answers `GET /` with
 * `200 OK`, `Content-Type: text/plain` and the 13-byte body `Hello, World!`
 * on 127.0.0.1 (port 0), prints `Listening on 127.0.0.1:PORT` on stderr and
 * stops on SIGTERM or SIGINT.
 *
 *   node .tmp/bench-dist/bench/peers/hello-servers.js --kind eventide|node|raw|lent
 *   node --import tsx bench/peers/hello-servers.ts --kind ...   (bench/http.ts --tsx)
 *
 * bench/http.ts runs them from the tsc build it makes (`buildForBench`), so
 * no server process carries tsx's module loader (a thread of its own on
 * Node 20, with a heap and garbage collections of its own, on the core the
 * server is pinned to). EventHttp's modules are imported relative to this
 * file: from the build, the build's `src/`.
 *
 * - eventide: `EventHttp` with `setCallback('/')`, a fresh EventBuffer per
 *   reply and `sendReply(200, 'OK', buf)` (adds `Date` and `Content-Length`);
 * - node: `node:http`'s `writeHead` and `end` (adds `Date`, `Connection` and
 *   `Keep-Alive`);
 * - raw: node:net sending a fixed byte string per request head (counted by
 *   its `\r\n\r\n`, also across reads), all replies of a read in one write:
 *   the upper bound of a JavaScript server with node:net's stream reads (the
 *   code a user writes by hand);
 * - lent: the raw server reading with `onread` (one reused buffer, no
 *   Readable stream), as EventHttp's sockets read: the upper bound with
 *   the read path EventHttp uses. A reference, without a target.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, Socket } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventBase } from '../../src/event/base.js';
import { EventBuffer } from '../../src/event/buffer.js';
import { EventHttp } from '../../src/http/server.js';
import { EventHttpRequest } from '../../src/http/request.js';

const HOST = '127.0.0.1';
const BODY = 'Hello, World!';

function listening(port: number): void {
  process.stderr.write(`Listening on ${HOST}:${port}\n`);
}

function stopOnSignal(): void {
  // process.exit() also lets `--cpu-prof` write its profile
  const stop = (): void => process.exit(0);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function eventideServer(): void {
  const base = new EventBase();
  const http = new EventHttp(base);
  http.setCallback('/', (req) => {
    req.addHeader('Content-Type', 'text/plain', EventHttpRequest.OUTPUT_HEADER);
    const buf = new EventBuffer();
    buf.add(BODY);
    req.sendReply(200, 'OK', buf);
  });
  if (!http.bind(HOST, 0)) throw new Error('bind failed');
  stopOnSignal();
  listening(http.getBoundPorts()[0] as number);
  base.dispatch().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

function nodeServer(): void {
  const server = createHttpServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '13' });
    res.end(BODY);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, HOST, () => listening((server.address() as { port: number }).port));
  stopOnSignal();
}

const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');

/**
 * Counts complete request heads (`\r\n\r\n`) in a stream of chunks, also
 * when the terminator is split across reads. (GET requests: no bodies.)
 */
class HeadCounter {
  /** Bytes of `\r\n\r\n` matched at the end of the previous chunk (0-3). */
  private st = 0;

  count(d: Buffer): number {
    let n = 0;
    let pos = 0;
    if (this.st > 0) {
      let k = this.st;
      let i = 0;
      while (k < 4 && i < d.length && d[i] === CRLFCRLF[k]) {
        k++;
        i++;
      }
      if (k === 4) {
        n++;
        pos = i;
      } else if (i === d.length) {
        this.st = k;
        return 0;
      }
      this.st = 0;
    }
    for (;;) {
      const j = d.indexOf(CRLFCRLF, pos);
      if (j < 0) break;
      n++;
      pos = j + 4;
    }
    const len = d.length;
    for (let k = Math.min(3, len - pos); k > 0; k--) {
      if (d.compare(CRLFCRLF, 0, k, len - k, len) === 0) {
        this.st = k;
        break;
      }
    }
    return n;
  }
}

/** The raw servers' answer to `n` request heads: the fixed reply `n` times (kept for up to 63). */
function fixedReplies(): (n: number) => Buffer {
  const one = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n${BODY}`, 'latin1');
  const cache: Buffer[] = [];
  return (n: number): Buffer => {
    if (n < 64) return (cache[n] ??= Buffer.concat(Array.from({ length: n }, () => one)));
    return Buffer.concat(Array.from({ length: n }, () => one));
  };
}

function rawServer(): void {
  const reply = fixedReplies();
  const server = createNetServer({ noDelay: true }, (s: Socket) => {
    const counter = new HeadCounter();
    s.on('error', () => s.destroy());
    s.on('data', (d: Buffer) => {
      const n = counter.count(d);
      if (n > 0) s.write(reply(n));
    });
  });
  server.listen(0, HOST, () => listening((server.address() as { port: number }).port));
  stopOnSignal();
}

/**
 * The raw server reading with Node's `onread` option: every read lands in one
 * reused 64 KiB buffer and reaches a callback, without the socket's Readable
 * stream (what EventHttp's plain sockets do, socket-reads.ts). `net.Server`
 * creates its sockets itself, so an accepted socket (`pauseOnConnect`) is
 * handed to a new `net.Socket` over the same handle with that option.
 */
function rawLentServer(): void {
  const reply = fixedReplies();
  const landing = Buffer.allocUnsafeSlow(64 * 1024);
  const server = createNetServer({ noDelay: true, pauseOnConnect: true }, (accepted: Socket) => {
    const counter = new HeadCounter();
    const handle = (accepted as unknown as { _handle: unknown })._handle;
    const options = {
      allowHalfOpen: false,
      handle,
      onread: {
        buffer: landing,
        callback: (n: number, buf: Buffer): boolean => {
          const k = counter.count(buf.subarray(0, n));
          if (k > 0) s.write(reply(k));
          return true;
        },
      },
    };
    const s: Socket = new Socket(options);
    s.setNoDelay(true);
    s.on('error', () => s.destroy());
    s.resume();
  });
  server.listen(0, HOST, () => listening((server.address() as { port: number }).port));
  stopOnSignal();
}

const SELF = fileURLToPath(import.meta.url);
if (process.argv[1] !== undefined && resolve(process.argv[1]) === SELF) {
  const i = process.argv.indexOf('--kind');
  const kind = i >= 0 ? process.argv[i + 1] : undefined;
  if (kind === 'eventide') eventideServer();
  else if (kind === 'node') nodeServer();
  else if (kind === 'raw') rawServer();
  else if (kind === 'lent') rawLentServer();
  else {
    console.error(`usage: hello-servers --kind eventide|node|raw|lent (got ${String(kind)})`);
    process.exit(2);
  }
}

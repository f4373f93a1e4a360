/**
 * Test helpers for EventHttp on the wire: a raw TCP client that records every
 * byte, a server on 127.0.0.1:0 whose base dispatches during a test, and the
 * exact pages EventHttp writes (Date values masked as `{date}`).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { EventBase } from '../../src/event/base.js';
import { EventBuffer } from '../../src/event/buffer.js';
import { EventHttp } from '../../src/http/server.js';
import type { EventHttpRequest } from '../../src/http/request.js';
import { sleep } from './net.js';

/** IMF-fixdate, always 29 characters ("Sat, 21 Nov 2026 04:26:55 GMT"). */
export const DATE_RE =
  /Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT/g;
export const DATE_LEN = 29;

/** Masks every Date value as `{date}` (a malformed date stays visible and fails the comparison). */
export function mask(s: string): string {
  return s.replace(DATE_RE, 'Date: {date}');
}

/** Raw length of an expected text containing `{date}` placeholders. */
export function rawLength(expected: string): number {
  return expected.length + (expected.split('{date}').length - 1) * (DATE_LEN - '{date}'.length);
}

export function body(text: string | Buffer): EventBuffer {
  const b = new EventBuffer();
  b.add(text);
  return b;
}

/** libevent's error page. */
export function errorPage(code: number, reason: string): string {
  return `<HTML><HEAD>\n<TITLE>${code} ${reason}</TITLE>\n</HEAD><BODY>\n<H1>${reason}</H1>\n</BODY></HTML>\n`;
}

/** libevent's 404 page for a (HTML-escaped) request target. */
export function notFoundPage(escapedUri: string): string {
  return `<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL ${escapedUri} was not found on this server.</p></body></html>\n`;
}

/** The whole error response as EventHttp writes it (always HTTP/1.1; closes). */
export function errorResponse(code: number, reason: string, extra = ''): string {
  const page = errorPage(code, reason);
  return `HTTP/1.1 ${code} ${reason}\r\nContent-Type: text/html\r\n${extra}Date: {date}\r\nContent-Length: ${page.length}\r\nConnection: close\r\n\r\n${page}`;
}

/** A raw TCP client that records every byte and when the server closed. */
export class RawClient {
  readonly sock: Socket;
  readonly openedAt = Date.now();
  private data = Buffer.alloc(0);
  private cursor = 0;
  closedAt = 0;
  private readonly waiters = new Set<() => void>();

  private constructor(sock: Socket) {
    this.sock = sock;
    sock.on('data', (d: Buffer) => {
      this.data = Buffer.concat([this.data, d]);
      this.wake();
    });
    sock.on('close', () => {
      this.closedAt = Date.now();
      this.wake();
    });
    sock.on('error', () => {});
  }

  static all = new Set<RawClient>();

  static async open(port: number): Promise<RawClient> {
    const sock = connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    const c = new RawClient(sock);
    RawClient.all.add(c);
    await once(sock, 'connect');
    return c;
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  get closed(): boolean {
    return this.closedAt !== 0;
  }

  /** Everything received so far (latin1). */
  get text(): string {
    return this.data.toString('latin1');
  }

  /** Everything received after the responses already checked. */
  get rest(): string {
    return this.data.toString('latin1', this.cursor);
  }

  write(data: string | Buffer): void {
    this.sock.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  }

  /** Waits until `pred()` holds; rejects after `ms` saying what arrived. */
  waitFor(pred: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (pred()) {
          clearTimeout(timer);
          clearInterval(poll);
          this.waiters.delete(check);
          resolve();
        }
      };
      // woken by the socket's events; polled too, for conditions on server-side state
      const poll = setInterval(check, 5);
      const timer = setTimeout(() => {
        clearInterval(poll);
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${what}; received ${JSON.stringify(this.text)}${this.closed ? ' (closed)' : ''}`,
          ),
        );
      }, ms);
      this.waiters.add(check);
    });
  }

  /**
   * Waits for the next `rawLength(expected)` bytes and checks them, Date
   * masked, against `expected`.
   */
  /** Waits for the next `expected` bytes (Date values masked); returns them unmasked. */
  async expect(expected: string, ms = 5000): Promise<string> {
    const n = rawLength(expected);
    await this.waitFor(() => this.data.length - this.cursor >= n || this.closed, ms, JSON.stringify(expected));
    const got = this.data.toString('latin1', this.cursor, this.cursor + n);
    this.cursor += Buffer.byteLength(got, 'latin1');
    assert.equal(mask(got), expected);
    return got;
  }

  /** Resolves true when the server closes within `ms`. */
  async closesWithin(ms: number): Promise<boolean> {
    try {
      await this.waitFor(() => this.closed, ms, 'close');
      return true;
    } catch {
      return false;
    }
  }

  /** Asserts that nothing more arrives for `ms` and the connection stays open. */
  async expectQuietAndOpen(ms = 150): Promise<void> {
    await sleep(ms);
    assert.equal(this.rest, '', 'no unexpected bytes');
    assert.equal(this.closed, false, 'the connection stays open');
  }

  /** Asserts the server closes (within `ms`) without sending more. */
  async expectClosed(ms = 3000): Promise<void> {
    assert.ok(await this.closesWithin(ms), `the server closes the connection; received ${JSON.stringify(this.text)}`);
    assert.equal(this.rest, '', 'nothing after the expected bytes');
  }

  destroy(): void {
    this.sock.destroy();
    RawClient.all.delete(this);
  }
}

export interface Ctx {
  base: EventBase;
  http: EventHttp;
  port: number;
  dial: () => Promise<RawClient>;
}

/**
 * Runs `fn` against a fresh server on 127.0.0.1:0 while its base dispatches;
 * then frees the server and checks that the loop settles (no connection or
 * event left behind) without an exception.
 */
export async function withServer(
  setup: (http: EventHttp, base: EventBase) => void,
  fn: (ctx: Ctx) => Promise<void>,
): Promise<void> {
  const base = new EventBase();
  const http = new EventHttp(base);
  assert.equal(http.bind('127.0.0.1', 0), true);
  const [port] = http.getBoundPorts();
  assert.ok(typeof port === 'number' && port > 0);
  setup(http, base);
  let settled = false;
  const loop = base.dispatch().then((v) => {
    settled = true;
    return v;
  });
  let outcome: { v: boolean } | { e: unknown } | null;
  try {
    await fn({ base, http, port, dial: () => RawClient.open(port) });
  } finally {
    // Also when `fn` failed: its error is then what propagates.
    http.free();
    let timer: NodeJS.Timeout | undefined;
    outcome = await Promise.race([
      loop.then(
        (v) => ({ v }),
        (e: unknown) => ({ e }),
      ),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 10_000))),
    ]);
    clearTimeout(timer);
    for (const c of [...RawClient.all]) c.destroy();
  }
  assert.ok(outcome !== null && settled, 'base.dispatch() settles after http.free()');
  assert.ok(!('e' in outcome), `the loop ended without an exception: ${'e' in outcome ? String(outcome.e) : ''}`);
  assert.equal(outcome.v, true);
}

/** A hello handler: `X-Handler` header plus a body. */
export function hello(text = 'hello'): (req: EventHttpRequest) => void {
  return (req) => req.sendReply(200, 'OK', body(text));
}

/**
 * The pair transport of bufferevents (libevent's bufferevent_pair.c): two
 * ends connected in memory, what one writes moved (not copied) into the
 * input of the other. No socket, nothing to read or to drain; once one end
 * is released, what the other writes is dropped (and no end of file is
 * reported, as in libevent).
 *
 * @module
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { EventBuffer } from './buffer.js';
import { createEventError } from './errors.js';
import type { ConnectTarget, Transport, TransportHost, WriteResult } from './transport.js';

/**
 * One end of an in-memory pair.
 * @internal
 * @example
 * ```ts
 * import type { TransportHost } from './transport.js';
 * declare const hostA: TransportHost, hostB: TransportHost; // the bufferevents of the two ends
 * const [a, b] = PairTransport.pair(hostA, hostB);
 * const out = new EventBuffer();
 * out.add('ping');
 * a.write(out, undefined); // 'delivered': hostB.received(out) moved the bytes
 * ```
 */
export class PairTransport implements Transport {
  readonly inMemory = true;
  readonly socket: Socket | null = null;
  readonly reading = false;
  readonly unsent = 0;
  readonly congested = false;
  readonly #host: TransportHost;
  #other: PairTransport | null = null;
  #released = false;

  private constructor(host: TransportHost) {
    this.#host = host;
  }

  /** Two connected ends reporting to `a` and `b`. */
  static pair(a: TransportHost, b: TransportHost): [PairTransport, PairTransport] {
    const ta = new PairTransport(a);
    const tb = new PairTransport(b);
    ta.#other = tb;
    tb.#other = ta;
    return [ta, tb];
  }

  adopt(_sock: Socket): void {
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'A bufferevent pair has no socket');
  }

  connect(_target: ConnectTarget, _servername: string | undefined): void {
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'A bufferevent pair is connected already');
  }

  setReading(_on: boolean): void {}

  write(out: EventBuffer, _done: ((err?: Error | null) => void) | undefined): WriteResult {
    const other = this.#other as PairTransport;
    if (other.#released) {
      out.drain(out.length);
      return 'held';
    }
    other.#host.received(out);
    return 'delivered';
  }

  waitDrain(): void {}

  destroy(): void {}

  release(_rest: EventBuffer | null, _close: boolean): void {
    this.#released = true;
  }

  handOver(): void {
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'A bufferevent pair has no socket to hand over');
  }

  tlsSocket(): TLSSocket | null {
    return null;
  }

  noteError(_err: Error): void {}

  nextSslError(): string | undefined {
    return undefined;
  }
}

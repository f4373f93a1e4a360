/**
 * Test helper for the transport tests: a TransportHost that records what a
 * transport reports (the other side of the contract, not a stand-in for the
 * network: the transports under test use real sockets on 127.0.0.1).
 */
import { EventBuffer } from '../../src/event/buffer.js';
import type { TransportHost } from '../../src/event/transport.js';
import { waitFor } from '../support/net.js';

/** A TransportHost keeping every report in order, and the bytes received. */
export class RecordingHost implements TransportHost {
  /** Report names in order (`'data'` once per chunk). */
  readonly events: string[] = [];
  /** Errors reported by `error()` and `handshakeFailed()`. */
  readonly errors: Error[] = [];
  /** How many `data()` reports were lent reads. */
  lentReads = 0;
  /** Bytes from `data()` and `received()`. */
  readonly input = new EventBuffer();
  /** Extra work on a report (for example: resume reading once connected). */
  on: Partial<Record<keyof TransportHost, () => void>> = {};

  connected(): void {
    this.#note('connected');
  }
  handshaking(): void {
    this.#note('handshaking');
  }
  secured(): void {
    this.#note('secured');
  }
  handshakeFailed(err: Error): void {
    this.errors.push(err);
    this.#note('handshakeFailed');
  }
  data(chunk: Buffer, lent: boolean): void {
    this.input.appendRead(chunk, lent); // a lent read is copied: the next read reuses its memory
    this.lentReads += lent ? 1 : 0;
    this.#note('data');
  }
  received(from: EventBuffer): void {
    this.input.addBuffer(from);
    this.#note('received');
  }
  end(): void {
    this.#note('end');
  }
  error(err: Error): void {
    this.errors.push(err);
    this.#note('error');
  }
  closed(): void {
    this.#note('closed');
  }
  drained(): void {
    this.#note('drained');
  }

  /** The text received so far. */
  text(): string {
    return this.input.substr(0)?.toString() ?? '';
  }

  /** Whether `name` was reported. */
  saw(name: keyof TransportHost): boolean {
    return this.events.includes(name);
  }

  /** Waits until `name` was reported. */
  async until(name: keyof TransportHost, ms = 5000): Promise<void> {
    await waitFor(() => this.saw(name), ms);
  }

  #note(name: keyof TransportHost): void {
    this.events.push(name);
    this.on[name]?.();
  }
}

/**
 * Delivering the outcome of a lookup to one caller through its EventBase:
 * the callback runs from the base's loop, never synchronously, and the
 * pending delivery keeps the loop alive until it ran or was cancelled.
 *
 * @module
 */
import type { EventBase } from './base.js';
import { Handle } from './handle.js';
import {
  dnsError,
  type EventDnsAddress,
  type EventDnsCallback,
  type EventDnsRequest,
  type Outcome,
} from './dns-outcome.js';
import type { EventDnsError } from './errors.js';
import { noop } from './shared.js';

const PENDING = 0;
const READY = 1;
const DONE = 2;
const CANCELLED = 3;

/**
 * One caller's pending resolution. Holds a `ref()` on the base from creation
 * until its callback ran or it was cancelled; the answer activates its handle
 * and the callback runs from the base's loop. `onEnd` runs once it ran or
 * was cancelled.
 * @internal
 * @example
 * ```ts
 * const d = new Delivery(base, (err, addresses) => console.log(err, addresses), () => {});
 * d.settle({ error: null, addresses: [{ address: '127.0.0.1', family: 4 }] });
 * ```
 */
export class Delivery implements EventDnsRequest {
  readonly #base: EventBase;
  readonly #cb: EventDnsCallback;
  readonly #handle: Handle;
  readonly #onEnd: (d: Delivery) => void;
  #state = PENDING;
  #err: EventDnsError | null = null;
  #addresses: EventDnsAddress[] = [];

  constructor(base: EventBase, cb: EventDnsCallback, onEnd: (d: Delivery) => void) {
    this.#base = base;
    this.#cb = cb;
    this.#onEnd = onEnd;
    this.#handle = new Handle(base, () => this.#run(), noop);
    base.ref();
  }

  settle(outcome: Outcome): void {
    if (this.#state !== PENDING) return;
    this.#state = READY;
    if (outcome.error === null)
      this.#addresses = outcome.addresses.map((a) => ({ address: a.address, family: a.family }));
    else this.#err = dnsError(outcome.error);
    this.#base.activate(this.#handle, 0x01);
  }

  cancel(): void {
    if (this.#state === DONE || this.#state === CANCELLED) return;
    if (this.#state === READY) this.#base.deactivate(this.#handle);
    this.#state = CANCELLED;
    this.#release();
  }

  #run(): void {
    if (this.#state !== READY) return;
    this.#state = DONE;
    this.#release();
    this.#cb(this.#err, this.#addresses);
  }

  #release(): void {
    this.#onEnd(this);
    if (!this.#base.freed) this.#base.unref();
  }
}

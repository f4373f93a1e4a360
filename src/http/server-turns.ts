/**
 * WaitingConnections: the connections of a server that spent a turn's
 * budget of work with more requests received (a pipelined flood, or just a
 * deep pipeline), and the turns of Node's loop in which they go on.
 *
 * Node (libuv 1.45 and later) accepts one connection per turn of its loop,
 * and reads every ready socket in its poll phase: a turn that does a lot of
 * waiting work delays both. So the waiting connections are resumed in the
 * check phase, oldest first, as many per turn as keep the whole turn near
 * a target time: the count halves after a turn that took longer than the
 * target and doubles after one that took less than half of it. Cheap work
 * (small replies) runs for every waiting connection in each turn and keeps
 * the throughput of deep pipelines; expensive work (large documents, slow
 * views) runs for one or two connections per turn, and a new connection is
 * accepted and answered within a few short turns.
 *
 * @module
 */
import { Ring } from '../event/ring.js';
import type { HostedConnection } from './server-host.js';

/** The time a turn of the loop should take while connections wait (ms). */
const TURN_TARGET_MS = 2;
/** Connections resumed per turn at first, and at the least. */
const FIRST_COUNT = 4;
/** Connections resumed per turn at the most. */
const MAX_COUNT = 4096;

/**
 * The waiting connections of one server and their resumption.
 * @internal
 * @example
 * ```ts
 * const conn = { resume: () => console.log('its turn came') };
 * const waiting = new WaitingConnections();
 * waiting.add(conn); // conn.resume() runs in a later turn of the loop
 * ```
 */
export class WaitingConnections {
  readonly #ring = new Ring<HostedConnection>();
  #scheduled = false;
  /** How many connections the next turn resumes. */
  #count = FIRST_COUNT;
  /** When the last resumption began (ms; 0: never). */
  #lastAt = 0;
  /** The turn's time target (ms); a test sets it to 0 to resume one connection per turn. */
  targetMs = TURN_TARGET_MS;

  /** `conn` spent its turn's budget: it waits behind those waiting already. */
  add(conn: HostedConnection): void {
    this.#ring.push(conn);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#resume);
  }

  /** Resumes as many waiting connections as the last turn's time allows; the rest wait for the next turn. */
  readonly #resume = (): void => {
    this.#scheduled = false;
    const t = performance.now();
    if (this.#lastAt !== 0) {
      // The loop's last turn: what the last resumption started, the poll, the timers.
      const took = t - this.#lastAt;
      if (took > this.targetMs) this.#count = Math.max(1, this.#count >>> 1);
      else if (took < this.targetMs / 2) this.#count = Math.min(MAX_COUNT, this.#count * 2);
    }
    // (After a quiet spell the first measure is the spell: one halving, undone by the next short turn.)
    this.#lastAt = t;
    const ring = this.#ring;
    // Only those waiting now: one that waits again goes behind them, to a later turn.
    for (let i = Math.min(this.#count, ring.length); i > 0; i--) (ring.shift() as HostedConnection).resume();
    // Those that spend their turn again (now, or from the promises their requests run) wait for the next turn.
    if (ring.length > 0 && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#resume);
    }
  };
}

/**
 * The end of a turn of Node's loop for bufferevents: the output they queued
 * during the turn is handed to their transports in its check phase, and
 * their deadlines count from one clock read per turn.
 *
 * @module
 */
import { onLoopEnd } from './base.js';
import { now } from './shared.js';

/**
 * A bufferevent as the turn sees it.
 * @internal
 */
export interface TurnMember {
  /** Hands over the output it queued, unless that happened meanwhile (a TLS hand-over) or it was freed. */
  flushQueued(): void;
}

/**
 * Bufferevents with output to hand to their transports at the end of this
 * turn of Node's loop (its check phase, after every ready socket's callbacks
 * have run), as libevent writes when the next poll finds the socket
 * writable. A turn that answers many connections wakes their peers once, not
 * once per answer: on a busy server that is most of the cost of a small
 * write. Process-wide, as Node's loop is (class fields, no module state).
 * @internal
 * @example
 * ```ts
 * declare const core: TurnMember;
 * Turn.queue(core); // core.flushQueued() runs in this turn's check phase
 * const t = Turn.clock(); // the same value until then
 * ```
 */
export class Turn {
  /**
   * The members queued in this turn: `#queue[0 .. #count)`. The array keeps its
   * length between turns (flushed slots hold null): emptying it by `length = 0`
   * would drop its backing store, and the next turn's first push would allocate
   * a new one.
   */
  static #queue: (TurnMember | null)[] = [];
  static #count = 0;
  /** The other queue (its count is 0): the two swap every turn, so a flush can queue for the next one. */
  static #spare: (TurnMember | null)[] = [];
  static #armed = false;
  /**
   * The monotonic clock of this turn (ms, 0: not read yet), read once per
   * turn for the read and write deadlines that every read and write moves,
   * as libevent computes them from its cached loop time.
   */
  static #clock = 0;

  static {
    onLoopEnd(() => Turn.#flushAll());
  }

  /** The clock of this turn: read on first use, forgotten when the turn's flush runs. */
  static clock(): number {
    let t = Turn.#clock;
    if (t === 0) {
      t = Turn.#clock = now();
      Turn.#arm();
    }
    return t;
  }

  /** Queues `b` for this turn's flush (once per turn: the caller keeps a flag). */
  static queue(b: TurnMember): void {
    Turn.#queue[Turn.#count++] = b;
    Turn.#arm();
  }

  /** Whether `b` is the only bufferevent queued in this turn. */
  static isOnly(b: TurnMember): boolean {
    return Turn.#count === 1 && Turn.#queue[0] === b;
  }

  static #arm(): void {
    if (Turn.#armed) return;
    Turn.#armed = true;
    setImmediate(Turn.#flushAll);
  }

  /** Writes the output of every bufferevent that queued some during this turn of the loop. */
  static #flushAll = (): void => {
    Turn.#armed = false;
    const queue = Turn.#queue;
    const n = Turn.#count;
    // Swapped before the members run: what they queue goes to the next turn.
    Turn.#queue = Turn.#spare;
    Turn.#spare = queue;
    Turn.#count = 0;
    for (let i = 0; i < n; i++) {
      const b = queue[i]!;
      queue[i] = null; // a freed connection is not kept alive by the queue
      b.flushQueued();
    }
    Turn.#clock = 0;
  };
}

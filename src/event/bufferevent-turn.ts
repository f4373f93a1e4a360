/**
 * The end of a turn of Node's loop for the bufferevents of one base: the
 * output they queued during the turn is handed to their transports in its
 * check phase (or when the base's loop ends, if that comes first), and their
 * deadlines count from one clock read per turn.
 *
 * @module
 */
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
 * The bufferevents of one base with output to hand to their transports at
 * the end of this turn of Node's loop (its check phase, after every ready
 * socket's callbacks have run), as libevent writes when the next poll finds
 * the socket writable. A turn that answers many connections wakes their
 * peers once, not once per answer: on a busy server that is most of the cost
 * of a small write. Each `EventBase` owns one (`base.turn`): two bases in a
 * process queue, flush and read the clock apart, and nothing is registered
 * anywhere when this module is imported.
 * @internal
 * @example
 * ```ts
 * declare const core: TurnMember;
 * const turn = new Turn(); // a base's own: base.turn
 * turn.queue(core); // core.flushQueued() runs in this turn's check phase
 * const t = turn.clock(); // the same value until then
 * turn.flush(); // or now (a loop ends)
 * ```
 */
export class Turn {
  /**
   * The members queued in this turn: `#queue[0 .. #count)`. The array keeps its
   * length between turns (flushed slots hold null): emptying it by `length = 0`
   * would drop its backing store, and the next turn's first push would allocate
   * a new one.
   */
  #queue: (TurnMember | null)[] = [];
  #count = 0;
  /** The other queue (its count is 0): the two swap every turn, so a flush can queue for the next one. */
  #spare: (TurnMember | null)[] = [];
  #armed = false;
  /**
   * The monotonic clock of this turn (ms, 0: not read yet), read once per
   * turn for the read and write deadlines that every read and write moves,
   * as libevent computes them from its cached loop time.
   */
  #clock = 0;

  /** The clock of this turn: read on first use, forgotten when the turn's flush runs. */
  clock(): number {
    let t = this.#clock;
    if (t === 0) {
      t = this.#clock = now();
      this.#arm();
    }
    return t;
  }

  /** Queues `b` for this turn's flush (once per turn: the caller keeps a flag). */
  queue(b: TurnMember): void {
    this.#queue[this.#count++] = b;
    this.#arm();
  }

  /** Whether `b` is the only bufferevent queued in this turn. */
  isOnly(b: TurnMember): boolean {
    return this.#count === 1 && this.#queue[0] === b;
  }

  /**
   * Hands over what was queued now instead of in the check phase: the base's
   * loop ends, so a program that exits right after it loses nothing.
   */
  flush(): void {
    this.#flushAll();
  }

  #arm(): void {
    if (this.#armed) return;
    this.#armed = true;
    setImmediate(this.#flushAll);
  }

  /**
   * Writes the output of every bufferevent that queued some during this turn
   * of the loop. A flush run early (`flush()`) leaves the armed immediate to
   * find nothing queued.
   */
  readonly #flushAll = (): void => {
    this.#armed = false;
    const queue = this.#queue;
    const n = this.#count;
    // Swapped before the members run: what they queue goes to the next turn.
    this.#queue = this.#spare;
    this.#spare = queue;
    this.#count = 0;
    for (let i = 0; i < n; i++) {
      const b = queue[i]!;
      queue[i] = null; // a freed connection is not kept alive by the queue
      b.flushQueued();
    }
    this.#clock = 0;
  };
}

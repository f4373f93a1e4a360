/**
 * Signals for signal events: the Node names of catchable signal numbers,
 * and a registry that holds one process listener per signal for all the
 * events watching it.
 *
 * @module
 */
import { constants as osConstants } from 'node:os';

/** Highest signal number + 1 on Linux (libevent's NSIG). */
const NSIG = 65;
/** Node's signal names by number (the first name of aliases). */
const SIGNAL_NAMES: ReadonlyMap<number, NodeJS.Signals> = (() => {
  const m = new Map<number, NodeJS.Signals>();
  for (const [name, num] of Object.entries(osConstants.signals) as [NodeJS.Signals, number][])
    if (!m.has(num)) m.set(num, name);
  return m;
})();
/** Signals a process cannot catch. */
const UNCATCHABLE: ReadonlySet<number> = new Set<number>([osConstants.signals.SIGKILL, osConstants.signals.SIGSTOP]);

/**
 * The Node name of a catchable signal number, or undefined.
 * @internal
 * @example
 * ```ts
 * signalName(2); // 'SIGINT'
 * ```
 */
export function signalName(signum: number): NodeJS.Signals | undefined {
  if (!Number.isInteger(signum) || signum <= 0 || signum >= NSIG || UNCATCHABLE.has(signum)) return undefined;
  return SIGNAL_NAMES.get(signum);
}

interface SignalEntry {
  listener: () => void;
  fires: Map<object, () => void>;
}

/**
 * One `process` listener per watched signal, calling every watcher's `fire`.
 * @internal
 * @example
 * ```ts
 * const signals = new SignalRegistry();
 * signals.watch(2, ev, () => console.log('SIGINT'));
 * signals.unwatch(2, ev);
 * ```
 */
export class SignalRegistry {
  readonly #watchers = new Map<number, SignalEntry>();

  /** Calls `fire` (for `key`) whenever the catchable signal `signum` arrives. */
  watch(signum: number, key: object, fire: () => void): void {
    let entry = this.#watchers.get(signum);
    if (!entry) {
      const fires = new Map<object, () => void>();
      const listener = (): void => {
        for (const f of [...fires.values()]) f();
      };
      entry = { listener, fires };
      this.#watchers.set(signum, entry);
      process.on(signalName(signum) as NodeJS.Signals, listener);
    }
    entry.fires.set(key, fire);
  }

  /** Stops calling the `fire` of `key`; the process listener goes with the last watcher. */
  unwatch(signum: number, key: object): void {
    const entry = this.#watchers.get(signum);
    if (!entry) return;
    entry.fires.delete(key);
    if (entry.fires.size === 0) {
      this.#watchers.delete(signum);
      process.off(signalName(signum) as NodeJS.Signals, entry.listener);
    }
  }
}

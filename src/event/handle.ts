/**
 * What an `EventBase` schedules and activates: the {@link Handle} of an
 * Event, of a bufferevent's read, write and event callbacks, of an internal
 * timer; and the {@link TimerHeap} that orders handles by deadline (equal
 * deadlines in scheduling order).
 *
 * @module
 */

/**
 * What a handle needs from its base: the priority new handles get.
 * @internal
 */
export interface HandleBase {
  readonly defaultPriority: number;
}

/**
 * Something a base can activate: an Event, a bufferevent's read or write
 * side, an internal timer. The base calls `run(what)` from its loop.
 * @internal
 */
export class Handle {
  /** Priority queue index; lower runs first. */
  prio: number;
  /** Flags accumulated since activation; 0 when not active. */
  activeWhat = 0;
  /** Whether the handle sits in an active queue (maybe cancelled). */
  queued = false;
  /** Whether the handle waits in the active-later list. */
  later = false;
  /** Flags waiting in the active-later list. */
  laterWhat = 0;
  /** Index in the timer heap, -1 when not scheduled. */
  heapIndex = -1;
  /** Absolute deadline in performance.now() milliseconds. */
  deadline = 0;
  /**
   * A later deadline the handle was pushed back to without moving in the
   * heap (0: none): at `deadline` the base reschedules it for this one
   * instead of expiring it.
   */
  pushedTo = 0;
  /** Tie-breaker so timers with one deadline fire in scheduling order. */
  seq = 0;

  constructor(
    readonly base: HandleBase,
    /** Runs the callback for the given flags. */
    public run: (what: number) => void,
    /** Called by the base when this handle's deadline passes (inside an iteration). */
    public expire: () => void,
  ) {
    this.prio = base.defaultPriority;
  }
}

/**
 * A binary min-heap of handles by deadline; each handle knows its index
 * (`heapIndex`, -1 when not scheduled).
 * @internal
 * @example
 * ```ts
 * const handle = new Handle({ defaultPriority: 0 }, () => {}, () => console.log('expired'));
 * const heap = new TimerHeap();
 * heap.schedule(handle, performance.now() + 1000);
 * heap.top?.deadline; // the earliest deadline
 * ```
 */
export class TimerHeap {
  #heap: Handle[] = [];
  #seq = 0;

  /** The number of scheduled handles. */
  get size(): number {
    return this.#heap.length;
  }

  /** The handle with the earliest deadline, or undefined. */
  get top(): Handle | undefined {
    return this.#heap[0];
  }

  /** Schedules (or reschedules) `h` at `deadline` (performance.now() milliseconds). */
  schedule(h: Handle, deadline: number): void {
    const heap = this.#heap;
    h.deadline = deadline;
    h.pushedTo = 0;
    h.seq = ++this.#seq;
    if (h.heapIndex < 0) {
      h.heapIndex = heap.length;
      heap.push(h);
      this.#siftUp(h.heapIndex);
    } else {
      this.#siftUp(h.heapIndex);
      this.#siftDown(h.heapIndex);
    }
  }

  /** Removes `h`; returns the index it had (0: it was the earliest), or -1 when it was not scheduled. */
  remove(h: Handle): number {
    const i = h.heapIndex;
    if (i < 0) return -1;
    const heap = this.#heap;
    const last = heap.pop() as Handle;
    h.heapIndex = -1;
    h.pushedTo = 0;
    if (i < heap.length) {
      heap[i] = last;
      last.heapIndex = i;
      this.#siftDown(i);
      this.#siftUp(last.heapIndex);
    }
    return i;
  }

  /** Unschedules every handle. */
  clear(): void {
    for (const h of this.#heap) h.heapIndex = -1;
    this.#heap.length = 0;
  }

  #less(a: Handle, b: Handle): boolean {
    return a.deadline < b.deadline || (a.deadline === b.deadline && a.seq < b.seq);
  }

  #siftUp(i: number): void {
    const heap = this.#heap;
    const h = heap[i] as Handle;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p] as Handle;
      if (!this.#less(h, parent)) break;
      heap[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    heap[i] = h;
    h.heapIndex = i;
  }

  #siftDown(i: number): void {
    const heap = this.#heap;
    const n = heap.length;
    const h = heap[i] as Handle;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && this.#less(heap[r] as Handle, heap[l] as Handle)) c = r;
      const child = heap[c] as Handle;
      if (!this.#less(child, h)) break;
      heap[i] = child;
      child.heapIndex = i;
      i = c;
    }
    heap[i] = h;
    h.heapIndex = i;
  }
}

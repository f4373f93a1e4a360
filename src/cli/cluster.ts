/**
 * The primary process of `eventide serve --workers N`: starts N worker
 * processes with `node:cluster`, keeps them running, replaces them one by
 * one on request, and stops them.
 *
 * - Workers call `listen()` themselves and share one listening socket. The
 *   scheduling policy is `SCHED_NONE` unless `NODE_CLUSTER_SCHED_POLICY` says
 *   otherwise: the kernel queues connections and only workers accept them,
 *   so the primary never holds a connection that no worker will serve, and
 *   the port is listening only once a worker listens.
 * - A worker that exits without being asked is replaced after a delay that
 *   starts at 100 ms and doubles up to 5 s, with one line on stderr (its
 *   number, pid, and exit code or signal). More than `maxRestarts` restarts
 *   within `restartWindow` seconds make the supervisor give up: it stops
 *   the other workers and finishes with status 1.
 * - A worker that dies while the service is starting is a start-up failure
 *   (status 1): a wrong port or database fails at once instead of looping.
 * - {@link WorkerSupervisor.stop} asks each worker to finish its requests
 *   (at most `shutdownTimeout` seconds) and kills those still running a
 *   little after that.
 * - {@link WorkerSupervisor.reload} replaces the workers one at a time: a new
 *   worker is started, and the old one is stopped once the new one serves.
 *
 * The worker side is {@link workerMessage}: a worker reports `ready` once it
 * accepts connections and stops when it receives `stop` (or SIGTERM/SIGINT).
 * A worker that cannot start may report `failed` with the reason before it
 * exits: the supervisor's line about its exit then ends with that reason.
 *
 * @module
 */
import cluster, { type Worker } from 'node:cluster';

/**
 * The messages between the primary and a worker.
 * @example
 * ```ts
 * process.send?.(supervisorMessage('ready'));
 * ```
 */
export type SupervisorMessageKind = 'ready' | 'stop' | 'failed';

/**
 * The message object of a kind; `failed` carries the reason (one line).
 * @example
 * ```ts
 * import cluster from 'node:cluster';
 * const worker = cluster.fork();
 * worker.send(supervisorMessage('stop'));
 * process.send?.(supervisorMessage('failed', 'cannot load the app /srv/app.js: no such file'));
 * ```
 */
export function supervisorMessage(
  kind: SupervisorMessageKind,
  reason?: string,
): { eventide: SupervisorMessageKind; reason?: string } {
  return reason === undefined ? { eventide: kind } : { eventide: kind, reason };
}

/**
 * The kind of a message received over the IPC channel, or null when it is
 * not one of the supervisor's.
 * @example
 * ```ts
 * process.on('message', (m) => { if (workerMessage(m) === 'stop') process.exitCode = 0; });
 * ```
 */
export function workerMessage(m: unknown): SupervisorMessageKind | null {
  if (typeof m !== 'object' || m === null) return null;
  const kind = (m as { eventide?: unknown }).eventide;
  return kind === 'ready' || kind === 'stop' || kind === 'failed' ? kind : null;
}

/** The reason of a `failed` message (one line, at most 500 characters), or null. */
function failureReason(m: unknown): string | null {
  const reason = (m as { reason?: unknown }).reason;
  return typeof reason === 'string' ? (reason.split('\n')[0] ?? '').slice(0, 500) : null;
}

/**
 * How a {@link WorkerSupervisor} runs its workers.
 * @example
 * ```ts
 * const o: SupervisorOptions = { workers: 2, exec: 'main.js', args: ['serve', '--worker'], shutdownTimeout: 10, maxRestarts: 5, restartWindow: 30 };
 * ```
 */
export interface SupervisorOptions {
  /** How many workers to keep running. */
  workers: number;
  /** The script each worker runs (default: this process's `process.argv[1]`). */
  exec: string;
  /** Its arguments. */
  args: readonly string[];
  /** Node's options for the workers (default: this process's `process.execArgv`). */
  execArgv?: readonly string[];
  /** Seconds a worker may take to finish its requests once asked to stop. */
  shutdownTimeout: number;
  /** Restarts allowed within `restartWindow` seconds; one more crash gives up. */
  maxRestarts: number;
  /** The window, in seconds, in which restarts are counted. */
  restartWindow: number;
  /** The first restart delay (ms, default 100); it doubles with each recent crash. */
  backoffInitialMs?: number;
  /** The largest restart delay (ms, default 5000). */
  backoffMaxMs?: number;
  /** A worker not ready after this long (ms, default 60000) is killed (a crash). */
  startTimeoutMs?: number;
  /** How long after `shutdownTimeout` a stopping worker is killed (ms, default 2000). */
  killGraceMs?: number;
  /** Where the supervisor's lines go (default: stderr, prefixed `eventide serve: `). */
  log?: (line: string) => void;
  /** Environment variables added for the worker of number `n` (1..N; default none). */
  workerEnv?: (n: number) => Record<string, string>;
}

interface Slot {
  /** The worker number, 1..N. */
  n: number;
  /** The worker serving in this slot (null while a restart is pending). */
  worker: Worker | null;
  /** During a reload: the new worker that will take over. */
  incoming: Worker | null;
  /** A pending restart. */
  timer: NodeJS.Timeout | null;
}

interface WorkerState {
  slot: Slot;
  pid: number;
  ready: boolean;
  /** The supervisor asked it to stop: its exit is no crash. */
  expected: boolean;
  /** What it reported before failing to start, or null. */
  failure: string | null;
  whenReady: Promise<boolean>;
  settleReady: (ok: boolean) => void;
  exited: Promise<void>;
  settleExit: () => void;
  timer: NodeJS.Timeout | null;
}

type Phase = 'idle' | 'starting' | 'running' | 'stopping';

/**
 * Runs and supervises the worker processes of `eventide serve --workers N`.
 * @example
 * ```ts
 * const sup = new WorkerSupervisor({ workers: 2, exec: process.argv[1]!, args: ['serve', '--worker'], shutdownTimeout: 10, maxRestarts: 5, restartWindow: 30 });
 * process.on('SIGTERM', () => void sup.stop(0));
 * process.on('SIGHUP', () => void sup.reload());
 * if (await sup.start()) console.log('serving');
 * process.exitCode = await sup.finished;
 * ```
 */
export class WorkerSupervisor {
  readonly #o: Required<SupervisorOptions>;
  readonly #slots: Slot[];
  readonly #states = new Map<Worker, WorkerState>();
  #failures: number[] = [];
  #phase: Phase = 'idle';
  #status = 0;
  #reloading = false;
  #reloadAgain = false;
  readonly #finished: Promise<number>;
  #finish: (status: number) => void = () => {};

  /**
   * A supervisor; nothing starts before {@link WorkerSupervisor.start}.
   * @example
   * ```ts
   * const sup = new WorkerSupervisor({ workers: 4, exec: 'dist/cli/main.js', args: ['serve', '--worker'], shutdownTimeout: 10, maxRestarts: 5, restartWindow: 30 });
   * ```
   */
  constructor(options: SupervisorOptions) {
    this.#o = {
      execArgv: process.execArgv,
      backoffInitialMs: 100,
      backoffMaxMs: 5000,
      startTimeoutMs: 60_000,
      killGraceMs: 2000,
      log: (line) => process.stderr.write(`eventide serve: ${line}\n`),
      workerEnv: () => ({}),
      ...options,
    };
    this.#slots = Array.from({ length: options.workers }, (_, i) => ({
      n: i + 1,
      worker: null,
      incoming: null,
      timer: null,
    }));
    this.#finished = new Promise((resolve) => (this.#finish = resolve));
  }

  /**
   * Settles with the exit status once the supervisor has stopped and every
   * worker has exited: 0 after {@link WorkerSupervisor.stop}, 1 when a
   * worker failed to start or the workers kept crashing.
   * @example
   * ```ts
   * declare const sup: WorkerSupervisor;
   * process.exitCode = await sup.finished;
   * ```
   */
  get finished(): Promise<number> {
    return this.#finished;
  }

  /**
   * The pids of the workers serving now, by worker number.
   * @example
   * ```ts
   * declare const sup: WorkerSupervisor;
   * sup.pids(); // [4711, 4712]
   * ```
   */
  pids(): number[] {
    return this.#slots.flatMap((s) => (s.worker !== null ? [this.#states.get(s.worker)?.pid ?? -1] : []));
  }

  /**
   * Starts the workers; resolves true once all of them accept connections,
   * false when one failed to start or the supervisor was stopped meanwhile
   * (then {@link WorkerSupervisor.finished} tells the status).
   * @example
   * ```ts
   * declare const sup: WorkerSupervisor;
   * if (!(await sup.start())) process.exitCode = await sup.finished;
   * ```
   */
  async start(): Promise<boolean> {
    if (this.#phase !== 'idle') throw new Error('WorkerSupervisor.start() called twice');
    this.#phase = 'starting';
    if (process.env.NODE_CLUSTER_SCHED_POLICY === undefined) cluster.schedulingPolicy = cluster.SCHED_NONE;
    cluster.setupPrimary({
      exec: this.#o.exec,
      args: [...this.#o.args],
      execArgv: [...this.#o.execArgv],
      silent: false,
    });
    const started = this.#slots.map((slot) => this.#spawn(slot));
    for (const [i, w] of started.entries()) (this.#slots[i] as Slot).worker = w;
    const ready = await Promise.all(started.map((w) => this.#states.get(w)?.whenReady ?? Promise.resolve(false)));
    if (this.#phase !== 'starting' || !ready.every(Boolean)) return false;
    this.#phase = 'running';
    return true;
  }

  /**
   * Stops every worker (each finishes its requests within `shutdownTimeout`
   * seconds; those still running `killGraceMs` later are killed) and
   * resolves with the exit status once they have exited. The status of the
   * first call wins.
   * @example
   * ```ts
   * declare const sup: WorkerSupervisor;
   * process.on('SIGTERM', () => void sup.stop(0));
   * ```
   */
  stop(status = 0): Promise<number> {
    if (this.#phase === 'stopping') return this.#finished;
    this.#phase = 'stopping';
    this.#status = status;
    for (const slot of this.#slots) {
      if (slot.timer !== null) clearTimeout(slot.timer);
      slot.timer = null;
    }
    for (const [w, st] of this.#states) void this.#stopWorker(w, st);
    this.#checkFinished();
    return this.#finished;
  }

  /**
   * Replaces the workers one at a time: starts a new worker, waits until it
   * accepts connections, then stops the old one (which finishes its
   * requests) and waits for it to exit before the next. A reload asked for
   * during one runs after it. If a new worker fails to start, the reload
   * stops there and the old workers keep serving.
   * @example
   * ```ts
   * declare const sup: WorkerSupervisor;
   * process.on('SIGHUP', () => void sup.reload());
   * ```
   */
  async reload(): Promise<void> {
    if (this.#phase !== 'running') {
      this.#o.log(`reload ignored: the service is ${this.#phase === 'stopping' ? 'stopping' : 'starting'}`);
      return;
    }
    if (this.#reloading) {
      this.#reloadAgain = true;
      this.#o.log('a reload is under way; another one will follow it');
      return;
    }
    this.#reloading = true;
    try {
      do {
        this.#reloadAgain = false;
        this.#o.log('reloading: replacing the workers one at a time');
        for (const slot of this.#slots) {
          if (!(await this.#replace(slot))) return;
        }
        if (this.#phase === 'running') this.#o.log(`reload done (pids ${this.pids().join(', ')})`);
      } while (this.#reloadAgain && this.#phase === 'running');
    } finally {
      this.#reloading = false;
    }
  }

  /** Replaces the worker of one slot; false when the reload must stop. */
  async #replace(slot: Slot): Promise<boolean> {
    if (this.#phase !== 'running') return false;
    const old = slot.worker;
    // A slot waiting for its restart, or whose restarted worker is starting, gets a new worker anyway.
    if (old === null || this.#states.get(old)?.ready !== true) return true;
    const fresh = this.#spawn(slot);
    slot.incoming = fresh;
    const ok = (await this.#states.get(fresh)?.whenReady) ?? false;
    if (slot.incoming === fresh) slot.incoming = null;
    if (this.#phase !== 'running') return false;
    if (!ok) {
      this.#o.log(`reload stopped: the new worker ${slot.n} did not start; the others keep serving`);
      if (slot.worker === null) this.#scheduleRestart(slot, this.#restartDelay());
      return false;
    }
    const current = slot.worker;
    slot.worker = fresh;
    const st = current !== null ? this.#states.get(current) : undefined;
    if (current !== null && st !== undefined) await this.#stopWorker(current, st);
    return true;
  }

  #spawn(slot: Slot): Worker {
    const w = cluster.fork(this.#o.workerEnv(slot.n));
    let settleReady: (ok: boolean) => void = () => {};
    let settleExit: () => void = () => {};
    const whenReady = new Promise<boolean>((resolve) => (settleReady = resolve));
    const exited = new Promise<void>((resolve) => (settleExit = resolve));
    const st: WorkerState = {
      slot,
      pid: w.process.pid ?? -1,
      ready: false,
      expected: false,
      failure: null,
      whenReady,
      settleReady,
      exited,
      settleExit,
      timer: null,
    };
    this.#states.set(w, st);
    st.timer = setTimeout(() => {
      st.timer = null;
      if (st.ready || st.expected) return;
      this.#o.log(
        `worker ${slot.n} (pid ${st.pid}) did not start within ${this.#o.startTimeoutMs / 1000} s; killing it`,
      );
      w.process.kill('SIGKILL');
    }, this.#o.startTimeoutMs);
    w.on('message', (m: unknown) => {
      const kind = workerMessage(m);
      if (kind === 'failed') st.failure = failureReason(m);
      if (kind !== 'ready' || st.ready) return;
      st.ready = true;
      if (st.timer !== null) clearTimeout(st.timer);
      st.timer = null;
      this.#o.log(`worker ${slot.n} started (pid ${st.pid})`);
      if (st.expected) this.#ask(w, st); // asked to stop while starting
      st.settleReady(true);
    });
    // IPC errors come when a worker goes away; its 'exit' is what counts.
    w.on('error', () => {});
    w.on('exit', (code: number | null, signal: NodeJS.Signals | null) => this.#onExit(w, st, code, signal));
    return w;
  }

  #onExit(w: Worker, st: WorkerState, code: number | null, signal: NodeJS.Signals | null): void {
    if (st.timer !== null) clearTimeout(st.timer);
    st.timer = null;
    this.#states.delete(w);
    const slot = st.slot;
    if (slot.worker === w) slot.worker = null;
    if (slot.incoming === w) slot.incoming = null;
    st.settleReady(false);
    st.settleExit();
    if (st.expected || this.#phase === 'stopping') {
      this.#checkFinished();
      return;
    }
    const how = `${signal !== null ? `signal ${signal}` : `exit code ${code ?? '?'}`}${st.failure !== null ? `: ${st.failure}` : ''}`;
    if (this.#phase === 'starting') {
      this.#o.log(`worker ${slot.n} (pid ${st.pid}) failed to start (${how})`);
      void this.stop(1);
      return;
    }
    const now = Date.now();
    const windowMs = this.#o.restartWindow * 1000;
    this.#failures = this.#failures.filter((t) => now - t < windowMs);
    this.#failures.push(now);
    if (this.#failures.length > this.#o.maxRestarts) {
      this.#o.log(
        `worker ${slot.n} (pid ${st.pid}) died (${how}); ${this.#failures.length} crashes within ${this.#o.restartWindow} s ` +
          `(more than --max-restarts ${this.#o.maxRestarts}): giving up`,
      );
      void this.stop(1);
      return;
    }
    if (slot.worker === null && slot.incoming === null && slot.timer === null) {
      const delay = this.#restartDelay();
      this.#o.log(`worker ${slot.n} (pid ${st.pid}) died (${how}); restarting it in ${delay} ms`);
      this.#scheduleRestart(slot, delay);
    } else {
      this.#o.log(`worker ${slot.n} (pid ${st.pid}) died (${how})`);
    }
  }

  /** The delay before the next restart: doubles with each crash in the window. */
  #restartDelay(): number {
    const n = Math.max(1, this.#failures.length);
    return Math.min(this.#o.backoffInitialMs * 2 ** (n - 1), this.#o.backoffMaxMs);
  }

  #scheduleRestart(slot: Slot, delay: number): void {
    if (slot.timer !== null || this.#phase === 'stopping') return;
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (this.#phase === 'stopping' || slot.worker !== null || slot.incoming !== null) return;
      slot.worker = this.#spawn(slot);
    }, delay);
  }

  /** Asks a worker to stop and resolves when it has exited; kills it if it outlives the deadline. */
  #stopWorker(w: Worker, st: WorkerState): Promise<void> {
    if (st.expected) return st.exited;
    st.expected = true;
    if (st.timer !== null) clearTimeout(st.timer);
    st.timer = setTimeout(
      () => {
        st.timer = null;
        this.#o.log(
          `worker ${st.slot.n} (pid ${st.pid}) still running ${this.#o.shutdownTimeout} s after it was asked to stop; killing it`,
        );
        w.process.kill('SIGKILL');
      },
      this.#o.shutdownTimeout * 1000 + this.#o.killGraceMs,
    );
    this.#ask(w, st);
    return st.exited;
  }

  /** The stop request: a message to a ready worker; SIGTERM to one still starting (it may not listen to messages yet). */
  #ask(w: Worker, st: WorkerState): void {
    const signal = (): void => {
      if (w.process.exitCode === null && w.process.signalCode === null) w.process.kill('SIGTERM');
    };
    if (!st.ready || !w.isConnected()) {
      signal();
      return;
    }
    try {
      w.send(supervisorMessage('stop'), (err: Error | null) => {
        if (err !== null) signal();
      });
    } catch {
      signal();
    }
  }

  #checkFinished(): void {
    if (this.#phase === 'stopping' && this.#states.size === 0) this.#finish(this.#status);
  }
}

/**
 * EventListener: accepts connections on a TCP address, a UNIX domain socket
 * or an existing listening socket, and hands each one to a callback run by
 * the event loop. Listening is synchronous, as in libevent: see
 * listener-bind.ts for how.
 *
 * ## Delivery
 *
 * Each accepted connection is queued and the listener's handle is activated
 * in its base; the loop then calls the accept callback for every queued
 * connection, in order. While the base is not dispatching, connections wait
 * and are delivered at the next `dispatch()`/`loop()`.
 *
 * @module
 */
import { Server, Socket } from 'node:net';
import { EventBase } from './base.js';
import { fdOf } from './descriptor.js';
import { createEventError, warn, type EventError } from './errors.js';
import { FORCE_FALLBACK_ENV, forcedFallback, reportFallback } from './fallbacks.js';
import { Handle } from './handle.js';
import {
  listenFailure,
  loadBinding,
  openTarget,
  queuedGuard,
  type ListenContext,
  type ManagedServer,
  type Opened,
  type PipeWrapBinding,
  type TcpWrapBinding,
} from './listener-bind.js';
import { Ring } from './ring.js';
import { noop, READ } from './shared.js';
import { EventUtil, setLastSocketError, type EventSocketAddress } from './util.js';

/**
 * The accept callback: `(listener, socket, address, arg)`. `address` is
 * `[ip, port]` for a TCP client and `null` for a UNIX-domain client (as in
 * the PHP extension), and also `null` for a TCP client whose peer address is
 * no longer known (reset before delivery). The socket starts paused: see
 * {@link EventListener}.
 * @example
 * ```ts
 * const onAccept: AcceptCallback<EventBase> = (listener, socket, address, base) => {
 *   const bev = new EventBufferEvent(base, socket, EventBufferEvent.OPT_CLOSE_ON_FREE);
 *   bev.enable(Event.READ);
 * };
 * ```
 */
export type AcceptCallback<A = unknown> = (
  listener: EventListener<A>,
  socket: Socket,
  address: [string, number] | null,
  arg: A,
) => void;

/**
 * The error callback: `(listener, arg)`. Call `EventUtil.getLastSocketErrno()`
 * and `EventUtil.getLastSocketError()` inside it to learn what failed.
 * @example
 * ```ts
 * listener.setErrorCallback(() => {
 *   console.error(`Got an error ${EventUtil.getLastSocketErrno()} (${EventUtil.getLastSocketError()}) on the listener. Shutting down.`);
 *   base.exit();
 * });
 * ```
 */
export type ListenerErrorCallback<A = unknown> = (listener: EventListener<A>, arg: A) => void;

/**
 * What an EventListener listens on: an address string (`host:port`,
 * `[ipv6]:port`, `unix:/path`), a `net.Server`, a `net.Socket` holding a
 * bound socket, or the number of a bound socket descriptor.
 * @example
 * ```ts
 * const target: ListenerTarget = 'unix:/tmp/echo.sock';
 * ```
 */
export type ListenerTarget = string | Server | Socket | number;

// ------------------------------------------------------------------ process-wide state

let tcpBinding: TcpWrapBinding | null | undefined;
let pipeBinding: PipeWrapBinding | null | undefined;

function tcpWrap(): TcpWrapBinding | null {
  if (forcedFallback('sync-bind')) {
    reportFallback('sync-bind', `${FORCE_FALLBACK_ENV} forces it`);
    return null;
  }
  if (tcpBinding === undefined) {
    tcpBinding = loadBinding('tcp_wrap', 'TCP') as TcpWrapBinding | null;
    if (tcpBinding === null) reportFallback('sync-bind', "process.binding('tcp_wrap') is not available");
  }
  return tcpBinding;
}

function pipeWrap(): PipeWrapBinding | null {
  if (pipeBinding === undefined) pipeBinding = loadBinding('pipe_wrap', 'Pipe') as PipeWrapBinding | null;
  return pipeBinding;
}

/** Servers this module made on callers' descriptors, by descriptor number. */
const managed = new Map<number, ManagedServer>();

/** What listener-bind.ts needs from this module's process-wide state. */
const context: ListenContext = { tcpWrap, pipeWrap, managed };

function freedWarning(): false {
  return warn('ERR_EVENT_FREED', 'EventListener is not initialized');
}

type Pending =
  { socket: Socket; address: [string, number] | null; error?: undefined } | { socket?: undefined; error: Error };

/**
 * A connection listener (libevent's `evconnlistener`).
 *
 * - The constructor listens at once and throws on failure: an
 *   `EventArgumentError` with code `ERR_EVENT_ADDRESS` ("Failed to parse
 *   network address X") for a malformed address, a port outside 0..65535 or
 *   a host name that does not resolve; an `EventSystemError` with code
 *   `ERR_EVENT_LISTENER` ("Failed to listen on 127.0.0.1:8080: address
 *   already in use (EADDRINUSE)", with `errno`, `syscall` and the system error
 *   as `cause`) when the port is taken, the address is not permitted or not
 *   local, or a UNIX path's directory is missing or not writable.
 * - An enabled listener keeps its base's loop running; `disable()` and
 *   `free()` release it. The listener holds no Node reference of its own: a
 *   server it creates is `unref()`ed, so it never keeps the process alive
 *   outside `dispatch()`.
 * - Accepted sockets start paused (`pauseOnConnect`, `readableFlowing ===
 *   false`): no byte is read into JavaScript, and none is lost, until the
 *   application reads (`socket.resume()`, `socket.read()`, a 'readable'
 *   listener, or wrapping it in an EventBufferEvent). Note that with
 *   `readableFlowing === false`, adding a 'data' listener alone does not
 *   start the flow: call `resume()`. They are half-open capable
 *   (`allowHalfOpen`, like a raw descriptor: the peer's EOF does not end the
 *   write side) and have TCP keep-alive on (libevent sets SO_KEEPALIVE).
 * - A callback that throws disables the listener, the socket it was given is
 *   destroyed, and the exception rejects the running `dispatch()`/`loop()`.
 *
 * @example
 * ```ts
 * import { EventBase, EventListener, EventBufferEvent, Event } from 'eventide/event';
 * const base = new EventBase();
 * const listener = new EventListener(base, (l, socket, address, b) => {
 *   const bev = new EventBufferEvent(b, socket, EventBufferEvent.OPT_CLOSE_ON_FREE);
 *   bev.setCallbacks((bev) => bev.getOutput().addBuffer(bev.getInput()), null, null);
 *   bev.enable(Event.READ | Event.WRITE);
 * }, base, EventListener.OPT_CLOSE_ON_FREE | EventListener.OPT_REUSEABLE, -1, '0.0.0.0:9808');
 * await base.dispatch();
 * ```
 */
export class EventListener<A = unknown> {
  /**
   * Leave accepted sockets blocking. Accepted; Node sockets are always
   * non-blocking, so it changes nothing. The first of the `OPT_*` flags,
   * which combine with `|` into the constructor's `flags`.
   * @example
   * ```ts
   * const l = new EventListener(base, onAccept, null, EventListener.OPT_CLOSE_ON_FREE | EventListener.OPT_DISABLED, -1, '127.0.0.1:0');
   * l.enable(); // OPT_DISABLED: nothing is accepted before this
   * ```
   */
  static readonly OPT_LEAVE_SOCKETS_BLOCKING = 1;
  /**
   * Close the listening socket on `free()`. A socket the listener created
   * itself (string target) is always closed; with a `net.Server`, socket or
   * descriptor target this flag decides. Closing a UNIX listener removes its
   * socket file (libuv's behaviour; libevent leaves it).
   */
  static readonly OPT_CLOSE_ON_FREE = 2;
  /**
   * Close-on-exec for accepted sockets. Accepted; libuv always creates
   * descriptors with O_CLOEXEC.
   */
  static readonly OPT_CLOSE_ON_EXEC = 4;
  /**
   * SO_REUSEADDR on the listening socket. Accepted; libuv always sets it on
   * TCP sockets it binds. It does not let two sockets listen on one port:
   * a port in use still fails with EADDRINUSE.
   */
  static readonly OPT_REUSEABLE = 8;
  /** Thread-safe listener. Accepted; JavaScript runs the loop on one thread. */
  static readonly OPT_THREADSAFE = 16;
  /**
   * Create the listener disabled: it listens, but delivers nothing (and does
   * not keep the loop running) until `enable()`.
   */
  static readonly OPT_DISABLED = 32;
  /**
   * Deferred accept (TCP_DEFER_ACCEPT: wake only when data arrives).
   * Accepted as a no-op: Node offers no way to set it; connections are
   * delivered when established.
   */
  static readonly OPT_DEFERRED_ACCEPT = 64;

  #base: EventBase;
  #cb: AcceptCallback<A> | null;
  #errorCb: ListenerErrorCallback<A> | null = null;
  #arg: A;
  #server: Server | null;
  #mode: Opened['mode'];
  #managedFd: number;
  #display: string;
  #closeOnFree: boolean;
  #enabled: boolean;
  #freed = false;
  #refd = false;
  #open = true;
  #queue = new Ring<Pending>();
  #handle: Handle;
  #ready: Promise<void>;
  #settleReady: ((err: EventError | null) => void) | null = null;

  /**
   * Creates a listener and starts listening.
   *
   * - `cb`: the accept callback; `null` listens without accepting until
   *   `setCallback()` (libevent's behaviour for a listener without callback).
   * - `arg`: passed to the accept and error callbacks.
   * - `flags`: `OPT_*` bits; all are accepted, see each constant.
   * - `backlog`: > 0 is the listen backlog; < 0 is the default, 511 (Node's;
   *   libevent uses 128); 0 with a string target throws `ERR_EVENT_LISTENER`
   *   (as libevent fails), and with a socket/descriptor target means "already
   *   listening" (Node re-issues `listen()` with 511, which is harmless).
   *   The backlog of an adopted `net.Server` is its own.
   * - `target`: `"host:port"`, `"[ipv6]:port"` (the port is mandatory; 0 is
   *   an ephemeral port; `localhost` is 127.0.0.1, and another host name is
   *   looked up without blocking the loop: the listener listens once it is
   *   resolved, and a failure goes to {@link EventListener.ready} and the
   *   error callback instead of the constructor), `"unix:/path"` (prefix
   *   case-insensitive; an existing file at the path is not removed first,
   *   so it fails with EADDRINUSE), a `net.Server` (adopted: the listener
   *   takes its 'connection' and 'error' events; a server still starting
   *   to listen is fine, see {@link EventListener.ready}), a `net.Socket`
   *   holding a bound socket, or a bound socket's descriptor number.
   *
   * Throws `EventArgumentError` (`ERR_EVENT_ADDRESS`, `ERR_EVENT_INVALID_ARGUMENT`,
   * `ERR_EVENT_INVALID_DESCRIPTOR`) or `EventSystemError` (`ERR_EVENT_LISTENER`).
   *
   * @example
   * ```ts
   * try {
   *   new EventListener(base, onAccept, null, EventListener.OPT_REUSEABLE, -1, '127.0.0.1:8080');
   * } catch (e) {
   *   console.error((e as Error).message); // Failed to listen on 127.0.0.1:8080: address already in use (EADDRINUSE)
   * }
   * ```
   */
  constructor(
    base: EventBase,
    cb: AcceptCallback<A> | null,
    arg: A,
    flags: number,
    backlog: number,
    target: ListenerTarget,
  ) {
    if (!(base instanceof EventBase))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventListener expects an EventBase');
    if (base.freed) throw createEventError('ERR_EVENT_BASE_FREED', 'EventBase is not initialized');
    if (cb !== null && typeof cb !== 'function')
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventListener expects a callback function or null');
    if (!Number.isInteger(flags))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `Invalid flags: ${String(flags)}`);
    if (!Number.isInteger(backlog))
      throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `Invalid backlog: ${String(backlog)}`);
    const opened = openTarget(target, backlog, this, context);

    this.#base = base;
    this.#cb = cb;
    this.#arg = arg;
    this.#closeOnFree = (flags & EventListener.OPT_CLOSE_ON_FREE) !== 0;
    this.#enabled = (flags & EventListener.OPT_DISABLED) === 0;
    this.#handle = new Handle(base, () => this.#run(), noop);
    const server = opened.server;
    this.#server = server;
    this.#mode = opened.mode;
    this.#managedFd = opened.fd;
    this.#display = opened.display;
    if (opened.mode !== 'adopted') server.unref();

    server.on('connection', this.#onConnection);
    server.on('error', this.#onError);
    server.on('close', this.#onClose);
    if (opened.pending) {
      this.#ready = new Promise<void>((resolve, reject) => {
        this.#settleReady = (err) => {
          this.#settleReady = null;
          if (err === null) resolve();
          else reject(err);
        };
      });
      this.#ready.catch(noop); // observed through `ready` only when someone asks
      server.on('listening', this.#onListening);
    } else {
      this.#ready = Promise.resolve();
    }
    for (const socket of opened.parked) {
      // connections that arrived while the descriptor was parked
      socket.off('error', queuedGuard);
      this.#onConnection(socket);
    }
    this.#updateRef();
  }

  /**
   * Settles when the listener listens: at once for the synchronous cases,
   * when an adopted `net.Server` emits 'listening', or (asynchronous
   * fallback) when Node reports the outcome. Rejects with the
   * `EventSystemError` (`ERR_EVENT_LISTENER`) when listening fails; the same
   * failure also reaches the error callback from the loop.
   * @example
   * ```ts
   * const l = new EventListener(base, onAccept, null, 0, -1, server); // server.listen() still in progress
   * await l.ready;
   * ```
   */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /**
   * The listening socket's descriptor number; `null` after `free()` or
   * while an adopted server is not listening.
   * @example
   * ```ts
   * console.log(listener.fd); // e.g. 21
   * ```
   */
  get fd(): number | null {
    if (this.#freed || this.#server === null) return null;
    const fd = fdOf(this.#server);
    return fd >= 0 ? fd : null;
  }

  /**
   * Starts delivering connections again (and keeps the loop running).
   * Connections accepted while the listener was disabled are delivered
   * first. Returns false after `free()`.
   * @example
   * ```ts
   * listener.disable();
   * // ... later
   * listener.enable();
   * ```
   */
  enable(): boolean {
    if (this.#freed) return freedWarning();
    this.#enabled = true;
    this.#updateRef();
    this.#schedule();
    return true;
  }

  /**
   * Stops delivering connections and releases the loop. The socket stays
   * open and bound (the port is kept). Node cannot pause the accepting of a
   * listening handle, so connections arriving meanwhile are accepted by
   * libuv and queued here, paused, instead of waiting in the kernel's
   * backlog; `enable()` delivers them. Returns false after `free()`.
   * @example
   * ```ts
   * listener.disable(); // no accept callbacks until enable()
   * ```
   */
  disable(): boolean {
    if (this.#freed) return freedWarning();
    this.#enabled = false;
    this.#base.deactivate(this.#handle);
    this.#updateRef();
    return true;
  }

  /**
   * Replaces the accept callback and its argument. As in the PHP extension,
   * omitting `arg` resets it to `null`. Returns false after `free()` or for a
   * callback that is not a function.
   * @example
   * ```ts
   * listener.setCallback((l, socket, address, tag) => console.log(tag, address), 'second');
   * ```
   */
  setCallback(cb: AcceptCallback<A> | null, arg?: A): boolean {
    if (this.#freed) return freedWarning();
    if (cb !== null && typeof cb !== 'function')
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'EventListener::setCallback expects a callback function');
    this.#cb = cb;
    this.#arg = (arguments.length >= 2 ? arg : null) as A;
    this.#updateRef();
    this.#schedule();
    return true;
  }

  /**
   * Sets the callback run (from the loop) when accepting fails, or when an
   * adopted server fails to listen. Note that running out of descriptors
   * (EMFILE/ENFILE) does not reach it: libuv handles that itself by
   * accepting and closing the surplus connections with a reserve descriptor,
   * so the listener keeps serving the others. It receives
   * `(listener, arg)`; `EventUtil.getLastSocketErrno()` and
   * `getLastSocketError()` tell what failed. Without an error callback the
   * failure is recorded as an `ERR_EVENT_LISTENER` warning
   * ("Error from accept() call: Too many open files"). Returns false after `free()`.
   * @example
   * ```ts
   * listener.setErrorCallback(() => {
   *   console.error(`Got an error ${EventUtil.getLastSocketErrno()} (${EventUtil.getLastSocketError()}) on the listener. Shutting down.`);
   *   base.exit();
   * });
   * ```
   */
  setErrorCallback(cb: ListenerErrorCallback<A> | null): boolean {
    if (this.#freed) return freedWarning();
    if (cb !== null && typeof cb !== 'function')
      return warn('ERR_EVENT_INVALID_ARGUMENT', 'EventListener::setErrorCallback expects a callback function');
    this.#errorCb = cb;
    return true;
  }

  /**
   * The address the listening socket is bound to: IP, real port (also for
   * port 0) and family, or the path of a UNIX socket (no port). `false`
   * (with a warning) after `free()` or when not bound. (The PHP extension's
   * by-reference version is broken on PHP 8; this one returns the address.)
   * @example
   * ```ts
   * const name = listener.getSocketName(); // { address: '127.0.0.1', port: 41234, family: 2 }
   * ```
   */
  getSocketName(): EventSocketAddress | false {
    if (this.#freed || this.#server === null) return freedWarning();
    return EventUtil.getSocketName(this.#server);
  }

  /**
   * The base the listener delivers to.
   * @example
   * ```ts
   * const base = listener.getBase();
   * ```
   */
  getBase(): EventBase {
    return this.#base;
  }

  /**
   * Stops delivering, releases the loop and the listening socket: it is
   * closed when the listener created it or with `OPT_CLOSE_ON_FREE`;
   * otherwise it stays open and listening (an adopted `net.Server` is left
   * to its owner; a descriptor keeps its server, and connections arriving
   * meanwhile wait for the next EventListener on the same descriptor).
   * Connections queued but not delivered are closed. A second `free()` does
   * nothing; other methods then return false with the warning
   * "EventListener is not initialized".
   * @example
   * ```ts
   * listener.free();
   * ```
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    this.#updateRef();
    this.#base.deactivate(this.#handle);
    for (let item = this.#queue.shift(); item !== undefined; item = this.#queue.shift()) {
      if (item.socket !== undefined) item.socket.destroy();
    }
    this.#settleReady?.(createEventError('ERR_EVENT_FREED', 'EventListener is not initialized'));
    const server = this.#server;
    this.#server = null;
    if (server === null) return;
    server.off('connection', this.#onConnection);
    server.off('error', this.#onError);
    server.off('close', this.#onClose);
    server.off('listening', this.#onListening);
    const entry = this.#managedFd >= 0 ? managed.get(this.#managedFd) : undefined;
    if (this.#mode === 'created' || this.#closeOnFree) {
      if (entry !== undefined && entry.server === server) managed.delete(this.#managedFd);
      server.on('error', noop);
      server.close();
    } else if (entry !== undefined && entry.server === server) {
      // The caller's descriptor stays listening: hold what arrives for the next listener on it.
      entry.owner = null;
      server.on('connection', entry.park);
    }
  }

  // ---------------------------------------------------------------- internals

  #active(): boolean {
    return !this.#freed && this.#enabled && this.#cb !== null;
  }

  #updateRef(): void {
    const want = this.#active() && this.#open;
    if (want === this.#refd) return;
    this.#refd = want;
    if (want) this.#base.ref();
    else this.#base.unref();
  }

  /** Activates the handle (never running callbacks synchronously) when connections wait. */
  #schedule(): void {
    if (this.#queue.length > 0 && this.#active()) this.#base.activate(this.#handle, READ);
  }

  #onConnection = (socket: Socket): void => {
    const address: [string, number] | null =
      typeof socket.remoteAddress === 'string' && typeof socket.remotePort === 'number'
        ? [socket.remoteAddress, socket.remotePort]
        : null;
    socket.on('error', queuedGuard); // until delivered: a reset while queued must not crash the process
    this.#queue.push({ socket, address });
    if (this.#active()) this.#base.activateNow(this.#handle, READ);
  };

  #onError = (err: Error): void => {
    const server = this.#server;
    const listening = server !== null && server.listening;
    if (!listening) {
      // Listening failed (adopted server, asynchronous fallback): nothing will be accepted.
      this.#settleReady?.(listenFailure(this.#display, err));
    }
    this.#queue.push({ error: err });
    if (this.#active()) this.#base.activateNow(this.#handle, READ);
    if (!listening) {
      this.#open = false;
      this.#updateRef();
    }
  };

  #onListening = (): void => {
    this.#settleReady?.(null);
  };

  #onClose = (): void => {
    this.#open = false;
    this.#updateRef();
  };

  /** Runs from the loop: delivers every queued connection (and accept error) while the listener stays active. */
  #run(): void {
    const queue = this.#queue;
    while (queue.length > 0 && this.#active()) {
      const item = queue.shift() as Pending;
      if (item.error !== undefined) {
        this.#deliverError(item.error);
        continue;
      }
      const socket = item.socket;
      socket.off('error', queuedGuard);
      try {
        (this.#cb as AcceptCallback<A>)(this, socket, item.address, this.#arg);
      } catch (err) {
        // As in the PHP extension: stop accepting, close the client, break the loop.
        if (!this.#freed) this.disable();
        socket.destroy();
        throw err;
      }
    }
  }

  #deliverError(err: Error): void {
    setLastSocketError(err);
    const ecb = this.#errorCb;
    if (ecb === null) {
      const syscall = (err as NodeJS.ErrnoException).syscall;
      const what =
        syscall === undefined || syscall === 'accept' ? 'Error from accept() call' : `Error from ${syscall}() call`;
      warn('ERR_EVENT_LISTENER', `${what}: ${EventUtil.getLastSocketError()}`, err);
      return;
    }
    try {
      ecb(this, this.#arg);
    } catch (e) {
      if (!this.#freed) this.disable();
      throw e;
    }
  }
}

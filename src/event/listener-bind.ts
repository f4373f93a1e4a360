/**
 * Listening for `EventListener`: binding and listening on a TCP address, a
 * UNIX domain socket or an existing socket, synchronously, with the errors
 * libevent would report; and the servers kept on callers' descriptors.
 *
 * ## Listening is synchronous
 *
 * libevent binds and listens inside `evconnlistener_new_bind()`, so the PHP
 * constructor throws when the port is taken. Node's public `server.listen()`
 * reports its outcome asynchronously, so this module binds through the same
 * libuv handles Node's `net` module uses:
 *
 * - TCP: the `TCP` handle class of `process.binding('tcp_wrap')` (on Node's
 *   allow-list of `process.binding()` modules; DEP0111 is documentation-only,
 *   a warning appears only under `--pending-deprecation`) binds and listens
 *   synchronously and returns the errno; the bound handle is then given to
 *   `net.Server#listen(handle)`, whose documented handle form adopts a `TCP`
 *   handle as it is.
 * - UNIX sockets: `net.Server#listen({ path })` already binds and listens
 *   synchronously (no name lookup is involved); success shows at once in
 *   `server.listening`. On failure the errno is obtained at once by repeating
 *   the bind with `process.binding('pipe_wrap')` (a failed bind creates
 *   nothing), and the 'error' Node emits on the next tick is swallowed.
 * - Descriptors: `net.Server#listen({ fd })`, synchronous as well.
 * - Host names: `localhost` means 127.0.0.1 and names under `.invalid` fail
 *   at once (RFC 6761, no query), as PHP's `getaddrinfo()` call would.
 *   Other names (`example.test:80`) are looked up with `dns.lookup()`,
 *   which never blocks the loop (Node has no synchronous resolver, and a
 *   resolver can take seconds): the listener listens once the name is
 *   resolved, and a failure (the name, or the port) reaches the error
 *   callback and {@link EventListener.ready}, not the constructor.
 *
 * If `process.binding('tcp_wrap')` is ever unavailable (or the `sync-bind`
 * fallback is forced, see `fallbacks.ts`), TCP listening falls back to the
 * asynchronous public `server.listen()`: a failure then reaches the error
 * callback (with `EventUtil.getLastSocketErrno()` set) and
 * {@link EventListener.ready} rejects.
 *
 * @module
 */
import { lookup } from 'node:dns';
import { accessSync, constants as fsConstants, existsSync, fstatSync } from 'node:fs';
import { Server, Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import { dirname } from 'node:path';
import { getSystemErrorMap } from 'node:util';
import { formatAddress, parseAddress } from './address.js';
import { fdOf } from './descriptor.js';
import { isInvalidName } from './dns-names.js';
import { createEventError, type EventError } from './errors.js';
import { activeHandles } from './fallbacks.js';
import { noop } from './shared.js';
import { setLastSocketError } from './util.js';

// ------------------------------------------------------------------ libuv handles through process.binding()

interface UvTcpServerHandle {
  bind(address: string, port: number): number;
  bind6(address: string, port: number, flags: number): number;
  listen(backlog: number): number;
  close(): void;
}

interface UvPipeServerHandle {
  bind(path: string): number;
  listen(backlog: number): number;
  close(): void;
}

/** @internal */
export interface TcpWrapBinding {
  TCP: new (type: number) => UvTcpServerHandle;
  constants: { SERVER: number };
}

/** @internal */
export interface PipeWrapBinding {
  Pipe: new (type: number) => UvPipeServerHandle;
  constants: { SERVER: number };
}

/**
 * A libuv handle module from `process.binding()` (`tcp_wrap`, `pipe_wrap`)
 * when it has the `ctor` class and server constants; null otherwise.
 * @internal
 * @example
 * ```ts
 * const tw = loadBinding('tcp_wrap', 'TCP') as TcpWrapBinding | null;
 * ```
 */
export function loadBinding(name: string, ctor: string): unknown {
  try {
    const binding = (process as unknown as { binding?: (module: string) => unknown }).binding;
    if (typeof binding !== 'function') return null;
    const mod = binding.call(process, name) as Record<string, unknown> | null;
    if (mod === null || typeof mod !== 'object' || typeof mod[ctor] !== 'function') return null;
    const constants = mod.constants as { SERVER?: unknown } | undefined;
    return typeof constants?.SERVER === 'number' ? mod : null;
  } catch {
    return null;
  }
}

/**
 * What listening needs that lives as long as the process (kept by the
 * listener module): the libuv binding loaders and the registry of servers
 * made on callers' descriptors, by descriptor number.
 * @internal
 */
export interface ListenContext {
  tcpWrap(): TcpWrapBinding | null;
  pipeWrap(): PipeWrapBinding | null;
  readonly managed: Map<number, ManagedServer>;
}

// ------------------------------------------------------------------ errors

/** The listen backlog when none is given (Node's). */
const DEFAULT_BACKLOG = 511;

/**
 * Swallows a socket error while the socket waits in a queue (the
 * application attaches its own on delivery); removed by identity.
 * @internal
 * @example
 * ```ts
 * socket.on('error', queuedGuard); // ... socket.off('error', queuedGuard) on delivery
 * ```
 */
export function queuedGuard(): void {}

/** A Node-style system error (negative `errno`, `code`, `syscall`) for a libuv error number. */
function uvError(errno: number, syscall: string, target: string): NodeJS.ErrnoException {
  const [code, text] = getSystemErrorMap().get(errno) ?? ['UNKNOWN', `unknown error ${errno}`];
  const err = new Error(`${syscall} ${code}: ${text} ${target}`) as NodeJS.ErrnoException;
  err.errno = errno;
  err.code = code;
  err.syscall = syscall;
  return err;
}

/** A Node-style system error for an errno name such as `'ENOENT'`. */
function namedError(code: string, syscall: string, target: string): NodeJS.ErrnoException {
  const n = (osConstants.errno as Readonly<Record<string, number>>)[code] ?? 22;
  return uvError(-n, syscall, target);
}

/**
 * The EventSystemError thrown (or used to reject `ready`) when listening fails.
 * @internal
 * @example
 * ```ts
 * const ready = new Promise<void>((resolve, reject) => {
 *   server.once('listening', resolve).once('error', (err) => reject(listenFailure('127.0.0.1:80', err)));
 * });
 * ```
 */
export function listenFailure(target: string, cause: NodeJS.ErrnoException): EventError {
  setLastSocketError(cause);
  const errno = typeof cause.errno === 'number' ? cause.errno : 0;
  const known = errno !== 0 ? getSystemErrorMap().get(errno) : undefined;
  const code = cause.code ?? known?.[0] ?? 'UNKNOWN';
  const text = known?.[1] ?? cause.message;
  return createEventError('ERR_EVENT_LISTENER', `Failed to listen on ${target}: ${text} (${code})`, { cause });
}

// ------------------------------------------------------------------ binding and listening

/**
 * A listening server as the constructor gets it.
 * @internal
 */
export interface Opened {
  server: Server;
  /** 'created': the listener made the socket; 'descriptor': it wraps the caller's socket; 'adopted': the caller's net.Server. */
  mode: 'created' | 'descriptor' | 'adopted';
  /** Whether `server.listening` is still to come (adopted server, asynchronous fallback). */
  pending: boolean;
  /** The key of the descriptor registry, -1 when not registered. */
  fd: number;
  /** Connections that arrived while the descriptor's server was parked. */
  parked: Socket[];
  /** How messages name the target. */
  display: string;
}

function newServer(): Server {
  // pauseOnConnect: accepted sockets do not read until the application asks for data.
  // allowHalfOpen: the peer's EOF does not end the write side, as with a raw descriptor.
  return new Server({ pauseOnConnect: true, allowHalfOpen: true, keepAlive: true });
}

/** The loopback address of a `localhost` name (RFC 6761), or null for any other name. */
function localhostAddress(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : null;
}

/**
 * Listens on `host` (a name) once `dns.lookup()` has resolved it; a failure
 * is emitted as the server's 'error'. Nothing happens if the server was
 * closed meanwhile (the listener freed).
 */
function listenWhenResolved(
  ctx: ListenContext,
  server: Server,
  host: string,
  port: number,
  backlog: number,
  display: string,
): void {
  let closed = false;
  server.once('close', () => (closed = true));
  lookup(host, (err, address, family) => {
    if (closed) return;
    if (err !== null) {
      server.emit('error', Object.assign(err, { syscall: err.syscall ?? 'getaddrinfo' }));
      return;
    }
    const where = `${display} (${formatAddress(address, port)})`;
    try {
      listenTcp(ctx.tcpWrap(), server, address, port, family === 6 ? 6 : 4, backlog, where);
    } catch (e) {
      server.emit('error', ((e as EventError).cause as NodeJS.ErrnoException | undefined) ?? e);
    }
  });
}

function listenTcp(
  tw: TcpWrapBinding | null,
  server: Server,
  host: string,
  port: number,
  family: 4 | 6,
  backlog: number,
  display: string,
): boolean {
  if (tw === null) {
    server.listen({ host, port, backlog, exclusive: true });
    return false;
  }
  const handle = new tw.TCP(tw.constants.SERVER);
  let syscall = 'bind';
  let errno = family === 6 ? handle.bind6(host, port, 0) : handle.bind(host, port);
  if (errno === 0) {
    syscall = 'listen';
    errno = handle.listen(backlog);
  }
  if (errno !== 0) {
    handle.close();
    throw listenFailure(display, uvError(errno, syscall, display));
  }
  server.listen(handle, backlog);
  if (!server.listening) {
    server.on('error', noop);
    throw listenFailure(display, namedError('EINVAL', 'listen', display));
  }
  return true;
}

/** Why listening on a UNIX path failed: repeats the bind to learn the errno (a failed bind creates nothing). */
function unixFailure(
  pw: PipeWrapBinding | null,
  path: string,
  backlog: number,
  display: string,
): NodeJS.ErrnoException {
  let errno = 0;
  let syscall = 'bind';
  if (pw !== null) {
    const probe = new pw.Pipe(pw.constants.SERVER);
    errno = probe.bind(path);
    if (errno === 0) {
      syscall = 'listen';
      errno = probe.listen(backlog);
    }
    probe.close(); // unlinks the path only if this probe created it
  }
  const abstract = path.startsWith('\0');
  const dir = dirname(path);
  // libuv reports a missing directory as EACCES (for Windows' sake): say what it is.
  const eacces = -((osConstants.errno as Readonly<Record<string, number>>).EACCES ?? 13);
  if (!abstract && (errno === 0 || errno === eacces) && !existsSync(dir)) return namedError('ENOENT', 'bind', display);
  if (errno !== 0) return uvError(errno, syscall, display);
  if (!abstract && existsSync(path)) return namedError('EADDRINUSE', 'bind', display);
  if (!abstract) {
    try {
      accessSync(dir, fsConstants.W_OK | fsConstants.X_OK);
    } catch {
      return namedError('EACCES', 'bind', display);
    }
  }
  return namedError('EINVAL', 'listen', display);
}

function listenUnix(pw: PipeWrapBinding | null, server: Server, path: string, backlog: number, display: string): void {
  server.listen({ path, backlog, exclusive: true });
  if (server.listening) return;
  server.on('error', noop); // Node emits the same failure on the next tick
  throw listenFailure(display, unixFailure(pw, path, backlog, display));
}

/** Why listening on a descriptor failed. */
function descriptorFailure(fd: number, display: string): NodeJS.ErrnoException {
  if (fd < 0) return namedError('EBADF', 'listen', display);
  try {
    if (!fstatSync(fd).isSocket()) return namedError('ENOTSOCK', 'listen', display);
  } catch {
    return namedError('EBADF', 'listen', display);
  }
  return namedError('EINVAL', 'listen', display);
}

/**
 * A server this module made on a caller's descriptor, kept listening between listeners.
 * @internal
 */
export interface ManagedServer {
  server: Server;
  /** The EventListener using the server, null while parked. */
  owner: object | null;
  /** Connections accepted while parked, waiting for the next listener. */
  parked: Socket[];
  /** The 'connection' handler while parked. */
  park: (socket: Socket) => void;
}

function newManaged(managed: Map<number, ManagedServer>, fd: number, server: Server, owner: object): ManagedServer {
  const entry: ManagedServer = {
    server,
    owner,
    parked: [],
    park: (socket: Socket) => {
      if (entry.parked.length >= DEFAULT_BACKLOG) socket.destroy();
      else {
        socket.on('error', queuedGuard);
        entry.parked.push(socket);
      }
    },
  };
  server.on('error', noop); // errors while parked have nobody to go to
  server.once('close', () => {
    if (managed.get(fd) === entry) managed.delete(fd);
    for (const s of entry.parked) s.destroy();
    entry.parked = [];
  });
  managed.set(fd, entry);
  return entry;
}

/** A ref'd net.Server of this process that already owns a descriptor. */
function serverOwning(fd: number): Server | null {
  for (const h of activeHandles() ?? []) if (h instanceof Server && fdOf(h) === fd) return h;
  return null;
}

/**
 * Throws `ERR_EVENT_INVALID_DESCRIPTOR` ("Invalid file descriptor: <detail>").
 * @internal
 * @example
 * ```ts
 * if (fd < 0) invalidDescriptor(String(fd));
 * ```
 */
export function invalidDescriptor(detail: string): never {
  throw createEventError('ERR_EVENT_INVALID_DESCRIPTOR', `Invalid file descriptor: ${detail}`);
}

/**
 * Listens on an address string (`host:port`, `[ipv6]:port`, `unix:/path`)
 * with a new server; throws as the EventListener constructor documents.
 * @internal
 * @example
 * ```ts
 * declare const context: ListenContext; // the listener's
 * const opened = openString('127.0.0.1:0', -1, context);
 * ```
 */
export function openString(target: string, backlog: number, ctx: ListenContext): Opened {
  const addr = parseAddress(target, { requirePort: true, allowHostnames: true });
  if (addr === null) throw createEventError('ERR_EVENT_ADDRESS', `Failed to parse network address ${target}`);
  if (backlog === 0) {
    throw createEventError(
      'ERR_EVENT_LISTENER',
      `Failed to listen on ${target}: a backlog of 0 means the socket already listens, and a new socket does not`,
    );
  }
  const bl = backlog < 0 ? DEFAULT_BACKLOG : backlog;
  const server = newServer();
  if (addr.kind === 'unix') {
    listenUnix(ctx.pipeWrap(), server, addr.path, bl, target);
    return { server, mode: 'created', pending: false, fd: -1, parked: [], display: target };
  }
  let host = addr.host;
  let family = addr.family;
  let display = target;
  if (family === 0) {
    const loopback = localhostAddress(addr.host);
    if (loopback === null) {
      if (isInvalidName(addr.host))
        throw createEventError('ERR_EVENT_ADDRESS', `Failed to parse network address ${target}`);
      listenWhenResolved(ctx, server, addr.host, addr.port, bl, target);
      return { server, mode: 'created', pending: true, fd: -1, parked: [], display };
    }
    host = loopback;
    family = 4;
    display = `${target} (${formatAddress(host, addr.port)})`;
  }
  const sync = listenTcp(ctx.tcpWrap(), server, host, addr.port, family, bl, display);
  return { server, mode: 'created', pending: !sync, fd: -1, parked: [], display };
}

/**
 * Listens on a bound socket (its descriptor `fd`, or `socket` itself):
 * the server this module already keeps for it, a server of the process
 * that owns it, or a new one registered in `ctx.managed`.
 * @internal
 * @example
 * ```ts
 * declare const context: ListenContext; // the listener's
 * const opened = openDescriptor(fd, null, -1, listener, context);
 * ```
 */
export function openDescriptor(
  fd: number,
  socket: Socket | null,
  backlog: number,
  owner: object,
  ctx: ListenContext,
): Opened {
  const managed = ctx.managed;
  const display = `fd ${fd}`;
  if (fd < 0) invalidDescriptor('the socket has no descriptor');
  const known = managed.get(fd);
  if (known !== undefined && known.server.listening) {
    if (known.owner !== null)
      throw createEventError(
        'ERR_EVENT_LISTENER',
        `Failed to listen on ${display}: another EventListener uses this descriptor`,
      );
    known.owner = owner;
    known.server.off('connection', known.park);
    const parked = known.parked;
    known.parked = [];
    return { server: known.server, mode: 'descriptor', pending: false, fd, parked, display };
  }
  if (known !== undefined) managed.delete(fd);
  const existing = socket === null ? serverOwning(fd) : null;
  if (existing !== null) return { server: existing, mode: 'adopted', pending: false, fd: -1, parked: [], display };
  const bl = backlog > 0 ? backlog : DEFAULT_BACKLOG;
  const server = newServer();
  try {
    if (socket !== null) server.listen(socket, bl);
    else server.listen({ fd }, bl);
  } catch (err) {
    throw listenFailure(display, Object.assign(namedError('EINVAL', 'listen', display), { cause: err }));
  }
  if (!server.listening) {
    server.on('error', noop);
    throw listenFailure(display, descriptorFailure(fd, display));
  }
  const key = fdOf(server);
  if (key >= 0) newManaged(managed, key, server, owner);
  return { server, mode: 'descriptor', pending: false, fd: key, parked: [], display };
}

/**
 * Listens on what an EventListener is given (see `ListenerTarget`): an
 * address string, a `net.Server` (adopted as it is), a `net.Socket` holding
 * a bound socket, or a descriptor number. Throws as the EventListener
 * constructor documents.
 * @internal
 * @example
 * ```ts
 * declare const context: ListenContext; // the listener's
 * const opened = openTarget('unix:/tmp/echo.sock', -1, listener, context);
 * ```
 */
export function openTarget(
  target: string | Server | Socket | number,
  backlog: number,
  owner: object,
  ctx: ListenContext,
): Opened {
  if (typeof target === 'string') return openString(target, backlog, ctx);
  if (typeof target === 'number') {
    if (!Number.isInteger(target) || target < 0) invalidDescriptor(String(target));
    return openDescriptor(target, null, backlog, owner, ctx);
  }
  if (target instanceof Server) {
    return { server: target, mode: 'adopted', pending: !target.listening, fd: -1, parked: [], display: 'net.Server' };
  }
  if (target instanceof Socket) {
    if (target.destroyed) invalidDescriptor('the socket is closed');
    return openDescriptor(fdOf(target), target, backlog, owner, ctx);
  }
  throw createEventError(
    'ERR_EVENT_INVALID_ARGUMENT',
    'EventListener target must be an address string, a net.Server, a net.Socket or a descriptor number',
  );
}

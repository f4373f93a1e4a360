/**
 * What a socket is and where it is bound: the kind of a `net.Socket` or
 * `net.Server` (TCP, UNIX, not a socket, unconnected, closed), its local
 * address (`getsockname`) and its peer's (`getpeername`), with the UNIX
 * paths Node.js does not expose read from /proc on Linux.
 *
 * @module
 */
import { fstatSync, readFileSync, readlinkSync } from 'node:fs';
import { Server, Socket } from 'node:net';
import { platform } from 'node:os';
import { AF } from './address.js';
import { fdOf } from './descriptor.js';
import { warn } from './errors.js';

/** @internal */
export type SocketKind = 'tcp' | 'unix' | 'other' | 'unconnected' | 'closed';

interface NetInternals {
  _handle?: { constructor?: { name?: string } } | null;
  server?: Server | null;
  _server?: Server | null;
  connecting?: boolean;
}

function familyNumber(family: unknown): number {
  if (family === 'IPv4' || family === 4) return AF.INET;
  if (family === 'IPv6' || family === 6) return AF.INET6;
  return AF.UNSPEC;
}

function serverOf(sock: Socket): Server | null {
  const s = sock as unknown as NetInternals;
  const server = s.server ?? s._server ?? null;
  return server instanceof Server ? server : null;
}

/**
 * What a socket or server is: TCP, UNIX, not a socket, not yet connected or bound, closed.
 * @internal
 * @example
 * ```ts
 * socketKind(sock); // 'tcp', 'unix', 'other', 'unconnected' or 'closed'
 * ```
 */
export function socketKind(sock: Socket | Server): SocketKind {
  if (sock instanceof Server) {
    const a = sock.address();
    if (a === null) return 'unconnected';
    return typeof a === 'string' ? 'unix' : 'tcp';
  }
  if (sock.destroyed) return 'closed';
  const a = sock.address() as { family?: unknown };
  if (familyNumber(a.family) !== AF.UNSPEC) return 'tcp';
  const handle = (sock as unknown as NetInternals)._handle;
  if (!handle) return 'unconnected';
  const cls = handle.constructor?.name;
  if (cls === 'TCP') return (sock as unknown as NetInternals).connecting === true ? 'unconnected' : 'tcp';
  if (cls === 'Pipe') {
    const server = serverOf(sock);
    if (server !== null && typeof server.address() === 'string') return 'unix';
    const fd = fdOf(sock);
    if (fd < 0) return 'unconnected';
    try {
      return fstatSync(fd).isSocket() ? 'unix' : 'other';
    } catch {
      return 'closed';
    }
  }
  return 'other';
}

/**
 * A socket address as {@link EventUtil.getSocketName} and {@link EventUtil.getPeerName} return it.
 * @example
 * ```ts
 * const a: EventSocketAddress | false = EventUtil.getPeerName(sock);
 * if (a && a.family !== EventUtil.AF_UNIX) console.log(`${a.address}:${a.port}`);
 * ```
 */
export interface EventSocketAddress {
  /** IPv4 or IPv6 address text, or the path of a UNIX socket ('' when unnamed). */
  address: string;
  /** The port (TCP only). */
  port?: number;
  /** `AF.INET`, `AF.INET6` or `AF.UNIX`. */
  family: number;
}

/** The bound path of a UNIX socket fd from /proc/net/unix (Linux), '' when unnamed, undefined when unknown. */
function procUnixPath(fd: number): string | undefined {
  if (platform() !== 'linux' || fd < 0) return undefined;
  try {
    const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
    if (!m) return undefined;
    const inode = m[1];
    const table = readFileSync('/proc/net/unix', 'latin1');
    let start = table.indexOf('\n') + 1;
    while (start > 0 && start < table.length) {
      let end = table.indexOf('\n', start);
      if (end < 0) end = table.length;
      const cols = table.slice(start, end).trim().split(/\s+/);
      // Num RefCount Protocol Flags Type St Inode [Path]
      if (cols[6] === inode) {
        const path = cols.slice(7).join(' ');
        return path.startsWith('@') ? `\0${path.slice(1)}` : path;
      }
      start = end + 1;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * `EventUtil.getSocketName()`: the local address of a socket or server, or
 * false with a warning.
 * @internal
 * @example
 * ```ts
 * socketName(server); // { address: '127.0.0.1', port: 41234, family: 2 }
 * ```
 */
export function socketName(sock: Socket | Server): EventSocketAddress | false {
  if (!(sock instanceof Socket) && !(sock instanceof Server)) {
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: not a socket');
  }
  const kind = socketKind(sock);
  if (kind === 'closed')
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is closed');
  if (kind === 'unconnected')
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is not bound');
  if (kind === 'other') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: not a socket');
  if (sock instanceof Server) {
    const a = sock.address();
    if (typeof a === 'string') return { address: a, family: AF.UNIX };
    if (a === null)
      return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is not bound');
    return { address: a.address, port: a.port, family: familyNumber(a.family) };
  }
  if (kind === 'unix') {
    const server = serverOf(sock);
    const path = server?.address();
    if (typeof path === 'string') return { address: path, family: AF.UNIX };
    // A client (Node cannot bind one, so it is unnamed) or an adopted descriptor: ask the kernel where possible.
    return { address: procUnixPath(fdOf(sock)) ?? '', family: AF.UNIX };
  }
  const a = sock.address() as { address?: string; port?: number; family?: unknown };
  if (typeof a.address !== 'string')
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve socket name: the socket is not bound');
  return { address: a.address, port: a.port ?? 0, family: familyNumber(a.family) };
}

/**
 * `EventUtil.getPeerName()`: the remote address of a connected socket
 * (`unixPeers`: the paths UNIX clients connected to), or false with a warning.
 * @internal
 * @example
 * ```ts
 * peerName(sock, new WeakMap()); // { address: '127.0.0.1', port: 53122, family: 2 }
 * ```
 */
export function peerName(sock: Socket | Server, unixPeers: WeakMap<Socket, string>): EventSocketAddress | false {
  if (sock instanceof Server)
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: Transport endpoint is not connected');
  if (!(sock instanceof Socket))
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: not a socket');
  const kind = socketKind(sock);
  if (kind === 'closed')
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: the socket is closed');
  if (kind === 'unconnected')
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: Transport endpoint is not connected');
  if (kind === 'other') return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: not a socket');
  if (kind === 'unix') {
    const known = unixPeers.get(sock);
    if (known !== undefined) return { address: known, family: AF.UNIX };
    if (serverOf(sock) !== null) return { address: '', family: AF.UNIX };
    return warn(
      'ERR_EVENT_INVALID_DESCRIPTOR',
      'Unable to retrieve peer name: Node.js does not expose the peer address of this UNIX socket',
    );
  }
  const address = sock.remoteAddress;
  if (typeof address !== 'string')
    return warn('ERR_EVENT_INVALID_DESCRIPTOR', 'Unable to retrieve peer name: Transport endpoint is not connected');
  return { address, port: sock.remotePort ?? 0, family: familyNumber(sock.remoteFamily) };
}

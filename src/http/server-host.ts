/**
 * ServerHost: what a server connection (`server-connection.ts`) needs from
 * its server, which `EventHttp` implements: the limits and deadlines, the
 * reply-head cache, the dispatch of a request to its callback, and the
 * scheduling of connections (gone, waiting for their next turn).
 *
 * @module
 */
import type { EventBase } from '../event/base.js';
import type { HeadCache } from './head-cache.js';
import type { HttpLogger } from './log.js';
import type { EventHttpRequest } from './request.js';

/**
 * What a server calls on one of its connections.
 * @internal
 * @example
 * ```ts
 * declare const conn: HostedConnection;
 * conn.resume(); // its turn came: the requests it has received go on
 * ```
 */
export interface HostedConnection {
  /** The connection's turn came again: the work waiting in its buffers goes on. */
  resume(): void;
}

/**
 * What a connection needs from its server; `EventHttp` implements it. Its
 * members are package-private: outside the package it is an opaque handle.
 * @example
 * ```ts
 * const conn = req.getConnection() as HttpServerConnection;
 * const server: ServerHost = conn.http; // the EventHttp that accepted it
 * ```
 */
export interface ServerHost {
  /** @internal */ readonly base: EventBase;
  /** @internal */ readonly logger: HttpLogger;
  /** @internal */ readonly headCache: HeadCache;
  /** Idle timeout, ms. @internal */ readonly timeoutMs: number;
  /** Deadline of a request head, ms. @internal */ readonly headMs: number;
  /** Deadline of a request body, ms. @internal */ readonly bodyMs: number;
  /** @internal */ readonly outputHigh: number;
  /** @internal */ readonly maxBody: number;
  /** @internal */ readonly maxHeaders: number;
  /** The allowed methods (`CMD_*` bits). @internal */ readonly allowed: number;
  /** The `Allow` header listing them. @internal */ readonly allowHeader: string;
  /** A deadline `ms` from now on the server's coarse clock. @internal */
  deadlineAfter(ms: number): number;
  /** A connection went away. @internal */
  forget(conn: HostedConnection): void;
  /** A connection spent its turn's budget: `conn.resume()` in the next turn. @internal */
  later(conn: HostedConnection): void;
  /** The server (virtual host) whose callbacks serve a request. @internal */
  serverFor(req: EventHttpRequest): ServerHost;
  /** Runs the matching callback; false when none matches. @internal */
  dispatch(req: EventHttpRequest): boolean;
}

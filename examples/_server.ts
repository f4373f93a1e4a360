/**
 * What the server examples share (not an example itself): listen or exit
 * with the typed error's message, announce the address on stderr, run the
 * loop until SIGINT or SIGTERM, then release everything.
 *
 * @example
 * ```ts
 * const listener = listenOrExit(base, onAccept, base, '0.0.0.0:9808');
 * await serveUntilStopped(base, listener, '0.0.0.0:9808');
 * ```
 */
import { constants } from 'node:os';
import { Event, EventBase, EventListener, type AcceptCallback } from '../src/event/index.js';
import { errorText, fail } from './_args.js';

/** `host:port` with IPv6 hosts in brackets. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A listener on `target` (REUSEABLE | CLOSE_ON_FREE, default backlog); on failure prints why and exits 1. */
export function listenOrExit<A>(base: EventBase, cb: AcceptCallback<A>, arg: A, target: string): EventListener<A> {
  try {
    return new EventListener(base, cb, arg, EventListener.OPT_REUSEABLE | EventListener.OPT_CLOSE_ON_FREE, -1, target);
  } catch (err) {
    fail(errorText(err), 1);
  }
}

/** Prints `Listening on ADDRESS` to stderr, with the real port (or the UNIX path). */
export function announce<A>(listener: EventListener<A>, target: string): void {
  if (target.startsWith('unix:')) {
    process.stderr.write(`Listening on ${target}\n`);
    return;
  }
  const name = listener.getSocketName();
  const port = name && name.port !== undefined ? name.port : Number(target.slice(target.lastIndexOf(':') + 1));
  const host = name ? name.address : target.slice(0, target.lastIndexOf(':'));
  process.stderr.write(`Listening on ${hostPort(host.replace(/^\[|\]$/g, ''), port)}\n`);
}

/**
 * Catches SIGINT and SIGTERM (Event.signal: they end the loop), then announces
 * the address (so that whoever waits for the banner may signal at once), runs
 * the loop until a signal or base.exit(), and frees the listener.
 */
export async function serveUntilStopped<A>(base: EventBase, listener: EventListener<A>, target: string): Promise<void> {
  const stop = (_signum: number, b: EventBase): void => {
    b.exit();
  };
  const signals = [Event.signal(base, constants.signals.SIGINT, stop, base), Event.signal(base, constants.signals.SIGTERM, stop, base)];
  for (const ev of signals) ev.add();
  announce(listener, target);
  await base.dispatch();
  listener.free();
  for (const ev of signals) ev.free();
}

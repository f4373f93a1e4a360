/**
 * Echo server on a UNIX domain socket (the PHP manual's UNIX-socket echo
 * server).
 *
 * Usage: npx tsx examples/unix-echo-server.ts SOCKET_PATH
 *
 * Deletes an existing file at SOCKET_PATH (a stale socket, or any other
 * non-directory file), then listens on `unix:SOCKET_PATH` with an
 * EventListener (`OPT_REUSEABLE | OPT_CLOSE_ON_FREE`, backlog -1). Each
 * accepted connection (the accept callback gets `null` as its address) is
 * echoed exactly like the TCP echo server does: the read callback moves the
 * whole input to the output; EOF or ERROR frees the connection (ERROR also
 * prints `Error from bufferevent` on stderr).
 *
 * Once listening it prints `Listening on unix:SOCKET_PATH` on stderr. SIGINT
 * and SIGTERM (caught with `Event.signal`) end the loop; the listener is
 * freed, the socket file removed, and the process exits with status 0.
 * Try it with `socat - UNIX-CONNECT:SOCKET_PATH`.
 *
 * Exit status 1: no argument (`Socket path is not provided` on stderr), the
 * existing file cannot be removed, or listening fails (the listener's
 * message, for example a missing directory).
 *
 * Deviations from the PHP example: a missing argument exits with status 1
 * (PHP: 0); the socket file is removed on SIGINT/SIGTERM (PHP leaves it
 * behind and is killed by the signal); the "Listening on" line is an
 * addition.
 */
import { lstatSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { Event, EventBase, EventBufferEvent, EventListener, EventUtil } from '../src/event/index.js';
import { errorText, fail } from './_args.js';
import { listenOrExit, serveUntilStopped } from './_server.js';

const path = process.argv[2];
if (path === undefined || path === '') fail('Socket path is not provided', 1);

function echoRead(bev: EventBufferEvent<null>): void {
  bev.output.addBuffer(bev.input);
}

function echoEvent(bev: EventBufferEvent<null>, events: number): void {
  if (events & EventBufferEvent.ERROR) process.stderr.write('Error from bufferevent\n');
  if (events & (EventBufferEvent.EOF | EventBufferEvent.ERROR)) bev.free();
}

function acceptConn(_listener: EventListener<EventBase>, socket: Socket, _address: [string, number] | null, b: EventBase): void {
  const bev = new EventBufferEvent<null>(b, socket, EventBufferEvent.OPT_CLOSE_ON_FREE);
  bev.setCallbacks(echoRead, null, echoEvent, null);
  bev.enable(Event.READ | Event.WRITE);
}

let failed = false;

function acceptError(_listener: EventListener<EventBase>, b: EventBase): void {
  failed = true;
  process.stderr.write(`Got an error ${EventUtil.getLastSocketErrno()} (${EventUtil.getLastSocketError()}) on the listener. Shutting down.\n`);
  b.exit();
}

/** Removes the file at `path` if there is one that is not a directory. */
function removeStale(p: string): void {
  let isDir: boolean;
  try {
    isDir = lstatSync(p).isDirectory();
  } catch {
    return; // nothing there
  }
  if (isDir) fail(`Cannot remove ${p}: it is a directory`, 1);
  try {
    rmSync(p, { force: true });
  } catch (err) {
    fail(`Cannot remove ${p}: ${errorText(err)}`, 1);
  }
}

removeStale(path);

const base = new EventBase();
const listener = listenOrExit(base, acceptConn, base, `unix:${path}`);
listener.setErrorCallback(acceptError);
await serveUntilStopped(base, listener, `unix:${path}`);
// Closing the listener removes the socket file; make sure it is gone even if it was not.
try {
  if (lstatSync(path).isSocket()) rmSync(path, { force: true });
} catch {
  // already gone
}
process.exit(failed ? 1 : 0);

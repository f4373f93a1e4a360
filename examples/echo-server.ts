/**
 * Echo server (the PHP manual's listener.php).
 *
 * Usage: npx tsx examples/echo-server.ts [PORT]
 *   PORT  1..65535, default 9808.
 *
 * Listens on TCP `0.0.0.0:PORT` with an EventListener
 * (`OPT_REUSEABLE | OPT_CLOSE_ON_FREE`, backlog -1). Every accepted
 * connection gets an EventBufferEvent (`OPT_CLOSE_ON_FREE`) whose read
 * callback moves the whole input to the output, so every byte comes back
 * unchanged and in order. On EOF or ERROR the connection is freed (what is
 * still queued is sent first, then the socket is closed); an ERROR also
 * prints `Error from bufferevent` on stderr. An accept error prints
 * `Got an error N (text) on the listener. Shutting down.` on stderr and
 * ends the loop.
 *
 * Once listening it prints `Listening on HOST:PORT` on stderr (the address
 * the socket is really bound to), so that you, or a test, know when to
 * connect. Try it with `nc 127.0.0.1 9808`.
 *
 * Exit status: 1 with `Invalid port` for a port that is not an integer in
 * 1..65535, 1 with the listener's message when it cannot listen (for
 * example `Failed to listen on 0.0.0.0:9808: address already in use
 * (EADDRINUSE)`), 1 after an accept error. Otherwise it runs until SIGINT
 * or SIGTERM, which end the loop (caught with `Event.signal`) and exit with
 * status 0.
 *
 * `--host HOST` listens on another address than 0.0.0.0 (the tests use 127.0.0.1).
 *
 * Deviations from the PHP example: an invalid port exits with status 1 and
 * a newline after the message (PHP: status 0, no newline); the "Listening
 * on" line and the signal handling are additions (the PHP program prints
 * nothing and runs until killed).
 */
import type { Socket } from 'node:net';
import { Event, EventBase, EventBufferEvent, EventListener, EventUtil } from '../src/event/index.js';
import { fail, parsePort } from './_args.js';
import { hostPort, listenOrExit, serveUntilStopped } from './_server.js';

// `--host HOST` (an addition; tests use 127.0.0.1) may appear anywhere; the port is the first other argument.
const args = process.argv.slice(2);
let host = '0.0.0.0';
const hostAt = args.indexOf('--host');
if (hostAt >= 0) {
  host = args[hostAt + 1] ?? '';
  args.splice(hostAt, 2);
  if (host === '') fail('--host needs an address', 1);
}
const port = parsePort(args[0], 9808);
if (port === null) fail('Invalid port', 1);

/** Unsent bytes above which the server stops reading from a client that does not read its echo. */
const BACKLOG_HIGH = 256 * 1024;

/** Read callback: echo everything received (moves the chunks, copies nothing). */
function echoRead(bev: EventBufferEvent<null>): void {
  bev.output.addBuffer(bev.input);
  if (bev.output.length >= BACKLOG_HIGH) {
    // Flow control: the client sends faster than it reads. Stop reading until the
    // backlog is sent; the write callback (installed only meanwhile) resumes.
    bev.disable(Event.READ);
    bev.setCallbacks(echoRead, echoDrained, echoEvent, null);
  }
}

/** Write callback while paused: the output drained, so read again. */
function echoDrained(bev: EventBufferEvent<null>): void {
  bev.setCallbacks(echoRead, null, echoEvent, null);
  bev.enable(Event.READ);
}

/** Event callback: an error is reported; the end of the connection frees it. */
function echoEvent(bev: EventBufferEvent<null>, events: number): void {
  if (events & EventBufferEvent.ERROR) process.stderr.write('Error from bufferevent\n');
  if (events & (EventBufferEvent.EOF | EventBufferEvent.ERROR)) bev.free();
}

function acceptConn(_listener: EventListener<EventBase>, socket: Socket, _address: [string, number] | null, b: EventBase): void {
  const bev = new EventBufferEvent<null>(b, socket, EventBufferEvent.OPT_CLOSE_ON_FREE);
  bev.setCallbacks(echoRead, null, echoEvent, null);
  bev.enable(Event.READ | Event.WRITE);
}

let listenerFailed = false;

function acceptError(_listener: EventListener<EventBase>, b: EventBase): void {
  listenerFailed = true;
  process.stderr.write(`Got an error ${EventUtil.getLastSocketErrno()} (${EventUtil.getLastSocketError()}) on the listener. Shutting down.\n`);
  b.exit();
}

const base = new EventBase();
const target = hostPort(host, port);
const listener = listenOrExit(base, acceptConn, base, target);
listener.setErrorCallback(acceptError);
await serveUntilStopped(base, listener, target);
// Connections still open are closed with the process.
process.exit(listenerFailed ? 1 : 0);

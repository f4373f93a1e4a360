/**
 * SMTP-style line server with a STARTTLS upgrade (the PHP manual's example
 * by Andrew Rose).
 *
 * Usage:
 *   npx tsx examples/line-server.ts [PORT] [--host ADDRESS] [--cert FILE] [--key FILE]
 *                                   [--domain NAME] [--greeting TEXT]
 *
 *   PORT            1..65535, default 25 (a privileged port: binding it
 *                   needs root or CAP_NET_BIND_SERVICE; the tests use a free
 *                   high port on 127.0.0.1).
 *   --host ADDRESS  the address to listen on, default 0.0.0.0.
 *   --cert FILE     PEM certificate chain used after STARTTLS.
 *                   Default: `$EVENTIDE_TLS_CERT`, else `cert.pem` in the
 *                   current directory.
 *   --key FILE      its PEM private key. Default: `$EVENTIDE_TLS_KEY`, else
 *                   `privkey.pem` in the current directory.
 *   --domain NAME   the domain name of the greeting, default `localhost`.
 *   --greeting TEXT the rest of the greeting, default `eventide line server`.
 *   (`--name=VALUE` works for every option.)
 *
 * No certificate yet? A throwaway key and self-signed certificate:
 *
 *   openssl req -x509 -newkey rsa:2048 -nodes -keyout privkey.pem -out cert.pem -days 365 -subj /CN=localhost
 *
 * TLS context: `EventSslContext(TLS_SERVER_METHOD, ...)` with
 * `OPT_VERIFY_PEER => false` and `OPT_ALLOW_SELF_SIGNED => true`, as in the
 * PHP example (no client certificate is requested).
 *
 * Protocol. Every connection gets the greeting `220 DOMAIN GREETING`. Client
 * lines end with CRLF; the CRLF is removed before the line is examined (a
 * bare LF or CR does not end a line: it stays part of it, which keeps "SMTP
 * smuggling" tricks out). Input is taken from the connection in chunks of
 * at most 256000 bytes. The command is the first word of the line, in any
 * letter case:
 *
 *   EHLO ...   -> `250-STARTTLS`, `250 OK ehlo`
 *   HELO ...   -> `250-STARTTLS`, `250 OK helo`
 *   QUIT       -> `250 OK quit`; reading and writing are disabled and the
 *                 connection is freed, which sends the reply before the
 *                 socket is closed. Lines after QUIT are ignored.
 *   STARTTLS   -> `220 Ready to start TLS`, then the connection is wrapped
 *                 in TLS (`EventBufferEvent.sslFilter(..., SSL_ACCEPTING,
 *                 OPT_CLOSE_ON_FREE)`, callbacks registered again on the new
 *                 object, which owns the socket from then on). Everything
 *                 the client sent after the STARTTLS line before the
 *                 handshake (pipelined plain text) is discarded and never
 *                 executed, so a man in the middle cannot inject commands
 *                 into the TLS session (the CVE-2011-0411 class of bugs);
 *                 the log says how many bytes were dropped.
 *   STARTTLS inside TLS -> `503 Already in TLS` (SMTP's "bad sequence of
 *                 commands"); the session continues.
 *   anything else -> nothing is sent; the server logs `unknown command: LINE`.
 *
 * EHLO gets the same reply before and after the upgrade (the spec's reply;
 * RFC 3207 would drop `STARTTLS` from it inside TLS).
 *
 * Limit: a line may hold at most 4096 bytes before its CRLF. A longer line
 * (complete or still without CRLF) gets `500 Line too long` and the
 * connection is closed, so a client cannot make the server buffer without
 * end.
 *
 * Log (stdout), per connection number ID (1, 2, ... in accept order):
 * `S(ID): LINE` for every line the server sends, `C(ID): LINE` for every
 * line it receives, `unknown command: LINE`, and informational lines that
 * start with `*(ID): ` (connection opened, TLS established with the
 * protocol, bytes discarded after STARTTLS, connection closed). On ERROR the
 * TLS errors (`sslError()`) are printed on stderr as
 * `Bufferevent error TEXT.` (or the socket error when there is none); EOF
 * and ERROR free the connection.
 *
 * Once listening it prints `Listening on HOST:PORT` on stderr. SIGINT and
 * SIGTERM end the loop; the process then exits with status 0.
 *
 * Exit status 1: `Invalid port`; a certificate or key file that is
 * missing, unreadable or invalid (the message names the file, followed by
 * how to generate one); the listener failing; an accept error; a wrong
 * command line.
 *
 * Deviations from the PHP example (which on PHP 8 answers nothing, see the
 * reference): real line splitting instead of "the whole buffer is one
 * command", the discarding of pipelined plain text at STARTTLS, the 503 and
 * 500 replies, the options, and the error handling.
 */
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { Event, EventBase, EventBuffer, EventBufferEvent, EventError, EventListener, EventSslContext, EventUtil } from '../src/event/index.js';
import { errorText, fail, parsePort, parseCommandLine, setting } from './_args.js';
import { hostPort, listenOrExit, serveUntilStopped } from './_server.js';

/** Largest piece taken from a connection's input at a time (the spec's limit). */
const READ_CHUNK = 256000;
/** Longest line accepted, in bytes, without its CRLF. */
const MAX_LINE = 4096;

const USAGE = 'Usage: line-server.ts [PORT] [--host ADDRESS] [--cert FILE] [--key FILE] [--domain NAME] [--greeting TEXT]';

// ---------------------------------------------------------------- arguments

const VALUE_OPTIONS = ['--host', '--cert', '--key', '--domain', '--greeting'] as const;


const { options, positional } = parseCommandLine(process.argv.slice(2), VALUE_OPTIONS, USAGE);
if (positional.length > 1) fail(USAGE, 1);
const port = parsePort(positional[0], 25);
if (port === null) fail('Invalid port', 1);
const host = setting(options, '--host', null, '0.0.0.0');
if (host === '') fail('Invalid host: empty', 1);
const certFile = setting(options, '--cert', 'EVENTIDE_TLS_CERT', 'cert.pem');
const keyFile = setting(options, '--key', 'EVENTIDE_TLS_KEY', 'privkey.pem');
const domainName = setting(options, '--domain', null, 'localhost');
const greetingText = setting(options, '--greeting', null, 'eventide line server');
if (/[\r\n]/.test(domainName + greetingText)) fail('--domain and --greeting must not contain line breaks', 1);

// ---------------------------------------------------------------- TLS context

function initSsl(): EventSslContext {
  try {
    return new EventSslContext(EventSslContext.TLS_SERVER_METHOD, {
      [EventSslContext.OPT_LOCAL_CERT]: certFile,
      [EventSslContext.OPT_LOCAL_PK]: keyFile,
      [EventSslContext.OPT_VERIFY_PEER]: false,
      [EventSslContext.OPT_ALLOW_SELF_SIGNED]: true,
    });
  } catch (err) {
    if (!(err instanceof EventError)) throw err;
    fail(
      [
        err.message,
        'To generate a key and a self-signed certificate, run:',
        `  openssl req -x509 -newkey rsa:2048 -nodes -keyout '${resolve(keyFile)}' -out '${resolve(certFile)}' -days 365 -subj /CN=localhost`,
        'Failed creating SSL context',
      ].join('\n'),
      1,
    );
  }
}

const ctx = initSsl();

// ---------------------------------------------------------------- connections

/** The state of one client connection. */
interface Session {
  /** Connection number, for the log. */
  readonly id: number;
  /** The live connection: the plain one, then the TLS filter after STARTTLS. */
  bev: EventBufferEvent<Session>;
  /** Bytes received that do not form a complete line yet. */
  readonly pending: EventBuffer;
  /** Whether the connection was upgraded with STARTTLS. */
  tls: boolean;
  /** Set once the connection is being closed: nothing more is read or answered. */
  done: boolean;
}

let nextId = 1;
const base = new EventBase();

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Sends one reply line (CRLF added) and logs it. */
function send(s: Session, line: string): void {
  log(`S(${s.id}): ${line}`);
  s.bev.write(`${line}\r\n`);
}

/** Frees the connection (what is still queued is sent first), once. */
function close(s: Session, why: string): void {
  if (s.done) return;
  s.done = true;
  s.pending.drain(s.pending.length);
  s.bev.disable(Event.READ | Event.WRITE);
  s.bev.free();
  log(`*(${s.id}): closed (${why})`);
}

/** STARTTLS: reply, drop pipelined plain text, wrap the socket in TLS. */
function startTls(s: Session): void {
  const plain = s.bev;
  send(s, '220 Ready to start TLS');
  // Whatever followed the STARTTLS line was sent before the handshake, in
  // plain text: it must never be executed inside the TLS session.
  const discarded = s.pending.length + plain.input.length;
  s.pending.drain(s.pending.length);
  plain.input.drain(plain.input.length);
  if (discarded > 0) log(`*(${s.id}): discarded ${discarded} bytes sent after STARTTLS before the TLS handshake`);
  let filter: EventBufferEvent<Session>;
  try {
    // The reply above is handed to the socket before the filter takes it over.
    // (The cast: sslFilter() declares `underlying: EventBufferEvent<unknown>`,
    // which a connection typed with its own argument type does not match.)
    const underlying = plain as unknown as EventBufferEvent<unknown>;
    filter = EventBufferEvent.sslFilter<Session>(base, underlying, ctx, EventBufferEvent.SSL_ACCEPTING, EventBufferEvent.OPT_CLOSE_ON_FREE);
  } catch (err) {
    process.stderr.write(`Cannot start TLS: ${errorText(err)}\n`);
    close(s, 'STARTTLS failed');
    return;
  }
  s.bev = filter;
  s.tls = true;
  filter.setCallbacks(readCb, null, eventCb, s);
  filter.enable(Event.READ | Event.WRITE);
}

/** Runs one client line; returns false when the connection must not read further lines. */
function command(s: Session, line: string): boolean {
  log(`C(${s.id}): ${line}`);
  const verb = (/^[^ ]*/.exec(line)?.[0] ?? '').toUpperCase();
  switch (verb) {
    case 'EHLO':
    case 'HELO':
      send(s, '250-STARTTLS');
      send(s, `250 OK ${verb.toLowerCase()}`);
      return true;
    case 'QUIT':
      send(s, '250 OK quit');
      close(s, 'quit');
      return false;
    case 'STARTTLS':
      if (s.tls) {
        send(s, '503 Already in TLS');
        return true;
      }
      startTls(s);
      return false;
    default:
      log(`unknown command: ${line}`);
      return true;
  }
}

function tooLong(s: Session): void {
  send(s, '500 Line too long');
  close(s, 'line too long');
}

/** Read callback: take the input in chunks, run every complete line. */
function readCb(bev: EventBufferEvent<Session>, s: Session): void {
  if (s.done || bev !== s.bev) return;
  let chunk: Buffer | null;
  while ((chunk = bev.read(READ_CHUNK)) !== null) {
    s.pending.add(chunk);
    let line: Buffer | null;
    while ((line = s.pending.readLineBuffer(EventBuffer.EOL_CRLF_STRICT)) !== null) {
      if (line.length > MAX_LINE) {
        tooLong(s);
        return;
      }
      if (!command(s, line.toString('utf8'))) return;
    }
    // No CRLF within MAX_LINE bytes (+1: the CR may be waiting for its LF).
    if (s.pending.length > MAX_LINE + 1) {
      tooLong(s);
      return;
    }
  }
}

/** Event callback: TLS established, or the end of the connection. */
function eventCb(bev: EventBufferEvent<Session>, events: number, s: Session): void {
  if (bev !== s.bev) return;
  if (events & EventBufferEvent.CONNECTED) {
    log(`*(${s.id}): TLS established (${bev.sslGetProtocol() || 'TLS'}, ${bev.sslGetCipherName() || 'unknown cipher'})`);
  }
  if (events & EventBufferEvent.ERROR) {
    let err: string | false;
    let any = false;
    while ((err = bev.sslError()) !== false) {
      any = true;
      process.stderr.write(`Bufferevent error ${err}.\n`);
    }
    if (!any) process.stderr.write(`Bufferevent error ${EventUtil.getLastSocketError()}.\n`);
  }
  if (events & (EventBufferEvent.EOF | EventBufferEvent.ERROR)) close(s, events & EventBufferEvent.ERROR ? 'error' : 'end of file');
}

function acceptCb(_listener: EventListener<EventBase>, socket: Socket, address: [string, number] | null, b: EventBase): void {
  const bev = new EventBufferEvent<Session>(b, socket, EventBufferEvent.OPT_CLOSE_ON_FREE);
  const s: Session = { id: nextId++, bev, pending: new EventBuffer(), tls: false, done: false };
  bev.setCallbacks(readCb, null, eventCb, s);
  bev.enable(Event.READ | Event.WRITE);
  log(`*(${s.id}): connection from ${address === null ? 'unknown' : `${address[0]}:${address[1]}`}`);
  send(s, `220 ${domainName} ${greetingText}`);
}

let listenerFailed = false;

function acceptErrorCb(_listener: EventListener<EventBase>, b: EventBase): void {
  listenerFailed = true;
  process.stderr.write(`Got an error ${EventUtil.getLastSocketErrno()} (${EventUtil.getLastSocketError()}) on the listener. Shutting down.\n`);
  b.exit();
}

// ---------------------------------------------------------------- main

const target = hostPort(host, port);
const listener = listenOrExit(base, acceptCb, base, target);
listener.setErrorCallback(acceptErrorCb);
await serveUntilStopped(base, listener, target);
process.exit(listenerFailed ? 1 : 0);

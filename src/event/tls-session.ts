/**
 * Starting TLS over an existing socket for EventBufferEvent (sslSocket and
 * the STARTTLS filter).
 *
 * @module
 * @internal
 */
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { EventSslContext } from './ssl.js';

/**
 * A TLS session over a socket.
 * @internal
 */
export interface TlsSession {
  readonly socket: TLSSocket;
}

/**
 * What the caller learns about the handshake.
 * @internal
 */
export interface TlsHandlers {
  /** The handshake completed and the peer passed the context's checks. */
  secure(): void;
  /** The handshake or the peer verification failed; the socket is destroyed. */
  failed(err: Error): void;
}

/**
 * Starts a TLS handshake over `sock`. `leftover` holds bytes the peer already
 * sent that were read as plain text but belong to the TLS stream: they are
 * put back in front of the socket's data so that TLS consumes them first.
 * @internal
 */
export function startTls(sock: Socket, ctx: EventSslContext, server: boolean, hostname: string | undefined, leftover: Buffer, h: TlsHandlers): TlsSession {
  sock.pause();
  if (leftover.length > 0) sock.unshift(leftover);
  let settled = false;
  let tlsSock: TLSSocket;
  const fail = (err: Error): void => {
    if (settled) return;
    settled = true;
    h.failed(err);
    tlsSock.destroy();
  };
  const ok = (): void => {
    if (settled) return;
    const err = ctx.verify(tlsSock, server ? undefined : hostname);
    if (err !== null) {
      fail(Object.assign(err, { verifyFailure: true }));
      return;
    }
    settled = true;
    h.secure();
  };
  if (server) {
    tlsSock = new TLSSocket(sock, ctx.serverOptions());
    tlsSock.once('secure', ok);
  } else {
    tlsSock = tlsConnect({ ...ctx.clientOptions(hostname), socket: sock });
    tlsSock.once('secureConnect', ok);
  }
  tlsSock.on('error', (err: Error) => {
    if (!settled) fail(err);
  });
  tlsSock.once('close', () => {
    if (!settled) fail(Object.assign(new Error('error:0A000126:SSL routines::unexpected eof while reading'), { code: 'ECONNRESET' }));
  });
  return { socket: tlsSock };
}

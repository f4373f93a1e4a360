/**
 * The TLS transport of bufferevents (libevent's bufferevent_openssl.c): TLS
 * over a socket, started once the socket connects (`sslSocket()`), at once
 * over a connected one, or over the socket of a plain connection taken over
 * with the bytes it already read (the STARTTLS filter, `sslFilter()`). The
 * peer is verified as the `EventSslContext` says; TLS errors are kept as
 * OpenSSL-style texts for `sslError()`.
 *
 * @module
 */
import type { Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import type { EventSslContext } from './ssl.js';
import type { ConnectTarget, TransportHost } from './transport.js';
import { SocketTransport } from './transport-socket.js';

/** At most this many TLS error texts are kept for `sslError()`. */
const MAX_ERRORS = 64;

/** Codes of certificate verification failures (X509 verify results and Node's host-name check). */
const VERIFY_CODE =
  /^(CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|INVALID_|PATH_LENGTH|KEYUSAGE|HOSTNAME_MISMATCH|ERR_TLS_CERT_ALTNAME)/;

/**
 * TLS over a socket as a transport.
 * @internal
 * @example
 * ```ts
 * import type { TransportHost } from './transport.js';
 * declare const host: TransportHost; // the bufferevent's
 * const t = new TlsTransport(host, ctx, false);
 * t.connect({ host: '127.0.0.1', port: 443 }, 'example.org'); // host.handshaking(), then host.secured()
 * ```
 */
export class TlsTransport extends SocketTransport {
  readonly #ctx: EventSslContext;
  /** The server side of the handshake (else the client side). */
  readonly #server: boolean;
  /** The name a client checks the server's certificate against. */
  #servername: string | undefined = undefined;
  #tls: TLSSocket | null = null;
  #errors: string[] = [];

  constructor(host: TransportHost, ctx: EventSslContext, server: boolean) {
    super(host);
    this.#ctx = ctx;
    this.#server = server;
  }

  override adopt(sock: Socket): void {
    if (sock.connecting) {
      super.adopt(sock);
      return;
    }
    this.raw = sock;
    this.#begin(sock, Buffer.alloc(0));
  }

  override connect(target: ConnectTarget, servername: string | undefined): void {
    this.#servername = servername;
    super.connect(target, servername);
  }

  /**
   * Starts TLS over the socket of a plain connection (STARTTLS). `leftover`
   * holds bytes the peer already sent that were read as plain text but
   * belong to the TLS stream: TLS consumes them first.
   */
  upgrade(sock: Socket, leftover: Buffer): void {
    this.raw = sock;
    this.#begin(sock, leftover);
  }

  override tlsSocket(): TLSSocket | null {
    return this.#tls;
  }

  override noteError(err: Error): void {
    const e = err as NodeJS.ErrnoException & { reason?: string; library?: string; verifyFailure?: boolean };
    if (this.#errors.length >= MAX_ERRORS) return;
    if (e.verifyFailure === true || (typeof e.code === 'string' && VERIFY_CODE.test(e.code))) {
      // as OpenSSL's error stack reports a rejected peer: the generic line, then the reason
      this.#errors.push('error:0A000086:SSL routines::certificate verify failed', e.message);
      return;
    }
    const text = opensslText(e);
    if (text !== '') this.#errors.push(text);
  }

  override nextSslError(): string | undefined {
    return this.#errors.shift();
  }

  protected override socketConnected(): void {
    const sock = this.raw as Socket;
    this.detach();
    this.#begin(sock, Buffer.alloc(0));
  }

  /** Starts the handshake over `sock`, feeding `leftover` bytes first. */
  #begin(sock: Socket, leftover: Buffer): void {
    this.host.handshaking();
    this.#tls = this.#startTls(sock, leftover);
    this.attachIo(this.#tls);
  }

  /**
   * Wraps `sock` in a TLS socket and starts the handshake; the host learns
   * `secured()` (the peer passed the context's checks) or `handshakeFailed()`
   * (the TLS socket is then destroyed).
   */
  #startTls(sock: Socket, leftover: Buffer): TLSSocket {
    const ctx = this.#ctx;
    const server = this.#server;
    const host = this.host;
    sock.pause();
    if (leftover.length > 0) sock.unshift(leftover);
    let settled = false;
    let tlsSock: TLSSocket;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      host.handshakeFailed(err);
      tlsSock.destroy();
    };
    const ok = (): void => {
      if (settled) return;
      const err = ctx.verify(tlsSock, server ? undefined : this.#servername);
      if (err !== null) {
        fail(Object.assign(err, { verifyFailure: true }));
        return;
      }
      settled = true;
      host.secured();
    };
    if (server) {
      tlsSock = new TLSSocket(sock, ctx.serverOptions());
      tlsSock.once('secure', ok);
    } else {
      tlsSock = tlsConnect({ ...ctx.clientOptions(this.#servername), socket: sock });
      tlsSock.once('secureConnect', ok);
    }
    tlsSock.on('error', (err: Error) => {
      if (!settled) fail(err);
    });
    tlsSock.once('close', () => {
      if (!settled)
        fail(
          Object.assign(new Error('error:0A000126:SSL routines::unexpected eof while reading'), { code: 'ECONNRESET' }),
        );
    });
    return tlsSock;
  }
}

/** OpenSSL-style error text (`error:0A000126:SSL routines::unexpected eof while reading`) for a TLS error. */
function opensslText(err: NodeJS.ErrnoException & { reason?: string; library?: string }): string {
  const m = /error:([0-9A-Fa-f]{8}):([^:\n]*):[^:\n]*:([^:\n]*)/.exec(err.message);
  const hex = m?.[1];
  const library = err.library ?? m?.[2];
  const reason = err.reason ?? m?.[3];
  if (hex !== undefined && library !== undefined && reason !== undefined)
    return `error:${hex.toUpperCase()}:${library}::${reason}`;
  if (library !== undefined && reason !== undefined) return `error:00000000:${library}::${reason}`;
  return err.message;
}

/**
 * What the TLS information methods of `EventBufferEvent` report for a TLS
 * socket (false without one, or before the handshake): the negotiated
 * cipher's name (`TLS_AES_256_GCM_SHA384`), its TLS version, or one line
 * with both and the protocol.
 * @internal
 * @example
 * ```ts
 * cipherText(tlsSock, 'info'); // 'TLS_AES_256_GCM_SHA384 TLSv1.3 TLSv1.3'
 * ```
 */
export function cipherText(s: TLSSocket | null, what: 'name' | 'version' | 'info'): string | false {
  const c = s?.getCipher();
  if (!s || !c) return false;
  if (what === 'name') return c.standardName ?? c.name;
  if (what === 'version') return c.version;
  return `${c.standardName ?? c.name} ${c.version} ${s.getProtocol() ?? ''}`.trim();
}

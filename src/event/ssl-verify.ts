/**
 * Verification helpers of `EventSslContext.verify()`: the peer's chain as
 * OpenSSL checked it, the checks OpenSSL skips once it accepted a
 * self-signed certificate, and the host a client certificate must match.
 * Failures are `Error`s whose `code` names the reason, in Node's style.
 *
 * @module
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { checkServerIdentity, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import { errorMessage } from './ssl-pem.js';

/** Verification errors that `OPT_ALLOW_SELF_SIGNED` accepts (and nothing else). */
const SELF_SIGNED_ERRORS: ReadonlySet<string> = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']);

/** A verification failure in Node's style: an Error whose `code` names the reason. */
function verifyFailure(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The certificate chain of a peer, leaf first, ending at a self-issued certificate or an unknown issuer. */
function chainOf(peer: DetailedPeerCertificate): DetailedPeerCertificate[] {
  const chain: DetailedPeerCertificate[] = [];
  let cur: DetailedPeerCertificate | undefined = peer;
  while (cur !== undefined && cur !== null && Object.keys(cur).length > 0 && !chain.includes(cur)) {
    chain.push(cur);
    if (cur.issuerCertificate === cur) break;
    cur = cur.issuerCertificate;
  }
  return chain;
}

/** The chain-verification result OpenSSL recorded for the socket (SSL_get_verify_result). */
function chainError(socket: TLSSocket): Error | null {
  const handle = (socket as unknown as { _handle?: { verifyError?: () => Error | null | undefined } | null })._handle;
  if (handle !== null && handle !== undefined && typeof handle.verifyError === 'function') {
    return handle.verifyError() ?? null;
  }
  // Handle gone (socket closed): fall back to what tls.connect()/tls.Server recorded.
  if (socket.authorized) return null;
  const code = socket.authorizationError as unknown;
  if (typeof code === 'string' && code !== '') return verifyFailure(code, code);
  if (code instanceof Error) return code;
  return verifyFailure('UNABLE_TO_GET_ISSUER_CERT', 'unable to get issuer certificate');
}

/** The host a client socket's certificate must match when verify() is given none. */
function defaultHost(socket: TLSSocket): string {
  if (typeof socket.servername === 'string' && socket.servername !== '') return socket.servername;
  const addr = socket.remoteAddress;
  if (addr !== undefined && addr !== '')
    return addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4 ? addr.slice(7) : addr;
  return 'localhost';
}

/**
 * The checks OpenSSL may not have reported once it hit a self-signed error:
 * every certificate of the chain is within its validity period and is
 * signed by the next one (the last by itself).
 */
function checkSelfSignedChain(peer: DetailedPeerCertificate): Error | null {
  const chain = chainOf(peer);
  let certs: X509Certificate[];
  try {
    certs = chain.map((c) => new X509Certificate(c.raw));
  } catch (err) {
    return verifyFailure('CERT_UNTRUSTED', `certificate not trusted: ${errorMessage(err)}`);
  }
  const now = Date.now();
  for (const x of certs) {
    if (Date.parse(x.validFrom) > now) return verifyFailure('CERT_NOT_YET_VALID', 'certificate is not yet valid');
    if (Date.parse(x.validTo) < now) return verifyFailure('CERT_HAS_EXPIRED', 'certificate has expired');
  }
  for (let i = 0; i < certs.length; i++) {
    const cert = certs[i] as X509Certificate;
    const issuer = certs[i + 1] ?? cert;
    if (!cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) {
      return verifyFailure('CERT_SIGNATURE_FAILURE', 'certificate signature failure');
    }
  }
  return null;
}

/**
 * The verification rules of a context.
 * @internal
 */
export interface VerifyRules {
  /** The context is a server's: no host name to check; a client may send no certificate. */
  readonly isServer: boolean;
  /** A server rejects a client that sends no certificate. */
  readonly requireClientCert: boolean;
  /** The two self-signed errors are accepted (the rest of the chain is still checked). */
  readonly allowSelfSigned: boolean;
  /** `OPT_VERIFY_DEPTH`, or null for no limit. */
  readonly verifyDepth: number | null;
}

/**
 * The depth check of `OPT_VERIFY_DEPTH`: depth n allows levels 0 (peer) ..
 * n+1 (trust anchor), as OpenSSL counts.
 * @internal
 * @example
 * ```ts
 * tlsSock.once('secureConnect', () => {
 *   checkDepth(tlsSock.getPeerCertificate(true), 0); // CERT_CHAIN_TOO_LONG for a leaf signed by an intermediate
 * });
 * ```
 */
export function checkDepth(peer: DetailedPeerCertificate, depth: number | null): Error | null {
  if (depth === null) return null;
  if (chainOf(peer).length > depth + 2) return verifyFailure('CERT_CHAIN_TOO_LONG', 'certificate chain too long');
  return null;
}

/**
 * The host-name check of a client (Node's `checkServerIdentity`), then the depth check.
 * @internal
 * @example
 * ```ts
 * tlsSock.once('secureConnect', () => {
 *   checkIdentity('example.org', tlsSock.getPeerCertificate(true), null); // ERR_TLS_CERT_ALTNAME_INVALID for another name
 * });
 * ```
 */
export function checkIdentity(host: string, peer: DetailedPeerCertificate, depth: number | null): Error | null {
  const err = checkServerIdentity(host, peer);
  if (err !== undefined) return err;
  return checkDepth(peer, depth);
}

/**
 * Whether the peer of a TLS socket whose handshake completed passes `rules`
 * (a context that verifies peers): null when it does, else the reason.
 * @internal
 * @example
 * ```ts
 * const rules: VerifyRules = { isServer: false, requireClientCert: false, allowSelfSigned: false, verifyDepth: null };
 * tlsSock.once('secureConnect', () => console.log(verifyPeer(tlsSock, 'example.org', rules)?.message));
 * ```
 */
export function verifyPeer(socket: TLSSocket, hostname: string | undefined, rules: VerifyRules): Error | null {
  const peer = socket.getPeerCertificate(true) as DetailedPeerCertificate | null | undefined;
  if (peer === null || peer === undefined || Object.keys(peer).length === 0) {
    if (rules.isServer && !rules.requireClientCert) return null;
    return verifyFailure('PEER_DID_NOT_RETURN_A_CERTIFICATE', 'peer did not return a certificate');
  }
  const err = chainError(socket);
  if (err !== null) {
    const code = (err as { code?: unknown }).code;
    if (!rules.allowSelfSigned || typeof code !== 'string' || !SELF_SIGNED_ERRORS.has(code)) return err;
    const extra = checkSelfSignedChain(peer);
    if (extra !== null) return extra;
  }
  if (rules.isServer) return checkDepth(peer, rules.verifyDepth);
  return checkIdentity(
    hostname === undefined || hostname === '' ? defaultHost(socket) : hostname,
    peer,
    rules.verifyDepth,
  );
}

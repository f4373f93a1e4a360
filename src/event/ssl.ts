/**
 * `EventSslContext`: the TLS configuration used by TLS bufferevents, the
 * counterpart of the PHP extension's `EventSslContext` (an OpenSSL `SSL_CTX`).
 *
 * A context is built from a method constant (which decides the role: client
 * or server) and an options object keyed by the `OPT_*` constants. Files
 * are read and checked when the context is built, so a missing certificate,
 * an unreadable key or a wrong passphrase is reported at once by an
 * {@link EventTlsError} (`ERR_EVENT_SSL_CONTEXT`) that names the file.
 *
 * Deliberate differences from the PHP extension (DESIGN.md, fidelity rule 3),
 * all of them for safety:
 *
 * - Every method constant, including the legacy `SSLv2_*`, `SSLv3_*`,
 *   `SSLv23_*` and versioned `TLSv1*_*` ones, means modern TLS with TLS 1.2
 *   as the lowest protocol version; only the role comes from the constant.
 * - A client context verifies the server certificate and the host name
 *   unless `OPT_VERIFY_PEER` is explicitly `false` (PHP verifies nothing by
 *   default and never checks host names). A server context requests a client
 *   certificate only when `OPT_VERIFY_PEER` is `true`, as in PHP.
 * - `OPT_NO_SSLv2` … `OPT_NO_TLSv1_1` are accepted and change nothing (those
 *   versions are always off); `OPT_NO_TLSv1_2 => true` makes TLS 1.3 the
 *   minimum. (PHP turns `OPT_NO_TLSv1 => true` into "minimum TLS 1.0".)
 * - Unreadable or invalid files, a key that does not match its certificate,
 *   a wrong passphrase and an invalid cipher list throw instead of warning
 *   and leaving a half-configured context.
 * - `setMinProtoVersion()` / `setMaxProtoVersion()` return `false` for
 *   values they cannot apply (PHP always returns `true`).
 * - Without `OPT_CIPHERS` Node's default cipher list is used (stricter than
 *   OpenSSL's `DEFAULT`).
 *
 * @module
 */
import { createPrivateKey, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import {
  checkServerIdentity,
  createSecureContext,
  type ConnectionOptions,
  type DetailedPeerCertificate,
  type PeerCertificate,
  type SecureContext,
  type SecureContextOptions,
  type SecureVersion,
  type TLSSocket,
  type TLSSocketOptions,
  type TlsOptions,
} from 'node:tls';
import { createEventError, warn } from './errors.js';

/**
 * The value of one `EventSslContext.OPT_*` option: a path or cipher list
 * (string), a flag (boolean; numbers and strings are read as PHP reads
 * them: `0`, `''` and `'0'` are false) or the verify depth (number).
 *
 * @example
 * ```ts
 * const v: EventSslOptionValue = true;
 * ```
 */
export type EventSslOptionValue = string | number | boolean;

/**
 * The options of an {@link EventSslContext}: an object keyed by the
 * `EventSslContext.OPT_*` numbers, or a `Map` from those numbers to values.
 *
 * @example
 * ```ts
 * const opts: EventSslContextOptions = {
 *   [EventSslContext.OPT_LOCAL_CERT]: '/etc/app/cert.pem',
 *   [EventSslContext.OPT_LOCAL_PK]: '/etc/app/key.pem',
 * };
 * ```
 */
export type EventSslContextOptions =
  | Readonly<Record<number, EventSslOptionValue>>
  | ReadonlyMap<number, EventSslOptionValue>;

// ------------------------------------------------------------------ constants

const CLIENT_METHODS: ReadonlySet<number> = new Set([1, 2, 3, 4, 9, 11, 13]);
const SERVER_METHODS: ReadonlySet<number> = new Set([5, 6, 7, 8, 10, 12, 14]);

const SSL3_VERSION = 0x0300;
const TLS1_VERSION = 0x0301;
const TLS1_1_VERSION = 0x0302;
const TLS1_2_VERSION = 0x0303;
const TLS1_3_VERSION = 0x0304;
const DTLS1_VERSION = 0xfeff;
const DTLS1_2_VERSION = 0xfefd;

const VERSION_NAME: ReadonlyMap<number, SecureVersion> = new Map<number, SecureVersion>([
  [TLS1_VERSION, 'TLSv1'],
  [TLS1_1_VERSION, 'TLSv1.1'],
  [TLS1_2_VERSION, 'TLSv1.2'],
  [TLS1_3_VERSION, 'TLSv1.3'],
]);
const VERSION_NUMBER: ReadonlyMap<SecureVersion, number> = new Map(
  [...VERSION_NAME].map(([n, v]) => [v, n] as [SecureVersion, number]),
);

/** Verification errors that `OPT_ALLOW_SELF_SIGNED` accepts (and nothing else). */
const SELF_SIGNED_ERRORS: ReadonlySet<string> = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']);

const OPENSSL_VERSION = process.versions.openssl ?? '0.0.0';

/** OPENSSL_VERSION_NUMBER as OpenSSL defines it: 0xMNN00PP0 | 0xf (3.x) or 0xMNNFFPPS (1.x). */
function opensslVersionNumber(version: string): number {
  const m = /^(\d+)\.(\d+)\.(\d+)([a-z]*)/.exec(version);
  if (!m) return 0;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major >= 3) return major * 2 ** 28 + minor * 2 ** 20 + patch * 2 ** 4 + 0xf;
  const letter = m[4] === '' ? 0 : (m[4] as string).charCodeAt(0) - 96;
  return major * 2 ** 28 + minor * 2 ** 20 + patch * 2 ** 12 + letter * 2 ** 4 + 0xf;
}

// ------------------------------------------------------------------ helpers

/** What the constructor's options say, normalised. */
interface Settings {
  localCert: string | null;
  localPk: string | null;
  passphrase: string | null;
  caFile: string | null;
  caPath: string | null;
  allowSelfSigned: boolean;
  verifyPeer: boolean | null;
  verifyDepth: number | null;
  ciphers: string | null;
  noTls12: boolean;
  cipherServerPreference: boolean;
  requireClientCert: boolean;
  verifyClientOnce: boolean;
}

/** Certificate chain and private key loaded from the configured files. */
interface Identity {
  /** PEM certificate chain, or null when no certificate is configured. */
  certPem: string | null;
  /** PEM private key (possibly encrypted), or null. */
  keyPem: string | null;
}

function tlsError(message: string, cause?: unknown): Error {
  return createEventError('ERR_EVENT_SSL_CONTEXT', message, cause === undefined ? {} : { cause });
}

/** PHP-like truthiness of an option value. */
function truthy(v: EventSslOptionValue): boolean {
  if (typeof v === 'string') return v !== '' && v !== '0';
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  return v;
}

/** "ENOENT: no such file or directory" from a Node fs error. */
function fsReason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const msg = typeof e.message === 'string' ? e.message : String(err);
  return msg.replace(/, \w+ '.*'$/s, '');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function readText(path: string, what: string): string {
  if (path === '') throw tlsError(`Cannot read ${what} "": empty file name`);
  const abs = resolve(path);
  try {
    return readFileSync(abs, 'latin1');
  } catch (err) {
    throw tlsError(`Cannot read ${what} "${abs}": ${fsReason(err)}`, err);
  }
}

interface PemBlock {
  label: string;
  pem: string;
}

function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push({ label: m[1] as string, pem: `${m[0]}\n` });
  return out;
}

/** Parses every CERTIFICATE block of a PEM text; throws naming the file. */
function parseCertificates(text: string, abs: string, what: string): { pems: string[]; x509: X509Certificate[] } {
  const pems: string[] = [];
  const x509: X509Certificate[] = [];
  for (const b of pemBlocks(text)) {
    if (b.label !== 'CERTIFICATE' && b.label !== 'X509 CERTIFICATE') continue;
    try {
      x509.push(new X509Certificate(b.pem));
    } catch (err) {
      throw tlsError(`Invalid ${what} "${abs}": ${errorMessage(err)}`, err);
    }
    pems.push(b.pem);
  }
  return { pems, x509 };
}

function isEncryptedKey(b: PemBlock): boolean {
  return b.label === 'ENCRYPTED PRIVATE KEY' || /^Proc-Type:\s*4,ENCRYPTED/m.test(b.pem);
}

/** Reads and decrypts the private key of `text` (the file `abs`); throws naming the file. */
function loadPrivateKey(
  text: string,
  abs: string,
  passphrase: string | null,
  inCertFile: boolean,
): { pem: string; key: KeyObject } {
  const block = pemBlocks(text).find((b) => b.label.endsWith('PRIVATE KEY'));
  if (block === undefined) {
    if (!inCertFile) throw tlsError(`Invalid private key file "${abs}": no PEM private key found`);
    const err = tlsError(
      `No private key in certificate file "${abs}": give the key file with OPT_LOCAL_PK or append the key to the certificate file`,
    );
    unpaired.add(err);
    throw err;
  }
  const encrypted = isEncryptedKey(block);
  if (encrypted && passphrase === null) {
    throw tlsError(`Missing passphrase for encrypted private key file "${abs}" (OPT_PASSPHRASE)`);
  }
  try {
    const key = createPrivateKey(
      passphrase === null ? { key: block.pem, format: 'pem' } : { key: block.pem, format: 'pem', passphrase },
    );
    return { pem: block.pem, key };
  } catch (err) {
    if (encrypted) throw tlsError(`Wrong passphrase for private key file "${abs}"`, err);
    throw tlsError(`Invalid private key file "${abs}": ${errorMessage(err)}`, err);
  }
}

/**
 * Errors thrown by loadIdentity() because certificate and key do not form a
 * pair (the key does not match, or the certificate file holds no key): the
 * property setters record such a half-replaced pair instead of throwing.
 */
const unpaired = new WeakSet<Error>();

/** Loads certificate chain and key; validates that they belong together. */
function loadIdentity(certPath: string | null, pkPath: string | null, passphrase: string | null): Identity {
  if (certPath === null) {
    if (pkPath === null) return { certPem: null, keyPem: null };
    // A key without a certificate: check it now, use it once a certificate is set.
    const key = loadPrivateKey(readText(pkPath, 'private key file'), resolve(pkPath), passphrase, false);
    return { certPem: null, keyPem: key.pem };
  }
  const certAbs = resolve(certPath);
  const certText = readText(certPath, 'certificate file');
  const { pems, x509 } = parseCertificates(certText, certAbs, 'certificate file');
  const leaf = x509[0];
  if (leaf === undefined) throw tlsError(`Invalid certificate file "${certAbs}": no PEM certificate found`);
  const keyAbs = pkPath === null ? certAbs : resolve(pkPath);
  const keyText = pkPath === null ? certText : readText(pkPath, 'private key file');
  const key = loadPrivateKey(keyText, keyAbs, passphrase, pkPath === null);
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(key.key);
  } catch (err) {
    throw tlsError(`Private key file "${keyAbs}" cannot be used with certificate file "${certAbs}": ${errorMessage(err)}`, err);
  }
  if (!matches) {
    const err = tlsError(`Private key file "${keyAbs}" does not match certificate file "${certAbs}"`);
    unpaired.add(err);
    throw err;
  }
  return { certPem: pems.join(''), keyPem: key.pem };
}

/** Trusted certificates from OPT_CA_FILE and OPT_CA_PATH, or null for Node's default roots. */
function loadTrust(caFile: string | null, caPath: string | null): string[] | null {
  if (caFile === null && caPath === null) return null;
  const out: string[] = [];
  if (caFile !== null) {
    const abs = resolve(caFile);
    const { pems } = parseCertificates(readText(caFile, 'CA file'), abs, 'CA file');
    if (pems.length === 0) throw tlsError(`Invalid CA file "${abs}": no PEM certificate found`);
    out.push(...pems);
  }
  if (caPath !== null) {
    const dir = resolve(caPath);
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => /\.(pem|crt)$/i.test(n)).sort();
    } catch (err) {
      throw tlsError(`Cannot read CA directory "${dir}": ${fsReason(err)}`, err);
    }
    let found = 0;
    for (const name of names) {
      const file = join(dir, name);
      try {
        if (!statSync(file).isFile()) continue;
      } catch {
        continue; // dangling link
      }
      const { pems } = parseCertificates(readText(file, 'CA file'), file, 'CA file');
      found += pems.length;
      out.push(...pems);
    }
    if (found === 0) throw tlsError(`No certificates (*.pem, *.crt) found in CA directory "${dir}"`);
  }
  return out;
}

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
  if (addr !== undefined && addr !== '') return addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4 ? addr.slice(7) : addr;
  return 'localhost';
}

// ------------------------------------------------------------------ class

/**
 * A TLS context: role, certificate and key, trust store, verification rules
 * and protocol versions for TLS bufferevents
 * (`EventBufferEvent.sslSocket()`, `EventBufferEvent.createSslFilter()`).
 *
 * **Secure by default** (a deliberate difference from the PHP extension,
 * which verifies nothing unless told to): a client context verifies the
 * server's certificate chain *and* host name unless `OPT_VERIFY_PEER` is
 * explicitly `false`; without `OPT_CA_FILE`/`OPT_CA_PATH` it trusts Node's
 * bundled root certificates. A server context requests a client certificate
 * only with `OPT_VERIFY_PEER => true` and insists on one only with
 * `OPT_REQUIRE_CLIENT_CERT => true`. Every method constant means TLS 1.2 or
 * 1.3; see the module documentation for the full list of differences.
 *
 * Files are read when the context is built (and when `localCert` /
 * `localPk` are assigned); problems throw an {@link EventTlsError} with code
 * `ERR_EVENT_SSL_CONTEXT` whose message names the file and whose `cause`
 * is the underlying error.
 *
 * @example
 * ```ts
 * import { EventSslContext, EventTlsError } from 'eventide/event';
 * let ctx: EventSslContext;
 * try {
 *   ctx = new EventSslContext(EventSslContext.TLS_SERVER_METHOD, {
 *     [EventSslContext.OPT_LOCAL_CERT]: 'cert.pem',
 *     [EventSslContext.OPT_LOCAL_PK]: 'privkey.pem',
 *     [EventSslContext.OPT_VERIFY_PEER]: false,
 *   });
 * } catch (e) {
 *   if (e instanceof EventTlsError) { console.error(e.message); process.exit(1); }
 *   throw e;
 * }
 * ```
 */
export class EventSslContext {
  // ---------------------------------------------------------------- methods

  /**
   * Client role, legacy name. Means modern TLS (TLS 1.2 minimum, TLS 1.3
   * allowed), never SSLv2 (DESIGN.md rule 3; the real extension lacks the
   * constant on modern OpenSSL builds).
   * @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.SSLv2_CLIENT_METHOD, {}).isServer; // false
   * ```
   */
  static readonly SSLv2_CLIENT_METHOD = 1;
  /**
   * Client role, legacy name. Means modern TLS (TLS 1.2 minimum), never SSLv3.
   * @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.SSLv3_CLIENT_METHOD, {});
   * ```
   */
  static readonly SSLv3_CLIENT_METHOD = 2;
  /**
   * Client role, legacy name ("any version"). Means modern TLS (TLS 1.2 minimum).
   * @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.SSLv23_CLIENT_METHOD, {});
   * ```
   */
  static readonly SSLv23_CLIENT_METHOD = 3;
  /**
   * Client role: TLS 1.2 or TLS 1.3 (the lowest version is TLS 1.2, see
   * {@link EventSslContext.setMinProtoVersion}).
   * @example
   * ```ts
   * const ctx = new EventSslContext(EventSslContext.TLS_CLIENT_METHOD, { [EventSslContext.OPT_CA_FILE]: 'ca.pem' });
   * ```
   */
  static readonly TLS_CLIENT_METHOD = 4;
  /**
   * Server role, legacy name. Means modern TLS (TLS 1.2 minimum), never SSLv2.
   * @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.SSLv2_SERVER_METHOD, opts).isServer; // true
   * ```
   */
  static readonly SSLv2_SERVER_METHOD = 5;
  /**
   * Server role, legacy name used by the official SSL examples. Means modern
   * TLS (TLS 1.2 minimum), never SSLv3.
   * @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.SSLv3_SERVER_METHOD, opts);
   * ```
   */
  static readonly SSLv3_SERVER_METHOD = 6;
  /**
   * Server role, legacy name ("any version"). Means modern TLS (TLS 1.2 minimum).
   * @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.SSLv23_SERVER_METHOD, opts);
   * ```
   */
  static readonly SSLv23_SERVER_METHOD = 7;
  /**
   * Server role: TLS 1.2 or TLS 1.3.
   * @example
   * ```ts
   * const ctx = new EventSslContext(EventSslContext.TLS_SERVER_METHOD, {
   *   [EventSslContext.OPT_LOCAL_CERT]: 'cert.pem', [EventSslContext.OPT_LOCAL_PK]: 'key.pem',
   * });
   * ```
   */
  static readonly TLS_SERVER_METHOD = 8;
  /**
   * Client role, versioned name. Means modern TLS (TLS 1.2 minimum, TLS 1.3
   * allowed), not "TLS 1.1 only".
   * @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.TLSv11_CLIENT_METHOD, {});
   * ```
   */
  static readonly TLSv11_CLIENT_METHOD = 9;
  /**
   * Server role, versioned name. Means modern TLS (TLS 1.2 minimum).
   * @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.TLSv11_SERVER_METHOD, opts);
   * ```
   */
  static readonly TLSv11_SERVER_METHOD = 10;
  /**
   * Client role, versioned name. Means modern TLS (TLS 1.2 minimum, TLS 1.3
   * allowed); to pin TLS 1.2 call `setMaxProtoVersion(TLS1_2_VERSION)`.
   * @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.TLSv12_CLIENT_METHOD, {});
   * ```
   */
  static readonly TLSv12_CLIENT_METHOD = 11;
  /**
   * Server role, versioned name. Means modern TLS (TLS 1.2 minimum, TLS 1.3 allowed).
   * @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.TLSv12_SERVER_METHOD, opts);
   * ```
   */
  static readonly TLSv12_SERVER_METHOD = 12;
  /**
   * Client role, versioned name (not defined by the PHP extension on
   * OpenSSL 3; the value is ours). Means modern TLS (TLS 1.2 minimum), never TLS 1.0.
   * @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.TLSv1_CLIENT_METHOD, {});
   * ```
   */
  static readonly TLSv1_CLIENT_METHOD = 13;
  /**
   * Server role, versioned name (the value is ours). Means modern TLS
   * (TLS 1.2 minimum), never TLS 1.0.
   * @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}.
   * @example
   * ```ts
   * new EventSslContext(EventSslContext.TLSv1_SERVER_METHOD, opts);
   * ```
   */
  static readonly TLSv1_SERVER_METHOD = 14;

  // ---------------------------------------------------------------- options

  /**
   * Path of the PEM certificate chain (leaf first). Read at construction.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_LOCAL_CERT]: '/etc/app/fullchain.pem' });
   * ```
   */
  static readonly OPT_LOCAL_CERT = 1;
  /**
   * Path of the PEM private key. Without it the key is read from the
   * `OPT_LOCAL_CERT` file.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_LOCAL_PK]: '/etc/app/privkey.pem' });
   * ```
   */
  static readonly OPT_LOCAL_PK = 2;
  /**
   * Passphrase of an encrypted private key.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_PASSPHRASE]: process.env.KEY_PASSPHRASE ?? '' });
   * ```
   */
  static readonly OPT_PASSPHRASE = 3;
  /**
   * PEM file of trusted CA certificates; replaces Node's bundled roots.
   * Also disables `OPT_ALLOW_SELF_SIGNED`.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_CA_FILE]: 'ca.pem' });
   * ```
   */
  static readonly OPT_CA_FILE = 4;
  /**
   * Directory of trusted CA certificates: every `*.pem` and `*.crt` file in
   * it is loaded. Also disables `OPT_ALLOW_SELF_SIGNED`.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_CA_PATH]: '/etc/ssl/certs' });
   * ```
   */
  static readonly OPT_CA_PATH = 5;
  /**
   * Accept a self-signed peer certificate (verification errors
   * `DEPTH_ZERO_SELF_SIGNED_CERT` and `SELF_SIGNED_CERT_IN_CHAIN` only;
   * expiry, a wrong host name and every other error still fail). Forced off
   * when `OPT_CA_FILE` or `OPT_CA_PATH` is given.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_ALLOW_SELF_SIGNED]: true });
   * ```
   */
  static readonly OPT_ALLOW_SELF_SIGNED = 6;
  /**
   * Verify the peer. Default: `true` for client contexts (certificate and
   * host name), `false` for server contexts; on a server `true` requests a
   * client certificate (see `OPT_REQUIRE_CLIENT_CERT`).
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_VERIFY_PEER]: false }); // a client that trusts anything
   * ```
   */
  static readonly OPT_VERIFY_PEER = 7;
  /**
   * Maximum depth of the peer's chain as OpenSSL counts it: depth `n`
   * allows at most `n` intermediate CAs between the peer certificate and
   * the trust anchor.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_VERIFY_DEPTH]: 1 });
   * ```
   */
  static readonly OPT_VERIFY_DEPTH = 8;
  /**
   * OpenSSL cipher list; TLS 1.3 suite names (`TLS_AES_128_GCM_SHA256`...)
   * may be included and then restrict TLS 1.3 too. Invalid lists throw.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_CIPHERS]: 'ECDHE-ECDSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256' });
   * ```
   */
  static readonly OPT_CIPHERS = 9;
  /**
   * Accepted, no effect: SSLv2 is never enabled.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_NO_SSLv2]: true });
   * ```
   */
  static readonly OPT_NO_SSLv2 = 10;
  /**
   * Accepted, no effect: SSLv3 is never enabled (PHP sets the *minimum* version instead).
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_NO_SSLv3]: true });
   * ```
   */
  static readonly OPT_NO_SSLv3 = 11;
  /**
   * Accepted, no effect: TLS 1.0 is never enabled.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_NO_TLSv1]: true });
   * ```
   */
  static readonly OPT_NO_TLSv1 = 12;
  /**
   * Accepted, no effect: TLS 1.1 is never enabled.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_NO_TLSv1_1]: true });
   * ```
   */
  static readonly OPT_NO_TLSv1_1 = 13;
  /**
   * `true` disables TLS 1.2, leaving TLS 1.3 only.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_NO_TLSv1_2]: true });
   * ```
   */
  static readonly OPT_NO_TLSv1_2 = 14;
  /**
   * A server picks the cipher by its own preference order instead of the client's.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_CIPHER_SERVER_PREFERENCE]: true });
   * ```
   */
  static readonly OPT_CIPHER_SERVER_PREFERENCE = 15;
  /**
   * With `OPT_VERIFY_PEER`, a server rejects clients that send no certificate.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_VERIFY_PEER]: true, [EventSslContext.OPT_REQUIRE_CLIENT_CERT]: true });
   * ```
   */
  static readonly OPT_REQUIRE_CLIENT_CERT = 16;
  /**
   * Accepted; Node servers request the client certificate only in the
   * initial handshake anyway, so this changes nothing.
   * @example
   * ```ts
   * ({ [EventSslContext.OPT_VERIFY_CLIENT_ONCE]: true });
   * ```
   */
  static readonly OPT_VERIFY_CLIENT_ONCE = 17;

  // ---------------------------------------------------------------- versions

  /**
   * SSL 3.0 (0x0300). Refused by `setMinProtoVersion` / `setMaxProtoVersion`.
   * @example
   * ```ts
   * ctx.setMinProtoVersion(EventSslContext.SSL3_VERSION); // false
   * ```
   */
  static readonly SSL3_VERSION = SSL3_VERSION;
  /**
   * TLS 1.0 (0x0301). Refused by `setMinProtoVersion` / `setMaxProtoVersion`.
   * @example
   * ```ts
   * ctx.setMinProtoVersion(EventSslContext.TLS1_VERSION); // false
   * ```
   */
  static readonly TLS1_VERSION = TLS1_VERSION;
  /**
   * TLS 1.1 (0x0302). Refused by `setMinProtoVersion` / `setMaxProtoVersion`.
   * @example
   * ```ts
   * ctx.setMinProtoVersion(EventSslContext.TLS1_1_VERSION); // false
   * ```
   */
  static readonly TLS1_1_VERSION = TLS1_1_VERSION;
  /**
   * TLS 1.2 (0x0303), the lowest version a context ever uses.
   * @example
   * ```ts
   * ctx.setMaxProtoVersion(EventSslContext.TLS1_2_VERSION); // TLS 1.2 only
   * ```
   */
  static readonly TLS1_2_VERSION = TLS1_2_VERSION;
  /**
   * TLS 1.3 (0x0304). Not defined by the PHP extension; ours.
   * @example
   * ```ts
   * ctx.setMinProtoVersion(EventSslContext.TLS1_3_VERSION); // TLS 1.3 only
   * ```
   */
  static readonly TLS1_3_VERSION = TLS1_3_VERSION;
  /**
   * DTLS 1.0 (0xfeff). Defined for compatibility; DTLS is not supported.
   * @example
   * ```ts
   * ctx.setMinProtoVersion(EventSslContext.DTLS1_VERSION); // false
   * ```
   */
  static readonly DTLS1_VERSION = DTLS1_VERSION;
  /**
   * DTLS 1.2 (0xfefd). Defined for compatibility; DTLS is not supported.
   * @example
   * ```ts
   * ctx.setMaxProtoVersion(EventSslContext.DTLS1_2_VERSION); // false
   * ```
   */
  static readonly DTLS1_2_VERSION = DTLS1_2_VERSION;
  /**
   * `"OpenSSL <version>"` of the OpenSSL that Node.js uses (without the
   * release date PHP's constant carries: Node does not expose it).
   * @example
   * ```ts
   * console.log(EventSslContext.OPENSSL_VERSION_TEXT); // OpenSSL 3.0.13
   * ```
   */
  static readonly OPENSSL_VERSION_TEXT: string = `OpenSSL ${OPENSSL_VERSION}`;
  /**
   * OpenSSL's `OPENSSL_VERSION_NUMBER` of that version (`0x300000df` for 3.0.13).
   * @example
   * ```ts
   * if (EventSslContext.OPENSSL_VERSION_NUMBER >= 0x30000000) console.log('OpenSSL 3');
   * ```
   */
  static readonly OPENSSL_VERSION_NUMBER: number = opensslVersionNumber(OPENSSL_VERSION);

  // ---------------------------------------------------------------- state

  readonly #isServer: boolean;
  readonly #settings: Settings;
  readonly #verifyPeer: boolean;
  readonly #allowSelfSigned: boolean;
  readonly #sessionIdContext = randomBytes(16).toString('hex');
  #identity: Identity;
  #trust: string[] | null;
  #minVersion: SecureVersion;
  #maxVersion: SecureVersion = 'TLSv1.3';
  #context: SecureContext;

  /**
   * Builds a context.
   *
   * @param method One of the `*_METHOD` constants; it decides the role.
   * @param options Object (or `Map`) keyed by the `OPT_*` constants. An
   *   unknown key records the warning `Unknown option N`
   *   (`ERR_EVENT_INVALID_ARGUMENT`, see `getLastError()`) and is ignored.
   * @throws EventArgumentError `ERR_EVENT_INVALID_ARGUMENT` "Invalid method passed: N".
   * @throws EventTlsError `ERR_EVENT_SSL_CONTEXT` when a file is missing,
   *   unreadable or invalid, the key does not match the certificate, the
   *   passphrase is wrong or missing, or the cipher list is invalid.
   * @example
   * ```ts
   * const client = new EventSslContext(EventSslContext.TLS_CLIENT_METHOD, {
   *   [EventSslContext.OPT_CA_FILE]: 'ca.pem',
   * });
   * ```
   */
  constructor(method: number, options: EventSslContextOptions) {
    if (CLIENT_METHODS.has(method)) this.#isServer = false;
    else if (SERVER_METHODS.has(method)) this.#isServer = true;
    else throw createEventError('ERR_EVENT_INVALID_ARGUMENT', `Invalid method passed: ${String(method)}`);

    const s = parseOptions(options);
    this.#settings = s;
    this.#verifyPeer = s.verifyPeer ?? !this.#isServer;
    // As in the extension: a CA list decides alone; self-signed acceptance is off.
    this.#allowSelfSigned = s.allowSelfSigned && s.caFile === null && s.caPath === null;
    this.#minVersion = s.noTls12 ? 'TLSv1.3' : 'TLSv1.2';

    this.#identity = loadIdentity(s.localCert, s.localPk, s.passphrase);
    this.#trust = loadTrust(s.caFile, s.caPath);
    this.#context = this.#build(this.#identity, this.#trust, this.#minVersion, this.#maxVersion);
  }

  // ---------------------------------------------------------------- public API

  /**
   * The certificate file given by `OPT_LOCAL_CERT` (or assigned later), or
   * `null`. Assigning a path loads that certificate chain (with the key from
   * `localPk`, or from the new file when `localPk` is null) and applies it
   * to the next connections; it throws like the constructor on a missing,
   * unreadable or invalid file and then keeps the previous certificate.
   * A certificate that does not match the current key (or, with `localPk`
   * null, a file that holds no key) is recorded with a warning and used
   * once a matching `localPk` is assigned (see
   * {@link EventSslContext.localPk}). Assigning `null` removes the
   * certificate.
   * @example
   * ```ts
   * ctx.localCert = '/etc/app/renewed.pem';
   * console.log(ctx.localCert); // /etc/app/renewed.pem
   * ```
   */
  get localCert(): string | null {
    return this.#settings.localCert;
  }

  set localCert(path: string | null) {
    this.#replaceIdentity(path, this.#settings.localPk, 'localCert');
  }

  /**
   * The private key file given by `OPT_LOCAL_PK` (or assigned later), or
   * `null` (key read from the certificate file). Assigning a path loads and
   * checks the key (decrypted with `OPT_PASSPHRASE`) and, when it matches the
   * certificate, applies it to the next connections; it throws like the
   * constructor on an unreadable or invalid file and then keeps the
   * previous key.
   *
   * Replacing both certificate and key: assign `localCert`, then `localPk`.
   * While the two do not match, the assignment is recorded (the getters
   * return the new paths), an `ERR_EVENT_SSL_CONTEXT` warning says so, and
   * connections keep using the previous, matching pair until the other half
   * is assigned (OpenSSL also accepts the two assignments in turn).
   * @example
   * ```ts
   * ctx.localCert = '/etc/app/new-cert.pem'; // warns: key does not match yet, old pair still used
   * ctx.localPk = '/etc/app/new-key.pem';    // the new pair is used from now on
   * ```
   */
  get localPk(): string | null {
    return this.#settings.localPk;
  }

  set localPk(path: string | null) {
    this.#replaceIdentity(this.#settings.localCert, path, 'localPk');
  }

  /**
   * Sets the lowest protocol version of the next connections: `TLS1_2_VERSION`
   * or `TLS1_3_VERSION` (`0` restores the default, TLS 1.2, or TLS 1.3 with
   * `OPT_NO_TLSv1_2`).
   *
   * Returns `false` and records an `ERR_EVENT_INVALID_ARGUMENT` warning for
   * versions below TLS 1.2 (refused: insecure), DTLS and unknown values, and
   * for a minimum above the current maximum. (The PHP extension always
   * returns `true`.)
   * @example
   * ```ts
   * ctx.setMinProtoVersion(EventSslContext.TLS1_3_VERSION); // true
   * ctx.setMinProtoVersion(EventSslContext.TLS1_VERSION);   // false: below TLS 1.2
   * ```
   */
  setMinProtoVersion(proto: number): boolean {
    const version =
      proto === 0 ? (this.#settings.noTls12 ? 'TLSv1.3' : 'TLSv1.2') : this.#checkVersion(proto, 'minimum');
    if (version === false) return false;
    if (rank(version) > rank(this.#maxVersion)) {
      return warn(
        'ERR_EVENT_INVALID_ARGUMENT',
        `Minimum protocol version ${version} is above the maximum ${this.#maxVersion}`,
      );
    }
    return this.#applyVersions(version, this.#maxVersion);
  }

  /**
   * Sets the highest protocol version of the next connections:
   * `TLS1_2_VERSION` or `TLS1_3_VERSION` (`0` restores the default, TLS 1.3).
   *
   * Returns `false` and records an `ERR_EVENT_INVALID_ARGUMENT` warning for
   * versions below TLS 1.2, DTLS and unknown values, and for a maximum below
   * the current minimum. (The PHP extension always returns `true`.)
   * @example
   * ```ts
   * ctx.setMaxProtoVersion(EventSslContext.TLS1_2_VERSION); // TLS 1.2 only
   * ```
   */
  setMaxProtoVersion(proto: number): boolean {
    const version = proto === 0 ? 'TLSv1.3' : this.#checkVersion(proto, 'maximum');
    if (version === false) return false;
    if (rank(version) < rank(this.#minVersion)) {
      return warn(
        'ERR_EVENT_INVALID_ARGUMENT',
        `Maximum protocol version ${version} is below the minimum ${this.#minVersion}`,
      );
    }
    return this.#applyVersions(this.#minVersion, version);
  }

  // ---------------------------------------------------------------- internal API

  /**
   * `true` for a context built with a `*_SERVER_METHOD` constant.
   * @internal
   * @example
   * ```ts
   * const state = ctx.isServer ? EventBufferEvent.SSL_ACCEPTING : EventBufferEvent.SSL_CONNECTING;
   * ```
   */
  get isServer(): boolean {
    return this.#isServer;
  }

  /**
   * The Node secure context the next connections use (rebuilt by the
   * `localCert`/`localPk` setters and the protocol-version setters).
   * @internal
   * @example
   * ```ts
   * tls.connect({ socket, secureContext: ctx.secureContext, rejectUnauthorized: false });
   * ```
   */
  get secureContext(): SecureContext {
    return this.#context;
  }

  /**
   * Options for the server side of a connection:
   * `new tls.TLSSocket(socket, ctx.serverOptions())` over an accepted
   * `net.Socket` (then call {@link EventSslContext.verify} on `'secure'`).
   * The certificate material is included too, so
   * `tls.createServer(ctx.serverOptions())` builds an equivalent server.
   *
   * `requestCert` is `OPT_VERIFY_PEER`; `rejectUnauthorized` is true only
   * with `OPT_REQUIRE_CLIENT_CERT` and without `OPT_ALLOW_SELF_SIGNED` (a
   * bare `TLSSocket` then aborts the handshake of a client that sends no
   * certificate). A bare `TLSSocket` does **not** reject an invalid client
   * certificate by itself: `verify()` does.
   *
   * Meant for server contexts (`isServer`); OpenSSL cannot accept with a
   * client method, so a caller should fail a connection whose TLS state
   * does not match the context's role (and vice versa for `clientOptions()`).
   * @internal
   * @example
   * ```ts
   * const tlsSock = new tls.TLSSocket(rawSocket, ctx.serverOptions());
   * tlsSock.once('secure', () => {
   *   const err = ctx.verify(tlsSock);
   *   if (err) tlsSock.destroy(err); else onConnected();
   * });
   * ```
   */
  serverOptions(): TLSSocketOptions & TlsOptions {
    const s = this.#settings;
    const opts: TLSSocketOptions & TlsOptions = {
      isServer: true,
      secureContext: this.#context,
      requestCert: this.#verifyPeer,
      rejectUnauthorized: this.#verifyPeer && s.requireClientCert && !this.#allowSelfSigned,
      minVersion: this.#minVersion,
      maxVersion: this.#maxVersion,
      honorCipherOrder: s.cipherServerPreference,
      sessionIdContext: this.#sessionIdContext,
    };
    if (s.ciphers !== null) opts.ciphers = s.ciphers;
    if (this.#identity.certPem !== null && this.#identity.keyPem !== null) {
      opts.cert = this.#identity.certPem;
      opts.key = this.#identity.keyPem;
      if (s.passphrase !== null) opts.passphrase = s.passphrase;
    }
    if (this.#trust !== null) opts.ca = [...this.#trust];
    return opts;
  }

  /**
   * Options for the client side of a connection:
   * `tls.connect({ socket, ...ctx.clientOptions(host) })` over a connected
   * `net.Socket` (then call {@link EventSslContext.verify} with the same
   * host on `'secureConnect'`).
   *
   * `servername` is the host the certificate must match; it is also sent
   * as SNI unless it is an IP address. `rejectUnauthorized` is true when the
   * context verifies the peer and does not allow self-signed certificates:
   * `tls.connect()` then fails the connection itself (with the chain error,
   * a host-name error from `checkServerIdentity`, which also enforces
   * `OPT_VERIFY_DEPTH`). Otherwise the connection completes and `verify()`
   * decides.
   * @internal
   * @example
   * ```ts
   * const tlsSock = tls.connect({ socket: rawSocket, ...ctx.clientOptions('example.org') });
   * tlsSock.once('secureConnect', () => {
   *   const err = ctx.verify(tlsSock, 'example.org');
   *   if (err) tlsSock.destroy(err); else onConnected();
   * });
   * ```
   */
  clientOptions(servername?: string): ConnectionOptions {
    const s = this.#settings;
    const expected = servername === undefined || servername === '' ? undefined : servername;
    const opts: ConnectionOptions = {
      secureContext: this.#context,
      rejectUnauthorized: this.#verifyPeer && !this.#allowSelfSigned,
      checkServerIdentity: (host: string, cert: PeerCertificate): Error | undefined => {
        if (!this.#verifyPeer) return undefined;
        return this.#checkIdentity(expected ?? host, cert as DetailedPeerCertificate) ?? undefined;
      },
      minVersion: this.#minVersion,
      maxVersion: this.#maxVersion,
      honorCipherOrder: s.cipherServerPreference,
    };
    if (s.ciphers !== null) opts.ciphers = s.ciphers;
    if (expected !== undefined) {
      if (isIP(expected) === 0) opts.servername = expected;
      else opts.host = expected;
    }
    return opts;
  }

  /**
   * Decides whether the peer of a TLS socket whose handshake completed is
   * acceptable under this context's rules. Returns `null` when it is, else
   * an `Error` whose `code` names the reason (OpenSSL's verification codes
   * such as `DEPTH_ZERO_SELF_SIGNED_CERT`, `CERT_HAS_EXPIRED`,
   * `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `CERT_CHAIN_TOO_LONG`,
   * `PEER_DID_NOT_RETURN_A_CERTIFICATE`, or Node's
   * `ERR_TLS_CERT_ALTNAME_INVALID` for a host-name mismatch).
   *
   * Rules: nothing is checked when the context does not verify peers. A
   * server accepts a client without certificate unless
   * `OPT_REQUIRE_CLIENT_CERT`. The chain must verify against the trust
   * store, except that with `OPT_ALLOW_SELF_SIGNED` the two self-signed
   * errors are accepted (the validity period and signatures are then still
   * checked). A client checks the host name: `hostname`, else the socket's
   * SNI server name, else its remote address. The chain depth is checked
   * against `OPT_VERIFY_DEPTH`.
   *
   * Call it on the server's `'secure'` / the client's `'secureConnect'`
   * event, while the socket is open.
   * @internal
   * @example
   * ```ts
   * tlsSock.once('secure', () => {
   *   const err = ctx.verify(tlsSock);
   *   if (err !== null) { console.error(err.message); tlsSock.destroy(); }
   * });
   * ```
   */
  verify(socket: TLSSocket, hostname?: string): Error | null {
    if (!this.#verifyPeer) return null;
    const peer = socket.getPeerCertificate(true) as DetailedPeerCertificate | null | undefined;
    if (peer === null || peer === undefined || Object.keys(peer).length === 0) {
      if (this.#isServer && !this.#settings.requireClientCert) return null;
      return verifyFailure('PEER_DID_NOT_RETURN_A_CERTIFICATE', 'peer did not return a certificate');
    }
    const err = chainError(socket);
    if (err !== null) {
      const code = (err as { code?: unknown }).code;
      if (!this.#allowSelfSigned || typeof code !== 'string' || !SELF_SIGNED_ERRORS.has(code)) return err;
      const extra = checkSelfSignedChain(peer);
      if (extra !== null) return extra;
    }
    if (this.#isServer) return this.#checkDepth(peer);
    return this.#checkIdentity(hostname === undefined || hostname === '' ? defaultHost(socket) : hostname, peer);
  }

  // ---------------------------------------------------------------- private

  #replaceIdentity(cert: string | null, pk: string | null, changed: 'localCert' | 'localPk'): void {
    let identity: Identity;
    try {
      identity = loadIdentity(cert, pk, this.#settings.passphrase);
    } catch (err) {
      if (!(err instanceof Error) || !unpaired.has(err)) throw err;
      this.#settings.localCert = cert;
      this.#settings.localPk = pk;
      const other = changed === 'localCert' ? 'localPk' : 'localCert';
      warn(
        'ERR_EVENT_SSL_CONTEXT',
        `${err.message.replace(/: give the key file .*$/, '')}; the previous certificate and key stay in use until a matching ${other} is assigned`,
        err,
      );
      return;
    }
    this.#context = this.#build(identity, this.#trust, this.#minVersion, this.#maxVersion);
    this.#identity = identity;
    this.#settings.localCert = cert;
    this.#settings.localPk = pk;
  }

  #checkIdentity(host: string, peer: DetailedPeerCertificate): Error | null {
    const err = checkServerIdentity(host, peer);
    if (err !== undefined) return err;
    return this.#checkDepth(peer);
  }

  #checkDepth(peer: DetailedPeerCertificate): Error | null {
    const depth = this.#settings.verifyDepth;
    if (depth === null) return null;
    // OpenSSL: depth n allows levels 0 (peer) .. n+1 (trust anchor).
    if (chainOf(peer).length > depth + 2) return verifyFailure('CERT_CHAIN_TOO_LONG', 'certificate chain too long');
    return null;
  }

  #checkVersion(proto: number, which: string): SecureVersion | false {
    if (proto === DTLS1_VERSION || proto === DTLS1_2_VERSION) {
      return warn('ERR_EVENT_INVALID_ARGUMENT', `DTLS is not supported: ${proto}`);
    }
    const version = VERSION_NAME.get(proto);
    if (proto === SSL3_VERSION || (version !== undefined && proto < TLS1_2_VERSION)) {
      return warn(
        'ERR_EVENT_INVALID_ARGUMENT',
        `Refusing ${which} protocol version ${proto}: versions below TLS 1.2 are not supported`,
      );
    }
    if (version === undefined) return warn('ERR_EVENT_INVALID_ARGUMENT', `Unknown protocol version: ${String(proto)}`);
    return version;
  }

  #applyVersions(min: SecureVersion, max: SecureVersion): boolean {
    let context: SecureContext;
    try {
      context = this.#build(this.#identity, this.#trust, min, max);
    } catch (err) {
      return warn('ERR_EVENT_SSL_CONTEXT', `Cannot apply protocol versions ${min}..${max}: ${errorMessage(err)}`, err);
    }
    this.#context = context;
    this.#minVersion = min;
    this.#maxVersion = max;
    return true;
  }

  #build(identity: Identity, trust: string[] | null, min: SecureVersion, max: SecureVersion): SecureContext {
    const s = this.#settings;
    const opts: SecureContextOptions = {
      minVersion: min,
      maxVersion: max,
      honorCipherOrder: s.cipherServerPreference,
      sessionIdContext: this.#sessionIdContext,
    };
    if (s.ciphers !== null) opts.ciphers = s.ciphers;
    if (identity.certPem !== null && identity.keyPem !== null) {
      opts.cert = identity.certPem;
      opts.key = identity.keyPem;
      if (s.passphrase !== null) opts.passphrase = s.passphrase;
    }
    if (trust !== null) opts.ca = trust;
    try {
      return createSecureContext(opts);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (s.ciphers !== null && (code === 'ERR_SSL_NO_CIPHER_MATCH' || code === 'ERR_INVALID_ARG_VALUE')) {
        throw tlsError(`Invalid cipher list "${s.ciphers}": ${errorMessage(err)}`, err);
      }
      const files = [
        s.localCert === null ? null : `certificate file "${resolve(s.localCert)}"`,
        s.localPk === null ? null : `private key file "${resolve(s.localPk)}"`,
        s.caFile === null ? null : `CA file "${resolve(s.caFile)}"`,
        s.caPath === null ? null : `CA directory "${resolve(s.caPath)}"`,
      ].filter((f): f is string => f !== null);
      const what = files.length === 0 ? '' : ` (${files.join(', ')})`;
      throw tlsError(`Cannot build the TLS context${what}: ${errorMessage(err)}`, err);
    }
  }
}

function rank(v: SecureVersion): number {
  return VERSION_NUMBER.get(v) ?? 0;
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

/** Normalises the options object or map; warns about unknown keys. */
function parseOptions(options: EventSslContextOptions): Settings {
  const s: Settings = {
    localCert: null,
    localPk: null,
    passphrase: null,
    caFile: null,
    caPath: null,
    allowSelfSigned: false,
    verifyPeer: null,
    verifyDepth: null,
    ciphers: null,
    noTls12: false,
    cipherServerPreference: false,
    requireClientCert: false,
    verifyClientOnce: false,
  };
  if (options === null || typeof options !== 'object') {
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventSslContext options must be an object or a Map');
  }
  const entries: [number | string, unknown][] =
    options instanceof Map
      ? [...(options as ReadonlyMap<number, unknown>)]
      : Object.entries(options).map(([k, v]): [number | string, unknown] => [/^-?\d+$/.test(k) ? Number(k) : k, v]);

  for (const [key, raw] of entries) {
    if (raw === undefined || raw === null) continue;
    const value: EventSslOptionValue =
      typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : String(raw);
    const str = (): string => String(value);
    switch (key) {
      case EventSslContext.OPT_LOCAL_CERT:
        s.localCert = str();
        break;
      case EventSslContext.OPT_LOCAL_PK:
        s.localPk = str();
        break;
      case EventSslContext.OPT_PASSPHRASE:
        s.passphrase = str();
        break;
      case EventSslContext.OPT_CA_FILE:
        s.caFile = str();
        break;
      case EventSslContext.OPT_CA_PATH:
        s.caPath = str();
        break;
      case EventSslContext.OPT_ALLOW_SELF_SIGNED:
        s.allowSelfSigned = truthy(value);
        break;
      case EventSslContext.OPT_VERIFY_PEER:
        s.verifyPeer = truthy(value);
        break;
      case EventSslContext.OPT_VERIFY_DEPTH: {
        const depth = typeof value === 'boolean' ? Number.NaN : Number(value);
        if (Number.isInteger(depth) && depth >= 0) s.verifyDepth = depth;
        else warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid verify depth: ${str()}`);
        break;
      }
      case EventSslContext.OPT_CIPHERS:
        s.ciphers = str();
        break;
      case EventSslContext.OPT_NO_SSLv2:
      case EventSslContext.OPT_NO_SSLv3:
      case EventSslContext.OPT_NO_TLSv1:
      case EventSslContext.OPT_NO_TLSv1_1:
        break; // those versions are never enabled
      case EventSslContext.OPT_NO_TLSv1_2:
        s.noTls12 = truthy(value);
        break;
      case EventSslContext.OPT_CIPHER_SERVER_PREFERENCE:
        s.cipherServerPreference = truthy(value);
        break;
      case EventSslContext.OPT_REQUIRE_CLIENT_CERT:
        s.requireClientCert = truthy(value);
        break;
      case EventSslContext.OPT_VERIFY_CLIENT_ONCE:
        s.verifyClientOnce = truthy(value);
        break;
      default:
        warn('ERR_EVENT_INVALID_ARGUMENT', `Unknown option ${String(key)}`);
    }
  }
  return s;
}

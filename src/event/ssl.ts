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
 * Deliberate differences from the PHP extension, all of them for safety:
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
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type {
  ConnectionOptions,
  DetailedPeerCertificate,
  PeerCertificate,
  SecureContext,
  SecureVersion,
  TLSSocket,
  TLSSocketOptions,
  TlsOptions,
} from 'node:tls';
import { createEventError, warn } from './errors.js';
import {
  CLIENT_METHODS,
  OPENSSL,
  protocolVersion,
  rank,
  SERVER_METHODS,
  SSL_METHODS,
  SSL_OPTIONS,
  SSL_VERSIONS,
} from './ssl-constants.js';
import { parseOptions, type EventSslContextOptions, type Settings } from './ssl-options.js';
import { buildSecureContext, errorMessage, loadIdentity, loadTrust, type Identity } from './ssl-pem.js';
import { checkIdentity, verifyPeer, type VerifyRules } from './ssl-verify.js';

export type { EventSslContextOptions, EventSslOptionValue } from './ssl-options.js';

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
  // The constants: each table of ssl-constants.ts documents its entries and
  // their meaning; every entry is a static constant of the same name here.

  // ---------------------------------------------------------------- methods (the role)

  /** Client role, legacy name: modern TLS, never SSLv2. @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}. */
  static readonly SSLv2_CLIENT_METHOD = SSL_METHODS.SSLv2_CLIENT_METHOD;
  /** Client role, legacy name: modern TLS, never SSLv3. @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}. */
  static readonly SSLv3_CLIENT_METHOD = SSL_METHODS.SSLv3_CLIENT_METHOD;
  /** Client role, legacy name ("any version"): modern TLS. @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}. */
  static readonly SSLv23_CLIENT_METHOD = SSL_METHODS.SSLv23_CLIENT_METHOD;
  /** Client role: TLS 1.2 or TLS 1.3 (see {@link EventSslContext.setMinProtoVersion}). */
  static readonly TLS_CLIENT_METHOD = SSL_METHODS.TLS_CLIENT_METHOD;
  /** Server role, legacy name: modern TLS, never SSLv2. @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}. */
  static readonly SSLv2_SERVER_METHOD = SSL_METHODS.SSLv2_SERVER_METHOD;
  /** Server role, legacy name of the official SSL examples: modern TLS, never SSLv3. @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}. */
  static readonly SSLv3_SERVER_METHOD = SSL_METHODS.SSLv3_SERVER_METHOD;
  /** Server role, legacy name ("any version"): modern TLS. @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}. */
  static readonly SSLv23_SERVER_METHOD = SSL_METHODS.SSLv23_SERVER_METHOD;
  /** Server role: TLS 1.2 or TLS 1.3. */
  static readonly TLS_SERVER_METHOD = SSL_METHODS.TLS_SERVER_METHOD;
  /** Client role, versioned name: modern TLS, not "TLS 1.1 only". @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}. */
  static readonly TLSv11_CLIENT_METHOD = SSL_METHODS.TLSv11_CLIENT_METHOD;
  /** Server role, versioned name: modern TLS. @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}. */
  static readonly TLSv11_SERVER_METHOD = SSL_METHODS.TLSv11_SERVER_METHOD;
  /** Client role, versioned name: modern TLS (pin 1.2 with `setMaxProtoVersion`). @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}. */
  static readonly TLSv12_CLIENT_METHOD = SSL_METHODS.TLSv12_CLIENT_METHOD;
  /** Server role, versioned name: modern TLS. @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}. */
  static readonly TLSv12_SERVER_METHOD = SSL_METHODS.TLSv12_SERVER_METHOD;
  /** Client role, versioned name (the value is ours): modern TLS, never TLS 1.0. @deprecated Use {@link EventSslContext.TLS_CLIENT_METHOD}. */
  static readonly TLSv1_CLIENT_METHOD = SSL_METHODS.TLSv1_CLIENT_METHOD;
  /** Server role, versioned name (the value is ours): modern TLS, never TLS 1.0. @deprecated Use {@link EventSslContext.TLS_SERVER_METHOD}. */
  static readonly TLSv1_SERVER_METHOD = SSL_METHODS.TLSv1_SERVER_METHOD;

  // ---------------------------------------------------------------- options (keys of the options object)

  /** Path of the PEM certificate chain (leaf first). */
  static readonly OPT_LOCAL_CERT = SSL_OPTIONS.OPT_LOCAL_CERT;
  /** Path of the PEM private key (default: the `OPT_LOCAL_CERT` file). */
  static readonly OPT_LOCAL_PK = SSL_OPTIONS.OPT_LOCAL_PK;
  /** Passphrase of an encrypted private key. */
  static readonly OPT_PASSPHRASE = SSL_OPTIONS.OPT_PASSPHRASE;
  /** PEM file of trusted CA certificates (replaces Node's roots; disables `OPT_ALLOW_SELF_SIGNED`). */
  static readonly OPT_CA_FILE = SSL_OPTIONS.OPT_CA_FILE;
  /** Directory of trusted CA certificates, `*.pem` and `*.crt` (disables `OPT_ALLOW_SELF_SIGNED`). */
  static readonly OPT_CA_PATH = SSL_OPTIONS.OPT_CA_PATH;
  /** Accept a self-signed peer certificate (the two self-signed errors only). */
  static readonly OPT_ALLOW_SELF_SIGNED = SSL_OPTIONS.OPT_ALLOW_SELF_SIGNED;
  /** Verify the peer (default: `true` for clients, `false` for servers). */
  static readonly OPT_VERIFY_PEER = SSL_OPTIONS.OPT_VERIFY_PEER;
  /** Maximum number of intermediate CAs in the peer's chain. */
  static readonly OPT_VERIFY_DEPTH = SSL_OPTIONS.OPT_VERIFY_DEPTH;
  /** OpenSSL cipher list (TLS 1.3 suite names included); invalid lists throw. */
  static readonly OPT_CIPHERS = SSL_OPTIONS.OPT_CIPHERS;
  /** Accepted, no effect: SSLv2 is never enabled. */
  static readonly OPT_NO_SSLv2 = SSL_OPTIONS.OPT_NO_SSLv2;
  /** Accepted, no effect: SSLv3 is never enabled. */
  static readonly OPT_NO_SSLv3 = SSL_OPTIONS.OPT_NO_SSLv3;
  /** Accepted, no effect: TLS 1.0 is never enabled. */
  static readonly OPT_NO_TLSv1 = SSL_OPTIONS.OPT_NO_TLSv1;
  /** Accepted, no effect: TLS 1.1 is never enabled. */
  static readonly OPT_NO_TLSv1_1 = SSL_OPTIONS.OPT_NO_TLSv1_1;
  /** `true` disables TLS 1.2, leaving TLS 1.3 only. */
  static readonly OPT_NO_TLSv1_2 = SSL_OPTIONS.OPT_NO_TLSv1_2;
  /** A server picks the cipher by its own preference order. */
  static readonly OPT_CIPHER_SERVER_PREFERENCE = SSL_OPTIONS.OPT_CIPHER_SERVER_PREFERENCE;
  /** With `OPT_VERIFY_PEER`, a server rejects clients that send no certificate. */
  static readonly OPT_REQUIRE_CLIENT_CERT = SSL_OPTIONS.OPT_REQUIRE_CLIENT_CERT;
  /** Accepted; changes nothing (Node asks for the client certificate once anyway). */
  static readonly OPT_VERIFY_CLIENT_ONCE = SSL_OPTIONS.OPT_VERIFY_CLIENT_ONCE;

  // ---------------------------------------------------------------- protocol versions

  /** SSL 3.0 (0x0300); refused by the version setters. */
  static readonly SSL3_VERSION = SSL_VERSIONS.SSL3_VERSION;
  /** TLS 1.0 (0x0301); refused by the version setters. */
  static readonly TLS1_VERSION = SSL_VERSIONS.TLS1_VERSION;
  /** TLS 1.1 (0x0302); refused by the version setters. */
  static readonly TLS1_1_VERSION = SSL_VERSIONS.TLS1_1_VERSION;
  /** TLS 1.2 (0x0303), the lowest version a context ever uses. */
  static readonly TLS1_2_VERSION = SSL_VERSIONS.TLS1_2_VERSION;
  /** TLS 1.3 (0x0304); ours, not the PHP extension's. */
  static readonly TLS1_3_VERSION = SSL_VERSIONS.TLS1_3_VERSION;
  /** DTLS 1.0 (0xfeff); DTLS is not supported. */
  static readonly DTLS1_VERSION = SSL_VERSIONS.DTLS1_VERSION;
  /** DTLS 1.2 (0xfefd); DTLS is not supported. */
  static readonly DTLS1_2_VERSION = SSL_VERSIONS.DTLS1_2_VERSION;
  /** `"OpenSSL <version>"` of the OpenSSL that Node.js uses. */
  static readonly OPENSSL_VERSION_TEXT: string = OPENSSL.OPENSSL_VERSION_TEXT;
  /** OpenSSL's `OPENSSL_VERSION_NUMBER` of that version (`0x300000df` for 3.0.13). */
  static readonly OPENSSL_VERSION_NUMBER: number = OPENSSL.OPENSSL_VERSION_NUMBER;

  // ---------------------------------------------------------------- state

  readonly #isServer: boolean;
  readonly #settings: Settings;
  readonly #verifyPeer: boolean;
  readonly #allowSelfSigned: boolean;
  readonly #rules: VerifyRules;
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
    this.#rules = {
      isServer: this.#isServer,
      requireClientCert: s.requireClientCert,
      allowSelfSigned: this.#allowSelfSigned,
      verifyDepth: s.verifyDepth,
    };

    const loaded = loadIdentity(s.localCert, s.localPk, s.passphrase);
    if (loaded.identity === null) throw loaded.unpaired;
    this.#identity = loaded.identity;
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
    const version = proto === 0 ? (this.#settings.noTls12 ? 'TLSv1.3' : 'TLSv1.2') : protocolVersion(proto, 'minimum');
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
    const version = proto === 0 ? 'TLSv1.3' : protocolVersion(proto, 'maximum');
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
   * import * as tls from 'node:tls';
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
   * import * as tls from 'node:tls';
   * const tlsSock = new tls.TLSSocket(socket, ctx.serverOptions());
   * tlsSock.once('secure', () => {
   *   const err = ctx.verify(tlsSock);
   *   if (err) tlsSock.destroy(err); else console.log('client accepted');
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
   * import * as tls from 'node:tls';
   * const tlsSock = tls.connect({ socket, ...ctx.clientOptions('example.org') });
   * tlsSock.once('secureConnect', () => {
   *   const err = ctx.verify(tlsSock, 'example.org');
   *   if (err) tlsSock.destroy(err); else console.log('server verified');
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
        return (
          checkIdentity(expected ?? host, cert as DetailedPeerCertificate, this.#settings.verifyDepth) ?? undefined
        );
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
    return verifyPeer(socket, hostname, this.#rules);
  }

  // ---------------------------------------------------------------- private

  #replaceIdentity(cert: string | null, pk: string | null, changed: 'localCert' | 'localPk'): void {
    const loaded = loadIdentity(cert, pk, this.#settings.passphrase);
    const identity = loaded.identity;
    if (identity === null) {
      const err = loaded.unpaired;
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
    return buildSecureContext(this.#settings, identity, trust, min, max, this.#sessionIdContext);
  }
}

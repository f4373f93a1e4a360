/**
 * The constant tables of `EventSslContext`: the method numbers (which decide
 * the role of a context), the option keys, the protocol version numbers and
 * the version of the OpenSSL that Node.js uses. `EventSslContext` exposes
 * every entry as a static constant of the same name.
 *
 * @module
 */
import type { SecureVersion } from 'node:tls';
import { warn } from './errors.js';

/**
 * The `*_METHOD` constants. Only the role (client or server) comes from the
 * method: every one of them means modern TLS (TLS 1.2 minimum, TLS 1.3
 * allowed), including the legacy `SSLv2_*`, `SSLv3_*`, `SSLv23_*` and the
 * versioned `TLSv1*_*` names, which are deprecated.
 *
 * @internal
 * @example
 * ```ts
 * new EventSslContext(SSL_METHODS.TLS_SERVER_METHOD, {}).isServer; // true
 * ```
 */
export const SSL_METHODS = {
  /** Client role, legacy name; never SSLv2 (the real extension lacks the constant on modern OpenSSL builds). */
  SSLv2_CLIENT_METHOD: 1,
  /** Client role, legacy name; never SSLv3. */
  SSLv3_CLIENT_METHOD: 2,
  /** Client role, legacy name ("any version"). */
  SSLv23_CLIENT_METHOD: 3,
  /** Client role: TLS 1.2 or TLS 1.3. */
  TLS_CLIENT_METHOD: 4,
  /** Server role, legacy name; never SSLv2. */
  SSLv2_SERVER_METHOD: 5,
  /** Server role, legacy name used by the official SSL examples; never SSLv3. */
  SSLv3_SERVER_METHOD: 6,
  /** Server role, legacy name ("any version"). */
  SSLv23_SERVER_METHOD: 7,
  /** Server role: TLS 1.2 or TLS 1.3. */
  TLS_SERVER_METHOD: 8,
  /** Client role, versioned name; not "TLS 1.1 only". */
  TLSv11_CLIENT_METHOD: 9,
  /** Server role, versioned name. */
  TLSv11_SERVER_METHOD: 10,
  /** Client role, versioned name; to pin TLS 1.2 call `setMaxProtoVersion(TLS1_2_VERSION)`. */
  TLSv12_CLIENT_METHOD: 11,
  /** Server role, versioned name. */
  TLSv12_SERVER_METHOD: 12,
  /** Client role, versioned name (not defined by the PHP extension on OpenSSL 3; the value is ours); never TLS 1.0. */
  TLSv1_CLIENT_METHOD: 13,
  /** Server role, versioned name (the value is ours); never TLS 1.0. */
  TLSv1_SERVER_METHOD: 14,
} as const;

/**
 * The methods of the client role.
 * @internal
 * @example
 * ```ts
 * CLIENT_METHODS.has(SSL_METHODS.TLS_CLIENT_METHOD); // true
 * ```
 */
export const CLIENT_METHODS: ReadonlySet<number> = new Set([1, 2, 3, 4, 9, 11, 13]);

/**
 * The methods of the server role.
 * @internal
 * @example
 * ```ts
 * SERVER_METHODS.has(SSL_METHODS.TLS_SERVER_METHOD); // true
 * ```
 */
export const SERVER_METHODS: ReadonlySet<number> = new Set([5, 6, 7, 8, 10, 12, 14]);

/**
 * The `OPT_*` keys of the options object (or `Map`) an `EventSslContext`
 * is built from.
 *
 * @internal
 * @example
 * ```ts
 * const opts = {
 *   [SSL_OPTIONS.OPT_LOCAL_CERT]: '/etc/app/fullchain.pem',
 *   [SSL_OPTIONS.OPT_LOCAL_PK]: '/etc/app/privkey.pem',
 *   [SSL_OPTIONS.OPT_VERIFY_PEER]: false,
 * };
 * ```
 */
export const SSL_OPTIONS = {
  /** Path of the PEM certificate chain (leaf first). Read at construction. */
  OPT_LOCAL_CERT: 1,
  /** Path of the PEM private key. Without it the key is read from the `OPT_LOCAL_CERT` file. */
  OPT_LOCAL_PK: 2,
  /** Passphrase of an encrypted private key. */
  OPT_PASSPHRASE: 3,
  /** PEM file of trusted CA certificates; replaces Node's bundled roots. Also disables `OPT_ALLOW_SELF_SIGNED`. */
  OPT_CA_FILE: 4,
  /** Directory of trusted CA certificates: every `*.pem` and `*.crt` file in it is loaded. Also disables `OPT_ALLOW_SELF_SIGNED`. */
  OPT_CA_PATH: 5,
  /**
   * Accept a self-signed peer certificate (verification errors
   * `DEPTH_ZERO_SELF_SIGNED_CERT` and `SELF_SIGNED_CERT_IN_CHAIN` only;
   * expiry, a wrong host name and every other error still fail). Forced off
   * when `OPT_CA_FILE` or `OPT_CA_PATH` is given.
   */
  OPT_ALLOW_SELF_SIGNED: 6,
  /**
   * Verify the peer. Default: `true` for client contexts (certificate and
   * host name), `false` for server contexts; on a server `true` requests a
   * client certificate (see `OPT_REQUIRE_CLIENT_CERT`).
   */
  OPT_VERIFY_PEER: 7,
  /**
   * Maximum depth of the peer's chain as OpenSSL counts it: depth `n`
   * allows at most `n` intermediate CAs between the peer certificate and
   * the trust anchor.
   */
  OPT_VERIFY_DEPTH: 8,
  /**
   * OpenSSL cipher list; TLS 1.3 suite names (`TLS_AES_128_GCM_SHA256`...)
   * may be included and then restrict TLS 1.3 too. Invalid lists throw.
   */
  OPT_CIPHERS: 9,
  /** Accepted, no effect: SSLv2 is never enabled. */
  OPT_NO_SSLv2: 10,
  /** Accepted, no effect: SSLv3 is never enabled (PHP sets the *minimum* version instead). */
  OPT_NO_SSLv3: 11,
  /** Accepted, no effect: TLS 1.0 is never enabled. */
  OPT_NO_TLSv1: 12,
  /** Accepted, no effect: TLS 1.1 is never enabled. */
  OPT_NO_TLSv1_1: 13,
  /** `true` disables TLS 1.2, leaving TLS 1.3 only. */
  OPT_NO_TLSv1_2: 14,
  /** A server picks the cipher by its own preference order instead of the client's. */
  OPT_CIPHER_SERVER_PREFERENCE: 15,
  /** With `OPT_VERIFY_PEER`, a server rejects clients that send no certificate. */
  OPT_REQUIRE_CLIENT_CERT: 16,
  /** Accepted; Node servers request the client certificate only in the initial handshake anyway, so this changes nothing. */
  OPT_VERIFY_CLIENT_ONCE: 17,
} as const;

/**
 * Protocol version numbers as OpenSSL defines them, for
 * `setMinProtoVersion()` / `setMaxProtoVersion()`. Only TLS 1.2 and TLS 1.3
 * are accepted; the others are refused (insecure) or unsupported (DTLS).
 *
 * @internal
 * @example
 * ```ts
 * ctx.setMinProtoVersion(SSL_VERSIONS.TLS1_3_VERSION); // TLS 1.3 only
 * ctx.setMinProtoVersion(SSL_VERSIONS.TLS1_VERSION);   // false: below TLS 1.2
 * ```
 */
export const SSL_VERSIONS = {
  /** SSL 3.0 (0x0300). Refused. */
  SSL3_VERSION: 0x0300,
  /** TLS 1.0 (0x0301). Refused. */
  TLS1_VERSION: 0x0301,
  /** TLS 1.1 (0x0302). Refused. */
  TLS1_1_VERSION: 0x0302,
  /** TLS 1.2 (0x0303), the lowest version a context ever uses. */
  TLS1_2_VERSION: 0x0303,
  /** TLS 1.3 (0x0304). Not defined by the PHP extension; ours. */
  TLS1_3_VERSION: 0x0304,
  /** DTLS 1.0 (0xfeff). Defined for compatibility; DTLS is not supported. */
  DTLS1_VERSION: 0xfeff,
  /** DTLS 1.2 (0xfefd). Defined for compatibility; DTLS is not supported. */
  DTLS1_2_VERSION: 0xfefd,
} as const;

/** Node's names of the TLS versions, by version number. */
const VERSION_NAME: ReadonlyMap<number, SecureVersion> = new Map<number, SecureVersion>([
  [SSL_VERSIONS.TLS1_VERSION, 'TLSv1'],
  [SSL_VERSIONS.TLS1_1_VERSION, 'TLSv1.1'],
  [SSL_VERSIONS.TLS1_2_VERSION, 'TLSv1.2'],
  [SSL_VERSIONS.TLS1_3_VERSION, 'TLSv1.3'],
]);

const VERSION_NUMBER: ReadonlyMap<SecureVersion, number> = new Map(
  [...VERSION_NAME].map(([n, v]) => [v, n] as [SecureVersion, number]),
);

/**
 * The order of a Node version name (higher is newer); 0 for an unknown name.
 * @internal
 * @example
 * ```ts
 * rank('TLSv1.3') > rank('TLSv1.2'); // true
 * ```
 */
export function rank(v: SecureVersion): number {
  return VERSION_NUMBER.get(v) ?? 0;
}

/**
 * The Node version name of a protocol version number given to
 * `setMinProtoVersion()` (`which` "minimum") or `setMaxProtoVersion()`
 * ("maximum"); `false` with an `ERR_EVENT_INVALID_ARGUMENT` warning for DTLS,
 * versions below TLS 1.2 and unknown numbers.
 * @internal
 * @example
 * ```ts
 * protocolVersion(SSL_VERSIONS.TLS1_3_VERSION, 'minimum'); // 'TLSv1.3'
 * protocolVersion(SSL_VERSIONS.TLS1_VERSION, 'minimum');   // false
 * ```
 */
export function protocolVersion(proto: number, which: string): SecureVersion | false {
  if (proto === SSL_VERSIONS.DTLS1_VERSION || proto === SSL_VERSIONS.DTLS1_2_VERSION) {
    return warn('ERR_EVENT_INVALID_ARGUMENT', `DTLS is not supported: ${proto}`);
  }
  const version = VERSION_NAME.get(proto);
  if (proto === SSL_VERSIONS.SSL3_VERSION || (version !== undefined && proto < SSL_VERSIONS.TLS1_2_VERSION)) {
    return warn(
      'ERR_EVENT_INVALID_ARGUMENT',
      `Refusing ${which} protocol version ${proto}: versions below TLS 1.2 are not supported`,
    );
  }
  if (version === undefined) return warn('ERR_EVENT_INVALID_ARGUMENT', `Unknown protocol version: ${String(proto)}`);
  return version;
}

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

/**
 * The OpenSSL that Node.js uses: its version text (`"OpenSSL <version>"`,
 * without the release date PHP's constant carries: Node does not expose it)
 * and its `OPENSSL_VERSION_NUMBER` (`0x300000df` for 3.0.13).
 *
 * @internal
 * @example
 * ```ts
 * if (OPENSSL.OPENSSL_VERSION_NUMBER >= 0x30000000) console.log(`${OPENSSL.OPENSSL_VERSION_TEXT}: OpenSSL 3`);
 * ```
 */
export const OPENSSL: { readonly OPENSSL_VERSION_TEXT: string; readonly OPENSSL_VERSION_NUMBER: number } = {
  OPENSSL_VERSION_TEXT: `OpenSSL ${OPENSSL_VERSION}`,
  OPENSSL_VERSION_NUMBER: opensslVersionNumber(OPENSSL_VERSION),
};

/**
 * The key material of an `EventSslContext`: loading the PEM certificate
 * chain and private key (decrypted with the passphrase and checked against
 * each other) and the trusted CA certificates of a file or a directory, and
 * building Node's secure context from them. Every problem becomes an
 * `EventTlsError` (`ERR_EVENT_SSL_CONTEXT`) whose message names the file
 * and whose `cause` is the underlying error.
 *
 * @module
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createSecureContext, type SecureContext, type SecureContextOptions, type SecureVersion } from 'node:tls';
import { createEventError } from './errors.js';
import type { Settings } from './ssl-options.js';

/**
 * Certificate chain and private key loaded from the configured files.
 * @internal
 */
export interface Identity {
  /** PEM certificate chain, or null when no certificate is configured. */
  certPem: string | null;
  /** PEM private key (possibly encrypted), or null. */
  keyPem: string | null;
}

/**
 * What {@link loadIdentity} found: the identity, or the error saying that
 * the certificate and the key do not form a pair (the key does not match,
 * or the certificate file holds no key). The property setters of the
 * context record such a half-replaced pair instead of throwing.
 * @internal
 */
export type IdentityResult = { identity: Identity; unpaired: null } | { identity: null; unpaired: Error };

/**
 * An `ERR_EVENT_SSL_CONTEXT` error.
 * @internal
 * @example
 * ```ts
 * const list = 'NO-SUCH-CIPHER';
 * throw tlsError(`Invalid cipher list "${list}": ${errorMessage(err)}`, err);
 * ```
 */
export function tlsError(message: string, cause?: unknown): Error {
  return createEventError('ERR_EVENT_SSL_CONTEXT', message, cause === undefined ? {} : { cause });
}

/**
 * The message of an error, or the text of anything else thrown.
 * @internal
 * @example
 * ```ts
 * errorMessage(new Error('bad')); // 'bad'
 * ```
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** "ENOENT: no such file or directory" from a Node fs error. */
function fsReason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const msg = typeof e.message === 'string' ? e.message : String(err);
  return msg.replace(/, \w+ '.*'$/s, '');
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

/**
 * Reads and decrypts the private key of `text` (the file `abs`); throws
 * naming the file. Null when the text holds no PEM private key.
 */
function loadPrivateKey(text: string, abs: string, passphrase: string | null): { pem: string; key: KeyObject } | null {
  const block = pemBlocks(text).find((b) => b.label.endsWith('PRIVATE KEY'));
  if (block === undefined) return null;
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
 * Loads the certificate chain and the key and checks that they belong
 * together. Throws for a missing, unreadable or invalid file and a wrong or
 * missing passphrase; returns the error in `unpaired` when the two are not
 * a pair.
 * @internal
 * @example
 * ```ts
 * const r = loadIdentity('cert.pem', 'key.pem', null);
 * if (r.identity === null) throw r.unpaired;
 * ```
 */
export function loadIdentity(
  certPath: string | null,
  pkPath: string | null,
  passphrase: string | null,
): IdentityResult {
  if (certPath === null) {
    if (pkPath === null) return { identity: { certPem: null, keyPem: null }, unpaired: null };
    // A key without a certificate: check it now, use it once a certificate is set.
    const abs = resolve(pkPath);
    const key = loadPrivateKey(readText(pkPath, 'private key file'), abs, passphrase);
    if (key === null) throw tlsError(`Invalid private key file "${abs}": no PEM private key found`);
    return { identity: { certPem: null, keyPem: key.pem }, unpaired: null };
  }
  const certAbs = resolve(certPath);
  const certText = readText(certPath, 'certificate file');
  const { pems, x509 } = parseCertificates(certText, certAbs, 'certificate file');
  const leaf = x509[0];
  if (leaf === undefined) throw tlsError(`Invalid certificate file "${certAbs}": no PEM certificate found`);
  const keyAbs = pkPath === null ? certAbs : resolve(pkPath);
  const keyText = pkPath === null ? certText : readText(pkPath, 'private key file');
  const key = loadPrivateKey(keyText, keyAbs, passphrase);
  if (key === null) {
    if (pkPath !== null) throw tlsError(`Invalid private key file "${keyAbs}": no PEM private key found`);
    const err = tlsError(
      `No private key in certificate file "${keyAbs}": give the key file with OPT_LOCAL_PK or append the key to the certificate file`,
    );
    return { identity: null, unpaired: err };
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(key.key);
  } catch (err) {
    throw tlsError(
      `Private key file "${keyAbs}" cannot be used with certificate file "${certAbs}": ${errorMessage(err)}`,
      err,
    );
  }
  if (!matches) {
    return {
      identity: null,
      unpaired: tlsError(`Private key file "${keyAbs}" does not match certificate file "${certAbs}"`),
    };
  }
  return { identity: { certPem: pems.join(''), keyPem: key.pem }, unpaired: null };
}

/**
 * Trusted certificates from OPT_CA_FILE and OPT_CA_PATH, or null for Node's
 * default roots. Throws naming the file or directory.
 * @internal
 * @example
 * ```ts
 * const ca = loadTrust('ca.pem', null); // [PEM text of each certificate]
 * ```
 */
export function loadTrust(caFile: string | null, caPath: string | null): string[] | null {
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
      names = readdirSync(dir)
        .filter((n) => /\.(pem|crt)$/i.test(n))
        .sort();
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

/**
 * Node's secure context for the material and settings of a context; throws
 * an `ERR_EVENT_SSL_CONTEXT` error naming the cipher list or the files
 * when Node refuses them.
 * @internal
 * @example
 * ```ts
 * import { parseOptions } from './ssl-options.js';
 * const settings = parseOptions({ [EventSslContext.OPT_LOCAL_CERT]: 'server.pem' });
 * const found = loadIdentity(settings.localCert, settings.localPk, settings.passphrase);
 * if (found.identity) buildSecureContext(settings, found.identity, loadTrust(null, null), 'TLSv1.2', 'TLSv1.3', 'eventide');
 * ```
 */
export function buildSecureContext(
  s: Settings,
  identity: Identity,
  trust: string[] | null,
  min: SecureVersion,
  max: SecureVersion,
  sessionIdContext: string,
): SecureContext {
  const opts: SecureContextOptions = {
    minVersion: min,
    maxVersion: max,
    honorCipherOrder: s.cipherServerPreference,
    sessionIdContext,
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

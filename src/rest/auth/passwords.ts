/**
 * Password hashing: scrypt (`node:crypto`) for new hashes, and Django's
 * PBKDF2 hashes (`pbkdf2_sha256$...`, `pbkdf2_sha1$...`) verified so that
 * users moved from a Django project keep their passwords (and are upgraded
 * to scrypt at their next login: {@link needsRehash}).
 *
 * The encoded format is self-describing, `algorithm$params$salt$hash`:
 *
 * - ours: `scrypt$N=131072,r=8,p=1$<salt>$<hash>`, salt (16 random bytes)
 *   and hash (32 bytes) in base64 without padding;
 * - Django's: `pbkdf2_sha256$<iterations>$<salt>$<base64 hash>` (and
 *   `pbkdf2_sha1`), read as Django writes them;
 * - a hash starting with `!` is Django's unusable password: it never
 *   verifies (false), like Django's `check_password`.
 *
 * Parameters: OWASP's scrypt guidance (N=2^17, r=8, p=1). One hash needs
 * 128 × N × r = 128 MiB of memory (`maxmem` is set to what the parameters
 * need) and takes about 100-400 ms of one libuv thread-pool thread; it runs
 * with the asynchronous `crypto.scrypt`, so the event loop is not blocked.
 * Four concurrent logins (the default thread pool) need 512 MiB: the caller
 * should bound concurrent verifications.
 *
 * Errors: a stored hash that cannot be read (unknown algorithm, malformed
 * field) throws {@link CredentialFormatError} with `ERR_REST_CREDENTIAL_FORMAT`,
 * and one whose parameters ask for more work than {@link PasswordLimits}
 * allow throws it with `ERR_REST_CREDENTIAL_LIMIT`: a stored hash is trusted
 * data, so a bad one is a fault to log, not a wrong password. A wrong
 * password is `false`. No message holds the password or the hash.
 *
 * Internal: not exported yet (issue 29: the authentication classes build on it).
 * @module
 */
import { pbkdf2, randomBytes, scrypt, timingSafeEqual, type BinaryLike } from 'node:crypto';
import { CredentialFormatError } from '../errors.js';

/**
 * The scrypt parameters of new hashes.
 * @internal
 * @example
 * ```ts
 * const fast: ScryptParams = { N: 2 ** 14, r: 8, p: 1 };
 * ```
 */
export interface ScryptParams {
  /** CPU/memory cost, a power of 2. */
  readonly N: number;
  /** Block size. */
  readonly r: number;
  /** Parallelism. */
  readonly p: number;
}

/**
 * OWASP's scrypt parameters (N=2^17, r=8, p=1: 128 MiB per hash).
 * @internal
 * @example
 * ```ts
 * console.log(DEFAULT_SCRYPT.N); // 131072
 * ```
 */
export const DEFAULT_SCRYPT: ScryptParams = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

/**
 * The most work a stored hash may ask for; beyond it verification throws
 * `ERR_REST_CREDENTIAL_LIMIT` before any work is done.
 * @internal
 * @example
 * ```ts
 * const limits: PasswordLimits = { ...DEFAULT_LIMITS, maxIterations: 1_000_000 };
 * ```
 */
export interface PasswordLimits {
  /** Largest PBKDF2 iteration count (Django 5.2 uses 1,000,000). */
  readonly maxIterations: number;
  /** Largest scrypt memory, 128 × N × r bytes. */
  readonly maxScryptMemory: number;
  /** Largest scrypt p. */
  readonly maxScryptP: number;
}

/**
 * The default limits: 2,000,000 PBKDF2 iterations, 256 MiB of scrypt memory
 * (N=2^18 at r=8), p up to 4.
 * @internal
 * @example
 * ```ts
 * console.log(DEFAULT_LIMITS.maxIterations); // 2000000
 * ```
 */
export const DEFAULT_LIMITS: PasswordLimits = Object.freeze({
  maxIterations: 2_000_000,
  maxScryptMemory: 256 * 1024 * 1024,
  maxScryptP: 4,
});

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const B64 = /^[A-Za-z0-9+/]+={0,2}$/;

interface ScryptHash {
  readonly kind: 'scrypt';
  readonly params: ScryptParams;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

interface Pbkdf2Hash {
  readonly kind: 'pbkdf2';
  readonly digest: 'sha256' | 'sha1';
  readonly iterations: number;
  /** Django uses the salt's text (UTF-8) as the salt. */
  readonly salt: string;
  /** The stored base64 text, compared as Django compares (the re-encoded hash). */
  readonly hash: string;
  readonly keyLength: number;
}

function formatError(message: string): CredentialFormatError {
  return new CredentialFormatError('ERR_REST_CREDENTIAL_FORMAT', message);
}

function scryptMemory(p: ScryptParams): number {
  // OpenSSL's accounting: 128·r·(N+2) for V and the work area, 128·r·p for B.
  return 128 * p.r * (p.N + 2) + 128 * p.r * p.p;
}

function positiveInt(text: string, what: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw formatError(`password hash: ${what} is not a positive integer`);
  return Number(text);
}

function decodeB64(text: string, what: string): Buffer {
  if (!B64.test(text)) throw formatError(`password hash: ${what} is not base64`);
  return Buffer.from(text, 'base64');
}

function parseScrypt(params: string, salt: string, hash: string, limits: PasswordLimits): ScryptHash {
  const m = /^N=([0-9]+),r=([0-9]+),p=([0-9]+)$/.exec(params);
  if (!m) throw formatError('password hash: scrypt parameters are not N=..,r=..,p=..');
  const p: ScryptParams = {
    N: positiveInt(m[1] as string, 'scrypt N'),
    r: positiveInt(m[2] as string, 'scrypt r'),
    p: positiveInt(m[3] as string, 'scrypt p'),
  };
  if (p.N < 2 || (p.N & (p.N - 1)) !== 0 || p.N > 2 ** 30)
    throw formatError('password hash: scrypt N is not a power of 2');
  if (p.p > limits.maxScryptP || 128 * p.N * p.r > limits.maxScryptMemory)
    throw new CredentialFormatError(
      'ERR_REST_CREDENTIAL_LIMIT',
      `password hash: scrypt N=${p.N}, r=${p.r}, p=${p.p} exceeds the limits (memory ${limits.maxScryptMemory} bytes, p ${limits.maxScryptP})`,
    );
  const s = decodeB64(salt, 'scrypt salt');
  const h = decodeB64(hash, 'scrypt hash');
  if (s.length < 8 || s.length > 64) throw formatError('password hash: scrypt salt length out of range');
  if (h.length < 16 || h.length > 64) throw formatError('password hash: scrypt hash length out of range');
  return { kind: 'scrypt', params: p, salt: s, hash: h };
}

function parsePbkdf2(
  digest: 'sha256' | 'sha1',
  iterations: string,
  salt: string,
  hash: string,
  limits: PasswordLimits,
): Pbkdf2Hash {
  const n = positiveInt(iterations, 'PBKDF2 iterations');
  if (n > limits.maxIterations)
    throw new CredentialFormatError(
      'ERR_REST_CREDENTIAL_LIMIT',
      `password hash: ${n} PBKDF2 iterations exceed the limit (${limits.maxIterations})`,
    );
  if (salt === '') throw formatError('password hash: empty PBKDF2 salt');
  const keyLength = digest === 'sha256' ? 32 : 20;
  if (decodeB64(hash, 'PBKDF2 hash').length !== keyLength)
    throw formatError('password hash: PBKDF2 hash has the wrong length');
  return { kind: 'pbkdf2', digest, iterations: n, salt, hash, keyLength };
}

function parse(encoded: string, limits: PasswordLimits): ScryptHash | Pbkdf2Hash {
  const parts = encoded.split('$');
  if (parts.length !== 4) throw formatError('password hash: not algorithm$params$salt$hash');
  const [algorithm, params, salt, hash] = parts as [string, string, string, string];
  if (algorithm === 'scrypt') return parseScrypt(params, salt, hash, limits);
  if (algorithm === 'pbkdf2_sha256') return parsePbkdf2('sha256', params, salt, hash, limits);
  if (algorithm === 'pbkdf2_sha1') return parsePbkdf2('sha1', params, salt, hash, limits);
  throw formatError('password hash: unknown algorithm');
}

function runScrypt(password: BinaryLike, salt: Buffer, p: ScryptParams, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, { N: p.N, r: p.r, p: p.p, maxmem: scryptMemory(p) }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

function runPbkdf2(password: string, h: Pbkdf2Hash): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(
      Buffer.from(password, 'utf8'),
      Buffer.from(h.salt, 'utf8'),
      h.iterations,
      h.keyLength,
      h.digest,
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** Constant-time equality of two byte strings (lengths are not secret: both come from the stored hash). */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Hashes `password` (UTF-8) with scrypt and a fresh 16-byte salt; resolves
 * to the encoded hash `scrypt$N=..,r=..,p=..$salt$hash`.
 * @internal
 * @example
 * ```ts
 * const encoded = await hashPassword('correct horse');
 * console.log(encoded.startsWith('scrypt$N=131072,r=8,p=1$')); // true
 * ```
 */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await runScrypt(Buffer.from(password, 'utf8'), salt, params, KEY_BYTES);
  const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');
  return `scrypt$N=${params.N},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

/**
 * Whether `password` matches `encoded` (ours or Django's PBKDF2), compared
 * in constant time. False for a wrong password and for Django's unusable
 * passwords (`!...`); throws {@link CredentialFormatError} for a hash it
 * cannot read or one beyond `limits`.
 * @internal
 * @example
 * ```ts
 * const ok = await verifyPassword('secret', 'pbkdf2_sha256$1000$salt$...');
 * ```
 */
export async function verifyPassword(
  password: string,
  encoded: string,
  limits: PasswordLimits = DEFAULT_LIMITS,
): Promise<boolean> {
  if (encoded.startsWith('!')) return false;
  const h = parse(encoded, limits);
  if (h.kind === 'scrypt') {
    const key = await runScrypt(Buffer.from(password, 'utf8'), h.salt, h.params, h.hash.length);
    return sameBytes(key, h.hash);
  }
  const key = await runPbkdf2(password, h);
  return sameBytes(Buffer.from(key.toString('base64'), 'latin1'), Buffer.from(h.hash, 'latin1'));
}

/**
 * Whether a hash that just verified should be replaced by
 * `hashPassword(password, params)`: true for Django's PBKDF2 hashes and for
 * scrypt hashes with other parameters (or another key length); false for
 * unusable passwords. Throws as {@link verifyPassword} for a hash it cannot
 * read.
 * @internal
 * @example
 * ```ts
 * declare const pw: string;
 * declare let stored: string;
 * if ((await verifyPassword(pw, stored)) && needsRehash(stored)) stored = await hashPassword(pw);
 * ```
 */
export function needsRehash(
  encoded: string,
  params: ScryptParams = DEFAULT_SCRYPT,
  limits: PasswordLimits = DEFAULT_LIMITS,
): boolean {
  if (encoded.startsWith('!')) return false;
  const h = parse(encoded, limits);
  if (h.kind !== 'scrypt') return true;
  return h.params.N !== params.N || h.params.r !== params.r || h.params.p !== params.p || h.hash.length !== KEY_BYTES;
}

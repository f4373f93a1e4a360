/**
 * API tokens stored hashed: keys as DRF's `rest_framework.authtoken` makes
 * them (40 lower-case hexadecimal characters, 20 bytes from the system's
 * CSPRNG), but the store keeps only
 *
 * - `prefix`, the first {@link TOKEN_PREFIX_LENGTH} characters in clear, to
 *   find the row (an index, not a secret: the other 32 characters still hold
 *   128 bits), and
 * - `hash`, the SHA-256 of the whole key (64 hexadecimal characters),
 *   compared in constant time.
 *
 * The key itself is shown once, at creation. A plain SHA-256 (no salt, no
 * slow hash, no server secret) is enough because the key is random with 160
 * bits: there is no dictionary to try and no way to enumerate, so a leaked
 * table gives nothing usable. An HMAC with a server secret would add
 * secret management (and every token dies when that secret rotates) for no
 * gain against such keys; it matters only for low-entropy secrets, which
 * passwords are and these keys are not (passwords.ts uses scrypt).
 *
 * A DRF project's existing keys (stored in clear in `authtoken_token`) are
 * moved with {@link storedTokenFromKey}, which keeps them working.
 *
 * Internal: not exported yet (issue 29: the authentication classes build on it).
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CredentialFormatError } from '../errors.js';

/**
 * How many characters of a key the store keeps in clear.
 * @internal
 * @example
 * ```ts
 * console.log(TOKEN_PREFIX_LENGTH); // 8
 * ```
 */
export const TOKEN_PREFIX_LENGTH = 8;

/**
 * A token as the store keeps it (never the key).
 * @internal
 * @example
 * ```ts
 * const row: StoredToken = { prefix: '9944b091', hash: 'ab'.repeat(32), created: new Date() };
 * ```
 */
export interface StoredToken {
  /** The key's first {@link TOKEN_PREFIX_LENGTH} characters, to find the row. */
  readonly prefix: string;
  /** SHA-256 of the whole key, 64 lower-case hexadecimal characters. */
  readonly hash: string;
  /** When it was made. */
  readonly created: Date;
  /** From this instant on it no longer authenticates; absent or null: never expires. */
  readonly expires?: Date | null;
  /** When it was revoked; absent or null: not revoked. */
  readonly revoked?: Date | null;
}

/**
 * A new token: `key` for the user (shown once, then forgotten) and `stored`
 * for the store.
 * @internal
 * @example
 * ```ts
 * const { key, stored } = createToken();
 * console.log(key.length, stored.prefix === key.slice(0, 8)); // 40 true
 * ```
 */
export interface NewToken {
  readonly key: string;
  readonly prefix: string;
  readonly hash: string;
  readonly stored: StoredToken;
}

/**
 * Why {@link verifyToken} refused a key.
 * @internal
 * @example
 * ```ts
 * const r: TokenCheck = { ok: false, reason: 'expired' };
 * ```
 */
export type TokenCheck =
  { readonly ok: true } | { readonly ok: false; readonly reason: 'invalid' | 'expired' | 'revoked' };

const HASH_HEX = /^[0-9a-f]{64}$/;

/**
 * The SHA-256 of a key, in hexadecimal (what {@link StoredToken.hash} holds).
 * @internal
 * @example
 * ```ts
 * console.log(tokenHash('9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b').length); // 64
 * ```
 */
export function tokenHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * The part of a presented key that finds its row: its first
 * {@link TOKEN_PREFIX_LENGTH} characters.
 * @internal
 * @example
 * ```ts
 * console.log(tokenPrefix('9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b')); // 9944b091
 * ```
 */
export function tokenPrefix(key: string): string {
  return key.slice(0, TOKEN_PREFIX_LENGTH);
}

/**
 * The stored form of an existing key, for instance one of a DRF project's
 * `authtoken_token` rows being moved.
 * @internal
 * @example
 * ```ts
 * const row = storedTokenFromKey('9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b', { created: new Date('2024-01-01') });
 * ```
 */
export function storedTokenFromKey(
  key: string,
  options: { created?: Date; expires?: Date | null; revoked?: Date | null } = {},
): StoredToken {
  return {
    prefix: tokenPrefix(key),
    hash: tokenHash(key),
    created: options.created ?? new Date(),
    expires: options.expires ?? null,
    revoked: options.revoked ?? null,
  };
}

/**
 * A new random key (20 bytes from `crypto.randomBytes`, 40 hexadecimal
 * characters, as DRF's `Token.generate_key`) with its stored form;
 * `expires` is optional.
 * @internal
 * @example
 * ```ts
 * const { key, stored } = createToken({ expires: new Date(Date.now() + 86_400_000) });
 * ```
 */
export function createToken(options: { expires?: Date | null; now?: Date } = {}): NewToken {
  const key = randomBytes(20).toString('hex');
  const stored = storedTokenFromKey(key, { created: options.now ?? new Date(), expires: options.expires ?? null });
  return { key, prefix: stored.prefix, hash: stored.hash, stored };
}

/**
 * Whether `presented` is the key of `stored`, compared in constant time,
 * and the row is neither revoked nor expired at `now`. The hash is always
 * computed and compared, so a refusal takes the same time whatever its
 * reason. Throws {@link CredentialFormatError} (`ERR_REST_CREDENTIAL_FORMAT`)
 * when the stored hash is not 64 hexadecimal characters.
 * @internal
 * @example
 * ```ts
 * const { key, stored } = createToken();
 * console.log(verifyToken(key, stored)); // { ok: true }
 * ```
 */
export function verifyToken(presented: string, stored: StoredToken, now: Date = new Date()): TokenCheck {
  if (!HASH_HEX.test(stored.hash))
    throw new CredentialFormatError(
      'ERR_REST_CREDENTIAL_FORMAT',
      'stored token: hash is not 64 hexadecimal characters',
    );
  const same = timingSafeEqual(Buffer.from(tokenHash(presented), 'hex'), Buffer.from(stored.hash, 'hex'));
  if (!same) return { ok: false, reason: 'invalid' };
  if (stored.revoked) return { ok: false, reason: 'revoked' };
  if (stored.expires && now.getTime() >= stored.expires.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true };
}

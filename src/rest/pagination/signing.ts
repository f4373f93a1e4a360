/**
 * Signed cursor tokens: with the `CURSOR_SIGNING_KEY` setting, a cursor
 * token carries an HMAC-SHA256 over the token and what it is bound to (the
 * path and the query parameters other than the cursor and the page size:
 * the view, its filters and the client's ordering), so a tampered token, or
 * one taken from another view or other filters, is refused.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from '../request.js';

/** Bytes of the MAC kept in a token (128 bits). */
const MAC_BYTES = 16;

/**
 * What a token is bound to: the request's path and its query parameters
 * except `exclude` (the cursor and page-size parameters), sorted, so the
 * order a client writes them in does not matter.
 * @internal
 */
export function cursorBinding(request: Request, exclude: readonly (string | null)[]): string {
  const pairs: string[] = [];
  for (const [k, v] of request.query.entries()) if (!exclude.includes(k)) pairs.push(`${k}=${v}`);
  pairs.sort();
  return `${request.path}?${pairs.join('&')}`;
}

function mac(key: string, token: string, binding: string): Buffer {
  return createHmac('sha256', key).update(token).update('\u0000').update(binding).digest().subarray(0, MAC_BYTES);
}

/**
 * `token` with its MAC appended after a `.` (URL-safe base64).
 * @example
 * ```ts
 * signCursorToken('cD00ODY=', 'a long random secret', '/items/?'); // 'cD00ODY=.8PZ...'
 * ```
 */
export function signCursorToken(token: string, key: string, binding: string): string {
  return `${token}.${mac(key, token, binding).toString('base64url')}`;
}

/**
 * The token inside a signed one when its MAC is right for `binding`, else
 * `null` (no MAC, a wrong one, a token signed for another binding or key).
 * The comparison takes constant time.
 * @example
 * ```ts
 * const signed = signCursorToken('cD00ODY=', 'a long random secret', '/items/?');
 * verifyCursorToken(signed, 'a long random secret', '/items/?'); // 'cD00ODY='
 * verifyCursorToken(signed, 'a long random secret', '/other/?'); // null
 * ```
 */
export function verifyCursorToken(signed: string, key: string, binding: string): string | null {
  const dot = signed.lastIndexOf('.');
  if (dot < 0) return null;
  const token = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1), 'base64url');
  const want = mac(key, token, binding);
  if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
  return token;
}

/**
 * The arguments of `EventBuffer` methods as the PHP extension reads them
 * (counts and positions), and the warnings its methods record when they
 * fail (a frozen end, an unknown EOL style, a bad position or argument).
 *
 * @module
 */
import { warn } from './errors.js';

/**
 * A non-negative whole count, or -1 for a negative or non-numeric one.
 * @internal
 * @example
 * ```ts
 * toCount(3.7); // 3
 * ```
 */
export function toCount(n: number): number {
  return typeof n === 'number' && n >= 0 ? Math.floor(n) : -1;
}

/**
 * A position argument: integers as they are, anything non-numeric as -1 ("not given").
 * @internal
 * @example
 * ```ts
 * toPosition(Number.NaN); // -1
 * ```
 */
export function toPosition(n: number): number {
  return typeof n === 'number' && !Number.isNaN(n) ? Math.trunc(n) : -1;
}

/**
 * Records "The front of the buffer is frozen"; false.
 * @internal
 * @example
 * ```ts
 * frozenFront(); // false
 * getLastError()?.message; // 'The front of the buffer is frozen'
 * ```
 */
export const frozenFront = (): false => warn('ERR_EVENT_BUFFER_FROZEN', 'The front of the buffer is frozen');

/**
 * Records "The end of the buffer is frozen"; false.
 * @internal
 * @example
 * ```ts
 * frozenEnd(); // false
 * getLastError()?.message; // 'The end of the buffer is frozen'
 * ```
 */
export const frozenEnd = (): false => warn('ERR_EVENT_BUFFER_FROZEN', 'The end of the buffer is frozen');

/**
 * Records "Invalid EOL style: N"; false.
 * @internal
 * @example
 * ```ts
 * invalidEol(9); // false
 * getLastError()?.message; // 'Invalid EOL style: 9'
 * ```
 */
export const invalidEol = (eol: number): false => warn('ERR_EVENT_INVALID_EOL', `Invalid EOL style: ${String(eol)}`);

/**
 * Records "Failed to set position to N"; false.
 * @internal
 * @example
 * ```ts
 * badPosition(-5); // false
 * getLastError()?.code; // 'ERR_EVENT_INVALID_POSITION'
 * ```
 */
export const badPosition = (pos: number): false =>
  warn('ERR_EVENT_INVALID_POSITION', `Failed to set position to ${String(pos)}`);

/**
 * Records "Invalid <what>: <value>"; false.
 * @internal
 * @example
 * ```ts
 * badArgument('length', -1); // false
 * getLastError()?.message; // 'Invalid length: -1'
 * ```
 */
export const badArgument = (what: string, value: unknown): false =>
  warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid ${what}: ${String(value)}`);

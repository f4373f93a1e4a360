/**
 * Path converters of `path()` routes (`<int:pk>`): the built-in `int`,
 * `str`, `slug`, `uuid` and `path`; custom ones are given per route
 * (`RouteOptions.converters`) or per group of routes (`withConverters()`),
 * never registered process-wide. A converter gives the regex a segment must match and the
 * conversions both ways (segment to value when resolving, value to text
 * when reversing).
 *
 * @module
 */
import { ConfigurationError } from '../errors.js';

/**
 * A path converter: the regex a segment must match, and the conversions
 * both ways. `toValue()` may throw to reject a segment (the pattern then
 * does not match); `toUrl()` may throw to reject a value when reversing.
 * @example
 * ```ts
 * const hex: PathConverter = { regex: '[0-9a-f]+', toValue: (s) => parseInt(s, 16), toUrl: (v) => Number(v).toString(16) };
 * ```
 */
export interface PathConverter {
  readonly regex: string;
  toValue(segment: string): unknown;
  toUrl(value: unknown): string;
}

/** `int`: any digits, as Django's; a number, or a bigint beyond 2^53 (a lookup out of the column's range is a 404). */
const intConverter: PathConverter = {
  regex: '[0-9]+',
  toValue(s) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : BigInt(s);
  },
  toUrl: (v) => String(v),
};
const identity = (s: string): string => s;
const stringify = (v: unknown): string => String(v);
const BUILTIN: ReadonlyMap<string, PathConverter> = new Map<string, PathConverter>([
  ['int', intConverter],
  ['str', { regex: '[^/]+', toValue: identity, toUrl: stringify }],
  ['slug', { regex: '[-a-zA-Z0-9_]+', toValue: identity, toUrl: stringify }],
  [
    'uuid',
    { regex: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', toValue: identity, toUrl: stringify },
  ],
  ['path', { regex: '.+', toValue: identity, toUrl: stringify }],
]);

/**
 * The built-in converter called `name`, or `undefined`.
 * @internal
 */
export function builtinConverter(name: string): PathConverter | undefined {
  return BUILTIN.get(name);
}

/**
 * Checks a custom converter's shape (and that its regex compiles) and that
 * its name does not shadow a built-in one.
 * @internal
 */
export function checkConverter(name: string, converter: PathConverter): void {
  if (BUILTIN.has(name)) throw new ConfigurationError(`Converter '${name}' is built in; give yours another name.`);
  if (
    typeof converter?.regex !== 'string' ||
    typeof converter.toValue !== 'function' ||
    typeof converter.toUrl !== 'function'
  ) {
    throw new ConfigurationError(`Converter '${name}' needs { regex: string, toValue(s), toUrl(v) }.`);
  }
  new RegExp(converter.regex);
}

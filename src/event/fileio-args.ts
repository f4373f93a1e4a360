/**
 * The arguments of `FileIO` operations (checked at once, as the extension
 * does) and the errors their failures become.
 *
 * @module
 */
import type { PathLike } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getSystemErrorMap } from 'node:util';
import { createEventError, type EventError } from './errors.js';

/**
 * Throws an `ERR_EVENT_INVALID_ARGUMENT` error.
 * @internal
 * @example
 * ```ts
 * function readLength(len: number): number {
 *   if (len < 0) invalid('FileIO.read(): the length must not be negative');
 *   return len;
 * }
 * ```
 */
export function invalid(message: string, cause?: unknown): never {
  throw createEventError('ERR_EVENT_INVALID_ARGUMENT', message, cause === undefined ? {} : { cause });
}

/**
 * Throws `ERR_EVENT_INVALID_ARGUMENT` unless `cb` is a function.
 * @internal
 * @example
 * ```ts
 * checkCallback(() => {}, 'open'); // passes
 * checkCallback('done', 'open'); // throws: FileIO.open(): the callback must be a function
 * ```
 */
export function checkCallback(cb: unknown, op: string): void {
  if (typeof cb !== 'function') invalid(`FileIO.${op}(): the callback must be a function`);
}

/**
 * Throws `ERR_EVENT_INVALID_ARGUMENT` unless `fd` is a non-negative integer.
 * @internal
 * @example
 * ```ts
 * const fd: unknown = Number(process.argv[2]);
 * checkFd(fd, 'read'); // throws unless a non-negative integer
 * fd.toFixed(); // a number from here on
 * ```
 */
export function checkFd(fd: unknown, op: string): asserts fd is number {
  if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0)
    invalid(`FileIO.${op}(): invalid file descriptor ${String(fd)}`);
}

/**
 * Throws `ERR_EVENT_INVALID_ARGUMENT` unless `path` is a string, Buffer or URL.
 * @internal
 * @example
 * ```ts
 * checkPath('/etc/hosts', 'stat'); // passes
 * checkPath(42, 'stat'); // throws: FileIO.stat(): the path must be a string, Buffer or file URL
 * ```
 */
export function checkPath(path: unknown, op: string): asserts path is PathLike {
  if (typeof path !== 'string' && !Buffer.isBuffer(path) && !(path instanceof URL)) {
    invalid(`FileIO.${op}(): the path must be a string, Buffer or file URL`);
  }
}

/**
 * Throws `ERR_EVENT_INVALID_ARGUMENT` unless `offset` is null, -1 or a non-negative safe integer.
 * @internal
 * @example
 * ```ts
 * checkOffset(-1, 'write'); // passes: the current position
 * checkOffset(1.5, 'write'); // throws
 * ```
 */
export function checkOffset(offset: unknown, op: string): asserts offset is number | null {
  if (offset !== null && (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < -1)) {
    invalid(`FileIO.${op}(): the offset must be null, -1 or a non-negative integer`);
  }
}

/**
 * A path as messages name it.
 * @internal
 * @example
 * ```ts
 * pathText(new URL('file:///tmp/x')); // '/tmp/x'
 * ```
 */
export function pathText(path: PathLike): string {
  if (typeof path === 'string') return path;
  if (Buffer.isBuffer(path)) return path.toString();
  try {
    return fileURLToPath(path);
  } catch {
    return path.href;
  }
}

/**
 * The `ERR_EVENT_FILEIO` error of a failed operation ("open /x: ENOENT: no such file or directory").
 * @internal
 * @example
 * ```ts
 * import { open } from 'node:fs';
 * open('/x', 'r', (err) => {
 *   if (err) console.error(fileError('open', '/x', err).message); // open /x: ENOENT: no such file or directory
 * });
 * ```
 */
export function fileError(op: string, target: string, err: NodeJS.ErrnoException): EventError {
  const code = typeof err.code === 'string' ? err.code : undefined;
  const described =
    typeof err.errno === 'number' ? getSystemErrorMap().get(err.errno > 0 ? -err.errno : err.errno) : undefined;
  const detail = code !== undefined && described !== undefined ? `${code}: ${described[1]}` : err.message;
  return createEventError('ERR_EVENT_FILEIO', `${op} ${target}: ${detail}`, { cause: err });
}

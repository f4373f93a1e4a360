/**
 * The error registry of the event layer.
 *
 * Every error the event layer throws, or records when a method returns
 * `false`, is an {@link EventError} with a stable `code` from
 * {@link EVENT_ERROR_CODES}. Codes never change meaning; messages may be
 * refined. Each code is documented in `docs/errors.md` (a test checks it).
 *
 * Methods whose result the specification fixes as a boolean (for example
 * `Event.add()` or `EventBuffer.add()`) keep returning `false` on failure and
 * record the reason: {@link getLastError} returns it, and it is published on
 * the `eventide:warning` diagnostics channel, the counterpart of the PHP
 * extension's `E_WARNING`.
 *
 * @module
 */
import { channel } from 'node:diagnostics_channel';

/**
 * What kind of failure a code describes; each kind has its own class.
 * @example
 * ```ts
 * const kind: EventErrorKind = EVENT_ERROR_CODES.ERR_EVENT_INVALID_MASK.kind; // 'argument'
 * ```
 */
export type EventErrorKind = 'argument' | 'state' | 'config' | 'system' | 'tls' | 'dns' | 'protocol';

/**
 * Every code of the event layer with its kind and a one-line description.
 * The description is the documentation's summary; the message of a thrown
 * error says what exactly went wrong.
 * @example
 * ```ts
 * for (const [code, { description }] of Object.entries(EVENT_ERROR_CODES)) console.log(code, description);
 * ```
 */
export const EVENT_ERROR_CODES = {
  ERR_EVENT_INVALID_ARGUMENT: { kind: 'argument', description: 'An argument has the wrong type or is out of range.' },
  ERR_EVENT_INVALID_DESCRIPTOR: {
    kind: 'argument',
    description: 'The descriptor is not a socket, stream, event stream or valid non-negative file descriptor.',
  },
  ERR_EVENT_INVALID_MASK: {
    kind: 'argument',
    description: 'An event mask holds bits outside READ, WRITE, TIMEOUT, SIGNAL, PERSIST and ET.',
  },
  ERR_EVENT_INVALID_SIGNAL: {
    kind: 'argument',
    description: 'A signal number is not a signal this platform can deliver to a process.',
  },
  ERR_EVENT_INVALID_PRIORITY: {
    kind: 'argument',
    description: 'A priority is negative or not below the number of priorities of the base.',
  },
  ERR_EVENT_INVALID_EOL: {
    kind: 'argument',
    description: 'An end-of-line style is not one of the EventBuffer.EOL_* constants.',
  },
  ERR_EVENT_INVALID_POSITION: { kind: 'argument', description: 'A buffer position is outside the buffer.' },
  ERR_EVENT_PENDING: { kind: 'state', description: 'A pending event cannot be modified; delete it first.' },
  ERR_EVENT_TIMER_PENDING: { kind: 'state', description: 'A pending timer cannot be modified; delete it first.' },
  ERR_EVENT_FREED: { kind: 'state', description: 'The object was freed with free() and can no longer be used.' },
  ERR_EVENT_BASE_FREED: {
    kind: 'state',
    description: 'The event base was freed with free() and can no longer be used.',
  },
  ERR_EVENT_LOOP_REENTRANT: {
    kind: 'state',
    description: 'loop() or dispatch() was called while the same base is already dispatching.',
  },
  ERR_EVENT_BUFFER_FROZEN: { kind: 'state', description: 'The end of the buffer this operation changes is frozen.' },
  ERR_EVENT_BASE_CONFIG: {
    kind: 'config',
    description: 'No event backend satisfies the EventConfig (an avoided method or a required feature).',
  },
  ERR_EVENT_SOCKET_OPTION: {
    kind: 'system',
    description: 'A socket option could not be set or is not supported for this socket.',
  },
  ERR_EVENT_IO: {
    kind: 'system',
    description: 'Reading from or writing to a descriptor failed; `cause` holds the system error.',
  },
  ERR_EVENT_FILEIO: {
    kind: 'system',
    description: 'A file operation of the file-I/O helper failed; `cause` holds the system error.',
  },
  ERR_EVENT_ADDRESS: { kind: 'argument', description: 'An address is not well-formed or its port is out of range.' },
  ERR_EVENT_LISTENER: {
    kind: 'system',
    description: 'A listener could not be created: the address is in use, not permitted or not writable.',
  },
  ERR_EVENT_SSL_CONTEXT: {
    kind: 'tls',
    description:
      'A TLS context could not be built: a certificate, key or CA file is missing or unreadable, or the passphrase is wrong.',
  },
  ERR_EVENT_SSL_STATE: {
    kind: 'argument',
    description: 'A TLS state is not SSL_OPEN, SSL_CONNECTING or SSL_ACCEPTING.',
  },
  ERR_EVENT_DNS: { kind: 'dns', description: 'A name could not be resolved or the resolver configuration is invalid.' },
  ERR_EVENT_TIMEOUT: {
    kind: 'protocol',
    description:
      'An exchange of a protocol layer ran out of time: an HTTP client request got no byte for `setTimeout()` seconds, or no complete response within `setRequestTimeout()` seconds.',
  },
  ERR_EVENT_PROTOCOL: {
    kind: 'protocol',
    description:
      "A protocol layer refused what the peer sent: an HTTP client response that is malformed, over a limit or cut short; `cause` is the HTTP codec's `HttpParseError`.",
  },
} as const satisfies Record<string, { kind: EventErrorKind; description: string }>;

/**
 * A stable error code of the event layer.
 * @example
 * ```ts
 * const code: EventErrorCode = 'ERR_EVENT_INVALID_SIGNAL';
 * ```
 */
export type EventErrorCode = keyof typeof EVENT_ERROR_CODES;

/**
 * Options accepted by every error constructor of this module.
 * @example
 * ```ts
 * throw createEventError('ERR_EVENT_IO', 'read failed', { cause: err });
 * ```
 */
export interface EventErrorOptions {
  /** The underlying error (a Node system error, a parse failure...). */
  cause?: unknown;
}

/**
 * Base class of every error of the event layer.
 *
 * @example
 * ```ts
 * import { EventBase, EventConfig, EventError } from 'eventide/event';
 * const cfg = new EventConfig();
 * cfg.avoidMethod(EventBase.prototype.getMethod.call(new EventBase()));
 * try { new EventBase(cfg); } catch (e) {
 *   if (e instanceof EventError) console.log(e.code); // ERR_EVENT_BASE_CONFIG
 * }
 * ```
 */
export class EventError extends Error {
  /** The stable code; see {@link EVENT_ERROR_CODES}. */
  readonly code: EventErrorCode;

  constructor(code: EventErrorCode, message: string, options: EventErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * A bad argument: wrong type, out of range, unknown flag bits.
 * @example
 * ```ts
 * try { new Event(base, -1, Event.READ, () => {}); }
 * catch (e) { if (e instanceof EventArgumentError) console.log(e.message); } // Invalid file descriptor
 * ```
 */
export class EventArgumentError extends EventError {}

/**
 * An operation not allowed in the object's current state (pending, freed, running).
 * @example
 * ```ts
 * ev.add(); ev.set(base, sock, Event.READ); // false
 * console.log(getLastError() instanceof EventStateError); // true
 * ```
 */
export class EventStateError extends EventError {}

/**
 * A configuration that cannot be satisfied.
 * @example
 * ```ts
 * try { new EventBase(cfg); } catch (e) { if (e instanceof EventConfigError) process.exit(1); }
 * ```
 */
export class EventConfigError extends EventError {}

/**
 * A failure reported by the operating system; `errno` and `syscall` come from the cause.
 * @example
 * ```ts
 * try { new EventListener(base, onAccept, null, 0, -1, '127.0.0.1:80'); }
 * catch (e) { if (e instanceof EventSystemError) console.log(e.errno, e.message); }
 * ```
 */
export class EventSystemError extends EventError {
  /** The positive errno number when the system reported one, else 0. */
  readonly errno: number;
  /** The failing system call when known (for example `listen`). */
  readonly syscall: string | undefined;

  constructor(code: EventErrorCode, message: string, options: EventErrorOptions = {}) {
    super(code, message, options);
    const cause = options.cause as { errno?: unknown; syscall?: unknown } | undefined;
    this.errno = typeof cause?.errno === 'number' ? Math.abs(cause.errno) : 0;
    this.syscall = typeof cause?.syscall === 'string' ? cause.syscall : undefined;
  }
}

/**
 * A TLS failure: a context that cannot be built, a handshake or verification error.
 * @example
 * ```ts
 * try { new EventSslContext(EventSslContext.TLS_SERVER_METHOD, { [EventSslContext.OPT_LOCAL_CERT]: 'missing.pem' }); }
 * catch (e) { if (e instanceof EventTlsError) console.error(e.message); } // names the file
 * ```
 */
export class EventTlsError extends EventError {}

/**
 * A resolver failure.
 * @example
 * ```ts
 * if (err instanceof EventDnsError) console.error('DNS:', err.message);
 * ```
 */
export class EventDnsError extends EventError {}

const KIND_CLASS: Record<
  EventErrorKind,
  new (code: EventErrorCode, message: string, options?: EventErrorOptions) => EventError
> = {
  argument: EventArgumentError,
  state: EventStateError,
  config: EventConfigError,
  system: EventSystemError,
  tls: EventTlsError,
  dns: EventDnsError,
  protocol: EventError,
};

/**
 * Builds the error of the right class for a code.
 *
 * @example
 * ```ts
 * throw createEventError('ERR_EVENT_INVALID_SIGNAL', 'Invalid signal passed');
 * ```
 */
export function createEventError(code: EventErrorCode, message: string, options: EventErrorOptions = {}): EventError {
  const Ctor = KIND_CLASS[EVENT_ERROR_CODES[code].kind];
  return new Ctor(code, message, options);
}

/**
 * The diagnostics channel on which every recorded (non-thrown) error is published.
 * @example
 * ```ts
 * import { subscribe } from 'node:diagnostics_channel';
 * subscribe('eventide:warning', (err) => console.warn((err as EventError).message));
 * ```
 */
export const warningChannel = channel('eventide:warning');

let lastError: EventError | null = null;

/**
 * The error recorded by the last method that returned `false` (or `null`)
 * because of bad input or state, or `null` when there is none.
 *
 * @example
 * ```ts
 * if (!ev.setPriority(9)) console.error(getLastError()?.message); // Unable to set event priority: 9
 * ```
 */
export function getLastError(): EventError | null {
  return lastError;
}

/**
 * Forgets the last recorded error.
 * @example
 * ```ts
 * clearLastError(); console.log(getLastError()); // null
 * ```
 */
export function clearLastError(): void {
  lastError = null;
}

/**
 * Records a non-thrown failure and returns `false`, so that methods can
 * `return warn('ERR_EVENT_PENDING', "Can't modify pending event")`.
 * @internal
 */
export function warn(code: EventErrorCode, message: string, cause?: unknown): false {
  lastError = createEventError(code, message, cause === undefined ? {} : { cause });
  if (warningChannel.hasSubscribers) warningChannel.publish(lastError);
  return false;
}

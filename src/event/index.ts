/**
 * The event layer: EventBase, Event, EventBuffer, EventUtil, the file-I/O
 * helper and the procedural functions.
 *
 * @example
 * ```ts
 * import { EventBase, Event } from 'eventide/event';
 * const base = new EventBase();
 * Event.timer(base, () => console.log('tick')).add(1);
 * await base.dispatch();
 * ```
 * @module
 */
export { EventBase } from './base.js';
export { EventConfig } from './config.js';
export { Event, type EventCallback, type TimerCallback, type SignalCallback } from './event.js';
export { kPollable, type Pollable, type PollSource, type Descriptor } from './descriptor.js';
export {
  EventError,
  EventArgumentError,
  EventStateError,
  EventConfigError,
  EventSystemError,
  EventTlsError,
  EventDnsError,
  EVENT_ERROR_CODES,
  type EventErrorCode,
  getLastError,
  clearLastError,
  warningChannel,
} from './errors.js';
export { EventBuffer } from './buffer.js';
export { EventUtil, type EventSocketAddress, type EventSocketOptionValue } from './util.js';
export { FileIO, FileIOEventStream, type FileIOCallback } from './fileio.js';

/**
 * eventide: event-driven network I/O for Node.js. This entry point
 * re-exports the event layer (`eventide/event`) and the HTTP layer
 * (`eventide/http`).
 *
 * @example
 * ```ts
 * import { EventBase, Event, EventHttp } from 'eventide';
 * const base = new EventBase();
 * Event.timer(base, () => console.log('tick')).add(0.1);
 * await base.dispatch();
 * ```
 * @module
 */
export * from './event/index.js';
export * from './http/index.js';

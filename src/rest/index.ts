/**
 * The web-API layer (pagination and versioning) lives here. It is being
 * built on top of the HTTP layer and exports nothing yet; this entry point
 * exists so that `eventide/rest` resolves from the start.
 *
 * @example
 * ```ts
 * import * as rest from 'eventide/rest';
 * ```
 * @module
 */
export {};

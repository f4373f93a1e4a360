/**
 * Data sources for pagination: the {@link Queryset} contract, the in-memory
 * `ArrayQueryset`, the SQL `SqlQueryset` (Kysely on SQLite or PostgreSQL)
 * and the demo data set.
 *
 * @example
 * ```ts
 * import { openDemoDatabase } from 'eventide/rest';
 * const demo = await openDemoDatabase(':memory:', { rows: 1000 });
 * console.log(await demo.items().orderBy('-created').slice(0, 10));
 * ```
 * @module
 */
export * from './source.js';
export * from './array.js';
export * from './sql.js';
export * from './demo.js';

/**
 * The demo data set: the table
 * `item(id INTEGER PRIMARY KEY, name TEXT, created DATETIME UNIQUE, price INTEGER, category TEXT)`
 * with indexes on `created` (unique) and `(price, id)`, in SQLite or
 * PostgreSQL. {@link openDemoDatabase} creates and seeds it when it is
 * missing and opens an existing one as it is.
 *
 * Row i (ids from 1): name `item-` + i zero-padded to 7 digits; created
 * 2020-01-01 00:00:00 UTC + i seconds + ((i*37) % 1000) milliseconds; price
 * (i*7919) % 500; category alpha, beta, gamma, delta, epsilon by i % 5.
 *
 * @module
 */
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { ImproperlyConfigured } from '../rest/errors.js';
import type { FieldInfo } from '../rest/data/source.js';
import { SqlQueryset, type SqlDialectKind } from '../sql/queryset.js';
import { createSqliteKysely, formatSqliteDatetime } from '../sql/sqlite.js';
import { loadSqliteDriver } from '../sql/drivers.js';
import { openPostgresReplicas, type PostgresReplicas, type SqlLogger } from '../sql/replicas.js';

/**
 * A row of the demo table.
 * @example
 * ```ts
 * const row: Item = { id: 1, name: 'item-0000001', created: new Date('2020-01-01T00:00:01.037Z'), price: 419, category: 'beta' };
 * ```
 */
export interface Item {
  id: number;
  name: string;
  created: Date;
  price: number;
  category: string;
}

/**
 * The demo table's columns as Kysely sees them (SQLite keeps `created` as text).
 * @example
 * ```ts
 * import type { Kysely } from 'kysely';
 * const demo = await openDemoDatabase('demo.sqlite3');
 * const db: Kysely<DemoDatabase> = demo.db;
 * ```
 */
export interface DemoDatabase {
  item: { id: number; name: string; created: Date | string; price: number; category: string };
}

/**
 * The demo table's fields for a {@link SqlQueryset} or an `ArrayQueryset`.
 * `id` and `price` are 32-bit (`bits: 32`): the PostgreSQL table declares
 * them `integer`, so a cursor position beyond ±2^31 is invalid on every
 * source instead of an `out of range for type integer` error there.
 * @example
 * ```ts
 * const demo = await openDemoDatabase('demo.sqlite3');
 * // Typed by demo.db (a Kysely<DemoDatabase>): rows are Items, field names are checked.
 * const qs = new SqlQueryset({ db: demo.db, table: 'item', fields: itemFields, dialect: 'sqlite' });
 * ```
 */
export const itemFields = Object.freeze({
  id: Object.freeze({ type: 'integer', unique: true, bits: 32 }),
  name: Object.freeze({ type: 'text' }),
  created: Object.freeze({ type: 'datetime', unique: true }),
  price: Object.freeze({ type: 'integer', bits: 32 }),
  category: Object.freeze({ type: 'text' }),
}) satisfies Readonly<Record<keyof Item, FieldInfo>>;

const CATEGORIES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const;
const EPOCH = Date.UTC(2020, 0, 1);
const BATCH = 100_000;
const COLUMNS = ['id', 'name', 'created', 'price', 'category'] as const;

/**
 * Row `i` of the demo data set, computed (what a seeded database holds).
 * @example
 * ```ts
 * demoItem(1); // { id: 1, name: 'item-0000001', created: 2020-01-01T00:00:01.037Z, price: 419, category: 'beta' }
 * ```
 */
export function demoItem(i: number): Item {
  return {
    id: i,
    name: `item-${String(i).padStart(7, '0')}`,
    created: new Date(EPOCH + i * 1000 + ((i * 37) % 1000)),
    price: (i * 7919) % 500,
    category: CATEGORIES[i % 5]!,
  };
}

/**
 * How {@link openDemoDatabase} seeds.
 * @example
 * ```ts
 * const options: DemoOptions = { rows: 1000, onProgress: (done, total) => console.log(done, total) };
 * ```
 */
export interface DemoOptions {
  /** Rows to seed when the table is missing (default 1,000,000). */
  readonly rows?: number;
  /** SQLite: hold the lock between statements (`locking_mode = EXCLUSIVE`): faster reads, but no other connection may open the file meanwhile. Default false. */
  readonly exclusiveReads?: boolean;
  /** Called while seeding, after each batch (and once at the end). */
  onProgress?(done: number, total: number): void;
  /** PostgreSQL: read replicas (`postgres://` URLs); reads are spread over the healthy ones (see `openPostgresReplicas`). */
  readonly replicas?: readonly string[];
  /** PostgreSQL: where replica outages are logged. */
  readonly logger?: SqlLogger;
}

/**
 * An open demo database.
 * @example
 * ```ts
 * const demo: DemoDatabaseHandle = await openDemoDatabase(':memory:', { rows: 100 });
 * ```
 */
export interface DemoDatabaseHandle {
  /** Which database holds the table. */
  readonly kind: SqlDialectKind;
  /** The Kysely instance. */
  readonly db: Kysely<DemoDatabase>;
  /** A queryset over every row (unordered: primary-key order); its field names are the columns of `Item`. */
  items(): SqlQueryset<Item, keyof Item>;
  /** Whether the table was created and seeded by this call. */
  readonly created: boolean;
  /** The number of rows in the table when it was opened. */
  readonly rowCount: number;
  /** Closes the database (the SQLite file or the PostgreSQL pool). */
  close(): Promise<void>;
}

/**
 * Opens the demo database at `url` — `'sqlite:path'`, a plain file path,
 * `':memory:'`, or `'postgres://user@host:port/db'` (the table lives in the
 * connection's `search_path`, settable with `?options=-c%20search_path%3Dname`).
 * When the table `item` is missing it is created and seeded with
 * `options.rows` rows in one transaction (a new SQLite file is then put in
 * WAL mode: readers and a writer work at once, and reads are cheaper); an
 * existing table is opened as it is, journal mode included, after checking
 * its columns (a different shape is an `ImproperlyConfigured` error and
 * nothing is written).
 * @example
 * ```ts
 * const demo = await openDemoDatabase('demo.sqlite3', { rows: 1_000_000, onProgress: (d, t) => console.log(`${d}/${t}`) });
 * const page = await demo.items().orderBy('-created').slice(0, 10);
 * await demo.close();
 * ```
 */
export async function openDemoDatabase(url: string, options: DemoOptions = {}): Promise<DemoDatabaseHandle> {
  const rows = options.rows ?? 1_000_000;
  if (!Number.isSafeInteger(rows) || rows < 0)
    throw new ImproperlyConfigured(`Demo row count must be a non-negative integer, not ${String(rows)}`);
  if (/^postgres(?:ql)?:\/\//i.test(url)) return openPostgres(url, rows, options);
  const path = url.startsWith('sqlite://')
    ? url.slice('sqlite://'.length)
    : url.startsWith('sqlite:')
      ? url.slice('sqlite:'.length)
      : url;
  if (path === '') throw new ImproperlyConfigured(`No SQLite file in ${JSON.stringify(url)}`);
  return openSqlite(path, rows, options);
}

function handle(
  kind: SqlDialectKind,
  db: Kysely<DemoDatabase>,
  created: boolean,
  rowCount: number,
  sqliteDatabase?: BetterSqlite3.Database,
  replicas?: PostgresReplicas<DemoDatabase>,
): DemoDatabaseHandle {
  let items: SqlQueryset<Item, keyof Item> | null = null;
  return {
    kind,
    db,
    created,
    rowCount,
    items: () =>
      (items ??= new SqlQueryset({
        // Reads go through the replica router when there is one (it falls back to the primary).
        db: replicas?.reads ?? db,
        table: 'item',
        fields: itemFields,
        dialect: kind,
        ...(sqliteDatabase ? { sqliteDatabase } : {}),
      })),
    close: () => (replicas ? replicas.close() : db.destroy()),
  };
}

function shapeError(where: string, missing: readonly string[]): ImproperlyConfigured {
  return new ImproperlyConfigured(
    `${where}: table item lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; the demo needs item(id INTEGER PRIMARY KEY, name TEXT, created DATETIME UNIQUE, price INTEGER, category TEXT)`,
  );
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// ---------------------------------------------------------------------------
// SQLite

const SQLITE_SEED = `WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?)
INSERT INTO item (id, name, created, price, category)
SELECT i,
  'item-' || printf('%07d', i),
  strftime('%Y-%m-%d %H:%M:%S', ${EPOCH / 1000} + i, 'unixepoch') || CASE WHEN (i * 37) % 1000 = 0 THEN '' ELSE printf('.%03d000', (i * 37) % 1000) END,
  (i * 7919) % 500,
  CASE i % 5 WHEN 0 THEN 'alpha' WHEN 1 THEN 'beta' WHEN 2 THEN 'gamma' WHEN 3 THEN 'delta' ELSE 'epsilon' END
FROM s`;

async function openSqlite(path: string, rows: number, options: DemoOptions): Promise<DemoDatabaseHandle> {
  let database: BetterSqlite3.Database;
  try {
    database = new (loadSqliteDriver())(path) as BetterSqlite3.Database;
  } catch (err) {
    throw new ImproperlyConfigured(`Cannot open SQLite database ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    let exists: boolean;
    try {
      exists =
        database.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'item'`).get() !== undefined;
    } catch (err) {
      throw new ImproperlyConfigured(`${path} is not an SQLite database (${(err as Error).message})`, { cause: err });
    }
    let created = false;
    let rowCount: number;
    if (exists) {
      const have = new Set(
        (database.prepare(`PRAGMA table_info(item)`).all() as { name: string }[]).map((c) => c.name),
      );
      const missing = COLUMNS.filter((c) => !have.has(c));
      if (missing.length > 0) throw shapeError(path, missing);
      const sample = database.prepare(`SELECT created FROM item WHERE created IS NOT NULL LIMIT 1`).get() as
        { created: unknown } | undefined;
      if (
        sample !== undefined &&
        (typeof sample.created !== 'string' || !/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?$/.test(sample.created))
      ) {
        throw new ImproperlyConfigured(
          `${path}: item.created holds ${JSON.stringify(sample.created)}, not datetime text like ${JSON.stringify(formatSqliteDatetime(new Date(EPOCH)))}`,
        );
      }
      rowCount = (database.prepare(`SELECT count(*) AS n FROM item`).get() as { n: number }).n;
    } else {
      await seedSqlite(database, rows, options);
      // A file this call creates is served: write-ahead logging lets readers and a writer work at
      // once, and a read costs fewer system calls (no journal checks, no file locks per statement).
      database.pragma('journal_mode = WAL');
      created = true;
      rowCount = rows;
    }
    // Opt-in: keep the lock between statements instead of taking and releasing it around each one
    // (saves SQLite's fcntl/stat calls, a few µs per query) when nothing else opens the file.
    if (options.exclusiveReads === true) database.pragma('locking_mode = EXCLUSIVE');
    return handle('sqlite', createSqliteKysely<DemoDatabase>(database), created, rowCount, database);
  } catch (err) {
    database.close();
    throw err;
  }
}

async function seedSqlite(database: BetterSqlite3.Database, rows: number, options: DemoOptions): Promise<void> {
  database.exec('BEGIN IMMEDIATE');
  try {
    database.exec(
      `CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, created DATETIME UNIQUE, price INTEGER, category TEXT)`,
    );
    const insert = database.prepare(SQLITE_SEED);
    for (let first = 1; first <= rows; first += BATCH) {
      const last = Math.min(rows, first + BATCH - 1);
      insert.run(first, last);
      options.onProgress?.(last, rows);
      await yieldToLoop();
    }
    database.exec(`CREATE INDEX item_price_id ON item (price, id)`);
    database.exec('COMMIT');
  } catch (err) {
    if (database.inTransaction) database.exec('ROLLBACK');
    throw err;
  }
  if (rows === 0) options.onProgress?.(0, 0);
}

// ---------------------------------------------------------------------------
// PostgreSQL

async function openPostgres(url: string, rows: number, options: DemoOptions): Promise<DemoDatabaseHandle> {
  // The primary (schema, seeding) plus the replicas reads are spread over; an unreachable primary fails here.
  const dbs = await openPostgresReplicas<DemoDatabase>({
    primary: url,
    replicas: options.replicas ?? [],
    poolSize: 10,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const db = dbs.primary;
  try {
    const cols = await sql<{
      name: string;
    }>`select attname as name from pg_attribute where attrelid = to_regclass('item') and attnum > 0 and not attisdropped`.execute(
      db,
    );
    let created = false;
    let rowCount: number;
    if (cols.rows.length > 0) {
      const have = new Set(cols.rows.map((c) => c.name));
      const missing = COLUMNS.filter((c) => !have.has(c));
      if (missing.length > 0) throw shapeError(redact(url), missing);
      rowCount = Number((await sql<{ n: string }>`select count(*) as n from item`.execute(db)).rows[0]!.n);
    } else {
      await db.transaction().execute(async (trx) => {
        await sql`create table item (id integer primary key, name text collate "C", created timestamptz unique, price integer, category text collate "C")`.execute(
          trx,
        );
        for (let first = 1; first <= rows; first += BATCH) {
          const last = Math.min(rows, first + BATCH - 1);
          await sql`insert into item (id, name, created, price, category)
            select i,
              'item-' || case when i < 10000000 then lpad(i::text, 7, '0') else i::text end,
              timestamptz '2020-01-01 00:00:00+00' + (i::bigint * 1000000 + ((i::bigint * 37) % 1000) * 1000) * interval '1 microsecond',
              (i::bigint * 7919) % 500,
              (array['alpha', 'beta', 'gamma', 'delta', 'epsilon'])[i % 5 + 1]
            from generate_series(${first}::int, ${last}::int) as i`.execute(trx);
          options.onProgress?.(last, rows);
        }
        await sql`create index item_price_id on item (price, id)`.execute(trx);
      });
      await sql`analyze item`.execute(db);
      if (rows === 0) options.onProgress?.(0, 0);
      created = true;
      rowCount = rows;
    }
    return handle('postgres', db, created, rowCount, undefined, dbs);
  } catch (err) {
    await dbs.close();
    if (err instanceof ImproperlyConfigured) throw err;
    throw new ImproperlyConfigured(`Cannot open the demo table in ${redact(url)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** The URL without its password. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

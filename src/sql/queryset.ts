/**
 * {@link SqlQueryset}: the {@link Queryset} contract over a SQL table
 * through Kysely, on SQLite (better-sqlite3, the embedded default) or
 * PostgreSQL (pg).
 *
 * - Keyset filters compile to plain comparisons (`WHERE created < ?`) and
 *   orderings to `ORDER BY`, so a cursor page is one index range scan whose
 *   cost does not grow with the position in the table. An ordering without a
 *   unique field gets the primary key appended in the direction of its last
 *   term (`-price` orders by `price DESC, id DESC`): give such orderings an
 *   index that ends in the key, like the demo's `(price, id)`.
 * - NULLs follow the rules of `source.ts` in both databases: first in an
 *   ascending ordering, last in a descending one, smaller than every value in
 *   filters. SQLite sorts that way by itself; on PostgreSQL nullable fields
 *   are ordered with explicit `NULLS FIRST` / `NULLS LAST` (an index serves
 *   them when it is declared `NULLS FIRST`), and `lt` / `lte` on a nullable
 *   field add `OR field IS NULL`. Fields not declared `nullable` compile to
 *   the bare comparison, which every index serves.
 * - Datetimes are `Date`s in rows and filters (millisecond precision). Each
 *   datetime column has a storage ({@link DatetimeStorage}: text
 *   `YYYY-MM-DD HH:MM:SS[.ffffff]`, `toISOString()` text, epoch
 *   milliseconds, PostgreSQL `timestamptz` or `timestamp`), declared in its
 *   field (`storage`) or detected from its first values before the first
 *   query; filter and cursor values are bound in it, and a value read that is
 *   not in it is a {@link SqlDatetimeError} (docs/sql.md).
 * - Text orders by code point (SQLite's `BINARY`, like `ArrayQueryset`);
 *   on PostgreSQL declare text columns `COLLATE "C"` for the same order.
 * - Without an ordering, rows come in primary-key order. A unique field
 *   that is also nullable does not count as unique for the tie-breaker
 *   (several rows may hold NULL), so the primary key is still appended.
 * - Every query shape (ordering, filters, slice kind) is compiled by Kysely
 *   once and its SQL kept; later queries of that shape only bind new values.
 *   On SQLite, {@link createSqliteKysely} also keeps the prepared statements.
 *   Kysely plugins that rename result columns are not supported: rows must
 *   come back keyed by field name.
 *
 * @module
 */
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type CompiledQuery,
  type ExpressionBuilder,
  type SelectQueryBuilder,
} from 'kysely';
import { ConfigurationError } from '../rest/errors.js';
import type { SqliteStatementHandle } from './drivers.js';
import { DatetimeParam, type DatetimeStorage, type SqlFieldInfo } from './datetime-formats.js';
import { convertRows } from './rows.js';
import {
  applyStorage,
  bindParams,
  declaredColumns,
  emptyStorageState,
  settleStorage,
  type StorageState,
} from './storage-state.js';
import {
  condition,
  OPS,
  seekCondition,
  seekParams,
  toParam,
  type Filter,
  type Seek,
  type SqlDialectKind,
  type Term,
} from './conditions.js';
import {
  fieldsProblem,
  formatPosition,
  parsePosition,
  POSTGRES_VALUES,
  SQLITE_VALUES,
  type ValueDomain,
} from '../rest/data/values.js';
import { type Comparison, type CountOptions, type FieldInfo, type Queryset } from '../rest/data/source.js';

import type {
  SqlExecutor,
  SqlFieldsOf,
  SqlOrderTerm,
  SqlQuerysetOptions,
  SqlRow,
  SqlTableName,
  TypedFields,
  TypedSqlQuerysetOptions,
  UntypedExecutor,
} from './queryset-types.js';

export type { SqlDialectKind } from './conditions.js';
export type { DatetimeStorage, SqlFieldInfo } from './datetime-formats.js';
export type {
  SqlColumnName,
  SqlExecutor,
  SqlOrderTerm,
  SqlQuerysetOptions,
  SqlRow,
  SqlTableName,
  TypedSqlQuerysetOptions,
} from './queryset-types.js';

/**
 * The constructor of {@link SqlQueryset}, in two forms.
 *
 * - Typed: `db` is a `Kysely<DB>` of a database interface naming its
 *   tables. `table`, the keys of `fields` and `primaryKey` are checked
 *   against it, and the queryset is a `SqlQueryset<Row, Col>` whose rows
 *   are the declared columns as Kysely selects them (`datetime` fields as
 *   `Date`s) and whose `orderBy()` terms, `filter()` fields and `ordering`
 *   are its column names.
 * - Untyped: `new SqlQueryset<Row>({ ... })` with the row type given (or
 *   `Record<string, unknown>`), or any `db` that is not a typed `Kysely`
 *   (a `SqlExecutor`, `Kysely<any>`): names are plain strings, checked at
 *   run time only (a `ConfigurationError`), as before.
 * @example
 * ```ts
 * // DB: { item: { id: number; name: string; created: string; price: number; category: string } }; db: Kysely<DB>
 * const items = new SqlQueryset({
 *   db, table: 'item', dialect: 'sqlite',
 *   fields: { id: { type: 'integer', unique: true }, name: { type: 'text' }, created: { type: 'datetime', unique: true } },
 * });
 * const rows = await items.orderBy('-created').slice(0, 10); // { id: number; name: string; created: Date }[]
 * ```
 */
export interface SqlQuerysetConstructor {
  /** The typed form: names checked against `DB`, rows typed from the table. */
  new <DB, T extends SqlTableName<DB>, const F extends SqlFieldsOf<DB, T>>(
    options: TypedSqlQuerysetOptions<DB, T, F> & { readonly fields: TypedFields<DB, T, F> },
  ): SqlQueryset<SqlRow<DB, T, F>, Extract<keyof F, string>>;
  /** The untyped form: any names (checked at run time), rows of type `Row`. */
  new <Row extends object = Record<string, unknown>, E extends SqlExecutor = SqlExecutor>(
    options: SqlQuerysetOptions & { readonly db: UntypedExecutor<E> },
  ): SqlQueryset<Row>;
  readonly prototype: SqlQueryset<object>;
}

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;
type AnyQuery = SelectQueryBuilder<Record<string, Record<string, unknown>>, string, Record<string, unknown>>;
type Eb = ExpressionBuilder<Record<string, Record<string, unknown>>, string>;

/** What every queryset derived from one constructor call shares. */
interface Core {
  /** The options the core was made from (derived querysets are built from them). */
  readonly options: SqlQuerysetOptions;
  /** The ordering without terms: the primary key ascending. */
  readonly defaultTerms: readonly Term[];
  /** Runs queries. */
  readonly db: SqlExecutor;
  /** SQLite fast path: a prepared statement per SQL text (raw: rows as arrays), or null. */
  readonly direct: ((sql: string, raw: boolean) => SqliteStatementHandle) | null;
  /** Builds and compiles queries (no connection). */
  readonly builder: AnyDb;
  readonly table: string;
  readonly fields: Readonly<Record<string, SqlFieldInfo>>;
  readonly names: readonly string[];
  readonly pk: string;
  readonly dialect: SqlDialectKind;
  /** Compiled SQL per query shape (cleared when a datetime column's storage changes). */
  readonly sqlByShape: Map<string, CompiledQuery>;
  /** What depends on the storage of the datetime columns. */
  readonly storage: StorageState;
  /** What the driver can bind and the database hold (cursor positions are validated against it). */
  readonly values: ValueDomain;
}

const SHAPE_CACHE_LIMIT = 512;

/* eslint-disable @typescript-eslint/no-empty-object-type -- SqlQueryset: the instance type of the SqlQueryset constructor, named as the class */
/**
 * A {@link Queryset} over a SQL table through Kysely (SQLite or PostgreSQL).
 * Immutable: `orderBy` and `filter` return new querysets sharing the
 * compiled-statement cache. Without an ordering rows come in primary-key
 * order (`ordering` stays empty).
 *
 * Typed by its database: with a `Kysely<DB>` as `db`, the table, the
 * fields, the `orderBy()` terms (`-field` too) and the `filter()` fields are
 * checked against `DB` at compile time, and the row type is inferred
 * ({@link SqlQuerysetConstructor}). `Row` is the row type, `Col` the field
 * names (`string` in the untyped form).
 * @example
 * ```ts
 * // DB: { item: { id: number; name: string; created: string; price: number; category: string } }; db: Kysely<DB>
 * const items = new SqlQueryset({
 *   db, table: 'item', dialect: 'sqlite',
 *   fields: { id: { type: 'integer', unique: true }, name: { type: 'text' }, created: { type: 'datetime', unique: true } },
 * });
 * const page = await items.orderBy('-created').filter('created', 'lt', new Date('2020-01-02T00:00:00Z')).slice(0, 11);
 * page[0]?.created.toISOString(); // rows are { id: number; name: string; created: Date }
 * // items.orderBy('-price'); // does not compile: price is not one of the fields
 * ```
 */
export interface SqlQueryset<
  Row extends object = Record<string, unknown>,
  Col extends string = string,
> extends SqlQuerysetImpl<Row, Col> {}

/** The implementation of {@link SqlQueryset} (exported through its typed constructor; its run-time name is `SqlQuerysetImpl`). */
class SqlQuerysetImpl<
  Row extends object = Record<string, unknown>,
  Col extends string = string,
> implements Queryset<Row> {
  readonly #core: Core;
  #ordering: readonly SqlOrderTerm<Col>[] = NONE;
  #terms: readonly Term[];
  #orderKey: string;
  #filters: readonly (Filter | Seek)[] = NONE;
  #params: readonly unknown[] = NONE;
  /** Whether `#params` holds datetimes given before the storage was known, bound when a query runs. */
  #datetimes = false;
  #filterKey = '';
  #cacheKey: string | null = null;
  /** The last {@link orderBy} of this queryset (querysets are immutable: the same terms give the same queryset). */
  #ordered: { readonly key: string; readonly q: SqlQueryset<Row, Col> } | null = null;

  constructor(options: SqlQuerysetOptions) {
    const core = coreFor(options);
    this.#core = core;
    this.#terms = core.defaultTerms;
    this.#orderKey = termsKey(core.defaultTerms);
  }

  /** A copy sharing the core (its compiled-statement cache) and the state. */
  #derive(): SqlQuerysetImpl<Row, Col> {
    const q = new SqlQuerysetImpl<Row, Col>(this.#core.options);
    q.#ordering = this.#ordering;
    q.#terms = this.#terms;
    q.#orderKey = this.#orderKey;
    q.#filters = this.#filters;
    q.#params = this.#params;
    q.#datetimes = this.#datetimes;
    q.#filterKey = this.#filterKey;
    return q;
  }

  /** The fields rows have. */
  get fields(): Readonly<Record<Col, SqlFieldInfo>> {
    return this.#core.fields;
  }

  /** The primary-key field. */
  get primaryKey(): Col {
    return this.#core.pk as Col;
  }

  /** The ordering terms as given to {@link orderBy}. */
  get ordering(): readonly SqlOrderTerm<Col>[] {
    return this.#ordering;
  }

  /** The dialect this queryset compiles for. */
  get dialect(): SqlDialectKind {
    return this.#core.dialect;
  }

  orderBy(...terms: SqlOrderTerm<Col>[]): SqlQueryset<Row, Col> {
    let key = '';
    for (const term of terms) key += typeof term === 'string' ? `${term.length}:${term}` : '\u0000';
    const last = this.#ordered;
    if (last !== null && last.key === key) return last.q;
    const core = this.#core;
    const parsed: Term[] = [];
    let unique = false;
    for (const term of terms) {
      if (typeof term !== 'string') throw new ConfigurationError(`orderBy() takes field names, not ${typeof term}`);
      const desc = term.startsWith('-');
      const field = desc ? term.slice(1) : term;
      const info = fieldInfo(core, field, 'orderBy');
      if (field === core.pk || (info.unique === true && info.nullable !== true)) unique = true;
      parsed.push({ field, desc });
    }
    if (parsed.length === 0) parsed.push(...core.defaultTerms);
    else if (!unique) parsed.push({ field: core.pk, desc: parsed[parsed.length - 1]!.desc });
    const q = this.#derive();
    q.#ordering = Object.freeze([...terms]);
    q.#terms = parsed;
    q.#orderKey = termsKey(parsed);
    this.#ordered = { key, q };
    return q;
  }

  filter(field: Col, op: Comparison, value: unknown): SqlQueryset<Row, Col> {
    const core = this.#core;
    const info = fieldInfo(core, field, 'filter');
    if (!Object.hasOwn(OPS, op))
      throw new ConfigurationError(`filter() takes lt, lte, gt, gte or eq, not ${String(op)}`);
    const param =
      value === null || value === undefined
        ? null
        : toParam(core.dialect, info, field, value, core.storage.pending ? null : core.storage.codecs);
    const q = this.#derive();
    q.#filters = [...this.#filters, { field, op, param }];
    if (param !== null) {
      q.#params = [...this.#params, param];
      if (param instanceof DatetimeParam) q.#datetimes = true;
    }
    // The key names what changes the SQL: the field, the comparison, whether the value is NULL and whether the field is nullable.
    q.#filterKey = `${this.#filterKey}${field}\u0000${op}${param === null ? '0' : info.nullable === true ? 'n' : 'v'}\u0000`;
    return q;
  }

  /** The ordering terms applied, the tie-breaker included (`[primaryKey]` when unordered). */
  get orderKey(): readonly SqlOrderTerm<Col>[] {
    return this.#terms.map((t) => (t.desc ? `-${t.field}` : t.field) as SqlOrderTerm<Col>);
  }

  seekAfter(values: readonly unknown[]): SqlQueryset<Row, Col> {
    const core = this.#core;
    const terms = this.#terms;
    const given: unknown = values; // Array.isArray would narrow to any[]
    if (!Array.isArray(given) || values.length !== terms.length)
      throw new ConfigurationError(
        `seekAfter() takes ${terms.length} values (one per term of ${this.orderKey.join(', ')}).`,
      );
    const codecs = core.storage.pending ? null : core.storage.codecs;
    const params = terms.map((t, i) => {
      const v = values[i];
      return v === null || v === undefined ? null : toParam(core.dialect, core.fields[t.field]!, t.field, v, codecs);
    });
    const seek: Seek = { kind: 'seek', terms, params };
    const q = this.#derive();
    q.#filters = [...this.#filters, seek];
    q.#params = [...this.#params, ...seekParams(core.fields, seek)];
    if (params.some((p) => p instanceof DatetimeParam)) q.#datetimes = true;
    // The shape: the terms, which values are NULL (they compile to IS NULL) and which fields are nullable.
    let shape = `seek${termsKey(terms)}`;
    for (let i = 0; i < terms.length; i++)
      shape += params[i] === null ? '0' : core.fields[terms[i]!.field]!.nullable === true ? 'n' : 'v';
    q.#filterKey = `${this.#filterKey}${shape}\u0000`;
    return q;
  }

  async count(options: CountOptions = {}): Promise<number> {
    const cap = options.cap;
    if (cap === undefined) {
      const rows = await this.#run(
        'count',
        () => this.#select(false).select((eb) => eb.fn.countAll().as('n')),
        this.#params,
      );
      return Number((rows[0] as { n: unknown }).n);
    }
    if (!Number.isInteger(cap) || cap < 0)
      throw new ConfigurationError(`count() cap must be a non-negative integer, not ${String(cap)}`);
    const inline = this.#core.dialect === 'sqlite'; // a bound LIMIT expires SQLite statements (see slice())
    const rows = await this.#run(
      inline ? `cap${cap}` : 'cap',
      () => {
        const inner = this.#select(false)
          .select(sql.lit(1).as('one'))
          .limit(inline ? sql.lit(cap) : cap)
          .as('capped');
        return this.#core.builder.selectFrom(inner).select((eb) => eb.fn.countAll().as('n'));
      },
      inline ? this.#params : [...this.#params, cap],
    );
    return Number((rows[0] as { n: unknown }).n);
  }

  async estimateCount(): Promise<number | null> {
    const core = this.#core;
    if (core.dialect !== 'postgres') return null;
    if (core.storage.pending) await settleStorage(core);
    if (this.#filters.length === 0) {
      const regclass = core.table
        .split('.')
        .map((p) => `"${p.replaceAll('"', '""')}"`)
        .join('.');
      const res = await core.db.executeQuery(
        sql<{ n: number }>`select reltuples::float8 as n from pg_class where oid = to_regclass(${regclass})`.compile(
          core.builder,
        ),
      );
      const n = res.rows[0]?.n;
      if (typeof n === 'number' && n >= 0) return Math.round(n);
    }
    // The planner's row estimate for the filtered query (or for a table never analyzed).
    const compiled = this.#compiled('explain', () => this.#select(false).select(sql.lit(1).as('one')), this.#params);
    const res = await core.db.executeQuery<{ 'QUERY PLAN': unknown }>({
      ...compiled,
      sql: `explain (format json) ${compiled.sql}`,
      parameters: this.#datetimes ? bindParams(core, this.#params) : this.#params,
    });
    const plan = (res.rows[0]?.['QUERY PLAN'] as { Plan?: { 'Plan Rows'?: unknown } }[] | undefined)?.[0]?.Plan?.[
      'Plan Rows'
    ];
    return typeof plan === 'number' ? plan : null;
  }

  /**
   * The dialect, the SQL and the values as bound (datetimes in their
   * column's storage; in ISO 8601 before a first query has told it).
   */
  get cacheKey(): string {
    const core = this.#core;
    if (this.#cacheKey !== null) return this.#cacheKey;
    const compiled = this.#compiled('all', () => this.#select(true), this.#params);
    const json = JSON.stringify(this.#params, (_key: string, value: unknown): unknown =>
      typeof value === 'bigint'
        ? `${value}n`
        : value instanceof DatetimeParam
          ? core.storage.pending
            ? new Date(value.ms).toISOString()
            : core.storage.codecs[value.field]!.bind(value.ms)
          : value,
    );
    const key = `${core.dialect}:${compiled.sql} ${json}`;
    // The select list and the datetimes' form may change once the datetime columns are checked: no memo before.
    if (!core.storage.pending) this.#cacheKey = key;
    return key;
  }

  /**
   * The storage of each datetime field: as declared, or as detected from
   * the column's first values; `null` for a field declaring none whose
   * column holds no value yet (it is detected before a later query). Checks
   * the columns now if no query has: call it at start-up to fail there, with
   * a {@link SqlDatetimeError}, rather than on the first request.
   * @example
   * ```ts
   * const items = new SqlQueryset<Item>({ db, table: 'item', fields: itemFields, dialect: 'sqlite' });
   * console.log(await items.datetimeStorage()); // { created: 'sql-text' }
   * ```
   */
  async datetimeStorage(): Promise<Readonly<Record<string, DatetimeStorage | null>>> {
    const core = this.#core;
    if (core.storage.pending) await settleStorage(core);
    const out: Record<string, DatetimeStorage | null> = {};
    for (const c of core.storage.columns) out[c.field] = c.storage;
    return Object.freeze(out);
  }

  async slice(start: number, end: number): Promise<Row[]> {
    if (Number.isNaN(start) || Number.isNaN(end))
      throw new ConfigurationError('slice() bounds must be numbers, not NaN');
    // Bounds are clamped as ArrayQueryset clamps them: negative means 0, fractions are truncated.
    const s = Math.max(0, Math.trunc(start));
    // Bounds beyond 2^53 (a client's ?offset= or ?limit=) are past any table: the driver would refuse
    // them (SQLite: datatype mismatch, PostgreSQL: out of range for bigint), so they never reach SQL.
    if (s > Number.MAX_SAFE_INTEGER) return [];
    let e = Math.max(s, Math.trunc(end));
    if (e > Number.MAX_SAFE_INTEGER) e = Infinity;
    if (e === s) return [];
    if (e === Infinity) {
      if (s === 0) return this.all();
      return this.#run(
        'from',
        () =>
          this.#select(true)
            .limit(this.#core.dialect === 'sqlite' ? sql<number>`-1` : sql<number>`all`)
            .offset(s),
        [...this.#params, s],
      ) as Promise<Row[]>;
    }
    const n = e - s;
    if (this.#core.dialect === 'sqlite') {
      // SQLite plans with a bound LIMIT's value, so rebinding it expires the statement and every
      // run compiles it again (about 7 µs). The row count is written into the SQL text instead
      // (a validated integer; page sizes are few, so the statements stay cached).
      return this.#run(`slice${n}`, () => this.#select(true).limit(sql.lit(n)).offset(s), [
        ...this.#params,
        s,
      ]) as Promise<Row[]>;
    }
    return this.#run('slice', () => this.#select(true).limit(n).offset(s), [...this.#params, n, s]) as Promise<Row[]>;
  }

  all(): Promise<Row[]> {
    return this.#run('all', () => this.#select(true), this.#params) as Promise<Row[]>;
  }

  position(row: Row, field: Col): string {
    const info = fieldInfo(this.#core, field, 'position');
    return formatPosition((row as Record<string, unknown>)[field], info.type);
  }

  /**
   * A position read back into a value of `field`, or {@link INVALID_POSITION}
   * for anything the column cannot hold or the driver cannot bind: its type,
   * its `bits` (64 by default), NaN on SQLite, U+0000 in text on PostgreSQL,
   * years outside 1..9999, more than 4096 characters. A value it returns
   * never makes the database raise an error.
   */
  parsePosition(field: Col, position: string): unknown {
    const core = this.#core;
    return parsePosition(position, fieldInfo(core, field, 'parsePosition'), core.values);
  }

  /** The base SELECT with filters and, if `ordered`, the ORDER BY (built on a cache miss only). */
  #select(ordered: boolean): AnyQuery {
    const core = this.#core;
    const state = core.storage;
    let q = core.builder.selectFrom(core.table) as unknown as AnyQuery;
    if (ordered) q = q.select(state.selection as string[]);
    for (const f of this.#filters)
      q = q.where((eb: Eb) => (f.kind === 'seek' ? seekCondition(core.fields, f) : condition(eb, core.fields, f)));
    if (ordered) {
      for (const t of this.#terms) {
        const nulls = core.dialect === 'postgres' && core.fields[t.field]!.nullable === true;
        q = q.orderBy(state.computed.has(t.field) ? `${core.table}.${t.field}` : t.field, (ob) =>
          t.desc ? (nulls ? ob.desc().nullsLast() : ob.desc()) : nulls ? ob.asc().nullsFirst() : ob.asc(),
        );
      }
    }
    return q;
  }

  /** The compiled query of this shape, from the cache or built now. */
  #compiled(kind: string, build: () => { compile(): CompiledQuery }, params: readonly unknown[]): CompiledQuery {
    const core = this.#core;
    const key = `${kind}\u0000${this.#orderKey}\u0001${this.#filterKey}`;
    let compiled = core.sqlByShape.get(key);
    if (compiled === undefined) {
      compiled = build().compile();
      if (compiled.parameters.length !== params.length)
        throw new Error(
          `SqlQueryset: ${compiled.parameters.length} parameters compiled, ${params.length} bound (${compiled.sql})`,
        );
      if (core.sqlByShape.size >= SHAPE_CACHE_LIMIT) core.sqlByShape.clear();
      core.sqlByShape.set(key, compiled);
    }
    return compiled;
  }

  async #run(
    kind: string,
    build: () => { compile(): CompiledQuery },
    params: readonly unknown[],
  ): Promise<Record<string, unknown>[]> {
    const core = this.#core;
    const state = core.storage;
    if (state.pending) await settleStorage(core);
    const compiled = this.#compiled(kind, build, params);
    const bound = this.#datetimes ? bindParams(core, params) : params;
    const direct = core.direct;
    const makeRow = state.makeRow;
    if (direct !== null && makeRow !== null && (kind.startsWith('slice') || kind === 'from' || kind === 'all')) {
      // Row queries select exactly core.names in order: read arrays and build rows of one fixed shape
      // (better-sqlite3's object rows cost a property definition per column per row).
      const raw = direct(compiled.sql, true).all(...bound) as unknown[][];
      const out = new Array<Record<string, unknown>>(raw.length);
      for (let i = 0; i < raw.length; i++) out[i] = makeRow(raw[i] as unknown[]);
      return out;
    }
    const rows =
      direct !== null
        ? (direct(compiled.sql, false).all(...bound) as Record<string, unknown>[])
        : (
            await core.db.executeQuery<Record<string, unknown>>({
              sql: compiled.sql,
              parameters: bound,
              query: compiled.query,
              queryId: compiled.queryId,
            })
          ).rows;
    if (state.convert.length > 0 && kind !== 'count' && !kind.startsWith('cap')) convertRows(rows, state.convert);
    return rows;
  }
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * A {@link Queryset} over a SQL table through Kysely: see the interface of
 * the same name and {@link SqlQuerysetConstructor} (its typed and untyped
 * forms).
 * @example
 * ```ts
 * const items = new SqlQueryset<Item>({ db, table: 'item', fields: itemFields, dialect: 'sqlite' });
 * ```
 */
export const SqlQueryset: SqlQuerysetConstructor = SqlQuerysetImpl;
const cores = new WeakMap<SqlQuerysetOptions, Core>();

/** The core of the querysets built from these options (made once per options object). */
function coreFor(options: SqlQuerysetOptions): Core {
  if (typeof options !== 'object' || options === null)
    throw new ConfigurationError('SqlQueryset takes an options object { db, table, fields, dialect }');
  let core = cores.get(options);
  if (core === undefined) cores.set(options, (core = makeCore(options)));
  return core;
}

function makeCore(options: SqlQuerysetOptions): Core {
  const { db, table, fields, dialect } = options;
  const pk = options.primaryKey ?? 'id';
  if (dialect !== 'sqlite' && dialect !== 'postgres')
    throw new ConfigurationError(`SqlQueryset dialect must be 'sqlite' or 'postgres', not ${String(dialect)}`);
  if (typeof table !== 'string' || table === '') throw new ConfigurationError('SqlQueryset needs a table name');
  if (!Object.hasOwn(fields, pk))
    throw new ConfigurationError(`SqlQueryset primary key ${pk} is not one of the fields`);
  const problem = fieldsProblem(fields);
  if (problem !== null) throw new ConfigurationError(`SqlQueryset fields: ${problem}`);
  const columns = declaredColumns(fields, dialect);
  if (typeof (db as SqlExecutor | undefined)?.executeQuery !== 'function')
    throw new ConfigurationError('SqlQueryset needs a Kysely instance as db');
  let direct: Core['direct'] = null;
  const handle = options.sqliteDatabase;
  if (handle !== undefined) {
    if (dialect !== 'sqlite' || typeof handle?.prepare !== 'function')
      throw new ConfigurationError('SqlQueryset sqliteDatabase must be a better-sqlite3 Database, with dialect sqlite');
    const statements = new Map<string, SqliteStatementHandle>();
    const rawStatements = new Map<string, SqliteStatementHandle>();
    direct = (text, raw) => {
      const cache = raw ? rawStatements : statements;
      let stmt = cache.get(text);
      if (stmt === undefined) {
        if (cache.size >= 256) cache.clear();
        stmt = handle.prepare(text);
        if (raw) stmt.raw(true);
        cache.set(text, stmt);
      }
      return stmt;
    };
  }
  const core: Core = {
    options,
    defaultTerms: Object.freeze([{ field: pk, desc: false }]),
    db,
    direct,
    builder: compiler(dialect),
    table,
    fields,
    names: Object.freeze(Object.keys(fields)),
    pk,
    dialect,
    sqlByShape: new Map(),
    storage: emptyStorageState(columns.length > 0),
    values: dialect === 'sqlite' ? SQLITE_VALUES : POSTGRES_VALUES,
  };
  applyStorage(core, columns);
  return core;
}

const compilers: Partial<Record<SqlDialectKind, AnyDb>> = {};

/** A Kysely that only compiles (no driver behind it), one per dialect. */
function compiler(dialect: SqlDialectKind): AnyDb {
  return (compilers[dialect] ??= new Kysely({
    dialect:
      dialect === 'sqlite'
        ? {
            createAdapter: () => new SqliteAdapter(),
            createDriver: () => new DummyDriver(),
            createIntrospector: (k) => new SqliteIntrospector(k),
            createQueryCompiler: () => new SqliteQueryCompiler(),
          }
        : {
            createAdapter: () => new PostgresAdapter(),
            createDriver: () => new DummyDriver(),
            createIntrospector: (k) => new PostgresIntrospector(k),
            createQueryCompiler: () => new PostgresQueryCompiler(),
          },
  }));
}

function fieldInfo(core: Core, field: string, method: string): FieldInfo {
  if (typeof field !== 'string' || !Object.hasOwn(core.fields, field))
    throw new ConfigurationError(`${method}(): unknown field ${String(field)} (fields: ${core.names.join(', ')})`);
  return core.fields[field]!;
}

function termsKey(terms: readonly Term[]): string {
  let s = '';
  for (const t of terms) s += (t.desc ? '-' : '+') + t.field + ',';
  return s;
}

/**
 * What a `SqlQueryset` derives from the storage of its datetime columns:
 * the codec that binds each column's values, the select list, the
 * conversions of the rows read; made from the fields' declarations at
 * construction, and again once the columns are checked against their first
 * values (before the first query, and before later ones while a column is
 * empty).
 *
 * @module
 */
import { sql, type AliasedRawBuilder, type CompiledQuery } from 'kysely';
import { ConfigurationError } from '../rest/errors.js';
import { DatetimeParam, type DatetimeCodec, type SqlFieldInfo } from './datetime-formats.js';
import {
  datetimeReader,
  initialStorage,
  isStorageOf,
  resolveColumn,
  storagesText,
  type ColumnStorage,
  type StorageContext,
} from './datetime-storage.js';
import { postgresNumber, rowFactory, sqliteBoolean, type FieldConversion, type ValueConverter } from './rows.js';

/** A column of the select list: its name, or an expression named after it. @internal */
export type Selected = string | AliasedRawBuilder<unknown, string>;

/**
 * What depends on the storage of the datetime columns, which is known only
 * once a query has read them. @internal
 */
export interface StorageState {
  /** Whether the columns must be checked before the next query (until each holds a value). */
  pending: boolean;
  /** The check under way, which concurrent queries share. */
  resolving: Promise<void> | null;
  /** Each datetime column's storage. */
  columns: readonly ColumnStorage[];
  /** The codec of each datetime field (bind and read). */
  codecs: Readonly<Record<string, DatetimeCodec>>;
  /** The select list: field names, PostgreSQL `timestamp` columns as `col AT TIME ZONE 'UTC'`. */
  selection: readonly Selected[];
  /** Fields the select list computes: ORDER BY names them with the table (a bare name is the output column). */
  computed: ReadonlySet<string>;
  /** The conversions of rows read as objects. */
  convert: readonly FieldConversion[];
  /** SQLite fast path: builds a converted row object from a raw row in `names` order. */
  makeRow: ((raw: unknown[]) => Record<string, unknown>) | null;
}

/** What owns a {@link StorageState}: a queryset's core. @internal */
export interface StorageOwner extends StorageContext {
  readonly fields: Readonly<Record<string, SqlFieldInfo>>;
  readonly names: readonly string[];
  /** Whether rows are read as arrays (SQLite's direct statements): rows are then made by `makeRow`. */
  readonly direct: unknown;
  /** Compiled SQL per query shape: dropped when a storage changes (the select list may). */
  readonly sqlByShape: Map<string, CompiledQuery>;
  readonly storage: StorageState;
}

/**
 * The datetime columns of `fields` with their declared storages (checked:
 * datetime fields only, a storage of the dialect), or the dialect's
 * default. @internal
 */
export function declaredColumns(
  fields: Readonly<Record<string, SqlFieldInfo>>,
  dialect: 'sqlite' | 'postgres',
): ColumnStorage[] {
  const columns: ColumnStorage[] = [];
  for (const [field, info] of Object.entries(fields)) {
    const storage = info.storage;
    if (storage === undefined) {
      if (info.type === 'datetime') columns.push(initialStorage(field, null, dialect));
    } else if (info.type !== 'datetime') {
      throw new ConfigurationError(`SqlQueryset fields: ${field}: storage is for datetime fields, not ${info.type}`);
    } else if (!isStorageOf(storage, dialect)) {
      throw new ConfigurationError(
        `SqlQueryset fields: ${field}: storage must be one of ${storagesText(dialect)} on ${dialect}, not ${String(storage)}`,
      );
    } else columns.push(initialStorage(field, storage, dialect));
  }
  return columns;
}

/** A state to fill with {@link applyStorage}. @internal */
export function emptyStorageState(pending: boolean): StorageState {
  return {
    pending,
    resolving: null,
    columns: [],
    codecs: {},
    selection: [],
    computed: new Set(),
    convert: [],
    makeRow: null,
  };
}

/**
 * Sets what depends on the datetime columns' storage: codecs, the select
 * list, the row conversions. A changed storage drops the compiled SQL.
 * @internal
 */
export function applyStorage(owner: StorageOwner, columns: readonly ColumnStorage[]): void {
  const state = owner.storage;
  const { dialect, fields, names, table } = owner;
  const changed =
    state.columns.length !== columns.length ||
    state.columns.some((c, i) => c.codec.storage !== columns[i]!.codec.storage);
  const codecs = Object.create(null) as Record<string, DatetimeCodec>;
  const readers = Object.create(null) as Record<string, ValueConverter>;
  for (const c of columns) {
    codecs[c.field] = c.codec;
    readers[c.field] = datetimeReader(table, c, dialect);
  }
  const converters = names.map((name): ValueConverter | null => {
    const t = fields[name]!.type;
    if (t === 'datetime') return readers[name]!;
    if (dialect === 'sqlite') return t === 'boolean' ? sqliteBoolean : null;
    return t === 'integer' || t === 'float' ? postgresNumber(t === 'integer') : null;
  });
  const computed = new Set(columns.filter((c) => c.codec.storage === 'timestamp').map((c) => c.field));
  state.columns = columns;
  state.codecs = codecs;
  // A timestamp without time zone holds UTC; pg would read it in the process's time zone.
  state.selection = names.map((n) => (computed.has(n) ? sql`${sql.ref(n)} at time zone 'UTC'`.as(n) : n));
  state.computed = computed;
  state.convert = names.flatMap((field, i) => {
    const convert = converters[i];
    return convert ? [{ field, convert }] : [];
  });
  state.makeRow = owner.direct === null ? null : rowFactory(names, converters);
  if (changed) owner.sqlByShape.clear();
}

/**
 * Checks the datetime columns not settled yet against their first values
 * (detecting undeclared storages); concurrent queries share one check. A
 * column still holding no value stays pending; a failed check (a
 * `SqlDatetimeError`, a database error) is tried again by the next query.
 * @internal
 */
export function settleStorage(owner: StorageOwner): Promise<void> {
  const state = owner.storage;
  if (state.resolving === null) {
    const run = (async () => {
      const columns: ColumnStorage[] = [];
      for (const c of state.columns) columns.push(c.settled ? c : await resolveColumn(owner, c));
      applyStorage(owner, columns);
      state.pending = columns.some((c) => !c.settled);
    })();
    state.resolving = run;
    const done = () => {
      if (state.resolving === run) state.resolving = null;
    };
    run.then(done, done);
  }
  return state.resolving;
}

/** The values of a query with its datetimes in their columns' storage. @internal */
export function bindParams(owner: StorageOwner, params: readonly unknown[]): unknown[] {
  const codecs = owner.storage.codecs;
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    out[i] = p instanceof DatetimeParam ? codecs[p.field]!.bind(p.ms) : p;
  }
  return out;
}

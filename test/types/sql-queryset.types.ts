/**
 * Type tests of SqlQueryset: with a typed Kysely, table, fields, primary
 * key, orderBy() terms and filter() fields are checked against the
 * database interface, and rows are typed from the table. The untyped forms
 * (an explicit row type, Kysely<any>, a plain SqlExecutor) take strings as
 * before. Compiled by test/types/types.test.ts, never run.
 */
import type { Kysely } from 'kysely';
import { SqlQueryset, type SqlExecutor } from '../../src/sql/queryset.js';
import { openDemoDatabase, type Item } from '../../src/cli/demo-data.js';
import type { ReplicaRouter } from '../../src/sql/replicas.js';
import type { Queryset } from '../../src/rest/data/source.js';
import { type Equal, expectType, given } from './expect.js';

interface DB {
  item: { id: number; name: string; created: string; price: number; category: string | null };
  tag: { id: number; label: string };
}
const db = given<Kysely<DB>>();

export async function typed(): Promise<void> {
  const items = new SqlQueryset({
    db,
    table: 'item',
    dialect: 'sqlite',
    fields: {
      id: { type: 'integer', unique: true },
      name: { type: 'text' },
      created: { type: 'datetime', unique: true },
      category: { type: 'text', nullable: true },
    },
  });
  const rows = await items.orderBy('-created', 'name').filter('created', 'lt', new Date()).slice(0, 10);
  const ok: Equal<(typeof rows)[number], { id: number; name: string; created: Date; category: string | null }> = true;
  expectType<Date>(rows[0]!.created); // datetime fields are Dates, whatever the column type says
  const pk: Equal<typeof items.primaryKey, 'id' | 'name' | 'created' | 'category'> = true;
  const ordering: Equal<
    (typeof items.ordering)[number],
    'id' | 'name' | 'created' | 'category' | '-id' | '-name' | '-created' | '-category'
  > = true;

  // @ts-expect-error price is a column but not one of the fields
  items.orderBy('-price');
  // @ts-expect-error no such column
  items.orderBy('nope');
  // @ts-expect-error a descending term of no such column
  items.orderBy('-nope');
  // @ts-expect-error filter on no such field
  items.filter('nope', 'eq', 1);
  // @ts-expect-error not a comparison
  items.filter('id', 'like', 1);
  // @ts-expect-error rows have only the declared fields
  void rows[0]!.price;
  // @ts-expect-error the row type is inferred: name is a string
  expectType<number>(rows[0]!.name);

  const nope = { id: { type: 'integer', unique: true }, nope: { type: 'text' } } as const;
  // @ts-expect-error a field that is no column of the table
  new SqlQueryset({ db, table: 'item', dialect: 'sqlite', fields: nope });
  // @ts-expect-error no such table
  new SqlQueryset({ db, table: 'nope', dialect: 'sqlite', fields: { id: { type: 'integer' } } });
  const tagOnly = { id: { type: 'integer' }, label: { type: 'text' } } as const;
  // @ts-expect-error the primary key must be one of the fields
  new SqlQueryset({ db, table: 'tag', dialect: 'sqlite', fields: tagOnly, primaryKey: 'name' });
  // @ts-expect-error not a field type
  new SqlQueryset({ db, table: 'tag', dialect: 'sqlite', fields: { id: { type: 'int' } } });

  // A fields object declared apart (with literal types) works the same.
  const tagFields = { id: { type: 'integer', unique: true }, label: { type: 'text' } } as const;
  const tags = new SqlQueryset({ db, table: 'tag', dialect: 'postgres', fields: tagFields, primaryKey: 'label' });
  const tag: Equal<Awaited<ReturnType<typeof tags.all>>[number], { id: number; label: string }> = true;

  // A replica router in a union with the typed Kysely (`reads ?? db`) keeps the types.
  const reads = given<ReplicaRouter | undefined>();
  const routed = new SqlQueryset({ db: reads ?? db, table: 'tag', dialect: 'postgres', fields: tagFields });
  // @ts-expect-error typed by the Kysely of the union
  routed.orderBy('-nope');

  void [ok, pk, ordering, tag, tags];
}

export function untyped(): void {
  const fields = { id: { type: 'integer', unique: true }, anything: { type: 'text' } } as const;
  // An explicit row type: names are strings, checked at run time (as before).
  const explicit = new SqlQueryset<{ id: number }>({ db, table: 'whatever', dialect: 'sqlite', fields });
  explicit.orderBy('-anything', 'zzz').filter('zzz', 'eq', 1);
  const explicitRow: Equal<Awaited<ReturnType<typeof explicit.all>>[number], { id: number }> = true;
  // Kysely<any>, and a plain executor: strings, rows of Record<string, unknown>.
  const anyDb = given<Kysely<any>>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  const loose = new SqlQueryset({ db: anyDb, table: 'x', dialect: 'sqlite', fields });
  loose.orderBy('-zzz');
  const looseRow: Equal<Awaited<ReturnType<typeof loose.all>>[number], Record<string, unknown>> = true;
  const exec = given<SqlExecutor>();
  new SqlQueryset({ db: exec, table: 'x', dialect: 'sqlite', fields }).orderBy('whatever');
  void [explicitRow, looseRow];
}

export async function demo(): Promise<void> {
  const demoDb = await openDemoDatabase(':memory:', { rows: 0 });
  const rows = await demoDb.items().orderBy('-created').slice(0, 1);
  expectType<Item[]>(rows);
  // @ts-expect-error the demo's queryset is typed by its table
  demoDb.items().orderBy('-nope');
  // The typed queryset still serves where a Queryset<Item> (or of any rows) is expected.
  const asItems: Queryset<Item> = demoDb.items();
  const asAny: Queryset<object> = demoDb.items();
  void [asItems, asAny];
}

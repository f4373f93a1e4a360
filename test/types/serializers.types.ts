/**
 * Type tests of serializers: output and input types inferred from the
 * fields (InferOutput, InferInput), for `static fields` classes and for
 * `serializer({...})`; typed `data` and `validatedData` without casts; a
 * serializer tied to its row type. Compiled by test/types/types.test.ts,
 * never run.
 */
import {
  BooleanField,
  CharField,
  DateTimeField,
  FloatField,
  HyperlinkedIdentityField,
  HyperlinkedRelatedField,
  IntegerField,
  ReadOnlyField,
  Serializer,
  SerializerMethodField,
  serializer,
  type InferInput,
  type InferOutput,
} from '../../src/rest/index.js';
import { type Equal, expectType, given } from './expect.js';

interface Item {
  id: number;
  name: string;
  created: Date;
  price: number;
  category: string;
}

// The README's form: static fields.
class ItemSerializer extends Serializer<Item> {
  static override fields = {
    url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
    id: new IntegerField({ readOnly: true }),
    name: new CharField({ maxLength: 100 }),
    created: new DateTimeField({ readOnly: true }),
    price: new IntegerField({ minValue: 0, default: 0 }),
    category: new CharField({ allowNull: true, required: false }),
    password: new CharField({ writeOnly: true }),
    ratio: new FloatField({ readOnly: true }),
    active: new BooleanField(),
    meta: new ReadOnlyField(),
    label: new SerializerMethodField<string>(),
  };
  getLabel(item: Item): string {
    return item.name;
  }
}

type ItemOut = InferOutput<typeof ItemSerializer>;
const output: Equal<
  ItemOut,
  {
    url: string;
    id: number;
    name: string;
    created: string;
    price: number;
    category: string | null;
    ratio: number;
    active: boolean;
    meta: unknown;
    label: string;
  }
> = true;

type ItemIn = InferInput<typeof ItemSerializer>;
const input: Equal<
  ItemIn,
  { name: string; password: string; active: boolean; price?: number; category?: string | null }
> = true;

const full: ItemOut = {
  url: 'http://testserver/items/1/',
  id: 1,
  name: 'a',
  created: '2020-01-01T00:00:01.037000Z',
  price: 1,
  category: null,
  ratio: 1,
  active: true,
  meta: 1,
  label: 'a',
};
// @ts-expect-error write-only fields are not in the output
expectType<ItemOut>({ ...full, password: 'x' });
// @ts-expect-error a read-only field is always in the output
expectType<ItemOut>(given<Omit<ItemOut, 'id'>>());
// @ts-expect-error IntegerField renders a number
expectType<ItemOut>({ ...full, id: '1' });
// @ts-expect-error read-only fields are not input
expectType<ItemIn>({ id: 1, name: 'a', password: 'p', active: true });
// @ts-expect-error a required field is missing
expectType<ItemIn>({ password: 'p', active: true });
// @ts-expect-error DateTimeField renders a string, not a Date
expectType<ItemOut['created']>(new Date());

// serializer({...}): typed instances.
class OrderSerializer extends serializer({
  id: new IntegerField({ readOnly: true }),
  when: new DateTimeField(),
  items: ItemSerializer.asField({ many: true, readOnly: true }),
  first: ItemSerializer.asField({ required: false }),
  links: new HyperlinkedRelatedField({ viewName: 'item-detail', many: true, readOnly: true }),
  note: new CharField({ source: 'comment', allowNull: true, default: null }),
}) {}

const orderOut: Equal<
  InferOutput<typeof OrderSerializer>,
  { id: number; when: string; items: ItemOut[]; first: ItemOut; links: string[]; note: string | null }
> = true;
const orderIn: Equal<InferInput<typeof OrderSerializer>, { when: Date; first?: ItemIn; note?: string | null }> = true;

export function validated(data: unknown): void {
  const s = new OrderSerializer(null, { data });
  if (s.isValid()) {
    expectType<Date>(s.validatedData.when); // no cast
    // @ts-expect-error read-only fields are not in validatedData
    void s.validatedData.id;
  }
  const out = new OrderSerializer({ id: 1, when: new Date(), items: [], first: {}, links: [], comment: null }).data;
  const one = Array.isArray(out) ? out[0] : out;
  if (one !== undefined) expectType<number>(one.id);
}

// Tied to a row type: serializer({...})<Row> checks that the row has the fields' keys.
class ItemRowSerializer extends serializer({
  id: new IntegerField({ readOnly: true }),
  title: new CharField({ source: 'name' }),
  url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
})<Item> {}
export function tied(item: Item): void {
  new ItemRowSerializer().toRepresentation(item);
  // @ts-expect-error not an Item
  new ItemRowSerializer().toRepresentation({ id: 1 });
  // @ts-expect-error the row lacks a key the fields read (nope)
  class Missing extends serializer({ nope: new CharField() })<Item> {}
  // @ts-expect-error the static-fields form ties its row type too
  new ItemSerializer().toRepresentation({ id: 1, name: 'a' });
  void Missing;
}

// @ts-expect-error an option of the wrong type
new IntegerField({ readOnly: 'yes' });
// @ts-expect-error an unknown option
new CharField({ maxValue: 3 });

void [output, input, orderOut, orderIn];

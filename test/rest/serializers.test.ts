import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { include, path, type ViewFunction } from '../../src/rest/urls/patterns.js';
import { URLResolver } from '../../src/rest/urls/resolver.js';
import { Response } from '../../src/rest/response.js';
import { ConfigurationError, ValidationError } from '../../src/rest/errors.js';
import { NamespaceVersioning } from '../../src/rest/versioning.js';
import {
  BooleanField,
  CharField,
  DateTimeField,
  Field,
  FloatField,
  IntegerField,
  ReadOnlyField,
  SerializerMethodField,
} from '../../src/rest/fields.js';
import { HyperlinkedIdentityField } from '../../src/rest/relations.js';
import { Serializer, type SerializerClass } from '../../src/rest/serializers.js';
import { routed } from '../support/rest.js';
import { demoItem as item, type Item } from '../../src/cli/demo-data.js';

// eslint-disable-next-line @typescript-eslint/require-await -- a ViewFunction returns a promise
const dummy: ViewFunction = async () => new Response(null);

// ------------------------------------------------------------- output

class ItemSerializer extends Serializer<Item> {
  static override fields = {
    id: new IntegerField({ readOnly: true }),
    name: new CharField({ maxLength: 100 }),
    created: new DateTimeField({ readOnly: true }),
    price: new IntegerField({ minValue: 0 }),
  };
}
class ItemSerializerV2 extends ItemSerializer {
  static override fields = { ...ItemSerializer.fields, category: new CharField() };
}

test('output: declared fields in order, one object or a list with many', () => {
  assert.deepEqual(new ItemSerializer(item(999)).data, {
    id: 999,
    name: 'item-0000999',
    created: '2020-01-01T00:16:39.963000Z',
    price: 81,
  });
  const rows = [item(1000), item(1001)];
  const data = new ItemSerializerV2(rows, { many: true }).data;
  assert.deepEqual(data, [
    { id: 1000, name: 'item-0001000', created: '2020-01-01T00:16:40Z', price: 0, category: 'alpha' },
    { id: 1001, name: 'item-0001001', created: '2020-01-01T00:16:41.037000Z', price: 419, category: 'beta' },
  ]);
  assert.deepEqual(Object.keys((data as object[])[0] as object), ['id', 'name', 'created', 'price', 'category']);
  assert.equal(
    JSON.stringify(new ItemSerializer(item(1000)).data),
    '{"id":1000,"name":"item-0001000","created":"2020-01-01T00:16:40Z","price":0}',
  );
  const s = new ItemSerializer([], { many: true });
  assert.deepEqual(s.data, []);
  assert.equal(s.data, s.data, 'computed once');
  assert.deepEqual(new ItemSerializer().data, {});
  assert.throws(() => new ItemSerializer(item(1), { many: true }), ConfigurationError);
});

test('a serializer chosen per version (what getSerializerClass() does)', () => {
  const choose = (version: string | null): SerializerClass<Item> =>
    version === 'v1' ? ItemSerializer : ItemSerializerV2;
  assert.deepEqual(Object.keys(new (choose('v1'))(item(1)).data), ['id', 'name', 'created', 'price']);
  assert.deepEqual(Object.keys(new (choose('v2'))(item(1)).data), ['id', 'name', 'created', 'price', 'category']);
});

test('sources, nulls, missing keys, defaults, method fields, write-only and nested serializers', () => {
  interface Order {
    id: number;
    customer: { name: string; address: { city: string } | null } | null;
    note?: string | null;
    items: Item[];
    secret: string;
  }
  class ItemBrief extends Serializer<Item> {
    static override fields = { id: new IntegerField(), name: new CharField() };
  }
  class OrderSerializer extends Serializer<Order> {
    static override fields = {
      id: new IntegerField({ readOnly: true }),
      customer_name: new CharField({ source: 'customer.name', readOnly: true }),
      city: new CharField({ source: 'customer.address.city', readOnly: true }),
      note: new CharField({ required: false }),
      status: new CharField({ default: 'open' }),
      total_items: new SerializerMethodField(),
      label: new SerializerMethodField({ methodName: 'describe' }),
      items: ItemBrief.asField({ many: true, readOnly: true }),
      first: ItemBrief.asField({ source: 'items.0', readOnly: true }),
      secret: new CharField({ writeOnly: true }),
      raw: new ReadOnlyField({ source: '*' }),
    };
    getTotalItems(o: Order): number {
      return o.items.length;
    }
    describe(o: Order): string {
      return `order ${o.id}`;
    }
  }
  const order: Order = { id: 7, customer: { name: 'Ann', address: null }, items: [item(1), item(2)], secret: 's' };
  const data = new OrderSerializer(order).data as Record<string, unknown>;
  assert.deepEqual(Object.keys(data), [
    'id',
    'customer_name',
    'city',
    'status',
    'total_items',
    'label',
    'items',
    'first',
    'raw',
  ]);
  assert.equal(data.customer_name, 'Ann');
  assert.equal(data.city, null, 'a null on the way gives null');
  assert.equal(data.status, 'open', 'a missing key takes the default');
  assert.equal('note' in data, false, 'a missing, not required field is left out');
  assert.equal(data.total_items, 2);
  assert.equal(data.label, 'order 7');
  assert.deepEqual(data.items, [
    { id: 1, name: 'item-0000001' },
    { id: 2, name: 'item-0000002' },
  ]);
  assert.deepEqual(data.first, { id: 1, name: 'item-0000001' });
  assert.equal(data.raw, order);
  assert.equal((new OrderSerializer({ ...order, note: null }).data as Record<string, unknown>).note, null);
  assert.equal((new OrderSerializer({ ...order, customer: null }).data as Record<string, unknown>).customer_name, null);
  class Strict extends Serializer<{ a?: number }> {
    static override fields = { a: new IntegerField() };
  }
  assert.throws(
    () => new Strict({}).data,
    (e: unknown) => e instanceof ConfigurationError && /field 'a' found no value/.test(e.message),
  );
  class NoMethod extends Serializer {
    static override fields = { x: new SerializerMethodField() };
  }
  assert.throws(() => new NoMethod({}).data, /no method getX\(\)/);
  class NotAField extends Serializer {
    static override fields = { x: 5 as unknown as Field };
  }
  assert.throws(() => new NotAField({}), ConfigurationError);
});

test('compiled rows: each source read once, read then converted field by field; a missing value mid-row goes on in the generic loop', () => {
  const log: string[] = [];
  class Logged extends Field {
    override toRepresentation(value: unknown): unknown {
      log.push(`to ${String(value)}`);
      return value;
    }
  }
  const row = (withB: boolean): object => {
    const o: Record<string, unknown> = {};
    for (const k of ['a', 'b', 'c', 'd'])
      if (k !== 'b' || withB)
        Object.defineProperty(o, k, {
          enumerable: true,
          get() {
            log.push(`get ${k}`);
            return k;
          },
        });
    return o;
  };
  class Four extends Serializer {
    static override fields = {
      a: new Logged(),
      b: new Logged({ required: false }),
      c: new Logged({ readOnly: true }),
      d: new Logged({ default: 'dflt' }),
    };
  }
  const rows = [row(true), row(false), row(true)];
  const data = new Four(rows, { many: true }).data as Record<string, unknown>[];
  assert.deepEqual(data, [
    { a: 'a', b: 'b', c: 'c', d: 'd' },
    { a: 'a', c: 'c', d: 'd' },
    { a: 'a', b: 'b', c: 'c', d: 'd' },
  ]);
  assert.deepEqual(Object.keys(data[1]!), ['a', 'c', 'd'], 'the left-out field leaves no key, the order stays');
  const one = ['get a', 'to a', 'get b', 'to b', 'get c', 'to c', 'get d', 'to d'];
  assert.deepEqual(log, [...one, 'get a', 'to a', 'get c', 'to c', 'get d', 'to d', ...one]);
  // A field named __proto__ (an object literal would set the prototype): the generic loop, an own key.
  class Proto extends Serializer {
    static override fields = { ['__proto__']: new CharField({ source: 'p' }), x: new IntegerField() } as Record<
      string,
      Field
    >;
  }
  const p = new Proto({ p: 'v', x: 1 }).data as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
  assert.deepEqual(Object.keys(p), ['__proto__', 'x']);
  assert.equal(JSON.stringify(p), '{"__proto__":"v","x":1}');
  // Dotted sources and '*' on the compiled path: a null part gives null, a missing part the default.
  class Paths extends Serializer {
    static override fields = {
      deep: new CharField({ source: 'a.b.c', default: 'none' }),
      whole: new ReadOnlyField({ source: '*' }),
    };
  }
  const o1 = { a: { b: { c: 'x' } } };
  assert.deepEqual(new Paths(o1).data, { deep: 'x', whole: o1 });
  assert.deepEqual(new Paths({ a: null }).data, { deep: null, whole: { a: null } });
  assert.deepEqual(new Paths({ a: { b: {} } }).data, { deep: 'none', whole: { a: { b: {} } } });
});

test('compiled rows: without code generation from strings (a runtime flag), the generic loop gives the same output', () => {
  const script = `
    import { Serializer } from ${JSON.stringify(new URL('../../src/rest/serializers.ts', import.meta.url).href)};
    import { IntegerField, CharField } from ${JSON.stringify(new URL('../../src/rest/fields.ts', import.meta.url).href)};
    class S extends Serializer { static fields = { id: new IntegerField(), name: new CharField({ required: false }) }; }
    let generated = true;
    try { new Function('return 1'); } catch { generated = false; }
    console.log(JSON.stringify({ generated, data: new S([{ id: 1, name: 'a' }, { id: 2 }], { many: true }).data }));
  `;
  const r = spawnSync(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { generated: false, data: [{ id: 1, name: 'a' }, { id: 2 }] });
});

// ------------------------------------------------------------- input

test('validation: required, null, blank, types and limits with DRF messages; validate() hook; many', () => {
  class S extends Serializer<Item> {
    static override fields = {
      id: new IntegerField({ readOnly: true }),
      name: new CharField({ maxLength: 5, minLength: 2 }),
      price: new IntegerField({ minValue: 0, maxValue: 100 }),
      ratio: new FloatField({ required: false }),
      active: new BooleanField({ default: true }),
      when: new DateTimeField({ required: false, source: 'created' }),
    };
    override validate(attrs: Record<string, unknown>): Record<string, unknown> {
      if (attrs.name === 'bad') throw new ValidationError('Name and price clash.');
      if (attrs.name === 'worse') throw new ValidationError({ price: ['Too cheap for this name.'] });
      return attrs;
    }
  }
  const check = (data: unknown, opts: { partial?: boolean } = {}): [boolean, unknown] => {
    const s = new S(null, { data, ...opts });
    const ok = s.isValid();
    return [ok, ok ? s.validatedData : s.errors];
  };
  assert.deepEqual(check({ id: 9, name: ' ab ', price: '5.0', ratio: '0.5', when: '2020-01-01T00:16:39.963Z' }), [
    true,
    { name: 'ab', price: 5, ratio: 0.5, active: true, created: new Date(Date.UTC(2020, 0, 1, 0, 16, 39, 963)) },
  ]);
  assert.deepEqual(check({}), [false, { name: ['This field is required.'], price: ['This field is required.'] }]);
  assert.deepEqual(check({ name: null, price: 1 }), [false, { name: ['This field may not be null.'] }]);
  assert.deepEqual(check({ name: 'abcdef', price: 101 }), [
    false,
    {
      name: ['Ensure this field has no more than 5 characters.'],
      price: ['Ensure this value is less than or equal to 100.'],
    },
  ]);
  assert.deepEqual(check({ name: 'a', price: -1 }), [
    false,
    {
      name: ['Ensure this field has at least 2 characters.'],
      price: ['Ensure this value is greater than or equal to 0.'],
    },
  ]);
  assert.deepEqual(check({ name: true, price: 'x', ratio: 'nan', active: 'maybe', when: 'yesterday' }), [
    false,
    {
      name: ['Not a valid string.'],
      price: ['A valid integer is required.'],
      ratio: ['A valid number is required.'],
      active: ['Must be a valid boolean.'],
      when: [
        'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      ],
    },
  ]);
  assert.deepEqual(check({ name: 'ab', price: 1.5 }), [false, { price: ['A valid integer is required.'] }]);
  assert.deepEqual(check({ name: 'ab', price: 'x'.repeat(1001) }), [false, { price: ['String value too large.'] }]);
  assert.deepEqual(check({ name: 'ab', price: ' +1_0 ', active: 'off' }), [
    true,
    { name: 'ab', price: 10, active: false },
  ]);
  assert.deepEqual(check({ name: 'ab', price: 1, when: '2020-02-30T00:00:00Z' })[1], {
    when: [
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
    ],
  });
  assert.deepEqual(check({ name: 'bad', price: 1 }), [false, { non_field_errors: ['Name and price clash.'] }]);
  assert.deepEqual(check({ name: 'worse', price: 1 }), [false, { price: ['Too cheap for this name.'] }]);
  assert.deepEqual(check([1]), [false, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] }]);
  assert.deepEqual(check({ price: 3 }, { partial: true }), [true, { price: 3 }]);
  const many = new S(null, {
    many: true,
    data: [
      { name: 'ab', price: 1 },
      { name: 'x', price: 1 },
    ],
  });
  assert.equal(many.isValid(), false);
  assert.deepEqual(many.errors, [{}, { name: ['Ensure this field has at least 2 characters.'] }]);
  const manyOk = new S(null, { many: true, data: [{ name: 'ab', price: 1 }] });
  assert.equal(manyOk.isValid(), true);
  assert.deepEqual(manyOk.validatedData, [{ name: 'ab', price: 1, active: true }]);
  assert.deepEqual(manyOk.errors, []);
  const notList = new S(null, { many: true, data: { name: 'ab' } });
  assert.equal(notList.isValid(), false);
  assert.deepEqual(notList.errors, { non_field_errors: ['Expected a list of items but got type "dict".'] });
  assert.throws(
    () => new S(null, { data: {} }).isValid({ raiseException: true }),
    (e: unknown) => e instanceof ValidationError && e.status === 400,
  );
  assert.throws(() => new S(null, {}).isValid(), ConfigurationError);
  assert.throws(() => new S(null, { data: {} }).validatedData, ConfigurationError);
  assert.throws(() => new S(null, { data: {} }).errors, ConfigurationError);
  const valid = new S(null, { data: { name: 'ab', price: 1 } });
  valid.isValid();
  assert.deepEqual(
    valid.data,
    { name: 'ab', price: 1, active: true },
    'data after validation renders the validated values',
  );
});

test('nested serializer input', () => {
  class Child extends Serializer {
    static override fields = { n: new IntegerField() };
  }
  class Parent extends Serializer {
    static override fields = { child: Child.asField(), children: Child.asField({ many: true, required: false }) };
  }
  const ok = new Parent(null, { data: { child: { n: '1' }, children: [{ n: 2 }] } });
  assert.equal(ok.isValid(), true);
  assert.deepEqual(ok.validatedData, { child: { n: 1 }, children: [{ n: 2 }] });
  const bad = new Parent(null, { data: { child: { n: 'x' } } });
  assert.equal(bad.isValid(), false);
  assert.deepEqual(bad.errors, { child: { n: ['A valid integer is required.'] } });
});

// ------------------------------------------------------------- cost

const apiRoutes = [
  path('items/', dummy, { name: 'item-list' }),
  path('items/<int:pk>/', dummy, { name: 'item-detail' }),
];

test('serializing 1000 rows with hyperlinks stays cheap (compiled once per class)', () => {
  const resolver = new URLResolver([path('v1/', include(apiRoutes, { namespace: 'v1' }))]);
  const request = routed(resolver, NamespaceVersioning, '/v1/items/');
  class Full extends Serializer<Item> {
    static override fields = {
      url: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
      ...ItemSerializerV2.fields,
    };
  }
  const rows = Array.from({ length: 1000 }, (_, i) => item(i + 1));
  const data = new Full(rows, { many: true, context: { request } }).data as Record<string, unknown>[];
  assert.equal(data.length, 1000);
  assert.equal(data[999]?.url, 'http://testserver/v1/items/1000/');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request } from '../../src/rest/request.js';
import { createSettings, type SettingsInput } from '../../src/rest/settings.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { BaseFilterBackend, OrderingFilter } from '../../src/rest/filters.js';
import { ImproperlyConfigured } from '../../src/rest/errors.js';
import { CharField, IntegerField } from '../../src/rest/fields.js';
import { HyperlinkedIdentityField } from '../../src/rest/relations.js';
import { Serializer } from '../../src/rest/serializers.js';

function req(target: string, settings: SettingsInput = {}): Request {
  return new Request(
    { method: 'GET', target, headers: [['Host', 'testserver']], body: null, secure: false },
    createSettings(settings),
  );
}

const items = new ArrayQueryset(
  [
    { id: 1, price: 3, name: 'b' },
    { id: 2, price: 1, name: 'c' },
    { id: 3, price: 3, name: 'a' },
    { id: 4, price: 2, name: 'd' },
  ],
  { fields: { id: { type: 'integer', unique: true }, price: { type: 'integer' }, name: { type: 'text' } } },
);
const ids = async (qs: { all(): Promise<{ id: number }[]> }) => (await qs.all()).map((r) => r.id);

test('OrderingFilter is a filter backend with getOrdering', () => {
  assert.ok(new OrderingFilter() instanceof BaseFilterBackend);
  assert.equal(typeof OrderingFilter.prototype.getOrdering, 'function');
});

test('comma-split terms, trimmed, leading - allowed, restricted to orderingFields', () => {
  const f = new OrderingFilter();
  const view = { orderingFields: ['price', 'name'] };
  assert.deepEqual(f.getOrdering(req('/?ordering=price'), items, view), ['price']);
  assert.deepEqual(f.getOrdering(req('/?ordering=-price,%20name%20'), items, view), ['-price', 'name']);
  assert.deepEqual(f.getOrdering(req('/?ordering=-price,id,bogus,--name,%2Bname'), items, view), ['-price']);
  assert.deepEqual(f.getOrdering(req('/?ordering=id'), items, view), null);
  assert.deepEqual(f.getOrdering(req('/?ordering='), items, view), null);
  assert.deepEqual(f.getOrdering(req('/?ordering=name&ordering=price'), items, view), ['price']);
});

test("orderingFields '__all__': any field of the queryset (an explicit opt-in)", () => {
  const f = new OrderingFilter();
  assert.deepEqual(f.getOrdering(req('/?ordering=-id,name,nope'), items, { orderingFields: '__all__' }), [
    '-id',
    'name',
  ]);
});

test("orderingFields absent or null: the serializer's readable fields only (DRF), so hidden columns cannot be probed", () => {
  const f = new OrderingFilter();
  class Visible extends Serializer {
    static override fields = {
      id: new IntegerField({ readOnly: true }),
      title: new CharField({ source: 'name' }),
      secret: new CharField({ writeOnly: true }),
      self: new HyperlinkedIdentityField({ viewName: 'item-detail' }),
    };
  }
  for (const orderingFields of [undefined, null]) {
    const view = { orderingFields, getSerializerClass: () => Visible };
    // price is a column of the queryset but not a field of the serializer; name is reachable as title's source.
    assert.deepEqual(f.getOrdering(req('/?ordering=-price,name,-id,secret,self,title'), items, view), ['name', '-id']);
    assert.deepEqual(f.getOrdering(req('/?ordering=price'), items, { ...view, ordering: 'id' }), ['id']);
  }
  assert.throws(
    () => f.getOrdering(req('/?ordering=price'), items, {}),
    (e: unknown) => e instanceof ImproperlyConfigured && /serializerClass/.test(e.message),
  );
});

test('falls back to the view ordering (string or list), else null', () => {
  const f = new OrderingFilter();
  assert.deepEqual(f.getOrdering(req('/'), items, { ordering: '-price' }), ['-price']);
  assert.deepEqual(
    f.getOrdering(req('/?ordering=bogus'), items, { ordering: ['name', '-id'], orderingFields: '__all__' }),
    ['name', '-id'],
  );
  assert.deepEqual(f.getOrdering(req('/'), items, {}), null);
  assert.deepEqual(f.getOrdering(req('/'), items, { ordering: null }), null);
});

test('parameter name from ORDERING_PARAM or orderingParam', () => {
  const f = new OrderingFilter();
  const all = { orderingFields: '__all__' as const };
  assert.deepEqual(f.getOrdering(req('/?sort=-id&ordering=name', { ORDERING_PARAM: 'sort' }), items, all), ['-id']);
  f.orderingParam = 'o';
  assert.deepEqual(f.getOrdering(req('/?o=name&sort=-id', { ORDERING_PARAM: 'sort' }), items, all), ['name']);
  assert.deepEqual(f.getSchemaOperationParameters(), [
    {
      name: 'o',
      required: false,
      in: 'query',
      description: 'Which field to use when ordering the results.',
      schema: { type: 'string' },
    },
  ]);
  assert.equal(new OrderingFilter().getSchemaOperationParameters()[0]!.name, 'ordering');
  assert.equal(
    new OrderingFilter().getSchemaOperationParameters(null, createSettings({ ORDERING_PARAM: 'sort' }))[0]!.name,
    'sort',
  );
});

test('filterQueryset applies orderBy (with the pk tie-breaker), or leaves the queryset alone', async () => {
  const f = new OrderingFilter();
  assert.deepEqual(
    await ids(f.filterQueryset(req('/?ordering=-price'), items, { orderingFields: '__all__' })),
    [3, 1, 4, 2],
  );
  assert.deepEqual(
    await ids(f.filterQueryset(req('/?ordering=price,name'), items, { orderingFields: '__all__' })),
    [2, 4, 3, 1],
  );
  assert.equal(f.filterQueryset(req('/'), items, {}), items);
  assert.deepEqual(await ids(f.filterQueryset(req('/'), items, { ordering: 'name' })), [3, 1, 2, 4]);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  URLResolver,
  getDefaultUrlconf,
  include,
  path,
  quotePath,
  rePath,
  registerConverter,
  setDefaultUrlconf,
  type ViewFunction,
} from '../../src/rest/urls.js';
import { ConfigurationError, ImproperlyConfigured, NoReverseMatch } from '../../src/rest/errors.js';
import { Response } from '../../src/rest/response.js';

function view(label: string): ViewFunction {
  const f = async (): Promise<Response> => new Response(label);
  Object.defineProperty(f, 'name', { value: label });
  return f;
}
const a = view('a');
const b = view('b');
const c = view('c');

const UUID = '123e4567-e89b-12d3-a456-426614174000';

test('converters: int is a number, str stops at /, slug, uuid (lower case), path takes slashes', () => {
  const r = new URLResolver([
    path('int/<int:pk>/', a, { name: 'int' }),
    path('str/<name>/', a, { name: 'str' }),
    path('slug/<slug:s>/', a, { name: 'slug' }),
    path('uuid/<uuid:u>/', a, { name: 'uuid' }),
    path('path/<path:rest>', a, { name: 'path' }),
  ]);
  assert.deepEqual(r.resolve('/int/42/')?.kwargs, { pk: 42 });
  assert.equal(typeof r.resolve('/int/007/')?.kwargs.pk, 'number');
  assert.equal(r.resolve('/int/007/')?.kwargs.pk, 7);
  assert.equal(r.resolve('/int/-1/'), null);
  assert.equal(r.resolve('/int/1.5/'), null);
  assert.equal(r.resolve('/int/99999999999999999999/'), null, 'beyond 2^53 does not match');
  assert.deepEqual(r.resolve('/str/café au lait/')?.kwargs, { name: 'café au lait' });
  assert.equal(r.resolve('/str/a/b/'), null);
  assert.deepEqual(r.resolve('/slug/my-slug_1/')?.kwargs, { s: 'my-slug_1' });
  assert.equal(r.resolve('/slug/no.dots/'), null);
  assert.deepEqual(r.resolve(`/uuid/${UUID}/`)?.kwargs, { u: UUID });
  assert.equal(r.resolve(`/uuid/${UUID.toUpperCase()}/`), null);
  assert.deepEqual(r.resolve('/path/a/b/c.txt')?.kwargs, { rest: 'a/b/c.txt' });
  assert.equal(r.resolve('/path/'), null);
});

test('a path without its leading slash resolves too; a trailing slash matters', () => {
  const r = new URLResolver([path('items/', a, { name: 'items' })]);
  assert.equal(r.resolve('items/')?.urlName, 'items');
  assert.equal(r.resolve('/items'), null);
  assert.equal(r.resolve('//items/'), null);
  assert.equal(r.wouldMatchWithSlash('/items'), true);
  assert.equal(r.wouldMatchWithSlash('/items/'), false);
  assert.equal(r.wouldMatchWithSlash('/other'), false);
});

test('registerConverter: a custom converter; toValue throwing falls through to the next pattern', () => {
  registerConverter('test-even', {
    regex: '[0-9]+',
    toValue(s) {
      const n = Number(s);
      if (n % 2) throw new Error('odd');
      return n;
    },
    toUrl: (v) => String(v),
  });
  const r = new URLResolver([path('n/<test-even:n>/', a, { name: 'even' }), path('n/<int:n>/', b, { name: 'any' })]);
  assert.equal(r.resolve('/n/4/')?.func, a);
  assert.equal(r.resolve('/n/5/')?.func, b);
  assert.equal(r.reverse('even', { kwargs: { n: 4 } }), '/n/4/');
  assert.throws(() => registerConverter('test-even', { regex: 'x', toValue: String, toUrl: String }), ConfigurationError);
  assert.throws(() => registerConverter('int', { regex: 'x', toValue: String, toUrl: String }), ConfigurationError);
});

test('toUrl throwing skips the candidate', () => {
  registerConverter('test-year', {
    regex: '[0-9]{4}',
    toValue: Number,
    toUrl(v) {
      if (typeof v !== 'number') throw new TypeError('year must be a number');
      return String(v).padStart(4, '0');
    },
  });
  const r = new URLResolver([path('y/<test-year:y>/', a, { name: 'y' })]);
  assert.equal(r.reverse('y', { kwargs: { y: 987 } }), '/y/0987/');
  assert.throws(() => r.reverse('y', { kwargs: { y: '2020' } }), NoReverseMatch);
});

test('regex routes: named groups are string kwargs, unnamed groups positional args, Python syntax accepted', () => {
  const r = new URLResolver([
    rePath('^(?P<version>[v1|v2]+)/another/$', a, { name: 'another' }),
    rePath('^pos/([0-9]+)/([a-z]+)/$', b, { name: 'pos' }),
    rePath('^mixed/(?P<x>[0-9]+)/([a-z]+)/$', c, { name: 'mixed' }),
    rePath(/^CASE\/(?<n>[0-9]+)\/$/i, a, { name: 'case' }),
    rePath('^end/\\Z', a, { name: 'end' }),
    rePath('^prefix/', b, { name: 'prefix' }),
  ]);
  assert.deepEqual(r.resolve('/v1/another/')?.kwargs, { version: 'v1' });
  assert.deepEqual(r.resolve('/v3/another/'), null);
  const pos = r.resolve('/pos/12/ab/');
  assert.deepEqual([pos?.args, pos?.kwargs], [['12', 'ab'], {}]);
  const mixed = r.resolve('/mixed/12/ab/');
  assert.deepEqual([mixed?.args, mixed?.kwargs], [[], { x: '12' }]);
  assert.deepEqual(r.resolve('/case/3/')?.kwargs, { n: '3' });
  assert.equal(r.resolve('/end/')?.urlName, 'end');
  assert.equal(r.resolve('/end/x'), null);
  assert.equal(r.resolve('/prefix/anything/else')?.urlName, 'prefix', 'an endpoint regex without $ matches a prefix (Django)');
  assert.equal(r.reverse('pos', { args: [12, 'ab'] }), '/pos/12/ab/');
  assert.equal(r.reverse('another', { kwargs: { version: 'v2' } }), '/v2/another/');
  assert.equal(r.reverse('case', { kwargs: { n: 7 } }), '/CASE/7/');
  assert.equal(r.reverse('end'), '/end/');
});

test('regex reversal: optional groups give both variants, quantifiers and classes use representatives', () => {
  const r = new URLResolver([
    rePath('^opt(?:/(?P<fmt>[a-z]+))?/$', a, { name: 'opt' }),
    rePath('^items\\.json$', a, { name: 'dotted' }),
    rePath('^x-?y+/$', a, { name: 'quant' }),
    rePath('^(?:one|two)/$', a, { name: 'alt' }),
  ]);
  assert.equal(r.reverse('opt'), '/opt/');
  assert.equal(r.reverse('opt', { kwargs: { fmt: 'json' } }), '/opt/json/');
  assert.equal(r.reverse('dotted'), '/items.json');
  assert.equal(r.reverse('quant'), '/xy/');
  assert.ok(r.resolve('/one/'), 'alternation still resolves');
  assert.throws(() => r.reverse('alt'), NoReverseMatch, 'alternation outside a capturing group is not reversible (Django)');
});

function nested(): URLResolver {
  const inner = [path('namespaced/<int:pk>/', c, { name: 'nested' })];
  const api = [
    path('namespaced/<int:pk>/', a, { name: 'namespaced' }),
    path('nested/', include(inner, { namespace: 'nested-namespace' })),
    path('plain/', include([path('deep/', b, { name: 'deep' })])),
  ];
  return new URLResolver([
    path('v1/', include(api, { namespace: 'v1', appName: 'restframeworkv1' })),
    path('v2/', include(api, { namespace: 'v2', appName: 'restframeworkv2' })),
    path('non-api/<int:pk>/', b, { name: 'non-api-view' }),
  ]);
}

test('include: namespaces nest; ResolverMatch carries namespaces, app names, view name and route', () => {
  const r = nested();
  const m = r.resolve('/v1/nested/namespaced/3/');
  assert.ok(m);
  assert.equal(m.func, c);
  assert.deepEqual(m.kwargs, { pk: 3 });
  assert.deepEqual(m.args, []);
  assert.equal(m.urlName, 'nested');
  assert.deepEqual(m.namespaces, ['v1', 'nested-namespace']);
  assert.equal(m.namespace, 'v1:nested-namespace');
  assert.deepEqual(m.appNames, ['restframeworkv1', 'nested-namespace']);
  assert.equal(m.viewName, 'v1:nested-namespace:nested');
  assert.equal(m.route, 'v1/nested/namespaced/<int:pk>/');
  const deep = r.resolve('/v2/plain/deep/');
  assert.equal(deep?.viewName, 'v2:deep', 'an include without namespace adds none');
  assert.equal(r.resolve('/non-api/10/')?.namespace, '');
  assert.equal(r.resolve('/non-api/10/')?.viewName, 'non-api-view');
  assert.equal(r.resolve('/v3/namespaced/1/'), null);
});

test('reverse through namespaces, nested namespaces and namespace-less includes', () => {
  const r = nested();
  assert.equal(r.reverse('v1:namespaced', { kwargs: { pk: 3 } }), '/v1/namespaced/3/');
  assert.equal(r.reverse('v2:namespaced', { kwargs: { pk: 5 } }), '/v2/namespaced/5/');
  assert.equal(r.reverse('v1:nested-namespace:nested', { kwargs: { pk: 3 } }), '/v1/nested/namespaced/3/');
  assert.equal(r.reverse('v2:deep'), '/v2/plain/deep/');
  assert.equal(r.reverse('non-api-view', { kwargs: { pk: 10 } }), '/non-api/10/');
  assert.throws(() => r.reverse('namespaced', { kwargs: { pk: 3 } }), /Reverse for 'namespaced' not found/);
  assert.throws(() => r.reverse('v3:namespaced', { kwargs: { pk: 3 } }), (e: unknown) => e instanceof NoReverseMatch && e.message === "'v3' is not a registered namespace");
  assert.throws(() => r.reverse('v1:nope:nested', { kwargs: { pk: 3 } }), (e: unknown) => e instanceof NoReverseMatch && e.message === "'nope' is not a registered namespace inside 'v1'");
  // An application name picks the instance named like it, else the last deployed.
  assert.equal(r.reverse('restframeworkv1:namespaced', { kwargs: { pk: 1 } }), '/v1/namespaced/1/');
  const shared = [path('x/', a, { name: 'x' })];
  const apps = new URLResolver([path('one/', include(shared, { namespace: 'one', appName: 'app' })), path('two/', include(shared, { namespace: 'two', appName: 'app' }))]);
  assert.equal(apps.reverse('app:x'), '/two/x/');
  const withDefault = new URLResolver([path('app/', include(shared, { appName: 'app' })), path('two/', include(shared, { namespace: 'two', appName: 'app' }))]);
  assert.equal(withDefault.reverse('app:x'), '/app/x/', 'the instance whose namespace equals the app name is the default');
});

test('include prefixes with parameters and default kwargs', () => {
  const r = new URLResolver([
    path('<slug:tenant>/', include([path('items/<int:pk>/', a, { name: 'item' })], { namespace: 't' }), { kwargs: { source: 'tenant' } }),
    path('fixed/', b, { name: 'fixed', kwargs: { format: 'json', pk: 'default' } }),
    path('over/<int:pk>/', c, { name: 'over', kwargs: { pk: 'forced' } }),
  ]);
  assert.deepEqual(r.resolve('/acme/items/5/')?.kwargs, { tenant: 'acme', source: 'tenant', pk: 5 });
  assert.equal(r.reverse('t:item', { kwargs: { tenant: 'acme', pk: 5 } }), '/acme/items/5/');
  assert.throws(() => r.reverse('t:item', { kwargs: { pk: 5 } }), NoReverseMatch);
  assert.deepEqual(r.resolve('/fixed/')?.kwargs, { format: 'json', pk: 'default' });
  assert.deepEqual(r.resolve('/over/1/')?.kwargs, { pk: 'forced' }, 'endpoint kwargs win over captured values');
  // Default kwargs may be given to reverse() only with their own value.
  assert.equal(r.reverse('fixed'), '/fixed/');
  assert.equal(r.reverse('fixed', { kwargs: { format: 'json' } }), '/fixed/');
  assert.throws(() => r.reverse('fixed', { kwargs: { format: 'xml' } }), NoReverseMatch);
});

test('patterns sharing a name: the one that fits the arguments; among fitting ones the last defined (Django)', () => {
  const r = new URLResolver([
    path('another/', a, { name: 'another' }),
    rePath('^(?P<version>[v1|v2]+)/another/$', b, { name: 'another' }),
    path('first/<int:pk>/', a, { name: 'dup' }),
    path('second/<int:pk>/', b, { name: 'dup' }),
  ]);
  assert.equal(r.reverse('another'), '/another/');
  assert.equal(r.reverse('another', { kwargs: { version: 'v1' } }), '/v1/another/');
  assert.equal(r.reverse('dup', { kwargs: { pk: 1 } }), '/second/1/');
});

test('NoReverseMatch: unknown names, wrong or missing kwargs, values outside the converter; mixing args and kwargs', () => {
  const r = new URLResolver([path('items/<int:pk>/', a, { name: 'item' }), path('s/<str:s>/', a, { name: 's' })]);
  assert.throws(() => r.reverse('missing'), (e: unknown) => e instanceof NoReverseMatch && e.code === 'ERR_REST_NO_REVERSE_MATCH' && e.message === "Reverse for 'missing' not found. 'missing' is not a valid view name.");
  assert.throws(
    () => r.reverse('item', { kwargs: { pk: 'abc' } }),
    (e: unknown) => e instanceof NoReverseMatch && e.message === `Reverse for 'item' with keyword arguments '{"pk":"abc"}' not found. 1 pattern(s) tried: ['items/<int:pk>/']`,
  );
  assert.throws(() => r.reverse('item', { kwargs: { pk: -1 } }), NoReverseMatch);
  assert.throws(() => r.reverse('item', { kwargs: { id: 1 } }), NoReverseMatch);
  assert.throws(() => r.reverse('item', { kwargs: { pk: 1, extra: 2 } }), NoReverseMatch);
  assert.throws(() => r.reverse('item'), /with no arguments not found/);
  assert.throws(() => r.reverse('item', { args: [1, 2] }), /with arguments '\[1,2\]' not found/);
  assert.throws(() => r.reverse('s', { kwargs: { s: 'a/b' } }), NoReverseMatch, 'str does not take a slash');
  assert.throws(() => r.reverse('s', { kwargs: { s: '' } }), NoReverseMatch);
  assert.equal(r.reverse('item', { args: [7] }), '/items/7/');
  assert.equal(r.reverse('item', { kwargs: { pk: '7' } }), '/items/7/', 'a digit string fits int');
  assert.equal(r.reverse('item', { kwargs: { pk: 7, ignored: undefined } }), '/items/7/');
  assert.throws(() => r.reverse('item', { args: [1], kwargs: { pk: 1 } }), ConfigurationError);
});

test('percent-encoding of reversed paths (Django quoting); the path converter keeps slashes', () => {
  const r = new URLResolver([path('s/<str:s>/', a, { name: 's' }), path('p/<path:p>', a, { name: 'p' }), path('<path:p>/end/', a, { name: 'lead' }), path('café/', a, { name: 'lit' })]);
  assert.equal(r.reverse('s', { kwargs: { s: 'a b?c#d%e' } }), '/s/a%20b%3Fc%23d%25e/');
  assert.equal(r.reverse('s', { kwargs: { s: "~:@!$&'()*+,;=" } }), "/s/~:@!$&'()*+,;=/");
  assert.equal(r.reverse('s', { kwargs: { s: 'é€😀' } }), '/s/%C3%A9%E2%82%AC%F0%9F%98%80/');
  assert.equal(r.reverse('s', { kwargs: { s: '"<>[]^`{|}\\' } }), '/s/%22%3C%3E%5B%5D%5E%60%7B%7C%7D%5C/');
  assert.equal(r.reverse('p', { kwargs: { p: 'a/b c/d' } }), '/p/a/b%20c/d');
  assert.equal(r.reverse('lead', { kwargs: { p: '/evil.example' } }), '/%2Fevil.example/end/', 'a leading // is escaped');
  assert.equal(r.reverse('lit'), '/caf%C3%A9/');
  assert.equal(r.resolve('/café/')?.urlName, 'lit', 'routes match the decoded path');
  assert.equal(quotePath('/plain/path/'), '/plain/path/');
});

test('property: reverse then decode then resolve gives back the str value', () => {
  const r = new URLResolver([path('s/<str:s>/', a, { name: 's' }), path('p/<path:p>', b, { name: 'p' })]);
  fc.assert(
    fc.property(fc.string({ unit: 'binary', minLength: 1 }).filter((s) => !s.includes('/')), (s) => {
      const url = r.reverse('s', { kwargs: { s } });
      assert.match(url, /^\/s\/[A-Za-z0-9_.\-~!$&'()*+,;=:@%]+\/$/);
      assert.deepEqual(r.resolve(decodeURIComponent(url))?.kwargs, { s });
    }),
  );
  fc.assert(
    // JavaScript's `.` (the path converter's regex) excludes line terminators.
    fc.property(fc.string({ unit: 'binary', minLength: 1 }).filter((p) => !/[\n\r\u2028\u2029]/.test(p)), (p) => {
      const url = r.reverse('p', { kwargs: { p } });
      assert.equal(url.startsWith('/p/'), true);
      assert.deepEqual(r.resolve(decodeURIComponent(url))?.kwargs, { p });
    }),
  );
  fc.assert(
    fc.property(fc.nat(), (n) => {
      const ints = new URLResolver([path('i/<int:n>/', a, { name: 'i' })]);
      assert.deepEqual(ints.resolve(ints.reverse('i', { kwargs: { n } }))?.kwargs, { n });
    }),
    { numRuns: 50 },
  );
});

test('routes() lists endpoints in order with templates, parameters and view names', () => {
  const routes = nested().routes();
  assert.deepEqual(
    routes.map((r) => [r.route, r.viewName, r.namespace]),
    [
      ['v1/namespaced/{pk}/', 'v1:namespaced', 'v1'],
      ['v1/nested/namespaced/{pk}/', 'v1:nested-namespace:nested', 'v1:nested-namespace'],
      ['v1/plain/deep/', 'v1:deep', 'v1'],
      ['v2/namespaced/{pk}/', 'v2:namespaced', 'v2'],
      ['v2/nested/namespaced/{pk}/', 'v2:nested-namespace:nested', 'v2:nested-namespace'],
      ['v2/plain/deep/', 'v2:deep', 'v2'],
      ['non-api/{pk}/', 'non-api-view', ''],
    ],
  );
  assert.deepEqual(routes[0]?.pathParams, [{ name: 'pk', converter: 'int', regex: '[0-9]+' }]);
  assert.equal(routes[0]?.pattern, 'v1/namespaced/<int:pk>/');
  assert.equal(routes[0]?.view, a);
  assert.ok(new RegExp(routes[0]?.regex as string).test('v1/namespaced/3/'));
  const re = new URLResolver([rePath('^(?P<version>v1|v2)/items/(?P<pk>[0-9]+)/$', a, { name: 'x' })]).routes();
  assert.deepEqual(re[0]?.pathParams, [
    { name: 'version', converter: null, regex: null },
    { name: 'pk', converter: null, regex: null },
  ]);
  assert.equal(re[0]?.route, '{version}/items/{pk}/');
});

test('configuration mistakes fail when the routes are built', () => {
  assert.throws(() => path('/items/', a), (e: unknown) => e instanceof ImproperlyConfigured && /without a leading slash \('items\/'\)/.test(e.message));
  assert.throws(() => path('items/<nope:pk>/', a), (e: unknown) => e instanceof ImproperlyConfigured && e.message === "URL route 'items/<nope:pk>/' uses invalid converter 'nope'.");
  assert.throws(() => path('items/<int:1pk>/', a), /isn't a valid identifier/);
  assert.throws(() => path('items/<int: pk>/', a), /whitespace/);
  assert.throws(() => path('items/<pk>/<pk>/', a), /twice/);
  assert.throws(() => rePath('^(unclosed/$', a), ImproperlyConfigured);
  class NotAFunction {}
  assert.throws(() => path('x/', NotAFunction as unknown as ViewFunction), /asView\(\)/);
  assert.throws(() => path('x/', 'nope' as unknown as ViewFunction), ConfigurationError);
  assert.throws(() => path('x/', include([]), { name: 'x' }), ConfigurationError);
  assert.throws(() => include([{} as never]), ConfigurationError);
  assert.throws(() => include([], { namespace: 'a:b' }), ConfigurationError);
  assert.throws(() => path('x/', a, { name: 'ns:x' }), ConfigurationError);
});

test('the default URL configuration', () => {
  setDefaultUrlconf(null);
  assert.throws(() => getDefaultUrlconf(), ImproperlyConfigured);
  const r = new URLResolver([path('', a, { name: 'root' })]);
  setDefaultUrlconf(r);
  assert.equal(getDefaultUrlconf(), r);
  assert.equal(getDefaultUrlconf().reverse('root'), '/');
  setDefaultUrlconf(null);
  assert.throws(() => setDefaultUrlconf({} as URLResolver), ConfigurationError);
});

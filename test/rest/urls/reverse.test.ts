import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { include, path, rePath } from '../../../src/rest/urls/patterns.js';
import { URLResolver } from '../../../src/rest/urls/resolver.js';
import { quotePath } from '../../../src/rest/urls/reverse.js';
import { ConfigurationError, NoReverseMatch } from '../../../src/rest/errors.js';
import { a, b, nested } from './fixtures.js';

test('toUrl throwing skips the candidate', () => {
  const year = {
    regex: '[0-9]{4}',
    toValue: Number,
    toUrl(v: unknown) {
      if (typeof v !== 'number') throw new TypeError('year must be a number');
      return String(v).padStart(4, '0');
    },
  };
  const r = new URLResolver([path('y/<year:y>/', a, { name: 'y', converters: { year } })]);
  assert.equal(r.reverse('y', { kwargs: { y: 987 } }), '/y/0987/');
  assert.throws(() => r.reverse('y', { kwargs: { y: '2020' } }), NoReverseMatch);
});

test('reverse through namespaces, nested namespaces and namespace-less includes', () => {
  const r = nested();
  assert.equal(r.reverse('v1:namespaced', { kwargs: { pk: 3 } }), '/v1/namespaced/3/');
  assert.equal(r.reverse('v2:namespaced', { kwargs: { pk: 5 } }), '/v2/namespaced/5/');
  assert.equal(r.reverse('v1:nested-namespace:nested', { kwargs: { pk: 3 } }), '/v1/nested/namespaced/3/');
  assert.equal(r.reverse('v2:deep'), '/v2/plain/deep/');
  assert.equal(r.reverse('non-api-view', { kwargs: { pk: 10 } }), '/non-api/10/');
  assert.throws(() => r.reverse('namespaced', { kwargs: { pk: 3 } }), /Reverse for 'namespaced' not found/);
  assert.throws(
    () => r.reverse('v3:namespaced', { kwargs: { pk: 3 } }),
    (e: unknown) => e instanceof NoReverseMatch && e.message === "'v3' is not a registered namespace",
  );
  assert.throws(
    () => r.reverse('v1:nope:nested', { kwargs: { pk: 3 } }),
    (e: unknown) => e instanceof NoReverseMatch && e.message === "'nope' is not a registered namespace inside 'v1'",
  );
  // An application name picks the instance named like it, else the last deployed.
  assert.equal(r.reverse('restframeworkv1:namespaced', { kwargs: { pk: 1 } }), '/v1/namespaced/1/');
  const shared = [path('x/', a, { name: 'x' })];
  const apps = new URLResolver([
    path('one/', include(shared, { namespace: 'one', appName: 'app' })),
    path('two/', include(shared, { namespace: 'two', appName: 'app' })),
  ]);
  assert.equal(apps.reverse('app:x'), '/two/x/');
  const withDefault = new URLResolver([
    path('app/', include(shared, { appName: 'app' })),
    path('two/', include(shared, { namespace: 'two', appName: 'app' })),
  ]);
  assert.equal(
    withDefault.reverse('app:x'),
    '/app/x/',
    'the instance whose namespace equals the app name is the default',
  );
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
  assert.throws(
    () => r.reverse('missing'),
    (e: unknown) =>
      e instanceof NoReverseMatch &&
      e.code === 'ERR_REST_NO_REVERSE_MATCH' &&
      e.message === "Reverse for 'missing' not found. 'missing' is not a valid view name.",
  );
  assert.throws(
    () => r.reverse('item', { kwargs: { pk: 'abc' } }),
    (e: unknown) =>
      e instanceof NoReverseMatch &&
      e.message ===
        `Reverse for 'item' with keyword arguments '{"pk":"abc"}' not found. 1 pattern(s) tried: ['items/<int:pk>/']`,
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
  const r = new URLResolver([
    path('s/<str:s>/', a, { name: 's' }),
    path('p/<path:p>', a, { name: 'p' }),
    path('<path:p>/end/', a, { name: 'lead' }),
    path('café/', a, { name: 'lit' }),
  ]);
  assert.equal(r.reverse('s', { kwargs: { s: 'a b?c#d%e' } }), '/s/a%20b%3Fc%23d%25e/');
  assert.equal(r.reverse('s', { kwargs: { s: "~:@!$&'()*+,;=" } }), "/s/~:@!$&'()*+,;=/");
  assert.equal(r.reverse('s', { kwargs: { s: 'é€😀' } }), '/s/%C3%A9%E2%82%AC%F0%9F%98%80/');
  assert.equal(r.reverse('s', { kwargs: { s: '"<>[]^`{|}\\' } }), '/s/%22%3C%3E%5B%5D%5E%60%7B%7C%7D%5C/');
  assert.equal(r.reverse('p', { kwargs: { p: 'a/b c/d' } }), '/p/a/b%20c/d');
  assert.equal(
    r.reverse('lead', { kwargs: { p: '/evil.example' } }),
    '/%2Fevil.example/end/',
    'a leading // is escaped',
  );
  assert.equal(r.reverse('lit'), '/caf%C3%A9/');
  assert.equal(r.resolve('/café/')?.urlName, 'lit', 'routes match the decoded path');
  assert.equal(quotePath('/plain/path/'), '/plain/path/');
});

test('property: reverse then decode then resolve gives back the str value', () => {
  const r = new URLResolver([path('s/<str:s>/', a, { name: 's' }), path('p/<path:p>', b, { name: 'p' })]);
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary', minLength: 1 }).filter((s) => !s.includes('/')),
      (s) => {
        const url = r.reverse('s', { kwargs: { s } });
        assert.match(url, /^\/s\/[A-Za-z0-9_.\-~!$&'()*+,;=:@%]+\/$/);
        assert.deepEqual(r.resolve(decodeURIComponent(url))?.kwargs, { s });
      },
    ),
  );
  fc.assert(
    // JavaScript's `.` (the path converter's regex) excludes line terminators.
    fc.property(
      fc.string({ unit: 'binary', minLength: 1 }).filter((p) => !/[\n\r\u2028\u2029]/.test(p)),
      (p) => {
        const url = r.reverse('p', { kwargs: { p } });
        assert.equal(url.startsWith('/p/'), true);
        assert.deepEqual(r.resolve(decodeURIComponent(url))?.kwargs, { p });
      },
    ),
  );
  fc.assert(
    fc.property(fc.nat(), (n) => {
      const ints = new URLResolver([path('i/<int:n>/', a, { name: 'i' })]);
      assert.deepEqual(ints.resolve(ints.reverse('i', { kwargs: { n } }))?.kwargs, { n });
    }),
    { numRuns: 50 },
  );
});

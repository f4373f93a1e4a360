import { test } from 'node:test';
import assert from 'node:assert/strict';
import { path, withConverters } from '../../../src/rest/urls/patterns.js';
import { formatSuffixPatterns } from '../../../src/rest/urls/format-suffix.js';
import { URLResolver } from '../../../src/rest/urls/resolver.js';
import { ConfigurationError } from '../../../src/rest/errors.js';
import { view } from './fixtures.js';

const a = view('a');
const b = view('b');

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
  assert.deepEqual(
    r.resolve('/int/99999999999999999999/')?.kwargs,
    { pk: 99999999999999999999n },
    'beyond 2^53: a bigint, as Django matches any digits',
  );
  assert.deepEqual(r.resolve('/str/café au lait/')?.kwargs, { name: 'café au lait' });
  assert.equal(r.resolve('/str/a/b/'), null);
  assert.deepEqual(r.resolve('/slug/my-slug_1/')?.kwargs, { s: 'my-slug_1' });
  assert.equal(r.resolve('/slug/no.dots/'), null);
  assert.deepEqual(r.resolve(`/uuid/${UUID}/`)?.kwargs, { u: UUID });
  assert.equal(r.resolve(`/uuid/${UUID.toUpperCase()}/`), null);
  assert.deepEqual(r.resolve('/path/a/b/c.txt')?.kwargs, { rest: 'a/b/c.txt' });
  assert.equal(r.resolve('/path/'), null);
});

test('custom converters belong to their routes; toValue throwing falls through to the next pattern', () => {
  const even = {
    regex: '[0-9]+',
    toValue(s: string) {
      const n = Number(s);
      if (n % 2) throw new Error('odd');
      return n;
    },
    toUrl: (v: unknown) => String(v),
  };
  const r = new URLResolver([
    path('n/<even:n>/', a, { name: 'even', converters: { even } }),
    path('n/<int:n>/', b, { name: 'any' }),
  ]);
  assert.equal(r.resolve('/n/4/')?.func, a);
  assert.equal(r.resolve('/n/5/')?.func, b);
  assert.equal(r.reverse('even', { kwargs: { n: 4 } }), '/n/4/');
  // Nothing is registered process-wide: another route without the converter does not know it.
  assert.throws(() => path('m/<even:n>/', a), /invalid converter 'even'/);
  // A group of routes shares converters through withConverters(); a built-in name cannot be shadowed.
  const evenPath = withConverters({ even });
  const r2 = new URLResolver(formatSuffixPatterns([evenPath('e/<even:n>/', a, { name: 'e' })]));
  assert.equal(r2.resolve('/e/6/')?.func, a);
  assert.deepEqual(r2.resolve('/e/6.json')?.kwargs, { n: 6, format: 'json' });
  assert.equal(r2.resolve('/e/7/'), null);
  assert.throws(() => withConverters({ int: even }), ConfigurationError);
  assert.throws(() => path('x/<int:n>/', a, { converters: { int: even } }), ConfigurationError);
  assert.throws(
    () => path('x/<bad:n>/', a, { converters: { bad: { regex: 1 } as unknown as typeof even } }),
    ConfigurationError,
  );
});

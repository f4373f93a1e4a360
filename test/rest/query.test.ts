import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  QueryParams,
  parseQuery,
  encodeComponent,
  decodeComponent,
  replaceQueryParam,
  removeQueryParam,
  pyInt,
  pyIntBig,
  positiveInt,
} from '../../src/rest/query.js';

test('QueryParams: last value wins, raw order kept, blanks kept', () => {
  const q = new QueryParams('?page=3&page=2&a&b=&q=a+b%2Fc');
  assert.equal(q.get('page'), '2');
  assert.deepEqual(q.getAll('page'), ['3', '2']);
  assert.equal(q.get('a'), '');
  assert.equal(q.get('b'), '');
  assert.equal(q.get('q'), 'a b/c');
  assert.equal(q.get('missing'), null);
  assert.deepEqual(q.keys(), ['page', 'a', 'b', 'q']);
  assert.equal(q.has('a'), true);
  assert.deepEqual(parseQuery('&&x=1&&'), [['x', '1']]);
});

test('decoding: invalid UTF-8 becomes U+FFFD, malformed escapes stay', () => {
  assert.equal(decodeComponent('%FF'), '\ufffd');
  assert.equal(decodeComponent('%zz%41'), '%zzA');
  assert.equal(decodeComponent('%C3%A9'), 'é');
});

test('encodeComponent matches Python quote_plus(safe="")', () => {
  assert.equal(encodeComponent('a b/c'), 'a+b%2Fc');
  assert.equal(encodeComponent('é*~!'), '%C3%A9%2A~%21');
  assert.equal(encodeComponent("_.-~'()"), '_.-~%27%28%29');
  assert.equal(encodeComponent('😀'), '%F0%9F%98%80');
  assert.equal(encodeComponent('\ud800'), '%EF%BF%BD');
});

test('link building: reference section 1.2 examples', () => {
  const base = 'http://testserver/page/items/';
  assert.equal(
    replaceQueryParam(`${base}?page=2&zeta=1&alpha=&page_size=5`, 'page', 3),
    `${base}?alpha=&page=3&page_size=5&zeta=1`,
  );
  assert.equal(
    removeQueryParam(`${base}?page=2&zeta=1&alpha=&page_size=5`, 'page'),
    `${base}?alpha=&page_size=5&zeta=1`,
  );
  assert.equal(replaceQueryParam(`${base}?page=2&q=a%20b%2Fc`, 'page', 3), `${base}?page=3&q=a+b%2Fc`);
  assert.equal(replaceQueryParam(`${base}?page=2&x=%C3%A9%2A~%21`, 'page', 3), `${base}?page=3&x=%C3%A9%2A~%21`);
  assert.equal(replaceQueryParam(`${base}?page=2&x=%FF`, 'page', 3), `${base}?page=3&x=%EF%BF%BD`);
  assert.equal(replaceQueryParam(`${base}?a&page=2`, 'page', 3), `${base}?a=&page=3`);
  assert.equal(removeQueryParam(`${base}?a&page=2`, 'page'), `${base}?a=`);
  assert.equal(removeQueryParam(`${base}?page=2`, 'page'), base);
  assert.equal(replaceQueryParam(`${base}?b=2&b=1&page=1#frag`, 'page', 2), `${base}?b=2&b=1&page=2#frag`);
  assert.equal(replaceQueryParam(`${base}?cursor=x`, 'cursor', 'cD00ODY='), `${base}?cursor=cD00ODY%3D`);
});

test('keys sort by code point, not UTF-16 unit', () => {
  const url = replaceQueryParam('http://h/?\uff61=1&\u{1F600}=2', 'a', 1);
  assert.equal(url, 'http://h/?a=1&%EF%BD%A1=1&%F0%9F%98%80=2');
});

test('pyInt: Python int() parsing (reference 1.1)', () => {
  const ok: [string, number][] = [
    ['2', 2],
    [' 2', 2],
    ['2 ', 2],
    ['+2', 2],
    ['02', 2],
    ['1_0', 10],
    ['٢', 2],
    ['２', 2],
    ['-3', -3],
    ['\t7\n', 7],
    ['𝟗', 9],
  ];
  for (const [s, v] of ok) assert.equal(pyInt(s), v, JSON.stringify(s));
  for (const s of ['1.5', '2.0', '1e1', '0x2', '', 'abc', ' ', '_1', '1_', '1__0', '+', '- 1', '\ufeff1'])
    assert.equal(pyInt(s), null, JSON.stringify(s));
  assert.equal(pyIntBig('99999999999999999999999'), 99999999999999999999999n);
});

test('pyInt: at most 4300 digits, as CPython 3.11+ reads (int() raises ValueError beyond)', () => {
  assert.equal(pyIntBig('9'.repeat(4300)), BigInt('9'.repeat(4300)));
  assert.equal(pyIntBig('9'.repeat(4301)), null);
  assert.equal(pyIntBig(`-${'1_'.repeat(4299)}1`), -BigInt('1'.repeat(4300)), 'underscores do not count');
  assert.equal(pyIntBig(`${' '.repeat(5000)}7${' '.repeat(5000)}`), 7n, 'nor does surrounding whitespace');
  assert.equal(positiveInt('1'.repeat(4301), { cutoff: 100 }), null);
});

test('positiveInt: strict, cutoff', () => {
  assert.equal(positiveInt('1000', { strict: true, cutoff: 100 }), 100);
  assert.equal(positiveInt('0', { strict: true }), null);
  assert.equal(positiveInt('0'), 0);
  assert.equal(positiveInt('-1'), null);
  assert.equal(positiveInt('abc'), null);
  assert.equal(positiveInt('50', { cutoff: 0 }), 50);
  assert.equal(positiveInt('50', { cutoff: null }), 50);
});

test('property: pyInt agrees with decimal strings of integers', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (n) => pyIntBig(String(n)) === n));
});

test('property: encode then decode is the identity for well-formed strings', () => {
  fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => decodeComponent(encodeComponent(s)) === s));
});

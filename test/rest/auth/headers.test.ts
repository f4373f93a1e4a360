import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBasicHeader, parseTokenHeader } from '../../../src/rest/auth/headers.js';
import { AuthenticationFailed } from '../../../src/rest/errors.js';

function fails(f: () => unknown, detail: string, secret?: string): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof AuthenticationFailed);
    assert.equal(e.detail, detail);
    assert.equal(e.status, 401);
    if (secret !== undefined) assert.ok(!e.message.includes(secret), 'the message holds no credential');
    return true;
  });
}

test('Token header: DRF 3.14 answers and texts', () => {
  const key = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';
  assert.equal(parseTokenHeader(`Token ${key}`), key);
  assert.equal(parseTokenHeader(`  tOKEN\t${key}\r\n`), key);
  assert.equal(parseTokenHeader(Buffer.from(`Token ${key}`)), key);
  assert.equal(parseTokenHeader(`Bearer ${key}`, 'Bearer'), key);
  assert.equal(parseTokenHeader(`Bearer ${key}`), null);
  assert.equal(parseTokenHeader(undefined), null);
  assert.equal(parseTokenHeader(''), null);
  assert.equal(parseTokenHeader(`Token\xa0${key}`), null, 'U+00A0 is not a separator for bytes.split()');
  assert.equal(parseTokenHeader('Token k\xc3\xa9y'), 'kéy', 'latin-1 characters are the bytes, read as UTF-8');
  assert.equal(parseTokenHeader('Token kéy€'), 'kéy€', 'beyond latin-1: its UTF-8 bytes');
  fails(() => parseTokenHeader('Token'), 'Invalid token header. No credentials provided.');
  fails(() => parseTokenHeader(`Token ${key} x`), 'Invalid token header. Token string should not contain spaces.', key);
  fails(
    () => parseTokenHeader(`Token ${key}\x0bx`),
    'Invalid token header. Token string should not contain spaces.',
    key,
  );
  fails(
    () => parseTokenHeader('Token k\xe9y'),
    'Invalid token header. Token string should not contain invalid characters.',
  );
  fails(
    () => parseTokenHeader('Token \xed\xa0\x80'),
    'Invalid token header. Token string should not contain invalid characters.',
  );
});

test('Basic header: DRF 3.14 decoding rules and texts', () => {
  const b64 = (s: string, enc: BufferEncoding = 'utf8'): string => Buffer.from(s, enc).toString('base64');
  assert.deepEqual(parseBasicHeader(`Basic ${b64('ann:s3cr:et')}`), { userid: 'ann', password: 's3cr:et' });
  assert.deepEqual(parseBasicHeader(`basic ${b64('ann')}`), { userid: 'ann', password: '' });
  assert.deepEqual(parseBasicHeader(`Basic ${b64('jörg:pä')}`), { userid: 'jörg', password: 'pä' });
  assert.deepEqual(parseBasicHeader(`Basic ${b64('jörg:pä', 'latin1')}`), { userid: 'jörg', password: 'pä' });
  assert.deepEqual(parseBasicHeader('Basic YTpi!!'), { userid: 'a', password: 'b' }, 'outside the alphabet: skipped');
  assert.deepEqual(parseBasicHeader('Basic YQ==garbage'), { userid: 'a', password: '' }, 'stops at padding');
  assert.equal(parseBasicHeader(`Token ${b64('a:b')}`), null);
  assert.equal(parseBasicHeader(undefined), null);
  fails(() => parseBasicHeader('Basic'), 'Invalid basic header. No credentials provided.');
  fails(() => parseBasicHeader(' BASIC \t '), 'Invalid basic header. No credentials provided.');
  fails(
    () => parseBasicHeader(`Basic ${b64('ann:pw')} x`),
    'Invalid basic header. Credentials string should not contain spaces.',
    b64('ann:pw'),
  );
  for (const bad of ['Y', 'YQ', 'YQ=', 'YWJjZA', '====Y'])
    fails(
      () => parseBasicHeader(`Basic ${bad}`),
      'Invalid basic header. Credentials not correctly base64 encoded.',
      bad,
    );
});

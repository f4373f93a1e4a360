import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createToken,
  storedTokenFromKey,
  tokenHash,
  tokenPrefix,
  TOKEN_PREFIX_LENGTH,
  verifyToken,
  type StoredToken,
} from '../../../src/rest/auth/tokens.js';
import { CredentialFormatError } from '../../../src/rest/errors.js';

test('createToken: a DRF-shaped key shown once, stored as a prefix and a SHA-256', () => {
  const t = createToken();
  assert.match(t.key, /^[0-9a-f]{40}$/);
  assert.equal(TOKEN_PREFIX_LENGTH, 8);
  assert.equal(t.prefix, t.key.slice(0, 8));
  assert.equal(t.hash, createHash('sha256').update(t.key).digest('hex'));
  assert.deepEqual({ prefix: t.stored.prefix, hash: t.stored.hash }, { prefix: t.prefix, hash: t.hash });
  assert.equal(t.stored.expires, null);
  assert.equal(t.stored.revoked, null);
  assert.ok(!JSON.stringify(t.stored).includes(t.key), 'the stored record does not hold the key');
  const keys = new Set(Array.from({ length: 200 }, () => createToken().key));
  assert.equal(keys.size, 200);
});

test('verifyToken: the key verifies; any other key, prefix-equal or not, is invalid', () => {
  const { key, stored } = createToken();
  assert.deepEqual(verifyToken(key, stored), { ok: true });
  const flipped = key.slice(0, 39) + (key[39] === '0' ? '1' : '0');
  assert.equal(tokenPrefix(flipped), stored.prefix);
  for (const other of [flipped, key.toUpperCase(), key + ' ', key.slice(0, 8), '', createToken().key])
    assert.deepEqual(verifyToken(other, stored), { ok: false, reason: 'invalid' }, other);
});

test('verifyToken: expiry and revocation, checked only for the right key', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const { key, stored } = createToken({ now, expires: new Date('2026-11-29T12:00:00Z') });
  assert.equal(stored.created.getTime(), now.getTime());
  assert.deepEqual(verifyToken(key, stored, now), { ok: true });
  assert.deepEqual(verifyToken(key, stored, new Date('2026-11-29T11:59:59.999Z')), { ok: true });
  assert.deepEqual(verifyToken(key, stored, new Date('2026-11-29T12:00:00Z')), { ok: false, reason: 'expired' });
  const revoked: StoredToken = { ...stored, revoked: new Date('2026-11-28T13:00:00Z') };
  assert.deepEqual(verifyToken(key, revoked, now), { ok: false, reason: 'revoked' });
  assert.deepEqual(verifyToken(createToken().key, revoked, now), { ok: false, reason: 'invalid' });
  assert.deepEqual(verifyToken(createToken().key, stored, new Date('2030-01-01')), { ok: false, reason: 'invalid' });
});

test("storedTokenFromKey: a DRF project's existing key keeps working", () => {
  const drfKey = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';
  const row = storedTokenFromKey(drfKey, { created: new Date('2024-01-01T00:00:00Z') });
  assert.equal(row.prefix, '9944b091');
  assert.equal(row.hash, tokenHash(drfKey));
  assert.deepEqual(verifyToken(drfKey, row), { ok: true });
});

test('a malformed stored hash is a typed error that holds neither key nor hash', () => {
  const { key, stored } = createToken();
  for (const hash of ['', stored.hash.toUpperCase(), stored.hash.slice(1), stored.hash + '0', key]) {
    assert.throws(
      () => verifyToken(key, { ...stored, hash }),
      (e: unknown) => {
        assert.ok(e instanceof CredentialFormatError);
        assert.equal(e.code, 'ERR_REST_CREDENTIAL_FORMAT');
        assert.ok(!e.message.includes(key) && (hash === '' || !e.message.includes(hash)));
        return true;
      },
    );
  }
});

test('structure: keys from randomBytes, hashes compared with timingSafeEqual only', () => {
  const src = readFileSync(new URL('../../../src/rest/auth/tokens.ts', import.meta.url), 'utf8');
  const code = src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  assert.match(code, /randomBytes\(20\)/);
  assert.doesNotMatch(code, /Math\.random/);
  assert.match(code, /timingSafeEqual\(/);
  assert.doesNotMatch(code, /\.equals\(|\.compare\(|hash\s*[!=]==|[!=]==\s*[\w.]*hash\b/i);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pbkdf2Sync, scryptSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  DEFAULT_LIMITS,
  DEFAULT_SCRYPT,
  hashPassword,
  needsRehash,
  verifyPassword,
  type ScryptParams,
} from '../../../src/rest/auth/passwords.js';
import { CredentialFormatError } from '../../../src/rest/errors.js';

const FAST: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };
const SECRET = 'hunter2-very-secret';

function django(digest: 'sha256' | 'sha1', password: string, salt: string, iterations: number): string {
  const key = pbkdf2Sync(password, salt, iterations, digest === 'sha256' ? 32 : 20, digest);
  return `pbkdf2_${digest}$${iterations}$${salt}$${key.toString('base64')}`;
}

async function refused(
  p: Promise<unknown> | (() => unknown),
  code: 'ERR_REST_CREDENTIAL_FORMAT' | 'ERR_REST_CREDENTIAL_LIMIT',
  secrets: string[],
): Promise<void> {
  await assert.rejects(
    () => Promise.resolve().then(() => (typeof p === 'function' ? p() : p)),
    (e: unknown) => {
      assert.ok(e instanceof CredentialFormatError, String(e));
      assert.equal(e.code, code);
      for (const s of secrets) assert.ok(!e.message.includes(s), `the message does not hold ${s}`);
      return true;
    },
  );
}

test('scrypt with the default parameters: the OWASP choice, format, round trip, no rehash', async () => {
  assert.deepEqual({ ...DEFAULT_SCRYPT }, { N: 131072, r: 8, p: 1 });
  const encoded = await hashPassword(SECRET);
  assert.match(encoded, /^scrypt\$N=131072,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.equal(await verifyPassword(SECRET, encoded), true);
  assert.equal(await verifyPassword(SECRET + ' ', encoded), false);
  assert.equal(needsRehash(encoded), false);
  // The hash is scrypt itself, with the salt it names.
  const [, , salt, hash] = encoded.split('$') as [string, string, string, string];
  const expected = scryptSync(SECRET, Buffer.from(salt, 'base64'), 32, { N: 131072, r: 8, p: 1, maxmem: 256 << 20 });
  assert.equal(Buffer.from(hash, 'base64').equals(expected), true);
});

test('scrypt: salts differ, Unicode passwords, other parameters verify and ask for a rehash', async () => {
  const a = await hashPassword('pässwörd 😀', FAST);
  const b = await hashPassword('pässwörd 😀', FAST);
  assert.notEqual(a, b);
  assert.equal(await verifyPassword('pässwörd 😀', a), true);
  assert.equal(await verifyPassword('passwörd 😀', a), false);
  assert.equal(await verifyPassword('', await hashPassword('', FAST)), true);
  assert.equal(needsRehash(a), true, 'weaker than the default');
  assert.equal(needsRehash(a, FAST), false, 'the current policy');
  assert.equal(needsRehash(a, { ...FAST, r: 16 }), true);
});

test('Django PBKDF2 (sha256 and sha1) verify and always ask for a rehash; unusable passwords never verify', async () => {
  for (const digest of ['sha256', 'sha1'] as const) {
    const encoded = django(digest, 'pw', 'NaCl', 1000);
    assert.equal(await verifyPassword('pw', encoded), true);
    assert.equal(await verifyPassword('pW', encoded), false);
    assert.equal(needsRehash(encoded), true);
  }
  assert.equal(await verifyPassword('', '!unusableXYZ'), false);
  assert.equal(await verifyPassword('!unusableXYZ', '!unusableXYZ'), false);
  assert.equal(needsRehash('!unusableXYZ'), false);
});

test('limits: hashes asking for too much work are refused before any work, with a typed error', async () => {
  const overIterations = django('sha256', 'pw', 'salt', 1).replace('$1$', `$${DEFAULT_LIMITS.maxIterations + 1}$`);
  await refused(verifyPassword('pw', overIterations), 'ERR_REST_CREDENTIAL_LIMIT', ['pw$', 'salt$']);
  await refused(() => needsRehash(overIterations), 'ERR_REST_CREDENTIAL_LIMIT', []);
  const fast = await hashPassword('pw', FAST);
  const [, , salt, hash] = fast.split('$') as [string, string, string, string];
  for (const params of ['N=524288,r=8,p=1', 'N=262144,r=16,p=1', 'N=1024,r=8,p=5'])
    await refused(verifyPassword('pw', `scrypt$${params}$${salt}$${hash}`), 'ERR_REST_CREDENTIAL_LIMIT', [salt, hash]);
  // A caller's own limits: at the limit it verifies, one below it is refused.
  const thousand = django('sha256', 'pw', 'salt', 1000);
  assert.equal(await verifyPassword('pw', thousand, { ...DEFAULT_LIMITS, maxIterations: 1000 }), true);
  await refused(
    verifyPassword('pw', thousand, { ...DEFAULT_LIMITS, maxIterations: 999 }),
    'ERR_REST_CREDENTIAL_LIMIT',
    [],
  );
  await refused(
    verifyPassword('pw', await hashPassword('pw', FAST), { ...DEFAULT_LIMITS, maxScryptMemory: 1024 }),
    'ERR_REST_CREDENTIAL_LIMIT',
    [],
  );
});

test('malformed or unknown encodings throw ERR_REST_CREDENTIAL_FORMAT, naming neither the hash nor the password', async () => {
  const good = await hashPassword(SECRET, FAST);
  const [, , salt, hash] = good.split('$') as [string, string, string, string];
  const bad = [
    '',
    'plaintext',
    `md5$$${salt}$${hash}`,
    `bcrypt_sha256$12$${salt}$${hash}`,
    `scrypt$N=1024,r=8$${salt}$${hash}`,
    `scrypt$N=1000,r=8,p=1$${salt}$${hash}`,
    `scrypt$N=1024,r=0,p=1$${salt}$${hash}`,
    `scrypt$N=1024,r=8,p=1$${salt}$***`,
    `scrypt$N=1024,r=8,p=1$$${hash}`,
    `scrypt$N=1024,r=8,p=1$${salt}$${hash}$extra`,
    `pbkdf2_sha256$-5$salt$${hash}`,
    `pbkdf2_sha256$01$salt$${hash}`,
    `pbkdf2_sha256$1000$$${Buffer.alloc(32).toString('base64')}`,
    `pbkdf2_sha256$1000$salt$${Buffer.alloc(20).toString('base64')}`,
    `pbkdf2_sha1$1000$salt$${Buffer.alloc(32).toString('base64')}`,
  ];
  for (const encoded of bad) {
    await refused(verifyPassword(SECRET, encoded), 'ERR_REST_CREDENTIAL_FORMAT', [SECRET, hash, salt]);
    await refused(() => needsRehash(encoded), 'ERR_REST_CREDENTIAL_FORMAT', [SECRET, hash, salt]);
  }
});

test('structure: hashes are compared with timingSafeEqual only, and hashing is asynchronous', () => {
  const src = readFileSync(new URL('../../../src/rest/auth/passwords.ts', import.meta.url), 'utf8');
  const code = src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  assert.match(code, /timingSafeEqual\(/);
  assert.doesNotMatch(code, /\.equals\(|\.compare\(|scryptSync|pbkdf2Sync/);
  // No === / !== between buffers or hash strings: the only comparisons are of lengths, parameters and names.
  for (const m of code.matchAll(/([\w.[\]]+)\s*[!=]==\s*([\w.'[\]]+)/g)) {
    const pair = `${m[1]} ${m[2]}`;
    assert.doesNotMatch(pair, /\b(key|hash|h\.hash|expected)\b(?!\.length)/, `no direct comparison: ${m[0]}`);
  }
  assert.match(code, /maxmem:/);
});

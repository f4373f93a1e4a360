/**
 * Our credential primitives against Django 3.2 and DRF 3.14 themselves,
 * run live with /usr/bin/python3 (test/rest/auth/drf_oracle.py, one process
 * for the whole batch):
 *
 * - Django's PBKDF2 hashes (`make_password` and the hashers' `encode` at
 *   several iteration counts, sha256 and sha1) verify with our
 *   `verifyPassword`, and a wrong password does not;
 * - our `parseBasicHeader` / `parseTokenHeader` against DRF's
 *   `BasicAuthentication.authenticate` / `TokenAuthentication.authenticate`
 *   (the credential check stubbed to return what the header held) over
 *   fast-check generated headers (seeded: EVENTIDE_AUTH_SEED replays a run):
 *   the same accept/refuse, the same values, the same error text.
 *
 * Skipped when /usr/bin/python3 cannot import DRF; in CI that fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { drfAvailability, PYTHON } from '../../support/drf-peer.js';
import { requireTool } from '../../support/tools.js';
import { verifyPassword, needsRehash } from '../../../src/rest/auth/passwords.js';
import { parseBasicHeader, parseTokenHeader } from '../../../src/rest/auth/headers.js';
import { AuthenticationFailed } from '../../../src/rest/errors.js';

const peer = drfAvailability();
const drf = requireTool('missing' in peer ? peer.missing : null);
const ORACLE = fileURLToPath(new URL('./drf_oracle.py', import.meta.url));
const SEED = process.env.EVENTIDE_AUTH_SEED ? Number(process.env.EVENTIDE_AUTH_SEED) : 29_2026;
const RUNS = 3000;

type Result = { kind: 'none' } | { kind: 'error'; detail: string } | ({ kind: 'ok' } & Record<string, string>);

interface OracleOut {
  hashes: string[];
  basic: Result[];
  token: Result[];
}

function oracle(input: { hashes: [string, string, string, number | null][]; headers: string[] }): OracleOut {
  const r = spawnSync(PYTHON, ['-B', ORACLE], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONWARNINGS: 'ignore' },
  });
  assert.equal(r.status, 0, `drf_oracle.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as OracleOut;
}

function ours(parse: () => Record<string, string> | string | null, field: string): Result {
  try {
    const got = parse();
    if (got === null) return { kind: 'none' };
    return typeof got === 'string' ? { kind: 'ok', [field]: got } : { kind: 'ok', ...got };
  } catch (e) {
    assert.ok(e instanceof AuthenticationFailed, `throws AuthenticationFailed, not ${String(e)}`);
    assert.equal(e.status, 401);
    return { kind: 'error', detail: typeof e.detail === 'string' ? e.detail : JSON.stringify(e.detail) };
  }
}

// Headers: latin-1 strings (one character per byte, as Node's HTTP parser gives them).
const latin1Char = fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c));
const spaceRun = fc
  .array(
    fc.oneof(
      { arbitrary: fc.constant(' '), weight: 12 },
      { arbitrary: fc.constantFrom('\t', '\n', '\r', '\x0b', '\x0c'), weight: 3 },
      { arbitrary: fc.constantFrom('\x1c', '\x1f', '\xa0', '\x85'), weight: 1 },
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((a) => a.join(''));
const scheme = fc.constantFrom(
  'Basic',
  'basic',
  'BASIC',
  'bAsIc',
  'Token',
  'token',
  'TOKEN',
  'Bearer',
  'Tok',
  'B\xe1sic',
  '',
);
const utf8AsLatin1 = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');
const text = fc.string({
  unit: fc.constantFrom('a', 'Z', '0', ':', ' ', 'é', 'ß', '€', '😀', '\xff', '\x00', '='),
  maxLength: 8,
});
const b64Payload = fc.oneof(
  // well formed: userid:password in UTF-8 or latin-1
  fc
    .tuple(text, text, fc.boolean(), fc.boolean())
    .map(([u, p, colon, asLatin1]) =>
      Buffer.from(colon ? `${u}:${p}` : u, asLatin1 ? 'latin1' : 'utf8').toString('base64'),
    ),
  // mangled: base64 with padding and characters moved, dropped or added
  fc
    .tuple(
      fc.uint8Array({ maxLength: 12 }),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('', '=', '==', '!', '-', '_', '\xe9', 'A')), { maxLength: 3 }),
    )
    .map(([bytes, edits]) => {
      let s = Buffer.from(bytes).toString('base64');
      for (const [at, insert] of edits) {
        const i = s.length === 0 ? 0 : at % (s.length + 1);
        s = insert === '' ? s.slice(0, i) + s.slice(i + 1) : s.slice(0, i) + insert + s.slice(i);
      }
      return s;
    }),
  // a token-like key, sometimes with non-ASCII or invalid UTF-8
  fc.constantFrom(
    '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b',
    'k\xe9y',
    utf8AsLatin1('kéy'),
    '\xed\xa0\x80',
    '\xc0\xaf',
  ),
  fc.array(latin1Char, { maxLength: 10 }).map((a) => a.join('')),
);
const header = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.option(spaceRun),
        scheme,
        fc.array(fc.tuple(spaceRun, b64Payload), { maxLength: 3 }),
        fc.option(spaceRun),
      )
      .map(([lead, s, rest, trail]) => (lead ?? '') + s + rest.map(([sp, p]) => sp + p).join('') + (trail ?? '')),
  },
  { weight: 1, arbitrary: fc.array(latin1Char, { maxLength: 16 }).map((a) => a.join('')) },
);

const FIXED = [
  '',
  'Basic',
  'Basic ',
  'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
  'basic YWxhZGRpbjpvcGVuc2VzYW1l extra',
  'Basic YWxhZGRpbg==',
  'Basic YW=xh',
  'Basic YQ',
  'Basic YQ=',
  'Basic YQ==garbage',
  'Basic Y',
  'Basic ====',
  'Basic 6Q==',
  'Token',
  'Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b',
  'Token\t9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b\r\n',
  'Token a b',
  'Token \xff',
  'Token\xa0abc',
  'Token\x1cabc',
  'Bearer abc',
];

const PASSWORDS = ['correct horse battery staple', '', 'pässwörd', '密码😀', ' lead and trail ', 'a$b:c'];
const SALTS = ['abc', 'Xc0ZnFMNqKa0mhBt3OzQ1C', 'sälz'];
const ITERATIONS = [1, 1000, 36_000, 260_000];

test(
  'Django PBKDF2 hashes verify with ours; wrong passwords do not; all need a rehash',
  { skip: drf.skip },
  async () => {
    drf.assert();
    const cases: [string, string, string, number | null][] = [];
    for (const [i, password] of PASSWORDS.entries()) {
      const salt = SALTS[i % SALTS.length] as string;
      cases.push(['pbkdf2_sha256', password, salt, ITERATIONS[i % ITERATIONS.length] as number]);
      cases.push(['pbkdf2_sha1', password, salt, ITERATIONS[(i + 1) % ITERATIONS.length] as number]);
    }
    cases.push(['pbkdf2_sha256', 'default iterations', 'defaultsalt', null]);
    cases.push(['pbkdf2_sha1', 'default iterations', 'defaultsalt', null]);
    const { hashes } = oracle({ hashes: cases, headers: [] });
    assert.equal(hashes.length, cases.length);
    for (const [i, encoded] of hashes.entries()) {
      const [hasher, password] = cases[i] as [string, string, string, number | null];
      assert.ok(encoded.startsWith(`${hasher}$`), encoded);
      assert.equal(await verifyPassword(password, encoded), true, `${hasher} ${JSON.stringify(password)} verifies`);
      assert.equal(await verifyPassword(password + 'x', encoded), false, 'a wrong password is refused');
      assert.equal(
        await verifyPassword(password === '' ? 'y' : password.slice(1), encoded),
        false,
        'a wrong password is refused',
      );
      assert.equal(needsRehash(encoded), true);
    }
  },
);

test('Basic and Token header parsing: the same answers and texts as DRF 3.14', { skip: drf.skip }, (t) => {
  drf.assert();
  const headers = [...FIXED, ...fc.sample(header, { seed: SEED, numRuns: RUNS })];
  const out = oracle({ hashes: [], headers });
  const mismatches: string[] = [];
  const kinds = new Map<string, number>();
  for (const [i, h] of headers.entries()) {
    const basic = ours(() => parseBasicHeader(h) as Record<string, string> | null, 'userid');
    const token = ours(() => parseTokenHeader(h), 'key');
    for (const [name, mine, theirs] of [
      ['basic', basic, out.basic[i]],
      ['token', token, out.token[i]],
    ] as const) {
      const label = `${name}:${mine.kind}${mine.kind === 'error' ? `:${mine.detail}` : ''}`;
      kinds.set(label, (kinds.get(label) ?? 0) + 1);
      try {
        assert.deepEqual(mine, theirs);
      } catch {
        mismatches.push(`${name} ${JSON.stringify(h)}: ours ${JSON.stringify(mine)}, DRF ${JSON.stringify(theirs)}`);
      }
    }
  }
  t.diagnostic(`seed ${SEED}, ${headers.length} headers; outcomes: ${JSON.stringify(Object.fromEntries(kinds))}`);
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} mismatches (seed ${SEED})`);
  // The generator reaches every outcome, so agreement means something.
  for (const label of [
    'basic:none',
    'basic:ok',
    'basic:error:Invalid basic header. No credentials provided.',
    'basic:error:Invalid basic header. Credentials string should not contain spaces.',
    'basic:error:Invalid basic header. Credentials not correctly base64 encoded.',
    'token:none',
    'token:ok',
    'token:error:Invalid token header. No credentials provided.',
    'token:error:Invalid token header. Token string should not contain spaces.',
    'token:error:Invalid token header. Token string should not contain invalid characters.',
  ])
    assert.ok((kinds.get(label) ?? 0) > 0, `generated headers reach ${label}`);
});

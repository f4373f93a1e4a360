/** The SQL layer's error codes agree with docs/errors.md, and the error keeps code, name, target and cause. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SQL_UNAVAILABLE_CODES, SqlUnavailableError } from '../../src/sql/errors.js';

const DOC = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

test('docs/errors.md documents every SQL code with its class, and no code that does not exist', () => {
  const start = DOC.search(/^## SQL layer$/m);
  assert.ok(start >= 0, 'docs/errors.md has a "## SQL layer" section');
  const rest = DOC.slice(start);
  const end = rest.slice(1).search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end + 1);
  const documented = new Map(
    [...section.matchAll(/^### (\S+)\n([\s\S]*?)(?=^### |(?![\s\S]))/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
  for (const code of Object.keys(SQL_UNAVAILABLE_CODES)) {
    assert.match(documented.get(code) ?? '', /Class `SqlUnavailableError`/, `${code} is documented with its class`);
  }
  for (const code of documented.keys()) assert.ok(code in SQL_UNAVAILABLE_CODES, `${code} exists`);
});

test('SqlUnavailableError keeps code, name, target and cause', () => {
  const cause = new Error('ECONNREFUSED');
  const e = new SqlUnavailableError('ERR_SQL_REDIS_UNREACHABLE', 'redis://127.0.0.1:1', 'Redis did not answer', {
    cause,
  });
  assert.equal(e.code, 'ERR_SQL_REDIS_UNREACHABLE');
  assert.equal(e.name, 'SqlUnavailableError');
  assert.equal(e.target, 'redis://127.0.0.1:1');
  assert.equal(e.cause, cause);
  assert.ok(e instanceof Error);
});

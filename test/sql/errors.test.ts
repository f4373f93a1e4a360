/** The SQL layer's error codes agree with docs/errors.md, and the errors keep what they carry. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  SQL_DATETIME_CODES,
  SQL_UNAVAILABLE_CODES,
  SqlDatetimeError,
  SqlUnavailableError,
} from '../../src/sql/errors.js';

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
  for (const code of Object.keys(SQL_DATETIME_CODES)) {
    assert.match(documented.get(code) ?? '', /Class `SqlDatetimeError`/, `${code} is documented with its class`);
  }
  for (const code of documented.keys())
    assert.ok(code in SQL_UNAVAILABLE_CODES || code in SQL_DATETIME_CODES, `${code} exists`);
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

test('SqlDatetimeError keeps code, name, column, storage and value', () => {
  const e = new SqlDatetimeError(
    'ERR_SQL_DATETIME_FORMAT',
    { table: 'item', field: 'created', storage: 'sql-text' },
    '2026-01-05T10:00:00.000Z',
    'item.created holds ...',
  );
  assert.equal(e.code, 'ERR_SQL_DATETIME_FORMAT');
  assert.equal(e.name, 'SqlDatetimeError');
  assert.equal(e.table, 'item');
  assert.equal(e.field, 'created');
  assert.equal(e.storage, 'sql-text');
  assert.equal(e.value, '2026-01-05T10:00:00.000Z');
  assert.equal(e.message, 'item.created holds ...');
  assert.ok(e instanceof Error);
});

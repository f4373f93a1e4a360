import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as errors from '../../src/rest/errors.js';
import {
  REST_ERROR_CODES,
  RestError,
  APIException,
  NotFound,
  ValidationError,
  MethodNotAllowed,
  type RestErrorCode,
} from '../../src/rest/errors.js';

const DOC = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

function restSections(): Map<string, string> {
  const start = DOC.search(/^## REST layer$/m);
  assert.ok(start >= 0, 'docs/errors.md has a "## REST layer" section');
  const out = new Map<string, string>();
  // The REST section runs to the next layer's section (or the end).
  const rest = DOC.slice(start);
  const end = rest.slice(1).search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end + 1);
  for (const m of section.matchAll(/^### (\S+)\n([\s\S]*?)(?=^### |^## |(?![\s\S]))/gm))
    out.set(m[1] as string, m[2] as string);
  return out;
}

test('docs/errors.md documents every REST code with its status and class, and no code that does not exist', () => {
  const documented = restSections();
  for (const [code, { status }] of Object.entries(REST_ERROR_CODES)) {
    const text = documented.get(code);
    assert.ok(text !== undefined, `${code} is documented`);
    assert.match(text, new RegExp(`status ${status}\\b`), `${code} names its status`);
    const cls = /Class `(\w+)`/.exec(text)?.[1];
    assert.ok(cls && typeof (errors as Record<string, unknown>)[cls] === 'function', `${code} names an exported class`);
  }
  for (const code of documented.keys()) assert.ok(code in REST_ERROR_CODES, `${code} exists`);
});

test('every error class keeps code, status, name and cause', () => {
  const cause = new Error('inner');
  const made: RestError[] = [
    new errors.ParseError('x', { cause }),
    new errors.ValidationError('x', { cause }),
    new errors.DisallowedHost('h', { cause }),
    new errors.NotFound('x', { cause }),
    new errors.MethodNotAllowed('PUT', ['GET'], { cause }),
    new errors.NotAcceptable('x', { cause }),
    new errors.UnsupportedMediaType('text/csv', { cause }),
    new errors.RequestTooLarge(10, { cause }),
    new errors.Gone('x', { cause }),
    new errors.APIException('x', { cause }),
    new errors.ImproperlyConfigured('x', { cause }),
    new errors.NoReverseMatch('x', { cause }),
    new errors.ConfigurationError('x', { cause }),
    new errors.ThrottleRateError('x', 'y', { cause }),
    new errors.InjectError('ERR_REST_INJECT_OPTIONS', 'x', { cause }),
    new errors.InjectError('ERR_REST_INJECT_NOT_JSON', 'x', { cause }),
    new errors.AuthenticationFailed('x', { cause }),
    new errors.CredentialFormatError('ERR_REST_CREDENTIAL_FORMAT', 'x', { cause }),
    new errors.CredentialFormatError('ERR_REST_CREDENTIAL_LIMIT', 'x', { cause }),
  ];
  const seen = new Set<RestErrorCode>();
  for (const e of made) {
    assert.ok(e instanceof RestError && e instanceof Error);
    assert.equal(e.status, REST_ERROR_CODES[e.code].status);
    assert.equal(e.name, e.constructor.name);
    assert.equal(e.cause, cause);
    seen.add(e.code);
  }
  assert.deepEqual([...seen].sort(), Object.keys(REST_ERROR_CODES).sort(), 'one class per code');
});

test('API exceptions carry DRF texts and bodies', () => {
  assert.deepEqual(new NotFound().body(), { detail: 'Not found.' });
  assert.deepEqual(new errors.NotAcceptable().body(), { detail: 'Could not satisfy the request Accept header.' });
  const m = new MethodNotAllowed('PUT', ['GET', 'HEAD', 'OPTIONS']);
  assert.deepEqual(m.body(), { detail: 'Method "PUT" not allowed.' });
  assert.deepEqual(m.headers, { Allow: 'GET, HEAD, OPTIONS' });
  assert.deepEqual(new ValidationError({ name: ['This field is required.'] }).body(), {
    name: ['This field is required.'],
  });
  assert.deepEqual(new ValidationError('bad').body(), ['bad']);
  assert.equal(new APIException('busy', { status: 503 }).status, 503);
});

test('AuthenticationFailed: DRF default text, 401, and the 403 a caller may choose', () => {
  const e = new errors.AuthenticationFailed();
  assert.deepEqual(e.body(), { detail: 'Incorrect authentication credentials.' });
  assert.equal(e.status, 401);
  assert.equal(e.code, 'ERR_REST_AUTHENTICATION_FAILED');
  assert.equal(new errors.AuthenticationFailed('Invalid token.', { status: 403 }).status, 403);
});

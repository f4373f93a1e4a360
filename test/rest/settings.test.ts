import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSettings, createSettings, type SettingsInput } from '../../src/rest/settings.js';
import { ImproperlyConfigured } from '../../src/rest/errors.js';

class FakePagination {}
class FakeVersioning {}

function fails(input: unknown, message: RegExp): void {
  assert.throws(
    () => createSettings(input as SettingsInput),
    (e: unknown) =>
      e instanceof ImproperlyConfigured && e.code === 'ERR_REST_IMPROPERLY_CONFIGURED' && message.test(e.message),
  );
}

test('defaults are DRF defaults', () => {
  const s = createSettings();
  assert.equal(s.DEFAULT_PAGINATION_CLASS, null);
  assert.equal(s.PAGE_SIZE, null);
  assert.equal(s.DEFAULT_VERSIONING_CLASS, null);
  assert.equal(s.DEFAULT_VERSION, null);
  assert.equal(s.ALLOWED_VERSIONS, null);
  assert.equal(s.VERSION_PARAM, 'version');
  assert.equal(s.URL_FORMAT_OVERRIDE, 'format');
  assert.equal(s.ORDERING_PARAM, 'ordering');
  assert.ok(Object.isFrozen(s));
});

test('start-up checks name the key and the problem', () => {
  fails({ ALLOWED_VERSIONS: 'v1' }, /ALLOWED_VERSIONS must be an array .*not the string "v1"/);
  fails({ ALLOWED_VERSIONS: ['v1', 2] }, /ALLOWED_VERSIONS must be a string or null, not number 2/);
  fails({ PAGE_SIZE: -1, DEFAULT_PAGINATION_CLASS: FakePagination }, /PAGE_SIZE must be a non-negative integer/);
  fails({ PAGE_SIZE: 2.5, DEFAULT_PAGINATION_CLASS: FakePagination }, /PAGE_SIZE must be a non-negative integer/);
  fails({ PAGE_SIZE: '10', DEFAULT_PAGINATION_CLASS: FakePagination }, /PAGE_SIZE must be a non-negative integer/);
  fails({ MAX_PAGE_SIZE: 0 }, /MAX_PAGE_SIZE must be a positive integer or null/);
  fails({ MAX_LIMIT: '100' }, /MAX_LIMIT must be a positive integer or null/);
  fails({ SILENCED_CHECKS: 'W001' }, /SILENCED_CHECKS must be an array/);
  fails({ DEFAULT_PAGINATION_CLASS: 'PageNumberPagination' }, /DEFAULT_PAGINATION_CLASS must be a pagination class/);
  fails({ DEFAULT_VERSIONING_CLASS: {} }, /DEFAULT_VERSIONING_CLASS must be a versioning class/);
  fails({ DEFAULT_VERSION: 1 }, /DEFAULT_VERSION must be a string or null/);
  fails({ VERSION_PARAM: '' }, /VERSION_PARAM must be a non-empty string/);
  fails({ PAGESIZE: 10 }, /Unknown setting PAGESIZE \(did you mean PAGE_SIZE\?\)/);
  fails({ SECURE_PROXY_SSL_HEADER: 'X-Forwarded-Proto' }, /SECURE_PROXY_SSL_HEADER must be a \[header, value\] pair/);
  fails(
    { VERSION_LIFECYCLE: { v1: { sunset: 'tomorrow' } } },
    /VERSION_LIFECYCLE\["v1"\]\.sunset must be a valid Date/,
  );
  fails('x', /Settings must be an object/);
});

test('valid settings are kept', () => {
  const s = createSettings({
    DEFAULT_PAGINATION_CLASS: FakePagination as never,
    PAGE_SIZE: 10,
    DEFAULT_VERSIONING_CLASS: FakeVersioning as never,
    ALLOWED_VERSIONS: ['v1', null],
    DEFAULT_VERSION: 'v1',
  });
  assert.equal(s.PAGE_SIZE, 10);
  assert.deepEqual(s.ALLOWED_VERSIONS, ['v1', null]);
  assert.ok(Object.isFrozen(s.ALLOWED_VERSIONS));
});

test('PAGE_SIZE without DEFAULT_PAGINATION_CLASS is a normal setup (DRF): a W001 warning, silenced by SILENCED_CHECKS', () => {
  // PAGE_SIZE 0 and null are accepted as in DRF (0: a falsy page size turns pagination off).
  assert.equal(createSettings({ PAGE_SIZE: 0 }).PAGE_SIZE, 0);
  assert.equal(createSettings({ PAGE_SIZE: null }).PAGE_SIZE, null);
  assert.deepEqual(checkSettings(createSettings({ PAGE_SIZE: 0 })), []);
  const [w, ...rest] = checkSettings(createSettings({ PAGE_SIZE: 10 }));
  assert.equal(rest.length, 0);
  assert.equal(w?.id, 'W001');
  assert.match(w?.message ?? '', /PAGE_SIZE .* without specifying also a DEFAULT_PAGINATION_CLASS/);
  assert.deepEqual(checkSettings(createSettings({ PAGE_SIZE: 10, SILENCED_CHECKS: ['W001'] })), []);
  assert.deepEqual(
    checkSettings(createSettings({ PAGE_SIZE: 10, DEFAULT_PAGINATION_CLASS: FakePagination as never })),
    [],
  );
  const s = createSettings({ MAX_PAGE_SIZE: 100, MAX_LIMIT: 50 });
  assert.equal(s.MAX_PAGE_SIZE, 100);
  assert.equal(s.MAX_LIMIT, 50);
  assert.equal(createSettings().MAX_PAGE_SIZE, null, "DRF's default: no cap");
});

test('VERSION_LIFECYCLE: successor among ALLOWED_VERSIONS, goneAfterSunset a boolean that needs a sunset', () => {
  const ok = createSettings({
    ALLOWED_VERSIONS: ['v1', 'v2'],
    VERSION_LIFECYCLE: { v1: { sunset: new Date('2030-01-01'), successor: 'v2', goneAfterSunset: true } },
  });
  assert.equal(ok.VERSION_LIFECYCLE.v1?.successor, 'v2');
  const fails = (life: object, re: RegExp) =>
    assert.throws(
      () => createSettings({ ALLOWED_VERSIONS: ['v1', 'v2'], VERSION_LIFECYCLE: { v1: life } }),
      (e: unknown) => e instanceof Error && re.test(e.message),
    );
  fails({ successor: 'v9' }, /successor must be one of ALLOWED_VERSIONS/);
  fails({ successor: 2 }, /successor must be a version string/);
  fails({ goneAfterSunset: 'yes' }, /goneAfterSunset must be a boolean/);
  fails({ goneAfterSunset: true }, /goneAfterSunset must be set only with a sunset date/);
});

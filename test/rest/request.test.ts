import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request, type RawRequest } from '../../src/rest/request.js';
import { createSettings, type SettingsInput } from '../../src/rest/settings.js';
import { DisallowedHost, ParseError, UnsupportedMediaType, RequestTooLarge } from '../../src/rest/errors.js';

function req(
  target: string,
  headers: [string, string][] = [['Host', 'testserver']],
  extra: Partial<RawRequest> = {},
  settings: SettingsInput = {},
): Request {
  return new Request({ method: 'get', target, headers, body: null, secure: false, ...extra }, createSettings(settings));
}

test('method, path, query', () => {
  const r = req('/items/caf%C3%A9/?page=3&page=2');
  assert.equal(r.method, 'GET');
  assert.equal(r.path, '/items/café/');
  assert.equal(r.rawPath, '/items/caf%C3%A9/');
  assert.equal(r.queryString, 'page=3&page=2');
  assert.equal(r.query.get('page'), '2');
  assert.equal(r.buildAbsoluteUri(), 'http://testserver/items/caf%C3%A9/?page=3&page=2');
});

test('buildAbsoluteUri with locations', () => {
  const r = req('/a/b/?x=1', [['Host', 'api.example.com:8080']]);
  assert.equal(r.buildAbsoluteUri('/items/'), 'http://api.example.com:8080/items/');
  assert.equal(r.buildAbsoluteUri('https://other/x'), 'https://other/x');
  assert.equal(r.buildAbsoluteUri('c/'), 'http://api.example.com:8080/a/b/c/');
  assert.equal(r.buildAbsoluteUri('//cdn/x'), 'http://cdn/x');
  assert.equal(r.hostname, 'api.example.com');
  assert.equal(req('/', [['Host', '[::1]:8000']]).hostname, '[::1]');
});

test('scheme honours the connection and SECURE_PROXY_SSL_HEADER only when configured', () => {
  assert.equal(
    req('/', [
      ['Host', 'h'],
      ['X-Forwarded-Proto', 'https'],
    ]).scheme,
    'http',
  );
  assert.equal(req('/', [['Host', 'h']], { secure: true }).scheme, 'https');
  const proxied = req(
    '/',
    [
      ['Host', 'h'],
      ['X-Forwarded-Proto', 'https'],
    ],
    {},
    { SECURE_PROXY_SSL_HEADER: ['X-Forwarded-Proto', 'https'] },
  );
  assert.equal(proxied.scheme, 'https');
  assert.equal(proxied.buildAbsoluteUri('/x/'), 'https://h/x/');
});

test('X-Forwarded-Host only with USE_X_FORWARDED_HOST; ALLOWED_HOSTS rejects others with 400', () => {
  assert.equal(
    req('/', [
      ['Host', 'h'],
      ['X-Forwarded-Host', 'public.example'],
    ]).getHost(),
    'h',
  );
  assert.equal(
    req(
      '/',
      [
        ['Host', 'h'],
        ['X-Forwarded-Host', 'public.example, x'],
      ],
      {},
      { USE_X_FORWARDED_HOST: true },
    ).getHost(),
    'public.example',
  );
  const allowed = { ALLOWED_HOSTS: ['.example.com', 'localhost'] };
  assert.equal(req('/', [['Host', 'api.example.com']], {}, allowed).getHost(), 'api.example.com');
  assert.equal(req('/', [['Host', 'localhost:8000']], {}, allowed).getHost(), 'localhost:8000');
  assert.throws(
    () => req('/', [['Host', 'evil.test']], {}, allowed).getHost(),
    (e: unknown) => e instanceof DisallowedHost && e.status === 400,
  );
});

test("Host syntax is Django's whatever ALLOWED_HOSTS says: letters, digits, '.', '-', [IPv6], optional :port", () => {
  for (const settings of [{}, { ALLOWED_HOSTS: ['*'] }]) {
    for (const ok of ['api.example.com', 'API.Example.com:8000', '127.0.0.1:80', '[::1]:8000', '[2001:db8::1]', 'h.']) {
      assert.equal(req('/', [['Host', ok]], {}, settings).getHost(), ok);
    }
    for (const bad of ['v2_x.example.com', 'a b', 'evil.test:80:80', 'host:port', '[::1', 'x/y', 'é.example', 'h:']) {
      assert.throws(
        () => req('/', [['Host', bad]], {}, settings).getHost(),
        (e: unknown) =>
          e instanceof DisallowedHost &&
          e.status === 400 &&
          e.message.endsWith('The domain name provided is not valid according to RFC 1034/1035.'),
        bad,
      );
    }
  }
});

test('headers are case-insensitive and repeated fields join', () => {
  const r = req('/', [
    ['Host', 'h'],
    ['X-A', '1'],
    ['x-a', '2'],
  ]);
  assert.equal(r.headers.get('X-A'), '1, 2');
  assert.equal(r.headers.get('missing'), null);
});

test('body parsing: JSON, form, errors', () => {
  const body = (b: string, ct: string | null, s: SettingsInput = {}) =>
    req(
      '/',
      [['Host', 'h'], ...(ct ? [['Content-Type', ct] as [string, string]] : [])],
      { method: 'POST', body: Buffer.from(b) },
      s,
    );
  assert.deepEqual(body('{"a":[1,"é"]}', 'application/json; charset=utf-8').data, { a: [1, 'é'] });
  assert.deepEqual(body('{"v":2}', 'application/vnd.example+json').data, { v: 2 });
  assert.deepEqual(body('a=1&a=2&b=x+y', 'application/x-www-form-urlencoded').data, { a: '2', b: 'x y' });
  assert.deepEqual(req('/').data, {});
  assert.throws(() => body('{bad', 'application/json').data, ParseError);
  assert.throws(() => body('x', 'text/csv').data, UnsupportedMediaType);
  assert.throws(() => body('{"a":1}', 'application/json', { MAX_BODY_SIZE: 3 }).data, RequestTooLarge);
  const bad = req(
    '/',
    [
      ['Host', 'h'],
      ['Content-Type', 'application/json'],
    ],
    { method: 'POST', body: Buffer.from([0x22, 0xff, 0x22]) },
  );
  assert.throws(() => bad.data, /not valid UTF-8/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  name: string;
  type: string;
  engines: { node: string };
  exports: Record<string, { types: string; import: string } | string>;
};

test('package.json: name, ESM, engines, the four entry points', () => {
  assert.equal(pkg.name, 'eventide');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.engines.node, '>=20');
  for (const key of ['.', './event', './http', './rest']) assert.ok(key in pkg.exports, key);
});

test('every export maps to a source module that loads', async () => {
  for (const [key, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    assert.match(target.import, /^\.\/dist\/.*\.js$/, key);
    assert.equal(target.types, target.import.replace(/\.js$/, '.d.ts'), key);
    const src = target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
    assert.ok(existsSync(`${root}${src}`), `${key} -> ${src}`);
    const mod = (await import(`${root}${src}`)) as Record<string, unknown>;
    assert.equal(typeof mod, 'object');
  }
  const all = (await import(`${root}src/index.ts`)) as Record<string, unknown>;
  for (const name of ['EventBase', 'Event', 'EventBuffer', 'EventBufferEvent', 'EventListener', 'EventDnsBase', 'EventSslContext', 'EventUtil', 'EventHttp', 'EventHttpRequest']) {
    assert.equal(typeof all[name], 'function', name);
  }
});

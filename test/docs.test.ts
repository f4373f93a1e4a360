/** Every export of src/ has TSDoc with an @example, or is marked @internal. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.ts') ? [p] : [];
  });
}

test('every exported class, function, constant, interface and type has TSDoc with @example (or @internal)', () => {
  const missing: string[] = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^export (?:abstract )?(?:class|function|const|interface|type) (\w+)/gm)) {
      const before = text.slice(0, m.index).trimEnd();
      const doc = before.endsWith('*/') ? before.slice(before.lastIndexOf('/**')) : '';
      if (!doc.includes('@example') && !doc.includes('@internal')) missing.push(`${file.slice(SRC.length)}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});

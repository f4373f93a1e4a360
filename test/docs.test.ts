/**
 * Every export of src/ has TSDoc with an @example, or is marked @internal.
 * A constant of a table (the `CMD_*` bits, flag sets) may instead link the
 * table's documented entry, a constant of the same module whose TSDoc has
 * the table's @example: one example per table, not one per constant.
 */
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

test('every exported class, function, constant, interface and type has TSDoc with @example (or @internal; a table constant may link its table)', () => {
  const missing: string[] = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    const exports = [...text.matchAll(/^export (?:abstract )?(class|function|const|interface|type) (\w+)/gm)].map(
      (m) => {
        const before = text.slice(0, m.index).trimEnd();
        const doc = before.endsWith('*/') ? before.slice(before.lastIndexOf('/**')) : '';
        return { kind: m[1] as string, name: m[2] as string, doc };
      },
    );
    const withExample = new Set(
      exports.filter((e) => e.kind === 'const' && e.doc.includes('@example')).map((e) => e.name),
    );
    const seen = new Set<string>();
    for (const { kind, name, doc } of exports) {
      // Overloads: the first signature carries the doc for all of them.
      if (kind === 'function' && seen.has(name)) continue;
      seen.add(name);
      if (doc.includes('@example') || doc.includes('@internal')) continue;
      const linked = [...doc.matchAll(/\{@link (\w+)/g)].some((l) => withExample.has(l[1] as string));
      if (kind === 'const' && linked) continue;
      missing.push(`${file.slice(SRC.length)}: ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

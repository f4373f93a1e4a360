/**
 * The static import graph of this repository's TypeScript sources, read as
 * text: which modules an entry loads when it is imported, and which
 * packages. Type-only imports are left out (they load nothing).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** What importing the entries loads. */
export interface ImportGraph {
  /** Every source file reached through static `import`/`export ... from` (absolute paths, the entries included). */
  readonly files: Set<string>;
  /** The packages those files import statically. */
  readonly packages: Set<string>;
  /** The specifiers of their dynamic `import('...')` calls (not followed). */
  readonly dynamic: Set<string>;
}

/** Follows the static imports of `entries` (absolute paths of .ts files). */
export function importGraph(entries: readonly string[]): ImportGraph {
  const graph: ImportGraph = { files: new Set(), packages: new Set(), dynamic: new Set() };
  const visit = (file: string): void => {
    if (graph.files.has(file)) return;
    graph.files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s(?!type\b)[^'"]*?from\s+'([^']+)'/gm)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else graph.packages.add(spec);
    }
    for (const m of text.matchAll(/import\(\s*'([^']+)'\s*\)/g)) graph.dynamic.add(m[1] as string);
  };
  for (const entry of entries) visit(entry);
  return graph;
}

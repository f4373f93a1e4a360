/**
 * The shape of the code base (docs/architecture.md): layers import only the
 * layers before them, no module imports another that imports it back (type
 * imports included), modules stay a few hundred lines, entry points name
 * their exports, and nothing in the repository points to files outside it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const LAYERS = ['event', 'http', 'rest', 'sql', 'cli'];
/** The one module allowed to be long: the HTTP parser's state machine. */
const LONG_ALLOWED = new Set(['src/http/machine.ts']);
const MAX_LINES = 700;

function walk(dir: string, keep: (f: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist' && !name.startsWith('.')) walk(p, keep, out);
    } else if (keep(p)) out.push(p);
  }
  return out;
}

const sources = walk(join(root, 'src'), (f) => f.endsWith('.ts')).map((f) => relative(root, f));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

/** The modules of src/ a module imports (value and type imports, re-exports). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = normalize(join(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')));
    out.push(target);
  }
  return out;
}

const graph = new Map(sources.map((f) => [f, importsOf(f)]));
const layerOf = (f: string): number => LAYERS.indexOf(f.split('/')[1] as string);

test('every import resolves to a module of src/', () => {
  for (const [f, deps] of graph)
    for (const d of deps) assert.ok(graph.has(d), `${f} imports ${d}, which does not exist`);
});

test('layers import only the layers before them: event -> http -> rest -> sql -> cli', () => {
  const wrong: string[] = [];
  for (const [f, deps] of graph) {
    if (f === 'src/index.ts') continue;
    for (const d of deps) if (layerOf(d) > layerOf(f)) wrong.push(`${f} -> ${d}`);
  }
  assert.deepEqual(wrong, []);
});

test('no import cycles, type imports included', () => {
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) cycles.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  assert.deepEqual(cycles, []);
});

test(`modules of a few hundred lines (at most ${MAX_LINES}; the parser's state machine excepted)`, () => {
  const long = sources
    .map((f) => [f, readFileSync(join(root, f), 'utf8').split('\n').length] as const)
    .filter(([f, n]) => n > MAX_LINES && !LONG_ALLOWED.has(f))
    .map(([f, n]) => `${f} (${n} lines)`);
  assert.deepEqual(long, []);
});

test('entry points name their exports (no export *)', () => {
  for (const f of ['src/index.ts', ...LAYERS.filter((l) => l !== 'cli').map((l) => `src/${l}/index.ts`)]) {
    assert.doesNotMatch(readFileSync(join(root, f), 'utf8'), /export \* from/, f);
  }
});

test('nothing in the repository points to design notes outside it', () => {
  const files = walk(root, (f) => /\.(ts|js|mjs|md|json)$/.test(f) && !f.includes(`${'/'}test-artifacts/`)).filter(
    (f) => !f.endsWith('architecture.test.ts'),
  );
  const hits = files
    .filter((f) => /DESIGN\.md|shared\/spec|shared\/reference/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(root, f));
  assert.deepEqual(hits, []);
});

/**
 * The only module-level mutable values, each with the reason it is not
 * owned by an object. Weak maps and sets are allowed anywhere (side tables
 * keyed by objects, holding nothing beyond their keys' lifetimes); constant
 * tables are typed ReadonlyMap/ReadonlySet. Anything else is configuration
 * and belongs to an object (an EventBase, an EventHttp, a RestApi).
 */
const MODULE_STATE: Readonly<Record<string, string>> = {
  'src/event/errors.ts lastError': "errno-style last error of the PHP-compatible API (EventUtil's getLastError)",
  'src/event/util.ts lastSocketError': 'errno-style last socket error (EventUtil::getLastSocketErrno())',
  'src/event/listener.ts tcpBinding': 'lazily loaded process binding (node:net internals), loaded once',
  'src/event/listener.ts pipeBinding': 'lazily loaded process binding (node:net internals), loaded once',
  'src/event/listener.ts managed': 'servers by file descriptor; descriptors are process-wide',
  'src/event/descriptor.ts adopted': 'adopted streams by file descriptor; descriptors are process-wide',
  'src/event/buffer-chunk.ts lastText': 'memo of the last short text measured in UTF-8 (derived from the value)',
  'src/event/buffer-chunk.ts lastTextLength': 'memo of the last short text measured in UTF-8 (derived from the value)',
  'src/http/date.ts dateSecond': 'memo of the Date header for the current second (derived from the clock)',
  'src/http/date.ts dateValue': 'memo of the Date header for the current second (derived from the clock)',
  'src/http/request.ts knownNames': 'bounded memo (1,024) of header names already validated',
  'src/http/request.ts lastValidValue': 'memo of the last validated header value',
  'src/rest/fields.ts cachedDay': 'memo of the last formatted date (derived from the value)',
  'src/rest/fields.ts cachedDayText': 'memo of the last formatted date (derived from the value)',
  'src/rest/renderers.ts OWN_TYPES': 'bounded memo (256) of parsed media types',
  'src/rest/data/array.ts nextSourceId': 'identity counter for array sources (cache keys), no configuration',
  'src/sql/queryset.ts compilers': 'one query compiler per SQL dialect (stateless), built on first use',
};

test('no module-level mutable state beyond the documented list', () => {
  const DECL =
    /^(?:export )?(?:let|var) (\w+)|^(?:export )?const (\w+)(?:\s*:\s*([^=]+?))?\s*=\s*new (Map|Set|Array)\b|^(?:export )?const (\w+)(?:\s*:\s*[^=]+?)?\s*=\s*(?:\[\]|\{\})\s*;/gm;
  const found: string[] = [];
  for (const f of sources) {
    for (const m of readFileSync(join(root, f), 'utf8').matchAll(DECL)) {
      if (m[3] !== undefined && /^Readonly(Map|Set)</.test(m[3].trim())) continue;
      found.push(`${f} ${m[1] ?? m[2] ?? m[5]}`);
    }
  }
  assert.deepEqual(
    found.filter((k) => !(k in MODULE_STATE)),
    [],
    'new module-level state: give it to an object',
  );
  assert.deepEqual(
    Object.keys(MODULE_STATE).filter((k) => !found.includes(k)),
    [],
    'stale entries in MODULE_STATE',
  );
});

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
 * tables are typed ReadonlyMap/ReadonlySet, or are typed arrays named in
 * capitals that the module fills once as it loads (lookup tables). Anything
 * else is configuration and belongs to an object (an EventBase, an
 * EventHttp, a RestApi). Class statics count as module state (one per
 * class, so one per process), and so does code that runs at import and
 * changes another module or the process (a top-level call of an imported
 * function, a static block): nothing is registered by importing a module.
 */
const MODULE_STATE: Readonly<Record<string, string>> = {
  'src/event/errors.ts lastError': "errno-style last error of the PHP-compatible API (EventUtil's getLastError)",
  'src/event/util.ts lastSocketError': 'errno-style last socket error (EventUtil::getLastSocketErrno())',
  'src/event/listener.ts tcpBinding': 'lazily loaded process binding (node:net internals), loaded once',
  'src/event/listener.ts pipeBinding': 'lazily loaded process binding (node:net internals), loaded once',
  'src/event/listener.ts managed': 'servers by file descriptor; descriptors are process-wide',
  'src/event/descriptor.ts adopted': 'adopted streams by file descriptor; descriptors are process-wide',
  'src/event/fallbacks.ts reported':
    "fallbacks already reported: one warning per process, as the runtime's capabilities are the process's",
  'src/event/event.ts signals':
    "one process listener per watched signal, shared by every base's signal events: signals are delivered to the process",
  'src/event/buffer-chunk.ts EMPTY_CHUNK':
    'the empty chunk in the unused slots of chunk deques: zero bytes, never written',
  'src/event/buffer-chunk.ts lastText': 'memo of the last short text measured in UTF-8 (derived from the value)',
  'src/event/buffer-chunk.ts lastTextLength': 'memo of the last short text measured in UTF-8 (derived from the value)',
  'src/http/date.ts dateSecond': 'memo of the Date header for the current second (derived from the clock)',
  'src/http/date.ts dateValue': 'memo of the Date header for the current second (derived from the clock)',
  'src/http/request.ts knownNames': 'bounded memo (1,024) of header names already validated',
  'src/http/request.ts lastValidValue': 'memo of the last validated header value',
  'src/rest/fields.ts cachedDay': 'memo of the last formatted date (derived from the value)',
  'src/rest/fields.ts cachedDayText': 'memo of the last formatted date (derived from the value)',
  'src/rest/renderers.ts OWN_TYPES': 'bounded memo (256) of parsed media types',
  'src/rest/serializers.ts static Serializer.#resume':
    'a function (the generic loop, where a compiled writer resumes), set by the class definition and never reassigned',
  'src/rest/data/array.ts nextSourceId': 'identity counter for array sources (cache keys), no configuration',
  'src/sql/queryset.ts compilers': 'one query compiler per SQL dialect (stateless), built on first use',
};

/**
 * Static fields that are declarations of a class, not state: a serializer's
 * `fields` (Django REST framework's class attribute), which every subclass
 * declares (`static override fields = {...}`) and which is only read.
 */
const CLASS_DECLARATIONS: ReadonlySet<string> = new Set(['fields']);

/** Process-wide globals whose change at import is a registration (a listener, a timer, a patched built-in). */
const PROCESS_GLOBALS: ReadonlySet<string> = new Set([
  'process',
  'globalThis',
  'global',
  'Object',
  'Reflect',
  'Error',
  'Buffer',
  'setInterval',
  'setTimeout',
  'setImmediate',
  'queueMicrotask',
]);

const MODULE_DECL =
  /^(?:export )?(?:let|var) (\w+)|^(?:export )?const (\w+)(?:\s*:\s*((?:[^=]|=>)+?))?\s*=\s*(?:new (\w+)\b|(\[\]|\{\})\s*;)/gm;
const STATIC_FIELD =
  /^[ \t]+(?:(?:public|protected|private)\s+)?static\s+(?:override\s+)?(readonly\s+)?(#?[A-Za-z_$][\w$]*)\s*(?::\s*((?:[^=;]|=>)+?))?\s*(?:=(?!>)\s*([^;\n]*)|;)/gm;
const STATIC_BLOCK = /^[ \t]+static\s*\{/gm;
const TOP_CLASS = /^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/gm;
const TOP_STATEMENT =
  /^(?:(?:void|await)\s+)?([A-Za-z_$][\w$]*)((?:\.[\w$#]+|\[[^\]\n]*\])*)\s*(\(|=(?![=>])|\+\+|--|[-+*/%|&^]=)/gm;
const IMPORT_CLAUSE = /^import\s+(?!type\s)([^'";]*?)\s+from\s+['"][^'"]+['"]/gm;
const TYPED_ARRAY = /^(?:Int|Uint|Float|BigInt|BigUint)(?:8|16|32|64)(?:Clamped)?Array$/;
const WEAK = new Set(['WeakMap', 'WeakSet', 'WeakRef']);
const isReadonlyType = (t: string | undefined): boolean =>
  t !== undefined && /^(?:Readonly(?:Map|Set|Array)?<|readonly\s)/.test(t.trim());

/** The value bindings a module imports (type-only imports left out). */
function importedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(IMPORT_CLAUSE)) {
    const clause = m[1] as string;
    const braces = /\{([^}]*)\}/.exec(clause);
    for (const part of braces?.[1]?.split(',') ?? []) {
      const p = part.trim();
      if (p === '' || p.startsWith('type ')) continue;
      names.add((p.split(/\s+as\s+/).pop() as string).trim());
    }
    const outside = clause.replace(/\{[^}]*\}/, '');
    const ns = /\*\s+as\s+([A-Za-z_$][\w$]*)/.exec(outside);
    if (ns !== null) names.add(ns[1] as string);
    const def = /^([A-Za-z_$][\w$]*)/.exec(outside.trim());
    if (def !== null) names.add(def[1] as string);
  }
  return names;
}

/**
 * The module state of one source file, as `MODULE_STATE` keys: module-level
 * `let`/`var`, consts holding a new mutable container or object (not weak,
 * not a readonly-typed table, not a capitalised typed-array lookup table),
 * mutable class statics (`static x`, `static #x`, or `static readonly` over
 * a mutable container), static blocks, and top-level statements that call
 * or assign an imported binding or a process global (import-time
 * registration). Template literals are left out (they hold other
 * languages: SQL, Lua).
 */
function moduleState(file: string, source: string): string[] {
  const text = source.replace(/`(?:\\[\s\S]|[^`\\])*`/g, '``');
  const found = new Set<string>();
  for (const m of text.matchAll(MODULE_DECL)) {
    const [, letName, constName, type, ctor, literal] = m;
    if (letName !== undefined) {
      found.add(`${file} ${letName}`);
      continue;
    }
    if (isReadonlyType(type)) continue;
    if (ctor !== undefined) {
      if (WEAK.has(ctor)) continue;
      if (TYPED_ARRAY.test(ctor) && /^[A-Z][A-Z0-9_]*$/.test(constName as string)) continue;
    } else if (literal === undefined) continue;
    found.add(`${file} ${constName}`);
  }
  const classAt = (index: number): string => {
    let name = '(anonymous)';
    for (const c of text.matchAll(TOP_CLASS)) {
      if ((c.index ?? 0) > index) break;
      name = c[1] as string;
    }
    return name;
  };
  for (const m of text.matchAll(STATIC_FIELD)) {
    const [, readonly, name, type, init] = m;
    if (CLASS_DECLARATIONS.has(name as string)) continue;
    const mutableContainer =
      init !== undefined && /^(?:new (?:Map|Set|Array)\b|\[\]|\{\})/.test(init.trim()) && !isReadonlyType(type);
    if (readonly === undefined || mutableContainer) found.add(`${file} static ${classAt(m.index ?? 0)}.${name}`);
  }
  for (const m of text.matchAll(STATIC_BLOCK)) found.add(`${file} static block of ${classAt(m.index ?? 0)}`);
  const imported = importedNames(text);
  for (const m of text.matchAll(TOP_STATEMENT)) {
    const [, name, path, op] = m as unknown as [string, string, string, string];
    if (!imported.has(name) && !PROCESS_GLOBALS.has(name)) continue;
    found.add(`${file} at import: ${name}${path}${op === '(' ? '()' : ` ${op}`}`);
  }
  return [...found];
}

test('the module-state check sees module variables, mutable statics and import-time registration', () => {
  const sample = [
    "import { onLoopEnd, type Hook } from './base.js';",
    "import * as registry from './registry.js';",
    "import { now } from './shared.js';",
    'let counter = 0;',
    'const hooks: (() => void)[] = [];',
    'const byName = new Map<string, number>();',
    'const instance = new Registry();',
    'const weak = new WeakMap<object, number>();',
    'const NAMES: ReadonlyMap<string, number> = new Map();',
    'const TABLE = new Uint8Array(256);',
    'const table = new Uint8Array(256);',
    "const SQL = `select 1;\nredis.call('x')\nonLoopEnd(() => 0)`;",
    'onLoopEnd(() => Turn.flush());',
    "registry.handlers['x'] = () => 0;",
    "process.on('exit', () => 0);",
    'now();',
    'export class Turn {',
    '  static #queue: unknown[] = [];',
    '  static count = 0;',
    '  static readonly pending = new Set<number>();',
    '  static readonly LIMIT = 10;',
    "  static readonly KINDS: readonly string[] = ['a'];",
    '  static fields = {};',
    '  static {',
    '    onLoopEnd(() => 0);',
    '  }',
    '  static flush(): void {}',
    '  static get size(): number { return 0; }',
    '}',
  ].join('\n');
  assert.deepEqual(moduleState('m.ts', sample).sort(), [
    'm.ts at import: now()',
    'm.ts at import: onLoopEnd()',
    'm.ts at import: process.on()',
    "m.ts at import: registry.handlers['x'] =",
    'm.ts byName',
    'm.ts counter',
    'm.ts hooks',
    'm.ts instance',
    'm.ts static Turn.#queue',
    'm.ts static Turn.count',
    'm.ts static Turn.pending',
    'm.ts static block of Turn',
    'm.ts table',
  ]);
});

test('no module-level mutable state beyond the documented list', () => {
  const found = sources.flatMap((f) => moduleState(f, readFileSync(join(root, f), 'utf8')));
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

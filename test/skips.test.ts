/**
 * The rule that keeps CI honest: under `CI` a test whose tool is missing
 * fails, never skips. Every conditional skip in test/ goes through
 * test/support/tools.ts (a requirement's `skip` option or `check(t)`), the
 * browser helpers built on it, or an explicit opt-out (EVENTIDE_SKIP_POSTGRES
 * through the PostgreSQL probe, EVENTIDE_SKIP_REDIS); and no test probes for
 * a tool by itself (`command -v`, `--version` runs, HAVE_X/NO_X flags, a
 * binary at a hard-coded path). This test reads the test files and fails on
 * a skip or a probe that does not follow the rule.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The helper itself, where tools are looked for; and this file, which names the patterns. */
const EXEMPT = new Set(['test/support/tools.ts', 'test/skips.test.ts']);
/** Modules whose exports may decide a skip: the helper, the browser helpers on it, the PostgreSQL probe (EVENTIDE_SKIP_POSTGRES). */
const SANCTIONED_MODULES = [
  /\/support\/tools\.js$/,
  /\/support\/browser\.js$/,
  /\/data\/conformance\.js$|^\.\/conformance\.js$/,
];
/** Names that are no variable: literals, and the types of `skip:` in type literals. */
const KEYWORDS = new Set([
  'false',
  'true',
  'undefined',
  'null',
  'as',
  'string',
  'boolean',
  'number',
  'never',
  'readonly',
]);

/**
 * An explicit opt-out: a skip whose condition is a conjunction with
 * `process.env.EVENTIDE_SKIP_X === '1'` in it (no `||`), else false or
 * undefined: it skips only when the opt-out is set.
 */
const OPT_OUT =
  /^\(?(?:[^?|]*&& )?process\.env\.EVENTIDE_SKIP_\w+ === '1'(?: &&[^?|]*)?\)? \?[^:]*: (?:false|undefined)$/;

/** Ways of probing for a tool that belong in test/support/tools.ts. */
const PROBES: readonly (readonly [RegExp, string])[] = [
  [/\b(?:const|let)\s+(?:HAVE|NO)_[A-Z0-9_]+\s*=/, 'a HAVE_/NO_ flag'],
  [/command -v/, '`command -v`'],
  [/\bfunction\s+(?:which|have)\s*\(/, 'a which()/have() probe'],
  [/\b(?:spawnSync|execFileSync|execSync)\([^;]*?\[\s*['"](?:--version|version|-V|-v)['"]\s*\]/, 'a --version run'],
  [
    /\b(?:existsSync|statSync|accessSync|spawn|spawnSync|execFile|execFileSync)\(\s*['"`]\/(?:usr\/(?:local\/)?)?s?bin\//,
    'a binary at a hard-coded path',
  ],
];

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The value bindings `text` imports from a sanctioned module. */
function sanctionedImports(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^import\s+(?!type\s)\{([^}]*)\}\s+from\s+['"]([^'"]+)['"]/gm)) {
    if (!SANCTIONED_MODULES.some((re) => re.test(m[2] as string))) continue;
    for (const part of (m[1] as string).split(',')) {
      const p = part.trim();
      if (p !== '' && !p.startsWith('type ')) names.add((p.split(/\s+as\s+/).pop() as string).trim());
    }
  }
  return names;
}

/** The expression that starts at `from`: up to a `,` `;` or closing bracket at its own depth. */
function expressionAt(text: string, from: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const c = text[i] as string;
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return text.slice(from, i);
      depth--;
    } else if ((c === ',' || c === ';') && depth === 0) return text.slice(from, i);
  }
  return text.slice(from);
}

/** The variables an expression reads (strings, property names and arrow parameters left out). */
function rootsOf(expr: string): string[] {
  const code = expr
    .replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, "''")
    .replace(
      /`(?:\\.|\$\{([^}]*)\}|[^`\\])*`/g,
      (t) => ` ${[...t.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]).join(' ')} `,
    );
  const params = new Set<string>();
  for (const m of code.matchAll(/\(?\s*([\w$,\s]*?)\s*\)?\s*=>/g))
    for (const p of (m[1] as string).split(',')) if (p.trim() !== '') params.add(p.trim());
  const roots: string[] = [];
  for (const m of code.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)/g)) {
    const name = m[1] as string;
    if (!KEYWORDS.has(name) && !params.has(name)) roots.push(name);
  }
  return roots;
}

/** `expr` with the arguments of calls to `names` left out: what a requirement is made of is its own business. */
function withoutArguments(expr: string, names: Set<string>): string {
  let out = expr;
  for (const name of names) {
    for (let at = out.search(new RegExp(`(?<![\\w$.])${name}\\s*\\(`)); at >= 0;) {
      const open = out.indexOf('(', at);
      const close = open + 1 + expressionAt(out, open + 1).length;
      out = `${out.slice(0, open)}()${out.slice(close + 1)}`;
      const next = out.slice(open + 2).search(new RegExp(`(?<![\\w$.])${name}\\s*\\(`));
      at = next < 0 ? -1 : open + 2 + next;
    }
  }
  return out;
}

/**
 * Whether the `skip` expression `expr` of `text` is decided by a sanctioned
 * source: names imported from the helpers, local constants made from them,
 * `process.env.EVENTIDE_SKIP_*`, or `x.skip` of an object whose own `skip:`
 * is checked where it is written.
 */
function sanctioned(text: string, expr: string, imports: Set<string>, depth = 0): boolean {
  if (depth > 6) return false;
  if (OPT_OUT.test(expr.trim().replace(/\s+/g, ' '))) return true;
  const e = withoutArguments(expr.trim(), imports);
  for (const name of rootsOf(e)) {
    if (imports.has(name)) continue;
    const def = new RegExp(`(?:const|let)\\s+${name}\\b(?:\\s*:[^=]+)?\\s*=\\s*(?:await\\s+)?`).exec(text);
    if (def !== null) {
      if (sanctioned(text, expressionAt(text, def.index + def[0].length), imports, depth + 1)) continue;
      return false;
    }
    // a loop variable or parameter: `source.skip`, whose object's `skip:` is checked on its own
    if (new RegExp(`^${name}\\.skip(?:\\s*\\?\\?\\s*(?:false|undefined))?$`).test(e)) continue;
    return false;
  }
  return true;
}

/** The rule's violations in one file (`file` relative to the repository). */
function violations(file: string, text: string): string[] {
  const out: string[] = [];
  const line = (index: number): number => text.slice(0, index).split('\n').length;
  for (const [re, what] of PROBES) {
    const m = re.exec(text);
    if (m !== null)
      out.push(`${file}:${line(m.index)}: ${what}: use requireCommand/requireTool (test/support/tools.ts)`);
  }
  const imports = sanctionedImports(text);
  for (const m of text.matchAll(/(?<![\w$])skip\s*:(?!:)/g)) {
    const expr = expressionAt(text, (m.index ?? 0) + m[0].length);
    if (!sanctioned(text, expr, imports))
      out.push(
        `${file}:${line(m.index ?? 0)}: skip: ${expr.trim().replace(/\s+/g, ' ')}: not decided by test/support/tools.ts`,
      );
  }
  for (const m of text.matchAll(/\b(?:t|test|describe|it|suite|context|ctx)\.skip\s*\(/g)) {
    // the condition: the line up to the call, and the line before when the call starts its line
    const lines = text.slice(0, m.index).split('\n');
    const own = lines.pop() as string;
    const condition = /^\s*(?:return\s+)?$/.test(own) ? `${lines.pop() ?? ''}\n${own}` : own;
    if (/EVENTIDE_SKIP_\w+/.test(condition)) continue; // an explicit opt-out
    out.push(`${file}:${line(m.index ?? 0)}: a direct .skip(): use a requirement's check(t) (test/support/tools.ts)`);
  }
  return out.sort((a, b) => Number(/:(\d+):/.exec(a)?.[1]) - Number(/:(\d+):/.exec(b)?.[1]));
}

test('the rule check sees skips and probes that do not go through test/support/tools.ts', () => {
  const sample = [
    "import { spawnSync } from 'node:child_process';",
    "import { existsSync } from 'node:fs';",
    "import { requireCommand, optionalFeature } from '../support/tools.js';",
    "import { probePostgres } from '../rest/data/conformance.js';",
    "const HAVE_CURL = spawnSync('curl', ['--version']).status === 0;",
    "const curl = requireCommand('curl', 'apt-get install curl');",
    'const probe = await probePostgres();',
    "const pgSkip = probe.url === null ? (probe.skip ?? 'PostgreSQL not reachable') : false;",
    "const own = existsSync('/usr/bin/redis-server') ? undefined : 'no redis-server';",
    "const SOURCES: { name: string; skip: string | false }[] = [{ name: 'a', skip: pgSkip }];",
    "test('a', { skip: curl.skip }, () => {});",
    "test('b', { skip: !HAVE_CURL && 'curl not installed' }, () => {});",
    "test('c', { skip: own }, () => {});",
    "for (const source of SOURCES) test('d', { skip: source.skip }, () => {});",
    "test('e', { skip: down !== null && process.env.EVENTIDE_SKIP_REDIS === '1' ? 'Redis opted out' : false }, () => {});",
    "test('e2', { skip: down !== null || process.env.EVENTIDE_SKIP_REDIS === '1' ? 'Redis down' : false }, () => {});",
    "test('f', async (t) => { if (bin === null) return t.skip('no C compiler'); });",
    "test('g', async (t) => { if (!optionalFeature(null).check(t)) return; });",
    "test('h', { skip: `skipped: ${peer.missing}` }, () => {});",
    "test('i', async (t) => {\n  if (process.env.EVENTIDE_SKIP_POSTGRES === '1')\n    return t.skip('opted out');\n});",
  ].join('\n');
  assert.deepEqual(
    violations('s.ts', sample).map((v) => v.replace(/:( not| use).*$/, '')),
    [
      's.ts:5: a HAVE_/NO_ flag',
      's.ts:5: a --version run',
      's.ts:9: a binary at a hard-coded path',
      "s.ts:12: skip: !HAVE_CURL && 'curl not installed'",
      's.ts:13: skip: own',
      "s.ts:16: skip: down !== null || process.env.EVENTIDE_SKIP_REDIS === '1' ? 'Redis down' : false",
      's.ts:17: a direct .skip()',
      's.ts:19: skip: `skipped: ${peer.missing}`',
    ],
  );
});

test('every conditional skip in test/ goes through test/support/tools.ts (under CI a missing tool fails)', () => {
  const files = walk(join(root, 'test'))
    .map((f) => relative(root, f))
    .filter((f) => !EXEMPT.has(f));
  assert.ok(files.length > 100, `only ${files.length} test files found`);
  assert.deepEqual(
    files.flatMap((f) => violations(f, readFileSync(join(root, f), 'utf8'))),
    [],
  );
});

/**
 * The type tests: every `.ts` file of test/types/ (mistakes marked
 * `// @ts-expect-error`, so an unused one is itself an error, and positive
 * assertions such as `const x: Equal<A, B> = true`) compiles with no
 * diagnostic under the options of tsconfig.json (strict,
 * noUncheckedIndexedAccess...). A mistake the types stop failing to catch
 * shows up here as an unused `@ts-expect-error`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = dirname(fileURLToPath(import.meta.url));

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  assert.equal(read.error, undefined);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath);
  assert.deepEqual(parsed.errors, []);
  return parsed.options;
}

/** A file with one wrong expectation and one real mistake: the check must report both. */
const PROBE = join(here, '__probe__.types.ts');
const PROBE_SOURCE = [
  "import { IntegerField } from '../../src/rest/index.js';",
  '// @ts-expect-error not a mistake: this directive is unused',
  'new IntegerField({ readOnly: true });',
  "new IntegerField({ readOnly: 'yes' });",
].join('\n');

/** The diagnostics of one program holding the type tests and the probe (in memory). */
function diagnostics(files: readonly string[]): ts.Diagnostic[] {
  const options = compilerOptions();
  assert.equal(options.strict, true);
  assert.equal(options.noUncheckedIndexedAccess, true);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (f === PROBE ? PROBE_SOURCE : readFile(f));
  host.fileExists = (f) => f === PROBE || fileExists(f);
  host.getSourceFile = (f, v, onError, create) =>
    f === PROBE ? ts.createSourceFile(f, PROBE_SOURCE, v) : getSourceFile(f, v, onError, create);
  return [...ts.getPreEmitDiagnostics(ts.createProgram([...files, PROBE], options, host))];
}

function describe(d: ts.Diagnostic): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (d.file === undefined || d.start === undefined) return text;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${relative(root, d.file.fileName)}:${line + 1}:${character + 1} ${text}`;
}

const files = readdirSync(here)
  .filter((n) => n.endsWith('.types.ts'))
  .sort()
  .map((n) => join(here, n));

test('test/types has type tests of SqlQueryset, serializers and views', () => {
  assert.deepEqual(
    files.map((f) => relative(here, f)),
    ['serializers.types.ts', 'sql-queryset.types.ts', 'views.types.ts'],
  );
});

test('the type tests compile with no diagnostic under the project options; a wrong expectation would be reported', () => {
  const all = diagnostics(files);
  const probe = all.filter((d) => d.file?.fileName === PROBE);
  // The check itself: an unused @ts-expect-error (2578) and a real mistake (2322) are both errors.
  assert.deepEqual(probe.map((d) => d.code).sort(), [2322, 2578], probe.map(describe).join('\n'));
  assert.deepEqual(all.filter((d) => d.file?.fileName !== PROBE).map(describe), []);
});

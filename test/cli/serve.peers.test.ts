/**
 * `eventide serve` without its optional peers: a copy of the package (its
 * sources, `bin/`, `package.json`) in a temporary directory whose
 * `node_modules` links every package of this checkout except pino (or
 * prom-client), so the package is really missing for the code that loads
 * it. The command, started as installed (`bin/eventide.js`), prints one
 * line naming the package and `npm install pino prom-client`, and exits
 * with status 2; `--help` still works.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAll, ROOT, runNode } from '../support/spawn.js';
import { SERVE_USAGE } from '../../src/cli/serve.js';

after(killAll);
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of the package whose node_modules lacks `missing` (every other package is a link to this checkout's). */
function packageWithout(missing: readonly string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'eventide-peers-'));
  dirs.push(root);
  for (const entry of ['src', 'bin', 'package.json', 'tsconfig.json'])
    cpSync(join(ROOT, entry), join(root, entry), { recursive: true });
  const modules = join(root, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (missing.includes(name) || name.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
  // The premise: from the copied CLI the package cannot be found (nothing above the directory provides it).
  const require = createRequire(join(root, 'src', 'cli', 'logging.ts'));
  for (const name of missing) assert.throws(() => require.resolve(name), { code: 'MODULE_NOT_FOUND' }, name);
  for (const name of ['pino', 'prom-client', 'tsx'].filter((n) => !missing.includes(n))) require.resolve(name);
  return root;
}

/** `bin/eventide.js ARGS` of the copy, in the copy's directory. */
function runCopy(root: string, args: string[]): ReturnType<typeof runNode> {
  return runNode([join(root, 'bin', 'eventide.js'), ...args], { cwd: root });
}

const INSTALL = 'npm install pino prom-client';

for (const missing of ['pino', 'prom-client']) {
  test(`without ${missing}: one line naming it and "${INSTALL}", exit status 2, no stack; --help still works`, async () => {
    const root = packageWithout([missing]);
    const run = runCopy(root, ['serve', '--port', '0', '--database', join(root, 'demo.sqlite3'), '--rows', '10']);
    const ex = await run.waitExit(30_000);
    assert.equal(ex.code, 2, run.stderr());
    assert.equal(
      run.stderr(),
      `eventide serve: the package ${missing} is not installed (eventide serve needs pino and prom-client): ${INSTALL}\n`,
    );
    assert.equal(run.stdout(), '');
    const help = runCopy(root, ['serve', '--help']);
    assert.equal((await help.waitExit(30_000)).code, 0, help.stderr());
    assert.equal(help.stdout(), SERVE_USAGE);
  });
}

test('without both: one line naming both', async () => {
  const root = packageWithout(['pino', 'prom-client']);
  const run = runCopy(root, ['serve', '--port', '0']);
  assert.equal((await run.waitExit(30_000)).code, 2, run.stderr());
  assert.equal(
    run.stderr(),
    `eventide serve: the packages pino and prom-client are not installed (eventide serve needs pino and prom-client): ${INSTALL}\n`,
  );
});

/**
 * `eventide init <dir>`: the command line (help, a directory that is not
 * empty, a bad command line, what is written), through `bin/eventide.js` of
 * the checkout. The starter as a user gets it (packed, installed offline,
 * its tests and its server) is test/cli/init.starter.slow.test.ts.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { killAll, ROOT, runNode, tempDir } from '../support/spawn.js';

after(killAll);

/** The environment of the CLI: no test-runner context. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false' };
  delete env['NODE_TEST_CONTEXT'];
  return env;
}

/** `eventide` from the checkout (bin/eventide.js runs the sources). */
function cli(args: string[], cwd = ROOT): ReturnType<typeof runNode> {
  return runNode([join(ROOT, 'bin', 'eventide.js'), ...args], { cwd, env: childEnv() });
}

test('init --help and help init: what it writes and the two commands, exit 0', { timeout: 60_000 }, async () => {
  for (const args of [
    ['init', '--help'],
    ['help', 'init'],
  ]) {
    const r = cli(args);
    const { code } = await r.waitExit(50_000);
    assert.equal(code, 0, r.stderr());
    assert.match(r.stdout(), /^Usage: eventide init <dir>/);
    assert.match(r.stdout(), /npm install && npm start/);
    assert.match(r.stdout(), /npm install && npm test/);
    assert.match(r.stdout(), /exit status: 0 written, 2 /i);
  }
  const usage = cli(['help']);
  await usage.waitExit(50_000);
  assert.match(usage.stdout(), /^ {2}init DIR /m);
});

test(
  'init refuses a directory that is not empty, a file and a bad command line with exit 2',
  { timeout: 90_000 },
  async () => {
    const tmp = tempDir('eventide-init-');
    try {
      const full = join(tmp.path, 'full');
      mkdirSync(full);
      writeFileSync(join(full, 'notes.txt'), 'mine\n');
      const file = join(tmp.path, 'a-file');
      writeFileSync(file, '');
      const cases: [string[], RegExp][] = [
        [['init', full], /full is not empty \(1 entry: notes\.txt\); name a new or empty directory/],
        [['init', file], /exists and is not a directory/],
        [['init'], /missing <dir>/],
        [['init', 'a', 'b'], /one <dir> only/],
        [['init', '--force', 'x'], /unknown option --force/],
        [['init', 'x', '--eventide'], /--eventide needs a version range or a path/],
        [['init', 'x', '--eventide='], /--eventide needs a version range or a path/],
      ];
      for (const [args, message] of cases) {
        const r = cli(args, tmp.path);
        const { code } = await r.waitExit(50_000);
        assert.equal(code, 2, `${args.join(' ')}: ${r.stderr()}`);
        assert.match(r.stderr(), message);
      }
      assert.deepEqual(readdirSync(full), ['notes.txt'], 'nothing written into it');
      assert.deepEqual(readdirSync(tmp.path).sort(), ['a-file', 'full'], 'nothing else created');
    } finally {
      tmp.remove();
    }
  },
);

test(
  'init writes the project: package.json with this eventide and its tested versions, strict tsconfig, .gitignore',
  { timeout: 60_000 },
  async () => {
    const tmp = tempDir('eventide-init-');
    try {
      const r = cli(['init', 'My API'], tmp.path);
      const { code } = await r.waitExit(50_000);
      assert.equal(code, 0, r.stderr());
      const dir = join(tmp.path, 'My API');
      const files = [
        '.gitignore',
        'README.md',
        'package.json',
        'src/app.ts',
        'src/server.ts',
        'test/app.test.ts',
        'tsconfig.json',
      ];
      for (const f of files) assert.ok(existsSync(join(dir, f)), f);
      assert.match(r.stdout(), /cd My API\n {2}npm install && npm start/);
      const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        version: string;
        devDependencies: Record<string, string>;
      };
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        type: string;
        scripts: Record<string, string>;
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      assert.equal(pkg.name, 'my-api');
      assert.equal(pkg.type, 'module');
      assert.deepEqual(Object.keys(pkg.scripts).sort(), ['start', 'test']);
      assert.equal(pkg.dependencies['eventide'], `^${own.version}`);
      for (const dep of ['kysely', 'better-sqlite3', 'swagger-ui-dist'])
        assert.equal(pkg.dependencies[dep], own.devDependencies[dep], dep);
      for (const dep of ['tsx', 'typescript', '@types/node'])
        assert.equal(pkg.devDependencies[dep], own.devDependencies[dep], dep);
      const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as {
        compilerOptions: Record<string, unknown>;
      };
      assert.equal(tsconfig.compilerOptions['strict'], true);
      assert.equal(tsconfig.compilerOptions['noUncheckedIndexedAccess'], true);
      assert.equal(tsconfig.compilerOptions['module'], 'NodeNext');
      assert.match(readFileSync(join(dir, '.gitignore'), 'utf8'), /^node_modules\/$/m);
      const readme = readFileSync(join(dir, 'README.md'), 'utf8');
      assert.match(readme, /^# my-api$/m);
      assert.match(readme, /npm install && npm start/);
      assert.match(readme, /npm install && npm test/);
    } finally {
      tmp.remove();
    }
  },
);

test(
  'init --eventide: a path (a packed tarball, a checkout) as file:<absolute path>, or a range as given',
  { timeout: 90_000 },
  async () => {
    const tmp = tempDir('eventide-init-');
    try {
      const tarball = join(tmp.path, 'eventide-0.1.0.tgz');
      writeFileSync(tarball, '');
      const cases: [string[], string][] = [
        [['init', 'a', '--eventide', 'eventide-0.1.0.tgz'], `file:${tarball}`],
        [['init', '--eventide=../' + basename(tmp.path) + '/eventide-0.1.0.tgz', 'b'], `file:${tarball}`],
        [['init', 'c', '--eventide', '~0.1.0'], '~0.1.0'],
      ];
      for (const [args, spec] of cases) {
        const r = cli(args, tmp.path);
        const { code } = await r.waitExit(50_000);
        assert.equal(code, 0, `${args.join(' ')}: ${r.stderr()}`);
        const dir = join(tmp.path, args.find((a) => /^[abc]$/.test(a)) ?? '');
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
          dependencies: Record<string, string>;
        };
        assert.equal(pkg.dependencies['eventide'], spec, args.join(' '));
      }
    } finally {
      tmp.remove();
    }
  },
);

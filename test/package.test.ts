/**
 * The package as a user gets it: built into a temporary directory, packed
 * with `npm pack`, installed into a fresh consumer project (without the
 * optional database drivers), then used from ESM, from CommonJS
 * (`require()`, Node.js >= 20.19) and from strict TypeScript
 * (`skipLibCheck: false`), running the README's web-API snippet for real
 * on 127.0.0.1 (and on a port that is taken, where it must exit non-zero).
 *
 * README's code: every ```ts block compiles in the consumer project, each
 * as a module of its own, except that a block whose info string says
 * `continues` (```ts continues) goes on from the block before it, in the
 * same module (it uses its names). The web-API block (the one that builds a
 * `RestApi`) and what continues it also run: with `PORT=0`, and with
 * `await base.dispatch()` replaced by a bounded run that fetches a page.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { codeBlocks } from './support/doc-examples.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  type: string;
  engines: { node: string };
  files: string[];
  exports: Record<string, { types: string; import: string; default: string } | string>;
  dependencies?: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
};
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const ENTRIES = ['.', './event', './http', './rest', './sql'];

let work = '';
let consumer = '';
let installed = '';

/** README's ```ts blocks, a `continues` block joined to the one before it. */
function readmeModules(): string[] {
  const modules: string[] = [];
  for (const b of codeBlocks(readFileSync(join(root, 'README.md'), 'utf8'))) {
    if (b.lang !== 'ts' && b.lang !== 'typescript') continue;
    if (b.meta === 'continues' && modules.length > 0) modules[modules.length - 1] += b.text;
    else modules.push(b.text);
  }
  return modules;
}

/** The README's web-API module (with what continues it), as JavaScript that serves for a bounded time. */
function readmeWebApi(): string {
  const snippet = readmeModules().find((m) => m.includes('new RestApi('));
  assert.ok(snippet !== undefined, 'the README has the RestApi example');
  assert.match(snippet, /if \(!http\.bind\('127\.0\.0\.1', port\)\) \{/);
  assert.match(snippet, /process\.exit\(1\);/);
  assert.match(snippet, /await base\.dispatch\(\);/);
  const bounded = snippet.replace(
    'await base.dispatch();',
    [
      'const running = base.dispatch();',
      'const bound = http.getBoundPorts()[0];',
      'const fetched = await fetch(`http://127.0.0.1:${bound}/v2/items/`);',
      'console.log(JSON.stringify({ status: fetched.status, body: await fetched.json() }));',
      'http.free();',
      'await running;',
    ].join('\n'),
  );
  return ts.transpileModule(bounded, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, npm_config_update_notifier: 'false', ...env },
  });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

before(() => {
  work = mkdtempSync(join(tmpdir(), 'eventide-pack-'));
  // Build and pack a copy: the checkout's own dist/ stays as it is.
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin', 'docs', 'examples'])
    cpSync(join(root, f), join(stage, f), { recursive: true });
  run(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')], root);
  const tarball = run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], stage)
    .trim()
    .split('\n')
    .pop() as string;
  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(work, tarball)], consumer);
  installed = join(consumer, 'node_modules', 'eventide');
});

after(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

test('package.json: ESM with a default condition per entry point, optional peer drivers, no runtime dependency', () => {
  assert.equal(pkg.name, 'eventide');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.engines.node, '>=20');
  assert.deepEqual(Object.keys(pkg.exports), [...ENTRIES, './package.json']);
  for (const key of ENTRIES) {
    const e = pkg.exports[key] as { types: string; import: string; default: string };
    assert.match(e.import, /^\.\/dist\/.*index\.js$/, key);
    assert.equal(e.default, e.import, key);
    assert.equal(e.types, e.import.replace(/\.js$/, '.d.ts'), key);
  }
  assert.equal(pkg.dependencies, undefined, 'no runtime dependency');
  // The drivers of eventide/sql, and what only the command loads (logs, metrics, the API reference, a shared count store).
  for (const name of ['kysely', 'better-sqlite3', 'pg', 'pino', 'prom-client'])
    assert.equal(pkg.peerDependenciesMeta[name]?.optional, true, name);
});

test('the tarball: LICENSE, CHANGELOG, README, complete source maps, no @internal in any .d.ts, no sources', () => {
  for (const f of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'bin/eventide.js', 'dist/rest/index.js'])
    assert.ok(existsSync(join(installed, f)), f);
  assert.ok(!existsSync(join(installed, 'src')), 'src/ is not shipped');
  const walk = (dir: string, out: string[] = []): string[] => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, out);
      else out.push(p);
    }
    return out;
  };
  const files = walk(join(installed, 'dist'));
  const maps = files.filter((f) => f.endsWith('.js.map'));
  assert.ok(maps.length > 10);
  for (const m of maps) {
    const map = JSON.parse(readFileSync(m, 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
    assert.equal(map.sourcesContent?.length, map.sources.length, `${m} carries its sources`);
    assert.ok(
      map.sourcesContent?.every((s) => typeof s === 'string' && s.length > 0),
      m,
    );
  }
  for (const d of files.filter((f) => f.endsWith('.d.ts')))
    assert.doesNotMatch(readFileSync(d, 'utf8'), /@internal/, d);
});

test('ESM: every entry loads; event, http and rest load no database driver; the README snippet serves on 127.0.0.1', () => {
  // The README's web-API example, on port 0 and for a bounded time instead of serving for ever.
  writeFileSync(join(consumer, 'readme.mjs'), readmeWebApi());
  const [fetched, injected] = run(process.execPath, ['readme.mjs'], consumer, { PORT: '0' }).trim().split('\n');
  const out = JSON.parse(fetched as string) as {
    status: number;
    body: { count: number; results: unknown[] };
  };
  assert.equal(out.status, 200);
  assert.deepEqual(out.body, {
    count: 2,
    next: null,
    previous: null,
    results: [
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ],
  });
  // The `continues` block: api.inject() after the server stopped.
  assert.equal(injected, '200 application/json 2');

  writeFileSync(
    join(consumer, 'entries.mjs'),
    [
      "import { createRequire } from 'node:module';",
      "for (const e of ['eventide', 'eventide/event', 'eventide/http', 'eventide/rest']) await import(e);",
      'const require = createRequire(import.meta.url);',
      'const loaded = Object.keys(require.cache).concat(process.moduleLoadList ?? []).filter((m) => /better-sqlite3|[\\\\/]pg[\\\\/]|kysely|\\.node$/.test(m));',
      'console.log(JSON.stringify(loaded));',
    ].join('\n'),
  );
  assert.equal(run(process.execPath, ['entries.mjs'], consumer).trim(), '[]');
});

test('eventide/sql without its peers: kysely missing names kysely; with kysely, a missing driver names it', () => {
  writeFileSync(join(consumer, 'sql.mjs'), "await import('eventide/sql');");
  const r = spawnSync(process.execPath, ['sql.mjs'], { cwd: consumer, encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /kysely/);
  symlinkSync(join(root, 'node_modules', 'kysely'), join(consumer, 'node_modules', 'kysely'), 'dir');
  writeFileSync(
    join(consumer, 'sql-driver.mjs'),
    [
      "const { createSqliteKysely } = await import('eventide/sql');",
      "try { createSqliteKysely(':memory:'); console.log('opened'); } catch (e) { console.log(`${e.name}: ${e.message}`); }",
    ].join('\n'),
  );
  assert.match(
    run(process.execPath, ['sql-driver.mjs'], consumer),
    /^ConfigurationError: SQLite needs the package better-sqlite3, which is not installed: npm install better-sqlite3/,
  );
});

test('CommonJS: require() of every entry point works (Node.js >= 20.19)', () => {
  writeFileSync(
    join(consumer, 'cjs.cjs'),
    [
      "const { EventBase, EventBuffer } = require('eventide/event');",
      "const { EventHttp } = require('eventide/http');",
      "const { RestApi, PageNumberPagination } = require('eventide/rest');",
      "const all = require('eventide');",
      'const b = new EventBuffer(); b.add("a\\r\\n");',
      "console.log([typeof EventBase, typeof EventHttp, typeof RestApi, typeof PageNumberPagination, typeof all.EventHttpRequest, b.readLine(EventBuffer.EOL_CRLF)].join(' '));",
    ].join('\n'),
  );
  const out = execFileSync(process.execPath, ['--no-warnings', 'cjs.cjs'], { cwd: consumer, encoding: 'utf8' });
  assert.equal(out.trim(), 'function function function function function a');
});

test('the README snippet on a port that is taken exits with status 1 and says so', async () => {
  writeFileSync(join(consumer, 'readme-taken.mjs'), readmeWebApi());
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  const port = (holder.address() as AddressInfo).port;
  try {
    const r = spawnSync(process.execPath, ['readme-taken.mjs'], {
      cwd: consumer,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, PORT: String(port) },
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.equal(r.stderr.trim(), `cannot listen on 127.0.0.1:${port}`);
  } finally {
    holder.close();
  }
});

test('strict TypeScript with skipLibCheck off compiles every ts block of the README and every entry point', () => {
  const modules = readmeModules();
  assert.ok(modules.length >= 4, `${modules.length} README modules`);
  const names = modules.map((text, k) => {
    writeFileSync(join(consumer, `readme-${k}.ts`), `${text}\nexport {};\n`);
    return `readme-${k}.ts`;
  });
  writeFileSync(
    join(consumer, 'types.ts'),
    [
      "import type { EventBase } from 'eventide/event';",
      "import type { EventHttpRequest } from 'eventide/http';",
      "import type { Queryset } from 'eventide/rest';",
      "import type { SqlQueryset } from 'eventide/sql';",
      "import * as all from 'eventide';",
      'export type T = [EventBase, EventHttpRequest, Queryset<{ id: number }>, SqlQueryset<{ id: number }>, typeof all.EventHttp];',
    ].join('\n'),
  );
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2023'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
      },
      files: [...names, 'types.ts'],
    }),
  );
  run(process.execPath, [tsc, '-p', 'tsconfig.json'], consumer);
});

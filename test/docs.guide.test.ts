/**
 * docs/guide.md builds a project; this test builds it from the page and
 * runs it, so that the guide cannot drift from what works.
 *
 * The convention of the guide: a code block whose info string says
 * `file=PATH` (```ts file=src/app.ts, ```json file=package.json) is the
 * whole content of that file of the project at that point; a later block
 * with the same path replaces it. A TypeScript block's first line names
 * the file for the reader (`// src/app.ts`); a JSON block's sentence does. Responses are ```http blocks (the
 * conventions of test/docs.responses.test.ts), answered by the finished
 * project, with `http://127.0.0.1:3000` standing for its origin. ```sh
 * blocks are commands for the reader: not run (they install from the
 * registry), but every package the project imports must be in their
 * `npm install` lines.
 *
 * What is checked:
 *
 * 1. Every state of the project the guide shows (the files as they are
 *    just before a block replaces one of them, and the finished project)
 *    type-checks, in one TypeScript program, with the guide's tsconfig.json
 *    (which must say `strict` and `noUncheckedIndexedAccess`).
 * 2. The finished project's tests (`npm test`, which use `api.inject()`)
 *    pass; `npm run build`'s compile produces dist/.
 * 3. `dist/server.js` started with `PORT=0` listens on 127.0.0.1 and answers
 *    every request of the guide's ```http blocks as shown; started on a
 *    port that is taken, it exits with status 1 and says so.
 *
 * `eventide` resolves to this repository's sources: the temporary project's
 * node_modules/eventide is a package.json whose exports name src/<entry>/index.ts
 * (with links to src/ and bin/), and the other packages are links to this
 * repository's node_modules. Running the sources needs tsx, so the compiled
 * server runs with `--import tsx` (which only the linked library needs).
 * The project's files are type-checked, the library's only read for their
 * types (a user of the package compiles against its .d.ts files), and the
 * compile of `npm run build` is that same program's emit of src/ into dist/.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { checkExchange, codeBlocks, httpExchanges, metaAttributes, type CodeBlock } from './support/doc-examples.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const GUIDE = 'docs/guide.md';
const DOC_ORIGIN = 'http://127.0.0.1:3000';
const blocks = codeBlocks(readFileSync(join(root, GUIDE), 'utf8'));

/** The project's files block by block: each state the guide shows, the last one finished. */
function states(): { states: Map<string, string>[]; final: Map<string, string> } {
  const out: Map<string, string>[] = [];
  let current = new Map<string, string>();
  for (const block of blocks) {
    const file = metaAttributes(block.meta)['file'];
    if (file === undefined) continue;
    if (current.has(file)) out.push(new Map(current));
    current = new Map(current);
    current.set(file, block.text);
  }
  out.push(current);
  return { states: out, final: current };
}

const { states: shown, final } = states();

let work = '';
let project = '';

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...childEnv(), npm_config_update_notifier: 'false', ...env },
  });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** This process's environment without what would make a child `node --test` report to this runner. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['NODE_TEST_CONTEXT'];
  return env;
}

function writeProject(dir: string, files: Map<string, string>): void {
  for (const [file, text] of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
}

before(() => {
  work = mkdtempSync(join(tmpdir(), 'eventide-guide-'));
  // One node_modules above every state: eventide as its sources, the rest linked.
  const lib = join(work, 'node_modules', 'eventide');
  mkdirSync(lib, { recursive: true });
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, { import: string } | string>;
  };
  const exportsMap: Record<string, string> = {};
  for (const [key, value] of Object.entries(pkg.exports))
    exportsMap[key] =
      typeof value === 'string' ? value : value.import.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');
  writeFileSync(
    join(lib, 'package.json'),
    JSON.stringify({ name: 'eventide', version: '0.0.0-src', type: 'module', exports: exportsMap }),
  );
  symlinkSync(join(root, 'src'), join(lib, 'src'), 'dir');
  symlinkSync(join(root, 'bin'), join(lib, 'bin'), 'dir');
  for (const name of [
    'kysely',
    'better-sqlite3',
    'tsx',
    'typescript',
    '@types',
    'swagger-ui-dist',
    'pino',
    'prom-client',
  ])
    symlinkSync(join(root, 'node_modules', name), join(work, 'node_modules', name), 'dir');
  mkdirSync(join(work, 'node_modules', '.bin'));
  symlinkSync(join(root, 'node_modules', 'typescript', 'bin', 'tsc'), join(work, 'node_modules', '.bin', 'tsc'));
  symlinkSync(join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(work, 'node_modules', '.bin', 'tsx'));
  shown.forEach((files, k) => writeProject(join(work, `state-${k}`), files));
  project = join(work, `state-${shown.length - 1}`);
});

after(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

test('the guide: files, responses and commands are annotated as the convention says', () => {
  for (const f of ['package.json', 'tsconfig.json', 'src/db.ts', 'src/app.ts', 'src/server.ts', 'test/books.test.ts'])
    assert.ok(final.has(f), `the guide writes ${f}`);
  assert.ok(shown.length >= 3, 'the guide shows the project in several states');
  const code = blocks.filter((b) => ['ts', 'typescript', 'json'].includes(b.lang));
  for (const b of code) {
    const file = metaAttributes(b.meta)['file'];
    assert.ok(file !== undefined, `${GUIDE}:${b.line}: a code block names its file`);
    // The reader sees the path: a TypeScript file's first line names it.
    if (b.lang !== 'json') assert.equal(b.text.split('\n')[0], `// ${file}`, `${GUIDE}:${b.line}`);
  }
  assert.ok(blocks.filter((b) => b.lang === 'http').length >= 3, 'the guide shows responses');
  const pkg = JSON.parse(final.get('package.json') as string) as { type: string };
  assert.equal(pkg.type, 'module');
});

test('every package the project imports is in the guide`s npm install lines', () => {
  const installed = new Set(
    blocks
      .filter((b: CodeBlock) => b.lang === 'sh')
      .flatMap((b) => b.text.split('\n'))
      .filter((l) => /^npm install\b/.test(l))
      .flatMap((l) => l.split(/\s+/).slice(2))
      .filter((w) => !w.startsWith('-')),
  );
  const imported = new Set<string>();
  for (const [file, text] of final)
    if (file.endsWith('.ts'))
      for (const m of text.matchAll(/from '([^'.][^']*)'/g)) {
        const spec = m[1] as string;
        if (spec.startsWith('node:')) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
      }
  for (const name of [...imported, 'typescript', 'tsx', '@types/node', 'better-sqlite3', 'pino', 'prom-client'])
    assert.ok(installed.has(name), `npm install ${name}`);
});

let compiled: { diagnostics: string[]; mistake: string[] } | null = null;
/**
 * Type-checks every state in one program (only the project's files: the
 * library's are read for their types), and emits the finished project's
 * src/ into its dist/ as `npm run build` does (`tsc -p tsconfig.build.json`:
 * rootDir src, outDir dist), once.
 */
function compile(): { diagnostics: string[]; mistake: string[] } {
  if (compiled !== null) return compiled;
  const fileNames: string[] = [];
  let options: ts.CompilerOptions | null = null;
  shown.forEach((_, k) => {
    const dir = join(work, `state-${k}`);
    const config = ts.readConfigFile(join(dir, 'tsconfig.json'), (p) => ts.sys.readFile(p));
    assert.equal(config.error, undefined);
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir);
    assert.deepEqual(parsed.errors, []);
    assert.equal(parsed.options.strict, true, 'strict');
    assert.equal(parsed.options.noUncheckedIndexedAccess, true, 'noUncheckedIndexedAccess');
    options ??= parsed.options;
    fileNames.push(...parsed.fileNames);
  });
  assert.ok(options !== null);
  const build = ts.readConfigFile(join(project, 'tsconfig.build.json'), (p) => ts.sys.readFile(p));
  const buildOptions = ts.parseJsonConfigFileContent(build.config, ts.sys, project).options;
  assert.equal(buildOptions.rootDir, join(project, 'src'));
  assert.equal(buildOptions.outDir, join(project, 'dist'));
  const out = join(work, 'out');
  const program = ts.createProgram(fileNames, {
    ...(options as ts.CompilerOptions),
    noEmit: false,
    rootDir: work,
    outDir: out,
  });
  const own = program.getSourceFiles().filter((f) => f.fileName.startsWith(`${work}/state-`));
  assert.equal(own.length, fileNames.length);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ].map((d) => {
    const where =
      d.file && d.start !== undefined
        ? `${d.file.fileName.replace(`${work}/`, '')}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
        : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  // The mistake the guide says does not compile: a field that is no column of the table.
  const mistake = join(work, 'mistake', 'src', 'db.ts');
  const db = final.get('src/db.ts') as string;
  assert.ok(db.includes("author: { type: 'text' },"));
  mkdirSync(dirname(mistake), { recursive: true });
  writeFileSync(mistake, db.replace("author: { type: 'text' },", "autor: { type: 'text' },"));
  const wrong = ts.createProgram([mistake], { ...(options as ts.CompilerOptions), noEmit: true });
  const caught = wrong.getSemanticDiagnostics(wrong.getSourceFile(mistake));
  const finalSrc = join(project, 'src');
  for (const f of own.filter((x) => x.fileName.startsWith(`${finalSrc}/`)))
    program.emit(f, (name, text) => {
      const target = join(project, 'dist', name.slice(join(out, relative(work, finalSrc)).length + 1));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
    });
  compiled = {
    diagnostics,
    mistake: caught.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
  };
  return compiled;
}

test('every state of the project type-checks under strict and noUncheckedIndexedAccess', () => {
  assert.deepEqual(compile().diagnostics, []);
});

test('a field that is no column of the table does not compile, as the guide says', () => {
  const { mistake } = compile();
  assert.ok(mistake.length > 0, 'no diagnostic for the field autor');
  assert.match(mistake.join('\n'), /autor/);
});

test('the finished project: npm test passes (its tests use api.inject())', () => {
  const out = run('npm', ['test'], project);
  assert.match(out, /# pass [1-9]/);
  assert.match(out, /# fail 0/);
});

test('the finished project: the build compiles src/ into dist/', () => {
  const script = (JSON.parse(final.get('package.json') as string) as { scripts: Record<string, string> }).scripts[
    'build'
  ];
  assert.equal(script, 'tsc -p tsconfig.build.json');
  compile();
  for (const f of ['dist/app.js', 'dist/server.js', 'dist/db.js'])
    assert.ok(readFileSync(join(project, f)).length > 0, f);
});

/** Starts `node --import tsx dist/server.js` with `env`; resolves with the process and its first stdout line. */
async function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'dist/server.js'], {
    cwd: project,
    env: { ...childEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (c: string) => (err += c));
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (c: string) => (out += c));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line from the server: ${out}`)), 60_000);
    child.stdout?.on('data', () => {
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.split('\n')[0] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}): ${out}${err}`));
    });
  });
  return { child, line };
}

test('dist/server.js on port 0 answers every request of the guide as shown', async () => {
  compile();
  const { child, line } = await startServer({ PORT: '0', BOOKS_DB: join(work, 'books.sqlite3') });
  try {
    const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)\/$/.exec(line);
    assert.ok(m !== null, line);
    const origin = m[1] as string;
    let count = 0;
    for (const block of blocks.filter((b) => b.lang === 'http'))
      for (const ex of httpExchanges(block)) {
        await checkExchange(GUIDE, ex, origin, DOC_ORIGIN);
        count++;
      }
    assert.ok(count >= 8, `${count} requests`);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
});

test('dist/server.js on a port that is taken exits with status 1 and says why', async () => {
  compile();
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  const port = (holder.address() as AddressInfo).port;
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'dist/server.js'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...childEnv(), PORT: String(port), BOOKS_DB: join(work, 'taken.sqlite3') },
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
  } finally {
    holder.close();
  }
});

test('production: the eventide serve --app command of the guide serves the build with workers, logs and health', async () => {
  compile();
  const command = blocks
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => b.text.split('\n'))
    .find((l) => l.includes('npx eventide serve --app'));
  assert.ok(command !== undefined, 'the guide runs eventide serve --app');
  const args = command.slice(command.indexOf('npx eventide ') + 'npx eventide '.length).split(/\s+/);
  assert.deepEqual(args.slice(0, 3), ['serve', '--app', 'dist/app.js']);
  const option = (name: string): string => {
    const i = args.indexOf(name);
    assert.ok(i > 0, `${name} in ${command}`);
    return args[i + 1] as string;
  };
  assert.equal(option('--workers'), '2');
  const host = option('--allowed-hosts');
  // On 127.0.0.1 and a free port here; the rest as the guide says.
  const used = args.map((a, i) => (args[i - 1] === '--port' ? '0' : args[i - 1] === '--host' ? '127.0.0.1' : a));
  const child = spawn(process.execPath, [join(work, 'node_modules', 'eventide', 'bin', 'eventide.js'), ...used], {
    cwd: project,
    env: { ...childEnv(), BOOKS_DB: join(work, 'served.sqlite3'), EVENTIDE_LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const entries: Record<string, unknown>[] = [];
  let err = '';
  let buffered = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (c: string) => (err += c));
  child.stdout?.setEncoding('utf8');
  const waiters: { test: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void }[] =
    [];
  child.stdout?.on('data', (c: string) => {
    buffered += c;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      entries.push(entry);
      for (const w of waiters.splice(0))
        if (w.test(entry)) w.resolve(entry);
        else waiters.push(w);
    }
  });
  const entry = (test: (e: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    const seen = entries.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no such log entry within 60 s: ${JSON.stringify(entries)}\n${err}`)),
        60_000,
      );
      waiters.push({
        test,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  };
  try {
    const announced = await entry((e) => typeof e['port'] === 'number' && /2 workers/.test(String(e['msg'])));
    const origin = `http://127.0.0.1:${announced['port'] as number}`;
    for (const health of ['/healthz', '/readyz', '/metrics'])
      assert.equal((await fetch(`${origin}${health}`)).status, 200, health);
    const served = await send(origin, '/v1/books/', { host });
    assert.equal(served.status, 200);
    const requestId = served.headers['x-request-id'];
    assert.ok(typeof requestId === 'string' && requestId.length > 0, 'a request id');
    const access = await entry((e) => e['requestId'] === requestId);
    assert.equal(access['status'], 200);
    assert.equal(access['path'], '/v1/books/');
    assert.ok(access['worker'] === 1 || access['worker'] === 2, 'logged by a worker');
    assert.equal((await send(origin, '/v1/books/', { host: 'evil.example' })).status, 400);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
  assert.equal(child.exitCode, 0, err);
});

/** A GET with a Host of its choice (fetch cannot set Host). */
function send(
  origin: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const u = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the shortcut the guide names: npx eventide init my-api writes the starter project it describes', () => {
  const guide = readFileSync(join(root, GUIDE), 'utf8');
  assert.match(guide, /`npx eventide init my-api`/);
  run(process.execPath, [join(work, 'node_modules', 'eventide', 'bin', 'eventide.js'), 'init', 'my-api'], work);
  const starter = join(work, 'my-api');
  const pkg = JSON.parse(readFileSync(join(starter, 'package.json'), 'utf8')) as {
    type: string;
    scripts: Record<string, string>;
  };
  assert.equal(pkg.type, 'module');
  assert.ok(pkg.scripts['test'] !== undefined && pkg.scripts['start'] !== undefined);
  const tsconfig = readFileSync(join(starter, 'tsconfig.json'), 'utf8');
  assert.match(tsconfig, /"strict": true/);
  assert.match(tsconfig, /"noUncheckedIndexedAccess": true/);
  assert.match(readFileSync(join(starter, 'src', 'app.ts'), 'utf8'), /SqlQueryset/);
  assert.match(readFileSync(join(starter, 'test', 'app.test.ts'), 'utf8'), /\.inject\(/);
  assert.ok(readFileSync(join(starter, 'README.md'), 'utf8').includes('npm test'));
});

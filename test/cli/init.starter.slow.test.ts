/**
 * `eventide init <dir>`, the starter as a user gets it: eventide is
 * built and packed (as `npm pack` does after its `prepack` build, but from a
 * staged copy, so the checkout's dist/ is left alone), a project is
 * scaffolded by the CLI of the unpacked tarball, its eventide dependency is
 * pointed at the tarball, and it is installed with `npm ci --offline` from a
 * lockfile derived from this repository's (the versions the npm cache holds
 * since this repository's own `npm ci`; nothing is fetched: npm runs
 * offline, and the proxy settings point at 127.0.0.1:9 for anything that
 * would still try). better-sqlite3's install script takes its prebuilt path
 * with the addon this repository's install built for this Node (a local
 * prebuild); where the name does not match (another platform) it builds
 * from source against the Node headers (npm_config_nodedir). Then the
 * project's `npm test` (tsc strict, node:test with api.inject()) must pass,
 * and its server must start on a free port of 127.0.0.1, answer its list,
 * refuse a taken port with exit 1, and stop on SIGTERM with exit 0.
 *
 * A slow test (*.slow.test.ts: scripts/run-tests.mjs runs it after the
 * others, with 15 minutes): under 2 minutes here, on a loaded machine.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type SpawnOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { killAll, ROOT, runNode, tempDir } from '../support/spawn.js';
import { requireCommand } from '../support/tools.js';

after(killAll);

const tar = requireCommand('tar', 'apt-get install tar');
const npm = requireCommand('npm', 'install Node.js with npm');

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of the commands: no test-runner context (a child's node --test reports to its stdout). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', ...extra };
  delete env['NODE_TEST_CONTEXT'];
  return env;
}

/**
 * Runs a command to its end, in its own process group: after `ms` the whole
 * group (npm, node-gyp, the compiler...) is killed and the promise rejects.
 */
function run(cmd: string, args: readonly string[], cwd: string, ms: number, env = childEnv()): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] } as SpawnOptions);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone already
      }
      reject(
        new Error(
          `${cmd} ${args.join(' ')}: no end within ${ms / 1000} s\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`,
        ),
      );
    }, ms);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function ok(r: Ran, what: string): Ran {
  assert.equal(
    r.code,
    0,
    `${what} failed (${r.code ?? r.signal}):\n${r.stdout.slice(-6000)}\n${r.stderr.slice(-6000)}`,
  );
  return r;
}

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/**
 * A lockfile for a project with these dependencies: the entries of this
 * repository's lockfile they need (the closure of their dependencies, at
 * the same places in node_modules), and `extra` entries (eventide's).
 */
function derivedLockfile(
  pkg: { name: string; version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> },
  extra: Record<string, LockEntry>,
): string {
  const repo = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages = repo.packages;
  const out = new Map<string, LockEntry>();
  const queue: string[] = [];
  /** Where Node finds `name` from the package at `from` ('' is the root). */
  const locate = (from: string, name: string): string | null => {
    let base = from;
    for (;;) {
      const at = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
      if (packages[at] !== undefined) return at;
      if (base === '') return null;
      const i = base.lastIndexOf('/node_modules/');
      base = i < 0 ? '' : base.slice(0, i);
    }
  };
  const add = (from: string, name: string, optional: boolean): void => {
    const at = locate(from, name);
    if (at === null) {
      assert.ok(optional, `${name} (needed by ${from || 'the project'}) is not in package-lock.json`);
      return;
    }
    if (out.has(at)) return;
    // The flags say what the entry is to this repository (dev, peer); npm works them out again.
    const entry: LockEntry = { ...(packages[at] as LockEntry) };
    for (const flag of ['dev', 'devOptional', 'peer']) delete entry[flag];
    out.set(at, entry);
    queue.push(at);
  };
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }))
    if (extra[`node_modules/${name}`] === undefined) add('', name, false);
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    const e = packages[at] as LockEntry;
    for (const n of Object.keys(e.dependencies ?? {})) add(at, n, false);
    for (const n of Object.keys(e.optionalDependencies ?? {})) add(at, n, true);
    for (const n of Object.keys(e.peerDependencies ?? {}))
      if (e.peerDependenciesMeta?.[n]?.optional !== true) add(at, n, false);
  }
  const entries = Object.fromEntries([...out, ...Object.entries(extra)].sort(([a], [b]) => (a < b ? -1 : 1)));
  const root = {
    name: pkg.name,
    version: pkg.version,
    dependencies: pkg.dependencies,
    devDependencies: pkg.devDependencies,
  };
  return `${JSON.stringify({ name: pkg.name, version: pkg.version, lockfileVersion: 3, requires: true, packages: { '': root, ...entries } }, null, 2)}\n`;
}

test(
  'a packed eventide: init scaffolds a project that installs offline, passes its npm test and serves its list',
  { timeout: 14 * 60_000, skip: tar.skip || npm.skip },
  async () => {
    tar.assert();
    npm.assert();
    const tmp = tempDir('eventide-starter-');
    try {
      const work = tmp.path;
      // 1. Build and pack a staged copy (the prepack build: tsc -p tsconfig.build.json).
      const stage = join(work, 'stage');
      mkdirSync(stage);
      const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        files: string[];
        bin: Record<string, string>;
        engines: Record<string, string>;
        license: string;
        peerDependencies: Record<string, string>;
        peerDependenciesMeta: Record<string, { optional: boolean }>;
      };
      assert.ok(own.files.includes('templates'), 'package.json "files" ships templates/');
      cpSync(join(ROOT, 'package.json'), join(stage, 'package.json'));
      for (const f of own.files.filter((f) => f !== 'dist')) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      ok(
        await run(
          process.execPath,
          [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')],
          ROOT,
          15 * 60_000,
        ),
        'the build',
      );
      const packed = ok(
        await run(npm.path, ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], stage, 5 * 60_000),
        'npm pack',
      );
      const tarball = packed.stdout.trim().split('\n').pop() as string;
      assert.equal(tarball, `eventide-${own.version}.tgz`);

      // 2. Scaffold with the CLI of the unpacked tarball (dist/ and templates/ as installed).
      const unpacked = join(work, 'unpacked');
      mkdirSync(unpacked);
      ok(await run(tar.path, ['xzf', join(work, tarball), '-C', unpacked], work, 60_000), 'tar x');
      const bin = join(unpacked, 'package', 'bin', 'eventide.js');
      assert.ok(!existsSync(join(unpacked, 'package', 'src')), 'the package runs its build');
      ok(await run(process.execPath, [bin, 'init', 'my-api'], work, 60_000), 'eventide init');
      const project = join(work, 'my-api');
      const again = await run(process.execPath, [bin, 'init', 'my-api'], work, 60_000);
      assert.equal(again.code, 2, 'init into a directory that is not empty');
      assert.match(again.stderr, /my-api is not empty/);

      // 3. eventide from the tarball; the rest from the npm cache, through a lockfile.
      const pkgFile = join(project, 'package.json');
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
        name: string;
        version: string;
        scripts: Record<string, string>;
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      assert.equal(pkg.dependencies['eventide'], `^${own.version}`);
      pkg.dependencies['eventide'] = `file:../${tarball}`;
      writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
      const eventideEntry: LockEntry = {
        version: own.version,
        resolved: `file:../${tarball}`,
        integrity: `sha512-${createHash('sha512')
          .update(readFileSync(join(work, tarball)))
          .digest('base64')}`,
        license: own.license,
        bin: own.bin,
        engines: own.engines,
        peerDependencies: own.peerDependencies,
        peerDependenciesMeta: own.peerDependenciesMeta,
      };
      writeFileSync(
        join(project, 'package-lock.json'),
        derivedLockfile(pkg, { 'node_modules/eventide': eventideEntry }),
      );

      // better-sqlite3's prebuilt path, fed the addon this repository's install built for this Node.
      const sqlite = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as {
        version: string;
      };
      const prebuilds = join(work, 'prebuilds');
      mkdirSync(prebuilds);
      const prebuilt = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
      ok(
        await run(
          tar.path,
          [
            'czf',
            join(prebuilds, prebuilt),
            '-C',
            join(ROOT, 'node_modules', 'better-sqlite3'),
            'build/Release/better_sqlite3.node',
          ],
          work,
          60_000,
        ),
        'tar c',
      );
      const nodePrefix = dirname(dirname(process.execPath));
      const offline = childEnv({
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        // Anything that would still go to the network (a prebuild download, Node headers) meets a closed port.
        npm_config_proxy: 'http://127.0.0.1:9',
        npm_config_https_proxy: 'http://127.0.0.1:9',
        npm_config_better_sqlite3_local_prebuilds: prebuilds,
        // swagger-ui-dist's dependency @scarf/scarf reports installs to scarf.sh from its postinstall unless told not to.
        SCARF_ANALYTICS: 'false',
        ...(existsSync(join(nodePrefix, 'include', 'node', 'common.gypi')) ? { npm_config_nodedir: nodePrefix } : {}),
      });
      ok(
        await run(npm.path, ['ci', '--offline', '--foreground-scripts'], project, 30 * 60_000, offline),
        'npm ci --offline',
      );
      assert.ok(existsSync(join(project, 'node_modules', 'eventide', 'dist', 'rest', 'index.js')));
      assert.ok(existsSync(join(project, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')));

      // 4. Its tests.
      const tested = ok(await run(npm.path, ['test'], project, 15 * 60_000, offline), 'npm test');
      assert.match(tested.stdout, /^# pass 4$/m);
      assert.match(tested.stdout, /^# fail 0$/m);

      // 5. Its server: a free port of 127.0.0.1, the list; a taken port is exit 1; SIGTERM stops it.
      assert.equal(pkg.scripts['start'], 'node --import tsx src/server.ts');
      const serverEnv = childEnv({ HOST: '127.0.0.1', PORT: '0', DATABASE: join(work, 'books.sqlite3') });
      const server = runNode(['--import', 'tsx', 'src/server.ts'], { cwd: project, env: serverEnv });
      await server.waitStdout('Listening on http://127.0.0.1:', 120_000);
      const port = Number(/Listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(server.stdout())?.[1]);
      assert.ok(port > 0, server.stdout());
      assert.ok(existsSync(join(work, 'books.sqlite3')), 'the database is created on first start');
      const res = await fetch(`http://127.0.0.1:${port}/v1/books/`, { signal: AbortSignal.timeout(30_000) });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { next: string | null; results: { id: number; title: string }[] };
      assert.deepEqual(
        body.results.map((b) => b.id),
        [1, 2, 3, 4, 5],
      );
      assert.equal(body.results[0]?.title, 'Pride and Prejudice');
      assert.match(body.next ?? '', new RegExp(`^http://127\\.0\\.0\\.1:${port}/v1/books/\\?cursor=`));

      const taken = runNode(['--import', 'tsx', 'src/server.ts'], {
        cwd: project,
        env: { ...serverEnv, PORT: String(port) },
      });
      const refused = await taken.waitExit(120_000);
      assert.equal(refused.code, 1, taken.stderr());
      assert.match(taken.stderr(), new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: .*in use`));
      assert.match(taken.stderr(), /Set PORT/);

      server.kill('SIGTERM');
      const stopped = await server.waitExit(60_000);
      assert.equal(stopped.code, 0, server.stderr());
    } finally {
      tmp.remove();
    }
  },
);

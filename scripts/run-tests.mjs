#!/usr/bin/env node
// Finds every test file under test/ and runs them with node:test through tsx.
// Usage: node scripts/run-tests.mjs [--node PATH] [filter...]
//   filter       substrings of file paths (none: every test file)
//   --node PATH  run them on that Node.js binary instead of this one: `node` in the tests'
//                PATH is that binary too, and node_modules' native addons (better-sqlite3)
//                are built for it once when the installed ones are for another Node
//                (scripts/native-addons.mjs)
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { addonsFor, nodeInfo } from './native-addons.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const filters = [];
let node = process.execPath;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--node' || a.startsWith('--node=')) {
    const value = a === '--node' ? argv[++i] : a.slice('--node='.length);
    if (value === undefined || value === '') {
      console.error('--node needs the path of a Node.js binary');
      process.exit(2);
    }
    node = findNode(value);
  } else filters.push(a);
}

/** `name` as a path, or, when it has no slash, the first executable of that name in PATH (as a shell finds it). */
function findNode(name) {
  if (name.includes('/') || name.includes(sep)) return resolve(name);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir || '.', name);
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return resolve(p);
    } catch {
      // not here
    }
  }
  return resolve(name);
}

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

const files = walk(join(root, 'test'), [])
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const env = { ...process.env };
if (node !== process.execPath) {
  let info;
  try {
    info = nodeInfo(node);
  } catch (err) {
    console.error(`--node ${node}: not a Node.js binary that runs here (${err.message})`);
    process.exit(2);
  }
  console.error(`running ${files.length} test files on Node ${info.version} (${node})`);
  const addons = addonsFor(root, node, info);
  if (addons !== null) {
    env.NODE_OPTIONS = [env.NODE_OPTIONS, addons.nodeOptions].filter((o) => o !== undefined && o !== '').join(' ');
    Object.assign(env, addons.env);
  }
  env.PATH = [dirname(node), env.PATH].filter((p) => p !== undefined && p !== '').join(delimiter);
}
// --test-timeout bounds each test file as a whole (120 s). A file named *.slow.test.ts (one that
// builds and installs a whole project, say) runs after the others, with 15 minutes.
const SLOW = /\.slow\.test\.ts$/;
const groups = [
  { files: files.filter((f) => !SLOW.test(f)), timeout: 120_000 },
  { files: files.filter((f) => SLOW.test(f)), timeout: 15 * 60_000 },
].filter((g) => g.files.length > 0);

function runGroup({ files: group, timeout }) {
  const args = [
    // Node 24's runner starts each file's process with every option of its own, defaults included:
    // its --report-signal=SIGUSR2 implies --report-on-signal, which adds a SIGUSR2 listener (the
    // signal tests count the listeners) and writes a report file for each SIGUSR2 into the checkout.
    // Off, as it is by default on Node 20 and 22.
    '--no-report-on-signal',
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    `--test-timeout=${timeout}`,
    '--test-reporter=spec',
    ...group,
  ];
  return new Promise((resolve) => {
    const child = spawn(node, args, { cwd: root, stdio: 'inherit', env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let status = 0;
for (const group of groups) status = (await runGroup(group)) || status;
process.exit(status);

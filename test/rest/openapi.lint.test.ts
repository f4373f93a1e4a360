/**
 * The demo's OpenAPI documents pass the ecosystem's own linters, as served:
 * `/openapi/v1.json` and `/openapi/v2.json` are fetched from a real demo
 * server (127.0.0.1, port 0), written to a temporary directory, and linted
 * with Redocly CLI (`redocly lint`, the `recommended` ruleset, with the
 * repository's `redocly.yaml`) and Spectral (`spectral lint`, the
 * `spectral:oas` ruleset, with the repository's `.spectral.yaml`): no error
 * and no warning (nor info or hint). The tools are devDependencies, run from
 * node_modules/.bin with telemetry and update checks off (no network).
 *
 * The exceptions configured in those files are the deliberate ones and no
 * more: linted with the bare rulesets, the documents break exactly the
 * rules the configuration turns off (each exception is needed), and nothing
 * else.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { buildDemoApi } from '../../src/cli/demo.js';
import { demoItem, type Item } from '../../src/cli/demo-data.js';
import { ArrayQueryset } from '../../src/rest/data/array.js';
import { call, serveApi } from '../support/rest.js';
import { ROOT, tempDir } from '../support/spawn.js';
import { requireCommand } from '../support/tools.js';

const INSTALL = 'a devDependency: npm install';
const redocly = requireCommand(join(ROOT, 'node_modules', '.bin', 'redocly'), `@redocly/cli is ${INSTALL}`);
const spectral = requireCommand(
  join(ROOT, 'node_modules', '.bin', 'spectral'),
  `@stoplight/spectral-cli is ${INSTALL}`,
);

/** No telemetry, no update notice or check: the linters make no network call. */
const ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_UPDATE_NOTIFIER: '1',
  DO_NOT_TRACK: '1',
  NODE_NO_WARNINGS: '1',
};

const VERSIONS = ['v1', 'v2'] as const;

/** The rules each configuration turns off, and why (the reasons are in the files and docs/openapi.md). */
const REDOCLY_EXCEPTIONS = ['no-path-trailing-slash', 'security-defined'];
const SPECTRAL_EXCEPTIONS = ['path-keys-no-trailing-slash'];

let dir: { path: string; remove: () => void };

before(async () => {
  dir = tempDir('eventide-openapi-lint-');
  const rows = new ArrayQueryset<Item>(Array.from({ length: 30 }, (_, i) => demoItem(i + 1)));
  const served = await serveApi(buildDemoApi(rows), 'node');
  try {
    for (const version of VERSIONS) {
      const r = await call(`${served.origin}/openapi/${version}.json`);
      assert.equal(r.status, 200, `/openapi/${version}.json`);
      writeFileSync(join(dir.path, `${version}.json`), JSON.stringify(r.body, null, 2));
    }
  } finally {
    await served.close();
  }
  // The bare rulesets, for the exceptions test.
  writeFileSync(join(dir.path, 'bare-redocly.yaml'), 'extends:\n  - recommended\n');
  writeFileSync(join(dir.path, 'bare-spectral.yaml'), 'extends:\n  - spectral:oas\n');
});

after(() => dir?.remove());

/** Runs a linter in the temporary directory; resolves with its stdout whatever its exit status. */
function run(cmd: string, args: readonly string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      [...args],
      { cwd: dir.path, env: ENV, timeout: 180_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') reject(new Error(`${cmd} did not run`, { cause: error }));
        else resolve({ stdout, stderr, code: typeof error?.code === 'number' ? error.code : 0 });
      },
    );
  });
}

interface Problem {
  rule: string;
  severity: string;
  message: string;
  where: string;
}

/** `redocly lint --format=json` of one document: its problems (errors, warnings). */
async function redoclyLint(file: string, config: string): Promise<Problem[]> {
  const r = await run(redocly.path, ['lint', file, '--format=json', '--config', config]);
  const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
  };
  assert.equal(out.problems.length, out.totals.errors + out.totals.warnings, 'every problem counted');
  return out.problems.map((p) => ({
    rule: p.ruleId,
    severity: p.severity,
    message: p.message,
    where: p.location?.[0]?.pointer ?? '',
  }));
}

const SPECTRAL_SEVERITY = ['error', 'warning', 'info', 'hint'];

/** `spectral lint --format json` of one document: every result (errors, warnings, infos, hints). */
async function spectralLint(file: string, ruleset: string): Promise<Problem[]> {
  const output = join(dir.path, `${file}.${basename(ruleset)}.spectral.json`);
  await run(spectral.path, ['lint', file, '--ruleset', ruleset, '--format', 'json', '--output', output]);
  const results = JSON.parse(readFileSync(output, 'utf8')) as {
    code: string;
    severity: number;
    message: string;
    path: string[];
  }[];
  return results.map((p) => ({
    rule: p.code,
    severity: SPECTRAL_SEVERITY[p.severity] ?? String(p.severity),
    message: p.message,
    where: p.path.join('.'),
  }));
}

const show = (problems: Problem[]): string =>
  problems.map((p) => `${p.severity} ${p.rule} at ${p.where}: ${p.message}`).join('\n');

test(
  'Redocly (recommended, redocly.yaml): no error and no warning in /openapi/v1.json and /openapi/v2.json',
  { skip: redocly.skip },
  async () => {
    redocly.assert();
    for (const version of VERSIONS) {
      const problems = await redoclyLint(`${version}.json`, join(ROOT, 'redocly.yaml'));
      assert.deepEqual(problems, [], `redocly lint ${version}.json:\n${show(problems)}`);
    }
  },
);

test(
  'Spectral (spectral:oas, .spectral.yaml): no error, warning, info or hint in /openapi/v1.json and /openapi/v2.json',
  { skip: spectral.skip },
  async () => {
    spectral.assert();
    for (const version of VERSIONS) {
      const problems = await spectralLint(`${version}.json`, join(ROOT, '.spectral.yaml'));
      assert.deepEqual(problems, [], `spectral lint ${version}.json:\n${show(problems)}`);
    }
  },
);

/** The rules a configuration file turns off (`  rule-name: off` under `rules:`). */
function turnedOff(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const rules = text.slice(text.indexOf('\nrules:'));
  return [...rules.matchAll(/^ {2}([a-z0-9-]+):\s*off\s*$/gm)].map((m) => m[1] as string).sort();
}

test(
  'the exceptions are the deliberate ones: without them exactly those rules fire, and nothing else',
  { skip: redocly.skip || spectral.skip },
  async () => {
    redocly.assert();
    spectral.assert();
    assert.deepEqual(turnedOff('redocly.yaml'), REDOCLY_EXCEPTIONS, 'redocly.yaml turns off only these');
    assert.deepEqual(turnedOff('.spectral.yaml'), SPECTRAL_EXCEPTIONS, '.spectral.yaml turns off only these');
    for (const version of VERSIONS) {
      const r = await redoclyLint(`${version}.json`, 'bare-redocly.yaml');
      assert.deepEqual(
        [...new Set(r.map((p) => p.rule))].sort(),
        REDOCLY_EXCEPTIONS,
        `bare recommended, ${version}:\n${show(r)}`,
      );
      const s = await spectralLint(`${version}.json`, 'bare-spectral.yaml');
      assert.deepEqual(
        [...new Set(s.map((p) => p.rule))].sort(),
        SPECTRAL_EXCEPTIONS,
        `bare spectral:oas, ${version}:\n${show(s)}`,
      );
    }
  },
);

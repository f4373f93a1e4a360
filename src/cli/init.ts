/**
 * `eventide init <dir>`: writes a small project (a starter) into a new or
 * empty directory: a `package.json` (ESM, `start` and `test` scripts, this
 * eventide's version and the versions of kysely, better-sqlite3,
 * swagger-ui-dist, tsx, typescript and @types/node eventide is developed
 * with), a strict `tsconfig.json`, one resource on SQLite (`src/app.ts`), a
 * server that checks its `bind()` (`src/server.ts`), tests with
 * `api.inject()` (`test/app.test.ts`), a README and a `.gitignore`.
 *
 * The project's files are real files of this package, `templates/init/`
 * (shipped with it, see package.json `files`); only `package.json` is
 * written from code, since it carries versions, and `gitignore` is renamed
 * `.gitignore` (npm leaves a `.gitignore` out of a package).
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Exit status for a bad command line or a directory that cannot be used. */
const USAGE_ERROR = 2;

/** The template directory: `templates/init/` beside `src/` (or `dist/`). */
const TEMPLATES = fileURLToPath(new URL('../../templates/init/', import.meta.url));
/** eventide's own package.json (the version, and the versions of what the project depends on). */
const PACKAGE_JSON = fileURLToPath(new URL('../../package.json', import.meta.url));

/** Template files renamed when written (npm drops a `.gitignore` from a package). */
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore' };

/** What the project depends on besides eventide; the ranges are eventide's own (its devDependencies). */
const DEPENDENCIES = ['kysely', 'better-sqlite3', 'swagger-ui-dist'] as const;
const DEV_DEPENDENCIES = ['tsx', 'typescript', '@types/node'] as const;

/**
 * The usage text of `eventide init`.
 * @example
 * ```ts
 * process.stdout.write(INIT_USAGE);
 * ```
 */
export const INIT_USAGE = `Usage: eventide init <dir> [--eventide SPEC]

Writes a new project into <dir> (created when missing; it must be empty):
one resource, books, on SQLite, with cursor pagination, URL-path versioning,
an OpenAPI document and an API reference page, and tests that call the API
in process with api.inject().

  package.json     ESM ("type": "module"), scripts start and test
  tsconfig.json    strict, noUncheckedIndexedAccess, NodeNext
  src/app.ts       the table, the serializer, the views, the routes
  src/server.ts    serves it on 127.0.0.1:8000 (PORT, HOST, DATABASE)
  test/app.test.ts node:test with api.inject()
  README.md, .gitignore

Then:
  cd <dir>
  npm install && npm start    # http://127.0.0.1:8000/v1/books/
  npm install && npm test

  --eventide SPEC  the project's eventide dependency (default ^<this version>):
                   a version range, or the path of a packed eventide (npm pack)
                   or of a checkout, written as file:<absolute path>

Exit status: 0 written, 2 a bad command line or a directory that is not empty.
`;

/** Why the starter cannot be written where asked (a message for the user). */
class StarterError extends Error {
  override name = 'StarterError';
}

interface OwnPackage {
  version: string;
  devDependencies?: Record<string, string>;
}

/** An npm package name from a directory name: lower case, with `-` for what a name may not hold. */
function packageName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, 214);
  return name === '' ? 'my-api' : name;
}

/**
 * The project's eventide dependency: `spec` as given (a version range), an
 * existing path as `file:<absolute path>` (a tarball from `npm pack`, a
 * checkout), none: `^<own version>`.
 */
function eventideSpec(spec: string | undefined, own: OwnPackage): string {
  if (spec === undefined) return `^${own.version}`;
  if (spec.trim() === '') throw new StarterError('--eventide needs a version range or a path');
  return existsSync(spec) ? `file:${resolve(spec)}` : spec;
}

/** The project's package.json. */
function packageJson(name: string, own: OwnPackage, eventide: string): string {
  const range = (dep: string): string => {
    const r = own.devDependencies?.[dep];
    if (r === undefined) throw new Error(`eventide's package.json names no version of ${dep}`);
    return r;
  };
  const pkg = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20' },
    scripts: {
      start: 'node --import tsx src/server.ts',
      test: 'tsc -p tsconfig.json && node --import tsx --test test/*.test.ts',
    },
    dependencies: {
      eventide,
      ...Object.fromEntries(DEPENDENCIES.map((d) => [d, range(d)])),
    },
    devDependencies: Object.fromEntries(DEV_DEPENDENCIES.map((d) => [d, range(d)])),
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** Every file under `dir`, as paths relative to it, sorted. */
function templateFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => {
      const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
      return e.isDirectory() ? templateFiles(dir, rel) : [rel];
    })
    .sort();
}

/**
 * Writes the starter into `dir`; returns the files written (relative
 * paths). Throws a message for the user when `dir` is not an empty
 * directory (or cannot be one). `options.eventide`: the project's eventide
 * dependency (see {@link INIT_USAGE}'s `--eventide`).
 * @example
 * ```ts
 * const files = writeStarter('my-api'); // ['.gitignore', 'README.md', 'package.json', ...]
 * writeStarter('other-api', { eventide: '../eventide/eventide-0.1.0.tgz' }); // "eventide": "file:/.../eventide-0.1.0.tgz"
 * ```
 */
export function writeStarter(dir: string, options: { eventide?: string } = {}): string[] {
  const target = resolve(dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) throw new StarterError(`${dir} exists and is not a directory`);
    const entries = readdirSync(target);
    if (entries.length > 0)
      throw new StarterError(
        `${dir} is not empty (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}: ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''}); name a new or empty directory`,
      );
  }
  const own = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as OwnPackage;
  const name = packageName(dir);
  const files: [string, string][] = [['package.json', packageJson(name, own, eventideSpec(options.eventide, own))]];
  for (const rel of templateFiles(TEMPLATES)) {
    let text = readFileSync(join(TEMPLATES, rel), 'utf8');
    if (rel === 'README.md') text = text.replaceAll('{{name}}', name);
    files.push([RENAMED[rel] ?? rel, text]);
  }
  for (const [rel, text] of files) {
    const file = join(target, rel);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text, { flag: 'wx' });
  }
  return files.map(([rel]) => rel).sort();
}

/**
 * Runs `eventide init` with its arguments (after `init`); resolves with the
 * exit status: 0 written, 2 a bad command line or a directory that is not
 * empty.
 * @example
 * ```ts
 * process.exitCode = init(['my-api']);
 * ```
 */
export function init(args: readonly string[]): number {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(INIT_USAGE);
    return 0;
  }
  const rest = [...args];
  let eventide: string | undefined;
  const at = rest.findIndex((a) => a === '--eventide' || a.startsWith('--eventide='));
  if (at >= 0) {
    const arg = rest[at] as string;
    eventide = arg === '--eventide' ? rest[at + 1] : arg.slice('--eventide='.length);
    rest.splice(at, arg === '--eventide' ? 2 : 1);
  }
  const unknown = rest.find((a) => a.startsWith('-'));
  const problem =
    at >= 0 && eventide === undefined
      ? '--eventide needs a version range or a path'
      : unknown !== undefined
        ? `unknown option ${unknown}`
        : rest.length === 0
          ? 'missing <dir>'
          : rest.length > 1
            ? 'one <dir> only'
            : null;
  if (problem !== null) {
    process.stderr.write(`eventide init: ${problem}\n\n${INIT_USAGE}`);
    return USAGE_ERROR;
  }
  const dir = rest[0] as string;
  let files: string[];
  try {
    files = writeStarter(dir, eventide === undefined ? {} : { eventide });
  } catch (error) {
    if (!(error instanceof StarterError)) throw error;
    process.stderr.write(`eventide init: ${error.message}\n`);
    return USAGE_ERROR;
  }
  const shown = dir;
  process.stdout.write(
    `Wrote a new project into ${shown}:\n${files.map((f) => `  ${f}\n`).join('')}\n` +
      `Next:\n  cd ${shown}\n  npm install && npm start    # http://127.0.0.1:8000/v1/books/\n  npm test\n`,
  );
  return 0;
}

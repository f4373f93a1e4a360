/**
 * The `eventide` command.
 *
 * ```text
 * eventide                      usage and the list of examples
 * eventide help                 the same
 * eventide help serve           the options of `serve` (also `eventide serve --help`)
 * eventide serve [OPTIONS]      the demo catalog API (see serve.ts)
 * eventide init DIR             writes a new project into DIR (see init.ts)
 * eventide examples             the example programs, one per line
 * eventide example NAME [ARGS]  runs examples/NAME.ts (through tsx)
 * ```
 *
 * `example` runs the program in a child process with the standard streams
 * inherited; the signals a terminal or a supervisor sends (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) are forwarded to it, and its exit status
 * becomes the command's (128 + N when it was killed by signal N).
 * An unknown name prints the available names and exits with 2.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { availableExamples, exampleFile, EXAMPLES, findExample, type ExampleInfo } from './examples.js';

/** Exit status for a bad command line. */
const USAGE_ERROR = 2;

/** Signals forwarded to a running example. */
const FORWARDED: readonly NodeJS.Signals[] =
  process.platform === 'win32'
    ? ['SIGINT', 'SIGTERM', 'SIGBREAK']
    : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function err(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** The list of available examples, one aligned line each. */
function exampleList(examples: readonly ExampleInfo[]): string {
  if (examples.length === 0) return '  (no example programs found)\n';
  const width = Math.max(...examples.map((e) => e.name.length));
  return examples.map((e) => `  ${e.name.padEnd(width)}  ${e.description}\n`).join('');
}

/**
 * The usage text, followed by the available examples.
 *
 * @example
 * ```ts
 * process.stdout.write(usage());
 * ```
 */
export function usage(): string {
  return (
    'Usage: eventide <command> [arguments]\n' +
    '\n' +
    'Commands:\n' +
    '  serve [OPTIONS]          serve the demo catalog API (`eventide serve --help` lists the options)\n' +
    '  init DIR                 write a new project into DIR (`eventide init --help` says what it holds)\n' +
    '  examples                 list the example programs\n' +
    '  example NAME [ARGS...]   run an example program (signals are forwarded to it)\n' +
    '  help [serve|init]        show this text (or the options of serve, or what init writes)\n' +
    '\n' +
    'Examples:\n' +
    exampleList(availableExamples())
  );
}

/** The file URL of tsx's loader, or null when tsx is not installed. */
function tsxLoader(): string | null {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  } catch {
    return null;
  }
}

/** Runs a file in a child process, forwarding signals; resolves with its exit status. */
function runChild(file: string, args: readonly string[], loader: string): Promise<number> {
  return new Promise((resolveStatus) => {
    const child = spawn(process.execPath, ['--import', loader, file, ...args], { stdio: 'inherit' });
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const sig of FORWARDED) {
      const h = (): void => {
        if (child.exitCode === null && child.signalCode === null) child.kill(sig);
      };
      handlers.set(sig, h);
      process.on(sig, h);
    }
    const cleanup = (): void => {
      for (const [sig, h] of handlers) process.off(sig, h);
      handlers.clear();
    };
    child.once('error', (e) => {
      cleanup();
      err(`eventide: cannot start ${file}: ${e.message}`);
      resolveStatus(1);
    });
    child.once('exit', (code, signal) => {
      cleanup();
      if (code !== null) resolveStatus(code);
      else resolveStatus(128 + ((signal !== null ? constants.signals[signal] : undefined) ?? 0));
    });
  });
}

async function runExample(name: string | undefined, args: readonly string[]): Promise<number> {
  const available = availableExamples();
  const names = available.map((e) => e.name).join(', ');
  if (name === undefined || name === '') {
    err('eventide example: missing example name');
    err(`Available examples: ${names}`);
    return USAGE_ERROR;
  }
  const example = findExample(name);
  if (example === undefined) {
    const registered = EXAMPLES.some((e) => e.name === name);
    err(
      registered
        ? `eventide example: the example "${name}" is not available in this installation`
        : `eventide example: unknown example "${name}"`,
    );
    err(`Available examples: ${names}`);
    return USAGE_ERROR;
  }
  const loader = tsxLoader();
  if (loader === null) {
    err(
      'eventide example: the examples are TypeScript files and need tsx; install it with `npm install --save-dev tsx`',
    );
    return 1;
  }
  return runChild(exampleFile(example), args, loader);
}

/**
 * Runs the command line `argv` (without `node` and the script) and resolves
 * with the exit status.
 *
 * @example
 * ```ts
 * process.exitCode = await main(['examples']);
 * ```
 */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'help':
      if (rest[0] === 'serve') return (await import('./serve.js')).serve(['--help']);
      if (rest[0] === 'init') return (await import('./init.js')).init(['--help']);
      out(usage());
      return 0;
    case undefined:
    case '--help':
    case '-h':
      out(usage());
      return 0;
    case 'examples':
      out(exampleList(availableExamples()));
      return 0;
    case 'example':
      return runExample(rest[0], rest.slice(1));
    case 'serve':
      return (await import('./serve.js')).serve(rest);
    case 'init':
      return (await import('./init.js')).init(rest);
    default:
      err(`eventide: unknown command "${command}"`);
      err(usage());
      return USAGE_ERROR;
  }
}

/** Whether this module is the program node was asked to run (not imported). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  const self = fileURLToPath(import.meta.url);
  try {
    return realpathSync(script) === realpathSync(self);
  } catch {
    return resolve(script) === self;
  }
}

/**
 * Started by `bin/eventide.js` with an IPC channel: when the launcher goes
 * away without forwarding a signal (it was killed), stop as on SIGTERM. The
 * marker is removed from the environment so that child processes (workers,
 * examples) do not inherit it.
 */
function followLauncher(): void {
  if (process.env.EVENTIDE_LAUNCHER_IPC !== '1') return;
  delete process.env.EVENTIDE_LAUNCHER_IPC;
  if (process.channel === undefined) return;
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // Explicitly unref'd after the listener (which refs it): the channel must not keep the CLI running.
  process.channel.unref();
}

if (isEntryPoint()) {
  followLauncher();
  process.exitCode = await main(process.argv.slice(2));
}

import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const children = new Set<ChildProcess>();

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stderr matches `re` (rejects if the process exits first). */
  waitStderr: (re: RegExp) => Promise<RegExpMatchArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runExample(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/signal.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let errText = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (errText += d));
  const exit = (once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>).then(([code, signal]) => ({ code, signal }));
  const waitStderr = (re: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = errText.match(re);
        if (m) {
          child.stderr?.off('data', check);
          resolve(m);
        }
      };
      child.stderr?.on('data', check);
      check();
      void exit.then(() => reject(new Error(`exited before ${re}: stdout=${JSON.stringify(out)} stderr=${JSON.stringify(errText)}`)));
    });
  return { child, stdout: () => out, stderr: () => errText, waitStderr, exit };
}

/** Runs the example waiting for `signame`, sends it once ready, returns the outcome. */
async function catchSignal(args: string[], signame: NodeJS.Signals): Promise<void> {
  const run = runExample(args);
  try {
    const signum = constants.signals[signame];
    const m = await run.waitStderr(/Waiting for signal (\d+) \((\w+)\), pid (\d+)/);
    assert.equal(Number(m[1]), signum);
    assert.equal(m[2], signame);
    assert.equal(Number(m[3]), run.child.pid);
    assert.equal(run.child.kill(signame), true);
    const { code, signal } = await run.exit;
    assert.equal(signal, null, `stderr: ${run.stderr()}`);
    assert.equal(code, 0, `stderr: ${run.stderr()}`);
    assert.equal(run.stdout(), `Caught signal ${signum}\n`);
  } finally {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  }
}

describe('examples/signal.ts', { concurrency: true, timeout: 20000 }, () => {
  test('catches SIGTERM by default, prints "Caught signal 15", exits 0', { timeout: 15000 }, async () => {
    await catchSignal([], 'SIGTERM');
  });

  test('accepts SIGUSR1 by full name', { timeout: 15000 }, async () => {
    await catchSignal(['SIGUSR1'], 'SIGUSR1');
  });

  test('accepts a short name (USR1) and a number', { timeout: 15000 }, async () => {
    await Promise.all([catchSignal(['USR1'], 'SIGUSR1'), catchSignal([String(constants.signals.SIGUSR2)], 'SIGUSR2')]);
  });

  test('an invalid or uncatchable signal argument: message on stderr, exit 2', { timeout: 15000 }, async () => {
    const runs = [runExample(['NOSUCHSIG']), runExample(['999']), runExample(['SIGKILL'])];
    try {
      for (const run of runs) {
        const { code } = await run.exit;
        assert.equal(code, 2);
        assert.equal(run.stdout(), '');
        assert.notEqual(run.stderr().trim(), '');
      }
      assert.match(runs[0]!.stderr(), /Invalid signal: NOSUCHSIG/);
      assert.match(runs[1]!.stderr(), /Invalid signal: 999/);
      assert.match(runs[2]!.stderr(), /Cannot watch signal 9 \(SIGKILL\)/);
    } finally {
      for (const run of runs) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  });
});

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const children = new Set<ChildProcess>();

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

test('examples/file-io-loop.ts: numbered steps from FileIO callbacks, Stopping... at the 5th iteration, Done, exit 0', { timeout: 15000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/file-io-loop.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  try {
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    assert.equal(signal, null);
    assert.equal(code, 0, err);
    assert.equal(err, '');
    assert.equal(
      out,
      [
        'step 1: mkdir ok',
        'step 2: open ok',
        'step 3: write ok (29 bytes)',
        'step 4: read ok ("Hello from the file-I/O loop\\n")',
        'step 5: stat ok (size 29)',
        'Stopping...',
        'step 6: close ok',
        'step 7: unlink ok',
        'step 8: rmdir ok',
        'Done',
        '',
      ].join('\n'),
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/**
 * An event loop driven by the file-I/O helper's event stream: the port of
 * the PHP manual's eio example (pecl-eio's `eio_get_event_stream()` watched
 * by an `Event`, `eio_poll()` called from its callback).
 *
 * Usage: npx tsx examples/file-io-loop.ts
 *
 * In a fresh temporary directory it runs a chain of asynchronous file
 * operations with {@link FileIO}, each started from the callback of the
 * previous one: mkdir, open, write, read, stat, close, unlink, rmdir. An
 * `Event.READ | Event.PERSIST` event on `fileio.eventStream` calls
 * `fileio.poll()`, which runs the completed operations' callbacks; each
 * prints a numbered line (`step 1: mkdir ok`, ...).
 *
 * As in the stdin example, the 5th iteration of the event prints
 * `Stopping...` and calls `base.exit(2.33)`: the loop is bounded even if an
 * operation never completed. The chain does not need that long, so when it is
 * done (or fails) the event is freed and `base.exit()` ends the loop at once,
 * before the 2.33 s exit fires. Then the program removes the temporary
 * directory, prints `Done` and exits with status 0 (1 when a step failed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Event, EventBase, FileIO, type EventError } from '../src/event/index.js';

const root = mkdtempSync(join(tmpdir(), 'eventide-file-io-loop-'));
const dir = join(root, 'work');
const file = join(dir, 'hello.txt');
const text = 'Hello from the file-I/O loop\n';

const base = new EventBase();
const fio = new FileIO();
let iterations = 0;
let step = 0;
let failed = false;

const event = new Event(base, fio.eventStream, Event.READ | Event.PERSIST, () => {
  fio.poll();
  if (++iterations === 5) {
    console.log('Stopping...');
    base.exit(2.33);
  }
});

/** Prints the step's line; on failure ends the chain and returns false. */
function report(op: string, err: EventError | null, detail = ''): boolean {
  step++;
  if (err !== null) {
    console.log(`step ${step}: ${op} failed: ${err.message}`);
    failed = true;
    finish();
    return false;
  }
  console.log(`step ${step}: ${op} ok${detail === '' ? '' : ` (${detail})`}`);
  return true;
}

/** The chain is over: nothing more to watch, end the loop now. */
function finish(): void {
  event.free();
  base.exit();
}

function start(): void {
  fio.mkdir(dir, 0o750, (err) => {
    if (!report('mkdir', err)) return;
    fio.open(file, 'w+', 0o640, (err, fd) => {
      if (!report('open', err) || fd === null) return;
      fio.write(fd, text, 0, (err, written) => {
        if (!report('write', err, `${written} bytes`)) return;
        fio.read(fd, 1024, 0, (err, data) => {
          if (!report('read', err, JSON.stringify(data?.toString('utf8') ?? ''))) return;
          fio.stat(file, (err, st) => {
            if (!report('stat', err, `size ${st?.size}`)) return;
            fio.close(fd, (err) => {
              if (!report('close', err)) return;
              fio.unlink(file, (err) => {
                if (!report('unlink', err)) return;
                fio.rmdir(dir, (err) => {
                  if (!report('rmdir', err)) return;
                  finish();
                });
              });
            });
          });
        });
      });
    });
  });
}

event.add();
start();
try {
  await base.dispatch();
} finally {
  event.free();
  fio.free();
  rmSync(root, { recursive: true, force: true });
}
console.log('Done');
if (failed) process.exitCode = 1;

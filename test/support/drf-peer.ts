/**
 * The Django REST framework peer of the differential test
 * (test/rest/drf.differential.test.ts): the Django project of bench/drf
 * (Django 3.2, DRF 3.14 from Debian, for /usr/bin/python3) served by
 * bench/drf/serve.py (the standard library's WSGI server, one thread, on
 * 127.0.0.1 and a port it picks), and GET requests with any headers
 * (node:http, which, unlike fetch, sends a Host header as given).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { ROOT } from './spawn.js';

/** The interpreter Debian's python3-djangorestframework installs for. */
export const PYTHON = '/usr/bin/python3';

/**
 * Why the peer cannot run here (Django REST framework cannot be imported
 * by {@link PYTHON}), or `null` with the versions when it can.
 */
export function drfAvailability(): { missing: string } | { versions: string } {
  const r = spawnSync(
    PYTHON,
    [
      '-c',
      'import django, rest_framework; print("Django %s, DRF %s" % (django.get_version(), rest_framework.VERSION))',
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (r.error) return { missing: `${PYTHON} does not run (${r.error.message})` };
  if (r.status !== 0) {
    const last = r.stderr.trim().split('\n').pop() ?? '';
    return {
      missing: `${PYTHON} cannot import Django REST framework (${last}); apt-get install python3-djangorestframework`,
    };
  }
  return { versions: r.stdout.trim() };
}

/** A running peer. */
export interface DrfPeer {
  readonly port: number;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** What the server wrote to stderr so far (Python warnings and tracebacks). */
  stderr(): string;
  /** Stops the server (SIGTERM, SIGKILL after 5 s); resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts bench/drf/serve.py over the SQLite file `database`; resolves once
 * it listens. Rejects (after killing it) when it exits first or does not
 * announce itself within `timeoutMs`.
 */
export async function startDrf(database: string, timeoutMs = 60_000): Promise<DrfPeer> {
  const child = spawn(PYTHON, ['-B', '-u', join(ROOT, 'bench', 'drf', 'serve.py'), '0'], {
    cwd: ROOT,
    env: { ...process.env, DRFBENCH_DATABASE: database, PYTHONDONTWRITEBYTECODE: '1', PYTHONWARNINGS: 'ignore' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-20_000)));
  const exited = once(child, 'exit');
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the DRF peer did not start within ${timeoutMs} ms`)), timeoutMs);
      const check = (): void => {
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      child.stdout.on('data', check);
      void exited.then(([code, signal]) => {
        clearTimeout(timer);
        reject(new Error(`the DRF peer exited (${String(code ?? signal)}) before listening: ${err.trim()}`));
      });
      check();
    });
    return { port, origin: `http://127.0.0.1:${port}`, stderr: () => err, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** An HTTP answer: status, the headers this test reads, and the body text. */
export interface RawAnswer {
  status: number;
  contentType: string | null;
  link: string | null;
  location: string | null;
  text: string;
}

/**
 * GET `path` (sent as given: already percent-encoded) from 127.0.0.1:`port`
 * on a new connection, with `headers` (a `Host` among them replaces the
 * default one). Rejects on a socket error or after `timeoutMs`.
 */
export function rawGet(
  port: number,
  path: string,
  headers: Readonly<Record<string, string>> = {},
  timeoutMs = 15_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const one = (name: string): string | null => {
          const v = res.headers[name];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        };
        resolve({
          status: res.statusCode ?? 0,
          contentType: one('content-type'),
          link: one('link'),
          location: one('location'),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer to GET ${path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

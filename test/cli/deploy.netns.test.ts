/**
 * A multi-host deployment, as docs/deploy.md describes it, built from
 * network namespaces the test creates: a PostgreSQL host, two application
 * hosts each running `eventide serve --workers 2` against it, and HAProxy
 * in front with health checks on `/readyz`. A client (in the balancer's
 * namespace) walks every keyset page of a 100,000-row table through HAProxy
 * while one host is killed half-way and later restarted: every row is seen
 * exactly once, in order; links point at the public address; no request
 * fails (the balancer retries what the dead host dropped). The hosts get an
 * internal Host and the public one in X-Forwarded-Host (`--trust-proxy`):
 * links built from anything else would be refused or wrong. Everything lives
 * in the namespaces, and is torn down by the test.
 *
 * Needs root, iproute2, haproxy, curl and the PostgreSQL server binaries
 * (.ci/run installs them); skipped with the reason otherwise, except in CI,
 * where it fails (test/support/tools.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { NetLab, netnsUnavailable } from '../support/netns.js';
import { ROOT } from '../support/spawn.js';
import { requireCommand, requireTool } from '../support/tools.js';

const ROWS = 100_000;
const PAGE = 100;

function pgBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'postgres'))) return join(base, v, 'bin');
  return null;
}

const needs = [
  requireTool(netnsUnavailable()),
  requireCommand('haproxy', 'apt-get install haproxy'),
  requireTool(
    pgBin() === null ? 'the PostgreSQL server binaries are not installed (apt-get install postgresql)' : null,
  ),
  requireCommand('runuser', 'apt-get install util-linux'),
  requireCommand('curl', 'apt-get install curl'),
];
const skip = needs.find((n) => n.skip !== false)?.skip ?? false;

/** Collects a child's output and resolves when a line matches. */
function waitFor(child: ChildProcess, re: RegExp, ms: number, what: string): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no ${re} within ${ms} ms:\n${out}`)), ms);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = re.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before ${re}:\n${out}`));
    });
  });
}

/** The walking client, run by node inside the balancer's namespace: one JSON line per page, pauses on request. */
const CLIENT = `
import { createInterface } from 'node:readline';
const [start, pauseAt] = [process.argv[2], Number(process.argv[3])];
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
let url = start; let n = 0;
while (url !== null && n < 5000) {
  const t = Date.now();
  let r;
  try { r = await fetch(url, { signal: AbortSignal.timeout(20000) }); }
  catch (e) { console.log(JSON.stringify({ n, error: String(e) })); process.exit(1); }
  const text = await r.text();
  let body = null; try { body = JSON.parse(text); } catch {}
  const ids = body?.results?.map((x) => x.id) ?? [];
  const prices = body?.results?.map((x) => x.price) ?? [];
  console.log(JSON.stringify({ n, status: r.status, ids, prices, next: body?.next ?? null, previous: body?.previous ?? null, ms: Date.now() - t, text: r.status === 200 ? undefined : text.slice(0, 300) }));
  if (r.status !== 200) process.exit(1);
  url = body.next; n++;
  if (n === pauseAt) await lines.next();
}
console.log(JSON.stringify({ done: true, pages: n }));
`;

test(
  'two hosts behind HAProxy: a keyset walk over 100,000 rows survives a host killed half-way and restarted',
  { skip, timeout: 240_000 },
  async (t) => {
    const lab = NetLab.create(['db', 'h1', 'h2', 'lb']);
    const dir = mkdtempSync(join(tmpdir(), 'eventide-deploy-'));
    t.after(() => {
      lab.destroy();
      rmSync(dir, { recursive: true, force: true });
    });
    const db = lab.addr('db');
    const lb = lab.addr('lb');
    const publicOrigin = `http://${lb}:8080`;

    // PostgreSQL of its own, in the db namespace, listening only there.
    const pgdata = join(dir, 'pgdata');
    const bin = pgBin() as string;
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), -1);
    execFileSync(
      'runuser',
      ['-u', 'postgres', '--', join(bin, 'initdb'), '-D', pgdata, '-A', 'trust', '-U', 'postgres', '--no-sync'],
      { stdio: 'pipe', timeout: 60_000 },
    );
    writeFileSync(join(pgdata, 'pg_hba.conf'), `local all all trust\nhost all all ${lab.subnet}.0/24 trust\n`);
    const pg = lab.spawn('db', 'runuser', [
      '-u',
      'postgres',
      '--',
      join(bin, 'postgres'),
      '-D',
      pgdata,
      '-c',
      `listen_addresses=${db}`,
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
    ]);
    await waitFor(pg, /ready to accept connections/, 30_000, 'postgres');
    const database = `postgres://postgres@${db}:5432/postgres`;

    // The application hosts: h1 first (it seeds the table), then h2.
    const serveArgs = (host: string) => [
      join(ROOT, 'bin', 'eventide.js'),
      'serve',
      '--host',
      lab.addr(host),
      '--port',
      '8000',
      '--workers',
      '2',
      '--database',
      database,
      '--rows',
      String(ROWS),
      '--allowed-hosts',
      lb,
      // HAProxy hands the hosts an internal Host and the public one in X-Forwarded-Host.
      '--trust-proxy',
      '--quiet',
    ];
    const startHost = async (host: string): Promise<void> => {
      const child = lab.spawn(host, process.execPath, serveArgs(host), { cwd: ROOT });
      await waitFor(child, /listening on http:\/\//, 120_000, `eventide serve on ${host}`);
    };
    await startHost('h1');
    await startHost('h2');

    // HAProxy: health checks on /readyz, retries and redispatch for what a dead host drops.
    // deploy/haproxy.cfg as it is, with this network's addresses.
    const cfg = join(ROOT, 'deploy', 'haproxy.cfg');
    const haproxy = lab.spawn('lb', 'env', [
      `PUBLIC_ADDR=${lb}`,
      `H1=${lab.addr('h1')}`,
      `H2=${lab.addr('h2')}`,
      'haproxy',
      '-db',
      '-f',
      cfg,
    ]);
    haproxy.stderr?.resume();
    haproxy.stdout?.resume();
    const stats = (): string => {
      try {
        return execFileSync(
          'ip',
          ['netns', 'exec', lab.ns('lb'), 'curl', '-s', '--max-time', '2', 'http://127.0.0.1:8404/stats;csv'],
          { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] },
        );
      } catch {
        return '';
      }
    };
    /** A server's row of the stats CSV, by column name. */
    const serverStats = (name: string): Record<string, string> => {
      const lines = stats().split('\n');
      const head = (lines[0] ?? '').replace(/^# /, '').split(',');
      const row = (lines.find((l) => l.startsWith(`api,${name},`)) ?? '').split(',');
      return Object.fromEntries(head.map((h, i) => [h, row[i] ?? '']));
    };
    const serversUp = async (want: string[], ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      let state = '';
      while (Date.now() < deadline) {
        state = stats();
        const up = state
          .split('\n')
          .filter((l) => l.startsWith('api,') && /,UP[, ]/.test(l))
          .map((l) => l.split(',')[1]);
        if (want.every((s) => up.includes(s))) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.fail(`HAProxy servers ${want.join(', ')} not UP within ${ms} ms:\n${state}`);
    };
    await serversUp(['h1', 'h2'], 30_000);

    // The walk, from inside the balancer's namespace.
    const clientFile = join(dir, 'client.mjs');
    writeFileSync(clientFile, CLIENT);
    const pages = ROWS / PAGE;
    const client = lab.spawn('lb', process.execPath, [
      clientFile,
      `${publicOrigin}/cursor-keyset/items/?page_size=${PAGE}`,
      String(pages / 2),
    ]);
    client.stderr?.resume();
    const seen: number[] = [];
    const prices: number[] = [];
    let done = false;
    let restarted: Promise<Error | null> = Promise.resolve(new Error('h1 was never restarted'));
    for await (const line of createInterface({ input: client.stdout! })) {
      if (process.env.EVENTIDE_DEPLOY_TRACE) process.stderr.write(`${line.slice(0, 120)}\n`);
      const rec = JSON.parse(line) as {
        n?: number;
        status?: number;
        ids?: number[];
        prices?: number[];
        next?: string | null;
        error?: string;
        text?: string;
        done?: boolean;
      };
      if (rec.done) {
        done = true;
        break;
      }
      assert.equal(rec.error, undefined, `request ${rec.n} failed: ${rec.error}`);
      assert.equal(rec.status, 200, `page ${rec.n}: ${rec.status} ${rec.text}`);
      seen.push(...(rec.ids ?? []));
      prices.push(...(rec.prices ?? []));
      if (rec.next !== null && rec.next !== undefined)
        assert.ok(rec.next.startsWith(`${publicOrigin}/`), `links point at the public address: ${rec.next}`);
      if (rec.n === pages / 2 - 1) {
        lab.killNode('h1'); // half-way: h1 dies (the primary and both workers, at once)
        client.stdin?.write('\n');
      } else if (rec.n === Math.floor((pages * 3) / 4)) {
        // Later: h1 comes back (the table exists: no seeding).
        restarted = startHost('h1').then(
          () => null,
          (e: unknown) => e as Error,
        );
      }
    }
    assert.ok(done, 'the walk reached the end');
    assert.equal(seen.length, ROWS, 'every row once');
    assert.equal(new Set(seen).size, ROWS, 'no row twice');
    for (let i = 1; i < prices.length; i++)
      assert.ok(
        prices[i - 1]! < prices[i]! || (prices[i - 1] === prices[i] && seen[i - 1]! < seen[i]!),
        `in (price, id) order at ${i}`,
      );
    // The restarted host rejoins the pool; both hosts served, and h1 was seen down.
    assert.equal(await restarted, null);
    await serversUp(['h1', 'h2'], 60_000);
    const h1 = serverStats('h1');
    const h2 = serverStats('h2');
    assert.ok(Number(h1['chkdown']) >= 1, `h1 went down: ${JSON.stringify(h1)}`);
    assert.ok(Number(h1['lbtot']) > 0 && Number(h2['lbtot']) > 0, 'both hosts served requests');
    assert.ok(Number(h2['lbtot']) > pages / 2, 'h2 carried the walk while h1 was down');
  },
);

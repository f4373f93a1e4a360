/**
 * A throw-away PostgreSQL streaming replica for the read-replica tests:
 * pg_basebackup -R from the server on 127.0.0.1:5432 (which needs
 * `host replication all 127.0.0.1/32 trust`, set by .ci/run) or, when that
 * server does not allow replication, from a primary started here with
 * initdb, both in a temporary directory, on free ports of 127.0.0.1. Every
 * command has a timeout; `cleanup()` stops what was started and removes the
 * directory.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The newest Debian PostgreSQL bin directory with pg_basebackup, or null. */
export function postgresBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(base, versions[0], 'bin');
}

/** A free TCP port of 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/**
 * Runs a PostgreSQL tool as the postgres user (servers refuse to run as root), within `timeout`
 * ms (generous: a base backup or a start takes seconds on a loaded machine, and ends the wait when done).
 */
function run(bin: string, tool: string, args: string[], timeout = 60_000): Promise<string> {
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
    : [join(bin, tool), args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { timeout, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${tool} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

async function settings(url: string): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    const names = [
      'max_connections',
      'max_worker_processes',
      'max_wal_senders',
      'max_prepared_transactions',
      'max_locks_per_transaction',
    ];
    const r = await c.query<{ name: string; setting: string }>(
      'select name, setting from pg_settings where name = any($1)',
      [names],
    );
    return Object.fromEntries(r.rows.map((x) => [x.name, x.setting]));
  } finally {
    await c.end().catch(() => {});
  }
}

function conf(dir: string, port: number, extra: Record<string, string>): void {
  const lines = [
    `listen_addresses = '127.0.0.1'`,
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    `hot_standby = on`,
    `fsync = off`,
    `wal_level = replica`,
    ...Object.entries(extra).map(([k, v]) => `${k} = ${v}`),
  ];
  writeFileSync(join(dir, 'postgresql.conf'), lines.join('\n') + '\n');
  writeFileSync(
    join(dir, 'pg_hba.conf'),
    'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n',
  );
}

/** A primary and a streaming replica; URLs name the database, without options. */
export interface Standby {
  readonly primaryUrl: string;
  readonly replicaUrl: string;
  /** Whether the primary was started here (initdb) rather than the server on 5432. */
  readonly ownPrimary: boolean;
  /** Stops the replica at once (`pg_ctl stop -m immediate`). */
  stopReplica(): Promise<void>;
  /** Starts the replica again and waits until it accepts connections. */
  startReplica(): Promise<void>;
  /** Stops every server started here and removes the directory; never throws. */
  cleanup(): Promise<void>;
}

/** Sets the standby up from `sharedUrl` (postgres://user@127.0.0.1:5432/test), or from an own primary. */
export async function startStandby(bin: string, sharedUrl: string): Promise<Standby> {
  const dir = mkdtempSync(join(tmpdir(), 'eventide-standby-'));
  if (asRoot) {
    const uid = Number((await new Promise<string>((r) => execFile('id', ['-u', 'postgres'], (_, o) => r(o)))).trim());
    const gid = Number((await new Promise<string>((r) => execFile('id', ['-g', 'postgres'], (_, o) => r(o)))).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const replicaDir = join(dir, 'replica');
  const primaryDir = join(dir, 'primary');
  const started: string[] = [];
  const stop = (d: string): Promise<unknown> =>
    run(bin, 'pg_ctl', ['-D', d, '-m', 'immediate', '-w', '-t', '30', 'stop'], 45_000).catch(() => {});
  const cleanup = async (): Promise<void> => {
    for (const d of started.reverse()) await stop(d);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const shared = new URL(sharedUrl);
    let primaryUrl = sharedUrl;
    let ownPrimary = false;
    try {
      await run(bin, 'pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', shared.port || '5432', '-U', decodeURIComponent(shared.username) || 'postgres'],
        ...['-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
      ]);
    } catch {
      // The shared server does not allow replication from 127.0.0.1: a primary of our own.
      rmSync(replicaDir, { recursive: true, force: true });
      const port = await freePort();
      await run(bin, 'initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
      conf(primaryDir, port, { max_wal_senders: '5' });
      started.push(primaryDir);
      await run(bin, 'pg_ctl', ['-D', primaryDir, '-l', join(dir, 'primary.log'), '-w', '-t', '45', 'start']);
      primaryUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
      ownPrimary = true;
      await run(bin, 'pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'],
        ...['-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
      ]);
    }
    const port = await freePort();
    const fromPrimary = await settings(primaryUrl);
    conf(replicaDir, port, fromPrimary);
    const startReplica = async (): Promise<void> => {
      if (!started.includes(replicaDir)) started.push(replicaDir);
      await run(bin, 'pg_ctl', ['-D', replicaDir, '-l', join(dir, 'replica.log'), '-w', '-t', '45', 'start']);
    };
    await startReplica();
    const replicaUrl = `${new URL(primaryUrl).protocol}//${new URL(primaryUrl).username || 'postgres'}@127.0.0.1:${port}${new URL(primaryUrl).pathname}`;
    return {
      primaryUrl,
      replicaUrl,
      ownPrimary,
      stopReplica: async () => {
        await run(bin, 'pg_ctl', ['-D', replicaDir, '-m', 'immediate', '-w', '-t', '30', 'stop'], 45_000);
      },
      startReplica,
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

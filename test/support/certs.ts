/**
 * Test helper: throwaway TLS certificates made by `scripts/make-certs.sh`.
 *
 * The script runs once per process into a fresh temporary directory (the
 * promise is cached); the directory is removed when the process exits.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/make-certs.sh', import.meta.url));

/** File name of every certificate and key the script makes, by the name tests use. */
const FILES = {
  ca: 'ca.pem',
  caKey: 'ca-key.pem',
  server: 'server.pem',
  serverKey: 'server-key.pem',
  serverKeyEnc: 'server-key-enc.pem',
  client: 'client.pem',
  clientKey: 'client-key.pem',
  selfSigned: 'selfsigned.pem',
  selfSignedKey: 'selfsigned-key.pem',
  other: 'other.pem',
  otherKey: 'other-key.pem',
  intermediate: 'intermediate.pem',
  intermediateKey: 'intermediate-key.pem',
  chained: 'chained.pem',
  chainedKey: 'chained-key.pem',
  expired: 'expired.pem',
  expiredKey: 'expired-key.pem',
} as const;

/** Absolute paths of the test certificates by name, plus `dir`, the directory holding them. */
export type TestCerts = Record<keyof typeof FILES | 'dir', string>;

let cached: Promise<TestCerts> | undefined;

/**
 * Absolute paths of throwaway test certificates: `ca`, `caKey`, `server`,
 * `serverKey` (CN/SAN localhost, 127.0.0.1, ::1, signed by `ca`),
 * `serverKeyEnc` (passphrase `secret`), `client`, `clientKey`, `selfSigned`,
 * `selfSignedKey`, `other`, `otherKey` (other.example), `intermediate`,
 * `intermediateKey`, `chained`, `chainedKey` (leaf + intermediate),
 * `expired`, `expiredKey` (self-signed, expired), and `dir`.
 *
 * @example
 * ```ts
 * const certs = await testCerts();
 * tls.createServer({ cert: readFileSync(certs.server), key: readFileSync(certs.serverKey) });
 * ```
 */
export function testCerts(): Promise<TestCerts> {
  cached ??= make();
  return cached;
}

async function make(): Promise<TestCerts> {
  const dir = mkdtempSync(join(tmpdir(), 'eventide-certs-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await new Promise<void>((resolve, reject) => {
    execFile('bash', [SCRIPT, dir], (err, _stdout, stderr) => {
      if (err) reject(new Error(`make-certs.sh failed: ${stderr || err.message}`, { cause: err }));
      else resolve();
    });
  });
  const out = { dir } as TestCerts;
  for (const [name, file] of Object.entries(FILES) as [keyof typeof FILES, string][]) out[name] = join(dir, file);
  return out;
}

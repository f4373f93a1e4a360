/**
 * The registry of example programs that `eventide examples` lists and
 * `eventide example NAME` runs. Each example is one file in `examples/`;
 * an entry whose file does not exist (an example not written yet, or a
 * package without examples) is neither listed nor run.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * One example program.
 *
 * @example
 * ```ts
 * const info: ExampleInfo = {
 *   name: 'signal',
 *   file: 'signal.ts',
 *   description: 'Waits for a signal, prints "Caught signal N" and exits.',
 *   usage: '[SIGNAL]',
 * };
 * ```
 */
export interface ExampleInfo {
  /** The name given to `eventide example NAME`. */
  readonly name: string;
  /** The file name inside `examples/`. */
  readonly file: string;
  /** One line saying what it does. */
  readonly description: string;
  /** Its arguments, as a usage line (without the program name). */
  readonly usage: string;
}

/**
 * Every example program, in the order they are listed.
 *
 * @example
 * ```ts
 * for (const e of EXAMPLES) console.log(e.name, e.description);
 * ```
 */
export const EXAMPLES: readonly ExampleInfo[] = [
  {
    name: 'signal',
    file: 'signal.ts',
    description: 'Waits for a signal (SIGTERM by default), prints "Caught signal N" and exits.',
    usage: '[SIGNAL]   name (SIGUSR1, USR1) or number (10); default SIGTERM',
  },
  {
    name: 'stdin-loop',
    file: 'stdin-loop.ts',
    description:
      'Prints the backend method and features, then echoes stdin; exits 2.33 s after the 5th read or end of input.',
    usage: '< input',
  },
  {
    name: 'file-io-loop',
    file: 'file-io-loop.ts',
    description: 'Runs a chain of asynchronous file operations driven by the FileIO event stream.',
    usage: '',
  },
  {
    name: 'echo-server',
    file: 'echo-server.ts',
    description: 'TCP echo server on 0.0.0.0: moves all input to output.',
    usage:
      '[PORT] [--host HOST] [--idle-timeout SECONDS]   1..65535, default 9808; idle timeout default 60 s ($EVENTIDE_IDLE_TIMEOUT, 0: none); SIGINT/SIGTERM stop it',
  },
  {
    name: 'unix-echo-server',
    file: 'unix-echo-server.ts',
    description: 'Echo server on a UNIX domain socket (an existing file at the path is removed first).',
    usage:
      'SOCKET_PATH [--idle-timeout SECONDS]   idle timeout default 60 s ($EVENTIDE_IDLE_TIMEOUT, 0: none); SIGINT/SIGTERM stop it and remove the socket file',
  },
  {
    name: 'tls-echo-server',
    file: 'tls-echo-server.ts',
    description: 'TLS echo server on 127.0.0.1: prints the bytes received and writes them back.',
    usage:
      '[PORT] [HOST] [--cert FILE] [--key FILE] [--ca FILE] [--handshake-timeout SECONDS] [--idle-timeout SECONDS]   port default 9999, host 127.0.0.1; ' +
      'cert/key default $EVENTIDE_TLS_CERT/$EVENTIDE_TLS_KEY, else cert.pem/privkey.pem; --ca (or $EVENTIDE_TLS_CA) verifies client certificates; ' +
      'handshake timeout default 10 s ($EVENTIDE_HANDSHAKE_TIMEOUT), idle 60 s ($EVENTIDE_IDLE_TIMEOUT)',
  },
  {
    name: 'http-client-raw',
    file: 'http-client-raw.ts',
    description: 'HTTP/1.0 client over a buffered connection: sends a GET request and prints the response.',
    usage: '[--port PORT] HOST RESOURCE | --address IP:PORT RESOURCE   port default 80',
  },
  {
    name: 'line-server',
    file: 'line-server.ts',
    description: 'SMTP-style line server (EHLO, HELO, QUIT) with a STARTTLS upgrade.',
    usage:
      '[PORT] [--host ADDR] [--cert FILE] [--key FILE] [--domain NAME] [--greeting TEXT] [--idle-timeout SECONDS] [--handshake-timeout SECONDS]   port default 25, host 0.0.0.0; ' +
      'cert/key default $EVENTIDE_TLS_CERT/$EVENTIDE_TLS_KEY, else cert.pem/privkey.pem; idle timeout default 300 s ($EVENTIDE_IDLE_TIMEOUT), ' +
      'STARTTLS handshake 10 s ($EVENTIDE_HANDSHAKE_TIMEOUT)',
  },
  {
    name: 'http-server',
    file: 'http-server.ts',
    description: 'HTTP server with /dump, /about and a default route (GET and POST only).',
    usage: '[PORT] [--host HOST]   port 1..65535, default 8010; host default 0.0.0.0; exits after the 2nd /dump',
  },
  {
    name: 'http-client',
    file: 'http-client.ts',
    description: 'HTTP client (EventHttpConnection): GET with a 5 s timeout, prints the status and body.',
    usage: '[--timeout SECONDS] HOST PORT URI   timeout default 5; exit 0 on a 200, 1 otherwise',
  },
];

/**
 * The `examples/` directory of this package (next to `src/` and `dist/`).
 *
 * @example
 * ```ts
 * console.log(examplesDir()); // /path/to/eventide/examples
 * ```
 */
export function examplesDir(): string {
  return fileURLToPath(new URL('../../examples', import.meta.url));
}

/**
 * The absolute path of an example's file.
 *
 * @example
 * ```ts
 * const signal = findExample('signal');
 * if (signal) console.log(exampleFile(signal)); // /path/to/eventide/examples/signal.ts
 * ```
 */
export function exampleFile(example: ExampleInfo, dir: string = examplesDir()): string {
  return join(dir, example.file);
}

/**
 * The examples whose file exists in `dir`, in registry order.
 *
 * @example
 * ```ts
 * console.log(availableExamples().map((e) => e.name).join(', ')); // signal, stdin-loop, ...
 * ```
 */
export function availableExamples(dir: string = examplesDir()): ExampleInfo[] {
  return EXAMPLES.filter((e) => existsSync(exampleFile(e, dir)));
}

/**
 * The available example with that name, or `undefined`.
 *
 * @example
 * ```ts
 * findExample('signal')?.file; // "signal.ts"
 * ```
 */
export function findExample(name: string, dir: string = examplesDir()): ExampleInfo | undefined {
  return availableExamples(dir).find((e) => e.name === name);
}

/**
 * Server instructions per request: the HTTP hello world of bench/http.ts
 * (EventHttp from the tsc build, and the raw node:net server) run under
 * `valgrind --tool=callgrind`, counting only while a fixed number of
 * requests is served after a warm-up. Instruction counts do not drift with
 * the machine's load as times do (they vary by a few percent with JIT and GC
 * timing): they show what a change on the hot path saves, one change at a
 * time, also while other work runs.
 *
 *   npx tsx bench/instructions.ts                  (keep-alive and pipelined, both servers: about 1 min)
 *   npx tsx bench/instructions.ts --mode pipelined (one mode: keep-alive | pipelined | echo)
 *   npx tsx bench/instructions.ts --only eventide  (one server: eventide | raw)
 *   npx tsx bench/instructions.ts --annotate 40    (also the 40 functions with the most self instructions
 *                                                   per request, JIT code named from V8's perf map)
 *   npx tsx bench/instructions.ts --annotate 40 --node-flags '--no-turbo-inlining'
 *                                                  (flags for the server's node: without inlining, each
 *                                                   function's own instructions, at the cost of calls)
 *   npx tsx bench/instructions.ts --requests 1000  (measured requests per connection; default 1000
 *                                                   keep-alive, 200 batches pipelined)
 *
 * `--mode echo` (not in the default set) counts a ping-pong round trip of a
 * 64-byte message instead: examples/echo-server.ts (from the tsc build, as
 * bench/echo.ts runs it) against bench/echo.ts's peer, a node:net
 * `socket.pipe(socket)` (reported in the raw column).
 *
 * 16 connections from a Node.js client in this process (not counted: only
 * the server runs under valgrind); pipelined: batches of 16 requests in one
 * write. The warm-up (1,500 requests per connection keep-alive, 400 batches
 * pipelined) lets the JIT settle; instrumentation is switched on and off
 * with `callgrind_control -i`. Everything listens on 127.0.0.1 only and every
 * phase is bounded in count and time. Needs valgrind; prints the counts and
 * writes nothing.
 *
 * @module
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { argValue, buildForBench, have } from './lib.js';
import { addSelfCosts, readPerfMap } from './callgrind-annotate.js';

type Kind = 'eventide' | 'raw';
type Mode = 'keep-alive' | 'pipelined' | 'echo';

const CONNECTIONS = 16;
const PIPELINE = 16;
const BODY = 'Hello, World!';
const REQUEST = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\n\r\n';
/** The echo mode's message: bench/echo.ts's ping-pong size. */
const MESSAGE = 'x'.repeat(63) + '\n';
/** No phase may take longer (valgrind runs the server about 50 times slower). */
const PHASE_TIMEOUT_MS = 10 * 60_000;

/** The servers, as an ES module run by plain node under valgrind (no loader hooks in the process). */
function serverModule(dist: string): string {
  const from = (m: string): string => JSON.stringify(pathToFileURL(join(dist, 'src', `${m}.js`)).href);
  return `
const kind = process.argv[2];
const echo = process.argv[3] === 'echo';
const BODY = ${JSON.stringify(BODY)};
process.on('SIGTERM', () => process.exit(0));
if (echo) {
  // bench/echo.ts's peer.
  const net = await import('node:net');
  const server = net.createServer({ noDelay: true }, (s) => {
    s.on('error', () => s.destroy());
    s.pipe(s);
  });
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
} else if (kind === 'eventide') {
  const { EventBase } = await import(${from('event/base')});
  const { EventBuffer } = await import(${from('event/buffer')});
  const { EventHttp } = await import(${from('http/server')});
  const { EventHttpRequest } = await import(${from('http/request')});
  const base = new EventBase();
  const http = new EventHttp(base);
  http.setCallback('/', (req) => {
    req.addHeader('Content-Type', 'text/plain', EventHttpRequest.OUTPUT_HEADER);
    const buf = new EventBuffer();
    buf.add(BODY);
    req.sendReply(200, 'OK', buf);
  });
  if (!http.bind('127.0.0.1', 0)) throw new Error('bind failed');
  console.log(http.getBoundPorts()[0]);
  await base.dispatch();
} else {
  const net = await import('node:net');
  const one = Buffer.from('HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\nContent-Length: 13\\r\\n\\r\\n' + BODY, 'latin1');
  const server = net.createServer({ noDelay: true }, (s) => {
    s.on('error', () => s.destroy());
    s.on('data', (d) => {
      let n = 0;
      for (let p = d.indexOf('\\r\\n\\r\\n'); p >= 0; p = d.indexOf('\\r\\n\\r\\n', p + 4)) n++;
      if (n > 0) s.write(n === 1 ? one : Buffer.concat(Array(n).fill(one)));
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
}
`;
}

interface Started {
  child: ChildProcess;
  port: number;
}

/**
 * Starts `node ARGS` under callgrind and waits for its port: a line holding
 * only the port on stdout, or (examples) a `Listening on HOST:PORT` line on stderr.
 */
async function startUnderValgrind(
  args: string[],
  kind: Kind,
  outFile: string,
  annotate: boolean,
  nodeFlags: string[],
): Promise<Started> {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${outFile}.%p`,
      ...(annotate ? ['--dump-instr=yes'] : []),
      process.execPath,
      ...(annotate ? ['--perf-basic-prof'] : []),
      ...nodeFlags,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} did not start under valgrind:\n${err}`)), 120_000);
    const found = (m: RegExpExecArray | null): void => {
      if (m === null) return;
      clearTimeout(timer);
      resolve(Number(m[1]));
    };
    child.stdout?.setEncoding('utf8').on('data', (d: string) => found(/^(\d+)$/m.exec((out += d))));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => found(/^Listening on .*:(\d+)$/m.exec((err += d))));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} exited (${String(code)}) under valgrind:\n${err}`));
    });
  });
  return { child, port };
}

/**
 * Sends `rounds` requests (or batches, or echo messages) per connection, each
 * after the previous reply, and waits for them.
 */
async function drive(socks: Socket[], rounds: number, perWrite: number, echo: boolean): Promise<void> {
  const payload = Buffer.from(echo ? MESSAGE : REQUEST.repeat(perWrite), 'latin1');
  // A reply is counted by its body (HTTP) or by the message's last byte (echo).
  const marker = Buffer.from(echo ? '\n' : BODY, 'latin1');
  let timer: NodeJS.Timeout | undefined;
  const all = Promise.all(
    socks.map(
      (s) =>
        new Promise<void>((resolve) => {
          let left = rounds;
          let got = 0;
          const onData = (d: Buffer): void => {
            for (let p = d.indexOf(marker); p >= 0; p = d.indexOf(marker, p + marker.length)) got++;
            while (got >= perWrite) {
              got -= perWrite;
              if (--left === 0) {
                s.off('data', onData);
                resolve();
                return;
              }
              s.write(payload);
            }
          };
          s.on('data', onData);
          s.write(payload);
        }),
    ),
  );
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('a phase took longer than 10 minutes')), PHASE_TIMEOUT_MS);
  });
  try {
    await Promise.race([all, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function instrument(pid: number, on: boolean): void {
  const r = spawnSync('callgrind_control', ['-i', on ? 'on' : 'off', String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control failed: ${r.stderr}`);
}

/** The instructions counted in every dump of one run (the larger of its `summary:` and `totals:` lines). */
function totalInstructions(dir: string, prefix: string): number {
  let total = 0;
  for (const f of readdirSync(dir).filter((n) => n.startsWith(prefix))) {
    let most = 0;
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/^(?:summary|totals): (\d+)/gm))
      most = Math.max(most, Number(m[1]));
    total += most;
  }
  return total;
}

/** Prints the `top` functions by self instructions per request (`--annotate`). */
function printTop(dir: string, prefix: string, pid: number, perRequest: number, top: number): void {
  const ranges = readPerfMap(`/tmp/perf-${pid}.map`);
  const costs = new Map<string, number>();
  for (const f of readdirSync(dir).filter((n) => n.startsWith(prefix))) addSelfCosts(join(dir, f), ranges, costs);
  rmSync(`/tmp/perf-${pid}.map`, { force: true });
  const total = [...costs.values()].reduce((a, b) => a + b, 0);
  console.log(
    `    self instructions per request, top ${top} of ${Math.round(total / perRequest).toLocaleString('en-US')}:`,
  );
  for (const [name, ir] of [...costs].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `    ${Math.round(ir / perRequest)
        .toLocaleString('en-US')
        .padStart(8)}  ${name}`,
    );
}

/** A port free on 127.0.0.1 a moment ago (for the example, which takes its port on the command line). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function measure(
  dist: string,
  dir: string,
  script: string,
  kind: Kind,
  mode: Mode,
  requests: number,
  annotate: number,
  nodeFlags: string[],
): Promise<number> {
  const perWrite = mode === 'pipelined' ? PIPELINE : 1;
  const warm = mode === 'pipelined' ? 400 : 1500;
  const prefix = `cg.${kind}.${mode}`;
  const args =
    mode === 'echo' && kind === 'eventide'
      ? [join(dist, 'examples', 'echo-server.js'), String(await freePort()), '--host', '127.0.0.1']
      : [script, kind, mode];
  const { child, port } = await startUnderValgrind(args, kind, join(dir, prefix), annotate > 0, nodeFlags);
  const pid = child.pid as number;
  const socks = await Promise.all(
    Array.from(
      { length: CONNECTIONS },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(port, '127.0.0.1', () => resolve(s));
          s.setNoDelay(true);
          s.once('error', reject);
        }),
    ),
  );
  try {
    await drive(socks, warm, perWrite, mode === 'echo');
    instrument(pid, true);
    await drive(socks, requests, perWrite, mode === 'echo');
    instrument(pid, false);
  } finally {
    for (const s of socks) s.destroy();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  const perRequest = CONNECTIONS * requests * perWrite;
  if (annotate > 0) printTop(dir, prefix, pid, perRequest, annotate);
  return totalInstructions(dir, prefix) / perRequest;
}

async function main(): Promise<void> {
  if (!have('valgrind', ['--version']) || !have('callgrind_control', ['--version'])) {
    console.error('valgrind (with callgrind_control) is needed: apt-get install valgrind');
    process.exit(2);
  }
  const modes = (argValue('--mode')?.split(',') ?? ['keep-alive', 'pipelined']) as Mode[];
  const kinds = (argValue('--only')?.split(',') ?? ['eventide', 'raw']) as Kind[];
  const nodeFlags =
    argValue('--node-flags')
      ?.split(' ')
      .filter((f) => f !== '') ?? [];
  const annotate = process.argv.includes('--annotate') ? Number(argValue('--annotate') ?? 40) || 40 : 0;
  const dist = buildForBench();
  const dir = mkdtempSync(join(tmpdir(), 'eventide-instructions-'));
  const script = join(dir, 'servers.mjs');
  writeFileSync(script, serverModule(dist));
  try {
    console.log(
      `Server instructions per request (callgrind), ${modes.map((m) => (m === 'echo' ? '64-byte echo ping-pong' : `HTTP hello world ${m}`)).join(', ')}, ${CONNECTIONS} connections, node ${process.version}`,
    );
    for (const mode of modes) {
      const requests = Number(argValue('--requests') ?? (mode === 'pipelined' ? 200 : 1000));
      const got = new Map<Kind, number>();
      for (const kind of kinds) {
        const ir = await measure(dist, dir, script, kind, mode, requests, annotate, nodeFlags);
        got.set(kind, ir);
        console.log(
          `  ${mode.padEnd(10)} ${kind.padEnd(8)} ${Math.round(ir).toLocaleString('en-US').padStart(8)} Ir/request`,
        );
      }
      const e = got.get('eventide');
      const r = got.get('raw');
      if (e !== undefined && r !== undefined)
        console.log(
          `  ${mode.padEnd(10)} eventide / ${mode === 'echo' ? 'node:net pipe' : 'raw node:net'}: ${(e / r).toFixed(2)}x the instructions`,
        );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

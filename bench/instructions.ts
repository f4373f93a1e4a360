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
 *   npx tsx bench/instructions.ts --mode pipelined (one mode: keep-alive | pipelined | echo | cursor)
 *   npx tsx bench/instructions.ts --only eventide  (one server: eventide | raw; raw is the mode's peer;
 *                                                  lent: keep-alive and pipelined, the raw server reading with onread)
 *   npx tsx bench/instructions.ts --annotate 40    (also the 40 functions with the most self instructions
 *                                                   per request, JIT code named from V8's perf map)
 *   npx tsx bench/instructions.ts --annotate 40 --node-flags '--no-turbo-inlining'
 *                                                  (flags for the server's node: without inlining, each
 *                                                   function's own instructions, at the cost of calls)
 *   npx tsx bench/instructions.ts --requests 1000  (measured requests per connection; default 1000
 *                                                   keep-alive, 200 batches pipelined)
 *   npx tsx bench/instructions.ts --connections 1  (client connections, default 16; with one, every
 *                                                   request is a loop turn of its own: the per-turn
 *                                                   costs a lightly loaded server pays per request)
 *
 * `--mode echo` (not in the default set) counts a ping-pong round trip of a
 * 64-byte message instead: examples/echo-server.ts (from the tsc build, as
 * bench/echo.ts runs it) against bench/echo.ts's peer, a node:net
 * `socket.pipe(socket)` (reported in the raw column).
 *
 * `--mode cursor` (not in the default set either) counts one request of
 * bench/pagination.ts's "cursor near the end" page over its 1,000,000-row
 * SQLite file (bench/.data/items-1000000.sqlite3, made by a run of
 * bench/pagination.ts): `eventide serve` (the demo API from the tsc build)
 * against the hand-written fastify + better-sqlite3 endpoint
 * (bench/peers/fastify-cursor.ts, reported in the raw column). Both answer
 * the same bytes (bench/pagination.ts checks that); a reply is counted by its
 * length, measured once before the warm-up. Fewer requests by default (300
 * warm-up and 200 measured per connection): a request costs about 30 times
 * a hello world.
 *
 * 16 connections (`--connections`) from a Node.js client in this process (not counted: only
 * the server runs under valgrind); pipelined: batches of 16 requests in one
 * write. The warm-up (1,500 requests per connection keep-alive, 400 batches
 * pipelined, for 16 connections: scaled up for fewer) lets the JIT settle; instrumentation is switched on and off
 * with `callgrind_control -i`. Everything listens on 127.0.0.1 only and every
 * phase is bounded in count and time. Needs valgrind; prints the counts and
 * writes nothing.
 *
 * @module
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argValue, buildForBench, have } from './lib.js';
import { addSelfCosts, readPerfMap } from './callgrind-annotate.js';

type Kind = 'eventide' | 'raw' | 'lent';
type Mode = 'keep-alive' | 'pipelined' | 'echo' | 'cursor';

/** Client connections (`--connections N`): with 1, every request is a turn of the server's loop of its own. */
const CONNECTIONS = Math.max(1, Math.min(256, Number(argValue('--connections') ?? 16) || 16));
const PIPELINE = 16;
const BODY = 'Hello, World!';
const REQUEST = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\n\r\n';
/** The echo mode's message: bench/echo.ts's ping-pong size. */
const MESSAGE = 'x'.repeat(63) + '\n';
/** The cursor mode's page: bench/pagination.ts's "cursor near the end" (after the row ranked 999,981). */
const CURSOR_PATH = '/cursor/items/?cursor=cD0yMDIwLTAxLTAxKzAwJTNBMDAlM0EyMC43NDAwMDAlMkIwMCUzQTAw';
const CURSOR_REQUEST = `GET ${CURSOR_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\n\r\n`;
/** The cursor mode's database, made by bench/pagination.ts. */
const CURSOR_DB = fileURLToPath(new URL('.data/items-1000000.sqlite3', import.meta.url));
/** No phase may take longer (valgrind runs the server about 50 times slower). */
const PHASE_TIMEOUT_MS = 10 * 60_000;

interface Started {
  child: ChildProcess;
  port: number;
}

/**
 * Starts `node ARGS` under callgrind and waits for its port: a line holding
 * only the port on stdout, a `listening on http://HOST:PORT/` in it (the
 * demo API, the fastify peer), or (examples) a `Listening on HOST:PORT` line on stderr.
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
      resolve(Number(m[1] ?? m[2]));
    };
    child.stdout
      ?.setEncoding('utf8')
      .on('data', (d: string) => found(/^(\d+)$|listening on http:\/\/[\d.]+:(\d+)\//m.exec((out += d))));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => found(/^Listening on .*:(\d+)$/m.exec((err += d))));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} exited (${String(code)}) under valgrind:\n${err}`));
    });
  });
  return { child, port };
}

/** What a connection sends, and how it counts the replies in what it receives. */
interface Load {
  /** One write: a request, a batch of them or an echo message. */
  payload: Buffer;
  /** Replies per write. */
  perWrite: number;
  /** A counter for one connection: the replies completed by the bytes `d`. */
  counter(): (d: Buffer) => number;
}

/** Replies counted by a marker each holds once: the body (HTTP) or the message's last byte (echo). */
function markerLoad(payload: string, perWrite: number, marker: string): Load {
  const m = Buffer.from(marker, 'latin1');
  return {
    payload: Buffer.from(payload, 'latin1'),
    perWrite,
    counter: () => (d) => {
      let n = 0;
      for (let p = d.indexOf(m); p >= 0; p = d.indexOf(m, p + m.length)) n++;
      return n;
    },
  };
}

/** Replies counted by their length (the same bytes every time: the cursor page). */
function lengthLoad(payload: string, replyLength: number): Load {
  return {
    payload: Buffer.from(payload, 'latin1'),
    perWrite: 1,
    counter: () => {
      let bytes = 0;
      return (d) => {
        bytes += d.length;
        const n = Math.floor(bytes / replyLength);
        bytes -= n * replyLength;
        return n;
      };
    },
  };
}

/** The length of the reply to `request` (one request on a connection of its own), at most PHASE_TIMEOUT_MS. */
async function replyLength(port: number, request: string): Promise<number> {
  const s = connect(port, '127.0.0.1');
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no reply to the first request')), PHASE_TIMEOUT_MS);
      let got = Buffer.alloc(0);
      s.once('error', reject);
      s.on('data', (d: Buffer) => {
        got = Buffer.concat([got, d]);
        const end = got.indexOf('\r\n\r\n');
        const m = /\r\ncontent-length: *(\d+)\r\n/i.exec(got.subarray(0, Math.max(end + 2, 0)).toString('latin1'));
        if (end < 0 || m === null) return;
        const total = end + 4 + Number(m[1]);
        if (got.length < total) return;
        clearTimeout(timer);
        if (!got.subarray(0, 15).equals(Buffer.from('HTTP/1.1 200 OK')))
          reject(new Error(`not a 200: ${got.toString('latin1')}`));
        else resolve(total);
      });
      s.write(request);
    });
  } finally {
    s.destroy();
  }
}

/**
 * Sends `rounds` writes of the load per connection, each after the replies
 * to the previous one, and waits for them.
 */
async function drive(socks: Socket[], rounds: number, load: Load): Promise<void> {
  const { payload, perWrite } = load;
  let timer: NodeJS.Timeout | undefined;
  const all = Promise.all(
    socks.map(
      (s) =>
        new Promise<void>((resolve) => {
          let left = rounds;
          let got = 0;
          const count = load.counter();
          const onData = (d: Buffer): void => {
            got += count(d);
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

/** The server's command line (after `node`): the hello-world servers, the echo example, or the cursor page's two servers. */
/**
 * The server of a mode, from the tsc build (plain node under valgrind, no loader hooks in the
 * process): bench/http.ts's and bench/echo.ts's servers (bench/peers/), the demo API and the fastify peer.
 */
async function serverArgs(dist: string, kind: Kind, mode: Mode): Promise<string[]> {
  if (kind === 'lent' && (mode === 'echo' || mode === 'cursor'))
    throw new Error('--only lent: the raw server reading with onread answers keep-alive and pipelined only');
  if (mode === 'echo')
    return kind === 'eventide'
      ? [join(dist, 'examples', 'echo-server.js'), String(await freePort()), '--host', '127.0.0.1']
      : [join(dist, 'bench', 'peers', 'echo-net.js'), String(await freePort())];
  if (mode !== 'cursor') return [join(dist, 'bench', 'peers', 'hello-servers.js'), '--kind', kind];
  if (!existsSync(CURSOR_DB))
    throw new Error(`${CURSOR_DB} is missing: run \`npx tsx bench/pagination.ts --quick\` once (it makes it)`);
  return kind === 'eventide'
    ? [join(dist, 'src', 'cli', 'main.js'), 'serve', '--database', CURSOR_DB, '--port', '0', '--quiet']
    : [join(dist, 'bench', 'peers', 'fastify-cursor.js'), '--database', CURSOR_DB, '--port', '0'];
}

async function measure(
  dist: string,
  dir: string,
  kind: Kind,
  mode: Mode,
  requests: number,
  annotate: number,
  nodeFlags: string[],
): Promise<number> {
  // per connection, for 16 of them: fewer connections warm up longer (the JIT counts calls, not connections)
  const warm = Math.ceil(((mode === 'pipelined' ? 400 : mode === 'cursor' ? 300 : 1500) * 16) / CONNECTIONS);
  const prefix = `cg.${kind}.${mode}`;
  const { child, port } = await startUnderValgrind(
    await serverArgs(dist, kind, mode),
    kind,
    join(dir, prefix),
    annotate > 0,
    nodeFlags,
  );
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
    const load =
      mode === 'cursor'
        ? lengthLoad(CURSOR_REQUEST, await replyLength(port, CURSOR_REQUEST))
        : mode === 'echo'
          ? markerLoad(MESSAGE, 1, '\n')
          : markerLoad(REQUEST.repeat(mode === 'pipelined' ? PIPELINE : 1), mode === 'pipelined' ? PIPELINE : 1, BODY);
    await drive(socks, warm, load);
    instrument(pid, true);
    await drive(socks, requests, load);
    instrument(pid, false);
  } finally {
    for (const s of socks) s.destroy();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  const perRequest = CONNECTIONS * requests * (mode === 'pipelined' ? PIPELINE : 1);
  if (annotate > 0) printTop(dir, prefix, pid, perRequest, annotate);
  return totalInstructions(dir, prefix) / perRequest;
}

/** What the raw column of each mode measures. */
const PEER: Record<Mode, string> = {
  'keep-alive': 'raw node:net',
  pipelined: 'raw node:net',
  echo: 'node:net pipe',
  cursor: 'fastify + better-sqlite3',
};

function describe(m: Mode): string {
  if (m === 'echo') return '64-byte echo ping-pong';
  if (m === 'cursor') return 'REST cursor page near the end of 1,000,000 SQLite rows';
  return `HTTP hello world ${m}`;
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
  try {
    console.log(
      `Server instructions per request (callgrind), ${modes.map(describe).join(', ')}, ${CONNECTIONS} connections, node ${process.version}`,
    );
    for (const mode of modes) {
      const requests = Number(argValue('--requests') ?? (mode === 'pipelined' || mode === 'cursor' ? 200 : 1000));
      const got = new Map<Kind, number>();
      for (const kind of kinds) {
        const ir = await measure(dist, dir, kind, mode, requests, annotate, nodeFlags);
        got.set(kind, ir);
        console.log(
          `  ${mode.padEnd(10)} ${kind.padEnd(8)} ${Math.round(ir).toLocaleString('en-US').padStart(8)} Ir/request`,
        );
      }
      const e = got.get('eventide');
      const r = got.get('raw');
      if (e !== undefined && r !== undefined)
        console.log(`  ${mode.padEnd(10)} eventide / ${PEER[mode]}: ${(e / r).toFixed(2)}x the instructions`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

/**
 * HTTP client (the PHP manual's `EventHttpConnection::makeRequest()` example).
 *
 * Usage: npx tsx examples/http-client.ts [--timeout SECONDS] HOST PORT URI
 *   HOST               an IP address or a host name (system resolver)
 *   PORT               1..65535
 *   URI                the request target, e.g. `/index.html?a=1`
 *   --timeout SECONDS  the connection's timeout, default 5 (the PHP example's),
 *                      and the deadline of the whole request;
 *                      `--timeout=SECONDS` works too. Mostly for tests.
 *
 * Makes an `EventHttpConnection(base, null, HOST, PORT)` with
 * `setTimeout(5)` (no byte for 5 s ends the request), `setRequestTimeout(5)`
 * (nor can a server that trickles its response, or sends interim 1xx
 * responses for ever, hold it longer) and the default limits (a body of at
 * most 8 MiB, at most 100 interim responses), and one `EventHttpRequest`
 * whose output headers are `Host: HOST[:PORT]` (the port only when it is
 * not 80; IPv6 in brackets) and `Content-Length: 0`, then `makeRequest(req, CMD_GET, URI)`. On the
 * wire: `GET URI HTTP/1.1\r\nHost: ...\r\nContent-Length: 0\r\n\r\n`.
 *
 * The request's callback prints `_request_handler` and then
 *
 * - `Timed out` when it got null because of the timeout (no byte for that
 *   long, or no complete response within it),
 * - `Invalid response` when it got null because the response was refused
 *   (malformed, a body over 8 MiB, endless interim responses, cut short),
 * - `Connection refused` when the response code is 0 (no connection),
 * - `Success: 200`, `Body:` and the body (read from the input buffer 1024
 *   bytes at a time and written as it is, so line by line; a last line
 *   without a newline gets one) for a 200,
 * - `Unexpected response: N` for any other status N,
 *
 * and ends the loop with `base.exit()`. For the two null outcomes it also
 * writes why on stderr (`getLastError()`'s message, with the codec's error
 * code: `GET /: Response refused (ERR_HTTP_BODY_TOO_LARGE): ...`).
 *
 * Exit status: 0 after a 200, 1 otherwise; 2 for a wrong command line (the
 * usage on stderr).
 *
 * Deviations from the PHP example: host, port and URI come from the command
 * line (PHP: 127.0.0.1, 80, /index.cphp); the Host header carries the port
 * when it is not 80; the whole request has a deadline, and a refused
 * response is told from a timeout; the body is read with `read(1024)` (the
 * spec's limit) rather than `readLine()`, so empty lines and a line "0" are
 * printed too; the exit status tells the outcome.
 */
import { isIP } from 'node:net';
import { EventBase, getLastError } from '../src/event/index.js';
import { EventHttpConnection, EventHttpRequest } from '../src/http/index.js';
import { errorText, fail, parsePort } from './_args.js';

const USAGE = 'Usage: npx tsx examples/http-client.ts [--timeout SECONDS] HOST PORT URI';

// ---------------------------------------------------------------- arguments

let timeout = 5;
const positional: string[] = [];
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    let value: string | undefined;
    if (a === '--timeout') {
      value = argv[++i];
      if (value === undefined) fail(`--timeout needs a value\n${USAGE}`, 2);
    } else if (a.startsWith('--timeout=')) {
      value = a.slice('--timeout='.length);
    } else if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    } else if (a.startsWith('--') && a.length > 2) {
      fail(`Unknown option: ${a}\n${USAGE}`, 2);
    } else {
      positional.push(a);
      continue;
    }
    const t = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(t > 0)) fail(`Invalid timeout: ${value}\n${USAGE}`, 2);
    timeout = t;
  }
}
if (positional.length !== 3) fail(USAGE, 2);
const [host, portText, uri] = positional as [string, string, string];
const port = parsePort(portText);
if (port === null) fail(`Invalid port\n${USAGE}`, 2);

// ---------------------------------------------------------------- the client

let ok = false;

function requestHandler(req: EventHttpRequest<EventBase> | null, b: EventBase): void {
  process.stdout.write('_request_handler\n');
  if (req === null) {
    const err = getLastError();
    process.stdout.write(err?.code === 'ERR_EVENT_PROTOCOL' ? 'Invalid response\n' : 'Timed out\n');
    if (err !== null) process.stderr.write(`${err.message}\n`);
  } else {
    const code = req.getResponseCode();
    if (code === 0) {
      process.stdout.write('Connection refused\n');
    } else if (code !== 200) {
      process.stdout.write(`Unexpected response: ${code}\n`);
    } else {
      ok = true;
      process.stdout.write(`Success: ${code}\n`);
      process.stdout.write('Body:\n');
      const buf = req.getInputBuffer();
      let last = 10;
      let chunk: Buffer | null;
      while ((chunk = buf.read(1024)) !== null) {
        process.stdout.write(chunk);
        last = chunk[chunk.length - 1] as number;
      }
      if (last !== 10) process.stdout.write('\n');
    }
  }
  b.exit();
}

const base = new EventBase();
let conn: EventHttpConnection;
try {
  conn = new EventHttpConnection(base, null, host, port);
} catch (err) {
  fail(`${errorText(err)}\n${USAGE}`, 2);
}
conn.setTimeout(timeout); // no byte for this long ends the request
conn.setRequestTimeout(timeout); // and so does a response not complete by then (bytes trickled, endless 1xx)
// The body limit is the default, 8 MiB (conn.setMaxBodySize() raises it): an endless body ends the request.

const req = new EventHttpRequest<EventBase>(requestHandler, base);
const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
const hostValue = isIP(bare) === 6 ? `[${bare}]` : bare;
req.addHeader('Host', port === 80 ? hostValue : `${hostValue}:${port}`, EventHttpRequest.OUTPUT_HEADER);
req.addHeader('Content-Length', '0', EventHttpRequest.OUTPUT_HEADER);
if (!conn.makeRequest(req, EventHttpRequest.CMD_GET, uri))
  fail(`Cannot make the request: invalid URI ${JSON.stringify(uri)}\n${USAGE}`, 2);

await base.dispatch();
conn.free();
process.exitCode = ok ? 0 : 1;

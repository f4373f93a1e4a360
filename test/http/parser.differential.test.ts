/**
 * Differential test: every corpus request is sent over a raw TCP connection
 * to a real `node:http` server (llhttp, default settings,
 * `insecureHTTPParser: false`) and parsed by our RequestParser; both must
 * accept (the same number of requests) or both reject.
 *
 * Node's verdict per connection: the requests it delivered completely (the
 * handler answers 200 at the request's 'end'; upgrades and CONNECT count as
 * accepted), and whether it rejected something — a `clientError` (llhttp
 * refused the bytes; the handler answers 400) or an error status it
 * produced by itself (400 for a missing Host, 417 for an unknown Expect).
 *
 * Where our deliberate choices differ from llhttp, the case is listed in
 * KNOWN_DIFFERENCES with the reason, and the test checks that the
 * difference is exactly that one.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { INVALID, VALID, outcome, parseString } from './corpus.js';

interface Verdict {
  /** Requests accepted completely. */
  ok: number;
  /** Something was refused. */
  rejected: boolean;
  /** The refusing status (ours: the error status; node: the status it answered, 0 if none). */
  status: number;
}

/**
 * Cases where node:http (llhttp) and we deliberately disagree. With
 * `agreesFrom`, the llhttp version that changed to our behaviour: on a Node
 * with that llhttp or a later one, the case must agree like any other.
 */
const KNOWN_DIFFERENCES: Record<string, { node: 'accepts' | 'rejects'; reason: string; agreesFrom?: string }> = {
  // -- we reject, llhttp accepts
  'two spaces after the method': {
    node: 'accepts',
    reason:
      'llhttp (lenient build) skips repeated spaces in the request line; RFC 9112 3 requires exactly one SP, and tolerance invites parser disagreement',
  },
  'two spaces before the version': {
    node: 'accepts',
    reason: 'as above: exactly one SP between request-target and version',
  },
  'HTTP/0.9 style request line': {
    node: 'accepts',
    reason: 'llhttp still accepts an HTTP/0.9 request line without version; we do not support HTTP/0.9',
  },
  'HTTP/2.0': {
    node: 'accepts',
    reason: 'llhttp accepts any single-digit major version; we answer 505 for a well-formed version other than 1.x',
  },
  'HTTP/0.9 version': { node: 'accepts', reason: 'as above: 505 for any major version other than 1' },
  'asterisk with GET': { node: 'accepts', reason: 'RFC 9112 3.2.4: the asterisk-form is only for OPTIONS' },
  'CONNECT with origin-form': {
    node: 'accepts',
    reason: 'RFC 9112 3.2.3 / RFC 9110 9.3.6: CONNECT takes an authority-form target',
  },
  'CONNECT without port': { node: 'accepts', reason: 'authority-form for CONNECT requires host:port' },
  'absolute-form with userinfo': {
    node: 'accepts',
    reason: 'RFC 9110 4.2.4: userinfo in an http(s) URI is to be treated as an error',
  },
  'bare CR before the request line': {
    node: 'accepts',
    reason: 'llhttp skips stray CRs before a request; we refuse a bare CR anywhere (RFC 9112 2.2)',
  },
  'two Host fields': {
    node: 'accepts',
    reason: 'llhttp does not look at Host; RFC 9112 3.2: 400 for more than one Host',
  },
  'two identical Host fields': { node: 'accepts', reason: 'as above, even when the values are the same' },
  'Host with a space': { node: 'accepts', reason: 'RFC 9112 3.2: 400 for an invalid Host (uri-host [":" port])' },
  'Host with userinfo': { node: 'accepts', reason: 'invalid Host (uri-host has no userinfo)' },
  'Host with a path': { node: 'accepts', reason: 'invalid Host' },
  'Host with a bad port': { node: 'accepts', reason: 'invalid Host (port is digits)' },
  'Host with a port above 65535': { node: 'accepts', reason: 'invalid Host (port out of range)' },
  'Host with an unclosed IPv6 literal': { node: 'accepts', reason: 'invalid Host' },
  'Host with a bad pct-encoding': { node: 'accepts', reason: 'invalid Host (pct-encoded = "%" HEXDIG HEXDIG)' },
  'Transfer-Encoding: gzip, chunked': {
    node: 'accepts',
    reason:
      'llhttp de-chunks and passes a gzip-coded body on; we implement no coding but chunked and answer 501 (RFC 9112 6.1)',
  },
  'empty Transfer-Encoding': {
    node: 'accepts',
    reason:
      'llhttp before 9.4.3 (Node 20) ignores an empty Transfer-Encoding; we refuse a TE that names no coding (its framing is ambiguous)',
    agreesFrom: '9.4.3', // Node 22.23.2 and 24.18.1 on
  },
  'chunk size of 17 hex digits': {
    node: 'accepts',
    reason: 'llhttp only checks the value for overflow; we cap chunk sizes at 16 hex digits, leading zeros included',
  },
  'chunk extension without a value': {
    node: 'accepts',
    reason:
      'llhttp (lenient build) is lax about chunk extensions; RFC 9112 7.1.1 requires a token or quoted-string after "="',
  },
  'chunk extension without a name': { node: 'accepts', reason: 'RFC 9112 7.1.1: chunk-ext-name is a token' },
  // -- we accept, llhttp rejects
  'chunked with BWS around extension separators': {
    node: 'rejects',
    reason: 'RFC 9112 7.1.1 allows BWS before ";" and around "="; llhttp refuses any whitespace there',
  },
  'HTTP/1.2 is handled as 1.1': {
    node: 'rejects',
    reason:
      'RFC 9110 2.5: a higher minor version is processed as the highest supported one; llhttp refuses minor versions above 1',
  },
  'duplicate identical Content-Length': {
    node: 'rejects',
    reason: 'RFC 9110 8.6 allows repeated identical Content-Length values; llhttp refuses any duplicate',
  },
  'Content-Length list of identical values': {
    node: 'rejects',
    reason: 'RFC 9110 8.6 allows "5, 5"; llhttp refuses the list form',
  },
};

/** Cases both refuse, with different statuses. */
const STATUS_DIFFERENCES: Record<string, { node: number; ours: number; reason: string }> = {
  'unknown method': {
    node: 400,
    ours: 501,
    reason: 'a valid but unknown method token is "501 Not Implemented" (RFC 9110 9.1, libevent)',
  },
  'lowercase method': {
    node: 400,
    ours: 501,
    reason: 'methods are case-sensitive: "get" is an unknown method, hence 501',
  },
  'overflowing Content-Length': {
    node: 400,
    ours: 413,
    reason: 'a decimal Content-Length above 2^53-1 is a too large body',
  },
  'Transfer-Encoding: xchunked': {
    node: 400,
    ours: 501,
    reason: 'a single unknown transfer coding is 501 (RFC 9112 6.1)',
  },
  'Transfer-Encoding: gzip': { node: 400, ours: 501, reason: 'as above' },
};

/** Whether dotted version `a` is at least `b`. */
function atLeast(a: string, b: string): boolean {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** The documented difference of a case on this Node's llhttp, if any. */
function knownDifference(name: string): { node: 'accepts' | 'rejects'; reason: string } | undefined {
  const known = KNOWN_DIFFERENCES[name];
  if (known?.agreesFrom !== undefined && atLeast(process.versions.llhttp ?? '0', known.agreesFrom)) return undefined;
  return known;
}

const CASES = [
  ...VALID.map((c) => ({ name: c.name, raw: c.raw })),
  ...INVALID.map((c) => ({ name: c.name, raw: c.raw })),
];

let server: http.Server;
let port = 0;
/** Per client port: requests node delivered completely, and whether it raised clientError. */
const seen = new Map<number, { ok: number; clientError: boolean }>();
const track = (sock: net.Socket): { ok: number; clientError: boolean } => {
  const key = sock.remotePort ?? -1;
  let s = seen.get(key);
  if (s === undefined) seen.set(key, (s = { ok: 0, clientError: false }));
  return s;
};

before(async () => {
  server = http.createServer({ insecureHTTPParser: false }, (req, res) => {
    req.resume();
    req.on('end', () => {
      track(req.socket).ok++;
      res.end('ok');
    });
  });
  server.on('upgrade', (req: http.IncomingMessage, sock: net.Socket) => {
    track(sock).ok++;
    sock.end('HTTP/1.1 101 Switching Protocols\r\n\r\n');
  });
  server.on('connect', (req: http.IncomingMessage, sock: net.Socket) => {
    track(sock).ok++;
    sock.end('HTTP/1.1 200 Connection Established\r\n\r\n');
  });
  server.on('clientError', (_err: Error, sock: net.Socket) => {
    track(sock).clientError = true;
    if (sock.writable) sock.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else sock.destroy();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as net.AddressInfo).port;
});

after(() => {
  server.close();
  server.closeAllConnections();
});

/** Sends the bytes on a fresh connection, half-closes, and reads until the server closes. */
function nodeVerdict(raw: string): Promise<Verdict> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let out = '';
    let localPort = -1;
    const timer = setTimeout(() => sock.destroy(), 3000);
    sock.on('connect', () => {
      localPort = sock.localPort ?? -1;
      sock.end(Buffer.from(raw, 'latin1'));
    });
    sock.on('data', (d) => (out += d.toString('latin1')));
    sock.on('error', () => {});
    sock.on('close', () => {
      clearTimeout(timer);
      // let the server-side handlers of this connection finish
      setImmediate(() => {
        const s = seen.get(localPort) ?? { ok: 0, clientError: false };
        const statuses = [...out.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
        const refusing = statuses.find((x) => x >= 400) ?? 0;
        resolve({ ok: s.ok, rejected: s.clientError || refusing !== 0, status: refusing });
      });
    });
  });
}

function ourVerdict(raw: string): Verdict {
  const o = outcome(parseString(raw));
  return { ok: o.ok, rejected: o.error !== null, status: o.error ?? 0 };
}

test('node:http and RequestParser agree on the corpus, except for the documented differences', async () => {
  const results = new Map<string, { node: Verdict; ours: Verdict }>();
  const queue = [...CASES];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      results.set(c.name, { node: await nodeVerdict(c.raw), ours: ourVerdict(c.raw) });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));

  const problems: string[] = [];
  for (const c of CASES) {
    const { node, ours } = results.get(c.name)!;
    const known = knownDifference(c.name);
    const show = `${JSON.stringify(c.name)}: node ${JSON.stringify(node)}, ours ${JSON.stringify(ours)}`;
    if (known !== undefined) {
      // the documented difference, and nothing else
      const nodeAccepts = !node.rejected && node.ok > 0;
      const ourAccept = !ours.rejected && ours.ok > 0;
      if (
        known.node === 'accepts'
          ? !(nodeAccepts && ours.rejected && ours.ok === 0)
          : !(node.rejected && node.ok === 0 && ourAccept)
      ) {
        problems.push(`known difference did not show as documented (${known.node}): ${show}`);
      }
      continue;
    }
    if (node.ok !== ours.ok || node.rejected !== ours.rejected) {
      problems.push(`disagreement: ${show}`);
      continue;
    }
    const sd = STATUS_DIFFERENCES[c.name];
    if (sd !== undefined) {
      if (node.status !== sd.node || ours.status !== sd.ours)
        problems.push(`status difference not as documented (${sd.node} vs ${sd.ours}): ${show}`);
    } else if (ours.rejected && node.status !== 0 && ours.status !== node.status) {
      problems.push(`status mismatch: ${show}`);
    }
  }
  for (const name of [...Object.keys(KNOWN_DIFFERENCES), ...Object.keys(STATUS_DIFFERENCES)]) {
    if (!CASES.some((c) => c.name === name))
      problems.push(`documented difference for a case not in the corpus: ${name}`);
  }
  assert.deepEqual(problems, []);
  // the comparison really exercised both sides
  assert.ok([...results.values()].filter((r) => !r.node.rejected).length >= VALID.length - 10);
  assert.ok([...results.values()].filter((r) => r.node.rejected).length >= 40);
});

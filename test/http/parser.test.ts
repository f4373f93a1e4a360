import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  CMD_CONNECT,
  CMD_DELETE,
  CMD_GET,
  CMD_HEAD,
  CMD_OPTIONS,
  CMD_PATCH,
  CMD_POST,
  CMD_PUT,
  CMD_TRACE,
  HTTP_METHODS,
} from '../../src/http/methods.js';
import { DEFAULT_LIMITS, MAX_CHUNK_LINE_BYTES } from '../../src/http/machine.js';
import { RequestParser } from '../../src/http/request-parser.js';
import { ResponseParser } from '../../src/http/response-parser.js';
import type { HeaderPair, RequestHead, ResponseHead } from '../../src/http/head.js';
import { statusText } from '../../src/http/status.js';
import { httpDate } from '../../src/http/date.js';
import { HTTP_ERROR_CODES, HttpParseError, createHttpError, type HttpErrorCode } from '../../src/http/errors.js';
import {
  INVALID,
  VALID,
  head,
  outcome,
  parseChunks,
  parseString,
  type ExpectedRequest,
  type ParseEvent,
} from './corpus.js';

function checkValid(
  events: ParseEvent[],
  expected: ExpectedRequest[],
  upgradeRest: string | undefined,
  label: string,
): void {
  let k = 0;
  for (const [n, exp] of expected.entries()) {
    const ev = events[k++];
    assert.ok(ev, `${label}: missing events for request ${n}: ${JSON.stringify(events)}`);
    const isUpgrade = upgradeRest !== undefined && n === expected.length - 1;
    assert.equal(ev[0], isUpgrade ? 'upgrade' : 'request', `${label}: request ${n}: ${JSON.stringify(events)}`);
    const h = ev[1] as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(exp)) {
      if (key === 'body' || key === 'trailers') continue;
      assert.deepEqual(h[key], value, `${label}: request ${n}: ${key}`);
    }
    if (isUpgrade) {
      assert.equal(ev[2], upgradeRest, `${label}: upgrade rest`);
      continue;
    }
    let body = '';
    if (events[k]?.[0] === 'body') body = events[k++]![1] as string;
    assert.equal(body, exp.body ?? '', `${label}: request ${n}: body`);
    const done = events[k++];
    assert.deepEqual(done, ['complete', exp.trailers ?? null], `${label}: request ${n}: completion`);
  }
  assert.equal(k, events.length, `${label}: unexpected extra events ${JSON.stringify(events.slice(k))}`);
}

describe('corpus', () => {
  for (const c of VALID) {
    test(`valid: ${c.name}`, () => {
      checkValid(parseString(c.raw), c.requests, c.upgradeRest, c.name);
    });
  }
  for (const c of INVALID) {
    test(`invalid: ${c.name} -> ${c.status} ${c.code}`, () => {
      const events = parseString(c.raw);
      const last = events[events.length - 1];
      assert.deepEqual(last, ['error', c.status, c.code], JSON.stringify(events));
      assert.equal(events.filter((e) => e[0] === 'error').length, 1);
      assert.equal(outcome(events).ok, c.before ?? 0);
      assert.equal(HTTP_ERROR_CODES[c.code].status, c.status);
    });
  }
});

/** Feeds a request in one piece and byte by byte; both must give the same outcome. */
function both(raw: string, limits: ConstructorParameters<typeof RequestParser>[1]): ReturnType<typeof outcome> {
  const buf = Buffer.from(raw, 'latin1');
  const whole = outcome(parseChunks([buf], limits));
  const bytes = outcome(
    parseChunks(
      [...buf].map((b) => Buffer.from([b])),
      limits,
    ),
  );
  assert.deepEqual(bytes, whole, 'byte-by-byte parse differs');
  return whole;
}

describe('limits', () => {
  test('defaults', () => {
    assert.deepEqual(
      { ...DEFAULT_LIMITS },
      { maxHeaderBytes: 8192, maxHeaderCount: 100, maxRequestLineBytes: 8192, maxBodyBytes: Infinity },
    );
    const p = new RequestParser({ onRequest() {} });
    assert.equal(p.maxHeaderBytes, 8192);
    assert.equal(p.maxBodyBytes, Infinity);
  });

  test('maxHeaderBytes counts the whole head, CRLFs included', () => {
    const raw = head('GET / HTTP/1.1', 'Host: a', 'X-Pad: ' + 'p'.repeat(50));
    assert.deepEqual(both(raw, { maxHeaderBytes: raw.length }), { ok: 1, error: null, code: null });
    assert.deepEqual(both(raw, { maxHeaderBytes: raw.length - 1 }), {
      ok: 0,
      error: 431,
      code: 'ERR_HTTP_HEADER_TOO_LARGE',
    });
  });

  test('maxHeaderBytes: refused without waiting for the end of the head', () => {
    const errors: HttpParseError[] = [];
    const p = new RequestParser({ onRequest() {}, onError: (e) => errors.push(e) }, { maxHeaderBytes: 100 });
    p.execute(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\nX: ' + 'y'.repeat(200)));
    assert.equal(errors[0]?.status, 431);
  });

  test('maxHeaderBytes applies to a head fed in pieces', () => {
    const raw = Buffer.from(head('GET / HTTP/1.1', 'Host: a', 'X: ' + 'y'.repeat(300)), 'latin1');
    const ok = parseChunks([raw.subarray(0, 50), raw.subarray(50, 200), raw.subarray(200)], {
      maxHeaderBytes: raw.length,
    });
    assert.equal(outcome(ok).ok, 1);
    const ko = parseChunks([raw.subarray(0, 50), raw.subarray(50, 200), raw.subarray(200)], {
      maxHeaderBytes: raw.length - 1,
    });
    assert.deepEqual(outcome(ko), { ok: 0, error: 431, code: 'ERR_HTTP_HEADER_TOO_LARGE' });
  });

  test('maxHeaderCount', () => {
    const fields = Array.from({ length: 10 }, (_, i) => `X-${i}: v`);
    assert.equal(both(head('GET / HTTP/1.1', 'Host: a', ...fields.slice(0, 9)), { maxHeaderCount: 10 }).ok, 1);
    assert.deepEqual(both(head('GET / HTTP/1.1', 'Host: a', ...fields), { maxHeaderCount: 10 }), {
      ok: 0,
      error: 431,
      code: 'ERR_HTTP_TOO_MANY_HEADERS',
    });
  });

  test('maxRequestLineBytes excludes the CRLF', () => {
    const line = (n: number): string => 'GET /' + 'a'.repeat(n - 'GET / HTTP/1.1'.length) + ' HTTP/1.1';
    assert.equal(line(100).length, 100);
    assert.equal(both(head(line(100), 'Host: a'), { maxRequestLineBytes: 100 }).ok, 1);
    assert.deepEqual(both(head(line(101), 'Host: a'), { maxRequestLineBytes: 100 }), {
      ok: 0,
      error: 414,
      code: 'ERR_HTTP_URI_TOO_LONG',
    });
  });

  test('maxRequestLineBytes: refused before the line ends', () => {
    const errors: HttpParseError[] = [];
    const p = new RequestParser({ onRequest() {}, onError: (e) => errors.push(e) }, { maxRequestLineBytes: 50 });
    p.execute(Buffer.from('GET /' + 'a'.repeat(60)));
    assert.equal(errors[0]?.status, 414);
  });

  test('an over-long request line is 414 even when it also exceeds maxHeaderBytes', () => {
    const raw = head('GET /' + 'a'.repeat(9000) + ' HTTP/1.1', 'Host: a');
    assert.deepEqual(both(raw, {}), { ok: 0, error: 414, code: 'ERR_HTTP_URI_TOO_LONG' });
  });

  test('maxBodyBytes with Content-Length: 413 from the head, before any body byte', () => {
    const raw = head('POST / HTTP/1.1', 'Host: a', 'Content-Length: 10') + '0123456789';
    assert.equal(both(raw, { maxBodyBytes: 10 }).ok, 1);
    const events = parseChunks([Buffer.from(head('POST / HTTP/1.1', 'Host: a', 'Content-Length: 11'))], {
      maxBodyBytes: 10,
    });
    assert.deepEqual(events, [['error', 413, 'ERR_HTTP_BODY_TOO_LARGE']]);
  });

  test('maxBodyBytes with a chunked body: 413 as soon as the total exceeds it', () => {
    const prefix = head('POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked');
    assert.equal(both(prefix + '5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n', { maxBodyBytes: 10 }).ok, 1);
    const events = parseString(prefix + '5\r\n01234\r\n6\r\n', { maxBodyBytes: 10 });
    assert.deepEqual(
      events.map((e) => e[0]),
      ['request', 'body', 'error'],
    );
    assert.deepEqual(events[2], ['error', 413, 'ERR_HTTP_BODY_TOO_LARGE']);
  });

  test('trailer section limits', () => {
    const prefix = head('POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked') + '0\r\n';
    const trailers = 'X-A: 1\r\nX-B: 2\r\n\r\n';
    assert.equal(both(prefix + trailers, { maxHeaderBytes: 200, maxHeaderCount: 2 }).ok, 1);
    assert.deepEqual(both(prefix + trailers, { maxHeaderCount: 1 }), {
      ok: 0,
      error: 431,
      code: 'ERR_HTTP_TOO_MANY_HEADERS',
    });
    assert.deepEqual(both(prefix + trailers, { maxHeaderBytes: trailers.length - 1 }).error, 431);
  });

  test('chunk size line length is bounded', () => {
    const prefix = head('POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked');
    const ext = ';a=' + 'b'.repeat(MAX_CHUNK_LINE_BYTES);
    assert.deepEqual(outcome(parseString(prefix + '1' + ext + '\r\nx\r\n0\r\n\r\n')), {
      ok: 0,
      error: 400,
      code: 'ERR_HTTP_BAD_CHUNK',
    });
  });

  test('setLimits validates and applies', () => {
    const p = new RequestParser({ onRequest() {} });
    p.setLimits({ maxBodyBytes: 5, maxHeaderCount: 3 });
    assert.equal(p.maxBodyBytes, 5);
    assert.equal(p.maxHeaderCount, 3);
    assert.throws(() => p.setLimits({ maxHeaderBytes: -1 }), RangeError);
    assert.throws(() => p.setLimits({ maxHeaderBytes: 1.5 }), RangeError);
    assert.throws(() => p.setLimits({ maxHeaderBytes: Infinity }), RangeError);
    assert.throws(() => new RequestParser({ onRequest() {} }, { maxBodyBytes: Number.NaN }), RangeError);
    p.setLimits({ maxBodyBytes: Infinity });
    assert.equal(p.maxBodyBytes, Infinity);
  });
});

describe('keep-alive rules', () => {
  const cases: [string, string[], boolean][] = [
    ['HTTP/1.1', [], true],
    ['HTTP/1.1', ['Connection: close'], false],
    ['HTTP/1.1', ['Connection: Close'], false],
    ['HTTP/1.1', ['Connection: keep-alive, close'], false],
    ['HTTP/1.1', ['Connection: keep-alive'], true],
    ['HTTP/1.1', ['Connection: closed'], true],
    ['HTTP/1.0', [], false],
    ['HTTP/1.0', ['Connection: keep-alive'], true],
    ['HTTP/1.0', ['Connection: KEEP-ALIVE'], true],
    ['HTTP/1.0', ['Connection: keep-alive', 'Connection: close'], false],
    ['HTTP/1.0', ['Connection: keep-alive', 'Transfer-Encoding: chunked'], false],
  ];
  for (const [version, fields, expected] of cases) {
    test(`${version} ${fields.join(' / ') || '(no Connection)'} -> ${expected}`, () => {
      const body = fields.some((f) => f.startsWith('Transfer')) ? '0\r\n\r\n' : '';
      const events = parseString(head(`GET / ${version}`, 'Host: a', ...fields) + body);
      assert.equal(events[0]?.[0], 'request');
      assert.equal((events[0][1] as { keepAlive: boolean }).keepAlive, expected);
    });
  }
});

describe('upgrade', () => {
  const raw = head('GET /ws HTTP/1.1', 'Host: a', 'Connection: Upgrade', 'Upgrade: websocket');

  test('hands the rest over and stops', () => {
    let rest: Buffer | null = null;
    let seen: RequestHead | null = null;
    let requests = 0;
    const p = new RequestParser({
      onRequest: () => requests++,
      onUpgrade(h, r) {
        seen = h;
        rest = Buffer.from(r);
      },
    });
    const input = Buffer.from(raw + 'FRAME' + head('GET / HTTP/1.1', 'Host: a'));
    const n = p.execute(input);
    assert.equal(n, raw.length);
    assert.equal(requests, 0);
    assert.equal(seen!.upgrade, true);
    assert.equal(rest!.toString(), 'FRAME' + head('GET / HTTP/1.1', 'Host: a'));
    assert.equal(p.upgraded, true);
    assert.equal(p.execute(Buffer.from('more')), 0);
  });

  test('empty rest when the head ends the chunk', () => {
    const rests: number[] = [];
    const p = new RequestParser({ onRequest() {}, onUpgrade: (_h, r) => rests.push(r.length) });
    p.execute(Buffer.from(raw));
    assert.deepEqual(rests, [0]);
  });

  test('head split in pieces: the rest still comes from the last chunk', () => {
    const rests: string[] = [];
    const p = new RequestParser({ onRequest() {}, onUpgrade: (_h, r) => rests.push(r.toString()) });
    const all = Buffer.from(raw + 'xyz');
    p.execute(all.subarray(0, 10));
    p.execute(all.subarray(10, raw.length - 1));
    p.execute(all.subarray(raw.length - 1));
    assert.deepEqual(rests, ['xyz']);
  });

  test('without onUpgrade the upgrade is declined and the request is ordinary', () => {
    const events = parseChunks([Buffer.from(raw + head('GET /next HTTP/1.1', 'Host: a'))], {}, false);
    assert.deepEqual(
      events.map((e) => e[0]),
      ['request', 'complete', 'request', 'complete'],
    );
    assert.equal((events[0]![1] as { upgrade: boolean }).upgrade, true);
  });

  test('HTTP/1.0 Upgrade is ignored', () => {
    const events = parseString(head('GET / HTTP/1.0', 'Connection: upgrade', 'Upgrade: websocket'));
    assert.deepEqual(
      events.map((e) => e[0]),
      ['request', 'complete'],
    );
  });
});

describe('pause and one message at a time', () => {
  const three =
    head('GET /1 HTTP/1.1', 'Host: a') +
    head('POST /2 HTTP/1.1', 'Host: a', 'Content-Length: 3') +
    'abc' +
    head('GET /3 HTTP/1.1', 'Host: a');

  test('onMessageComplete returning false stops at the boundary', () => {
    const targets: string[] = [];
    const p = new RequestParser({ onRequest: (h) => targets.push(h.target), onMessageComplete: () => false });
    let buf = Buffer.from(three);
    const consumed: number[] = [];
    while (buf.length > 0) {
      const n = p.execute(buf);
      consumed.push(n);
      assert.equal(p.paused, true);
      assert.equal(p.execute(buf.subarray(n)), 0, 'a paused parser consumes nothing');
      p.resume();
      buf = buf.subarray(n);
    }
    assert.deepEqual(targets, ['/1', '/2', '/3']);
    assert.equal(consumed.length, 3);
    assert.equal(consumed[0], head('GET /1 HTTP/1.1', 'Host: a').length);
  });

  test('execute(buf, start) goes on from an offset: the same messages, offsets into the same buffer', () => {
    const targets: string[] = [];
    const bodies: string[] = [];
    const p = new RequestParser({
      onRequest: (h) => targets.push(h.target),
      onBody: (c) => bodies.push(c.toString()),
      onMessageComplete: () => false,
    });
    const buf = Buffer.from(three);
    const stops: number[] = [];
    let at = 0;
    while (at < buf.length) {
      const n = p.execute(buf, at);
      assert.ok(n > at, 'progress');
      assert.equal(p.execute(buf, n), n, 'a paused parser consumes nothing from the offset either');
      p.resume();
      stops.push(n);
      at = n;
    }
    assert.deepEqual(targets, ['/1', '/2', '/3']);
    assert.deepEqual(bodies, ['abc']);
    const first = head('GET /1 HTTP/1.1', 'Host: a').length;
    const second = first + head('POST /2 HTTP/1.1', 'Host: a', 'Content-Length: 3').length + 3;
    assert.deepEqual(stops, [first, second, buf.length]);
    assert.equal(p.execute(buf, buf.length), buf.length, 'start at the end: nothing to do');
  });

  test('execute(buf, start) refuses an offset outside the buffer', () => {
    const p = new RequestParser({ onRequest: () => {} });
    const buf = Buffer.from(head('GET / HTTP/1.1', 'Host: a'));
    for (const bad of [-1, buf.length + 1, Number.NaN, 1.5]) {
      assert.throws(() => p.execute(buf, bad), RangeError, String(bad));
    }
    assert.equal(p.execute(buf, 0), buf.length, 'the parser is still usable');
  });

  test('pause() inside onRequest takes effect after the message', () => {
    const events: string[] = [];
    let p: RequestParser;
    // eslint-disable-next-line prefer-const
    p = new RequestParser({
      onRequest(h) {
        events.push('req ' + h.target);
        p.pause();
      },
      onBody: (c) => events.push('body ' + c.toString()),
      onMessageComplete: () => void events.push('done'),
    });
    const buf = Buffer.from(three);
    const n1 = p.execute(buf);
    assert.deepEqual(events, ['req /1', 'done']);
    p.resume();
    const n2 = p.execute(buf.subarray(n1));
    assert.deepEqual(events, ['req /1', 'done', 'req /2', 'body abc', 'done']);
    p.resume();
    const n3 = p.execute(buf.subarray(n1 + n2));
    assert.equal(n1 + n2 + n3, buf.length);
    assert.equal(events.length, 7);
  });

  test('a paused parser in the middle of a body finishes the message first', () => {
    const events: string[] = [];
    const p = new RequestParser({
      onRequest: (h) => events.push(h.target),
      onBody: (c) => events.push(c.toString()),
      onMessageComplete: () => void events.push('done'),
    });
    const first = head('POST /x HTTP/1.1', 'Host: a', 'Content-Length: 4') + 'ab';
    p.execute(Buffer.from(first));
    p.pause();
    const n = p.execute(Buffer.from('cd' + head('GET /y HTTP/1.1', 'Host: a')));
    assert.deepEqual(events, ['/x', 'ab', 'cd', 'done']);
    assert.equal(n, 2);
  });
});

describe('parser state', () => {
  test('after an error the parser refuses input and reports once', () => {
    const errors: HttpParseError[] = [];
    let requests = 0;
    const p = new RequestParser({ onRequest: () => requests++, onError: (e) => errors.push(e) });
    p.execute(Buffer.from('BAD REQUEST\r\n\r\n'));
    assert.equal(p.execute(Buffer.from(head('GET / HTTP/1.1', 'Host: a'))), 0);
    p.finish();
    assert.equal(errors.length, 1);
    assert.equal(requests, 0);
    assert.equal(p.error, errors[0]);
    assert.ok(errors[0] instanceof HttpParseError);
    assert.equal(errors[0].name, 'HttpParseError');
  });

  test('reset() makes the parser usable again', () => {
    const targets: string[] = [];
    const p = new RequestParser({ onRequest: (h) => targets.push(h.target) });
    p.execute(Buffer.from('NOT HTTP'));
    p.execute(Buffer.from('\r\n'));
    assert.ok(p.error);
    p.reset();
    assert.equal(p.error, null);
    assert.equal(p.idle, true);
    p.execute(Buffer.from(head('GET /again HTTP/1.1', 'Host: a')));
    assert.deepEqual(targets, ['/again']);
  });

  test('idle between messages only', () => {
    const p = new RequestParser({ onRequest() {} });
    assert.equal(p.idle, true);
    p.execute(Buffer.from('GET / HTTP/1.1\r\n'));
    assert.equal(p.idle, false);
    p.execute(Buffer.from('Host: a\r\n\r\n'));
    assert.equal(p.idle, true);
  });

  test('execute() from a callback throws', () => {
    const p: RequestParser = new RequestParser({
      onRequest() {
        p.execute(Buffer.from('x'));
      },
    });
    assert.throws(() => p.execute(Buffer.from(head('GET / HTTP/1.1', 'Host: a'))), /inside a parser callback/);
  });

  test('an empty chunk is a no-op', () => {
    const p = new RequestParser({ onRequest() {} });
    assert.equal(p.execute(Buffer.alloc(0)), 0);
    assert.equal(p.idle, true);
  });

  test('body chunks are views of the input', () => {
    const input = Buffer.from(head('POST / HTTP/1.1', 'Host: a', 'Content-Length: 5') + 'hello');
    let view: Buffer | null = null;
    new RequestParser({ onRequest() {}, onBody: (c) => (view = c) }).execute(input);
    assert.equal(view!.buffer, input.buffer);
    assert.equal(view!.byteOffset, input.byteOffset + input.length - 5);
  });

  test('finish() between messages is silent, mid-message an error', () => {
    const errors: string[] = [];
    const p = new RequestParser({ onRequest() {}, onError: (e) => errors.push(e.code) });
    p.execute(Buffer.from(head('GET / HTTP/1.1', 'Host: a')));
    p.finish();
    assert.deepEqual(errors, []);
    p.execute(Buffer.from('GET / HT'));
    p.finish();
    assert.deepEqual(errors, ['ERR_HTTP_INCOMPLETE']);
  });
});

describe('RequestHead accessors', () => {
  const raw = head(
    'GET /x HTTP/1.1',
    'Host: a',
    'Cookie: a=1',
    'X-Mixed: one',
    'cookie: b=2',
    'Content-Type: text/plain',
  );
  const get = (): RequestHead => {
    let h: RequestHead | null = null;
    new RequestParser({ onRequest: (x) => (h = x) }).execute(Buffer.from(raw));
    return h!;
  };

  test('getHeader is case-insensitive and returns the first value', () => {
    const h = get();
    assert.equal(h.getHeader('cookie'), 'a=1');
    assert.equal(h.getHeader('CONTENT-TYPE'), 'text/plain');
    assert.equal(h.getHeader('missing'), null);
    assert.equal(h.getHeader('X-Mixe'), null);
  });

  test('getHeaders returns all values in order; hasHeader', () => {
    const h = get();
    assert.deepEqual(h.getHeaders('Cookie'), ['a=1', 'b=2']);
    assert.deepEqual(h.getHeaders('nope'), []);
    assert.equal(h.hasHeader('x-mixed'), true);
    assert.equal(h.hasHeader('x-mixed2'), false);
  });

  test('headers keep wire order and names as sent; built once', () => {
    const h = get();
    assert.deepEqual(h.headers, [
      ['Host', 'a'],
      ['Cookie', 'a=1'],
      ['X-Mixed', 'one'],
      ['cookie', 'b=2'],
      ['Content-Type', 'text/plain'],
    ]);
    assert.equal(h.headers, h.headers);
    assert.equal(h.headerCount, 5);
  });
});

describe('methods', () => {
  test('CMD bits match libevent', () => {
    assert.deepEqual(
      [CMD_GET, CMD_POST, CMD_HEAD, CMD_PUT, CMD_DELETE, CMD_OPTIONS, CMD_TRACE, CMD_CONNECT, CMD_PATCH],
      [1, 2, 4, 8, 16, 32, 64, 128, 256],
    );
    assert.equal(HTTP_METHODS.GET, CMD_GET);
    assert.equal(HTTP_METHODS.PATCH, CMD_PATCH);
    const bits = Object.values(HTTP_METHODS);
    assert.equal(new Set(bits).size, bits.length);
    assert.ok(Object.isFrozen(HTTP_METHODS));
  });

  test('every known method parses with its bit', () => {
    for (const [name, bit] of Object.entries(HTTP_METHODS)) {
      const target = name === 'CONNECT' ? 'a:1' : name === 'OPTIONS' ? '*' : '/';
      const events = parseString(head(`${name} ${target} HTTP/1.1`, 'Host: a'));
      assert.equal(events[0]?.[0], 'request', name);
      assert.equal((events[0][1] as { cmd: number }).cmd, bit, name);
    }
  });

  test('prefixes and extensions of known methods are unknown', () => {
    for (const m of ['GE', 'GETS', 'POSTX', 'PROPFINDX', 'CONNEC', 'M']) {
      assert.deepEqual(
        outcome(parseString(head(`${m} / HTTP/1.1`, 'Host: a'))),
        { ok: 0, error: 501, code: 'ERR_HTTP_UNSUPPORTED_METHOD' },
        m,
      );
    }
  });
});

describe('statusText', () => {
  test("libevent's RFC 2616 table", () => {
    const table: [number, string][] = [
      [100, 'Continue'],
      [101, 'Switching Protocols'],
      [200, 'OK'],
      [201, 'Created'],
      [202, 'Accepted'],
      [203, 'Non-Authoritative Information'],
      [204, 'No Content'],
      [205, 'Reset Content'],
      [206, 'Partial Content'],
      [300, 'Multiple Choices'],
      [301, 'Moved Permanently'],
      [302, 'Found'],
      [303, 'See Other'],
      [304, 'Not Modified'],
      [305, 'Use Proxy'],
      [306, 'Temporary Redirect'],
      [400, 'Bad Request'],
      [401, 'Unauthorized'],
      [402, 'Payment Required'],
      [403, 'Forbidden'],
      [404, 'Not Found'],
      [405, 'Method Not Allowed'],
      [406, 'Not Acceptable'],
      [407, 'Proxy Authentication Required'],
      [408, 'Request Time-out'],
      [409, 'Conflict'],
      [410, 'Gone'],
      [411, 'Length Required'],
      [412, 'Precondition Failed'],
      [413, 'Request Entity Too Large'],
      [414, 'Request-URI Too Large'],
      [415, 'Unsupported Media Type'],
      [416, 'Requested range not satisfiable'],
      [417, 'Expectation Failed'],
      [500, 'Internal Server Error'],
      [501, 'Not Implemented'],
      [502, 'Bad Gateway'],
      [503, 'Service Unavailable'],
      [504, 'Gateway Time-out'],
      [505, 'HTTP Version not supported'],
    ];
    for (const [code, text] of table) assert.equal(statusText(code), text, String(code));
  });

  test('codes past a class table get the class name', () => {
    assert.equal(statusText(102), 'Informational');
    assert.equal(statusText(199), 'Informational');
    assert.equal(statusText(299), 'Success');
    assert.equal(statusText(307), 'Redirection');
    assert.equal(statusText(308), 'Redirection');
    assert.equal(statusText(418), 'Client Error');
    assert.equal(statusText(431), 'Client Error');
    assert.equal(statusText(506), 'Server Error');
    assert.equal(statusText(599), 'Server Error');
  });

  test('codes outside 100-599', () => {
    for (const c of [0, 99, 600, 999, -1, -100, 12.5, Number.NaN])
      assert.equal(statusText(c), 'Unknown Status Class', String(c));
  });
});

describe('httpDate', () => {
  test('IMF-fixdate', () => {
    assert.equal(httpDate(784111777000), 'Sun, 06 Nov 1994 08:49:37 GMT');
    assert.equal(httpDate(784111777999), 'Sun, 06 Nov 1994 08:49:37 GMT');
    assert.equal(httpDate(784111778000), 'Sun, 06 Nov 1994 08:49:38 GMT');
    assert.equal(httpDate(0), 'Thu, 01 Jan 1970 00:00:00 GMT');
    assert.equal(httpDate(Date.UTC(2026, 10, 21, 4, 26, 55)), 'Sat, 21 Nov 2026 04:26:55 GMT');
  });

  test('defaults to now; cached per second', () => {
    const now = Date.now();
    const a = httpDate();
    assert.ok(Math.abs(Date.parse(a) - now) <= 2000, a);
    assert.equal(httpDate(1e12 + 1), httpDate(1e12 + 999));
  });

  test('invalid times throw', () => {
    assert.throws(() => httpDate(Number.NaN), RangeError);
    assert.throws(() => httpDate(Infinity), RangeError);
    assert.throws(() => httpDate(8.64e15 + 1000), RangeError);
  });
});

describe('errors', () => {
  test('registry: every code has a status and a description', () => {
    for (const [code, def] of Object.entries(HTTP_ERROR_CODES)) {
      assert.match(code, /^ERR_HTTP_[A-Z_]+$/);
      assert.ok([400, 413, 414, 417, 431, 501, 502, 505].includes(def.status), code);
      assert.ok(def.description.length > 10, code);
    }
  });

  test('HttpParseError carries code, status, name and cause', () => {
    const cause = new Error('inner');
    const e = new HttpParseError('ERR_HTTP_URI_TOO_LONG', 'too long', { cause });
    assert.equal(e.code, 'ERR_HTTP_URI_TOO_LONG');
    assert.equal(e.status, 414);
    assert.equal(e.name, 'HttpParseError');
    assert.equal(e.cause, cause);
    assert.equal(e.message, 'too long');
    assert.ok(e instanceof Error);
    assert.match(String(e), /^HttpParseError: too long/);
    assert.equal(new HttpParseError('ERR_HTTP_BAD_HOST', 'x', { status: 421 }).status, 421);
    assert.equal('cause' in new HttpParseError('ERR_HTTP_BAD_HOST', 'x'), false);
    const c = createHttpError('ERR_HTTP_EXPECTATION', 'nope');
    assert.ok(c instanceof HttpParseError);
    assert.equal(c.status, 417);
  });

  test('every code the corpus expects is registered', () => {
    const used = new Set<HttpErrorCode>(INVALID.map((c) => c.code));
    for (const code of used) assert.ok(code in HTTP_ERROR_CODES, code);
  });
});

// ---------------------------------------------------------------------------
// ResponseParser
// ---------------------------------------------------------------------------

type RespEvent =
  | ['response', number, string, boolean]
  | ['info', number]
  | ['body', string]
  | ['complete', HeaderPair[] | null]
  | ['upgrade', number, string]
  | ['error', number, string];

function parseResponses(chunks: string[], methods: string[] = [], finish = true, limits = {}): RespEvent[] {
  const events: RespEvent[] = [];
  const p = new ResponseParser(
    {
      onResponse: (h: ResponseHead) => events.push(['response', h.statusCode, h.statusMessage, h.keepAlive]),
      onInformational: (h) => events.push(['info', h.statusCode]),
      onBody(c) {
        const last = events[events.length - 1];
        if (last?.[0] === 'body') last[1] += c.toString('latin1');
        else events.push(['body', c.toString('latin1')]);
      },
      onMessageComplete: (t) => void events.push(['complete', t]),
      onUpgrade: (h, rest) => events.push(['upgrade', h.statusCode, rest.toString('latin1')]),
      onError: (e) => events.push(['error', e.status, e.code]),
    },
    limits,
  );
  for (const m of methods) p.addRequest(m);
  for (const c of chunks) p.execute(Buffer.from(c, 'latin1'));
  if (finish) p.finish();
  return events;
}

describe('ResponseParser', () => {
  test('Content-Length body', () => {
    assert.deepEqual(parseResponses(['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello']), [
      ['response', 200, 'OK', true],
      ['body', 'hello'],
      ['complete', null],
    ]);
  });

  test('chunked body with trailers, split anywhere', () => {
    const raw = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n';
    const expected: RespEvent[] = [
      ['response', 200, 'OK', true],
      ['body', 'abcde'],
      ['complete', [['X-T', '1']]],
    ];
    assert.deepEqual(parseResponses([raw]), expected);
    for (let i = 1; i < raw.length; i++)
      assert.deepEqual(parseResponses([raw.slice(0, i), raw.slice(i)]), expected, String(i));
  });

  test('read until close', () => {
    assert.deepEqual(parseResponses(['HTTP/1.0 200 OK\r\n\r\nsome ', 'data']), [
      ['response', 200, 'OK', false],
      ['body', 'some data'],
      ['complete', null],
    ]);
    assert.deepEqual(parseResponses(['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzzz']).slice(0, 2), [
      ['response', 200, 'OK', false],
      ['body', 'zzz'],
    ]);
  });

  test('1xx interim responses are skipped', () => {
    assert.deepEqual(
      parseResponses(
        [
          'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n',
        ],
        ['POST'],
      ),
      [
        ['info', 100],
        ['info', 103],
        ['response', 201, 'Created', true],
        ['complete', null],
      ],
    );
  });

  test('101 Switching Protocols hands the rest over', () => {
    assert.deepEqual(
      parseResponses(['HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x00']),
      [['upgrade', 101, '\x81\x00']],
    );
  });

  test('2xx to CONNECT is a tunnel; an error status to CONNECT has a body', () => {
    assert.deepEqual(parseResponses(['HTTP/1.1 200 Connection Established\r\n\r\nTLS'], ['CONNECT']), [
      ['upgrade', 200, 'TLS'],
    ]);
    assert.deepEqual(parseResponses(['HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\nno'], ['CONNECT']), [
      ['response', 403, 'Forbidden', true],
      ['body', 'no'],
      ['complete', null],
    ]);
  });

  test('no body for HEAD, 204 and 304, whatever the headers say', () => {
    const raw =
      'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n' +
      'HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n' +
      'HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n' +
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
    assert.deepEqual(parseResponses([raw], ['HEAD', 'GET', 'GET', 'GET']), [
      ['response', 200, 'OK', true],
      ['complete', null],
      ['response', 204, 'No Content', true],
      ['complete', null],
      ['response', 304, 'Not Modified', true],
      ['complete', null],
      ['response', 200, 'OK', true],
      ['body', 'ok'],
      ['complete', null],
    ]);
  });

  test('status line variants', () => {
    assert.deepEqual(parseResponses(['HTTP/1.1 299\r\nContent-Length: 0\r\n\r\n'])[0], ['response', 299, '', true]);
    assert.deepEqual(parseResponses(['HTTP/1.1 299 \r\nContent-Length: 0\r\n\r\n'])[0], ['response', 299, '', true]);
    assert.deepEqual(parseResponses(['HTTP/1.1 404 Not \xc3\xa9 Found\r\nContent-Length: 0\r\n\r\n'])[0], [
      'response',
      404,
      'Not \xc3\xa9 Found',
      true,
    ]);
    assert.deepEqual(parseResponses(['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'])[0], [
      'response',
      200,
      'OK',
      false,
    ]);
    assert.deepEqual(parseResponses(['HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n'])[0], [
      'response',
      200,
      'OK',
      true,
    ]);
  });

  test('invalid responses', () => {
    const cases: [string, number, string][] = [
      ['HTTP/1.1 20 OK\r\n\r\n', 502, 'ERR_HTTP_BAD_STATUS_LINE'],
      ['HTTP/1.1 2000 OK\r\n\r\n', 502, 'ERR_HTTP_BAD_STATUS_LINE'],
      ['HTTP/1.1 600 Nope\r\n\r\n', 502, 'ERR_HTTP_BAD_STATUS_LINE'],
      ['HTTP/1.1 099 Nope\r\n\r\n', 502, 'ERR_HTTP_BAD_STATUS_LINE'],
      ['HTTP/1.1  200 OK\r\n\r\n', 502, 'ERR_HTTP_BAD_STATUS_LINE'],
      ['http/1.1 200 OK\r\n\r\n', 502, 'ERR_HTTP_BAD_STATUS_LINE'],
      ['HTTP/2.0 200 OK\r\n\r\n', 505, 'ERR_HTTP_UNSUPPORTED_VERSION'],
      ['HTTP/1.1 200 O\x01K\r\n\r\n', 502, 'ERR_HTTP_BAD_STATUS_LINE'],
      ['HTTP/1.1 200 OK\n\n', 400, 'ERR_HTTP_BAD_LINE_ENDING'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', 400, 'ERR_HTTP_SMUGGLING'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', 400, 'ERR_HTTP_SMUGGLING'],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n', 400, 'ERR_HTTP_BAD_TRANSFER_ENCODING'],
      ['HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n', 400, 'ERR_HTTP_BAD_HEADER'],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400, 'ERR_HTTP_BAD_CHUNK'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc', 400, 'ERR_HTTP_INCOMPLETE'],
    ];
    for (const [raw, status, code] of cases) {
      const events = parseResponses([raw]);
      assert.deepEqual(events[events.length - 1], ['error', status, code], JSON.stringify(raw));
    }
  });

  test('limits', () => {
    const raw = 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc';
    assert.deepEqual(parseResponses([raw], [], true, { maxBodyBytes: 2 }), [['error', 413, 'ERR_HTTP_BODY_TOO_LARGE']]);
    assert.deepEqual(parseResponses([raw], [], true, { maxHeaderBytes: 20 }), [
      ['error', 431, 'ERR_HTTP_HEADER_TOO_LARGE'],
    ]);
    assert.deepEqual(parseResponses([raw], [], true, { maxHeaderCount: 0 }), [
      ['error', 431, 'ERR_HTTP_TOO_MANY_HEADERS'],
    ]);
  });

  test('pipelined responses follow the request queue', () => {
    const raw = 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc';
    assert.deepEqual(parseResponses([raw], ['HEAD', 'GET']), [
      ['response', 200, 'OK', true],
      ['complete', null],
      ['response', 200, 'OK', true],
      ['body', 'abc'],
      ['complete', null],
    ]);
  });

  test('reset() forgets pending requests', () => {
    const events: number[] = [];
    const p = new ResponseParser({ onResponse: (h) => events.push(h.statusCode), onBody: () => events.push(-1) });
    p.addRequest('HEAD');
    p.reset();
    p.execute(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx'));
    assert.deepEqual(events, [200, -1]);
  });
});

test('ResponseParser: maxBodyBytes also limits a body read until the close', () => {
  let err: HttpParseError | null = null;
  let got = 0;
  const p = new ResponseParser(
    { onResponse() {}, onBody: (b) => (got += b.length), onError: (e) => (err = e) },
    { maxBodyBytes: 5 },
  );
  p.addRequest('GET');
  p.execute(Buffer.from('HTTP/1.1 200 OK\r\n\r\nhello world', 'latin1'));
  assert.equal(got, 0);
  assert.equal((err as HttpParseError | null)?.status, 413);
  const ok = new ResponseParser({ onResponse() {}, onBody: (b) => (got += b.length) }, { maxBodyBytes: 5 });
  ok.addRequest('GET');
  ok.execute(Buffer.from('HTTP/1.1 200 OK\r\n\r\nhel', 'latin1'));
  ok.execute(Buffer.from('lo', 'latin1'));
  ok.finish();
  assert.equal(got, 5);
});

describe('a repeated head (reused without parsing it again)', () => {
  const one = 'GET /a?b=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n';

  function feed(p: RequestParser, input: string): number {
    return p.execute(Buffer.from(input, 'latin1'));
  }

  test('the same bytes give an equal head, a new object each time, with its own header list', () => {
    const heads: RequestHead[] = [];
    const p = new RequestParser({ onRequest: (h) => void heads.push(h) });
    feed(p, one.repeat(3));
    feed(p, one);
    assert.equal(heads.length, 4);
    for (const h of heads) {
      assert.equal(h.method, 'GET');
      assert.equal(h.target, '/a?b=1');
      assert.equal(h.host, 'example.com');
      assert.deepEqual(h.headers, [
        ['Host', 'example.com'],
        ['Accept', '*/*'],
      ]);
    }
    assert.notEqual(heads[0], heads[1]);
    heads[0]!.headers.push(['X-Added', '1']);
    assert.equal(heads[1]!.headers.length, 2, 'a head the application changes does not leak into the next one');
  });

  test('handlers that only read their heads (sharesHeads) get the same object again', () => {
    const heads: RequestHead[] = [];
    const p = new RequestParser({ onRequest: (h) => void heads.push(h), sharesHeads: true });
    feed(p, one.repeat(3));
    feed(p, 'GET /other HTTP/1.1\r\nHost: example.com\r\n\r\n');
    assert.equal(heads.length, 4);
    assert.equal(heads[1], heads[0]);
    assert.equal(heads[2], heads[0]);
    assert.notEqual(heads[3], heads[0], 'different bytes: a new head');
    assert.equal(heads[3]!.target, '/other');
  });

  test('a head that differs in one byte is parsed (and checked) again', () => {
    const heads: RequestHead[] = [];
    const errors: string[] = [];
    const p = new RequestParser({ onRequest: (h) => void heads.push(h), onError: (e) => void errors.push(e.code) });
    feed(p, one);
    feed(p, one.replace('/a?b=1', '/a?b=2'));
    assert.deepEqual(
      heads.map((h) => h.target),
      ['/a?b=1', '/a?b=2'],
    );
    feed(p, one.replace('example.com', 'exa mple.com'));
    assert.deepEqual(errors, ['ERR_HTTP_BAD_HOST']);
  });

  test('once a head repeats (compared by words from then on), a change in any one byte is seen, alone or in a batch', () => {
    // 59 bytes (14 words, two at a time) and 63 (15: the last one alone), each with 3 bytes after its words
    for (const pad of ['0123456789', '01234567890123']) checkEveryByte(pad);
  });

  function checkEveryByte(pad: string): void {
    const base = `GET /abc HTTP/1.1\r\nHost: example.com\r\nX-Pad: ${pad}\r\n\r\n`;
    // every byte of the target, the Host value, the field name after 'X-' and its value, changed to another valid one
    const variants: string[] = [];
    for (const part of ['abc', 'example.com', 'Pad', pad]) {
      const at = base.indexOf(part);
      for (let i = at; i < at + part.length; i++) {
        const c = base.charCodeAt(i);
        const d = c === 0x2e ? 0x2d : c === 0x7a || c === 0x39 ? c - 1 : c + 1; // '.' -> '-'
        variants.push(base.slice(0, i) + String.fromCharCode(d) + base.slice(i + 1));
      }
    }
    assert.equal(variants.length, 17 + pad.length);
    for (const batch of [false, true]) {
      const seen: string[] = [];
      const p = new RequestParser({
        onRequest: (h) => void seen.push(h.raw),
        onError: (e) => assert.fail(`${e.code} for ${JSON.stringify(seen.at(-1))}`),
        sharesHeads: true,
      });
      for (const v of variants) {
        // A variant becomes the memo: base twice makes base the memo again, then its words.
        feed(p, base);
        feed(p, base);
        feed(p, batch ? base + v + base : v);
      }
      const expected = variants.flatMap((v) => (batch ? [base, base, base, v, base] : [base, base, v]));
      assert.deepEqual(
        seen,
        expected.map((h) => h.slice(0, -2)).map((h) => h + '\r\n'),
        `batch ${batch}, ${base.length} bytes`,
      );
    }
  }

  test('tighter limits apply to a head seen before', () => {
    for (const limits of [{ maxHeaderBytes: 40 }, { maxHeaderCount: 1 }, { maxRequestLineBytes: 10 }] as const) {
      const heads: RequestHead[] = [];
      const errors: string[] = [];
      const p = new RequestParser({ onRequest: (h) => void heads.push(h), onError: (e) => void errors.push(e.code) });
      feed(p, one);
      p.setLimits(limits);
      feed(p, one);
      assert.equal(heads.length, 1, JSON.stringify(limits));
      assert.equal(errors.length, 1, JSON.stringify(limits));
    }
  });

  test('heads with a body, an Expect or an upgrade are always parsed; their bodies stay bodies', () => {
    const post = 'POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc';
    const heads: RequestHead[] = [];
    const bodies: string[] = [];
    const p = new RequestParser({
      onRequest: (h) => void heads.push(h),
      onBody: (b) => void bodies.push(b.toString('latin1')),
    });
    feed(p, post + post + one + one);
    assert.deepEqual(
      heads.map((h) => `${h.method} ${h.target} ${String(h.contentLength)}`),
      ['POST /p 3', 'POST /p 3', 'GET /a?b=1 null', 'GET /a?b=1 null'],
    );
    assert.deepEqual(bodies, ['abc', 'abc']);
  });
});

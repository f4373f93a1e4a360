/**
 * bench/idle.ts: the reply reader the idle-connection client relies on
 * (a reply is complete only with its whole body; chunked replies end at the
 * last chunk; `Connection: close` is noticed).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completeReply } from '../../bench/idle.js';

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n';

test('Content-Length: complete only with the whole body, length covers head and body', () => {
  const full = `${HEAD}Content-Length: 15\r\n\r\n{"status":"ok"}`;
  assert.equal(completeReply(full.slice(0, 20)), null);
  assert.equal(completeReply(full.slice(0, -1)), null);
  assert.deepEqual(completeReply(full), { status: 200, length: full.length, close: false });
  assert.deepEqual(completeReply(`${full}HTTP/1.1`), { status: 200, length: full.length, close: false });
});

test('chunked: complete at the last chunk, also for an empty body', () => {
  const head = `${HEAD}Transfer-Encoding: chunked\r\n\r\n`;
  const body = '5\r\nhello\r\n0\r\n\r\n';
  assert.equal(completeReply(`${head}5\r\nhello\r\n`), null);
  assert.deepEqual(completeReply(head + body), { status: 200, length: (head + body).length, close: false });
  assert.deepEqual(completeReply(`${head}0\r\n\r\n`), { status: 200, length: head.length + 5, close: false });
});

test('status and Connection: close', () => {
  const reply = 'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';
  assert.deepEqual(completeReply(reply), { status: 503, length: reply.length, close: true });
});

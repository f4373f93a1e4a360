/**
 * The API, tested in process: `api.inject()` runs each request through
 * routing, versioning, pagination and rendering as a real one would, with
 * no server and no port. `npm test` runs this file.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { InferOutput } from 'eventide/rest';
import { createApp, type App, type BookSerializer } from '../src/app.js';

/** A book as the API sends it, inferred from the serializer's fields. */
type BookOut = InferOutput<typeof BookSerializer>;
interface Page {
  next: string | null;
  previous: string | null;
  results: BookOut[];
}

let app: App;
before(async () => {
  app = await createApp(':memory:'); // a fresh, seeded database per run
});
after(async () => {
  await app.close();
});

test('the list: the first five books, then the next page', async () => {
  const first = await app.api.inject('/v1/books/');
  assert.equal(first.status, 200);
  assert.equal(first.headers['content-type'], 'application/json');
  const page = first.json<Page>();
  assert.deepEqual(
    page.results.map((b) => b.id),
    [1, 2, 3, 4, 5],
  );
  assert.equal(page.previous, null);
  assert.ok(page.next !== null, 'a next page');

  const second = await app.api.inject(page.next);
  const next = second.json<Page>();
  assert.deepEqual(
    next.results.map((b) => b.id),
    [6, 7, 8, 9, 10],
  );
  assert.ok(next.previous !== null, 'a previous page');
});

test('a book', async () => {
  const res = await app.api.inject('/v1/books/3/');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), {
    url: 'http://localhost/v1/books/3/',
    id: 3,
    title: 'Moby-Dick',
    author: 'Herman Melville',
    year: 1851,
  });
});

test('a book that does not exist, and a version that does not: 404', async () => {
  const missing = await app.api.inject('/v1/books/999/');
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.json(), { detail: 'Not found.' });
  const version = await app.api.inject('/v9/books/');
  assert.equal(version.status, 404);
});

test('the OpenAPI document and the API reference page', async () => {
  const doc = await app.api.inject('/openapi/v1.json');
  assert.equal(doc.status, 200);
  const openapi = doc.json<{ openapi: string; paths: Record<string, unknown> }>();
  assert.match(openapi.openapi, /^3\./);
  assert.ok('/v1/books/' in openapi.paths);
  const page = await app.api.inject('/docs/');
  assert.equal(page.status, 200);
  assert.match(page.headers['content-type'] ?? '', /^text\/html/);
});

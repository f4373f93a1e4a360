/**
 * Serves the API: `npm start`. The address, port and database come from
 * the environment (HOST, default 127.0.0.1; PORT, default 8000; DATABASE,
 * default books.sqlite3). Stops gracefully on SIGINT (Ctrl-C) and SIGTERM.
 */
import { EventBase, getLastError } from 'eventide/event';
import { EventHttp } from 'eventide/http';
import { createApp } from './app.js';

const host = process.env['HOST'] ?? '127.0.0.1';
const port = Number(process.env['PORT'] ?? 8000);
const app = await createApp(process.env['DATABASE'] ?? 'books.sqlite3', [
  'localhost',
  '127.0.0.1',
  '[::1]',
  ...(process.env['ALLOWED_HOSTS']?.split(',') ?? []),
]);

const base = new EventBase();
const http = new EventHttp(base);
// bind() returns false when the address cannot be used (a port already taken, say): say so and exit 1.
if (!http.bind(host, port)) {
  console.error(`Cannot listen on ${host}:${port}: ${getLastError()?.message ?? 'unknown error'}`);
  console.error('Is another server using the port? Set PORT to use another one.');
  await app.close();
  process.exit(1);
}
app.api.serve(http);
const origin = `http://${host.includes(':') ? `[${host}]` : host}:${http.getBoundPorts()[0]}`;
console.log(`Listening on ${origin}/ (the books: ${origin}/v1/books/, the API reference: ${origin}/docs/)`);

const stop = (): void => {
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  // Answers what has arrived, then closes every connection (within 5 s); dispatch() then returns.
  void http.shutdown(5);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
await base.dispatch();
await app.close();

/**
 * The peer of bench/echo.ts: a node:net echo server, `socket.pipe(socket)`,
 * on 127.0.0.1. Prints `Listening on 127.0.0.1:PORT` on stderr; stops on
 * SIGTERM or SIGINT.
 *
 *   node .tmp/bench-dist/bench/peers/echo-net.js PORT
 *   node --import tsx bench/peers/echo-net.ts PORT   (bench/echo.ts --tsx)
 *
 * bench/echo.ts runs it from the tsc build it makes, as it runs eventide's
 * example: neither server process carries tsx's module loader thread.
 */
import { createServer } from 'node:net';

const HOST = '127.0.0.1';
const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write('usage: echo-net PORT\n');
  process.exit(2);
}
const server = createServer((s) => {
  s.on('error', () => s.destroy());
  s.pipe(s);
});
server.listen(port, HOST, () => process.stderr.write(`Listening on ${HOST}:${port}\n`));
server.on('error', (e) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
});
const stop = (): void => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

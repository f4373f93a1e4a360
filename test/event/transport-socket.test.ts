/**
 * The socket transport alone, driven through the transport contract over
 * real TCP sockets on 127.0.0.1 (no EventBase, no EventBufferEvent).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { EventBuffer } from '../../src/event/buffer.js';
import { ReadLanding } from '../../src/event/socket-reads.js';
import { connectTarget, SocketTransport } from '../../src/event/transport-socket.js';
import { socketPair, sleep, waitFor } from '../support/net.js';
import { RecordingHost } from './transport-host.js';

/** A server on 127.0.0.1:0 handing its first connection to `onSocket`. */
async function server(onSocket: (s: Socket) => void): Promise<{ port: number; srv: Server }> {
  const srv = createServer(onSocket);
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  return { port: (srv.address() as { port: number }).port, srv };
}

function bytes(text: string): EventBuffer {
  const b = new EventBuffer();
  b.add(text);
  return b;
}

for (const lent of [false, true]) {
  /** The transport under test: reads as a stream, or lent to a receive buffer (socket-reads.ts). */
  const make = (h: RecordingHost): SocketTransport => new SocketTransport(h, lent ? new ReadLanding() : null);
  describe(lent ? 'socket transport, lent reads' : 'socket transport, stream reads', () => {
    test('connect(): connected, then data both ways once reading; write() sends and reports completion', async () => {
      let peer: Socket | undefined;
      const { port, srv } = await server((s) => {
        peer = s;
        s.write('hello from the server');
      });
      const host = new RecordingHost();
      const t = make(host);
      t.connect({ host: '127.0.0.1', port }, undefined);
      await host.until('connected');
      assert.equal(host.events[0], 'connected');
      assert.ok(t.socket !== null);
      assert.equal(t.reading, false);
      await sleep(20);
      assert.equal(host.saw('data'), false, 'reading starts paused');
      t.setReading(true);
      assert.equal(t.reading, true);
      await waitFor(() => host.text() === 'hello from the server');
      assert.equal(host.lentReads > 0, lent, 'a socket the transport connects is read through the receive buffer');

      let done = false;
      const out = bytes('ping ');
      out.add('pong');
      assert.equal(
        t.write(out, () => (done = true)),
        'sent',
      );
      assert.equal(out.length, 0);
      await waitFor(() => peer !== undefined);
      const [got] = (await once(peer as Socket, 'data')) as [Buffer];
      assert.equal(got.toString(), 'ping pong');
      await waitFor(() => done);
      assert.equal(t.unsent, 0);

      t.release(null, true);
      await once(peer as Socket, 'end');
      peer?.destroy();
      srv.close();
    });

    test('adopt(): a connected socket is usable at once; setReading(false) stops data events', async () => {
      const { client, server: other, close } = await socketPair();
      const host = new RecordingHost();
      const t = make(host);
      t.adopt(client);
      assert.deepEqual(host.events, [], 'nothing to report for a connected socket');
      assert.equal(t.socket, client);
      t.setReading(true);
      other.write('one');
      await waitFor(() => host.text() === 'one');
      assert.equal(host.lentReads > 0, lent, 'an adopted plain socket is read through the receive buffer');
      assert.equal(client.listenerCount('data'), lent ? 0 : 1);
      t.setReading(false);
      other.write('two');
      await sleep(30);
      assert.equal(host.text(), 'one');
      t.setReading(true);
      await waitFor(() => host.text() === 'onetwo');
      t.destroy();
      close();
    });

    test('end of file, then closed, when the peer ends and the socket is destroyed', async () => {
      const { client, server: other, close } = await socketPair();
      const host = new RecordingHost();
      const t = make(host);
      t.adopt(client);
      t.setReading(true);
      other.end('bye');
      await host.until('end');
      assert.equal(host.text(), 'bye');
      client.destroy();
      await host.until('closed');
      assert.deepEqual(
        host.events.filter((e) => e !== 'data'),
        ['end', 'closed'],
      );
      close();
    });

    test('error(): a refused connection is reported with its errno', async () => {
      const { port, srv } = await server(() => {});
      srv.close();
      await once(srv, 'close');
      const host = new RecordingHost();
      const t = make(host);
      t.connect({ host: '127.0.0.1', port }, undefined);
      await host.until('error');
      assert.equal((host.errors[0] as NodeJS.ErrnoException).code, 'ECONNREFUSED');
      assert.equal(host.saw('connected'), false);
    });

    test('a congested socket holds the bytes and reports drained() once the peer reads', async () => {
      const { client, server: other, close } = await socketPair();
      other.pause();
      const host = new RecordingHost();
      const t = make(host);
      t.adopt(client);
      const big = Buffer.alloc(4 << 20, 0x61);
      const out = new EventBuffer();
      out.add(big);
      assert.equal(t.write(out, undefined), 'sent');
      assert.ok(t.congested, 'more than the socket buffers');
      assert.ok(t.unsent > 0);
      out.add('tail');
      assert.equal(t.write(out, undefined), 'held');
      assert.equal(out.length, 4, 'held bytes stay in the buffer');
      let received = 0;
      other.on('data', (c: Buffer) => (received += c.length));
      other.resume();
      await host.until('drained');
      assert.equal(t.congested, false);
      assert.equal(t.write(out, undefined), 'sent');
      await waitFor(() => received === big.length + 4);
      t.destroy();
      close();
    });

    test('release(rest, true) sends what is left, then ends; destroy() closes at once', async () => {
      const { client, server: other, close } = await socketPair();
      const host = new RecordingHost();
      const t = make(host);
      t.adopt(client);
      const chunks: Buffer[] = [];
      other.on('data', (c: Buffer) => chunks.push(c));
      t.release(bytes('last words'), true);
      await once(other, 'end');
      assert.equal(Buffer.concat(chunks).toString(), 'last words');
      assert.equal(host.events.length, 0, 'a released transport reports nothing');
      close();

      const pair = await socketPair();
      const t2 = make(new RecordingHost());
      t2.adopt(pair.client);
      t2.destroy();
      await once(pair.server, 'close');
      assert.equal(t2.socket, pair.client, 'the socket stays known after closing');
      pair.close();
    });

    test('handOver(): stops reading and reporting, leaves the socket open', async () => {
      const { client, server: other, close } = await socketPair();
      const host = new RecordingHost();
      const t = make(host);
      t.adopt(client);
      t.setReading(true);
      t.handOver();
      other.write('for the next owner');
      await sleep(30);
      assert.equal(host.saw('data'), false);
      assert.equal(client.destroyed, false);
      const next = once(client, 'data');
      client.resume(); // the next owner reads
      const [chunk] = (await next) as [Buffer];
      assert.equal(chunk.toString(), 'for the next owner');
      close();
    });
  });
}

test('connectTarget(): addresses of connect(), false for a malformed one or a missing UNIX path', () => {
  assert.deepEqual(connectTarget('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
  assert.deepEqual(connectTarget('[::1]:80'), { host: '::1', port: 80 });
  assert.equal(connectTarget('not an address'), false);
  assert.equal(connectTarget('unix:/nonexistent/socket/path'), false);
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBuffer } from '../../src/event/buffer.js';
import { clearLastError, getLastError } from '../../src/event/errors.js';
import { EventUtil } from '../../src/event/util.js';

const { EOL_ANY, EOL_CRLF, EOL_CRLF_STRICT, EOL_LF, EOL_NUL } = EventBuffer;

/** A buffer holding `parts`, each as its own chunk (added by reference). */
function chunked(...parts: string[]): EventBuffer {
  const b = new EventBuffer();
  for (const p of parts) b.addReference(Buffer.from(p, 'latin1'));
  return b;
}

/** A Buffer with its own ArrayBuffer (not a slice of Node's shared pool), so identity checks mean something. */
function own(text: string): Buffer {
  const b = Buffer.alloc(Buffer.byteLength(text));
  b.write(text);
  return b;
}

/** The contents, read without side effects (substr copies). */
function contents(b: EventBuffer): string {
  const all = b.substr(0);
  assert.ok(all !== false);
  return all.toString('latin1');
}

function lines(b: EventBuffer, eol: number): (string | null)[] {
  const out: (string | null)[] = [];
  for (;;) {
    const l = b.readLine(eol, 'latin1');
    out.push(l);
    if (l === null) return out;
  }
}

function lastCode(): string | undefined {
  return getLastError()?.code;
}

describe('EventBuffer constants and properties', () => {
  it('has the PHP constant values', () => {
    assert.deepEqual(
      [
        EventBuffer.EOL_ANY,
        EventBuffer.EOL_CRLF,
        EventBuffer.EOL_CRLF_STRICT,
        EventBuffer.EOL_LF,
        EventBuffer.EOL_NUL,
        EventBuffer.PTR_SET,
        EventBuffer.PTR_ADD,
      ],
      [0, 1, 2, 3, 4, 0, 1],
    );
  });

  it('length and contiguousSpace are 0 for a new buffer', () => {
    const b = new EventBuffer();
    assert.equal(b.length, 0);
    assert.equal(b.contiguousSpace, 0);
    assert.deepEqual(b.peekChunks(), []);
  });

  it('contiguousSpace is the size of the first chunk', () => {
    const b = chunked('abc', 'de');
    assert.equal(b.length, 5);
    assert.equal(b.contiguousSpace, 3);
    b.drain(1);
    assert.equal(b.contiguousSpace, 2);
    b.drain(2);
    assert.equal(b.contiguousSpace, 2);
    b.drain(2);
    assert.equal(b.contiguousSpace, 0);
  });

  it('length is read-only', () => {
    const b = new EventBuffer();
    assert.throws(() => {
      (b as unknown as { length: number }).length = 3;
    }, TypeError);
  });
});

describe('add / addReference / appendOwned / prepend', () => {
  it('add encodes strings as UTF-8 and returns true (also for "")', () => {
    const b = new EventBuffer();
    assert.equal(b.add(''), true);
    assert.equal(b.length, 0);
    assert.equal(b.add('é€'), true);
    assert.equal(b.length, 5);
    assert.equal(b.read(10)?.toString('utf8'), 'é€');
  });

  it('a string added to an empty buffer behaves as its bytes in every operation that follows', () => {
    // The text is kept unencoded until an operation needs bytes: each operation below
    // must see exactly the UTF-8 bytes, whichever comes first.
    const texts = ['Hello, World!', 'héllo wörld €', 'x'.repeat(65), 'ü'.repeat(40) + '\r\nnext\r\n'];
    const ops: [string, (b: EventBuffer, text: string) => unknown][] = [
      ['length', (b) => b.length],
      ['read', (b) => b.read(1000)?.toString('utf8')],
      ['read part', (b) => [b.read(3)?.toString('latin1'), contents(b)]],
      ['readLine', (b) => b.readLine(EOL_CRLF, 'utf8')],
      ['readLineBuffer', (b) => b.readLineBuffer(EOL_LF)?.toString('latin1')],
      ['drain all', (b) => [b.drain(b.length), b.length, b.read(10)]],
      ['drain part', (b) => [b.drain(2), contents(b)]],
      ['drain 0', (b) => [b.drain(0), contents(b)]],
      ['add string', (b) => [b.add('+tail'), contents(b)]],
      ['add bytes', (b) => [b.add(Buffer.from('+b')), contents(b)]],
      ['addReference', (b) => [b.addReference(Buffer.from('+r')), contents(b)]],
      ['prepend', (b) => [b.prepend('head+'), contents(b)]],
      ['search', (b) => [b.search('l'), b.search('\r\n')]],
      ['searchEol', (b) => b.searchEol(0, EOL_CRLF)],
      ['substr', (b) => b.substr(1, 4)?.toString('latin1')],
      [
        'copyout',
        (b) => {
          const out = new Uint8Array(100);
          const n = b.copyout(out);
          return Buffer.from(out.subarray(0, n)).toString('latin1');
        },
      ],
      ['pullup', (b) => b.pullup(-1)?.toString('latin1')],
      [
        'remove into a buffer',
        (b) => {
          const dst = new EventBuffer();
          dst.add('x');
          return [b.remove(dst, 4), contents(dst), contents(b)];
        },
      ],
      ['peekChunks', (b) => b.peekChunks().map((c) => c.toString('latin1'))],
      ['contiguousSpace', (b) => b.contiguousSpace],
      ['expand', (b) => [b.expand(100), contents(b)]],
      ['freeze end', (b) => [b.freeze(false), b.add('x'), contents(b)]],
      ['freeze front', (b) => [b.freeze(true), b.read(2), b.drain(1), contents(b)]],
      [
        'addBuffer into',
        (b) => {
          const dst = new EventBuffer();
          dst.add('pre-');
          return [dst.addBuffer(b), b.length, contents(dst)];
        },
      ],
      [
        'addBuffer from',
        (b) => {
          const src = new EventBuffer();
          src.add('+src');
          return [b.addBuffer(src), src.length, contents(b)];
        },
      ],
      [
        'prependBuffer',
        (b) => {
          const dst = new EventBuffer();
          dst.add('body');
          return [dst.prependBuffer(b), contents(dst)];
        },
      ],
      [
        'appendFrom',
        (b) => {
          const dst = new EventBuffer();
          dst.add('into-');
          return [dst.appendFrom(b, 3), contents(dst), contents(b)];
        },
      ],
      [
        'remove',
        (b) => {
          const out = new Uint8Array(5);
          return [b.remove(out, 5), Buffer.from(out).toString('latin1'), contents(b)];
        },
      ],
    ];
    for (const text of texts) {
      const bytes = Buffer.from(text, 'utf8');
      for (const [name, op] of ops) {
        const pending = new EventBuffer();
        pending.add(text);
        const plain = new EventBuffer();
        plain.addReference(Buffer.from(bytes)); // the same content, as bytes from the start
        assert.deepEqual(op(pending, text), op(plain, text), `${name} after add(${JSON.stringify(text)})`);
        assert.equal(contents(pending), contents(plain), `${name}: contents afterwards`);
        assert.equal(pending.length, plain.length, `${name}: length afterwards`);
      }
    }
  });

  it('the length of added text is its UTF-8 length, also when texts of the same length alternate (the last one is remembered)', () => {
    // same character counts, different byte counts; a text repeated as the same string and as an equal copy
    const texts = [
      'hello',
      'héllo',
      'hello',
      'h€llo',
      'h€llo',
      'héllo',
      ['h', 'éllo'].join(''),
      'hello',
      'a'.repeat(64),
      'é'.repeat(64),
    ];
    for (const t of texts) {
      for (const hooked of [false, true]) {
        const b = new EventBuffer();
        if (hooked) b.add('x'); // not empty: the text is encoded at once
        b.add(t);
        assert.equal(b.length, Buffer.byteLength(t) + (hooked ? 1 : 0), JSON.stringify(t));
        assert.equal(contents(b), (hooked ? 'x' : '') + Buffer.from(t).toString('latin1'));
      }
    }
  });

  it('pending text is not offered for a reply while the front is frozen', () => {
    const b = new EventBuffer();
    b.add('fixed answer');
    assert.equal(b.pendingText, 'fixed answer');
    b.freeze(true);
    assert.equal(b.pendingText, null);
    b.unfreeze(true);
    assert.equal(b.pendingText, 'fixed answer');
  });

  it('after takeChunks the first chunk is sized from what the last take held, and any write still fits', () => {
    const b = new EventBuffer();
    const batch = (): void => {
      for (let i = 0; i < 16; i++) b.add(Buffer.alloc(100, 0x61 + i));
    };
    const expected = Array.from({ length: 16 }, (_, i) => String.fromCharCode(0x61 + i).repeat(100)).join('');
    batch(); // 1,600 bytes copied into growing chunks
    assert.ok(b.peekChunks().length > 1);
    assert.equal(Buffer.concat(b.takeChunks()).toString('latin1'), expected);
    batch();
    assert.equal(b.peekChunks().length, 1, 'the next batch lands in one chunk');
    assert.equal(Buffer.concat(b.takeChunks()).toString('latin1'), expected);
    // a take beyond the sizing's cap, then a write beyond it too: all of it lands
    b.add(Buffer.alloc(6000, 0x78));
    b.takeChunks();
    b.add(Buffer.alloc(5000, 0x79));
    assert.equal(contents(b), 'y'.repeat(5000));
    b.add('z'.repeat(3000));
    assert.equal(contents(b), 'y'.repeat(5000) + 'z'.repeat(3000));
  });

  it('add copies bytes, so the caller may reuse its array', () => {
    const b = new EventBuffer();
    const src = Buffer.from('hello');
    b.add(src);
    src.fill(0x78);
    assert.equal(contents(b), 'hello');
    const u8 = new Uint8Array([1, 2, 3]);
    b.add(u8);
    u8[0] = 9;
    assert.deepEqual([...(b.substr(5) as Buffer)], [1, 2, 3]);
  });

  it('small adds share the spare room of the last chunk', () => {
    const b = new EventBuffer();
    for (let i = 0; i < 100; i++) b.add('x');
    b.add(Buffer.from('yz'));
    assert.equal(b.peekChunks().length, 1);
    assert.equal(b.contiguousSpace, 102);
  });

  it('large adds are split across the spare room and a new chunk', () => {
    const b = new EventBuffer();
    b.add('a');
    const big = Buffer.alloc(10000, 0x62);
    b.add(big);
    assert.equal(b.length, 10001);
    assert.equal(contents(b), 'a' + 'b'.repeat(10000));
  });

  it('add fails when the end is frozen', () => {
    const b = new EventBuffer();
    b.freeze(false);
    clearLastError();
    assert.equal(b.add('x'), false);
    assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    assert.equal(b.add(''), false);
    assert.equal(b.addReference(Buffer.from('x')), false);
    assert.equal(b.length, 0);
    b.unfreeze(false);
    assert.equal(b.add('x'), true);
  });

  it('add rejects values that are not strings or bytes', () => {
    const b = new EventBuffer();
    assert.equal(b.add(42 as unknown as string), false);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_ARGUMENT');
  });

  it('addReference appends without copying', () => {
    const b = new EventBuffer();
    const src = Buffer.from('shared');
    assert.equal(b.addReference(src), true);
    const view = b.read(6)!;
    assert.equal(view.buffer, src.buffer);
    assert.equal(view.byteOffset, src.byteOffset);
    const u8 = new Uint8Array([65, 66, 67]);
    b.addReference(u8);
    assert.equal(b.read(3)!.buffer, u8.buffer);
    assert.equal(b.addReference(new Uint8Array(0)), true);
    assert.equal(b.length, 0);
  });

  it('appendOwned queues the Buffer itself as a chunk', () => {
    const b = new EventBuffer();
    b.add('x');
    const chunk = Buffer.from('owned data');
    b.appendOwned(chunk);
    b.appendOwned(Buffer.alloc(0));
    const chunks = b.peekChunks();
    assert.equal(chunks.length, 2);
    assert.equal(chunks[1]!.buffer, chunk.buffer);
    assert.equal(contents(b), 'xowned data');
  });

  it('prepend inserts at the front and fails when the front is frozen', () => {
    const b = new EventBuffer();
    b.add('world');
    assert.equal(b.prepend('hello '), true);
    assert.equal(b.prepend(new Uint8Array([62, 32])), true);
    assert.equal(b.prepend(''), true);
    assert.equal(contents(b), '> hello world');
    b.freeze(true);
    assert.equal(b.prepend('x'), false);
    assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    b.unfreeze(true);
    // prepend copies too
    const src = Buffer.from('#');
    b.prepend(src);
    src[0] = 0x21;
    assert.equal(contents(b), '#> hello world');
  });

  it('prepend works after draining (reuses the free slot at the front)', () => {
    const b = chunked('aa', 'bb', 'cc');
    b.drain(3);
    b.prepend('X');
    b.prepend('Y');
    assert.equal(contents(b), 'YXbcc');
  });
});

describe('moving between buffers', () => {
  it('addBuffer moves all chunks without copying; src ends empty', () => {
    const dst = new EventBuffer();
    const src = new EventBuffer();
    dst.add('head:');
    const body = Buffer.from('body');
    src.addReference(body);
    src.add('!');
    assert.equal(dst.addBuffer(src), true);
    assert.equal(src.length, 0);
    assert.equal(src.contiguousSpace, 0);
    assert.equal(contents(dst), 'head:body!');
    assert.ok(dst.peekChunks().some((c) => c.buffer === body.buffer));
    // both stay usable
    src.add('again');
    dst.add('+');
    assert.equal(contents(src), 'again');
    assert.equal(contents(dst), 'head:body!+');
  });

  it('addBuffer of itself does nothing', () => {
    const b = chunked('abc');
    assert.equal(b.addBuffer(b), true);
    assert.equal(contents(b), 'abc');
  });

  it('addBuffer fails when the destination end or the source front is frozen', () => {
    const dst = chunked('a');
    const src = chunked('b');
    dst.freeze(false);
    assert.equal(dst.addBuffer(src), false);
    dst.unfreeze(false);
    src.freeze(true);
    assert.equal(dst.addBuffer(src), false);
    assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    src.unfreeze(true);
    src.freeze(false); // the source's end does not matter
    assert.equal(dst.addBuffer(src), true);
    assert.equal(contents(dst), 'ab');
  });

  it('prependBuffer moves all of src to the front', () => {
    const b = chunked('body');
    const head = chunked('he', 'ad:');
    assert.equal(b.prependBuffer(head), true);
    assert.equal(head.length, 0);
    assert.equal(contents(b), 'head:body');
    assert.equal(b.prependBuffer(b), true);
    const empty = new EventBuffer();
    assert.equal(b.prependBuffer(empty), true);
    assert.equal(contents(b), 'head:body');
    // after draining, the moved chunks fill the free slots at the front
    b.drain(5);
    assert.equal(b.prependBuffer(chunked('x', 'y')), true);
    assert.equal(contents(b), 'xybody');
  });

  it('prependBuffer fails when either front is frozen', () => {
    const b = chunked('a');
    const s = chunked('b');
    b.freeze(true);
    assert.equal(b.prependBuffer(s), false);
    b.unfreeze(true);
    s.freeze(true);
    assert.equal(b.prependBuffer(s), false);
    s.unfreeze(true);
    b.freeze(false);
    assert.equal(b.prependBuffer(s), true);
    assert.equal(contents(b), 'ba');
  });

  it('appendFrom moves up to len bytes, splitting a chunk by a view', () => {
    const src = new EventBuffer();
    const mem = Buffer.from('0123456789');
    src.addReference(mem);
    src.add('abc');
    const dst = new EventBuffer();
    assert.equal(dst.appendFrom(src, 4), 4);
    assert.equal(contents(dst), '0123');
    assert.equal(contents(src), '456789abc');
    assert.equal(dst.peekChunks()[0]!.buffer, mem.buffer);
    assert.equal(dst.appendFrom(src, 6), 6); // exactly the rest of the first chunk
    assert.equal(dst.appendFrom(src, 100), 3); // more than there is
    assert.equal(src.length, 0);
    assert.equal(dst.appendFrom(src, 5), 0);
    assert.equal(contents(dst), '0123456789abc');
    // the dst's split piece cannot be appended into (it is src's memory)
    dst.add('Z');
    assert.equal(contents(dst), '0123456789abcZ');
  });

  it('appendFrom does not let the destination write into the source chunk', () => {
    const src = new EventBuffer();
    src.add('abcdef'); // an owned chunk with spare room
    const dst = new EventBuffer();
    dst.appendFrom(src, 3);
    dst.add('XYZ');
    src.add('ghi');
    assert.equal(contents(dst), 'abcXYZ');
    assert.equal(contents(src), 'defghi');
  });

  it('appendFrom returns -1 on frozen ends or a negative length, 0 for itself', () => {
    const src = chunked('abc');
    const dst = new EventBuffer();
    dst.freeze(false);
    assert.equal(dst.appendFrom(src, 1), -1);
    assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    dst.unfreeze(false);
    src.freeze(true);
    assert.equal(dst.appendFrom(src, 1), -1);
    src.unfreeze(true);
    assert.equal(dst.appendFrom(src, -1), -1);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_ARGUMENT');
    assert.equal(src.appendFrom(src, 2), 0);
    assert.equal(contents(src), 'abc');
  });

  it('remove moves bytes into an EventBuffer', () => {
    const b = chunked('hello ', 'world');
    const out = new EventBuffer();
    assert.equal(b.remove(out, 8), 8);
    assert.equal(contents(out), 'hello wo');
    assert.equal(contents(b), 'rld');
    assert.equal(b.remove(out, 100), 3);
    assert.equal(b.remove(out, 100), 0);
    assert.equal(b.remove(b, 1), 0);
  });

  it('remove copies into a Uint8Array and drains, at most its length', () => {
    const b = chunked('abc', 'defg');
    const out = new Uint8Array(5);
    assert.equal(b.remove(out, 100), 5);
    assert.equal(Buffer.from(out).toString(), 'abcde');
    assert.equal(contents(b), 'fg');
    assert.equal(b.remove(out, 1), 1);
    assert.equal(out[0], 0x66);
    assert.equal(b.remove(out, 0), 0);
    assert.equal(b.remove(out, 9), 1);
    assert.equal(b.remove(out, 9), 0); // empty
  });

  it('remove returns -1 when the front (or the target end) is frozen', () => {
    const b = chunked('abc');
    b.freeze(true);
    assert.equal(b.remove(new Uint8Array(3), 3), -1);
    assert.equal(b.remove(new EventBuffer(), 3), -1);
    b.unfreeze(true);
    const out = new EventBuffer();
    out.freeze(false);
    assert.equal(b.remove(out, 3), -1);
    assert.equal(b.remove(new Uint8Array(3), -2), -1);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_ARGUMENT');
    assert.equal(contents(b), 'abc');
  });
});

describe('memory reuse never overwrites bytes handed out', () => {
  const escapes: [string, (b: EventBuffer) => Buffer][] = [
    ['read', (b) => b.read(100)!],
    ['read (whole chunk)', (b) => b.read(1000)!],
    ['readLineBuffer', (b) => b.readLineBuffer(EOL_LF)!],
    ['pullup', (b) => b.pullup(100)!],
    ['peekChunks', (b) => b.peekChunks()[0]!],
  ];
  for (const [name, escape] of escapes) {
    it(`a view from ${name} survives draining and adding again`, () => {
      const b = new EventBuffer();
      b.add('x'.repeat(99) + '\n');
      const v = escape(b);
      const before = Buffer.from(v);
      b.drain(1000);
      b.add('Z'.repeat(300));
      b.add(Buffer.alloc(5000, 0x59));
      assert.deepEqual(v, before);
    });
  }

  it('a chunk split by appendFrom is not reused by the destination', () => {
    const src = new EventBuffer();
    src.add('a'.repeat(50) + 'b'.repeat(150));
    const v = src.read(2)!;
    const dst = new EventBuffer();
    assert.equal(dst.appendFrom(src, 100), 100);
    dst.drain(100);
    dst.add('Z'.repeat(100));
    src.drain(1000);
    src.add('Y'.repeat(300));
    assert.equal(v.toString(), 'aa');
  });

  it('memory is reused when nothing escaped (remove into an array)', () => {
    const b = new EventBuffer();
    const out = new Uint8Array(16384);
    for (let i = 0; i < 100; i++) {
      b.add(Buffer.alloc(16384, i));
      assert.equal(b.remove(out, 16384), 16384);
      assert.equal(out[16383], i);
    }
  });
});

describe('read / drain / copyout / substr', () => {
  it('read removes and returns up to max bytes; null when nothing was read', () => {
    const b = new EventBuffer();
    assert.equal(b.read(10), null);
    b.add('abcdef');
    assert.equal(b.read(0), null);
    assert.equal(b.read(4)?.toString(), 'abcd');
    assert.equal(b.read(4)?.toString(), 'ef');
    assert.equal(b.read(4), null);
    assert.equal(b.length, 0);
  });

  it('read returns a view when the bytes lie in one chunk, a copy otherwise', () => {
    const mem = own('0123456789');
    const b = new EventBuffer();
    b.addReference(mem);
    b.addReference(own('abc'));
    const v = b.read(4)!;
    assert.equal(v.buffer, mem.buffer);
    assert.equal(v.byteOffset, mem.byteOffset);
    const c = b.read(8)!;
    assert.equal(c.toString(), '456789ab');
    assert.notEqual(c.buffer, mem.buffer);
  });

  it('returned views stay valid after later operations', () => {
    const b = new EventBuffer();
    b.add('first');
    const v = b.read(5)!;
    b.add('second'); // must not reuse the memory of "first"
    b.expand(100);
    b.add('x'.repeat(50));
    assert.equal(v.toString(), 'first');
    assert.equal(contents(b), 'second' + 'x'.repeat(50));
  });

  it('read returns null when the front is frozen or max is negative', () => {
    const b = chunked('abc');
    b.freeze(true);
    assert.equal(b.read(2), null);
    assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    b.unfreeze(true);
    assert.equal(b.read(-1), null);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_ARGUMENT');
    assert.equal(b.length, 3);
  });

  it('drain removes up to len bytes; more than the length empties', () => {
    const b = chunked('ab', 'cd', 'ef');
    assert.equal(b.drain(3), true);
    assert.equal(contents(b), 'def');
    assert.equal(b.drain(0), true);
    assert.equal(b.drain(100), true);
    assert.equal(b.length, 0);
    assert.equal(b.drain(1), true);
  });

  it('drain fails when the front is frozen or len is negative', () => {
    const b = chunked('abc');
    b.freeze(true);
    assert.equal(b.drain(1), false);
    assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    b.unfreeze(true);
    assert.equal(b.drain(-1), false);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_ARGUMENT');
    assert.equal(b.length, 3);
  });

  it('copyout copies without draining', () => {
    const b = chunked('ab', 'cdef');
    const t = new Uint8Array(4);
    assert.equal(b.copyout(t), 4);
    assert.equal(Buffer.from(t).toString(), 'abcd');
    assert.equal(b.length, 6);
    const u = new Uint8Array(10).fill(0x2e);
    assert.equal(b.copyout(u, 3), 3);
    assert.equal(Buffer.from(u).toString(), 'abc.......');
    assert.equal(b.copyout(u), 6);
    assert.equal(new EventBuffer().copyout(u), 0);
    assert.equal(b.copyout(u, -1), -1);
    b.freeze(true); // copyout does not drain, so freezing does not matter
    assert.equal(b.copyout(t, 2), 2);
  });

  it('substr copies a range without draining', () => {
    const b = chunked('hello ', 'wor', 'ld');
    assert.equal((b.substr(0) as Buffer).toString(), 'hello world');
    assert.equal((b.substr(6) as Buffer).toString(), 'world');
    assert.equal((b.substr(4, 5) as Buffer).toString(), 'o wor');
    assert.equal((b.substr(4, -1) as Buffer).toString(), 'o world');
    assert.equal((b.substr(4, 0) as Buffer).length, 0);
    assert.equal((b.substr(9, 100) as Buffer).toString(), 'ld');
    const atEnd = b.substr(11);
    assert.ok(Buffer.isBuffer(atEnd) && atEnd.length === 0);
    assert.equal(b.length, 11);
  });

  it('substr returns false for a negative start or one beyond the length', () => {
    const b = chunked('abc');
    clearLastError();
    assert.equal(b.substr(-1), false);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_POSITION');
    assert.equal(b.substr(4), false);
    assert.equal(getLastError()?.message, 'Failed to set position to 4');
  });
});

describe('readLine', () => {
  it('EOL_ANY swallows blank lines: "a\\r\\n\\r\\n\\r\\nb\\r\\n" -> "a", "b"', () => {
    const b = new EventBuffer();
    b.add('a\r\n\r\n\r\nb\r\n');
    assert.deepEqual(lines(b, EOL_ANY), ['a', 'b', null]);
    assert.equal(b.length, 0);
  });

  it('EOL_ANY: a trailing lone \\r completes the line, a later \\n is an empty line', () => {
    const b = new EventBuffer();
    b.add('line\r');
    assert.equal(b.readLine(EOL_ANY), 'line');
    assert.equal(b.readLine(EOL_ANY), null);
    b.add('\n');
    assert.equal(b.readLine(EOL_ANY), '');
    assert.equal(b.length, 0);
  });

  it('EOL_ANY: "\\r\\nfoo" -> "" then "foo" once terminated', () => {
    const b = new EventBuffer();
    b.add('\r\nfoo');
    assert.equal(b.readLine(EOL_ANY), '');
    assert.equal(b.readLine(EOL_ANY), null);
    b.add('\n');
    assert.equal(b.readLine(EOL_ANY), 'foo');
  });

  it('EOL_ANY is the default and accepts \\r, \\n and mixtures', () => {
    const b = new EventBuffer();
    b.add('one\rtwo\nthree\n\r\n\rfour\r\n');
    assert.equal(b.readLine(), 'one');
    assert.equal(b.readLine(), 'two');
    assert.equal(b.readLine(), 'three');
    assert.equal(b.readLine(), 'four');
    assert.equal(b.readLine(), null);
  });

  it('EOL_ANY: the terminator run continues into the next chunks', () => {
    const b = chunked('a\r', '\n', '\r\nb', '\n');
    assert.deepEqual(lines(b, EOL_ANY), ['a', 'b', null]);
  });

  it('EOL_CRLF: a lone \\r stays in the line ("c\\r\\r\\n" -> "c\\r"); "\\n\\n" gives empty lines', () => {
    const b = new EventBuffer();
    b.add('c\r\r\n');
    assert.equal(b.readLine(EOL_CRLF), 'c\r');
    b.add('\n\nx\r\ny\n');
    assert.deepEqual(lines(b, EOL_CRLF), ['', '', 'x', 'y', null]);
  });

  it('EOL_CRLF_STRICT: only \\r\\n ends a line ("b\\n\\nc\\r\\r\\n" -> "b\\n\\nc\\r")', () => {
    const b = new EventBuffer();
    b.add('b\n\nc\r\r\n');
    assert.equal(b.readLine(EOL_CRLF_STRICT), 'b\n\nc\r');
    b.add('x\ny');
    assert.equal(b.readLine(EOL_CRLF_STRICT), null);
    b.add('\r\n');
    assert.equal(b.readLine(EOL_CRLF_STRICT), 'x\ny');
  });

  it('EOL_LF: \\r stays in the line ("a\\r\\n" -> "a\\r")', () => {
    const b = new EventBuffer();
    b.add('a\r\n\nb');
    assert.equal(b.readLine(EOL_LF), 'a\r');
    assert.equal(b.readLine(EOL_LF), '');
    assert.equal(b.readLine(EOL_LF), null);
    assert.equal(contents(b), 'b');
  });

  it('EOL_NUL: a NUL byte ends a line', () => {
    const b = new EventBuffer();
    b.add('key\0value\0\r\n');
    assert.deepEqual(lines(b, EOL_NUL), ['key', 'value', null]);
    assert.equal(contents(b), '\r\n');
  });

  it('lines may span chunks in every style', () => {
    for (const [eol, parts, expect] of [
      [EOL_ANY, ['he', 'llo', '\r', '\nworld\n'], ['hello', 'world', null]],
      [EOL_CRLF, ['he', 'llo\r', '\nworld', '\n'], ['hello', 'world', null]],
      [EOL_CRLF, ['a\r', '\r', '\n'], ['a\r', null]],
      [EOL_CRLF_STRICT, ['he\n', 'llo\r', '\nworld\r', '\r', '\n'], ['he\nllo', 'world\r', null]],
      [EOL_LF, ['x', 'y', 'z\r', '\n'], ['xyz\r', null]],
      [EOL_NUL, ['x', 'y', '\0'], ['xy', null]],
    ] as const) {
      assert.deepEqual(lines(chunked(...parts), eol), expect, `style ${eol} ${JSON.stringify(parts)}`);
    }
  });

  it('returns null and records ERR_EVENT_INVALID_EOL for an unknown style', () => {
    const b = chunked('a\nb\n');
    clearLastError();
    assert.equal(b.readLine(7), null);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_EOL');
    clearLastError();
    assert.equal(b.readLineBuffer(-1), null);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_EOL');
    assert.equal(new EventBuffer().readLine(9), null);
    clearLastError();
    assert.equal(b.readLine(1.5), null);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_EOL');
    assert.equal(b.length, 4);
  });

  it('returns null when the front is frozen', () => {
    const b = chunked('a\n');
    b.freeze(true);
    assert.equal(b.readLine(EOL_LF), null);
    assert.equal(b.readLineBuffer(EOL_LF), null);
    assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    b.unfreeze(true);
    assert.equal(b.readLine(EOL_LF), 'a');
  });

  it('decodes with the given encoding', () => {
    const b = new EventBuffer();
    b.add(Buffer.from([0xe9, 0x0a, 0xc3, 0xa9, 0x0a, 0x41, 0x0a]));
    assert.equal(b.readLine(EOL_LF, 'latin1'), 'é');
    assert.equal(b.readLine(EOL_LF), 'é');
    assert.equal(b.readLine(EOL_LF, 'hex'), '41');
  });

  it('the PHP idiom while ($l = readLine()) stops at an empty line; loop with !== null instead', () => {
    const b = new EventBuffer();
    b.add('GET / HTTP/1.0\r\nHost: x\r\n\r\nbody');
    const headers: string[] = [];
    let l: string | null;
    while ((l = b.readLine(EOL_CRLF)) !== null && l !== '') headers.push(l);
    assert.deepEqual(headers, ['GET / HTTP/1.0', 'Host: x']);
    assert.equal(contents(b), 'body');
  });

  it('readLineBuffer returns a view when the line lies in one chunk, a copy otherwise', () => {
    const mem = own('first\r\nsec');
    const b = new EventBuffer();
    b.addReference(mem);
    b.addReference(own('ond\r\n'));
    const l1 = b.readLineBuffer(EOL_CRLF)!;
    assert.equal(l1.toString(), 'first');
    assert.equal(l1.buffer, mem.buffer);
    const l2 = b.readLineBuffer(EOL_CRLF)!;
    assert.equal(l2.toString(), 'second');
    assert.notEqual(l2.buffer, mem.buffer);
    assert.equal(b.readLineBuffer(EOL_CRLF), null);
  });

  it('readLineBuffer returns an empty Buffer for an empty line', () => {
    const b = chunked('\n');
    const l = b.readLineBuffer(EOL_LF);
    assert.ok(Buffer.isBuffer(l) && l.length === 0);
  });

  it('handles many lines across many small chunks (queue compaction)', () => {
    const b = new EventBuffer();
    for (let i = 0; i < 5000; i++) b.addReference(Buffer.from(`line ${i}\n`));
    for (let i = 0; i < 2500; i++) assert.equal(b.readLine(EOL_LF), `line ${i}`);
    for (let i = 5000; i < 6000; i++) b.addReference(Buffer.from(`line ${i}\n`));
    for (let i = 2500; i < 6000; i++) assert.equal(b.readLine(EOL_LF), `line ${i}`);
    assert.equal(b.length, 0);
  });

  // Only what it returns: how fast is a benchmark's question (bench/buffer.ts), not a test's.
  it('reads every line when the first \\r comes long after many \\n-free bytes (EOL_ANY)', () => {
    const b = new EventBuffer();
    const lineCount = 20000;
    b.add('x\r'.repeat(lineCount)); // no \n at all
    let n = 0;
    while (b.readLine(EOL_ANY) !== null) n++;
    assert.equal(n, lineCount);
    assert.equal(b.length, 0);
  });
});

describe('search / searchEol', () => {
  const text = 'Some string within a string inside another string';

  it('counts "str" 3 times in the manual example', () => {
    const b = new EventBuffer();
    b.add(text);
    let count = 0;
    for (let p = b.search('str'); p !== false; p = b.search('str', p + 1)) count++;
    assert.equal(count, 3);
  });

  it('a match must lie entirely before end ("str" at 5: end=7 -> false, end=8 -> 5)', () => {
    const b = new EventBuffer();
    b.add(text);
    assert.equal(b.search('str'), 5);
    assert.equal(b.search('str', 5, 7), false);
    assert.equal(b.search('str', 5, 8), 5);
    assert.equal(b.search('str', 0, 0), false);
    assert.equal(b.search('str', 6), 21);
  });

  it('start negative or beyond the length searches from 0; beyond the length warns', () => {
    const b = new EventBuffer();
    b.add(text);
    clearLastError();
    assert.equal(b.search('str', -5), 5);
    assert.equal(getLastError(), null);
    assert.equal(b.search('str', 1000), 5);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_POSITION');
    assert.equal(getLastError()?.message, 'Failed to set position to 1000');
    assert.equal(b.search('str', text.length), false); // start == length is valid
  });

  it('end negative or beyond the length is ignored', () => {
    const b = new EventBuffer();
    b.add(text);
    clearLastError();
    assert.equal(b.search('string', 40, 1000), 43);
    assert.equal(b.search('string', 40, -3), 43);
    assert.equal(b.search('string', 40, 49), 43);
    assert.equal(b.search('string', 40, 48), false);
    assert.equal(getLastError(), null);
  });

  it('an empty needle matches at 0 (or at the start position)', () => {
    const b = new EventBuffer();
    assert.equal(b.search(''), 0);
    b.add(text);
    assert.equal(b.search(''), 0);
    assert.equal(b.search('', 7), 7);
  });

  it('finds matches spanning chunks, and byte needles', () => {
    const b = chunked('xx\r', '\n', 'ab', 'c', 'abcd');
    assert.equal(b.search('\r\n'), 2);
    assert.equal(b.search('abcd'), 7);
    assert.equal(b.search('bca'), 5);
    assert.equal(b.search(new Uint8Array([0x63, 0x61])), 6);
    assert.equal(b.search('zz'), false);
    assert.equal(b.search('abcdabcd'), false);
  });

  it('finds long needles (compared natively) inside a chunk', () => {
    const b = new EventBuffer();
    const needle = 'the quick brown fox jumps over';
    b.add('the quick brown fox jumps ober! ' + needle + ' the lazy dog');
    assert.equal(b.search(needle), 32);
  });

  it('searchEol returns where the terminator starts', () => {
    const b = new EventBuffer();
    b.add('ab\r\ncd\nef\0gh\r\r\n');
    assert.equal(b.searchEol(), 2);
    assert.equal(b.searchEol(0, EOL_CRLF), 2);
    assert.equal(b.searchEol(0, EOL_CRLF_STRICT), 2);
    assert.equal(b.searchEol(0, EOL_LF), 3);
    assert.equal(b.searchEol(0, EOL_NUL), 9);
    assert.equal(b.searchEol(3, EOL_ANY), 3);
    assert.equal(b.searchEol(3, EOL_CRLF), 3); // the \r before the start is not included
    assert.equal(b.searchEol(4, EOL_CRLF), 6);
    assert.equal(b.searchEol(4, EOL_CRLF_STRICT), 13);
    assert.equal(b.searchEol(10, EOL_CRLF), 13);
    assert.equal(b.searchEol(10, EOL_NUL), false);
  });

  it('searchEol: invalid start searches from 0, unknown style is false', () => {
    const b = chunked('a', '\nb\n');
    assert.equal(b.searchEol(-7, EOL_LF), 1);
    assert.equal(b.searchEol(99, EOL_LF), 1);
    assert.equal(getLastError()?.message, 'Failed to set position to 99');
    assert.equal(b.searchEol(0, 5), false);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_EOL');
    assert.equal(new EventBuffer().searchEol(), false);
  });
});

describe('pullup / expand / freeze / locking / internals', () => {
  it('pullup returns exactly the first size bytes, contiguous, without draining', () => {
    const b = chunked('ab', 'cd', 'ef');
    const v = b.pullup(3)!;
    assert.equal(v.toString(), 'abc');
    assert.ok(b.contiguousSpace >= 3);
    assert.equal(b.length, 6);
    assert.equal(contents(b), 'abcdef');
    assert.equal(b.pullup(-1)!.toString(), 'abcdef');
    assert.equal(b.contiguousSpace, 6);
    assert.equal(b.pullup(2)!.toString(), 'ab');
  });

  it('pullup returns null for size 0, size beyond the length, or an empty buffer', () => {
    const b = chunked('abc');
    assert.equal(b.pullup(0), null);
    assert.equal(b.pullup(4), null);
    assert.equal(new EventBuffer().pullup(-1), null);
    assert.equal(new EventBuffer().pullup(1), null);
  });

  it('pullup does not copy when the bytes already lie in the first chunk', () => {
    const mem = Buffer.from('abcdef');
    const b = new EventBuffer();
    b.addReference(mem);
    b.addReference(Buffer.from('g'));
    assert.equal(b.pullup(4)!.buffer, mem.buffer);
  });

  it('expand reserves room so that following adds use one chunk', () => {
    const b = new EventBuffer();
    assert.equal(b.expand(10000), true);
    b.add(Buffer.alloc(6000, 0x61));
    b.add(Buffer.alloc(4000, 0x62));
    assert.equal(b.peekChunks().length, 1);
    assert.equal(b.length, 10000);
    assert.equal(b.expand(0), true);
    assert.equal(b.expand(-1), false);
    assert.equal(lastCode(), 'ERR_EVENT_INVALID_ARGUMENT');
  });

  it('freeze/unfreeze return true and block the right operations', () => {
    const b = chunked('a\nb\n');
    assert.equal(b.freeze(true), true);
    assert.equal(b.drain(1), false);
    assert.equal(b.read(1), null);
    assert.equal(b.readLine(EOL_LF), null);
    assert.equal(b.prepend('x'), false);
    assert.equal(b.remove(new Uint8Array(1), 1), -1);
    assert.equal(b.add('c\n'), true); // the end is not frozen
    assert.equal(b.search('b'), 2); // inspection is allowed
    assert.equal(b.unfreeze(true), true);
    assert.equal(b.freeze(false), true);
    assert.equal(b.add('x'), false);
    assert.equal(b.addBuffer(chunked('y')), false);
    assert.equal(b.appendFrom(chunked('y'), 1), -1);
    assert.equal(b.readLine(EOL_LF), 'a'); // the front is not frozen
    assert.equal(b.prepend('>'), true);
    assert.equal(b.unfreeze(false), true);
    assert.equal(contents(b), '>b\nc\n');
  });

  it('enableLocking, lock and unlock take no arguments and do nothing', () => {
    const b = chunked('abc');
    assert.equal(b.enableLocking(), undefined);
    assert.equal(b.lock(), undefined);
    assert.equal(b.unlock(), undefined);
    assert.equal(b.lock.length + b.unlock.length + b.enableLocking.length, 0);
    assert.equal(contents(b), 'abc');
  });

  it('indexOfByte, byteAt and peekChunks', () => {
    const b = chunked('ab', 'c\n', 'd');
    assert.equal(b.indexOfByte(0x0a), 3);
    assert.equal(b.indexOfByte(0x0a, 4), -1);
    assert.equal(b.indexOfByte(0x64, -3), 4);
    assert.equal(b.indexOfByte(0x7a), -1);
    assert.equal(b.byteAt(2), 0x63);
    assert.equal(b.byteAt(4), 0x64);
    assert.equal(b.byteAt(5), -1);
    assert.equal(b.byteAt(-1), -1);
    assert.equal(b.byteAt(1.5), -1);
    assert.deepEqual(
      b.peekChunks().map((c) => c.toString()),
      ['ab', 'c\n', 'd'],
    );
    b.drain(1);
    assert.deepEqual(
      b.peekChunks().map((c) => c.toString()),
      ['b', 'c\n', 'd'],
    );
  });
});

describe('descriptor I/O', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventide-buffer-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('write() to a file descriptor writes and drains', () => {
    const path = join(dir, 'out.txt');
    const fd = openSync(path, 'w');
    try {
      const b = chunked('hello ', 'wor', 'ld\n');
      b.add(Buffer.alloc(20000, 0x2e));
      assert.equal(b.write(fd, 7), 7);
      assert.equal(contents(b).slice(0, 5), 'orld\n');
      assert.equal(b.write(fd), 20005);
      assert.equal(b.length, 0);
      assert.equal(b.write(fd), 0);
    } finally {
      closeSync(fd);
    }
    assert.equal(readFileSync(path, 'latin1'), 'hello world\n' + '.'.repeat(20000));
  });

  it('readFrom() a file descriptor appends what is there, then 0 at end of file', () => {
    const path = join(dir, 'in.txt');
    const data = Buffer.alloc(70000);
    for (let i = 0; i < data.length; i++) data[i] = i % 251;
    writeFileSync(path, Buffer.concat([Buffer.from('hi\n'), data]));
    const fd = openSync(path, 'r');
    try {
      const b = new EventBuffer();
      assert.equal(b.readFrom(fd, 3), 3);
      assert.equal(b.readLine(EOL_LF), 'hi');
      let total = 0;
      let n: number | false;
      while ((n = b.readFrom(fd)) !== 0) {
        assert.notEqual(n, false);
        total += n as number;
      }
      assert.equal(total, 70000);
      assert.ok(b.read(70000)!.equals(data));
    } finally {
      closeSync(fd);
    }
  });

  it('write() and readFrom() fail when the front / end is frozen', () => {
    const path = join(dir, 'frozen.txt');
    writeFileSync(path, 'abc');
    const fd = openSync(path, 'r+');
    try {
      const b = chunked('xyz');
      b.freeze(true);
      assert.equal(b.write(fd), false);
      b.freeze(false);
      assert.equal(b.readFrom(fd), false);
      assert.equal(lastCode(), 'ERR_EVENT_BUFFER_FROZEN');
    } finally {
      closeSync(fd);
    }
  });

  it('an invalid descriptor throws', () => {
    const b = chunked('x');
    assert.throws(() => b.write(-1), { code: 'ERR_EVENT_INVALID_DESCRIPTOR' });
    assert.throws(() => b.readFrom(-1), { code: 'ERR_EVENT_INVALID_DESCRIPTOR' });
  });

  describe('over a TCP connection', () => {
    let server: Server;
    let client: Socket;
    let peer: Socket;

    before(async () => {
      server = createServer();
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const port = (server.address() as { port: number }).port;
      const accepted = once(server, 'connection');
      client = connect(port, '127.0.0.1');
      await once(client, 'connect');
      [peer] = (await accepted) as [Socket];
    });

    after(async () => {
      client.destroy();
      peer.destroy();
      server.close();
      await once(server, 'close');
    });

    it('readFrom() returns false (EAGAIN) when nothing is there yet', () => {
      const b = new EventBuffer();
      clearLastError();
      assert.equal(b.readFrom(peer), false);
      assert.equal(lastCode(), 'ERR_EVENT_IO');
      assert.equal(EventUtil.getLastSocketError(), 'Resource temporarily unavailable');
    });

    it('write() sends the bytes and drains; readFrom() receives them', async () => {
      const out = chunked('GET / HTTP/1.0\r\n', 'Host: x\r\n', '\r\n');
      const big = Buffer.alloc(100000, 0x41);
      out.addReference(big);
      const total = out.length;
      assert.equal(out.write(client), total);
      assert.equal(out.length, 0);

      const inp = new EventBuffer();
      while (inp.length < total) {
        const n = inp.readFrom(peer);
        if (n === false) await once(peer, 'readable');
        else assert.ok(n > 0);
      }
      assert.equal(inp.readLine(EOL_CRLF), 'GET / HTTP/1.0');
      assert.equal(inp.readLine(EOL_CRLF), 'Host: x');
      assert.equal(inp.readLine(EOL_CRLF), '');
      assert.ok(inp.read(200000)!.equals(big));
    });

    it('write() hands views to the stream; later adds do not change what is sent', async () => {
      const b = new EventBuffer();
      b.add('hello'.repeat(20));
      const sent = b.length;
      const got: Buffer[] = [];
      let gotLen = 0;
      const onData = (d: Buffer): void => {
        got.push(d);
        gotLen += d.length;
      };
      peer.on('data', onData);
      client.cork(); // the socket keeps our view queued until uncork()
      assert.equal(b.write(client), sent);
      b.add('X'.repeat(100)); // must not land in the memory the socket is still sending
      client.uncork();
      while (gotLen < sent) await once(peer, 'data');
      peer.off('data', onData);
      peer.pause();
      assert.equal(Buffer.concat(got).toString(), 'hello'.repeat(20));
    });

    it('readFrom() honours howmuch', async () => {
      client.write('0123456789');
      const b = new EventBuffer();
      while (b.length === 0) {
        const n = b.readFrom(peer, 4);
        if (n === false) await once(peer, 'readable');
      }
      assert.equal(contents(b), '0123');
      while (b.length < 10) {
        if (b.readFrom(peer) === false) await once(peer, 'readable');
      }
      assert.equal(contents(b), '0123456789');
    });

    it('readFrom() returns 0 at end of file', async () => {
      client.end('bye');
      const b = new EventBuffer();
      for (;;) {
        const n = b.readFrom(peer);
        if (n === 0) break;
        if (n === false) await once(peer, 'readable');
      }
      assert.equal(contents(b), 'bye');
      assert.equal(b.readFrom(peer), 0);
    });

    it('write() to a closed socket returns false with ERR_EVENT_IO', async () => {
      client.destroy();
      await once(client, 'close');
      const b = chunked('lost');
      clearLastError();
      assert.equal(b.write(client), false);
      assert.equal(lastCode(), 'ERR_EVENT_IO');
      assert.equal(EventUtil.getLastSocketError(), 'Broken pipe');
      assert.equal(b.length, 4); // nothing was drained
    });
  });
});

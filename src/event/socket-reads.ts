/**
 * Lent reads: a plain socket whose bytes only a bufferevent reads is read
 * into one receive buffer that its base lends to all of them (Node's
 * `onread` option of `net.Socket`), instead of through the socket's
 * Readable stream.
 *
 * Node's default read path allocates a 64 KiB block for every read, shrinks
 * it to the bytes read, wraps it in a new ArrayBuffer and a Buffer, and
 * pushes that through the stream machinery (`push`, `addChunk`, a
 * `'data'` event, a `maybeReadMore` tick). A lent read is one call with
 * the number of bytes that landed in the base's buffer: for a small HTTP
 * request that is about half of the process's instructions per request
 * (`bench/instructions.ts`).
 *
 * The price is a rule: the bytes are valid only until the callback
 * returns, since the next read of any socket of the base lands in the same
 * memory. Whoever keeps bytes copies them (the bufferevent copies what goes
 * into its input; a server connection copies the rest of a pipelined batch
 * it could not parse yet, and bodies).
 *
 * Accepted sockets are lent after the fact: Node keeps the `onread` state
 * of a socket in three symbol-keyed fields and switches the handle with
 * `useUserBuffer()`, the steps its constructor takes for the option. When
 * this Node has no such fields or handle method (another runtime, a later
 * Node that changed them), nothing is lent and the socket is read as a
 * stream, as before; the `lent-reads` fallback (`fallbacks.ts`) says so
 * once per process, and `EVENTIDE_FORCE_FALLBACK=lent-reads` makes every
 * socket, connected ones included, a stream.
 *
 * @module
 */
import { Socket } from 'node:net';
import { FORCE_FALLBACK_ENV, forcedFallback, reportFallback } from './fallbacks.js';

/** Bytes of the receive buffer a base lends to its sockets (Node's default read size). @internal */
export const LANDING_BYTES = 64 * 1024;

/** The callback of a lent socket: `n` bytes landed at the start of `buf`. Returning false stops reading. @internal */
export type LentRead = (n: number, buf: Buffer) => boolean;

/** What a net.Socket's handle offers for lent reads (Node's TCPWrap / PipeWrap). */
interface LendableHandle {
  useUserBuffer?: (buf: Uint8Array) => void;
}

/** The three fields Node's `net.Socket` keeps its `onread` option in. */
interface OnreadFields {
  readonly buffer: symbol;
  readonly callback: symbol;
  readonly generator: symbol;
}

/**
 * The receive buffer of a base and the lending of sockets to it. Created on
 * first use (a base without sockets allocates nothing).
 * @internal
 * @example
 * ```ts
 * declare const input: EventBuffer;
 * const landing = new ReadLanding();
 * const sock = landing.connectingSocket((n, buf) => {
 *   input.add(buf.subarray(0, n)); // copied: the memory is reused by the next read
 *   return true;
 * });
 * sock.connect({ host: '127.0.0.1', port: 8080 });
 * ```
 */
export class ReadLanding {
  #buf: Buffer | null = null;
  /** Node's fields, once looked up (null: this runtime has none, or lending is off). */
  #fields: OnreadFields | null | undefined = undefined;
  /** Lending is on (the `lent-reads` fallback is not forced). */
  readonly enabled: boolean;

  constructor() {
    this.enabled = !forcedFallback('lent-reads');
    if (!this.enabled) {
      this.#fields = null;
      reportFallback('lent-reads', `${FORCE_FALLBACK_ENV} forces it`);
    }
  }

  /** The buffer every lent socket of the base reads into. */
  get buffer(): Buffer {
    return (this.#buf ??= Buffer.allocUnsafeSlow(LANDING_BYTES));
  }

  /** A new, unconnected socket whose reads are lent (the public `onread` option). */
  connectingSocket(cb: LentRead): Socket {
    // net.connect() takes `onread` for the socket it creates, and so does the Socket constructor
    // it passes its options to (@types/node lists it only for connect: a variable, not a literal).
    const options = { allowHalfOpen: true, onread: { buffer: this.buffer, callback: cb } };
    return new Socket(options);
  }

  /**
   * Lends the reads of `sock`, a plain socket that nothing has read from:
   * from now on its bytes go to `cb`, and pausing and resuming the socket
   * stops and starts reading on the handle. Returns false (and changes
   * nothing) when it cannot be: a TLS or other derived socket, bytes already
   * buffered or a `'data'` listener, an ended or destroyed socket, a
   * socket lent already, or a runtime without the fields.
   */
  lend(sock: Socket, cb: LentRead): boolean {
    if (Object.getPrototypeOf(sock) !== Socket.prototype) return false;
    if (sock.destroyed || sock.readableEnded || sock.readableLength > 0 || sock.listenerCount('data') > 0) return false;
    const f = this.#lookup(sock);
    if (f === null) return false;
    const handle = (sock as unknown as { _handle?: LendableHandle | null })._handle;
    if (handle === null || handle === undefined) return false; // not open
    if (typeof handle.useUserBuffer !== 'function') {
      reportFallback('lent-reads', "this runtime's socket handles have no useUserBuffer()");
      return false;
    }
    const slots = sock as unknown as Record<symbol, unknown>;
    if (slots[f.buffer] !== null || slots[f.callback] !== null) return false; // lent already, or not Node's shape
    const buf = this.buffer;
    slots[f.generator] = null;
    slots[f.callback] = cb;
    slots[f.buffer] = buf;
    handle.useUserBuffer(buf);
    return true;
  }

  /** Finds Node's `onread` fields on a socket (the same symbols on every socket of this process). */
  #lookup(sock: Socket): OnreadFields | null {
    if (this.#fields !== undefined) return this.#fields;
    let buffer: symbol | undefined;
    let callback: symbol | undefined;
    let generator: symbol | undefined;
    for (const s of Object.getOwnPropertySymbols(sock)) {
      if (s.description === 'kBuffer') buffer = s;
      else if (s.description === 'kBufferCb') callback = s;
      else if (s.description === 'kBufferGen') generator = s;
    }
    this.#fields =
      buffer !== undefined && callback !== undefined && generator !== undefined
        ? { buffer, callback, generator }
        : null;
    if (this.#fields === null) reportFallback('lent-reads', "this runtime's net.Socket has no onread fields");
    return this.#fields;
  }
}

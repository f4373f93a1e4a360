/**
 * The `node:http` adapter: a `(req, res)` handler serving an API. It reads
 * the body up to `MAX_BODY_SIZE` (a larger declared body is answered 413 at
 * once, a chunked one as soon as it passes the limit, and the connection
 * closes with a lingering half-close so that the client reads the 413),
 * runs the API's request cycle and writes the rendered response.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RawRequest } from '../contracts.js';
import { RequestTooLarge } from '../errors.js';
import { logInternalError } from '../log.js';
import type { RenderedResponse } from '../response.js';
import { exceptionHandler } from '../views.js';
import { authorityOf, originForm, SERVER_ERROR_JSON, unsendable, type ServedApi } from './common.js';

/** How long a refused body may still arrive (and be discarded) after the 413, in ms. */
const LINGER_MS = 2000;

/**
 * A `(req, res)` handler for `node:http` serving `api` (what
 * `RestApi.nodeHandler()` returns). A client that disconnects early has its
 * response dropped; a response node:http cannot send (a header value with a
 * control character, a status outside 100..999) becomes a 500 logged
 * through the API's logger; a failure while writing (or a request cycle
 * that rejects, which `RestApi`'s never does) is logged once with the
 * request id and destroys that connection only: nothing is left to reject
 * unhandled.
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer(nodeHandler(api)).listen(8000, '127.0.0.1'); // the same as api.nodeHandler()
 * ```
 */
export function nodeHandler(api: ServedApi): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const limit = api.settings.MAX_BODY_SIZE;
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      refuseBody(api, req, res, limit);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= limit) {
        chunks.push(c);
        return;
      }
      refused = true;
      req.off('data', onData);
      refuseBody(api, req, res, limit);
    };
    req.on('data', onData);
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (refused) return;
      const headers: [string, string][] = [];
      const rh = req.rawHeaders;
      for (let i = 0; i + 1 < rh.length; i += 2) headers.push([rh[i] as string, rh[i + 1] as string]);
      const url = req.url ?? '/';
      const raw: RawRequest = {
        method: req.method ?? 'GET',
        target: originForm(url),
        authority: authorityOf(url),
        headers,
        body: chunks.length === 0 ? null : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
        secure: (req.socket as { encrypted?: boolean }).encrypted === true,
        remoteAddress: req.socket.remoteAddress ?? null,
        native: req,
      };
      const requestId = api.requestIdOf(raw);
      // Neither callback can throw, so the chain never rejects: handleWithId never rejects, and the
      // guard is for a request cycle that breaks that promise anyway (logged, the connection closed).
      void api.handleWithId(raw, requestId).then(
        (out) => {
          try {
            writeNode(api, req, res, out, requestId);
          } catch (error) {
            abandon(api, raw, res, requestId, error, 'failed to write the response');
          }
        },
        (error: unknown) => abandon(api, raw, res, requestId, error, 'internal error while handling the request'),
      );
    });
  };
}

/** Logs why a request gets no reply (once, with its id) and destroys its response (and so its socket). */
function abandon(
  api: ServedApi,
  raw: RawRequest,
  res: ServerResponse,
  requestId: string | null,
  error: unknown,
  message: string,
): void {
  logInternalError(api.logger, error, raw.method, raw.target, message, requestId);
  res.destroy();
}

/** 413 for a body over the limit, then the connection closes: the rest of the body is never read. */
function refuseBody(api: ServedApi, req: IncomingMessage, res: ServerResponse, limit: number): void {
  const out = api.render(exceptionHandler(new RequestTooLarge(limit), null), null);
  res.shouldKeepAlive = false;
  res.setHeader('Connection', 'close');
  try {
    writeNode(api, req, res, out, null);
  } catch (error) {
    logInternalError(api.logger, error, req.method ?? null, req.url ?? null, 'failed to write the response');
    res.destroy();
    return;
  }
  // Lingering close: node:http would destroy the socket right after the answer, and closing
  // with the client's body still unread sends a reset that can discard the 413 before the
  // client reads it. Half-close instead, discard what still arrives, and destroy a moment later.
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  req.resume();
}

/** Writes a rendered response on node:http; one it cannot send (a header value, the status) becomes a logged 500. */
function writeNode(
  api: ServedApi,
  req: IncomingMessage,
  res: ServerResponse,
  out: RenderedResponse,
  requestId: string | null,
): void {
  if (res.destroyed) return;
  try {
    const refused = unsendable(out);
    if (refused !== null) throw new Error(refused);
    res.statusCode = out.status;
    for (const [k, v] of out.headers) res.appendHeader(k, v);
  } catch (error) {
    // A status or body no codec can send, a header value node:http refuses (a control character set by a view): 500, logged.
    logInternalError(api.logger, error, req.method ?? null, req.url ?? null, undefined, requestId);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    res.statusCode = 500;
    res.setHeader('Content-Type', 'application/json');
    res.end(SERVER_ERROR_JSON);
    return;
  }
  if (req.method === 'HEAD') {
    // The headers of the GET, Content-Length included (as EventHttp sends them); no body.
    if (out.status >= 200 && out.status !== 204 && out.status !== 304 && !res.hasHeader('Content-Length'))
      res.setHeader('Content-Length', out.body.length);
    res.end();
    return;
  }
  res.end(out.body);
}

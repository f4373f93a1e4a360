/**
 * The EventHttp adapter: serves an API on an `EventHttp` server. Each
 * request becomes a {@link RawRequest} (origin-form target, the authority of
 * an absolute-form target, the body as read by the server), runs through
 * the API's request cycle, and the rendered response is written back
 * without copying its body.
 *
 * @module
 */
import { EventBuffer } from '../../event/buffer.js';
import { EventHttpRequest } from '../../http/request.js';
import type { EventHttp } from '../../http/server.js';
import { statusText } from '../../http/status.js';
import type { RawRequest } from '../contracts.js';
import { logInternalError } from '../log.js';
import type { RenderedResponse } from '../response.js';
import { authorityOf, originForm, SERVER_ERROR_JSON, unsendable, type ServedApi } from './common.js';

const ALL_METHODS =
  EventHttpRequest.CMD_GET |
  EventHttpRequest.CMD_POST |
  EventHttpRequest.CMD_HEAD |
  EventHttpRequest.CMD_PUT |
  EventHttpRequest.CMD_DELETE |
  EventHttpRequest.CMD_OPTIONS |
  EventHttpRequest.CMD_PATCH |
  EventHttpRequest.CMD_TRACE;

const SERVER_ERROR_BODY = Buffer.from(SERVER_ERROR_JSON);

/**
 * Serves `api` on an `EventHttp` server (what `RestApi.serve()` does):
 * installs the default callback, allows every method a view may handle and
 * sets the server's body limit to `MAX_BODY_SIZE`. A response the codec
 * refuses (a header with a control character, a status outside 100..999)
 * becomes a 500 logged through the API's logger; anything else that fails
 * while writing (or a request cycle that rejects, which `RestApi`'s never
 * does) is logged once with the request id and closes that connection
 * only: nothing is left to reject unhandled.
 * @example
 * ```ts
 * serveEventHttp(api, http); // the same as api.serve(http)
 * ```
 */
export function serveEventHttp(api: ServedApi, http: EventHttp): void {
  http.setAllowedMethods(ALL_METHODS);
  http.setMaxBodySize(api.settings.MAX_BODY_SIZE);
  const secure = http.isSecure();
  http.setDefaultCallback((req: EventHttpRequest) => {
    const input = req.hasInputBody() ? req.getInputBuffer() : null;
    const uri = req.getUri();
    const raw: RawRequest = {
      method: req.getMethod(),
      target: originForm(uri),
      authority: authorityOf(uri),
      headers: req.getInputHeaderPairs(),
      body: input !== null && input.length > 0 ? (input.pullup(-1) ?? null) : null,
      secure,
      remoteAddress: peerOf(req),
      native: req,
    };
    const requestId = api.requestIdOf(raw);
    // Neither callback can throw, so the chain never rejects: handleWithId never rejects, and the
    // guard is for a request cycle that breaks that promise anyway (logged, the connection closed).
    void api.handleWithId(raw, requestId).then(
      (out) => {
        try {
          writeEventHttp(api, req, raw, out, requestId);
        } catch (error) {
          abandon(api, req, raw, requestId, error, 'failed to write the response');
        }
      },
      (error: unknown) => abandon(api, req, raw, requestId, error, 'internal error while handling the request'),
    );
  });
}

/** Logs why a request gets no reply (once, with its id) and ends its connection. */
function abandon(
  api: ServedApi,
  req: EventHttpRequest,
  raw: RawRequest,
  requestId: string | null,
  error: unknown,
  message: string,
): void {
  logInternalError(api.logger, error, raw.method, raw.target, message, requestId);
  closeQuietly(req);
}

/** Ends the connection of a request whose response could not be written. */
function closeQuietly(req: EventHttpRequest): void {
  try {
    req.closeConnection();
  } catch {
    // already gone
  }
}

function peerOf(req: EventHttpRequest): string | null {
  const peer = req.getConnection()?.getPeer();
  return peer ? peer.address : null;
}

function writeEventHttp(
  api: ServedApi,
  req: EventHttpRequest,
  raw: RawRequest,
  out: RenderedResponse,
  requestId: string | null,
): void {
  // A status or body the codec cannot send, or a header it refuses (a control character set by a view): 500, logged.
  let refused = unsendable(out);
  if (refused === null) {
    for (const [k, v] of out.headers) {
      if (!req.addHeader(k, v, EventHttpRequest.OUTPUT_HEADER)) {
        refused = `invalid response header ${JSON.stringify(k)}`;
        break;
      }
    }
  }
  if (refused !== null) {
    logInternalError(api.logger, new Error(refused), raw.method, raw.target, undefined, requestId);
    req.clearHeaders();
    req.addHeader('Content-Type', 'application/json', EventHttpRequest.OUTPUT_HEADER);
    out = { status: 500, headers: [], body: SERVER_ERROR_BODY };
  }
  let buf: EventBuffer | null = null;
  if (out.body.length > 0) {
    buf = new EventBuffer();
    buf.addReference(out.body); // the rendered body is never touched again: no copy
  }
  req.sendReply(out.status, statusText(out.status), buf);
}

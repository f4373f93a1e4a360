/**
 * Reporting internal errors: an error that is not an API exception (it
 * becomes a 500) is logged once, through the logger of the API serving the
 * request (`RestApi`'s `logger` option; pino-compatible), with the
 * request's method and path. A request no API serves (a view dispatched
 * directly, in a test) logs to stderr.
 *
 * @module
 */
import { stderrLogger, type HttpLogger } from '../http/log.js';

/**
 * Logs an internal error: `logger.error({ err, method, path, requestId }, message)`
 * (`requestId` only when the request has one). A logger that throws is
 * ignored (it must not take the server down).
 * @internal
 */
export function logInternalError(
  logger: HttpLogger | null | undefined,
  error: unknown,
  method: string | null,
  path: string | null,
  message = 'internal error while handling the request',
  requestId: string | null = null,
): void {
  try {
    const entry: Record<string, unknown> = { err: error, method: method ?? undefined, path: path ?? undefined };
    if (requestId !== null) entry['requestId'] = requestId;
    (logger ?? stderrLogger()).error(entry, message);
  } catch {
    /* a failing logger must not take the server down */
  }
}

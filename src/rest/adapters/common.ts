/**
 * What the two transport adapters share: the shape of the API they serve
 * ({@link ServedApi}, which `RestApi` implements) and the reading of a
 * request-target (origin form for the request cycle, the authority of an
 * absolute-form target for the host).
 *
 * @module
 */
import type { HttpLogger } from '../../http/log.js';
import type { ApiRequest, ApiResponse, RawRequest, Settings } from '../contracts.js';
import type { RenderedResponse } from '../response.js';

/**
 * The API an adapter serves: its settings (`MAX_BODY_SIZE`), its logger,
 * and the request cycle (`RestApi`). The adapter takes the request's id
 * first (`requestIdOf`) and hands it to the cycle (`handleWithId`), so that
 * what it logs itself carries the id too.
 * @internal
 */
export interface ServedApi {
  readonly settings: Settings;
  readonly logger: HttpLogger;
  requestIdOf(raw: RawRequest): string | null;
  handleWithId(raw: RawRequest, requestId: string | null): Promise<RenderedResponse>;
  render(response: ApiResponse, request: ApiRequest | null): RenderedResponse;
}

const ABSOLUTE_FORM = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * `http://host/path?q` -> `/path?q`; origin-form as it is.
 * @internal
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 47) return target;
  const m = ABSOLUTE_FORM.exec(target);
  if (m === null) return target === '*' ? '/' : target;
  const rest = target.slice(m[0].length);
  return rest === '' || rest.charCodeAt(0) !== 47 ? '/' + rest : rest;
}

/**
 * The authority of an absolute-form target (`http://h:1/x` -> `h:1`), else null.
 * @internal
 */
export function authorityOf(target: string): string | null {
  if (target.charCodeAt(0) === 47) return null;
  const m = ABSOLUTE_FORM.exec(target);
  return m === null ? null : (m[1] as string);
}

/**
 * The `{"detail": "A server error occurred."}` body an adapter sends when a
 * response cannot be written as rendered.
 * @internal
 */
export const SERVER_ERROR_JSON = '{"detail":"A server error occurred."}';

/**
 * Why no HTTP codec can send this rendered response (a status outside
 * 100..999, a body that is not bytes), or null when it can. Both adapters
 * answer such a response with a logged 500, as they do a refused header.
 * @internal
 */
export function unsendable(out: RenderedResponse): string | null {
  const status = out.status;
  if (!(Number.isInteger(status) && status >= 100 && status <= 999))
    return `invalid response status ${JSON.stringify(status) ?? typeof status}`;
  if (!(out.body instanceof Uint8Array)) return `invalid response body (${typeof out.body}, not bytes)`;
  return null;
}

/**
 * The response a view returns: data to render, a status and headers. The
 * view's content negotiation picks the renderer; the adapter writes the
 * rendered bytes to the transport.
 *
 * @module
 */
import type { ApiRequest, ApiResponse, Renderer } from './contracts.js';

export type { ApiResponse } from './contracts.js';

/**
 * A response of the web API. `data` is rendered by the negotiated renderer
 * (JSON by default); headers keep the case they were set with.
 * @example
 * ```ts
 * const created = new Response({ detail: 'Created.' }, { status: 201, headers: { Location: '/items/7/' } });
 * ```
 */
export class Response<T = unknown> implements ApiResponse<T> {
  /** What the renderer serializes. */
  data: T;
  /** The HTTP status. */
  status: number;
  /** Set when this response was built from an exception. */
  exception = false;
  /** A template name for HTML renderers (the browsable interface ignores it for JSON). */
  templateName: string | null;
  /** Overrides the renderer's media type in `Content-Type`. */
  contentType: string | null;
  /** The renderer content negotiation chose (set by the view). */
  renderer: Renderer | null = null;
  /** The accepted media type with its parameters (set by the view). */
  mediaType: string | null = null;
  /** The request answered (set by the view). */
  request: ApiRequest | null = null;
  /** The view instance that produced the response (set by the view). */
  view: unknown = null;
  readonly #headers = new Map<string, [string, string]>();

  constructor(
    data: T,
    options: { status?: number; headers?: Record<string, string>; contentType?: string; templateName?: string } = {},
  ) {
    this.data = data;
    this.status = options.status ?? 200;
    this.contentType = options.contentType ?? null;
    this.templateName = options.templateName ?? null;
    if (options.headers) for (const [k, v] of Object.entries(options.headers)) this.setHeader(k, v);
  }

  /** Sets a header, replacing any value it had. */
  setHeader(name: string, value: string): this {
    this.#headers.set(name.toLowerCase(), [name, value]);
    return this;
  }

  /** The value of a header, or `null`. */
  getHeader(name: string): string | null {
    return this.#headers.get(name.toLowerCase())?.[1] ?? null;
  }

  /** Whether a header is set. */
  hasHeader(name: string): boolean {
    return this.#headers.has(name.toLowerCase());
  }

  /** Removes a header. */
  deleteHeader(name: string): this {
    this.#headers.delete(name.toLowerCase());
    return this;
  }

  /**
   * Adds field names to `Vary` without repeating one already there
   * (compared case-insensitively).
   * @example
   * ```ts
   * response.addVary('Accept'); response.addVary('accept', 'Host'); // Vary: Accept, Host
   * ```
   */
  addVary(...names: string[]): this {
    const current = this.getHeader('Vary');
    // The usual case: no Vary yet, one name.
    if (current === null && names.length === 1) return this.setHeader('Vary', names[0]!);
    const list = current
      ? current
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
    const seen = new Set(list.map((s) => s.toLowerCase()));
    for (const n of names) {
      if (!seen.has(n.toLowerCase())) {
        seen.add(n.toLowerCase());
        list.push(n);
      }
    }
    if (list.length) this.setHeader('Vary', list.join(', '));
    return this;
  }

  /** Every header as `[name, value]` in the order first set. */
  headerEntries(): [string, string][] {
    return [...this.#headers.values()].map(([k, v]) => [k, v]);
  }
}

/**
 * A response ready for the wire: what an adapter writes.
 * @example
 * ```ts
 * const raw: RawRequest = { method: 'GET', target: '/items/', headers: [['Host', 'localhost']], body: null, secure: false };
 * const out: RenderedResponse = await api.handle(raw);
 * socket.write(`HTTP/1.1 ${out.status}\r\n`);
 * ```
 */
export interface RenderedResponse {
  /** The HTTP status. */
  status: number;
  /** The header fields, `Content-Type` included. */
  headers: [string, string][];
  /** The body (empty for HEAD and 204/304). */
  body: Buffer;
}

/**
 * Response compression: the `COMPRESSION` setting. A rendered response whose
 * media type compresses well (text, JSON, XML, YAML, JavaScript, SVG...) gets
 * `Vary: Accept-Encoding`, and when its body reaches the threshold and the
 * client's `Accept-Encoding` prefers a coding to `identity`, the body is
 * compressed with brotli or gzip (`node:zlib`): `Content-Encoding` is set,
 * the transport's `Content-Length` is the compressed length, and a strong
 * `ETag` becomes weak. Bodies up to 64 KiB are compressed synchronously
 * (well under a millisecond), larger ones on the zlib thread pool, so a big
 * response never blocks the event loop.
 *
 * Left alone: 1xx, 204 and 304 responses, a response that already has a
 * `Content-Encoding` or `Content-Range`, `Cache-Control: no-transform`, a
 * media type that does not compress (images, audio, archives...), a
 * compressed body that would not be smaller. A HEAD response gets the
 * headers (and `Content-Length`) of its GET; the transport drops the body.
 *
 * @module
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions } from 'node:zlib';
import type { CompressionSettings, ContentCoding } from './contracts.js';
import { ImproperlyConfigured } from './errors.js';
import type { RenderedResponse } from './response.js';

export type { CompressionSettings, ContentCoding } from './contracts.js';

/**
 * The defaults of the `COMPRESSION` setting's fields.
 * @example
 * ```ts
 * COMPRESSION_DEFAULTS.threshold; // 1024
 * ```
 */
export const COMPRESSION_DEFAULTS: Readonly<Required<CompressionSettings>> = Object.freeze({
  threshold: 1024,
  encodings: Object.freeze(['br', 'gzip'] as ContentCoding[]),
  gzipLevel: 6,
  brotliQuality: 4,
});

/** Bodies up to this size are compressed synchronously; larger ones on the zlib thread pool. */
const SYNC_LIMIT = 64 * 1024;

const CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/** Media types (without parameters) that compress well besides `text/*` and `+json`, `+xml`, `+yaml`. */
const COMPRESSIBLE: ReadonlySet<string> = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/vnd.oai.openapi',
  'application/x-ndjson',
  'application/graphql',
  'application/x-www-form-urlencoded',
  'application/wasm',
  'font/ttf',
  'font/otf',
]);

/**
 * Whether a response of this `Content-Type` is worth compressing: text,
 * JSON, XML, YAML, JavaScript, SVG and a few more; not images, audio,
 * video, fonts already compressed, archives, or an unknown type.
 * @example
 * ```ts
 * isCompressibleType('application/json; charset=utf-8'); // true
 * isCompressibleType('image/png'); // false
 * ```
 */
export function isCompressibleType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const base = (contentType.split(';')[0] as string).trim().toLowerCase();
  return base.startsWith('text/') || /\+(json|xml|yaml)$/.test(base) || COMPRESSIBLE.has(base);
}

/**
 * The coding to answer with for an `Accept-Encoding` value (RFC 9110
 * 12.5.3), among `available` (in order of preference), or `null` for
 * `identity`. q-values are honoured (`;q=0` refuses a coding), `*` stands
 * for every coding not listed, `x-gzip` is `gzip`; among equally acceptable
 * codings the first of `available` wins, and `identity` wins only when the
 * client ranks it (or `*`) above every coding offered. No header, or an empty one, means `identity`.
 * @example
 * ```ts
 * negotiateEncoding('gzip, deflate, br', ['br', 'gzip']); // 'br'
 * negotiateEncoding('br;q=0.5, gzip', ['br', 'gzip']); // 'gzip'
 * negotiateEncoding('*;q=0, identity', ['br', 'gzip']); // null
 * ```
 */
export function negotiateEncoding(
  acceptEncoding: string | null | undefined,
  available: readonly ContentCoding[] = COMPRESSION_DEFAULTS.encodings,
): ContentCoding | null {
  if (acceptEncoding == null) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [token = '', ...params] = part.split(';');
    let name = token.trim().toLowerCase();
    if (name === '') continue;
    if (name === 'x-gzip') name = 'gzip';
    let q = 1;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const text = p.slice(eq + 1).trim();
      // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); anything else refuses the coding.
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : 0;
    }
    weights.set(name, Math.max(q, weights.get(name) ?? 0));
  }
  const star = weights.get('*');
  // identity is always acceptable unless refused, but it beats a coding only when the client ranks it higher.
  const weight = (name: string): number => weights.get(name) ?? star ?? 0;
  let best: ContentCoding | null = null;
  let bestQ = 0;
  for (const coding of available) {
    const q = weight(coding);
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best !== null && bestQ >= weight('identity') ? best : null;
}

/**
 * Validates the `COMPRESSION` setting and fills in its defaults (`null`
 * stays `null`). Throws {@link ImproperlyConfigured}.
 * @internal
 */
export function compressionSettings(input: unknown): Readonly<Required<CompressionSettings>> | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input))
    throw new ImproperlyConfigured(
      `COMPRESSION must be an object ({} for the defaults) or null, not ${Array.isArray(input) ? 'an array' : typeof input}.`,
    );
  const o = input as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!(key in COMPRESSION_DEFAULTS))
      throw new ImproperlyConfigured(
        `Unknown COMPRESSION field ${key} (known: ${Object.keys(COMPRESSION_DEFAULTS).join(', ')}).`,
      );
  const int = (key: keyof CompressionSettings, min: number, max: number): number => {
    const v = o[key] ?? COMPRESSION_DEFAULTS[key];
    if (!(typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max))
      throw new ImproperlyConfigured(
        `COMPRESSION.${key} must be an integer from ${min} to ${max}, not ${JSON.stringify(v) ?? typeof v}.`,
      );
    return v;
  };
  const encodings = o.encodings ?? COMPRESSION_DEFAULTS.encodings;
  if (
    !Array.isArray(encodings) ||
    !encodings.every((e) => CODINGS.includes(e as ContentCoding)) ||
    new Set(encodings).size !== encodings.length
  )
    throw new ImproperlyConfigured(
      `COMPRESSION.encodings must be a list of distinct codings among ${CODINGS.map((c) => `'${c}'`).join(', ')}.`,
    );
  return Object.freeze({
    threshold: int('threshold', 0, Number.MAX_SAFE_INTEGER),
    encodings: Object.freeze([...(encodings as ContentCoding[])]),
    gzipLevel: int('gzipLevel', 1, 9),
    brotliQuality: int('brotliQuality', 0, 11),
  });
}

/**
 * Adds a field name to the `Vary` header of a header list (a copy) unless
 * it is already there or `Vary` is `*`.
 * @internal
 */
export function withVary(headers: readonly [string, string][], name: string): [string, string][] {
  const out = headers.slice();
  const i = out.findIndex(([k]) => k.toLowerCase() === 'vary');
  if (i < 0) {
    out.push(['Vary', name]);
    return out;
  }
  const [key, value] = out[i] as [string, string];
  const names = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (!names.includes('*') && !names.includes(name.toLowerCase()))
    out[i] = [key, value.trim() === '' ? name : `${value}, ${name}`];
  return out;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function brotliOptions(quality: number, size: number): BrotliOptions {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  };
}

/**
 * Compresses a rendered response as the request's `Accept-Encoding` asks
 * (see the module): the same response with `Vary: Accept-Encoding` when
 * its media type compresses, and the compressed body with
 * `Content-Encoding` when it is large enough and a coding is accepted.
 * Synchronous for bodies up to 64 KiB, a promise for larger ones. Never
 * rejects: a zlib failure leaves the body as it is.
 * @example
 * ```ts
 * declare const raw: RawRequest;
 * const out = await compressResponse(await api.handle(raw), raw, { threshold: 512 });
 * ```
 */
export function compressResponse(
  out: RenderedResponse,
  request: { readonly headers: readonly (readonly [string, string])[] },
  settings: CompressionSettings = COMPRESSION_DEFAULTS,
): RenderedResponse | Promise<RenderedResponse> {
  if (out.status < 200 || out.status === 204 || out.status === 304) return out;
  let contentType: string | null = null;
  for (const [k, v] of out.headers) {
    const name = k.toLowerCase();
    if (name === 'content-type') contentType = v;
    else if (name === 'content-encoding' && v.trim().toLowerCase() !== 'identity') return out;
    else if (name === 'content-range') return out;
    else if (name === 'cache-control' && /(^|,)\s*no-transform\s*(,|$)/i.test(v)) return out;
  }
  if (!isCompressibleType(contentType)) return out;
  const headers = withVary(out.headers, 'Accept-Encoding');
  const plain: RenderedResponse = { status: out.status, headers, body: out.body };
  const size = out.body.length;
  if (size === 0 || size < (settings.threshold ?? COMPRESSION_DEFAULTS.threshold)) return plain;
  let accept: string | null = null;
  for (const [k, v] of request.headers)
    if (k.toLowerCase() === 'accept-encoding') accept = accept === null ? v : `${accept}, ${v}`;
  const coding = negotiateEncoding(accept, settings.encodings ?? COMPRESSION_DEFAULTS.encodings);
  if (coding === null) return plain;
  const finish = (body: Buffer): RenderedResponse => {
    if (body.length >= size) return plain;
    const encoded: [string, string][] = [];
    for (const [k, v] of headers) {
      const name = k.toLowerCase();
      if (name === 'content-length') continue; // the transport sets the compressed length
      encoded.push(name === 'etag' && !v.startsWith('W/') ? [k, `W/${v}`] : [k, v]);
    }
    encoded.push(['Content-Encoding', coding]);
    return { status: out.status, headers: encoded, body };
  };
  const level = settings.gzipLevel ?? COMPRESSION_DEFAULTS.gzipLevel;
  const quality = settings.brotliQuality ?? COMPRESSION_DEFAULTS.brotliQuality;
  if (size <= SYNC_LIMIT) {
    try {
      return finish(
        coding === 'br' ? brotliCompressSync(out.body, brotliOptions(quality, size)) : gzipSync(out.body, { level }),
      );
    } catch {
      return plain;
    }
  }
  const pending =
    coding === 'br' ? brotliAsync(out.body, brotliOptions(quality, size)) : gzipAsync(out.body, { level });
  return pending.then(finish, () => plain);
}

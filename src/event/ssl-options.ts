/**
 * The options of an `EventSslContext`: their types, and reading the options
 * object (or `Map`) keyed by the `OPT_*` numbers into normalised settings,
 * with PHP's reading of flags and a warning for every unknown key.
 *
 * @module
 */
import { createEventError, warn } from './errors.js';
import { SSL_OPTIONS } from './ssl-constants.js';

/**
 * The value of one `EventSslContext.OPT_*` option: a path or cipher list
 * (string), a flag (boolean; numbers and strings are read as PHP reads
 * them: `0`, `''` and `'0'` are false) or the verify depth (number).
 *
 * @example
 * ```ts
 * const v: EventSslOptionValue = true;
 * ```
 */
export type EventSslOptionValue = string | number | boolean;

/**
 * The options of an `EventSslContext`: an object keyed by the
 * `EventSslContext.OPT_*` numbers, or a `Map` from those numbers to values.
 *
 * @example
 * ```ts
 * const opts: EventSslContextOptions = {
 *   [EventSslContext.OPT_LOCAL_CERT]: '/etc/app/cert.pem',
 *   [EventSslContext.OPT_LOCAL_PK]: '/etc/app/key.pem',
 * };
 * ```
 */
export type EventSslContextOptions =
  Readonly<Record<number, EventSslOptionValue>> | ReadonlyMap<number, EventSslOptionValue>;

/**
 * What the options of a context say, normalised.
 * @internal
 */
export interface Settings {
  localCert: string | null;
  localPk: string | null;
  passphrase: string | null;
  caFile: string | null;
  caPath: string | null;
  allowSelfSigned: boolean;
  verifyPeer: boolean | null;
  verifyDepth: number | null;
  ciphers: string | null;
  noTls12: boolean;
  cipherServerPreference: boolean;
  requireClientCert: boolean;
  verifyClientOnce: boolean;
}

/** PHP-like truthiness of an option value. */
function truthy(v: EventSslOptionValue): boolean {
  if (typeof v === 'string') return v !== '' && v !== '0';
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  return v;
}

/**
 * Normalises the options object or map; warns about unknown keys and
 * invalid depths, throws for something that is neither an object nor a map.
 * @internal
 * @example
 * ```ts
 * const s = parseOptions({ [EventSslContext.OPT_VERIFY_PEER]: '0' });
 * s.verifyPeer; // false
 * ```
 */
export function parseOptions(options: EventSslContextOptions): Settings {
  const s: Settings = {
    localCert: null,
    localPk: null,
    passphrase: null,
    caFile: null,
    caPath: null,
    allowSelfSigned: false,
    verifyPeer: null,
    verifyDepth: null,
    ciphers: null,
    noTls12: false,
    cipherServerPreference: false,
    requireClientCert: false,
    verifyClientOnce: false,
  };
  if (options === null || typeof options !== 'object') {
    throw createEventError('ERR_EVENT_INVALID_ARGUMENT', 'EventSslContext options must be an object or a Map');
  }
  const entries: [number | string, unknown][] =
    options instanceof Map
      ? [...(options as ReadonlyMap<number, unknown>)]
      : Object.entries(options).map(([k, v]): [number | string, unknown] => [/^-?\d+$/.test(k) ? Number(k) : k, v]);

  for (const [key, raw] of entries) {
    if (raw === undefined || raw === null) continue;
    const value: EventSslOptionValue =
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- an option value of any other type is shown as text
      typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : String(raw);
    const str = (): string => String(value);
    switch (key) {
      case SSL_OPTIONS.OPT_LOCAL_CERT:
        s.localCert = str();
        break;
      case SSL_OPTIONS.OPT_LOCAL_PK:
        s.localPk = str();
        break;
      case SSL_OPTIONS.OPT_PASSPHRASE:
        s.passphrase = str();
        break;
      case SSL_OPTIONS.OPT_CA_FILE:
        s.caFile = str();
        break;
      case SSL_OPTIONS.OPT_CA_PATH:
        s.caPath = str();
        break;
      case SSL_OPTIONS.OPT_ALLOW_SELF_SIGNED:
        s.allowSelfSigned = truthy(value);
        break;
      case SSL_OPTIONS.OPT_VERIFY_PEER:
        s.verifyPeer = truthy(value);
        break;
      case SSL_OPTIONS.OPT_VERIFY_DEPTH: {
        const depth = typeof value === 'boolean' ? Number.NaN : Number(value);
        if (Number.isInteger(depth) && depth >= 0) s.verifyDepth = depth;
        else warn('ERR_EVENT_INVALID_ARGUMENT', `Invalid verify depth: ${str()}`);
        break;
      }
      case SSL_OPTIONS.OPT_CIPHERS:
        s.ciphers = str();
        break;
      case SSL_OPTIONS.OPT_NO_SSLv2:
      case SSL_OPTIONS.OPT_NO_SSLv3:
      case SSL_OPTIONS.OPT_NO_TLSv1:
      case SSL_OPTIONS.OPT_NO_TLSv1_1:
        break; // those versions are never enabled
      case SSL_OPTIONS.OPT_NO_TLSv1_2:
        s.noTls12 = truthy(value);
        break;
      case SSL_OPTIONS.OPT_CIPHER_SERVER_PREFERENCE:
        s.cipherServerPreference = truthy(value);
        break;
      case SSL_OPTIONS.OPT_REQUIRE_CLIENT_CERT:
        s.requireClientCert = truthy(value);
        break;
      case SSL_OPTIONS.OPT_VERIFY_CLIENT_ONCE:
        s.verifyClientOnce = truthy(value);
        break;
      default:
        warn('ERR_EVENT_INVALID_ARGUMENT', `Unknown option ${String(key)}`);
    }
  }
  return s;
}

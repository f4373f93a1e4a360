/**
 * Hyperlinked relations: {@link HyperlinkedRelatedField} (the URL of a
 * related object; as input, a URL resolved back to the object) and
 * {@link HyperlinkedIdentityField} (the URL of the object itself). They
 * call `reverse()` with the request from the serializer context, so the
 * links are absolute and follow the request's versioning scheme (version
 * kwarg, namespace, `?version=`).
 *
 * @module
 */
import { ConfigurationError, ImproperlyConfigured, NoReverseMatch, ValidationError } from './errors.js';
import type { Request } from './request.js';
import { INVALID_POSITION, type Queryset } from './data/source.js';
import { Field, isThenable, pyTypeName, type FieldCall, type FieldOptions } from './fields.js';
import { reverse } from './reverse.js';

/**
 * Options of the hyperlinked fields.
 * @example
 * ```ts
 * const o: HyperlinkOptions = { viewName: 'item-detail', lookupField: 'id', lookupUrlKwarg: 'pk' };
 * ```
 */
export interface HyperlinkOptions {
  /** The route name to reverse (without version namespace: the scheme adds it). */
  viewName: string;
  /** The object attribute holding the lookup value; `'pk'` (the default) reads `pk`, else `id`. */
  lookupField?: string;
  /** The URL keyword argument receiving it (default: `lookupField`). */
  lookupUrlKwarg?: string;
  /** A format suffix forced when the context has a format (DRF's rule). */
  format?: string | null;
}

/**
 * The options of a {@link HyperlinkedRelatedField}.
 * @example
 * ```ts
 * const o: HyperlinkedRelatedFieldOptions = { viewName: 'item-detail', readOnly: true, many: true };
 * ```
 */
export interface HyperlinkedRelatedFieldOptions extends HyperlinkOptions, FieldOptions {
  /** A list of related objects (a list of URLs). */
  many?: boolean;
  /** With `many`, whether an empty list is valid input (default true). */
  allowEmpty?: boolean;
  /** Looks a related object up from the URL's lookup value (input). */
  getObject?: (lookupValue: unknown, kwargs: Record<string, unknown>) => unknown;
  /** Looks related objects up by `lookupField` (input, async only). */
  queryset?: Queryset<object>;
}

/** The lookup value of an object (or the value itself when it is not an object). */
function lookupValueOf(obj: unknown, lookupField: string): unknown {
  if (typeof obj !== 'object' || obj === null) return obj;
  const o = obj as Record<string, unknown>;
  if (lookupField === 'pk' && !('pk' in o)) return o['id'];
  return o[lookupField];
}

/**
 * The URL of a related object (by default its `pk`/`id`), or of several
 * with `many: true`. Output needs the request in the context and is
 * absolute and versioned. Input (unless read-only) takes such a URL (or
 * path), resolves it, requires the same route (the request's version
 * namespace under `NamespaceVersioning`) and looks the object up with
 * `getObject(lookupValue, kwargs)` (sync, or async under `isValidAsync()`)
 * or `queryset` (async only).
 * @example
 * ```ts
 * type Order = { id: number; item: Item };
 * class OrderSerializer extends Serializer<Order> {
 *   static override fields = {
 *     item: new HyperlinkedRelatedField({ viewName: 'item-detail', getObject: (pk) => rows.find((r) => r.id === Number(pk)) }),
 *   };
 * }
 * ```
 */
export class HyperlinkedRelatedField<
  const O extends HyperlinkedRelatedFieldOptions = HyperlinkedRelatedFieldOptions,
> extends Field<unknown, O extends { readonly many: true } ? string[] : string, O> {
  readonly viewName: string;
  readonly lookupField: string;
  readonly lookupUrlKwarg: string;
  readonly format: string | null;
  readonly many: boolean;
  readonly allowEmpty: boolean;
  readonly #getObject: ((lookupValue: unknown, kwargs: Record<string, unknown>) => unknown) | null;
  readonly #queryset: Queryset<object> | null;

  constructor(options: O) {
    super(options);
    if (typeof options.viewName !== 'string' || options.viewName === '')
      throw new ConfigurationError(`${new.target.name} needs a viewName.`);
    this.viewName = options.viewName;
    this.lookupField = options.lookupField ?? 'pk';
    this.lookupUrlKwarg = options.lookupUrlKwarg ?? this.lookupField;
    this.format = options.format ?? null;
    this.many = options.many ?? false;
    this.allowEmpty = options.allowEmpty ?? true;
    this.#getObject = options.getObject ?? null;
    this.#queryset = options.queryset ?? null;
    const lookup = this.#getObject !== null || this.#queryset !== null;
    if (new.target !== HyperlinkedIdentityField) {
      if (!this.readOnly && !lookup)
        throw new ConfigurationError(
          'A HyperlinkedRelatedField needs getObject or queryset for input, or readOnly: true.',
        );
      if (this.readOnly && lookup)
        throw new ConfigurationError('A read-only HyperlinkedRelatedField takes no getObject or queryset.');
    }
  }

  /** The URL of one object, or `null` when its lookup value is empty. Override for custom URLs. */
  getUrl(obj: unknown, viewName: string, request: Request, format: string | null): string | null {
    const value = lookupValueOf(obj, this.lookupField);
    if (value === null || value === undefined || value === '') return null;
    return reverse(viewName, { kwargs: { [this.lookupUrlKwarg]: value }, request, format });
  }

  /** Typed as a URL (a list of them with `many`); a related object without a lookup value gives `null`, as in DRF. */
  override toRepresentation(value: unknown, call: FieldCall): O extends { readonly many: true } ? string[] : string {
    type Out = O extends { readonly many: true } ? string[] : string;
    const request = call.context.request;
    if (!request) {
      throw new ConfigurationError(
        `${this.constructor.name} requires the request in the serializer context. Add { context: { request } } when creating the serializer.`,
      );
    }
    let format = call.context.format ?? null;
    if (format && this.format && this.format !== format) format = this.format;
    if (this.many) {
      if (!Array.isArray(value))
        throw new ConfigurationError(`Field '${call.fieldName}' has many: true but its value is not an array.`);
      return value.map((v) => this.#one(v, request, format)) as Out;
    }
    return this.#one(value, request, format) as Out;
  }

  #one(value: unknown, request: Request, format: string | null): string | null {
    try {
      return this.getUrl(value, this.viewName, request, format);
    } catch (cause) {
      if (!(cause instanceof NoReverseMatch)) throw cause;
      throw new ImproperlyConfigured(
        `Could not resolve URL for hyperlinked relationship using view name "${this.viewName}". The related route may be missing from your URL configuration, or the lookupField of this field may be wrong.`,
        { cause },
      );
    }
  }

  /** Looks the object up from the matched route's keyword arguments (DRF's `get_object`). */
  getObject(_viewName: string, _args: readonly string[], kwargs: Record<string, unknown>): unknown {
    if (!(this.lookupUrlKwarg in kwargs))
      throw new ImproperlyConfigured(
        `The route of "${this.viewName}" has no keyword argument '${this.lookupUrlKwarg}' (lookupUrlKwarg).`,
      );
    const value = kwargs[this.lookupUrlKwarg];
    if (this.#getObject !== null) return this.#getObject(value, kwargs);
    const qs = this.#queryset as Queryset<object>;
    const field = this.lookupField === 'pk' ? qs.primaryKey : this.lookupField;
    // A value the column cannot hold (an id past its integer range) names no object: it never reaches SQL.
    if (qs.parsePosition(field, String(value)) === INVALID_POSITION) return Promise.resolve(undefined);
    return qs
      .filter(field, 'eq', value)
      .slice(0, 1)
      .then((rows) => rows[0]);
  }

  override toInternalValue(data: unknown, call: FieldCall): unknown {
    if (!this.many) return this.#parseOne(data, call);
    if (typeof data === 'string' || !Array.isArray(data))
      throw new ValidationError(`Expected a list of items but got type "${pyTypeName(data)}".`);
    if (data.length === 0 && !this.allowEmpty) throw new ValidationError('This list may not be empty.');
    const out = data.map((d) => this.#parseOne(d, call));
    return call.async && out.some(isThenable) ? Promise.all(out) : out;
  }

  #parseOne(data: unknown, call: FieldCall): unknown {
    if (typeof data !== 'string')
      throw new ValidationError(`Incorrect type. Expected URL string, received ${pyTypeName(data)}.`);
    let p = data;
    if (p.startsWith('http:') || p.startsWith('https:')) p = urlPath(p);
    p = unquote(p);
    const request = call.context.request ?? null;
    const urlconf = request?.urlconf ?? null;
    if (urlconf === null) {
      throw new ConfigurationError(
        `${this.constructor.name} needs the request of a RestApi in the serializer context to resolve a hyperlink. Add { context: { request } } when creating the serializer.`,
      );
    }
    const match = urlconf.resolve(p);
    if (match === null) throw new ValidationError('Invalid hyperlink - No URL match.');
    const scheme = request?.versioningScheme as
      { getVersionedViewName?: (v: string, r: Request) => string } | null | undefined;
    const expected =
      request && typeof scheme?.getVersionedViewName === 'function'
        ? scheme.getVersionedViewName(this.viewName, request)
        : this.viewName;
    if (match.viewName !== expected) throw new ValidationError('Invalid hyperlink - Incorrect URL match.');
    const missing = (): never => {
      throw new ValidationError('Invalid hyperlink - Object does not exist.');
    };
    let obj: unknown;
    try {
      obj = this.getObject(match.viewName, match.args, match.kwargs);
    } catch (e) {
      if (e instanceof ImproperlyConfigured) throw e;
      return missing();
    }
    if (isThenable(obj)) {
      if (!call.async)
        throw new ConfigurationError(
          `Field '${call.fieldName}' looks objects up asynchronously: call isValidAsync() instead of isValid().`,
        );
      return Promise.resolve(obj).then((o) => (o === undefined || o === null ? missing() : o), missing);
    }
    return obj === undefined || obj === null ? missing() : obj;
  }
}

/**
 * The URL of the object itself (read-only; source `'*'`), e.g. a `url`
 * field pointing at the detail route. Needs the request in the context.
 * @example
 * ```ts
 * class ItemSerializer extends Serializer<Item> {
 *   static override fields = { url: new HyperlinkedIdentityField({ viewName: 'item-detail' }), name: new CharField() };
 * }
 * // { url: 'http://testserver/v1/items/5/', name: 'item-0000005' }
 * ```
 */
export class HyperlinkedIdentityField extends HyperlinkedRelatedField<
  HyperlinkOptions & { readonly source: '*'; readonly readOnly: true }
> {
  constructor(options: HyperlinkOptions) {
    super({ ...options, source: '*', readOnly: true });
  }
}

/** The path of an absolute URL (no normalization, like Python's urlparse). */
function urlPath(url: string): string {
  let i = url.indexOf(':') + 1;
  if (url.startsWith('//', i)) {
    i += 2;
    while (i < url.length && url[i] !== '/' && url[i] !== '?' && url[i] !== '#') i++;
  }
  let end = i;
  while (end < url.length && url[end] !== '?' && url[end] !== '#') end++;
  return url.slice(i, end);
}

/** Python's `unquote`: `%XX` as UTF-8 (malformed escapes kept), `+` unchanged. */
function unquote(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8');
      }
    });
  }
}

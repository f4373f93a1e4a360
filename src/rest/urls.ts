/**
 * URL configuration in Django's style: {@link path} (routes with typed
 * converters, `items/<int:pk>/`), {@link rePath} (regular expressions),
 * {@link include} (nestable, with namespaces) and a {@link URLResolver}
 * that resolves a request path to a view and reverses a view name back to
 * a path.
 *
 * Rules (Django's):
 * - Routes are written without a leading slash and are matched against the
 *   request path minus its leading `/`. Endpoints must match the whole rest
 *   of the path; includes match a prefix and hand the rest to their patterns.
 *   Patterns are tried in order; the first match wins. A converter whose
 *   `toValue()` throws makes its pattern not match (the next one is tried).
 * - Keyword arguments: captured values (converted), then the pattern's
 *   `kwargs` option (which wins over captured values on an endpoint; on an
 *   include, captured values of inner patterns win). Positional `args` come
 *   only from unnamed groups of regex routes without named groups.
 * - Reverse: `ns1:ns2:name` walks namespaces (an application name picks the
 *   instance whose namespace equals it, else the last one deployed). Among
 *   patterns sharing a name, the **last defined is tried first** (Django's
 *   rule). A candidate fits when the keyword names equal its parameters (up
 *   to its default `kwargs`, which must then be equal), every value converts
 *   (`toUrl()`) and every level's pattern fully matches its substituted text.
 *   Mixing `args` and `kwargs` is a {@link ConfigurationError}; no fit is a
 *   {@link NoReverseMatch} listing the patterns tried.
 * - The reversed path is percent-encoded as Django's `iri_to_uri`-style
 *   quoting does: ASCII letters, digits, `_.-~` and `!$&'()*+,;=/:@` stay,
 *   everything else (space, `%`, `?`, `#`, non-ASCII as UTF-8) is escaped; a
 *   leading `//` becomes `/%2F`.
 * - Regex routes accept Python syntax (`(?P<name>...)`, `(?P=name)`, `\Z`,
 *   `\A`) as well as JavaScript's. They are reversible when built from
 *   literals, groups, classes and quantifiers (Django's `normalize`);
 *   alternation outside a capturing group makes a route resolve-only.
 *
 * @module
 */
import { ConfigurationError, ImproperlyConfigured, NoReverseMatch } from './errors.js';
import type { Request } from './request.js';
import type { Response } from './response.js';

/**
 * A view as routes hold it: an async function of the request. `asView()`
 * of a view class returns one carrying the class and its init options.
 * @example
 * ```ts
 * const hello: ViewFunction = async () => new Response({ hello: 'world' });
 * ```
 */
export type ViewFunction = ((request: Request) => Promise<Response>) & { viewClass?: unknown; initkwargs?: Record<string, unknown> };

/**
 * What resolving a path found.
 * @example
 * ```ts
 * const m = resolver.resolve('/v1/items/5/');
 * // m.func, m.kwargs => { pk: 5 }, m.urlName => 'item-detail', m.namespace => 'v1', m.viewName => 'v1:item-detail'
 * ```
 */
export interface ResolverMatch {
  /** The view to call. */
  func: ViewFunction;
  /** Positional arguments (unnamed groups of regex routes without named groups; `''` for a group that did not take part). */
  args: string[];
  /** Keyword arguments: converted captures and the patterns' default `kwargs`. */
  kwargs: Record<string, unknown>;
  /** The endpoint's `name`, or `null`. */
  urlName: string | null;
  /** The route strings of every level joined (`v1/items/<int:pk>/`). */
  route: string;
  /** The instance namespaces from the outermost in. */
  namespaces: string[];
  /** {@link namespaces} joined with `:` (`''` when none). */
  namespace: string;
  /** The application names from the outermost in. */
  appNames: string[];
  /** {@link appNames} joined with `:`. */
  appName: string;
  /** Namespaces and the name joined with `:` (`v1:item-detail`); the function's name when unnamed. */
  viewName: string;
}

/**
 * A path converter: the regex a segment must match, and the conversions
 * both ways. `toValue()` may throw to reject a segment (the pattern then
 * does not match); `toUrl()` may throw to reject a value when reversing.
 * @example
 * ```ts
 * const hex: PathConverter = { regex: '[0-9a-f]+', toValue: (s) => parseInt(s, 16), toUrl: (v) => Number(v).toString(16) };
 * ```
 */
export interface PathConverter {
  readonly regex: string;
  toValue(segment: string): unknown;
  toUrl(value: unknown): string;
}

const intConverter: PathConverter = {
  regex: '[0-9]+',
  toValue(s) {
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new RangeError(`${s} is beyond the safe integer range`);
    return n;
  },
  toUrl: (v) => String(v),
};
const identity = (s: string): string => s;
const stringify = (v: unknown): string => String(v);
const CONVERTERS = new Map<string, PathConverter>([
  ['int', intConverter],
  ['str', { regex: '[^/]+', toValue: identity, toUrl: stringify }],
  ['slug', { regex: '[-a-zA-Z0-9_]+', toValue: identity, toUrl: stringify }],
  ['uuid', { regex: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', toValue: identity, toUrl: stringify }],
  ['path', { regex: '.+', toValue: identity, toUrl: stringify }],
]);

/**
 * Registers a converter for routes (`<name:param>`). Built in: `int` (a JS
 * number; values beyond 2^53 do not match), `str` (`[^/]+`), `slug`,
 * `uuid` (lower-case canonical form, the value stays a string) and `path`
 * (`.+`, slashes included). A name can be registered once; register before
 * building the routes that use it.
 * @example
 * ```ts
 * registerConverter('yyyy', { regex: '[0-9]{4}', toValue: Number, toUrl: (v) => String(v).padStart(4, '0') });
 * const routes = [path('articles/<yyyy:year>/', archive)];
 * ```
 */
export function registerConverter(name: string, converter: PathConverter): void {
  if (CONVERTERS.has(name)) throw new ConfigurationError(`Converter '${name}' is already registered.`);
  if (typeof converter?.regex !== 'string' || typeof converter.toValue !== 'function' || typeof converter.toUrl !== 'function') {
    throw new ConfigurationError('registerConverter() needs { regex: string, toValue(s), toUrl(v) }.');
  }
  new RegExp(converter.regex);
  CONVERTERS.set(name, converter);
}

// ---------------------------------------------------------------- patterns

/** A literal piece of a reversed path, or a parameter to substitute. */
type Token = string | { readonly param: string };

/** One way of writing a level back as text. */
interface Possibility {
  readonly tokens: readonly Token[];
  readonly params: readonly string[];
}

interface MatchResult {
  rest: string;
  args: string[];
  kwargs: Record<string, unknown>;
}

/** One level's pattern (a route or a regex), compiled. */
interface Matcher {
  /** Whether it was written as a `path()` route or a `rePath()` regex. */
  readonly kind?: 'route' | 'regex';
  /** The route or regex as written. */
  readonly describe: string;
  /** The JS regex source, with its leading `^` (Django style, for introspection). */
  readonly source: string;
  /** Regex that must fully match a level's reversed text. */
  readonly full: RegExp;
  /** The ways to write the level back (empty: not reversible). */
  readonly possibilities: readonly Possibility[];
  /** Converters of route parameters by name. */
  readonly converters: ReadonlyMap<string, { name: string; converter: PathConverter }>;
  match(path: string): MatchResult | null;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;
const escapeRegex = (s: string): string => s.replace(REGEX_SPECIAL, '\\$&');
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u;
const ROUTE_PARAM = /<(?:([^>:]+):)?([^>]+)>/g;

function compileRoute(route: string, endpoint: boolean): Matcher {
  let source = '^';
  let full = '';
  const tokens: Token[] = [];
  const params: string[] = [];
  const converters = new Map<string, { name: string; converter: PathConverter }>();
  const groups: string[] = [];
  let last = 0;
  for (const m of route.matchAll(ROUTE_PARAM)) {
    const literal = route.slice(last, m.index);
    source += escapeRegex(literal);
    full += escapeRegex(literal);
    if (literal) tokens.push(literal);
    last = m.index + m[0].length;
    const convName = m[1] ?? 'str';
    const param = m[2] as string;
    if (/\s/.test(m[0])) throw new ImproperlyConfigured(`URL route '${route}' cannot contain whitespace in angle brackets <…>.`);
    if (!IDENTIFIER.test(param)) throw new ImproperlyConfigured(`URL route '${route}' uses parameter name '${param}' which isn't a valid identifier.`);
    const converter = CONVERTERS.get(convName);
    if (converter === undefined) throw new ImproperlyConfigured(`URL route '${route}' uses invalid converter '${convName}'.`);
    if (converters.has(param)) throw new ImproperlyConfigured(`URL route '${route}' uses parameter name '${param}' twice.`);
    converters.set(param, { name: convName, converter });
    const group = `p${groups.length}`;
    groups.push(param);
    source += `(?<${group}>${converter.regex})`;
    full += `(?:${converter.regex})`;
    tokens.push({ param });
    params.push(param);
  }
  const tail = route.slice(last);
  source += escapeRegex(tail) + (endpoint ? '$' : '');
  full += escapeRegex(tail);
  if (tail) tokens.push(tail);
  const regex = new RegExp(source);
  const literalOnly = groups.length === 0;
  return {
    kind: 'route',
    describe: route,
    source,
    full: new RegExp(`^(?:${full})$`),
    possibilities: [{ tokens, params }],
    converters,
    match(path) {
      if (literalOnly) {
        if (endpoint) return path === route ? { rest: '', args: [], kwargs: {} } : null;
        return path.startsWith(route) ? { rest: path.slice(route.length), args: [], kwargs: {} } : null;
      }
      const m = regex.exec(path);
      if (m === null) return null;
      const kwargs: Record<string, unknown> = {};
      const g = m.groups as Record<string, string>;
      for (let i = 0; i < groups.length; i++) {
        const param = groups[i] as string;
        try {
          kwargs[param] = (converters.get(param) as { converter: PathConverter }).converter.toValue(g[`p${i}`] as string);
        } catch {
          return null;
        }
      }
      return { rest: path.slice(m[0].length), args: [], kwargs };
    },
  };
}

/** Python regex syntax to JavaScript: named groups, back-references, `\Z`, `\A`. */
function pythonToJs(source: string): string {
  return source
    .replace(/\(\?P<([^>]+)>/g, '(?<$1>')
    .replace(/\(\?P=([^)]+)\)/g, '\\k<$1>')
    .replace(/\\Z/g, '$')
    .replace(/\\A/g, '^');
}

function compileRegex(input: string | RegExp, endpoint: boolean): Matcher {
  const flags = typeof input === 'string' ? '' : input.flags.replace(/[gy]/g, '');
  const raw = typeof input === 'string' ? input : input.source;
  const source = pythonToJs(raw);
  let regex: RegExp;
  try {
    regex = new RegExp(endpoint && source.endsWith('$') && !source.startsWith('^') ? `^(?:${source})` : source, flags);
  } catch (cause) {
    throw new ImproperlyConfigured(`"${raw}" is not a valid regular expression: ${(cause as Error).message}`, { cause });
  }
  const body = source.startsWith('^') ? source.slice(1) : source;
  let possibilities: Possibility[];
  try {
    possibilities = normalize(source);
  } catch {
    possibilities = [];
  }
  return {
    kind: 'regex',
    describe: raw,
    source: source.startsWith('^') ? source : '^' + source,
    full: new RegExp(`^(?:${body})$`, flags),
    possibilities,
    converters: new Map(),
    match(path) {
      const m = regex.exec(path);
      if (m === null) return null;
      const named = m.groups;
      const kwargs: Record<string, unknown> = {};
      let args: string[] = [];
      if (named !== undefined) {
        for (const [k, v] of Object.entries(named)) if (v !== undefined) kwargs[k] = v;
      } else {
        args = m.slice(1).map((v) => v ?? '');
      }
      return { rest: path.slice(m.index + m[0].length), args, kwargs };
    },
  };
}

// ------------------------------------------------------------ normalize()

/** A parsed piece of a regex for reversing. */
type Piece = { lit: string } | { param: string } | { seq: Piece[] } | { choice: (Piece | null)[] };

class Unreversible extends Error {}

const ESCAPES: Record<string, string | null> = { A: null, b: null, B: null, d: '0', D: 'x', s: ' ', S: 'x', w: 'x', W: '!', Z: null };

/**
 * Django's `normalize`: the ways a regex can be written back as text with
 * parameters (representative characters for classes, zero occurrences for
 * optional parts, both variants for optional groups).
 */
function normalize(source: string): Possibility[] {
  let i = 0;
  let positional = 0;
  const n = source.length;
  const skipGroup = (): void => {
    // i is just after '('; walk to the matching ')'.
    let depth = 1;
    while (i < n) {
      const c = source[i++];
      if (c === '\\') i++;
      else if (c === '[') skipClass();
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return;
    }
    throw new Unreversible('unbalanced group');
  };
  const skipClass = (): void => {
    // i is just after '['.
    if (source[i] === '^') i++;
    if (source[i] === ']') i++;
    while (i < n && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
    i++;
  };
  const parseSeq = (inGroup: boolean): Piece[] => {
    const out: Piece[] = [];
    while (i < n) {
      const c = source[i] as string;
      if (c === ')') {
        if (!inGroup) throw new Unreversible('unbalanced )');
        i++;
        return out;
      }
      i++;
      if (c === '^') continue;
      if (c === '$') {
        i = n;
        break;
      }
      if (c === '|') throw new Unreversible('alternation');
      if (c === '.') out.push({ lit: '.' });
      else if (c === '[') {
        let first = source[i] as string;
        if (first === '\\') {
          const e = source[i + 1] as string;
          first = e in ESCAPES ? (ESCAPES[e] ?? '') : e;
        }
        skipClass();
        out.push({ lit: first });
      } else if (c === '\\') {
        const e = source[i++] as string;
        if (e === 'k') throw new Unreversible('back-reference');
        if (e in ESCAPES) {
          const r = ESCAPES[e];
          if (r !== null && r !== undefined) out.push({ lit: r });
        } else out.push({ lit: e });
      } else if (c === '(') {
        if (source[i] !== '?') {
          out.push({ param: `_${positional++}` });
          skipGroup();
        } else if (source[i + 1] === ':') {
          i += 2;
          out.push({ seq: parseSeq(true) });
        } else if (source[i + 1] === '<' && source[i + 2] !== '=' && source[i + 2] !== '!') {
          const close = source.indexOf('>', i);
          out.push({ param: source.slice(i + 2, close) });
          i = close + 1;
          skipGroup();
        } else if (source[i + 1] === '=' || source[i + 1] === '!' || source[i + 1] === '<') {
          i++;
          skipGroup();
        } else throw new Unreversible('unsupported group');
      } else if (c === '*' || c === '+' || c === '?' || c === '{') {
        const prev = out.pop();
        if (prev === undefined) throw new Unreversible('dangling quantifier');
        let min: number;
        if (c === '{') {
          const close = source.indexOf('}', i);
          const m = /^(\d+)(?:,\d*)?$/.exec(source.slice(i, close));
          if (close < 0 || m === null) {
            out.push(prev, { lit: '{' });
            continue;
          }
          min = Number(m[1]);
          i = close + 1;
        } else min = c === '+' ? 1 : 0;
        if (source[i] === '?' || source[i] === '+') i++; // lazy / possessive
        if (min === 0) {
          if (containsParam(prev)) out.push({ choice: [null, prev] });
        } else for (let k = 0; k < min; k++) out.push(prev);
      } else out.push({ lit: c });
    }
    if (inGroup) throw new Unreversible('unbalanced (');
    return out;
  };
  return flatten({ seq: parseSeq(false) }).map((tokens) => ({ tokens: mergeLiterals(tokens), params: tokens.flatMap((t) => (typeof t === 'string' ? [] : [t.param])) }));
}

function containsParam(p: Piece): boolean {
  if ('param' in p) return true;
  if ('seq' in p) return p.seq.some(containsParam);
  if ('choice' in p) return p.choice.some((c) => c !== null && containsParam(c));
  return false;
}

function flatten(p: Piece | null): Token[][] {
  if (p === null) return [[]];
  if ('lit' in p) return [[p.lit]];
  if ('param' in p) return [[{ param: p.param }]];
  if ('choice' in p) return p.choice.flatMap(flatten);
  let acc: Token[][] = [[]];
  for (const item of p.seq) {
    const next = flatten(item);
    acc = acc.flatMap((a) => next.map((b) => [...a, ...b]));
  }
  return acc;
}

function mergeLiterals(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    const prev = out[out.length - 1];
    if (typeof t === 'string' && typeof prev === 'string') out[out.length - 1] = prev + t;
    else out.push(t);
  }
  return out;
}

// ------------------------------------------------------------- entries

/**
 * An endpoint route: a pattern and its view (built by {@link path} or {@link rePath}).
 * @example
 * ```ts
 * const entry: URLPattern = path('items/', listView, { name: 'item-list' });
 * entry.name; // 'item-list'
 * ```
 */
export class URLPattern {
  /** @internal */
  readonly matcher: Matcher;
  /** The view. */
  readonly callback: ViewFunction;
  /** The name used by `reverse()`, or `null`. */
  readonly name: string | null;
  /** Extra keyword arguments passed to the view. */
  readonly defaultKwargs: Readonly<Record<string, unknown>>;

  /** @internal */
  constructor(matcher: Matcher, callback: ViewFunction, name: string | null, defaultKwargs: Record<string, unknown>) {
    this.matcher = matcher;
    this.callback = callback;
    this.name = name;
    this.defaultKwargs = defaultKwargs;
  }

  /** The route or regex as written. */
  get pattern(): string {
    return this.matcher.describe;
  }
}

/**
 * A group of routes under a prefix (built by {@link path} or {@link rePath}
 * with an {@link include}).
 * @example
 * ```ts
 * const entry: URLIncludePattern = path('v1/', include(apiRoutes, { namespace: 'v1' }));
 * entry.namespace; // 'v1'
 * ```
 */
export class URLIncludePattern {
  /** @internal */
  readonly matcher: Matcher;
  /** The included routes. */
  readonly entries: readonly URLEntry[];
  /** The instance namespace, or `null`. */
  readonly namespace: string | null;
  /** The application namespace, or `null`. */
  readonly appName: string | null;
  /** Extra keyword arguments passed to every included view. */
  readonly defaultKwargs: Readonly<Record<string, unknown>>;

  /** @internal */
  constructor(matcher: Matcher, inc: Include, defaultKwargs: Record<string, unknown>) {
    this.matcher = matcher;
    this.entries = inc.patterns;
    this.namespace = inc.namespace;
    this.appName = inc.appName;
    this.defaultKwargs = defaultKwargs;
  }

  /** The route or regex as written. */
  get pattern(): string {
    return this.matcher.describe;
  }
}

/**
 * One entry of a URL configuration.
 * @example
 * ```ts
 * const routes: URLEntry[] = [path('', root), path('v1/', include(v1Routes, { namespace: 'v1' }))];
 * ```
 */
export type URLEntry = URLPattern | URLIncludePattern;

/**
 * Another name for {@link URLEntry}: what {@link path} and {@link rePath} return.
 * @example
 * ```ts
 * const urlpatterns: UrlPattern[] = [path('items/', itemList, { name: 'item-list' })];
 * ```
 */
export type UrlPattern = URLEntry;

/**
 * What {@link include} returns: routes to mount under a prefix.
 * @example
 * ```ts
 * const inc: Include = include([path('items/', items, { name: 'item-list' })], { namespace: 'v1' });
 * ```
 */
export class Include {
  /** The included routes. */
  readonly patterns: readonly URLEntry[];
  /** The instance namespace, or `null`. */
  readonly namespace: string | null;
  /** The application namespace, or `null`. */
  readonly appName: string | null;

  /** @internal */
  constructor(patterns: readonly URLEntry[], namespace: string | null, appName: string | null) {
    this.patterns = patterns;
    this.namespace = namespace;
    this.appName = appName;
  }
}

/**
 * Options of {@link path} and {@link rePath}.
 * @example
 * ```ts
 * const o: RouteOptions = { name: 'item-detail', kwargs: { format: 'json' } };
 * ```
 */
export interface RouteOptions {
  /** The name `reverse()` looks up (endpoints only). */
  name?: string;
  /** Extra keyword arguments for the view(s). */
  kwargs?: Record<string, unknown>;
}

/**
 * Mounts routes under a prefix, optionally in a namespace. Namespaces nest
 * (`v1:nested:name`). An `appName` without a `namespace` names the instance
 * after the application; a `namespace` without `appName` uses the namespace
 * as the application name (Django refuses the latter; here it is allowed).
 * @example
 * ```ts
 * const routes = [
 *   path('v1/', include(apiRoutes, { namespace: 'v1' })),
 *   path('v2/', include(apiRoutes, { namespace: 'v2' })),
 * ];
 * ```
 */
export function include(patterns: readonly URLEntry[], options: { namespace?: string; appName?: string } = {}): Include {
  if (!Array.isArray(patterns)) throw new ConfigurationError('include() needs an array of path()/rePath() entries.');
  for (const p of patterns) {
    if (!(p instanceof URLPattern) && !(p instanceof URLIncludePattern)) throw new ConfigurationError('include() needs an array of path()/rePath() entries.');
  }
  for (const k of ['namespace', 'appName'] as const) {
    const v = options[k];
    if (v !== undefined && (typeof v !== 'string' || v === '' || v.includes(':'))) throw new ConfigurationError(`include(): ${k} must be a non-empty string without ':'.`);
  }
  const appName = options.appName ?? options.namespace ?? null;
  return new Include([...patterns], options.namespace ?? appName, appName);
}

function isClass(f: unknown): boolean {
  return typeof f === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(f));
}

function makeEntry(matcherFor: (endpoint: boolean) => Matcher, view: ViewFunction | Include, options: RouteOptions, fn: string): URLEntry {
  const kwargs = options.kwargs ?? {};
  if (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs)) throw new ConfigurationError(`${fn}(): kwargs must be an object.`);
  if (view instanceof Include) {
    if (options.name !== undefined) throw new ConfigurationError(`${fn}(): an include() takes no name; give it a namespace instead.`);
    return new URLIncludePattern(matcherFor(false), view, { ...kwargs });
  }
  if (typeof view !== 'function') throw new ConfigurationError(`${fn}(): the view must be a function or an include().`);
  if (isClass(view)) throw new ConfigurationError(`${fn}(): got the class ${view.name}; pass ${view.name}.asView() instead.`);
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name.includes(':'))) throw new ConfigurationError(`${fn}(): name must be a string without ':'.`);
  return new URLPattern(matcherFor(true), view, options.name ?? null, { ...kwargs });
}

/**
 * A route (`items/<int:pk>/`) to a view, or to an {@link include}.
 * Parameters are `<converter:name>` or `<name>` (a `str`); routes do not
 * start with `/`.
 * @example
 * ```ts
 * const routes = [
 *   path('items/', ItemList.asView(), { name: 'item-list' }),
 *   path('items/<int:pk>/', ItemDetail.asView(), { name: 'item-detail' }),
 *   path('v1/', include(v1Routes, { namespace: 'v1' })),
 * ];
 * ```
 */
export function path(route: string, view: ViewFunction | Include, options: RouteOptions = {}): URLEntry {
  if (typeof route !== 'string') throw new ConfigurationError('path(): the route must be a string.');
  if (route.startsWith('/')) throw new ImproperlyConfigured(`URL route '${route}' starts with '/': routes are written without a leading slash ('${route.replace(/^\/+/, '')}').`);
  return makeEntry((endpoint) => compileRoute(route, endpoint), view, options, 'path');
}

/**
 * A regular-expression route (Django's `re_path`). Named groups become
 * keyword arguments (strings); without named groups, the groups are
 * positional arguments. Python syntax (`(?P<name>...)`, `\Z`) is accepted.
 * An endpoint regex ending in `$` must match the whole path; one without
 * `$` matches a prefix (as in Django).
 * @example
 * ```ts
 * const routes = [rePath('^(?P<version>v1|v2)/items/$', items, { name: 'item-list' })];
 * ```
 */
export function rePath(regex: string | RegExp, view: ViewFunction | Include, options: RouteOptions = {}): URLEntry {
  if (typeof regex !== 'string' && !(regex instanceof RegExp)) throw new ConfigurationError('rePath(): the pattern must be a string or a RegExp.');
  return makeEntry((endpoint) => compileRegex(regex, endpoint), view, options, 'rePath');
}

// ------------------------------------------------------------- reverse index

/** A reversal target: the levels from a namespace node to the endpoint. */
interface Candidate {
  readonly levels: readonly Matcher[];
  readonly defaults: Readonly<Record<string, unknown>>;
}

interface NamespaceEntry {
  readonly levels: readonly Matcher[];
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly node: IndexNode;
}

interface IndexNode {
  /** Candidates per name, last defined first. */
  readonly names: Map<string, Candidate[]>;
  /** First defined wins. */
  readonly namespaces: Map<string, NamespaceEntry>;
  /** Instance namespaces per application name, last deployed first. */
  readonly apps: Map<string, string[]>;
}

function buildIndex(entries: readonly URLEntry[]): IndexNode {
  const node: IndexNode = { names: new Map(), namespaces: new Map(), apps: new Map() };
  const add = (name: string, c: Candidate): void => {
    const list = node.names.get(name);
    if (list) list.push(c);
    else node.names.set(name, [c]);
  };
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as URLEntry;
    if (e instanceof URLPattern) {
      if (e.name !== null) add(e.name, { levels: [e.matcher], defaults: e.defaultKwargs });
      continue;
    }
    const child = buildIndex(e.entries);
    if (e.namespace !== null) {
      node.namespaces.set(e.namespace, { levels: [e.matcher], defaults: e.defaultKwargs, node: child });
      if (e.appName !== null) {
        const list = node.apps.get(e.appName);
        if (list) list.push(e.namespace);
        else node.apps.set(e.appName, [e.namespace]);
      }
      continue;
    }
    for (const [name, list] of child.names) {
      for (const c of list) add(name, { levels: [e.matcher, ...c.levels], defaults: { ...e.defaultKwargs, ...c.defaults } });
    }
    for (const [ns, sub] of child.namespaces) {
      node.namespaces.set(ns, { levels: [e.matcher, ...sub.levels], defaults: { ...e.defaultKwargs, ...sub.defaults }, node: sub.node });
    }
    for (const [app, list] of child.apps) {
      const mine = node.apps.get(app);
      if (mine) mine.push(...list);
      else node.apps.set(app, [...list]);
    }
  }
  return node;
}

/** A candidate ready to try: every way to write it, the levels, the converters. */
interface Prepared {
  readonly levels: readonly Matcher[];
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly defaultKeys: readonly string[];
  readonly converters: ReadonlyMap<string, PathConverter>;
  readonly ways: readonly { params: readonly string[]; paramSet: ReadonlySet<string>; perLevel: readonly (readonly Token[])[] }[];
  readonly describe: string;
}

function prepare(levels: readonly Matcher[], defaults: Readonly<Record<string, unknown>>): Prepared {
  const converters = new Map<string, PathConverter>();
  for (const l of levels) for (const [k, v] of l.converters) converters.set(k, v.converter);
  let ways: { params: string[]; perLevel: (readonly Token[])[] }[] = [{ params: [], perLevel: [] }];
  for (const l of levels) {
    ways = ways.flatMap((w) => l.possibilities.map((p) => ({ params: [...w.params, ...p.params], perLevel: [...w.perLevel, p.tokens] })));
  }
  return {
    levels,
    defaults,
    defaultKeys: Object.keys(defaults),
    converters,
    ways: ways.map((w) => ({ ...w, paramSet: new Set(w.params) })),
    describe: joinRoutes(levels.map((l) => l.describe)),
  };
}

function joinRoutes(parts: readonly string[]): string {
  let out = '';
  for (const p of parts) out = out === '' ? p : out + (p.startsWith('^') ? p.slice(1) : p);
  return out;
}

const SAFE_PATH = /^[A-Za-z0-9_.\-~!$&'()*+,;=/:@]*$/;
const SAFE_CHAR = /[A-Za-z0-9_.\-~!$&'()*+,;=/:@]/;

/**
 * Percent-encodes a path as Django's reverse() does: ASCII letters, digits,
 * `_.-~` and `!$&'()*+,;=/:@` stay; everything else is escaped as UTF-8.
 * @example
 * ```ts
 * quotePath('/items/a b?/café/'); // '/items/a%20b%3F/caf%C3%A9/'
 * ```
 */
export function quotePath(path: string): string {
  if (SAFE_PATH.test(path)) return path;
  let out = '';
  for (const ch of path.toWellFormed()) {
    if (ch.length === 1 && SAFE_CHAR.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
  }
  return out;
}

function repr(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * Options of {@link URLResolver.reverse}: positional `args` or keyword
 * `kwargs` (not both).
 * @example
 * ```ts
 * const o: ReverseArgs = { kwargs: { pk: 5 } };
 * ```
 */
export interface ReverseArgs {
  args?: readonly unknown[] | null;
  kwargs?: Readonly<Record<string, unknown>> | null;
}

/**
 * One endpoint as {@link URLResolver.routes} lists it (for OpenAPI
 * generation and route listings).
 * @example
 * ```ts
 * for (const r of resolver.routes()) console.log(r.route, r.viewName, r.pathParams);
 * // 'v1/items/{pk}/' 'v1:item-detail' [{ name: 'pk', converter: 'int', regex: '[0-9]+' }]
 * ```
 */
export interface RouteInfo {
  /** The full path template without the leading `/`, parameters as `{name}` (`v1/items/{pk}/`). */
  route: string;
  /** The route strings of every level joined, as written (`v1/items/<int:pk>/`). */
  pattern: string;
  /** The whole chain as one JavaScript regex source (`^v1/items/(?<p0>[0-9]+)/$`). */
  regex: string;
  /** The view. */
  view: ViewFunction;
  /** The endpoint's name, or `null`. */
  name: string | null;
  /** Instance namespaces joined with `:` (`''` when none). */
  namespace: string;
  /** Namespaces and name joined with `:`, or `null` for an unnamed endpoint. */
  viewName: string | null;
  /** Path parameters in order: their converter (`null` for a regex group) and its regex. */
  pathParams: { name: string; converter: string | null; regex: string | null }[];
  /** The default keyword arguments the view receives. */
  kwargs: Record<string, unknown>;
}

/**
 * A URL configuration: resolves paths to views and reverses names to paths.
 * @example
 * ```ts
 * const resolver = new URLResolver([
 *   path('items/', itemList, { name: 'item-list' }),
 *   path('items/<int:pk>/', itemDetail, { name: 'item-detail' }),
 * ]);
 * resolver.resolve('/items/5/')?.kwargs; // { pk: 5 }
 * resolver.reverse('item-detail', { kwargs: { pk: 5 } }); // '/items/5/'
 * ```
 */
export class URLResolver {
  readonly #entries: readonly URLEntry[];
  #index: IndexNode | null = null;
  readonly #prepared = new Map<string, Prepared[]>();

  constructor(patterns: readonly URLEntry[]) {
    this.#entries = include(patterns).patterns;
  }

  /** The top-level entries. */
  get patterns(): readonly URLEntry[] {
    return this.#entries;
  }

  /**
   * The route matching `path` (a decoded request path; one leading `/` is
   * dropped before matching), or `null`.
   */
  resolve(path: string): ResolverMatch | null {
    const m = resolveIn(this.#entries, path.startsWith('/') ? path.slice(1) : path);
    if (m === null) return null;
    const urlName = m.urlName;
    const namespace = m.namespaces.join(':');
    return {
      func: m.func,
      args: m.args,
      kwargs: m.kwargs,
      urlName,
      route: m.route,
      namespaces: m.namespaces,
      namespace,
      appNames: m.appNames,
      appName: m.appNames.join(':'),
      viewName: [...m.namespaces, urlName ?? (m.func.name || '<anonymous>')].join(':'),
    };
  }

  /**
   * Whether `path` lacks a trailing slash, matches no route, and would match
   * one with the slash added (Django's APPEND_SLASH test).
   */
  wouldMatchWithSlash(path: string): boolean {
    return !path.endsWith('/') && this.resolve(path) === null && this.resolve(path + '/') !== null;
  }

  /**
   * The percent-encoded path (`/v1/items/5/`) of the route named
   * `viewName` (`ns:name` for namespaced routes) with these arguments.
   * Throws {@link NoReverseMatch} when no route fits, a
   * {@link ConfigurationError} when both `args` and `kwargs` are given.
   */
  reverse(viewName: string, options: ReverseArgs = {}): string {
    const args = options.args ?? [];
    const kwargsIn = options.kwargs ?? {};
    const kwargs: Record<string, unknown> = {};
    for (const k in kwargsIn) if (kwargsIn[k] !== undefined) kwargs[k] = kwargsIn[k];
    const kwKeys = Object.keys(kwargs);
    if (args.length > 0 && kwKeys.length > 0) throw new ConfigurationError("Don't mix args and kwargs in a call to reverse().");
    const candidates = this.#candidates(viewName);
    for (const c of candidates) {
      const url = tryCandidate(c, args, kwargs, kwKeys);
      if (url !== null) return url;
    }
    if (candidates.length === 0) throw new NoReverseMatch(`Reverse for '${viewName}' not found. '${viewName}' is not a valid view name.`);
    const argMsg = args.length > 0 ? `arguments '${repr(args)}'` : kwKeys.length > 0 ? `keyword arguments '${repr(kwargs)}'` : 'no arguments';
    throw new NoReverseMatch(
      `Reverse for '${viewName}' with ${argMsg} not found. ${candidates.length} pattern(s) tried: [${candidates.map((c) => `'${c.describe}'`).join(', ')}]`,
    );
  }

  #candidates(viewName: string): Prepared[] {
    const cached = this.#prepared.get(viewName);
    if (cached !== undefined) return cached;
    this.#index ??= buildIndex(this.#entries);
    const parts = viewName.split(':');
    const name = parts.pop() as string;
    let node = this.#index;
    let prefix: Matcher[] = [];
    let defaults: Record<string, unknown> = {};
    const resolved: string[] = [];
    for (let ns of parts) {
      const apps = node.apps.get(ns);
      if (apps !== undefined && !apps.includes(ns)) ns = apps[0] as string;
      const entry = node.namespaces.get(ns);
      if (entry === undefined) {
        throw new NoReverseMatch(resolved.length ? `'${ns}' is not a registered namespace inside '${resolved.join(':')}'` : `'${ns}' is not a registered namespace`);
      }
      prefix = [...prefix, ...entry.levels];
      defaults = { ...defaults, ...entry.defaults };
      node = entry.node;
      resolved.push(ns);
    }
    const list = (node.names.get(name) ?? []).map((c) => prepare([...prefix, ...c.levels], { ...defaults, ...c.defaults }));
    if (list.length > 0) this.#prepared.set(viewName, list);
    return list;
  }

  /** Every endpoint in definition order, with its full template and parameters. */
  routes(): RouteInfo[] {
    const out: RouteInfo[] = [];
    const walk = (entries: readonly URLEntry[], levels: Matcher[], namespaces: string[], defaults: Record<string, unknown>): void => {
      for (const e of entries) {
        const lv = [...levels, e.matcher];
        const kw = { ...defaults, ...e.defaultKwargs };
        if (e instanceof URLIncludePattern) {
          walk(e.entries, lv, e.namespace === null ? namespaces : [...namespaces, e.namespace], kw);
          continue;
        }
        const pathParams: RouteInfo['pathParams'] = [];
        let route = '';
        for (const l of lv) {
          const first = l.possibilities[0];
          if (first === undefined) {
            route += l.describe.replace(/^\^/, '').replace(/\$$/, '');
            continue;
          }
          for (const t of first.tokens) {
            if (typeof t === 'string') route += t;
            else {
              route += `{${t.param}}`;
              const conv = l.converters.get(t.param);
              pathParams.push({ name: t.param, converter: conv?.name ?? null, regex: conv?.converter.regex ?? null });
            }
          }
        }
        out.push({
          route,
          pattern: joinRoutes(lv.map((l) => l.describe)),
          regex: '^' + lv.map((l) => l.source.slice(1)).join(''),
          view: e.callback,
          name: e.name,
          namespace: namespaces.join(':'),
          viewName: e.name === null ? null : [...namespaces, e.name].join(':'),
          pathParams,
          kwargs: kw,
        });
      }
    };
    walk(this.#entries, [], [], {});
    return out;
  }
}

function tryCandidate(c: Prepared, args: readonly unknown[], kwargs: Record<string, unknown>, kwKeys: readonly string[]): string | null {
  outer: for (const way of c.ways) {
    let subs: Record<string, unknown>;
    if (args.length > 0) {
      if (args.length !== way.params.length) continue;
      subs = {};
      for (let i = 0; i < args.length; i++) subs[way.params[i] as string] = args[i];
    } else {
      for (const k of kwKeys) if (!way.paramSet.has(k) && !(k in c.defaults)) continue outer;
      for (const p of way.params) if (!(p in kwargs)) continue outer;
      for (const k of c.defaultKeys) {
        if (!way.paramSet.has(k) && k in kwargs && kwargs[k] !== c.defaults[k]) continue outer;
      }
      subs = kwargs;
    }
    const text: Record<string, string> = {};
    for (const p of way.params) {
      const conv = c.converters.get(p);
      try {
        text[p] = conv === undefined ? String(subs[p]) : conv.toUrl(subs[p]);
      } catch {
        continue outer;
      }
    }
    let url = '';
    for (let i = 0; i < c.levels.length; i++) {
      let part = '';
      for (const t of way.perLevel[i] as readonly Token[]) part += typeof t === 'string' ? t : text[t.param];
      if (!(c.levels[i] as Matcher).full.test(part)) continue outer;
      url += part;
    }
    const quoted = quotePath('/' + url);
    return quoted.startsWith('//') ? '/%2F' + quoted.slice(2) : quoted;
  }
  return null;
}

interface RawMatch {
  func: ViewFunction;
  args: string[];
  kwargs: Record<string, unknown>;
  urlName: string | null;
  route: string;
  namespaces: string[];
  appNames: string[];
}

function resolveIn(entries: readonly URLEntry[], path: string): RawMatch | null {
  for (const e of entries) {
    const m = e.matcher.match(path);
    if (m === null) continue;
    if (e instanceof URLPattern) {
      const kwargs = m.kwargs;
      for (const k in e.defaultKwargs) kwargs[k] = e.defaultKwargs[k];
      return { func: e.callback, args: m.args, kwargs, urlName: e.name, route: e.matcher.describe, namespaces: [], appNames: [] };
    }
    const sub = resolveIn(e.entries, m.rest);
    if (sub === null) continue;
    const kwargs = { ...m.kwargs, ...e.defaultKwargs, ...sub.kwargs };
    return {
      func: sub.func,
      args: Object.keys(kwargs).length === 0 ? [...m.args, ...sub.args] : sub.args,
      kwargs,
      urlName: sub.urlName,
      route: joinRoutes([e.matcher.describe, sub.route]),
      namespaces: e.namespace === null ? sub.namespaces : [e.namespace, ...sub.namespaces],
      appNames: e.appName === null ? sub.appNames : [e.appName, ...sub.appNames],
    };
  }
  return null;
}

let defaultUrlconf: URLResolver | null = null;

/**
 * Sets the URL configuration `reverse()` uses when given neither a
 * `urlconf` nor a routed request (a `RestApi` sets its own); `null` clears it.
 * @example
 * ```ts
 * setDefaultUrlconf(new URLResolver(routes));
 * reverse('item-list'); // '/items/'
 * ```
 */
export function setDefaultUrlconf(resolver: URLResolver | null): void {
  if (resolver !== null && !(resolver instanceof URLResolver)) throw new ConfigurationError('setDefaultUrlconf() needs a URLResolver or null.');
  defaultUrlconf = resolver;
}

/**
 * The URL configuration set by {@link setDefaultUrlconf}; throws
 * {@link ImproperlyConfigured} when none is set.
 * @example
 * ```ts
 * const path = getDefaultUrlconf().reverse('item-list');
 * ```
 */
export function getDefaultUrlconf(): URLResolver {
  if (defaultUrlconf === null) {
    throw new ImproperlyConfigured('No URL configuration to reverse against: pass { urlconf } or a request routed by a RestApi, or call setDefaultUrlconf().');
  }
  return defaultUrlconf;
}

// ------------------------------------------------------------ format suffixes

/**
 * Adds a format-suffix variant of every endpoint (DRF's
 * `format_suffix_patterns`): `items/` also answers `items.json`, and the view
 * receives `format` as a keyword argument, which overrides content
 * negotiation like `?format=`. `reverse(name, { format: 'json' })` then
 * yields the suffixed URL. `allowed` limits the suffixes; with
 * `suffixRequired` only the suffixed routes remain.
 * @example
 * ```ts
 * const urlpatterns = formatSuffixPatterns([path('items/', ItemList.asView(), { name: 'item-list' })], { allowed: ['json', 'api'] });
 * ```
 */
export function formatSuffixPatterns(patterns: readonly URLEntry[], options: { suffixRequired?: boolean; allowed?: readonly string[] } = {}): URLEntry[] {
  const allowed = options.allowed;
  if (allowed !== undefined && (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((a) => typeof a === 'string' && /^[A-Za-z0-9_-]+$/.test(a)))) {
    throw new ConfigurationError('formatSuffixPatterns(): allowed must be a non-empty array of format names.');
  }
  const alternatives = allowed === undefined ? '[a-z0-9]+' : allowed.map((a) => a.replace(REGEX_SPECIAL, '\\$&')).join('|');
  const converterName = allowed === undefined ? 'format_suffix' : `format_suffix_${allowed.join('_')}`;
  if (!CONVERTERS.has(converterName)) {
    registerConverter(converterName, { regex: allowed === undefined ? alternatives : `(?:${alternatives})`, toValue: (v) => v, toUrl: (v) => String(v) });
  }
  const out: URLEntry[] = [];
  for (const p of patterns) {
    if (p instanceof URLIncludePattern) {
      out.push(new URLIncludePattern(p.matcher, new Include(formatSuffixPatterns(p.entries, options), p.namespace, p.appName), { ...p.defaultKwargs }));
      continue;
    }
    if (!options.suffixRequired) out.push(p);
    const opts: RouteOptions = { kwargs: { ...p.defaultKwargs } };
    if (p.name !== null) opts.name = p.name;
    if (p.matcher.kind === 'regex') {
      const base = p.matcher.describe.replace(/(?:\$|\\Z)$/, '').replace(/\/$/, '');
      out.push(rePath(`${base}\\.(?P<format>${alternatives})/?$`, p.callback, opts));
    } else {
      out.push(path(`${p.matcher.describe.replace(/\/$/, '')}.<${converterName}:format>`, p.callback, opts));
    }
  }
  return out;
}

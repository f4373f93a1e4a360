/**
 * Route compilation: a `path()` route (`items/<int:pk>/`) or a `rePath()`
 * regex becomes a {@link Matcher} that matches one level of a request path
 * and knows the ways to write the level back as text (Django's
 * `normalize`: representative characters for classes, zero occurrences for
 * optional parts, both variants of optional groups) for reversing.
 *
 * Regex routes accept Python syntax (`(?P<name>...)`, `(?P=name)`, `\Z`,
 * `\A`) as well as JavaScript's. They are reversible when built from
 * literals, groups, classes and quantifiers; alternation outside a
 * capturing group makes a route resolve-only.
 *
 * @module
 */
import { ImproperlyConfigured } from '../errors.js';
import { builtinConverter, type PathConverter } from './converters.js';

/**
 * A literal piece of a reversed path, or a parameter to substitute.
 * @internal
 */
export type Token = string | { readonly param: string };

/**
 * One way of writing a level back as text.
 * @internal
 */
export interface Possibility {
  readonly tokens: readonly Token[];
  readonly params: readonly string[];
}

/**
 * What one level matched: the rest of the path and the captured arguments.
 * @internal
 */
export interface MatchResult {
  rest: string;
  args: string[];
  kwargs: Record<string, unknown>;
}

/**
 * One level's pattern (a route or a regex), compiled.
 * @internal
 */
export interface Matcher {
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

/**
 * The characters a regex source must escape.
 * @internal
 */
export const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;
const escapeRegex = (s: string): string => s.replace(REGEX_SPECIAL, '\\$&');
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u;
const ROUTE_PARAM = /<(?:([^>:]+):)?([^>]+)>/g;

/**
 * Compiles a `path()` route (`items/<int:pk>/`): an endpoint must match the
 * whole rest of the path, an include a prefix.
 * @internal
 */
export function compileRoute(
  route: string,
  endpoint: boolean,
  custom?: Readonly<Record<string, PathConverter>>,
): Matcher {
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
    if (/\s/.test(m[0]))
      throw new ImproperlyConfigured(`URL route '${route}' cannot contain whitespace in angle brackets <…>.`);
    if (!IDENTIFIER.test(param))
      throw new ImproperlyConfigured(
        `URL route '${route}' uses parameter name '${param}' which isn't a valid identifier.`,
      );
    const converter =
      custom !== undefined && Object.hasOwn(custom, convName) ? custom[convName] : builtinConverter(convName);
    if (converter === undefined)
      throw new ImproperlyConfigured(`URL route '${route}' uses invalid converter '${convName}'.`);
    if (converters.has(param))
      throw new ImproperlyConfigured(`URL route '${route}' uses parameter name '${param}' twice.`);
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
          kwargs[param] = (converters.get(param) as { converter: PathConverter }).converter.toValue(
            g[`p${i}`] as string,
          );
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

/**
 * Compiles a `rePath()` regex (Python syntax accepted).
 * @internal
 */
export function compileRegex(input: string | RegExp, endpoint: boolean): Matcher {
  const flags = typeof input === 'string' ? '' : input.flags.replace(/[gy]/g, '');
  const raw = typeof input === 'string' ? input : input.source;
  const source = pythonToJs(raw);
  let regex: RegExp;
  try {
    regex = new RegExp(endpoint && source.endsWith('$') && !source.startsWith('^') ? `^(?:${source})` : source, flags);
  } catch (cause) {
    throw new ImproperlyConfigured(`"${raw}" is not a valid regular expression: ${(cause as Error).message}`, {
      cause,
    });
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

const ESCAPES: Record<string, string | null> = {
  A: null,
  b: null,
  B: null,
  d: '0',
  D: 'x',
  s: ' ',
  S: 'x',
  w: 'x',
  W: '!',
  Z: null,
};

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
  return flatten({ seq: parseSeq(false) }).map((tokens) => ({
    tokens: mergeLiterals(tokens),
    params: tokens.flatMap((t) => (typeof t === 'string' ? [] : [t.param])),
  }));
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

/**
 * The route strings of several levels joined as one (`v1/` + `items/` ->
 * `v1/items/`; a regex level loses its `^`).
 * @internal
 */
export function joinRoutes(parts: readonly string[]): string {
  let out = '';
  for (const p of parts) out = out === '' ? p : out + (p.startsWith('^') ? p.slice(1) : p);
  return out;
}

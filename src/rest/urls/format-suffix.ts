/**
 * Format-suffix routes (DRF's `format_suffix_patterns`): `items/` also
 * answers `items.json`, the view receiving `format` as a keyword argument.
 *
 * @module
 */
import { ConfigurationError } from '../errors.js';
import { builtinConverter, type PathConverter } from './converters.js';
import { Include, path, rePath, URLIncludePattern, type RouteOptions, type URLEntry } from './patterns.js';
import { REGEX_SPECIAL } from './route.js';

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
export function formatSuffixPatterns(
  patterns: readonly URLEntry[],
  options: { suffixRequired?: boolean; allowed?: readonly string[] } = {},
): URLEntry[] {
  const allowed = options.allowed;
  if (
    allowed !== undefined &&
    (!Array.isArray(allowed) ||
      allowed.length === 0 ||
      !allowed.every((a) => typeof a === 'string' && /^[A-Za-z0-9_-]+$/.test(a)))
  ) {
    throw new ConfigurationError('formatSuffixPatterns(): allowed must be a non-empty array of format names.');
  }
  const alternatives =
    allowed === undefined ? '[a-z0-9]+' : allowed.map((a: string) => a.replace(REGEX_SPECIAL, '\\$&')).join('|');
  const converterName = 'format_suffix';
  const suffix: PathConverter = {
    regex: allowed === undefined ? alternatives : `(?:${alternatives})`,
    toValue: (v) => v,
    toUrl: (v) => String(v),
  };
  const out: URLEntry[] = [];
  for (const p of patterns) {
    if (p instanceof URLIncludePattern) {
      out.push(
        new URLIncludePattern(
          p.matcher,
          new Include(formatSuffixPatterns(p.entries, options), p.namespace, p.appName),
          { ...p.defaultKwargs },
        ),
      );
      continue;
    }
    if (!options.suffixRequired) out.push(p);
    const opts: RouteOptions = { kwargs: { ...p.defaultKwargs } };
    if (p.name !== null) opts.name = p.name;
    if (p.matcher.kind === 'regex') {
      const base = p.matcher.describe.replace(/(?:\$|\\Z)$/, '').replace(/\/$/, '');
      out.push(rePath(`${base}\\.(?P<format>${alternatives})/?$`, p.callback, opts));
    } else {
      // The suffixed route keeps the custom converters of the original and adds the suffix's own.
      const converters: Record<string, PathConverter> = { [converterName]: suffix };
      for (const { name, converter } of p.matcher.converters.values()) {
        if (name !== converterName && builtinConverter(name) === undefined) converters[name] = converter;
      }
      opts.converters = converters;
      out.push(path(`${p.matcher.describe.replace(/\/$/, '')}.<${converterName}:format>`, p.callback, opts));
    }
  }
  return out;
}

/**
 * What the pagination walk properties share (test/rest/pagination/*.property
 * and test/sql/datetimes.property): the order a walk must show the rows in,
 * written independently of the Queryset implementations, and a client that
 * follows a list's links to its end.
 */
import assert from 'node:assert/strict';
import type { FieldInfo } from '../../src/rest/data/source.js';

/**
 * The ids of `rows` in the order of `terms` (`'field'` ascending, `'-field'`
 * descending) that every queryset must give: NULL first ascending and last
 * descending, a Date by its instant, and, unless a term is a field that
 * `fields` marks unique, the primary key `id` breaking ties in the last
 * term's direction.
 * @example
 * ```ts
 * sortedIds([{ id: 1, rank: null }, { id: 2, rank: 0 }], ['-rank'], FIELDS); // [2, 1]
 * ```
 */
export function sortedIds<R extends { id: number }>(
  rows: readonly R[],
  terms: readonly string[],
  fields: Readonly<Record<keyof R, FieldInfo>>,
): number[] {
  const parsed = terms.map((t) => ({ field: t.replace(/^-/, '') as keyof R, desc: t.startsWith('-') }));
  if (!parsed.some((t) => fields[t.field].unique === true))
    parsed.push({ field: 'id', desc: parsed[parsed.length - 1]!.desc });
  const key = (r: R, f: keyof R): number | string | null => {
    const v = r[f] as number | string | Date | null;
    return v === null ? null : v instanceof Date ? v.getTime() : v;
  };
  return [...rows]
    .sort((a, b) => {
      for (const { field, desc } of parsed) {
        const x = key(a, field);
        const y = key(b, field);
        const c = x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
        if (c !== 0) return desc ? -c : c;
      }
      return 0;
    })
    .map((r) => r.id);
}

/** What a client reads from a page of a list: its rows' ids and the links to the pages next to it. */
export interface LinkedPage {
  next: string | null;
  previous: string | null;
  results: number[];
}

/**
 * Follows the `dir` links from `start` until a page has none, as a client
 * does, loading each URL with `load`; `between(n)` runs before the n-th
 * following request (n from 1). Fails once more than `maxPages` pages came
 * (a walk that would not end). The pages in the order loaded, and the URL of
 * the last one.
 * @example
 * ```ts
 * const forward = await followLinks((url) => get(qs, url), '/items/', 'next', rows.length + 2);
 * const backward = await followLinks((url) => get(qs, url), forward.last, 'previous', rows.length + 2);
 * ```
 */
export async function followLinks<P extends LinkedPage>(
  load: (url: string) => Promise<P>,
  start: string,
  dir: 'next' | 'previous',
  maxPages: number,
  between: (n: number) => Promise<void> = async () => {},
): Promise<{ pages: P[]; last: string }> {
  const pages: P[] = [];
  let url: string | null = start;
  let last = start;
  while (url !== null) {
    if (pages.length > maxPages)
      assert.fail(`no end after ${maxPages} pages: ${JSON.stringify(pages.map((p) => p.results))}`);
    if (pages.length > 0) await between(pages.length);
    last = url;
    const page = await load(url);
    pages.push(page);
    url = page[dir];
  }
  return { pages, last };
}

/**
 * Reading the examples of README.md and docs/*.md so that tests can check
 * them: fenced code blocks with their info strings and lines, the request /
 * response examples of ```http blocks and of `curl` lines in ```sh blocks,
 * and a loose JSON whose `...` elides what an example leaves out. The
 * conventions themselves are described where they are checked
 * (test/docs.responses.test.ts and test/docs.guide.test.ts).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';

/** A fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The first word of the info string (`ts`, `http`, `sh`...), or '' without one. */
  readonly lang: string;
  /** The rest of the info string (`file=src/app.ts`, `illustrative: ...`). */
  readonly meta: string;
  /** The block's text, ending with a newline. */
  readonly text: string;
  /** The 1-based line of the block's first line of text. */
  readonly line: number;
}

/** The fenced code blocks (``` only, at the start of a line, indentation allowed) of a Markdown text. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const out: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*(.*)$/.exec(lines[i] as string);
    if (open === null) continue;
    const indent = (open[1] as string).length;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j] as string)) body.push((lines[j++] as string).slice(indent));
    out.push({ lang: open[2] as string, meta: (open[3] as string).trim(), text: `${body.join('\n')}\n`, line: i + 2 });
    i = j;
  }
  return out;
}

/** The `key=value` words of a block's meta (`file=src/app.ts fixture=signed`). */
export function metaAttributes(meta: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of meta.matchAll(/(\w+)=(\S+)/g)) attrs[m[1] as string] = m[2] as string;
  return attrs;
}

// ---------------------------------------------------------------------------
// Loose JSON: JSON plus `...` elisions.

/** Stands for the elements or members an example leaves out. */
export const REST = Symbol('rest');
/** An array example that gives only its length: `[... 100 items ...]`. */
export interface LengthOnly {
  readonly length: number;
}

/** An expected JSON value: JSON, arrays and objects that may end with {@link REST}, or a length. */
export type Pattern =
  null | boolean | number | string | typeof REST | LengthOnly | Pattern[] | { [key: string]: Pattern; [REST]?: true };

/**
 * Parses JSON in which `...` may stand for further array elements (`[{"id":
 * 1}, ...]`: the first element is given, any number follow) or further
 * object members (`{"id": 500, ...}`: other keys may follow), and
 * `[... N items ...]` for an array of N elements not shown. The string
 * `"..."` matches any value. Anything else is strict JSON.
 */
export function parseLoose(text: string): Pattern {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at offset ${i} of ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 20))}`);
  };
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const ellipsis = (): boolean => {
    ws();
    if (text.startsWith('...', i)) {
      i += 3;
      return true;
    }
    return false;
  };
  const value = (): Pattern => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [key: string]: Pattern; [REST]?: true } = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        if (ellipsis()) {
          obj[REST] = true;
          ws();
          if (text[i] !== '}') fail('"..." must end an object');
          i++;
          return obj;
        }
        ws();
        const key = value();
        if (typeof key !== 'string') fail('object key expected');
        ws();
        if (text[i] !== ':') fail('":" expected');
        i++;
        obj[key as string] = value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail('"," or "}" expected');
      }
    }
    if (c === '[') {
      i++;
      const arr: Pattern[] = [];
      ws();
      const counted = /^\.\.\. (\d+) items \.\.\.\s*\]/.exec(text.slice(i));
      if (counted !== null) {
        i += counted[0].length;
        return { length: Number(counted[1]) };
      }
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        if (ellipsis()) {
          arr.push(REST);
          ws();
          if (text[i] !== ']') fail('"..." must end an array');
          i++;
          return arr;
        }
        arr.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail('"," or "]" expected');
      }
    }
    if (c === '"') {
      const end = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i));
      if (end === null) return fail('unterminated string');
      i += end[0].length;
      return JSON.parse(end[0]) as string;
    }
    const lit = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (lit === null) return fail('a JSON value expected');
    i += lit[0].length;
    return JSON.parse(lit[0]) as Pattern;
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing text');
  return v;
}

function isLengthOnly(p: Pattern): p is LengthOnly {
  return typeof p === 'object' && p !== null && !Array.isArray(p) && Object.keys(p).length === 1 && 'length' in p;
}

/** Where `actual` differs from the example `expected` (empty: it matches). */
export function mismatches(expected: Pattern, actual: unknown, at = '$'): string[] {
  if (expected === '...') return [];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected an array, got ${JSON.stringify(actual)}`];
    const list: Pattern[] = expected;
    const open = list[list.length - 1] === REST;
    const shown = open ? list.slice(0, -1) : list;
    const out: string[] = [];
    if (open ? actual.length < shown.length : actual.length !== shown.length)
      out.push(`${at}: expected ${open ? 'at least ' : ''}${shown.length} elements, got ${actual.length}`);
    shown.forEach((e, k) => out.push(...mismatches(e, actual[k], `${at}[${k}]`)));
    return out;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (isLengthOnly(expected))
      return Array.isArray(actual) && actual.length === expected.length
        ? []
        : [`${at}: expected an array of ${expected.length} elements, got ${JSON.stringify(actual)?.slice(0, 80)}`];
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return [`${at}: expected an object, got ${JSON.stringify(actual)}`];
    const obj = expected;
    const out: string[] = [];
    const got = actual as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (!(key in got)) out.push(`${at}.${key}: missing`);
      else out.push(...mismatches(obj[key] as Pattern, got[key], `${at}.${key}`));
    }
    if (obj[REST] !== true)
      for (const key of Object.keys(got)) if (!(key in obj)) out.push(`${at}.${key}: not in the example`);
    const order = Object.keys(got).filter((k) => k in obj);
    const shownOrder = Object.keys(obj);
    if (out.length === 0 && order.join() !== shownOrder.join())
      out.push(`${at}: keys in another order: ${order.join(', ')} (example: ${shownOrder.join(', ')})`);
    return out;
  }
  return Object.is(expected, actual)
    ? []
    : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** Replaces every `from` in the strings of a pattern (the documented origin by the real one). */
export function substitute(p: Pattern, from: string, to: string): Pattern {
  if (typeof p === 'string') return p.replaceAll(from, to);
  if (Array.isArray(p)) return (p as Pattern[]).map((e: Pattern) => substitute(e, from, to));
  if (typeof p === 'object' && p !== null && !isLengthOnly(p)) {
    const obj = p;
    const out: { [key: string]: Pattern; [REST]?: true } = {};
    for (const key of Object.keys(obj)) out[key] = substitute(obj[key] as Pattern, from, to);
    if (obj[REST] === true) out[REST] = true;
    return out;
  }
  return p;
}

// ---------------------------------------------------------------------------
// Request/response examples.

/** One request of an example and the response it shows. */
export interface Exchange {
  readonly method: string;
  /** The request target (`/page/items/?page=2`). */
  readonly target: string;
  readonly requestHeaders: Record<string, string>;
  /** The status shown, or null (a `curl` line without one: any 2xx). */
  readonly status: number | null;
  /** The reason phrase shown (`OK`), or null. */
  readonly reason: string | null;
  /** The response headers shown, by lower-case name. */
  readonly headers: Record<string, string>;
  /** The body shown (loose JSON or text), or null when none is shown. */
  readonly body: string | null;
  /** The documentation line of the request, for messages. */
  readonly line: number;
}

const REQUEST_LINE = /^([A-Z]+) (\/\S*) HTTP\/1\.1$/;
const STATUS_LINE = /^HTTP\/1\.1 (\d{3}) (.*)$/;

/**
 * The exchanges of an ```http block: a request line (`GET /path HTTP/1.1`),
 * its headers, a blank line, the status line, the response headers shown,
 * a blank line and the body shown (optional); the next request line starts
 * another exchange.
 */
export function httpExchanges(block: CodeBlock): Exchange[] {
  const lines = block.text.replace(/\n$/, '').split('\n');
  const out: Exchange[] = [];
  let i = 0;
  const skipBlank = (): void => {
    while (i < lines.length && (lines[i] as string).trim() === '') i++;
  };
  const headerLines = (): Record<string, string> => {
    const h: Record<string, string> = {};
    while (i < lines.length && (lines[i] as string).trim() !== '') {
      const m = /^([A-Za-z0-9-]+): (.*)$/.exec(lines[i] as string);
      if (m === null) throw new Error(`line ${block.line + i}: a header line expected: ${lines[i]}`);
      h[(m[1] as string).toLowerCase()] = m[2] as string;
      i++;
    }
    return h;
  };
  skipBlank();
  while (i < lines.length) {
    const req = REQUEST_LINE.exec(lines[i] as string);
    if (req === null) throw new Error(`line ${block.line + i}: a request line expected: ${lines[i]}`);
    const line = block.line + i;
    i++;
    const requestHeaders = headerLines();
    skipBlank();
    const st = STATUS_LINE.exec(lines[i] ?? '');
    if (st === null) throw new Error(`line ${block.line + i}: a status line expected: ${lines[i]}`);
    i++;
    const headers = headerLines();
    skipBlank();
    const body: string[] = [];
    while (i < lines.length && !REQUEST_LINE.test(lines[i] as string)) body.push(lines[i++] as string);
    const text = body.join('\n').trim();
    out.push({
      method: req[1] as string,
      target: req[2] as string,
      requestHeaders,
      status: Number(st[1]),
      reason: st[2] as string,
      headers,
      body: text === '' ? null : text,
      line,
    });
  }
  return out;
}

/** Splits a shell command line into words (single and double quotes, no expansions). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? (m[3] as string));
  return words;
}

/**
 * The `curl` commands of a ```sh block aimed at `origin`, each with the
 * response shown on the `# ` lines right below it (`# 404 {"detail": ...}`:
 * a status, then the body; or the body alone, for a 200). A trailing
 * `# comment` on the command line itself describes it and is not checked;
 * a command with no response shown must answer 2xx.
 */
export function curlExchanges(block: CodeBlock, origin: string): Exchange[] {
  const lines = block.text.replace(/\n$/, '').split('\n');
  const out: Exchange[] = [];
  for (let i = 0; i < lines.length; i++) {
    let command = lines[i] as string;
    const line = block.line + i;
    while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++i]}`;
    if (!/^curl\s/.test(command)) continue;
    const words = shellWords(command.replace(/\s+#\s.*$/, ''));
    const url = words.find((w) => w.startsWith(origin));
    if (url === undefined) continue;
    const requestHeaders: Record<string, string> = {};
    let method = 'GET';
    for (let k = 1; k < words.length; k++) {
      if (words[k] === '-H') {
        const m = /^([^:]+):\s*(.*)$/.exec(words[++k] ?? '');
        if (m !== null) requestHeaders[(m[1] as string).toLowerCase()] = m[2] as string;
      } else if (words[k] === '-X') method = words[++k] ?? 'GET';
    }
    const shown: string[] = [];
    while (i + 1 < lines.length && /^# /.test(lines[i + 1] as string)) shown.push((lines[++i] as string).slice(2));
    const target = url.slice(origin.length);
    if (STATUS_LINE.test(shown[0] ?? '')) {
      // `curl -i` / `-D -`: the status line, headers and body as the wire has them.
      const request = `${method} ${target} HTTP/1.1\n${Object.entries(requestHeaders)
        .map(([k, v]) => `${k}: ${v}\n`)
        .join('')}\n`;
      const [ex] = httpExchanges({ lang: 'http', meta: '', text: `${request}${shown.join('\n')}\n`, line });
      if (ex !== undefined) out.push({ ...ex, line });
      continue;
    }
    let text = shown.join('\n').trim();
    let status: number | null = null;
    const st = /^(\d{3})\s+/.exec(text);
    if (st !== null) {
      status = Number(st[1]);
      text = text.slice(st[0].length);
    } else if (text !== '') status = 200;
    out.push({
      method,
      target,
      requestHeaders,
      status,
      reason: null,
      headers: {},
      body: text === '' ? null : text,
      line,
    });
  }
  return out;
}

/**
 * Sends an exchange's request to `origin` (over node:http, so that `Host`
 * may be set) and asserts the status, reason, the headers shown and the body
 * (loose JSON compared structurally, else the text), with `docOrigin` in the
 * example standing for `origin`.
 */
export async function checkExchange(where: string, ex: Exchange, origin: string, docOrigin: string): Promise<void> {
  const swap = (s: string): string => s.replaceAll(docOrigin, origin);
  const res = await send(
    origin,
    ex.method,
    ex.target,
    Object.fromEntries(Object.entries(ex.requestHeaders).map(([k, v]) => [k, swap(v)])),
  );
  const label = `${where}:${ex.line} ${ex.method} ${ex.target}`;
  if (ex.reason !== null) assert.equal(res.reason, ex.reason, `${label}: reason phrase`);
  if (ex.status === null)
    assert.ok(res.status >= 200 && res.status < 300, `${label}: status ${res.status}, expected 2xx`);
  else assert.equal(res.status, ex.status, `${label}: status`);
  for (const [name, value] of Object.entries(ex.headers))
    assert.equal(res.headers.get(name), swap(value), `${label}: header ${name}`);
  if (ex.body === null) return;
  if (/^[[{]/.test(ex.body)) {
    let pattern: Pattern;
    try {
      pattern = substitute(parseLoose(ex.body), docOrigin, origin);
    } catch (e) {
      throw new Error(`${label}: the example body is not loose JSON: ${(e as Error).message}`, { cause: e });
    }
    let actual: unknown;
    try {
      actual = JSON.parse(res.text);
    } catch {
      assert.fail(`${label}: the response is not JSON: ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(mismatches(pattern, actual), [], `${label}: body`);
  } else assert.equal(res.text.trim(), swap(ex.body), `${label}: body`);
}

/** A request over node:http (which, unlike fetch, may set Host): status, reason, headers and the body as text. */
function send(
  origin: string,
  method: string,
  target: string,
  headers: Record<string, string>,
): Promise<{ status: number; reason: string; headers: Headers; text: string }> {
  const u = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: target, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({
          status: res.statusCode ?? 0,
          reason: res.statusMessage ?? '',
          headers: h,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

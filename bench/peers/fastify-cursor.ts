/**
 * The peer of bench/pagination.ts's cursor endpoint, written by hand on
 * fastify 5 and better-sqlite3: `GET /cursor/items/` answers what the demo
 * API's `CursorPagination` (page size 10, ordering `-created`) answers, byte
 * for byte, as Django REST framework's CursorPagination does it:
 *
 *   {"next":URL|null,"previous":URL|null,"results":[{"id","name","created","price","category"}, ...]}
 *
 * - the query is a keyset one, `where created < ? order by created desc
 *   limit 11` (one extra row tells whether a next page exists), prepared once
 *   (the reverse direction, the first page and cursors with an offset have
 *   their own statements, prepared once too);
 * - the body is rendered by fastify's response schema (fast-json-stringify);
 * - `created` is stored as UTC text `YYYY-MM-DD HH:MM:SS[.ffffff]` (the demo
 *   data's format, Django's too) and rendered `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`;
 * - cursors are DRF's: base64 of the form-encoded `o=OFFSET&r=1&p=POSITION`
 *   (each part only when it is not the default), POSITION being Python's
 *   `str()` of the aware datetime (`2020-01-01 00:00:20.740000+00:00`); the
 *   next and previous links follow DRF's algorithm (forward and reverse
 *   cursors, offsets for runs of equal positions, empty pages), and replace
 *   the `cursor` parameter of the request's URL with the other parameters
 *   kept and sorted by name, as DRF's `replace_query_param` does;
 * - an undecodable cursor, or a position that is not a datetime, answers 404
 *   `{"detail":"Invalid cursor"}`, as eventide does;
 * - `Content-Type: application/json` (no charset), as eventide sends.
 *
 *   node --import tsx bench/peers/fastify-cursor.ts --database FILE [--port 0] [--workers N]
 *
 * Listens on 127.0.0.1 and prints `fastify listening on http://127.0.0.1:PORT/`
 * once it accepts connections. `--workers N` (N >= 1) starts N worker
 * processes with node:cluster sharing one listening socket, scheduling left to
 * the kernel (`SCHED_NONE`, as `eventide serve --workers N` does); the line is
 * printed once every worker listens. SIGTERM/SIGINT stop it.
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import cluster from 'node:cluster';
import { once } from 'node:events';

const PAGE_SIZE = 10;
/** DRF's `offset_cutoff`: larger cursor offsets are clamped to it. */
const OFFSET_CUTOFF = 1000;
const HOST = '127.0.0.1';
const PATH = '/cursor/items/';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// ====================================================================== datetimes

interface Row {
  id: number;
  name: string;
  created: string;
  price: number;
  category: string;
}

const CANONICAL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{6})?$/;
/** What Django's `parse_datetime` accepts: date, `T` or space, time, optional fraction and offset. */
const DATETIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d*)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/**
 * A datetime string as UTC text in the table's format (`YYYY-MM-DD
 * HH:MM:SS`, `.ffffff` unless the microseconds are 0), or null when it is
 * not a valid datetime. Naive values are UTC (the project's time zone).
 */
function toStorage(s: string): string | null {
  const m = DATETIME.exec(s);
  if (m === null) return null;
  const [y, mo, d, h, mi] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const sec = m[6] === undefined ? 0 : Number(m[6]);
  const micro = m[7] === undefined ? 0 : Number(m[7].padEnd(6, '0'));
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) return null;
  const local = Date.UTC(y, mo - 1, d, h, mi, sec);
  const check = new Date(local);
  if (check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1) return null; // 31 February and the like
  let offsetMin = 0;
  const tz = m[8];
  if (tz !== undefined && tz !== 'Z') {
    const digits = tz.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (om > 59) return null;
    offsetMin = (tz[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const t = new Date(local - offsetMin * 60_000);
  const year = t.getUTCFullYear();
  if (year < 1 || year > 9999) return null;
  const base = `${pad(year, 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
  return micro === 0 ? base : `${base}.${pad(micro, 6)}`;
}

/** A row's `created` in the table's canonical form (every row of the demo data already is). */
function storedCreated(row: Row): string {
  const c = row.created;
  if (CANONICAL.test(c) && !c.endsWith('.000000')) return c;
  const s = toStorage(c);
  if (s === null) throw new Error(`item ${row.id}: created ${JSON.stringify(c)} is not a datetime`);
  return s;
}

/** Python's `str()` of the aware UTC datetime: the cursor position of a row. */
const positionOf = (stored: string): string => `${stored}+00:00`;

// ====================================================================== query strings and cursors

/** What encodeURIComponent leaves that quote_plus changes: `!'()*` escaped, spaces as `+`. */
const NOT_PLUS_SAFE = /[!'()*]|%20/;

/** Python's `urllib.parse.quote_plus` (safe: letters, digits, `_.-~`). */
function quotePlus(s: string): string {
  const e = encodeURIComponent(s);
  if (!NOT_PLUS_SAFE.test(e)) return e;
  return e.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

interface Cursor {
  offset: number;
  reverse: boolean;
  /** The position as the client sent it (DRF keeps the string and compares it as such). */
  position: string | null;
}

/** DRF's `encode_cursor` without the URL: base64 of `o=..&r=1&p=..`. */
function encodeCursor(c: Cursor): string {
  const parts: string[] = [];
  if (c.offset !== 0) parts.push(`o=${c.offset}`);
  if (c.reverse) parts.push('r=1');
  if (c.position !== null) parts.push(`p=${quotePlus(c.position)}`);
  return Buffer.from(parts.join('&'), 'ascii').toString('base64');
}

const B64_ALPHABET = /[^A-Za-z0-9+/=]/g;
/** What Python's `int()` parses (underscores between digits included). */
const INT = /^\s*[+-]?\d+(?:_\d+)*\s*$/;

/** DRF's `decode_cursor`: null for an invalid one (Python's lenient base64, `int()`, `parse_qs`). */
function decodeCursor(encoded: string): Cursor | null {
  const b64 = encoded.replace(B64_ALPHABET, '');
  const body = b64.replace(/=+$/, '');
  if (body.length % 4 === 1 || b64.length % 4 !== 0) return null; // binascii.Error: incorrect padding
  const bytes = Buffer.from(b64, 'base64');
  for (const b of bytes) if (b > 0x7f) return null; // .decode('ascii')
  const tokens = new URLSearchParams(bytes.toString('latin1'));
  const o = tokens.get('o') ?? '0';
  const r = tokens.get('r') ?? '0';
  if (!INT.test(o) || !INT.test(r)) return null;
  const offset = Number(o.replace(/_/g, ''));
  if (offset < 0) return null;
  return {
    offset: Math.min(offset, OFFSET_CUTOFF),
    reverse: Number(r.replace(/_/g, '')) !== 0,
    position: tokens.get('p'),
  };
}

/**
 * The request URL with `cursor` replaced (DRF's `replace_query_param`): the
 * query parsed (blank values kept), the parameter set, the names sorted, every
 * value form-encoded again.
 */
function linkTo(base: string, query: [string, string[]][], encodedCursor: string): string {
  const q: [string, string[]][] = query.filter(([k]) => k !== 'cursor');
  q.push(['cursor', [encodedCursor]]);
  q.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let out = '';
  for (const [k, vs] of q) for (const v of vs) out += `${out === '' ? '' : '&'}${quotePlus(k)}=${quotePlus(v)}`;
  return `${base}?${out}`;
}

/** The query string's parameters in first-appearance order, values per name (Python's `parse_qs`). */
function parseQuery(raw: string): [string, string[]][] {
  const byName = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(raw)) {
    const vs = byName.get(k);
    if (vs === undefined) byName.set(k, [v]);
    else vs.push(v);
  }
  return [...byName];
}

// ====================================================================== the endpoint

interface Page {
  next: string | null;
  previous: string | null;
  results: Row[];
}

function serve(dbFile: string, port: number): Promise<number> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  const cols = 'select id, name, created, price, category from item';
  // [reverse][with position][with offset]
  const stmt = (reverse: boolean, withPosition: boolean, withOffset: boolean): Database.Statement<unknown[], Row> =>
    db.prepare<unknown[], Row>(
      `${cols}${withPosition ? ` where created ${reverse ? '>' : '<'} ?` : ''} order by created ${reverse ? 'asc' : 'desc'} limit ${PAGE_SIZE + 1}${withOffset ? ' offset ?' : ''}`,
    );
  const statements = [false, true].map((r) => [false, true].map((p) => [false, true].map((o) => stmt(r, p, o))));

  const app = Fastify({ logger: false });
  const nullableString = { type: ['string', 'null'] };
  app.get<{ Querystring: Record<string, string> }>(
    PATH,
    {
      schema: {
        response: {
          200: {
            type: 'object',
            properties: {
              next: nullableString,
              previous: nullableString,
              results: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'integer' },
                    name: { type: 'string' },
                    created: { type: 'string' },
                    price: { type: 'integer' },
                    category: { type: 'string' },
                  },
                  required: ['id', 'name', 'created', 'price', 'category'],
                },
              },
            },
            required: ['next', 'previous', 'results'],
          },
          404: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
        },
      },
      // fastify appends `; charset=utf-8` to a JSON type set in the handler; eventide (and DRF) send the bare type
      onSend: (_request, reply, payload, done) => {
        void reply.header('content-type', 'application/json');
        done(null, payload);
      },
    },
    (request, reply) => {
      const url = request.url;
      const qi = url.indexOf('?');
      const query = qi < 0 ? [] : parseQuery(url.slice(qi + 1));
      const encoded = query.find(([k]) => k === 'cursor')?.[1].at(-1); // QueryDict.get: the last value
      let cursor: Cursor | null = null;
      let bound: string | null = null;
      if (encoded !== undefined) {
        cursor = decodeCursor(encoded);
        if (cursor !== null && cursor.position !== null) bound = toStorage(cursor.position);
        if (cursor === null || (cursor.position !== null && bound === null)) {
          void reply.code(404).send({ detail: 'Invalid cursor' });
          return;
        }
      }
      const offset = cursor?.offset ?? 0;
      const reverse = cursor?.reverse ?? false;
      const currentPosition = cursor?.position ?? null;
      const st = statements[+reverse]![+(bound !== null)]![+(offset > 0)]!;
      const args: unknown[] = [];
      if (bound !== null) args.push(bound);
      if (offset > 0) args.push(offset);
      const rows = st.all(...args);

      // positions (str() of created) of the fetched rows, and the rendered datetimes
      const positions: string[] = new Array<string>(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const stored = storedCreated(row);
        positions[i] = positionOf(stored);
        row.created = `${stored.slice(0, 10)}T${stored.slice(11)}Z`;
      }
      const hasFollowing = rows.length > PAGE_SIZE;
      const followingPosition = hasFollowing ? positions[PAGE_SIZE]! : null;
      let page = hasFollowing ? rows.slice(0, PAGE_SIZE) : rows;
      let pagePositions = hasFollowing ? positions.slice(0, PAGE_SIZE) : positions;
      let hasNext: boolean;
      let hasPrevious: boolean;
      let nextPosition: string | null = null;
      let previousPosition: string | null = null;
      if (reverse) {
        page = page.reverse();
        pagePositions = pagePositions.reverse();
        hasNext = currentPosition !== null || offset > 0;
        hasPrevious = hasFollowing;
        if (hasNext) nextPosition = currentPosition;
        if (hasPrevious) previousPosition = followingPosition;
      } else {
        hasNext = hasFollowing;
        hasPrevious = currentPosition !== null || offset > 0;
        if (hasNext) nextPosition = followingPosition;
        if (hasPrevious) previousPosition = currentPosition;
      }

      const base = `http://${request.headers.host ?? `${HOST}:${port}`}${PATH}`;
      let next: string | null = null;
      if (hasNext) {
        // DRF's get_next_link
        let compare =
          page.length > 0 && cursor !== null && cursor.reverse && cursor.offset > 0
            ? pagePositions.at(-1)!
            : nextPosition;
        let off = 0;
        let position: string | null = null;
        let unique = false;
        for (let i = pagePositions.length - 1; i >= 0; i--) {
          position = pagePositions[i]!;
          if (position !== compare) {
            unique = true;
            break;
          }
          compare = position;
          off++;
        }
        if (page.length > 0 && !unique) {
          if (!hasPrevious) {
            off = PAGE_SIZE;
            position = null;
          } else if (cursor!.reverse) {
            off = 0;
            position = previousPosition;
          } else {
            off = cursor!.offset + PAGE_SIZE;
            position = previousPosition;
          }
        }
        if (page.length === 0) position = nextPosition;
        next = linkTo(base, query, encodeCursor({ offset: off, reverse: false, position }));
      }
      let previous: string | null = null;
      if (hasPrevious) {
        // DRF's get_previous_link
        let compare =
          page.length > 0 && cursor !== null && !cursor.reverse && cursor.offset > 0
            ? pagePositions[0]!
            : previousPosition;
        let off = 0;
        let position: string | null = null;
        let unique = false;
        for (let i = 0; i < pagePositions.length; i++) {
          position = pagePositions[i]!;
          if (position !== compare) {
            unique = true;
            break;
          }
          compare = position;
          off++;
        }
        if (page.length > 0 && !unique) {
          if (!hasNext) {
            off = PAGE_SIZE;
            position = null;
          } else if (cursor!.reverse) {
            off = cursor!.offset + PAGE_SIZE;
            position = nextPosition;
          } else {
            off = 0;
            position = nextPosition;
          }
        }
        if (page.length === 0) position = previousPosition;
        previous = linkTo(base, query, encodeCursor({ offset: off, reverse: true, position }));
      }
      const body: Page = { next, previous, results: page };
      void reply.send(body);
    },
  );

  const stop = (): void => {
    void app.close().finally(() => {
      db.close();
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return app.listen({ host: HOST, port }).then(() => (app.server.address() as { port: number }).port);
}

// ====================================================================== main

async function main(): Promise<void> {
  const dbFile = arg('--database');
  if (dbFile === undefined) throw new Error('usage: fastify-cursor.ts --database FILE [--port 0] [--workers N]');
  const port = Number(arg('--port') ?? 0);
  const workers = Number(arg('--workers') ?? 0);
  if (!Number.isInteger(workers) || workers < 0) throw new Error('--workers takes a whole number');

  if (cluster.isWorker) {
    const p = await serve(dbFile, port);
    process.send?.({ listening: p });
    return;
  }
  if (workers === 0) {
    const p = await serve(dbFile, port);
    console.log(`fastify listening on http://${HOST}:${p}/`);
    return;
  }
  // the primary: N workers share one listening socket (node:cluster); the kernel picks the worker
  if (process.env.NODE_CLUSTER_SCHED_POLICY === undefined) cluster.schedulingPolicy = cluster.SCHED_NONE;
  let stopping = false;
  const ports: number[] = [];
  const all = [];
  for (let i = 0; i < workers; i++) {
    const w = cluster.fork();
    w.on('exit', (code, sig) => {
      if (!stopping) {
        console.error(`fastify worker ${w.process.pid} exited (${code ?? sig})`);
        process.exit(1);
      }
    });
    all.push(
      once(w, 'message').then(([m]) => {
        ports.push((m as { listening: number }).listening);
      }),
    );
  }
  await Promise.all(all);
  if (new Set(ports).size !== 1) throw new Error(`the workers listen on different ports: ${ports.join(', ')}`);
  const stop = (): void => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    cluster.disconnect(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`fastify listening on http://${HOST}:${ports[0]}/ (${workers} workers, node:cluster)`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

/**
 * The `@example` blocks of the TSDoc in src/ compile. Every `@example` holds
 * a fenced block; each ```ts (or ```typescript) block becomes a module of
 * its own in a temporary directory, and all of them are type-checked in one
 * TypeScript program with the options of tsconfig.json (strict,
 * noUncheckedIndexedAccess, NodeNext; unused names allowed, and types
 * imported like values, as an application may). A block of another
 * language (```text, ```sh, ```http) is documentation, not code: it is not
 * compiled.
 *
 * A block is compiled as written, in this frame:
 *
 * 1. its own `import` lines and `declare` statements (the values it takes
 *    as given: `declare const host: TransportHost;`), moved to the top; a
 *    relative import (`'./buffer-chunk.js'`) is the source module's;
 * 2. the public exports of its layer's entry point (`eventide/event`,
 *    `eventide/http`, `eventide/rest`, `eventide/sql`) and of the layers
 *    below it (cli modules see every entry point), minus the names the block
 *    binds itself; on a name two layers share, the higher layer wins;
 * 3. when the example documents something no entry point exports (an
 *    `@internal` comment, a declaration that is not public, a cli module),
 *    the exports of its own module too, before those of the entry points;
 * 4. `declare const` context variables that fragments use without declaring
 *    them (`base`, `bev`, `req`, `http`, `api`, `request`..., see
 *    `CONTEXT`), those of its layer and the layers below;
 * 5. the rest of the block inside `{ ... }`, so that it may declare a name of
 *    the context again. The module is ESM: top-level `await` is allowed.
 *
 * `eventide/*` resolves to the sources (src/<layer>/index.ts), other
 * packages to the repository's node_modules. A failure names the source
 * file and line of the code and the diagnostic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(root, 'src');

/** The layers with an entry point, in import order. */
const LAYERS = ['event', 'http', 'rest', 'sql'] as const;
type Layer = (typeof LAYERS)[number];

/**
 * The context: names that fragments use as given (`base`, `req`, `api`...),
 * by the layer that provides their types; a block sees those of its layer
 * and the layers below. The types are written against the entry points,
 * `$event` for `eventide/event` and so on. The examples of the rest and sql
 * layers share one domain, the demo catalog: its `Item` rows, a queryset of
 * them, the serializer, views and routes written for it, and its table
 * (`DB`, `db`, `itemFields`).
 */
const CONTEXT: Record<Layer, { types?: Record<string, string>; values: Record<string, string> }> = {
  event: {
    values: {
      base: '$event.EventBase',
      cfg: '$event.EventConfig',
      ev: '$event.Event',
      buf: '$event.EventBuffer',
      bev: '$event.EventBufferEvent',
      listener: '$event.EventListener',
      dns: '$event.EventDnsBase',
      ctx: '$event.EventSslContext',
      fio: '$event.FileIO',
      fd: 'number',
      err: 'Error',
      onRead: '$event.BufferEventDataCallback',
      onEvent: '$event.BufferEventEventCallback',
      onAccept: '$event.AcceptCallback',
      socket: "import('node:net').Socket",
      sock: "import('node:net').Socket",
      server: "import('node:net').Server",
      tlsSock: "import('node:tls').TLSSocket",
    },
  },
  http: {
    values: {
      http: '$http.EventHttp',
      req: '$http.EventHttpRequest',
      conn: '$http.EventHttpConnection',
      head: '$http.RequestHead',
      parser: '$http.RequestParser',
    },
  },
  rest: {
    types: { Item: '{ id: number; name: string; created: Date; price: number; category: string }' },
    values: {
      api: '$rest.RestApi',
      request: '$rest.Request',
      response: '$rest.Response',
      resolver: '$rest.URLResolver',
      rows: 'Item[]',
      items: '$rest.Queryset<Item>',
      ItemSerializer: 'typeof $rest.Serializer<Item>',
      ItemList: 'typeof $rest.ListAPIView',
      ItemDetail: 'typeof $rest.RetrieveAPIView',
      ItemViewSet: 'typeof $rest.ReadOnlyModelViewSet',
      itemList: '$rest.ViewFunction',
      itemDetail: '$rest.ViewFunction',
      apiRoutes: '$rest.URLEntry[]',
    },
  },
  sql: {
    types: { DB: '{ item: { id: number; name: string; created: string; price: number; category: string } }' },
    values: {
      db: "import('kysely').Kysely<DB>",
      itemFields: 'Readonly<Record<keyof Item, $rest.FieldInfo>>',
    },
  },
};

/** One fenced block to compile. */
interface Block {
  /** Path relative to the repository root, with `/`. */
  file: string;
  /** The line of the `@example` tag. */
  tag: number;
  /** The lines of code, and the line of each in the source file (1-based). */
  code: string[];
  lines: number[];
  /** The example documents something no entry point exports: the module's own exports are in scope. */
  internal: boolean;
}

interface Source {
  file: string;
  layer: Layer | 'cli' | 'root';
  /** The names the module exports. */
  exports: string[];
  /** The module, as an absolute import specifier. */
  specifier: string;
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : n.endsWith('.ts') ? [p] : [];
    })
    .sort();
}

const slash = (p: string): string => p.split('\\').join('/');

/** The names a top-level statement declares. */
function declaredNames(st: ts.Statement): string[] {
  if (ts.isVariableStatement(st))
    return st.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  if (
    (ts.isFunctionDeclaration(st) ||
      ts.isClassDeclaration(st) ||
      ts.isInterfaceDeclaration(st) ||
      ts.isTypeAliasDeclaration(st) ||
      ts.isEnumDeclaration(st)) &&
    st.name
  )
    return [st.name.text];
  return [];
}

const isExported = (st: ts.Statement): boolean =>
  ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a module exports, read from its syntax (exported declarations and `export { ... }` lists). */
function exportsOf(sf: ts.SourceFile): string[] {
  return sf.statements.flatMap((st) => {
    if (ts.isExportDeclaration(st))
      return st.exportClause && ts.isNamedExports(st.exportClause)
        ? st.exportClause.elements.map((el) => el.name.text)
        : [];
    return isExported(st) ? declaredNames(st) : [];
  });
}

function layerOf(file: string): Source['layer'] {
  const top = relative(SRC, file).split(/[\\/]/)[0] as string;
  if (top === 'cli') return 'cli';
  if (top === 'index.ts') return 'root';
  assert.ok((LAYERS as readonly string[]).includes(top), `${file}: not in a layer`);
  return top as Layer;
}

/** The layers whose exports and context the examples of a module see, highest first. */
function visibleLayers(layer: Source['layer']): Layer[] {
  if (layer === 'cli') return [...LAYERS].reverse();
  if (layer === 'root') return ['http', 'event'];
  return LAYERS.slice(0, LAYERS.indexOf(layer) + 1).reverse();
}

/** Every TSDoc comment of a module (the leading comments of its nodes). */
function docComments(sf: ts.SourceFile): { pos: number; text: string }[] {
  const seen = new Set<number>();
  const out: { pos: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    for (const r of ts.getLeadingCommentRanges(sf.text, node.pos) ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      const text = sf.text.slice(r.pos, r.end);
      if (text.startsWith('/**') && text !== '/**/') out.push({ pos: r.pos, text });
    }
    node.forEachChild(visit);
  };
  visit(sf);
  return out.sort((a, b) => a.pos - b.pos);
}

/**
 * The declarations the entry points export, as `file#name`: each name
 * followed through the `export { ... } from` lists to the module that
 * declares it.
 */
function publicDeclarations(parsed: Map<string, ts.SourceFile>): Set<string> {
  const out = new Set<string>();
  const follow = (file: string, name: string, depth: number): void => {
    const sf = parsed.get(file);
    assert.ok(sf && depth < 20, `${file}: cannot follow the export of ${name}`);
    for (const st of sf.statements) {
      if (!ts.isExportDeclaration(st) || !st.exportClause || !ts.isNamedExports(st.exportClause)) continue;
      const el = st.exportClause.elements.find((e) => e.name.text === name);
      if (!el) continue;
      const local = (el.propertyName ?? el.name).text;
      if (st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
        const target = slash(join(file, '..', st.moduleSpecifier.text.replace(/\.js$/, '.ts')));
        return follow(target, local, depth + 1);
      }
      out.add(`${file}#${local}`);
      return;
    }
    out.add(`${file}#${name}`);
  };
  for (const l of LAYERS) {
    const file = `src/${l}/index.ts`;
    for (const name of exportsOf(parsed.get(file) as ts.SourceFile)) follow(file, name, 0);
  }
  return out;
}

/**
 * Whether a comment documents something no entry point exports: it says
 * `@internal`, or it is (inside) a top-level declaration that is not public,
 * or it is the comment of a module that exports nothing public.
 */
function documentsInternal(src: Source, sf: ts.SourceFile, pos: number, text: string, pub: Set<string>): boolean {
  if (src.layer === 'cli' || /@internal\b/.test(text)) return true;
  const isPublic = (name: string): boolean => pub.has(`${src.file}#${name}`);
  if (/@module\b/.test(text)) return !src.exports.some(isPublic);
  const st = sf.statements.find((s) => s.pos <= pos && pos < s.end);
  if (!st) return true;
  const names = ts.isExportDeclaration(st) ? exportsOf(sf) : isExported(st) ? declaredNames(st) : [];
  return !names.some(isPublic);
}

/**
 * The ```ts blocks of the `@example` sections of one comment (a section runs
 * from its tag to the next block tag). An `@example` without a fenced block,
 * a fence without a language and an unclosed fence are problems.
 */
function blocksOf(
  file: string,
  comment: string,
  firstLine: number,
  internal: boolean,
  problems: string[],
): { blocks: Block[]; sections: number } {
  const raw = comment.split('\n');
  const lines = raw.map((l, i) => {
    let s = i === 0 ? l.replace(/^\s*\/\*\*/, '') : l.replace(/^\s*\*(?: |$)/, '');
    if (i === raw.length - 1) s = s.replace(/\*\/\s*$/, '');
    return s;
  });
  const blocks: Block[] = [];
  let sections = 0;
  let section: { line: number; fences: number } | null = null;
  let fence: { line: number; block: Block | null } | null = null;
  const endSection = (): void => {
    if (section && section.fences === 0)
      problems.push(`${file}:${section.line}: @example without a fenced code block (\`\`\`ts ... \`\`\`)`);
    section = null;
  };
  for (const [i, line] of lines.entries()) {
    const at = firstLine + i;
    const trimmed = line.trim();
    if (fence) {
      if (/^```\s*$/.test(trimmed)) {
        if (fence.block) blocks.push(fence.block);
        fence = null;
      } else if (fence.block) {
        fence.block.code.push(line);
        fence.block.lines.push(at);
      }
      continue;
    }
    const open = /^```(\S*)\s*$/.exec(trimmed);
    if (open) {
      const lang = open[1] as string;
      if (lang === '') problems.push(`${file}:${at}: fence without a language (\`\`\`ts; \`\`\`text for prose)`);
      const compiled = section !== null && (lang === 'ts' || lang === 'typescript');
      if (section) section.fences++;
      fence = { line: at, block: compiled ? { file, tag: section?.line ?? at, code: [], lines: [], internal } : null };
      continue;
    }
    if (/^@\w/.test(trimmed)) endSection();
    if (/(?:^|\s)@example\b/.test(line)) {
      endSection();
      sections++;
      section = { line: at, fences: 0 };
    }
  }
  if (fence) problems.push(`${file}:${fence.line}: unclosed fence`);
  endSection();
  return { blocks, sections };
}

/** Every source module and every block of code of its examples. */
function collect(): { sources: Map<string, Source>; blocks: Block[]; problems: string[] } {
  const sources = new Map<string, Source>();
  const parsed = new Map<string, ts.SourceFile>();
  for (const path of walk(SRC)) {
    const file = slash(relative(root, path));
    const sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    parsed.set(file, sf);
    sources.set(file, {
      file,
      layer: layerOf(path),
      exports: exportsOf(sf),
      specifier: slash(path).replace(/\.ts$/, '.js'),
    });
  }
  const pub = publicDeclarations(parsed);
  const blocks: Block[] = [];
  const problems: string[] = [];
  for (const [file, sf] of parsed) {
    const src = sources.get(file) as Source;
    let sections = 0;
    for (const c of docComments(sf)) {
      const line = sf.getLineAndCharacterOfPosition(c.pos).line + 1;
      const found = blocksOf(file, c.text, line, documentsInternal(src, sf, c.pos, c.text, pub), problems);
      blocks.push(...found.blocks);
      sections += found.sections;
    }
    const tags = [...sf.text.matchAll(/(?:^|\s)@example\b/g)].length;
    if (tags !== sections) problems.push(`${file}: ${tags - sections} @example tag(s) outside the TSDoc comments read`);
  }
  return { sources, blocks, problems };
}

/** A `declare` statement: a value the example takes as given. */
const isAmbient = (st: ts.Statement): boolean =>
  ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);

/** The names an import declaration binds. */
function importedNames(st: ts.ImportDeclaration | ts.ImportEqualsDeclaration): string[] {
  if (ts.isImportEqualsDeclaration(st)) return [st.name.text];
  const clause = st.importClause;
  if (!clause) return [];
  const names = clause.name ? [clause.name.text] : [];
  const b = clause.namedBindings;
  if (b && ts.isNamespaceImport(b)) names.push(b.name.text);
  if (b && ts.isNamedImports(b)) names.push(...b.elements.map((el) => el.name.text));
  return names;
}

/** One generated module: its text and, for each of its lines, the source line it reports. */
function moduleOf(block: Block, src: Source, entries: Map<Layer, Source>): { text: string; map: number[] } {
  const code = block.code.join('\n');
  const sf = ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022, true);
  const lineOf = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line;
  const out: string[] = [];
  const map: number[] = [];
  const emit = (text: string, line: number): void => {
    for (const l of text.split('\n')) {
      out.push(l);
      map.push(line);
    }
  };
  // 1. The block's imports and `declare` statements, hoisted; their text is blanked in the body.
  const bound = new Set<string>();
  let body = code;
  for (const st of sf.statements) {
    const declared = !ts.isImportDeclaration(st) && !ts.isImportEqualsDeclaration(st);
    if (declared && !isAmbient(st)) continue;
    const [start, end] = [st.getStart(sf), st.getEnd()];
    const first = lineOf(start);
    let text = st.getText(sf);
    // A relative specifier (an internal example importing a module next to its own) is the source module's.
    const spec = ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier : null;
    if (spec?.text.startsWith('.')) {
      const at = spec.getStart(sf) - start;
      const resolved = slash(join(root, src.file, '..', spec.text));
      text = `${text.slice(0, at)}'${resolved}'${text.slice(at + spec.getWidth(sf))}`;
    }
    text.split('\n').forEach((l, k) => emit(l, block.lines[first + k] as number));
    for (const n of declared ? declaredNames(st) : importedNames(st)) bound.add(n);
    body = body.slice(0, start) + body.slice(start, end).replace(/[^\n]/g, ' ') + body.slice(end);
  }
  const preludeLine = block.lines[0] ?? block.tag;
  // 2, 3. The module's own exports (internal examples), then the entry points, highest layer first.
  const imports: [string, string[]][] = [];
  const take = (specifier: string, names: string[]): void => {
    const fresh = [...new Set(names)].filter((n) => !bound.has(n));
    fresh.forEach((n) => bound.add(n));
    if (fresh.length > 0) imports.push([specifier, fresh]);
  };
  if (block.internal) take(src.specifier, src.exports);
  const layers = visibleLayers(src.layer);
  for (const l of layers) take(`eventide/${l}`, (entries.get(l) as Source).exports);
  for (const [specifier, names] of imports) emit(`import { ${names.join(', ')} } from '${specifier}';`, preludeLine);
  // 4. The context, its types first.
  for (const l of layers) emit(`import * as $${l} from 'eventide/${l}';`, preludeLine);
  for (const l of [...layers].reverse()) {
    for (const [name, type] of Object.entries(CONTEXT[l].types ?? {}))
      if (!bound.has(name)) emit(`type ${name} = ${type};`, preludeLine);
    for (const [name, type] of Object.entries(CONTEXT[l].values))
      if (!bound.has(name)) emit(`declare const ${name}: ${type};`, preludeLine);
  }
  // 5. The body.
  emit('{', preludeLine);
  body.split('\n').forEach((l, k) => emit(l, block.lines[k] as number));
  emit('}', block.lines[block.lines.length - 1] ?? block.tag);
  return { text: `${out.join('\n')}\n`, map };
}

/** The compiler options of tsconfig.json, for modules outside the repository that import `eventide/*`. */
function compilerOptions(): ts.CompilerOptions {
  const read = ts.readConfigFile(join(root, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  assert.ok(!read.error, 'tsconfig.json');
  const config: unknown = read.config;
  const json = { compilerOptions: (config as { compilerOptions?: object } | undefined)?.compilerOptions ?? {} };
  const { options } = ts.parseJsonConfigFileContent(json, ts.sys, root);
  const paths: Record<string, string[]> = { eventide: [join(SRC, 'index.ts')] };
  for (const l of LAYERS) paths[`eventide/${l}`] = [join(SRC, l, 'index.ts')];
  return {
    ...options,
    noEmit: true,
    skipLibCheck: true,
    noUnusedLocals: false,
    noUnusedParameters: false,
    // Examples import types and values alike, as an application may.
    verbatimModuleSyntax: false,
    isolatedModules: false,
    paths,
    typeRoots: [join(root, 'node_modules', '@types')],
  };
}

const { sources, blocks, problems } = collect();

test('every @example of the TSDoc in src/ is a fenced code block', () => {
  assert.deepEqual(problems, []);
});

test('the ```ts blocks of the @example sections in src/ compile (strict, noUncheckedIndexedAccess)', (t) => {
  const started = Date.now();
  const entries = new Map(LAYERS.map((l) => [l, sources.get(`src/${l}/index.ts`) as Source]));
  const dir = mkdtempSync(join(tmpdir(), 'eventide-doc-examples-'));
  const modules = new Map<string, { block: Block; map: number[] }>();
  try {
    // Packages the examples import (node_modules) resolve as from the repository.
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'junction');
    // A block with a known error: the check of every module must see it.
    const probe: Block = {
      file: 'src/index.ts',
      tag: 1,
      code: ["const n: number = 'one';"],
      lines: [1],
      internal: false,
    };
    [...blocks, probe].forEach((block, i) => {
      const src = sources.get(block.file);
      assert.ok(src, block.file);
      const { text, map } = moduleOf(block, src, entries);
      const path = join(dir, `example-${String(i).padStart(4, '0')}.mts`);
      writeFileSync(path, text);
      modules.set(path, { block, map });
    });
    const program = ts.createProgram([...modules.keys()], compilerOptions());
    const failures: string[] = [];
    let probed = false;
    const report = (d: ts.Diagnostic): void => {
      const message = `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n  ')}`;
      const m = d.file ? modules.get(d.file.fileName) : undefined;
      if (!d.file || d.start === undefined || !m) {
        failures.push(`${d.file ? slash(relative(root, d.file.fileName)) : '(program)'}: ${message}`);
        return;
      }
      if (m.block === probe) {
        probed ||= d.code === 2322;
        return;
      }
      const line = m.map[d.file.getLineAndCharacterOfPosition(d.start).line] ?? m.block.tag;
      failures.push(`${m.block.file}:${line}: ${message}`);
    };
    program.getOptionsDiagnostics().forEach(report);
    program.getGlobalDiagnostics().forEach(report);
    for (const sf of program.getSourceFiles()) {
      if (!modules.has(sf.fileName)) continue;
      program.getSyntacticDiagnostics(sf).forEach(report);
      program.getSemanticDiagnostics(sf).forEach(report);
    }
    t.diagnostic(
      `${blocks.length} blocks of ${new Set(blocks.map((b) => b.file)).size} modules in ${Date.now() - started} ms`,
    );
    assert.ok(probed, 'the deliberate error of the probe block was not reported');
    assert.ok(blocks.length > 0, 'no examples found');
    assert.deepEqual(failures, []);
  } finally {
    rmSync(join(dir, 'node_modules'), { force: true }); // the link, not what it points to
    rmSync(dir, { recursive: true, force: true });
  }
});

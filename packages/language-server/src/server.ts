/**
 * The Patchwork language server: LSP over a stream pair (stdio for `patchwork lsp`).
 * A thin layer: every answer comes from @patchwork/analysis (and the formatter of
 * @patchwork/parser); this file converts positions, ranges and shapes, and keeps one
 * AnalysisDocument per open document, updated edit by edit (incremental sync).
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Readable, Writable } from "node:stream";
import { readdirSync, readFileSync } from "node:fs";
import {
  AnalysisDocument,
  CachingResolver,
  SEMANTIC_TYPES,
  completion,
  definition,
  documentSymbols,
  foldingRanges,
  hover,
  references,
  rename,
  semanticTokens,
  type DocumentSymbol as PwSymbol,
  type OffsetDiagnostic,
} from "@patchwork/analysis";
import { format } from "@patchwork/parser";
import lsp from "vscode-languageserver/node.js";
import type {
  CodeAction,
  CompletionItem,
  Connection,
  Diagnostic,
  DocumentSymbol,
  InitializeResult,
  Location,
  Range,
  TextDocumentContentChangeEvent,
  TextEdit,
} from "vscode-languageserver/node.js";
import { TextDocument } from "vscode-languageserver-textdocument";
import { bareCommandFix, suggestsShellLine } from "./actions.js";

const {
  createConnection,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentSyncKind,
  DiagnosticSeverity,
  CompletionItemKind,
  SymbolKind,
  DiagnosticTag,
  ProposedFeatures,
} = lsp;

/**
 * Documents larger than this are not analysed live (a full parse of several MB would hold up
 * every other request for seconds); the server says so with one diagnostic.
 */
export const MAX_ANALYSED_CHARS = 1_000_000;

interface Open {
  uri: string;
  td: TextDocument;
  doc: AnalysisDocument;
  /** Too large for live analysis: `doc` is empty. */
  tooLarge: boolean;
  /** A publish is scheduled. */
  dirty: boolean;
}

function pathOf(uri: string): string {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

const severities = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  hint: DiagnosticSeverity.Hint,
} as const;

const completionKinds = {
  keyword: CompletionItemKind.Keyword,
  function: CompletionItemKind.Function,
  variable: CompletionItemKind.Variable,
  module: CompletionItemKind.Module,
  property: CompletionItemKind.Property,
  file: CompletionItemKind.File,
} as const;

const symbolKinds = {
  function: SymbolKind.Function,
  variable: SymbolKind.Variable,
  class: SymbolKind.Class,
  module: SymbolKind.Module,
  type: SymbolKind.TypeParameter,
  method: SymbolKind.Method,
} as const;

export interface ServerOptions {
  input: Readable;
  output: Writable;
}

/** Starts a server on the stream pair; resolves when the client ends the session. */
export function startLanguageServer(options: ServerOptions): { connection: Connection; done: Promise<void> } {
  const connection = createConnection(ProposedFeatures.all, new StreamMessageReader(options.input), new StreamMessageWriter(options.output));
  const server = new PatchworkServer(connection);
  server.register();
  const done = new Promise<void>((resolve) => {
    connection.onExit(() => resolve());
    options.input.on("close", () => resolve());
    options.input.on("end", () => resolve());
  });
  connection.listen();
  return { connection, done };
}

class PatchworkServer {
  private readonly open = new Map<string, Open>();
  private readonly resolver = new CachingResolver((path) => this.readModule(path));

  constructor(private readonly connection: Connection) {}

  private readModule(path: string): string {
    for (const o of this.open.values()) if (pathOf(o.uri) === path) return o.td.getText();
    return readFileSync(path, "utf8");
  }

  /** Runs a request handler; a failure is logged to the client and answered with `fallback`. */
  private safe<P, R>(fallback: R, fn: (p: P) => R): (p: P) => R {
    return (p: P) => {
      try {
        return fn(p);
      } catch (e) {
        this.connection.console.error(`patchwork: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        return fallback;
      }
    };
  }

  register(): void {
    const c = this.connection;
    c.onInitialize(
      (): InitializeResult => ({
        capabilities: {
          textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
          hoverProvider: true,
          definitionProvider: true,
          referencesProvider: true,
          renameProvider: true,
          completionProvider: { triggerCharacters: [".", "{", '"', "/"] },
          documentSymbolProvider: true,
          foldingRangeProvider: true,
          documentFormattingProvider: true,
          codeActionProvider: true,
          semanticTokensProvider: { legend: { tokenTypes: [...SEMANTIC_TYPES], tokenModifiers: [] }, full: true },
        },
        serverInfo: { name: "patchwork" },
      }),
    );
    c.onDidOpenTextDocument(
      this.safe(undefined, (p) => {
        const td = TextDocument.create(p.textDocument.uri, "patchwork", p.textDocument.version, p.textDocument.text);
        const tooLarge = td.getText().length > MAX_ANALYSED_CHARS;
        const doc = new AnalysisDocument(tooLarge ? "" : td.getText(), { fileName: pathOf(td.uri), resolver: this.resolver, incremental: true });
        this.open.set(td.uri, { uri: td.uri, td, doc, dirty: false, tooLarge });
        this.schedule(td.uri);
      }),
    );
    c.onDidChangeTextDocument(
      this.safe(undefined, (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return;
        for (const change of p.contentChanges) this.apply(o, change, p.textDocument.version);
        this.schedule(o.uri);
        // Open documents that import files may import this one: check them again.
        for (const other of this.open.values()) {
          if (other === o || !other.doc.importsFiles) continue;
          other.doc.importsChanged();
          this.schedule(other.uri);
        }
      }),
    );
    c.onDidCloseTextDocument(
      this.safe(undefined, (p) => {
        this.open.delete(p.textDocument.uri);
        void c.sendDiagnostics({ uri: p.textDocument.uri, diagnostics: [] });
      }),
    );
    c.onHover(
      this.safe(null, (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return null;
        const h = hover(o.doc, o.td.offsetAt(p.position));
        return h ? { contents: { kind: "markdown" as const, value: h.markdown }, range: this.range(o, h.range) } : null;
      }),
    );
    c.onDefinition(
      this.safe([] as Location[], (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return [];
        return definition(o.doc, o.td.offsetAt(p.position)).map((l) => this.location(o, l));
      }),
    );
    c.onReferences(
      this.safe([] as Location[], (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return [];
        return references(o.doc, o.td.offsetAt(p.position), p.context.includeDeclaration).map((r) => ({ uri: o.uri, range: this.range(o, r) }));
      }),
    );
    c.onRenameRequest(
      this.safe(null, (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return null;
        const ranges = rename(o.doc, o.td.offsetAt(p.position), p.newName);
        if (!ranges) return null;
        return { changes: { [o.uri]: ranges.map((r): TextEdit => ({ range: this.range(o, r), newText: p.newName })) } };
      }),
    );
    c.onCompletion(
      this.safe([] as CompletionItem[], (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return [];
        return completion(o.doc, o.td.offsetAt(p.position), listPw).map((i) => {
          const item: CompletionItem = { label: i.label, kind: completionKinds[i.kind] };
          if (i.detail) item.detail = i.detail;
          if (i.documentation) item.documentation = i.documentation;
          return item;
        });
      }),
    );
    c.onDocumentSymbol(
      this.safe([] as DocumentSymbol[], (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return [];
        const conv = (s: PwSymbol): DocumentSymbol => ({
          name: s.name,
          kind: symbolKinds[s.kind],
          detail: s.detail,
          range: this.range(o, s.range),
          selectionRange: this.range(o, s.selection),
          children: s.children.map(conv),
        });
        return documentSymbols(o.doc).map(conv);
      }),
    );
    c.onFoldingRanges(
      this.safe([], (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return [];
        return foldingRanges(o.doc).map((r) => ({ startLine: o.td.positionAt(r.start).line, endLine: o.td.positionAt(r.end).line }));
      }),
    );
    c.languages.semanticTokens.on(
      this.safe({ data: [] as number[] }, (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return { data: [] };
        return { data: this.encodeTokens(o) };
      }),
    );
    c.onDocumentFormatting(
      this.safe(null as TextEdit[] | null, (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return null;
        const r = format(o.td.getText());
        if (!r.ok) return null;
        if (r.text === o.td.getText()) return [];
        return [{ range: { start: { line: 0, character: 0 }, end: o.td.positionAt(o.td.getText().length) }, newText: r.text }];
      }),
    );
    c.onCodeAction(
      this.safe([] as CodeAction[], (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return [];
        const out: CodeAction[] = [];
        for (const d of p.context.diagnostics) {
          if (!suggestsShellLine(d.message)) continue;
          const fix = bareCommandFix(o.td.getText(), o.td.offsetAt(d.range.start));
          if (!fix) continue;
          out.push({
            title: fix.title,
            kind: "quickfix",
            diagnostics: [d],
            edit: { changes: { [o.uri]: [{ range: this.range(o, fix), newText: fix.newText }] } },
          });
        }
        return out;
      }),
    );
  }

  private apply(o: Open, change: TextDocumentContentChangeEvent, version: number): void {
    const start = "range" in change ? o.td.offsetAt(change.range.start) : 0;
    const end = "range" in change ? o.td.offsetAt(change.range.end) : 0;
    o.td = TextDocument.update(o.td, [change], version);
    const tooLarge = o.td.getText().length > MAX_ANALYSED_CHARS;
    if (tooLarge) o.doc.setText("");
    else if (o.tooLarge || !("range" in change)) o.doc.setText(o.td.getText());
    else o.doc.edit(start, end, change.text);
    o.tooLarge = tooLarge;
  }

  /** Publishes diagnostics once the queued messages are handled: a burst of edits costs one analysis. */
  private schedule(uri: string): void {
    const o = this.open.get(uri);
    if (!o || o.dirty) return;
    o.dirty = true;
    setImmediate(() => {
      o.dirty = false;
      if (this.open.get(uri) !== o) return;
      try {
        const diagnostics = o.tooLarge
          ? [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Information, source: "patchwork", message: `this file is too large for live analysis (${(o.td.getText().length / 1e6).toFixed(1)} MB, over ${MAX_ANALYSED_CHARS / 1e6} MB): run \`patchwork check\` on it` }]
          : o.doc.diagnostics().map((d) => this.diagnostic(o, d));
        void this.connection.sendDiagnostics({ uri, version: o.td.version, diagnostics });
      } catch (e) {
        this.connection.console.error(`patchwork: diagnostics failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
  }

  private diagnostic(o: Open, d: OffsetDiagnostic): Diagnostic {
    const out: Diagnostic = { range: this.range(o, d), severity: severities[d.severity], code: d.code, source: "patchwork", message: d.message };
    if (d.code === "PW5005") out.tags = [DiagnosticTag.Unnecessary];
    return out;
  }

  private range(o: Open, r: { start: number; end: number }): Range {
    return { start: o.td.positionAt(r.start), end: o.td.positionAt(r.end) };
  }

  private location(o: Open, l: { path: string | null; start: number; end: number }): Location {
    if (l.path === null) return { uri: o.uri, range: this.range(o, l) };
    const text = this.readModule(l.path);
    const td = TextDocument.create(pathToFileURL(l.path).href, "patchwork", 0, text);
    return { uri: td.uri, range: { start: td.positionAt(l.start), end: td.positionAt(l.end) } };
  }

  private encodeTokens(o: Open): number[] {
    const data: number[] = [];
    let line = 0;
    let char = 0;
    for (const t of semanticTokens(o.doc)) {
      // LSP tokens do not span lines: split multi-line tokens per line.
      let s = t.start;
      while (s < t.end) {
        const pos = o.td.positionAt(s);
        const nl = o.td.getText().indexOf("\n", s);
        const e = nl < 0 || nl >= t.end ? t.end : nl;
        if (e > s) {
          const dl = pos.line - line;
          data.push(dl, dl === 0 ? pos.character - char : pos.character, e - s, SEMANTIC_TYPES.indexOf(t.type), 0);
          line = pos.line;
          char = pos.character;
        }
        s = e + 1;
      }
    }
    return data;
  }
}

/** `.pw` files of a directory (import path completion). */
function listPw(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith(".pw"));
  } catch {
    return [];
  }
}

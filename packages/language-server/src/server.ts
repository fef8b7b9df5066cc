/**
 * The Patchwork language server: LSP over a stream pair (stdio for `patchwork lsp`).
 * A thin layer: every answer comes from @patchwork/analysis (and the formatter of
 * @patchwork/parser); this file keeps one AnalysisDocument per open document, updated edit
 * by edit (incremental sync), and answers each request; positions, ranges and shapes are
 * converted by convert.ts.
 */
import { pathToFileURL } from "node:url";
import type { Readable, Writable } from "node:stream";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AnalysisDocument,
  CachingResolver,
  SEMANTIC_TYPES,
  completion,
  documentSymbols,
  foldingRanges,
  hover,
  prepareQueries,
  workspaceDefinition,
  workspacePrepareRename,
  workspaceReferences,
  workspaceRename,
  type FileRange,
  type Workspace,
  type DocumentSymbol as PwSymbol,
} from "@patchwork/analysis";
import { Formatter } from "./formatter.js";
import { guardedFrames } from "./frames.js";
import lsp from "vscode-languageserver/node.js";
import type {
  CodeAction,
  CompletionItem,
  Connection,
  DocumentSymbol,
  InitializeResult,
  Location,
  Message,
  TextDocumentContentChangeEvent,
  TextEdit,
} from "vscode-languageserver/node.js";
import { TextDocument } from "vscode-languageserver-textdocument";
import { bareCommandFix, suggestsShellLine } from "./actions.js";
import { completionKinds, diagnostic, encodeTokens, range, symbolKinds } from "./convert.js";
import { listPw, listPwTree, pathOf } from "./files.js";
import type { Open } from "./open.js";

const {
  createConnection,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentSyncKind,
  DiagnosticSeverity,
  ProposedFeatures,
  ResponseError,
  LSPErrorCodes,
} = lsp;

/**
 * Documents larger than this are not analysed live (a full parse of several MB would hold up
 * every other request for seconds); the server says so with one diagnostic.
 */
export const MAX_ANALYSED_CHARS = 1_000_000;

/** Files of the workspace looked at for importers (references, rename): at most this many. */
const MAX_WORKSPACE_FILES = 2000;

export interface ServerOptions {
  input: Readable;
  output: Writable;
  /** Where refused or skipped input is said (stderr in `patchwork lsp`). */
  log?: (message: string) => void;
}

/** Starts a server on the stream pair; resolves when the client ends the session. */
export function startLanguageServer(options: ServerOptions): { connection: Connection; done: Promise<void> } {
  const writer = new StreamMessageWriter(options.output);
  const input = guardedFrames(options.input, { reply: (response) => void writer.write(response as Message), log: options.log ?? (() => undefined) });
  const connection = createConnection(ProposedFeatures.all, new StreamMessageReader(input), writer);
  const server = new PatchworkServer(connection);
  server.register();
  const done = new Promise<void>((resolve) => {
    connection.onExit(() => resolve());
    options.input.on("close", () => resolve());
    options.input.on("end", () => resolve());
  }).finally(() => server.close());
  connection.listen();
  return { connection, done };
}

class PatchworkServer {
  private readonly open = new Map<string, Open>();
  /** Large documents are formatted on a thread of their own. */
  private readonly formatter = new Formatter();
  private readonly resolver = new CachingResolver((path) => this.readModule(path));
  /** Analyses of closed files (references, rename), one per version of their text. */
  private readonly closed = new Map<string, AnalysisDocument>();
  /** The workspace's folders (from `initialize`), searched for files importing a module. */
  private roots: string[] = [];

  constructor(private readonly connection: Connection) {}

  private readModule(path: string): string {
    for (const o of this.open.values()) if (o.path === path) return o.td.getText();
    return readFileSync(path, "utf8");
  }

  private log(what: string, e: unknown): void {
    this.connection.console.error(`patchwork: ${what}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }

  /** Runs a notification or request handler; a failure is logged to the client and answered with `fallback`. */
  close(): void {
    this.formatter.close();
  }

  private safe<P, R>(fallback: R, fn: (p: P) => R | Promise<R>): (p: P) => Promise<R> {
    return async (p: P) => {
      try {
        return await fn(p);
      } catch (e) {
        this.log("request failed", e);
        return fallback;
      }
    };
  }

  /** The open document of `uri` with its analysis up to date (waiting for a build), or null. */
  private async ready(uri: string): Promise<(Open & { doc: AnalysisDocument }) | null> {
    for (;;) {
      const o = this.open.get(uri);
      if (!o) return null;
      if (o.doc) return o as Open & { doc: AnalysisDocument };
      if (!o.building) this.rebuild(o);
      await o.building;
    }
  }

  /**
   * Builds the analysis of `o`'s current text in steps, pausing (setImmediate) every few
   * milliseconds so that other requests are answered meanwhile; a newer change stops it.
   */
  private rebuild(o: Open): void {
    const generation = ++o.generation;
    o.doc = null;
    const text = o.tooLarge ? "" : o.td.getText();
    const stale = () => o.generation !== generation || this.open.get(o.uri) !== o;
    const control = { pause: () => new Promise<void>((resolve) => setImmediate(resolve)), stale };
    const build: Promise<void> = (async () => {
      const doc = await AnalysisDocument.build(text, { fileName: o.path, resolver: this.resolver, incremental: true }, control);
      // Folds and semantic tokens are asked for right after opening: their walk, in steps too.
      return doc && (await prepareQueries(doc, control)) ? doc : null;
    })().then(
      (doc) => {
        if (!doc || stale()) {
          // (A newer build has taken its place; if none has, the next request starts one.)
          if (o.building === build) o.building = null;
          return;
        }
        o.doc = doc;
        o.building = null;
        this.schedule(o.uri);
        this.importsChanged(o);
      },
      (e: unknown) => {
        this.log("analysis failed", e);
        if (stale()) {
          if (o.building === build) o.building = null;
          return;
        }
        o.doc = new AnalysisDocument("", { fileName: o.path });
        o.building = null;
      },
    );
    o.building = build;
  }

  register(): void {
    const c = this.connection;
    c.onInitialize((params): InitializeResult => {
      const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
      this.roots = folders.map(pathOf);
      if (this.roots.length === 0 && params.rootPath) this.roots = [params.rootPath];
      return {
        capabilities: {
          textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
          hoverProvider: true,
          definitionProvider: true,
          referencesProvider: true,
          renameProvider: { prepareProvider: true },
          completionProvider: { triggerCharacters: [".", "{", '"', "/"] },
          documentSymbolProvider: true,
          foldingRangeProvider: true,
          documentFormattingProvider: true,
          codeActionProvider: true,
          semanticTokensProvider: { legend: { tokenTypes: [...SEMANTIC_TYPES], tokenModifiers: [] }, full: true },
        },
        serverInfo: { name: "patchwork" },
      };
    });
    c.onDidOpenTextDocument(
      this.safe(undefined, (p) => {
        const td = TextDocument.create(p.textDocument.uri, "patchwork", p.textDocument.version, p.textDocument.text);
        const o: Open = { uri: td.uri, path: pathOf(td.uri), td, doc: null, generation: 0, building: null, dirty: false, tooLarge: td.getText().length > MAX_ANALYSED_CHARS };
        this.open.set(td.uri, o);
        if (o.tooLarge) {
          o.doc = new AnalysisDocument("", { fileName: o.path });
          this.schedule(o.uri);
        } else this.rebuild(o);
      }),
    );
    c.onDidChangeTextDocument(
      this.safe(undefined, (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return;
        for (const change of p.contentChanges) this.apply(o, change, p.textDocument.version);
        if (o.doc) {
          this.schedule(o.uri);
          this.importsChanged(o);
        } else this.rebuild(o);
      }),
    );
    c.onDidCloseTextDocument(
      this.safe(undefined, (p) => {
        const o = this.open.get(p.textDocument.uri);
        this.open.delete(p.textDocument.uri);
        if (o) {
          o.generation++;
          // Importers now see the file on disk again.
          this.importsChanged(o);
        }
        void c.sendDiagnostics({ uri: p.textDocument.uri, diagnostics: [] });
      }),
    );
    c.onHover(
      this.safe(null, async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return null;
        const h = hover(o.doc, o.td.offsetAt(p.position));
        return h ? { contents: { kind: "markdown" as const, value: h.markdown }, range: range(o, h.range) } : null;
      }),
    );
    c.onDefinition(
      this.safe([] as Location[], async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return [];
        const ws = await this.workspace();
        return workspaceDefinition(ws, o.path, o.td.offsetAt(p.position)).map((r) => this.location(ws, r));
      }),
    );
    c.onReferences(
      this.safe([] as Location[], async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return [];
        const ws = await this.workspace();
        return workspaceReferences(ws, o.path, o.td.offsetAt(p.position), p.context.includeDeclaration).map((r) => this.location(ws, r));
      }),
    );
    c.onPrepareRename(
      this.safe(null, async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return null;
        const r = workspacePrepareRename(await this.workspace(), o.path, o.td.offsetAt(p.position));
        if ("error" in r) return new ResponseError(LSPErrorCodes.RequestFailed, r.error);
        return range(o, r);
      }),
    );
    c.onRenameRequest(
      this.safe(null, async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return null;
        const ws = await this.workspace();
        const r = workspaceRename(ws, o.path, o.td.offsetAt(p.position), p.newName);
        // The client shows the message (e.g. VS Code's rename box, Neovim's message line).
        if ("error" in r) return new ResponseError(LSPErrorCodes.RequestFailed, r.error);
        const changes: Record<string, TextEdit[]> = {};
        for (const e of r.edits) {
          const l = this.location(ws, e);
          (changes[l.uri] ??= []).push({ range: l.range, newText: p.newName });
        }
        return { changes };
      }),
    );
    c.onCompletion(
      this.safe([] as CompletionItem[], async (p) => {
        const o = await this.ready(p.textDocument.uri);
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
      this.safe([] as DocumentSymbol[], async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return [];
        const conv = (s: PwSymbol): DocumentSymbol => ({
          name: s.name,
          kind: symbolKinds[s.kind],
          detail: s.detail,
          range: range(o, s.range),
          selectionRange: range(o, s.selection),
          children: s.children.map(conv),
        });
        return documentSymbols(o.doc).map(conv);
      }),
    );
    c.onFoldingRanges(
      this.safe([], async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return [];
        return foldingRanges(o.doc).map((r) => ({ startLine: o.td.positionAt(r.start).line, endLine: o.td.positionAt(r.end).line }));
      }),
    );
    c.languages.semanticTokens.on(
      this.safe({ data: [] as number[] }, async (p) => {
        const o = await this.ready(p.textDocument.uri);
        if (!o) return { data: [] };
        return { data: encodeTokens(o) };
      }),
    );
    c.onDocumentFormatting(
      this.safe(null as TextEdit[] | null, async (p) => {
        const o = this.open.get(p.textDocument.uri);
        if (!o) return null;
        const before = o.td.getText();
        const version = o.td.version;
        const text = await this.formatter.format(before);
        // An edit while the formatter ran: these edits would undo it.
        if (text === null || this.open.get(p.textDocument.uri)?.td.version !== version) return null;
        if (text === before) return [];
        return [{ range: { start: { line: 0, character: 0 }, end: o.td.positionAt(before.length) }, newText: text }];
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
            edit: { changes: { [o.uri]: [{ range: range(o, fix), newText: fix.newText }] } },
          });
        }
        return out;
      }),
    );
  }

  /**
   * Applies one change to the text and, when the analysis is up to date and the edit can be
   * re-parsed locally, to the analysis; otherwise the analysis is dropped (the caller rebuilds).
   */
  private apply(o: Open, change: TextDocumentContentChangeEvent, version: number): void {
    const start = "range" in change ? o.td.offsetAt(change.range.start) : 0;
    const end = "range" in change ? o.td.offsetAt(change.range.end) : 0;
    o.td = TextDocument.update(o.td, [change], version);
    const tooLarge = o.td.getText().length > MAX_ANALYSED_CHARS;
    const was = o.tooLarge;
    o.tooLarge = tooLarge;
    if (tooLarge) {
      o.generation++;
      o.building = null;
      o.doc = new AnalysisDocument("", { fileName: o.path });
    } else if (!o.doc || was || !("range" in change) || !o.doc.edit(start, end, change.text, true)) {
      o.generation++;
      o.doc = null;
    }
  }

  /** Open documents that import `o`'s file are checked again (their imports' exports may differ). */
  private importsChanged(o: Open): void {
    for (const other of this.open.values()) {
      if (other === o || !other.doc || !other.doc.importedPaths().includes(o.path)) continue;
      other.doc.importsChanged();
      this.schedule(other.uri);
    }
  }

  /** Publishes diagnostics once the queued messages are handled: a burst of edits costs one analysis. */
  private schedule(uri: string): void {
    const o = this.open.get(uri);
    if (!o || o.dirty) return;
    o.dirty = true;
    setImmediate(() => {
      o.dirty = false;
      // Not ready: the build under way publishes when it ends.
      if (this.open.get(uri) !== o || !o.doc) return;
      try {
        const diagnostics = o.tooLarge
          ? [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Information, source: "patchwork", message: `this file is too large for live analysis (${(o.td.getText().length / 1e6).toFixed(1)} MB, over ${MAX_ANALYSED_CHARS / 1e6} MB): run \`patchwork check\` on it` }]
          : o.doc.diagnostics().map((d) => diagnostic(o, d));
        void this.connection.sendDiagnostics({ uri, version: o.td.version, diagnostics });
      } catch (e) {
        this.log("diagnostics failed", e);
      }
    });
  }

  /**
   * The files a cross-file question looks at: the open documents (their current text) and the
   * `.pw` files of the workspace folders (or, without any, of the open documents' folders).
   */
  private async workspace(): Promise<Workspace> {
    for (const uri of [...this.open.keys()]) await this.ready(uri);
    const byPath = new Map<string, Open>();
    for (const o of this.open.values()) byPath.set(o.path, o);
    // Each file is read once per question.
    const seen = new Map<string, AnalysisDocument | null>();
    const closedDocument = (path: string): AnalysisDocument | null => {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        return null;
      }
      if (text.length > MAX_ANALYSED_CHARS) return null;
      const known = this.closed.get(path);
      if (known && known.text === text) return known;
      const doc = new AnalysisDocument(text, { fileName: path, resolver: this.resolver, incremental: false });
      this.closed.set(path, doc);
      return doc;
    };
    return {
      document: (path) => {
        const o = byPath.get(path);
        if (o) return o.tooLarge ? null : o.doc;
        if (!seen.has(path)) seen.set(path, closedDocument(path));
        return seen.get(path)!;
      },
      files: () => {
        const out = new Set(byPath.keys());
        if (this.roots.length > 0) for (const r of this.roots) listPwTree(r, out, MAX_WORKSPACE_FILES);
        else for (const o of byPath.values()) for (const f of listPw(join(o.path, ".."))) out.add(join(o.path, "..", f));
        return out;
      },
    };
  }

  /** A file range as an LSP location: an open document's URI and positions, else the file's. */
  private location(ws: Workspace, r: FileRange): Location {
    for (const o of this.open.values()) if (o.path === r.path) return { uri: o.uri, range: range(o, r) };
    const td = TextDocument.create(pathToFileURL(r.path).href, "patchwork", 0, ws.document(r.path)?.text ?? this.readModule(r.path));
    return { uri: td.uri, range: { start: td.positionAt(r.start), end: td.positionAt(r.end) } };
  }
}

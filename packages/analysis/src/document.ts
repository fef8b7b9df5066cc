/**
 * A module's text, parsed and analysed, kept up to date edit by edit.
 *
 * The text is cut into chunks at the starts of top-level items (a cut is a line start
 * between two items); each chunk is parsed and analysed on its own, with offsets relative to
 * its start. An edit re-parses only the chunks it touches and their two neighbours, shifts
 * the starts of the chunks after it, and re-runs the cheap module-level pass (combine.ts).
 * Where an edit leaves something open to the end of a chunk (a string, a prompt, a block, a
 * binary operator…), the chunk boundaries no longer hold: the whole text is parsed again.
 * `patchwork check` uses the same class with one chunk (the file as `parse` sees it).
 */
import { parse, SourceFile, type Comment, type Diagnostic, type Severity, type TopLevel } from "@patchwork/parser";
import { CHECKS, findingMessage } from "./codes.js";
import { ModuleIndex, type Unit } from "./combine.js";
import { unitFacts, type UnitFacts } from "./facts.js";
import { modulePath, type ImportResolver } from "./imports.js";

/** A diagnostic at module offsets (the language server converts them to its positions). */
export interface OffsetDiagnostic {
  code: string;
  severity: Severity;
  message: string;
  start: number;
  end: number;
}

export interface Chunk {
  /** Offset of the chunk in the document. */
  start: number;
  text: string;
  body: TopLevel[];
  /** Parse diagnostics, at offsets relative to the chunk. */
  parseDiagnostics: OffsetDiagnostic[];
  comments: Comment[];
  facts: UnitFacts;
}

export interface DocumentOptions {
  fileName: string;
  resolver?: ImportResolver | undefined;
  /** Cut the text into chunks for cheap edits (the language server); false: one chunk. */
  incremental?: boolean;
}

/** Diagnostics that mean something was left open to the end of the text that was parsed. */
function runsToEnd(d: Diagnostic): boolean {
  return d.code === "PW1002" || d.code === "PW1004" || d.code === "PW1005" || d.code === "PW1006" || d.message.includes("end of input");
}

function makeChunk(text: string, start: number, fileName: string): { chunk: Chunk; openEnded: boolean; blockMode: boolean } {
  const r = parse(text, { fileName });
  const chunk: Chunk = {
    start,
    text,
    body: r.program.body,
    parseDiagnostics: r.diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message, start: d.span.start.offset, end: d.span.end.offset })),
    comments: r.comments,
    facts: unitFacts(r.program.body, text),
  };
  return { chunk, openEnded: r.recoveredToEnd || r.diagnostics.some(runsToEnd), blockMode: r.program.blockMode };
}

function lineStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text.charCodeAt(i - 1) !== 10 && text.charCodeAt(i - 1) !== 13) i--;
  return i;
}

/**
 * Cuts before every line that starts at column 0 with a name, `@` or `$` (where top-level
 * statements and items start), except `else` and `catch`.
 */
function quickCuts(text: string): number[] {
  const cuts = [0];
  const re = /\n(?=[A-Za-z_@$])/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const at = m.index + 1;
    if (!text.startsWith("else", at) && !text.startsWith("catch", at)) cuts.push(at);
  }
  return cuts;
}

/**
 * A piece parsed on its own that a whole parse would not read the same way: a cut that falls
 * inside something longer (a prompt, a block, a string, an expression going on to the next
 * line) leaves it open-ended, or with errors. After a syntax error the lexer's modes (prompt,
 * string, shell…) may differ from a whole parse's at the cut: only error-free pieces are trusted.
 */
function untrusted(c: { chunk: Chunk; openEnded: boolean; blockMode: boolean }): boolean {
  return c.openEnded || c.blockMode || c.chunk.parseDiagnostics.some((d) => d.severity === "error");
}

/** One parse per piece at the quick cuts; null where a piece is not to be trusted. */
function quickChunks(text: string, base: number, fileName: string): Chunk[] | null {
  if (/^\s*\{/.test(text)) return null;
  const cuts = quickCuts(text);
  const chunks: Chunk[] = [];
  for (let i = 0; i < cuts.length; i++) {
    const c = makeChunk(text.slice(cuts[i], cuts[i + 1] ?? text.length), base + cuts[i]!, fileName);
    if (untrusted(c)) return null;
    chunks.push(c.chunk);
  }
  return chunks;
}

/**
 * The whole text's chunks, one piece at a time: a generator that yields after each piece, so
 * a caller can pause between them (the language server answers other requests there). The
 * trusted pieces before the first untrusted one are kept; the rest of the text from there is
 * parsed by `chunksOf` (in one go, cut at its items afterwards).
 */
function* chunkSteps(text: string, fileName: string, incremental: boolean): Generator<void, Chunk[]> {
  if (!incremental || /^\s*\{/.test(text)) return chunksOf(text, 0, fileName, incremental).chunks;
  const cuts = quickCuts(text);
  const chunks: Chunk[] = [];
  for (let i = 0; i < cuts.length; i++) {
    const c = makeChunk(text.slice(cuts[i], cuts[i + 1] ?? text.length), cuts[i]!, fileName);
    if (untrusted(c)) {
      yield;
      chunks.push(...chunksOf(text.slice(cuts[i]), cuts[i]!, fileName, true).chunks);
      return chunks;
    }
    chunks.push(c.chunk);
    yield;
  }
  return chunks;
}

/** How `AnalysisDocument.build` shares the thread: it pauses every `sliceMs` of work. */
export interface BuildControl {
  /** Resolves when the builder may go on (the server: `setImmediate`). */
  pause: () => Promise<void>;
  /** Checked after each pause: true stops the build (a newer text arrived). */
  stale?: () => boolean;
  sliceMs?: number;
}

/** Parses `text` (placed at `base`) into chunks. */
function chunksOf(text: string, base: number, fileName: string, incremental: boolean): { chunks: Chunk[]; openEnded: boolean } {
  if (incremental) {
    const quick = quickChunks(text, base, fileName);
    if (quick) return { chunks: quick, openEnded: false };
  }
  const first = makeChunk(text, base, fileName);
  if (!incremental || first.openEnded || first.blockMode || first.chunk.body.length < 2) return { chunks: [first.chunk], openEnded: first.openEnded };
  const body = first.chunk.body;
  const cuts: number[] = [0];
  for (let i = 1; i < body.length; i++) {
    const ls = lineStart(text, body[i]!.span.start.offset);
    if (ls >= body[i - 1]!.span.end.offset && ls > cuts[cuts.length - 1]!) cuts.push(ls);
  }
  if (cuts.length === 1) return { chunks: [first.chunk], openEnded: false };
  const chunks: Chunk[] = [];
  for (let i = 0; i < cuts.length; i++) {
    const piece = text.slice(cuts[i], cuts[i + 1] ?? text.length);
    const c = makeChunk(piece, base + cuts[i]!, fileName);
    // A piece that does not stand alone: keep the text as one chunk.
    if (c.openEnded || c.blockMode) return { chunks: [first.chunk], openEnded: false };
    chunks.push(c.chunk);
  }
  return { chunks, openEnded: false };
}

/** The positions parse messages name: "in the `do` block at L:C", PW1005's closer, an unclosed `$(`. */
const PARSER_POSITIONS: readonly RegExp[] = [
  /^in the `do` block at (\d+):(\d+)/,
  /' at (\d+):(\d+), which looks like the end of the prompt/,
  /the shell command started at (\d+):(\d+)/,
  /to close the '[([{]' at (\d+):(\d+)/,
];

export class AnalysisDocument {
  private _text: string;
  private chunkList: Chunk[] = [];
  private index: ModuleIndex | null = null;
  private diags: OffsetDiagnostic[] | null = null;
  private source: SourceFile | null = null;
  readonly fileName: string;
  private readonly incremental: boolean;
  resolver: ImportResolver | undefined;
  /** How many characters were re-parsed by the last update (for tests and the benchmark). */
  lastReparsed = 0;

  constructor(text: string, options: DocumentOptions, chunks?: Chunk[]) {
    this._text = text;
    this.fileName = options.fileName;
    this.resolver = options.resolver;
    this.incremental = options.incremental ?? true;
    if (chunks) {
      this.chunkList = chunks;
      this.lastReparsed = text.length;
    } else this.reparseAll();
  }

  /**
   * The document of `text`, parsed a piece at a time with a pause (`control.pause`) after each
   * `sliceMs` (default 8 ms) of work, so that a server stays responsive while it opens a large
   * file; null when `control.stale()` says a newer text has made this one useless.
   * A text that cannot be cut is parsed in one go from the first piece that does not stand alone.
   */
  static async build(text: string, options: DocumentOptions, control: BuildControl): Promise<AnalysisDocument | null> {
    const slice = control.sliceMs ?? 8;
    const steps = chunkSteps(text, options.fileName, options.incremental ?? true);
    let t0 = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done) return new AnalysisDocument(text, options, step.value);
      if (performance.now() - t0 >= slice) {
        await control.pause();
        if (control.stale?.()) return null;
        t0 = performance.now();
      }
    }
  }

  get text(): string {
    return this._text;
  }

  get chunks(): readonly Chunk[] {
    return this.chunkList;
  }

  private reparseAll(): void {
    const steps = chunkSteps(this._text, this.fileName, this.incremental);
    let step = steps.next();
    while (!step.done) step = steps.next();
    this.chunkList = step.value;
    this.lastReparsed = this._text.length;
    this.invalidate();
  }

  private invalidate(): void {
    this.index = null;
    this.diags = null;
    this.source = null;
  }

  /** Whether the module imports files (its diagnostics then depend on them). */
  get importsFiles(): boolean {
    return this.chunkList.some((c) => c.facts.imports.some((i) => i.form !== "module"));
  }

  /** The files the module imports (absolute paths). */
  importedPaths(): string[] {
    const out: string[] = [];
    for (const c of this.chunkList) {
      for (const imp of c.facts.imports) {
        if (imp.form === "siblings") for (const n of imp.names) out.push(modulePath(`./${n}.pw`, this.fileName));
        else if (imp.form !== "module" && imp.source !== null) out.push(modulePath(imp.source, this.fileName));
      }
    }
    return out;
  }

  /** Forgets findings that depend on imported files (one of them changed). */
  importsChanged(): void {
    this.diags = null;
  }

  /** Replaces the whole text. */
  setText(text: string): void {
    this._text = text;
    this.reparseAll();
  }

  /**
   * Replaces `[start, end)` of the current text by `insert`. Where the edit needs the whole
   * text parsed again and `deferFull` is set, nothing is parsed and false is returned: the
   * caller builds a new document of `text` (`build`, in steps) and drops this one.
   */
  edit(start: number, end: number, insert: string, deferFull = false): boolean {
    const old = this._text;
    start = Math.max(0, Math.min(start, old.length));
    end = Math.max(start, Math.min(end, old.length));
    this._text = old.slice(0, start) + insert + old.slice(end);
    const delta = insert.length - (end - start);
    const list = this.chunkList;
    const full = (): boolean => {
      if (deferFull) {
        this.invalidate();
        return false;
      }
      this.reparseAll();
      return true;
    };
    if (!this.incremental || list.length < 3) return full();
    let a = Math.max(0, this.chunkIndexAt(start) - 1);
    let b = Math.min(list.length - 1, this.chunkIndexAt(end) + 1);
    let regionStart: number;
    let region: string;
    let parsed: { chunks: Chunk[]; openEnded: boolean };
    // A region that does not stand alone because of an earlier syntax error (an edit that closes
    // what the error had split into pieces, say) is widened a few times, by 2, 4, 8 and 16
    // chunks each side, before the whole text is parsed; without one, the edit itself leaves
    // something open to the end (a new prompt or string): the whole text at once.
    const errorsAround = list.slice(Math.max(0, a - 1), b + 2).some((c) => c.parseDiagnostics.some((d) => d.severity === "error"));
    for (let widen = 2; ; widen *= 2) {
      regionStart = list[a]!.start;
      const regionEnd = (b + 1 < list.length ? list[b + 1]!.start : old.length) + delta;
      region = this._text.slice(regionStart, regionEnd);
      parsed = chunksOf(region, regionStart, this.fileName, true);
      const whole = a === 0 && b === list.length - 1;
      if (!parsed.openEnded || whole) break;
      if (!errorsAround || widen > 16) return full();
      a = Math.max(0, a - widen);
      b = Math.min(list.length - 1, b + widen);
    }
    const { chunks } = parsed;
    for (let i = b + 1; i < list.length; i++) list[i]!.start += delta;
    list.splice(a, b - a + 1, ...chunks);
    this.lastReparsed = region.length;
    this.invalidate();
    return true;
  }

  /** The index of the chunk holding `offset` (the last chunk starting at or before it). */
  chunkIndexAt(offset: number): number {
    const list = this.chunkList;
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (list[mid]!.start <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  get module(): ModuleIndex {
    this.index ??= new ModuleIndex(this.chunkList.map((c): Unit => ({ facts: c.facts, base: c.start })));
    return this.index;
  }

  /** Parse errors and static-check findings, in source order. */
  diagnostics(): OffsetDiagnostic[] {
    if (this.diags) return this.diags;
    const out: OffsetDiagnostic[] = [];
    for (const c of this.chunkList) {
      for (const d of c.parseDiagnostics) out.push({ ...d, message: this.relocate(d.message, d.code, c), start: d.start + c.start, end: d.end + c.start });
    }
    // A bare command (`echo hi`, PW2008) or a JavaScript word (`let x = 1`, PW2010) is one
    // error, not also an undefined variable; nor is a use of what such a line declared
    // (`fun g` nested in a function, then `g()`).
    const bare = new Set(out.filter((d) => d.code === "PW2008" || d.code === "PW2010").map((d) => d.start));
    const brokenNames = new Set<string>();
    for (const d of out) {
      if (d.code !== "PW2010") continue;
      const declared = /^(?:let|const|var|function|fun)[ \t]+([A-Za-z_]\w*)/.exec(this._text.slice(d.start, d.start + 80));
      if (declared) brokenNames.add(declared[1]!);
    }
    const broken = out.some((d) => d.severity === "error");
    for (const f of this.module.check({ fileName: this.fileName, resolver: this.resolver })) {
      if (f.code === "PW5001" && (bare.has(f.start) || brokenNames.has(String(f.args.name)))) continue;
      // A statement that failed to parse was skipped: a use of the name in it does not count,
      // so "never used" would be false whenever the name appears in the text elsewhere.
      if (f.code === "PW5005" && broken && this.mentionedElsewhere(String(f.args.name), f.start)) continue;
      out.push({ code: f.code, severity: CHECKS[f.code].severity, message: findingMessage(f), start: f.start, end: f.end });
    }
    out.sort((x, y) => x.start - y.start);
    this.diags = out;
    return out;
  }

  /** Whether the identifier `name` occurs in the text other than at `at` (its declaration). */
  private mentionedElsewhere(name: string, at: number): boolean {
    const re = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`, "g");
    for (const m of this._text.matchAll(re)) if (m.index !== at) return true;
    return false;
  }

  /**
   * A few parse messages name a position ("in the `do` block at 3:5"): the chunk's line and
   * column, made the document's.
   */
  private relocate(message: string, code: string, c: Chunk): string {
    // Only the positions the parser writes itself (base.ts, promptRules.ts, exprRules.ts,
    // parse.ts); quoted source text stays as written.
    if (c.start === 0) return message;
    let out = message;
    for (const re of code === "PW2007" ? [PARSER_POSITIONS[0]!, / at (\d+):(\d+)/] : PARSER_POSITIONS) {
      out = out.replace(re, (whole: string, line: string, col: string) => {
        let offset = 0;
        for (let l = 1; l < Number(line); l++) offset = c.text.indexOf("\n", offset) + 1;
        const p = this.sourceFile.positionAt(c.start + offset + Number(col) - 1);
        return whole.replace(`${line}:${col}`, `${p.line}:${p.column}`);
      });
    }
    return out;
  }

  /** Line and column positions (one line table per text version). */
  get sourceFile(): SourceFile {
    this.source ??= new SourceFile(this._text, this.fileName);
    return this.source;
  }

  /** Diagnostics with line/column spans, as the CLI prints them. */
  positionedDiagnostics(): Diagnostic[] {
    const src = this.sourceFile;
    return this.diagnostics().map((d) => ({ code: d.code, severity: d.severity, message: d.message, span: src.span(d.start, d.end), fileName: this.fileName }));
  }
}

/** `patchwork check` for one Patchwork file: parse errors and static checks, positioned. */
export function checkSource(text: string, options: { fileName: string; resolver?: ImportResolver }): Diagnostic[] {
  return new AnalysisDocument(text, { ...options, incremental: false }).positionedDiagnostics();
}

/** `parse(source)`: source text to AST and diagnostics. Never throws. */
import type { ILexingError, IToken, Lexer } from "./chevrotain.js";
import type { Program, Span } from "./ast.js";
import type { Diagnostic } from "./diagnostics.js";
import { tokenize } from "./lexer/lexer.js";
import * as T from "./lexer/tokens.js";
import { Codes } from "./parser/errors.js";
import { backtickTemplate } from "./parser/habits.js";
import { NestedTooDeeply } from "./parser/base.js";
import { PatchworkParser } from "./parser/parser.js";
import { SourceFile } from "./source.js";

export interface ParseOptions {
  /** Shown in diagnostics. */
  fileName?: string;
}

/** A comment in code (`# …`, to the end of the line), its text including the marker. */
export interface Comment {
  text: string;
  span: Span;
}

export interface ParseResult {
  program: Program;
  /** Errors and warnings, in source order. */
  diagnostics: Diagnostic[];
  /** The comments of the source, in order (not part of the AST: the formatter attaches them). */
  comments: Comment[];
  /**
   * Error recovery skipped to the end of the input: something opened before it was never
   * closed (the language server then cannot reuse the parse of what follows).
   */
  recoveredToEnd: boolean;
}

let parser: PatchworkParser | undefined;

/** The parser instance (built once: grammar analysis is costly, parsing is not). */
export function getParser(): PatchworkParser {
  parser ??= new PatchworkParser();
  return parser;
}

function lexDiagnostics(errors: ILexingError[], src: SourceFile, fileName: string | undefined): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of errors) {
    // A stray closer at top level: the parser reports it with more context.
    if (e.message.startsWith("Unable to pop")) continue;
    const text = src.text.slice(e.offset, e.offset + e.length);
    const shown = text.length > 20 ? text.slice(0, 20) + "…" : text;
    const first = shown.charAt(0);
    let message =
      e.length === 1 || first === shown
        ? `unexpected character ${JSON.stringify(first)}`
        : `unexpected characters ${JSON.stringify(shown)}`;
    if (first === "?") {
      message += ": Patchwork has no '?' operators (`a ? b : c`, `?.`, `??`): write `if c { … } else { … }`; " +
        "`a || b` gives b when a is null or falsy, and `a.b` of a missing key is already null";
    }
    // `f($ls)`, `[$date]`: the line form of a command cannot stand inside brackets.
    if (first === "$" && /[A-Za-z0-9_.\/~ \t]/.test(src.text.charAt(e.offset + 1))) {
      message += ": inside ( ) and [ ] write a shell command as $(cmd …) ($cmd runs to the end of the line)";
    }
    const d: Diagnostic = { code: Codes.unexpectedCharacter, severity: "error", message, span: src.span(e.offset, e.offset + e.length) };
    if (fileName !== undefined) d.fileName = fileName;
    out.push(d);
  }
  return out;
}

/**
 * Parser errors at the token right after an unexpected character are consequences of it
 * (the character was dropped); the lexer error already says what is wrong.
 */
function withoutFollowOnErrors(diagnostics: Diagnostic[], errors: ILexingError[], tokens: IToken[]): Diagnostic[] {
  if (errors.length === 0) return diagnostics;
  const followers = new Set<number>();
  for (const e of errors) {
    let lo = 0;
    let hi = tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid]!.startOffset > e.offset) hi = mid;
      else lo = mid + 1;
    }
    followers.add(lo < tokens.length ? tokens[lo]!.startOffset : Number.NaN);
  }
  return diagnostics.filter((d) => d.severity !== "error" || !followers.has(d.span.start.offset));
}

/** Characters of a line reported as a shell command without `$` (PW2008) are not errors of their own. */
function withoutCommandCharacters(lexErrors: Diagnostic[], parsed: Diagnostic[]): Diagnostic[] {
  const lines = parsed.filter((d) => d.code === Codes.bareCommand).map((d) => d.span);
  if (lines.length === 0) return lexErrors;
  return lexErrors.filter((e) => !lines.some((l) => e.span.start.offset >= l.start.offset && e.span.start.offset < l.end.offset));
}

/**
 * A backtick template (`` `x is ${x}` ``) is one error, PW2010 with the "…" form (habits.ts),
 * not the unexpected characters and syntax errors it causes inside it.
 */
function withTemplatesAsOne(diagnostics: Diagnostic[], src: SourceFile, fileName: string | undefined): Diagnostic[] {
  const templates: { start: number; end: number; message: string }[] = [];
  const ticks = diagnostics
    .filter((d) => d.code === Codes.unexpectedCharacter && src.text.charAt(d.span.start.offset) === "`")
    .map((d) => d.span.start.offset)
    .sort((a, b) => a - b);
  for (const offset of ticks) {
    if (templates.length > 0 && offset < templates[templates.length - 1]!.end) continue; // (its closing backtick)
    const t = backtickTemplate(src.text, offset);
    if (t) templates.push(t);
  }
  if (templates.length === 0) return diagnostics;
  const inside = (offset: number): boolean => {
    let lo = 0;
    let hi = templates.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = templates[mid]!;
      if (offset < t.start) hi = mid - 1;
      else if (offset >= t.end) lo = mid + 1;
      else return true;
    }
    return false;
  };
  const out = diagnostics.filter((d) => d.severity !== "error" || !inside(d.span.start.offset));
  for (const t of templates) {
    const habit: Diagnostic = { code: Codes.javascriptHabit, severity: "error", message: t.message, span: src.span(t.start, t.end) };
    if (fileName !== undefined) habit.fileName = fileName;
    out.push(habit);
  }
  return out;
}

/** Items of a file: everything else at its top level is a statement that runs. */
const ITEMS = new Set(["FunDecl", "TraitDecl", "TypeDecl", "Import"]);

/**
 * A file with top-level statements runs them, not its `main` (or `__main__`): a warning at the
 * fun (PW2030) when the statements never name it, so that a `main` left unrun is not silent.
 */
function mainNotRun(body: Program["body"], src: SourceFile, fileName: string | undefined): Diagnostic | undefined {
  const statements = body.filter((s) => !ITEMS.has(s.kind));
  if (statements.length === 0) return undefined;
  const main = body.find((s): s is Extract<typeof s, { kind: "FunDecl" }> => s.kind === "FunDecl" && (s.name === "main" || s.name === "__main__"));
  if (!main || names(statements, main.name)) return undefined;
  const start = main.span.start.offset;
  let lineEnd = src.text.indexOf("\n", start);
  if (lineEnd < 0) lineEnd = src.text.length;
  const d: Diagnostic = {
    code: Codes.mainNotRun,
    severity: "warning",
    message: `'${main.name}' does not run: a file with top-level statements runs them instead; call \`${main.name}()\` after them, or move them into '${main.name}'`,
    span: src.span(start, Math.min(lineEnd, main.span.end.offset)),
  };
  if (fileName !== undefined) d.fileName = fileName;
  return d;
}

/** Whether the AST `node` holds the identifier `name`. */
function names(node: unknown, name: string): boolean {
  if (Array.isArray(node)) return node.some((n) => names(n, name));
  if (node === null || typeof node !== "object") return false;
  const n = node as { kind?: string; name?: string };
  if (n.kind === "Ident" && n.name === name) return true;
  return Object.values(node).some((v) => names(v, name));
}

function startsWithBrace(tokens: IToken[]): boolean {
  const first = tokens.find((t) => t.tokenType !== T.NL && t.tokenType !== T.Semi);
  return first?.tokenType === T.LBrace;
}

function emptyProgram(src: SourceFile): Program {
  const span: Span = src.span(0, src.text.length);
  return { kind: "Program", body: [], blockMode: false, span };
}

function tooDeep(src: SourceFile, offset: number): string {
  const at = src.positionAt(offset);
  return `the program is nested too deeply to parse (at ${at.line}:${at.column}): flatten it, e.g. with variables or functions`;
}

/** A parse that ended by an exception: one diagnostic, an empty program. */
function failedParse(e: unknown, src: SourceFile, fileName: string | undefined, engine: Engine | undefined): ParseResult {
  // A bug, not a user error: still never throw at the caller.
  if (process.env["PATCHWORK_PARSER_DEBUG"] === "1" && !(e instanceof NestedTooDeeply)) throw e;
  let d: Diagnostic;
  if (e instanceof NestedTooDeeply || e instanceof RangeError) {
    // A RangeError is the stack overflowing anyway (a caller with little stack left).
    const token = e instanceof NestedTooDeeply ? e.token : (engine?.parser ?? parser)?.nextToken();
    const start = token === undefined || Number.isNaN(token.startOffset) ? src.text.length : token.startOffset;
    const end = token === undefined ? start : Math.min(src.text.length, start + Math.max(1, token.image.length));
    d = { code: Codes.tooDeep, severity: "error", message: tooDeep(src, start), span: src.span(start, end) };
  } else {
    const message = `internal parser error: ${e instanceof Error ? e.message : String(e)}`;
    d = { code: Codes.syntax, severity: "error", message, span: src.span(0, 0) };
  }
  // Rebuild the parser after anything unexpected; a depth limit leaves it in a known state.
  if (!(e instanceof NestedTooDeeply) && engine === undefined) parser = undefined;
  if (fileName !== undefined) d.fileName = fileName;
  return { program: emptyProgram(src), diagnostics: [d], comments: [], recoveredToEnd: true };
}

/** Parse Patchwork source into a Program. Never throws; problems are diagnostics. */
export function parse(source: string, options: ParseOptions = {}): ParseResult {
  return parseWith(undefined, source, options);
}

/** A lexer and a parser of one's own (the tests compare differently analysed ones). */
export interface Engine {
  lexer: Lexer;
  parser: PatchworkParser;
}

/** `parse` with `engine`'s lexer and parser instead of the process's own. */
export function parseWith(engine: Engine | undefined, source: string, options: ParseOptions = {}): ParseResult {
  const src = new SourceFile(source, options.fileName);
  const fileName = options.fileName;
  try {
    const lexed = engine === undefined ? tokenize(source) : tokenize(source, engine.lexer);
    const p = engine?.parser ?? getParser();
    p.begin(src, lexed.tokens, fileName);
    const body = p.program();
    p.explainEndOfInput();
    const parsed = withoutFollowOnErrors(p.diagnostics, lexed.errors, lexed.tokens);
    const diagnostics = withTemplatesAsOne([...withoutCommandCharacters(lexDiagnostics(lexed.errors, src, fileName), parsed), ...parsed], src, fileName);
    const unrun = mainNotRun(body, src, fileName);
    if (unrun) diagnostics.push(unrun);
    diagnostics.sort((a, b) => a.span.start.offset - b.span.start.offset);
    const program: Program = {
      kind: "Program",
      body,
      blockMode: startsWithBrace(lexed.tokens),
      span: src.span(0, source.length),
    };
    const recoveredToEnd = p.recoveredToEnd;
    p.input = [];
    const comments = lexed.comments.map((t) => ({ text: t.image, span: src.span(t.startOffset, t.startOffset + t.image.length) }));
    return { program, diagnostics, comments, recoveredToEnd };
  } catch (e) {
    return failedParse(e, src, fileName, engine);
  }
}

/**
 * Shared machinery of the Patchwork parser: spans, diagnostics and statement-level error
 * recovery. The grammar rules live in the subclasses (types → shell → expressions →
 * statements → items); this file holds no grammar.
 */
import {
  EmbeddedActionsParser,
  EOF,
  isRecognitionException,
  type ILookaheadStrategy,
  type IRecognitionException,
  type IToken,
  type ParserMethod,
} from "../chevrotain.js";
import type { Block, Expr, Span, Stmt } from "../ast.js";
import type { Diagnostic, Severity } from "../diagnostics.js";
import { nestingRole } from "../lexer/lexer.js";
import * as T from "../lexer/tokens.js";
import { SourceFile } from "../source.js";
import { Codes, describeToken, errorMessages, type Code } from "./errors.js";
import { foreignStatement, isForeignStatement, javascriptHabit, javascriptWord, throwNew } from "./habits.js";
import { withOpener } from "./brackets.js";

/** A parse error raised by the parser's own checks (as opposed to Chevrotain's). */
export class ParseFailure extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly token: IToken,
  ) {
    super(message);
  }
}

/**
 * Raised when grammar rules nest deeper than `maxRuleDepth`: ends the parse with PW2007 at
 * `token`, long before the JavaScript stack could overflow (a recursive-descent parser
 * recurses once per rule per level of nesting, whatever the construct).
 */
export class NestedTooDeeply extends Error {
  constructor(readonly token: IToken) {
    super("nested too deeply");
  }
}

/**
 * Rule nesting allowed. One level of `(…)` costs about six rules (expression → … → primary),
 * so this admits a few hundred levels of brackets, blocks, prompts or interpolations while
 * using well under a megabyte of stack (Node's default on the main thread is about 1 MB).
 */
export const maxRuleDepth = 400;

/** Links of an operator or postfix chain that count as one level (see `chained`). */
export const chainPerLevel = 2;

const stopsStatement: boolean[] = [];
for (const t of [T.NL, T.Semi, T.ShellLineEndCode, T.ShellLineEndPlain]) stopsStatement[t.tokenTypeIdx!] = true;
const endsStatement: boolean[] = [];
for (const t of [T.NL, T.Semi, T.RBrace, T.ShellRBrace, T.AngleClose, T.ShellLineEndCode, T.ShellLineEndPlain, EOF]) {
  endsStatement[t.tokenTypeIdx!] = true;
}
/** The code brackets whose closer is known, and the closers that may end an unclosed one. */
const closerOf: number[] = [];
closerOf[T.LParen.tokenTypeIdx!] = T.RParen.tokenTypeIdx!;
closerOf[T.LBracket.tokenTypeIdx!] = T.RBracket.tokenTypeIdx!;
const codeCloser: boolean[] = [];
for (const t of [T.RParen, T.RBracket, T.RBrace]) codeCloser[t.tokenTypeIdx!] = true;
/** Statements that end with a block: another statement may follow on the same line. */
const endsWithBlock = new Set(["If", "For", "While", "Try", "Block", "FunDecl", "TraitDecl"]);
const closesBlock: boolean[] = [];
for (const t of [T.RBrace, T.ShellRBrace, T.AngleClose]) closesBlock[t.tokenTypeIdx!] = true;
const shellLineEnd: boolean[] = [];
for (const t of [T.ShellLineEndCode, T.ShellLineEndPlain]) shellLineEnd[t.tokenTypeIdx!] = true;

/**
 * How a parser is analysed when constructed (docs/decisions/0011-precomputed-grammar-analysis.md):
 * - `auto`: from the tables computed at build time when they match this code, else as `full`;
 * - `full`: Chevrotain's own analysis (`performSelfAnalysis`), with a given `lookaheadStrategy`
 *   if any; with `PATCHWORK_VALIDATE_GRAMMAR=1`, also its grammar validations;
 * - `grammar`: the grammar recorded, no lookahead functions built: a parser that cannot parse,
 *   only describe its grammar (for the messages of syntax errors, the syntax diagrams).
 */
export interface ParserOptions {
  analysis?: "auto" | "full" | "grammar";
  lookaheadStrategy?: ILookaheadStrategy;
}

/** A lookahead strategy that builds nothing (`analysis: "grammar"`). */
const noLookahead: ILookaheadStrategy = {
  validate: () => [],
  buildLookaheadForAlternation: () => () => undefined,
  buildLookaheadForOptional: () => () => false,
};

/** A `do` block being parsed (for error messages). */
interface DoContext {
  line: number;
  column: number;
}

/** `PATCHWORK_VALIDATE_GRAMMAR=1`: Chevrotain's grammar validations (and its full analysis). */
export function validateGrammar(): boolean {
  return process.env["PATCHWORK_VALIDATE_GRAMMAR"] === "1";
}

export abstract class ParserBase extends EmbeddedActionsParser {
  protected src = new SourceFile("");
  protected fileName: string | undefined;
  diagnostics: Diagnostic[] = [];
  protected doStack: DoContext[] = [];

  protected abstract expression: ParserMethod<[], Expr>;
  protected abstract statements: ParserMethod<[], Stmt[]>;
  protected abstract block: ParserMethod<[], Block>;

  constructor(options: ParserOptions) {
    const lookaheadStrategy = options.analysis === "grammar" ? noLookahead : options.lookaheadStrategy;
    super(T.allTokens, {
      recoveryEnabled: false,
      maxLookahead: 3,
      skipValidations: !validateGrammar(),
      errorMessageProvider: errorMessages,
      ...(lookaheadStrategy === undefined ? {} : { lookaheadStrategy }),
    });
  }

  /** Rules entered and not yet left. */
  private ruleDepth = 0;

  /** Every rule counts its nesting, so that no input can overflow the stack (see NestedTooDeeply). */
  protected override RULE<F extends (...args: any[]) => any>(
    name: string,
    implementation: F,
    config?: Parameters<EmbeddedActionsParser["RULE"]>[2],
  ): ParserMethod<Parameters<F>, ReturnType<F>> {
    const counted = function (this: ParserBase, ...args: Parameters<F>): ReturnType<F> {
      const depth = this.ruleDepth;
      if (depth >= maxRuleDepth && !this.RECORDING_PHASE) throw new NestedTooDeeply(this.LA(1));
      this.ruleDepth = depth + 1;
      try {
        return implementation.apply(this, args) as ReturnType<F>;
      } finally {
        this.ruleDepth = depth; // also undoes the levels added by `chained`
      }
    };
    return super.RULE(name, counted as F, config);
  }

  /**
   * The `n`-th link of a chain built by a loop rather than by recursion (`a + b + …`,
   * `a.b(c)[d]…`): it nests the tree one level deeper all the same, so every
   * `chainPerLevel` links count as one level of rule nesting, until the rule ends. This bounds
   * the depth of every tree the parser builds, not only its own stack, so the code that walks
   * the tree recursively (the compiler, JSON output) cannot overflow either.
   */
  protected chained(n: number, token: IToken): void {
    if (n % chainPerLevel !== 0 || this.RECORDING_PHASE) return;
    if (this.ruleDepth >= maxRuleDepth) throw new NestedTooDeeply(token);
    this.ruleDepth++;
  }

  /** The next token (where a parse that ended by an exception stopped). */
  nextToken(): IToken {
    return this.LA(1);
  }

  /** Prepare for a new input. */
  begin(src: SourceFile, tokens: IToken[], fileName: string | undefined): void {
    this.src = src;
    this.fileName = fileName;
    this.resetState();
    this.input = tokens;
  }

  /** Forget everything about the previous input. */
  protected resetState(): void {
    this.diagnostics = [];
    this.doStack = [];
    this.skippedToEnd = false;
    this.ruleDepth = 0;
  }

  /** Error recovery has skipped to the end of the input. */
  private skippedToEnd = false;

  /** Whether error recovery skipped to the end of the input (something was left open). */
  get recoveredToEnd(): boolean {
    return this.skippedToEnd;
  }

  // ── spans ──

  protected span(start: number, end: number): Span {
    return this.src.span(start, end);
  }

  /**
   * Where the end of the input is shown: right after its last character that is not blank, so
   * that "expected ')' but found end of input" points at the line that lacks it, never at a
   * line after the end of the file.
   */
  protected get endOfInput(): number {
    return this.src.text.trimEnd().length;
  }

  protected tokStart(t: IToken): number {
    return Number.isNaN(t.startOffset) ? this.endOfInput : t.startOffset;
  }

  protected tokEnd(t: IToken): number {
    return Number.isNaN(t.startOffset) ? this.endOfInput : t.startOffset + t.image.length;
  }

  protected tokSpan(t: IToken): Span {
    return this.span(this.tokStart(t), this.tokEnd(t));
  }

  protected spanFrom(t: IToken, end: { span: Span } | IToken): Span {
    const e = "span" in end ? end.span.end.offset : this.tokEnd(end);
    return this.span(this.tokStart(t), e);
  }

  // ── diagnostics ──

  report(code: Code, message: string, span: Span, severity: Severity = "error"): void {
    // After recovery skipped to the end of the input, a missing closer there is a consequence.
    if (this.skippedToEnd && severity === "error" && span.start.offset >= this.endOfInput) return;
    const last = this.diagnostics[this.diagnostics.length - 1];
    // One error per place: a follow-on error at the same spot adds nothing.
    if (last !== undefined && last.severity === "error" && severity === "error" && last.span.start.offset === span.start.offset) return;
    const d: Diagnostic = { code, severity, message, span };
    if (this.fileName !== undefined) d.fileName = this.fileName;
    this.diagnostics.push(d);
  }

  protected fail(code: Code, message: string, token: IToken): never {
    throw new ParseFailure(code, message, token);
  }

  private doPrefix(): string {
    const d = this.doStack[this.doStack.length - 1];
    return d ? `in the \`do\` block at ${d.line}:${d.column}: ` : "";
  }

  protected reportError(e: IRecognitionException | ParseFailure): void {
    const inDo = this.doStack.length > 0;
    let code: Code = e instanceof ParseFailure ? e.code : inDo ? Codes.syntaxInDo : Codes.syntax;
    if (inDo && code === Codes.syntax) code = Codes.syntaxInDo;
    const habit = this.habitAt(e.token);
    if (habit !== undefined) this.report(Codes.javascriptHabit, this.doPrefix() + habit, this.tokSpan(e.token));
    else this.report(code, this.doPrefix() + withOpener(e.message, this.input, e.token, this.src), this.tokSpan(e.token));
  }

  /** What Patchwork has instead of the JavaScript habit at `token`, if the error is one (habits.ts). */
  private habitAt(token: IToken): string | undefined {
    const i = this.input.indexOf(token);
    return i < 0 ? undefined : javascriptHabit(this.input, i, this.src.text);
  }

  // ── statement lists with recovery ──

  /** What must be restored when a statement is abandoned: the `do` nesting. */
  protected saveContext(): number {
    return this.doStack.length;
  }

  protected restoreContext(doDepth: number): void {
    this.doStack.length = doDepth;
  }

  protected get position(): number {
    return (this as unknown as { exportLexerState(): number }).exportLexerState();
  }

  protected set position(idx: number) {
    (this as unknown as { importLexerState(n: number): void }).importLexerState(idx);
  }

  protected atStatementEnd(): boolean {
    if (endsStatement[this.LA(1).tokenTypeIdx] === true) return true;
    return shellLineEnd[this.LA(0).tokenTypeIdx] === true;
  }

  /** `if c { … } print(x)`: a statement that ends with its block needs no separator. */
  private closedByBlock(s: unknown): boolean {
    const kind = (s as { kind?: string } | undefined)?.kind;
    return kind !== undefined && endsWithBlock.has(kind) && closesBlock[this.LA(0).tokenTypeIdx] === true;
  }

  /**
   * Parse one statement with `rule`; on a syntax error report it and skip to the end of the
   * statement (a newline or `;` at the statement's nesting level, or the closer of the
   * enclosing block), so the next statement can be parsed.
   */
  protected guarded<S>(rule: ParserMethod<[], S>): S | undefined {
    if (this.RECORDING_PHASE) {
      this.SUBRULE(rule);
      return undefined;
    }
    const first = this.position + 1;
    const context = this.saveContext();
    try {
      const s = this.SUBRULE(rule);
      if (!this.atStatementEnd() && !this.closedByBlock(s)) {
        const t = this.LA(1);
        if (!this.reportBareCommand(first)) {
          this.report(
            Codes.missingSeparator,
            `${this.doPrefix()}expected a newline or ';' after the statement but found ${describeToken(t)}`,
            this.tokSpan(t),
          );
        }
        this.skipStatement(first);
      }
      return s;
    } catch (e) {
      if (!(e instanceof ParseFailure) && !isRecognitionException(e as Error)) throw e;
      if (!this.reportBareCommand(first)) this.reportError(e as IRecognitionException | ParseFailure);
      this.restoreContext(context);
      this.skipStatement(first);
      return undefined;
    }
  }

  /**
   * A statement that failed to parse and reads like a shell command without its `$`
   * (`echo "Clean"`, `git diff`, `mkdir -p dir`): a name, then on the same line a word, a
   * string, a number or a `-flag`. Reported (PW2008) with the `$ ` form as the hint; the
   * reference parsers reject such lines too (language.md §3).
   */
  private reportBareCommand(first: number): boolean {
    const name = this.input[first];
    if (this.reportForeignStatement(first)) return true;
    if (name?.tokenType !== T.Ident) return false;
    const text = this.src.text;
    const after = name.startOffset + name.image.length;
    if (/^[ \t]+[A-Za-z_{[]/.test(text.slice(after, after + 3))) {
      let lineEnd = text.indexOf("\n", name.startOffset);
      if (lineEnd < 0) lineEnd = text.length;
      const habit = javascriptWord(name.image, text.slice(name.startOffset, lineEnd).replace(/\r$/, "").trimEnd());
      if (habit !== undefined) {
        this.report(Codes.javascriptHabit, this.doPrefix() + habit, this.tokSpan(name));
        return true;
      }
    }
    // Blanks, then a word, a quoted string, a `$` expansion, a number, a path or a `-flag`.
    if (!/^[ \t]+(?:[A-Za-z0-9_"'$~]|-[-A-Za-z0-9]|\.{0,2}\/)/.test(text.slice(after, after + 8))) return false;
    let end = text.indexOf("\n", name.startOffset);
    if (end < 0) end = text.length;
    const line = text.slice(name.startOffset, end).replace(/\r$/, "").trimEnd();
    const shown = line.length > 60 ? line.slice(0, 60) + "…" : line;
    this.report(
      Codes.bareCommand,
      `${this.doPrefix()}'${name.image}' is not a statement: to run a shell command, start the line with '$ ': \`$ ${shown}\``,
      this.span(name.startOffset, name.startOffset + line.length),
    );
    return true;
  }

  /**
   * A failed statement that starts as Python or JavaScript does (`def f(a):`, `elif x {`,
   * `switch (x) {`, `} finally {`, `throw new Error(…)`): PW2010 with the Patchwork form
   * (habits.ts), at its first word (so the check's "undefined variable" of it is not said too).
   */
  private reportForeignStatement(first: number): boolean {
    const name = this.input[first];
    const newThrow = name?.image === "throw" && this.input[first + 1]?.image === "new";
    if (name === undefined || (!newThrow && (name.tokenType !== T.Ident || !isForeignStatement(name.image)))) return false;
    const text = this.src.text;
    let lineEnd = text.indexOf("\n", name.startOffset);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(name.startOffset, lineEnd).replace(/\r$/, "").trimEnd();
    if (newThrow) {
      this.report(Codes.javascriptHabit, this.doPrefix() + throwNew(line), this.tokSpan(this.input[first + 1]!));
      return true;
    }
    const habit = foreignStatement(name.image, line)!;
    this.report(Codes.javascriptHabit, this.doPrefix() + habit, this.tokSpan(name));
    return true;
  }

  /** Report an unexpected token where a statement or a closer was expected, then skip. */
  protected skipUnexpected(): void {
    const t = this.LA(1);
    const habit = this.habitAt(t);
    this.report(
      habit !== undefined ? Codes.javascriptHabit : this.doStack.length > 0 ? Codes.syntaxInDo : Codes.unexpectedToken,
      `${this.doPrefix()}${habit ?? `unexpected ${describeToken(t)}`}`,
      this.tokSpan(t),
    );
    this.skipStatement(this.position + 1, true);
  }

  /**
   * Move to the end of the statement that starts at token index `first`: the first newline
   * or `;` at its nesting level after the current token, or an unmatched closer. With
   * `force`, skip at least one token.
   */
  protected skipStatement(first: number, force = false): void {
    const tokens = this.input;
    const current = this.position + 1;
    // What each open bracket of the statement expects: the closer of `(` or `[`, else any closer.
    const open: number[] = [];
    let i = first;
    for (; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.tokenType === EOF) break;
      const role = nestingRole[t.tokenTypeIdx] ?? 0;
      // `print(a` then the `}` of the enclosing block: the `(` was never closed, and the `}`
      // is not its closer but the block's (else the block would seem unclosed: a phantom error).
      if (role < 0 && codeCloser[t.tokenTypeIdx] === true) {
        while (open.length > 0 && open[open.length - 1]! >= 0 && open[open.length - 1] !== t.tokenTypeIdx) open.pop();
      }
      if (i >= current && open.length === 0 && (stopsStatement[t.tokenTypeIdx] === true || role < 0)) break;
      if (role > 0) open.push(closerOf[t.tokenTypeIdx] ?? -1);
      else if (role < 0) open.pop();
    }
    if (i === first && i < tokens.length && tokens[i]!.tokenType !== EOF) {
      const t = tokens[i]!;
      if (force || (stopsStatement[t.tokenTypeIdx] !== true && (nestingRole[t.tokenTypeIdx] ?? 0) >= 0)) i++;
    }
    if (i >= tokens.length || tokens[i]!.tokenType === EOF) this.skippedToEnd = true;
    this.position = i - 1;
  }
}

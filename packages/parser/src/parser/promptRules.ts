/**
 * Grammar rules for text with interpolation: string literals and think/ask prompts (with
 * their line-leading `do` blocks). Brace and angle spellings share every rule; only the
 * delimiter tokens differ, so both give the same AST.
 */
import type { IToken, TokenType } from "../chevrotain.js";
import type { Block, DoRef, Expr, PromptPart, Stmt, StringLit, TemplatePart, ThinkExpr } from "../ast.js";
import * as T from "../lexer/tokens.js";
import { Codes } from "./errors.js";
import { ShellRules } from "./shellRules.js";
import { charLiteralValue, unescape } from "./strings.js";

/** An interpolation before it becomes a TextPart/PromptInterp: expression, spread, span. */
interface Interp {
  interp: true;
  expr: Expr;
  spread: boolean;
  start: number;
  end: number;
}

interface DoBlock {
  block: Block;
  start: number;
  end: number;
  /** The source of the whole `do` block (angle delimiters written as braces). */
  source: string;
}

type PromptItem = IToken | Interp | DoBlock;

const openBrace = (image: string): string => image.slice(0, -1) + "{";
const angleAsBrace = new Map<TokenType, (image: string) => string>([
  [T.ThinkAngleOpen, openBrace],
  [T.AskAngleOpen, openBrace],
  [T.PromptDoAngle, openBrace],
  [T.InterpAngleOpen, openBrace],
  [T.SpreadAngleOpen, openBrace],
  [T.AngleClose, () => "}"],
]);

export abstract class PromptRules extends ShellRules {
  /** `$name`, `${e}`, `$@{e}`, `$<e>`, `$@<e>` */
  protected interpolation = this.RULE("interpolation", (): Interp => {
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.InterpName);
          if (this.RECORDING_PHASE) return null as never;
          const expr: Expr = { kind: "Ident", name: t.image.slice(1), span: this.span(t.startOffset + 1, this.tokEnd(t)) };
          return { interp: true, expr, spread: false, start: t.startOffset, end: this.tokEnd(t) };
        },
      },
      {
        ALT: () => {
          const open = this.OR2([
            { ALT: () => this.CONSUME(T.InterpOpen) },
            { ALT: () => this.CONSUME(T.SpreadOpen) },
          ]);
          const expr = this.SUBRULE(this.expression);
          const close = this.CONSUME(T.RBrace);
          if (this.RECORDING_PHASE) return null as never;
          return { interp: true, expr, spread: open.tokenType === T.SpreadOpen, start: open.startOffset, end: this.tokEnd(close) };
        },
      },
      {
        ALT: () => {
          const open = this.OR3([
            { ALT: () => this.CONSUME(T.InterpAngleOpen) },
            { ALT: () => this.CONSUME(T.SpreadAngleOpen) },
          ]);
          const expr = this.SUBRULE2(this.expression);
          const close = this.CONSUME(T.AngleClose);
          if (this.RECORDING_PHASE) return null as never;
          return { interp: true, expr, spread: open.tokenType === T.SpreadAngleOpen, start: open.startOffset, end: this.tokEnd(close) };
        },
      },
    ]);
  });

  // ── strings ──

  private stringPartAlts = [
    { ALT: (): IToken | Interp => this.CONSUME(T.StrText) },
    { ALT: (): IToken | Interp => this.CONSUME(T.StrEscape) },
    { ALT: (): IToken | Interp => this.CONSUME(T.CharLit) },
    { ALT: (): IToken | Interp => this.CONSUME(T.Dollar) },
    { ALT: (): IToken | Interp => this.SUBRULE(this.interpolation) },
  ];

  protected stringLit = this.RULE("stringLit", (): StringLit => {
    const open = this.CONSUME(T.StrStart);
    const items: (IToken | Interp)[] = [];
    this.MANY(() => {
      items.push(this.OR(this.stringPartAlts));
    });
    const close = this.OPTION(() => this.CONSUME(T.StrEnd));
    if (this.RECORDING_PHASE) return null as never;
    if (close === undefined) {
      this.report(Codes.unterminatedString, 'unterminated string: add the closing "', this.tokSpan(open));
    }
    const end = close === undefined ? this.src.text.length : this.tokEnd(close);
    return { kind: "String", parts: this.templateParts(items), span: this.span(open.startOffset, end) };
  });

  private templateParts(items: (IToken | Interp)[]): TemplatePart[] {
    const parts: TemplatePart[] = [];
    let text = "";
    let start = -1;
    let end = -1;
    for (const item of items) {
      if ("interp" in item) {
        if (start >= 0) parts.push({ kind: "Text", value: text, span: this.span(start, end) });
        start = -1;
        text = "";
        parts.push({ kind: "Interp", expr: item.expr, spread: item.spread, span: this.span(item.start, item.end) });
        continue;
      }
      if (start < 0) start = item.startOffset;
      end = item.startOffset + item.image.length;
      const type = item.tokenType;
      text += type === T.StrEscape ? unescape(item.image) : type === T.CharLit ? charLiteralValue(item.image) : item.image;
    }
    if (start >= 0) parts.push({ kind: "Text", value: text, span: this.span(start, end) });
    return parts;
  }

  // ── prompts ──

  private promptTextTypes = [
    T.PromptText, T.PromptAngleText, T.PromptNL, T.PromptLBrace, T.PromptRBrace, T.PromptLAngle,
    T.PromptRAngle, T.CharLit, T.Dollar, T.PromptEscape, T.Backslash,
  ];

  private promptPartAlts = [
    ...this.promptTextTypes.map((type) => ({ ALT: (): PromptItem => this.CONSUME(type) })),
    { ALT: (): PromptItem => this.SUBRULE(this.interpolation) },
    { ALT: (): PromptItem => this.SUBRULE(this.doBlock) },
  ];

  protected promptPart = this.RULE("promptPart", (): PromptItem => this.OR(this.promptPartAlts));

  /** A line-leading `do { … }` or `do < … >` in prompt text: its body is code. */
  protected doBlock = this.RULE("doBlock", (): DoBlock => {
    const open = this.OR([
      { ALT: () => this.CONSUME(T.PromptDo) },
      { ALT: () => this.CONSUME(T.PromptDoAngle) },
    ]);
    const openIdx = this.RECORDING_PHASE ? 0 : this.position;
    if (!this.RECORDING_PHASE) {
      const p = this.src.positionAt(open.startOffset);
      this.doStack.push({ line: p.line, column: p.column });
    }
    const statements = this.SUBRULE(this.statements);
    const close = this.OR2([
      { ALT: () => this.CONSUME(T.RBrace) },
      { ALT: () => this.CONSUME(T.AngleClose) },
    ]);
    if (this.RECORDING_PHASE) return null as never;
    this.doStack.pop();
    const bodyStart = open.startOffset + open.image.length - 1;
    const end = this.tokEnd(close);
    const block: Block = { kind: "Block", statements, span: this.span(bodyStart, end) };
    return { block, start: open.startOffset, end, source: this.braceSource(openIdx, this.position) };
  });

  /**
   * The source text of tokens `from..to` (inclusive) with angle delimiters written as
   * braces, so both spellings give the same `DoRef.source`.
   */
  private braceSource(from: number, to: number): string {
    const tokens = this.input;
    const text = this.src.text;
    let out = "";
    let at = tokens[from]!.startOffset;
    for (let i = from; i <= to; i++) {
      const t = tokens[i]!;
      const brace = angleAsBrace.get(t.tokenType);
      if (brace === undefined) continue;
      out += text.slice(at, t.startOffset) + brace(t.image);
      at = t.startOffset + t.image.length;
    }
    return out + text.slice(at, this.tokEnd(tokens[to]!));
  }

  protected thinkExpr = this.RULE("thinkExpr", (): ThinkExpr => {
    const open = this.OR([
      { ALT: () => this.CONSUME(T.ThinkOpen) },
      { ALT: () => this.CONSUME(T.AskOpen) },
      { ALT: () => this.CONSUME(T.ThinkAngleOpen) },
      { ALT: () => this.CONSUME(T.AskAngleOpen) },
    ]);
    const items: PromptItem[] = [];
    this.MANY(() => {
      items.push(this.SUBRULE(this.promptPart));
    });
    const close = this.OPTION(() =>
      this.OR2([{ ALT: () => this.CONSUME(T.RBrace) }, { ALT: () => this.CONSUME(T.AngleClose) }]),
    );
    if (this.RECORDING_PHASE) return null as never;
    const mode = open.tokenType === T.ThinkOpen || open.tokenType === T.ThinkAngleOpen ? "think" : "ask";
    if (close === undefined) this.reportUnclosedPrompt(open, items, mode);
    else this.findSuspectBraces(open, items);
    const end = close === undefined ? this.src.text.length : this.tokEnd(close);
    const { prompt, children } = this.promptParts(items);
    return { kind: "Think", mode, prompt, children, verbatim: false, span: this.span(open.startOffset, end) };
  });

  /**
   * The prompt reached the end of input. If it holds a brace (or angle) of its own that
   * swallowed the prompt's closer, that is the real mistake: report the outermost one still
   * open, else the one matched by a closer that ends the text. Otherwise the prompt is just unclosed.
   */
  private reportUnclosedPrompt(open: IToken, items: PromptItem[], mode: string): void {
    const stack: IToken[] = [];
    let lastPair: IToken | undefined;
    for (const item of items) {
      if (!("tokenType" in item)) {
        lastPair = undefined;
        continue;
      }
      if (item.image.trim() !== "") lastPair = undefined;
      if (item.tokenType === T.PromptLBrace || item.tokenType === T.PromptLAngle) stack.push(item);
      else if (item.tokenType === T.PromptRBrace || item.tokenType === T.PromptRAngle) {
        const opened = stack.pop();
        if (stack.length === 0) lastPair = opened;
      }
    }
    const angle = open.tokenType === T.ThinkAngleOpen || open.tokenType === T.AskAngleOpen;
    const culprit = stack[0] ?? lastPair;
    if (culprit !== undefined) {
      const c = culprit.image;
      this.report(
        Codes.unbalancedPromptBrace,
        `unbalanced '${c}' in prompt text: ${angle ? "'<' and '>'" : "braces"} in prompt text must balance, so this '${c}' takes the prompt's closing '${angle ? ">" : "}"}' (write a lone one as $'${c}')`,
        this.tokSpan(culprit),
      );
      return;
    }
    this.report(Codes.unclosedPrompt, `unclosed prompt: '${mode} ${angle ? "<" : "{"}' has no closing '${angle ? ">" : "}"}'`, this.tokSpan(open));
  }

  /** Braces of prompt text that probably took a closer meant for something else (see `explainEndOfInput`). */
  private suspects: { open: IToken; close: IToken }[] = [];

  protected override resetState(): void {
    super.resetState();
    this.suspects = [];
  }

  /**
   * A `}` closing a brace of the prompt text, alone on its line and indented no deeper than
   * the line of `think {`, was most likely meant to close the prompt: remember the pair.
   */
  private findSuspectBraces(open: IToken, items: PromptItem[]): void {
    // Line starts and indents come from the SourceFile's line table (each line's indent worked
    // out once), not by walking back through the text: a prompt of N braces on one line is linear.
    const src = this.src;
    const indent = (offset: number): number => {
      const at = src.positionAt(offset);
      const blanks = src.leadingBlanks(at.line);
      return blanks === at.column - 1 ? blanks : -1;
    };
    const openAt = src.positionAt(open.startOffset);
    const thinkIndent = Math.min(src.leadingBlanks(openAt.line), openAt.column - 1);
    const stack: IToken[] = [];
    for (const item of items) {
      if (!("tokenType" in item)) continue;
      if (item.tokenType === T.PromptLBrace || item.tokenType === T.PromptLAngle) stack.push(item);
      else if (item.tokenType === T.PromptRBrace || item.tokenType === T.PromptRAngle) {
        const opened = stack.pop();
        const at = indent(item.startOffset);
        if (opened !== undefined && at >= 0 && at <= thinkIndent) this.suspects.push({ open: opened, close: item });
      }
    }
  }

  /**
   * The input ended inside a block: if a prompt's own brace took the closer meant for the
   * prompt (so the prompt took the block's), say so at that brace instead of at the end.
   */
  explainEndOfInput(): void {
    const suspect = this.suspects[0];
    if (suspect === undefined) return;
    const end = this.endOfInput;
    const i = this.diagnostics.findIndex((d) => d.severity === "error" && d.span.start.offset === end);
    if (i < 0) return;
    const c = suspect.open.image;
    const closer = this.src.positionAt(suspect.close.startOffset);
    const d = this.diagnostics[i]!;
    d.code = Codes.unbalancedPromptBrace;
    d.message = `unbalanced '${c}' in prompt text: it takes the '${suspect.close.image}' at ${closer.line}:${closer.column}, which looks like the end of the prompt (prompt text braces must balance; write a lone one as $'${c}')`;
    d.span = this.tokSpan(suspect.open);
  }

  private promptParts(items: PromptItem[]): { prompt: PromptPart[]; children: Stmt[] } {
    const prompt: PromptPart[] = [];
    const children: Stmt[] = [];
    let text = "";
    let start = -1;
    let end = -1;
    const flush = (): void => {
      if (start >= 0) prompt.push({ kind: "PromptText", value: text, span: this.span(start, end) });
      start = -1;
      text = "";
    };
    for (const item of items) {
      if ("interp" in item) {
        flush();
        prompt.push({ kind: "PromptInterp", expr: item.expr, spread: item.spread, span: this.span(item.start, item.end) });
      } else if ("block" in item) {
        flush();
        const ref: DoRef = {
          kind: "DoRef",
          index: children.length,
          source: item.source,
          span: this.span(item.start, item.end),
        };
        prompt.push(ref);
        children.push(item.block);
      } else {
        if (start < 0) start = item.startOffset;
        end = item.startOffset + item.image.length;
        const type = item.tokenType;
        text += type === T.CharLit ? charLiteralValue(item.image) : type === T.PromptEscape ? item.image.charAt(1) : item.image;
      }
    }
    flush();
    return { prompt, children };
  }
}

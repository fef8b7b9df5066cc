/**
 * Grammar rules for shell commands: lists (`&&`, `||`, `;`), pipelines, commands, words
 * and redirects. Words keep their literal text exactly as written; `$name`, `${…}` and
 * `$@{…}` become interpolations.
 */
import type { IToken } from "../chevrotain.js";
import type {
  Expr,
  ShellCommand,
  ShellInterp,
  ShellList,
  ShellPipeline,
  ShellRedirect,
  ShellWord,
  ShellWordPart,
} from "../ast.js";
import * as T from "../lexer/tokens.js";
import { Codes } from "./errors.js";
import { TypeRules } from "./typeRules.js";

/** A piece of a word before merging: literal source text or an interpolation. */
type WordItem = IToken | ShellInterp | { dq: (IToken | ShellInterp)[] };

export abstract class ShellRules extends TypeRules {
  protected shellList = this.RULE("shellList", (): ShellList => {
    const first = this.SUBRULE(this.shellPipeline);
    const rest: ShellList["rest"] = [];
    this.MANY(() => {
      const op = this.OR([
        { ALT: () => this.CONSUME(T.ShellAndAnd) },
        { ALT: () => this.CONSUME(T.ShellOrOr) },
        { ALT: () => this.CONSUME(T.ShellSemi) },
      ]);
      this.OPTION(() => this.CONSUME(T.ShellSpace));
      this.OPTION2(() => {
        const pipeline = this.SUBRULE2(this.shellPipeline);
        if (!this.RECORDING_PHASE) rest.push({ op: op.image as "&&" | "||" | ";", pipeline });
      });
    });
    if (this.RECORDING_PHASE) return null as never;
    const last = rest.length > 0 ? rest[rest.length - 1]!.pipeline : first;
    return { kind: "ShellList", first, rest, span: this.span(first.span.start.offset, last.span.end.offset) };
  });

  protected shellPipeline = this.RULE("shellPipeline", (): ShellPipeline => {
    const commands = [this.SUBRULE(this.shellCommand)];
    this.MANY(() => {
      this.CONSUME(T.ShellPipe);
      commands.push(this.SUBRULE2(this.shellCommand));
    });
    if (this.RECORDING_PHASE) return null as never;
    const span = this.span(commands[0]!.span.start.offset, commands[commands.length - 1]!.span.end.offset);
    return { kind: "ShellPipeline", commands, span };
  });

  protected shellCommand = this.RULE("shellCommand", (): ShellCommand => {
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    this.OPTION(() => this.CONSUME(T.ShellSpace));
    this.AT_LEAST_ONE(() => {
      const item = this.SUBRULE(this.shellItem);
      if (!this.RECORDING_PHASE) (item.kind === "ShellWord" ? words : redirects).push(item as never);
      this.OPTION2(() => this.CONSUME2(T.ShellSpace));
    });
    if (this.RECORDING_PHASE) return null as never;
    let start = Infinity;
    let end = -Infinity;
    for (const n of [...words, ...redirects]) {
      start = Math.min(start, n.span.start.offset);
      end = Math.max(end, n.span.end.offset);
    }
    return { kind: "ShellCommand", words, redirects, span: this.span(start, end) };
  });

  protected shellItem = this.RULE("shellItem", (): ShellWord | ShellRedirect =>
    this.OR([{ ALT: () => this.SUBRULE(this.shellRedirect) }, { ALT: () => this.SUBRULE(this.shellWord) }]),
  );

  protected shellRedirect = this.RULE("shellRedirect", (): ShellRedirect => {
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.ShellRedirDup);
          if (this.RECORDING_PHASE) return null as never;
          const m = /^([0-9]*)>&([0-9]+)$/.exec(t.image)!;
          const fd = m[1] === "" ? null : Number(m[1]);
          return { kind: "ShellRedirect", op: ">&", fd, target: null, dupFd: Number(m[2]), span: this.tokSpan(t) };
        },
      },
      {
        ALT: () => {
          const t = this.OR2([
            { ALT: () => this.CONSUME(T.ShellRedirAll) },
            { ALT: () => this.CONSUME(T.ShellRedirAppend) },
            { ALT: () => this.CONSUME(T.ShellRedirOut) },
            { ALT: () => this.CONSUME(T.ShellRedirIn) },
          ]);
          this.OPTION(() => this.CONSUME(T.ShellSpace));
          const target = this.SUBRULE(this.shellWord);
          if (this.RECORDING_PHASE) return null as never;
          const m = /^([0-9]*)(.*)$/.exec(t.image)!;
          const fd = m[1] === "" ? null : Number(m[1]);
          const op = m[2] as ShellRedirect["op"];
          return { kind: "ShellRedirect", op, fd, target, dupFd: null, span: this.spanFrom(t, target) };
        },
      },
    ]);
  });

  private shellTextAlts = [
    T.ShellWordText, T.ShellEscape, T.ShellSQ, T.ShellBacktick, T.ShellDollarParen, T.ShellParamExpansion,
    T.ShellParenChar, T.ShellAmp, T.Dollar,
  ].map((type) => ({ ALT: (): WordItem => this.CONSUME(type) }));

  private shellPartAlts = [
    ...this.shellTextAlts,
    { ALT: (): WordItem => this.SUBRULE(this.shellInterp) },
    { ALT: (): WordItem => this.SUBRULE(this.shellNested) },
    ...[
      { type: T.ShellSQOpen, message: "unterminated single quote in shell command: add the closing '" },
      { type: T.ShellDollarParenOpen, message: "unterminated '$(' in shell command: add the closing ')'" },
      { type: T.ShellBacktickOpen, message: "unterminated backquote in shell command: add the closing `" },
    ].map(({ type, message }) => ({
      ALT: (): WordItem => {
        const t = this.CONSUME(type);
        if (!this.RECORDING_PHASE) this.report(Codes.unterminatedShell, message, this.tokSpan(t));
        return t;
      },
    })),
    {
      ALT: (): WordItem => {
        const open = this.CONSUME(T.ShellDQStart);
        const dq: (IToken | ShellInterp)[] = [open];
        this.MANY(() => {
          dq.push(
            this.OR2([
              { ALT: () => this.CONSUME(T.ShellDQText) },
              { ALT: () => this.CONSUME2(T.ShellEscape) },
              { ALT: () => this.CONSUME2(T.Dollar) },
              { ALT: () => this.CONSUME2(T.ShellParamExpansion) },
              { ALT: () => this.SUBRULE2(this.shellInterp) },
            ]),
          );
        });
        const close = this.OPTION(() => this.CONSUME(T.ShellDQEnd));
        if (this.RECORDING_PHASE) return null as never;
        if (close === undefined) {
          this.report(Codes.unterminatedShell, 'unterminated double quote in shell command: add the closing "', this.tokSpan(open));
        } else dq.push(close);
        return { dq };
      },
    },
  ];

  protected shellWordPart = this.RULE("shellWordPart", (): WordItem => this.OR(this.shellPartAlts));

  /** `( … )` inside a shell capture: literal text, parentheses included. */
  protected shellNested = this.RULE("shellNested", (): IToken => {
    const open = this.CONSUME(T.ShellLParen);
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(T.ShellSpace) },
        { ALT: () => this.SUBRULE(this.shellWordPart) },
        { ALT: () => this.CONSUME(T.ShellAndAnd) },
        { ALT: () => this.CONSUME(T.ShellOrOr) },
        { ALT: () => this.CONSUME(T.ShellPipe) },
        { ALT: () => this.CONSUME(T.ShellSemi) },
        { ALT: () => this.CONSUME(T.ShellRedirDup) },
        { ALT: () => this.CONSUME(T.ShellRedirAll) },
        { ALT: () => this.CONSUME(T.ShellRedirAppend) },
        { ALT: () => this.CONSUME(T.ShellRedirOut) },
        { ALT: () => this.CONSUME(T.ShellRedirIn) },
      ]);
    });
    const close = this.CONSUME(T.ShellRParen);
    if (this.RECORDING_PHASE) return null as never;
    // One synthetic text token covering the whole parenthesised text.
    const image = this.src.text.slice(open.startOffset, this.tokEnd(close));
    return { ...open, image, endOffset: open.startOffset + image.length - 1 };
  });

  protected shellWord = this.RULE("shellWord", (): ShellWord => {
    const items: WordItem[] = [];
    this.AT_LEAST_ONE(() => {
      items.push(this.SUBRULE(this.shellWordPart));
    });
    return this.RECORDING_PHASE ? (null as never) : this.buildWord(items);
  });

  /** `$name`, `${expr}` or `$@{expr}` in a shell word. */
  protected shellInterp = this.RULE("shellInterp", (): ShellInterp => {
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.InterpName);
          if (this.RECORDING_PHASE) return null as never;
          const expr: Expr = { kind: "Ident", name: t.image.slice(1), span: this.span(t.startOffset + 1, this.tokEnd(t)) };
          return { kind: "ShellInterp", expr, spread: false, context: "bare", raw: t.image, span: this.tokSpan(t) };
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
          const raw = this.src.text.slice(open.startOffset, this.tokEnd(close));
          const spread = open.tokenType === T.SpreadOpen;
          return { kind: "ShellInterp", expr, spread, context: "bare", raw, span: this.spanFrom(open, close) };
        },
      },
    ]);
  });

  /** Merge adjacent literal pieces into one ShellText; mark interpolations inside quotes. */
  private buildWord(items: WordItem[]): ShellWord {
    const parts: ShellWordPart[] = [];
    let textStart = -1;
    let textEnd = -1;
    let raw = "";
    const flush = (): void => {
      if (textStart < 0) return;
      parts.push({ kind: "ShellText", raw, span: this.span(textStart, textEnd) });
      textStart = -1;
      raw = "";
    };
    const add = (item: IToken | ShellInterp, double: boolean): void => {
      if ("kind" in item) {
        flush();
        parts.push(double ? { ...item, context: "double" } : item);
        return;
      }
      if (textStart < 0) textStart = item.startOffset;
      raw += item.image;
      textEnd = item.startOffset + item.image.length;
    };
    for (const item of items) {
      if ("dq" in item) for (const d of item.dq) add(d, true);
      else add(item, false);
    }
    flush();
    const first = parts[0]!;
    const last = parts[parts.length - 1]!;
    return { kind: "ShellWord", parts, span: this.span(first.span.start.offset, last.span.end.offset) };
  }
}

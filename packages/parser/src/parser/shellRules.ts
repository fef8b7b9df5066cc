/**
 * Grammar rules for shell commands: lists (`&&`, `||`, `;`), pipelines, commands, words
 * and redirects. Words keep their literal text exactly as written; `$name`, `${…}` and
 * `$@{…}` become interpolations.
 */
import type { IToken, TokenType } from "../chevrotain.js";
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

/** A piece of a word before merging: literal source text (at its offset) or an interpolation. */
type Piece = { text: string; start: number } | ShellInterp;

function piece(t: IToken): Piece {
  return { text: t.image, start: t.startOffset };
}

/** How an unclosed opener is named in a message, and its closer. */
const CLOSERS: Record<string, [string, string]> = {
  "(": ["parenthesis", "')'"],
  "$(": ["'$('", "')'"],
  "$((": ["'$(('", "'))'"],
  "`": ["backquote", "`"],
  '"': ["double quote", '"'],
};

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
            {
              ALT: () => {
                const h = this.CONSUME(T.ShellHeredoc);
                if (!this.RECORDING_PHASE) {
                  const message = "heredocs and here-strings (<<, <<<) are not supported: pipe the text in, e.g. $ printf '%s' ${text} | cmd";
                  this.report(Codes.syntax, message, this.tokSpan(h));
                }
                return h;
              },
            },
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

  /** A token that is literal text of its word (passed to sh as written). */
  private textAlt = (type: TokenType) => ({ ALT: (): Piece[] => [piece(this.CONSUME(type))] });

  /** An opener that nothing closes (`'…`, `$(`, a backquote): reported, then kept as text. */
  private unterminated = (type: TokenType, message: string) => ({
    ALT: (): Piece[] => {
      const t = this.CONSUME(type);
      if (!this.RECORDING_PHASE) this.report(Codes.unterminatedShell, message, this.tokSpan(t));
      return [piece(t)];
    },
  });

  private shellPartAlts = [
    ...[T.ShellWordText, T.ShellEscape, T.ShellSQ, T.ShellBQSQ, T.ShellParamExpansion, T.ShellParenChar, T.ShellAmp, T.Dollar].map(
      this.textAlt,
    ),
    { ALT: (): Piece[] => [this.SUBRULE(this.shellInterp)] },
    { ALT: (): Piece[] => this.SUBRULE(this.shellNested) },
    { ALT: (): Piece[] => this.SUBRULE(this.shellSub) },
    { ALT: (): Piece[] => this.SUBRULE(this.shellArith) },
    { ALT: (): Piece[] => this.SUBRULE(this.shellBackquote) },
    { ALT: (): Piece[] => this.SUBRULE(this.shellDouble) },
    ...[T.ShellSQOpen, T.ShellBQSQOpen].map((t) => this.unterminated(t, "unterminated single quote in shell command: add the closing '")),
    this.unterminated(T.ShellDollarParenOpen, "unterminated '$(' in shell command: add the closing ')'"),
    this.unterminated(T.ShellBacktickOpen, "unterminated backquote in shell command: add the closing `"),
  ];

  protected shellWordPart = this.RULE("shellWordPart", (): Piece[] => this.OR(this.shellPartAlts));

  /** One item of a nested command: a space, an operator or a word (flattened into pieces). */
  protected shellSeqItem = this.RULE("shellSeqItem", (): Piece[] => {
    return this.OR([
      ...[
        T.ShellSpace, T.ShellAndAnd, T.ShellOrOr, T.ShellPipe, T.ShellSemi, T.ShellRedirDup, T.ShellRedirAll,
        T.ShellRedirAppend, T.ShellRedirOut, T.ShellRedirIn, T.ShellHeredoc,
      ].map(this.textAlt),
      {
        ALT: (): Piece[] => {
          const w = this.SUBRULE(this.shellWord);
          if (this.RECORDING_PHASE) return [];
          return w.parts.map((p) => (p.kind === "ShellText" ? { text: p.raw, start: p.span.start.offset } : p));
        },
      },
    ]);
  });

  /** The pieces of a nested command up to its closer (the closer is not consumed). */
  private shellSeq(): Piece[] {
    const items: Piece[] = [];
    this.MANY(() => {
      const p = this.SUBRULE(this.shellSeqItem);
      if (!this.RECORDING_PHASE) items.push(...p);
    });
    return items;
  }

  /**
   * A closer that may be missing (the command then ran to the end of the input). Not
   * reported when an error inside the construct (reported since `before`) already explains it.
   */
  private closer(open: IToken, close: IToken | undefined, what: string, before: number): Piece[] {
    if (close !== undefined) return [piece(close)];
    if (this.diagnostics.length > before) return [];
    const [name, closer] = CLOSERS[what]!;
    this.report(Codes.unterminatedShell, `unterminated ${name} in shell command: add the closing ${closer}`, this.tokSpan(open));
    return [];
  }

  /** `( … )` inside a shell capture: a subshell or group, parsed as a command. */
  protected shellNested = this.RULE("shellNested", (): Piece[] => {
    const open = this.CONSUME(T.ShellLParen);
    const before = this.diagnostics.length;
    const items = this.shellSeq();
    const close = this.OPTION(() => this.CONSUME(T.ShellRParen));
    return this.RECORDING_PHASE ? [] : [piece(open), ...items, ...this.closer(open, close, "(", before)];
  });

  /** `$( … )`: sh's command substitution, parsed as a command. */
  protected shellSub = this.RULE("shellSub", (): Piece[] => {
    const open = this.CONSUME(T.ShellSubOpen);
    const before = this.diagnostics.length;
    const items = this.shellSeq();
    const close = this.OPTION(() => this.CONSUME(T.ShellRParen));
    return this.RECORDING_PHASE ? [] : [piece(open), ...items, ...this.closer(open, close, "$(", before)];
  });

  /** `` `…` ``: the old command substitution. Interpolations in nested (escaped) backquotes are refused. */
  protected shellBackquote = this.RULE("shellBackquote", (): Piece[] => {
    const open = this.OR([{ ALT: () => this.CONSUME(T.ShellBQOpen) }, { ALT: () => this.CONSUME(T.ShellBQOpenDQ) }]);
    const before = this.diagnostics.length;
    const items = this.shellSeq();
    const close = this.OPTION(() => this.CONSUME(T.ShellBQClose));
    if (this.RECORDING_PHASE) return [];
    if (items.some((p) => "text" in p && p.text.includes("\\`"))) {
      for (const p of items) {
        if ("kind" in p) {
          this.report(
            Codes.shellContext,
            `interpolation inside nested backquotes: write $(…) instead of \\\`…\\\`, so the value's quoting is known`,
            p.span,
          );
        }
      }
    }
    return [piece(open), ...items, ...this.closer(open, close, "`", before)];
  });

  /** Double quotes, in a word or inside backquotes: interpolations here land in double quotes. */
  protected shellDouble = this.RULE("shellDouble", (): Piece[] => {
    const open = this.OR([
      { ALT: () => this.CONSUME(T.ShellDQStart) },
      { ALT: () => this.CONSUME(T.ShellBQDQOpen) },
      { ALT: () => this.CONSUME(T.ShellBQDQOpenEsc) },
    ]);
    const before = this.diagnostics.length;
    const items: Piece[] = [piece(open)];
    this.MANY(() => {
      const p = this.OR2([
        ...[T.ShellDQText, T.ShellBQDQText, T.ShellEscape, T.ShellParamExpansion, T.Dollar].map(this.textAlt),
        this.unterminated(T.ShellDollarParenOpen, "unterminated '$(' in shell command: add the closing ')'"),
        this.unterminated(T.ShellBacktickOpen, "unterminated backquote in shell command: add the closing `"),
        { ALT: (): Piece[] => [this.inContext(this.SUBRULE(this.shellInterp), "double")] },
        { ALT: (): Piece[] => this.SUBRULE(this.shellSub) },
        { ALT: (): Piece[] => this.SUBRULE(this.shellArith) },
        { ALT: (): Piece[] => this.SUBRULE(this.shellBackquote) },
        {
          ALT: (): Piece[] => {
            const t = this.CONSUME(T.ShellBQInDQ);
            if (!this.RECORDING_PHASE) {
              this.report(Codes.unterminatedShell, 'unterminated double quote inside backquotes: add the closing " before the `', this.tokSpan(t));
            }
            return [piece(t)];
          },
        },
      ]);
      if (!this.RECORDING_PHASE) items.push(...p);
    });
    const close = this.OPTION(() =>
      this.OR3([
        { ALT: () => this.CONSUME(T.ShellDQEnd) },
        { ALT: () => this.CONSUME(T.ShellBQDQClose) },
        { ALT: () => this.CONSUME(T.ShellBQDQCloseEsc) },
      ]),
    );
    return this.RECORDING_PHASE ? [] : [...items, ...this.closer(open, close, '"', before)];
  });

  /** `$(( … ))`: arithmetic. Interpolations here must be integers (checked when run). */
  protected shellArith = this.RULE("shellArith", (): Piece[] => {
    const open = this.CONSUME(T.ShellArithOpen);
    const before = this.diagnostics.length;
    const items = this.arithItems();
    const close = this.OPTION(() => this.CONSUME(T.ShellArithClose));
    return this.RECORDING_PHASE ? [] : [piece(open), ...items, ...this.closer(open, close, "$((", before)];
  });

  protected shellArithGroup = this.RULE("shellArithGroup", (): Piece[] => {
    const open = this.CONSUME(T.ShellArithLParen);
    const before = this.diagnostics.length;
    const items = this.arithItems();
    const close = this.OPTION(() => this.CONSUME(T.ShellRParen));
    return this.RECORDING_PHASE ? [] : [piece(open), ...items, ...this.closer(open, close, "(", before)];
  });

  private arithItems(): Piece[] {
    const items: Piece[] = [];
    this.MANY(() => {
      const p = this.OR([
        ...[T.ShellSpace, T.ShellArithText, T.ShellParamExpansion, T.Dollar, T.ShellDollarParenOpen, T.ShellBacktickOpen].map(this.textAlt),
        { ALT: (): Piece[] => [this.inContext(this.SUBRULE(this.shellInterp), "arith")] },
        { ALT: (): Piece[] => this.SUBRULE(this.shellArithGroup) },
        { ALT: (): Piece[] => this.SUBRULE(this.shellSub) },
        { ALT: (): Piece[] => this.SUBRULE(this.shellArith) },
        { ALT: (): Piece[] => this.SUBRULE(this.shellBackquote) },
      ]);
      if (!this.RECORDING_PHASE) items.push(...p);
    });
    return items;
  }

  private inContext(i: ShellInterp, context: ShellInterp["context"]): ShellInterp {
    return this.RECORDING_PHASE ? i : { ...i, context };
  }

  protected shellWord = this.RULE("shellWord", (): ShellWord => {
    const items: Piece[] = [];
    this.AT_LEAST_ONE(() => {
      const p = this.SUBRULE(this.shellWordPart);
      if (!this.RECORDING_PHASE) items.push(...p);
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
          return { kind: "ShellInterp", expr, spread: false, context: "bare", alone: false, raw: t.image, span: this.tokSpan(t) };
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
          return { kind: "ShellInterp", expr, spread, context: "bare", alone: false, raw, span: this.spanFrom(open, close) };
        },
      },
    ]);
  });

  /**
   * Merge adjacent literal pieces into one ShellText. An interpolation that is the whole word,
   * bare, is marked `alone` (an array there gives one word per element).
   */
  private buildWord(items: Piece[]): ShellWord {
    const parts: ShellWordPart[] = [];
    let textStart = -1;
    let raw = "";
    const flush = (): void => {
      if (textStart < 0) return;
      parts.push({ kind: "ShellText", raw, span: this.span(textStart, textStart + raw.length) });
      textStart = -1;
      raw = "";
    };
    for (const item of items) {
      if ("kind" in item) {
        flush();
        parts.push(item);
      } else {
        if (textStart < 0) textStart = item.start;
        raw += item.text;
      }
    }
    flush();
    const only = parts.length === 1 ? parts[0]! : undefined;
    if (only?.kind === "ShellInterp" && only.context === "bare") parts[0] = { ...only, alone: true };
    const first = parts[0]!;
    const last = parts[parts.length - 1]!;
    return { kind: "ShellWord", parts, span: this.span(first.span.start.offset, last.span.end.offset) };
  }
}

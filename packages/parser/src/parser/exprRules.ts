/**
 * Grammar rules for expressions. Binary operators are parsed as a flat list and folded by
 * precedence (one rule instead of one rule per level); postfix operators loop on `cur`.
 */
import { EOF, type IToken } from "../chevrotain.js";
import type { AssignExpr, BinaryOp, Expr, Property, ShellExpr } from "../ast.js";
import * as T from "../lexer/tokens.js";
import { Codes, describeToken } from "./errors.js";
import { PromptRules } from "./promptRules.js";

/** Binding power and associativity of each binary operator, by token type index. */
const precedence: number[] = [];
const binaryOps: { type: typeof T.Plus; prec: number }[] = [
  { type: T.Assign, prec: 1 },
  { type: T.OrOr, prec: 2 },
  { type: T.AndAnd, prec: 3 },
  ...[T.EqEq, T.NotEq, T.Lt, T.Gt, T.LtEq, T.GtEq].map((type) => ({ type, prec: 4 })),
  { type: T.Range, prec: 5 },
  { type: T.Plus, prec: 6 },
  { type: T.Minus, prec: 6 },
  ...[T.Star, T.Slash, T.Percent].map((type) => ({ type, prec: 7 })),
];
for (const { type, prec } of binaryOps) precedence[type.tokenTypeIdx!] = prec;
/** `=` at the top of an `if` / `while` condition: a comparison, bound like `==`. */
const conditionAssignPrec = 4;

type Target = AssignExpr["target"];

function isTarget(e: Expr): e is Target {
  return e.kind === "Ident" || e.kind === "Member" || e.kind === "Index";
}

export abstract class ExprRules extends PromptRules {
  /** The expression being extended by the postfix loop. */
  private cur: Expr = null as never;

  /** Set by `condition` just before it parses its expression; read (and cleared) on entry. */
  protected conditionNext = false;
  /** The expression being folded is the top of an `if` / `while` condition. */
  private foldingCondition = false;

  protected override resetState(): void {
    super.resetState();
    this.conditionNext = false;
  }

  protected expression = this.RULE("expression", (): Expr => {
    const isCondition = this.conditionNext;
    this.conditionNext = false;
    const first = this.SUBRULE(this.unary);
    let operands: Expr[] | null = null;
    let ops: IToken[] | null = null;
    this.MANY(() => {
      const op = this.CONSUME(T.BinOp);
      this.chained(ops === null ? 1 : ops.length + 1, op);
      const right = this.SUBRULE2(this.unary);
      if (!this.RECORDING_PHASE) {
        (operands ??= [first]).push(right);
        (ops ??= []).push(op);
      }
    });
    if (this.RECORDING_PHASE || ops === null) return first;
    this.foldingCondition = isCondition;
    return this.fold(operands!, ops, 0, operands!.length - 1, 0);
  });

  /** Index of the next operator after a `fold` (avoids allocating a result pair). */
  private foldNext = 0;

  /** Precedence climbing over the flat operand/operator lists (operator k joins xs[k], xs[k+1]). */
  private fold(xs: Expr[], ops: IToken[], i: number, last: number, minPrec: number): Expr {
    let left = xs[i]!;
    let k = i;
    while (k < last) {
      const op = ops[k]!;
      // At the top of a condition, `=` compares: it binds like `==` (language.md §3).
      const prec = op.tokenType === T.Assign && this.foldingCondition ? conditionAssignPrec : precedence[op.tokenTypeIdx]!;
      if (prec < minPrec) break;
      // `=` is right-associative; everything else left-associative.
      const right = this.fold(xs, ops, k + 1, last, prec === 1 ? prec : prec + 1);
      left = this.binary(op, left, right);
      k = this.foldNext;
    }
    this.foldNext = k;
    return left;
  }

  private binary(op: IToken, left: Expr, right: Expr): Expr {
    const span = this.span(left.span.start.offset, right.span.end.offset);
    switch (op.tokenType) {
      case T.Assign:
        if (this.foldingCondition) {
          this.report(Codes.assignInCondition, "'=' in a condition compares here; write '==' to compare (or put an assignment in parentheses)", span, "warning");
          return { kind: "Binary", op: "==", left, right, span };
        }
        if (!isTarget(left)) {
          this.report(Codes.invalidTarget, "invalid assignment target: assign to a name, a member (a.b) or an index (a[i])", left.span);
          return left;
        }
        return { kind: "Assign", target: left, value: right, span };
      case T.AndAnd:
      case T.OrOr:
        return { kind: "Logical", op: op.image as "&&" | "||", left, right, span };
      case T.Range:
        return { kind: "Range", start: left, end: right, span };
      default:
        return { kind: "Binary", op: op.image as BinaryOp, left, right, span };
    }
  }

  private unaryAlts = [
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.Bang);
        return this.prefix(t, this.SUBRULE2(this.unary));
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.Minus);
        return this.prefix(t, this.SUBRULE3(this.unary));
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.Await);
        const operand = this.SUBRULE(this.unary);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Await", operand, postfix: false, span: this.spanFrom(t, operand) };
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.Throw);
        const value = this.SUBRULE(this.expression);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Throw", value, span: this.spanFrom(t, value) };
      },
    },
    { ALT: (): Expr => this.SUBRULE(this.postfix) },
  ];

  private prefix(t: IToken, operand: Expr): Expr {
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "Unary", op: t.image as "!" | "-", operand, span: this.spanFrom(t, operand) };
  }

  protected unary = this.RULE("unary", (): Expr => this.OR(this.unaryAlts));

  private postfixAlts = [
    {
      ALT: () => {
        const object = this.cur;
        this.CONSUME(T.Dot);
        const name = this.CONSUME(T.AnyName);
        if (this.RECORDING_PHASE) return;
        const span = this.span(object.span.start.offset, this.tokEnd(name));
        this.cur = name.tokenType === T.Await
          ? { kind: "Await", operand: object, postfix: true, span }
          : { kind: "Member", object, property: name.image, span };
      },
    },
    {
      ALT: () => {
        const object = this.cur;
        this.CONSUME(T.LBracket);
        const index = this.SUBRULE(this.expression);
        const close = this.CONSUME(T.RBracket);
        if (this.RECORDING_PHASE) return;
        this.cur = { kind: "Index", object, index, span: this.span(object.span.start.offset, this.tokEnd(close)) };
      },
    },
    {
      ALT: () => {
        const callee = this.cur;
        this.CONSUME(T.LParen);
        const args = this.SUBRULE(this.exprList);
        const close = this.CONSUME(T.RParen);
        if (this.RECORDING_PHASE) return;
        this.cur = { kind: "Call", callee, args, span: this.span(callee.span.start.offset, this.tokEnd(close)) };
      },
    },
    { ALT: () => this.update(this.CONSUME(T.PlusPlus)) },
    { ALT: () => this.update(this.CONSUME(T.MinusMinus)) },
  ];

  private update(t: IToken): void {
    if (this.RECORDING_PHASE) return;
    const target = this.cur;
    const span = this.span(target.span.start.offset, this.tokEnd(t));
    if (!isTarget(target)) {
      this.report(Codes.invalidTarget, `invalid target for '${t.image}': use a name, a member (a.b) or an index (a[i])`, target.span);
      return;
    }
    this.cur = { kind: "Update", op: t.image as "++" | "--", target, span };
  }

  protected postfix = this.RULE("postfix", (): Expr => {
    const primary = this.SUBRULE(this.primary);
    this.cur = primary;
    let links = 0;
    this.MANY(() => {
      this.chained(++links, this.LA(1));
      this.OR(this.postfixAlts);
    });
    return this.cur;
  });

  /** Comma-separated expressions with an optional trailing comma (arguments, arrays). */
  protected exprList = this.RULE("exprList", (): Expr[] => {
    const out: Expr[] = [];
    this.OPTION(() => {
      out.push(this.SUBRULE(this.expression));
      this.MANY(() => {
        this.CONSUME(T.Comma);
        out.push(this.SUBRULE2(this.expression));
      });
      this.OPTION2(() => this.CONSUME2(T.Comma));
    });
    return out;
  });

  private primaryAlts = [
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.NumberTok);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Number", value: Number(t.image), raw: t.image, span: this.tokSpan(t) };
      },
    },
    { ALT: (): Expr => this.SUBRULE(this.stringLit) },
    { ALT: (): Expr => this.SUBRULE(this.singleQuoted) },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.Ident);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Ident", name: t.image, span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.True);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Bool", value: true, span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.False);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Bool", value: false, span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.Null);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Null", span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.Self);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Self", span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): Expr => {
        const t = this.CONSUME(T.ShellStatus);
        return this.RECORDING_PHASE ? (null as never) : { kind: "ShellStatus", span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): Expr => {
        const open = this.CONSUME(T.LBracket);
        const elements = this.SUBRULE2(this.exprList);
        const close = this.CONSUME(T.RBracket);
        return this.RECORDING_PHASE ? (null as never) : { kind: "Array", elements, span: this.spanFrom(open, close) };
      },
    },
    { ALT: (): Expr => this.SUBRULE(this.objectLit) },
    {
      ALT: (): Expr => {
        this.CONSUME(T.LParen);
        const e = this.SUBRULE(this.expression);
        this.CONSUME(T.RParen);
        // Parentheses leave no node; a parenthesised assignment in a condition stays an
        // assignment (its expression is not the condition's top).
        return e;
      },
    },
    { ALT: (): Expr => this.SUBRULE(this.thinkExpr) },
    { ALT: (): Expr => this.SUBRULE(this.shellExpr) },
    { ALT: (): Expr => this.SUBRULE(this.shellLineExpr) },
    { ALT: (): Expr => this.bareThink(this.CONSUME(T.Think)) },
    { ALT: (): Expr => this.bareThink(this.CONSUME(T.Ask)) },
  ];

  /** `think` / `ask` not followed by `{` or `<` on the same line. */
  private bareThink(t: IToken): Expr {
    if (this.RECORDING_PHASE) return null as never;
    return this.fail(Codes.syntax, `expected '{' or '<' after '${t.image}' (on the same line) but found ${describeToken(this.LA(1))}`, t);
  }

  protected primary = this.RULE("primary", (): Expr => this.OR(this.primaryAlts));

  /** `'text'`: not Patchwork. Reported, then treated as the string it was meant to be. */
  protected singleQuoted = this.RULE("singleQuoted", (): Expr => {
    const t = this.CONSUME(T.SQString);
    if (this.RECORDING_PHASE) return null as never;
    this.report(Codes.singleQuoted, `single-quoted strings are not Patchwork; use "…" instead of ${t.image}`, this.tokSpan(t));
    const value = t.image.slice(1, t.image.endsWith("'") && t.image.length > 1 ? -1 : undefined);
    const span = this.tokSpan(t);
    return { kind: "String", parts: value === "" ? [] : [{ kind: "Text", value, span }], span };
  });

  protected objectLit = this.RULE("objectLit", (): Expr => {
    const open = this.CONSUME(T.LBrace);
    const properties: Property[] = [];
    this.OPTION(() => {
      properties.push(this.SUBRULE(this.property));
      this.MANY(() => {
        this.CONSUME(T.Comma);
        properties.push(this.SUBRULE2(this.property));
      });
      this.OPTION2(() => this.CONSUME2(T.Comma));
    });
    this.OPTION3(() => this.CONSUME(T.NL));
    const close = this.CONSUME(T.RBrace);
    return this.RECORDING_PHASE ? (null as never) : { kind: "Object", properties, span: this.spanFrom(open, close) };
  });

  protected property = this.RULE("property", (): Property => {
    const key = this.SUBRULE(this.propertyKey);
    let value: Expr | null = null;
    this.OPTION(() => {
      this.CONSUME(T.Colon);
      value = this.SUBRULE(this.expression);
    });
    if (this.RECORDING_PHASE) return null as never;
    if (value === null) {
      const span = this.span(key.start, key.end);
      if (key.token === null || key.token.tokenType !== T.Ident) {
        this.report(Codes.syntax, `expected ':' and a value after the key ${JSON.stringify(key.value)}`, span);
      }
      return { kind: "Property", key: key.value, value: { kind: "Ident", name: key.value, span }, shorthand: true, span };
    }
    const v = value as Expr;
    return { kind: "Property", key: key.value, value: v, shorthand: false, span: this.span(key.start, v.span.end.offset) };
  });

  /**
   * `$cmd …` or `$ cmd …` in an expression: the command runs to the end of the line (the
   * line's end is left for the statement, so nothing on the next line can extend the value).
   */
  protected shellLineExpr = this.RULE("shellLineExpr", (): ShellExpr => {
    const start = this.CONSUME(T.ShellLineStart);
    const command = this.SUBRULE(this.shellList);
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "Shell", form: "line", command, span: this.spanFrom(start, command) };
  });

  /** `$(cmd …)` or `($ cmd …)`. */
  protected shellExpr = this.RULE("shellExpr", (): ShellExpr => {
    const open = this.OR([
      { ALT: () => this.CONSUME(T.ShellCapOpen) },
      { ALT: () => this.CONSUME(T.ShellParenOpen) },
    ]);
    const command = this.SUBRULE(this.shellList);
    const close = this.OPTION(() => this.CONSUME(T.RParen));
    if (this.RECORDING_PHASE) return null as never;
    if (close === undefined) {
      const next = this.LA(1);
      if (next.tokenType === EOF) {
        this.fail(Codes.unterminatedShell, `unterminated shell command: '${open.image.trim()}' has no closing ')'`, open);
      }
      const at = this.src.positionAt(open.startOffset);
      this.fail(Codes.unterminatedShell, `expected ')' to close the shell command started at ${at.line}:${at.column} but found ${describeToken(next)}`, next);
    }
    const form = open.tokenType === T.ShellCapOpen ? "capture" : "paren";
    return { kind: "Shell", form, command, span: this.spanFrom(open, close as IToken) };
  });
}

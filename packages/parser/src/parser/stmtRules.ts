/** Grammar rules for statements and blocks. */
import { EOF, type IToken } from "../chevrotain.js";
import type { Block, Expr, IfStmt, Pattern, Stmt, TypeDecl, TypeExpr } from "../ast.js";
import * as T from "../lexer/tokens.js";
import { Codes, describeToken } from "./errors.js";
import { ExprRules } from "./exprRules.js";

export abstract class StmtRules extends ExprRules {
  private statementOrSeparator = [
    { ALT: (): Stmt | undefined => (this.CONSUME(T.NL), undefined) },
    { ALT: (): Stmt | undefined => (this.CONSUME(T.Semi), undefined) },
    // The end of a `$cmd` line that ended an expression (`var x = $ls`).
    { ALT: (): Stmt | undefined => (this.CONSUME(T.ShellLineEnd), undefined) },
    { ALT: (): Stmt | undefined => this.guarded(this.statement) },
  ];

  /** Statements up to (not including) the closing `}` / `>` or the end of input. */
  protected statements = this.RULE("statements", (): Stmt[] => {
    const out: Stmt[] = [];
    for (;;) {
      this.MANY(() => {
        const s = this.OR(this.statementOrSeparator);
        if (s !== undefined) out.push(s);
      });
      if (this.RECORDING_PHASE) break;
      const next = this.LA(1).tokenType;
      if (next === EOF || next === T.RBrace || next === T.ShellRBrace || next === T.AngleClose) break;
      this.skipUnexpected();
    }
    return out;
  });

  protected block = this.RULE("block", (): Block => {
    const open = this.CONSUME(T.LBrace);
    const statements = this.SUBRULE(this.statements);
    const close = this.CONSUME(T.RBrace);
    return this.RECORDING_PHASE ? (null as never) : { kind: "Block", statements, span: this.spanFrom(open, close) };
  });

  private statementAlts = [
    { ALT: (): Stmt => this.SUBRULE(this.block) },
    { ALT: (): Stmt => this.SUBRULE(this.varDecl) },
    { ALT: (): Stmt => this.SUBRULE(this.ifStmt) },
    { ALT: (): Stmt => this.SUBRULE(this.forStmt) },
    { ALT: (): Stmt => this.SUBRULE(this.whileStmt) },
    { ALT: (): Stmt => this.SUBRULE(this.returnStmt) },
    { ALT: (): Stmt => this.keywordStmt(this.CONSUME(T.Break), "Break") },
    { ALT: (): Stmt => this.keywordStmt(this.CONSUME(T.Continue), "Continue") },
    { ALT: (): Stmt => this.keywordStmt(this.CONSUME(T.Succeed), "Succeed") },
    { ALT: (): Stmt => this.SUBRULE(this.tryStmt) },
    { ALT: (): Stmt => this.SUBRULE(this.typeDecl) },
    { ALT: (): Stmt => this.SUBRULE(this.shellStmt) },
    {
      ALT: (): Stmt => {
        const expr = this.SUBRULE(this.expression);
        return this.RECORDING_PHASE ? (null as never) : { kind: "ExprStmt", expr, span: expr.span };
      },
    },
  ];

  /** A `{` at the start of a statement is a block (listed first), never an object. */
  protected statement = this.RULE("statement", (): Stmt => this.OR({ DEF: this.statementAlts, IGNORE_AMBIGUITIES: true, MAX_LOOKAHEAD: 1 }));

  private keywordStmt(t: IToken, kind: "Break" | "Continue" | "Succeed"): Stmt {
    return this.RECORDING_PHASE ? (null as never) : { kind, span: this.tokSpan(t) };
  }

  protected varDecl = this.RULE("varDecl", (): Stmt => {
    const kw = this.CONSUME(T.Var);
    const pattern: Pattern = this.SUBRULE(this.pattern);
    let type: TypeExpr | null = null;
    let init: Expr | null = null;
    this.OPTION(() => {
      this.CONSUME(T.Colon);
      type = this.SUBRULE(this.typeExpr);
    });
    this.OPTION2(() => {
      this.CONSUME(T.Assign);
      init = this.SUBRULE(this.expression);
    });
    if (this.RECORDING_PHASE) return null as never;
    const last: { span: { end: { offset: number } } } = init ?? type ?? pattern;
    return { kind: "VarDecl", pattern, type, init, span: this.span(kw.startOffset, last.span.end.offset) };
  });

  /**
   * An `if` / `while` condition: a top-level `a = b` means `a == b` whatever `a` is (a name, a
   * member, a call, `$?`), with a warning; see `expression`. `(a = b)` stays an assignment.
   */
  protected condition = this.RULE("condition", (): Expr => {
    this.conditionNext = true;
    return this.SUBRULE(this.expression);
  });

  /**
   * The block of an `if` / `while`. After `if $test -f x {` the shell line took the block's
   * `{` as its last word: that is reported, and the lines up to the matching `}` are still
   * read as the block, so nothing else is reported about them.
   */
  protected conditionBlock = this.RULE("conditionBlock", (): Block =>
    this.OR([
      { ALT: () => this.SUBRULE(this.block) },
      {
        GATE: () => this.LA(0).image === "{",
        ALT: () => {
          const brace = this.LA(0);
          this.CONSUME(T.ShellLineEnd);
          const statements = this.SUBRULE(this.statements);
          const close = this.CONSUME(T.RBrace);
          if (this.RECORDING_PHASE) return null as never;
          this.report(Codes.syntax, "a '$cmd' condition runs to the end of the line and took the block's '{': write the command as $(cmd …)", this.tokSpan(brace));
          return { kind: "Block", statements, span: this.spanFrom(brace, close) };
        },
      },
    ]),
  );

  protected ifStmt = this.RULE("ifStmt", (): IfStmt => {
    const kw = this.CONSUME(T.If);
    const test = this.SUBRULE(this.condition);
    const then = this.SUBRULE(this.conditionBlock);
    let alt: Block | IfStmt | null = null;
    this.OPTION(() => {
      this.CONSUME(T.Else);
      alt = this.OR([{ ALT: () => this.SUBRULE2(this.block) }, { ALT: () => this.SUBRULE(this.ifStmt) }]);
    });
    if (this.RECORDING_PHASE) return null as never;
    const end: Block | IfStmt = alt ?? then;
    return { kind: "If", test, then, else: alt, span: this.spanFrom(kw, end) };
  });

  protected forStmt = this.RULE("forStmt", (): Stmt => {
    const kw = this.CONSUME(T.For);
    let declares = false;
    // `for (x in xs)` is accepted too.
    const paren = this.OPTION(() => this.CONSUME(T.LParen));
    this.OPTION2(() => {
      this.CONSUME(T.Var);
      declares = true;
    });
    const name = this.CONSUME(T.Ident);
    this.CONSUME(T.In);
    const iterable = this.SUBRULE(this.expression);
    const close = this.OPTION3(() => this.CONSUME(T.RParen));
    if (!this.RECORDING_PHASE && (paren === undefined) !== (close === undefined)) {
      this.fail(Codes.syntax, paren ? `expected ')' but found ${describeToken(this.LA(1))}` : "unexpected ')'", close ?? this.LA(1));
    }
    const body = this.SUBRULE(this.block);
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "For", declares, name: name.image, iterable, body, span: this.spanFrom(kw, body) };
  });

  protected whileStmt = this.RULE("whileStmt", (): Stmt => {
    const kw = this.CONSUME(T.While);
    const test = this.SUBRULE(this.condition);
    const body = this.SUBRULE(this.conditionBlock);
    return this.RECORDING_PHASE ? (null as never) : { kind: "While", test, body, span: this.spanFrom(kw, body) };
  });

  protected returnStmt = this.RULE("returnStmt", (): Stmt => {
    const kw = this.CONSUME(T.Return);
    const value = this.OPTION(() => this.SUBRULE(this.expression)) ?? null;
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "Return", value, span: value === null ? this.tokSpan(kw) : this.spanFrom(kw, value) };
  });

  protected tryStmt = this.RULE("tryStmt", (): Stmt => {
    const kw = this.CONSUME(T.Try);
    const body = this.SUBRULE(this.block);
    this.CONSUME(T.Catch);
    let param: string | null = null;
    this.OPTION(() => {
      this.OR([
        { ALT: () => (param = this.CONSUME(T.Ident).image) },
        {
          ALT: () => {
            this.CONSUME(T.LParen);
            param = this.CONSUME2(T.Ident).image;
            this.CONSUME(T.RParen);
          },
        },
      ]);
    });
    const handler = this.SUBRULE2(this.block);
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "Try", body, param, handler, span: this.spanFrom(kw, handler) };
  });

  protected typeDecl = this.RULE("typeDecl", (): TypeDecl => {
    const kw = this.CONSUME(T.Type);
    const name = this.CONSUME(T.Ident);
    this.CONSUME(T.Assign);
    const type = this.SUBRULE(this.typeExpr);
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "TypeDecl", name: name.image, type, annotations: [], exported: false, isDefault: false, span: this.spanFrom(kw, type) };
  });

  /** `$ cmd …` to the end of the line (or a standalone `}` closing the block). */
  protected shellStmt = this.RULE("shellStmt", (): Stmt => {
    const start = this.CONSUME(T.ShellLineStart);
    const command = this.SUBRULE(this.shellList);
    this.OPTION(() => this.CONSUME(T.ShellLineEnd));
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "ShellStmt", command, span: this.spanFrom(start, command) };
  });
}

/**
 * The formatter: AST → document IR (doc.ts) → text, one printer per node kind.
 *
 * Code gets one canonical layout (4-space indentation, one statement per line, spaces around
 * binary operators, `} else {`, at most one blank line kept between statements; a block of one
 * simple statement written on one line stays on one line when it fits). Text whose
 * exact characters are meaning is printed as written: prompts (`think`/`ask` with their `do`
 * blocks), strings, shell commands, types, patterns, imports, traits and annotations. So the
 * output renders every prompt to the identical text and parses to the same AST.
 *
 * Comments (`parse().comments`) are attached before printing: those between statements lead
 * the next statement (or close the block), one on a statement's last line trails it. A
 * statement holding a comment anywhere else (inside a multi-line call, say) is printed as
 * written, so no comment is ever lost.
 */
import type { Block, Expr, FunDecl, IfStmt, Node, Program, Property, Stmt, TopLevel } from "../ast.js";
import type { Comment } from "../parse.js";
import { concat, group, hardline, indent, join, line, softline, verbatim, type Doc } from "./doc.js";

type Spanned = { span: { start: { offset: number }; end: { offset: number } } };

const start = (n: Spanned): number => n.span.start.offset;
const end = (n: Spanned): number => n.span.end.offset;

/** Binding strength of an expression (higher binds tighter); see exprRules.ts. */
function prec(e: Expr): number {
  switch (e.kind) {
    case "Assign":
      return 1;
    case "Logical":
      return e.op === "||" ? 2 : 3;
    case "Binary":
      return e.op === "+" || e.op === "-" ? 6 : e.op === "*" || e.op === "/" || e.op === "%" ? 7 : 4;
    case "Range":
      return 5;
    case "Throw":
      return 0;
    case "Unary":
      return 8;
    case "Await":
      return e.postfix ? 9 : 8;
    default:
      return 9;
  }
}

/** The leftmost node of an expression as printed (an object literal there would open a block). */
function leftmost(e: Expr): Expr {
  switch (e.kind) {
    case "Binary":
    case "Logical":
      return prec(e.left) < prec(e) ? e : leftmost(e.left);
    case "Range":
      return prec(e.start) < 5 ? e : leftmost(e.start);
    case "Assign":
      return leftmost(e.target);
    case "Member":
    case "Index":
      return prec(e.object) < 9 ? e : leftmost(e.object);
    case "Call":
      return prec(e.callee) < 9 ? e : leftmost(e.callee);
    case "Update":
      return leftmost(e.target);
    case "Await":
      return e.postfix && prec(e.operand) >= 9 ? leftmost(e.operand) : e;
    default:
      return e;
  }
}

/** Statements that hold blocks of their own: never kept on one line inside another block. */
const BLOCK_KINDS: ReadonlySet<string> = new Set(["If", "For", "While", "Try", "Block", "FunDecl", "TraitDecl"]);

/** Kinds printed exactly as written; a comment inside one is part of its text. */
const VERBATIM: ReadonlySet<string> = new Set(["Think", "String", "Shell", "ShellStmt", "TypeDecl", "TraitDecl", "Import"]);

export class Printer {
  private readonly used: boolean[];

  constructor(
    private readonly text: string,
    private readonly comments: readonly Comment[],
  ) {
    this.used = comments.map(() => false);
  }

  /** Whether every comment was printed. */
  allCommentsPrinted(): boolean {
    return this.used.every(Boolean);
  }

  private src(n: Spanned): string {
    return this.text.slice(start(n), end(n));
  }

  private verb(n: Spanned): Doc {
    this.markUsed(start(n), end(n));
    return verbatim(this.src(n));
  }

  private markUsed(from: number, to: number): void {
    this.comments.forEach((c, i) => {
      if (start(c) >= from && end(c) <= to) this.used[i] = true;
    });
  }

  /** Whether the source between two offsets holds a blank line (only whitespace lies between items). */
  private blankBetween(from: number, to: number): boolean {
    let newlines = 0;
    for (let i = from; i < to; i++) if (this.text.charCodeAt(i) === 10 && ++newlines >= 2) return true;
    return false;
  }

  private sameLine(a: number, b: number): boolean {
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    return !this.text.slice(lo, hi).includes("\n");
  }

  // ── statement lists and comments ──

  program(p: Program): Doc {
    const body = this.list(p.body, 0, this.text.length);
    return body;
  }

  /** Statements of a block or the program, with the comments between them, one per line. */
  private list(items: readonly TopLevel[], from: number, to: number): Doc {
    const parts: Doc[] = [];
    let prevEnd = -1;
    const push = (d: Doc, at: number, endAt: number): void => {
      if (parts.length > 0) {
        parts.push(hardline);
        if (prevEnd >= 0 && this.blankBetween(prevEnd, at)) parts.push(hardline);
      }
      parts.push(d);
      prevEnd = endAt;
    };
    const leading = (before: number): void => {
      this.comments.forEach((c, i) => {
        if (this.used[i] || start(c) < from || start(c) >= before || end(c) > to) return;
        this.used[i] = true;
        push(c.text, start(c), end(c));
      });
    };
    for (const s of items) {
      leading(start(s));
      let d = this.stmt(s);
      // A comment after the statement on its last line trails it.
      this.comments.forEach((c, i) => {
        if (this.used[i] || start(c) < end(s) || end(c) > to || !this.sameLine(end(s), start(c))) return;
        this.used[i] = true;
        d = concat(d, " ", c.text);
      });
      push(d, start(s), end(s));
    }
    leading(to);
    return concat(...parts);
  }

  /** The blocks directly under a statement (their comments are theirs to place). */
  private childBlocks(s: TopLevel): Block[] {
    switch (s.kind) {
      case "If": {
        const out = [s.then];
        if (s.else) out.push(...(s.else.kind === "If" ? this.childBlocks(s.else) : [s.else]));
        return out;
      }
      case "For":
      case "While":
        return [s.body];
      case "Try":
        return [s.body, s.handler];
      case "FunDecl":
        return [s.body];
      case "Block":
        return [s];
      default:
        return [];
    }
  }

  /** Verbatim nodes (prompts, strings, shell) inside a node, outside its child blocks. */
  private verbatimRanges(root: Node, skip: ReadonlySet<Block>): [number, number][] {
    const out: [number, number][] = [];
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const v = stack.pop();
      if (Array.isArray(v)) for (const c of v) stack.push(c);
      else if (v !== null && typeof v === "object" && "kind" in v) {
        const n = v as Node;
        if (skip.has(n as Block)) continue;
        if (VERBATIM.has(n.kind)) {
          out.push([start(n), end(n)]);
          continue;
        }
        for (const [k, c] of Object.entries(n)) if (k !== "span" && c !== null && typeof c === "object") stack.push(c);
      }
    }
    return out;
  }

  /** Whether a comment inside the statement would have no place in the canonical layout. */
  private hasStrandedComment(s: TopLevel): boolean {
    const a = start(s);
    const b = end(s);
    const inner = this.comments.filter((c, i) => !this.used[i] && start(c) >= a && end(c) <= b);
    if (inner.length === 0) return false;
    const blocks = this.childBlocks(s);
    const verbatims = this.verbatimRanges(s, new Set(blocks));
    return inner.some(
      (c) =>
        !blocks.some((bl) => start(c) > start(bl) && end(c) < end(bl)) &&
        !verbatims.some(([x, y]) => start(c) >= x && end(c) <= y),
    );
  }

  private block(b: Block): Doc {
    const hasComment = this.comments.some((c, i) => !this.used[i] && start(c) > start(b) && end(c) < end(b));
    if (b.statements.length === 0 && !hasComment) return "{}";
    const only = b.statements[0];
    if (b.statements.length === 1 && !hasComment && this.sameLine(start(b), end(b)) && !BLOCK_KINDS.has(only!.kind)) {
      // A short body written on one line stays there when it fits (`if n < 2 { return n }`), as
      // gofmt keeps a one-line function and Prettier a short body: else the usual layout.
      return group(concat("{", indent(concat(line, this.stmt(only!))), line, "}"));
    }
    return concat("{", indent(concat(hardline, this.list(b.statements, start(b) + 1, end(b) - 1))), hardline, "}");
  }

  // ── statements and items ──

  /**
   * A statement as written. Parentheses leave no node, so a statement's span can stop short
   * of parentheses around its first or last operand: take those in too.
   */
  private verbStmt(s: TopLevel): Doc {
    const t = this.text;
    let a = start(s);
    let b = end(s);
    for (let i = a - 1; i >= 0 && (t[i] === " " || t[i] === "\t" || t[i] === "("); i--) if (t[i] === "(") a = i;
    let open = 0;
    for (let i = a; i < b; i++) open += t[i] === "(" ? 1 : t[i] === ")" ? -1 : 0;
    for (let j = b; open > 0 && j < t.length; j++) {
      if (t[j] === ")") {
        b = j + 1;
        open--;
      } else if (!/\s/.test(t[j]!)) break;
    }
    this.markUsed(a, b);
    return verbatim(t.slice(a, b));
  }

  private stmt(s: TopLevel): Doc {
    if (VERBATIM.has(s.kind) || this.hasStrandedComment(s)) return this.verbStmt(s);
    switch (s.kind) {
      case "FunDecl":
        return this.fun(s);
      case "VarDecl": {
        const parts: Doc[] = ["var ", s.pattern.kind === "IdentPattern" ? s.pattern.name : this.verb(s.pattern)];
        if (s.type) parts.push(": ", this.verb(s.type));
        if (s.init) parts.push(" = ", this.expr(s.init, 1));
        return concat(...parts);
      }
      case "If":
        return this.ifStmt(s);
      case "For":
        return concat("for ", s.declares ? "var " : "", s.name, " in ", this.expr(s.iterable, 1), " ", this.block(s.body));
      case "While":
        return concat("while ", this.cond(s.test), " ", this.block(s.body));
      case "Return":
        return s.value ? concat("return ", this.expr(s.value, 0)) : "return";
      case "Break":
        return "break";
      case "Continue":
        return "continue";
      case "Succeed":
        return "succeed";
      case "Try":
        return concat("try ", this.block(s.body), " catch", s.param ? ` ${s.param}` : "", " ", this.block(s.handler));
      case "Block":
        return this.block(s);
      case "ExprStmt": {
        const d = this.expr(s.expr, 0);
        // An object literal first would read as a block: keep it parenthesised.
        return leftmost(s.expr).kind === "Object" ? concat("(", d, ")") : d;
      }
      default:
        return this.verb(s);
    }
  }

  /** An `if`/`while` condition: an assignment there is only an assignment in parentheses. */
  private cond(e: Expr): Doc {
    return e.kind === "Assign" ? concat("(", this.expr(e, 0), ")") : this.expr(e, 0);
  }

  private ifStmt(s: IfStmt): Doc {
    const parts: Doc[] = ["if ", this.cond(s.test), " ", this.block(s.then)];
    if (s.else) parts.push(" else ", s.else.kind === "If" ? this.ifStmt(s.else) : this.block(s.else));
    return concat(...parts);
  }

  private fun(f: FunDecl): Doc {
    const parts: Doc[] = [];
    for (const a of f.annotations) parts.push(this.verb(a), hardline);
    if (f.exported) parts.push("export ");
    if (f.isDefault) parts.push("default ");
    const params = f.params.map((p) => (p.type ? concat(p.name, ": ", this.verb(p.type)) : p.name));
    parts.push(f.flavor, " ", f.name, this.args(params));
    if (f.returnType) parts.push(": ", this.verb(f.returnType));
    parts.push(" ", this.block(f.body));
    return concat(...parts);
  }

  private args(items: Doc[]): Doc {
    if (items.length === 0) return "()";
    return group(concat("(", indent(concat(softline, join(concat(",", line), items))), softline, ")"));
  }

  // ── expressions ──

  /** `e` where the context needs binding strength `min`: parenthesised if it binds looser. */
  private expr(e: Expr, min: number): Doc {
    const d = this.exprDoc(e);
    return prec(e) < min ? concat("(", d, ")") : d;
  }

  private exprDoc(e: Expr): Doc {
    switch (e.kind) {
      case "Number":
        return e.raw;
      case "Bool":
        return e.value ? "true" : "false";
      case "Null":
        return "null";
      case "Self":
        return "self";
      case "Ident":
        return e.name;
      case "String":
      case "Think":
      case "Shell":
        return this.verb(e);
      case "ShellStatus":
        return "$?";
      case "Array":
        if (e.elements.length === 0) return "[]";
        return group(concat("[", indent(concat(softline, join(concat(",", line), e.elements.map((x) => this.expr(x, 1))))), softline, "]"));
      case "Object":
        if (e.properties.length === 0) return "{}";
        return group(concat("{", indent(concat(softline, join(concat(",", line), e.properties.map((p) => this.property(p))))), softline, "}"));
      case "Unary": {
        const operand = this.expr(e.operand, 8);
        // `- -x` must not become `--x`.
        const space = e.op === "-" && (e.operand.kind === "Unary" && e.operand.op === "-" ? true : e.operand.kind === "Number" && e.operand.raw.startsWith("-"));
        return concat(e.op, space ? " " : "", operand);
      }
      case "Throw":
        return concat("throw ", this.expr(e.value, 0));
      case "Await":
        return e.postfix ? concat(this.expr(e.operand, 9), ".await") : concat("await ", this.expr(e.operand, 8));
      case "Binary":
      case "Logical": {
        const p = prec(e);
        return concat(this.expr(e.left, p), ` ${e.op} `, this.expr(e.right, p + 1));
      }
      case "Range":
        return concat(this.expr(e.start, 5), "...", this.expr(e.end, 6));
      case "Assign":
        return concat(this.expr(e.target, 9), " = ", this.expr(e.value, 1));
      case "Update":
        return concat(this.expr(e.target, 9), e.op);
      case "Member":
        return concat(this.expr(e.object, 9), ".", e.property);
      case "Index":
        return concat(this.expr(e.object, 9), "[", this.expr(e.index, 0), "]");
      case "Call":
        return concat(this.expr(e.callee, 9), this.args(e.args.map((a) => this.expr(a, 1))));
      default:
        // A kind this printer does not know yet: as written.
        return this.verb(e as Expr);
    }
  }

  private property(p: Property): Doc {
    if (p.shorthand) return p.key;
    // The key as written (a name, a keyword or a string literal).
    const at = start(p);
    let keyText: string;
    if (this.text[at] === '"') {
      let i = at + 1;
      while (i < this.text.length && this.text[i] !== '"') i += this.text[i] === "\\" ? 2 : 1;
      keyText = this.text.slice(at, i + 1);
    } else keyText = p.key;
    return concat(keyText, ": ", this.expr(p.value, 1));
  }
}


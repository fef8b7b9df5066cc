/**
 * The Patchwork AST.
 *
 * Contract between the parser (and the Threadbare loader) and every later stage.
 * Every node is a plain JSON-serialisable object with a `kind` discriminant and a `span`.
 * Both spellings of the language (braces and the angle spelling `think < … >`) produce
 * identical trees, spans aside.
 */

import type { NodeBase, Span } from "./span.js";
import type { ObjectTypeField, PatField, Pattern, TypeExpr } from "./ast-patterns.js";

export type { Position, Span } from "./span.js";
export type * from "./ast-patterns.js";

// ───────────────────────────── Program and items ─────────────────────────────

export interface Program extends NodeBase {
  kind: "Program";
  /** Items and top-level statements in source order. */
  body: TopLevel[];
  /** True when the file is one block statement (it starts with `{`). */
  blockMode: boolean;
}

export type TopLevel = Item | Stmt;

export type Item = FunDecl | TraitDecl | TypeDecl | ImportDecl;

export interface Annotation extends NodeBase {
  kind: "Annotation";
  name: string;
  /** `@name arg` or `@name "arg"`: the argument's text (string literal unquoted). */
  arg: string | null;
}

export interface ItemModifiers {
  annotations: Annotation[];
  exported: boolean;
  isDefault: boolean;
}

export type FunFlavor = "fun" | "worker" | "skill" | "task";

export interface Param extends NodeBase {
  kind: "Param";
  name: string;
  type: TypeExpr | null;
}

export interface FunDecl extends NodeBase, ItemModifiers {
  kind: "FunDecl";
  flavor: FunFlavor;
  name: string;
  params: Param[];
  returnType: TypeExpr | null;
  body: Block;
}

export interface TraitDecl extends NodeBase, ItemModifiers {
  kind: "TraitDecl";
  name: string;
  superType: TypeExpr | null;
  methods: FunDecl[];
}

/** `type X = T`: an item at top level, also allowed as a statement. */
export interface TypeDecl extends NodeBase, ItemModifiers {
  kind: "TypeDecl";
  name: string;
  type: TypeExpr;
}

/**
 * The import forms:
 * - `import std.log`              → form "module",   path ["std", "log"]
 * - `import ./{a, b}`             → form "siblings", names ["a", "b"]
 * - `import {a, b} from "./x.pw"` → form "named",    names ["a", "b"], source "./x.pw"
 * - `import a from "./a.pw"`      → form "default",  names ["a"], source "./a.pw"
 */
export interface ImportDecl extends NodeBase {
  kind: "Import";
  form: "module" | "siblings" | "named" | "default";
  path: string[];
  names: string[];
  source: string | null;
}

// ───────────────────────────────── Statements ─────────────────────────────────

export type Stmt =
  | VarDecl
  | IfStmt
  | ForStmt
  | WhileStmt
  | ReturnStmt
  | BreakStmt
  | ContinueStmt
  | SucceedStmt
  | TryStmt
  | TypeDecl
  | Block
  | ShellStmt
  | ExprStmt;

export interface Block extends NodeBase {
  kind: "Block";
  statements: Stmt[];
}

export interface VarDecl extends NodeBase {
  kind: "VarDecl";
  pattern: Pattern;
  type: TypeExpr | null;
  init: Expr | null;
}

export interface IfStmt extends NodeBase {
  kind: "If";
  test: Expr;
  then: Block;
  /** `else { … }` or `else if …`. */
  else: Block | IfStmt | null;
}

export interface ForStmt extends NodeBase {
  kind: "For";
  /** `for var x in …` (true) or `for x in …` (false); both bind a fresh variable per iteration. */
  declares: boolean;
  name: string;
  iterable: Expr;
  body: Block;
}

export interface WhileStmt extends NodeBase {
  kind: "While";
  test: Expr;
  body: Block;
}

export interface ReturnStmt extends NodeBase {
  kind: "Return";
  value: Expr | null;
}

export interface BreakStmt extends NodeBase {
  kind: "Break";
}

export interface ContinueStmt extends NodeBase {
  kind: "Continue";
}

export interface SucceedStmt extends NodeBase {
  kind: "Succeed";
}

export interface TryStmt extends NodeBase {
  kind: "Try";
  body: Block;
  /** The name bound in `catch e { … }`, or null for `catch { … }`. */
  param: string | null;
  handler: Block;
}

/** `$ cmd args…` as a statement, to the end of the line. */
export interface ShellStmt extends NodeBase {
  kind: "ShellStmt";
  command: ShellList;
}

export interface ExprStmt extends NodeBase {
  kind: "ExprStmt";
  expr: Expr;
}

// ──────────────────────────────── Expressions ────────────────────────────────

export type Expr =
  | NumberLit
  | StringLit
  | BoolLit
  | NullLit
  | Ident
  | SelfExpr
  | ArrayLit
  | ObjectLit
  | UnaryExpr
  | ThrowExpr
  | AwaitExpr
  | BinaryExpr
  | LogicalExpr
  | RangeExpr
  | AssignExpr
  | MemberExpr
  | IndexExpr
  | CallExpr
  | UpdateExpr
  | ThinkExpr
  | ShellExpr
  | ShellStatusExpr;

export interface NumberLit extends NodeBase {
  kind: "Number";
  value: number;
  raw: string;
}

/** A `"…"` string. Escapes are already processed in text parts. */
export interface StringLit extends NodeBase {
  kind: "String";
  parts: TemplatePart[];
}

/** Literal text (escapes and `$'c'` already resolved). */
export interface TextPart extends NodeBase {
  kind: "Text";
  value: string;
}

/** `$name`, `${expr}` (spread false) or `$@{expr}` (spread true: array joined with ", "). */
export interface InterpPart extends NodeBase {
  kind: "Interp";
  expr: Expr;
  spread: boolean;
}

export type TemplatePart = TextPart | InterpPart;

export interface BoolLit extends NodeBase {
  kind: "Bool";
  value: boolean;
}

export interface NullLit extends NodeBase {
  kind: "Null";
}

export interface Ident extends NodeBase {
  kind: "Ident";
  name: string;
}

export interface SelfExpr extends NodeBase {
  kind: "Self";
}

export interface ArrayLit extends NodeBase {
  kind: "Array";
  elements: Expr[];
}

export interface Property extends NodeBase {
  kind: "Property";
  /** Identifier, keyword or plain string-literal key. */
  key: string;
  value: Expr;
  /** `{name}` shorthand for `{name: name}`. */
  shorthand: boolean;
}

export interface ObjectLit extends NodeBase {
  kind: "Object";
  properties: Property[];
}

export interface UnaryExpr extends NodeBase {
  kind: "Unary";
  op: "!" | "-";
  operand: Expr;
}

export interface ThrowExpr extends NodeBase {
  kind: "Throw";
  value: Expr;
}

/** `await e` (prefix) or `e.await` (postfix). */
export interface AwaitExpr extends NodeBase {
  kind: "Await";
  operand: Expr;
  postfix: boolean;
}

export type BinaryOp = "+" | "-" | "*" | "/" | "%" | "==" | "!=" | "<" | ">" | "<=" | ">=";

export interface BinaryExpr extends NodeBase {
  kind: "Binary";
  op: BinaryOp;
  left: Expr;
  right: Expr;
}

export interface LogicalExpr extends NodeBase {
  kind: "Logical";
  op: "&&" | "||";
  left: Expr;
  right: Expr;
}

/** `a...b`, inclusive. */
export interface RangeExpr extends NodeBase {
  kind: "Range";
  start: Expr;
  end: Expr;
}

export interface AssignExpr extends NodeBase {
  kind: "Assign";
  target: Ident | MemberExpr | IndexExpr;
  value: Expr;
}

export interface MemberExpr extends NodeBase {
  kind: "Member";
  object: Expr;
  property: string;
}

export interface IndexExpr extends NodeBase {
  kind: "Index";
  object: Expr;
  index: Expr;
}

export interface CallExpr extends NodeBase {
  kind: "Call";
  callee: Expr;
  args: Expr[];
}

/** Postfix `x++` / `x--`: updates the target and yields the old value. */
export interface UpdateExpr extends NodeBase {
  kind: "Update";
  op: "++" | "--";
  target: Ident | MemberExpr | IndexExpr;
}

// ─────────────────────────────── Think and ask ───────────────────────────────

/**
 * `think { … }` / `ask { … }`. The prompt keeps its exact text; a later stage dedents it.
 * The `do { … }` blocks of the prompt are its `children`, numbered in source order; each
 * appears in `prompt` as a `DoRef` at the place it was written.
 */
export interface ThinkExpr extends NodeBase {
  kind: "Think";
  mode: "think" | "ask";
  prompt: PromptPart[];
  children: Stmt[];
  /**
   * True for Threadbare programs: the prompt is used exactly as given (no dedent) and the
   * children are not written inside it.
   */
  verbatim: boolean;
}

/** Prompt text exactly as written, whitespace and newlines included. */
export interface PromptText extends NodeBase {
  kind: "PromptText";
  value: string;
}

/** `$name`, `${expr}`, `$@{expr}` (and the angle forms) inside prompt text. */
export interface PromptInterp extends NodeBase {
  kind: "PromptInterp";
  expr: Expr;
  spread: boolean;
}

/**
 * A line-leading `do { … }` block: child number `index`; `source` is its exact text (for the
 * angle spelling, with the angle delimiters of `do < … >`, `think < … >`, `$<…>` written as
 * braces, so both spellings give the same `source`).
 */
export interface DoRef extends NodeBase {
  kind: "DoRef";
  index: number;
  source: string;
}

export type PromptPart = PromptText | PromptInterp | DoRef;

// ─────────────────────────────────── Shell ───────────────────────────────────

/**
 * A shell command as an expression: `$(cmd …)` (form "capture"), `($ cmd …)` (form "paren"),
 * or `$cmd …` / `$ cmd …` to the end of the line (form "line", `var files = $ls -1 src/`).
 * All three have the same value and the same quoting of interpolated values.
 */
export interface ShellExpr extends NodeBase {
  kind: "Shell";
  form: "capture" | "paren" | "line";
  command: ShellList;
}

/** `$?`: the exit status of the last command. */
export interface ShellStatusExpr extends NodeBase {
  kind: "ShellStatus";
}

/** Pipelines joined by `&&`, `||` or `;`. */
export interface ShellList extends NodeBase {
  kind: "ShellList";
  first: ShellPipeline;
  rest: { op: "&&" | "||" | ";"; pipeline: ShellPipeline }[];
}

export interface ShellPipeline extends NodeBase {
  kind: "ShellPipeline";
  commands: ShellCommand[];
}

export interface ShellCommand extends NodeBase {
  kind: "ShellCommand";
  words: ShellWord[];
  redirects: ShellRedirect[];
}

/**
 * A redirect. `op` is the operator as written without its file descriptor, `fd` the explicit
 * descriptor (`2>` → fd 2, op ">"); `target` is a word, or null for `2>&1`-style duplications
 * where `dupFd` says which descriptor is copied.
 */
export interface ShellRedirect extends NodeBase {
  kind: "ShellRedirect";
  op: ">" | ">>" | "<" | ">&" | "&>";
  fd: number | null;
  target: ShellWord | null;
  dupFd: number | null;
}

/** One shell word: literal pieces (passed to sh as written) and interpolations. */
export interface ShellWord extends NodeBase {
  kind: "ShellWord";
  parts: ShellWordPart[];
}

/** Literal text exactly as written, quotes and backslashes included. */
export interface ShellText extends NodeBase {
  kind: "ShellText";
  raw: string;
}

/**
 * `$name`, `${expr}` or `$@{expr}` in a shell word, also inside `$(…)`, `$((…))` and
 * backquotes at any depth. `context` is the sh quoting context the value lands in: bare,
 * inside double quotes (at the innermost level), or arithmetic. `alone`: the interpolation is
 * a whole bare word by itself (in its own command, however deeply nested). `raw` is the source
 * text, e.g. for `$HOME` when no Patchwork variable `HOME` exists.
 */
export interface ShellInterp extends NodeBase {
  kind: "ShellInterp";
  expr: Expr;
  spread: boolean;
  context: "bare" | "double" | "arith";
  alone: boolean;
  raw: string;
}

export type ShellWordPart = ShellText | ShellInterp;

export type Node =
  | Program
  | Item
  | Stmt
  | Expr
  | Annotation
  | Param
  | Property
  | TemplatePart
  | PromptPart
  | ShellList
  | ShellPipeline
  | ShellCommand
  | ShellRedirect
  | ShellWord
  | ShellWordPart
  | Pattern
  | PatField
  | TypeExpr
  | ObjectTypeField;

/**
 * The Threadbare loader (`@patchwork/parser/threadbare`, which loads no parser): JSON programs (`Print`, `Block`, `Think`) into the Patchwork AST.
 * Shapes are checked strictly (no unknown keys); a bad node is reported with its JSON path, invalid JSON
 * with its line and column. Nodes and diagnostics point at their JSON text.
 */
import type { Block, Expr, Program, Span, Stmt, ThinkExpr } from "./ast.js";
import type { Diagnostic } from "./diagnostics.js";
import { jsonSpans } from "./jsonSpans.js";
import { Codes } from "./codes.js";
import { SourceFile } from "./source.js";

export interface LoadOptions {
  fileName?: string;
}

/**
 * The node shapes: strict objects (no other keys) of strings, arrays and nested shapes. Checked
 * by hand (`shapeIssue`): a Threadbare file then loads no validation library (start-up).
 */
type Field = "string" | "array" | Shape;
interface Shape {
  readonly [key: string]: Field;
}
const shapes = {
  print: { message: "string" },
  block: { children: "array" },
  think: { think: { prompt: "string", children: "array" } },
} as const satisfies Record<string, Shape>;

/** What a JSON value is, as a shape's messages say it. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The first way `value` fails `shape`: the path below it and a message; undefined when it fits. */
function shapeIssue(shape: Shape, value: unknown): { path: string[]; message: string } | undefined {
  if (kindOf(value) !== "object") return { path: [], message: `Invalid input: expected object, received ${kindOf(value)}` };
  const object = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(shape)) {
    const v = object[key];
    if (typeof field === "object") {
      const inner = shapeIssue(field, v);
      if (inner) return { path: [key, ...inner.path], message: inner.message };
    } else if (kindOf(v) !== field) {
      return { path: [key], message: `Invalid input: expected ${field}, received ${v === undefined ? "undefined" : kindOf(v)}` };
    }
  }
  const extra = Object.keys(object).filter((k) => !Object.hasOwn(shape, k));
  if (extra.length > 0) return { path: [], message: `Unrecognized key${extra.length > 1 ? "s" : ""}: ${extra.map((k) => JSON.stringify(k)).join(", ")}` };
  return undefined;
}

const nodeKinds = ["Print", "Block", "Think"] as const;

class Loader {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly src: SourceFile,
    private readonly fileName: string | undefined,
    private readonly whole: Span,
    private readonly offsets: Map<string, [number, number]>,
  ) {}

  /** The span of the JSON value at `path` (the whole document when unknown). */
  private at(path: string): Span {
    const o = this.offsets.get(path);
    return o === undefined ? this.whole : this.src.span(o[0], o[1]);
  }

  error(message: string, path: string): void {
    const d: Diagnostic = { code: Codes.threadbareShape, severity: "error", message, span: this.at(path) };
    if (this.fileName !== undefined) d.fileName = this.fileName;
    this.diagnostics.push(d);
  }

  node(value: unknown, path: string): Stmt | null {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.error(`${path}: expected a node object ({"Print": …}, {"Block": …} or {"Think": …}) but found ${describe(value)}`, path);
      return null;
    }
    const keys = Object.keys(value);
    if (keys.length !== 1 || !nodeKinds.includes(keys[0] as (typeof nodeKinds)[number])) {
      const found = keys.length === 0 ? "an empty object" : `key${keys.length > 1 ? "s" : ""} ${keys.map((k) => JSON.stringify(k)).join(", ")}`;
      this.error(`${path}: expected exactly one of "Print", "Block", "Think" but found ${found}`, path);
      return null;
    }
    const kind = keys[0] as (typeof nodeKinds)[number];
    const body = (value as Record<string, unknown>)[kind];
    const at = `${path}.${kind}`;
    if (kind === "Print") return this.print(body, at);
    if (kind === "Block") return this.block(body, at);
    return this.think(body, at);
  }

  /** `value` when it fits `shape`, else null with the first problem reported at its JSON path. */
  private check<T>(shape: Shape, value: unknown, path: string): T | null {
    const issue = shapeIssue(shape, value);
    if (issue === undefined) return value as T;
    const where = path + issue.path.map((p) => `.${p}`).join("");
    this.error(`${where}: ${issue.message}`, this.offsets.has(where) ? where : path);
    return null;
  }

  private print(body: unknown, path: string): Stmt | null {
    const p = this.check<{ message: string }>(shapes.print, body, path);
    if (p === null) return null;
    const span = this.at(parentPath(path));
    const textSpan = this.at(`${path}.message`);
    const message: Expr = { kind: "String", parts: p.message === "" ? [] : [{ kind: "Text", value: p.message, span: textSpan }], span: textSpan };
    const callee: Expr = { kind: "Ident", name: "print", span };
    return { kind: "ExprStmt", expr: { kind: "Call", callee, args: [message], span }, span };
  }

  private children(list: unknown[], path: string): Stmt[] {
    const out: Stmt[] = [];
    list.forEach((child, i) => {
      const s = this.node(child, `${path}[${i}]`);
      if (s !== null) out.push(s);
    });
    return out;
  }

  private block(body: unknown, path: string): Block | null {
    const b = this.check<{ children: unknown[] }>(shapes.block, body, path);
    if (b === null) return null;
    return { kind: "Block", statements: this.children(b.children, `${path}.children`), span: this.at(parentPath(path)) };
  }

  private think(body: unknown, path: string): Stmt | null {
    const t = this.check<{ think: { prompt: string; children: unknown[] } }>(shapes.think, body, path);
    if (t === null) return null;
    const span = this.at(parentPath(path));
    const children = this.children(t.think.children, `${path}.think.children`);
    const expr: ThinkExpr = {
      kind: "Think",
      mode: "think",
      prompt: [{ kind: "PromptText", value: t.think.prompt, span: this.at(`${path}.think.prompt`) }],
      children,
      verbatim: true,
      span,
    };
    return { kind: "ExprStmt", expr, span };
  }
}

/** `$.a.Print` → `$.a` (the node object around a kind key). */
function parentPath(path: string): string {
  return path.slice(0, path.lastIndexOf("."));
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

/** Line and column of a JSON.parse error, from its message ("position N" or "line L column C"). */
function jsonErrorOffset(message: string, src: SourceFile): number {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) {
    const line = Number(lc[1]);
    let offset = 0;
    for (let l = 1; l < line; l++) offset = src.text.indexOf("\n", offset) + 1;
    return offset + Number(lc[2]) - 1;
  }
  const pos = /position (\d+)/.exec(message);
  return pos ? Number(pos[1]) : src.text.length;
}

/**
 * Load a Threadbare program (JSON text, or an already parsed value) into a Program.
 * Never throws; problems are diagnostics (PW2101 invalid JSON, PW2102 invalid shape).
 */
export function loadThreadbare(json: string | unknown, options: LoadOptions = {}): { program: Program; diagnostics: Diagnostic[] } {
  const text = typeof json === "string" ? json : "";
  const src = new SourceFile(text, options.fileName);
  const whole = src.span(0, text.length);
  const program: Program = { kind: "Program", body: [], blockMode: false, span: whole };
  let value: unknown = json;
  if (typeof json === "string") {
    try {
      value = JSON.parse(json);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const offset = jsonErrorOffset(message, src);
      const span = src.span(offset, Math.min(offset + 1, text.length));
      const what = message.replace(/^JSON\.parse: /, "").replace(/ in JSON at position \d+.*$/, "").replace(/ \(line \d+ column \d+\)$/, "");
      const d: Diagnostic = {
        code: Codes.jsonSyntax,
        severity: "error",
        message: `invalid JSON: ${what} at line ${span.start.line}, column ${span.start.column}`,
        span,
      };
      if (options.fileName !== undefined) d.fileName = options.fileName;
      return { program, diagnostics: [d] };
    }
  }
  const loader = new Loader(src, options.fileName, whole, typeof json === "string" ? jsonSpans(json) : new Map());
  const root = loader.node(value, "$");
  if (root !== null) program.body.push(root);
  return { program, diagnostics: loader.diagnostics };
}

// Every node's span covers exactly its own source text: checked per node kind over the
// golden and seed programs.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const sources: [string, string][] = [];
for (const sub of ["golden", "seeds"]) {
  const dir = join(here, "fixtures", sub);
  for (const f of readdirSync(dir)) if (f.endsWith(".pw")) sources.push([`${sub}/${f}`, readFileSync(join(dir, f), "utf8")]);
}

type AnyNode = { kind: string; span: { start: { offset: number; line: number; column: number }; end: { offset: number } } } & Record<string, unknown>;

function* nodes(value: unknown): Generator<AnyNode> {
  if (Array.isArray(value)) for (const v of value) yield* nodes(v);
  else if (value && typeof value === "object") {
    if ("kind" in value && "span" in value) yield value as AnyNode;
    for (const [k, v] of Object.entries(value)) if (k !== "span") yield* nodes(v);
  }
}

/** What the text of a node of each kind must look like. */
const shapes: Record<string, (text: string, node: AnyNode) => boolean> = {
  Ident: (t, n) => t === n["name"],
  Number: (t, n) => t === n["raw"],
  String: (t) => /^"[\s\S]*"$/.test(t) || /^'.*'$/.test(t),
  Bool: (t) => t === "true" || t === "false",
  Null: (t) => t === "null",
  Self: (t) => t === "self",
  Call: (t) => t.endsWith(")"),
  Index: (t) => t.endsWith("]"),
  Member: (t, n) => t.endsWith(n["property"] as string),
  Array: (t) => t.startsWith("[") && t.endsWith("]"),
  Object: (t) => t.startsWith("{") && t.endsWith("}"),
  Think: (t) => /^(think|ask)\s*[{<][\s\S]*[}>]$/.test(t),
  Block: (t) => /^[{<][\s\S]*[}>]$/.test(t),
  DoRef: (t) => /^do\s*[{<][\s\S]*[}>]$/.test(t),
  PromptInterp: (t) => t.startsWith("$"),
  Interp: (t) => t.startsWith("$"),
  ShellInterp: (t, n) => t === n["raw"],
  ShellText: (t, n) => t === n["raw"],
  Shell: (t) => /^(\$\(|\(\$)[\s\S]*\)$/.test(t),
  ShellStmt: (t) => t.startsWith("$"),
  FunDecl: (t) => /^(@|export|default|fun|worker|skill|task)/.test(t) && t.endsWith("}"),
  TraitDecl: (t) => t.endsWith("}"),
  If: (t) => t.startsWith("if") && t.endsWith("}"),
  While: (t) => t.startsWith("while") && t.endsWith("}"),
  For: (t) => t.startsWith("for") && t.endsWith("}"),
  Try: (t) => t.startsWith("try") && t.endsWith("}"),
  VarDecl: (t) => t.startsWith("var"),
  Return: (t) => t.startsWith("return"),
  Import: (t) => t.startsWith("import"),
  Annotation: (t) => t.startsWith("@"),
  Param: (t, n) => t.startsWith(n["name"] as string),
  IdentPattern: (t, n) => t === n["name"],
  NamedType: (t, n) => t === n["name"],
  ExprStmt: (t, n) => t === sliceOf(n["expr"] as AnyNode),
};

let current = "";
function sliceOf(n: AnyNode): string {
  return current.slice(n.span.start.offset, n.span.end.offset);
}

describe("node spans", () => {
  it.each(sources)("%s", (_name, source) => {
    current = source;
    const { program } = parse(source);
    let checked = 0;
    for (const n of nodes(program.body)) {
      const shape = shapes[n.kind];
      if (!shape) continue;
      const text = sliceOf(n);
      if (!shape(text, n)) throw new Error(`${n.kind} at ${n.span.start.line}:${n.span.start.column} spans ${JSON.stringify(text)}`);
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });
});

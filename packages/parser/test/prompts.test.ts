// Think / ask prompts: exact text, interpolation, line-leading `do` blocks, angle spelling.
import { describe, expect, it } from "vitest";
import type { ThinkExpr } from "../src/index.js";
import { expr, parseOk, strip } from "./helpers.js";

function think(source: string): ThinkExpr {
  const s = parseOk(source).body[0]!;
  if (s.kind !== "ExprStmt" || s.expr.kind !== "Think") throw new Error("not a think");
  return s.expr;
}

describe("prompt text", () => {
  it("keeps text exactly, whitespace and newlines included", () => {
    const t = think("think {\n    Line one\n\n      indented  \n}");
    expect(strip(t.prompt)).toEqual([{ kind: "PromptText", value: "\n    Line one\n\n      indented  \n" }]);
    expect(t.mode).toBe("think");
    expect(t.verbatim).toBe(false);
  });
  it("ask", () => {
    expect(think("ask { Which one? }").mode).toBe("ask");
  });
  it("interpolations", () => {
    const t = think("think { a $x.y ${f(1)} $@{xs} $<z> $@<zs> $'{' $'}' $ $( # }");
    expect(strip(t.prompt)).toEqual([
      { kind: "PromptText", value: " a " },
      { kind: "PromptInterp", expr: { kind: "Ident", name: "x" }, spread: false },
      { kind: "PromptText", value: ".y " },
      { kind: "PromptInterp", expr: { kind: "Call", callee: { kind: "Ident", name: "f" }, args: [{ kind: "Number", value: 1, raw: "1" }] }, spread: false },
      { kind: "PromptText", value: " " },
      { kind: "PromptInterp", expr: { kind: "Ident", name: "xs" }, spread: true },
      { kind: "PromptText", value: " " },
      { kind: "PromptInterp", expr: { kind: "Ident", name: "z" }, spread: false },
      { kind: "PromptText", value: " " },
      { kind: "PromptInterp", expr: { kind: "Ident", name: "zs" }, spread: true },
      { kind: "PromptText", value: " { } $ $( # " },
    ]);
  });
  it("balanced braces are plain text", () => {
    expect(strip(think('think { return {"a": [1, {b}]} }').prompt)).toEqual([
      { kind: "PromptText", value: ' return {"a": [1, {b}]} ' },
    ]);
  });
  it("escapes \\$ \\{ \\} give the character; other backslashes stay", () => {
    expect(strip(think("think { a \\{ b \\$x \\} c\\n \\\\ d }").prompt)).toEqual([
      { kind: "PromptText", value: " a { b $x } c\\n \\\\ d " },
    ]);
  });
  it("any Unicode text, in every text mode", () => {
    const chars = ["é", "\u0100", "\u01ff", "\u4e2d", "\ud83d\ude00", "\ufffd", "\uffff", "\u00a0"];
    for (const c of chars) {
      expect(strip(think(`think { a${c}b }`).prompt)).toEqual([{ kind: "PromptText", value: ` a${c}b ` }]);
      expect(strip(think(`think < a${c}b >`).prompt)).toEqual([{ kind: "PromptText", value: ` a${c}b ` }]);
      expect(expr(`"x${c}"`)).toEqual({ kind: "String", parts: [{ kind: "Text", value: `x${c}` }] });
      const shell = parseOk(`$ echo a${c}b "q${c}"`).body[0]!;
      expect(shell).toMatchObject({ command: { first: { commands: [{ words: [{}, { parts: [{ raw: `a${c}b` }] }, { parts: [{ raw: `"q${c}"` }] }] }] } } });
    }
  });
  it("quotes and code-like text are plain text", () => {
    expect(strip(think("think { it's \"quoted\" x = 1; if (a) # not a comment }").prompt)).toEqual([
      { kind: "PromptText", value: " it's \"quoted\" x = 1; if (a) # not a comment " },
    ]);
  });
});

describe("do blocks", () => {
  const source = [
    "var r = think {",
    "  First do(0):",
    "  do {",
    "    print(\"zero\")",
    "  }",
    "  please do { not a child }",
    "  do",
    "  { not a child either }",
    "\tdo{ var n = think { inner $x\n    do { print(1) }\n  } }",
    "}",
  ].join("\n");

  it("only line-leading do with { on the same line is a child", () => {
    const s = parseOk(source).body[0]!;
    if (s.kind !== "VarDecl" || s.init?.kind !== "Think") throw new Error("shape");
    const t = s.init;
    expect(t.children.length).toBe(2);
    const refs = t.prompt.filter((p) => p.kind === "DoRef");
    expect(refs.map((r) => (r.kind === "DoRef" ? [r.index, r.source] : null))).toEqual([
      [0, 'do {\n    print("zero")\n  }'],
      [1, "do{ var n = think { inner $x\n    do { print(1) }\n  } }"],
    ]);
    expect(strip(t.children[0])).toEqual({
      kind: "Block",
      statements: [{ kind: "ExprStmt", expr: { kind: "Call", callee: { kind: "Ident", name: "print" }, args: [{ kind: "String", parts: [{ kind: "Text", value: "zero" }] }] } }],
    });
    const texts = t.prompt.filter((p) => p.kind === "PromptText").map((p) => (p.kind === "PromptText" ? p.value : ""));
    expect(texts.join("|")).toContain("please do { not a child }\n  do\n  { not a child either }\n\t");
    // nested think in a child: its own children
    const inner = t.children[1]!;
    expect(inner).toMatchObject({ kind: "Block", statements: [{ kind: "VarDecl", init: { kind: "Think", children: [{ kind: "Block" }] } }] });
  });

  it("the do block's source and span are exact", () => {
    const text = "think {\n  do { x }\n}";
    const t = think(text);
    const ref = t.prompt[1]!;
    expect(ref.kind).toBe("DoRef");
    expect(text.slice(ref.span.start.offset, ref.span.end.offset)).toBe("do { x }");
    expect(text.slice(t.children[0]!.span.start.offset, t.children[0]!.span.end.offset)).toBe("{ x }");
    expect(ref.span.start).toEqual({ offset: 10, line: 2, column: 3 });
  });

  it("do as the first line of a prompt", () => {
    expect(think("think {\ndo { a }\n}").children.length).toBe(1);
    expect(think("think { do { a } }").children.length).toBe(0);
  });

  it("a shell line inside a do block ends at the newline", () => {
    const t = think("think {\n  do {\n    $ ls tests/ | wc -l\n  }\n}");
    expect(t.children[0]).toMatchObject({ statements: [{ kind: "ShellStmt" }] });
  });

  it("thinks as operands: fallback and arguments", () => {
    expect(expr("think { a } || ask { b }")).toMatchObject({ kind: "Logical", op: "||", left: { kind: "Think", mode: "think" }, right: { kind: "Think", mode: "ask" } });
    expect(expr("f(think { x }, 1)")).toMatchObject({ kind: "Call", args: [{ kind: "Think" }, { kind: "Number" }] });
  });
});

// Forms the reference's books and examples write (language.md §3): `=` comparing in any
// condition, and a shell command without `$` reported with the `$ ` form as the hint.
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";
import { codes, strip } from "./helpers.js";

describe("a single '=' in an if / while condition", () => {
  const table: [string, unknown][] = [
    ["if $? = 0 { }", { kind: "Binary", op: "==", left: { kind: "ShellStatus" }, right: { kind: "Number", value: 0 } }],
    ['if instruction.type = "done" { }', { kind: "Binary", op: "==", left: { kind: "Member", property: "type" } }],
    ["if f(x) = 1 { }", { kind: "Binary", op: "==", left: { kind: "Call" } }],
    ['if "a" + b = "ab" { }', { kind: "Binary", op: "==", left: { kind: "Binary", op: "+" } }],
    ["while i = 3 { }", { kind: "Binary", op: "==", left: { kind: "Ident", name: "i" } }],
    [
      "if a = 1 && b = 2 { }",
      { kind: "Logical", op: "&&", left: { kind: "Binary", op: "==" }, right: { kind: "Binary", op: "==" } },
    ],
  ];
  for (const [source, test] of table) {
    it(`${source} compares, with a warning suggesting '=='`, () => {
      const { program, diagnostics } = parse(source);
      expect(diagnostics.map((d) => [d.code, d.severity])).toEqual(
        Array.from({ length: (source.match(/ = /g) ?? []).length }, () => ["PW2002", "warning"]),
      );
      expect(diagnostics[0]!.message).toContain("'=='");
      const s = program.body[0] as { test: unknown };
      expect(s.test).toMatchObject(test as object);
    });
  }

  it("stays an assignment inside parentheses, and anywhere outside a condition", () => {
    const { program, diagnostics } = parse("if (a = 1) { }\nwhile (b = f()) { }\nx = 2");
    expect(diagnostics).toEqual([]);
    expect(strip(program.body.map((s) => (s as { test?: { kind: string } }).test?.kind ?? s.kind))).toEqual(["Assign", "Assign", "ExprStmt"]);
    expect(codes(parse("f() = 1").diagnostics)).toEqual(["PW2004@1:1"]);
  });

  it("in a condition nested inside a condition's think, each condition decides for itself", () => {
    const src = "if think {\n  do {\n    if a = 1 { }\n    x = 2\n  }\n} = \"y\" { }";
    const { program, diagnostics } = parse(src);
    expect(codes(diagnostics)).toEqual(["PW2002@1:4", "PW2002@3:8"]);
    const child = (program.body[0] as { test: { left: { children: { statements: { kind: string; expr?: { kind: string } }[] }[] } } }).test.left.children[0]!;
    expect(child.statements.map((s) => s.expr?.kind ?? s.kind)).toEqual(["If", "Assign"]);
  });
});

describe("a shell command without '$' as a statement", () => {
  const table: [string, string, string][] = [
    ['echo "Clean"', "1:1", '`$ echo "Clean"`'],
    ["ls -1 src/auth/", "1:1", "`$ ls -1 src/auth/`"],
    ["mkdir -p work_dir", "1:1", "`$ mkdir -p work_dir`"],
    ['git checkout "${branch}"', "1:1", '`$ git checkout "${branch}"`'],
    ['fun f() {\n    eval "${cmd}" 2>&1 | tee "out.log"\n}', "2:5", '`$ eval "${cmd}" 2>&1 | tee "out.log"`'],
    ["think {\n  do {\n    echo hi\n  }\n}", "3:5", "`$ echo hi`"],
  ];
  for (const [source, at, hint] of table) {
    it(`${JSON.stringify(source)} is PW2008 at ${at}, suggesting ${hint}`, () => {
      const { diagnostics } = parse(source);
      expect(codes(diagnostics)).toEqual([`PW2008@${at}`]);
      expect(diagnostics[0]!.severity).toBe("error");
      expect(diagnostics[0]!.message).toContain(hint);
    });
  }

  it("the rest of the file still parses, and ordinary mistakes keep their own message", () => {
    const { program, diagnostics } = parse('echo "a"\nprint(1)\nf(1) g(2)\n');
    expect(codes(diagnostics)).toEqual(["PW2008@1:1", "PW2005@3:6"]);
    expect(program.body[1]).toMatchObject({ kind: "ExprStmt", expr: { kind: "Call", callee: { name: "print" } } });
    expect(parse("x - y").diagnostics).toEqual([]);
  });
});

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

describe("'$cmd' to the end of the line in an expression", () => {
  const shell = (source: string) => {
    const { program, diagnostics } = parse(source);
    expect(diagnostics).toEqual([]);
    return program;
  };

  it("`var files = $ls -1 src/auth/` is a shell expression of form 'line', words as in `$(…)`", () => {
    const line = strip(shell("var files = $ls -1 src/auth/").body[0]) as { init: { kind: string; form: string; command: unknown } };
    const cap = strip(shell("var files = $(ls -1 src/auth/)").body[0]) as { init: { command: unknown } };
    expect(line.init).toMatchObject({ kind: "Shell", form: "line" });
    expect(line.init.command).toEqual(cap.init.command);
  });

  it("`$ cmd` with a space, redirects, pipes and interpolations give the same command as `$(…)`", () => {
    for (const cmd of ["wc -l < f", 'echo ${x} "a $y" | tr a b', "grep -c x f || true; echo $@{xs}"]) {
      const line = strip(shell(`var n = $ ${cmd}`).body[0]) as { init: { command: unknown } };
      const cap = strip(shell(`var n = $(${cmd})`).body[0]) as { init: { command: unknown } };
      expect(line.init.command, cmd).toEqual(cap.init.command);
    }
  });

  it("ends at the end of its line: the next line is a statement of its own", () => {
    const p = shell("var n = $ wc -l < f\n(n)\n-1\nprint(n)");
    expect(p.body.map((s) => s.kind)).toEqual(["VarDecl", "ExprStmt", "ExprStmt", "ExprStmt"]);
    const inBlock = shell("fun f() {\n  var x = $date +%s\n  return x\n}");
    expect((inBlock.body[0] as { body: { statements: { kind: string }[] } }).body.statements.map((s) => s.kind)).toEqual(["VarDecl", "Return"]);
  });

  it("works after `return`, as an argument-less statement and before a block's closing brace", () => {
    const p = shell("fun f() { return $date +%s }\nif x { var y = $ls }\n$ls -la");
    expect(JSON.stringify(strip(p))).toContain('"form":"line"');
    expect(p.body[2]!.kind).toBe("ShellStmt");
  });

  it("`$` keeps its meaning elsewhere: `$?`, `$(…)`, `$name` in strings, prompts and shell words", () => {
    const p = shell('if $? == 0 { }\nvar s = "$name"\nvar t = think {\n  $name\n}\n$ echo $HOME');
    expect(p.body.map((s) => s.kind)).toEqual(["If", "VarDecl", "VarDecl", "ShellStmt"]);
  });
});

describe("a '$cmd' condition", () => {
  it("takes the block's '{' into the command: reported at the '{', the block still read", () => {
    const { program, diagnostics } = parse('if $test -e f {\n  print("x")\n}\nwhile $true {\n}\nprint(2)');
    expect(codes(diagnostics)).toEqual(["PW2001@1:15", "PW2001@4:13"]);
    expect(diagnostics[0]!.message).toContain("write the command as $(cmd …)");
    expect(program.body.map((s) => s.kind)).toEqual(["If", "While", "ExprStmt"]);
  });
});

describe("'$cmd' inside brackets", () => {
  it("is PW1003 with a hint to write $(cmd …)", () => {
    const { diagnostics } = parse("print($ls)\nvar x = [$date]");
    expect(codes(diagnostics)).toEqual(["PW1003@1:7", "PW1003@2:10"]);
    for (const d of diagnostics) expect(d.message).toContain("write a shell command as $(cmd …)");
  });
});

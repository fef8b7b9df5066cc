// Diagnostics: stable codes, clear messages, the right positions, several errors per file.
import { describe, expect, it } from "vitest";
import { formatDiagnostic, formatDiagnostics, parse, SourceFile, type Diagnostic } from "../src/index.js";
import { codes } from "./helpers.js";

describe("error codes and positions", () => {
  const table: [string, string, string[], RegExp][] = [
    ["lone single-quoted string", "var s = 'abc'", ["PW1001@1:9"], /single-quoted strings are not Patchwork; use "…"/],
    ["unterminated string", 'print(1)\nvar s = "abc\nprint(1)', ["PW1002@2:9"], /unterminated string/],
    ["unclosed prompt", "var t = think {\n  hello\n", ["PW1004@1:9"], /unclosed prompt: 'think \{' has no closing '\}'/],
    ["unclosed angle prompt", "ask <\n  a <b> c\n", ["PW1004@1:1"], /unclosed prompt: 'ask <'/],
    ["unbalanced brace in prompt text", "var t = think {\n  hello { world\n}\n", ["PW1005@2:9"], /unbalanced '\{' in prompt text/],
    ["unbalanced brace left open", "think {\n  a { b { c }\n", ["PW1005@2:5"], /unbalanced '\{'/],
    ["do block with a syntax error", "var t = think {\n  do {\n    var = 3\n  }\n}\nprint(1)", ["PW2003@3:9"], /in the `do` block at 2:3: expected a pattern/],
    ["unexpected character", "x = 1 ~ 2", ["PW1003@1:7"], /unexpected character "~"/],
    ["missing closing paren", "print(1\n", ["PW2001@1:8"], /expected '\)' to close the '\(' at 1:6 but found end of input/],
    ["expected expression", "var x = (1 + )", ["PW2001@1:14"], /expected an expression but found '\)'/],
    ["missing separator", 'print("a") print("b")', ["PW2005@1:12"], /expected a newline or ';' after the statement but found 'print'/],
    ["missing separator after an object literal", 'var o = {a: 1} print("b")', ["PW2005@1:16"], /expected a newline or ';'/],
    ["stray closing brace", "print(1)\n}", ["PW2006@2:1"], /unexpected '\}'/],
    ["invalid assignment target", "1 = 2", ["PW2004@1:1"], /invalid assignment target/],
    ["invalid update target", "f()++", ["PW2004@1:1"], /invalid target for '\+\+'/],
    ["unterminated shell capture", "var x = $(ls", ["PW1006@1:9"], /unterminated shell command: '\$\(' has no closing '\)'/],
    ["unterminated shell quote", "$ echo 'abc\nprint(1)", ["PW1006@1:8"], /unterminated single quote/],
    ["unterminated shell double quote", '$ echo "abc', ["PW1006@1:8"], /unterminated double quote/],
    ["think without its brace", "var x = think\n{ hi }", ["PW2001@1:9"], /expected '\{' or '<' after 'think' \(on the same line\) but found a newline/],
    ["interpolation in import source", 'import a from "./${x}.pw"', ["PW2001@1:15"], /plain string/],
  ];
  it.each(table)("%s", (_name, source, expected, message) => {
    const { diagnostics } = parse(source);
    expect(codes(diagnostics)).toEqual(expected);
    expect(diagnostics[0]!.message).toMatch(message);
    expect(diagnostics[0]!.severity).toBe("error");
  });

  it("a statement that ends with its block needs no separator before the next one", () => {
    for (const source of [
      "for n in xs { if n == 2 { continue } print(n) }",
      "if a { x() } else { y() } print(1)",
      "while a { b() } c()",
      "try { a() } catch e { b() } c()",
      "{ a() } b()",
      "fun f() { } print(1)",
      "do_it() ; if a < b { } x = 1",
    ]) {
      const { diagnostics } = parse(source);
      expect(codes(diagnostics), source).toEqual([]);
    }
    const { program } = parse("for n in xs { if n == 2 { continue } print(n) }");
    const loop = program.body[0] as { body: { statements: { kind: string }[] } };
    expect(loop.body.statements.map((s) => s.kind)).toEqual(["If", "ExprStmt"]);
  });

  it("assignment in a condition is a warning and parses as ==", () => {
    const { program, diagnostics } = parse("if a = 1 { }\nwhile b = c { }\nif (d = 2) { }");
    expect(codes(diagnostics)).toEqual(["PW2002@1:4", "PW2002@2:7"]);
    expect(diagnostics.every((d) => d.severity === "warning")).toBe(true);
    expect(diagnostics[0]!.message).toMatch(/'=='/);
    expect(program.body[0]).toMatchObject({ kind: "If", test: { kind: "Binary", op: "==" } });
    expect(program.body[2]).toMatchObject({ kind: "If", test: { kind: "Assign" } });
  });

  it("reports several errors per file and keeps the good statements", () => {
    const source = ["var a = 'x'", "var b = (1 + )", "print(ok)", "fun f() {", "  var = 1", "  print(2)", "}", "x = 1 ~ 2", "print(3) print(4)"].join("\n");
    const { program, diagnostics } = parse(source);
    expect(codes(diagnostics)).toEqual(["PW1001@1:9", "PW2001@2:14", "PW2001@5:7", "PW1003@8:7", "PW2005@9:10"]);
    expect(program.body.map((s) => s.kind)).toEqual(["VarDecl", "ExprStmt", "FunDecl", "ExprStmt", "ExprStmt"]);
    const fun = program.body[2]!;
    expect(fun).toMatchObject({ kind: "FunDecl", body: { statements: [{ kind: "ExprStmt" }] } });
  });

  it("errors in several do blocks are all reported", () => {
    const source = "think {\n  do { var = 1 }\n  text\n  do { var x = }\n}\nprint(1)";
    const { diagnostics } = parse(source);
    expect(codes(diagnostics)).toEqual(["PW2003@2:12", "PW2003@4:16"]);
  });

  it("diagnostics carry the file name and format with a caret", () => {
    const source = "var s = 'abc'\n";
    const { diagnostics } = parse(source, { fileName: "main.pw" });
    expect(diagnostics[0]!.fileName).toBe("main.pw");
    const text = formatDiagnostic(diagnostics[0]!, new SourceFile(source, "main.pw"));
    expect(text).toBe(
      "main.pw:1:9: error[PW1001]: single-quoted strings are not Patchwork; use \"…\" instead of 'abc'\n" +
        "1 | var s = 'abc'\n" +
        "  |         ^^^^^",
    );
  });

  it("absurd nesting is a diagnostic, not a crash, and the parser recovers", () => {
    const { diagnostics } = parse("(".repeat(5000) + "1" + ")".repeat(5000));
    expect(diagnostics.map((d) => d.code)).toEqual(["PW2007"]);
    expect(parse("print(1)").diagnostics).toEqual([]);
  });

  it("the single-quoted string still becomes a string", () => {
    const { program } = parse("var s = 'abc'");
    expect(program.body[0]).toMatchObject({ init: { kind: "String", parts: [{ kind: "Text", value: "abc" }] } });
  });

  it("spans of nodes are exact", () => {
    const source = "var total = a.b(1) + 2";
    const { program } = parse(source);
    const decl = program.body[0]!;
    expect(decl.span).toEqual({ start: { offset: 0, line: 1, column: 1 }, end: { offset: 22, line: 1, column: 23 } });
    if (decl.kind !== "VarDecl" || !decl.init || decl.init.kind !== "Binary") throw new Error("shape");
    const left = decl.init.left;
    expect(source.slice(left.span.start.offset, left.span.end.offset)).toBe("a.b(1)");
  });
});

describe("formatDiagnostics", () => {
  const at = (line: number, column: number, fileName?: string): Diagnostic => ({
    code: "PW2001",
    severity: "error",
    message: "bad",
    span: { start: { line, column, offset: 0 }, end: { line, column: column + 1, offset: 1 } },
    fileName,
  });

  it("formats each diagnostic against its own file, reading each other file once", () => {
    const reads: string[] = [];
    const read = (file: string): string => {
      reads.push(file);
      if (file === "lib.pw") return "first\nsecond line\n";
      throw new Error("ENOENT");
    };
    const main = new SourceFile("var x = 1\n", "main.pw");
    const out = formatDiagnostics([at(1, 5), at(2, 1, "lib.pw"), at(1, 1, "lib.pw"), at(3, 2, "gone.pw"), at(1, 1, "main.pw")], main, read);
    expect(out).toEqual([
      "main.pw:1:5: error[PW2001]: bad\n1 | var x = 1\n  |     ^",
      "lib.pw:2:1: error[PW2001]: bad\n2 | second line\n  | ^",
      "lib.pw:1:1: error[PW2001]: bad\n1 | first\n  | ^",
      "gone.pw:3:2: error[PW2001]: bad",
      "main.pw:1:1: error[PW2001]: bad\n1 | var x = 1\n  | ^",
    ]);
    expect(reads).toEqual(["lib.pw", "gone.pw"]);
  });
});

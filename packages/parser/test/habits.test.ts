// What a newcomer from JavaScript writes, and what the error then says (issue 23): each habit
// is one error (PW2010, PW1003 for `?`) saying what Patchwork has instead; a missing `)` or `]`
// is one error at the line that lacks it, naming where the bracket was opened, never an error
// after the end of the file or at an enclosing block.
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";

function errors(source: string): string[] {
  return parse(source).diagnostics.map((d) => `${d.code}@${d.span.start.line}:${d.span.start.column} ${d.message}`);
}

describe("JavaScript habits", () => {
  it.each([
    ["let", "let x = 1\nprint(x)\n", "PW2010@1:1 'let' is not Patchwork: declare variables with 'var': `var x = 1`"],
    ["const", "const names = [1]\n", "PW2010@1:1 'const' is not Patchwork: declare variables with 'var' (there is no 'const'): `var names = [1]`"],
    [
      "function",
      "function add(a, b) {\n  return a + b\n}\n",
      "PW2010@1:1 'function' is not Patchwork: declare functions with 'fun', at the top level of the file: `fun add(a, b) {`",
    ],
    ["+=", "var n = 1\nn += 2\n", "PW2010@2:4 Patchwork has no '+=': write `n = n + 2`"],
    ["+= 1", "var n = 1\nn += 1\n", "PW2010@2:4 Patchwork has no '+=': write `n = n + 1` (or `n++`)"],
    ["*=", "var n = 1\nn *= 3\n", "PW2010@2:4 Patchwork has no '*=': write `n = n * 3`"],
    ["**", "print(2 ** 3)\n", "PW2010@1:10 Patchwork has no '**' (power) operator: multiply (`x * x`), or loop for larger powers"],
    ["===", "if 1 === 1 { print(1) }\n", "PW2010@1:8 Patchwork has no '===': '==' already compares without converting types"],
    [
      "ternary",
      "var a = true\nprint(a ? 1 : 2)\n",
      "PW1003@2:9 unexpected character \"?\": Patchwork has no '?' operators (`a ? b : c`, `?.`, `??`): write `if c { … } else { … }`; `a || b` gives b when a is null or falsy, and `a.b` of a missing key is already null",
    ],
    [
      "fun inside a function",
      "fun outer() {\n  fun inner() { return 1 }\n  return 2\n}\nprint(outer())\n",
      "PW2010@2:3 functions are top-level items: declare this `fun` at the top level of the file, not inside another function",
    ],
    [
      "fun as a value",
      "var g = fun(x) { return x }\n",
      "PW2010@1:9 a function is not written as a value: declare `fun name(…) { … }` at the top level of the file and use its name",
    ],
    [
      "arrow function",
      "var h = (x) => x + 1\n",
      "PW2010@1:14 Patchwork has no arrow functions ('=>'): declare `fun name(…) { … }` at the top level and use its name",
    ],
  ])("%s: one error saying what to write instead", (_name, source, expected) => {
    expect(errors(source)).toEqual([expected]);
  });

  it("the Patchwork forms parse", () => {
    expect(errors("var n = 1\nn = n + 2\nn++\nprint(n * n)\nif n == 4 { print(1) } else { print(2) }\nfun f(x) { return x }\n")).toEqual([]);
    // `let` as a variable name is not a habit.
    expect(errors("var let = 1\nprint(let)\n")).toEqual([]);
  });
});

describe("a missing ) or ] is one error", () => {
  it.each([
    ["at the end of the file", "print(len(\"a\")\n", ["PW2001@1:15 expected ')' to close the '(' at 1:6 but found end of input"]],
    ["at the end of the file, no newline", "print(1", ["PW2001@1:8 expected ')' to close the '(' at 1:6 but found end of input"]],
    [
      "before the closing brace of a function",
      "fun f(a) {\n  var b = 2\n  print(a + b\n}\nf(1)\n",
      ["PW2001@4:1 expected ')' to close the '(' at 3:8 but found '}'"],
    ],
    [
      "in a loop body, with statements after the loop",
      "for i in [1, 2] {\n  print(foo(i)\n}\nprint(\"done\")\n",
      ["PW2001@3:1 expected ')' to close the '(' at 2:8 but found '}'"],
    ],
    ["in an if condition", "if (1 > 0 {\n  print(1)\n}\n", ["PW2001@1:11 expected ')' to close the '(' at 1:4 but found '{'"]],
    ["a missing ]", "var a = [1, [2, 3]\nprint(a)\n", ["PW2001@2:1 expected ']' to close the '[' at 1:9 but found 'print'"]],
  ])("%s", (_name, source, expected) => {
    expect(errors(source)).toEqual(expected);
  });

  it("the statements after the broken one still parse", () => {
    const r = parse("fun f(a) {\n  print(a\n}\nfun g() { return 1 }\nprint(g())\n");
    expect(r.diagnostics).toHaveLength(1);
    expect(r.program.body.map((s) => s.kind)).toEqual(["FunDecl", "FunDecl", "ExprStmt"]);
  });
});

// Issue 35: Python, and more JavaScript, each one PW2010 with the Patchwork form.
describe("Python and more JavaScript habits", () => {
  it.each([
    ["def", "def add(a, b):\n    return a + b\n", "PW2010@1:1 'def' is not Patchwork: declare functions with 'fun' and a block in braces: `fun add(a, b) { … }`"],
    ["elif", "var x = 2\nif x > 2 {\n  print(1)\n} elif x > 1 {\n  print(2)\n}\n", "PW2010@4:3 'elif' is not Patchwork: write `else if x > 1 {`"],
    ["for k, v", "var o = {a: 1}\nfor k, v in o {\n  print(k, v)\n}\n", "PW2010@2:6 a loop takes one variable: for the keys and values of an object write `for k in keys(o) { var v = o[k] … }`"],
    ["C-style for", "for (var i = 0; i < 3; i++) {\n  print(i)\n}\n", "PW2010@1:12 Patchwork has no C-style 'for (…; …; …)': loop over a range (both ends included): `for i in 0...2 { … }`"],
    ["C-style for to n", "var n = 3\nfor (let i = 1; i <= n; i++) {\n}\n", "PW2010@2:10 Patchwork has no C-style 'for (…; …; …)': loop over a range (both ends included): `for i in 1...n { … }`"],
    ["switch", "var x = 1\nswitch (x) {\n  case 1:\n    print(1)\n}\n", "PW2010@2:1 Patchwork has no 'switch': write `if x == 1 { … } else if x == 2 { … } else { … }`"],
    [
      "finally",
      "try {\n  print(1)\n} catch e {\n  print(2)\n} finally {\n  print(3)\n}\n",
      "PW2010@5:3 Patchwork has no 'finally': write the clean-up after the `try { … } catch e { … }`, and in the `catch` too if it throws again",
    ],
    ["throw new Error", 'throw new Error("bad")\n', "PW2010@1:7 Patchwork has no 'new' (no classes): throw the value itself: `throw \"bad\"` (a string, or an object such as {message: …})"],
    ["arrow with two parameters", "fun f() {\n  var add = (a, b) => a + b\n}\n", "PW2010@2:15 Patchwork has no arrow functions ('=>'): declare `fun name(a, b) { … }` at the top level and use its name"],
    ["backtick template", "var x = 1\nprint(`x is ${x}`)\n", 'PW2010@2:7 Patchwork has no backtick strings: every "…" string interpolates: write `"x is ${x}"`'],
  ])("%s", (_, source, expected) => {
    expect(errors(source)).toEqual([expected]);
  });

  it("a backtick in a string, a prompt or a shell line is no template", () => {
    expect(errors('print("a `b` c")\nvar r = think { Say `hi`. }\n$ echo `date`\n')).toEqual([]);
  });
});

describe("an unclosed '{' (issue 35)", () => {
  it("the error at the end of the input says which '{' it is", () => {
    expect(errors("fun f() {\n  if true {\n    print(1)\n")).toEqual(["PW2001@3:13 expected '}' to close the '{' at 2:11 but found end of input"]);
  });
});

describe("a main that does not run (issue 35)", () => {
  it("top-level statements and a main they never call: a warning at the main", () => {
    const d = parse('print("top")\nfun main() {\n  print("main ran")\n}\n').diagnostics;
    expect(d.map((x) => `${x.code} ${x.severity}@${x.span.start.line}:${x.span.start.column} ${x.message}`)).toEqual([
      "PW2030 warning@2:1 'main' does not run: a file with top-level statements runs them instead; call `main()` after them, or move them into 'main'",
    ]);
  });

  it("no warning when the statements call it, or without statements", () => {
    expect(parse('print("top")\nfun main() { print(1) }\nmain()\n').diagnostics).toEqual([]);
    expect(parse("fun __main__() { print(1) }\n").diagnostics).toEqual([]);
    expect(parse('import lib from "./lib.pw"\ntype T = string\nfun main() { print(1) }\n').diagnostics).toEqual([]);
  });
});

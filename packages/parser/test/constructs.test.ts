// Table-driven tests: each construct of language.md §3 and the AST it must produce.
import { describe, expect, it } from "vitest";
import { expr, first } from "./helpers.js";

const id = (name: string) => ({ kind: "Ident", name });
const num = (value: number, raw = String(value)) => ({ kind: "Number", value, raw });
const str = (value: string) => ({ kind: "String", parts: value === "" ? [] : [{ kind: "Text", value }] });
const bin = (op: string, left: unknown, right: unknown) => ({ kind: "Binary", op, left, right });
const call = (callee: unknown, ...args: unknown[]) => ({ kind: "Call", callee, args });

describe("expressions", () => {
  const table: [string, unknown][] = [
    ["42", num(42)],
    ["3.5", num(3.5)],
    ["1e3", num(1000, "1e3")],
    ["2.5E-1", num(0.25, "2.5E-1")],
    ['"hi"', str("hi")],
    ['""', str("")],
    ["true", { kind: "Bool", value: true }],
    ["false", { kind: "Bool", value: false }],
    ["null", { kind: "Null" }],
    ["self", { kind: "Self" }],
    ["$?", { kind: "ShellStatus" }],
    ["x", id("x")],
    ["1 + 2 * 3", bin("+", num(1), bin("*", num(2), num(3)))],
    ["(1 + 2) * 3", bin("*", bin("+", num(1), num(2)), num(3))],
    ["10 - 4 - 3", bin("-", bin("-", num(10), num(4)), num(3))],
    ["7 % 3", bin("%", num(7), num(3))],
    ["a / b", bin("/", id("a"), id("b"))],
    ["a <= b", bin("<=", id("a"), id("b"))],
    ["a >= b", bin(">=", id("a"), id("b"))],
    ["a < b", bin("<", id("a"), id("b"))],
    ["a > b", bin(">", id("a"), id("b"))],
    ["a == b", bin("==", id("a"), id("b"))],
    ["a != b", bin("!=", id("a"), id("b"))],
    ["a || b && c", { kind: "Logical", op: "||", left: id("a"), right: { kind: "Logical", op: "&&", left: id("b"), right: id("c") } }],
    ["a == 1 && b", { kind: "Logical", op: "&&", left: bin("==", id("a"), num(1)), right: id("b") }],
    ["1...n + 1", { kind: "Range", start: num(1), end: bin("+", id("n"), num(1)) }],
    ["a...b == c", bin("==", { kind: "Range", start: id("a"), end: id("b") }, id("c"))],
    ["!a", { kind: "Unary", op: "!", operand: id("a") }],
    ["-a.b", { kind: "Unary", op: "-", operand: { kind: "Member", object: id("a"), property: "b" } }],
    ["await f()", { kind: "Await", operand: call(id("f")), postfix: false }],
    ["f().await", { kind: "Await", operand: call(id("f")), postfix: true }],
    ['throw "bad" + x', { kind: "Throw", value: bin("+", str("bad"), id("x")) }],
    ["x++", { kind: "Update", op: "++", target: id("x") }],
    ["a.b--", { kind: "Update", op: "--", target: { kind: "Member", object: id("a"), property: "b" } }],
    ["a = b = 1", { kind: "Assign", target: id("a"), value: { kind: "Assign", target: id("b"), value: num(1) } }],
    ["a.b = 1", { kind: "Assign", target: { kind: "Member", object: id("a"), property: "b" }, value: num(1) }],
    ["a[0] = 1", { kind: "Assign", target: { kind: "Index", object: id("a"), index: num(0) }, value: num(1) }],
    ["f(1, 2,)", call(id("f"), num(1), num(2))],
    ["f()", call(id("f"))],
    ["a.b.c(1)[2]", { kind: "Index", object: call({ kind: "Member", object: { kind: "Member", object: id("a"), property: "b" }, property: "c" }, num(1)), index: num(2) }],
    ["helper.default", { kind: "Member", object: id("helper"), property: "default" }],
    ["x.type", { kind: "Member", object: id("x"), property: "type" }],
    ["[1, 2,]", { kind: "Array", elements: [num(1), num(2)] }],
    ["[]", { kind: "Array", elements: [] }],
    ["f({})", call(id("f"), { kind: "Object", properties: [] })],
    [
      'f({a: 1, type: "x", "quoted key": 2, b,})',
      call(id("f"), {
        kind: "Object",
        properties: [
          { kind: "Property", key: "a", value: num(1), shorthand: false },
          { kind: "Property", key: "type", value: str("x"), shorthand: false },
          { kind: "Property", key: "quoted key", value: num(2), shorthand: false },
          { kind: "Property", key: "b", value: id("b"), shorthand: true },
        ],
      }),
    ],
    ["f(\n  1,\n  2\n)", call(id("f"), num(1), num(2))],
    ["[\n 1,\n 2\n]", { kind: "Array", elements: [num(1), num(2)] }],
    ["a +\n b", bin("+", id("a"), id("b"))],
    ["a &&\n b", { kind: "Logical", op: "&&", left: id("a"), right: id("b") }],
    ["a.\n b", { kind: "Member", object: id("a"), property: "b" }],
  ];
  it.each(table)("%s", (source, expected) => {
    expect(expr(source)).toEqual(expected);
  });

  it("object literal across lines with a trailing comma", () => {
    expect(first("var o = {\n  a: 1,\n  b: 2,\n}")).toMatchObject({
      init: { kind: "Object", properties: [{ key: "a" }, { key: "b" }] },
    });
  });
});

describe("strings", () => {
  const table: [string, unknown[]][] = [
    ['"a\\nb\\t\\r\\\\\\"\\\'\\$\\0\\{\\}"', [{ kind: "Text", value: "a\nb\t\r\\\"'$\0{}" }]],
    ['"\\q"', [{ kind: "Text", value: "\\q" }]],
    ['"$a.b"', [{ kind: "Interp", expr: id("a"), spread: false }, { kind: "Text", value: ".b" }]],
    ['"x${a + 1}y"', [{ kind: "Text", value: "x" }, { kind: "Interp", expr: bin("+", id("a"), num(1)), spread: false }, { kind: "Text", value: "y" }]],
    ['"$@{xs}"', [{ kind: "Interp", expr: id("xs"), spread: true }]],
    ['"$<a>"', [{ kind: "Interp", expr: id("a"), spread: false }]],
    ['"$@<xs>"', [{ kind: "Interp", expr: id("xs"), spread: true }]],
    ["\"$'{'$'$'\"", [{ kind: "Text", value: "{$" }]],
    ['"cost $5 and $"', [{ kind: "Text", value: "cost $5 and $" }]],
    ['"two\nlines"', [{ kind: "Text", value: "two\nlines" }]],
    ['"${"nested $x"}"', [{ kind: "Interp", expr: { kind: "String", parts: [{ kind: "Text", value: "nested " }, { kind: "Interp", expr: id("x"), spread: false }] }, spread: false }]],
  ];
  it.each(table)("%s", (source, parts) => {
    expect(expr(source)).toEqual({ kind: "String", parts });
  });
});

describe("statements", () => {
  it("var with pattern, type and init", () => {
    expect(first("var x: string | null = y")).toEqual({
      kind: "VarDecl",
      pattern: { kind: "IdentPattern", name: "x" },
      type: { kind: "UnionType", types: [{ kind: "NamedType", name: "string" }, { kind: "NamedType", name: "null" }] },
      init: id("y"),
    });
  });
  it("var without init", () => {
    expect(first("var x")).toEqual({ kind: "VarDecl", pattern: { kind: "IdentPattern", name: "x" }, type: null, init: null });
  });
  it("destructuring patterns", () => {
    expect(first('var {a, kind: "user", b: number} = o')).toMatchObject({
      pattern: {
        kind: "ObjectPattern",
        fields: [
          { kind: "PatField", key: "a", type: null },
          { kind: "PatField", key: "kind", type: { kind: "LiteralType", value: "user" } },
          { kind: "PatField", key: "b", type: { kind: "NamedType", name: "number" } },
        ],
      },
    });
    expect(first("var [a, _, [b]] = xs")).toMatchObject({
      pattern: {
        kind: "ArrayPattern",
        elements: [{ kind: "IdentPattern", name: "a" }, { kind: "WildcardPattern" }, { kind: "ArrayPattern", elements: [{ kind: "IdentPattern", name: "b" }] }],
      },
    });
  });
  it("types", () => {
    expect(first("var x: [{name: string, tags: [string]}] = y")).toMatchObject({
      type: {
        kind: "ArrayType",
        element: {
          kind: "ObjectType",
          fields: [
            { key: "name", type: { kind: "NamedType", name: "string" } },
            { key: "tags", type: { kind: "ArrayType", element: { kind: "NamedType", name: "string" } } },
          ],
        },
      },
    });
  });
  it("if / else if / else, else on the next line", () => {
    expect(first("if a { x }\nelse if b { y }\nelse { z }")).toMatchObject({
      kind: "If",
      test: id("a"),
      else: { kind: "If", test: id("b"), else: { kind: "Block" } },
    });
  });
  it("while with and without parentheses", () => {
    expect(first("while (x < 3) { x++ }")).toMatchObject({ kind: "While", test: bin("<", id("x"), num(3)) });
    expect(first("while x < 3 { x++ }")).toMatchObject({ kind: "While", test: bin("<", id("x"), num(3)) });
  });
  it("for, for var, for with parentheses", () => {
    expect(first("for x in xs { }")).toMatchObject({ kind: "For", declares: false, name: "x", iterable: id("xs") });
    expect(first("for var x in 1...3 { }")).toMatchObject({ kind: "For", declares: true, iterable: { kind: "Range" } });
    expect(first("for (var x in xs) { }")).toMatchObject({ kind: "For", declares: true, name: "x" });
  });
  it("return, break, continue, succeed", () => {
    expect(strip(parseOkBody("fun f() { return }\nfun g() { return 1 }"))).toMatchObject([
      { body: { statements: [{ kind: "Return", value: null }] } },
      { body: { statements: [{ kind: "Return", value: num(1) }] } },
    ]);
    expect(first("while x { break; continue }")).toMatchObject({ body: { statements: [{ kind: "Break" }, { kind: "Continue" }] } });
    expect(first("{ succeed }")).toMatchObject({ statements: [{ kind: "Succeed" }] });
  });
  it("try / catch with and without a name", () => {
    expect(first("try { f() } catch e { g(e) }")).toMatchObject({ kind: "Try", param: "e" });
    expect(first("try { f() } catch { g() }")).toMatchObject({ kind: "Try", param: null });
    expect(first("try { f() } catch (err) { g() }")).toMatchObject({ kind: "Try", param: "err" });
  });
  it("statements end at newlines or semicolons", () => {
    expect(parseOkBody("a; b\nc").map((s) => s.kind)).toEqual(["ExprStmt", "ExprStmt", "ExprStmt"]);
  });
  it("comments are skipped in code", () => {
    expect(parseOkBody("# a comment\nx = 1 # trailing\n# another").length).toBe(1);
  });
  it("a line continues after an operator even across a comment line", () => {
    expect(expr("a +\n# note\n b")).toEqual(bin("+", id("a"), id("b")));
  });
  it("type declaration as statement", () => {
    expect(first('type Mode = "a" | "b"')).toMatchObject({ kind: "TypeDecl", name: "Mode", type: { kind: "UnionType" } });
  });
  it("nested block statement", () => {
    expect(first("{ var x = 1 }")).toMatchObject({ kind: "Block", statements: [{ kind: "VarDecl" }] });
  });
});

import { parse } from "../src/index.js";
import { parseOk, strip } from "./helpers.js";

function parseOkBody(source: string) {
  return parseOk(source).body;
}

describe("items", () => {
  it("functions of every flavor with params, types and trailing comma", () => {
    const body = parseOkBody("fun a(x, y: number,) { }\nworker b() { }\nskill c(): string { }\ntask d() { }");
    expect(strip(body)).toMatchObject([
      { kind: "FunDecl", flavor: "fun", name: "a", params: [{ name: "x", type: null }, { name: "y", type: { name: "number" } }] },
      { kind: "FunDecl", flavor: "worker", name: "b" },
      { kind: "FunDecl", flavor: "skill", name: "c", returnType: { kind: "NamedType", name: "string" } },
      { kind: "FunDecl", flavor: "task", name: "d" },
    ]);
  });
  it("task stays an identifier elsewhere", () => {
    expect(expr("task + 1")).toEqual(bin("+", id("task"), num(1)));
  });
  it("annotations, export and default", () => {
    expect(first('@tool\n@model "fast"\nexport default fun main() { }')).toMatchObject({
      kind: "FunDecl",
      exported: true,
      isDefault: true,
      annotations: [
        { kind: "Annotation", name: "tool", arg: null },
        { kind: "Annotation", name: "model", arg: "fast" },
      ],
    });
  });
  it("annotation with identifier argument", () => {
    expect(first("@kind agent\nfun f() { }")).toMatchObject({ annotations: [{ name: "kind", arg: "agent" }] });
  });
  it("traits", () => {
    expect(first("trait Greeter: Agent {\n  @skill\n  fun hello(self, name) { }\n  fun bye() { }\n}")).toMatchObject({
      kind: "TraitDecl",
      name: "Greeter",
      superType: { kind: "NamedType", name: "Agent" },
      methods: [{ name: "hello", annotations: [{ name: "skill" }], params: [{ name: "self" }, { name: "name" }] }, { name: "bye" }],
    });
  });
  it("exported type", () => {
    expect(first("export type Id = string")).toMatchObject({ kind: "TypeDecl", exported: true });
  });
  it.each([
    ["import std.log", { form: "module", path: ["std", "log"], names: [], source: null }],
    ["import ./{a, b}", { form: "siblings", path: [], names: ["a", "b"], source: null }],
    ["import ./{\n  a,\n  b,\n}", { form: "siblings", names: ["a", "b"] }],
    ['import {a, b} from "./x.pw"', { form: "named", names: ["a", "b"], source: "./x.pw" }],
    ['import a from "./a.pw"', { form: "default", names: ["a"], source: "./a.pw" }],
  ])("%s", (source, expected) => {
    expect(first(source)).toMatchObject({ kind: "Import", ...expected });
  });
});

describe("program", () => {
  it("block mode: a file starting with {", () => {
    const { program } = parse("# comment\n\n{\n  print(1)\n}\n");
    expect(program.blockMode).toBe(true);
    expect(program.body.map((s) => s.kind)).toEqual(["Block"]);
  });
  it("items and statements in any order", () => {
    const { program } = parse("print(1)\nfun main() { }\nvar x = 2");
    expect(program.blockMode).toBe(false);
    expect(program.body.map((s) => s.kind)).toEqual(["ExprStmt", "FunDecl", "VarDecl"]);
  });
  it("empty input", () => {
    expect(parse("")).toMatchObject({ program: { kind: "Program", body: [] }, diagnostics: [] });
  });
  it("CRLF line endings", () => {
    expect(parseOkBody("var a = 1\r\nvar b = a +\r\n 2\r\n").map((s) => s.kind)).toEqual(["VarDecl", "VarDecl"]);
  });
});

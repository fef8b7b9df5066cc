// Every string and array method of language.md §4, on both evaluation tiers (the closure
// compiler and codegen), at top level and inside a function body.
import { describe, expect, it } from "vitest";
import { runSource } from "./helpers.js";

/** [expression, what print() shows]. Positions count code points. */
const strings: [string, string][] = [
  ['"  a b  ".trim() + "|"', "a b|"],
  ['"  a b  ".trimStart() + "|"', "a b  |"],
  ['"  a b  ".trimEnd() + "|"', "  a b|"],
  ['"hello".startsWith("he")', "true"],
  ['"hello".endsWith("lo")', "true"],
  ['"hello".includes("ell")', "true"],
  ['"a👍b👍c".indexOf("b")', "2"],
  ['"a👍b👍c".indexOf("👍", 2)', "3"],
  ['"abc".indexOf("x")', "-1"],
  ['"abc".indexOf("")', "0"],
  ['"a👍b👍c".lastIndexOf("👍")', "3"],
  ['"a👍b👍c".lastIndexOf("👍", 2)', "1"],
  ['"abc".lastIndexOf("x")', "-1"],
  ['"h👍llo".slice(1, 3)', "👍l"],
  ['"hello".slice(-3)', "llo"],
  ['"hello".slice(1, -1)', "ell"],
  ['"hello".slice()', "hello"],
  ['"hello".slice(4, 1) + "|"', "|"],
  ['"h👍llo".substring(1, 3)', "👍l"],
  ['"hello".substring(3, 1)', "el"],
  ['"hello".substring(-2, 2)', "he"],
  ['"hello".substring(2)', "llo"],
  ['"a,b,c".split(",").length', "3"],
  ['"a-b-a".replace("a", "x")', "x-b-a"],
  ['"a-b-a".replaceAll("a", "x")', "x-b-x"],
  ['"a.b".replace(".", "$")', "a$b"],
  ['"ab".repeat(3)', "ababab"],
  ['"7".padStart(3, "0")', "007"],
  ['"7".padEnd(3, ".")', "7.."],
  ['"Hi".toUpperCase()', "HI"],
  ['"Hi".toLowerCase()', "hi"],
  ['"a\\nb\\n".lines().length', "2"],
  ['"h👍llo".length', "5"],
];

const arrays: [string, string][] = [
  ["[1, 2].push(3, 4)", "4"],
  ["[1, 2].pop()", "2"],
  ["[{a: 1}].includes({a: 1})", "true"],
  ['["a", "b"].join("-")', "a-b"],
  ["[1, 2, 3, 4].slice(1, -1)", "2, 3"],
  ["[1, 2, 1].indexOf(1)", "0"],
  ["[1, 2, 1].lastIndexOf(1)", "2"],
  ["[[1], 2].lastIndexOf([1])", "0"],
  ["[1, 2, 1].lastIndexOf(3)", "-1"],
  ["[1].concat([2, 3], 4, [[5]]).length", "5"],
  ["[1].concat([2, 3], 4)", "1, 2, 3, 4"],
  ["[1, 2, 3].reverse()", "3, 2, 1"],
  ["[10, 9, 100].sort()", "9, 10, 100"],
  ['["b", "a", "é"].sort()', "a, b, é"],
  ["[1, 2].length", "2"],
];

function programs(table: [string, string][]): { top: string; inFun: string; expected: string } {
  const lines = table.map(([e]) => `print(${e})`);
  return {
    top: lines.join("\n"),
    inFun: `fun f() {\n${lines.map((l) => "  " + l).join("\n")}\n}\nf()`,
    expected: table.map(([, out]) => out + "\n").join(""),
  };
}

describe.each([
  ["string", strings],
  ["array", arrays],
])("%s methods", (_name, table) => {
  const { top, inFun, expected } = programs(table);
  for (const codegen of [false, true]) {
    it(`give the listed results (${codegen ? "codegen" : "closure"} tier, top level and in a fun)`, () => {
      for (const source of [top, inFun]) {
        const r = runSource(source, { codegen });
        expect(r.error).toBeNull();
        const got = r.output.split("\n");
        const want = expected.split("\n");
        for (let i = 0; i < want.length; i++) expect(got[i], table[i]?.[0]).toBe(want[i]);
      }
    });
  }
});

describe("method errors", () => {
  it("a wrong argument type or count is a runtime error naming the method, on both tiers", () => {
    for (const codegen of [false, true]) {
      expect(runSource('print("abc".indexOf(1))', { codegen }).error).toMatch(/^PW3\d{3} at 1:7: .*indexOf.*the text must be a string, got number/);
      expect(runSource('print("abc".slice("1"))', { codegen }).error).toMatch(/^PW3\d{3} at 1:7: .*the start must be a number, got string/);
      expect(runSource('print("abc".replaceAll("a"))', { codegen }).error).toMatch(/^PW3\d{3} at 1:7: .*replaceAll/);
      expect(runSource("print([1].reverse(1))", { codegen }).error).toMatch(/^PW3\d{3} at 1:7: .*reverse/);
      expect(runSource("print((1).trimStart())", { codegen }).error).toMatch(/^PW3009/);
    }
  });
});

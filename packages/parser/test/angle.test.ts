// The angle spelling (`think < … >`, `do < … >`, `$<…>`) gives the same AST as braces.
import { describe, expect, it } from "vitest";
import { parseOk, strip } from "./helpers.js";

const pairs: [string, string][] = [
  ["var x = think { hello $name }", "var x = think < hello $name >"],
  ["var x = ask { which? }", "var x = ask < which? >"],
  ['print("${a + 1}")', 'print("$<a + 1>")'],
  ['print("$@{xs}")', 'print("$@<xs>")'],
  ["think { a ${b} $@{c} }", "think < a $<b> $@<c> >"],
  [
    'think {\n  Pick:\n  do {\n    if (a > b) { print("x") }\n  }\n  do { print(2) }\n}',
    'think <\n  Pick:\n  do <\n    if (a > b) { print("x") }\n  >\n  do < print(2) >\n>',
  ],
  ["think { a < b and c > d }", "think < a $'<' b and c $'>' d >"],
  ["think { nested <tags> ok }", "think < nested <tags> ok >"],
  ["think { {json: 1} }", "think < {json: 1} >"],
  [
    "think {\n  outer\n  do {\n    var r = think { inner ${x} }\n    $ ls -la\n  }\n}",
    "think <\n  outer\n  do <\n    var r = think < inner $<x> >\n    $ ls -la\n  >\n>",
  ],
];

describe("angle spelling", () => {
  it.each(pairs)("%s", (brace, angle) => {
    expect(strip(parseOk(angle))).toEqual(strip(parseOk(brace)));
  });

  it("inside angle code a > at depth 0 closes the block", () => {
    const p = parseOk("think <\n  do < print(1) >\n  after\n>");
    expect(strip(p.body[0])).toMatchObject({ expr: { children: [{ statements: [{ kind: "ExprStmt" }] }] } });
  });
});

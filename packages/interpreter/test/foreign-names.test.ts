// An undefined variable named as Python or JavaScript name it (issue 35): the run's PW3002 says
// what Patchwork writes instead, as `patchwork check`'s PW5001 does (foreign-names.ts).
import { describe, expect, it } from "vitest";
import { run } from "../src/index.js";

const message = (source: string) => run(source, { fileName: "p.pw" }).diagnostics.map((d) => `${d.code} ${d.message}`);

describe("undefined Python and JavaScript names", () => {
  it.each([
    ["var x = True\n", "PW3002 undefined variable 'True': Patchwork writes `true`"],
    ["for i in range(1, 3) { print(i) }\n", "PW3002 undefined variable 'range': a range is `a...b`, both ends included: `for i in 1...4` (Python's `range(1, 5)`)"],
    ['print(int("3"))\n', "PW3002 undefined variable 'int': write `number(x)` to read a number from text"],
    ["print(Object.keys({a: 1}))\n", "PW3002 undefined variable 'Object': `keys(o)` and `values(o)` are builtins: `keys(o)` for `Object.keys(o)`"],
  ])("%s", (source, expected) => {
    expect(message(source)).toEqual([expected]);
  });

  it("any other name is as before", () => {
    expect(message("print(nope)\n")).toEqual(["PW3002 undefined variable 'nope'"]);
  });
});

// Issue 35: messages that say the cause.
describe("what a message says", () => {
  it("setting a character of a string: strings cannot be changed in place", () => {
    expect(message('var s = "abc"\ns[0] = "z"\n')).toEqual([
      'PW3010 cannot set index 0 on a string: strings cannot be changed in place; build a new one (`s = "z" + s.slice(1)`, or with "${…}")',
    ]);
  });

  it("x.toString() names x in its hint", () => {
    expect(message("var count = 1\nprint(count.toString())\n")).toEqual(['PW3009 number has no method \'toString\': write `"${count}"` (text) or `cat(count)` (JSON)']);
  });
});

describe("a type mismatch says where (issue 35)", () => {
  it.each([
    ["type Point = {x: number, y: number}\nvar q: Point = {x: 1}\n", "PW3004 type mismatch: 'q' expects Point, got object: field 'y' is missing"],
    ['type Point = {x: number, y: number}\nvar q: Point = {x: 1, y: "2"}\n', "PW3004 type mismatch: 'q' expects Point, got object: field 'y' is a string, not number"],
    ['var list: [string] = ["a", 2]\n', "PW3004 type mismatch: 'list' expects [string], got array: at [1]: a number, not string"],
    ["type P = {x: number, y: number}\nvar ps: {pts: [P]} = {pts: [{x: 1, y: 2}, {x: 1}]}\n", "PW3004 type mismatch: 'ps' expects {pts: [P]}, got object: at pts[1].y: missing"],
    ['var n: number = "1"\n', 'PW3004 type mismatch: \'n\' expects number, got string "1"'],
  ])("%s", (source, expected) => {
    expect(message(source)).toEqual([expected]);
  });
});

describe("a worker task reading a top-level variable (issue 35)", () => {
  it("says workers do not see top-level variables and how to pass the value", () => {
    const src = 'var shared = "hi"\nworker w() {\n  return shared\n}\nprint(w())\n';
    // As a worker task runs: the entry alone, without the top-level statements (evaluator-worker.ts).
    const r = run(src, { fileName: "p.pw", entry: "w", args: [], statements: false });
    expect(r.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
      "PW3002 undefined variable 'shared': a worker does not see the file's top-level variables (its top-level statements do not run in a worker): pass the value as an argument, `worker w(value) { … }` called as `w(value)`",
    ]);
  });
});

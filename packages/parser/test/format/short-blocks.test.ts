// A block of one simple statement written on one line stays on one line when it fits
// (issue 23: the manual writes `if n < 2 { return n }`), like gofmt's one-line functions.
import { describe, expect, it } from "vitest";
import { format } from "../../src/index.js";

const fmt = (source: string, width?: number): string => {
  const r = format(source, width === undefined ? {} : { width });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  return r.text;
};

describe("short blocks", () => {
  it.each([
    ["if", "if n<2 {return n}\n", "if n < 2 { return n }\n"],
    ["else", "if a {print(1)} else {print(2)}\n", "if a { print(1) } else { print(2) }\n"],
    ["fun", "fun double(x) {return x*2}\n", "fun double(x) { return x * 2 }\n"],
    ["for", "for k in [1, 2] {print(k)}\n", "for k in [1, 2] { print(k) }\n"],
    ["try", 'try {number("x")} catch e {print(e.message)}\n', 'try { number("x") } catch e { print(e.message) }\n'],
  ])("%s: stays on one line", (_name, source, expected) => {
    expect(fmt(source)).toBe(expected);
    expect(fmt(expected)).toBe(expected);
  });

  it.each([
    ["written over lines", "if a {\n  print(1)\n}\n", "if a {\n    print(1)\n}\n"],
    ["two statements", "if a { print(1); print(2) }\n", "if a {\n    print(1)\n    print(2)\n}\n"],
    ["a block inside", "while a { if b { break } }\n", "while a {\n    if b { break }\n}\n"],
    ["with a comment", "if a { print(1) } # note\n", "if a { print(1) } # note\n"],
  ])("%s", (_name, source, expected) => {
    expect(fmt(source)).toBe(expected);
  });

  it("breaks when it does not fit the width", () => {
    expect(fmt('if ready { print("a long message") }\n', 30)).toBe('if ready {\n    print("a long message")\n}\n');
  });
});

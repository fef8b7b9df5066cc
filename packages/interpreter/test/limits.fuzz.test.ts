// Property: random small programs with huge numbers in index, range, repeat, pad, split, join
// and concatenation positions never crash the VM or leak an engine error: each run ends
// normally or with PW diagnostics (never PW3099, never a JS stack). Smaller limits than the
// defaults keep each run cheap; the code paths are the same (the CLI test vm-limits.test.ts
// runs the named cases with the real defaults).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runSource } from "./helpers.js";

const LIMITS = { maxArrayLength: 5000, maxStringLength: 100_000, timeoutMs: 5_000 };

/** Numbers around the limits and far beyond them, negative, fractional and infinite. */
const huge = fc.oneof(
  fc.constantFrom("1e9", "1e12", "4999", "5000", "5001", "100000", "100001", "2147483648", "4294967296",
    "9007199254740993", "1e308", "1e309", "-1e309", "-1", "-5001", "0.5", "2.5", "(0 / 1)"),
  fc.integer({ min: -10, max: 10 }).map(String),
  fc.integer({ min: 0, max: 2 ** 40 }).map(String),
);

const text = fc.constantFrom('"x"', '"ab"', '""', '"é😀"', '"a\\nb"', '"a,b"');

/** One statement using the numbers in a size-sensitive position. */
const statement = fc.oneof(
  fc.tuple(huge).map(([n]) => `x[${n}] = 1`),
  fc.tuple(huge).map(([n]) => `print(x[${n}])`),
  fc.tuple(huge, huge).map(([a, b]) => `print(len(${a}...${b}))`),
  fc.tuple(huge, huge).map(([a, b]) => `for i in ${a}...${b} { if i > ${a} + 3 { break } }`),
  fc.tuple(text, huge).map(([s, n]) => `s = ${s}.repeat(${n})`),
  fc.tuple(text, huge, text).map(([s, n, f]) => `s = ${s}.padStart(${n}, ${f})`),
  fc.tuple(text, huge).map(([s, n]) => `s = ${s}.padEnd(${n})`),
  fc.tuple(huge).map(([n]) => `x.push(${n})`),
  fc.constant("s = s + s"),
  fc.constant('s = "${s}${s}"'),
  fc.constant("x = x + x"),
  fc.constant("x = [x]"),
  fc.constant("x.push(x)"),
  fc.constant("print(x == [x])"),
  fc.constant("print(len(s.split(\"\")), len(s.lines()), len(s.split(\",\")))"),
  fc.constant('s = x.join(s)'),
  fc.constant('s = s.replace("a", s)'),
  fc.constant('s = s.replaceAll("a", s)'),
  fc.constant("for l in s { }"),
  fc.constant("x.sort()"),
  fc.tuple(huge).map(([n]) => `print(json("[" + "0,".repeat(${n}) + "0]"))`),
  fc.tuple(huge).map(([n]) => `print(json("[".repeat(${n})))`),
  fc.tuple(huge).map(([n]) => `o["k${n}"] = s`),
);

/** A statement, repeated in a loop, inside a try, or as is. */
const wrapped = fc.tuple(statement, fc.constantFrom("plain", "loop", "try", "fun")).map(([s, how]) => {
  switch (how) {
    case "loop":
      return `for k in 1...40 {\n  ${s}\n}`;
    case "try":
      return `try {\n  ${s}\n} catch e {\n  print(e.message)\n}`;
    case "fun":
      return `fun f() {\n  ${s}\n}\nf()`;
    default:
      return s;
  }
});

const program = fc
  .array(wrapped, { minLength: 1, maxLength: 4 })
  .map((stmts) => `var x = [1, 2]\nvar s = "ab"\nvar o = {}\n${stmts.join("\n")}\nprint(len(x), len(s))\n`);

describe("huge numbers never crash the VM", () => {
  it("every run ends normally or with PW diagnostics", () => {
    fc.assert(
      fc.property(program, fc.boolean(), (src, codegen) => {
        const r = runSource(src, { limits: LIMITS, codegen });
        for (const d of r.diagnostics) {
          // An engine error caught only by the run would be positioned at the program (1:1).
          if (d.code === "PW3073") expect(d.span.start.line).toBeGreaterThan(3);
          expect(d.code).toMatch(/^PW[123]\d{3}$/);
          expect(d.code).not.toBe("PW3099");
          expect(d.message).not.toMatch(/^\s+at |Invalid (string|array) length|Maximum call stack/m);
        }
        if (r.ok) expect(r.output).toMatch(/\d+ \d+\n$/);
      }),
    );
  }, 600_000);
});

// Prompts nested or full of braces on one line parse in linear time (issue 34: a check of each
// closing brace's indent walked back to the line's start, quadratic on a long line), and nesting
// on separate lines reaches the PW2007 limit in linear time too. The benchmark over N = 1k…100k
// is scripts/bench-nesting.mjs (docs/benchmarks.md).
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";

const ms = (f: () => unknown) => {
  const t = performance.now();
  f();
  return performance.now() - t;
};

const shapes: Record<string, (n: number) => string> = {
  "`think { do { ` x N on one line": (n) => "var t = " + "think { do { ".repeat(n) + "}".repeat(2 * n) + "\n",
  "`think { ` x N on one line": (n) => "var t = " + "think { ".repeat(n) + "}".repeat(n) + "\n",
  "`{ ` x N inside a prompt": (n) => "var t = think { " + "{ ".repeat(n) + "}".repeat(n) + " }\n",
  "`think {` / `do {` x N on lines of their own": (n) => "var t = think {\n" + "  do {\n    var u = think {\n".repeat(n) + "}\n".repeat(2 * n + 1),
};

describe("parsing nested prompts is linear", () => {
  for (const [name, make] of Object.entries(shapes)) {
    it(`${name}: 16 times N takes about 16 times as long`, () => {
      const n = 500;
      const small = make(n);
      const large = make(16 * n);
      parse(small);
      const tSmall = Math.min(ms(() => parse(small)), ms(() => parse(small)));
      let tLarge = ms(() => parse(large));
      // Linear: ~16x; quadratic: ~256x. Generous for a busy machine; remeasured once on a near miss.
      const budget = 48 * tSmall + 400;
      if (tLarge > budget && tLarge < 3 * budget) tLarge = Math.min(tLarge, ms(() => parse(large)));
      expect(tLarge, `${tLarge.toFixed(0)} ms at N=${16 * n} vs ${tSmall.toFixed(1)} ms at N=${n}`).toBeLessThan(budget);
    }, 120_000);
  }

  it("nesting on lines of their own stops at PW2007 whatever N", () => {
    const r = parse(shapes["`think {` / `do {` x N on lines of their own"]!(20_000));
    expect(r.diagnostics.map((d) => d.code)).toEqual(["PW2007"]);
  });
});

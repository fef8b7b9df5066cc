// PW3032's diff of a drifted prompt (and `patchwork test`'s) is bounded however large the prompt
// (issue 34: a drifted 500,000-line prompt printed 1.95 MB): context around the changes, at most
// 60 lines, each cut at 200 characters, and a count of the rest.
import { describe, expect, it } from "vitest";
import { lineDiff } from "../src/index.js";

describe("lineDiff is bounded", () => {
  it("one changed line in a 500,000-line prompt: that line with its context, the rest elided", () => {
    const lines = Array.from({ length: 500_000 }, (_, i) => `line ${i}`);
    const changed = [...lines];
    changed[250_000] = "line 250000 changed";
    expect(lineDiff(lines.join("\n"), changed.join("\n"))).toBe(["  …", "  line 249998", "  line 249999", "- line 250000", "+ line 250000 changed", "  line 250001", "  line 250002", "  …"].join("\n"));
  });

  it("every line of a 100,000-line prompt changed: 60 lines and a count of the rest", () => {
    const a = Array.from({ length: 100_000 }, (_, i) => `a ${i}`).join("\n");
    const b = Array.from({ length: 100_000 }, (_, i) => `b ${i}`).join("\n");
    const diff = lineDiff(a, b).split("\n");
    expect(diff.length).toBe(61);
    expect(diff[0]).toBe("- a 0");
    expect(diff.at(-1)).toBe("  … and 199940 more changed lines (100000 lines recorded, 100000 now)");
  });

  it("a 2 MB line is cut at 200 characters, saying how long it was", () => {
    const diff = lineDiff("x".repeat(2_000_000), "y".repeat(2_000_000));
    expect(diff).toBe(`- ${"x".repeat(200)}… (2000000 characters)\n+ ${"y".repeat(200)}… (2000000 characters)`);
  });

  it("a small diff is as before", () => {
    expect(lineDiff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n")).toBe("  …\n  b\n  c\n- d\n+ D\n  e\n  f\n  …");
    expect(lineDiff("one\n", "two\n")).toBe("- one\n+ two");
  });
});

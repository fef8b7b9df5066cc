// The figures --verbose shows: digits grouped as `toLocaleString("en-US")` groups them, without loading ICU.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatUsage, groupDigits } from "../src/verbose.js";

describe("usage figures", () => {
  it("groups the digits of any whole number as toLocaleString('en-US') does", () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (x) => groupDigits(x) === x.toLocaleString("en-US")));
    for (const x of [0, 7, 999, 1000, 12345, 999999, 1000000, -1234]) expect(groupDigits(x)).toBe(x.toLocaleString("en-US"));
  });

  it("formats a think's usage", () => {
    const usage = { inputTokens: 1234, outputTokens: 56, totalTokens: 1290, contextTokens: 2000, cost: { USD: 0.0123 } };
    expect(formatUsage(usage)).toBe("tokens 1,234 in / 56 out (1,290 total) · 2,000 tokens in context · cost 0.0123 USD");
    expect(formatUsage({ inputTokens: 0, outputTokens: 0, totalTokens: 0, contextTokens: 0, cost: {} })).toBe("");
  });
});

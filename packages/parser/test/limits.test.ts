// Hostile input: deep nesting and unterminated shell substitutions give positioned
// diagnostics in linear time, never a stack overflow, a hang or silence.
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";
import { codes } from "./helpers.js";

/**
 * CPU milliseconds taken by `parse(source)` (CPU, not wall-clock, time: other processes on a
 * busy machine do not count), and its diagnostics.
 */
function timed(source: string): { ms: number; diagnostics: ReturnType<typeof parse>["diagnostics"] } {
  const t = process.cpuUsage();
  const { diagnostics } = parse(source);
  const d = process.cpuUsage(t);
  return { ms: (d.user + d.system) / 1000, diagnostics };
}

describe("unterminated shell substitutions in a shell statement", () => {
  it.each([
    ["$(", "$ echo $(date\nprint(1)", "PW1006@1:8", /unterminated '\$\(' in shell command: add the closing '\)'/],
    ["$( after a closed one", "$ echo $(a) $(b", "PW1006@1:13", /unterminated '\$\('/],
    ["$( in a block", "if x {\n  $ echo $(date\n}", "PW1006@2:10", /unterminated '\$\('/],
    ["backquote", "$ echo `date\nprint(1)", "PW1006@1:8", /unterminated backquote/],
  ])("%s", (_name, source, expected, message) => {
    const { diagnostics } = parse(source);
    expect(codes(diagnostics)).toEqual([expected]);
    expect(diagnostics[0]!.message).toMatch(message);
  });

  it("the lines after an unterminated backquote are still parsed as Patchwork", () => {
    const { program } = parse("$ echo `date\nprint(1)");
    expect(program.body.map((s) => s.kind)).toEqual(["ShellStmt", "ExprStmt"]);
  });

  it("closed substitutions, quoted ones and multi-line ones are not reported", () => {
    for (const source of ["$ echo $(date) `date`", "$ echo '$(' '`'", "$ echo $(echo a\n  b)", '$ echo "a" $(echo ")")']) {
      expect(codes(parse(source).diagnostics), source).toEqual([]);
    }
  });
});

describe("nested $( in linear time", () => {
  // Before: each unterminated `$(` rescanned the rest of the input (8k levels: 1.3 s, 64k: ~80 s).
  it.each([
    ["unterminated, in a shell line", (n: number) => "$ echo " + "$(".repeat(n) + "\n"],
    ["closed, in a shell line", (n: number) => "$ echo " + "$(echo ".repeat(n) + ")".repeat(n) + "\n"],
    ["unterminated, alternating with quotes", (n: number) => "$ echo " + "$( '$(' ".repeat(n) + "\n"],
    ["unterminated, in a capture", (n: number) => "var x = $(echo " + "$(".repeat(n) + "\n"],
  ])("%s: 8 times the levels take about 8 times as long", (_name, make) => {
    parse(make(1000)); // warm up
    const small = Math.min(timed(make(2000)).ms, timed(make(2000)).ms);
    const large = timed(make(16_000));
    // Linear: ~8x (quadratic: 64x, seconds here); 16x plus a floor for garbage
    // collections, and the best of three tries.
    const budget = 16 * small + 500;
    let best = large.ms;
    for (let retry = 0; retry < 2 && best > budget; retry++) best = Math.min(best, timed(make(16_000)).ms);
    expect(best).toBeLessThan(budget);
    // A closed `$(` is parsed as a nested command (its interpolations need their quoting
    // context, docs/security.md), so 16k closed levels meet the nesting limit (PW2007).
    for (const d of large.diagnostics) expect(["PW1006", "PW2007"]).toContain(d.code);
  });
});

describe("nesting too deep for the parser", () => {
  const constructs: [string, (n: number) => string][] = [
    ["parentheses", (n) => "var x = " + "(".repeat(n) + "1" + ")".repeat(n)],
    ["arrays", (n) => "var x = " + "[".repeat(n) + "1" + "]".repeat(n)],
    ["objects", (n) => "var x = " + "{a: ".repeat(n) + "1" + "}".repeat(n)],
    ["blocks", (n) => "{\n".repeat(n) + "}\n".repeat(n)],
    ["if statements", (n) => "if x {\n".repeat(n) + "}\n".repeat(n)],
    ["prompts", (n) => "var x = " + "think { a ${ ".repeat(n) + "1" + " } }".repeat(n)],
    ["interpolations", (n) => "var x = " + '"${'.repeat(n) + "1" + '}"'.repeat(n)],
    ["prefix operators", (n) => "var x = " + "!".repeat(n) + "1"],
    ["calls", (n) => "var x = " + "f(".repeat(n) + "1" + ")".repeat(n)],
    ["shell capture parentheses", (n) => "var x = $(echo " + "(".repeat(n) + "1" + ")".repeat(n) + ")"],
    ["loops", (n) => "while x {\n".repeat(n) + "}\n".repeat(n)],
    ["do blocks in prompts", (n) => "var x = " + "think {\n do {\n var y = ".repeat(n) + "1" + "\n}\n}".repeat(n)],
  ];

  it.each(constructs)("%s: 20 levels parse cleanly", (_name, make) => {
    expect(codes(parse(make(20)).diagnostics)).toEqual([]);
  });

  it.each(constructs)("%s: 20k levels give one positioned PW2007, no overflow", (_name, make) => {
    const source = make(20_000);
    const { diagnostics } = parse(source);
    expect(diagnostics).toHaveLength(1);
    const d = diagnostics[0]!;
    expect(d.code).toBe("PW2007");
    expect(d.message).toMatch(/nested too deeply/);
    // Positioned where the nesting went too deep: past the first levels, inside the source.
    expect(d.span.start.offset).toBeGreaterThan(50);
    expect(d.span.end.offset).toBeLessThanOrEqual(source.length);
    expect(d.message).toContain(`${d.span.start.line}:${d.span.start.column}`);
  });

  // Chains built by loops (not recursion) nest the tree all the same: bounded too, so that
  // the compiler and other tree walkers cannot overflow on them.
  const chains: [string, (n: number) => string][] = [
    ["operator chains", (n) => "var x = " + Array(n).fill("1").join(" + ")],
    ["assignment chains", (n) => Array(n).fill("a").join(" = ") + " = 1"],
    ["call chains", (n) => "var x = f" + "()".repeat(n)],
    ["member chains", (n) => "var x = o" + ".a".repeat(n)],
    ["index chains", (n) => "var x = o" + "[0]".repeat(n)],
  ];

  it.each(chains)("%s: 500 links parse cleanly, 100k give one positioned PW2007", (_name, make) => {
    expect(codes(parse(make(500)).diagnostics)).toEqual([]);
    const { diagnostics } = parse(make(100_000));
    expect(diagnostics.map((d) => d.code)).toEqual(["PW2007"]);
    expect(diagnostics[0]!.span.start.offset).toBeGreaterThan(500);
  });

  it("the parser works normally after giving up on deep nesting", () => {
    parse("(".repeat(20_000));
    expect(codes(parse("print((1))").diagnostics)).toEqual([]);
  });
});

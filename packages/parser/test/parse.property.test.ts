// Properties of parse() on hostile input (fast-check; seeded in `npm test`, many more runs in
// `npm run fuzz`): random token soup and mutated real programs never make it throw, every
// diagnostic and node span lies inside the source with a line and column that match its
// offset, and repeating any piece of input makes parsing take linear, not quadratic, time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, SourceFile, type Diagnostic } from "../src/index.js";
import { corpus, pieces, mutated, soup } from "./generators.js";
import { checkSpans } from "./helpers.js";

/** A diagnostic is well-formed: a known code, in range, its line and column those of its offset. */
function checkDiagnostic(d: Diagnostic, source: string, src: SourceFile): void {
  const { start, end } = d.span;
  const where = `${d.code} ${JSON.stringify(d.span)} on ${JSON.stringify(source.slice(0, 200))}`;
  if (!(start.offset >= 0 && start.offset <= end.offset && end.offset <= source.length)) throw new Error(`span outside the source: ${where}`);
  const p = src.positionAt(start.offset);
  if (p.line !== start.line || p.column !== start.column) throw new Error(`line/column do not match the offset: ${where}`);
  if (d.message.startsWith("internal parser error")) throw new Error(`${d.message}: ${where}`);
  if (!/^PW[12]\d{3}$/.test(d.code)) throw new Error(`not a lexer or parser code: ${where}`);
}

/** parse() returns (never throws) and everything it reports is well-formed. */
function check(source: string, spans = true): Diagnostic[] {
  const result = parse(source);
  const src = new SourceFile(source);
  for (const d of result.diagnostics) checkDiagnostic(d, source, src);
  if (spans) checkSpans(result.program, source);
  return result.diagnostics;
}

/** CPU milliseconds taken by `f` (not wall-clock time: other processes do not count). */
function ms(f: () => void): number {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

/**
 * Runs per property, from the global setting (100 in `npm test`, PW_FUZZ_RUNS in `npm run
 * fuzz`): single parses are cheap, so those properties run many times that; the
 * time-sensitive one runs fewer, as each run parses two large inputs.
 */
const globalRuns = fc.readConfigureGlobal().numRuns ?? 100;
/** `npm run fuzz` multiplies the runs: give each property time in proportion. */
const timeout = Math.max(30_000, globalRuns * 600);

describe("parse() on hostile input", () => {
  it("random token soup never throws; diagnostics and spans are well-formed", () => {
    fc.assert(fc.property(soup, (s) => void check(s)), { numRuns: globalRuns * 30 });
  }, timeout);

  it("mutated real programs never throw; diagnostics and spans are well-formed", () => {
    fc.assert(fc.property(mutated, (s) => void check(s)), { numRuns: globalRuns * 20 });
  }, timeout);

  it("every prefix of a real program", () => {
    const source = corpus[0]!;
    for (let i = 0; i <= source.length; i += 3) check(source.slice(0, i));
  });

  it("repeating any piece of input 16 times as often takes about 16 times as long (never quadratic)", () => {
    const unit = fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 6 }).map((ps) => ps.join(""));
    const prefix = fc.constantFrom("", "$ echo ", "var x = ", "think {\n", "$ echo \"", "var x = $(", "do <\n$ ", "var x = \"${");
    fc.assert(
      fc.property(prefix, unit, (pre, u) => {
        const n = Math.max(20, Math.floor(2000 / u.length));
        const small = pre + u.repeat(n);
        const large = pre + u.repeat(16 * n);
        check(small, false);
        const tSmall = Math.min(ms(() => parse(small)), ms(() => parse(small)));
        let tLarge = ms(() => check(large, false));
        // Linear: ~16x; quadratic: ~256x. Generous for a busy machine (and fixed costs such as
        // a garbage collection); remeasured up to twice on a miss, the best time counts.
        const budget = 48 * tSmall + 400;
        for (let retry = 0; retry < 2 && tLarge > budget; retry++) tLarge = Math.min(tLarge, ms(() => parse(large)));
        expect(tLarge, `${JSON.stringify(pre + u)} x${16 * n}: ${tLarge.toFixed(0)} ms vs ${tSmall.toFixed(1)} ms at x${n}`).toBeLessThan(budget);
      }),
      { numRuns: Math.max(10, Math.round(globalRuns / 5)) },
    );
  }, timeout);
});

// The formatter's properties on generated programs (fast-check: seeded in `npm test`, more
// runs in `npm run fuzz`): programs built from a small grammar with random layout (spacing,
// indentation, blank lines, comments between, after and inside statements), and corpus
// programs with random lines re-indented or duplicated. Every one that parses must format to
// text with the same AST and comments, and formatting that text again must change nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "../../src/index.js";
import { program } from "../generators.js";
import { corpusFiles, repoRoot, roundtrip } from "./roundtrip.js";

const corpus = corpusFiles()
  .map((f) => readFileSync(join(repoRoot, f), "utf8"))
  .filter((s) => !parse(s).diagnostics.some((d) => d.severity === "error"));

/** Re-indents or duplicates some lines of a corpus program. */
const relaid = fc
  .tuple(fc.nat({ max: corpus.length - 1 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom("indent", "dedent", "blank", "dup")), { minLength: 1, maxLength: 6 }))
  .map(([i, edits]) => {
    const lines = corpus[i]!.split("\n");
    for (const [at, op] of edits) {
      const k = at % lines.length;
      if (op === "indent") lines[k] = "   " + lines[k];
      else if (op === "dedent") lines[k] = lines[k]!.replace(/^\s+/, "");
      else if (op === "blank") lines.splice(k, 0, "");
      else lines.splice(k, 0, lines[k]!);
    }
    return lines.join("\n");
  });

function holds(source: string): void {
  if (parse(source).diagnostics.some((d) => d.severity === "error")) return;
  const { problems, out } = roundtrip(source);
  if (problems.length > 0) throw new Error(`${problems.join("; ")}\n--- input\n${source}\n--- output\n${out}`);
}

describe("formatter properties", () => {
  it("generated programs: same AST, same comments, idempotent", () => {
    let parsed = 0;
    fc.assert(
      fc.property(program, (source) => {
        if (!parse(source).diagnostics.some((d) => d.severity === "error")) parsed++;
        holds(source);
      }),
    );
    // The generator must mostly produce valid programs, or the property says little.
    expect(parsed).toBeGreaterThan(10);
  });

  it("re-laid-out corpus programs: same AST, same comments, idempotent", () => {
    fc.assert(fc.property(relaid, holds));
  });
});

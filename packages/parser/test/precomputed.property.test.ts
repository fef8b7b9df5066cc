// The grammar analysis precomputed at build time (docs/decisions/0011-precomputed-grammar-analysis.md)
// against Chevrotain's own. The compiled parser (dist/, built by `npm run build`) holds the tables:
// they must equal what Chevrotain computes from the current grammar, and a lexer and parser built
// from them must give the same tokens, ASTs and diagnostics (messages and positions, syntax errors
// included) as ones that analysed the grammar themselves, over every fixture, the reference
// corpus, the examples, the docs' Patchwork blocks, every prefix of those, and generated programs.
// Tables that do not match the code, no tables at all, or PATCHWORK_VALIDATE_GRAMMAR=1 mean the
// full analysis: a copy of dist/ as a bare `tsc -b` leaves it (no tables, Chevrotain as
// published rather than the build's patched bundle of it) must give the same results on the same
// inputs. The comparison runs in plain Node (precomputed-check.mjs: vitest's transform
// changes the code's text, which the tables' fingerprint is computed from).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusFiles, repoRoot } from "./format/roundtrip.js";
import { mutated, program, soup } from "./generators.js";

const dist = join(import.meta.dirname, "..", "dist");
const checker = join(import.meta.dirname, "precomputed-check.mjs");

/** Every Patchwork source the project has: fixtures, examples, and the docs' Patchwork blocks. */
function sources(): string[] {
  const out = corpusFiles().map((f) => readFileSync(join(repoRoot, f), "utf8"));
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".md")) for (const m of readFileSync(p, "utf8").matchAll(/```(?:patchwork|pw)[^\n]*\n([\s\S]*?)```/g)) out.push(m[1]!);
    }
  };
  walk(join(repoRoot, "docs"));
  return out;
}

type Report = Record<string, unknown> & { mismatches: unknown[]; compared: number; withErrors: number };

const temp = mkdtempSync(join(tmpdir(), "pw-precomputed-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/**
 * dist/ as a bare `tsc -b` leaves it: no tables, `chevrotain.js` the plain re-export. Under the
 * repository's node_modules/.cache (ignored by git), so that `chevrotain` resolves.
 */
function bareCopy(): string {
  const cache = join(repoRoot, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const copy = mkdtempSync(join(cache, "pw-bare-dist-"));
  cpSync(dist, copy, { recursive: true });
  writeFileSync(join(copy, "tables.js"), "export function loadTables() {\n  return undefined;\n}\n");
  writeFileSync(join(copy, "chevrotain.js"), 'export * from "chevrotain";\n');
  return copy;
}

function check(inputs: string[]): Report {
  const file = join(temp, "inputs.json");
  writeFileSync(file, JSON.stringify(inputs));
  const env = { ...process.env };
  delete env["PATCHWORK_VALIDATE_GRAMMAR"];
  const bare = bareCopy();
  try {
    return JSON.parse(execFileSync(process.execPath, [checker, dist, bare, file], { encoding: "utf8", env, maxBuffer: 64 << 20 })) as Report;
  } finally {
    rmSync(bare, { recursive: true, force: true });
  }
}

const files = sources();
/** Generated inputs per kind, from the global fast-check setting (100 in `npm test`, more in `npm run fuzz`). */
const runs = fc.readConfigureGlobal().numRuns ?? 100;
/** Files, their prefixes (syntax errors of every kind, at every place) and generated programs. */
function inputs(): string[] {
  const out: string[] = [];
  for (const text of files) {
    out.push(text);
    const step = Math.max(1, Math.floor(text.length / 24));
    for (let n = 0; n < text.length; n += step) out.push(text.slice(0, n));
  }
  const seed = fc.readConfigureGlobal().seed ?? 14;
  out.push(...fc.sample(program, { numRuns: runs * 2, seed }));
  out.push(...fc.sample(soup, { numRuns: runs * 6, seed }));
  out.push(...fc.sample(mutated, { numRuns: runs * 3, seed }));
  return out;
}

describe("precomputed grammar analysis", () => {
  let report: Report;
  beforeAll(() => {
    report = check(inputs());
  }, Math.max(120_000, runs * 600));

  it("the build stored tables, and they equal what Chevrotain computes from the current grammar", () => {
    expect(report["tablesPresent"], "dist/tables.js has no tables: run `npm run build`").toBe(true);
    expect(report["tablesEqualComputed"]).toBe(true);
  });

  it("a lexer built from the tables has the state Chevrotain's own analysis gives, field by field", () => {
    expect(report["lexerModes"]).toBeGreaterThan(15);
    expect(report["lexerStates"]).toBeUndefined();
    expect(report["lexerStateEqual"]).toBe(true);
  });

  it("a parser built from the tables records no grammar and has the same lookahead decisions", () => {
    expect(report["fastRecordedRules"]).toBe(0);
    expect(report["fullRecordedRules"]).toBeGreaterThan(50);
    expect(report["lookaheadDecisions"]).toBeGreaterThan(50);
    expect(report["lookaheadKeysEqual"]).toBe(true);
    // Built on demand: none at construction, those the corpus's parses asked for after it, and
    // the same keys as the full analysis once all are listed.
    expect(report["lazyBuiltAtStart"]).toBe(0);
    expect(report["lazyBuiltAfterCorpus"]).toBeGreaterThan(0);
    expect(report["lazyBuiltAfterCorpus"]).toBeLessThanOrEqual(report["lookaheadDecisions"] as number);
    expect(report["lazyKeysEqual"]).toBe(true);
    expect(report["fastRecordedRulesAfter"]).toBe(0);
    expect(report["grammarRecordedOnRequest"]).toBe(true);
  });

  it(`gives the same tokens, AST and diagnostics on ${files.length} files and docs blocks, their prefixes and generated programs`, () => {
    expect(files.length).toBeGreaterThan(60);
    expect(report.mismatches).toEqual([]);
    expect(report.compared).toBeGreaterThan(5000);
    expect(report.withErrors).toBeGreaterThan(2500);
  });

  it("tables that do not match the parser's code are not used; PATCHWORK_VALIDATE_GRAMMAR=1 is the full analysis", () => {
    expect(report["changedFingerprintDiffers"]).toBe(true);
    expect(report["tablesMatchParser"]).toBe(true);
    expect(report["tablesMatchChanged"]).toBe(false);
    expect(report["changedRecordedRules"]).toBe(report["fullRecordedRules"]);
    expect(report["validateRecordedRules"]).toBe(report["fullRecordedRules"]);
    expect(report["validateSkipsValidations"]).toBe(false);
  });

  it("a bare `tsc -b` (no tables, Chevrotain as published) gives the same results by the full analysis", () => {
    expect(report["bareTablesPresent"]).toBe(false);
    expect(report["bareHasInternals"]).toBe(false);
    expect(report["bareRecordedRules"]).toBe(report["fullRecordedRules"]);
    expect(report["bareMismatches"]).toEqual([]);
  });
});

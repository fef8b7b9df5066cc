// The formatter's properties on every program of the repository (examples, parser and
// interpreter fixtures): output parses to the same AST (so every prompt renders to the same
// text), formatting again changes nothing, every comment survives in order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "../../src/index.js";
import { corpusFiles, repoRoot as root, roundtrip } from "./roundtrip.js";

const files = corpusFiles();

describe("formatter on the corpus", () => {
  it("finds the corpus", () => {
    expect(files.length).toBeGreaterThan(40);
  });
  for (const file of files) {
    const source = readFileSync(join(root, file), "utf8");
    if (parse(source).diagnostics.some((d) => d.severity === "error")) continue;
    it(file, () => {
      expect(roundtrip(source).problems).toEqual([]);
    });
  }
});

// Golden tests: each fixture's full AST (spans included) against a snapshot file.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { astToJson, parse } from "../src/index.js";
import { checkSpans } from "./helpers.js";

const dir = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "golden");

describe("golden ASTs", () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith(".pw")))("%s", async (file) => {
    const source = readFileSync(join(dir, file), "utf8");
    const { program, diagnostics } = parse(source, { fileName: file });
    checkSpans(program, source);
    const out = astToJson(program) + "\n" + JSON.stringify(diagnostics, null, 2) + "\n";
    await expect(out).toMatchFileSnapshot(join(dir, file.replace(/\.pw$/, ".ast.json")));
  });
});

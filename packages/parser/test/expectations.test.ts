// Data-driven diagnostics: each fixture in fixtures/errors lists what it must report as
// `# expect error: CODE at LINE:COL` (or `# expect warning: …`) comments; nothing else may be reported.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "../src/index.js";

const dir = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "errors");

describe("expected diagnostics", () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith(".pw")))("%s", (file) => {
    const source = readFileSync(join(dir, file), "utf8");
    const expected = [...source.matchAll(/# expect (error|warning): (PW\d{4}) at (\d+):(\d+)/g)].map((m) => `${m[1]} ${m[2]} at ${m[3]}:${m[4]}`);
    const { diagnostics } = parse(source, { fileName: file });
    const actual = diagnostics.map((d) => `${d.severity} ${d.code} at ${d.span.start.line}:${d.span.start.column}`);
    expect(actual).toEqual(expected);
  });
});

// Every fixture under fixtures/ runs through run() and must print exactly its `# expect:` lines.
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkFixture, listFixtures, runFixture } from "./golden.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

// Both tiers: generated JS (the default) and the closure compiler alone.
for (const codegen of [true, false]) {
  describe(`golden fixtures (${codegen ? "codegen" : "closures only"})`, () => {
    for (const path of listFixtures(root)) {
      it(relative(root, path), () => {
        const r = runFixture(path, undefined, codegen);
        const c = checkFixture(path, r);
        expect(c.actual).toBe(c.expected);
        expect(c.error).toBeNull();
      });
    }
  });
}

// Runtime errors point at the node that raised them: no fixture may expect an error at 1:1
// unless it says why (an error about the whole file), and the errors that used to fall back
// to 1:1 (a stack overflow inside an imported module, an import chain too deep) do not.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runSource, tempDir } from "./helpers.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

function pwFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? pwFiles(join(dir, d.name)) : d.name.endsWith(".pw") ? [join(dir, d.name)] : [],
  );
}

describe("runtime error positions", () => {
  it("no fixture expects a runtime error at 1:1 without saying why", () => {
    const unexplained: string[] = [];
    for (const path of pwFiles(fixtures)) {
      const text = readFileSync(path, "utf8");
      if (/^\s*# expect error: PW3\d{3} at 1:1\s*$/m.test(text) && !/^\s*# at 1:1 because \S/m.test(text)) {
        unexplained.push(relative(fixtures, path));
      }
    }
    expect(unexplained).toEqual([]);
  });

  it("a stack overflow inside an imported module is positioned at its call, in that module's file", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "deep.pw"), "# recursion with no depth limit\nexport fun down(n) {\n  return down(n + 1) + 1\n}\n");
    const main = join(dir, "main.pw");
    const source = 'import {down} from "./deep.pw"\nprint("start")\nprint(down(0))\n';
    // Far past the JS stack: the engine's RangeError is what stops the recursion.
    const r = runSource(source, { cwd: dir, fileName: main, limits: { maxDepth: 10_000_000 } });
    const d = r.diagnostics.find((x) => x.severity === "error")!;
    expect(d.code).toBe("PW3070");
    expect(d.fileName).toBe(join(dir, "deep.pw"));
    expect(d.span.start).toMatchObject({ line: 3, column: 10 });
  });

  it("an import chain too deep is an error at the import that goes too deep", () => {
    const dir = tempDir();
    const n = 400;
    for (let i = 0; i < n; i++) writeFileSync(join(dir, `m${i}.pw`), `# link ${i}\nimport next from "./m${i + 1}.pw"\nexport fun f() { return ${i} }\n`);
    writeFileSync(join(dir, `m${n}.pw`), "export fun f() { return 0 }\n");
    const main = join(dir, "m0.pw");
    const r = runSource(readFileSync(main, "utf8"), { cwd: dir, fileName: main });
    const d = r.diagnostics.find((x) => x.severity === "error")!;
    expect(d.code).toBe("PW3040");
    expect(d.message).toMatch(/imports nested more than \d+ deep/);
    expect(d.fileName).toMatch(/m\d+\.pw$/);
    expect(d.span.start).toMatchObject({ line: 2, column: 1 });
  });
});

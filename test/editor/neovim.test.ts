// Tested in a real editor: headless Neovim (Debian's `neovim` package) runs test/editor/neovim.lua,
// which starts `patchwork lsp` through Neovim's built-in LSP client. Run by `npm run test:editor`
// (CI installs neovim first); skipped, saying so, where `nvim` is not installed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const hasNvim = spawnSync("nvim", ["--version"], { encoding: "utf8" }).status === 0;
if (!hasNvim) console.log("neovim editor test skipped: `nvim` is not installed (apt-get install -y neovim)");

describe.skipIf(!hasNvim)(hasNvim ? "Neovim with patchwork lsp" : "Neovim with patchwork lsp (skipped: `nvim` is not installed: apt-get install -y neovim)", () => {
  it("diagnostics, an incremental edit, hover, definition, references and rename across files, completion and formatting", () => {
    const dir = mkdtempSync(join(tmpdir(), "pw-nvim-"));
    const file = join(dir, "main.pw");
    // The script types into line 5: `print(totl)` → `print(total)`.
    writeFileSync(file, 'fun greet(name: string) {\n  return "hi " + name\n}\nvar total=greet("x")\nprint(totl)\nimport {shout} from "./lib.pw"\nprint(shout(total))\n');
    writeFileSync(join(dir, "lib.pw"), "export fun shout(s) {\n    return s + \"!\"\n}\n");
    const out = join(dir, "out.json");
    const r = spawnSync("nvim", ["--headless", "--clean", "-n", "-c", `luafile ${join(root, "test/editor/neovim.lua")}`], {
      env: { ...process.env, PW_NVIM_OUT: out, PW_NVIM_FILE: file, PW_NODE: process.execPath, PW_BIN: join(root, "packages/cli/bin/patchwork.js") },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(r.error).toBeUndefined();
    const got = JSON.parse(readFileSync(out, "utf8"));
    expect(got.error).toBeUndefined();
    expect(got.steps).toEqual(["started", "diagnostics", "edited", "queried"]);
    expect(got.diagnostics).toEqual(
      expect.arrayContaining([expect.objectContaining({ lnum: 4, col: 6, code: "PW5001", message: "undefined variable 'totl'" })]),
    );
    expect(got.diagnostics_after_edit.map((d: { code: string }) => d.code)).not.toContain("PW5001");
    expect(got.hover.contents.value).toContain("var total");
    expect(got.definition).toEqual([expect.objectContaining({ range: { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } } })]);
    expect(got.completion).toEqual(expect.arrayContaining(["total", "greet", "print", "len"]));
    const refs = (got.references as { uri: string; range: { start: { line: number; character: number } } }[]).map((r) => `${r.uri.slice(r.uri.lastIndexOf("/") + 1)}:${r.range.start.line}:${r.range.start.character}`);
    expect(refs.sort()).toEqual(["lib.pw:0:11", "main.pw:5:8", "main.pw:6:6"]);
    expect(got.renamed_files).toEqual({ "lib.pw": 1, "main.pw": 2 });
    expect(got.formatted).toBe('fun greet(name: string) {\n    return "hi " + name\n}\nvar total = greet("x")\nprint(total)\nimport {shout} from "./lib.pw"\nprint(shout(total))');
  });
});

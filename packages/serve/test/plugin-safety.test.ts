// `patchwork plugin` never loses a file: every input is read before anything is written, the
// plugin is built in a temporary folder beside --out and swapped in only when complete, and an
// unusable --out or a name too long for a file is a usage error that leaves --out as it was.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PluginError, writePlugin } from "../dist/index.js";

function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "pw-plugin-safety-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const fails = (run: () => unknown): PluginError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PluginError);
    return error as PluginError;
  }
  throw new Error("no error");
};

/** Every file under `dir` with its text, for "left as it was". */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const path = sub === "" ? e.name : `${sub}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path), "utf8");
    }
  };
  walk("");
  return files;
}

describe("patchwork plugin: inputs are never lost", () => {
  it("regenerating a plugin from its own edited copy keeps the edit (out/pw/skills.pw --out out)", () => {
    const dir = folder({ "skills.pw": `@skill one\nskill one() { print("v1") }\n` });
    writePlugin({ files: ["skills.pw"], out: "out", cwd: dir });
    const edited = `@skill one\nskill one() { print("edited") }\n@skill two\nskill two() {}\n`;
    writeFileSync(join(dir, "out/pw/skills.pw"), edited);
    const r = writePlugin({ files: ["out/pw/skills.pw"], out: "out", cwd: dir });
    expect(readFileSync(join(dir, "out/pw/skills.pw"), "utf8")).toBe(edited);
    expect(r.skills.map((s) => s.name)).toEqual(["skills:one", "skills:two"]);
    expect(existsSync(join(dir, "out/skills/two/SKILL.md"))).toBe(true);
    // No temporary folder is left beside --out.
    expect(readdirSync(dir).sort()).toEqual(["out", "skills.pw"]);
  });

  it("an input imported from inside --out is read before the old plugin goes", () => {
    const dir = folder({ "main.pw": `import {helper} from "./out/pw/lib.pw"\n@skill one\nskill one() { print(helper()) }\n`, "lib.pw": `@skill lib\nskill lib() {}\n` });
    writePlugin({ files: ["lib.pw"], out: "out", cwd: dir });
    writeFileSync(join(dir, "out/pw/lib.pw"), `export fun helper() { return "from out" }\n`);
    const r = writePlugin({ files: ["main.pw"], out: "out", cwd: dir });
    expect(r.written).toContain("pw/out/pw/lib.pw");
    expect(readFileSync(join(dir, "out/pw/out/pw/lib.pw"), "utf8")).toBe(`export fun helper() { return "from out" }\n`);
  });

  it("a file's mode is kept in its copy", () => {
    const dir = folder({ "a.pw": `#!/usr/bin/env patchwork\n@skill a\nskill a() {}\n` });
    chmodSync(join(dir, "a.pw"), 0o755);
    writePlugin({ files: ["a.pw"], out: "p", cwd: dir });
    expect(statSync(join(dir, "p/pw/a.pw")).mode & 0o777).toBe(0o755);
  });
});

describe("patchwork plugin: an unusable --out or name is a usage error, --out left as it was", () => {
  it("--out naming a file", () => {
    const dir = folder({ "a.pw": `@skill a\nskill a() {}\n`, "taken.txt": "mine" });
    const e = fails(() => writePlugin({ files: ["a.pw"], out: "taken.txt", cwd: dir }));
    expect(e).toMatchObject({ usage: true, message: "taken.txt: a file, not a folder: give --out a new or empty folder" });
    expect(readFileSync(join(dir, "taken.txt"), "utf8")).toBe("mine");
  });

  it("--out inside a file", () => {
    const dir = folder({ "a.pw": `@skill a\nskill a() {}\n`, "taken.txt": "mine" });
    const e = fails(() => writePlugin({ files: ["a.pw"], out: "taken.txt/p", cwd: dir }));
    expect(e).toMatchObject({ usage: true, message: "taken.txt/p: taken.txt is a file, not a folder: give --out a new or empty folder" });
    expect(readFileSync(join(dir, "taken.txt"), "utf8")).toBe("mine");
  });

  it("a 300-character @command name: named, and the previous plugin is untouched", () => {
    const long = "c".repeat(300);
    const dir = folder({ "a.pw": `@skill a\nskill a() {}\n` });
    writePlugin({ files: ["a.pw"], out: "p", cwd: dir });
    const before = snapshot(join(dir, "p"));
    writeFileSync(join(dir, "a.pw"), `@skill a\n@command ${long}\nskill a() {}\n`);
    const e = fails(() => writePlugin({ files: ["a.pw"], out: "p", cwd: dir }));
    expect(e.usage).toBe(true);
    expect(e.message).toBe(`a.pw: @command ${"c".repeat(20)}… (300 characters): a command name has at most 64 characters`);
    expect(snapshot(join(dir, "p"))).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(["a.pw", "p"]);
  });
});

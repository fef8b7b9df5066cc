// What a newcomer reads must be true (issue 23): the CLI package's README (shipped in its
// tarball) lists every command and links nothing the package lacks; the package has the test
// agent's command; docs/cli.md counts the workspace packages right; the manual and
// docs/workers.md agree on workers; the tarball of `npm pack` is ignored by git.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../packages/cli/src/usage-words.js";
import { installForms } from "./package/install-forms.js";

const root = join(import.meta.dirname, "..");
const cliDir = join(root, "packages", "cli");
const read = (p: string) => readFileSync(join(root, p), "utf8");

describe("the commands usage errors know", () => {
  it("are the commands of `patchwork --help`, in its order", () => {
    const help = execFileSync(process.execPath, [join(cliDir, "bin", "patchwork.js"), "--help"], { encoding: "utf8", env: { ...process.env, COLUMNS: "100" } });
    const commands = help.slice(help.indexOf("Commands:"), help.indexOf("\n\n", help.indexOf("Commands:")));
    const listed = [...commands.matchAll(/^ {2}patchwork ([a-z-]+)/gm)].map((m) => m[1]);
    expect(listed).toEqual([...COMMANDS]);
  });
});

describe("the CLI package's README", () => {
  const readme = read("packages/cli/README.md");

  it("lists every command of `patchwork --help`", () => {
    for (const command of COMMANDS) expect(readme, command).toMatch(new RegExp(`^patchwork ${command}\\b`, "m"));
    expect(readme).toContain("patchwork --version");
    expect(readme).toContain("patchwork-test-agent");
  });

  it("links only to the web or to files the package ships", () => {
    const manifest = JSON.parse(read("packages/cli/package.json")) as { files: string[] };
    for (const [, target] of readme.matchAll(/\]\(([^)]+)\)/g)) {
      if (/^https?:/.test(target!)) continue;
      const path = target!.split("#")[0]!;
      expect(manifest.files.some((f) => path === f || path.startsWith(`${f}/`)), target).toBe(true);
      expect(existsSync(join(cliDir, path)), target).toBe(true);
    }
    expect(readme).not.toMatch(/\]\(\.\.\//);
    expect(manifest.files).toContain("README.md");
  });
});

describe("the installed package's commands", () => {
  it("has patchwork-test-agent as a bin, a launcher of the bundled test agent", () => {
    const manifest = JSON.parse(read("packages/cli/package.json")) as { bin: Record<string, string> };
    expect(Object.keys(manifest.bin).sort()).toEqual(["patchwork", "patchwork-test-agent"]);
    const launcher = readFileSync(join(cliDir, manifest.bin["patchwork-test-agent"]!), "utf8");
    expect(launcher.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(launcher).toMatch(/import\("\.\.\/bundle\/test-agent\.js"\)/);
    // Only one workspace package declares the bin, so the checkout's `npx patchwork-test-agent` is this one.
    const others = readdirSync(join(root, "packages")).filter(
      (p) => p !== "cli" && existsSync(join(root, "packages", p, "package.json")) && (JSON.parse(read(`packages/${p}/package.json`)) as { bin?: Record<string, string> }).bin?.["patchwork-test-agent"],
    );
    expect(others).toEqual([]);
  });
});

describe("the docs agree with the repository", () => {
  it("docs/cli.md counts the workspace packages the bundle holds", () => {
    const workspaces = (JSON.parse(read("package.json")) as { workspaces: string[] }).workspaces;
    const words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    expect(read("docs/cli.md")).toContain(`all ${words[workspaces.length]} workspace packages`);
    expect(read("docs/cli.md")).not.toMatch(/all (four|five) packages/);
  });

  it("the manual and docs/workers.md agree that self.delegate and self.session are supported", () => {
    expect(read("docs/workers.md")).toMatch(/\*\*`self\.delegate\(\[t1, t2, …\]\)`\*\*/);
    const manual = read("docs/manual/language.md");
    expect(manual).not.toMatch(/self\.delegate[^\n]*\n?[^\n]*not supported/);
    expect(manual).toContain("[workers.md](../workers.md)");
  });

  it("git ignores the tarball npm pack leaves in the repository root", () => {
    const ignored = execFileSync("git", ["check-ignore", "--no-index", "patchwork-cli-0.1.0.tgz"], { cwd: root, encoding: "utf8" });
    expect(ignored.trim()).toBe("patchwork-cli-0.1.0.tgz");
  });
});

describe("the install forms the docs show (test/package runs each)", () => {
  const forms = installForms(root);

  it("are found in README.md, docs/cli.md, docs/plugins.md, docs/mcp.md and the tutorial", () => {
    const files = new Set(forms.map((f) => f.where.split(":")[0]));
    for (const file of ["README.md", "docs/cli.md", "docs/plugins.md", "docs/mcp.md", "docs/manual/tutorial.md"]) expect([...files]).toContain(file);
  });

  it("run the tarball through npx as `npx -y --package=TARBALL patchwork …` (the only form npx runs)", () => {
    for (const form of forms.filter((f) => f.kind === "npx")) expect(form.line, form.where).toMatch(/^npx -y --package=\S+\.tgz patchwork( |$)/);
  });
});

describe("docs/cli.md's option table (issue 35)", () => {
  it("has one row per option of option-table.ts, with the commands it applies to", async () => {
    const { OPTIONS } = await import("../packages/cli/src/option-table.js");
    const text = read("docs/cli.md");
    const section = text.slice(text.indexOf("## Options\n"), text.indexOf("## `patchwork run`"));
    const rows = [...section.matchAll(/^\| `--([a-z-]+)`(?:, `-[a-z]`)? \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim()]);
    expect(rows).toEqual(OPTIONS.map((o) => [o.name, Object.keys(o.commands).map((c) => `\`${c}\``).join(" ")]));
  });
});

describe("the agent presets: one list everywhere (issue 35)", () => {
  it("presets.ts, the option table, --help, README, the manual and the docs name the same six", async () => {
    const { PRESET_NAMES } = await import("../packages/cli/src/option-table.js");
    const { presetNames } = await import("../packages/cli/src/presets.js");
    expect([...PRESET_NAMES]).toEqual(presetNames);
    const help = execFileSync(process.execPath, [join(cliDir, "bin", "patchwork.js"), "--help"], { encoding: "utf8", env: { ...process.env, COLUMNS: "200" } });
    expect(help.replace(/\s+/g, " ")).toContain(`a preset: ${PRESET_NAMES.join(", ")})`);
    const listed = PRESET_NAMES.map((p) => `\`${p}\``).join(", ");
    for (const file of ["README.md", "packages/cli/README.md", "docs/manual/cli.md", "docs/mcp.md", "docs/editors.md"]) {
      expect(read(file).replace(/\s+/g, " "), file).toContain(listed);
    }
    // No list of only some of them.
    for (const file of ["README.md", "packages/cli/README.md", "docs/manual/cli.md", "docs/mcp.md", "docs/editors.md", "docs/cli.md"]) {
      expect(read(file).replace(/\s+/g, " "), file).not.toMatch(/`claude`, `codex`(,| or) `gemini`(?!, `opencode`)/);
    }
  });
});

// `patchwork plugin` as users run it (the bundle): what it writes and prints, and its errors.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

describe("patchwork plugin", () => {
  it("writes the plugin of the reference's greeter and says how to install it", () => {
    const dir = tempFiles({});
    const out = join(dir, "greeter-plugin");
    const r = patchwork(["plugin", "test/agents/skills/greeter.pw", "--out", out, "--agent", "gemini", "--patchwork", `node "${join(repoRoot, "packages/cli/bin/patchwork.js")}"`]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        `wrote plugin greeter 0.1.0 to ${out}`,
        "  skill greeter:greet (MCP tool greet)",
        `install it:  claude plugin marketplace add ${out} && claude plugin install greeter@patchwork-greeter`,
        `or try it:   claude --plugin-dir ${out}`,
        "",
      ].join("\n"),
    );
    const mcp = JSON.parse(readFileSync(join(out, ".mcp.json"), "utf8"));
    expect(mcp.mcpServers.patchwork).toEqual({
      command: "node",
      args: [join(repoRoot, "packages/cli/bin/patchwork.js"), "mcp", "${CLAUDE_PLUGIN_ROOT}/pw/greeter.pw", "--agent", "gemini"],
    });
    expect(readFileSync(join(out, "skills/greet/SKILL.md"), "utf8")).toMatch(/^---\nname: greet\n/);
  });

  it("a syntax error: exit 1, positioned, no stack trace", () => {
    const dir = tempFiles({ "bad.pw": "@skill a\nskill a() {\n    var = 1\n}\n" });
    const r = patchwork(["plugin", "bad.pw", "--out", "p"], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^patchwork plugin: bad\.pw:3:9: error\[PW\d+\]: .*\n3 \|     var = 1\n/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("usage errors exit 2: no --out, a missing file", () => {
    const noOut = patchwork(["plugin", "test/agents/skills/greeter.pw"]);
    expect(noOut.status).toBe(2);
    expect(noOut.stderr).toMatch(/Missing required argument: out/);
    const missing = patchwork(["plugin", "no/such.pw", "--out", join(tempFiles({}), "p")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe("patchwork: no/such.pw: no such file\nRun 'patchwork plugin --help' for usage.\n");
  });

  it("regenerating a plugin from its own edited copy keeps the edit; --out naming a file: exit 2, the file kept", () => {
    const dir = tempFiles({ "skills.pw": `@skill one\nskill one() { print(1) }\n`, "taken.txt": "mine" });
    expect(patchwork(["plugin", "skills.pw", "--out", "out"], { cwd: dir }).status).toBe(0);
    const edited = `@skill one\nskill one() { print("edited") }\n`;
    writeFileSync(join(dir, "out/pw/skills.pw"), edited);
    const again = patchwork(["plugin", "out/pw/skills.pw", "--out", "out"], { cwd: dir });
    expect(again.stderr).toBe("");
    expect(again.status).toBe(0);
    expect(readFileSync(join(dir, "out/pw/skills.pw"), "utf8")).toBe(edited);
    const file = patchwork(["plugin", "skills.pw", "--out", "taken.txt"], { cwd: dir });
    expect(file.status).toBe(2);
    expect(file.stderr).toBe("patchwork: taken.txt: a file, not a folder: give --out a new or empty folder\nRun 'patchwork plugin --help' for usage.\n");
    expect(readFileSync(join(dir, "taken.txt"), "utf8")).toBe("mine");
  });

  it("is listed by --help", () => {
    expect(patchwork(["--help"]).stdout).toMatch(/plugin <files\.\.>\s+write a Claude Code plugin/);
  });
});

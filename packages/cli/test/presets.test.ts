// `--agent gemini`: the flags follow the installed Gemini CLI's version, read from its package.json.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { geminiArgs, resolveAgentCommand } from "../src/presets.js";
import { patchwork, tempFiles } from "./helpers.js";

/** A fake global install of @google/gemini-cli whose bin prints its arguments to stderr and fails. */
function fakeGemini(version: string | null): string {
  const root = mkdtempSync(join(tmpdir(), "pw-gemini-"));
  const pkg = join(root, "lib", "node_modules", "@google", "gemini-cli");
  mkdirSync(join(pkg, "bundle"), { recursive: true });
  if (version) writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@google/gemini-cli", version }));
  const script = join(pkg, "bundle", "gemini.js");
  writeFileSync(script, '#!/bin/sh\necho "gemini-args: $*" >&2\nexit 3\n');
  chmodSync(script, 0o755);
  mkdirSync(join(root, "bin"));
  symlinkSync(script, join(root, "bin", "gemini"));
  return join(root, "bin");
}

/** The flags chosen for an install of that version, without running anything. */
function argsFor(version: string | null): string {
  return geminiArgs(join(fakeGemini(version), "gemini")).join(" ");
}

/** The arguments `patchwork run --agent gemini` really started the fake with. */
function startedWith(version: string): string {
  const prog = join(tempFiles({ "p.pw": "print(think { Say hi. })\n" }), "p.pw");
  const r = patchwork(["run", prog, "--agent", "gemini"], { env: { PATH: `${fakeGemini(version)}:${process.env.PATH}` } });
  expect(r.status).toBe(1);
  const m = /gemini-args: (.*)/.exec(r.stderr);
  if (!m) throw new Error(`the fake gemini did not run: ${r.stderr}`);
  return m[1]!.trim();
}

describe("--agent gemini", () => {
  it("current versions: patchwork starts `gemini --acp --skip-trust`", () => {
    expect(startedWith("0.61.0")).toBe("--acp --skip-trust");
    expect(argsFor("0.41.0")).toBe("--acp --skip-trust");
  });

  it("before 0.33: --experimental-acp", () => {
    expect(argsFor("0.32.1")).toBe("--experimental-acp");
  });

  it("0.37 to 0.40, which reject --skip-trust: --acp alone", () => {
    expect(argsFor("0.38.2")).toBe("--acp");
  });

  it("an install whose version cannot be read gets the current flags", () => {
    expect(argsFor(null)).toBe("--acp --skip-trust");
  });
});

describe("--agent opencode|copilot|qwen", () => {
  /** A PATH holding empty executables with these names. */
  function pathWith(...names: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), "pw-presets-"));
    for (const name of names) {
      writeFileSync(join(dir, name), "#!/bin/sh\nexit 3\n");
      chmodSync(join(dir, name), 0o755);
    }
    return dir;
  }

  it("opencode: `opencode acp` (plain `opencode` is its terminal UI); copilot: our server's tools allowed by name", () => {
    expect(resolveAgentCommand("opencode", { PATH: pathWith("opencode") })).toBe("opencode acp");
    expect(resolveAgentCommand("copilot", { PATH: pathWith("copilot") })).toBe("copilot --acp --allow-tool=patchwork");
    expect(() => resolveAgentCommand("qwen", { PATH: pathWith() })).toThrow(/'qwen' not found on PATH \(install it with: npm install -g @qwen-code\/qwen-code\)/);
  });

  it("qwen: started with system defaults that make do visible, keeping the user's own defaults", () => {
    const mine = join(mkdtempSync(join(tmpdir(), "pw-qwen-")), "system-defaults.json");
    writeFileSync(mine, JSON.stringify({ tools: { visible: ["web_fetch"] }, ui: { enableFollowupSuggestions: true }, model: { name: "m" } }));
    const command = resolveAgentCommand("qwen", { PATH: pathWith("qwen"), QWEN_CODE_SYSTEM_DEFAULTS_PATH: mine });
    const m = /^env QWEN_CODE_SYSTEM_DEFAULTS_PATH=(\S+) qwen --acp$/.exec(command);
    expect(m, command).not.toBeNull();
    const defaults = JSON.parse(readFileSync(m![1]!, "utf8")) as Record<string, Record<string, unknown>>;
    expect(defaults.tools!.visible).toEqual(["web_fetch", "mcp__patchwork__do"]);
    expect(defaults.ui!.enableFollowupSuggestions).toBe(true);
    expect(defaults.memory!.enableManagedAutoMemory).toBe(false);
    expect(defaults.model).toEqual({ name: "m" });
  });

  it("a hand-written qwen command line gets the same system defaults, unless it sets them itself", () => {
    const env = { PATH: pathWith() };
    const plain = resolveAgentCommand("qwen --acp -m local", env);
    const m = /^env QWEN_CODE_SYSTEM_DEFAULTS_PATH=(\S+) qwen --acp -m local$/.exec(plain);
    expect(m, plain).not.toBeNull();
    expect((JSON.parse(readFileSync(m![1]!, "utf8")) as { tools: { visible: string[] } }).tools.visible).toContain("mcp__patchwork__do");
    expect(resolveAgentCommand("/opt/q/bin/qwen --acp", env)).toMatch(/^env QWEN_CODE_SYSTEM_DEFAULTS_PATH=\S+ \/opt\/q\/bin\/qwen --acp$/);
    const own = "env QWEN_CODE_SYSTEM_DEFAULTS_PATH=/etc/mine.json qwen --acp";
    expect(resolveAgentCommand(own, env)).toBe(own);
    // Other commands are used as they are.
    expect(resolveAgentCommand("qwenish --acp", env)).toBe("qwenish --acp");
    expect(resolveAgentCommand("claude-agent-acp", env)).toBe("claude-agent-acp");
    expect(resolveAgentCommand("node my-qwen.js", env)).toBe("node my-qwen.js");
  });
});

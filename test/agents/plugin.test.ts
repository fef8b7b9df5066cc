/**
 * `patchwork plugin` against the real Claude Code (docs/plugins.md):
 * - the `claude` command of the pinned Agent SDK's platform package validates the plugin
 *   (`claude plugin validate --strict`), adds its marketplace, installs it and lists its skill
 *   and MCP server (`claude plugin details`);
 * - Claude Code's ACP adapter loads it as a local plugin (`_meta.claudeCode.options.plugins`,
 *   which the Agent SDK passes as `--plugin-dir`): prompted "Use the greeter:greet skill to greet
 *   Alice", the model is shown the skill as `greeter:greet`, calls it (the Skill tool, which
 *   loads SKILL.md), then the MCP tool SKILL.md names; the plugin's own `patchwork mcp` runs the
 *   skill, whose think a second agent answers, and that answer reaches the final answer.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Rule } from "./fakes/server.js";
import { CLI, figure, installed, REPO } from "./harness.js";
import { describeSession, runSkillSession, scriptedAgent } from "./mcp-harness.js";
import { claude } from "./setups.js";
import { CASES, INNER_SCRIPT, prompt, SKILLS } from "./skill-cases.js";

const SDK_DIR = join(REPO, "test/agents/node_modules/@anthropic-ai");
/** The native `claude` command the Agent SDK ships in its platform package (claude-agent-sdk-<platform>). */
const CLAUDE_BIN = existsSync(SDK_DIR)
  ? readdirSync(SDK_DIR)
      .filter((d) => d.startsWith("claude-agent-sdk-"))
      .map((d) => join(SDK_DIR, d, "claude"))
      .find((f) => existsSync(f))
  : undefined;

/** `patchwork plugin FILE --out DIR …` through the real CLI; fails the test on a non-zero exit. */
function writePlugin(file: string, out: string, extra: string[] = []): void {
  const r = spawnSync(process.execPath, [CLI, "plugin", file, "--out", out, ...extra], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`patchwork plugin failed (${r.status}): ${r.stderr}`);
}

const GREETER = CASES.find((c) => c.file === "greeter")!;

describe.skipIf(!CLAUDE_BIN)(`patchwork plugin: checked by the claude command${CLAUDE_BIN ? "" : " (skipped: the Agent SDK's claude binary is not installed)"}`, () => {
  it("validates (--strict), installs from its marketplace, and lists the skill and the MCP server", () => {
    const root = mkdtempSync(join(tmpdir(), "pw-agents-plugin-"));
    try {
      const out = join(root, "greeter-plugin");
      writePlugin(join(SKILLS, "greeter.pw"), out, ["--agent", "claude"]);
      const env = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: join(root, "home"),
        CLAUDE_CONFIG_DIR: join(root, "home/.claude"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
      };
      const claudeCmd = (...args: string[]) => {
        const r = spawnSync(CLAUDE_BIN!, args, { cwd: root, env, encoding: "utf8", timeout: 60_000 });
        return { ...r, why: `claude ${args.join(" ")} → ${r.status}\n${r.stdout}\n${r.stderr}` };
      };
      for (const manifest of ["plugin.json", "marketplace.json"]) {
        const v = claudeCmd("plugin", "validate", "--strict", "--json", join(out, ".claude-plugin", manifest));
        expect(v.status, v.why).toBe(0);
        const report = JSON.parse(v.stdout);
        expect(report.success, v.why).toBe(true);
        expect(report.manifest.type).toBe(manifest === "plugin.json" ? "plugin" : "marketplace");
        expect([...report.manifest.errors, ...report.manifest.warnings], v.why).toEqual([]);
      }
      const add = claudeCmd("plugin", "marketplace", "add", out);
      expect(add.status, add.why).toBe(0);
      expect(add.stdout, add.why).toContain("patchwork-greeter");
      const install = claudeCmd("plugin", "install", "greeter@patchwork-greeter");
      expect(install.status, install.why).toBe(0);
      const details = claudeCmd("plugin", "details", "greeter@patchwork-greeter");
      expect(details.status, details.why).toBe(0);
      expect(details.stdout, details.why).toMatch(/Skills \(1\)\s+greet\n/);
      expect(details.stdout, details.why).toMatch(/MCP servers \(1\)\s+patchwork\b/);
      expect(details.stdout, details.why).toContain("Description: greeter plugin");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.skipIf(!installed("claude-agent-acp"))("patchwork plugin: loaded into Claude Code (claude-agent-acp, a local plugin)", () => {
  it('"Use the greeter:greet skill to greet Alice": listed as greeter:greet, called, its think\'s greeting in the answer', async () => {
    const wording = prompt("greeter");
    const mcpTool = "mcp__plugin_greeter_patchwork__greet";
    const rules: Rule[] = [
      // The model invokes the skill by the name it was shown…
      { when: wording, afterTool: false, times: 1, reply: { tool: "Skill", input: { skill: "greeter:greet", args: "Alice" } } },
      // … Claude Code loads SKILL.md, which names the MCP tool to call …
      { when: `call the MCP tool \`greet\``, afterTool: true, times: 1, reply: { tool: mcpTool, input: { name: "Alice" } } },
      // … and answers with what the skill gave back.
      { afterTool: true, times: 1, reply: (q) => ({ text: `The skill said:\n${q.latest}` }) },
    ];
    let pluginDir = "";
    const r = await runSkillSession(claude, {
      prompt: wording,
      rules,
      prepare: (dirs) => {
        pluginDir = join(dirs.root, "greeter-plugin");
        const agent = scriptedAgent(dirs, INNER_SCRIPT);
        writePlugin(join(SKILLS, "greeter.pw"), pluginDir, ["--agent", agent, "--patchwork", `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`]);
      },
      plugins: () => [pluginDir],
    });
    const why = describeSession(r);
    expect(r.error, why).toBeUndefined();
    expect(r.stopReason, why).toBe("end_turn");
    const turn = r.modelRequests.filter((q) => !q.model?.side);
    // The first turn request lists the skill as greeter:greet among those of the Skill tool (the
    // prompt names it too: the assertion is on Claude Code's own list).
    const first = JSON.stringify(turn[0]!.body);
    const skillList = first.indexOf("The following skills are available for use with the Skill tool:");
    expect(skillList, why).toBeGreaterThan(0);
    // In the JSON of the request body, a newline is `\n`.
    expect(first.slice(skillList), why).toContain("\\n- greeter:greet: Greets a user with a personalized message\\n");
    expect(turn[0]!.model!.tools, why).toContain("Skill");
    // Skill → SKILL.md (naming the MCP tool) → the MCP tool → the answer. The plugin's MCP server
    // connects while the turn goes on (Claude Code does not wait for it): its tool is offered
    // from the request after it connected, and always by the one after the call.
    expect(r.hits, why).toEqual([1, 1, 1]);
    const skillMd = r.modelRequests.find((q) => q.decision?.rule === 1)!.model!;
    expect(skillMd.latest, why).toContain("Launching skill: greeter:greet");
    expect(skillMd.latest, why).toContain(mcpTool);
    expect(r.modelRequests.find((q) => q.decision?.rule === 2)!.model!.tools, why).toContain(mcpTool);
    const result = r.modelRequests.find((q) => q.decision?.rule === 2)!.model!.latest;
    expect(result, why).toContain("Preparing greeting for Alice...");
    expect(result, why).toContain(GREETER.answer);
    expect(r.answer, why).toContain(GREETER.answer);
    expect(r.leftovers, "processes left behind").toEqual([]);
    figure("claude", "greeter plugin, Skill → MCP tool → answer: prompt to answer (s)", (r.promptMs / 1000).toFixed(2));
  });
});

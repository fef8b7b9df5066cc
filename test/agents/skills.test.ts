/**
 * The reference's four integration skills (test/agents/skills/*.pw, from patchwork-lang/patchwork
 * tests/integration: greeter, interpolation-test, delegation-test, mailbox-test) called by real
 * Claude Code, Codex and Gemini CLI from their prompt.txt wording, with `patchwork mcp` in
 * `session/new`'s `mcpServers`. The fake model API calls the tool the prompt names; the skill's
 * thinks are answered by a second agent (`patchwork mcp --agent <the scripted test agent>`), and
 * that agent's answer must come back in the tool result and so into the caller's final answer.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { figure, installed, type AgentSetup } from "./harness.js";
import { describeSession, patchworkMcp, runSkillSession, scriptedAgent } from "./mcp-harness.js";
import { claude, codex, gemini } from "./setups.js";
import { CASES, INNER_SCRIPT, prompt, skillRules, SKILLS } from "./skill-cases.js";

const AGENTS: [AgentSetup, string][] = [
  [claude, "claude-agent-acp"],
  [codex, "codex-acp"],
  [gemini, "gemini"],
];

for (const [setup, command] of AGENTS) {
  const present = installed(command);
  describe.skipIf(!present)(`${setup.name}: the reference's integration skills through patchwork mcp${present ? "" : ` (skipped: ${command} not installed)`}`, () => {
    it.each(CASES)("$file: called from its prompt, its think answered by a second agent", async (c) => {
      const wording = prompt(c.file);
      const r = await runSkillSession(setup, {
        prompt: wording,
        rules: skillRules(c, wording),
        mcpServers: (dirs) => [patchworkMcp([join(SKILLS, `${c.file}.pw`)], scriptedAgent(dirs, INNER_SCRIPT))],
      });
      const why = describeSession(r);
      expect(r.error, why).toBeUndefined();
      expect(r.stopReason, why).toBe("end_turn");
      // The model called the skill's tool once, and then answered.
      expect(r.hits, why).toEqual([1, 1]);
      const call = r.modelRequests.find((q) => q.decision?.rule === 0)!;
      expect(call.decision?.kind === "tool" && call.decision.name, why).toMatch(new RegExp(`[_]${c.tool}$`));
      // The tool result the model saw holds what the skill printed and the second agent's answer.
      const result = r.modelRequests.find((q) => q.decision?.rule === 1)!.model!.latest;
      for (const line of c.printed) expect(result, why).toContain(line);
      expect(result, why).toContain(c.answer);
      expect(result, why).not.toContain("UNEXPECTED THINK");
      // … and so does the caller's final answer.
      expect(r.answer, why).toContain(c.answer);
      expect(r.leftovers, "processes left behind").toEqual([]);
      figure(setup.name, `${c.file} through patchwork mcp: prompt to answer (s)`, (r.promptMs / 1000).toFixed(2));
    });
  });
}

/**
 * The reference's four integration skills (test/agents/skills/*.pw, from patchwork-lang/patchwork
 * tests/integration: greeter, interpolation-test, delegation-test, mailbox-test) called by real
 * Claude Code, Codex and Gemini CLI from their prompt.txt wording, with `patchwork mcp` in
 * `session/new`'s `mcpServers`. The fake model API calls the tool the prompt names; the skill's
 * thinks are answered by a second agent (`patchwork mcp --agent <the scripted test agent>`), and
 * that agent's answer must come back in the tool result and so into the caller's final answer.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ModelRequest, Rule } from "./fakes/server.js";
import { installed, REPO, type AgentSetup } from "./harness.js";
import { describeSession, patchworkMcp, runSkillSession, scriptedAgent } from "./mcp-harness.js";
import { claude, codex, gemini } from "./setups.js";

const SKILLS = join(REPO, "test/agents/skills");
const prompt = (name: string) => readFileSync(join(SKILLS, `${name}.prompt.txt`), "utf8").trim();

/** What the second agent answers to each think of the four skills (matched on interpolated values). */
export const INNER_SCRIPT = {
  prompts: [
    { match: "greet the user named Alice", steps: [{ reply: "Hello Alice, have a wonderful day! (second agent)" }] },
    { match: "- Count: 42", steps: [{ reply: "INTERPOLATION PASSED for TestUser and 42 (second agent)" }] },
    { match: "Task A is analyzing", steps: [{ reply: "A-complete" }] },
    { match: "Task B is processing", steps: [{ reply: "B-complete" }] },
    { match: "Task C is validating", steps: [{ reply: "C-complete" }] },
    { match: "- Task C: C-complete", steps: [{ reply: "DELEGATION PASSED: A-complete, B-complete, C-complete (second agent)" }] },
    { match: "- Sum of values: 150", steps: [{ reply: "MAILBOX PASSED: 5 messages, sum 150 (second agent)" }] },
  ],
  fallback: { steps: [{ reply: "UNEXPECTED THINK" }] },
};

interface SkillCase {
  file: string;
  tool: string;
  input: Record<string, unknown>;
  /** The second agent's answer that must reach the caller's answer. */
  answer: string;
  /** Lines the skill prints that the tool result carries too. */
  printed: string[];
}

export const CASES: SkillCase[] = [
  { file: "greeter", tool: "greet", input: { name: "Alice" }, answer: "Hello Alice, have a wonderful day! (second agent)", printed: ["Preparing greeting for Alice..."] },
  { file: "interpolation-test", tool: "test", input: { name: "TestUser", count: 42 }, answer: "INTERPOLATION PASSED for TestUser and 42 (second agent)", printed: [] },
  { file: "delegation-test", tool: "test", input: {}, answer: "DELEGATION PASSED: A-complete, B-complete, C-complete (second agent)", printed: ["Task A complete", "All tasks completed"] },
  { file: "mailbox-test", tool: "test", input: {}, answer: "MAILBOX PASSED: 5 messages, sum 150 (second agent)", printed: ["Received message 5: value=50"] },
];

/** The tool offered to the model whose name ends with `tool` (each agent prefixes MCP tools its own way). */
export function offered(request: ModelRequest, tool: string): string {
  const name = request.tools.find((t) => t.endsWith(`__${tool}`) || t.endsWith(`_${tool}`));
  if (!name) throw new Error(`no tool ${tool} offered: ${request.tools.join(", ")}`);
  return name;
}

/** The fake model: the prompt → a call of the skill's tool; its result → an answer quoting it. */
export function skillRules(c: SkillCase, wording: string): Rule[] {
  return [
    { when: wording, afterTool: false, times: 1, reply: (q) => ({ tool: offered(q, c.tool), input: c.input }) },
    { afterTool: true, times: 1, reply: (q) => ({ text: `The skill said:\n${q.latest}` }) },
  ];
}

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
    });
  });
}

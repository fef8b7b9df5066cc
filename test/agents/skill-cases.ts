/**
 * The reference's four integration skills (test/agents/skills/: greeter, interpolation-test,
 * delegation-test, mailbox-test, with their prompt.txt wording) as the real-agent tests call
 * them: what the second agent (`patchwork mcp --agent <scripted test agent>`) answers to each
 * think, what each call's tool result and the caller's answer must hold, and the fake model's
 * rules (call the skill's tool from the prompt, then answer quoting its result).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ModelRequest, Reply, Rule } from "./fakes/server.js";
import { REPO } from "./harness.js";

export const SKILLS = join(REPO, "test/agents/skills");

/** The reference's prompt for a skill (its prompt.txt). */
export const prompt = (name: string) => readFileSync(join(SKILLS, `${name}.prompt.txt`), "utf8").trim();

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

export interface SkillCase {
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
export function offered(request: ModelRequest, tool: string): string | undefined {
  return request.tools.find((t) => t.endsWith(`__${tool}`) || t.endsWith(`_${tool}`));
}

/** Calls the offered tool named `tool`, or (not offered) answers saying so, which fails the test's assertions. */
export function callTool(request: ModelRequest, tool: string, input: Record<string, unknown>): Reply {
  const name = offered(request, tool);
  return name ? { tool: name, input } : { text: `(fake model: no tool ${tool} offered: ${request.tools.join(", ")})` };
}

/** The fake model: the prompt → a call of the skill's tool; its result → an answer quoting it. */
export function skillRules(c: SkillCase, wording: string): Rule[] {
  return [
    { when: wording, afterTool: false, times: 1, reply: (q) => callTool(q, c.tool, c.input) },
    { afterTool: true, times: 1, reply: (q) => ({ text: `The skill said:\n${q.latest}` }) },
  ];
}

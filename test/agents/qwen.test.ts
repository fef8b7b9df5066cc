/**
 * Qwen Code (`@qwen-code/qwen-code`, pinned in test/agents/package.json; `qwen --acp`) against
 * the fake OpenAI-compatible Chat Completions API (fakes/chat.ts), through `patchwork run
 * --agent qwen`. It cannot offer our `do` tool to its model (its profile, docs/agents.md): a
 * think with `do` blocks fails with that reason, one without runs.
 */
import { expect, it } from "vitest";
import { qwen } from "./chat-setups.js";
import { describeRun, runAgent } from "./harness.js";
import { describeAgent, expectClean, expectThinkError, ONE_DO, type AgentSpec } from "./suite.js";

const spec: AgentSpec = { command: "qwen", doToolName: "mcp__patchwork__do", requestsPerThink: 2, transports: ["http"] };

describeAgent("Qwen Code (qwen --acp)", spec, () => {
  it("a think with do blocks fails with the reason (PW4012), before any model request: never a made-up value", async () => {
    const r = await runAgent(qwen, { source: ONE_DO, rules: [{ when: "Pick the block", afterTool: false, reply: { call: 0 } }] });
    expectThinkError(r, "PW4012", /Qwen Code \(0\.24\) hides the MCP tools .* so its model cannot call do/);
    expect(r.modelRequests).toEqual([]);
  });

  it("a typed think without do blocks runs, with its repair turn in the same session", async () => {
    const r = await runAgent(qwen, {
      program: "examples/typed-think.pw",
      rules: [
        { when: "Classify this document", afterTool: false, reply: { text: "It looks like a receipt to me." } },
        { when: "Your answer could not be used", afterTool: false, reply: { text: '```json\n{"category": "RECEIPT", "confidence": 0.9}\n```' } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe('{"category":"RECEIPT","confidence":0.9}\n');
    expectClean(r);
  });
});

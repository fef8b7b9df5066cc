/**
 * Qwen Code (`@qwen-code/qwen-code`, pinned in test/agents/package.json; `qwen --acp`) against
 * the fake OpenAI-compatible Chat Completions API (fakes/chat.ts), through `patchwork run
 * --agent qwen`: the preset's system defaults offer our tool to the model directly, its
 * profile waits for the session's MCP discovery and puts the session in mode `default`.
 */
import { expect, it } from "vitest";
import { qwen } from "./chat-setups.js";
import { runAgent } from "./harness.js";
import { agentSuite, describeAgent, expectThinkError, ONE_DO, type AgentSpec } from "./suite.js";
import { expectSuccessorWorks } from "./successor.js";

const spec: AgentSpec = {
  command: "qwen",
  doToolName: "mcp__patchwork__do",
  // The turn and the turn with the tool result.
  requestsPerThink: 2,
  transports: ["http", "stdio"],
  // Asked because the profile puts every session in mode `default`; recognised by `_meta.toolName`, not this title.
  permissionLine: /\[permission \{"number":0\}: allow\]/,
};

describeAgent("Qwen Code (qwen --acp)", spec, () => {
  agentSuite(qwen, spec);

  it("--permissions deny: Qwen Code's request for do is denied, PW4016, never a value", async () => {
    const r = await runAgent(qwen, {
      source: ONE_DO,
      args: ["--verbose", "--permissions", "deny"],
      rules: [
        { when: "Pick the block", afterTool: false, reply: { call: 0 } },
        { afterTool: true, reply: { text: "DONE" } },
      ],
    });
    expect(r.stdout).not.toContain("block ran");
    expectThinkError(r, "PW4016", /did not run: the permission policy denied it/);
  });

  it("patchwork acp --agent qwen: a plain prompt passes through, a program's think and do run, state stays", async () => {
    await expectSuccessorWorks(qwen);
  });
});

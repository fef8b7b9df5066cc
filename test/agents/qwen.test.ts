/**
 * Qwen Code (`@qwen-code/qwen-code`, pinned in test/agents/package.json; `qwen --acp`) against
 * the fake OpenAI-compatible Chat Completions API (fakes/chat.ts), through `patchwork run
 * --agent qwen`: the preset's system defaults offer our tool to the model directly, its
 * profile waits for the session's MCP discovery and puts the session in mode `default`.
 */
import { it } from "vitest";
import { qwen } from "./chat-setups.js";
import { agentSuite, describeAgent, type AgentSpec } from "./suite.js";
import { expectSuccessorWorks } from "./successor.js";

const spec: AgentSpec = {
  command: "qwen",
  doToolName: "mcp__patchwork__do",
  // The turn and the turn with the tool result.
  requestsPerThink: 2,
  transports: ["http", "stdio"],
  // Asked because the profile puts every session in mode `default`; recognised by `_meta.toolName`, not this title.
  permissionLine: /\[permission \{"number":0\}: allow\]/,
  // Its profile restarts it every 50 sessions (it cannot close one).
  restartAfterSessions: 50,
};

describeAgent("Qwen Code (qwen --acp)", spec, () => {
  agentSuite(qwen, spec);

  it("patchwork acp --agent qwen: a plain prompt passes through, a program's think and do run, state stays", async () => {
    await expectSuccessorWorks(qwen);
  });
});

/**
 * Gemini CLI (@google/gemini-cli, pinned in test/agents/package.json), its own ACP agent,
 * against the fake Gemini API: `patchwork run --agent gemini` (the preset runs
 * `gemini --acp --skip-trust`).
 */
import { expect, it } from "vitest";
import { describeRun, runAgent } from "./harness.js";
import { gemini } from "./setups.js";
import { agentSuite, describeAgent, expectClean, expectThinkError, ONE_DO, type AgentSpec } from "./suite.js";

const spec: AgentSpec = {
  command: "gemini",
  doToolName: "mcp_patchwork_do",
  // The model router's side request (a complexity score), the turn, the turn with the tool result.
  requestsPerThink: 3,
  // It speaks both; the stdio relay is the same for every agent (Claude Code's file runs it).
  transports: ["http"],
  // Recognised by its call id (mcp_patchwork_do__…), not by this title.
  permissionLine: /\[permission do \(patchwork MCP Server\): allow\]/,
  // Gemini CLI 0.61 cannot close a session (no session/close) and runs with a heap limit of
  // half the RAM: its RSS is mostly garbage, its heap after GC is what it keeps.
  heapProbe: "gemini --acp",
  // Its profile restarts it every 50 sessions (the memory it keeps per session goes only with the process).
  restartAfterSessions: 50,
};

describeAgent("Gemini CLI (gemini --acp)", spec, () => {
  agentSuite(gemini, spec);

  it("reports neither cost nor tokens over ACP: a --budget is said once not to be kept, the run goes on, its summary says so", async () => {
    const source = 'var a = think { First question. }\nvar b = think { Second question. }\nprint("${a} ${b}")\n';
    const r = await runAgent(gemini, { source, args: ["--budget", "1.50"], rules: [{ reply: { text: "ONE" } }] });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("ONE ONE\n");
    // (Gemini CLI 0.61 sends no usage_update and no PromptResponse.usage, though the fake reports usageMetadata.)
    expect(r.stderr.match(/warning\[PW4031\]: the agent reports neither cost nor tokens, so --budget 1\.50 \(in the agent's currency\) cannot be kept: bound the run with --max-thinks/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/\npatchwork: 2 thinks asked, 0 replayed, 0 retried, 0 failed · tokens not reported · cost not reported by the agent · [\d.]+ s\n$/);
    expectClean(r);
  });

  it("without --skip-trust (an untrusted folder) Gemini offers no MCP tool: the think fails, never a silent answer", async () => {
    // With a pinned model (-m) the model router is skipped: the think's turn is the only request.
    const r = await runAgent({ ...gemini, agent: "gemini --acp -m gemini-2.5-flash" }, {
      source: ONE_DO,
      rules: [{ when: "Pick the block", afterTool: false, reply: { call: 0 } }],
    });
    expectThinkError(r, "PW4019", /never offered the do tool/);
    // The fake saw the think's request without our tool among those offered.
    expect(r.modelRequests.map((q) => q.path)).toEqual(["/v1beta/models/gemini-2.5-flash:streamGenerateContent"]);
    expect(r.modelRequests[0].model?.doTool).toBeUndefined();
    expect(r.modelRequests[0].model?.tools).toContain("run_shell_command");
  });
});

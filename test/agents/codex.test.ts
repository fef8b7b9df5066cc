/**
 * Codex (`@agentclientprotocol/codex-acp` 2.6.0, which drives the native `codex app-server`
 * 0.166 from `@openai/codex`) against the fake OpenAI Responses API (fakes/openai.ts), through
 * `patchwork run --agent codex`.
 *
 * CODEX_HOME (in the run's temp HOME) holds a config.toml whose provider `fake` is the fake
 * API (wire_api "responses", no retries). The model slug is one Codex does not know: with its
 * own models (gpt-5.5, gpt-6.1-sol…) Codex defers MCP tools behind a client-side `tool_search`
 * tool, which the fake does not emulate; with an unknown one it offers `mcp__patchwork__do`
 * directly, and sends a "Model metadata … not found" warning in every turn, which must never
 * reach a value.
 */
import { expect, it } from "vitest";
import { describeRun, runAgent } from "./harness.js";
import { codex, CODEX_MODEL as MODEL } from "./setups.js";
import { agentSuite, describeAgent, expectClean, type AgentSpec } from "./suite.js";

const spec: AgentSpec = {
  command: "codex-acp",
  doToolName: "mcp__patchwork__do",
  // The turn's two requests (the call, the answer) and, unless the run ends first, the
  // thread's title on a small model (sent in parallel with the turn).
  requestsPerThink: [2, 3],
  transports: ["http", "stdio"],
  // Asked because the profile puts every session in read-only mode (not Codex's guardian).
  permissionLine: /\[permission [^\]]*: allow\]/,
  // Its profile restarts it every 50 sessions (the memory it keeps per session goes only with the process).
  restartAfterSessions: 50,
};

const CATEGORIZE = [
  { when: "categorizing a document", afterTool: false, reply: { call: 0 } },
  { when: "Categorized as: RECEIPT", afterTool: true, reply: { text: "RECEIPT" } },
];
const CATEGORIZED = "Categorized as: RECEIPT\nExtracting amount...\nRECEIPT\n";

describeAgent("Codex (codex-acp 2.6.0)", spec, () => {
  agentSuite(codex, spec);

  it("ends with what the run cost: the tokens Codex reported, no cost; a --budget in tokens is kept", async () => {
    const source = 'var a = think { First question. }\nvar b = think { Second question. }\nprint("${a} ${b}")\n';
    const r = await runAgent(codex, { source, args: ["--budget", "1000000tok"], rules: [{ reply: { text: "ONE" } }] });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("ONE ONE\n");
    // The fake reports 10 input and 5 output tokens a response; Codex passes them on, with no cost.
    expect(r.stderr).toMatch(/^patchwork: 2 thinks asked, 0 replayed, 0 retried, 0 failed · tokens 20 in \/ 10 out · cost not reported by the agent · [\d.]+ s\n$/);
    expect(r.stderr).not.toContain("PW4031");
    expectClean(r);
  });

  it("Codex's warnings are notices: shown under --verbose, never part of a think's value", async () => {
    const r = await runAgent(codex, { program: "examples/categorize.pw", args: ["--verbose"], rules: CATEGORIZE });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stderr, "Codex sent no warning: the test proves nothing").toContain(`Model metadata for \`${MODEL}\` not found`);
    expect(r.stdout, describeRun(r)).toBe(CATEGORIZED);
    expectClean(r);
  });

  it("a shell command outside the read-only sandbox is asked for: denied by default, run with --permissions allow", async () => {
    const escalate = { cmd: "touch escalated.txt", sandbox_permissions: "require_escalated", justification: "write a file" };
    for (const permissions of ["deny", "allow"]) {
      const r = await runAgent(codex, {
        source: `var r = think {\n    Write the file.\n}\nprint("value: " + r)\n`,
        args: ["--verbose", "--permissions", permissions],
        rules: [
          { when: "Write the file", afterTool: false, reply: { tool: "exec_command", input: escalate } },
          { afterTool: true, reply: { text: "written" } },
        ],
      });
      expect(r.stderr, describeRun(r)).toContain(`[permission touch escalated.txt: ${permissions}]`);
      expect(r.filesAfter.includes("escalated.txt"), describeRun(r)).toBe(permissions === "allow");
      expectClean(r);
    }
  });
});

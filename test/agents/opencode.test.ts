/**
 * OpenCode (`opencode-ai`, pinned in test/agents/package.json; `opencode acp`) against the fake
 * OpenAI-compatible Chat Completions API (fakes/chat.ts), through `patchwork run --agent
 * opencode`. Its provider is an `@ai-sdk/openai-compatible` one in the file OPENCODE_CONFIG
 * names (chat-setups.ts), as for a local model server.
 */
import { writeFileSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { opencode } from "./chat-setups.js";
import { describeRun, runAgent, type AgentSetup } from "./harness.js";
import { agentSuite, describeAgent, expectThinkError, nestedRules, ONE_DO, type AgentSpec } from "./suite.js";
import { expectSuccessorWorks } from "./successor.js";

const spec: AgentSpec = {
  command: "opencode",
  doToolName: "patchwork_do",
  // The session's title (a side request without tools), the turn, the turn with the tool result.
  requestsPerThink: 3,
  transports: ["http", "stdio"],
  // Its profile restarts it every 25 sessions (its process keeps growing otherwise).
  restartAfterSessions: 25,
};

describeAgent("OpenCode (opencode acp)", spec, () => {
  agentSuite(opencode, spec);

  it("a nested think in a do block, three times more: the outer do call is never cut off (one MCP server per directory)", async () => {
    for (let run = 0; run < 3; run++) {
      const r = await runAgent(opencode, {
        program: "examples/nested.json",
        args: ["--verbose"],
        rules: nestedRules,
      });
      expect(r.code, describeRun(r)).toBe(0);
      expect(r.stdout, describeRun(r)).toBe("Categorized as: RECEIPT\nAmount: $542.00\n");
      expect(r.stderr, describeRun(r)).not.toContain("Connection closed");
      expect(r.stderr, describeRun(r)).not.toContain("protocol anomaly");
    }
  }, 600_000);

  it("two workers think at once: both turns offer our do tool (a session made beside the one naming the directory's endpoint waits for it)", async () => {
    const program = 'worker step(n: string) {\n  return think {\n    step ${n}\n  }\n}\n\nworker main() {\n  var [a, b] = self.delegate([step("a"), step("b")]).await\n  print(a + b)\n}\n';
    const r = await runAgent(opencode, { source: program, rules: [{ when: "step", afterTool: false, reply: { text: "ok" } }] });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout, describeRun(r)).toBe("okok\n");
    // The thinks' turns (not the title requests, which list no tools): each lists patchwork_do.
    const turns = r.modelRequests
      .map((q) => q.body as { tools?: { function?: { name?: string } }[]; messages?: unknown[] })
      .filter((b) => (b.tools ?? []).length > 0 && JSON.stringify(b.messages ?? []).includes("step "));
    expect(turns.map((b) => (b.tools ?? []).some((t) => t.function?.name === "patchwork_do"))).toEqual([true, true]);
  });

  it("OpenCode configured to ask before our tool: the denied do is an error of the think (PW4017), never a value", async () => {
    const asking: AgentSetup = {
      ...opencode,
      env(fake, dirs) {
        const env = opencode.env(fake, dirs);
        const config = JSON.parse(readFileSync(env.OPENCODE_CONFIG!, "utf8")) as Record<string, unknown>;
        writeFileSync(env.OPENCODE_CONFIG!, JSON.stringify({ ...config, permission: { patchwork_do: "ask" } }));
        return env;
      },
    };
    const r = await runAgent(asking, {
      source: ONE_DO,
      args: ["--verbose"],
      rules: [
        { when: "Pick the block", afterTool: false, reply: { call: 0 } },
        { afterTool: true, reply: { text: "DONE" } },
      ],
    });
    expect(r.stdout).not.toContain("block ran");
    expectThinkError(r, "PW4017", /call of do block 0 failed before it reached Patchwork/);
  });

  it("patchwork acp --agent opencode: a plain prompt passes through, a program's think and do run, state stays", async () => {
    await expectSuccessorWorks(opencode);
  });
});

/**
 * GitHub Copilot CLI (`@github/copilot`, pinned in test/agents/package.json; `copilot --acp`)
 * against the fake OpenAI-compatible Chat Completions API (fakes/chat.ts), through `patchwork
 * run --agent copilot`: offline (COPILOT_OFFLINE), its provider the fake (COPILOT_PROVIDER_*),
 * no GitHub account. The preset adds `--allow-tool=patchwork`.
 */
import { expect, it } from "vitest";
import { copilot } from "./chat-setups.js";
import { runAgent } from "./harness.js";
import { agentSuite, describeAgent, expectThinkError, ONE_DO, type AgentSpec } from "./suite.js";
import { expectSuccessorWorks } from "./successor.js";

const spec: AgentSpec = {
  command: "copilot",
  doToolName: "patchwork-do",
  // The turn and the turn with the tool result: no side request.
  requestsPerThink: 2,
  transports: ["http"],
};

describeAgent("GitHub Copilot CLI (copilot --acp)", spec, () => {
  agentSuite(copilot, spec);

  it("without --allow-tool=patchwork Copilot asks, Patchwork cannot tell the request is for do: denied, PW4017, never a value", async () => {
    const r = await runAgent({ ...copilot, agent: "copilot --acp" }, {
      source: ONE_DO,
      args: ["--verbose"],
      rules: [
        { when: "Pick the block", afterTool: false, reply: { call: 0 } },
        { afterTool: true, reply: { text: "DONE" } },
      ],
    });
    expect(r.stderr).toContain("[permission Run a numbered do block: deny]");
    expect(r.stdout).not.toContain("block ran");
    expectThinkError(r, "PW4017", /call of do block 0 failed before it reached Patchwork/);
  });

  it("patchwork acp --agent copilot: a plain prompt passes through, a program's think and do run, state stays", async () => {
    await expectSuccessorWorks(copilot);
  });
});

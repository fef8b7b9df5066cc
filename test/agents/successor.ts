/**
 * The `patchwork acp` case every agent of the Chat Completions family runs: Patchwork as the
 * successor of an editor's agent (a plain prompt passes through, a program's think and do run,
 * state stays between prompts), through the SDK's client (harness.ts, runAcpSession).
 */
import { expect } from "vitest";
import { runAcpSession, type AgentSetup } from "./harness.js";

type SessionRun = Awaited<ReturnType<typeof runAcpSession>>;
import { ONE_DO } from "./suite.js";

/** Runs the case and asserts it; gives the run back for an agent's own further checks. */
export async function expectSuccessorWorks(setup: AgentSetup): Promise<SessionRun> {
  const r = await runAcpSession(setup, {
    prompts: ["Hello from the panel", "```patchwork\n" + ONE_DO + "```", "{ print(\"again: \" + v) }"],
    rules: [
      { when: "Hello from the panel", afterTool: false, reply: { text: "PASSED THROUGH" } },
      { when: "Pick the block", afterTool: false, reply: { call: 0 } },
      { when: "block ran", afterTool: true, reply: { text: "DONE" } },
    ],
  });
  const why = `${r.stderr}\n${JSON.stringify(r.turns, null, 1).slice(0, 4000)}`;
  expect(r.turns.map((t) => t.stopReason), why).toEqual(["end_turn", "end_turn", "end_turn"]);
  expect(r.turns[0]!.text, why).toContain("PASSED THROUGH");
  expect(r.turns[1]!.text, why).toBe("block ran\nvalue=[DONE]\n");
  expect(r.turns[2]!.text, why).toBe("again: DONE\n");
  expect(r.code, r.stderr).toBe(0);
  expect(r.leftovers, "processes of the run left behind").toEqual([]);
  return r;
}

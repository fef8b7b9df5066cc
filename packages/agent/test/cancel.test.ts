// Cancellation: a signal, the run timeout or a limit cancels the turns, answers pending
// permission requests `cancelled`, kills the agent's process group and the evaluator thread.
import { describe, expect, it } from "vitest";
import { groupAlive, print, runThreadbare, think } from "./helpers.js";

const one = think("answer me", [print("child ran")], { print: true });

async function expectDead(pid: number | undefined) {
  expect(pid).toBeGreaterThan(0);
  for (let i = 0; i < 20 && groupAlive(pid!); i++) await new Promise((r) => setTimeout(r, 25));
  expect(groupAlive(pid!)).toBe(false);
}

describe("cancellation", () => {
  it("an AbortSignal cancels a hanging think: session/cancel, exit 130, no orphan", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const run = await runThreadbare(one, { prompts: [{ steps: [{ text: "thinking" }, { hang: true }] }] }, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "agent-text") controller.abort();
      },
    });
    expect(run.cancelled).toBe(true);
    expect(run.exitCode).toBe(130);
    expect(run.diagnostics.map((d) => d.code)).toEqual(["PW4010"]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.stderr).toContain("cancel received for test-session-1");
    await expectDead(run.agentPid);
  });

  it("the run timeout cancels the run (PW4006)", async () => {
    const run = await runThreadbare(one, { prompts: [{ steps: [{ hang: true }] }] }, { timeoutMs: 1500 });
    expect(run.cancelled).toBe(true);
    expect(run.exitCode).toBe(1); // a time limit is an error, not an interrupt
    expect(run.diagnostics.map((d) => d.code)).toEqual(["PW4006"]);
    expect(run.diagnostics[0]!.message).toMatch(/timed out after 1500 ms/);
    await expectDead(run.agentPid);
  });

  it("stops an evaluator stuck in an endless loop inside a do child", async () => {
    const controller = new AbortController();
    const program = think("spin", [{ Spin: {} }]);
    const run = await runThreadbare(program, { prompts: [{ steps: [{ do: 0 }, { reply: "never" }] }] }, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "do-start") setTimeout(() => controller.abort(), 100);
      },
    });
    expect(run.cancelled).toBe(true);
    expect(run.exitCode).toBe(130);
    await expectDead(run.agentPid);
  });

  it("answers a pending permission request `cancelled`", async () => {
    const controller = new AbortController();
    const run = await runThreadbare(
      one,
      { prompts: [{ steps: [{ do: 0, ask: true }, { reply: "{{permission}}" }] }] },
      {
        permissions: "ask",
        signal: controller.signal,
        askPermission: () => {
          setTimeout(() => controller.abort(), 50);
          return new Promise(() => undefined);
        },
      },
    );
    expect(run.cancelled).toBe(true);
    expect(run.events.some((e) => e.type === "permission" && e.decision === "cancelled")).toBe(true);
    await expectDead(run.agentPid);
  });

  it("a signal aborted before the start runs nothing", async () => {
    const run = await runThreadbare(one, {}, { signal: AbortSignal.abort() });
    expect(run.cancelled).toBe(true);
    expect(run.agentPid).toBeUndefined();
  });
});

describe("permissions", () => {
  it("allows our do tool and denies anything else by default", async () => {
    const run = await runThreadbare(one, {
      prompts: [{ steps: [{ do: 0, ask: true }, { permission: "Bash" }, { reply: "do={{do}} bash={{permission}}" }] }],
    });
    expect(run.value).toBe("do=child ran\n bash=reject");
    const decisions = run.events.filter((e) => e.type === "permission").map((e) => (e as { decision: string }).decision);
    expect(decisions).toEqual(["allow", "deny"]);
  });

  it("deny refuses the do tool too, and the think fails naming the block (PW4016), never silently", async () => {
    const run = await runThreadbare(one, { prompts: [{ steps: [{ do: 0, ask: true }, { reply: "{{do}}" }] }] }, {
      permissions: "deny",
    });
    expect(run.ok).toBe(false);
    expect(run.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["PW4016", "the agent's call of do block 0 did not run: the permission policy denied it"],
    ]);
    expect(run.output).not.toContain("child ran");
  });

  it("ask calls the injected callback with the request", async () => {
    const asked: unknown[] = [];
    const run = await runThreadbare(
      one,
      { prompts: [{ steps: [{ do: 0, ask: true }, { permission: "Bash" }, { reply: "{{do}}/{{permission}}" }] }] },
      {
        permissions: { do: "ask", other: "ask" },
        askPermission: async (question) => {
          asked.push({ title: question.title, isDoTool: question.isDoTool });
          return question.isDoTool ? "allow" : "deny";
        },
      },
    );
    expect(asked).toEqual([
      { title: "mcp__patchwork__do", isDoTool: true },
      { title: "Bash", isDoTool: false },
    ]);
    expect(run.value).toBe("child ran\n/reject");
  });
});

// A think's value is the agent's final answer only; everything else the agent says (preambles,
// thoughts, notices, session state) goes to events. Through real processes: the evaluator
// thread, the ACP runtime and the scripted test agent.
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../dist/index.js";
import { codes, print, runThreadbare, think } from "./helpers.js";

const one = think("answer me", [print("child ran")], { print: true });
const ofType = <T extends RunEvent["type"]>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe("the final answer", () => {
  it("with message ids: only the chunks of the last message, not the preamble", async () => {
    const run = await runThreadbare(one, {
      prompts: [
        {
          steps: [
            { text: "Let me run ", id: "m1" },
            { text: "block 0 first.", id: "m1" },
            { do: 0 },
            { text: "RECE", id: "m2" },
            { reply: "IPT", id: "m2" },
          ],
        },
      ],
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.value).toBe("RECEIPT");
    // The preamble is still streamed (for --verbose and the trace).
    expect(ofType(run.events, "agent-text").map((e) => e.text).join("")).toBe("Let me run block 0 first.RECEIPT");
  });

  it("with message ids: an id-less chunk is a notice (Codex's warnings), never part of the value", async () => {
    const run = await runThreadbare(one, {
      prompts: [
        {
          steps: [
            { text: "Warning: Model metadata for `gpt-x` not found." },
            { text: "The answer", id: "a" },
            { text: "Warning: again" },
            { reply: " is 42", id: "a" },
          ],
        },
      ],
    });
    expect(run.value).toBe("The answer is 42");
    expect(ofType(run.events, "agent-notice").map((e) => e.text)).toEqual(["Warning: again"]);
  });

  it("without message ids: the text after the last tool call", async () => {
    const run = await runThreadbare(one, {
      prompts: [{ steps: [{ text: "Let me run block 0 first." }, { do: 0 }, { text: "It printed: " }, { reply: "{{do}}" }] }],
    });
    expect(run.value).toBe("It printed: child ran\n");
  });

  it("a message followed by a tool call and no answer gives an empty value", async () => {
    const withIds = await runThreadbare(one, { prompts: [{ steps: [{ text: "Running it.", id: "m1" }, { do: 0 }] }] });
    expect(withIds.diagnostics).toEqual([]);
    expect(withIds.value).toBe("");
    const withoutIds = await runThreadbare(one, { prompts: [{ steps: [{ text: "Running it." }, { toolCall: "Read file" }] }] });
    expect(withoutIds.value).toBe("");
  });

  it("thoughts, notice updates and session state never reach the value, and raise no anomaly", async () => {
    const state = [
      { sessionUpdate: "available_commands_update", availableCommands: [] },
      { sessionUpdate: "session_info_update", title: "A title" },
      { sessionUpdate: "plan", entries: [{ content: "step", priority: "low", status: "pending" }] },
      { sessionUpdate: "current_mode_update", currentModeId: "default" },
      { sessionUpdate: "config_option_update", configOptions: [] },
      { sessionUpdate: "usage_update", used: 1200, size: 200000, cost: { amount: 0.01, currency: "USD" } },
    ];
    const run = await runThreadbare(one, {
      prompts: [
        {
          steps: [
            { thought: "I should answer." },
            { update: { sessionUpdate: "notice", severity: "warning", title: "Model metadata not found", description: "using defaults" } },
            ...state.map((update) => ({ update })),
            { reply: "final" },
          ],
        },
      ],
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.value).toBe("final");
    expect(ofType(run.events, "anomaly")).toEqual([]);
    expect(ofType(run.events, "agent-thought").map((e) => e.text)).toEqual(["I should answer."]);
    expect(ofType(run.events, "agent-notice")).toEqual([
      expect.objectContaining({ severity: "warning", text: "Model metadata not found: using defaults" }),
    ]);
  });

  it("session state sent after the turn (or for an older session) is accepted silently", async () => {
    const program = { Block: { children: [one, think("second", [], { print: true })] } };
    const run = await runThreadbare(program, {
      prompts: [
        { match: "answer me", steps: [{ reply: "first" }] },
        {
          match: "second",
          steps: [
            { update: { sessionUpdate: "usage_update", used: 5, size: 10 }, for: "test-session-1" },
            { update: { sessionUpdate: "session_info_update", title: "late title" }, for: "test-session-1" },
            { update: { sessionUpdate: "available_commands_update", availableCommands: [] }, for: "test-session-1" },
            { textFor: "test-session-1", text: "late text is an anomaly" },
            { reply: "second" },
          ],
        },
      ],
    });
    expect(run.output).toBe("first\nsecond\n");
    // Only the message chunk for the ended session is an anomaly.
    expect(ofType(run.events, "anomaly")).toHaveLength(1);
  });
});

describe("usage", () => {
  it("usage_update and the prompt response's usage are summed per think (cost deltas of a cumulative figure)", async () => {
    const usage = (used: number, amount: number) => ({ update: { sessionUpdate: "usage_update", used, size: 1000, cost: { amount, currency: "USD" } } });
    const program = { Block: { children: [one, one] } };
    const run = await runThreadbare(program, {
      prompts: [
        {
          match: "answer me",
          steps: [usage(100, 0.01), usage(150, 0.03), { promptUsage: { inputTokens: 90, outputTokens: 10, totalTokens: 100 } }, { reply: "ok" }],
        },
      ],
    });
    expect(run.diagnostics).toEqual([]);
    const events = ofType(run.events, "usage");
    expect(events).toHaveLength(2);
    for (const e of events) {
      expect(e.usage.inputTokens).toBe(90);
      expect(e.usage.outputTokens).toBe(10);
      expect(e.usage.totalTokens).toBe(100);
      expect(e.usage.contextTokens).toBe(150);
      expect(e.usage.cost.USD).toBeCloseTo(0.03);
    }
  });
});

describe("a do that did not run is never silent", () => {
  it("an agent known to connect at session start that never contacted our server: PW4019", async () => {
    // The test agent claims to be Claude Code's adapter (its profile says it lists MCP tools at
    // session start) but answers without ever connecting.
    const run = await runThreadbare(one, { agentName: "@agentclientprotocol/claude-agent-acp", prompts: [{ steps: [{ reply: "I ran block 0 and it printed child ran" }] }] });
    expect(codes(run)).toEqual(["PW4019"]);
    expect(run.diagnostics[0]!.message).toMatch(/never offered the do tool to its model/);
    // The same agent answering a think without do blocks is fine.
    const plain = await runThreadbare(think("hi", [], { print: true }), { agentName: "@agentclientprotocol/claude-agent-acp", prompts: [{ steps: [{ reply: "hello" }] }] });
    expect(plain.diagnostics).toEqual([]);
    expect(plain.output).toBe("hello\n");
  });

  it("a do the agent calls is recognised under the Claude profile too (permission and failure)", async () => {
    const run = await runThreadbare(one, {
      agentName: "@agentclientprotocol/claude-agent-acp",
      prompts: [{ steps: [{ do: 0, ask: true }, { reply: "{{do}}" }] }],
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.value).toBe("child ran\n");
  });

  it("a denied do the model recovers from is a warning; the same block running later heals it", async () => {
    let asked = 0;
    const run = await runThreadbare(one, { prompts: [{ steps: [{ do: 0, ask: true }, { do: 0, ask: true }, { reply: "{{do}}" }] }] }, {
      permissions: { do: "ask" },
      askPermission: async () => (++asked === 1 ? "deny" : "allow"),
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.value).toBe("child ran\n");
    expect(ofType(run.events, "warning").map((e) => [e.code, e.message])).toEqual([
      ["PW4016", "the agent's call of do block 0 did not run: the permission policy denied it; the model then ran it again successfully"],
    ]);
  });

  it("several failures are each said once, joined", async () => {
    const program = think("pick", [print("a"), { Bogus: {} }], { print: true });
    const run = await runThreadbare(program, { prompts: [{ steps: [{ do: 1 }, { do: 1 }, { do: 5 }, { reply: "x" }] }] });
    expect(codes(run)).toEqual(["PW4017"]);
    expect(run.diagnostics[0]!.message).toBe("do block 1 failed: unknown node Bogus; there is no do block 5: valid numbers are 0 to 1");
  });
});

/**
 * Claude Code through its real ACP adapter (@agentclientprotocol/claude-agent-acp, pinned in
 * test/agents/package.json) against the fake Anthropic API: `patchwork run --agent claude`.
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFakeAnthropic } from "./fakes/anthropic.js";
import { describeRun, figure, installed, LOOP_THINKS, MB, peakRss, runAgent, type AgentSetup, type RunResult } from "./harness.js";

/** Claude Code's environment: the fake API, a config dir in the temp HOME, no outside traffic. Root needs nothing more. */
const claude: AgentSetup = {
  name: "claude",
  agent: "claude",
  startFake: startFakeAnthropic,
  env: (fake, dirs) => ({
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-fake",
    CLAUDE_CONFIG_DIR: join(dirs.home, ".claude"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  }),
};

/** Requests for the think's own turn (not Claude Code's session titles). */
const turnRequests = (r: RunResult) => r.modelRequests.filter((q) => !q.model?.side);

function expectClean(r: RunResult) {
  expect(r.timedOut, describeRun(r)).toBe(false);
  expect(r.leftovers, "processes of the run left behind").toEqual([]);
}

/** A think with one do block, whose value is printed between brackets. */
const ONE_DO = `var v = think {
    Pick the block for this item.
    do {
        print("block ran")
    }
}
print("value=[" + v + "]")
`;

describe.skipIf(!installed("claude-agent-acp"))("Claude Code (claude-agent-acp)", () => {
  it.each(["http", "stdio"])("runs examples/categorize.pw over %s: do(0) runs, the final text is the value, 3 model requests, root needs no IS_SANDBOX", async (transport) => {
    const r = await runAgent(claude, {
      program: "examples/categorize.pw",
      args: ["--verbose", "--mcp-transport", transport],
      rules: [
        { when: "categorizing a document", afterTool: false, reply: { call: 0 } },
        { when: "Categorized as: RECEIPT", afterTool: true, reply: { text: "RECEIPT" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("Categorized as: RECEIPT\nExtracting amount...\nRECEIPT\n");
    expect(r.stderr).toMatch(/\[permission mcp__patchwork__do: allow\]/);
    expect(r.hits).toEqual([1, 1]);
    // Tool search off: the do tool is offered to the model directly, in the first request.
    expect(turnRequests(r)[0].model?.doTool).toBe("mcp__patchwork__do");
    // One title request, the turn's request, the request with the tool result.
    expect(r.modelRequests.length, describeRun(r)).toBe(3);
    expectClean(r);
    figure("claude", `model requests per think with one do (${transport})`, r.modelRequests.length);
    figure("claude", `time of examples/categorize.pw, whole run (${transport}, s)`, (r.ms / 1000).toFixed(2));
  });

  it("runs examples/nested.json: a think inside a do block, two sessions at once", async () => {
    const r = await runAgent(claude, {
      program: "examples/nested.json",
      rules: [
        { when: "Categorize this document", afterTool: false, reply: { call: 0 } },
        { when: "Extract the dollar amount", afterTool: false, reply: { call: 0 } },
        // The outer do's result holds the inner think's output too: match it first.
        { when: "Categorized as: RECEIPT", afterTool: true, reply: { text: "RECEIPT" } },
        { when: "Amount: $542.00", afterTool: true, reply: { text: "542.00" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("Categorized as: RECEIPT\nAmount: $542.00\n");
    expect(r.hits).toEqual([1, 1, 1, 1]);
    expectClean(r);
  });

  it("a typed think gets one repair turn in the same session", async () => {
    const r = await runAgent(claude, {
      program: "examples/typed-think.pw",
      rules: [
        { when: "Classify this document", afterTool: false, reply: { text: "It looks like a receipt to me." } },
        {
          when: "Your answer could not be used",
          afterTool: false,
          reply: { text: '```json\n{"category": "RECEIPT", "confidence": 0.9}\n```' },
        },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe('{"category":"RECEIPT","confidence":0.9}\n');
    expect(r.hits).toEqual([1, 1]);
    // The repair turn continues the conversation: its request still holds the first answer.
    const repair = turnRequests(r).find((q) => q.decision?.rule === 1);
    expect(JSON.stringify(repair?.body)).toContain("It looks like a receipt to me.");
    expectClean(r);
  });
  it(`${LOOP_THINKS} thinks in a loop: one Claude Code session at a time, memory flat`, async () => {
    const source = `for i in 1...${LOOP_THINKS} {
    var v = think {
        Item \${i}: pick the block.
        do {
            print("ran \${i}")
        }
    }
    print("value \${i}=" + v)
}
`;
    const r = await runAgent(claude, {
      source,
      timeoutMs: 60_000 + LOOP_THINKS * 10_000,
      rules: [
        { when: /Item \d+: pick the block/, afterTool: false, reply: { call: 0 } },
        { when: /^ran \d+/, afterTool: true, reply: { text: "ITEM-OK" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    const expected = Array.from({ length: LOOP_THINKS }, (_, k) => `ran ${k + 1}\nvalue ${k + 1}=ITEM-OK\n`).join("");
    expect(r.stdout).toBe(expected);
    expect(r.hits).toEqual([LOOP_THINKS, LOOP_THINKS]);
    expectClean(r);
    // Memory of the CLI and all of Claude Code's processes: the peak over thinks 3-6 against
    // the peak over the last four thinks. Unclosed sessions would add a process (~200 MB) each.
    const perThink = r.modelRequests.length / LOOP_THINKS;
    const early = peakRss(r, 2 * perThink, 6 * perThink);
    const late = peakRss(r, (LOOP_THINKS - 4) * perThink);
    const turnStarts = turnRequests(r).filter((q) => !q.model?.afterTool).map((q) => q.time);
    const thinkMs = (turnStarts.at(-1)! - turnStarts[1]) / (turnStarts.length - 2);
    figure("claude", `model requests per think (loop of ${LOOP_THINKS})`, perThink.toFixed(2));
    figure("claude", "time per think, steady state (s)", (thinkMs / 1000).toFixed(2));
    figure("claude", "peak RSS, thinks 3-6 (MB)", (early / MB).toFixed(0));
    figure("claude", `peak RSS, thinks ${LOOP_THINKS - 3}-${LOOP_THINKS} (MB)`, (late / MB).toFixed(0));
    figure("claude", "processes of the run at most", Math.max(...r.samples.map((s) => s.processes)));
    figure("claude", "load average while measuring (2 cores)", loadavg()[0].toFixed(1));
    expect(late - early, `RSS grew from ${early / MB} MB to ${late / MB} MB`).toBeLessThan(64 * MB);
  }, 120_000 + LOOP_THINKS * 15_000);

  it("Ctrl-C while the model is thinking: exit 130, nothing printed after, no process left", async () => {
    const r = await runAgent(claude, {
      source: ONE_DO,
      rules: [{ when: "Pick the block", afterTool: false, reply: { call: 0 }, delayMs: 60_000 }],
      interruptWhen: (fake) => fake.modelRequests().some((q) => !q.model?.side && q.model?.latest.includes("Pick the block")),
    });
    expect(r.interruptedAtMs, describeRun(r)).toBeDefined();
    expect(r.code, describeRun(r)).toBe(130);
    expect(r.stdout).toBe("");
    expect(r.ms - r.interruptedAtMs!, "time from Ctrl-C to exit").toBeLessThan(5000);
    expectClean(r);
  });
});

/**
 * Gemini CLI (@google/gemini-cli, pinned in test/agents/package.json), its own ACP agent,
 * against the fake Gemini API: `patchwork run --agent gemini` (the preset runs
 * `gemini --acp --skip-trust`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFakeGemini } from "./fakes/gemini.js";
import { fileURLToPath } from "node:url";
import { describeRun, figure, installed, LOOP_THINKS, MB, peakRss, runAgent, type AgentSetup, type RunResult } from "./harness.js";

/**
 * Gemini CLI's environment: the fake API and an API key, its settings in the temp HOME
 * (API-key auth, no telemetry, no usage statistics, no update checks).
 */
const gemini: AgentSetup = {
  name: "gemini",
  agent: "gemini",
  startFake: startFakeGemini,
  env(fake, dirs) {
    mkdirSync(join(dirs.home, ".gemini"), { recursive: true });
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    };
    writeFileSync(join(dirs.home, ".gemini", "settings.json"), JSON.stringify(settings));
    return { GEMINI_API_KEY: "fake-key", GOOGLE_GEMINI_BASE_URL: fake.url };
  },
};

/** Requests for the think's own turn (not the CLI's routing and next-speaker side requests). */
const turnRequests = (r: RunResult) => r.modelRequests.filter((q) => !q.model?.side);

function expectClean(r: RunResult) {
  expect(r.timedOut, describeRun(r)).toBe(false);
  expect(r.leftovers, "processes of the run left behind").toEqual([]);
}

const HEAP_PROBE = fileURLToPath(new URL("./heap-probe.mjs", import.meta.url));

/** A think with one do block, whose value is printed between brackets. */
const ONE_DO = `var v = think {
    Pick the block for this item.
    do {
        print("block ran")
    }
}
print("value=[" + v + "]")
`;

describe.skipIf(!installed("gemini"))("Gemini CLI (gemini --acp)", () => {
  it("runs examples/categorize.pw: do(0) is allowed by its call id, the final text is the value", async () => {
    const r = await runAgent(gemini, {
      program: "examples/categorize.pw",
      args: ["--verbose"],
      rules: [
        { when: "categorizing a document", afterTool: false, reply: { call: 0 } },
        { when: "Categorized as: RECEIPT", afterTool: true, reply: { text: "RECEIPT" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("Categorized as: RECEIPT\nExtracting amount...\nRECEIPT\n");
    expect(r.stderr).toContain("[permission do (patchwork MCP Server): allow]");
    expect(r.hits).toEqual([1, 1]);
    expect(turnRequests(r)[0].model?.doTool).toBe("mcp_patchwork_do");
    // The model router's side request, the turn's request, the request with the tool result.
    expect(r.modelRequests.length, describeRun(r)).toBe(3);
    expectClean(r);
    figure("gemini", "model requests per think with one do", r.modelRequests.length);
  });

  it("runs examples/nested.json: a think inside a do block, two sessions at once", async () => {
    const r = await runAgent(gemini, {
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
    const r = await runAgent(gemini, {
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

  it(`${LOOP_THINKS} thinks in a loop: every think gets its value, the heap Gemini keeps grows < 1 MB a think`, async () => {
    const probe = (label: string) => `$ node --experimental-websocket ${JSON.stringify(HEAP_PROBE)} ${label} "gemini --acp"`;
    const source = `for i in 1...${LOOP_THINKS} {
    var v = think {
        Item \${i}: pick the block.
        do {
            print("ran \${i}")
        }
    }
    print("value \${i}=[" + v + "]")
    if i == 5 {
        ${probe("early")}
    }
}
${probe("late")}
`;
    const r = await runAgent(gemini, {
      source,
      rules: [
        { when: "pick the block", afterTool: false, reply: { call: 0 } },
        { when: /ran \d+/, afterTool: true, reply: (q) => ({ text: `done ${/ran (\d+)/.exec(q.latest)![1]}` }) },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    for (let i = 1; i <= LOOP_THINKS; i++) expect(r.stdout).toContain(`ran ${i}\nvalue ${i}=[done ${i}]\n`);
    expect(r.hits).toEqual([LOOP_THINKS, LOOP_THINKS]);
    const [early, late] = ["early", "late"].map((label) => heapProbe(r.stdout, label));
    const perThink = (late.heapMB - early.heapMB) / (LOOP_THINKS - 5);
    figure("gemini", `agent heap after GC, think 5 → ${LOOP_THINKS}`, `${early.heapMB} → ${late.heapMB} MB (${perThink.toFixed(2)} MB/think)`);
    figure("gemini", `agent RSS after GC at think ${LOOP_THINKS}`, `${late.rssMB} MB`);
    figure("gemini", `peak RSS of the run (CLI + agent, before GC)`, `${(peakRss(r) / MB).toFixed(0)} MB`);
    figure("gemini", `ms per think (${LOOP_THINKS} thinks, incl. start-up)`, (r.ms / LOOP_THINKS).toFixed(0));
    expect(perThink, describeRun(r)).toBeLessThan(1);
    expectClean(r);
  });

  it("cancelling a run while the model thinks: exit 130 quickly, no process left", async () => {
    const r = await runAgent(gemini, {
      source: ONE_DO,
      rules: [{ when: "Pick the block", afterTool: false, reply: { text: "too late" }, delayMs: 60_000 }],
      interruptWhen: (fake) => fake.modelRequests().some((q) => !q.model?.side),
    });
    expect(r.interruptedAtMs, describeRun(r)).toBeDefined();
    expect(r.code, describeRun(r)).toBe(130);
    expect(r.ms - r.interruptedAtMs!).toBeLessThan(5000);
    expect(r.stdout).toBe("");
    expectClean(r);
  });
});

/** The agent's heap after two forced GCs, as printed by heap-probe.mjs. */
function heapProbe(stdout: string, label: string): { heapMB: number; rssMB: number; sockets: number } {
  const m = new RegExp(`heap-probe ${label} pid=\\d+ heapMB=([\\d.]+) rssMB=([\\d.]+) sockets=(\\d+)`).exec(stdout);
  if (!m) throw new Error(`no heap-probe ${label} line in:\n${stdout}`);
  return { heapMB: Number(m[1]), rssMB: Number(m[2]), sockets: Number(m[3]) };
}

/**
 * The tests every real agent must pass, defined once: an agent's test file calls
 * `agentSuite(setup, spec)` with its `AgentSetup` (fake API and environment) and what differs
 * between agents (`AgentSpec`), then adds its own tests. Each test runs the real CLI with the
 * real adapter against the agent's fake model API (harness.ts).
 */
import { describe, expect, it } from "vitest";
import { describeRun, figure, installed, loopFigures, LOOP_THINKS, MB, peakRss, runAgent, turnRequests, type AgentSetup, type RunResult } from "./harness.js";
import type { Rule } from "./fakes/server.js";
import { heapFigures, withHeapProbes, withoutProbes } from "./heap.js";

export interface AgentSpec {
  /** The adapter's command in test/agents/node_modules/.bin: the suite is skipped without it. */
  command: string;
  /** The name under which the agent offers our `do` tool to its model. */
  doToolName: string;
  /**
   * Model requests of one think with one `do` (examples/categorize.pw), side requests included;
   * `[min, max]` when a side request races the end of the run (Codex titles its thread in
   * parallel with the turn, and a run that ends first never sends it).
   */
  requestsPerThink: number | readonly [number, number];
  /** The MCP transports to run examples/categorize.pw over. */
  transports: ("http" | "stdio")[];
  /** A `--verbose` line that shows our policy allowing the agent's `do` request, if the agent asks. */
  permissionLine?: RegExp;
  /**
   * For an agent that cannot close its sessions: a pattern of the command line of its node
   * process, whose heap the loop test also measures after forced GCs (heap.ts) and requires
   * to grow by less than 1 MB a think.
   */
  heapProbe?: string;
  /**
   * Sessions after which Patchwork's profile for this agent restarts its process between
   * thinks (it keeps memory for every session otherwise). The loop test then restarts it
   * at least twice (`--restart-agent-after`, unless the loop is long enough for the default)
   * and checks that the values stay right and the memory flat across the restarts.
   */
  restartAfterSessions?: number;
}

/** Asserts the run neither timed out nor left a process behind. */
export function expectClean(r: RunResult): void {
  expect(r.timedOut, describeRun(r)).toBe(false);
  expect(r.leftovers, "processes of the run left behind").toEqual([]);
}

/** The think of ONE_DO fails with `code` (positioned at the think), naming the reason; no value printed. */
export function expectThinkError(r: RunResult, code: string, reason: RegExp): void {
  expect(r.code, describeRun(r)).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`program\\.pw:1:9: error\\[${code}\\]: `));
  expect(r.stderr).toMatch(reason);
  expect(r.stdout).not.toContain("value=");
  expectClean(r);
}

/** A think with one do block, whose value is printed between brackets. */
export const ONE_DO = `var v = think {
    Pick the block for this item.
    do {
        print("block ran")
    }
}
print("value=[" + v + "]")
`;

/** ONE_DO's rules: call do(0), then answer `text` once the block's output comes back. */
export const oneDoRules = (text: string): Rule[] => [
  { when: "Pick the block", afterTool: false, reply: { call: 0 } },
  { when: "block ran", afterTool: true, reply: { text } },
];

/** A loop of `n` thinks with one do block each. */
/** The fake model's answers for examples/nested.json: each think calls its do block (a think inside the outer one's). */
export const nestedRules: Rule[] = [
  { when: "Categorize this document", afterTool: false, reply: { call: 0 } },
  { when: "Extract the dollar amount", afterTool: false, reply: { call: 0 } },
  // The outer do's result holds the inner think's output too: match it first.
  { when: "Categorized as: RECEIPT", afterTool: true, reply: { text: "RECEIPT" } },
  { when: "Amount: $542.00", afterTool: true, reply: { text: "542.00" } },
];

export const loopSource = (n: number) => `for i in 1...${n} {
    var v = think {
        Item \${i}: pick the block.
        do {
            print("ran \${i}")
        }
    }
    print("value \${i}=" + v)
}
`;

export function agentSuite(setup: AgentSetup, spec: AgentSpec): void {
  const name = setup.name;
  it.each(spec.transports)("runs examples/categorize.pw over %s: do(0) runs, the final text is the value", async (transport) => {
    const r = await runAgent(setup, {
      program: "examples/categorize.pw",
      args: ["--verbose", "--mcp-transport", transport],
      rules: [
        { when: "categorizing a document", afterTool: false, reply: { call: 0 } },
        { when: "Categorized as: RECEIPT", afterTool: true, reply: { text: "RECEIPT" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("Categorized as: RECEIPT\nExtracting amount...\nRECEIPT\n");
    if (spec.permissionLine) expect(r.stderr).toMatch(spec.permissionLine);
    expect(r.hits).toEqual([1, 1]);
    // The do tool is offered to the model directly, in the think's first request.
    expect(turnRequests(r)[0].model?.doTool).toBe(spec.doToolName);
    const [min, max] = typeof spec.requestsPerThink === "number" ? [spec.requestsPerThink, spec.requestsPerThink] : spec.requestsPerThink;
    expect(r.modelRequests.length, describeRun(r)).toBeGreaterThanOrEqual(min);
    expect(r.modelRequests.length, describeRun(r)).toBeLessThanOrEqual(max);
    expectClean(r);
    figure(name, `model requests per think with one do (${transport})`, r.modelRequests.length);
    figure(name, `time of examples/categorize.pw, whole run (${transport}, s)`, (r.ms / 1000).toFixed(2));
  });

  it("runs examples/nested.json: a think inside a do block, two sessions at once", async () => {
    const r = await runAgent(setup, {
      program: "examples/nested.json",
      rules: nestedRules,
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("Categorized as: RECEIPT\nAmount: $542.00\n");
    expect(r.hits).toEqual([1, 1, 1, 1]);
    expectClean(r);
  });

  it("a typed think gets one repair turn in the same session", async () => {
    const r = await runAgent(setup, {
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

  it("a preamble before the do call never reaches the value (only --verbose shows it)", async () => {
    const r = await runAgent(setup, {
      source: ONE_DO,
      args: ["--verbose"],
      rules: [
        { when: "Pick the block", afterTool: false, reply: { preamble: "Let me run block 0 first.", call: 0 } },
        { when: "block ran", afterTool: true, reply: { text: "RECEIPT" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toBe("block ran\nvalue=[RECEIPT]\n");
    expect(r.stderr).toContain("Let me run block 0 first.");
    expectClean(r);
  });

  describe("a do that did not run is never silent", () => {
    it("the model calls a block that does not exist: PW4018", async () => {
      const r = await runAgent(setup, {
        source: ONE_DO,
        rules: [
          { when: "Pick the block", afterTool: false, reply: { call: 7 } },
          { afterTool: true, reply: { text: "DONE" } },
        ],
      });
      expect(r.hits).toEqual([1, 1]);
      expect(r.stdout).not.toContain("block ran");
      expectThinkError(r, "PW4018", /no do block 7/);
    });

    it("the model recovers from a wrong block number by itself: a warning, and the value", async () => {
      const r = await runAgent(setup, {
        source: ONE_DO,
        rules: [
          { when: "Pick the block", afterTool: false, reply: { call: 7 } },
          { when: "no do block 7", afterTool: true, reply: { call: 0 } },
          { when: "block ran", afterTool: true, reply: { text: "DONE" } },
        ],
      });
      expect(r.code, describeRun(r)).toBe(0);
      expect(r.hits).toEqual([1, 1, 1]);
      expect(r.stdout).toBe("block ran\nvalue=[DONE]\n");
      expect(r.stderr).toMatch(/program\.pw:1:9: warning\[PW4018\]: .*no do block 7/);
      expectClean(r);
    });

    it("the do block fails: PW4017 with the block's own error", async () => {
      const r = await runAgent(setup, {
        source: ONE_DO.replace('print("block ran")', 'print("block ran")\n        throw "broken block"'),
        rules: [
          { when: "Pick the block", afterTool: false, reply: { call: 0 } },
          { afterTool: true, reply: { text: "DONE" } },
        ],
      });
      expect(r.hits).toEqual([1, 1]);
      expectThinkError(r, "PW4017", /do block 0 failed: .*broken block/);
    });
  });

  // Restarts every `restartEvery` sessions, if the agent's profile restarts it at all.
  const restartEvery = !spec.restartAfterSessions
    ? 0
    : LOOP_THINKS >= 2 * spec.restartAfterSessions
      ? spec.restartAfterSessions
      : Math.ceil(LOOP_THINKS / 2.5);
  it(`${LOOP_THINKS} thinks in a loop: memory of the whole run stays flat${restartEvery ? ` (agent restarted every ${restartEvery} thinks)` : ""}`, async () => {
    const r = await runAgent(setup, {
      args: restartEvery ? ["--verbose", ...(restartEvery === spec.restartAfterSessions ? [] : ["--restart-agent-after", String(restartEvery)])] : [],
      source: spec.heapProbe ? withHeapProbes(loopSource(LOOP_THINKS), spec.heapProbe) : loopSource(LOOP_THINKS),
      timeoutMs: 60_000 + LOOP_THINKS * 10_000,
      rules: [
        { when: /Item \d+: pick the block/, afterTool: false, reply: { call: 0 } },
        { when: /^ran \d+/, afterTool: true, reply: { text: "ITEM-OK" } },
      ],
    });
    expect(r.code, describeRun(r)).toBe(0);
    const expected = Array.from({ length: LOOP_THINKS }, (_, k) => `ran ${k + 1}\nvalue ${k + 1}=ITEM-OK\n`).join("");
    expect(withoutProbes(r.stdout)).toBe(expected);
    expect(r.hits).toEqual([LOOP_THINKS, LOOP_THINKS]);
    expectClean(r);
    if (restartEvery) {
      const restarts = r.stderr.match(/restarting it to free their memory/g)?.length ?? 0;
      figure(name, `agent restarts in ${LOOP_THINKS} thinks`, restarts);
      expect(restarts).toBe(Math.floor((LOOP_THINKS - 1) / restartEvery));
      // What a restart costs: the time from one think's first model request to the next
      // one's, for the thinks that restart the agent, against the median of the others.
      const starts = turnRequests(r).filter((q) => !q.model?.afterTool).map((q) => q.time);
      const gaps = starts.slice(1).map((t, k) => ({ ms: t - starts[k]!, restart: (k + 1) % restartEvery === 0 }));
      const ms = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
      figure(name, "think to think, median without / with a restart (s)", `${(ms(gaps.filter((g) => !g.restart).map((g) => g.ms)) / 1000).toFixed(2)} / ${(ms(gaps.filter((g) => g.restart).map((g) => g.ms)) / 1000).toFixed(2)}`);
    }
    // RSS of the CLI and every process of the agent, early and late in the loop: a session
    // (and whatever the agent keeps for it) left open per think shows up here.
    const { earlyLeast, lateLeast } = loopFigures(name, r, LOOP_THINKS);
    if (!spec.heapProbe && restartEvery) {
      // Within one process the memory it keeps per session grows (that is why it is
      // restarted); across processes it must not: the peak of the last whole cycle of
      // `restartEvery` thinks against the peak of the first.
      const perThink = r.modelRequests.length / LOOP_THINKS;
      const cycle = (k: number) => peakRss(r, k * restartEvery * perThink, (k + 1) * restartEvery * perThink);
      const lastWhole = Math.floor(LOOP_THINKS / restartEvery) - 1;
      const [first, last] = [cycle(0), cycle(lastWhole)];
      figure(name, `peak RSS of the run, first and last cycle of ${restartEvery} thinks (MB)`, `${(first / MB).toFixed(0)} → ${(last / MB).toFixed(0)}`);
      expect(last - first, `peak RSS grew from ${first / MB} MB (first cycle) to ${last / MB} MB (cycle ${lastWhole + 1})`).toBeLessThan(64 * MB);
      return;
    }
    if (!spec.heapProbe) {
      // The least, not the peak or the median: the peak of four thinks swings with a
      // per-session process's start, and the median with whether the session made ahead for the
      // next think is a second old yet (harness.ts, leastRss: a fresh-clone CI run's median
      // went from 219 to 460 MB, one Claude Code process, with equal peaks); a session or
      // process kept per think raises the least RSS too.
      expect(lateLeast - earlyLeast, `least RSS grew from ${earlyLeast / MB} MB to ${lateLeast / MB} MB`).toBeLessThan(64 * MB);
      return;
    }
    // The agent's RSS mostly shows garbage not yet collected: measure after forced GCs instead.
    const heap = heapFigures(name, r.stdout, LOOP_THINKS);
    expect(heap.late.rssMB - heap.early.rssMB, "RSS after GC, think 5 to the last").toBeLessThan(64);
    expect(heap.perThink, "heap after GC, growth per think (MB)").toBeLessThan(1);
  }, 120_000 + LOOP_THINKS * 15_000);

  it("Ctrl-C while the model is thinking: exit 130, nothing printed after, no process left", async () => {
    const r = await runAgent(setup, {
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
}

/** `describe` for an agent's file: skipped, with its reason in the title, when the adapter is not installed. */
export function describeAgent(title: string, spec: AgentSpec, body: () => void): void {
  const present = installed(spec.command);
  describe.skipIf(!present)(present ? title : `${title} (skipped: ${spec.command} not installed; npm ci --prefix test/agents)`, body);
}

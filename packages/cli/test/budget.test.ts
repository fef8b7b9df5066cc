// Issue 32, budgets and what a run cost: `--max-thinks` and `--budget` stop a run before the think
// that would pass them (exit 3, the journal kept, what was spent and how to go on), `--resume`
// then ends with the output of a run never stopped; every run with an agent ends with a summary
// of what it asked and spent (`--json` and the trace's `run-end` carry the same); a program reads
// its figures in `self.session.usage`; `--verbose` leaves the agent's own log lines to
// `--verbose=2`. Real processes: the CLI and the scripted ACP agent, which reports usage.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCassetteText } from "@patchwork/interpreter";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

/** Each think costs 0.10 USD and 1,000 + 50 tokens; its answer names its prompt. */
const PAYING = {
  fallback: {
    steps: [
      { update: { sessionUpdate: "usage_update", used: 1000, size: 200000, cost: { amount: 0.1, currency: "USD" } } },
      { promptUsage: { inputTokens: 1000, outputTokens: 50, totalTokens: 1050 } },
      { reply: "answer to {{prompt}}" },
    ],
  },
};
/** Tokens, no cost (as Codex or Gemini CLI report). */
const TOKENS_ONLY = { fallback: { steps: [{ promptUsage: { inputTokens: 700, outputTokens: 30, totalTokens: 730 } }, { reply: "ok {{prompt}}" }] } };

const FIVE = `for var i in 1...5 {
  var a = think { Item $i: answer. }
  print("$i: $a")
}
print("done")
`;

function setUp(script: object, program: string = FIVE): { dir: string; agent: string } {
  const dir = tempFiles({ "p.pw": program, "script.json": JSON.stringify(script) });
  return { dir, agent: `"${process.execPath}" "${testAgent}" "${join(dir, "script.json")}"` };
}

const entries = (path: string) => readCassetteText(readFileSync(path, "utf8"), path).cassette.thinks.length;

describe("--max-thinks and --budget", { timeout: 120_000 }, () => {
  it("--max-thinks 3 stops before the 4th think: exit 3, the answers kept, what was spent and how to go on; --resume ends as a run never stopped", () => {
    const { dir, agent } = setUp(PAYING);
    const whole = patchwork(["run", "p.pw", "--agent", agent], { cwd: dir });
    expect([whole.status, whole.stderr]).toEqual([0, ""]);
    expect(whole.summary).toMatch(/^5 thinks asked, 0 replayed, 0 retried, 0 failed · tokens 5,000 in \/ 250 out · cost 0\.50 USD · \d+\.\d s$/);

    const stopped = patchwork(["run", "p.pw", "--agent", agent, "--max-thinks", "3", "--record", "k.json"], { cwd: dir });
    expect(stopped.status).toBe(3);
    expect(stopped.stdout).toBe("1: answer to Item 1: answer.\n2: answer to Item 2: answer.\n3: answer to Item 3: answer.\n");
    expect(stopped.stderr).toContain("p.pw:2:11: error[PW4030]: the run stopped at its limit of 3 thinks (--max-thinks)\n");
    expect(stopped.stderr).toContain(
      "patchwork: the run stopped at its budget (limit 3 thinks, 3 thinks asked): cassette k.json keeps 3 answered thinks; go on with --resume k.json and a limit for what is left (replayed thinks cost nothing), e.g. --resume k.json --max-thinks 3\n",
    );
    expect(stopped.summary).toMatch(/^3 thinks asked, 0 replayed, 0 retried, 0 failed · tokens 3,000 in \/ 150 out · cost 0\.30 USD · /);
    expect(entries(join(dir, "k.json"))).toBe(3);

    // --max-thinks 0: the replay alone, stopped at the first think the cassette lacks.
    const replayOnly = patchwork(["run", "p.pw", "--agent", agent, "--resume", "k.json", "--max-thinks", "0"], { cwd: dir });
    expect([replayOnly.status, replayOnly.stdout]).toEqual([3, stopped.stdout]);
    expect(replayOnly.stderr).toContain("e.g. --resume k.json\n");
    expect(replayOnly.summary).toMatch(/^0 thinks asked, 3 replayed, 0 retried, 0 failed · tokens not reported · cost not reported by the agent · /);
    expect(entries(join(dir, "k.json"))).toBe(3);

    // Replayed thinks cost nothing and count for nothing: the same limit lets the rest be asked.
    const resumed = patchwork(["run", "p.pw", "--agent", agent, "--resume", "k.json", "--max-thinks", "3"], { cwd: dir });
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toBe(whole.stdout);
    expect(resumed.summary).toMatch(/^2 thinks asked, 3 replayed, 0 retried, 0 failed · tokens 2,000 in \/ 100 out · cost 0\.20 USD · /);
    expect(entries(join(dir, "k.json"))).toBe(5);
  });

  it("--budget in money stops before a think the mean cost of a think would take past it; in tokens alike", () => {
    const { dir, agent } = setUp(PAYING);
    // 0.10 a think: after 2 (0.20 spent) a third would make 0.30 > 0.25.
    const money = patchwork(["run", "p.pw", "--agent", agent, "--budget", "0.25", "--record", "m.json"], { cwd: dir });
    expect(money.status).toBe(3);
    expect(money.stdout).toBe("1: answer to Item 1: answer.\n2: answer to Item 2: answer.\n");
    expect(money.stderr).toContain("error[PW4030]: the run stopped at its budget of 0.25 USD (--budget): 0.20 USD spent\n");
    expect(money.stderr).toContain("e.g. --resume m.json --budget 0.25\n");
    expect(entries(join(dir, "m.json"))).toBe(2);
    const resumed = patchwork(["run", "p.pw", "--agent", agent, "--resume", "m.json"], { cwd: dir });
    expect([resumed.status, resumed.stdout]).toEqual([0, "1: answer to Item 1: answer.\n2: answer to Item 2: answer.\n3: answer to Item 3: answer.\n4: answer to Item 4: answer.\n5: answer to Item 5: answer.\ndone\n"]);

    // A currency named: the same. 1,050 tokens a think: after 3 (3,150), a 4th would pass 4,000.
    expect(patchwork(["run", "p.pw", "--agent", agent, "--budget", "0.35usd"], { cwd: dir }).status).toBe(3);
    const tokens = patchwork(["run", "p.pw", "--agent", agent, "--budget", "4000tok"], { cwd: dir });
    expect(tokens.status).toBe(3);
    expect(tokens.stdout.trim().split("\n")).toHaveLength(3);
    expect(tokens.stderr).toContain("error[PW4030]: the run stopped at its budget of 4,000 tokens (--budget): 3,150 tokens spent\n");
    // Not recorded: it says how it could have been.
    expect(tokens.stderr).toContain("patchwork: nothing was recorded: with --record FILE, a run stopped at its budget goes on with --resume FILE");
    // The environment's limit, as the option's.
    expect(patchwork(["run", "p.pw", "--agent", agent], { cwd: dir, env: { PATCHWORK_MAX_THINKS: "1" } }).stdout).toBe("1: answer to Item 1: answer.\n");
  });

  it("a batch of workers stops at the limit with the thinks under way answered and kept; the resume prints what a whole run prints", () => {
    const program = `worker doc(n) {
  var a = think { Document $n: its category? }
  return "$n=$a"
}
var tasks = []
for var n in 1...8 { tasks.push(doc(n)) }
var all = self.delegate(tasks).await
for var line in all { print(line) }
`;
    const { dir, agent } = setUp({ fallback: { steps: [{ sleep: 50 }, ...PAYING.fallback.steps] } }, program);
    const whole = patchwork(["run", "p.pw", "--agent", agent, "--max-workers", "3"], { cwd: dir });
    expect(whole.status).toBe(0);
    const stopped = patchwork(["run", "p.pw", "--agent", agent, "--max-workers", "3", "--max-thinks", "4", "--record", "w.json"], { cwd: dir });
    expect(stopped.status).toBe(3);
    expect(stopped.stdout).toBe("");
    // Exactly 4 asked, and each one's answer kept (none was cut off to stop).
    expect(stopped.summary).toMatch(/^4 thinks asked, 0 replayed, 0 retried, 0 failed · /);
    expect(entries(join(dir, "w.json"))).toBe(4);
    const resumed = patchwork(["run", "p.pw", "--agent", agent, "--max-workers", "3", "--resume", "w.json"], { cwd: dir });
    expect([resumed.status, resumed.stdout]).toEqual([0, whole.stdout]);
    expect(resumed.summary).toMatch(/^4 thinks asked, 4 replayed, /);
  });

  it("an agent that reports no cost: said once, the run goes on and its tokens are counted", () => {
    const { dir, agent } = setUp(TOKENS_ONLY);
    const r = patchwork(["run", "p.pw", "--agent", agent, "--budget", "1.50"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stderr.match(/warning\[PW4031\]/g)).toHaveLength(1);
    expect(r.stderr).toContain("warning[PW4031]: the agent reports no cost, so --budget 1.50 (in the agent's currency) cannot be kept; tokens are counted (730 so far): give the budget in tokens, e.g. --budget 73000tok\n");
    expect(r.summary).toMatch(/^5 thinks asked, 0 replayed, 0 retried, 0 failed · tokens 3,500 in \/ 150 out · cost not reported by the agent · /);
  });

  it("bad limits are usage errors before anything starts", () => {
    const { dir, agent } = setUp(PAYING);
    const cases: [string[], Record<string, string>, string][] = [
      [["--max-thinks", "-1"], {}, "--max-thinks takes a whole number of thinks (0 or more)"],
      [["--max-thinks", "2.5"], {}, "--max-thinks takes a whole number of thinks (0 or more)"],
      [["--budget", "lots"], {}, `--budget takes an amount in the agent's currency (2.50, 2.50USD) or tokens (2000000tok); got "lots"`],
      [["--budget", "0"], {}, `--budget takes an amount in the agent's currency (2.50, 2.50USD) or tokens (2000000tok); got "0"`],
      [[], { PATCHWORK_BUDGET: "5 dollars" }, `$PATCHWORK_BUDGET takes an amount in the agent's currency (2.50, 2.50USD) or tokens (2000000tok); got "5 dollars"`],
    ];
    for (const [args, env, message] of cases) {
      const r = patchwork(["run", "p.pw", "--agent", agent, ...args], { cwd: dir, env });
      expect([r.status, r.stdout], args.join(" ")).toEqual([2, ""]);
      expect(r.stderr).toContain(message);
    }
    const noAgent = patchwork(["run", "p.pw", "--max-thinks", "3"], { cwd: dir });
    expect(noAgent.status).toBe(2);
    expect(noAgent.stderr).toContain("--max-thinks limits what the agent is asked: it needs an agent (--agent or $PATCHWORK_AGENT)");
  });
});

describe("what a run cost", { timeout: 120_000 }, () => {
  it("--json carries the totals; the trace's run-end too, and the budget's stop", () => {
    const { dir, agent } = setUp(PAYING);
    const r = patchwork(["run", "p.pw", "--agent", agent, "--json", "--max-thinks", "2", "--trace", "t.jsonl"], { cwd: dir });
    expect(r.status).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.totals).toMatchObject({ thinks: 2, replayed: 0, retried: 0, failed: 0, inputTokens: 2000, outputTokens: 100, cost: { USD: 0.2 } });
    expect(out.totals.wallMs).toBeGreaterThan(0);
    const records = readFileSync(join(dir, "t.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(records.find((x) => x.type === "budget-stop")).toMatchObject({ kind: "thinks", limit: "2 thinks", spent: "2 thinks" });
    const end = records[records.length - 1];
    expect(end).toMatchObject({ type: "run-end", exitCode: 3, totals: { thinks: 2, inputTokens: 2000, outputTokens: 100, cost: { USD: 0.2 } } });
    // The trace reads back against its schema.
    const shown = patchwork(["trace", "t.jsonl"], { cwd: dir });
    expect(shown.status).toBe(0);
  });

  it("a run without an agent prints no summary; a replay with no agent neither", () => {
    const { dir, agent } = setUp(PAYING);
    const r = patchwork(["run", "p.pw", "--no-agent"], { cwd: dir });
    expect([r.status, r.summary]).toEqual([0, undefined]);
    const recorded = patchwork(["run", "p.pw", "--agent", agent, "--record", "r.json"], { cwd: dir });
    expect(recorded.summary).toMatch(/^5 thinks asked, /);
    const replayed = patchwork(["run", "p.pw", "--replay", "r.json"], { cwd: dir });
    expect([replayed.status, replayed.stdout, replayed.stderr, replayed.summary]).toEqual([0, recorded.stdout, "", undefined]);
  });
});

describe("self.session.usage", { timeout: 120_000 }, () => {
  const USAGE = `var before = self.session.usage
var a = think { One. }
var b = think { Two. }
var after = self.session.usage
print("before", before)
print("after", after.thinks, after.inputTokens, after.outputTokens, after.cost.USD)
`;
  it("gives the figures so far with an agent, and zeros and nulls without one (in a worker too)", () => {
    const { dir, agent } = setUp(PAYING, USAGE);
    const live = patchwork(["run", "p.pw", "--agent", agent], { cwd: dir });
    expect([live.status, live.stderr]).toEqual([0, ""]);
    expect(live.stdout).toBe('before {"thinks":0,"inputTokens":null,"outputTokens":null,"cost":null}\nafter 2 2000 100 0.2\n');
    const none = patchwork(["run", "p.pw", "--no-agent"], { cwd: dir });
    expect(none.stdout).toContain('before {"thinks":0,"inputTokens":null,"outputTokens":null,"cost":null}\n');
    // A worker reads the run's figures (its thread asks the main thread).
    const workers = setUp(PAYING, `worker w() {\n  var x = think { In a worker. }\n  return self.session.usage.thinks\n}\nvar n = think { First. }\nprint(self.delegate([w()]).await)\nprint(self.session.usage.cost)\n`);
    const r = patchwork(["run", "p.pw", "--agent", workers.agent], { cwd: workers.dir });
    expect([r.status, r.stdout]).toEqual([0, '2\n{"USD":0.2}\n']);
  });
});

describe("--verbose and the agent's own log lines", { timeout: 120_000 }, () => {
  it("--verbose tells the run's story; --verbose=2 and -vv add the agent's stderr", () => {
    const { dir, agent } = setUp(PAYING, 'var a = think { One. }\nprint(a)\n');
    const one = patchwork(["run", "p.pw", "--agent", agent, "--verbose"], { cwd: dir });
    expect(one.status).toBe(0);
    const stopped = patchwork(["run", "p.pw", "--agent", agent, "--verbose", "--max-thinks", "0"], { cwd: dir });
    expect(stopped.stderr).toContain("[budget: 0 thinks asked, limit 0 thinks: no more thinks start; the run stops once those under way have answered]\n");
    expect(one.stderr).toContain("── think at p.pw:1 ──");
    expect(one.stderr).not.toContain("[test-agent]");
    for (const flag of [["--verbose=2"], ["-vv"], ["-v", "--verbose"]]) {
      const two = patchwork(["run", "p.pw", "--agent", agent, ...flag], { cwd: dir });
      expect(two.status, flag.join(" ")).toBe(0);
      expect(two.stderr).toContain("── think at p.pw:1 ──");
      expect(two.stderr).toContain("[test-agent] session created:");
    }
    const bad = patchwork(["run", "p.pw", "--agent", agent, "--verbose=3"], { cwd: dir });
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringContaining('--verbose takes 1 or 2 (2: the agent\'s own log lines too); got "3"')]);
  });
});

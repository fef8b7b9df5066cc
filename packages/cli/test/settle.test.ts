// Issue 32, "one failure does not sink the batch", end to end: the CLI with the scripted ACP
// agent (real processes), ten documents categorized by workers, document 7's think always fails
// (the agent refuses it). With settle() the other nine are printed and the failure reported; the
// recording keeps the nine answers, and `--resume` replays them and asks only document 7 again
// (counted at the agent). Without settle() the run fails, and its message says how to collect
// the rest.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCassette } from "@patchwork/interpreter";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");

const SETTLED = `worker categorize(n: number) {
  return think {
    Categorize document $n.
  }
}
var tasks = []
for var n in 1...10 { tasks.push(categorize(n)) }
var outcomes = self.delegate(tasks).settle().await
var i = 0
for var o in outcomes {
  i = i + 1
  if o.ok { print("document $i: \${o.value}") } else { log("document $i failed: \${o.error.message}") }
}
`;
const FAIL_FAST = SETTLED.replace(".settle().await", ".await").replace(/var i = 0[\s\S]*$/, "print(outcomes)\n");

/** An agent whose answer is "label of <prompt>", except for document 7 when `failing`: refused; its prompts counted in `log`. */
function agent(dir: string, log: string, failing: boolean): string {
  const script = {
    logFile: join(dir, log),
    prompts: failing ? [{ match: "document 7.", steps: [{ sleep: 30 }, { stop: "refusal" }] }] : [],
    fallback: { steps: [{ sleep: 30 }, { reply: "label of {{prompt}}" }] },
  };
  const file = join(dir, `${log}.script.json`);
  writeFileSync(file, JSON.stringify(script));
  return `"${process.execPath}" "${testAgent}" "${file}"`;
}

/** The prompts the agent received (its log's `prompt received` lines). */
function promptsIn(dir: string, log: string): number {
  const path = join(dir, log);
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l.startsWith("prompt received:")).length : 0;
}

const labels = (docs: number[]) => docs.map((n) => `document ${n}: label of Categorize document ${n}.\n`).join("");
const REFUSED = "document 7 failed: worker 'categorize' failed: the agent refused to answer (stop reason: refusal)\n";

describe("a batch where one document's think always fails", { timeout: 300_000 }, () => {
  it("with settle(): the others printed, the failure reported; --resume asks only the failed think again", () => {
    const dir = tempFiles({ "docs.pw": SETTLED });
    const nine = [1, 2, 3, 4, 5, 6, 8, 9, 10];

    const first = patchwork(["run", "docs.pw", "--agent", agent(dir, "first.log", true), "--record", "c.json", "--max-workers", "3"], { cwd: dir, timeoutMs: 120_000 });
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(labels(nine));
    expect(first.stderr).toContain(REFUSED);
    expect(first.stderr).toContain("patchwork: c.json: 1 think failed (not kept: --resume c.json asks it again)\n");
    expect(promptsIn(dir, "first.log")).toBe(10);
    expect(parseCassette(readFileSync(join(dir, "c.json"), "utf8"), "c.json").thinks.map((t) => t.worker)).toEqual(nine.map((n) => `categorize#${n}`));
    // A replay (in process, no agent) never passes with output the recording did not have: document 7 has no answer.
    const replayed = patchwork(["run", "docs.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 60_000 });
    expect(replayed.status).toBe(1);
    expect(replayed.stderr).toContain("docs.pw:2:10: error[PW3033]: worker 'categorize' failed: the cassette c.json has no recording for think 1 of worker categorize#7");

    // The agent still refuses document 7: nine answers replayed, one think asked, the same output.
    const again = patchwork(["run", "docs.pw", "--agent", agent(dir, "again.log", true), "--resume", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([again.status, again.stdout]).toEqual([0, first.stdout]);
    expect(again.stderr).toContain(REFUSED);
    expect(again.stderr).toContain("patchwork: c.json: 9 thinks replayed, 0 thinks asked live, 1 think failed (not kept: --resume c.json asks it again)\n");
    expect(promptsIn(dir, "again.log")).toBe(1);

    // Now it answers: the run ends as one never interrupted, and so does its cassette.
    const healed = patchwork(["run", "docs.pw", "--agent", agent(dir, "healed.log", false), "--resume", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect(healed.status).toBe(0);
    expect(healed.stdout).toBe(labels([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    expect(healed.stderr).toBe("patchwork: c.json: 9 thinks replayed, 1 think asked live\n");
    expect(promptsIn(dir, "healed.log")).toBe(1);
    const whole = patchwork(["run", "docs.pw", "--agent", agent(dir, "whole.log", false), "--record", "whole.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([whole.status, whole.stdout, whole.stderr]).toEqual([0, healed.stdout, ""]);
    expect(readFileSync(join(dir, "c.json"), "utf8")).toBe(readFileSync(join(dir, "whole.json"), "utf8").replaceAll("whole.json", "c.json"));
    const replayedWhole = patchwork(["run", "docs.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 60_000 });
    expect([replayedWhole.status, replayedWhole.stdout, replayedWhole.stderr]).toEqual([0, healed.stdout, ""]);
  });

  it("without settle(): the run fails at document 7, and the message names settle()", () => {
    const dir = tempFiles({ "docs.pw": FAIL_FAST });
    const r = patchwork(["run", "docs.pw", "--agent", agent(dir, "ff.log", true)], { cwd: dir, timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "docs.pw:2:10: error[PW4007]: worker 'categorize' failed: the agent refused to answer (stop reason: refusal) (the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)\n",
    );
  });

  it("examples/workers/batch.pw: three documents categorized, the refused one reported", () => {
    const script = join(repoRoot, "examples", "agents", "workers-batch.json");
    const r = patchwork(["run", "examples/workers/batch.pw", "--agent", `"${process.execPath}" "${testAgent}" "${script}"`], { timeoutMs: 120_000 });
    expect([r.status, r.stdout]).toEqual([0, "acme.txt: INVOICE\ncafe.txt: RECEIPT\nlease.txt: CONTRACT\n3 of 4 documents categorized\n"]);
    expect(r.stderr).toBe("blank.txt failed: worker 'categorize' failed: the agent refused to answer (stop reason: refusal)\n");
    const noAgent = patchwork(["run", "examples/workers/batch.pw", "--no-agent"], { timeoutMs: 60_000 });
    expect(noAgent.status).toBe(0);
    expect(noAgent.stdout).toContain('blank.txt: {"__think_prompt":"Categorize document blank.txt as INVOICE, RECEIPT, CONTRACT or OTHER; answer with the word only.\\n"}\n4 of 4 documents categorized\n');
  });
});

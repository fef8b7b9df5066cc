// `patchwork run` through a model outage: a worker batch whose agent (the scripted one) reports
// 529 Overloaded for a while finishes, its retries shown (--verbose) and traced, the governor's
// concurrency lowered and raised again; `--retries 0` fails at the first overload.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { patchwork, repoRoot, tempFiles } from "./helpers.js";

vi.setConfig({ testTimeout: 120_000 });

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
const OVERLOADED = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

const BATCH = `worker categorize(doc) {
    var r = think {
        Categorize document \${doc}.
    }
    return "\${doc}: \${r}"
}

var tasks = []
for d in 1...6 {
    tasks.push(categorize("doc\${d}"))
}
for line in self.delegate(tasks).await {
    print(line)
}
`;

function batch(script: object, args: string[], env: Record<string, string> = {}) {
  const dir = tempFiles({ "batch.pw": BATCH, "script.json": JSON.stringify(script) });
  const agent = `"${process.execPath}" "${testAgent}" "${join(dir, "script.json")}"`;
  const r = patchwork(["run", "batch.pw", "--agent", agent, ...args], { cwd: dir, env: { PATCHWORK_RETRY_DELAY_MS: "200", ...env }, timeoutMs: 100_000 });
  return { ...r, dir };
}

const answer = { steps: [{ sleep: 50 }, { reply: "news" }] };
const DOCS = [1, 2, 3, 4, 5, 6].map((n) => `doc${n}: news`).join("\n") + "\n";

type Record = { type: string; think?: number; attempt?: number; limit?: number; holding?: { reason: string } | null; reason?: string };

describe("retries of transient failures", () => {
  it("a six-document worker batch finishes through an outage: all printed, retries shown and traced, concurrency lowered then raised", () => {
    // The first 12 prompts fail (a time window would depend on how fast the machine starts the run).
    const r = batch({ outage: { prompts: 12, error: OVERLOADED }, fallback: answer }, ["--verbose", "--trace", "t.jsonl"]);
    expect(r.stdout).toBe(DOCS);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/\[categorize#\d\] \[retrying think at batch\.pw:2 in 0\.\d s \(1\/36\): 529 overloaded\]/);
    const trace = readFileSync(join(r.dir, "t.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record);
    const retries = trace.filter((t) => t.type === "think-retry");
    expect(retries.length).toBe(12);
    expect(new Set(retries.map((t) => t.think)).size).toBe(6);
    expect(retries.every((t) => t.reason === "529 overloaded")).toBe(true);
    // AIMD: the limit falls to what was in flight at most, halved, then rises again.
    const limits = trace.filter((t) => t.type === "governor").map((t) => t.limit!);
    const lowest = Math.min(...limits);
    expect(lowest).toBeLessThan(7);
    expect(Math.max(...limits.slice(limits.indexOf(lowest)))).toBeGreaterThan(lowest);
    // `patchwork trace` shows each think's retries.
    const tree = patchwork(["trace", "t.jsonl"], { cwd: r.dir });
    expect(tree.stdout).toMatch(/think \d at batch\.pw:2:13 · [\d.]+ m?s · ok · \d+ retr(y|ies) \(529 overloaded\) · "news"/);
  });

  it("--retries 0 (or $PATCHWORK_RETRIES=0) asks no think again: the first overload fails the run", () => {
    for (const [args, env] of [[["--retries", "0"], {}], [[], { PATCHWORK_RETRIES: "0" }]] as const) {
      const r = batch({ outage: { prompts: 1, error: OVERLOADED }, fallback: answer }, [...args], env);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/batch\.pw:2:\d+: error\[PW4013\]: .*API Error: 529/);
      expect(r.stderr).not.toMatch(/retrying|still failing/);
    }
  });

  it("gives up after --retries N, saying how often it asked", () => {
    const r = batch({ outage: { prompts: 100, error: OVERLOADED }, fallback: answer }, ["--retries", "2", "--max-workers", "1"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error\[PW4013\]: .*529.*still failing after 2 retries over \d+ s; --retries sets how many/);
  });

  it("a failure that is not transient is not retried", () => {
    const r = batch({ outage: { prompts: 1, error: "API Error: 400 invalid_request_error" }, fallback: answer }, ["--verbose"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error\[PW4013\]: .*API Error: 400/);
    expect(r.stderr).not.toMatch(/retrying/);
  });

  it("the idle timeout is transient: a think whose agent went silent is asked again", () => {
    const script = { prompts: [{ match: "doc1", once: true, steps: [{ hang: true }] }], fallback: answer };
    const r = batch(script, ["--idle-timeout", "0.5", "--verbose"]);
    expect(r.stdout).toBe(DOCS);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/\[retrying think at batch\.pw:2 in 0\.\d s \(1\/2\): the agent was silent \(idle timeout\)\]/);
  });

  it("an agent process that dies mid-think: its thinks are asked again of a new process (PW4004 is transient)", () => {
    // doc3's first prompt kills the agent (SIGKILL) while other documents' thinks are in flight on
    // it; the marker file (relative: the agent runs in the run's directory) lets the next process answer.
    const crashOnce = { match: "doc3", steps: [{ sleep: 30 }, { crash: true, onceFile: "crashed.marker" }, ...answer.steps] };
    const r = batch({ prompts: [crashOnce], fallback: answer }, ["--verbose"]);
    expect(r.stdout).toBe(DOCS);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/\[retrying think at batch\.pw:2 in 0\.\d s \(1\/2\): the agent process exited\]/);
    const pids = [...r.stderr.matchAll(/\[agent \S+ started, pid (\d+)/g)].map((m) => m[1]);
    expect(new Set(pids).size).toBe(2);
    expect(readFileSync(join(r.dir, "crashed.marker"), "utf8").trim()).toBe(pids[0]);
  });

  it("--retries 0: an agent process that dies mid-think fails the run with PW4004, as before", () => {
    const crashOnce = { match: "doc3", steps: [{ sleep: 30 }, { crash: true, onceFile: "crashed.marker" }, ...answer.steps] };
    const r = batch({ prompts: [crashOnce], fallback: answer }, ["--retries", "0"]);
    expect(r.status).toBe(1);
    // (The think runs in a worker thread: the error names the file, as before this change.)
    expect(r.stderr).toMatch(/batch\.pw: error\[PW4004\]: the agent process was killed by SIGKILL/);
    expect(r.stderr).not.toMatch(/retrying/);
  });

  it("usage errors: --retries and --rate take what they say", () => {
    const dir = tempFiles({ "p.pw": 'print("x")\n' });
    for (const [args, message] of [
      [["--retries", "-1"], /--retries takes a whole number of retries from 0/],
      [["--retries", "1.5"], /--retries takes a whole number/],
      [["--rate", "fast"], /--rate takes thinks per minute, at least 1: 30, 30\/min, 2\/s or 600\/h \(not "fast"\)/],
      [["--rate", "0"], /--rate takes thinks per minute/],
    ] as const) {
      const r = patchwork(["run", "p.pw", "--no-agent", ...args], { cwd: dir });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

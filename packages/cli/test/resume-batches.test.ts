// `patchwork run --resume`: the replayed thinks' output and events leave the evaluator thread in
// batches (packages/agent/src/thread/outbox.ts), and nothing a user can see or keep changes:
// stdout and stderr interleave as in a run never interrupted, the pipe the CLI writes to stays
// blocking, and a resumed run killed during its live thinks keeps every answer it got. Real
// processes: the CLI, the scripted ACP agent, SIGKILL.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatCassette, parseCassette, readCassetteText } from "@patchwork/interpreter";
import { patchwork, patchworkBin, repoRoot, splitSummary, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
const agentWith = (script: string) => `"${process.execPath}" "${testAgent}" "${script}"`;

const TOTAL = 60;
const KEPT = 40;
const PROGRAM = `for i in 1...${TOTAL} {
  print("before $i")
  var r = think { count $i }
  print("after $i: $r")
  if i % 10 == 0 { log("logged $i") }
}
`;

function entriesIn(path: string): number {
  if (!existsSync(path)) return 0;
  try {
    return readCassetteText(readFileSync(path, "utf8"), path).cassette.thinks.length;
  } catch {
    return 0;
  }
}

/** A folder with the program, a script (each answer after `sleepMs`), an uninterrupted recording `full.json` and its first KEPT entries as `k.json`. */
function recorded(sleepMs: number, slow: { match: string; sleepMs: number } | null = null) {
  const steps = (ms: number) => [...(ms > 0 ? [{ sleep: ms }] : []), { reply: "ok {{prompt}}" }];
  const script = { prompts: slow ? [{ match: slow.match, steps: steps(slow.sleepMs) }] : [], fallback: { steps: steps(sleepMs) } };
  const dir = tempFiles({ "p.pw": PROGRAM, "script.json": JSON.stringify(script) });
  const agent = agentWith(join(dir, "script.json"));
  const fast = agentWith(join(dir, "fast.json"));
  writeFileSync(join(dir, "fast.json"), JSON.stringify({ fallback: { steps: steps(0) } }));
  const full = patchwork(["run", "p.pw", "--agent", fast, "--record", "full.json"], { cwd: dir, timeoutMs: 120_000 });
  expect([full.status, full.stderr]).toEqual([0, "logged 10\nlogged 20\nlogged 30\nlogged 40\nlogged 50\nlogged 60\n"]);
  const cassette = parseCassette(readFileSync(join(dir, "full.json"), "utf8"), "full.json");
  const killed = formatCassette({ ...cassette, thinks: cassette.thinks.slice(0, KEPT) });
  writeFileSync(join(dir, "k.json"), killed);
  return { dir, agent, full, killed };
}

/** `patchwork ARGS` with its stderr into its stdout (one pipe, as `2>&1`): what a terminal would show, in order. */
function merged(args: string[], cwd: string): { status: number | null; text: string } {
  const r = spawnSync("/bin/sh", ["-c", 'exec "$0" "$@" 2>&1', process.execPath, patchworkBin, ...args], { cwd, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, text: r.stdout };
}

describe("a resume's replay sent in batches", { timeout: 300_000 }, () => {
  it("interleaves stdout and stderr as a run never interrupted (one pipe for both)", () => {
    const { dir, agent } = recorded(0);
    const whole = merged(["run", "p.pw", "--agent", agent], dir);
    const resumed = merged(["run", "p.pw", "--agent", agent, "--resume", "k.json"], dir);
    expect(whole.status).toBe(0);
    // Each ends with its summary of what it asked and spent (helpers.ts `splitSummary`).
    const [wholeText, resumedText] = [splitSummary(whole.text), splitSummary(resumed.text)];
    expect(wholeText.summary).toMatch(new RegExp(`^${TOTAL} thinks asked, 0 replayed, `));
    expect(resumedText.summary).toMatch(new RegExp(`^${TOTAL - KEPT} thinks asked, ${KEPT} replayed, `));
    expect({ status: resumed.status, text: resumedText.stderr }).toEqual({
      status: 0,
      text: `${wholeText.stderr}patchwork: k.json: ${KEPT} thinks replayed, ${TOTAL - KEPT} thinks asked live\n`,
    });
    expect(readFileSync(join(dir, "k.json"), "utf8")).toBe(readFileSync(join(dir, "full.json"), "utf8"));
  });

  it.skipIf(process.platform !== "linux")("leaves the CLI's stdout and stderr pipes blocking, no EAGAIN loop in the evaluator thread (skipped: reads /proc, Linux only)", async () => {
    const { dir, agent } = recorded(0, { match: `count ${KEPT + 1}`, sleepMs: 3000 });
    const child = spawn(process.execPath, [patchworkBin, "run", "p.pw", "--agent", agent, "--resume", "k.json"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    // In the slow live think: the replay is done and the thread and the agent runtime are up.
    while (!out.includes(`before ${KEPT + 1}\n`)) {
      if (Date.now() > deadline) throw new Error(`the resume never reached think ${KEPT + 1}: ${out}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const flags = (fd: number) => parseInt(/^flags:\s*(\d+)/m.exec(readFileSync(`/proc/${child.pid}/fdinfo/${fd}`, "utf8"))![1]!, 8);
    const O_NONBLOCK = 0o4000;
    expect([flags(1) & O_NONBLOCK, flags(2) & O_NONBLOCK]).toEqual([0, 0]);
    expect(await exited).toBe(0);
  });

  it("killed during its live thinks, keeps every answer it got, and resumes again to the uninterrupted cassette", async () => {
    const { dir, agent, full, killed } = recorded(30);
    for (const answered of [1, 4, 9]) {
      writeFileSync(join(dir, "k.json"), killed);
      const child = spawn(process.execPath, [patchworkBin, "run", "p.pw", "--agent", agent, "--resume", "k.json"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout!.on("data", (d) => (out += d));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const deadline = Date.now() + 60_000;
      // Killed once the journal holds `answered` live answers (a think's entry is written when it ends).
      while (entriesIn(join(dir, "k.json")) < KEPT + answered) {
        if (Date.now() > deadline) throw new Error(`the resume never journaled ${answered} answers: ${out}`);
        await new Promise((r) => setTimeout(r, 2));
      }
      child.kill("SIGKILL");
      await exited;
      const kept = entriesIn(join(dir, "k.json"));
      expect(kept).toBeGreaterThanOrEqual(KEPT + answered);
      // What it printed so far: the uninterrupted run's output up to there, replay included, in order.
      expect(out.length).toBeGreaterThanOrEqual(full.stdout.indexOf(`before ${KEPT + 1}\n`));
      expect(full.stdout.startsWith(out)).toBe(true);
      const again = patchwork(["run", "p.pw", "--agent", agent, "--resume", "k.json"], { cwd: dir, timeoutMs: 120_000 });
      expect([again.status, again.stdout]).toEqual([0, full.stdout]);
      expect(again.stderr).toContain(`patchwork: k.json: ${kept} thinks replayed, ${TOTAL - kept} thinks asked live\n`);
      expect(readFileSync(join(dir, "k.json"), "utf8")).toBe(readFileSync(join(dir, "full.json"), "utf8"));
    }
  });
});

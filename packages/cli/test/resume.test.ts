// Issue 21 §1-3: a recording killed anywhere loses at most the thinks under way and resumes to
// the same output and the same cassette; a replay never passes with the wrong output; an agent
// that dies while a `do` block runs a command ends the run at once. Real processes throughout:
// the CLI, the scripted ACP agent, SIGKILL.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runWithAgent } from "@patchwork/agent";
import { parseCassette, readCassetteText } from "@patchwork/interpreter";
import { patchwork, patchworkBin, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
const agentWith = (script: string) => `"${process.execPath}" "${testAgent}" "${script}"`;

// Ten thinks: each runs a block that prints and counts; every third asks a nested think from its block.
const PROGRAM = `var total = 0
for var i in 1...10 {
  var a = think {
    Item $i: run the block, then answer. do(0)
    do {
      total = total + i
      print("block $i")
      if i % 3 == 0 {
        var inner = think { A nested question about item $i }
        print("inner $inner")
      }
    }
  }
  print("$i: $a")
}
print("total $total")
`;
const THINKS = 13;
// The outer prompts show the block's source ("about item $i"), so "about item 3" matches only the nested think.
const SCRIPT = {
  prompts: [3, 6, 9].map((n) => ({ match: `about item ${n}`, steps: [{ sleep: 15 }, { reply: "inner answer to {{prompt}}" }] })),
  fallback: { steps: [{ do: 0 }, { sleep: 15 }, { reply: "answer after {{do}}" }] },
};

function entriesIn(path: string): number {
  if (!existsSync(path)) return 0;
  try {
    return readCassetteText(readFileSync(path, "utf8"), path).cassette.thinks.length;
  } catch {
    return 0; // the header is being replaced (an atomic rename): not yet a cassette
  }
}

/** Starts a recording, SIGKILLs it once its cassette holds `entries` entries and `delayMs` more passed. */
async function killedRecording(dir: string, agent: string, entries: number, delayMs: number): Promise<void> {
  const child = spawn(process.execPath, [patchworkBin, "run", "p.pw", "--agent", agent, "--record", "k.json"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let done = false;
  void exited.then(() => (done = true));
  const deadline = Date.now() + 60_000;
  while (!done && entriesIn(join(dir, "k.json")) < entries) {
    if (Date.now() > deadline) throw new Error(`the recording never reached ${entries} entries: ${stderr}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, delayMs));
  child.kill("SIGKILL");
  await exited;
}

describe("a killed recording resumes", { timeout: 600_000 }, () => {
  it("to the output and the cassette of a run never interrupted, wherever it was killed (20 kill points)", async () => {
    const dir = tempFiles({ "p.pw": PROGRAM, "script.json": JSON.stringify(SCRIPT) });
    const agent = agentWith(join(dir, "script.json"));
    const full = patchwork(["run", "p.pw", "--agent", agent, "--record", "full.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([full.status, full.stderr]).toEqual([0, ""]);
    expect(full.stdout).toContain("block 3\ninner inner answer to A nested question about item 3\n3: answer after block 3\ninner inner answer");
    const cassette = readFileSync(join(dir, "full.json"), "utf8");
    expect(parseCassette(cassette, "full.json").thinks).toHaveLength(THINKS);

    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: THINKS - 1 }), fc.integer({ min: 0, max: 60 }), async (entries, delayMs) => {
        await killedRecording(dir, agent, entries, delayMs);
        const kept = entriesIn(join(dir, "k.json"));
        const resumed = patchwork(["run", "p.pw", "--agent", agent, "--resume", "k.json"], { cwd: dir, timeoutMs: 120_000 });
        expect(resumed.status).toBe(0);
        expect(resumed.stdout).toBe(full.stdout);
        expect(readFileSync(join(dir, "k.json"), "utf8")).toBe(cassette);
        const plural = (n: number) => `${n} ${n === 1 ? "think" : "thinks"}`;
        expect(resumed.stderr).toMatch(new RegExp(`^(patchwork: warning: k\\.json (ends inside an entry|does not exist) .*\\n)?patchwork: k\\.json: ${plural(kept)} replayed, ${plural(THINKS - kept)} asked live\\n$`));
      }),
      { numRuns: 20 },
    );
  });

  it("with workers: answers keyed per worker and think, the same cassette bytes", async () => {
    const source = `worker part(n: number) {
  var out = []
  for var i in 1...4 { out = out + [think { Worker $n item $i }] }
  return out
}
var results = self.delegate([part(1), part(2), part(3)]).await
for var r in results { print(r) }
`;
    const dir = tempFiles({ "p.pw": source, "script.json": JSON.stringify({ fallback: { steps: [{ sleep: 40 }, { reply: "re: {{prompt}}" }] } }) });
    const agent = agentWith(join(dir, "script.json"));
    const full = patchwork(["run", "p.pw", "--agent", agent, "--record", "full.json"], { cwd: dir, timeoutMs: 120_000 });
    expect(full.status).toBe(0);
    await killedRecording(dir, agent, 5, 0);
    const kept = entriesIn(join(dir, "k.json"));
    expect(kept).toBeLessThan(12);
    const resumed = patchwork(["run", "p.pw", "--agent", agent, "--resume", "k.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([resumed.status, resumed.stdout]).toEqual([0, full.stdout]);
    expect(readFileSync(join(dir, "k.json"), "utf8")).toBe(readFileSync(join(dir, "full.json"), "utf8"));
    expect(resumed.stderr).toContain(`${kept} thinks replayed`);
  });

  it("in the library API: runWithAgent({record: {path, resume: true}})", async () => {
    const dir = tempFiles({ "p.pw": PROGRAM, "script.json": JSON.stringify(SCRIPT) });
    const agent = agentWith(join(dir, "script.json"));
    const full = patchwork(["run", "p.pw", "--agent", agent, "--record", "full.json"], { cwd: dir, timeoutMs: 120_000 });
    await killedRecording(dir, agent, 6, 0);
    const kept = entriesIn(join(dir, "k.json"));
    const result = await runWithAgent({
      source: PROGRAM,
      fileName: "p.pw",
      cwd: dir,
      agent: { command: agent, cwd: dir },
      writeOutput: false,
      record: { path: join(dir, "k.json"), resume: true },
    });
    expect([result.ok, result.output]).toEqual([true, full.stdout]);
    expect(result.recording).toMatchObject({ replayed: kept, live: THINKS - kept, entries: THINKS, kept });
    expect(readFileSync(join(dir, "k.json"), "utf8")).toBe(readFileSync(join(dir, "full.json"), "utf8"));
  });

  it("a cancelled recording keeps its answers and says how to go on", async () => {
    const slow = { fallback: { steps: [{ sleep: 400 }, { reply: "slow answer" }] } };
    const dir = tempFiles({ "p.pw": PROGRAM.replace("do(0)", ""), "script.json": JSON.stringify(slow) });
    const agent = agentWith(join(dir, "script.json"));
    const r = patchwork(["run", "p.pw", "--agent", agent, "--record", "k.json", "--timeout", "3"], { cwd: dir, timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    const kept = entriesIn(join(dir, "k.json"));
    expect(r.stderr).toContain(`patchwork: the run was cancelled: cassette k.json keeps ${kept} answered`);
    expect(r.stderr).toContain("go on with --resume k.json");
  });
});

const NESTED = `var doc = read("data.txt")
var r = think {
  Summarize. do(0)
  do {
    var inner = think { Inner about $doc }
    print("inner said $inner")
  }
}
print(r)
`;
const NESTED_SCRIPT = {
  prompts: [
    { match: "Summarize", steps: [{ do: 0 }, { reply: "outer done" }] },
    { match: "Inner about", steps: [{ reply: "inner ok" }] },
  ],
};

describe("a replay never passes with the wrong output", { timeout: 300_000 }, () => {
  it("a nested think whose data changed fails the replay at the inner think, with the prompt diff", () => {
    const dir = tempFiles({ "p.pw": NESTED, "data.txt": "v1", "script.json": JSON.stringify(NESTED_SCRIPT) });
    const rec = patchwork(["run", "p.pw", "--agent", agentWith(join(dir, "script.json")), "--record", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([rec.status, rec.stdout]).toEqual([0, "inner said inner ok\nouter done\n"]);
    writeFileSync(join(dir, "data.txt"), "v2");
    const r = patchwork(["run", "p.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([r.status, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toBe(
      "p.pw:5:17: error[PW3032]: the prompt of think 2 does not match the cassette c.json (- recorded, + now):\n" +
        "- Inner about v1\n+ Inner about v2\n" +
        "5 |     var inner = think { Inner about $doc }\n  |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^\n",
    );
  });

  it("in a worker too (its own evaluator thread): never the no-agent prompt instead, not caught by try", () => {
    const source = `worker w() {\n${NESTED.replace("print(r)\n", "return r\n")}}\ntry {\n  var [x] = self.delegate([w()]).await\n  print(x)\n} catch e { print("caught", e) }\n`;
    const dir = tempFiles({ "p.pw": source, "data.txt": "v1", "script.json": JSON.stringify(NESTED_SCRIPT) });
    const rec = patchwork(["run", "p.pw", "--agent", agentWith(join(dir, "script.json")), "--record", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([rec.status, rec.stdout]).toEqual([0, "inner said inner ok\nouter done\n"]);
    expect(patchwork(["run", "p.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 120_000 }).stdout).toBe("inner said inner ok\nouter done\n");
    writeFileSync(join(dir, "data.txt"), "v2");
    const r = patchwork(["run", "p.pw", "--replay", "c.json"], { cwd: dir, timeoutMs: 120_000 });
    expect([r.status, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toMatch(/^p\.pw:6:17: error\[PW3032\]: worker 'w' failed: the prompt of think 2 of worker w#1 does not match the cassette c\.json \(- recorded, \+ now\):\n- Inner about v1\n\+ Inner about v2\n/);
  });

  it("patchwork test fails a test whose replay drifted, even with --update (the snapshot is kept)", () => {
    const dir = tempFiles({ "n.test.pw": NESTED, "data.txt": "v1", "script.json": JSON.stringify(NESTED_SCRIPT) });
    const update = patchwork(["test", ".", "--update", "--agent", agentWith(join(dir, "script.json"))], { cwd: dir, timeoutMs: 120_000 });
    expect(update.stdout).toBe("PASS n.test.pw (snapshot created)\n1 passed, 0 failed\n");
    const snapshot = readFileSync(join(dir, "n.snap"), "utf8");
    writeFileSync(join(dir, "data.txt"), "v2");
    for (const args of [["test", "."], ["test", ".", "--update"]]) {
      const r = patchwork(args, { cwd: dir, timeoutMs: 120_000 });
      expect(r.status).toBe(1);
      expect(r.stdout).toContain("FAIL n.test.pw: the run does not match n.cassette.json (re-record it with --update --agent):\n");
      expect(r.stdout).toContain("    - Inner about v1\n    + Inner about v2\n");
      expect(r.stdout.endsWith("0 passed, 1 failed\n")).toBe(true);
    }
    expect(readFileSync(join(dir, "n.snap"), "utf8")).toBe(snapshot);
  });
});

describe("agents and commands that fail", { timeout: 300_000 }, () => {
  it("an agent that dies while a do block runs a long command fails the run at once and kills the command", () => {
    const source = `var r = think {\n  Run the slow block. do(0)\n  do { $ sh -c 'echo $$ > cmd.pid; exec sleep 60' }\n}\nprint(r)\n`;
    // The agent kills itself once the block's command runs (it has written its pid; at most 60 s).
    const dir = tempFiles({ "p.pw": source });
    const waitThenDie = `i=0; while [ ! -s '${join(dir, "cmd.pid")}' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; kill -9 $PPID`;
    const script = { prompts: [{ match: "Run the slow", steps: [{ spawn: waitThenDie }, { do: 0 }, { reply: "done" }] }] };
    writeFileSync(join(dir, "script.json"), JSON.stringify(script));
    const started = Date.now();
    const r = patchwork(["run", "p.pw", "--agent", agentWith(join(dir, "script.json"))], { cwd: dir, timeoutMs: 120_000 });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^p\.pw:1:9: error\[PW4004\]: the agent process was killed by SIGKILL\n/);
    const pid = Number(readFileSync(join(dir, "cmd.pid"), "utf8"));
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = !existsSync(`/proc/${pid}`) || /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (!gone) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
    expect(gone).toBe(true);
  });

  it("--timeout with an agent is positioned at the command that was running, as without an agent", () => {
    const source = `print("a")\nvar r = think {\n  Run the slow block. do(0)\n  do { $ sleep 60 }\n}\nprint(r)\n`;
    const script = { prompts: [{ match: "Run the slow", steps: [{ do: 0 }, { reply: "done" }] }] };
    const dir = tempFiles({ "p.pw": source, "top.pw": 'print("a")\n$ sleep 60\n', "script.json": JSON.stringify(script) });
    const agent = agentWith(join(dir, "script.json"));
    // 8 s: the agent's start and its do(0) come well before, even on a loaded machine.
    const inDo = patchwork(["run", "p.pw", "--agent", agent, "--timeout", "8"], { cwd: dir, timeoutMs: 120_000 });
    expect([inDo.status, inDo.stdout]).toEqual([1, "a\n"]);
    expect(inDo.stderr).toMatch(/^p\.pw:4:8: error\[PW4006\]: the run timed out after 8000 ms\n4 \|   do \{ \$ sleep 60 \}\n/);
    const top = patchwork(["run", "top.pw", "--agent", agent, "--timeout", "8"], { cwd: dir, timeoutMs: 120_000 });
    expect(top.stderr).toMatch(/^top\.pw:2:1: error\[PW4006\]: the run timed out after 8000 ms\n/);
    const none = patchwork(["run", "top.pw", "--timeout", "3"], { cwd: dir, timeoutMs: 120_000 });
    expect(none.stderr).toMatch(/^top\.pw:2:1: error\[PW3072\]/);
  });
});

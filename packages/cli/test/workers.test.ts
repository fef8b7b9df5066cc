// Files run by their declared skills with arguments, `patchwork list`, and the workers
// examples (the reference's four integration programs, in our own words) through the CLI.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { patchwork, patchworkBin, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
const scripted = (script: string) => `"${process.execPath}" "${testAgent}" "${join(repoRoot, "examples", "agents", script)}"`;
const SLOW = { timeoutMs: 120_000 };
// Each test runs real processes and threads (one or two runs each); a loaded machine is slow.
vi.setConfig({ testTimeout: 300_000 });

function promptOf(stdout: string): string {
  const last = stdout.trim().split("\n").pop()!;
  return (JSON.parse(last) as { __think_prompt: string }).__think_prompt;
}

describe("patchwork run FILE [entry] [args…]", () => {
  it("runs the greeter's one skill with a positional argument, or by name with --arg", () => {
    const r = patchwork(["run", "examples/workers/greeter.pw", "Alice", "--no-agent"], SLOW);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("Preparing greeting for Alice...");
    expect(promptOf(r.stdout)).toContain("Greet the user named Alice with a warm, personal message.");
    const named = patchwork(["run", "examples/workers/greeter.pw", "greet", "--arg", "name=Bob", "--no-agent"], SLOW);
    expect(named.status).toBe(0);
    expect(promptOf(named.stdout)).toContain("named Bob");
  });

  it("converts arguments to their declared types (interpolation test: a string, a number, the session)", () => {
    const r = patchwork(["run", "examples/workers/interpolation.pw", "test", "TestUser", "42", "--no-agent"], SLOW);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const prompt = promptOf(r.stdout);
    expect(prompt).toContain("- Name: TestUser\n- Count: 42 (a number)\n");
    expect(prompt).toMatch(/- Session ID: [0-9A-HJKMNP-TV-Z]{26}\n/);
    expect(prompt).toMatch(/- Timestamp: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n/);
    expect(prompt).toContain('- Config: {\n  "debug": true,\n  "max_retries": 42,\n  "env": "test"\n}');
    const dir = /- Directory: (\S+)\n/.exec(prompt)![1]!;
    expect(existsSync(dir)).toBe(false);
  });

  it("keeps the session directory with --keep-session", () => {
    const r = patchwork(["run", "examples/workers/interpolation.pw", "test", "--arg", "name=K", "--arg", "count=1", "--keep-session", "--no-agent"], SLOW);
    expect(r.status).toBe(0);
    const dir = /- Directory: (\S+)\n/.exec(promptOf(r.stdout))![1]!;
    expect(existsSync(join(dir, "config.json"))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it("says which argument does not fit, and the signature when one is missing", () => {
    const bad = patchwork(["run", "examples/workers/interpolation.pw", "test", "X", "many", "--no-agent"], SLOW);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`error[PW3065]: argument 'count' (number): expected number, got "many"`);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const missing = patchwork(["run", "examples/workers/interpolation.pw", "test", "X", "--no-agent"], SLOW);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("missing argument(s) 'count': test(name: string, count: number)");
  });

  it("rejects malformed options as usage errors", () => {
    expect(patchwork(["run", "examples/workers/greeter.pw", "--arg", "name"]).status).toBe(2);
    expect(patchwork(["run", "examples/workers/greeter.pw", "--max-workers", "0"]).status).toBe(2);
    // With --entry, the words after the file are all arguments.
    const both = patchwork(["run", "examples/workers/greeter.pw", "Dora", "--entry", "greet", "--no-agent"], SLOW);
    expect(both.status).toBe(0);
    expect(promptOf(both.stdout)).toContain("named Dora");
  });

  it("runs the mailbox test: the receiver sums what the sender posts", () => {
    const r = patchwork(["run", "examples/workers/mailbox.pw", "test", "5", "--no-agent"], SLOW);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.filter((l) => l.startsWith("Sent message"))).toEqual([1, 2, 3, 4, 5].map((i) => `Sent message ${i}`));
    expect(lines.filter((l) => l.startsWith("Received message"))).toEqual([1, 2, 3, 4, 5].map((i) => `Received message ${i}: value=${i * 10}`));
    expect(promptOf(r.stdout)).toContain("5 messages received, values summing to 150");
  });

  it("runs the delegation test with the scripted agent: three results collected", () => {
    const r = patchwork(["run", "examples/workers/delegation.pw", "--agent", scripted("workers-delegation.json"), "--max-workers", "3"], SLOW);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("Coordinator delegating");
    expect(lines.filter((l) => l.endsWith(" done")).sort()).toEqual(["configuration done", "constraints done", "structure done"]);
    expect(r.stdout).toContain("- structure: A-complete\n- configuration: B-complete\n- constraints: C-complete\n");
    expect(r.stdout).toMatch(/^Confirmed: The delegation test has finished\./m);
  });
});

describe("waiting workers (decision 0016)", () => {
  it("run 200 workers waiting in a receive on a few threads: the process has far fewer threads than tasks, and every task finishes", async () => {
    const n = 200;
    const dir = tempFiles({
      "wait.pw": `worker w(i) {
    self.session.mailbox.ready.send(i)
    var m = self.session.mailbox.go.receive(120000)
    return i + m
}
var t = []
for i in 1...${n} { t.push(w(i)) }
var p = self.delegate(t)
for i in 1...${n} { self.session.mailbox.ready.receive(120000) }
print("all ready")
$ sh -c 'while [ ! -f sampled ]; do sleep 0.05; done'
for i in 1...${n} { self.session.mailbox.go.send(0) }
var sum = 0
for x in p.await { sum = sum + x }
print(sum)
`,
    });
    const child = spawn(process.execPath, [patchworkBin, "run", "--no-agent", "--max-workers", String(n), "wait.pw"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let threads = NaN;
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes("all ready") && Number.isNaN(threads)) {
        // Every task is waiting now: the OS threads of the whole process (Node's own included).
        threads = Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]);
        writeFileSync(join(dir, "sampled"), "");
      }
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(stdout).toBe(`all ready\n${(n * (n + 1)) / 2}\n`);
    // One thread per task was 200 and more; 32 tasks a thread need 7, plus Node's own few.
    expect(threads).toBeLessThan(60);
  });
});

describe("patchwork list", () => {
  it("prints each entry with its signature and the doc comment above it", () => {
    const r = patchwork(["list", "examples/workers/greeter.pw"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      "skill greet(name: string)  (Greeter.greet)\n    Greets a user with a personalized message\nworker greeter_worker(name: string)\n",
    );
  });

  it("prints JSON with --json", () => {
    const r = patchwork(["list", "examples/workers/mailbox.pw", "--json"]);
    expect(r.status).toBe(0);
    const entries = JSON.parse(r.stdout) as { name: string; kind: string; params: { name: string; type: string | null }[] }[];
    expect(entries.map((e) => [e.kind, e.name])).toEqual([
      ["skill", "test"],
      ["worker", "sender"],
      ["worker", "receiver"],
    ]);
    expect(entries[0]!.params).toEqual([{ name: "count", type: "number" }]);
  });

  it("reports syntax errors with exit 1", () => {
    const r = patchwork(["list", "examples/agents/categorize.json"]);
    expect(r.status).toBe(1);
  });
});

describe("workers in --verbose, traces and cassettes", () => {
  it("label each think's lines with its worker; a recording keys thinks by worker, so its replay gives each worker its own answers", () => {
    // Two workers with the same prompt: the agent answers in the order the thinks arrive.
    const program = 'worker w(i) {\n    var r = think {\n        Say a number.\n        do {\n            print("do ran in worker ${i}")\n        }\n    }\n    return "${i}: ${r}"\n}\nprint(self.delegate([w(1), w(2)]).await)\n';
    const script = { prompts: [1, 2].map((n) => ({ steps: [{ text: `thinking ${n}` }, { do: 0 }, { reply: `answer ${n}` }] })) };
    const dir = tempFiles({ "p.pw": program, "script.json": JSON.stringify(script) });
    const agent = `"${process.execPath}" "${testAgent}" "${join(dir, "script.json")}"`;
    const live = patchwork(["run", "p.pw", "--agent", agent, "--verbose", "--trace", "t.jsonl", "--record", "c.json"], { cwd: dir, ...SLOW });
    expect(live.status).toBe(0);
    const last = live.stdout.trim().split("\n").pop()!;
    expect(last).toMatch(/^1: answer [12], 2: answer [12]$/);
    expect(live.stdout).toContain("do ran in worker 1\n");
    expect(live.stdout).toContain("do ran in worker 2\n");
    for (const w of ["w#1", "w#2"]) {
      expect(live.stderr).toContain(`[${w}] ── think at p.pw:2 ──\n`);
      expect(live.stderr).toContain(`[${w}] [do(0)]\n`);
    }
    // The streamed text of each think starts its own line, labelled with that think's worker.
    const texts = live.stderr.split("\n").filter((l) => l.includes("thinking "));
    expect(texts).toHaveLength(2);
    for (const line of texts) expect(line).toMatch(/^\[w#[12]\] thinking [12]$/);

    const trace = readFileSync(join(dir, "t.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; worker?: string });
    expect(trace.filter((r) => r.type === "think-start").map((r) => r.worker).sort()).toEqual(["w#1", "w#2"]);
    expect(trace.filter((r) => r.type === "think-end").map((r) => r.worker).sort()).toEqual(["w#1", "w#2"]);

    const cassette = JSON.parse(readFileSync(join(dir, "c.json"), "utf8")) as { thinks: { worker?: string; think: number }[] };
    expect(cassette.thinks.map((t) => [t.worker, t.think]).sort()).toEqual([["w#1", 1], ["w#2", 1]]);
    const replay = patchwork(["run", "p.pw", "--replay", "c.json"], { cwd: dir, ...SLOW });
    expect([replay.status, replay.stderr]).toEqual([0, ""]);
    expect(replay.stdout.trim().split("\n").pop()).toBe(last);
  });
});

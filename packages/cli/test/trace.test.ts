// `patchwork run --trace` and `patchwork trace`, through the real binary: every written line
// is a valid record of the documented schema (zod), ids tie children to parents, a full disk
// never breaks the run, a killed run leaves a readable trace, bad traces are clear errors.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTrace, traceRecord, type TraceRecord } from "@patchwork/agent";
import { patchwork, patchworkBin, repoRoot, tempFiles } from "./helpers.js";

const testAgent = join(repoRoot, "packages", "agent", "bin", "patchwork-test-agent.js");
const agentWith = (script: string) => `"${process.execPath}" "${testAgent}" "${script}"`;

const NESTED = `var kind = think {
  Categorize this document. do(0)=RECEIPT
  do {
    print("Categorized as: RECEIPT")
    var amount = think {
      Extract the dollar amount.
      do { $ echo "Amount: 542" }
    }
    print("amount", amount)
  }
}
print(kind)
`;
const SCRIPT = {
  prompts: [
    { match: "Categorize this document", steps: [{ text: "Looking. " }, { do: 0 }, { reply: "RECEIPT" }] },
    { match: "Extract the dollar amount", steps: [{ do: 0 }, { reply: "$542.00" }] },
  ],
};

function readRecords(path: string): TraceRecord[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => traceRecord.parse(JSON.parse(line)));
}

function find<T extends TraceRecord["type"]>(records: TraceRecord[], type: T): Extract<TraceRecord, { type: T }>[] {
  return records.filter((r): r is Extract<TraceRecord, { type: T }> => r.type === type);
}

describe("patchwork run --trace", { timeout: 240_000 }, () => {
  it("writes one schema-valid record per event, with ids tying thinks, do calls and commands to their parents", () => {
    const dir = tempFiles({ "prog.pw": NESTED, "script.json": JSON.stringify(SCRIPT) });
    const r = patchwork(["run", "prog.pw", "--agent", agentWith(join(dir, "script.json")), "--trace", "run.jsonl"], { cwd: dir, timeoutMs: 120_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("Categorized as: RECEIPT\nAmount: 542\namount $542.00\nRECEIPT\n");
    const records = readRecords(join(dir, "run.jsonl"));
    expect(records[0]!.type).toBe("run-start");
    expect(records.at(-1)).toMatchObject({ type: "run-end", ok: true, exitCode: 0 });
    for (let i = 1; i < records.length; i++) expect(records[i]!.t).toBeGreaterThanOrEqual(records[i - 1]!.t);
    const [outer, inner] = find(records, "think-start");
    expect(outer).toMatchObject({ id: 1, parent: null, at: { file: "prog.pw", line: 1, column: 12 } });
    expect(outer!.prompt).toContain("Categorize this document. do(0)=RECEIPT\n[do 0]\ndo {");
    const outerDo = find(records, "do-start").find((d) => d.think === 1)!;
    expect(inner!.parent).toEqual({ think: 1, do: outerDo.id });
    const shell = find(records, "shell")[0]!;
    expect(shell).toMatchObject({ command: 'echo "Amount: 542"', status: 0, stdoutLength: 12 });
    const innerDo = find(records, "do-start").find((d) => d.think === 2)!;
    expect(shell.parent).toEqual({ think: 2, do: innerDo.id });
    const ends = find(records, "think-end");
    expect(ends.map((e) => [e.id, e.ok, e.reply, e.repairs])).toEqual([
      [2, true, "$542.00", 0],
      [1, true, "RECEIPT", 0],
    ]);
    expect(ends[1]!.durationMs).toBeGreaterThan(ends[0]!.durationMs);
    expect(find(records, "do-end").find((d) => d.think === 1)).toMatchObject({ ok: true, output: "Categorized as: RECEIPT\nAmount: 542\namount $542.00\n" });
    expect(find(records, "agent-text").map((t) => t.text)).toContain("Looking. ");
    expect(find(records, "agent-started")[0]!.agentName).toBe("patchwork-test-agent");
    expect(find(records, "tool-call").length).toBeGreaterThan(0);

    // The same trace, as a tree, a mermaid diagram and an HTML page.
    const tree = patchwork(["trace", "run.jsonl"], { cwd: dir, timeoutMs: 120_000 });
    expect(tree.status).toBe(0);
    const lines = tree.stdout.split("\n");
    expect(lines[0]).toMatch(/^run prog\.pw · agent patchwork-test-agent · ok \(exit 0\) · [\d.]+ m?s · 2 thinks$/);
    expect(lines[1]).toMatch(/^└─ think 1 at prog\.pw:1:12 · [\d.]+ m?s · ok · "RECEIPT"$/);
    expect(lines[2]).toMatch(/^ {3}└─ do 0 · [\d.]+ m?s · ok$/);
    expect(lines[3]).toMatch(/^ {6}└─ think 2 at prog\.pw:5:18 · .* · ok · "\$542\.00"$/);
    expect(lines[4]).toMatch(/^ {9}└─ do 0 · /);
    expect(lines[5]).toMatch(/^ {12}└─ \$ echo "Amount: 542" · exit 0 · /);
    const mermaid = patchwork(["trace", "run.jsonl", "--mermaid"], { cwd: dir, timeoutMs: 120_000 }).stdout;
    const arrows = mermaid.split("\n").filter((l) => /->>|-->>/.test(l)).map((l) => l.trim().split(":")[0]);
    expect(mermaid.startsWith("sequenceDiagram\n    participant I as Interpreter\n    participant A as Agent\n    participant L as LLM\n")).toBe(true);
    expect(arrows).toEqual([
      "I->>+A", "A->>+L", "L->>A", "A->>+I", // think 1, its do(0)
      "I->>+A", "A->>+L", "L->>A", "A->>+I", "I-->>-A", "A->>L", "L-->>-A", "A-->>-I", // think 2, nested
      "I-->>-A", "A->>L", "L-->>-A", "A-->>-I",
    ]);
    expect(patchwork(["trace", "run.jsonl", "--html", "run.html"], { cwd: dir, timeoutMs: 120_000 }).status).toBe(0);
    const html = readFileSync(join(dir, "run.html"), "utf8");
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(html).toContain("Categorize this document");
  });

  it("traces a run without an agent, cuts long texts to --trace-text-limit, and records diagnostics", () => {
    const dir = tempFiles({ "p.pw": 'print("abcdefghij")\nvar x = think { hello }\nthrow "boom"\n' });
    const r = patchwork(["run", "p.pw", "--no-agent", "--trace", "t.jsonl", "--trace-text-limit", "4"], { cwd: dir, timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    const records = readRecords(join(dir, "t.jsonl"));
    expect(records[0]).toMatchObject({ type: "run-start", mode: "no-agent", agent: null, program: "p.pw" });
    expect(find(records, "print")[0]).toMatchObject({ text: "abcd…", length: 11 });
    expect(find(records, "think-end")[0]).toMatchObject({ ok: true, value: { __think_prompt: "hello" } });
    expect(find(records, "diagnostic")[0]).toMatchObject({ severity: "error", code: "PW3001", at: { file: "p.pw", line: 3, column: 1 } });
    expect(records.at(-1)).toMatchObject({ type: "run-end", ok: false, exitCode: 1 });
  });

  it("records loops and delegate task lists; patchwork trace shows where, how many items, how long", () => {
    const prog = 'worker sq(n) { return n * n }\nfor x in ["a", "b", "c"] { print(x) }\nprint(self.delegate([sq(2), sq(3)]).await)\nfor y in [1, 0] { print(1 / y) }\n';
    const dir = tempFiles({ "prog.pw": prog });
    const r = patchwork(["run", "prog.pw", "--no-agent", "--trace", "t.jsonl"], { cwd: dir, timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    const records = readRecords(join(dir, "t.jsonl"));
    expect(find(records, "loop-start").map((l) => [l.at.line, l.variable, l.total])).toEqual([[2, "x", 3], [4, "y", 2]]);
    expect(find(records, "loop-end").map((l) => [l.ok, l.done])).toEqual([[true, 3], [false, 1]]);
    expect(find(records, "delegate-start")).toMatchObject([{ group: "main@1", owner: "main", total: 2, labels: ["sq(2)", "sq(3)"] }]);
    expect(find(records, "delegate-end")).toMatchObject([{ group: "main@1", ok: true }]);
    const tree = patchwork(["trace", "t.jsonl"], { cwd: dir, timeoutMs: 120_000 }).stdout.split("\n");
    expect(tree[1]).toMatch(/^├─ loop at prog\.pw:2, 3 items, [\d.]+ m?s$/);
    expect(tree[2]).toMatch(/^├─ delegate of 2 tasks, [\d.]+ m?s$/);
    expect(tree[3]).toMatch(/^├─ loop at prog\.pw:4, 2 items, [\d.]+ m?s, failed after 1$/);
  });

  it("a full disk never breaks the run: one warning, the program's output and status unchanged", () => {
    const dir = tempFiles({ "p.pw": 'for i in 1...200 { print("line", i) }\n' });
    const r = patchwork(["run", "p.pw", "--trace", "/dev/full"], { cwd: dir, timeoutMs: 120_000 });
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")).toHaveLength(201);
    const warnings = r.stderr.split("\n").filter((l) => l !== "");
    expect(warnings).toEqual([expect.stringMatching(/^patchwork: warning: cannot write the trace to \/dev\/full \(ENOSPC.*\); the run goes on without it$/)]);
  });

  it("a killed run leaves a readable trace; patchwork trace says it did not finish", async () => {
    const dir = tempFiles({ "p.pw": 'print("before")\nvar x = think { q }\n$ sleep 30\n' });
    const child = spawn(process.execPath, [patchworkBin, "run", "p.pw", "--no-agent", "--trace", "t.jsonl"], { cwd: dir, stdio: "ignore" });
    const path = join(dir, "t.jsonl");
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !(existsSync(path) && readFileSync(path, "utf8").includes('"think-end"'))) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const records = readRecords(path);
    expect(records.map((r) => r.type)).toEqual(["run-start", "print", "think-start", "think-end"]);
    const tree = patchwork(["trace", "t.jsonl"], { cwd: dir, timeoutMs: 120_000 });
    expect(tree.status).toBe(0);
    expect(tree.stdout).toMatch(/no run-end: the run did not finish/);
  });

  it("bad traces are errors naming the file and line, never a stack", () => {
    const dir = tempFiles({ "p.pw": 'print("a")\nprint("b")\n' });
    expect(patchwork(["run", "p.pw", "--trace", "good.jsonl"], { cwd: dir, timeoutMs: 120_000 }).status).toBe(0);
    const good = readFileSync(join(dir, "good.jsonl"), "utf8");
    const lines = good.trimEnd().split("\n");
    // A last line cut off by a kill: a warning, and the rest shown (docs/trace.md).
    writeFileSync(join(dir, "cut.jsonl"), good.slice(0, good.length - 10));
    const cut = patchwork(["trace", "cut.jsonl"], { cwd: dir, timeoutMs: 120_000 });
    expect([cut.status, cut.stderr]).toEqual([
      0,
      `patchwork: warning: cut.jsonl:${lines.length}: last line incomplete (cut off: was the run killed while writing?); showing the ${lines.length - 1} lines before it\n`,
    ]);
    expect(cut.stdout).toMatch(/no run-end: the run did not finish/);
    // Cut anywhere else, a line is an error.
    writeFileSync(join(dir, "middle.jsonl"), `${lines[0]}\n${lines[1]!.slice(0, 12)}\n${lines.slice(2).join("\n")}\n`);
    const middle = patchwork(["trace", "middle.jsonl"], { cwd: dir, timeoutMs: 120_000 });
    expect([middle.status, middle.stderr]).toEqual([1, expect.stringMatching(/^patchwork: error: middle\.jsonl:2: not a JSON trace record: /)]);
    expect(() => readTrace(good.slice(0, good.length - 10), "strict.jsonl")).toThrow(/^strict\.jsonl:\d+: not a JSON trace record: the line is cut off/);
    const edited = [...lines];
    edited[1] = edited[1]!.replace('"text":"a\\n"', '"text":42');
    expect(() => readTrace(edited.join("\n") + "\n", "edited.jsonl")).toThrow(/^edited\.jsonl:2: not a valid trace record \(print\): field text: /);
    expect(() => readTrace(lines.slice(1).join("\n") + "\n", "headless.jsonl")).toThrow(/^headless\.jsonl:1: a trace starts with a run-start record, not print$/);
    expect(() => readTrace("", "empty.jsonl")).toThrow(/^empty\.jsonl: the trace is empty$/);
    expect(patchwork(["trace", "missing.jsonl"], { cwd: dir, timeoutMs: 120_000 })).toMatchObject({ status: 2, stderr: expect.stringMatching(/missing\.jsonl: no such file/) });
    expect(patchwork(["run", "p.pw", "--trace", join(dir, "no-such-dir", "t.jsonl")], { cwd: dir, timeoutMs: 120_000 })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^patchwork: cannot write the trace to .*no-such-dir\/t\.jsonl: ENOENT/),
    });
  });
});

// `patchwork trace` on big and cut traces (issue 21 §5): a trace is read as a stream (a 25 MB
// trace of 170,000 records with a 32 MB heap: reading it whole, as before, aborts the process), the views of a
// long run stay bounded and say what they left out, and a last line cut by a kill is a
// warning. The 600 MB case is `scripts/bench-trace-read.mjs` (npm run bench:trace-read).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TraceRecord } from "@patchwork/agent";
import { writeBigTrace } from "../../../scripts/lib/big-trace.mjs";
import { TreeBuilder } from "../src/trace-view/model.js";
import { renderTree } from "../src/trace-view/render.js";
import { patchworkBin } from "./helpers.js";

/** `patchwork trace ARGS` with V8's heap held to `heapMb`. */
function trace(args: string[], cwd: string, heapMb: number) {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, patchworkBin, "trace", ...args], { cwd, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe("patchwork trace on a big trace", () => {
  const dir = mkdtempSync(join(tmpdir(), "pw-trace-big-"));
  const big = join(dir, "big.jsonl");
  const made = writeBigTrace(big, { bytes: 25e6, promptChars: 50 });

  it("reads 25 MB with a 32 MB heap; the tree is bounded and says what it left out", () => {
    const r = trace(["big.jsonl"], dir, 32);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(new RegExp(`^run loop\\.pw · agent scripted · ok \\(exit 0\\) · .* · ${made.thinks} thinks · [\\d,]+ nodes left out \\(long lists summarised\\)$`));
    expect(lines.length).toBeLessThan(200);
    expect(lines).toContain(`└─ think ${made.thinks} at loop.pw:3:5 · 6.00 ms · ok · "answer ${made.thinks}"`);
    const left = lines.find((l) => l.includes("more left out"));
    expect(left).toMatch(/^├─ … [\d,]+ more left out: [\d,]+ thinks, [\d,]+ do calls, [\d,]+ commands \([\d,]+ failed\) · from \d+ ms to [\d.]+ s$/);
    // Every think is either shown or counted in the summary.
    const shown = lines.filter((l) => /think \d+ at/.test(l)).length;
    const counted = Number(/([\d,]+) thinks,/.exec(left!)![1]!.replace(/,/g, ""));
    expect(shown + counted).toBe(made.thinks);
  });

  it("--mermaid and --html stay bounded too", () => {
    writeBigTrace(join(dir, "long.jsonl"), { bytes: 3e6 });
    const r = trace(["long.jsonl", "--mermaid", "big.mmd", "--html", "big.html"], dir, 64);
    expect([r.status, r.stderr]).toEqual([0, ""]);
    const mermaid = readFileSync(join(dir, "big.mmd"), "utf8");
    expect(mermaid).toMatch(/^ {4}Note over I,L: … [\d,]+ more left out: /m);
    expect(mermaid.split("\n").length).toBeLessThan(1000);
    expect(statSync(join(dir, "big.html")).size).toBeLessThan(200_000);
    expect(readFileSync(join(dir, "big.html"), "utf8")).toContain("more left out");
  });

  it("a last line cut by a kill: a warning, the rest shown", () => {
    const cut = join(dir, "cut.jsonl");
    const m = writeBigTrace(cut, { bytes: 50_000, cut: true });
    const r = trace(["cut.jsonl"], dir, 64);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `patchwork: warning: cut.jsonl:${m.lines}: last line incomplete (cut off: was the run killed while writing?); showing the ${m.lines - 1} lines before it\n`,
    );
    expect(r.stdout).toMatch(/no run-end: the run did not finish .* · \d+ thinks/);
  });
});

describe("the bounded tree", () => {
  it("summarises children left out unfinished, and learns how they ended", () => {
    // 300 workers' thinks all start, then all end (odd ones fail): most are left out while running.
    const b = new TreeBuilder();
    const at = { file: "w.pw", line: 2, column: 5 };
    b.add({ t: 0, type: "run-start", version: 1, program: "w.pw", cwd: "/", agent: null, mode: "no-agent", patchwork: "0", node: "v20", pid: 1, startedAt: "" } as TraceRecord);
    for (let id = 1; id <= 300; id++) b.add({ t: id, type: "think-start", id, kind: "think", parent: null, at, prompt: "p", typeText: null } as TraceRecord);
    for (let id = 1; id <= 300; id++) {
      b.add({ t: 400 + id, type: "think-end", id, ok: id % 2 === 0, durationMs: 400, repairs: 0, ...(id % 2 === 0 ? { reply: "r" } : { error: "e" }) } as TraceRecord);
    }
    const text = renderTree(b.tree);
    expect(text).toContain("… 240 more left out: 240 thinks (120 failed) · from 51 ms to 690 ms");
    expect(text).not.toContain("unfinished");
    expect(b.tree.leftOut).toBe(240);
    expect(text.split("\n")).toHaveLength(1 + 50 + 1 + 10 + 1);
  });
});

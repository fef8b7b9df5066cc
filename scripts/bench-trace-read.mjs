#!/usr/bin/env node
// `patchwork trace` on a huge trace (npm run bench:trace-read; issue 21 §5): writes a synthetic
// trace of a long run (scripts/lib/big-trace.mjs: 600 MB, about 2.9 million records; 20 MB at
// --smoke size), then times the three views through the real binary and prints each one's
// wall time, CPU and peak RSS, the size of what it printed or wrote, and the reading speed.
// Before the trace was read as a stream, this failed at once: ERR_STRING_TOO_LONG.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeBigTrace } from "./lib/big-trace.mjs";
import { size, smoke } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "packages/cli/bin/patchwork.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-trace-read-"));
const mb = size(600, 20);

// Runs the CLI in-process under a wrapper that reports its CPU and peak RSS on exit.
const wrapper = join(dir, "measure.mjs");
writeFileSync(
  wrapper,
  `import { writeSync } from "node:fs";
process.on("exit", () => {
  const u = process.resourceUsage();
  writeSync(3, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: u.maxRSS }));
});
process.argv.splice(1, 1);
await import(${JSON.stringify(bin)});
`,
);

function view(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [wrapper, bin, "trace", ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe", "pipe"], maxBuffer: 1 << 30 });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`patchwork trace ${args.join(" ")} failed (${r.status ?? r.signal}): ${String(r.stderr).slice(0, 2000)}`);
  const m = JSON.parse(String(r.output[3]));
  return { wall, ...m, stdout: String(r.stdout) };
}

console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
const path = join(dir, "big.jsonl");
const t0 = performance.now();
const made = writeBigTrace(path, { bytes: mb * 1e6 });
console.log(
  `trace: ${(made.bytes / 1e6).toFixed(0)} MB, ${made.lines.toLocaleString("en-US")} records, ${made.thinks.toLocaleString("en-US")} thinks (written in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);

const line = (name, r, out) =>
  console.log(
    `${name.padEnd(8)} ${(r.wall / 1000).toFixed(1)} s wall, ${(r.cpuMs / 1000).toFixed(1)} s CPU, ${((made.bytes / 1e6) / (r.wall / 1000)).toFixed(0)} MB/s, peak rss ${(r.maxRssKb / 1024).toFixed(0)} MB; ${out}`,
  );
const tree = view(["big.jsonl"]);
line("tree", tree, `${tree.stdout.split("\n").length - 1} lines printed`);
const mermaid = view(["big.jsonl", "--mermaid", "big.mmd"]);
line("mermaid", mermaid, `${(statSync(join(dir, "big.mmd")).size / 1024).toFixed(0)} KB written`);
const html = view(["big.jsonl", "--html", "big.html"]);
line("html", html, `${(statSync(join(dir, "big.html")).size / 1024).toFixed(0)} KB written`);
rmSync(dir, { recursive: true, force: true });
if (smoke) console.log("(smoke size: the figures mean nothing)");

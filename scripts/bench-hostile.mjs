#!/usr/bin/env node
// Pathological input (issue 34, docs/security.md): what it costs now that each case is bounded.
// - parsing nested prompts and nesting on lines of their own, N = 1k…100k (linear: ms per 1k flat);
// - a flat generated program of N statements `n = n + 1`: parse, run, peak memory (child process);
// - diagnostics of 8,000 unterminated `${` on one line: rendered size and time;
// - the servers' message scanner (src/guard): MB/s over a 50 MB line, as an oversized line is read.
// Run with `npm run bench:hostile` (builds first); `--smoke` runs each at a small size.
import { spawnSync } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { formatDiagnostics, parse, SourceFile } from "@patchwork/parser";
import { MessageScanner } from "@patchwork/serve/guard";
import { size, smoke } from "./lib/bench.mjs";

const ms = (f) => {
  const t = performance.now();
  f();
  return performance.now() - t;
};
const best = (f, n = 3) => Math.min(...Array.from({ length: n }, () => ms(f)));

console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(" ")} (2 cores shared)`);

const shapes = {
  "think { do { x N, one line": (n) => "var t = " + "think { do { ".repeat(n) + "}".repeat(2 * n) + "\n",
  "think { x N, one line": (n) => "var t = " + "think { ".repeat(n) + "}".repeat(n) + "\n",
  "{ x N inside a prompt": (n) => "var t = think { " + "{ ".repeat(n) + "}".repeat(n) + " }\n",
  "think/do x N, own lines (PW2007)": (n) => "var t = think {\n" + "  do {\n    var u = think {\n".repeat(n) + "}\n".repeat(2 * n + 1),
};
const sizes = smoke ? [1000, 4000] : [1000, 10_000, 32_000, 100_000];
console.log(`parse time by N (${sizes.join(", ")}), best of 3:`);
for (const [name, make] of Object.entries(shapes)) {
  const times = sizes.map((n) => {
    const src = make(n);
    return best(() => parse(src));
  });
  const per1k = times.map((t, i) => t / (sizes[i] / 1000));
  console.log(`  ${name.padEnd(34)} ${times.map((t) => `${t.toFixed(1)} ms`).join("  ")}; per 1k: ${per1k[0].toFixed(2)} → ${per1k.at(-1).toFixed(2)} ms`);
}

const dir = mkdtempSync(join(tmpdir(), "pw-bench-hostile-"));
const child = join(import.meta.dirname, "lib", "bench-flat-child.mjs");
console.log("flat program of N statements `n = n + 1` (parse, run, memory; its own process):");
for (const n of smoke ? [10_000] : [10_000, 160_000, 1_000_000]) {
  const file = join(dir, `flat-${n}.pw`);
  writeFileSync(file, "var n = 0\n" + "n = n + 1\n".repeat(n) + "print(n)\n");
  const r = spawnSync(process.execPath, ["--max-old-space-size=8192", child, file, String(n)], { encoding: "utf8", cwd: process.cwd() });
  if (r.status !== 0) {
    console.log(`  N=${n}: failed: ${r.stderr.slice(0, 300)}`);
    continue;
  }
  const m = JSON.parse(r.stdout.trim().split("\n").at(-1));
  console.log(
    `  N=${n}: ${m.ok ? "ran" : "WRONG RESULT"}; parse ${(m.parseMs / 1000).toFixed(2)} s, run ${(m.runMs / 1000).toFixed(2)} s; heap after parse ${(m.heapAfterParse / 1e6).toFixed(0)} MB (${(m.heapAfterParse / n / 1024).toFixed(2)} KB per statement), peak rss ${(m.maxRss / 1e6).toFixed(0)} MB`,
  );
}

const n = size(8000, 1000);
const src = 'var s = "' + "${".repeat(n) + "\n";
const parsed = parse(src, { fileName: "u.pw" });
let text = "";
const renderMs = ms(() => (text = formatDiagnostics(parsed.diagnostics, new SourceFile(src, "u.pw"), () => "").join("\n")));
console.log(`diagnostics: ${n} unterminated \${ on one line: ${parsed.diagnostics.length} found, ${text.length} characters rendered in ${renderMs.toFixed(1)} ms`);

const line = Buffer.from(`{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"v":"${"a".repeat(size(50, 2) * 1024 * 1024)}"}},"id":7}`);
const scanMs = best(() => {
  const s = new MessageScanner();
  for (let i = 0; i < line.length; i += 65536) s.push(line, i, Math.min(line.length, i + 65536));
  if (s.id() !== 7) throw new Error("scanner lost the id");
});
console.log(`servers: scanning a ${(line.length / 1e6).toFixed(0)} MB line for its id and depth: ${scanMs.toFixed(0)} ms (${(line.length / 1e6 / (scanMs / 1000)).toFixed(0)} MB/s)`);

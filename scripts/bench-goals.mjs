#!/usr/bin/env node
// `npm run bench:goals`: the figures of issues 21 and 26, side by side in one run, so that they
// are measured on the same machine at the same time (docs/benchmarks.md, "The goals in one run"):
//  1. start-up: `patchwork run`/`check` after an edit, first, warm, against `node -e 0`
//     (bench-startup.mjs; issue 26 §3: ≤ 1.5×);
//  2. trace and replay: a replay against the no-agent run, and resuming a 1,000-think recording
//     killed at think 900 against the no-agent run reaching the same think (bench-trace.mjs;
//     issue 26 §3: ≤ 1.2×, issue 21: ≤ + 10 %);
//  3. sixteen workers with one think each against one, at 200 ms and 2 s a model turn
//     (bench-workers.mjs; issue 26 §2: ≤ 1.15× at 2 s);
//  4. 200 workers waiting in a receive (bench-idle-workers.mjs; issue 21 §6: ≤ 600 MB);
//  5. with the real agents installed (npm install --prefix test/agents): the nested
//     categorization against each agent's floor (bench-real-agents.mjs, latency test; issue 26
//     §2: ≤ 1.25× with Claude Code).
// Each part is its own script, run in turn with its output as it comes; the load average is
// printed before and after each, since a busy machine moves every figure. `--smoke` runs each
// at its smoke size; `--skip N,M` leaves parts out.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { smoke } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const skipAt = process.argv.indexOf("--skip");
const skip = new Set(skipAt > 0 ? (process.argv[skipAt + 1] ?? "").split(",").map(Number) : []);
const flags = smoke ? ["--smoke"] : [];
const agentsInstalled = existsSync(join(root, "test/agents/node_modules/.bin/claude-agent-acp"));

const parts = [
  { title: "start-up (issue 26 §3)", args: ["scripts/bench-startup.mjs", ...(smoke ? [] : ["--rounds", "20"])] },
  { title: "trace, replay and resume (issues 26 §3, 21)", args: ["scripts/bench-trace.mjs"] },
  { title: "sixteen thinking workers (issue 26 §2)", args: ["scripts/bench-workers.mjs"] },
  { title: "waiting workers' memory (issue 21 §6)", args: ["scripts/bench-idle-workers.mjs"] },
  {
    title: "real agents against their floor (issue 26 §2)",
    args: ["scripts/bench-real-agents.mjs", "--rounds", smoke ? "1" : "3", "test/agents/latency.test.ts"],
    missing: agentsInstalled ? null : "the real agents are not installed (npm install --prefix test/agents)",
  },
];

const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
console.log(`bench:goals ${new Date().toISOString()} · ${availableParallelism()} cores · load average ${load()}`);
let failed = 0;
parts.forEach((part, i) => {
  const n = i + 1;
  console.log(`\n═══ ${n}. ${part.title} ═══`);
  if (skip.has(n)) return console.log("(skipped: --skip)");
  if (part.missing) return console.log(`(skipped: ${part.missing})`);
  const started = performance.now();
  const r = spawnSync(process.execPath, [...part.args, ...(part.args[0] === "scripts/bench-real-agents.mjs" ? [] : flags)], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...(smoke ? { BENCH_SMOKE: "1" } : {}) },
  });
  if (r.status !== 0) failed++;
  console.log(`─── ${n} ${r.status === 0 ? "done" : `FAILED (exit ${r.status ?? r.signal})`} in ${((performance.now() - started) / 1000).toFixed(1)} s · load average now ${load()}`);
});
process.exit(failed > 0 ? 1 : 0);

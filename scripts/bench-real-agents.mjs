#!/usr/bin/env node
/**
 * `npm run bench:real-agents`: the figures of the real-agent suite (test/agents) at benchmark
 * size. Runs the suite with PW_AGENT_THINKS (default 100) thinks in each agent's loop test and
 * collects every `[figure]` the tests report (model requests per think with one `do`, time of a
 * think against the fake API, RSS early and late in the loop, the load average), then prints
 * them as one table per agent. CI runs the same tests at 20 thinks (`npm run test:agents`),
 * which print the same figures: that run is this script's smoke test.
 *
 * The latency test (test/agents/latency.test.ts) adds, per agent, the nested categorization's
 * wall time against the agent's floor (a minimal ACP client, one session, the same model
 * turns), with and without sessions made ahead, and the breakdown from the run's trace (CLI
 * start, spawn and initialize, each think's wait for its session, its model turns, its do
 * blocks), the CPU time of each run's processes (floor and patchwork sampled alike), and how
 * long each Claude Code process took to start (its adapter's `sdk-initialize` phase):
 * PW_LATENCY_ROUNDS rounds (`--rounds`, default 3 here, 1 in CI).
 *
 * Usage: node scripts/bench-real-agents.mjs [--thinks N] [--rounds N] [test/agents/<file>.test.ts ...]
 * Needs the adapters: npm ci --prefix test/agents.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
let thinks = "100";
let rounds = "3";
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--thinks") thinks = args[++i];
  else if (args[i] === "--rounds") rounds = args[++i];
  else files.push(args[i]);
}
if (!/^\d+$/.test(rounds) || Number(rounds) < 1) {
  console.error("--rounds takes a whole number of at least 1");
  process.exit(2);
}
if (!/^\d+$/.test(thinks) || Number(thinks) < 8) {
  console.error("--thinks takes a whole number of at least 8");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "pw-bench-real-agents-"));
const figuresFile = join(dir, "figures.jsonl");
console.log(`real-agent suite with ${thinks} thinks per loop…`);
const run = spawnSync(
  process.execPath,
  [join(repo, "node_modules/vitest/vitest.mjs"), "run", "--config", "vitest.agents.config.ts", ...files],
  { cwd: repo, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, PW_AGENT_THINKS: thinks, PW_LATENCY_ROUNDS: rounds, PW_AGENT_FIGURES: figuresFile } },
);

let figures = [];
try {
  figures = readFileSync(figuresFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
} catch {}
rmSync(dir, { recursive: true, force: true });

const agents = [...new Set(figures.map((f) => f.agent))];
for (const agent of agents) {
  console.log(`\n${agent}`);
  const rows = figures.filter((f) => f.agent === agent);
  const width = Math.max(...rows.map((f) => f.what.length));
  for (const f of rows) console.log(`  ${f.what.padEnd(width)}  ${f.value}`);
}
if (agents.length === 0) console.log("no figures: were the adapters installed (npm ci --prefix test/agents)?");
process.exit(run.status ?? 1);

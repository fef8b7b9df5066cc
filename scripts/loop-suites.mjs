#!/usr/bin/env node
// Stability check (issue: CI failing by chance): runs each protocol suite N times in a row and
// prints how many runs failed. Run it while the machine is loaded (e.g. a second `npm test` at
// the same time), as CI's machine can be. Not part of CI: it takes N times each suite's time.
//
//   node scripts/loop-suites.mjs [--runs N] [--config vitest.e2e.config.ts] FILE…
//   node scripts/loop-suites.mjs --runs 20 --script "node scripts/bench-lsp.mjs --smoke"
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const take = (flag, fallback) => {
  const i = argv.indexOf(flag);
  if (i < 0) return fallback;
  const [value] = argv.splice(i, 2).slice(1);
  return value;
};
const runs = Number(take("--runs", "20"));
const config = take("--config", undefined);
const script = take("--script", undefined);
const files = argv;
if (!script && files.length === 0) {
  console.error("usage: loop-suites.mjs [--runs N] [--config CONFIG] FILE… | --script COMMAND");
  process.exit(2);
}

const command = script
  ? ["sh", ["-c", script]]
  : [process.execPath, [join(root, "node_modules/vitest/vitest.mjs"), "run", ...(config ? ["--config", config] : []), ...files]];
let failed = 0;
const seconds = [];
for (let i = 1; i <= runs; i++) {
  const t0 = performance.now();
  const r = spawnSync(command[0], command[1], { cwd: root, encoding: "utf8", timeout: 900_000 });
  seconds.push((performance.now() - t0) / 1000);
  if (r.status !== 0) {
    failed++;
    const tail = `${r.stdout ?? ""}${r.stderr ?? ""}`.split("\n").filter((l) => /FAIL|Error|×|timed out/.test(l)).slice(0, 6).join("\n");
    console.log(`run ${i}: FAILED (exit ${r.status ?? r.signal})\n${tail}`);
  } else console.log(`run ${i}: ok (${seconds.at(-1).toFixed(1)} s)`);
}
const what = script ?? files.join(" ");
console.log(`${what}: ${failed} of ${runs} runs failed; median ${seconds.sort((a, b) => a - b)[seconds.length >> 1].toFixed(1)} s`);
process.exit(failed > 0 ? 1 : 0);

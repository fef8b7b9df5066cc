#!/usr/bin/env node
// What our own process spends while an agent starts (issue 26: with real Claude Code on a 2-core
// machine, the CPU our CLI burns then competes with the agent's start). Run with
// `npm run bench:agent-start` (builds first). Decision 0019: the agent runtime's npm packages
// from a classic script with a V8 code cache.
//
// Each round runs every measure once, in turn (interleaved: a change in the machine's load hits
// them alike), each in a fresh process; the figures are medians over the rounds, wall / CPU ms:
//   - "runtime import": `await import()` of the bundle's agent runtime chunk (cli-recycling-*.js,
//     what runWithAgent imports once its agent process is spawned), timed inside the process
//     (performance.now, process.cpuUsage);
//   - "run nested.json": `patchwork run examples/nested.json --agent "<node> patchwork-test-agent.js
//     script.json"` (2 thinks, no do call, the scripted agent answering at once): the wall time of
//     the whole command, and the CPU of the patchwork process alone (all its threads, not the
//     agent's: process.cpuUsage() at exit, from a --require'd hook).
// Each with the code cache warm (filled before the first round: what every run but the first
// costs), and, for the run, with PATCHWORK_NO_CACHE=1 (everything compiled, as before the code cache).
// `--rounds N` (default 15; `--smoke`: 2). `--baseline DIR`: also measure another build's
// packages/cli copy (DIR holding bin/ and bundle/, kept inside the repository so that its npm
// dependencies resolve), in the same rounds.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median, size } from "./lib/bench.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const flag = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const rounds = Number(flag("--rounds") ?? size(15, 2));
const builds = [{ name: "this build", dir: join(repo, "packages", "cli") }];
if (flag("--baseline") !== undefined) builds.push({ name: "baseline", dir: resolve(flag("--baseline")) });

const scratch = mkdtempSync(join(tmpdir(), "pw-bench-agent-start-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const script = join(scratch, "script.json");
writeFileSync(script, JSON.stringify({ prompts: [], fallback: { steps: [{ reply: "ok" }] } }));
const cpuHook = join(scratch, "cpu.cjs");
writeFileSync(cpuHook, 'if (require("node:worker_threads").isMainThread) process.on("exit", () => require("node:fs").writeFileSync(process.env.PW_CPU_OUT, JSON.stringify(process.cpuUsage())));\n');
const agent = `"${process.execPath}" "${join(repo, "packages", "agent", "bin", "patchwork-test-agent.js")}" "${script}"`;
const cacheDir = join(scratch, "cache");

/** A fresh node process timing the import of the build's agent runtime chunk: [wall, cpu] ms. */
function importProbe(dir) {
  const chunk = readdirSync(join(dir, "bundle")).find((n) => /^cli-recycling-.*\.js$/.test(n));
  const code = `const c0 = process.cpuUsage(), t0 = performance.now();
await import(${JSON.stringify(pathToFileURL(join(dir, "bundle", chunk)).href)});
const c = process.cpuUsage(c0);
console.log(JSON.stringify([performance.now() - t0, (c.user + c.system) / 1000]));`;
  return () => {
    const r = run(["--input-type=module", "-e", code], {});
    return JSON.parse(r.stdout);
  };
}

/** `patchwork run examples/nested.json --agent …` with the build's launcher: [wall, CPU of the patchwork process] ms. */
function runProbe(dir, env) {
  const out = join(scratch, "cpu.json");
  return () => {
    const t0 = performance.now();
    run(["--require", cpuHook, join(dir, "bin", "patchwork.js"), "run", "examples/nested.json", "--agent", agent], { ...env, PW_CPU_OUT: out });
    const wall = performance.now() - t0;
    const c = JSON.parse(readFileSync(out, "utf8"));
    return [wall, (c.user + c.system) / 1000];
  };
}

function run(args, env) {
  const r = spawnSync(process.execPath, args, {
    cwd: repo,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PATCHWORK_CACHE_DIR: cacheDir, PATCHWORK_NO_CACHE: "", PATCHWORK_AGENT: "", ...env },
  });
  if (r.status !== 0) {
    console.error(`node ${args.join(" ")}: exit ${r.status ?? r.signal}\n${r.stdout}${r.stderr}`);
    process.exit(1);
  }
  return r;
}

const measures = builds.flatMap(({ name, dir }) => [
  { label: `${name}: runtime import`, probe: importProbe(dir) },
  { label: `${name}: run nested.json`, probe: runProbe(dir, {}) },
  { label: `${name}: run nested.json (no cache)`, probe: runProbe(dir, { PATCHWORK_NO_CACHE: "1" }) },
]);
for (const m of measures) m.probe(); // fills the code cache
const load0 = loadavg()[0];
const figures = measures.map(() => ({ wall: [], cpu: [] }));
for (let round = 0; round < rounds; round++) {
  measures.forEach((m, i) => {
    const [wall, cpu] = m.probe();
    figures[i].wall.push(wall);
    figures[i].cpu.push(cpu);
  });
}
console.log(`agent start, medians of ${rounds} interleaved rounds (node ${process.version}), load average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}`);
console.log(`${"measure".padEnd(44)} ${"wall".padStart(10)} ${"CPU".padStart(10)}`);
measures.forEach((m, i) => {
  console.log(`${m.label.padEnd(44)} ${`${median(figures[i].wall).toFixed(1)} ms`.padStart(10)} ${`${median(figures[i].cpu).toFixed(1)} ms`.padStart(10)}`);
});

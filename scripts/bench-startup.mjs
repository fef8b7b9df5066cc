#!/usr/bin/env node
// Start-up of the `patchwork` command as a whole process, against `node -e 0` (issue 14).
// Run with `npm run bench:startup` (builds first; the launcher runs the bundle, dist/patchwork.mjs).
//
// Each round runs every command once, in turn (interleaved, so that a change in the machine's
// load hits all of them alike); the figures are the medians over the rounds of
//   - wall time (what a user waits for), and
//   - CPU time (user + system, from the children's times in /proc/self/stat; tick-coarse,
//     10 ms, but far less disturbed by the other processes on a loaded machine);
// and the mean CPU time over the rounds: the kernel adds up the children's times exactly and
// only rounds the total to a tick when it is read, so each run's figure is off by less than a
// tick either way and the mean of N rounds is good to about 10 ms / √N (a median of ticks
// cannot tell 100 ms from 109).
// `--rounds N` sets the number of rounds (default 30; `--smoke`: 3).
// `--baseline BIN` adds the cold `run` and `check` of another build's `bin/patchwork.js` (e.g. a
// copy of the previous build's packages/cli, kept inside the repository so that its npm
// dependencies resolve) to the same interleaved rounds: before/after figures under one load.
//
// `run` and `check` are measured cold and warm (docs/cli.md, "The cache"; decisions 0010, 0016):
//   - "edited": the first run after an edit, the common cold start: the file is not in the
//     parse cache (each round runs a new copy of hello.pw, a comment changed) but the parser's
//     compiled code is (the code cache, filled before the first round);
//   - "first": the very first run on a machine: an empty cache directory each round (the parser
//     is compiled, and its code cache and the AST written);
//   - "no cache": PATCHWORK_NO_CACHE=1 (the parser compiled, nothing read or written);
//   - "warm": hello.pw's parse in the cache (what every later run of an unchanged file costs).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, size } from "./lib/bench.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = process.env.PATCHWORK_BIN ?? join(repo, "packages", "cli", "bin", "patchwork.js");
const roundsFlag = process.argv.indexOf("--rounds");
const rounds = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : size(30, 3);

const scratch = mkdtempSync(join(tmpdir(), "pw-bench-startup-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const cacheDir = join(scratch, "cache");
const hello = readFileSync(join(repo, "examples", "hello.pw"), "utf8");
let edits = 0;
/** A copy of hello.pw that no cache has seen (its first comment changed). */
function edited() {
  const file = join(scratch, "hello.pw");
  writeFileSync(file, `# edit ${++edits}\n${hello}`);
  return file;
}
/** An empty cache directory. */
const emptyCache = () => join(scratch, `empty-${++edits}`);
const noCache = { PATCHWORK_NO_CACHE: "1" };
const warm = { PATCHWORK_CACHE_DIR: cacheDir };
const baselineFlag = process.argv.indexOf("--baseline");
const baseline = baselineFlag > 0 ? process.argv[baselineFlag + 1] : undefined;
/** `args` (or a function giving them, called before each run: "edited"), `env` likewise. */
const commands = [
  { label: "node -e 0", args: ["-e", "0"] },
  { label: "patchwork run hello.pw (edited)", args: () => [bin, "run", edited()], env: warm, goal: 1.5 },
  { label: "patchwork run hello.pw (first)", args: [bin, "run", "examples/hello.pw"], env: () => ({ PATCHWORK_CACHE_DIR: emptyCache() }) },
  { label: "patchwork run hello.pw (no cache)", args: [bin, "run", "examples/hello.pw"], env: noCache },
  { label: "patchwork run hello.pw (warm)", args: [bin, "run", "examples/hello.pw"], env: warm, goal: 1.5 },
  { label: "patchwork check hello.pw (edited)", args: () => [bin, "check", edited()], env: warm, goal: 1.5 },
  { label: "patchwork check hello.pw (no cache)", args: [bin, "check", "examples/hello.pw"], env: noCache },
  { label: "patchwork check hello.pw (warm)", args: [bin, "check", "examples/hello.pw"], env: warm, goal: 1.5 },
  { label: "patchwork --version", args: [bin, "--version"], goal: 1.2 },
  // Options before the file take the fast path as options after it do (issue 26): both warm.
  { label: "patchwork run hello.pw --no-agent (warm)", args: [bin, "run", "examples/hello.pw", "--no-agent"], env: warm, goal: 1.5 },
  { label: "patchwork run --no-agent hello.pw (warm)", args: [bin, "run", "--no-agent", "examples/hello.pw"], env: warm, goal: 1.5 },
  // A command main.ts answers (its ES modules: bundle/index.js and chunks), with Node's compile
  // cache that the launcher turns on from Node 22 (decision 0024), and without it (Node 20 has none).
  { label: "patchwork fmt --check hello.pw (warm)", args: [bin, "fmt", "--check", "examples/hello.pw"], env: warm },
  { label: "  the same, no Node compile cache", args: [bin, "fmt", "--check", "examples/hello.pw"], env: { ...warm, NODE_DISABLE_COMPILE_CACHE: "1" } },
  ...(baseline === undefined
    ? []
    : [
        { label: "baseline: run hello.pw (edited)", args: () => [baseline, "run", edited()], env: warm },
        { label: "baseline: run hello.pw (first)", args: [baseline, "run", "examples/hello.pw"], env: () => ({ PATCHWORK_CACHE_DIR: emptyCache() }) },
        { label: "baseline: run hello.pw (no cache)", args: [baseline, "run", "examples/hello.pw"], env: noCache },
        { label: "baseline: check hello.pw (edited)", args: () => [baseline, "check", edited()], env: warm },
        { label: "baseline: run hello.pw (warm)", args: [baseline, "run", "examples/hello.pw"], env: warm },
      ]),
];
const value = (x) => (typeof x === "function" ? x() : x);
const spawn = (command) =>
  spawnSync(process.execPath, value(command.args), {
    cwd: repo,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PATCHWORK_CACHE_DIR: cacheDir, PATCHWORK_NO_CACHE: "", ...value(command.env) },
  });
for (const command of commands) if (command.env === warm) spawn(command); // fill the cache (and the code cache)

const TICK_MS = 10; // USER_HZ is 100 on Linux
/** CPU time (ms) of this process's waited-for children so far: cutime + cstime. */
function childrenCpuMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * TICK_MS; // fields 16 and 17 of proc(5)
  } catch {
    return NaN; // not Linux: CPU figures are left out
  }
}

const wall = commands.map(() => []);
const cpu = commands.map(() => []);
for (let round = 0; round < rounds; round++) {
  commands.forEach((command, i) => {
    const cpu0 = childrenCpuMs();
    const t0 = performance.now();
    const r = spawn(command);
    const ms = performance.now() - t0;
    const cpuMs = childrenCpuMs() - cpu0;
    if (r.status !== 0) {
      console.error(`${command.label}: exit ${r.status ?? r.signal}\n${r.stdout}${r.stderr}`);
      process.exit(1);
    }
    wall[i].push(ms);
    cpu[i].push(cpuMs);
  });
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const base = { wall: median(wall[0]), cpu: median(cpu[0]), cpuMean: mean(cpu[0]) };
console.log(`start-up, medians of ${rounds} interleaved rounds (node ${process.version}), and the mean CPU time`);
console.log(`${"command".padEnd(44)} ${"wall".padStart(9)} ${"ratio".padStart(7)}   ${"CPU".padStart(9)} ${"ratio".padStart(7)}   ${"CPU mean".padStart(9)} ${"ratio".padStart(7)}   goal`);
commands.forEach((command, i) => {
  const w = median(wall[i]);
  const c = median(cpu[i]);
  const m = mean(cpu[i]);
  const ratio = (x, b) => (i === 0 ? "" : `${(x / b).toFixed(2)}×`);
  const cpuText = (x, digits) => (Number.isNaN(x) ? "n/a" : `${x.toFixed(digits)} ms`);
  console.log(
    `${command.label.padEnd(44)} ${`${w.toFixed(1)} ms`.padStart(9)} ${ratio(w, base.wall).padStart(7)}   ${cpuText(c, 0).padStart(9)} ${(Number.isNaN(c) ? "" : ratio(c, base.cpu)).padStart(7)}   ${cpuText(m, 1).padStart(9)} ${(Number.isNaN(m) ? "" : ratio(m, base.cpuMean)).padStart(7)}   ${command.goal ? `≤ ${command.goal}×` : ""}`,
  );
});
console.log(`load average: ${(() => { try { return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "); } catch { return "n/a"; } })()}`);

// The parser package's cold start, inside fresh processes: importing it, then the first
// construction of the lexer and of the parser, and a first parse of hello.pw (the compiled
// library, packages/parser/dist/, which also checks its tables' fingerprint: the bundle does not
// need to). "tables": built from the grammar analysis precomputed at build time (the default);
// "full": Chevrotain's own analysis (decision 0011). Interleaved, medians of wall / CPU ms.
const distUrl = new URL("../packages/parser/dist/", import.meta.url).href;
const probe = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const mode = process.argv[1];
const out = [];
let t = performance.now(), c = cpu();
const mark = () => { const n = performance.now(), nc = cpu(); out.push([n - t, nc - c]); t = n; c = nc; };
const { parseWith } = await import(${JSON.stringify(distUrl + "parse.js")});
const { createLexer } = await import(${JSON.stringify(distUrl + "lexer/lexer.js")});
const { PatchworkParser } = await import(${JSON.stringify(distUrl + "parser/parser.js")});
mark();
const lexer = createLexer(mode);
mark();
const parser = new PatchworkParser({ analysis: mode });
mark();
const r = parseWith({ lexer, parser }, ${JSON.stringify(readFileSync(join(repo, "examples", "hello.pw"), "utf8"))});
mark();
if (r.diagnostics.length > 0) throw new Error("hello.pw did not parse");
console.log(JSON.stringify(out));`;
const phases = ["import", "lexer", "parser", "first parse"];
const modes = ["auto", "full"];
const figures = modes.map(() => phases.map(() => ({ wall: [], cpu: [] })));
for (let round = 0; round < rounds; round++) {
  modes.forEach((mode, m) => {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", probe, mode], { encoding: "utf8", timeout: 60_000 });
    if (r.status !== 0) {
      console.error(`construction probe (${mode}): exit ${r.status ?? r.signal}\n${r.stdout}${r.stderr}`);
      process.exit(1);
    }
    JSON.parse(r.stdout).forEach(([w, c], p) => {
      figures[m][p].wall.push(w);
      figures[m][p].cpu.push(c);
    });
  });
}
console.log(`\nparser package, first construction in a fresh process (dist/), medians of ${rounds} rounds, wall / CPU ms`);
console.log(`${"analysis".padEnd(10)}${phases.map((p) => p.padStart(16)).join("")}${"total".padStart(16)}`);
modes.forEach((mode, m) => {
  const cells = figures[m].map((f) => `${median(f.wall).toFixed(1)} / ${median(f.cpu).toFixed(1)}`);
  const total = (k) => median(figures[m][0][k].map((_, i) => figures[m].reduce((s, f) => s + f[k][i], 0)));
  console.log(`${(mode === "auto" ? "tables" : "full").padEnd(10)}${cells.map((c) => c.padStart(16)).join("")}${`${total("wall").toFixed(1)} / ${total("cpu").toFixed(1)}`.padStart(16)}`);
});

#!/usr/bin/env node
// Trace and replay benchmark (npm run bench:trace). Prints:
//  1. the think loop of `npm run bench:agent` (evaluator thread → ACP runtime → scripted agent)
//     with and without a trace being written: time and CPU per think (goal: ≤ 5% more);
//  2. a 100-think program replayed from its cassette vs run in no-agent mode, in process and
//     through the CLI (goal: as fast);
//  3. the same think loop recording a cassette journal (each entry written as its think ends)
//     vs not recording (goal: ≤ 5% more);
//  4. resuming a 1,000-think recording killed at think 900, through the CLI: the time to reach
//     think 901 vs a no-agent run of the same program (goal: ≤ +10%).
// BENCH_PARTS=3,4 runs only those sections. BENCH_BASE_CLI=path/to/bin/patchwork.js adds, in
// section 4, the same resume by another build (e.g. main's, copied away) in each round: before
// and after in one series.
import { spawnSync } from "node:child_process";
import { spawn, spawnSync as spawnSyncAgain } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TraceWriter, runWithAgent } from "../packages/agent/dist/index.js";
import {
  CassetteAgent,
  CassetteRecorder,
  JournaledRecording,
  NoAgent,
  ScriptedAgent,
  createNodeHost,
  formatCassette,
  parseCassette,
  run,
} from "../packages/interpreter/dist/index.js";
import { median, size, smoke } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const agentBin = join(root, "packages/agent/bin/patchwork-test-agent.js");
const cliBin = join(root, "packages/cli/bin/patchwork.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-trace-"));
const pct = (x) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
const spread = (xs, f = (x) => x.toFixed(3)) => `${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}]`;

const parts = new Set((process.env.BENCH_PARTS ?? "1,2,3,4").split(",").map(Number));
const THINKS = size(1000, 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(5, 1));
console.log(`patchwork trace/replay benchmark (node ${process.version}; ${ROUNDS} interleaved rounds${smoke ? "; smoke size" : ""})\n`);

// 1. tracing overhead on the think loop
const scriptFile = join(dir, "script.json");
writeFileSync(scriptFile, JSON.stringify({ prompts: [{ match: "count", steps: [{ reply: "ok" }] }] }));
const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(agentBin)} ${JSON.stringify(scriptFile)}`;
const source = `for i in 1...${THINKS} {\n  var r = think {\n    count \${i}\n  }\n}\n`;

/** The events of the last untraced run, to measure the writer's own CPU on them. */
let events = [];

/** One run: wall ms per think (first think-start → last think-end) and CPU µs per think (this process, all threads). */
async function loop(traced, recorded = false) {
  let first = 0;
  let last = 0;
  let cpuFrom = null;
  let cpuTo = null;
  const trace = traced ? new TraceWriter(join(dir, "run.jsonl")) : undefined;
  const result = await runWithAgent({
    source,
    fileName: "bench.pw",
    cwd: dir,
    agent: { command },
    writeOutput: false,
    trace,
    ...(recorded ? { record: { path: join(dir, "loop.cassette.json") } } : {}),
    onEvent: (e) => {
      if (!traced) events.push(e);
      if (e.type === "think-start" && e.id === 1) {
        first = performance.now();
        cpuFrom = process.cpuUsage();
      } else if (e.type === "think-end" && e.id === THINKS) {
        last = performance.now();
        cpuTo = process.cpuUsage(cpuFrom);
      }
    },
  });
  if (!result.ok) throw new Error(`bench run failed: ${JSON.stringify(result.diagnostics)}`);
  return { wall: (last - first) / (THINKS - 1), cpu: (cpuTo.user + cpuTo.system) / (THINKS - 1) };
}

if (parts.has(1)) {
console.log(`1. think loop (${THINKS} thinks per run, scripted ACP agent), with and without --trace`);
const plain = [];
const traced = [];
for (let round = 0; round < ROUNDS; round++) {
  events = [];
  plain.push(await loop(false));
  traced.push(await loop(true));
}
const wallP = median(plain.map((x) => x.wall));
const wallT = median(traced.map((x) => x.wall));
const cpuP = median(plain.map((x) => x.cpu));
const cpuT = median(traced.map((x) => x.cpu));
console.log(`   without trace: ${spread(plain.map((x) => x.wall))} ms per think; CPU ${cpuP.toFixed(0)} µs per think`);
console.log(`   with trace:    ${spread(traced.map((x) => x.wall))} ms per think; CPU ${cpuT.toFixed(0)} µs per think`);
// The writer's own CPU: the same events (of a real run) through a TraceWriter on this one
// thread, best of 5 (wall-clock timing inside a loaded machine's run counts preemption too).
let writer = Infinity;
for (let i = 0; i < 5; i++) {
  const w = new TraceWriter(join(dir, "replayed.jsonl"));
  w.start({ program: "bench.pw", cwd: dir, agent: command, mode: "agent" });
  const from = process.cpuUsage();
  for (const e of events) w.handle(e);
  w.end({ ok: true, exitCode: 0 });
  const used = process.cpuUsage(from);
  writer = Math.min(writer, (used.user + used.system) / THINKS);
}
console.log(`   overhead: time ${pct(wallT / wallP - 1)}, CPU ${pct(cpuT / cpuP - 1)} (goal ≤ +5%; both noisy on a loaded machine)`);
console.log(`   the trace writer's own CPU (${(events.length / THINKS).toFixed(1)} events per think): ${writer.toFixed(1)} µs per think = ${pct(writer / cpuP)} of a think's CPU, ${pct(writer / 1000 / wallP)} of its time\n`);
}

// 2. replay of a 100-think cassette vs no-agent mode
if (parts.has(2)) {
const N = size(100, 10);
const REPS = size(30, 3);
const replaySource = `var n = 0\nfor i in 1...${N} {\n  var r = think {\n    item \${i}\n    do { n = n + 1 }\n  }\n}\nprint(n)\n`;
const recorder = new CassetteRecorder("replay.pw");
const quiet = (onEvent) => createNodeHost({ cwd: dir, stdout: () => {}, stderr: () => {}, ...(onEvent ? { onEvent } : {}) });
const recorded = run(replaySource, { fileName: "replay.pw", cwd: dir, host: quiet((e) => recorder.handle(e)), agent: new ScriptedAgent(() => [{ do: 0 }, { reply: "ok" }]) });
if (!recorded.ok) throw new Error(JSON.stringify(recorded.diagnostics));
const cassetteText = formatCassette(recorder.cassette());
const cassettePath = join(dir, "replay.cassette.json");
writeFileSync(cassettePath, cassetteText);
writeFileSync(join(dir, "replay.pw"), replaySource);

const timeIt = (f) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};
const noAgent = [];
const replay = [];
const parse = [];
for (let i = 0; i < REPS; i++) {
  noAgent.push(timeIt(() => run(replaySource, { fileName: "replay.pw", cwd: dir, host: quiet(), agent: new NoAgent() })));
  let cassette;
  parse.push(timeIt(() => (cassette = parseCassette(cassetteText, "replay.cassette.json"))));
  replay.push(timeIt(() => {
    const r = run(replaySource, { fileName: "replay.pw", cwd: dir, host: quiet(), agent: new CassetteAgent(cassette) });
    if (!r.ok || r.output !== `${N}\n`) throw new Error(`replay failed: ${JSON.stringify(r.diagnostics)} ${r.output}`);
  }));
}
console.log(`2. replay of a ${N}-think cassette (each think runs its do block) vs no-agent mode (${REPS} runs each)`);
console.log(`   in process: no-agent ${spread(noAgent)} ms; replay ${spread(replay)} ms (+ ${spread(parse)} ms to parse the cassette)`);
const cli = (args) => {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cliBin, "run", "replay.pw", ...args], { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return performance.now() - t0;
};
const cliNo = [];
const cliReplay = [];
for (let i = 0; i < size(5, 1); i++) {
  cliNo.push(cli(["--no-agent"]));
  cliReplay.push(cli(["--replay", cassettePath]));
}
console.log(`   CLI (start-up included): --no-agent ${spread(cliNo, (x) => x.toFixed(0))} ms; --replay ${spread(cliReplay, (x) => x.toFixed(0))} ms`);
}

// 3. recording overhead: the think loop of 1. with a cassette journal (runWithAgent's `record`)
if (parts.has(3)) {
console.log(`\n3. think loop (${THINKS} thinks per run), recording a cassette journal (--record) or not`);
const bare = [];
const journaled = [];
for (let round = 0; round < ROUNDS; round++) {
  events = [];
  bare.push(await loop(false));
  journaled.push(await loop(false, true));
}
const wallB = median(bare.map((x) => x.wall));
const wallJ = median(journaled.map((x) => x.wall));
const cpuB = median(bare.map((x) => x.cpu));
const cpuJ = median(journaled.map((x) => x.cpu));
console.log(`   without --record: ${spread(bare.map((x) => x.wall))} ms per think; CPU ${cpuB.toFixed(0)} µs per think`);
console.log(`   with --record:    ${spread(journaled.map((x) => x.wall))} ms per think; CPU ${cpuJ.toFixed(0)} µs per think`);
// The journal's own cost: the same events through a JournaledRecording (an entry formatted and
// written per think, fsync at most once a second), best of 5.
let journalCost = Infinity;
for (let i = 0; i < 5; i++) {
  const rec = new JournaledRecording({ path: join(dir, `journal-${i}.json`), program: "bench.pw" });
  const t0 = performance.now();
  for (const e of events) rec.handle(e);
  const ms = performance.now() - t0;
  rec.finish({ complete: true });
  journalCost = Math.min(journalCost, (ms * 1000) / THINKS);
}
console.log(`   overhead: time ${pct(wallJ / wallB - 1)}, CPU ${pct(cpuJ / cpuB - 1)} (goal ≤ +5%; both noisy on a loaded machine)`);
console.log(`   the journal's own time (entry formatted + one write per think): ${journalCost.toFixed(1)} µs per think = ${pct(journalCost / 1000 / wallB)} of a think's time`);
}

// 4. resume of a recording killed at think 900 of 1,000: time until think 901 starts (CLI)
if (parts.has(4)) {
const TOTAL = size(1000, 30);
const KILLED_AT = Math.round(TOTAL * 0.9);
const resumeSource = `for i in 1...${TOTAL} {\n  print("before \${i}")\n  var r = think {\n    count \${i}\n  }\n}\n`;
writeFileSync(join(dir, "resume.pw"), resumeSource);
const full = spawnSyncAgain(process.execPath, [cliBin, "run", "resume.pw", "--agent", command, "--record", "full.cassette.json"], { cwd: dir, encoding: "utf8" });
if (full.status !== 0) throw new Error(full.stderr);
// What a run SIGKILLed while think 901 was under way leaves: the first 900 entries.
const fullCassette = parseCassette(readFileSync(join(dir, "full.cassette.json"), "utf8"), "full.cassette.json");
const killedText = formatCassette({ ...fullCassette, thinks: fullCassette.thinks.slice(0, KILLED_AT) });

/** Wall ms from spawning the CLI until it prints `before 901` (think 901 is about to start). */
function untilThink(args, bin = cliBin) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, "run", "resume.pw", ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    const marker = `before ${KILLED_AT + 1}\n`;
    let out = "";
    let err = "";
    let at = null;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      out += d;
      if (at === null && out.includes(marker)) at = performance.now() - t0;
    });
    child.stderr.on("data", (d) => (err += d));
    child.once("exit", (code) => (code === 0 && at !== null ? resolve(at) : reject(new Error(`exit ${code}: ${err}`))));
  });
}
const resumeMs = [];
const noAgentMs = [];
const baseMs = [];
const baseCli = process.env.BENCH_BASE_CLI;
const loads = [];
const resumed = async (bin) => {
  writeFileSync(join(dir, "killed.cassette.json"), killedText);
  const ms = await untilThink(["--agent", command, "--resume", "killed.cassette.json"], bin);
  if (readFileSync(join(dir, "killed.cassette.json"), "utf8") !== readFileSync(join(dir, "full.cassette.json"), "utf8"))
    throw new Error("the resumed cassette differs from the uninterrupted one");
  return ms;
};
// Pairs (or triples), one of each per round (the machine is shared: a round sees the same load).
for (let i = 0; i < Number(process.env.BENCH_RESUME_ROUNDS ?? size(10, 1)); i++) {
  loads.push(loadavg()[0]);
  noAgentMs.push(await untilThink(["--no-agent"]));
  if (baseCli) baseMs.push(await resumed(baseCli));
  resumeMs.push(await resumed(cliBin));
}
console.log(`\n4. resume of a ${TOTAL}-think recording killed at think ${KILLED_AT} (CLI, start-up included): time until think ${KILLED_AT + 1} starts`);
console.log(`   (load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`);
console.log(`   --no-agent run of the same program: ${spread(noAgentMs, (x) => x.toFixed(0))} ms`);
if (baseCli) {
  console.log(`   --resume by ${baseCli}: ${spread(baseMs, (x) => x.toFixed(0))} ms`);
  const baseRatios = baseMs.map((x, i) => x / noAgentMs[i]);
  console.log(`   that build vs no-agent: ${pct(median(baseMs) / median(noAgentMs) - 1)} (medians); per pair ${spread(baseRatios, (x) => `${x.toFixed(2)}×`)}`);
}
console.log(`   --resume (${KILLED_AT} replayed while the agent and its runtime start): ${spread(resumeMs, (x) => x.toFixed(0))} ms`);
const ratios = resumeMs.map((x, i) => x / noAgentMs[i]);
console.log(`   resume vs no-agent: ${pct(median(resumeMs) / median(noAgentMs) - 1)} (medians); per pair ${spread(ratios, (x) => `${x.toFixed(2)}×`)} (goal ≤ +10%)`);
}

#!/usr/bin/env node
// Workers benchmark (npm run bench:workers). Prints, in one run:
//  1. N workers each doing one think against the scripted agent with 200 ms and 2 s latency per
//     turn, vs one worker doing one think (goal: wall time ≤ 1.3× the single think at 200 ms,
//     ≤ 1.15× at 2 s: issue 26);
//  2. fib(27) (and fib(35)) in 4 workers vs the same 4 calls in sequence (goal: ≥ 1.7× faster on 2 cores);
//  3. the cost of starting a worker thread (wall and CPU per worker) and the memory of an
//     idle worker (rss per worker blocked in a mailbox receive).
// All runs go through runWithAgent, as `patchwork run` does (no agent: agent null).
// `--only=thinks` runs section 1 alone (interleaved before/after pairs: docs/benchmarks.md).
import { mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runWithAgent } from "../packages/agent/dist/index.js";
import { median, size, smoke } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const agentBin = join(root, "packages/agent/bin/patchwork-test-agent.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-workers-"));
const repeats = size(3, 1);
const spread = (xs, f = (x) => x.toFixed(0)) => `${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}]`;

function agentCommand(script) {
  const file = join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(script));
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(agentBin)} ${JSON.stringify(file)}`;
}

/** Runs a program; returns wall ms, CPU ms of this process (all threads), output, think span. */
async function timed(source, { agent = null, maxWorkers, cpuSlots, onOutput } = {}) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let firstStart = Infinity;
  let lastEnd = 0;
  const output = [];
  const r = await runWithAgent({
    source,
    fileName: join(dir, "bench.pw"),
    cwd: dir,
    agent: agent ? { command: agent } : null,
    writeOutput: false,
    ...(maxWorkers ? { maxWorkers } : {}),
    ...(cpuSlots ? { cpuSlots } : {}),
    onOutput: (text) => {
      output.push(text);
      onOutput?.(text);
    },
    onEvent: (e) => {
      if (e.type === "think-start") firstStart = Math.min(firstStart, performance.now());
      if (e.type === "think-end") lastEnd = performance.now();
    },
  });
  const wall = performance.now() - t0;
  const c = process.cpuUsage(cpu0);
  if (!r.ok) throw new Error(`benchmark program failed: ${JSON.stringify(r.diagnostics.map((d) => d.message))}`);
  return { wall, cpu: (c.user + c.system) / 1000, output: output.join(""), thinkSpan: lastEnd - firstStart };
}

const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7);
const thinksOnly = only === "thinks";

console.log(`machine: ${availableParallelism()} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);

// ── 1. concurrent thinks ──
for (const turnMs of size([200, 2000], [200])) {
  const n = size(16, 4);
  const agent = agentCommand({ fallback: { steps: [{ sleep: turnMs }, { reply: "done" }] } });
  const program = (count) => `
worker w(i) {
    think {
        Worker \${i} asks.
    }
}
var tasks = []
for i in 1...${count} { tasks.push(w(i)) }
print(len(self.delegate(tasks).await))`;
  const one = [];
  const many = [];
  const oneSpan = [];
  const manySpan = [];
  for (let i = 0; i < repeats; i++) {
    const a = await timed(program(1), { agent, maxWorkers: n });
    const b = await timed(program(n), { agent, maxWorkers: n });
    if (b.output !== `${n}\n`) throw new Error(`expected ${n} answers, got ${b.output}`);
    one.push(a.wall);
    many.push(b.wall);
    oneSpan.push(a.thinkSpan);
    manySpan.push(b.thinkSpan);
  }
  console.log(`concurrent thinks (scripted agent, ${turnMs} ms per turn), median [min–max] of ${repeats}:`);
  console.log(`  1 worker, 1 think:    run ${spread(one)} ms; thinks ${spread(oneSpan)} ms`);
  console.log(`  ${n} workers, 1 think each: run ${spread(many)} ms; thinks ${spread(manySpan)} ms (first start → last end)`);
  console.log(`  ratio: run ${(median(many) / median(one)).toFixed(2)}×, thinks ${(median(manySpan) / median(oneSpan)).toFixed(2)}× (goal ≤ ${turnMs >= 2000 ? "1.15" : "1.3"}×)`);
}

if (thinksOnly) process.exit(0);

// ── 2. CPU-bound workers ──
// fib(27) is the figure; with the compiled tier it takes ~0.1 s, so thread start and a
// fresh thread's cold JIT weigh on it: fib(35) (~0.5 s of work per call) shows how the work
// itself scales. "In sequence" is the four calls on the program's own thread; each program
// also prints the clock around the computation (`date +%s%3N`), so the computation alone is
// timed as well as the whole run (which includes the program thread's start, the same in both).
for (const n of size([27, 35], [20])) {
  const fib = `fun fib(n) {\n    if n < 2 { return n }\n    return fib(n - 1) + fib(n - 2)\n}\n`;
  const clock = (body) => `${fib}worker w() { return fib(${n}) }\nvar t0 = $(date +%s%3N)\n${body}\nvar t1 = $(date +%s%3N)\nprint(r)\nprint("window", t0, t1)`;
  const sequential = clock(`var r = []\nfor i in 1...4 { r.push(fib(${n})) }`);
  const oneWorkerAtATime = clock(`var r = []\nfor i in 1...4 { r.push(await w()) }`);
  const parallel = clock(`var r = self.delegate([w(), w(), w(), w()]).await`);
  const window = (output) => {
    const m = /window (\d+) (\d+)/.exec(output);
    if (!m) throw new Error(`no clock in ${output}`);
    return Number(m[2]) - Number(m[1]);
  };
  const runs = { seq: [], one: [], par: [] };
  for (let i = 0; i < repeats; i++) {
    for (const [key, program] of [["seq", sequential], ["one", oneWorkerAtATime], ["par", parallel]]) {
      const r = await timed(program, { maxWorkers: 4 });
      runs[key].push({ wall: r.wall, window: window(r.output) });
    }
  }
  const med = (key, f) => median(runs[key].map(f));
  const line = (key) => `run ${spread(runs[key].map((r) => r.wall))} ms, computation ${spread(runs[key].map((r) => r.window))} ms`;
  console.log(`fib(${n}) four times, median [min–max] of ${repeats}:`);
  console.log(`  in sequence (the program's thread): ${line("seq")}`);
  console.log(`  one worker at a time (await w()):   ${line("one")}`);
  console.log(`  4 workers at once (delegate):       ${line("par")}`);
  console.log(
    `  speed-up vs in sequence: computation ${(med("seq", (r) => r.window) / med("par", (r) => r.window)).toFixed(2)}×, ` +
      `run ${(med("seq", (r) => r.wall) / med("par", (r) => r.wall)).toFixed(2)}× (goal ≥ 1.7× on 2 cores)`,
  );
}

// ── 3. thread start and idle memory ──
{
  const n = size(16, 4);
  const trivial = (count) => `worker w() { return 1 }\nvar t = []\nfor i in 1...${count} { t.push(w()) }\nprint(len(self.delegate(t).await))`;
  const base = [];
  const withN = [];
  const one = [];
  for (let i = 0; i < repeats; i++) {
    // The same n + 1 trivial tasks: with one CPU slot they take turns on one thread (started
    // ahead); with n + 1 slots each gets a thread of its own (all started ahead, as a program
    // that declares workers has them): the difference is n thread starts.
    base.push(await timed(trivial(n + 1), { maxWorkers: n + 1, cpuSlots: 1 }));
    withN.push(await timed(trivial(n + 1), { maxWorkers: n + 1, cpuSlots: n + 1 }));
    one.push(await timed(trivial(1)));
  }
  const wallPer = withN.map((r, i) => (r.wall - base[i].wall) / n);
  const cpuPer = withN.map((r, i) => (r.cpu - base[i].cpu) / n);
  console.log(`worker thread start (${n} more threads for the same ${n + 1} trivial tasks), median [min–max] of ${repeats}:`);
  console.log(`  per worker: wall ${spread(wallPer, (x) => x.toFixed(1))} ms, CPU ${spread(cpuPer, (x) => x.toFixed(1))} ms`);

  // Many tasks through few threads: a finished task's thread takes the next one (pool.ts).
  const tasks = size(48, 8);
  const many = [];
  for (let i = 0; i < repeats; i++) many.push(await timed(trivial(tasks), { maxWorkers: 4 }));
  console.log(`${tasks} trivial tasks with --max-workers 4, median [min–max] of ${repeats}:`);
  console.log(`  run ${spread(many.map((r) => r.wall))} ms, CPU ${spread(many.map((r) => r.cpu))} ms (vs ${spread(one.map((r) => r.wall))} ms for one task)`);

  // Idle workers: each says it is ready, then waits in a receive; the program's thread
  // prints once all are ready and sleeps, while this thread samples the memory.
  const idle = (count) => `
worker w() {
    self.session.mailbox.ready.send(1)
    return self.session.mailbox.go.receive(60000)
}
var t = []
for i in 1...${count} { t.push(w()) }
var p = self.delegate(t)
for i in 1...${count} { self.session.mailbox.ready.receive(60000) }
print("all ready")
$ sleep 0.3
for i in 1...${count} { self.session.mailbox.go.send(i) }
print(len(p.await))`;
  const rssAt = async (count) => {
    let rss = NaN;
    await timed(idle(count), {
      maxWorkers: count,
      onOutput: (text) => {
        if (text.startsWith("all ready")) rss = process.memoryUsage().rss;
      },
    });
    return rss;
  };
  const perWorker = [];
  for (let i = 0; i < repeats; i++) {
    const one = await rssAt(1);
    const many = await rssAt(n + 1);
    perWorker.push((many - one) / n / 1e6);
  }
  console.log(`idle worker (blocked in a mailbox receive), rss per worker: ${spread(perWorker, (x) => x.toFixed(1))} MB`);
}
if (smoke) console.log("(smoke size: the figures mean nothing)");

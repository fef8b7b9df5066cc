#!/usr/bin/env node
// Progress benchmark (npm run bench:progress). Prints, in one run:
//  1. evaluation speed of loops when no host listens (the evaluator's `for` loops choose a
//     loop without progress events then): a `for` over a list, a range loop in a function (the
//     generated-code tier) and the eval benchmark's `while` loop, best of N processes. With
//     PW_BASE_INTERPRETER=/path/to/interpreter/dist/index.js (a build of the commit before the
//     progress events) the same programs run on it too, interleaved, and the ratio is printed
//     (goal ≤ 1.02);
//  2. a 2,000-item and a 100,000-item loop typed in the panel (`patchwork acp`'s proxy, in
//     process, with the scripted agent behind it): the turn's wall time, and the CPU time of the
//     process's threads during it (less at the mercy of the machine's load), with the plan against the
//     same proxy with progress off (no plan; with PW_BASE_INTERPRETER its session threads run
//     that evaluator, which makes no loop events at all), and the bytes of plan traffic
//     (goal ≤ 5% slower, ≤ 1 MB for 100,000 items).
// `--smoke`: small sizes, one run.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { median, size } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const base = process.env.PW_BASE_INTERPRETER ?? null;
const RUNS = Number(process.env.BENCH_RUNS ?? size(9, 1));

// ───────────────────────────── 1. evaluation, nobody listening ─────────────────────────────
// Each measurement in a process of its own (in one process, the module loaded second ran
// faster or slower by up to 2× whichever it was), the two builds alternating.
const N = size(300_000, 3_000);
const programs = {
  "for over a list": `var xs = []\nfor i in 1...${N / 10} { xs.push(i) }\nvar s = 0\nfor r in 1...10 { for x in xs { s = s + x * 2 } }\nprint(s)\n`,
  "for over a range (in a function)": `fun f() {\n  var s = 0\n  for i in 1...${N} { s = s + i * 2 }\n  return s\n}\nprint(f())\n`,
  "while (eval benchmark)": `var s = 0\nvar i = 0\nwhile i < ${N} {\n  s = s + i * 2\n  i = i + 1\n}\nprint(s)\n`,
};
const timer = join(mkdtempSync(join(tmpdir(), "pw-bench-progress-eval-")), "time.mjs");
writeFileSync(
  timer,
  `import { parse } from ${JSON.stringify(join(root, "packages/parser/dist/index.js"))};
const mod = await import(process.argv[2]);
const { program } = parse(process.argv[3], { fileName: "bench.pw" });
let best = Infinity;
for (let i = 0; i < 5; i++) {
  const interp = new mod.Interpreter({ host: mod.createNodeHost({ cwd: process.cwd(), stdout: () => undefined }) });
  const t = performance.now();
  interp.run(program, { fileName: "bench.pw" });
  best = Math.min(best, performance.now() - t);
}
process.stdout.write(String(best));
`,
);
const time = (module, source) => Number(execFileSync(process.execPath, [timer, module, source], { encoding: "utf8" }));
const currentModule = join(root, "packages/interpreter/dist/index.js");
console.log(`1. loops, no host listening: best of ${RUNS} processes × 5 runs (ms)${base ? "  | before the progress events | ratio" : ""}`);
for (const [name, source] of Object.entries(programs)) {
  const now = [];
  const before = [];
  for (let i = 0; i < RUNS; i++) {
    now.push(time(currentModule, source));
    if (base) before.push(time(process.env.PW_BASE_INTERPRETER, source));
  }
  const a = Math.min(...now);
  const line = `${name.padEnd(34)} ${a.toFixed(2).padStart(8)} ms`;
  if (!base) console.log(line);
  else {
    const b = Math.min(...before);
    console.log(`${line}  | ${b.toFixed(2).padStart(8)} ms | ${(a / b).toFixed(3)}`);
  }
}

// ───────────────────────────── 2. the panel's plan ─────────────────────────────
const { serveAcpProxy } = await import(join(root, "packages/serve/dist/index.js"));
const agentBin = join(root, "packages/agent/bin/patchwork-test-agent.js");
const scratch = mkdtempSync(join(tmpdir(), "pw-bench-progress-"));
const script = join(scratch, "script.json");
writeFileSync(script, JSON.stringify({ prompts: [{ steps: [{ reply: "ok" }] }] }));

/** An editor connected in process to a proxy (`plan`: its options); counts plan updates and their bytes. */
async function panel(plan, evaluatorModule) {
  const toProxy = new TransformStream();
  const toEditor = new TransformStream();
  const server = serveAcpProxy(
    { readable: toProxy.readable, writable: toEditor.writable },
    { agent: { command: process.execPath, args: [agentBin, script] }, cwd: scratch, plan, logger: { warn: () => undefined }, ...(evaluatorModule ? { evaluatorModule } : {}) },
  );
  const seen = { plans: 0, bytes: 0, thoughts: 0 };
  const connection = acp
    .client({ name: "bench" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "plan") {
        seen.plans++;
        seen.bytes += JSON.stringify(params.update).length;
      } else if (params.update.sessionUpdate === "agent_thought_chunk") seen.thoughts++;
    })
    .connect({ readable: toEditor.readable, writable: toProxy.writable });
  await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: scratch, mcpServers: [] });
  return {
    seen,
    /** One turn: its wall time, and the CPU time of this process's threads (the proxy's, the evaluator's, the editor's) meanwhile. */
    async turn(text) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      const r = await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      if (r.stopReason !== "end_turn") throw new Error(`the benchmark's prompt ended with ${r.stopReason}`);
      const used = process.cpuUsage(cpu);
      return { wall: performance.now() - t, cpu: (used.user + used.system) / 1000 };
    },
    async close() {
      await server.close();
      connection.close();
    },
  };
}

const loop = (n) => `{ var t = 0\nvar xs = []\nfor i in 1...${n} { xs.push("document-" + i + ".txt") }\nfor doc in xs { t = t + len(doc) }\nprint(t) }`;
// (With PW_BASE_INTERPRETER both proxies name their evaluator module, so both load it alike.)
const on = await panel(undefined, base ? currentModule : undefined);
const off = await panel({ enabled: false }, process.env.PW_BASE_INTERPRETER);
const PANEL_RUNS = Number(process.env.BENCH_RUNS ?? size(7, 1));
console.log(`2. a loop typed in the panel: medians of ${PANEL_RUNS} turns' wall and CPU time, interleaved (plan on | progress off${base ? ", the evaluator before the progress events" : ""})`);
for (const n of [size(2_000, 200), size(100_000, 2_000)]) {
  await on.turn(loop(n));
  await off.turn(loop(n));
  const withPlan = [];
  const without = [];
  const plans0 = on.seen.plans;
  const bytes0 = on.seen.bytes;
  for (let i = 0; i < PANEL_RUNS; i++) {
    withPlan.push(await on.turn(loop(n)));
    without.push(await off.turn(loop(n)));
  }
  const a = median(withPlan.map((t) => t.wall));
  const b = median(without.map((t) => t.wall));
  const cpuA = median(withPlan.map((t) => t.cpu));
  const cpuB = median(without.map((t) => t.cpu));
  const plans = (on.seen.plans - plans0) / PANEL_RUNS;
  const bytes = (on.seen.bytes - bytes0) / PANEL_RUNS;
  console.log(
    `${n.toLocaleString("en-US").padStart(7)} items: ${a.toFixed(1)} ms | ${b.toFixed(1)} ms  (${((a / b - 1) * 100).toFixed(1)}%)  CPU ${cpuA.toFixed(1)} | ${cpuB.toFixed(1)} ms (${((cpuA / cpuB - 1) * 100).toFixed(1)}%)  plan: ${plans.toFixed(1)} updates, ${Math.round(bytes).toLocaleString("en-US")} bytes per turn`,
  );
}
if (off.seen.plans !== 0) throw new Error("the proxy with progress off sent a plan");
await on.close();
await off.close();

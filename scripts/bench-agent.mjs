#!/usr/bin/env node
// Agent runtime benchmark (npm run bench:agent). Prints, in one run:
//  1. one think round trip through our runtime (evaluator thread → ACP runtime → scripted
//     agent) vs the same prompt turn done with the bare ACP SDK (goal ≤ 1.2×);
//  2. one `do` round trip (agent calls the MCP tool, the evaluator runs the child), http and stdio;
//  3. memory (heapUsed / rss) after 1,000 sequential thinks vs after 10 (goal: flat).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { runWithAgent } from "../packages/agent/dist/index.js";
import { median, size, smoke } from "./lib/bench.mjs";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const root = fileURLToPath(new URL("..", import.meta.url));
const agentBin = join(root, "packages/agent/bin/patchwork-test-agent.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-agent-"));
let scriptCount = 0;
const agentCommand = (script) => {
  const file = join(dir, `script-${++scriptCount}.json`);
  writeFileSync(file, JSON.stringify(script));
  return { file, command: `${JSON.stringify(process.execPath)} ${JSON.stringify(agentBin)} ${JSON.stringify(file)}` };
};
const ms = (x) => `${x.toFixed(2)} ms`;
const spread = (xs, f = (x) => x.toFixed(2)) => `${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}]`;

/** CPU time so far (µs): this process, all threads; the agent process (Linux's /proc; else NaN). */
function cpuNow(agentPid) {
  const { user, system } = process.cpuUsage();
  let agent = NaN;
  try {
    const fields = readFileSync(`/proc/${agentPid}/stat`, "utf8").split(") ")[1].split(" ");
    agent = (Number(fields[11]) + Number(fields[12])) * 1e4; // clock ticks of 10 ms
  } catch {}
  return { client: user + system, agent };
}

/** CPU per think (µs) between two `cpuNow` readings `count` thinks apart. */
const cpuPer = (from, to, count) => ({ client: (to.client - from.client) / count, agent: (to.agent - from.agent) / count });

/**
 * Runs a Patchwork program with N thinks; returns per-think durations (think-start → think-end)
 * and, when `warmup` is given, the CPU per think after the first `warmup` thinks.
 */
async function timedThinks(source, script, extra = {}, warmup = undefined) {
  const { command } = agentCommand(script);
  const starts = new Map();
  const durations = [];
  let pid = 0;
  let cpuFrom = null;
  let cpuTo = null;
  const result = await runWithAgent({
    source,
    fileName: "bench.pw",
    cwd: dir,
    agent: { command },
    writeOutput: false,
    ...extra,
    onEvent: (e) => {
      if (e.type === "think-start") starts.set(e.id, performance.now());
      else if (e.type === "think-end") {
        durations.push(performance.now() - starts.get(e.id));
        if (e.id === warmup) cpuFrom = cpuNow(pid);
        else if (warmup !== undefined) cpuTo = cpuNow(pid);
      } else if (e.type === "agent-started") pid = e.pid;
      extra.onEvent?.(e);
    },
  });
  if (!result.ok) throw new Error(`bench run failed: ${JSON.stringify(result.diagnostics)}`);
  const cpu = cpuFrom && cpuTo ? cpuPer(cpuFrom, cpuTo, durations.length - warmup) : null;
  return Object.assign(durations, { cpu });
}

const loop = (n, body) => `for i in 1...${n} {\n  var r = think {\n    count \${i}\n${body}  }\n}\n`;

/**
 * The same turns with the bare SDK: session/new with the same kind of MCP declaration, prompt,
 * collect text; and, when the agent supports it, session/close (not awaited), as our runtime does.
 * The agent's stderr is read, as any client must (the test agent logs each session/close there).
 */
async function bareSdk(n, script, warmup) {
  const { file } = agentCommand(script);
  const child = spawn(process.execPath, [agentBin, file], { stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text) => (stderr = (stderr + text).slice(-4000)));
  let cpuFrom = null;
  let text = "";
  const app = acp.client({ name: "bench" }).onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text") text += params.update.content.text;
  });
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const mcpServers = [{ type: "http", name: "patchwork", url: "http://127.0.0.1:9/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] }];
  const durations = [];
  for (let i = 1; i <= n; i++) {
    const t0 = performance.now();
    text = "";
    const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers });
    await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `count ${i}` }] });
    if (text !== "ok") throw new Error(`bare SDK got ${JSON.stringify(text)}`);
    if (script.sessionClose !== false) connection.agent.request(acp.methods.agent.session.close, { sessionId }).catch(() => undefined);
    durations.push(performance.now() - t0);
    if (i === warmup) cpuFrom = cpuNow(child.pid);
  }
  const cpu = cpuFrom ? cpuPer(cpuFrom, cpuNow(child.pid), n - warmup) : null;
  connection.close();
  process.kill(-child.pid, "SIGKILL");
  return Object.assign(durations, { cpu });
}

// Section 1 runs longer and drops its first quarter: each of our runs starts a fresh evaluator
// thread (a cold V8 isolate), while the bare client's code is warm from earlier rounds; the
// steady state is what compares the two runtimes.
const THINKS = size(800, 40);
const WARMUP = size(200, 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(5, 1));
console.log(`patchwork agent benchmark (node ${process.version}; ${ROUNDS} interleaved rounds${smoke ? "; smoke size" : ""})\n`);

// 1. think round trip: ours and bare, interleaved so machine load hits both alike; once with an
//    agent that cannot close sessions, once with one that can (both sides then close each session)
console.log(`1. think round trip (session/new + one prompt turn, no do; ${THINKS} thinks per round, first ${WARMUP} not counted)`);
/** Our plain think's time per agent kind (section 2 subtracts it). */
const plainThink = {};
for (const sessionClose of [false, true]) {
  const thinkScript = { sessionClose, prompts: [{ match: "count", steps: [{ reply: "ok" }] }] };
  const rounds = { ours: [], serial: [], bare: [], ratio: [], serialRatio: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const ours = await timedThinks(loop(THINKS, ""), thinkScript, {}, WARMUP);
    // Like for like: without the session made ahead for the next think, session/new is in
    // every think's time, as in the bare client's.
    const serial = await timedThinks(loop(THINKS, ""), thinkScript, { agent: { command: agentCommand(thinkScript).command, prepareSessions: false } }, WARMUP);
    const bare = await bareSdk(THINKS, thinkScript, WARMUP);
    const o = median(ours.slice(WARMUP));
    const sr = median(serial.slice(WARMUP));
    const b = median(bare.slice(WARMUP));
    rounds.ours.push({ time: o, cpu: ours.cpu });
    rounds.serial.push({ time: sr, cpu: serial.cpu });
    rounds.bare.push({ time: b, cpu: bare.cpu });
    rounds.ratio.push(o / b);
    rounds.serialRatio.push(sr / b);
  }
  const line = (xs) => {
    const cpu = (k) => {
      const us = median(xs.map((x) => x.cpu[k]));
      return Number.isFinite(us) ? `${us.toFixed(0)} µs` : "n/a";
    };
    return `${spread(xs.map((x) => x.time))} ms; CPU per think: client ${cpu("client")}, agent ${cpu("agent")}`;
  };
  console.log(sessionClose ? "   agent with session/close (each session closed after its turn):" : "   agent without session/close:");
  console.log(`     patchwork runtime (evaluator thread → ACP runtime → agent): ${line(rounds.ours)}`);
  console.log(`     the same without the next session made ahead:               ${line(rounds.serial)}`);
  console.log(`     bare ACP SDK client (main thread → agent):                  ${line(rounds.bare)}`);
  console.log(`     ratio: ${spread(rounds.ratio)}× (median [min–max] of the rounds; goal ≤ 1.1×); without sessions made ahead: ${spread(rounds.serialRatio)}×`);
  plainThink[sessionClose] = median(rounds.ours.map((x) => x.time));
}
console.log("");

// 2. do round trip: a turn that calls do 1 + DOS times vs once, over the same MCP connection;
//    the scripted agent closes each session, so the plain think to subtract is that kind
console.log("2. do round trip (agent → MCP tool `do` → evaluator runs the child → result)");
const body = "    do {\n      n = n + 1\n    }\n";
const doSource = `var n = 0\n${loop(size(8, 4), body)}`;
const DOS = size(100, 10);
for (const transport of ["http", "stdio"]) {
  let perDo = Infinity;
  let connect = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const many = await timedThinks(doSource, { prompts: [{ match: "count", steps: [{ do: 0, repeat: DOS + 1 }, { reply: "ok" }] }] }, { mcpTransport: transport });
    const one = await timedThinks(doSource, { prompts: [{ match: "count", steps: [{ do: 0 }, { reply: "ok" }] }] }, { mcpTransport: transport });
    perDo = Math.min(perDo, (median(many.slice(2)) - median(one.slice(2))) / DOS);
    connect = Math.min(connect, median(one.slice(2)) - plainThink[true]);
  }
  console.log(`   ${transport.padEnd(5)}: ${ms(perDo)} per do call (plus ${ms(connect)} for the agent's first MCP connection of a session)`);
}
console.log("");

// 3. memory
console.log("3. memory after sequential thinks (main thread heapUsed after GC; process rss)");
const samples = {};
const M = size(1000, 50);
await timedThinks(loop(M, ""), { prompts: [{ match: "count", steps: [{ reply: "ok" }] }] }, {
  onEvent: (e) => {
    if (e.type === "think-end" && (e.id === 10 || e.id === M)) {
      gc();
      const m = process.memoryUsage();
      samples[e.id] = { heapUsed: m.heapUsed / 1048576, rss: m.rss / 1048576 };
    }
  },
});
const mb = (x) => `${x.toFixed(1)} MB`;
console.log(`   after ${String(10).padStart(4)} thinks: heapUsed ${mb(samples[10].heapUsed)}, rss ${mb(samples[10].rss)}`);
console.log(`   after ${String(M).padStart(4)} thinks: heapUsed ${mb(samples[M].heapUsed)}, rss ${mb(samples[M].rss)}`);
console.log(`   growth: heapUsed ${mb(samples[M].heapUsed - samples[10].heapUsed)}, rss ${mb(samples[M].rss - samples[10].rss)} (goal: flat)`);

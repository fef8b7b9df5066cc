#!/usr/bin/env node
// `patchwork acp` benchmark (npm run bench:acp). Prints, in one run:
//  1. the proxy's overhead on a pass-through prompt: time to the first chunk and to the end
//     of the turn, through `patchwork acp` vs the scripted agent directly, same client (goal ≤ 2 ms);
//  2. memory of the proxy process (rss) while it forwards 1,000-chunk answers (goal: flat).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { median, size } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const agentBin = join(root, "packages/agent/bin/patchwork-test-agent.js");
const patchworkBin = join(root, "packages/cli/bin/patchwork.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-acp-"));
const CHUNKS = 1000;
const script = join(dir, "script.json");
writeFileSync(
  script,
  JSON.stringify({
    prompts: [{ match: "long", steps: [...Array.from({ length: CHUNKS - 1 }, (_, i) => ({ text: `chunk ${i} of a long streamed answer. ` })), { reply: "end" }] }],
    fallback: { steps: [{ text: "first " }, { reply: "answer" }] },
  }),
);
const agentArgs = [agentBin, script];

/** An ACP client on a child process's stdio; `chunks` calls back on each message chunk. */
async function connect(file, args) {
  const child = spawn(file, args, { cwd: dir, stdio: ["pipe", "pipe", "inherit"] });
  let onChunk = () => undefined;
  const connection = acp
    .client({ name: "bench" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk") onChunk();
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] });
  return {
    child,
    /** One prompt turn: ms to the first chunk and to the response. */
    async turn(text) {
      const t0 = performance.now();
      let first = NaN;
      onChunk = () => {
        if (Number.isNaN(first)) first = performance.now() - t0;
      };
      await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      return { first, end: performance.now() - t0 };
    },
    async close() {
      connection.close();
      child.stdin.end();
      await new Promise((r) => (child.exitCode !== null ? r() : child.once("exit", r)));
    },
  };
}

/** CPU time (ms) a process has used so far (Linux's /proc: clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

const turns = size(200, 10);
const direct = await connect(process.execPath, agentArgs);
const proxy = await connect(process.execPath, [patchworkBin, "acp", "--agent", [process.execPath, ...agentArgs].map((a) => JSON.stringify(a)).join(" ")]);
for (let i = 0; i < size(20, 2); i++) {
  await direct.turn("warm up");
  await proxy.turn("warm up");
}
const cpu0 = cpuMs(proxy.child.pid);
const d = { first: [], end: [] };
const p = { first: [], end: [] };
// Interleaved, so that the machine's load falls on both alike.
for (let i = 0; i < turns; i++) {
  const a = await direct.turn(`question ${i}`);
  const b = await proxy.turn(`question ${i}`);
  d.first.push(a.first), d.end.push(a.end), p.first.push(b.first), p.end.push(b.end);
}
const proxyCpu = (cpuMs(proxy.child.pid) - cpu0) / turns;
const f = (x) => `${x.toFixed(2)} ms`;
console.log(`pass-through prompt, ${turns} turns each (medians):`);
console.log(`  first chunk: direct ${f(median(d.first))}, through patchwork acp ${f(median(p.first))}, added ${f(median(p.first) - median(d.first))}`);
console.log(`  end of turn: direct ${f(median(d.end))}, through patchwork acp ${f(median(p.end))}, added ${f(median(p.end) - median(d.end))}`);
console.log(`  CPU of the proxy process: ${f(proxyCpu)} per turn`);
const longDirect = [];
const longProxy = [];
for (let i = 0; i < size(10, 2); i++) {
  longDirect.push((await direct.turn("long answer")).end);
  longProxy.push((await proxy.turn("long answer")).end);
}
console.log(`${CHUNKS}-chunk answer: direct ${f(median(longDirect))}, through patchwork acp ${f(median(longProxy))} (medians)`);

await direct.close();
await proxy.close();

// Memory: a fresh proxy whose V8 heap is capped, so that garbage is collected rather than left
// to grow the heap (rss of an uncapped process climbs until V8 decides to collect): a leak
// would exceed the cap and crash it; flat figures mean the forwarded chunks are not kept.
const HEAP_CAP_MB = 48;
const capped = await connect(process.execPath, [`--max-old-space-size=${HEAP_CAP_MB}`, patchworkBin, "acp", "--agent", [process.execPath, ...agentArgs].map((a) => JSON.stringify(a)).join(" ")]);
const rounds = size(40, 4);
await capped.turn("long answer");
const before = rssMb(capped.child.pid);
const longTurns = [];
let half = NaN;
for (let i = 0; i < rounds; i++) {
  longTurns.push((await capped.turn("long answer")).end);
  if (i === (rounds >> 1) - 1) half = rssMb(capped.child.pid);
}
const after = rssMb(capped.child.pid);
console.log(`${rounds} more ${CHUNKS}-chunk answers through a patchwork acp whose heap is capped at ${HEAP_CAP_MB} MB (${f(median(longTurns))} each):`);
console.log(`  proxy rss: ${before.toFixed(1)} MB after the first, ${half.toFixed(1)} MB after ${rounds >> 1} more, ${after.toFixed(1)} MB after ${rounds} more; growth ${(after - before).toFixed(1)} MB`);
await capped.close();

#!/usr/bin/env node
// `patchwork mcp` benchmark (npm run bench:mcp). Prints, in one run:
//  1. the latency of a tool call through a running `patchwork mcp` (the MCP SDK's client over
//     stdio) for a skill with no think, against `patchwork run` of the same entry, warm (parse
//     cache filled): goal ≤ 2× the run;
//  2. memory of the server process (rss, and the V8 heap after a collection is forced by a cap)
//     over 1,000 calls: goal flat;
//  3. a skill that thinks, answered by `--agent` (the scripted agent, slow to start and to make
//     a session, as real agents are): the first call (which starts the server's one agent
//     process) and the later ones, against `patchwork run` of the same entry (its own agent).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { median, size } from "./lib/bench.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const patchworkBin = join(root, "packages/cli/bin/patchwork.js");
const dir = mkdtempSync(join(tmpdir(), "pw-bench-mcp-"));
writeFileSync(
  join(dir, "greeter.pw"),
  `export default trait Greeter: Agent {
  # Greets someone by name.
  # Asks the agent.
  @skill muse
  fun muse(topic: string): string {
    return think { Say something about \${topic}. }
  }

  @skill greet
  fun greet(name: string, times: number): string {
    var s = ""
    for i in 1...times { s = s + "Hello, \${name}! " }
    print(s)
    return "greeted \${name}"
  }
}
`,
);
const env = { ...process.env, PATCHWORK_AGENT: "" };
const agentBin = join(root, "packages/agent/bin/patchwork-test-agent.js");
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
const f = (ms) => `${ms.toFixed(1)} ms`;

// 1. `patchwork run greeter.pw greet Ada 3`, warm: the first runs fill the parse cache.
const runs = [];
for (let i = 0; i < size(20, 3) + 2; i++) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [patchworkBin, "run", "greeter.pw", "greet", "Ada", "3"], { cwd: dir, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`patchwork run failed: ${r.stderr}`);
  if (i >= 2) runs.push(performance.now() - t0);
}

/** A client connected to `patchwork mcp greeter.pw` started with `nodeArgs`. */
async function serve(nodeArgs = [], mcpArgs = []) {
  const client = new Client({ name: "bench", version: "0.1.0" });
  const transport = new StdioClientTransport({ command: process.execPath, args: [...nodeArgs, patchworkBin, "mcp", "greeter.pw", ...mcpArgs], cwd: dir, env, stderr: "ignore" });
  await client.connect(transport);
  return {
    pid: transport.pid,
    async call(name = "greet", args = { name: "Ada", times: 3 }) {
      const t0 = performance.now();
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
      return performance.now() - t0;
    },
    close: () => client.close(),
  };
}

const server = await serve();
for (let i = 0; i < 3; i++) await server.call(); // warm
const calls = [];
for (let i = 0; i < size(50, 5); i++) calls.push(await server.call());
await server.close();
const [run, call] = [median(runs), median(calls)];
console.log(`skill with no think, warm (medians of ${runs.length} runs and ${calls.length} calls):`);
console.log(`  patchwork run greeter.pw greet Ada 3: ${f(run)}`);
console.log(`  tools/call greet through patchwork mcp: ${f(call)} (${(call / run).toFixed(2)}× the run; goal ≤ 2×)`);

// 2. Memory over 1,000 calls, the server's V8 heap capped so that garbage is collected rather
// than left to grow the heap: a leak would exceed the cap and crash it.
const HEAP_CAP_MB = 64;
const TOTAL = size(1000, 20);
const capped = await serve([`--max-old-space-size=${HEAP_CAP_MB}`]);
for (let i = 0; i < 10; i++) await capped.call();
const before = rssMb(capped.pid);
const marks = [];
const t0 = performance.now();
for (let i = 1; i <= TOTAL; i++) {
  await capped.call();
  if (i === TOTAL / 4 || i === TOTAL / 2 || i === TOTAL) marks.push(`${rssMb(capped.pid).toFixed(1)} MB after ${i} more`);
}
const per = (performance.now() - t0) / TOTAL;
const after = rssMb(capped.pid);
await capped.close();
console.log(`${TOTAL} calls through a patchwork mcp whose heap is capped at ${HEAP_CAP_MB} MB (${f(per)} each on average):`);
console.log(`  server rss: ${before.toFixed(1)} MB after 10 warm-up calls, ${marks.join(", ")}; growth ${(after - before).toFixed(1)} MB`);

// 3. A skill that thinks, answered by an agent that takes 300 ms to answer `initialize` and
// 400 ms to make a session (real agents: Claude Code ≈ 0.4–0.6 s a session, docs/benchmarks.md).
const script = join(dir, "agent.json");
writeFileSync(script, JSON.stringify({ initializeDelayMs: 300, sessionNewDelayMs: 400, prompts: [{ match: "about", steps: [{ reply: "It is fine." }] }] }));
const agent = `${JSON.stringify(process.execPath)} ${JSON.stringify(agentBin)} ${JSON.stringify(script)}`;
const agentRuns = [];
for (let i = 0; i < size(10, 2) + 1; i++) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [patchworkBin, "run", "greeter.pw", "muse", "tea", "--agent", agent], { cwd: dir, env, encoding: "utf8" });
  if (r.status !== 0 || !r.stdout.includes("It is fine.")) throw new Error(`patchwork run muse failed: ${r.stderr}`);
  if (i >= 1) agentRuns.push(performance.now() - t0);
}
const thinking = await serve([], ["--agent", agent]);
const first = await thinking.call("muse", { topic: "tea" });
const later = [];
for (let i = 0; i < size(20, 3); i++) later.push(await thinking.call("muse", { topic: "tea" }));
await thinking.close();
console.log(`a skill that thinks, --agent (initialize 300 ms, session/new 400 ms; medians of ${agentRuns.length} runs and ${later.length} calls):`);
console.log(`  patchwork run greeter.pw muse tea --agent …: ${f(median(agentRuns))}`);
console.log(`  tools/call muse, the server's first (starts its agent): ${f(first)}`);
console.log(`  tools/call muse, later calls (the same agent process): ${f(median(later))} (${(median(later) / median(agentRuns)).toFixed(2)}× the run)`);

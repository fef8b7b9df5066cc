#!/usr/bin/env node
/**
 * Run by a test program as a shell command between two thinks (`$ node --experimental-websocket
 * heap-probe.mjs LABEL PATTERN`): finds the agent's largest node process of this run (same
 * PW_AGENT_TEST_RUN marker, command line matching PATTERN, not the CLI), opens its inspector
 * (SIGUSR1, 127.0.0.1:9229), forces two full garbage collections and prints one line:
 *
 *   heap-probe LABEL pid=N heapMB=USED rssMB=RSS sockets=N at=EPOCH_MS
 *
 * so a test can tell memory the agent keeps from garbage it has not collected yet (`at`: when
 * the probe started, to time the thinks between two probes).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const startedAt = Date.now();
const [label, pattern] = process.argv.slice(2);
const marker = `PW_AGENT_TEST_RUN=${process.env.PW_AGENT_TEST_RUN}\0`;
const read = (path) => {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return "";
  }
};
const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) * 1024;
const candidates = readdirSync("/proc")
  .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
  .filter((p) => read(`/proc/${p}/environ`).includes(marker))
  .filter((p) => {
    const cmd = read(`/proc/${p}/cmdline`).split("\0").join(" ");
    return new RegExp(pattern).test(cmd) && !cmd.includes("patchwork.js") && !cmd.includes("heap-probe");
  })
  .map(Number)
  .sort((a, b) => rssOf(b) - rssOf(a));
const pid = candidates[0];
if (!pid) throw new Error(`heap-probe: no process matching ${pattern} in this run`);

process.kill(pid, "SIGUSR1");
let target;
for (let i = 0; i < 100 && !target; i++) {
  await new Promise((r) => setTimeout(r, 100));
  target = await fetch("http://127.0.0.1:9229/json/list").then((r) => r.json(), () => undefined);
}
if (!target?.[0]) throw new Error("heap-probe: the inspector did not open on 127.0.0.1:9229");
const ws = new WebSocket(target[0].webSocketDebuggerUrl);
await new Promise((resolve, reject) => {
  ws.addEventListener("open", resolve);
  ws.addEventListener("error", reject);
});
let id = 0;
const pending = new Map();
ws.addEventListener("message", (m) => {
  const data = JSON.parse(m.data);
  pending.get(data.id)?.(data.result);
});
const call = (method, params = {}) =>
  new Promise((resolve) => {
    pending.set(++id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });
const seen = await call("Runtime.evaluate", { expression: "process.pid", returnByValue: true });
if (seen?.result?.value !== pid) throw new Error(`heap-probe: port 9229 belongs to pid ${seen?.result?.value}, not ${pid}`);
await call("HeapProfiler.collectGarbage");
await call("HeapProfiler.collectGarbage");
const heap = await call("Runtime.getHeapUsage");
ws.close();
const sockets = readdirSync(`/proc/${pid}/fd`).filter((fd) => {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:");
  } catch {
    return false;
  }
}).length;
const mb = (n) => (n / 1048576).toFixed(1);
console.log(`heap-probe ${label} pid=${pid} heapMB=${mb(heap.usedSize)} rssMB=${mb(rssOf(pid))} sockets=${sockets} at=${startedAt}`);
process.exit(0);

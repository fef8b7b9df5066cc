#!/usr/bin/env node
// `npm run bench:fleet`: the fleet (docs/fleet.md) on this machine, through a redis-server of
// its own (127.0.0.1, a free port, a temporary folder, no snapshot):
//   1. overhead per task through the queue against local threads: N trivial tasks (no think),
//      `patchwork run` without and with `--queue` (one `patchwork worker`, concurrency 8);
//      (queued − local) / N. Goal: ≤ 5 ms a task.
//   2. throughput with 1, 2 and 3 `patchwork worker` processes (concurrency 8 each) for M tasks
//      whose think takes 2 s at the scripted agent: tasks per second, and against 1 worker.
//   3. the fleet's `--rate` limiter (RedisRateLimiter, one Lua script a think start): K takes
//      one after another and K from 8 callers at once, the time per take.
// `--smoke`: N = 100, M = 8, 1 and 2 workers. Needs redis-server (Debian's); says so and exits 0 without.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const bin = join(repo, "packages", "cli", "bin", "patchwork.js");
const testAgent = join(repo, "packages", "agent", "bin", "patchwork-test-agent.js");
const smoke = process.argv.includes("--smoke");
const N = smoke ? 100 : 1000;
const M = smoke ? 8 : 48;
const WORKER_COUNTS = smoke ? [1, 2] : [1, 2, 3];

if (spawnSync("redis-server", ["--version"]).status !== 0) {
  console.log("fleet benchmark skipped: redis-server not found (apt-get install redis-server)");
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "pw-bench-fleet-"));
const port = await freePort();
const url = `redis://127.0.0.1:${port}`;
const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "inherit"] });
await new Promise((resolve, reject) => {
  let text = "";
  redis.stdout.on("data", (c) => {
    text += c;
    if (text.includes("Ready to accept connections")) resolve();
  });
  redis.once("exit", (code) => reject(new Error(`redis-server exited (${code})`)));
});

const env = { ...process.env, PATCHWORK_AGENT: "", PATCHWORK_QUEUE: "" };
try {
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} (a shared machine: figures vary with it)`);
  // 1. Overhead per task.
  writeFileSync(join(dir, "trivial.pw"), program(N, "n * 2", false));
  const local = await timed(["run", "trivial.pw", "--max-workers", "8"]);
  const w = await startWorker([]);
  const queued = await timed(["run", "trivial.pw", "--max-workers", "8", "--queue", url]);
  await stopWorker(w);
  console.log(`${N} trivial tasks: local threads ${local.toFixed(0)} ms, queue with 1 worker ${queued.toFixed(0)} ms`);
  console.log(`overhead per task through the queue: ${((queued - local) / N).toFixed(2)} ms (goal ≤ 5 ms)`);

  // 2. Throughput for 2-s thinks.
  writeFileSync(join(dir, "slow.pw"), program(M, "think { Summarize document ${n}. }", true));
  const script = join(dir, "agent.json");
  writeFileSync(script, JSON.stringify({ fallback: { steps: [{ sleep: 2000 }, { reply: "done" }] } }));
  const agent = `"${process.execPath}" "${testAgent}" "${script}"`;
  let base = 0;
  for (const count of WORKER_COUNTS) {
    const workers = await Promise.all(Array.from({ length: count }, () => startWorker(["--agent", agent])));
    const ms = await timed(["run", "slow.pw", "--max-workers", "64", "--queue", url]);
    await Promise.all(workers.map(stopWorker));
    const rate = M / (ms / 1000);
    base ||= rate;
    console.log(`${count} worker${count > 1 ? "s" : " "}: ${M} tasks of a 2-s think in ${(ms / 1000).toFixed(1)} s: ${rate.toFixed(2)} tasks/s (${(rate / base).toFixed(2)}× 1 worker)`);
  }

  // 3. The rate limiter's cost per think start.
  const { RedisRateLimiter } = await import(join(repo, "packages", "fleet", "dist", "index.js"));
  const { Redis } = await import("ioredis");
  const client = new Redis(url);
  const K = smoke ? 500 : 5000;
  const limiter = new RedisRateLimiter(client, "bench", 1e9, 60_000);
  await limiter.take();
  let t0 = performance.now();
  for (let i = 0; i < K; i++) await limiter.take();
  const serial = (performance.now() - t0) / K;
  t0 = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = 0; i < K / 8; i++) await limiter.take();
  }));
  const parallel = (performance.now() - t0) / K;
  client.disconnect();
  console.log(`--rate limiter in Redis: ${(serial * 1000).toFixed(0)} µs a take one after another, ${(parallel * 1000).toFixed(0)} µs a take with 8 callers (${K} takes)`);
} finally {
  redis.kill("SIGTERM");
  await new Promise((r) => redis.once("exit", r));
  rmSync(dir, { recursive: true, force: true });
}

function program(n, body, thinks) {
  return `worker task(n: number) {
    ${thinks ? `var a = ${body}\n    a` : body}
}
var tasks = []
for i in 1...${n} {
    tasks.push(task(i))
}
var results = self.delegate(tasks).await
print(results.length)
`;
}

async function timed(args) {
  const start = performance.now();
  const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  let out = "";
  child.stderr.on("data", (c) => (err += c));
  child.stdout.on("data", (c) => (out += c));
  const code = await new Promise((r) => child.once("close", r));
  if (code !== 0) throw new Error(`patchwork ${args.join(" ")} exited ${code}: ${err}`);
  if (!/^\d+$/m.test(out)) throw new Error(`unexpected output: ${out}`);
  return performance.now() - start;
}

async function startWorker(extra) {
  const child = spawn(process.execPath, [bin, "worker", "--queue", url, "--concurrency", "8", ...(extra.length ? extra : ["--no-agent"])], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (c) => {
      err += c;
      if (err.includes("takes tasks")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
  return child;
}

async function stopWorker(child) {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

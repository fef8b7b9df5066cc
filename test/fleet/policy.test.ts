// The run's batch policy on the fleet: `patchwork worker` asks a think that failed transiently
// again (the run's --retries, carried in its jobs), and `--rate` holds across all the run's
// machines, counted once in Redis per run.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RedisRateLimiter } from "@patchwork/fleet";
import { agentCommand, patchwork, promptsAsked, scratchDir, startRedis, startWorker, type RedisServer } from "./helpers.js";

/** `n` tasks of two thinks each. */
function batchProgram(n: number): string {
  return `worker summarize(n: number) {
    var a = think { Summarize document \${n}. }
    var b = think { Review the summary of document \${n}: \${a} }
    "\${n}: \${b}"
}

var tasks = []
for i in 1...${n} {
    tasks.push(summarize(i))
}
for r in self.delegate(tasks).await {
    print(r)
}
`;
}

function batchReplies(n: number, sleepMs = 0) {
  const entries: { match: string; reply: string; sleepMs?: number }[] = [];
  for (let i = 1; i <= n; i++) {
    entries.push({ match: `Summarize document ${i}.`, reply: `S${i}`, sleepMs });
    entries.push({ match: `Review the summary of document ${i}:`, reply: `R${i}`, sleepMs });
  }
  return entries;
}

const expected = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}: R${i + 1}`).join("\n") + "\n";

/** When the agent was asked each prompt (ms since the epoch). */
function promptTimes(log: string): number[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("prompt at: "))
    .map((l) => Number(l.slice("prompt at: ".length)));
}

let redis: RedisServer;
beforeEach(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await redis?.stop();
});

describe("the run's batch policy on the fleet", () => {
  it("--rate holds across all the workers: never more thinks started in any window than the rate allows", async () => {
    const dir = scratchDir();
    const n = 6;
    writeFileSync(join(dir, "batch.pw"), batchProgram(n));
    const agents = [0, 1, 2].map((i) => agentCommand(dir, `worker${i}`, batchReplies(n), { logPromptTimes: true }));
    const workers = await Promise.all(agents.map((a) => startWorker(redis.url, { agent: a.command, concurrency: 2, cwd: dir })));
    try {
      const coordinator = agentCommand(dir, "coordinator", []);
      const run = await patchwork(["run", "batch.pw", "--agent", coordinator.command, "--queue", redis.url, "--rate", "2/s"], { cwd: dir });
      expect(run.stderr).not.toMatch(/error/);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(expected(n));
      const times = agents.flatMap((a) => promptTimes(a.log)).sort((a, b) => a - b);
      expect(times).toHaveLength(2 * n);
      // More than one machine asked (else this would test one process's limit).
      expect(agents.filter((a) => promptTimes(a.log).length > 0).length).toBeGreaterThan(1);
      // At most 2 in any second: the third start after any one comes a second later (less the
      // few milliseconds between the governor's admission and the prompt reaching the agent).
      const gaps = times.slice(2).map((t, i) => t - times[i]!);
      expect(Math.min(...gaps)).toBeGreaterThan(1000 - 400);
      // And over the whole run: 12 starts at 2 a second take 5 seconds from the first.
      expect(times[times.length - 1]! - times[0]!).toBeGreaterThan(5000 - 400);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("a worker's think that fails transiently is asked again (the run's --retries, its delay) and the run finishes", async () => {
    const dir = scratchDir();
    const n = 4;
    writeFileSync(join(dir, "batch.pw"), batchProgram(n));
    const error = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    const agent = agentCommand(dir, "worker", batchReplies(n), { outage: { prompts: 3, error } });
    const worker = await startWorker(redis.url, { agent: agent.command, concurrency: 2, cwd: dir });
    try {
      const coordinator = agentCommand(dir, "coordinator", []);
      const run = await patchwork(["run", "batch.pw", "--agent", coordinator.command, "--queue", redis.url, "--retries", "5", "--verbose"], {
        cwd: dir,
        env: { PATCHWORK_RETRY_DELAY_MS: "50" },
      });
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(expected(n));
      // The three failed prompts were asked again, at the worker.
      expect(promptsAsked(agent.log)).toHaveLength(2 * n + 3);
      // Each retry reached the run (its progress, --verbose, its trace), with the run's delay.
      const retries = run.stderr.split("\n").filter((l) => /retrying think at batch\.pw:\d+ in .* \([12]\/5\): 529 overloaded/.test(l));
      expect(retries, run.stderr).toHaveLength(3);
      // The run's summary counts the workers' thinks and retries.
      expect(run.stderr).toMatch(/^patchwork: 8 thinks asked, 0 replayed, 3 retried, 0 failed/m);
    } finally {
      await worker.stop();
    }
  });

  it("--retries 0 on the run: the worker asks once, the run fails with the agent's error", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "batch.pw"), batchProgram(1));
    const agent = agentCommand(dir, "worker", batchReplies(1), { outage: { prompts: 1, error: "API Error: 529 Overloaded" } });
    const worker = await startWorker(redis.url, { agent: agent.command, concurrency: 1, cwd: dir });
    try {
      const coordinator = agentCommand(dir, "coordinator", []);
      const run = await patchwork(["run", "batch.pw", "--agent", coordinator.command, "--queue", redis.url, "--retries", "0"], { cwd: dir });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/529 Overloaded/);
      expect(promptsAsked(agent.log)).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it("the limiter in Redis: one count for a run's machines, a count of its own for each run", async () => {
    const client = new Redis(redis.url);
    try {
      const [a1, a2] = [new RedisRateLimiter(client, "run-a", 3, 60_000), new RedisRateLimiter(client, "run-a", 3, 60_000)];
      const b = new RedisRateLimiter(client, "run-b", 3, 60_000);
      const taken = [await a1.take(), await a2.take(), await a1.take(), await a2.take(), await a1.take()];
      expect(taken.slice(0, 3)).toEqual([0, 0, 0]);
      expect(taken[3]).toBeGreaterThan(59_000);
      expect(taken[4]).toBeGreaterThan(59_000);
      expect(await b.take()).toBe(0);
      // Two machines asking at once never both get the last place.
      const c = [0, 1, 2, 3, 4, 5].map(() => new RedisRateLimiter(client, "run-c", 2, 60_000));
      const answers = await Promise.all(c.map((l) => l.take()));
      expect(answers.filter((x) => x === 0)).toHaveLength(2);
    } finally {
      client.disconnect();
    }
  });
});

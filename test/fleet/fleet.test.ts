// The fleet end to end: `patchwork run --queue` with `patchwork worker` processes through a
// real Redis, the scripted ACP agent answering: the same output and cassette as without the
// queue, nothing lost and no answered think asked again when workers are SIGKILLed, a clear
// error when Redis does not answer, runs that share a Redis kept apart, a task whose sources
// differ refused, and cancel reaching the workers.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentCommand, freePort, killWorker, patchwork, promptsAsked, scratchDir, startRedis, startWorker, type RedisServer, type WorkerProcess } from "./helpers.js";

/** A batch of `n` tasks, each with two thinks (the second uses the first's answer). */
function batchProgram(n: number, label = "document"): string {
  return `worker summarize(n: number) {
    print("task \${n} starts")
    var a = think { Summarize ${label} \${n}. }
    var b = think { Review the summary of ${label} \${n}: \${a} }
    log("task \${n} done")
    "\${n}: \${b}"
}

var tasks = []
for i in 1...${n} {
    tasks.push(summarize(i))
}
var results = self.delegate(tasks).await
for r in results {
    print(r)
}
`;
}

/** Replies for the batch: distinct per task. */
function batchReplies(n: number, label = "document", sleepMs = 0) {
  const entries: { match: string; reply: string; sleepMs?: number }[] = [];
  for (let i = 1; i <= n; i++) {
    entries.push({ match: `Summarize ${label} ${i}.`, reply: `S${i}`, sleepMs });
    entries.push({ match: `Review the summary of ${label} ${i}:`, reply: `R${i}`, sleepMs });
  }
  return entries;
}

/** The lines of an output, sorted (tasks run side by side: their lines interleave). */
const sortedLines = (text: string) => text.split("\n").filter(Boolean).sort();
/** The result lines (printed in order after the join). */
const resultLines = (text: string) => text.split("\n").filter((l) => /^\d+: /.test(l));

interface CassetteThink {
  think: number;
  worker?: string;
  prompt: string;
  turns: unknown[];
  at: string;
}
function cassetteThinks(path: string): CassetteThink[] {
  const text = readFileSync(path, "utf8");
  const thinks: CassetteThink[] = [];
  // A cassette is JSON, or a journal of JSON lines (one entry a line after the header).
  try {
    thinks.push(...(JSON.parse(text) as { thinks: CassetteThink[] }).thinks);
  } catch {
    for (const line of text.split("\n").filter(Boolean)) {
      const value = JSON.parse(line) as CassetteThink & { version?: number };
      if (value.prompt !== undefined) thinks.push(value);
    }
  }
  return thinks.sort((a, b) => (a.worker ?? "").localeCompare(b.worker ?? "", "en", { numeric: true }) || a.think - b.think);
}

// A Redis of its own for each test: nothing a test leaves behind reaches another.
let redis: RedisServer;
beforeEach(async () => {
  redis = await startRedis({ appendOnly: true });
});
afterEach(async () => {
  await redis?.stop();
});

describe("patchwork run --queue with patchwork worker processes", () => {
  it("runs a 200-task batch through 3 workers to the same output and cassette as on local threads", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "batch.pw"), batchProgram(200));
    const replies = batchReplies(200);
    const local = agentCommand(dir, "local", replies);
    const localRun = await patchwork(["run", "batch.pw", "--agent", local.command, "--record", "local.cassette", "--max-workers", "16"], { cwd: dir });
    expect(localRun.stderr).not.toMatch(/error/);
    expect(localRun.status).toBe(0);

    const coordinator = agentCommand(dir, "coordinator", []);
    const agents = [0, 1, 2].map((i) => agentCommand(dir, `worker${i}`, replies));
    const workers = await Promise.all(agents.map((a) => startWorker(redis.url, { agent: a.command, concurrency: 6, cwd: dir })));
    try {
      const queued = await patchwork(["run", "batch.pw", "--agent", coordinator.command, "--record", "queued.cassette", "--queue", redis.url, "--max-workers", "16"], { cwd: dir });
      expect(queued.stderr).not.toMatch(/error/);
      expect(queued.status).toBe(0);
      expect(resultLines(queued.stdout)).toEqual(resultLines(localRun.stdout));
      expect(resultLines(queued.stdout)).toHaveLength(200);
      expect(sortedLines(queued.stdout)).toEqual(sortedLines(localRun.stdout));
      // The same stderr, the cost summary too (the workers' thinks counted), but for its wall time.
      const noWall = (text: string) => sortedLines(text).map((l) => l.replace(/ · [\d.]+ (s|min)$/, ""));
      expect(noWall(queued.stderr)).toEqual(noWall(localRun.stderr));
      expect(queued.stderr).toMatch(/^patchwork: 400 thinks asked, 0 replayed, 0 retried, 0 failed/m);
      expect(cassetteThinks(join(dir, "queued.cassette"))).toEqual(cassetteThinks(join(dir, "local.cassette")));
      // Every worker took tasks; every think was asked once, at a worker's agent.
      const asked = agents.map((a) => promptsAsked(a.log));
      for (const prompts of asked) expect(prompts.length).toBeGreaterThan(0);
      expect(asked.flat()).toHaveLength(400);
      expect(new Set(asked.flat()).size).toBe(400);
      expect(promptsAsked(coordinator.log)).toEqual([]);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("loses nothing when workers are SIGKILLed mid-task: another takes the job, replays its answered thinks and asks only the rest", async () => {
    const dir = scratchDir();
    const n = 60;
    writeFileSync(join(dir, "batch.pw"), batchProgram(n));
    const replies = batchReplies(n, "document", 400);
    const survivor = agentCommand(dir, "survivor", replies);
    const workers: { w: WorkerProcess; log: string; concurrency: number }[] = [];
    const start = async (name: string) => {
      const a = agentCommand(dir, name, replies);
      workers.push({ w: await startWorker(redis.url, { agent: a.command, concurrency: 3, cwd: dir }), log: a.log, concurrency: 3 });
    };
    await start("victim0");
    workers.push({ w: await startWorker(redis.url, { agent: survivor.command, concurrency: 3, cwd: dir }), log: survivor.log, concurrency: 3 });
    const coordinator = agentCommand(dir, "coordinator", []);
    const kills = 3;
    let killed = 0;
    const run = patchwork(["run", "batch.pw", "--agent", coordinator.command, "--queue", redis.url, "--max-workers", "8"], { cwd: dir });
    try {
      // Kill the first worker at a random moment once it has asked a few thinks (its tasks are
      // then under way: some answered, some in flight), start another, kill it too…
      let ended = false;
      void run.then(() => (ended = true));
      for (let k = 0; k < kills; k++) {
        const victim = workers[workers.length === 2 ? 0 : workers.length - 1]!;
        const asked = 2 + Math.floor(Math.random() * 6);
        while (promptsAsked(victim.log).length < asked && !ended) await new Promise((r) => setTimeout(r, 50));
        if (ended) break;
        killed++;
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
        await killWorker(victim.w);
        await start(`victim${k + 1}`);
      }
      const result = await run;
      expect(result.stderr).not.toMatch(/error/);
      expect(result.status).toBe(0);
      expect(resultLines(result.stdout)).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}: R${i + 1}`));
      // Each task's lines came once (a retried task's output is not given twice).
      expect(result.stdout.split("\n").filter((l) => l.endsWith(" starts"))).toHaveLength(n);
      const asked = workers.flatMap((x) => promptsAsked(x.log));
      const counts = new Map<string, number>();
      for (const p of asked) counts.set(p, (counts.get(p) ?? 0) + 1);
      // Every think asked; a think asked twice only if it was in flight on a killed worker (at most its concurrency per kill).
      expect(counts.size).toBe(2 * n);
      const twice = [...counts.values()].filter((c) => c > 1).reduce((s, c) => s + c - 1, 0);
      expect(killed).toBeGreaterThan(0);
      expect(twice).toBeLessThanOrEqual(killed * 3);
      // The kills did land mid-task: some task was taken again and replayed thinks answered before.
      expect(workers.map((x) => x.w.stderr()).join("")).toMatch(/done summarize#\d+ in \d+ ms, [12] thinks replayed/);
    } finally {
      await Promise.all(workers.map((x) => x.w.stop()));
    }
  });

  it("resumes a run whose coordinator was SIGKILLed: --resume with the same --queue finishes it, asking no answered think again", async () => {
    const dir = scratchDir();
    const n = 30;
    writeFileSync(join(dir, "batch.pw"), batchProgram(n));
    const replies = batchReplies(n, "document", 300);
    const agents = [0, 1].map((i) => agentCommand(dir, `w${i}`, replies));
    const workers = await Promise.all(agents.map((a) => startWorker(redis.url, { agent: a.command, concurrency: 3, cwd: dir })));
    const coordinator = agentCommand(dir, "coordinator", []);
    try {
      let child: import("node:child_process").ChildProcess | undefined;
      const first = patchwork(["run", "batch.pw", "--agent", coordinator.command, "--record", "run.cassette", "--queue", redis.url], { cwd: dir, onStart: (c) => (child = c) });
      // Killed once a third of the thinks have been asked.
      while (agents.flatMap((a) => promptsAsked(a.log)).length < (2 * n) / 3) await new Promise((r) => setTimeout(r, 50));
      child!.kill("SIGKILL");
      expect((await first).status).toBe(null);
      const before = agents.flatMap((a) => promptsAsked(a.log)).length;
      const resumed = await patchwork(["run", "batch.pw", "--agent", coordinator.command, "--resume", "run.cassette", "--queue", redis.url], { cwd: dir });
      expect(resumed.stderr).not.toMatch(/error/);
      expect(resumed.status).toBe(0);
      expect(resultLines(resumed.stdout)).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}: R${i + 1}`));
      // Every think asked; twice only if in flight when the coordinator died (the old epoch's tasks are stopped).
      const asked = agents.flatMap((a) => promptsAsked(a.log));
      const counts = new Map<string, number>();
      for (const p of asked) counts.set(p, (counts.get(p) ?? 0) + 1);
      expect(counts.size).toBe(2 * n);
      const twice = [...counts.values()].filter((c) => c > 1).reduce((s, c) => s + c - 1, 0);
      expect(before).toBeGreaterThan(0);
      expect(twice).toBeLessThanOrEqual(6);
      expect(cassetteThinks(join(dir, "run.cassette"))).toHaveLength(2 * n);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("a worker stopped twice (SIGTERM, SIGTERM) hands its running tasks back: another worker finishes them", async () => {
    const dir = scratchDir();
    const n = 6;
    writeFileSync(join(dir, "batch.pw"), batchProgram(n));
    const replies = batchReplies(n, "document", 1500);
    const first = agentCommand(dir, "first", replies);
    const leaving = await startWorker(redis.url, { agent: first.command, concurrency: 6, cwd: dir });
    const run = patchwork(["run", "batch.pw", "--queue", redis.url], { cwd: dir });
    while (promptsAsked(first.log).length < n) await new Promise((r) => setTimeout(r, 50));
    leaving.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    leaving.child.kill("SIGTERM");
    expect(await leaving.stop()).toBe(0);
    expect(leaving.stderr()).toMatch(/handed back summarize#/);
    const second = agentCommand(dir, "second", replies);
    const staying = await startWorker(redis.url, { agent: second.command, concurrency: 6, cwd: dir });
    try {
      const result = await run;
      expect(result.status).toBe(0);
      expect(resultLines(result.stdout)).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}: R${i + 1}`));
      expect(result.stdout.split("\n").filter((l) => l.endsWith(" starts"))).toHaveLength(n);
      // The first think of each task had been asked of the first worker's agent: the second asked the rest.
      expect(promptsAsked(second.log).length).toBeGreaterThan(0);
    } finally {
      await staying.stop();
    }
  });

  it("carries mailbox messages between tasks on different workers and the run, first come first served, and apart per run", async () => {
    const dir = scratchDir();
    cpSync(join(import.meta.dirname, "..", "..", "examples", "workers", "mailbox.pw"), join(dir, "mailbox.pw"));
    writeFileSync(
      join(dir, "relay.pw"),
      `worker relay(n: number) {
    var box = self.session.mailbox.relay
    var got = []
    for i in 1...n {
        got.push(box.receive(20000))
    }
    got
}
var box = self.session.mailbox.relay
box.send("from the run")
var [a] = self.delegate([relay(1)]).await
print(a)
`,
    );
    // One task at a time on each worker: the sender and the receiver are on different machines.
    const workers = await Promise.all([0, 1].map(() => startWorker(redis.url, { concurrency: 1, cwd: dir })));
    try {
      const local = await patchwork(["run", "mailbox.pw", "test", "5"], { cwd: dir });
      const [queued, second] = await Promise.all([
        patchwork(["run", "mailbox.pw", "test", "5", "--queue", redis.url], { cwd: dir }),
        patchwork(["run", "mailbox.pw", "test", "4", "--queue", redis.url], { cwd: dir }),
      ]);
      expect(queued.stderr).not.toMatch(/error/);
      expect(queued.status).toBe(0);
      expect(sortedLines(queued.stdout)).toEqual(sortedLines(local.stdout));
      expect(queued.stdout).toContain("5 messages received, values summing to 150");
      expect(second.stdout).toContain("4 messages received, values summing to 100");
      expect(workers.every((w) => /done (sender|receiver)#/.test(w.stderr()))).toBe(true);
      // The run's own send reaches a task on a worker.
      const relay = await patchwork(["run", "relay.pw", "--queue", redis.url], { cwd: dir });
      expect(relay.stderr).toBe("");
      expect(relay.status).toBe(0);
      expect(relay.stdout).toContain("from the run");
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("goes on when Redis restarts mid-run with its append-only file", async () => {
    const dir = scratchDir();
    const n = 12;
    writeFileSync(join(dir, "batch.pw"), batchProgram(n));
    const a = agentCommand(dir, "w", batchReplies(n, "document", 1000));
    const worker = await startWorker(redis.url, { agent: a.command, concurrency: 4, cwd: dir });
    try {
      const run = patchwork(["run", "batch.pw", "--queue", redis.url, "--timeout", "120"], { cwd: dir });
      while (promptsAsked(a.log).length < 3) await new Promise((r) => setTimeout(r, 50));
      await redis.restart(1000);
      const result = await run;
      expect(result.stderr).not.toMatch(/error/);
      expect(result.status).toBe(0);
      expect(resultLines(result.stdout)).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}: R${i + 1}`));
    } finally {
      await worker.stop();
    }
  });

  it("goes on when Redis restarts without its data: the run adds its lost tasks' jobs again", async () => {
    const dir = scratchDir();
    const n = 8;
    writeFileSync(join(dir, "batch.pw"), batchProgram(n));
    const plain = await startRedis({ appendOnly: false });
    const a = agentCommand(dir, "w", batchReplies(n, "document", 1000));
    const worker = await startWorker(plain.url, { agent: a.command, concurrency: 4, cwd: dir });
    try {
      const run = patchwork(["run", "batch.pw", "--queue", plain.url, "--timeout", "120"], { cwd: dir });
      while (promptsAsked(a.log).length < 3) await new Promise((r) => setTimeout(r, 50));
      await plain.restart(500);
      const result = await run;
      expect(result.stderr).not.toMatch(/error/);
      expect(result.status).toBe(0);
      expect(resultLines(result.stdout)).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}: R${i + 1}`));
    } finally {
      await worker.stop();
      await plain.stop();
    }
  });

  it("says that Redis does not answer, exit 2, without a stack (run and worker)", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "batch.pw"), batchProgram(2));
    const port = await freePort();
    const run = await patchwork(["run", "batch.pw", "--queue", `redis://127.0.0.1:${port}`], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`error[PW4061]: the queue's Redis at redis://127.0.0.1:${port} does not answer`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const worker = await patchwork(["worker", "--queue", `redis://127.0.0.1:${port}`], { cwd: dir });
    expect(worker.status).toBe(2);
    expect(worker.stderr).toContain("error[PW4061]");
    const bad = await patchwork(["run", "batch.pw", "--queue", "http://example.invalid/"], { cwd: dir });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("error[PW4060]: --queue takes a redis:// or rediss:// URL");
    // A password is never shown.
    const secret = await patchwork(["run", "batch.pw", "--queue", `redis://user:hunter2@127.0.0.1:${port}/3`], { cwd: dir });
    expect(secret.status).toBe(2);
    expect(secret.stderr).toContain(`redis://user:***@127.0.0.1:${port}/3`);
    expect(secret.stderr).not.toContain("hunter2");
  });

  it("keeps two runs that share one Redis and its workers apart", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "a.pw"), batchProgram(20, "apple"));
    writeFileSync(join(dir, "b.pw"), batchProgram(20, "banana"));
    const replies = [...batchReplies(20, "apple"), ...batchReplies(20, "banana")].map((e) => ({ ...e, reply: `${e.match.includes("apple") ? "A" : "B"}${e.reply}` }));
    const agents = [0, 1].map((i) => agentCommand(dir, `w${i}`, replies));
    const workers = await Promise.all(agents.map((a) => startWorker(redis.url, { agent: a.command, concurrency: 4, cwd: dir })));
    try {
      const [a, b] = await Promise.all(["a.pw", "b.pw"].map((f) => patchwork(["run", f, "--queue", redis.url], { cwd: dir })));
      expect(a!.status).toBe(0);
      expect(b!.status).toBe(0);
      expect(resultLines(a!.stdout)).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}: AR${i + 1}`));
      expect(resultLines(b!.stdout)).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}: BR${i + 1}`));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it("refuses a task whose sources differ on the worker's machine, naming the file", async () => {
    const dir = scratchDir();
    const other = scratchDir();
    writeFileSync(join(dir, "batch.pw"), batchProgram(2));
    writeFileSync(join(other, "batch.pw"), batchProgram(2).replace("starts", "begins"));
    const worker = await startWorker(redis.url, { cwd: other });
    try {
      const run = await patchwork(["run", "batch.pw", "--queue", redis.url], { cwd: dir });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/PW4062\] worker \S+ has another batch\.pw than the run's/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(worker.stderr()).toContain("refused summarize#");
    } finally {
      await worker.stop();
    }
    // The same files: the worker runs them (found under its own --cwd).
    mkdirSync(join(other, "same"));
    cpSync(join(dir, "batch.pw"), join(other, "same", "batch.pw"));
    const same = await startWorker(redis.url, { cwd: join(other, "same") });
    try {
      const run = await patchwork(["run", "batch.pw", "--queue", redis.url], { cwd: dir });
      expect(run.status).toBe(0);
      expect(resultLines(run.stdout)).toHaveLength(2);
    } finally {
      await same.stop();
    }
  });

  it("gives remote tasks the run's self.session id, and stops the siblings of a task that fails within seconds", async () => {
    const dir = scratchDir();
    writeFileSync(
      join(dir, "session.pw"),
      `worker ident(n: number) {
    "\${self.session.id} \${self.session.timestamp}"
}
worker slow(n: number) {
    think { Wait forever ${"${n}"}. }
}
worker failing() {
    $ sleep 2
    throw "broken"
}
var ids = self.delegate([ident(1), ident(2)]).await
print(ids[0] == "\${self.session.id} \${self.session.timestamp}")
print(ids[1] == ids[0])
try {
    self.delegate([slow(1), slow(2), failing()]).await
} catch e {
    print("caught: \${e}")
}
`,
    );
    const a = agentCommand(dir, "w", [{ match: "Wait forever", reply: "never", sleepMs: 120_000 }]);
    const worker = await startWorker(redis.url, { agent: a.command, concurrency: 4, cwd: dir });
    try {
      const run = await patchwork(["run", "session.pw", "--queue", redis.url], { cwd: dir });
      expect(run.stderr).not.toMatch(/error/);
      expect(run.status).toBe(0);
      expect(run.stdout.split("\n").slice(0, 2)).toEqual(["true", "true"]);
      expect(run.stdout).toContain("caught: ");
      expect(run.stdout).toContain("broken");
      expect(run.ms).toBeLessThan(30_000);
      await new Promise((r) => setTimeout(r, 2000));
      expect(worker.stderr().match(/stopped slow#/g)?.length).toBe(2);
      expect(readFileSync(a.log, "utf8").match(/cancel received/g)?.length).toBe(2);
    } finally {
      await worker.stop();
    }
  });

  it("stops the remote tasks within seconds when the run times out, and the workers go on with other runs", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "slow.pw"), batchProgram(4, "slowly"));
    writeFileSync(join(dir, "quick.pw"), batchProgram(2, "quickly"));
    const a = agentCommand(dir, "w", [...batchReplies(4, "slowly", 120_000), ...batchReplies(2, "quickly")]);
    const worker = await startWorker(redis.url, { agent: a.command, concurrency: 4, cwd: dir });
    try {
      const slow = await patchwork(["run", "slow.pw", "--queue", redis.url, "--timeout", "4"], { cwd: dir });
      expect(slow.status).toBe(1);
      expect(slow.stderr).toContain("PW4006");
      expect(slow.ms).toBeLessThan(20_000);
      // The worker's agent was told to cancel each think, and the worker stopped the tasks.
      await new Promise((r) => setTimeout(r, 2000));
      expect(worker.stderr().match(/stopped summarize#/g)?.length).toBe(4);
      expect(readFileSync(a.log, "utf8").match(/cancel received/g)?.length).toBe(4);
      const quick = await patchwork(["run", "quick.pw", "--queue", redis.url], { cwd: dir });
      expect(quick.status).toBe(0);
      expect(resultLines(quick.stdout)).toEqual(["1: R1", "2: R2"]);
    } finally {
      await worker.stop();
    }
  });
});

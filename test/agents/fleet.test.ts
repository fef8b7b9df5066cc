/**
 * The fleet with real Claude Code (issue 37): a redis-server of the test's own on 127.0.0.1,
 * two `patchwork worker --queue … --agent claude` processes, each with its own HOME and its own
 * fake Anthropic API (as on two machines), and `patchwork run batch.pw --queue … --agent claude`
 * of 20 worker tasks, a think each. The run prints every result in order, both workers take
 * tasks, each of the 20 thinks reaches a fake model once and none reaches the coordinator's,
 * and the output is the same as the same run's without --queue (local threads, one machine).
 * The redis-server and `patchwork worker` helpers are the fleet suite's (test/fleet/helpers.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { patchwork, startRedis, startWorker, type WorkerProcess } from "../fleet/helpers.js";
import type { FakeApi, Rule } from "./fakes/server.js";
import { baseEnv, figure, installed, leftoversOf, type RunDirs } from "./harness.js";
import { claude } from "./setups.js";

const TASKS = 20;

const BATCH = `worker categorize(n: number) {
    var r = think {
        Categorize document \${n} in one word.
    }
    return "doc\${n}: \${r}"
}

var tasks = []
for n in 1...${TASKS} {
    tasks.push(categorize(n))
}
for line in self.delegate(tasks).await {
    print(line)
}
`;
const EXPECTED = Array.from({ length: TASKS }, (_, i) => `doc${i + 1}: kind${i + 1}`).join("\n") + "\n";

/** Each document's own answer (its number in it): a result given to the wrong task shows. */
const RULES: Rule[] = [
  {
    when: /Categorize document \d+ in one word/,
    delayMs: 500,
    reply: (request) => ({ text: `kind${/Categorize document (\d+) in one word/.exec(request.latest)![1]}` }),
  },
];

const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;
const runs = installed("claude-agent-acp") && hasRedis;
const why = [installed("claude-agent-acp") ? "" : "claude-agent-acp not installed (npm ci --prefix test/agents)", hasRedis ? "" : "redis-server not installed (apt-get install redis-server)"].filter(Boolean).join("; ");
const title = `Claude Code on a fleet: ${TASKS} worker tasks through Redis and 2 patchwork worker processes`;

/** One machine of the fleet: a HOME of its own and a fake Anthropic API of its own, in Claude Code's environment. */
async function machine(root: string, name: string, work: string, marker: string): Promise<{ fake: FakeApi; env: Record<string, string> }> {
  const dirs: RunDirs = { root, home: join(root, name), work };
  mkdirSync(dirs.home, { recursive: true });
  const fake = await claude.startFake(RULES);
  return { fake, env: { ...baseEnv(dirs, marker), ...claude.env(fake, dirs) } };
}

/** `patchwork ARGS…` in `cwd` with `env`, SIGKILLed after 90 s. */
async function bounded(args: string[], cwd: string, env: Record<string, string>) {
  let timer: NodeJS.Timeout | undefined;
  const result = await patchwork(args, { cwd, baseEnv: env, onStart: (child) => (timer = setTimeout(() => child.kill("SIGKILL"), 90_000)) });
  clearTimeout(timer);
  return result;
}

it.runIf(runs)(runs ? title : `${title} (skipped: ${why})`, async () => {
  const load = loadavg()[0]!.toFixed(1);
  const root = mkdtempSync(join(tmpdir(), "pw-agents-fleet-"));
  const work = join(root, "work");
  mkdirSync(work);
  writeFileSync(join(work, "batch.pw"), BATCH);
  const marker = randomBytes(8).toString("hex");
  const redis = await startRedis();
  const machines = await Promise.all(["worker1", "worker2", "coordinator", "local"].map((name) => machine(root, name, work, marker)));
  const [, , coordinator, local] = machines;
  const workers: WorkerProcess[] = [];
  try {
    // The same run without the queue (on local threads): the output to match.
    const alone = await bounded(["run", "batch.pw", "--agent", claude.agent, "--max-workers", "6"], work, local!.env);
    expect(alone.status, alone.stderr).toBe(0);
    expect(alone.stdout).toBe(EXPECTED);
    expect(local!.fake.modelRequests().filter((q) => !q.model?.side)).toHaveLength(TASKS);
    // The stalled-job check at its default (30 s): a loaded machine must not give a task to a second worker.
    for (const m of machines.slice(0, 2)) {
      workers.push(await startWorker(redis.url, { agent: claude.agent, concurrency: 3, cwd: work, baseEnv: m.env, env: { PATCHWORK_FLEET_LOCK_MS: "30000" } }));
    }
    const run = await bounded(["run", "batch.pw", "--agent", claude.agent, "--queue", redis.url, "--max-workers", "6"], work, coordinator!.env);
    const logs = () => `--- stderr\n${run.stderr}\n${workers.map((w, i) => `--- worker ${i + 1}\n${w.stderr()}`).join("\n")}`;
    expect(run.status, logs()).toBe(0);
    expect(run.stdout).toBe(alone.stdout);
    expect(run.stderr).toMatch(new RegExp(`^patchwork: ${TASKS} thinks asked, 0 replayed, 0 retried, 0 failed`, "m"));
    // Both workers took tasks (a line each), every task once in all.
    const done = workers.map((w) => [...w.stderr().matchAll(/^\[worker\] done (categorize#\d+) in \d+ ms/gm)].map((m) => m[1]!));
    for (const d of done) expect(d.length, logs()).toBeGreaterThan(0);
    expect(new Set(done.flat()).size).toBe(TASKS);
    expect(done.flat()).toHaveLength(TASKS);
    // Each think reached a worker's model once, none reached the coordinator's; each worker's
    // model saw as many turns as the worker ran tasks.
    const turns = machines.slice(0, 3).map((m) => m.fake.modelRequests().filter((q) => !q.model?.side).map((q) => q.model!.latest));
    expect(turns[2]).toEqual([]);
    expect(turns.slice(0, 2).map((t) => t.length)).toEqual(done.map((d) => d.length));
    const asked = turns.flat().map((latest) => /Categorize document (\d+) in one word/.exec(latest)?.[1]);
    expect(asked.sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: TASKS }, (_, i) => String(i + 1)));
    const tag = `claude fleet, ${TASKS} tasks, 2 workers × 3`;
    figure(tag, "wall of the run through the queue (s)", (run.ms / 1000).toFixed(1));
    figure(tag, "wall of the same run on local threads, --max-workers 6 (s)", (alone.ms / 1000).toFixed(1));
    figure(tag, "tasks per worker", done.map((d) => d.length).join(" + "));
    figure(tag, "load average before / after (2 cores)", `${load} / ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    const codes = await Promise.all(workers.map((w) => w.stop()));
    const left = await leftoversOf(marker);
    await redis.stop();
    await Promise.all(machines.map((m) => m.fake.close()));
    rmSync(root, { recursive: true, force: true });
    expect(codes).toEqual(workers.map(() => 0));
    // The workers' Claude Code processes ended with them.
    expect(left).toEqual([]);
  }
}, 240_000);

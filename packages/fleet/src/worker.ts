/**
 * `patchwork worker --queue URL`: a long-running process that takes the fleet's task jobs
 * (BullMQ) and runs each as a run of one task (`runWithAgent({task})`) with this process's agent,
 * reporting its output, events and end on its run's Redis stream in order. Each think's
 * cassette entry goes to the task's journal in Redis as soon as the think ends; a job taken
 * again (its first worker died: BullMQ's stalled-job check) replays those and asks only the rest.
 * Its thinks run under their run's batch policy (its `--retries` and `--rate`, carried in the
 * job: policies.ts).
 */
import { randomBytes } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { WaitingError, Worker, type ConnectionOptions, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { CassetteThink, PwEvent } from "@patchwork/interpreter";
import { TASKS_PER_THREAD, TaskHost, type AsyncAgent, type Classify, type RootEnd, type RunEvent } from "@patchwork/agent";
import { parse } from "@patchwork/parser";
import { checkReachable, redisOf } from "./connect.js";
import { TaskJournal } from "./journal.js";
import { RedisMailboxes } from "./mailboxes.js";
import { RunPolicies } from "./policies.js";
import { CANCEL_CHANNEL, PREFIX, QUEUE_NAME, cancelledKey, epochKey, journalKey, mailboxKey, mailboxScope, mailboxesKey, reportsKey, type CancelMessage, type TaskJob, type TaskReport } from "./protocol.js";
import { checkSources, localFile, localPath } from "./sources.js";
import { FleetError, type QueueAddress } from "./url.js";

export interface FleetWorkerOptions {
  address: QueueAddress;
  /** Where the project's files are (task files are named relative to it). */
  cwd: string;
  /** Thinks go to it (shared by this process's tasks); null: no agent (thinks evaluate to their prompt). */
  agent: AsyncAgent | null;
  /** Tasks at once in this process. */
  concurrency: number;
  /** One line per task (and about the process). */
  log: (line: string) => void;
  /** Which of the agent's failures are transient (its profile's rule; default the generic one). */
  classify?: Classify;
  /** How long a job's lock lasts without renewal: a dead worker's tasks go to another after about this (default 30 s). */
  lockMs?: number;
}

/** A task running here. */
interface Running {
  job: TaskJob;
  controller: AbortController;
  /** Stopped to be handed back (the worker stops now), not cancelled by its run. */
  handBack: boolean;
}

export interface FleetWorker {
  /** Resolves when the worker has stopped. */
  readonly closed: Promise<void>;
  /** Stops taking jobs; `now`: stops the running tasks too (their jobs go to other workers), else lets them finish. */
  stop(now: boolean): Promise<void>;
}

export async function startFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  await checkReachable(options.address);
  const redis = redisOf(options.address);
  redis.on("error", () => undefined);
  const subscriber = redisOf(options.address);
  subscriber.on("error", () => undefined);
  const running = new Set<Running>();
  const host = `${hostname()}:${process.pid}`;
  await listenForCancels(subscriber, running, options.log);
  // One pool of evaluator threads for every task this process runs (threads reused, files parsed once).
  const tasks = taskHostOf(options);
  // Each run's retries and rate around the agent (its jobs carry them).
  const policies = options.agent ? new RunPolicies(redis, options.agent, options.classify, hostWorkers(options) * TASKS_PER_THREAD + 1) : null;
  const lockMs = options.lockMs ?? 30_000;
  const worker = new Worker<TaskJob>(QUEUE_NAME, (job, token) => runJob(job, token, { tasks, policies }, options, redis, running, host), {
    connection: { ...options.address.options, maxRetriesPerRequest: null } as ConnectionOptions,
    prefix: PREFIX,
    concurrency: options.concurrency,
    lockDuration: lockMs,
    stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
    // A task whose machines keep dying is given up after this many.
    maxStalledCount: 20,
  });
  worker.on("error", (error) => options.log(`queue error: ${error.message}`));
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopping: Promise<void> | null = null;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    subscriber.disconnect();
    redis.disconnect();
    void worker.disconnect().catch(() => undefined);
    tasks.close();
    resolveClosed();
  };
  const stop = (now: boolean): Promise<void> => {
    if (now) {
      for (const r of running) {
        r.handBack = true;
        r.controller.abort();
      }
    }
    stopping ??= (async () => {
      await worker.close();
      await bounded(subscriber.quit());
      await bounded(redis.quit());
      finish();
    })();
    // Stopping now does not wait for a Redis that has gone (its connections would retry forever).
    if (now) void bounded(stopping).then(finish);
    return stopping;
  };
  await worker.waitUntilReady();
  options.log(`worker ${host} takes tasks from ${options.address.shown} (${options.concurrency} at once)`);
  return { closed, stop };
}

/** The run's cancels (pub/sub): the running tasks they name stop. */
async function listenForCancels(subscriber: Redis, running: Set<Running>, log: (line: string) => void): Promise<void> {
  await subscriber.subscribe(CANCEL_CHANNEL);
  subscriber.on("message", (_channel: string, text: string) => {
    let message: CancelMessage;
    try {
      message = JSON.parse(text) as CancelMessage;
    } catch {
      return;
    }
    for (const r of running) {
      const epoch = message.others ? r.job.epoch !== message.epoch : r.job.epoch === message.epoch;
      if (r.job.run === message.run && epoch && (message.key === undefined || message.key === r.job.key)) {
        log(`cancel ${r.job.key} (${message.why})`);
        r.controller.abort();
      }
    }
  });
}

/** One pool of evaluator threads for every task this process runs (threads reused, files parsed once). */
function taskHostOf(options: FleetWorkerOptions): TaskHost {
  return new TaskHost({
    cwd: options.cwd,
    agent: options.agent,
    maxWorkers: hostWorkers(options),
    // The tasks' mailboxes on Redis, scoped per run (local-threads.ts names them `SCOPE\0NAME`).
    mailboxes: (changed) => {
      const split = (name: string) => {
        const at = name.indexOf("\0");
        return { scope: name.slice(0, at), box: name.slice(at + 1) };
      };
      return new RedisMailboxes(options.address, (name) => mailboxKey(split(name).scope, split(name).box), (name) => mailboxesKey(split(name).scope), changed);
    },
    parse: (text, fileName) => {
      const r = parse(text, { fileName });
      return { program: r.program, diagnostics: r.diagnostics };
    },
  });
}

/** The most tasks at once on this process's threads (those its tasks delegate included). */
const hostWorkers = (options: FleetWorkerOptions) => Math.max(8, options.concurrency * 2);

/** `promise`, or nothing after `ms` (and never a rejection). */
function bounded(promise: Promise<unknown>, ms = 5000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.then(
      () => (clearTimeout(timer), resolve()),
      () => (clearTimeout(timer), resolve()),
    );
  });
}

async function runJob(job: Job<TaskJob>, token: string | undefined, { tasks, policies }: { tasks: TaskHost; policies: RunPolicies | null }, options: FleetWorkerOptions, redis: Redis, running: Set<Running>, host: string): Promise<void> {
  const data = job.data;
  const attempt = `${host}:${randomBytes(4).toString("hex")}`;
  const stream = reportsKey(data.run, data.epoch);
  let last: Promise<unknown> = Promise.resolve();
  const report = (r: TaskReport) => {
    last = redis.xadd(stream, "*", "m", JSON.stringify(r));
    last.catch(() => undefined);
  };
  // One round trip: whether the run cancelled the task meanwhile (or was resumed elsewhere), and its journal.
  const [cancelled, entries, epoch] = (await redis.multi().smismember(cancelledKey(data.run, data.epoch), data.key, "*").lrange(journalKey(data.run, data.key), 0, -1).get(epochKey(data.run)).exec())!.map(([, r]) => r) as [number[], string[], string | null];
  if (cancelled.some((x) => x === 1) || (epoch !== null && epoch !== data.epoch)) return;
  const fileName = localPath(data.file, options.cwd);
  report({ key: data.key, attempt, kind: "start", host, cwd: options.cwd, file: fileName });
  const end = (e: RootEnd) => report({ key: data.key, attempt, kind: "end", end: e });
  try {
    checkSources(data.sources, options.cwd, `worker ${host}`);
  } catch (error) {
    const message = error instanceof FleetError ? `[${error.code}] ${error.message}` : String(error);
    options.log(`refused ${data.key}: ${message}`);
    end({ kind: "crashed", message });
    await last;
    return;
  }
  const journal = new TaskJournal(redis, data.run, data.key, entries.map((text) => JSON.parse(text) as CassetteThink), data.replay);
  const controller = new AbortController();
  const mine: Running = { job: data, controller, handBack: false };
  running.add(mine);
  const started = Date.now();
  let outputs = 0;
  const onEvent = (event: RunEvent) => {
    journal.handle(event as PwEvent);
    report({ key: data.key, attempt, kind: "event", event });
  };
  const policy = policies?.take(data.run, data.epoch, data.batch, onEvent);
  try {
    const { end: ended, cancelled } = await tasks.run(
      {
        spec: { fileName, worker: data.worker, args: data.args },
        key: data.key,
        ...(journal.thinks.length > 0 ? { replay: { version: 1, thinks: journal.thinks } } : {}),
        ...(data.session ? { session: { ...data.session, dir: join(tmpdir(), `patchwork-session-${data.session.id}`) } } : {}),
        scope: mailboxScope(data.run, data.epoch),
        onOutput: (text) => report({ key: data.key, attempt, kind: "output", n: outputs++, text }),
        onEvent,
        ...(policy ? { agent: policy.agent } : {}),
        signal: controller.signal,
      },
      localFile(fileName).text,
    );
    if (cancelled) {
      if (!mine.handBack) {
        options.log(`stopped ${data.key} after ${Date.now() - started} ms`);
        return;
      }
      // This worker stops: the job goes back to the queue, for another worker (which replays its journal).
      options.log(`handed back ${data.key} after ${Date.now() - started} ms`);
      await last;
      await job.moveToWait(token);
      throw new WaitingError();
    }
    end(ended);
    const ok = ended.kind === "done" && !ended.outcome.diagnostics.some((d) => d.severity === "error");
    const replayed = journal.journaled.length > 0 ? `, ${journal.journaled.length} thinks replayed` : "";
    options.log(`${ok ? "done" : "failed"} ${data.key} in ${Date.now() - started} ms${replayed}`);
  } finally {
    running.delete(mine);
    policy?.release();
  }
  await last;
}

/**
 * The run's side of the fleet (`patchwork run … --queue URL`): a `TaskScheduler` (the agent
 * package's seam) whose tasks are BullMQ jobs that `patchwork worker` processes take. Tasks go
 * to the queue at most `maxWorkers` at a time (the run's limit holds across the fleet); their
 * workers' reports come back on the run's Redis stream, in order, and go to the run as a local
 * task's would: events (think numbers made the run's), output, the end.
 *
 * A job that BullMQ hands to another worker (its machine died) starts again there: that worker
 * replays the task's journaled thinks, and what the run already has of it (its output, the
 * events of thinks that had ended, its other events up to where the first attempt got) is not
 * given twice.
 */
import { randomBytes } from "node:crypto";
import { relative, resolve, sep } from "node:path";
import { Queue, type ConnectionOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { Cassette, SessionInfo } from "@patchwork/interpreter";
import { startsPerWindow, type RateLimiter } from "@patchwork/agent";
import type { MailboxStoreFactory, RootEnd, RunEvent, TaskReports, TaskRun, TaskScheduler, TaskSchedulerFactory, ThinkNumbers } from "@patchwork/agent";
import { checkReachable, redisOf } from "./connect.js";
import { RedisMailboxes } from "./mailboxes.js";
import { RedisRateLimiter } from "./rate.js";
import { CANCEL_CHANNEL, PREFIX, QUEUE_NAME, cancelledKey, epochKey, jobId, journalsKey, mailboxKey, mailboxScope, mailboxesKey, reportsKey, type CancelMessage, type JobBatchPolicy, type TaskJob, type TaskReport } from "./protocol.js";
import { sourcesOf, type SourceFiles } from "./sources.js";
import { FleetCodes, type QueueAddress } from "./url.js";

export interface FleetRunOptions {
  address: QueueAddress;
  /** The run's working directory (task files are named relative to it). */
  cwd: string;
  /** Most of the run's tasks running at once across the fleet. */
  maxWorkers: number;
  /** The run's id (a resumed run gives its own, to find its journals again); default a new one. */
  run?: string;
  /** A resumed run's cassette: each task's job carries that task's recorded thinks. */
  replay?: Cassette;
  /** The run's batch policy (`--retries`, `--rate`): its jobs carry it to the workers. */
  batch?: JobBatchPolicy;
}

/** A task on the fleet, from its job's addition to its end. */
interface Remote {
  run: TaskRun;
  /** Its worker's think numbers → the run's (the same across attempts: a retry numbers them alike). */
  readonly thinkIds: Map<number, number>;
  /** The run's numbers of its thinks that ended (a retry's replay of them is not given again). */
  readonly endedThinks: Set<number>;
  attempt: string | null;
  /** Output texts and other events given to the run so far, and this attempt's counts. */
  outputs: number;
  plain: number;
  attemptPlain: number;
  /** The worker's cwd and its name of the task's file (its files' names are made the run's). */
  workerCwd: string | null;
  workerFile: string | null;
  /** Its job, and whether the last check found it gone from the queue (see `watch`). */
  job: TaskJob | null;
  missing: boolean;
}

export class Fleet {
  readonly run: string;
  readonly epoch = randomBytes(4).toString("hex");
  readonly queue: Queue;
  /** Commands (adds, cancels, journals). */
  readonly redis: Redis;
  private schedulers: FleetScheduler[] = [];

  private constructor(readonly options: FleetRunOptions) {
    this.run = options.run ?? randomBytes(8).toString("hex");
    this.queue = new Queue(QUEUE_NAME, { connection: { ...options.address.options, maxRetriesPerRequest: null } as ConnectionOptions, prefix: PREFIX });
    this.queue.on("error", () => undefined); // (ioredis reconnects by itself; jobs a restart lost are added again: `watch`)
    this.redis = redisOf(options.address);
    this.redis.on("error", () => undefined);
  }

  /** Checks that Redis answers (PW4061), then opens the queue. */
  static async open(options: FleetRunOptions): Promise<Fleet> {
    await checkReachable(options.address);
    const fleet = new Fleet(options);
    // This coordinator's epoch is the run's now: the tasks of an earlier one (a coordinator
    // killed, then `--resume`d) stop, and their jobs still queued are not run.
    const stop: CancelMessage = { run: fleet.run, epoch: fleet.epoch, others: true, why: "the run goes on in another coordinator" };
    await fleet.redis.multi().set(epochKey(fleet.run), fleet.epoch, "EX", 7 * 86_400).publish(CANCEL_CHANNEL, JSON.stringify(stop)).exec();
    return fleet;
  }

  /** The scheduler for `runWithAgent({scheduler})`. */
  readonly scheduler: TaskSchedulerFactory = (reports, numbers, run) => {
    const s = new FleetScheduler(this, reports, numbers, run.session);
    this.schedulers.push(s);
    return s;
  };

  /** The run's mailboxes, on Redis: shared with its tasks on the workers (`runWithAgent({mailboxes})`). */
  readonly mailboxes: MailboxStoreFactory = (changed) => {
    const scope = mailboxScope(this.run, this.epoch);
    return new RedisMailboxes(this.options.address, (name) => mailboxKey(scope, name), () => mailboxesKey(scope), changed);
  };

  /**
   * The run's `--rate` counted in Redis, one count with its workers' (`batch.rateLimiter` of the
   * run's own thinks); undefined without a rate.
   */
  rateLimiter(): RateLimiter | undefined {
    return rateLimiterOf(this.redis, this.run, this.options.batch);
  }

  /** The run is over: its journals go when it ended well (`keepJournal`: a resume needs them). */
  async close(options: { keepJournal: boolean }): Promise<void> {
    for (const s of this.schedulers) s.shutdown("", "the run has ended");
    await Promise.all(this.schedulers.map((s) => s.stopped));
    if (!options.keepJournal) {
      const keys = await this.redis.smembers(journalsKey(this.run)).catch(() => [] as string[]);
      await this.redis.del(journalsKey(this.run), ...keys).catch(() => undefined);
    }
    const boxes = await this.redis.smembers(mailboxesKey(mailboxScope(this.run, this.epoch))).catch(() => [] as string[]);
    await this.redis.del(reportsKey(this.run, this.epoch), mailboxesKey(mailboxScope(this.run, this.epoch)), ...boxes, ...(options.keepJournal ? [] : [epochKey(this.run)])).catch(() => undefined);
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
  }
}

class FleetScheduler implements TaskScheduler {
  private readonly pending: TaskRun[] = [];
  private readonly remotes = new Map<string, Remote>();
  private closed = false;
  private pumping = false;
  private readonly watchdog: NodeJS.Timeout;
  private readonly reader: Redis;
  private readonly sources = new Map<string, SourceFiles>();
  private readonly replayOf = new Map<string, NonNullable<TaskJob["replay"]>>();
  /** Resolves when the report reader has stopped. */
  readonly stopped: Promise<void>;

  constructor(
    private readonly fleet: Fleet,
    private readonly reports: TaskReports,
    private readonly numbers: ThinkNumbers,
    private readonly session: SessionInfo | undefined,
  ) {
    this.reader = redisOf(fleet.options.address);
    this.reader.on("error", () => undefined);
    // A task's thinks and those of the tasks it delegated (`summarize#3/helper#1`) go with its job.
    for (const think of fleet.options.replay?.thinks ?? []) {
      if (think.worker === undefined) continue;
      const task = think.worker.split("/")[0]!;
      let list = this.replayOf.get(task);
      if (!list) this.replayOf.set(task, (list = []));
      list.push(think);
    }
    this.stopped = this.read();
    this.watchdog = setInterval(() => void this.watch(), WATCH_MS);
    this.watchdog.unref();
  }

  /**
   * A job gone from the queue while its task has not ended (a Redis restarted without its
   * append-only file lost it): found gone at two checks in a row (its end report may be on its
   * way), it is added again; its worker replays what is left of its journal.
   */
  private async watch(): Promise<void> {
    const lost: TaskJob[] = [];
    for (const remote of [...this.remotes.values()]) {
      if (!remote.job) continue;
      const state = await this.fleet.queue.getJobState(jobId(this.fleet.run, this.fleet.epoch, remote.run.key)).catch(() => null);
      if (state === null || this.closed) return; // Redis not there: next time
      if (state !== "unknown" || this.remotes.get(remote.run.key) !== remote) remote.missing = false;
      else if (!remote.missing) remote.missing = true;
      else {
        remote.missing = false;
        lost.push(remote.job);
      }
    }
    if (lost.length > 0) this.add(lost.map((job) => this.jobOpts(job)));
  }

  submit(runs: readonly TaskRun[]): void {
    this.pending.push(...runs);
    this.pump();
  }

  /** Pumps once the reports at hand are handled: the jobs freed slots allow go in one addBulk. */
  private pumpSoon(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      this.pump();
    });
  }

  /** Adds jobs while fewer than `maxWorkers` of the run's tasks are on the fleet. */
  private pump(): void {
    if (this.closed) return;
    const jobs: ReturnType<FleetScheduler["jobOpts"]>[] = [];
    while (this.pending.length > 0 && this.remotes.size < this.fleet.options.maxWorkers) {
      const run = this.pending.shift()!;
      if (run.state !== "queued") continue;
      run.state = "running";
      this.remotes.set(run.key, { run, thinkIds: new Map(), endedThinks: new Set(), attempt: null, outputs: 0, plain: 0, attemptPlain: 0, workerCwd: null, workerFile: null, job: null, missing: false });
      let data: TaskJob;
      try {
        data = this.jobOf(run);
      } catch (error) {
        this.end(run.key, { kind: "crashed", message: `the task's sources could not be read: ${error instanceof Error ? error.message : String(error)}` });
        continue;
      }
      this.remotes.get(run.key)!.job = data;
      jobs.push(this.jobOpts(data));
    }
    if (jobs.length === 0) return;
    this.add(jobs);
  }

  private jobOpts(data: TaskJob) {
    return { name: data.worker, data, opts: { jobId: jobId(this.fleet.run, this.fleet.epoch, data.key), removeOnComplete: true, removeOnFail: true } as const };
  }

  private add(jobs: ReturnType<FleetScheduler["jobOpts"]>[]): void {
    this.fleet.queue.addBulk(jobs).catch((error: unknown) => {
      for (const job of jobs) this.end(job.data.key, { kind: "crashed", message: `[${FleetCodes.lost}] the task could not be queued: ${String(error)}` });
    });
  }

  private jobOf(run: TaskRun): TaskJob {
    const { cwd } = this.fleet.options;
    const abs = resolve(cwd, run.spec.fileName);
    let sources = this.sources.get(abs);
    if (!sources) this.sources.set(abs, (sources = sourcesOf(abs, cwd)));
    const rel = relative(cwd, abs);
    const replay = this.replayOf.get(run.key);
    return {
      run: this.fleet.run,
      epoch: this.fleet.epoch,
      key: run.key,
      file: rel.startsWith("..") ? abs : rel,
      worker: run.spec.worker,
      args: run.spec.args,
      sources,
      ...(replay ? { replay } : {}),
      ...(this.fleet.options.batch ? { batch: this.fleet.options.batch } : {}),
      ...(this.session ? { session: { id: this.session.id, timestamp: this.session.timestamp } } : {}),
    };
  }

  cancel(run: TaskRun, why: string): void {
    const i = this.pending.indexOf(run);
    if (i >= 0) this.pending.splice(i, 1);
    if (!this.remotes.delete(run.key)) return;
    this.cancelRemote(run.key, why);
    this.pump();
  }

  /** Tells the fleet to stop the task `key` (all of the run's: undefined), queued or running. */
  private cancelRemote(key: string | undefined, why: string): void {
    const { run, epoch, redis, queue } = this.fleet;
    const message: CancelMessage = { run, epoch, ...(key !== undefined ? { key } : {}), why };
    void redis
      .multi()
      .sadd(cancelledKey(run, epoch), key ?? "*")
      .expire(cancelledKey(run, epoch), 86_400)
      .publish(CANCEL_CHANNEL, JSON.stringify(message))
      .exec()
      .catch(() => undefined);
    if (key !== undefined) void queue.remove(jobId(run, epoch, key)).catch(() => undefined);
  }

  shutdown(_code: string, message: string): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.length = 0;
    if (this.remotes.size > 0) {
      const keys = [...this.remotes.keys()];
      this.remotes.clear();
      this.cancelRemote(undefined, message);
      for (const key of keys) void this.fleet.queue.remove(jobId(this.fleet.run, this.fleet.epoch, key)).catch(() => undefined);
    }
    clearInterval(this.watchdog);
    this.reader.disconnect();
  }

  /** Reads the run's report stream until the run ends. */
  private async read(): Promise<void> {
    const key = reportsKey(this.fleet.run, this.fleet.epoch);
    let last = "0";
    while (!this.closed) {
      let batch: [string, [string, string[]][]][] | null;
      try {
        batch = (await this.reader.xread("COUNT", 1000, "BLOCK", 1000, "STREAMS", key, last)) as typeof batch;
      } catch {
        if (this.closed) return;
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      for (const [, entries] of batch ?? []) {
        for (const [id, fields] of entries) {
          last = id;
          if (this.closed) return;
          this.handle(JSON.parse(fields[1]!) as TaskReport);
        }
      }
    }
  }

  private handle(report: TaskReport): void {
    const remote = this.remotes.get(report.key);
    if (!remote) return; // ended, or cancelled
    if (report.kind === "start") {
      const first = remote.attempt === null;
      remote.attempt = report.attempt;
      remote.attemptPlain = 0;
      remote.workerCwd = report.cwd;
      remote.workerFile = report.file;
      if (first) this.reports.emit({ type: "task-start", worker: report.key });
      return;
    }
    if (report.attempt !== remote.attempt) return; // a late report of an attempt that was given up
    switch (report.kind) {
      case "output":
        if (report.n < remote.outputs) return;
        remote.outputs = report.n + 1;
        this.reports.output(report.text);
        return;
      case "event":
        return this.event(remote, report.event);
      case "end":
        return this.end(report.key, report.end);
    }
  }

  private event(remote: Remote, given: RunEvent): void {
    const event = this.here(remote, given);
    const local = thinkOf(event);
    if (local === undefined) {
      // Events of no think come again in the same order in a retry: those given are skipped.
      if (remote.attemptPlain++ < remote.plain) return;
      remote.plain++;
      this.reports.emit(event);
      return;
    }
    const id = this.numbers.of(remote.thinkIds, local);
    if (remote.endedThinks.has(id)) return;
    if (event.type === "think-end") remote.endedThinks.add(id);
    this.reports.emit("thinkId" in event ? ({ ...event, thinkId: id } as RunEvent) : ({ ...event, id } as RunEvent));
  }

  /** An event with its file named as on this machine (a worker's cwd may be another folder). */
  private here(remote: Remote, event: RunEvent): RunEvent {
    const fileName = (event as { fileName?: unknown }).fileName;
    return typeof fileName === "string" ? ({ ...event, fileName: this.nameHere(remote, fileName) } as RunEvent) : event;
  }

  /** A worker's name of a file, as the run names it: the task's file as the run gave it, others under the run's cwd. */
  private nameHere(remote: Remote, fileName: string): string {
    if (fileName === remote.workerFile) return remote.run.spec.fileName;
    const theirs = remote.workerCwd;
    if (theirs === null || theirs === this.fleet.options.cwd || !fileName.startsWith(theirs + sep)) return fileName;
    return this.fleet.options.cwd + fileName.slice(theirs.length);
  }

  private end(key: string, end: RootEnd): void {
    const remote = this.remotes.get(key);
    if (!remote) return;
    this.remotes.delete(key);
    if (end.kind === "done") {
      const diagnostics = end.outcome.diagnostics.map((d) => (d.fileName === undefined ? d : { ...d, fileName: this.nameHere(remote, d.fileName) }));
      end = { ...end, outcome: { ...end.outcome, diagnostics } };
    }
    this.reports.ended(remote.run, end);
    this.pumpSoon();
  }
}

/** How often the run checks that its tasks' jobs are still on the queue. */
const WATCH_MS = 5000;

/** The worker's think number an event is about, if any. */
function thinkOf(event: RunEvent): number | undefined {
  switch (event.type) {
    case "think-start":
    case "think-end":
    case "think-repair":
      return event.id;
    default: {
      const id = (event as { thinkId?: unknown }).thinkId;
      return typeof id === "number" ? id : undefined;
    }
  }
}

/** A run's rate limiter in Redis (shared by its coordinator and every worker), if it has a rate. */
export function rateLimiterOf(redis: Redis, run: string, batch: JobBatchPolicy | undefined): RateLimiter | undefined {
  if (!batch || batch.rate === null) return undefined;
  const windowMs = batch.rateWindowMs ?? 60_000;
  return new RedisRateLimiter(redis, run, startsPerWindow(batch.rate, windowMs), windowMs);
}

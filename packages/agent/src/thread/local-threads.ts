/**
 * This process's evaluator threads (the default `TaskScheduler`: scheduler.ts): the program's
 * own thread and one thread per running worker task (language.md §4, docs/workers.md). Every
 * thread talks to the one agent runtime through its own ThinkBridge; this module owns what the
 * threads share and what their lifetime needs: their messages, the mailboxes, the
 * `--max-workers` queue and the CPU slots, thread reuse, and stopping them. Fork-join groups
 * stay above (pool.ts): a thread's `delegate` and `join` go to them, and a task's end too.
 */
import { availableParallelism } from "node:os";
import type { DelegateMode, JoinResult, WorkerTask } from "@patchwork/interpreter";
import { ensureSessionDir, NOTHING_SPENT } from "@patchwork/interpreter/core";
import type { Span } from "@patchwork/parser";
import { AgentCodes } from "../errors.js";
import type { AsyncAgent, RunEvent } from "../types.js";
import type { EvaluatorThreadAhead } from "./ahead.js";
import type { BatchMessage } from "./outbox.js";
import type { PoolOptions } from "./pool-options.js";
import type { FromThread, NextTaskMessage, WorkerInit } from "./protocol.js";
import type { RootEnd, TaskReports, TaskScheduler, ThinkNumbers } from "./scheduler.js";
import { TaskInits } from "./task-inits.js";
import { Mailboxes, type MailboxStore } from "./mailboxes.js";
import { EvaluatorThread, ThreadHost, type HostOptions, type TaskRun } from "./thread-host.js";

/** What the threads ask of the fork-join groups above them (pool.ts). */
export interface GroupLogic extends TaskReports {
  delegate(owner: EvaluatorThread, id: number, tasks: WorkerTask[], mode: DelegateMode): void;
  join(t: EvaluatorThread, reply: (result: JoinResult) => void, id: number): void;
  /** Tasks a stopped or ended evaluator delegated and never awaited end with it. */
  cancelGroupsOf(t: EvaluatorThread, why: string): void;
  /** Where a task's events and output go, when not to the run's (a task another run delegated: task-host.ts). */
  routeOf(run: TaskRun): TaskRoute | undefined;
}

/** The events, output and init of a task (and of the tasks it delegates) that are not the run's own. */
export interface TaskRoute {
  emit: (event: RunEvent) => void;
  output: (text: string) => void;
  /** Added to its thread's init (a replay cassette, a session of its own). */
  init?: Partial<WorkerInit>;
  /** Its mailboxes are apart from those of tasks of other scopes (another run's). */
  scope?: string;
  /** Its thinks (and those of the tasks it delegates) go to this agent rather than the pool's (its run's batch policy). */
  agent?: AsyncAgent;
}

/** A mailbox's name in the one table of this process: apart per route scope. */
const boxOf = (route: TaskRoute | undefined, name: string) => (route?.scope === undefined ? name : `${route.scope}\0${name}`);

/**
 * Most tasks one thread carries (all but one of them suspended: decision 0016). Waiting tasks
 * cost a few hundred KB each on a shared thread, a thread ≈ 8 MB (docs/benchmarks.md).
 */
export const TASKS_PER_THREAD = 32;

export class LocalThreads implements TaskScheduler {
  /** Every live evaluator: the program's and each running task's. */
  private readonly threads = new Set<EvaluatorThread>();
  private readonly hosts = new Set<ThreadHost>();
  private readonly queue: TaskRun[] = [];
  /** Task threads with no task, waiting for the next (see `reuseFor`). */
  private readonly idle: ThreadHost[] = [];
  private readonly mailboxes: MailboxStore<EvaluatorThread>;
  private root: EvaluatorThread | null = null;
  private closed = false;
  private readonly cpuSlots: number;
  /** Armed while queued tasks wait for a CPU slot: then one starts anyway. */
  private starvedTimer: NodeJS.Timeout | null = null;
  private starved = false;
  private hostCount = 0;
  private readonly inits: TaskInits;

  constructor(
    private readonly options: PoolOptions,
    private readonly hostOptions: HostOptions,
    private readonly groups: GroupLogic,
    private readonly numbers: ThinkNumbers,
  ) {
    this.cpuSlots = Math.max(1, options.cpuSlots ?? availableParallelism());
    this.inits = new TaskInits(options, (run) => groups.routeOf(run)?.init);
    this.mailboxes = options.mailboxes?.(() => this.pump()) ?? new Mailboxes<EvaluatorThread>(() => this.pump());
  }

  /** Threads started so far (the program's included), for tests and benchmarks. */
  get threadsStarted(): number {
    return this.hostCount;
  }

  /** Starts the program's thread; resolves when it ends. */
  start(): Promise<RootEnd> {
    return new Promise((resolve) => {
      const ahead = this.options.ahead;
      const host = this.newHost(this.options.init, ahead);
      const root = new EvaluatorThread(0, "main", null, host, this.hostOptions);
      this.root = root;
      this.threads.add(root);
      this.listen(host, (end) => resolve(end));
      ahead?.take(this.options.init);
      if (declaresWorkers(this.options.init)) this.prewarm(Math.min(this.cpuSlots, this.options.maxWorkers));
    });
  }

  private newHost(init: WorkerInit, ahead?: EvaluatorThreadAhead): ThreadHost {
    const host = new ThreadHost(++this.hostCount, init, this.hostOptions, ahead);
    this.hosts.add(host);
    return host;
  }

  /** The agent is up: the program's thread (started `gated`) runs its program. */
  release(): void {
    if (!this.closed) this.root?.host.post({ type: "go" });
  }

  /**
   * Starts `count` task threads ahead of any task, while the program's thread starts (and the
   * agent, if any): they wait idle, and the first delegation's tasks take them without the wait
   * for a thread start (≈ 0.1 s of CPU each: docs/benchmarks.md). For programs that declare
   * workers only; at most as many as may use the CPU at once.
   */
  private prewarm(count: number): void {
    for (let i = 0; i < count; i++) {
      const host = this.newHost({ ...this.inits.standbyInit(), standby: true });
      this.idle.push(host);
      this.listen(host);
    }
  }

  /** Whether a think is under way on any thread (its agent turn, or one of its `do` blocks). */
  get thinking(): boolean {
    for (const t of this.threads) if (t.bridge.innermost()) return true;
    return false;
  }

  /** The innermost think under way on the program's thread. */
  innermostThink(): { span: Span; fileName: string } | undefined {
    return this.root?.bridge.innermost();
  }

  /**
   * What the program's thread is doing, for positions: the shell command it waits for (run
   * from a `do` block too), else the innermost think under way.
   */
  innermost(): { span: Span; fileName: string } | undefined {
    return this.root?.shells.runningAt ?? this.root?.bridge.innermost();
  }

  /** Stops every thread (cancel, timeout, the end of the run). */
  shutdown(code: string, message: string): void {
    this.closed = true;
    if (this.starvedTimer) clearTimeout(this.starvedTimer);
    for (const t of this.threads) {
      t.ended = true;
      t.bridge.cancelOpen(code, message);
      t.shells.killAll();
    }
    for (const host of this.hosts) {
      if (host.hello) host.hello.port.close();
      host.terminate();
    }
    this.threads.clear();
    this.hosts.clear();
    this.queue.length = 0;
    this.idle.length = 0;
    this.mailboxes.clear();
  }

  private listen(host: ThreadHost, onRootEnd?: (end: RootEnd) => void): void {
    let rootEnd = onRootEnd;
    const ended = (t: EvaluatorThread | undefined, end: RootEnd) => {
      if (t && !t.run) {
        if (!rootEnd) return;
        const report = rootEnd;
        rootEnd = undefined;
        t.ended = true;
        host.terminate();
        report(end);
        return;
      }
      if (t) return this.taskEnded(t, end);
      // The thread itself failed: every task on it ends so.
      for (const task of [...host.tasks.values()]) ended(task, end);
      this.dropHost(host);
    };
    const onThreadMessage = (message: FromThread) => {
      if (message.type === "hello") return host.connect(message);
      const t = host.tasks.get(message.task ?? 0);
      if (message.type === "failed" && message.task === undefined) {
        return ended(undefined, { kind: "crashed", message: `the evaluator failed: ${message.message}` });
      }
      if (!t) return;
      if (t.ended) return this.onEndedMessage(t, message);
      this.onMessage(t, message, (end) => ended(t, end));
    };
    // A replaying thread sends its events and output in batches (outbox.ts), handled in order.
    host.worker.on("message", (message: FromThread | BatchMessage) => {
      if (message.type !== "batch") return onThreadMessage(message);
      for (const one of message.messages) onThreadMessage(one);
    });
    host.worker.once("error", (error) => ended(undefined, { kind: "crashed", message: `the evaluator thread crashed: ${error.message}` }));
    host.worker.once("exit", (code) => {
      for (const t of host.tasks.values()) t.bridge.shutdown(AgentCodes.evaluatorCrashed, "the evaluator thread exited");
      ended(undefined, { kind: "crashed", message: `the evaluator thread exited (code ${code})` });
    });
  }

  /**
   * A message about a task already stopped: one cancelled while it ran code on a thread it
   * shares is dropped at its next wait or its end; a request it blocks in is answered so that
   * its thread goes on (to that wait or end).
   */
  private onEndedMessage(t: EvaluatorThread, message: FromThread): void {
    const host = t.host;
    const drop = () => {
      host.tasks.delete(t.id);
      this.hostFreed(host);
    };
    switch (message.type) {
      case "wait":
        host.post({ type: "cancel-task", task: t.id });
        return drop();
      case "done":
      case "failed":
        return drop();
      case "think":
        t.bridge.answer(message.seq, { type: "cancel", code: AgentCodes.cancelled, message: "cancelled" });
        return;
      case "shell":
      case "join":
      case "receive":
      case "session-dir":
      case "session-usage":
        t.bridge.answer(message.seq, { type: "cancel", code: AgentCodes.cancelled, message: "cancelled" });
        return;
    }
  }

  private onMessage(t: EvaluatorThread, message: FromThread, ended: (end: RootEnd) => void): void {
    const route = t.run ? this.groups.routeOf(t.run) : undefined;
    const emit = route?.emit ?? this.options.emit;
    switch (message.type) {
      case "think": {
        // (An evaluator that does not number its requests keeps them unnumbered.)
        const local = message.request.id as number | undefined;
        const id = typeof local === "number" ? this.numbers.of(t.thinkIds, local) : (local as unknown as number);
        const start = message.start ? ({ ...message.start, id } as typeof message.start) : undefined;
        if (start) emit(start);
        t.bridge.start({ ...message, request: { ...message.request, id }, start });
        this.pump(); // the thread waits for the agent: a queued task may take its CPU
        return;
      }
      case "event":
        emit(this.numbers.renumber(t.thinkIds, message.event, t.run?.key));
        return;
      case "output":
        (route?.output ?? this.options.onOutput)(message.text);
        return;
      case "shell":
        void t.shells
          .run(message.command, message.cwd ?? this.options.init.cwd, message.env, message.at)
          .then((result) => t.bridge.answer(message.seq, { type: "shell-result", result }));
        this.pump();
        return;
      case "delegate":
        if (message.program && !t.run && this.inits.program === undefined) this.inits.program = message.program;
        this.groups.delegate(t, message.group, message.tasks, message.mode ?? "fail-fast");
        return;
      case "join":
        this.groups.join(t, t.joinReply(message.seq), message.group);
        this.pump();
        return;
      case "send":
        this.mailboxes.send(boxOf(route, message.mailbox), message.value);
        return;
      case "receive":
        this.mailboxes.receive(t, t.receiveReply(message.seq), boxOf(route, message.mailbox), message.timeoutMs);
        return;
      case "wait": {
        t.suspended = true;
        const wait = message.wait;
        if (wait.kind === "join") this.groups.join(t, t.joinReply(null), wait.group);
        else if (wait.kind === "receive") this.mailboxes.receive(t, t.receiveReply(null), boxOf(route, wait.mailbox), wait.timeoutMs);
        else {
          // A think its task is suspended in (decision 0016, "Thinks"); its `think-start` came as an event.
          const request = { ...wait.request, id: this.numbers.of(t.thinkIds, wait.request.id) };
          t.bridge.startDeferred(request, (answer) => {
            if (!t.ended) t.resume(answer);
          });
        }
        this.pump();
        return;
      }
      case "session-dir": {
        const dir = (route?.init?.session ?? this.options.init.session)?.dir;
        let result: { ok: true } | { ok: false; message: string } = { ok: true };
        try {
          if (dir === undefined) throw new Error("this run has no session");
          ensureSessionDir(dir);
        } catch (error) {
          result = { ok: false, message: error instanceof Error ? error.message : String(error) };
        }
        t.bridge.answer(message.seq, { type: "session-dir", result });
        return;
      }
      case "session-usage":
        t.bridge.answer(message.seq, { type: "session-usage", result: this.options.usage?.() ?? NOTHING_SPENT });
        return;
      case "thinks-ahead":
        this.options.agent?.prepare?.({ thinks: message.thinks });
        return;
      case "done":
        ended({ kind: "done", outcome: message.outcome });
        return;
      case "failed":
        ended({ kind: "crashed", message: `the evaluator failed: ${message.message}` });
        return;
    }
  }

  // ───────────────────────────── the task queue ─────────────────────────────

  submit(runs: readonly TaskRun[]): void {
    this.queue.push(...runs);
    this.pump();
  }

  /**
   * Starts queued tasks while fewer than `maxWorkers` tasks are running (not blocked in `await`
   * or `receive`, not suspended) and fewer than `cpuSlots` threads use the CPU; past that, a task
   * waits for a thread to block or end, or `starvedMs` (then one starts anyway).
   */
  pump(): void {
    if (this.closed) return;
    while (this.queue.length > 0 && this.runningCount() < this.options.maxWorkers) {
      if (this.busyCount() >= this.cpuSlots && !this.starved) {
        this.starvedTimer ??= setTimeout(() => {
          this.starvedTimer = null;
          this.starved = true;
          this.pump();
        }, this.options.starvedMs ?? STARVED_MS);
        return;
      }
      const run = this.queue.shift()!;
      if (run.state !== "queued") continue;
      this.spawn(run);
    }
    if (this.starvedTimer && this.queue.length === 0) {
      clearTimeout(this.starvedTimer);
      this.starvedTimer = null;
    }
  }

  private busyCount(): number {
    let n = 0;
    for (const host of this.hosts) if (host.busy) n++;
    return n;
  }

  private runningCount(): number {
    let n = 0;
    for (const t of this.threads) if (t.run && !t.ended && t.blocked === 0 && !t.suspended) n++;
    return n;
  }

  /** A task starts: the wait for a CPU slot counts again from now. */
  private started(): void {
    this.starved = false;
    if (this.starvedTimer) clearTimeout(this.starvedTimer);
    this.starvedTimer = null;
  }

  /**
   * Starts `run` on a thread: an idle one, else (a task that shares threads) one whose tasks all
   * wait suspended and that has room, else a new one.
   */
  private spawn(run: TaskRun): void {
    this.started();
    const init = this.inits.taskInit(run);
    const shares = init.taskProgram !== undefined && this.inits.sharesOf(run.spec);
    const host = this.takeIdle() ?? (shares ? this.roomFor() : undefined);
    if (host) {
      host.shared = shares;
      return this.assign(host, run, init, false);
    }
    const fresh = this.newHost(init);
    fresh.shared = shares;
    this.listen(fresh);
    this.assign(fresh, run, init, true);
  }

  /** A thread carrying tasks that share threads, all suspended, with room for one more. */
  private roomFor(): ThreadHost | undefined {
    let best: ThreadHost | undefined;
    for (const host of this.hosts) {
      if (!host.shared || host.ended || host.empty || !host.allSuspended || host.tasks.size >= TASKS_PER_THREAD) continue;
      if (!best || host.tasks.size < best.tasks.size) best = host;
    }
    return best;
  }

  /** An idle task thread still alive, if any. */
  private takeIdle(): ThreadHost | undefined {
    for (;;) {
      const host = this.idle.pop();
      if (!host || (!host.ended && host.worker.threadId !== -1)) return host;
      this.hosts.delete(host);
    }
  }

  /** `run` starts on `host` (a new thread got it in its init). */
  private assign(host: ThreadHost, run: TaskRun, init: WorkerInit, fresh: boolean): void {
    const route = this.groups.routeOf(run);
    const t = new EvaluatorThread(init.taskId!, run.key, run, host, route ? { ...this.hostOptions, emit: route.emit, ...(route.agent ? { agent: route.agent } : {}) } : this.hostOptions);
    this.threads.add(t);
    run.state = "running";
    run.thread = t;
    const key = init.taskProgramKey;
    const known = key !== undefined && host.programs.has(key);
    if (key !== undefined) host.programs.add(key);
    if (!fresh) host.worker.postMessage({ type: "next-task", init: known ? { ...init, taskProgram: undefined } : init } satisfies NextTaskMessage);
    (route?.emit ?? this.options.emit)({ type: "task-start", worker: run.key, thread: host.number });
  }

  /**
   * A thread with no task left waits idle for the next: a thread costs a V8 isolate and Node's
   * bootstrap (≈ 0.1 s of CPU), so a program that delegates many tasks starts few threads. Only
   * after a clean end (a thread that crashed or was stopped is never reused); idle threads
   * beyond `maxWorkers` are stopped, and all of them at the end of the run.
   */
  private hostFreed(host: ThreadHost): void {
    if (host.ended || !host.empty || host === this.root?.host) return;
    host.shared = false;
    if (this.closed || this.idle.length >= this.options.maxWorkers) {
      host.terminate();
      this.hosts.delete(host);
      return;
    }
    this.idle.push(host);
  }

  private dropHost(host: ThreadHost): void {
    host.terminate();
    this.hosts.delete(host);
    const i = this.idle.indexOf(host);
    if (i >= 0) this.idle.splice(i, 1);
  }

  /** A task's thread said it ended: its thread is freed, then its group hears of it. */
  private taskEnded(t: EvaluatorThread, end: RootEnd): void {
    const run = t.run!;
    const host = t.host;
    this.threads.delete(t);
    if (run.state !== "running" || t.ended) return;
    t.ended = true;
    host.tasks.delete(t.id);
    // Tasks it delegated and never awaited end with it.
    this.groups.cancelGroupsOf(t, "the worker that started this task has ended");
    if (end.kind !== "done") this.dropHost(host);
    else this.hostFreed(host);
    this.groups.ended(run, end);
    this.pump();
  }

  /** Stops a cancelled task's thread (a queued one is skipped when its turn comes). */
  cancel(run: TaskRun, why: string): void {
    const t = run.thread;
    if (!t) return;
    this.groups.cancelGroupsOf(t, why);
    this.mailboxes.dropWaiters(t);
    t.stop(AgentCodes.cancelled, `cancelled: ${why}`);
    this.threads.delete(t);
    if (t.host.ended) this.hosts.delete(t.host);
    else this.hostFreed(t.host);
  }
}

/**
 * Whether the program (or a module it imports, parsed ahead) declares a worker: then task
 * threads are started ahead (`prewarm`). Without the ASTs, from its text.
 */
function declaresWorkers(init: WorkerInit): boolean {
  if (init.repl || init.evaluatorModule !== undefined) return false;
  if (!init.parsed) return /\bworker\s+[A-Za-z_]\w*\s*\(/.test(init.source);
  const programs = [init.parsed.program, ...Object.values(init.modules ?? {}).map((m) => m.program)];
  return programs.some((p) => p.body.some((item) => item.kind === "FunDecl" && item.flavor === "worker"));
}

/** A queued task waits at most this long for a CPU slot while no task starts (see `cpuSlots`). */
const STARVED_MS = 500;

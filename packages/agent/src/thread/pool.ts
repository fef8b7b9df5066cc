/**
 * The evaluator threads of one run: the program's own thread and one thread per running
 * worker task (language.md §4, docs/workers.md). Every thread talks to the one agent runtime
 * through its own ThinkBridge; the pool owns what workers share and what their lifetime needs:
 * fork-join groups, the mailboxes, the `--max-workers` queue, think numbering across threads,
 * and cancellation (a failed task of a fail-fast delegation stops its siblings: their thinks, shell
 * commands, threads; a settled one, `self.delegate(…).settle()`, lets them finish).
 */
import { availableParallelism } from "node:os";
import type { DelegateMode, JoinResult, SessionUsage, WorkerFailure, WorkerTask } from "@patchwork/interpreter";
import { AgentError, ensureSessionDir, isFatalCode } from "@patchwork/interpreter/core";
import { sharesThread } from "@patchwork/interpreter/tasks";
import type { Program, Span } from "@patchwork/parser";
import { AgentCodes } from "../errors.js";
import type { AsyncAgent, RunEvent } from "../types.js";
import type { EvaluatorThreadAhead } from "./ahead.js";
import type { BatchMessage } from "./outbox.js";
import type { FromThread, NextTaskMessage, RunOutcome, WorkerInit, WorkerMessage } from "./protocol.js";
import { taskProgram } from "./task-program.js";
import { taskLabel } from "../progress/labels.js";
import { Mailboxes } from "./mailboxes.js";
import { EvaluatorThread, ThreadHost, type Group, type HostOptions, type TaskRun } from "./thread-host.js";

export interface PoolOptions {
  workerPath: string;
  /** The program thread's init; task threads derive theirs from it. */
  init: WorkerInit;
  /** The agent runtime; null: no agent (thinks evaluate to their prompt in each thread). */
  agent: AsyncAgent | null;
  runSignal: AbortSignal;
  emit: (event: RunEvent) => void;
  env: Record<string, string | undefined>;
  shellStdin: "ignore" | "inherit";
  /** Most task threads running at once (threads blocked in `await` or `receive` do not count). */
  maxWorkers: number;
  /**
   * Most threads using the CPU at once before another task thread starts (default: the cores).
   * A thread blocked in a think, a shell command, `await` or `receive` uses none. Starting a
   * thread costs CPU too; past this number, CPU-bound tasks would only share the cores (and pay
   * for more thread starts), so a queued task waits for a thread to block or end, or for
   * `starvedMs` without any task starting (a task may be polling for another's work).
   */
  cpuSlots?: number;
  /** See `cpuSlots` (default `STARVED_MS`). */
  starvedMs?: number;
  onOutput: (text: string) => void;
  /** `self.session.usage`: what the run has spent so far (default: nothing asked, nothing reported). */
  usage?: () => SessionUsage;
  /** The program's thread, started ahead (ahead.ts); else the pool starts it. */
  ahead?: EvaluatorThreadAhead;
}

/** How the program's thread ended. */
export type RootEnd = { kind: "done"; outcome: RunOutcome } | { kind: "crashed"; message: string };

const noAgent: AsyncAgent = {
  think: () => Promise.reject(new AgentError(AgentCodes.requestFailed, "no agent is configured")),
};

/** `self.session.usage` of a run without an agent. */
const NOTHING_SPENT: SessionUsage = { thinks: 0, inputTokens: null, outputTokens: null, cost: null };

/**
 * Most tasks one thread carries (all but one of them suspended: decision 0016). Waiting tasks
 * cost a few hundred KB each on a shared thread, a thread ≈ 8 MB (docs/benchmarks.md).
 */
export const TASKS_PER_THREAD = 32;

export class EvaluatorPool {
  /** Every live evaluator: the program's and each running task's. */
  private readonly threads = new Set<EvaluatorThread>();
  private readonly hosts = new Set<ThreadHost>();
  private readonly queue: TaskRun[] = [];
  /** Groups not yet ended, by their name in `delegate-start`/`delegate-end` events. */
  private readonly groupNames = new Map<Group, string>();
  /** Task threads with no task, waiting for the next (see `reuseFor`). */
  private readonly idle: ThreadHost[] = [];
  private readonly mailboxes = new Mailboxes<EvaluatorThread>(() => this.pump());
  private thinkCount = 0;
  private root: EvaluatorThread | null = null;
  private closed = false;
  private program: Program | null | undefined;
  private readonly cpuSlots: number;
  /** Armed while queued tasks wait for a CPU slot: then one starts anyway. */
  private starvedTimer: NodeJS.Timeout | null = null;
  private starved = false;
  private hostCount = 0;
  private taskCount = 0;
  private readonly hostOptions: HostOptions;

  constructor(private readonly options: PoolOptions) {
    this.cpuSlots = Math.max(1, options.cpuSlots ?? availableParallelism());
    this.hostOptions = { ...options, agent: options.agent ?? noAgent };
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
      const host = this.newHost({ ...this.standbyInit(), standby: true });
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
    const { emit } = this.options;
    switch (message.type) {
      case "think": {
        // (An evaluator that does not number its requests keeps them unnumbered.)
        const local = message.request.id as number | undefined;
        const id = typeof local === "number" ? this.globalThink(t, local) : (local as unknown as number);
        const start = message.start ? ({ ...message.start, id } as typeof message.start) : undefined;
        if (start) emit(start);
        t.bridge.start({ ...message, request: { ...message.request, id }, start });
        this.pump(); // the thread waits for the agent: a queued task may take its CPU
        return;
      }
      case "event":
        emit(this.renumber(t, message.event));
        return;
      case "output":
        this.options.onOutput(message.text);
        return;
      case "shell":
        void t.shells
          .run(message.command, message.cwd ?? this.options.init.cwd, message.env, message.at)
          .then((result) => t.bridge.answer(message.seq, { type: "shell-result", result }));
        this.pump();
        return;
      case "delegate":
        if (message.program && !t.run && this.program === undefined) this.program = message.program;
        this.delegate(t, message.group, message.tasks, message.mode ?? "fail-fast");
        return;
      case "join":
        this.join(t, t.joinReply(message.seq), message.group);
        return;
      case "send":
        this.mailboxes.send(message.mailbox, message.value);
        return;
      case "receive":
        this.mailboxes.receive(t, t.receiveReply(message.seq), message.mailbox, message.timeoutMs);
        return;
      case "wait": {
        t.suspended = true;
        const wait = message.wait;
        if (wait.kind === "join") this.join(t, t.joinReply(null), wait.group);
        else if (wait.kind === "receive") this.mailboxes.receive(t, t.receiveReply(null), wait.mailbox, wait.timeoutMs);
        else {
          // A think its task is suspended in (decision 0016, "Thinks"); its `think-start` came as an event.
          const request = { ...wait.request, id: this.globalThink(t, wait.request.id) };
          t.bridge.startDeferred(request, (answer) => {
            if (!t.ended) t.resume(answer);
          });
        }
        this.pump();
        return;
      }
      case "session-dir": {
        const dir = this.options.init.session?.dir;
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

  // ───────────────────────────── think numbers ─────────────────────────────

  private globalThink(t: EvaluatorThread, local: number): number {
    let id = t.thinkIds.get(local);
    if (id === undefined) t.thinkIds.set(local, (id = ++this.thinkCount));
    return id;
  }

  /** A thread's event with the run's think numbers. */
  private renumber(t: EvaluatorThread, event: Extract<WorkerMessage, { type: "event" }>["event"]): RunEvent {
    switch (event.type) {
      case "think-start":
      case "think-end":
        return { ...event, id: this.globalThink(t, event.id) };
      case "do-start":
      case "do-end":
        return { ...event, thinkId: this.globalThink(t, event.thinkId) };
      case "loop-start":
      case "loop-item":
      case "loop-end":
        return t.run ? { ...event, worker: t.run.key } : event;
      default:
        return event;
    }
  }

  // ───────────────────────────── fork and join ─────────────────────────────

  private delegate(owner: EvaluatorThread, id: number, tasks: WorkerTask[], mode: DelegateMode): void {
    const group: Group = { owner, id, mode, runs: [], results: tasks.map(() => null), failures: tasks.map(() => null), left: tasks.length, failure: null, joinReply: null };
    const prefix = owner.run ? `${owner.label}/` : "";
    group.runs = tasks.map((spec, index) => ({ spec, key: `${prefix}${spec.worker}#${++owner.delegated}`, group, index, state: "queued", thread: null }));
    owner.groups.set(id, group);
    const name = `${owner.run ? owner.run.key : "main"}@${id}`;
    this.groupNames.set(group, name);
    const labels = tasks.slice(0, MAX_LABELS).map((task) => taskLabel(task));
    this.options.emit({ type: "delegate-start", group: name, owner: owner.run ? owner.run.key : "main", total: tasks.length, labels });
    if (tasks.length === 0) this.groupEnded(group, true);
    this.queue.push(...group.runs);
    this.pump();
  }

  private join(t: EvaluatorThread, reply: (result: JoinResult) => void, id: number): void {
    const group = t.groups.get(id);
    if (!group) {
      reply({ ok: true, values: [] });
      return;
    }
    group.joinReply = reply;
    this.answerJoin(group);
    this.pump();
  }

  /** Answers the owner's join once the group is complete or has failed. */
  private answerJoin(group: Group): void {
    if (group.joinReply === null || (group.left > 0 && !group.failure)) return;
    const reply = group.joinReply;
    group.joinReply = null;
    group.owner.groups.delete(group.id);
    reply(joinAnswer(group));
  }

  /**
   * Starts queued tasks while fewer than `maxWorkers` tasks are running (not blocked in `await`
   * or `receive`, not suspended) and fewer than `cpuSlots` threads use the CPU; past that, a task
   * waits for a thread to block or end, or `starvedMs` (then one starts anyway).
   */
  private pump(): void {
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

  /**
   * The AST of a task's file, so that its thread needs no parser: parsed ahead of the run (the
   * CLI), or the main program's as its thread sent it with its first delegation. Otherwise the
   * task's thread parses the file itself.
   */
  private programOf(fileName: string): Program | undefined {
    const { init } = this.options;
    if (fileName === init.fileName && !fileName.endsWith(".json")) return init.parsed?.program ?? this.program ?? undefined;
    const module = init.modules?.[fileName];
    return module && !module.diagnostics.some((d) => d.severity === "error") ? module.program : undefined;
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
    const init = this.taskInit(run);
    const shares = init.taskProgram !== undefined && this.sharesOf(run.spec);
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
    const t = new EvaluatorThread(init.taskId!, run.key, run, host, this.hostOptions);
    this.threads.add(t);
    run.state = "running";
    run.thread = t;
    const key = init.taskProgramKey;
    const known = key !== undefined && host.programs.has(key);
    if (key !== undefined) host.programs.add(key);
    if (!fresh) host.worker.postMessage({ type: "next-task", init: known ? { ...init, taskProgram: undefined } : init } satisfies NextTaskMessage);
    this.options.emit({ type: "task-start", worker: run.key, thread: host.number });
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

  private taskInit(run: TaskRun): WorkerInit {
    const program = this.taskProgramOf(run.spec);
    const key = program ? `${run.spec.fileName}\0${run.spec.worker}` : undefined;
    const task: WorkerInit = { ...this.standbyInit(), task: run.spec, taskProgram: program, taskProgramKey: key, worker: run.key, taskId: ++this.taskCount };
    // A thread given the AST never reads the program's text (a copy per task otherwise: 0.3 MB each for a 300 KB program).
    if (program) task.source = "";
    return task;
  }

  /** Each worker's AST without the functions it can never call (task-program.ts), made once per worker. */
  private readonly taskPrograms = new Map<string, { program: Program; shares: boolean | undefined }>();
  private taskProgramOf(spec: WorkerTask): Program | undefined {
    const key = `${spec.fileName}\0${spec.worker}`;
    let trimmed = this.taskPrograms.get(key);
    if (!trimmed) {
      const program = this.programOf(spec.fileName);
      if (!program) return undefined;
      this.taskPrograms.set(key, (trimmed = { program: taskProgram(program, spec.worker), shares: undefined }));
    }
    return trimmed.program;
  }

  /** Whether tasks of this worker may share a thread (decision 0016; imports are not looked into). */
  private sharesOf(spec: WorkerTask): boolean {
    const entry = this.taskPrograms.get(`${spec.fileName}\0${spec.worker}`);
    if (!entry) return false;
    entry.shares ??= !entry.program.body.some((item) => item.kind === "Import") && sharesThread(entry.program);
    return entry.shares;
  }

  /** What every task thread's init shares (a task's adds the task). */
  private standbyInit(): WorkerInit {
    return {
      ...this.options.init,
      entry: undefined,
      argStrings: undefined,
      args: undefined,
      entryMayBeArgument: undefined,
      parsed: undefined,
      gated: undefined,
      standby: undefined,
      lineBuffered: true,
      // A task thread never reads the terminal: `ask` goes to the agent.
      askUser: false,
    };
  }

  private taskEnded(t: EvaluatorThread, end: RootEnd): void {
    const run = t.run!;
    const host = t.host;
    this.threads.delete(t);
    if (run.state !== "running" || t.ended) return;
    t.ended = true;
    host.tasks.delete(t.id);
    // Tasks it delegated and never awaited end with it.
    this.cancelGroupsOf(t, "the worker that started this task has ended");
    const group = run.group;
    const ok = end.kind === "done" && !end.outcome.diagnostics.some((d) => d.severity === "error");
    this.options.emit({ type: "task-end", worker: run.key, ok });
    run.state = "done";
    group.left--;
    if (ok) group.results[run.index] = end.outcome.value;
    else this.taskFailed(group, run, failureOf(run.spec, end));
    if (group.left === 0 || group.failure) this.groupEnded(group, !group.failure);
    if (end.kind !== "done") this.dropHost(host);
    else this.hostFreed(host);
    this.answerJoin(group);
    this.pump();
  }

  /** A fail-fast group's first failure (or a settled group's fatal one) cancels the other tasks. */
  private taskFailed(group: Group, run: TaskRun, failure: WorkerFailure): void {
    group.failures[run.index] = failure;
    if (group.failure || (group.mode === "settle" && !isFatalCode(failure.code))) return;
    group.failure = failure;
    for (const other of group.runs) this.cancelRun(other, `worker '${run.spec.worker}' failed`);
  }

  private cancelRun(run: TaskRun, why: string): void {
    if (run.state === "queued") run.state = "cancelled";
    else if (run.state === "running" && run.thread) {
      run.state = "cancelled";
      const t = run.thread;
      this.cancelGroupsOf(t, why);
      this.mailboxes.dropWaiters(t);
      t.stop(AgentCodes.cancelled, `cancelled: ${why}`);
      this.threads.delete(t);
      if (t.host.ended) this.hosts.delete(t.host);
      else this.hostFreed(t.host);
    }
  }

  private cancelGroupsOf(t: EvaluatorThread, why: string): void {
    for (const group of t.groups.values()) {
      this.groupEnded(group, false);
      for (const run of group.runs) this.cancelRun(run, why);
    }
    t.groups.clear();
  }

  /** A group's `delegate-end` (once): its tasks are all done, or one failed, or it was cancelled. */
  private groupEnded(group: Group, ok: boolean): void {
    const name = this.groupNames.get(group);
    if (name === undefined) return;
    this.groupNames.delete(group);
    this.options.emit({ type: "delegate-end", group: name, ok });
  }
}

/** Task labels a `delegate-start` carries at most (its `total` counts them all). */
const MAX_LABELS = 200;

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

/** The owner's answer to a join of `group`, complete or failed. */
function joinAnswer(group: Group): JoinResult {
  if (group.failure) return { ok: false, failure: group.failure };
  if (group.mode === "fail-fast") return { ok: true, values: group.results };
  return { ok: "settled", outcomes: group.runs.map((r) => (group.failures[r.index] ? { ok: false, failure: group.failures[r.index]! } : { ok: true, value: group.results[r.index]! })) };
}

/** A task's failure from how its thread ended. */
function failureOf(spec: WorkerTask, end: RootEnd): WorkerFailure {
  const start = { offset: 0, line: 1, column: 1 };
  if (end.kind === "crashed") return { worker: spec.worker, code: AgentCodes.evaluatorCrashed, message: end.message, fileName: spec.fileName, span: { start, end: start } };
  const d = end.outcome.diagnostics.find((x) => x.severity === "error")!;
  const f: WorkerFailure = { worker: spec.worker, code: d.code, message: d.message, fileName: d.fileName ?? spec.fileName, span: d.span };
  if (end.outcome.thrown !== undefined) f.thrown = end.outcome.thrown;
  return f;
}

/**
 * The evaluator threads of one run: the program's own thread and one thread per running
 * worker task (language.md §4, docs/workers.md). Every thread talks to the one agent runtime
 * through its own ThinkBridge; the pool owns what workers share and what their lifetime needs:
 * fork-join groups, the mailboxes, the `--max-workers` queue, think numbering across threads,
 * and cancellation (a failed task stops its siblings: their thinks, shell commands, threads).
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { JsonValue, WorkerFailure, WorkerTask } from "@patchwork/interpreter";
import { AgentError, ensureSessionDir } from "@patchwork/interpreter";
import type { Program, Span } from "@patchwork/parser";
import { AgentCodes } from "../errors.js";
import type { AsyncAgent, RunEvent } from "../types.js";
import { ThinkBridge } from "./bridge.js";
import type { GoMessage, NextTaskMessage, RunOutcome, WorkerInit, WorkerMessage } from "./protocol.js";
import { ShellRunner } from "./shell.js";
import { taskProgram } from "./task-program.js";
import { newWriteLock, terminateOutsideWrites } from "./write-lock.js";

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
}

/** How the program's thread ended. */
export type RootEnd = { kind: "done"; outcome: RunOutcome } | { kind: "crashed"; message: string };

interface TaskRun {
  spec: WorkerTask;
  /**
   * The task's worker key: `NAME#N`, the Nth task its delegating thread started, after that
   * thread's own key for nested delegations (`coordinator#1/helper#2`). It labels the thread's
   * thinks in events, traces, cassettes and `--verbose`, and keys its redirect stack; it does
   * not depend on timing, so a replay finds the same keys.
   */
  key: string;
  group: Group;
  index: number;
  state: "queued" | "running" | "done" | "cancelled";
  thread: EvaluatorThread | null;
}

interface Group {
  owner: EvaluatorThread;
  id: number;
  runs: TaskRun[];
  results: JsonValue[];
  left: number;
  failure: WorkerFailure | null;
  /** The owner's channel waiting in `join`, if it is waiting. */
  joinSeq: number | null;
}

interface Waiter {
  thread: EvaluatorThread;
  seq: number;
  timer: NodeJS.Timeout;
}

const noAgent: AsyncAgent = {
  think: () => Promise.reject(new AgentError(AgentCodes.requestFailed, "no agent is configured")),
};

class EvaluatorThread {
  readonly worker: Worker;
  /** Shared with the thread's `write()`s: a stop waits for a write under way (write-lock.ts). */
  readonly writeLock = newWriteLock();
  readonly bridge: ThinkBridge;
  readonly shells: ShellRunner;
  readonly groups = new Map<number, Group>();
  /** This thread's think numbers → the run's. */
  readonly thinkIds = new Map<number, number>();
  /** Requests (join, receive) it is blocked in. */
  blocked = 0;
  /** Tasks it has delegated so far (their keys count from 1 in delegation order). */
  delegated = 0;
  ended = false;
  /** Its task done, it waits for another (pool.ts keeps up to `maxWorkers` such threads). */
  idle = false;

  /** Using the CPU (starting, or running code): not idle and not blocked in a request. */
  get busy(): boolean {
    return !this.ended && !this.idle && this.blocked === 0 && !this.bridge.waiting && !this.shells.busy;
  }

  constructor(
    public label: string,
    public run: TaskRun | null,
    init: WorkerInit,
    pool: PoolOptions,
  ) {
    this.bridge = new ThinkBridge(pool.agent ?? noAgent, pool.runSignal, pool.emit, label);
    this.shells = new ShellRunner({ env: pool.env, stdin: pool.shellStdin });
    this.worker = new Worker(pool.workerPath, { workerData: { ...init, writeLock: this.writeLock } });
  }

  /** Gives the thread, its task done, the next task (no new thread to start). */
  reuse(run: TaskRun, init: WorkerInit): void {
    this.idle = false;
    this.label = run.key;
    this.run = run;
    this.thinkIds.clear();
    this.blocked = 0;
    this.delegated = 0;
    this.bridge.nextTask(run.key);
    this.worker.postMessage({ type: "next-task", init } satisfies NextTaskMessage);
  }

  /** Stops everything this thread runs: its thinks, its shell commands, the thread itself. */
  stop(code: string, message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.bridge.shutdown(code, message);
    this.shells.killAll();
    this.terminate();
  }

  /** Terminates the thread, never inside a `write()` (write-lock.ts). */
  terminate(): void {
    void terminateOutsideWrites(this.worker, this.writeLock);
  }
}

export class EvaluatorPool {
  private readonly threads = new Set<EvaluatorThread>();
  private readonly queue: TaskRun[] = [];
  /** Task threads whose task is done, waiting for the next (see `reuseFor`). */
  private readonly idle: EvaluatorThread[] = [];
  private readonly mailboxes = new Map<string, { messages: JsonValue[]; waiters: Waiter[] }>();
  private thinkCount = 0;
  private root: EvaluatorThread | null = null;
  private closed = false;
  private program: Program | null | undefined;
  private readonly cpuSlots: number;
  /** Armed while queued tasks wait for a CPU slot: then one starts anyway. */
  private starvedTimer: NodeJS.Timeout | null = null;
  private starved = false;

  constructor(private readonly options: PoolOptions) {
    this.cpuSlots = Math.max(1, options.cpuSlots ?? availableParallelism());
  }

  /** Starts the program's thread; resolves when it ends. */
  start(): Promise<RootEnd> {
    return new Promise((resolve) => {
      const root = new EvaluatorThread("main", null, this.options.init, this.options);
      this.root = root;
      this.threads.add(root);
      this.listen(root, (end) => resolve(end));
      if (declaresWorkers(this.options.init)) this.prewarm(Math.min(this.cpuSlots, this.options.maxWorkers));
    });
  }

  /** The agent is up: the program's thread (started `gated`) runs its program. */
  release(): void {
    if (!this.closed) this.root?.worker.postMessage({ type: "go" } satisfies GoMessage);
  }

  /**
   * Starts `count` task threads ahead of any task, while the program's thread starts (and the
   * agent, if any): they wait idle, and the first delegation's tasks take them without the wait
   * for a thread start (≈ 0.1 s of CPU each: docs/benchmarks.md). For programs that declare
   * workers only; at most as many as may use the CPU at once.
   */
  private prewarm(count: number): void {
    for (let i = 0; i < count; i++) {
      const init: WorkerInit = { ...this.standbyInit(), standby: true };
      const t = new EvaluatorThread("standby", null, init, this.options);
      t.idle = true;
      this.threads.add(t);
      this.idle.push(t);
      this.listen(t);
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
    for (const t of this.threads) t.stop(code, message);
    this.threads.clear();
    this.queue.length = 0;
    this.idle.length = 0;
    for (const box of this.mailboxes.values()) for (const w of box.waiters) clearTimeout(w.timer);
    this.mailboxes.clear();
  }

  private listen(t: EvaluatorThread, onRootEnd?: (end: RootEnd) => void): void {
    let rootEnd = onRootEnd;
    const ended = (end: RootEnd) => {
      if (!t.run) {
        if (!rootEnd) return;
        const report = rootEnd;
        rootEnd = undefined;
        t.ended = true;
        t.terminate();
        report(end);
        return;
      }
      if (t.ended) return;
      this.taskEnded(t, end);
    };
    t.worker.on("message", (message: WorkerMessage) => {
      if (t.ended && message.type !== "done") return;
      this.onMessage(t, message, ended);
    });
    t.worker.once("error", (error) => ended({ kind: "crashed", message: `the evaluator thread crashed: ${error.message}` }));
    t.worker.once("exit", (code) => {
      t.bridge.shutdown(AgentCodes.evaluatorCrashed, "the evaluator thread exited");
      ended({ kind: "crashed", message: `the evaluator thread exited (code ${code})` });
    });
  }

  private onMessage(t: EvaluatorThread, message: WorkerMessage, ended: (end: RootEnd) => void): void {
    const { emit } = this.options;
    switch (message.type) {
      case "hello":
        t.bridge.connect(message);
        return;
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
        this.delegate(t, message.group, message.tasks);
        return;
      case "join":
        this.join(t, message.seq, message.group);
        return;
      case "send":
        this.send(message.mailbox, message.value);
        return;
      case "receive":
        this.receive(t, message.seq, message.mailbox, message.timeoutMs);
        return;
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
      default:
        return event;
    }
  }

  // ───────────────────────────── fork and join ─────────────────────────────

  private delegate(owner: EvaluatorThread, id: number, tasks: WorkerTask[]): void {
    const group: Group = { owner, id, runs: [], results: tasks.map(() => null), left: tasks.length, failure: null, joinSeq: null };
    const prefix = owner.run ? `${owner.label}/` : "";
    group.runs = tasks.map((spec, index) => ({ spec, key: `${prefix}${spec.worker}#${++owner.delegated}`, group, index, state: "queued", thread: null }));
    owner.groups.set(id, group);
    this.queue.push(...group.runs);
    this.pump();
  }

  private join(t: EvaluatorThread, seq: number, id: number): void {
    const group = t.groups.get(id);
    if (!group) {
      t.bridge.answer(seq, { type: "joined", result: { ok: true, values: [] } });
      return;
    }
    group.joinSeq = seq;
    t.blocked++;
    this.settle(group);
    this.pump();
  }

  /** Answers the owner's join once the group is complete or has failed. */
  private settle(group: Group): void {
    if (group.joinSeq === null || (group.left > 0 && !group.failure)) return;
    const seq = group.joinSeq;
    group.joinSeq = null;
    group.owner.blocked--;
    group.owner.groups.delete(group.id);
    const result = group.failure ? { ok: false as const, failure: group.failure } : { ok: true as const, values: group.results };
    group.owner.bridge.answer(seq, { type: "joined", result });
  }

  /**
   * Starts queued tasks while fewer than `maxWorkers` task threads are running (not blocked in
   * `await` or `receive`) and fewer than `cpuSlots` threads use the CPU; past that, a task waits
   * for a thread to block or end, or `starvedMs` (then one starts anyway).
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
    for (const t of this.threads) if (t.busy) n++;
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
    for (const t of this.threads) if (t.run && !t.ended && !t.idle && t.blocked === 0) n++;
    return n;
  }

  /** A task starts: the wait for a CPU slot counts again from now. */
  private started(): void {
    this.starved = false;
    if (this.starvedTimer) clearTimeout(this.starvedTimer);
    this.starvedTimer = null;
  }

  private spawn(run: TaskRun): void {
    this.started();
    const idle = this.takeIdle();
    if (idle) return this.assign(idle, run);
    const t = new EvaluatorThread(run.key, run, this.taskInit(run), this.options);
    run.state = "running";
    run.thread = t;
    this.threads.add(t);
    this.listen(t);
    this.options.emit({ type: "task-start", worker: run.key });
  }

  /** An idle task thread still alive, if any. */
  private takeIdle(): EvaluatorThread | undefined {
    for (;;) {
      const t = this.idle.pop();
      if (!t || (!t.ended && t.worker.threadId !== -1)) return t;
      this.threads.delete(t);
    }
  }

  /**
   * A finished task's thread takes the next queued task, if there is one, or waits idle for
   * the next delegation: a thread costs a V8 isolate and Node's bootstrap (≈ 0.1 s of CPU), so
   * a program that delegates many tasks starts at most `maxWorkers` task threads, not one per
   * task. Only after a clean end (a thread that crashed or was stopped is never reused); idle
   * threads beyond `maxWorkers` are stopped, and all of them at the end of the run.
   */
  private reuseFor(t: EvaluatorThread): boolean {
    if (this.next(t)) return true;
    if (this.idle.length >= this.options.maxWorkers) return false;
    t.idle = true;
    this.idle.push(t);
    return true;
  }

  private next(t: EvaluatorThread): boolean {
    for (;;) {
      const next = this.queue.shift();
      if (!next) return false;
      if (next.state !== "queued") continue;
      this.assign(t, next);
      return true;
    }
  }

  /** A live task thread, its task done, runs `run` next. */
  private assign(t: EvaluatorThread, run: TaskRun): void {
    this.started();
    t.reuse(run, this.taskInit(run));
    run.state = "running";
    run.thread = t;
    this.options.emit({ type: "task-start", worker: run.key });
  }

  private taskInit(run: TaskRun): WorkerInit {
    return { ...this.standbyInit(), task: run.spec, taskProgram: this.taskProgramOf(run.spec), worker: run.key };
  }

  /** Each worker's AST without the functions it can never call (task-program.ts), made once per worker. */
  private readonly taskPrograms = new Map<string, Program>();
  private taskProgramOf(spec: WorkerTask): Program | undefined {
    const key = `${spec.fileName}\0${spec.worker}`;
    let trimmed = this.taskPrograms.get(key);
    if (!trimmed) {
      const program = this.programOf(spec.fileName);
      if (!program) return undefined;
      this.taskPrograms.set(key, (trimmed = taskProgram(program, spec.worker)));
    }
    return trimmed;
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
    if (run.state !== "running") return;
    // Tasks it delegated and never awaited end with it.
    this.cancelGroupsOf(t, "the worker that started this task has ended");
    const group = run.group;
    const ok = end.kind === "done" && !end.outcome.diagnostics.some((d) => d.severity === "error");
    this.options.emit({ type: "task-end", worker: run.key, ok });
    if (ok) {
      run.state = "done";
      group.results[run.index] = end.outcome.value;
      group.left--;
    } else {
      run.state = "done";
      group.left--;
      if (!group.failure) {
        group.failure = failureOf(run.spec, end);
        for (const other of group.runs) this.cancelRun(other, `worker '${run.spec.worker}' failed`);
      }
    }
    if (end.kind !== "done" || this.closed || !this.reuseFor(t)) {
      t.stop(AgentCodes.cancelled, "the worker has ended");
      this.threads.delete(t);
    }
    this.settle(group);
    this.pump();
  }

  private cancelRun(run: TaskRun, why: string): void {
    if (run.state === "queued") run.state = "cancelled";
    else if (run.state === "running" && run.thread) {
      run.state = "cancelled";
      const t = run.thread;
      this.cancelGroupsOf(t, why);
      this.dropWaiters(t);
      t.stop(AgentCodes.cancelled, `cancelled: ${why}`);
      this.threads.delete(t);
    }
  }

  private cancelGroupsOf(t: EvaluatorThread, why: string): void {
    for (const group of t.groups.values()) for (const run of group.runs) this.cancelRun(run, why);
    t.groups.clear();
  }

  // ───────────────────────────── mailboxes ─────────────────────────────

  private box(name: string) {
    let box = this.mailboxes.get(name);
    if (!box) this.mailboxes.set(name, (box = { messages: [], waiters: [] }));
    return box;
  }

  private send(name: string, value: JsonValue): void {
    const box = this.box(name);
    const waiter = box.waiters.shift();
    if (waiter) this.answerReceive(waiter, { ok: true, value });
    else box.messages.push(value);
  }

  private receive(t: EvaluatorThread, seq: number, name: string, timeoutMs: number): void {
    const box = this.box(name);
    if (box.messages.length > 0) {
      t.bridge.answer(seq, { type: "received", result: { ok: true, value: box.messages.shift()! } });
      return;
    }
    t.blocked++;
    const waiter: Waiter = {
      thread: t,
      seq,
      timer: setTimeout(() => {
        const i = box.waiters.indexOf(waiter);
        if (i >= 0) box.waiters.splice(i, 1);
        this.answerReceive(waiter, { ok: false, reason: "timeout" });
      }, Math.min(timeoutMs, 2 ** 31 - 1)),
    };
    box.waiters.push(waiter);
    this.pump();
  }

  private answerReceive(w: Waiter, result: { ok: true; value: JsonValue } | { ok: false; reason: "timeout" }): void {
    clearTimeout(w.timer);
    w.thread.blocked--;
    w.thread.bridge.answer(w.seq, { type: "received", result });
  }

  /** A stopped thread's pending receives are dropped (pending receives are aborted). */
  private dropWaiters(t: EvaluatorThread): void {
    for (const box of this.mailboxes.values()) {
      box.waiters = box.waiters.filter((w) => {
        if (w.thread !== t) return true;
        clearTimeout(w.timer);
        return false;
      });
    }
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

/** A task's failure from how its thread ended. */
function failureOf(spec: WorkerTask, end: RootEnd): WorkerFailure {
  const start = { offset: 0, line: 1, column: 1 };
  if (end.kind === "crashed") return { worker: spec.worker, code: AgentCodes.evaluatorCrashed, message: end.message, fileName: spec.fileName, span: { start, end: start } };
  const d = end.outcome.diagnostics.find((x) => x.severity === "error")!;
  const f: WorkerFailure = { worker: spec.worker, code: d.code, message: d.message, fileName: d.fileName ?? spec.fileName, span: d.span };
  if (end.outcome.thrown !== undefined) f.thrown = end.outcome.thrown;
  return f;
}

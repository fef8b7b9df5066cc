/**
 * The evaluators of one run: the program's own thread (local-threads.ts) and its worker tasks
 * (language.md §4, docs/workers.md), wherever a `TaskScheduler` runs them (scheduler.ts: this
 * process's threads by default, or a fleet's queue). The pool owns the fork-join groups above
 * that seam: a delegation's tasks, the join that waits for them, and cancellation (a failed task
 * of a fail-fast delegation stops its siblings, a settled one, `self.delegate(…).settle()`, lets
 * them finish; a task that ends stops the tasks it delegated and never awaited).
 */
import { writeSync } from "node:fs";
import type { DelegateMode, JoinResult, WorkerFailure, WorkerTask } from "@patchwork/interpreter";
import { AgentError, isFatalCode } from "@patchwork/interpreter/core";
import type { Span } from "@patchwork/parser";
import { AgentCodes } from "../errors.js";
import type { AsyncAgent, RunEvent } from "../types.js";
import { taskLabel } from "../progress/labels.js";
import { LocalThreads, type GroupLogic, type TaskRoute } from "./local-threads.js";
import type { PoolOptions } from "./pool-options.js";
import { ThinkNumbers, type RootEnd, type TaskScheduler } from "./scheduler.js";
import type { EvaluatorThread, Group, HostOptions, TaskRun } from "./thread-host.js";

export type { RootEnd } from "./scheduler.js";
export { TASKS_PER_THREAD } from "./local-threads.js";

export type { PoolOptions } from "./pool-options.js";

const noAgent: AsyncAgent = {
  think: () => Promise.reject(new AgentError(AgentCodes.requestFailed, "no agent is configured")),
};

export class EvaluatorPool implements GroupLogic {
  /** The program's thread (and, by default, the tasks'). */
  private readonly local: LocalThreads;
  /** Where worker tasks run. */
  private readonly scheduler: TaskScheduler;
  /** Tasks that another run delegated (task-host.ts), with where their reports go. */
  private readonly adopted = new Map<TaskRun, TaskRoute & { ended: (end: RootEnd) => void }>();
  /** Groups not yet ended, by their name in `delegate-start`/`delegate-end` events. */
  private readonly groupNames = new Map<Group, string>();

  constructor(private readonly options: PoolOptions) {
    const hostOptions: HostOptions = { ...options, agent: options.agent ?? noAgent };
    const numbers = new ThinkNumbers();
    this.local = new LocalThreads(options, hostOptions, this, numbers);
    this.scheduler = options.scheduler?.(this, numbers, { session: options.init.session }) ?? this.local;
  }

  /** Threads started so far (the program's included), for tests and benchmarks. */
  get threadsStarted(): number {
    return this.local.threadsStarted;
  }

  /** Starts the program's thread; resolves when it ends. */
  start(): Promise<RootEnd> {
    return this.local.start();
  }

  /** The agent is up: the program's thread (started `gated`) runs its program. */
  release(): void {
    this.local.release();
  }

  /** Whether a think is under way on any thread (its agent turn, or one of its `do` blocks). */
  get thinking(): boolean {
    return this.local.thinking;
  }

  /** The innermost think under way on the program's thread. */
  innermostThink(): { span: Span; fileName: string } | undefined {
    return this.local.innermostThink();
  }

  /**
   * What the program's thread is doing, for positions: the shell command it waits for (run
   * from a `do` block too), else the innermost think under way.
   */
  innermost(): { span: Span; fileName: string } | undefined {
    return this.local.innermost();
  }

  /** Stops every task and thread (cancel, timeout, the end of the run). */
  shutdown(code: string, message: string): void {
    if (this.scheduler !== this.local) this.scheduler.shutdown(code, message);
    this.local.shutdown(code, message);
  }

  // ───────────── what tasks of another scheduler report (a fleet's) ─────────────
  // (This process's threads write their output and `log` text themselves: writeOutput.)

  emit(event: RunEvent): void {
    if (event.type === "log" && this.options.init.writeOutput) writeSync(2, event.text);
    this.options.emit(event);
  }

  output(text: string): void {
    if (this.options.init.writeOutput) writeSync(1, text);
    this.options.onOutput(text);
  }

  // ───────────────────────────── tasks of another run ─────────────────────────────

  /**
   * Runs a task that another run delegated (a fleet's coordinator: task-host.ts) on this pool's
   * threads, in a group of its own; it and the tasks it delegates report to `route`, its end to `ended`.
   */
  adopt(spec: WorkerTask, key: string, route: TaskRoute & { ended: (end: RootEnd) => void }): TaskRun {
    const group = { owner: undefined, id: -1, runs: [], results: [null], left: 1, failure: null, joinReply: null } as unknown as Group;
    const run: TaskRun = { spec, key, group, index: 0, state: "queued", thread: null };
    group.runs.push(run);
    this.adopted.set(run, route);
    this.scheduler.submit([run]);
    return run;
  }

  /** Stops an adopted task (and the tasks it delegated); its end is not reported. */
  abandon(run: TaskRun, why: string): void {
    this.adopted.delete(run);
    this.cancelRun(run, why);
  }

  routeOf(run: TaskRun): TaskRoute | undefined {
    for (let r: TaskRun | null | undefined = run; r; r = r.group.owner?.run) {
      const route = this.adopted.get(r);
      if (route) return route;
    }
    return undefined;
  }

  // ───────────────────────────── fork and join ─────────────────────────────

  delegate(owner: EvaluatorThread, id: number, tasks: WorkerTask[], mode: DelegateMode): void {
    const group: Group = { owner, id, mode, runs: [], results: tasks.map(() => null), failures: tasks.map(() => null), left: tasks.length, failure: null, joinReply: null };
    const prefix = owner.run ? `${owner.label}/` : "";
    group.runs = tasks.map((spec, index) => ({ spec, key: `${prefix}${spec.worker}#${++owner.delegated}`, group, index, state: "queued", thread: null }));
    owner.groups.set(id, group);
    const name = `${owner.run ? owner.run.key : "main"}@${id}`;
    this.groupNames.set(group, name);
    const labels = tasks.slice(0, MAX_LABELS).map((task) => taskLabel(task));
    this.options.emit({ type: "delegate-start", group: name, owner: owner.run ? owner.run.key : "main", total: tasks.length, labels });
    if (tasks.length === 0) this.groupEnded(group, true);
    this.scheduler.submit(group.runs);
  }

  join(t: EvaluatorThread, reply: (result: JoinResult) => void, id: number): void {
    const group = t.groups.get(id);
    if (!group) {
      reply({ ok: true, values: [] });
      return;
    }
    group.joinReply = reply;
    this.answerJoin(group);
  }

  /** Answers the owner's join once the group is complete or has failed. */
  private answerJoin(group: Group): void {
    if (group.joinReply === null || (group.left > 0 && !group.failure)) return;
    const reply = group.joinReply;
    group.joinReply = null;
    group.owner.groups.delete(group.id);
    reply(joinAnswer(group));
  }

  /** A task ended (its thread freed by the scheduler): its group counts it, and fails fast on an error. */
  ended(run: TaskRun, end: RootEnd): void {
    const adopted = this.adopted.get(run);
    if (adopted) {
      this.adopted.delete(run);
      run.state = "done";
      return adopted.ended(end);
    }
    const group = run.group;
    const ok = end.kind === "done" && !end.outcome.diagnostics.some((d) => d.severity === "error");
    this.options.emit({ type: "task-end", worker: run.key, ok });
    run.state = "done";
    group.left--;
    if (ok) group.results[run.index] = end.outcome.value;
    else this.taskFailed(group, run, failureOf(run.spec, end));
    if (group.left === 0 || group.failure) this.groupEnded(group, !group.failure);
    this.answerJoin(group);
  }

  /** A fail-fast group's first failure (or a settled group's fatal one) cancels the other tasks. */
  private taskFailed(group: Group, run: TaskRun, failure: WorkerFailure): void {
    group.failures[run.index] = failure;
    if (group.failure || (group.mode === "settle" && !isFatalCode(failure.code))) return;
    group.failure = failure;
    for (const other of group.runs) this.cancelRun(other, `worker '${run.spec.worker}' failed`);
  }

  private cancelRun(run: TaskRun, why: string): void {
    if (run.state !== "queued" && run.state !== "running") return;
    run.state = "cancelled";
    this.scheduler.cancel(run, why);
  }

  cancelGroupsOf(t: EvaluatorThread, why: string): void {
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

/** The owner's answer to a join of `group`, complete or failed. */
function joinAnswer(group: Group): JoinResult {
  if (group.failure) return { ok: false, failure: group.failure };
  if (group.mode === "fail-fast") return { ok: true, values: group.results };
  return { ok: "settled", outcomes: group.runs.map((r) => (group.failures[r.index] ? { ok: false, failure: group.failures[r.index]! } : { ok: true, value: group.results[r.index]! })) };
}

/** A task's failure from how its evaluator ended. */
function failureOf(spec: WorkerTask, end: RootEnd): WorkerFailure {
  const start = { offset: 0, line: 1, column: 1 };
  if (end.kind === "crashed") return { worker: spec.worker, code: AgentCodes.evaluatorCrashed, message: end.message, fileName: spec.fileName, span: { start, end: start } };
  const d = end.outcome.diagnostics.find((x) => x.severity === "error")!;
  const f: WorkerFailure = { worker: spec.worker, code: d.code, message: d.message, fileName: d.fileName ?? spec.fileName, span: d.span };
  if (end.outcome.thrown !== undefined) f.thrown = end.outcome.thrown;
  return f;
}

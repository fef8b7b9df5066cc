/**
 * The in-thread `Workers`: the library's `run()` and every other single-thread use. Tasks
 * run on the caller's thread, one after another, deterministically:
 * - `start` queues the tasks; `join` runs the group's queued tasks in order (the first
 *   failure drops the rest of a fail-fast group: they never start; a settled group runs every
 *   task, unless one fails fatally).
 * - `receive` on an empty mailbox runs queued tasks (of any group, in start order) until a
 *   message arrives; when none is left to run, nothing can ever send, so it times out at once.
 * Results are those of the threaded runner (`@patchwork/agent`) whenever the program does
 * not depend on timing; only wall time differs (no two tasks run at once).
 */
import { isFatalCode, RuntimeError } from "../errors.js";
import { toJson } from "../values.js";
import type { DelegateMode, JoinResult, JsonValue, ReceiveResult, SessionUsage, WorkerFailure, WorkerTask, Workers } from "../ports.js";
import { ensureSessionDir, newSession, NOTHING_SPENT, removeSessionDir, type SessionInfo } from "./session.js";

/**
 * Told of task groups as they start and end and of each task (`onDelegate`), for a host that
 * shows progress (`@patchwork/agent` makes its `delegate-start`/`delegate-end` events of them).
 */
export type DelegateNote =
  | { type: "group-start"; group: number; tasks: WorkerTask[] }
  | { type: "task-start" | "task-end"; group: number; index: number; ok: boolean }
  | { type: "group-end"; group: number; ok: boolean };

interface Group {
  tasks: WorkerTask[];
  mode: DelegateMode;
  results: (JsonValue | undefined)[];
  /** Each task's failure (a settled group), or null. */
  failures: (WorkerFailure | null)[];
  /** What ends the join with an error: a fail-fast group's first failure, any group's fatal one. */
  failure: WorkerFailure | null;
}

/** Runs one task to completion: its value, or throws its RuntimeError. */
export type TaskRunner = (task: WorkerTask) => JsonValue;

export class InThreadWorkers implements Workers {
  readonly sessionId: string;
  readonly sessionTimestamp: string;
  private readonly dir: string;
  private dirMade = false;
  private readonly groups = new Map<number, Group>();
  private readonly queue: { group: number; index: number }[] = [];
  private readonly mailboxes = new Map<string, JsonValue[]>();
  private lastGroup = 0;

  constructor(
    private readonly runner: TaskRunner,
    session: SessionInfo = newSession(),
    private readonly onDelegate: ((note: DelegateNote) => void) | null = null,
  ) {
    this.sessionId = session.id;
    this.sessionTimestamp = session.timestamp;
    this.dir = session.dir;
  }

  sessionDir(): string {
    ensureSessionDir(this.dir);
    this.dirMade = true;
    return this.dir;
  }

  /** No agent runtime counts here (the no-agent, scripted and cassette agents spend nothing). */
  sessionUsage(): SessionUsage {
    return { ...NOTHING_SPENT };
  }

  /** Removes the session directory if the run created it. */
  cleanup(): void {
    if (this.dirMade) removeSessionDir(this.dir);
  }

  start(tasks: WorkerTask[], mode: DelegateMode = "fail-fast"): number {
    const id = ++this.lastGroup;
    this.groups.set(id, { tasks, mode, results: tasks.map(() => undefined), failures: tasks.map(() => null), failure: null });
    tasks.forEach((_, index) => this.queue.push({ group: id, index }));
    this.onDelegate?.({ type: "group-start", group: id, tasks });
    return id;
  }

  join(group: number): JoinResult {
    const g = this.groups.get(group);
    if (!g) throw new Error(`unknown worker group ${group}`);
    for (;;) {
      if (g.failure) {
        this.onDelegate?.({ type: "group-end", group, ok: false });
        return { ok: false, failure: g.failure };
      }
      const next = this.queue.findIndex((q) => q.group === group);
      if (next < 0) break;
      this.runQueued(next);
    }
    this.groups.delete(group);
    this.onDelegate?.({ type: "group-end", group, ok: true });
    if (g.mode === "settle") {
      return { ok: "settled", outcomes: g.tasks.map((_, i) => (g.failures[i] ? { ok: false, failure: g.failures[i]! } : { ok: true, value: g.results[i] ?? null })) };
    }
    return { ok: true, values: g.results.map((v) => v ?? null) };
  }

  send(name: string, value: JsonValue): void {
    let box = this.mailboxes.get(name);
    if (!box) this.mailboxes.set(name, (box = []));
    box.push(value);
  }

  receive(name: string, _timeoutMs: number): ReceiveResult {
    for (;;) {
      const box = this.mailboxes.get(name);
      if (box && box.length > 0) return { ok: true, value: box.shift()! };
      if (this.queue.length === 0) return { ok: false, reason: "timeout" };
      this.runQueued(0);
    }
  }

  private runQueued(at: number): void {
    const { group, index } = this.queue.splice(at, 1)[0]!;
    const g = this.groups.get(group)!;
    const task = g.tasks[index]!;
    this.onDelegate?.({ type: "task-start", group, index, ok: true });
    try {
      g.results[index] = this.runner(task);
      this.onDelegate?.({ type: "task-end", group, index, ok: true });
    } catch (e) {
      if (!(e instanceof RuntimeError)) throw e;
      this.onDelegate?.({ type: "task-end", group, index, ok: false });
      const failure = failureOf(task, e);
      g.failures[index] = failure;
      if (g.mode === "settle" && !isFatalCode(failure.code)) return;
      g.failure = failure;
      // The rest of the group is cancelled: it never starts.
      for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i]!.group === group) this.queue.splice(i, 1);
    }
  }
}

/** A task's RuntimeError as a WorkerFailure (data, so it can cross threads too). */
export function failureOf(task: WorkerTask, e: RuntimeError): WorkerFailure {
  const f: WorkerFailure = { worker: task.worker, code: e.code, message: e.message, fileName: e.fileName, span: e.span };
  if (e.thrown !== undefined) {
    try {
      f.thrown = JSON.parse(JSON.stringify(toJson(e.thrown))) as JsonValue;
    } catch {
      /* not data: the message says it */
    }
  }
  return f;
}

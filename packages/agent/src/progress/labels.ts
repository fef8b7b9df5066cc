/**
 * Short labels of what a run's progress names: a worker task as its worker's name and
 * arguments (`categorize("a.txt", 3)`), cut at `LABEL_LENGTH` characters without writing a
 * large argument whole.
 */
import type { DelegateNote, JsonValue, WorkerTask } from "@patchwork/interpreter";
import type { AgentEvent } from "../types.js";

export const LABEL_LENGTH = 60;

class Full extends Error {}

/** `worker(arg, …)`, one line, at most `max` characters (… at the cut). */
export function taskLabel(task: WorkerTask, max = LABEL_LENGTH): string {
  let out = "";
  const put = (text: string) => {
    out += text;
    if (out.length > max) throw new Full();
  };
  const walk = (v: JsonValue): void => {
    if (v === null || typeof v !== "object") put(JSON.stringify(v) ?? "null");
    else if (Array.isArray(v)) {
      put("[");
      v.forEach((x, i) => (i > 0 && put(", "), walk(x)));
      put("]");
    } else {
      put("{");
      Object.entries(v).forEach(([k, x], i) => (put(`${i > 0 ? ", " : ""}${k}: `), walk(x)));
      put("}");
    }
  };
  try {
    put(`${task.worker}(`);
    task.args.forEach((a, i) => (i > 0 && put(", "), walk(a)));
    put(")");
  } catch (e) {
    if (!(e instanceof Full)) throw e;
    out = out.slice(0, max - 1) + "…";
  }
  return out.replace(/\s+/g, " ");
}

/** The events of the in-thread workers' groups (the panel's session thread: no pool). */
export type DelegateEvent = Extract<AgentEvent, { type: "delegate-start" | "delegate-end" | "task-start" | "task-end" }>;

/**
 * Turns the in-thread workers' notes (`DelegateNote`) into the events the pool sends for its
 * groups: `delegate-start`/`delegate-end` (group `main@N`) and each task's start and end,
 * keyed `WORKER#N` as the pool keys them (counted from 1 in delegation order).
 */
export class InThreadDelegates {
  private count = 0;
  private readonly groups = new Map<number, { base: number; tasks: WorkerTask[] }>();

  constructor(private readonly emit: (event: DelegateEvent) => void) {}

  readonly note = (note: DelegateNote): void => {
    switch (note.type) {
      case "group-start": {
        this.groups.set(note.group, { base: this.count, tasks: note.tasks });
        this.count += note.tasks.length;
        const labels = note.tasks.slice(0, 200).map((t) => taskLabel(t));
        return this.emit({ type: "delegate-start", group: `main@${note.group}`, owner: "main", total: note.tasks.length, labels });
      }
      case "task-start":
      case "task-end": {
        const g = this.groups.get(note.group);
        if (!g) return;
        const worker = `${g.tasks[note.index]!.worker}#${g.base + note.index + 1}`;
        return this.emit(note.type === "task-start" ? { type: "task-start", worker } : { type: "task-end", worker, ok: note.ok });
      }
      case "group-end":
        this.groups.delete(note.group);
        return this.emit({ type: "delegate-end", group: `main@${note.group}`, ok: note.ok });
    }
  };
}

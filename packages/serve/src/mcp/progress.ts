/**
 * A tool call's `notifications/progress` (docs/mcp.md, "Progress"), from the run's one
 * `ProgressModel`. While a loop or a delegate task list runs (the outermost), a notification
 * says how many of its items are done: `progress` and `total` count them (offset by what came
 * before, as MCP wants `progress` to grow with every notification), at most every
 * `INTERVAL_MS` and at its end. Otherwise each think started or finished, worker task and
 * shell command is a message of its own, `progress` counting them.
 */
import { ProgressModel, type ProgressList, type RunEvent } from "@patchwork/agent";

export interface ProgressNote {
  progress: number;
  total?: number;
  message: string;
}

export const INTERVAL_MS = 100;

export class CallProgress {
  private readonly model = new ProgressModel();
  /** The list the notifications follow, and the progress it counts from. */
  private list: ProgressList | null = null;
  private base = 0;
  /** The last notification's progress (-1: none yet), its list's done count, and when. */
  private last = -1;
  private lastDone = -1;
  private lastSent = 0;

  constructor(private readonly send: (note: ProgressNote) => void) {}

  event(event: RunEvent): void {
    const now = Date.now();
    this.model.apply(event, now);
    if (this.list?.ended) {
      this.listNote(this.list, now, true);
      this.list = null;
    }
    const current = this.model.current();
    if (!this.list && current) {
      this.list = current;
      this.base = Math.max(0, this.last);
      this.lastDone = -1;
      this.listNote(current, now, true);
    }
    if (this.list) return this.listNote(this.list, now, false);
    const message = progressMessage(event);
    if (message !== null) this.note(this.last + 1, undefined, message);
  }

  /** The list's count, when it has changed and `INTERVAL_MS` has passed (`force`: its start and end). */
  private listNote(list: ProgressList, now: number, force: boolean): void {
    if (!force && (list.done === this.lastDone || now - this.lastSent < INTERVAL_MS)) return;
    const ended = list.ended;
    const s = this.model.snapshot(now);
    const thinks = s.thinksRunning > 0 ? ` · ${s.thinksRunning} think${s.thinksRunning === 1 ? "" : "s"} running` : "";
    const message = `${list.done}/${list.total ?? "?"} ${list.label}${ended ? (ended.ok ? " · done" : " · failed") : thinks}`;
    // Past an ended list the count goes on from its total (progress never goes back).
    const progress = this.base + (ended?.ok ? (list.total ?? list.done) : list.done);
    this.lastDone = list.done;
    this.lastSent = now;
    this.note(progress, list.total !== null ? this.base + list.total : undefined, message);
  }

  /** Sends a notification whose progress is above the last one's (MCP: it must grow). */
  private note(progress: number, total: number | undefined, message: string): void {
    if (this.last >= 0 && progress <= this.last) return;
    this.last = progress;
    this.send({ progress, ...(total !== undefined ? { total } : {}), message });
  }
}

/** What a progress notification says about an event outside a list, or null for events it does not report. */
export function progressMessage(event: RunEvent): string | null {
  const who = "worker" in event && event.worker !== undefined && event.worker !== "main" ? `[${event.worker}] ` : "";
  switch (event.type) {
    case "think-start":
      return `${who}think ${event.id} started (${event.fileName}:${event.span.start.line})`;
    case "think-end":
      return `${who}think ${event.id} ${event.ok ? "finished" : `failed: ${event.error ?? ""}`}`;
    case "task-start":
      return `[${event.worker}] worker started`;
    case "task-end":
      return `[${event.worker}] worker ${event.ok ? "finished" : "failed"}`;
    case "do-start":
      return `think ${event.thinkId}: do ${event.index} started`;
    case "shell":
      return `$ ${event.command.length > 80 ? `${event.command.slice(0, 80)}…` : event.command} (exit ${event.status})`;
    default:
      return null;
  }
}

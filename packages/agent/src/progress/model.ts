/**
 * The run's progress, one model for every host (docs/trace.md, "Progress"): fed the run's
 * events (`apply`), it knows the loops and delegate task lists that run, how many of their
 * items are done, the thinks in flight, retries, failures, the governor's holding back and the
 * tokens and cost so far. Hosts render it: the terminal's line (cli), the panel's plan
 * (serve/proxy), MCP progress notifications (serve/mcp).
 *
 * The list a snapshot shows is the outermost one running (the first started of those still
 * open; one with a total before a `while` loop): a loop inside it, or a task list its items
 * delegate, is a detail of its items.
 */
import type { RunEvent } from "../types.js";

/** ETA once this many items are done. */
export const ETA_AFTER = 3;

export interface ProgressListView {
  kind: "loop" | "delegate";
  label: string;
  done: number;
  total: number | null;
  etaMs: number | null;
}

export interface ProgressSnapshot {
  elapsedMs: number;
  list: ProgressListView | null;
  thinksRunning: number;
  thinksDone: number;
  retries: number;
  /** Thinks that failed (a failed task shows in its list). */
  failed: number;
  holding: { reason: string; detail: string } | null;
  usage: { inputTokens: number | null; outputTokens: number | null; cost: Record<string, number> | null };
}

/** A loop or a delegate task list, as long as it runs (and as it ended). */
export interface ProgressList {
  kind: "loop" | "delegate";
  /** `worker#loop` for a loop, the group's name for a task list. */
  key: string;
  /** `x in items.pw:3`, `3 tasks`. */
  label: string;
  /** The loop variable (a task list: "task"). */
  variable: string;
  /** The first items' labels (at most 200). */
  labels: string[];
  total: number | null;
  done: number;
  /** The item running (a loop), or -1. */
  current: number;
  /** Per task of a list, what became of it (a loop: empty). */
  tasks: ("queued" | "running" | "ok" | "failed")[];
  startedAt: number;
  /** Set when it ends: `ok` false, an error left it (or a task failed). */
  ended: { ok: boolean; at: number } | null;
  /** A think started, or a command ran, while it was open. */
  work: boolean;
  /** The evaluator that runs it ("main" or a task key) */
  owner: string;
}

export class ProgressModel {
  private start: number | null = null;
  /** Open lists in the order they started. */
  private readonly open = new Map<string, ProgressList>();
  private readonly thinks = new Set<number>();
  /** Per owner, the task keys' numbers delegated so far, and its groups by their first number. */
  private readonly delegated = new Map<string, { count: number; groups: { first: number; list: ProgressList }[] }>();
  private thinksDone = 0;
  private retries = 0;
  private failed = 0;
  private holding: ProgressSnapshot["holding"] = null;
  private inputTokens: number | null = null;
  private outputTokens: number | null = null;
  private cost: Record<string, number> | null = null;
  /** Called when a list starts (before its first item) and when it ends. */
  onList: ((list: ProgressList) => void) | null = null;

  apply(event: RunEvent, now: number): void {
    this.start ??= now;
    switch (event.type) {
      case "loop-start": {
        const variable = event.variable;
        const where = `${event.fileName}:${event.span.start.line}`;
        // (A `while` loop has no variable and no total.)
        const label = variable === "" ? `while at ${where}` : `${variable} in ${where}`;
        const owner = event.worker ?? "main";
        this.opened({ kind: "loop", key: loopKey(event), label, variable, labels: event.labels ?? [], total: event.total, done: 0, current: -1, tasks: [], startedAt: now, ended: null, work: false, owner });
        return;
      }
      case "loop-item": {
        const list = this.open.get(loopKey(event));
        if (list) {
          list.done = event.index;
          list.current = event.index;
        }
        return;
      }
      case "loop-end": {
        const list = this.open.get(loopKey(event));
        if (!list) return;
        list.done = event.done;
        list.current = -1;
        this.closed(list, event.ok, now);
        return;
      }
      case "delegate-start":
        return this.delegateStart(event, now);
      case "delegate-end": {
        const list = this.open.get(event.group);
        if (!list) return;
        this.closed(list, event.ok, now);
        // Its tasks' loops and lists still open were cancelled with them (a sibling failed).
        const group = this.delegated.get(list.owner)?.groups.find((g) => g.list === list);
        if (group) this.closeWhere((owner) => ownedBy(owner, list.owner, group.first, list.tasks.length), now);
        return;
      }
      case "task-start":
        return this.task(event.worker, "running");
      case "task-end":
        // A task that ended runs no loop any more.
        this.closeWhere((owner) => owner === event.worker || owner.startsWith(`${event.worker}/`), now);
        return this.task(event.worker, event.ok ? "ok" : "failed");
      case "think-start":
        this.thinks.add(event.id);
        this.worked();
        return;
      case "think-end":
        if (this.thinks.delete(event.id)) this.thinksDone++;
        if (!event.ok) this.failed++;
        return;
      case "shell":
        this.worked();
        return;
      case "think-retry":
        this.retries++;
        return;
      case "governor":
        this.holding = event.holding;
        return;
      case "usage": {
        const u = event.usage;
        this.inputTokens = (this.inputTokens ?? 0) + u.inputTokens;
        this.outputTokens = (this.outputTokens ?? 0) + u.outputTokens;
        for (const [currency, amount] of Object.entries(u.cost)) (this.cost ??= {})[currency] = (this.cost[currency] ?? 0) + amount;
        return;
      }
    }
  }

  /** The outermost list running that has a total (a `for` loop, a task list), else the outermost `while` loop, if any. */
  current(): ProgressList | null {
    let other: ProgressList | null = null;
    for (const list of this.open.values()) {
      if (list.total !== null) return list;
      other ??= list;
    }
    return other;
  }

  snapshot(now: number): ProgressSnapshot {
    const list = this.current();
    return {
      elapsedMs: this.start === null ? 0 : now - this.start,
      list: list ? { kind: list.kind, label: list.label, done: list.done, total: list.total, etaMs: eta(list, now) } : null,
      thinksRunning: this.thinks.size,
      thinksDone: this.thinksDone,
      retries: this.retries,
      failed: this.failed,
      holding: this.holding,
      usage: { inputTokens: this.inputTokens, outputTokens: this.outputTokens, cost: this.cost },
    };
  }

  private opened(list: ProgressList): void {
    this.open.set(list.key, list);
    this.onList?.(list);
  }

  private closed(list: ProgressList, ok: boolean, now: number): void {
    this.open.delete(list.key);
    list.ended = { ok, at: now };
    this.onList?.(list);
  }

  /** Ends, not ok, the open lists of the evaluators `which` names (tasks that ended or were cancelled). */
  private closeWhere(which: (owner: string) => boolean, now: number): void {
    for (const list of [...this.open.values()]) if (list.owner !== "main" && which(list.owner)) this.closed(list, false, now);
  }

  private worked(): void {
    for (const list of this.open.values()) list.work = true;
  }

  private delegateStart(event: Extract<RunEvent, { type: "delegate-start" }>, now: number): void {
    const label = `${event.total} task${event.total === 1 ? "" : "s"}`;
    const list: ProgressList = {
      kind: "delegate",
      key: event.group,
      label,
      variable: "task",
      labels: event.labels,
      total: event.total,
      done: 0,
      current: -1,
      tasks: new Array<"queued">(event.total).fill("queued"),
      startedAt: now,
      ended: null,
      work: false,
      owner: event.owner,
    };
    // Task keys count from 1 per owner in delegation order (pool.ts): this group's are the next `total`.
    let mine = this.delegated.get(event.owner);
    if (!mine) this.delegated.set(event.owner, (mine = { count: 0, groups: [] }));
    mine.groups.push({ first: mine.count + 1, list });
    mine.count += event.total;
    this.opened(list);
  }

  /** A task key `[OWNER/]WORKER#N` started or ended: item N - first of its group. */
  private task(key: string, state: "running" | "ok" | "failed"): void {
    const slash = key.lastIndexOf("/");
    const owner = slash < 0 ? "main" : key.slice(0, slash);
    const n = Number(key.slice(key.lastIndexOf("#") + 1));
    const mine = this.delegated.get(owner);
    if (!mine) return;
    const group = mine.groups.find((g) => n >= g.first && n < g.first + g.list.tasks.length);
    if (!group) return;
    const list = group.list;
    const index = n - group.first;
    const before = list.tasks[index];
    if (before === "ok" || before === "failed") return;
    list.tasks[index] = state;
    if (state === "running") return;
    list.done++;
    if (list.ended && list.done === list.tasks.length) mine.groups.splice(mine.groups.indexOf(group), 1);
  }
}

/** Whether evaluator `key` is one of the tasks `first`…`first + total - 1` that `owner` delegated, or runs under one. */
function ownedBy(key: string, owner: string, first: number, total: number): boolean {
  const rest = owner === "main" ? key : key.startsWith(`${owner}/`) ? key.slice(owner.length + 1) : null;
  if (rest === null) return false;
  const top = rest.split("/")[0]!;
  const n = Number(top.slice(top.lastIndexOf("#") + 1));
  return n >= first && n < first + total;
}

function loopKey(event: { loop: number; worker?: string }): string {
  return `${event.worker ?? "main"}#loop${event.loop}`;
}

/** Time left at the pace so far, once `ETA_AFTER` items are done (null before, or without a total). */
function eta(list: ProgressList, now: number): number | null {
  if (list.total === null || list.done < ETA_AFTER) return null;
  return Math.round(((now - list.startedAt) / list.done) * (list.total - list.done));
}

/**
 * The panel's plan (ACP `plan` session updates) for the outermost loop or delegate task list a
 * program runs, as the reference sends it: every item `pending`, then the current one
 * `in_progress` and those before it `completed`, at the end all `completed`; before it, an
 * `agent_thought_chunk` naming the count ("Going through 3 interviews…"). Fed the run's
 * events through the one `ProgressModel`.
 *
 * Bounded for long loops (a plan update replaces the whole plan): at most `MAX_ENTRIES` items
 * are entries, the rest one entry ("… 1,750 more"); updates go out at most every
 * `INTERVAL_MS` (every `SLOW_INTERVAL_MS` once the items running are past the entries); and a
 * list shows only once it has run `QUIET_MS` or a think or command ran inside it, so a quick
 * loop of plain code sends nothing. A list that fails keeps the items after the failure
 * pending (the one that failed says so); a cancelled program's plan stops where it was.
 */
import type { PlanEntry, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { ProgressModel, type ProgressList, type RunEvent } from "@patchwork/agent";

export const MAX_ENTRIES = 200;
export const INTERVAL_MS = 100;
export const SLOW_INTERVAL_MS = 1000;
export const QUIET_MS = 100;
/** An update waits this long at least, so events that come together (a task's end, the next one's start) make one. */
export const SETTLE_MS = 10;

export interface PlanOptions {
  /** False: no plan and no thought (the benchmarks' "progress off"). Default true. */
  enabled?: boolean;
}

export class PlanView {
  private readonly model = new ProgressModel();
  /** The list the plan shows (the outermost running when it started), and whether it is shown. */
  private list: ProgressList | null = null;
  private shown = false;
  private stopped = false;
  private lastSent = 0;
  private lastJson = "";
  private timer: NodeJS.Timeout | null = null;
  /** Plan updates sent and their bytes (as JSON), for the benchmarks. */
  readonly sent = { plans: 0, bytes: 0 };

  constructor(
    private readonly send: (update: SessionUpdate) => void,
    options: PlanOptions = {},
  ) {
    this.model.onList = (list) => this.onList(list);
    if (options.enabled === false) this.stopped = true;
  }

  event(event: RunEvent): void {
    if (this.stopped) return;
    this.model.apply(event, Date.now());
    const list = this.list;
    if (!list || list.ended) return;
    if (!this.shown && list.work) this.show();
    else if (this.shown && (event.type === "loop-item" || event.type === "task-start" || event.type === "task-end")) this.schedule();
  }

  /** The program ended (`cancelled`: the plan stops as it is). */
  finish(cancelled: boolean): void {
    if (cancelled) this.stop();
    this.clearTimer();
  }

  /** No more plan updates (a cancelled program's). */
  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  private onList(list: ProgressList): void {
    if (!list.ended) {
      // Only the outermost list running gets the plan (a nested loop is a detail of its item);
      // a `while` loop has no items to list.
      if (list.total === null || this.model.current() !== list || (this.list && !this.list.ended)) return;
      this.list = list;
      this.shown = false;
      this.clearTimer();
      this.timer = setTimeout(() => {
        this.timer = null;
        if (!this.shown && this.list === list && !list.ended && !this.stopped) this.show();
      }, QUIET_MS);
      return;
    }
    if (list !== this.list) return;
    this.clearTimer();
    if (this.shown) this.sendPlan();
    this.list = null;
  }

  /** The thought naming the count, the plan with every item pending, then where it is. */
  private show(): void {
    const list = this.list!;
    this.shown = true;
    this.clearTimer();
    const n = list.total ?? 0;
    const what = list.kind === "delegate" ? plural(n, "task") : plural(n, list.variable);
    this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: `Going through ${what}…` } });
    this.sendPlan(true);
    this.sendPlan();
  }

  private schedule(): void {
    if (this.timer) return;
    const list = this.list!;
    const interval = list.current >= MAX_ENTRIES || list.done >= MAX_ENTRIES ? SLOW_INTERVAL_MS : INTERVAL_MS;
    const wait = Math.max(SETTLE_MS, this.lastSent + interval - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.list === list && !list.ended && !this.stopped) this.sendPlan();
    }, wait);
  }

  /** Sends the plan as it is now, unless it is what the editor has already. */
  private sendPlan(allPending = false): void {
    const list = this.list!;
    const update: SessionUpdate = { sessionUpdate: "plan", entries: entries(list, allPending) };
    const json = JSON.stringify(update);
    if (json === this.lastJson) return;
    this.lastJson = json;
    this.lastSent = Date.now();
    this.sent.plans++;
    this.sent.bytes += json.length;
    this.send(update);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The plan's entries for `list` now. */
export function entries(list: ProgressList, allPending = false): PlanEntry[] {
  const total = list.total ?? list.labels.length;
  const shown = Math.min(total, MAX_ENTRIES);
  const out: PlanEntry[] = [];
  for (let i = 0; i < shown; i++) {
    const label = list.labels[i] ?? `item ${i + 1}`;
    const status = allPending ? "pending" : statusOf(list, i);
    const failed = list.kind === "delegate" ? list.tasks[i] === "failed" : list.ended?.ok === false && list.done === i;
    out.push({ content: failed ? `${label} (failed)` : label, priority: "medium", status });
  }
  if (total > shown) {
    const rest = total - shown;
    const past = Math.max(0, list.done - shown);
    const status = allPending || list.done <= shown ? "pending" : list.ended?.ok && list.done >= total ? "completed" : list.ended ? "pending" : "in_progress";
    const content = `… ${rest.toLocaleString("en-US")} more${past > 0 && past < rest ? ` (${past.toLocaleString("en-US")} done)` : ""}`;
    out.push({ content, priority: "medium", status });
  }
  return out;
}

function statusOf(list: ProgressList, i: number): PlanEntry["status"] {
  if (list.kind === "delegate") {
    const state = list.tasks[i];
    if (state === "ok") return "completed";
    return state === "running" && !list.ended ? "in_progress" : "pending";
  }
  if (i < list.done) return "completed";
  return i === list.current && !list.ended ? "in_progress" : "pending";
}

/** `3 interviews`, `1 interview` (the loop variable's name, as the reference says it). */
function plural(n: number, noun: string): string {
  const word = n === 1 || noun.endsWith("s") ? noun : `${noun}s`;
  return `${n.toLocaleString("en-US")} ${word}`;
}

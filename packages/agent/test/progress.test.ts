// The run's progress: loop and delegate events from real evaluator threads (the program's and
// worker tasks', resumable ones included), and the ProgressModel every host renders.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ProgressModel, runWithAgent, type RunEvent } from "../dist/index.js";
import { scratch } from "./helpers.js";

async function eventsOf(source: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  const result = await runWithAgent({
    source,
    fileName: join(scratch, "p.pw"),
    cwd: scratch,
    agent: null,
    writeOutput: false,
    timeoutMs: 60_000,
    onEvent: (e) => events.push(e),
  });
  expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return events;
}

const progress = (events: RunEvent[]) =>
  events
    .filter((e) => e.type.startsWith("loop-") || e.type.startsWith("delegate-") || e.type === "task-end")
    .map((e) => {
      switch (e.type) {
        case "loop-start":
          return `loop-start ${e.variable} ${e.total} ${e.worker ?? "main"}`;
        case "loop-end":
          return `loop-end ${e.ok} ${e.done} ${e.worker ?? "main"}`;
        case "delegate-start":
          return `delegate-start ${e.group} ${e.owner} ${e.total} ${e.labels.join(" ")}`;
        case "delegate-end":
          return `delegate-end ${e.group} ${e.ok}`;
        case "task-end":
          return `task-end ${e.worker}`;
        default:
          return e.type;
      }
    });

describe("progress events from evaluator threads", () => {
  it("a delegate list: its tasks' labels, then each task's end, then its end; loops in tasks name their worker", async () => {
    const ok = await eventsOf("worker sq(n) {\n  for i in 1...n { }\n  return n * n\n}\nvar r = self.delegate([sq(1), sq(2), sq(3)]).await\nprint(r)\n");
    const story = progress(ok);
    expect(story[0]).toBe("delegate-start main@1 main 3 sq(1) sq(2) sq(3)");
    expect(story.at(-1)).toBe("delegate-end main@1 true");
    expect(story.filter((l) => l.startsWith("task-end")).sort()).toEqual(["task-end sq#1", "task-end sq#2", "task-end sq#3"]);
    expect(story.filter((l) => l.startsWith("loop-end")).sort()).toEqual(["loop-end true 1 sq#1", "loop-end true 2 sq#2", "loop-end true 3 sq#3"]);
  });

  it("a loop on the program's thread: its items reach the main thread, a fast loop's coalesced", async () => {
    const events = await eventsOf('for x in ["a", "b", "c"] { print(x) }\nvar n = 0\nfor i in 1...20000 { n = n + 1 }\n');
    const items = events.filter((e) => e.type === "loop-item");
    // The first loop's items come with its prints (an event goes out before each print).
    expect(items.slice(0, 3).map((e) => (e as { index: number }).index)).toEqual([0, 1, 2]);
    // The 20,000-item loop sends its first item and then at most one each 50 ms.
    expect(items.length).toBeLessThan(3 + 50);
    expect(progress(events)).toEqual(["loop-start x 3 main", "loop-item", "loop-item", "loop-item", "loop-end true 3 main", "loop-start i 20000 main", ...items.slice(3).map(() => "loop-item"), "loop-end true 20000 main"]);
  });

  it("an empty delegate list starts and ends", async () => {
    const events = await eventsOf("worker w(s) { return s }\nvar r = self.delegate([]).await\nprint(len(r))\n");
    expect(progress(events)).toEqual(["delegate-start main@1 main 0 ", "delegate-end main@1 true"]);
  });

  it("a long task label is cut", async () => {
    const events = await eventsOf(`worker w(s) { return s }\nvar r = self.delegate([w("${"y".repeat(100)}")]).await\n`);
    const start = events.find((e) => e.type === "delegate-start") as Extract<RunEvent, { type: "delegate-start" }>;
    expect(start.labels[0]).toBe(`w("${"y".repeat(56)}…`);
    expect(start.labels[0]).toHaveLength(60);
  });
});

const at = { start: { line: 3, column: 1, offset: 0 }, end: { line: 3, column: 2, offset: 1 } };

describe("ProgressModel", () => {
  it("done and total of the outermost loop, ETA after a few items, thinks running", () => {
    const m = new ProgressModel();
    m.apply({ type: "loop-start", loop: 1, fileName: "a.pw", span: at, variable: "doc", total: 10, labels: [] }, 1000);
    m.apply({ type: "loop-item", loop: 1, index: 0 }, 1000);
    m.apply({ type: "loop-start", loop: 2, fileName: "a.pw", span: at, variable: "line", total: 2, labels: [] }, 1100);
    m.apply({ type: "think-start", id: 1, kind: "think", prompt: "p", fileName: "a.pw", span: at }, 1100);
    let s = m.snapshot(1200);
    expect(s.list).toEqual({ kind: "loop", label: "doc in a.pw:3", done: 0, total: 10, etaMs: null });
    expect(s.thinksRunning).toBe(1);
    m.apply({ type: "think-end", id: 1, ok: true }, 1300);
    m.apply({ type: "loop-end", loop: 2, ok: true, done: 2 }, 1300);
    m.apply({ type: "loop-item", loop: 1, index: 3 }, 4000);
    s = m.snapshot(4000);
    expect(s.list).toEqual({ kind: "loop", label: "doc in a.pw:3", done: 3, total: 10, etaMs: 7000 });
    expect(s.thinksDone).toBe(1);
    expect(s.elapsedMs).toBe(3000);
    m.apply({ type: "loop-end", loop: 1, ok: false, done: 3 }, 4100);
    expect(m.snapshot(4100).list).toBeNull();
  });

  it("a delegate list counts its tasks' ends (nested owners too); retries, holding, failures and usage add up", () => {
    const m = new ProgressModel();
    m.apply({ type: "delegate-start", group: "main@1", owner: "main", total: 2, labels: ["a(1)", "a(2)"] }, 0);
    m.apply({ type: "delegate-start", group: "a#1@1", owner: "a#1", total: 1, labels: ["b()"] }, 10);
    m.apply({ type: "task-end", worker: "a#1/b#1", ok: true }, 20);
    expect(m.snapshot(20).list).toMatchObject({ kind: "delegate", label: "2 tasks", done: 0, total: 2 });
    m.apply({ type: "task-end", worker: "a#2", ok: false }, 30);
    expect(m.snapshot(30).list).toMatchObject({ done: 1 });
    expect(m.current()!.tasks).toEqual(["queued", "failed"]);
    m.apply({ type: "think-end", id: 9, ok: false, error: "refused" }, 35);
    m.apply({ type: "think-retry", thinkId: 4, attempt: 1, retries: 3, delayMs: 500, reason: "overloaded" }, 40);
    m.apply({ type: "governor", concurrency: 2, limit: 8, rate: null, holding: { reason: "cpu", detail: "load 9.1" } }, 40);
    m.apply({ type: "usage", thinkId: 4, usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120, contextTokens: 0, cost: { USD: 0.25 } } }, 50);
    m.apply({ type: "usage", thinkId: 5, usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3, contextTokens: 0, cost: { USD: 0.5 } } }, 50);
    const s = m.snapshot(60);
    expect(s).toMatchObject({ retries: 1, failed: 1, holding: { reason: "cpu", detail: "load 9.1" } });
    expect(s.usage).toEqual({ inputTokens: 101, outputTokens: 22, cost: { USD: 0.75 } });
    m.apply({ type: "governor", concurrency: 3, limit: 8, rate: null, holding: null }, 70);
    expect(m.snapshot(70).holding).toBeNull();
  });

  it("no usage reported: nulls", () => {
    expect(new ProgressModel().snapshot(0).usage).toEqual({ inputTokens: null, outputTokens: null, cost: null });
  });
});

describe("progress of loops in tasks run resumably (decision 0016)", () => {
  it("a task that waits inside its loop: the loop's start, items and end, named by its worker", async () => {
    const events = await eventsOf(
      "worker child(n) {\n  return n * 10\n}\nworker walk(xs) {\n  var t = 0\n  for x in xs {\n    var r = await child(x)\n    t = t + r\n  }\n  return t\n}\nprint(self.delegate([walk([1, 2, 3])]).await)\n",
    );
    const walk = events.filter((e) => e.type.startsWith("loop-") && "worker" in e && e.worker === "walk#1");
    expect(walk[0]).toMatchObject({ type: "loop-start", variable: "x", total: 3, labels: ["1", "2", "3"] });
    expect(walk.at(-1)).toMatchObject({ type: "loop-end", ok: true, done: 3 });
    // Items after the first are told at most every 50 ms (a quick one's dropped at its loop's end).
    const items = walk.filter((e) => e.type === "loop-item").map((e) => (e as { index: number }).index);
    expect(items[0]).toBe(0);
    expect(items.every((n, i) => n < 3 && (i === 0 || n > items[i - 1]!))).toBe(true);
  });
});

describe("ProgressModel and while loops", () => {
  it("a for loop inside a while loop is the list shown; a while loop alone shows with no total", () => {
    const m = new ProgressModel();
    m.apply({ type: "loop-start", loop: 1, fileName: "a.pw", span: at, variable: "", total: null }, 0);
    expect(m.snapshot(0).list).toMatchObject({ label: "while at a.pw:3", total: null });
    m.apply({ type: "loop-start", loop: 2, fileName: "a.pw", span: at, variable: "x", total: 4, labels: [] }, 0);
    expect(m.snapshot(0).list).toMatchObject({ label: "x in a.pw:3", total: 4 });
  });
});

describe("ProgressModel and tasks that end", () => {
  it("a loop of a task that ended, or was cancelled with its list, is no longer shown", () => {
    const m = new ProgressModel();
    m.apply({ type: "delegate-start", group: "main@1", owner: "main", total: 2, labels: ["w(1)", "w(2)"] }, 0);
    m.apply({ type: "loop-start", loop: 1, fileName: "a.pw", span: at, variable: "x", total: 9, labels: [], worker: "w#1" }, 0);
    m.apply({ type: "loop-start", loop: 1, fileName: "a.pw", span: at, variable: "y", total: 9, labels: [], worker: "w#2" }, 0);
    m.apply({ type: "task-end", worker: "w#1", ok: false }, 10);
    m.apply({ type: "delegate-end", group: "main@1", ok: false }, 10);
    expect(m.current()).toBeNull();
    expect(m.snapshot(10).list).toBeNull();
  });
});

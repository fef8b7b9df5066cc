// Waiting workers that hold no thread (decision 0016): tasks suspended in a statement-level
// `receive` or `await` give their thread back, so a few threads carry many waiting tasks, with
// the mailbox rules, timeouts, failures, cancellation and output of tasks on threads of their own.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runWithAgent, type RunEvent } from "../dist/index.js";
import { scratch } from "./helpers.js";

/** `starvedMs`: long, so that only CPU slots decide when a thread starts (a loaded machine's slow thread starts would add some). */
async function runThreaded(source: string, options: { maxWorkers?: number; events?: RunEvent[]; timeoutMs?: number } = {}) {
  return runWithAgent({
    source,
    fileName: join(scratch, "suspended.pw"),
    cwd: scratch,
    agent: null,
    writeOutput: false,
    timeoutMs: options.timeoutMs ?? 120_000,
    maxWorkers: options.maxWorkers ?? 1000,
    starvedMs: 60_000,
    onEvent: (e) => options.events?.push(e),
  });
}

/** The task threads the run's tasks started on (`task-start` events name them). */
function threadsOf(events: RunEvent[]): Set<number> {
  const threads = new Set<number>();
  for (const e of events) if (e.type === "task-start" && e.thread !== undefined) threads.add(e.thread);
  return threads;
}

/** N workers that say they are ready, then wait for a message: a statement-level receive. */
const waiters = (n: number, extra = "") => `
worker w(i) {
    self.session.mailbox.ready.send(i)
    var m = self.session.mailbox.go.receive(100000)
    return [i, m]
}
${extra}
var t = []
for i in 1...${n} { t.push(w(i)) }
var p = self.delegate(t)
for i in 1...${n} { self.session.mailbox.ready.receive(100000) }
print("all ready")
for i in 1...${n} { self.session.mailbox.go.send(i * 10) }
var r = p.await
var sum = 0
var got = []
for x in r {
    sum = sum + x[0]
    got.push(x[1])
}
print("\${len(r)} \${sum} \${len(got)}")
got
`;

describe("waiting workers that hold no thread", () => {
  it("carry 200 workers waiting in a receive on a few threads; all get their messages and finish with the right results", async () => {
    const events: RunEvent[] = [];
    const r = await runThreaded(waiters(200), { events });
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("all ready\n200 20100 200\n");
    // Each message went to exactly one waiter, in the order they waited: all 200, once each.
    expect([...(r.value as number[])].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => (i + 1) * 10));
    const threads = threadsOf(events);
    expect(events.filter((e) => e.type === "task-start")).toHaveLength(200);
    // 32 tasks a thread at most: at least 7 threads; far fewer than one a task.
    expect(threads.size).toBeGreaterThanOrEqual(7);
    expect(threads.size).toBeLessThanOrEqual(20);
  }, 180_000);

  it("give messages first come, first served across suspended and blocking receivers (one waits in an expression)", async () => {
    // Each task says it is ready just before it waits: the pause after each lets it reach its
    // receive before the next task starts (the order of the waits is what the test is about; on
    // a loaded machine, a task was once still between its send and its receive when the next
    // one started waiting).
    const source = `
worker suspends(tag) {
    self.session.mailbox.ready.send(tag)
    var m = self.session.mailbox.inbox.receive(60000)
    return "\${tag}:\${m}"
}
worker blocks(tag) {
    self.session.mailbox.ready.send(tag)
    return "\${tag}:" + self.session.mailbox.inbox.receive(60000)
}
var a = self.delegate([suspends("a")])
self.session.mailbox.ready.receive(60000)
$ sleep 0.5
var b = self.delegate([blocks("b")])
self.session.mailbox.ready.receive(60000)
$ sleep 0.5
var c = self.delegate([suspends("c")])
self.session.mailbox.ready.receive(60000)
$ sleep 0.5
for i in 1...3 { self.session.mailbox.inbox.send(i) }
self.session.mailbox.inbox.send(4)
self.session.mailbox.inbox.send(5)
print(a.await, b.await, c.await)
print(self.session.mailbox.inbox.receive(1000), self.session.mailbox.inbox.receive(1000))`;
    const r = await runThreaded(source);
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("a:1 b:2 c:3\n4 5\n");
  }, 60_000);

  it("time out a suspended receive with PW3062 at the call: caught by try/catch, or failing the task", async () => {
    const source = `
worker patient() {
    try {
        var m = self.session.mailbox.nothing.receive(100)
        return "got \${m}"
    } catch e {
        return "caught: \${e.message} at \${e.line}:\${e.column}"
    }
}
worker impatient() {
    var m = self.session.mailbox.nothing.receive(100)
    return m
}
print(self.delegate([patient(), patient()]).await)
self.delegate([impatient()]).await`;
    const r = await runThreaded(source);
    const caught = "caught: no message on mailbox 'nothing' within 100 ms at 4:17";
    expect(r.output).toBe(`${caught}, ${caught}\n`);
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3062", message: "worker 'impatient' failed: no message on mailbox 'nothing' within 100 ms" });
    expect(r.diagnostics[0]!.span.start).toMatchObject({ line: 11, column: 13 });
  }, 60_000);

  it("cancel the suspended tasks of a delegation when one fails: the tasks sharing their threads go on, no cancelled one takes a message", async () => {
    const events: RunEvent[] = [];
    const source = `
worker survivor(i) {
    var m = self.session.mailbox.later.receive(60000)
    return i + m
}
worker waiter() {
    var m = self.session.mailbox.box.receive(60000)
    return m
}
worker failer() {
    var m = self.session.mailbox.trigger.receive(60000)
    throw "failer gave up"
}
var s = self.delegate([survivor(1), survivor(2), survivor(3)])
var p = self.delegate([waiter(), waiter(), waiter(), waiter(), failer()])
$ sleep 0.5
self.session.mailbox.trigger.send(1)
try {
    p.await
} catch e {
    # A thrown value is caught as itself.
    print("caught \${e}")
}
self.session.mailbox.box.send("still here")
print(self.session.mailbox.box.receive(2000))
for i in 1...3 { self.session.mailbox.later.send(10) }
print(s.await)`;
    const started = Date.now();
    const r = await runThreaded(source, { events });
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("caught failer gave up\nstill here\n11, 12, 13\n");
    expect(Date.now() - started).toBeLessThan(30_000);
    // Survivors and cancelled waiters were on shared threads.
    const starts = events.filter((e): e is Extract<RunEvent, { type: "task-start" }> => e.type === "task-start");
    const threadOf = (prefix: string) => new Set(starts.filter((e) => e.worker.startsWith(prefix)).map((e) => e.thread));
    const shared = [...threadOf("survivor")].filter((t) => threadOf("waiter").has(t));
    expect(shared.length).toBeGreaterThan(0);
  }, 60_000);

  it("await nested delegations while suspended: coordinators and their helpers share threads", async () => {
    const events: RunEvent[] = [];
    const source = `
worker helper(i, j) {
    var m = self.session.mailbox.work.receive(60000)
    return i * 100 + j + m * 0
}
worker coordinator(i) {
    var p = self.delegate([helper(i, 1), helper(i, 2), helper(i, 3)])
    var r = p.await
    var s = 0
    for x in r { s = s + x }
    return s
}
var t = []
for i in 1...10 { t.push(coordinator(i)) }
var p = self.delegate(t)
$ sleep 0.5
for i in 1...30 { self.session.mailbox.work.send(i) }
print(p.await)`;
    const r = await runThreaded(source, { events });
    expect(r.diagnostics).toEqual([]);
    const expected = Array.from({ length: 10 }, (_, k) => 3 * (k + 1) * 100 + 6);
    expect(r.output).toBe(`${expected.join(", ")}\n`);
    expect(events.filter((e) => e.type === "task-start")).toHaveLength(40);
    expect(threadsOf(events).size).toBeLessThan(10);
  }, 60_000);

  it("keep a resumed task's output lines whole and in its order", async () => {
    const source = `
worker w(tag) {
    for i in 1...5 {
        print("\${tag} \${i} first\\n\${tag} \${i} second")
        var m = self.session.mailbox.go.receive(60000)
    }
    return tag
}
var tags = ["a", "b", "c", "d"]
var t = []
for x in tags { t.push(w(x)) }
var p = self.delegate(t)
for i in 1...20 { self.session.mailbox.go.send(i) }
print(p.await)`;
    const r = await runThreaded(source);
    expect(r.diagnostics).toEqual([]);
    const lines = r.output.trim().split("\n");
    expect(lines).toHaveLength(41);
    expect(lines[40]).toBe("a, b, c, d");
    for (let k = 0; k < 40; k += 2) {
      const m = /^([abcd]) (\d) first$/.exec(lines[k]!);
      expect(m).not.toBeNull();
      expect(lines[k + 1]).toBe(`${m![1]} ${m![2]} second`);
    }
    for (const tag of ["a", "b", "c", "d"]) {
      const order = lines.filter((l) => l.startsWith(`${tag} `) && l.endsWith("first")).map((l) => Number(l.split(" ")[1]));
      expect(order).toEqual([1, 2, 3, 4, 5]);
    }
  }, 60_000);

  it("run a worker that thinks or waits inside an expression on a thread of its own, beside suspended ones", async () => {
    const events: RunEvent[] = [];
    const source = waiters(
      20,
      `worker blocker() {
    return "blocked " + self.session.mailbox.side.receive(60000)
}`,
    ).replace('var p = self.delegate(t)', 'var b = self.delegate([blocker()])\nvar p = self.delegate(t)').replace('var r = p.await', 'self.session.mailbox.side.send("ok")\nprint(b.await)\nvar r = p.await');
    const r = await runThreaded(source, { events });
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("all ready\nblocked ok\n20 210 20\n");
    const starts = events.filter((e): e is Extract<RunEvent, { type: "task-start" }> => e.type === "task-start");
    const blockerThread = starts.find((e) => e.worker.startsWith("blocker"))!.thread;
    expect(starts.filter((e) => e.thread === blockerThread)).toHaveLength(1);
  }, 60_000);
});

// `self.delegate(tasks).settle().await` on real evaluator threads (EvaluatorPool's group logic):
// one failing task cancels none of its siblings, every outcome comes back in order, queued tasks
// still start under --max-workers, nested and suspended (shared-thread) tasks settle too; the
// default stays fail-fast, and its error names settle(). No agent process: thinks are answered
// by an AsyncAgent object in this process.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentError } from "@patchwork/interpreter";
import { runWithAgent, type AsyncAgent, type RunEvent } from "../dist/index.js";
import { scratch } from "./helpers.js";

async function runThreaded(source: string, options: { maxWorkers?: number; agent?: AsyncAgent; events?: RunEvent[] } = {}) {
  return runWithAgent({
    source,
    fileName: join(scratch, "settle.pw"),
    cwd: scratch,
    agent: options.agent ?? null,
    writeOutput: false,
    timeoutMs: 60_000,
    ...(options.maxWorkers ? { maxWorkers: options.maxWorkers } : {}),
    onEvent: (e) => options.events?.push(e),
  });
}

const HINT = "(the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)";

// The failing task sends one message per sibling, then fails; each sibling waits for its message,
// so under settle() every sibling finishes after the failure (none is cancelled by it).
const AFTER_FAILURE = `
worker failer(n: number) {
  for var i in 1...n { self.session.mailbox.go.send(i) }
  throw {why: "document 7 is unreadable"}
}
worker reader(n: number) {
  var m = self.session.mailbox.go.receive(20000)
  print("reader $n went on")
  return n * 10
}
`;

describe("settle() on evaluator threads", () => {
  it("lets every sibling of a failed task finish, and gives each outcome in order", async () => {
    const events: RunEvent[] = [];
    const r = await runThreaded(`${AFTER_FAILURE}print(cat(self.delegate([reader(1), reader(2), failer(3), reader(4)]).settle().await))`, { events });
    expect(r.diagnostics).toEqual([]);
    expect(JSON.parse(r.output.slice(r.output.indexOf("[")))).toEqual([
      { ok: true, value: 10 },
      { ok: true, value: 20 },
      { ok: false, error: { why: "document 7 is unreadable" } },
      { ok: true, value: 40 },
    ]);
    expect(r.output.match(/reader \d went on/g)?.sort()).toEqual(["reader 1 went on", "reader 2 went on", "reader 4 went on"]);
    const ends = events.filter((e) => e.type === "task-end").map((e) => e as Extract<RunEvent, { type: "task-end" }>);
    expect(ends.map((e) => [e.worker, e.ok]).sort()).toEqual([
      ["failer#3", false],
      ["reader#1", true],
      ["reader#2", true],
      ["reader#4", true],
    ]);
  }, 60_000);

  it("keeps fail-fast the default: the failure cancels the waiting siblings at once, and its message names settle()", async () => {
    const started = Date.now();
    const r = await runThreaded(`
worker failer() { throw "document 7 is unreadable" }
worker waiter() { return self.session.mailbox.never.receive(30000) }
self.delegate([waiter(), failer(), waiter()]).await`);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3001", message: `worker 'failer' failed: uncaught exception: document 7 is unreadable ${HINT}` });
    expect(r.diagnostics[0]!.span.start.line).toBe(2);
  }, 60_000);

  it("gives a runtime error as {message, line, column} and an agent's failure of a think as catch sees it", async () => {
    const agent: AsyncAgent = {
      think: async (request) => {
        if (request.prompt.includes("document 2")) throw new AgentError("PW4013", "API Error: 400 this document is refused");
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { text: `label for ${request.prompt.slice(-10)}` };
      },
    };
    const r = await runThreaded(
      `
worker categorize(n: number) {
  var label = think { Categorize document $n }
  if n == 3 { var x = nope }
  return label
}
var caught = null
try { self.delegate([categorize(2)]).await } catch e { caught = e }
var all = self.delegate([categorize(1), categorize(2), categorize(3), categorize(4)]).settle().await
print(cat(all))
print(all[1].error == caught)`,
      { agent },
    );
    expect(r.diagnostics).toEqual([]);
    const printed = r.output.trimEnd().split("\n");
    expect(printed.pop()).toBe("true");
    expect(JSON.parse(printed.join("\n"))).toEqual([
      { ok: true, value: "label for document 1" },
      { ok: false, error: { message: "worker 'categorize' failed: API Error: 400 this document is refused", line: 3, column: 15 } },
      { ok: false, error: { message: "worker 'categorize' failed: undefined variable 'nope'", line: 4, column: 23 } },
      { ok: true, value: "label for document 4" },
    ]);
  }, 60_000);

  it("starts every queued task under --max-workers: a failure drops none of them", async () => {
    const source = `
worker step(n: number) {
  if n == 2 { throw "step 2 failed" }
  print("step $n ran")
  return n
}
var r = self.delegate([step(1), step(2), step(3), step(4), step(5)]).settle().await
var oks = []
for var o in r { if o.ok { oks.push(o.value) } else { oks.push(o.error) } }
print(oks)`;
    for (const maxWorkers of [1, 2]) {
      const r = await runThreaded(source, { maxWorkers });
      expect(r.diagnostics).toEqual([]);
      expect(r.output.match(/step \d ran/g)?.sort()).toEqual(["step 1 ran", "step 3 ran", "step 4 ran", "step 5 ran"]);
      expect(r.output.endsWith("1, step 2 failed, 3, 4, 5\n")).toBe(true);
    }
    // Fail-fast with one worker at a time: the tasks queued behind the failure never start.
    const failFast = await runThreaded(source.replace(".settle().await", ".await"), { maxWorkers: 1 });
    expect(failFast.output).toBe("step 1 ran\n");
    expect(failFast.diagnostics[0]!.message).toBe(`worker 'step' failed: uncaught exception: step 2 failed ${HINT}`);
  }, 60_000);

  it("settles nested delegations, on tasks that share threads (suspended in the join) and tasks that do not", async () => {
    const source = `
worker leaf(n: number) {
  if n % 2 == 0 { throw "leaf $n" }
  return n
}
worker sharing(a: number, b: number) {
  var r = self.delegate([leaf(a), leaf(b)]).settle().await
  return r
}
worker owning(a: number, b: number) {
  $ true
  return self.delegate([leaf(a), leaf(b)]).settle().await
}
worker failing(a: number, b: number) {
  return self.delegate([leaf(a), leaf(b)]).await
}
print(cat(self.delegate([sharing(1, 2), owning(3, 4), failing(5, 6), sharing(7, 9)]).settle().await))`;
    const r = await runThreaded(source);
    expect(r.diagnostics).toEqual([]);
    expect(JSON.parse(r.output)).toEqual([
      { ok: true, value: [{ ok: true, value: 1 }, { ok: false, error: "leaf 2" }] },
      { ok: true, value: [{ ok: true, value: 3 }, { ok: false, error: "leaf 4" }] },
      { ok: false, error: "leaf 6" },
      { ok: true, value: [{ ok: true, value: 7 }, { ok: true, value: 9 }] },
    ]);
  }, 60_000);

  it("ends the join at a fatal failure (a replay that does not match), cancelling the siblings as fail-fast does", async () => {
    const started = Date.now();
    const r = await runWithAgent({
      source: `
worker asks() { return think { A question the cassette lacks } }
worker waiter() { return self.session.mailbox.never.receive(30000) }
print(self.delegate([waiter(), asks(), waiter()]).settle().await)`,
      fileName: join(scratch, "fatal.pw"),
      cwd: scratch,
      agent: null,
      replay: { cassette: { version: 1, thinks: [] }, fileName: "c.json" },
      writeOutput: false,
      timeoutMs: 60_000,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.output).toBe("");
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3033" });
    expect(r.diagnostics[0]!.message).toBe("worker 'asks' failed: the cassette c.json has no recording for think 1 of worker asks#2");
  }, 60_000);

  it("records the answers a settled batch got, counts the failed think, and a resume asks only that one", async () => {
    const asked: string[] = [];
    const agent = (failing: boolean): AsyncAgent => ({
      think: async (request) => {
        asked.push(request.prompt);
        if (failing && request.prompt.includes("document 2")) throw new AgentError("PW4007", "the agent refused to answer");
        return { text: `label for ${request.prompt.slice(-10)}` };
      },
    });
    const source = `
worker categorize(n: number) { return think { Categorize document $n } }
var all = self.delegate([categorize(1), categorize(2), categorize(3)]).settle().await
for var o in all { if o.ok { print(o.value) } else { print("failed") } }`;
    const path = join(scratch, `settle-${Date.now()}.cassette.json`);
    const options = { source, fileName: join(scratch, "rec.pw"), cwd: scratch, writeOutput: false, timeoutMs: 60_000 };
    const first = await runWithAgent({ ...options, agent: agent(true), record: { path } });
    expect(first.output).toBe("label for document 1\nfailed\nlabel for document 3\n");
    expect(first.recording).toMatchObject({ entries: 2, failed: 1, live: 2 });
    asked.length = 0;
    const resumed = await runWithAgent({ ...options, agent: agent(false), record: { path, resume: true } });
    expect(asked).toEqual(["Categorize document 2"]);
    expect(resumed.output).toBe("label for document 1\nlabel for document 2\nlabel for document 3\n");
    expect(resumed.recording).toMatchObject({ replayed: 2, live: 1, entries: 3, failed: 0 });
  }, 60_000);
});

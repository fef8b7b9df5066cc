// Sessions made ahead of need (docs/agent.md): counted and ordered from the scripted agent's own
// log (a file it appends to before answering), so that what the agent did is known whatever
// was killed when.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { fakeEvaluator, groupAlive, runWith, scratch, scriptedAgent, type Run } from "./helpers.js";

let logs = 0;

/** A script that logs to a file of its own; returns it and a reader of that log. */
function logged(script: object): { script: object; log: () => string[] } {
  const file = join(scratch, `agent-log-${++logs}.txt`);
  return { script: { ...script, logFile: file }, log: () => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []) };
}

const created = (log: string[]) => log.filter((l) => l.startsWith("session created:")).map((l) => l.slice("session created: ".length));
const closed = (log: string[]) => log.filter((l) => l.startsWith("session closed:")).map((l) => l.slice("session closed: ".length));
const requested = (log: string[]) => log.filter((l) => l.startsWith("session requested:")).length;
const used = (run: Run) => run.events.flatMap((e) => (e.type === "session" ? [e.sessionId] : []));
const aheadOf = (run: Run) => run.events.flatMap((e) => (e.type === "session" ? [Boolean(e.ahead)] : []));
const reasons = (run: Run) => run.events.flatMap((e) => (e.type === "session-ahead" ? [e.reason] : []));

/**
 * The most spares made and not yet taken at any moment, in all and per worker, from the events:
 * `session-ahead` makes one for a worker (null: any), a `session` event marked `ahead` takes one
 * (its think's worker's own if there was one, else one made for any).
 */
function mostUnused(run: Run): { total: number; perWorker: Record<string, number> } {
  const workerOf = new Map<number, string>();
  const unused = new Map<string, number>();
  const most = { total: 0, perWorker: {} as Record<string, number> };
  let total = 0;
  for (const e of run.events) {
    if (e.type === "think-start") workerOf.set(e.id, (e as { worker?: string }).worker ?? "main");
    else if (e.type === "session-ahead") {
      const key = e.worker ?? "(any)";
      unused.set(key, (unused.get(key) ?? 0) + 1);
      total++;
    } else if (e.type === "session" && e.ahead) {
      const worker = workerOf.get(e.thinkId) ?? "main";
      const key = (unused.get(worker) ?? 0) > 0 ? worker : "(any)";
      unused.set(key, (unused.get(key) ?? 0) - 1);
      total--;
    }
    most.total = Math.max(most.total, total);
    for (const [key, n] of unused) if (key !== "(any)") most.perWorker[key] = Math.max(most.perWorker[key] ?? 0, n);
  }
  return most;
}

const NESTED = `var items = ["apple", "carrot"]
print(think {
  sort these: \${items}
  do {
    print(think { say fruit or vegetable })
  }
})`;

describe("sessions made ahead of need", () => {
  it("a program with one think: its session is made right after initialize, and it is the only one", async () => {
    const { script, log } = logged({ prompts: [{ match: "only", steps: [{ reply: "ok" }] }] });
    const run = await runWith("print(think { only })", "one.pw", script);
    expect(run.output).toBe("ok\n");
    expect(reasons(run)).toEqual(["start"]);
    expect(created(log())).toEqual(["test-session-1"]);
    expect(used(run)).toEqual(["test-session-1"]);
    expect(aheadOf(run)).toEqual([true]);
  });

  it("nested thinks: both sessions are made right after initialize, before the outer think's do block runs", async () => {
    const { script, log } = logged({
      prompts: [
        { match: "sort these", steps: [{ do: 0 }, { reply: "sorted" }] },
        { match: "fruit or vegetable", steps: [{ reply: "fruit" }] },
      ],
    });
    const run = await runWith(NESTED, "nested.pw", script);
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("fruit\nsorted\n");
    expect(reasons(run)).toEqual(["start", "start"]);
    expect(created(log())).toEqual(["test-session-1", "test-session-2"]);
    expect(used(run)).toEqual(["test-session-1", "test-session-2"]);
    expect(aheadOf(run)).toEqual([true, true]);
    // The nested session was asked for before the outer think's do block ran.
    const order = run.events.filter((e) => e.type === "session-ahead" || e.type === "do-start").map((e) => e.type);
    expect(order).toEqual(["session-ahead", "session-ahead", "do-start"]);
  });

  it("a loop uses each spare for its next think, the first included; the one left unused is closed at exit", async () => {
    const source = 'var n = 0\nfor i in 1...4 {\n  print(think {\n    count ${i}\n    do {\n      n = n + i\n      print("block " + i)\n    }\n  })\n}\nprint(n)';
    const { script, log } = logged({ prompts: [{ match: "count", steps: [{ do: 0 }, { reply: "ok" }] }] });
    const run = await runWith(source, "loop.pw", script);
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("block 1\nok\nblock 2\nok\nblock 3\nok\nblock 4\nok\n10\n");
    expect(used(run)).toEqual(["test-session-1", "test-session-2", "test-session-3", "test-session-4"]);
    expect(aheadOf(run)).toEqual([true, true, true, true]);
    expect(created(log())).toHaveLength(5);
    // Every session is closed: the four thinks' when they end, the spare when the runtime closes.
    expect(closed(log()).sort()).toEqual(created(log()).sort());
  });

  it("the program's thinks are counted on the main thread: their sessions do not wait for the program's thread to load", async () => {
    const { script, log } = logged({
      prompts: [
        { match: "outer", steps: [{ do: 0 }, { reply: "sorted" }] },
        { match: "inner", steps: [{ reply: "fruit" }] },
      ],
    });
    const logFile = (script as { logFile: string }).logFile;
    // An evaluator whose loading waits (up to 20 s) until the agent has been asked for both sessions
    // (waiting for the first only raced the second's request: a Node 24 thread starts sooner).
    const slow = join(scratch, "slow-evaluator.mjs");
    writeFileSync(
      slow,
      `import { appendFileSync, existsSync, readFileSync } from "node:fs";
const deadline = Date.now() + 20000;
while (Date.now() < deadline && !(existsSync(${JSON.stringify(logFile)}) && readFileSync(${JSON.stringify(logFile)}, "utf8").includes("session requested: 2"))) await new Promise((r) => setTimeout(r, 20));
appendFileSync(${JSON.stringify(logFile)}, "evaluator loaded\\n");
export * from ${JSON.stringify(pathToFileURL(fakeEvaluator).href)};
`,
    );
    const program = { Think: { think: { prompt: "outer", children: [{ Think: { think: { prompt: "inner", children: [] } } }] } } };
    const run = await runWith(JSON.stringify(program), "slow.json", script, { evaluatorModule: slow });
    expect(run.diagnostics).toEqual([]);
    const order = log().filter((l) => l === "evaluator loaded" || l.startsWith("session requested:"));
    expect(order.slice(0, 3)).toEqual(["session requested: 1", "session requested: 2", "evaluator loaded"]);
    // (The stand-in evaluator puts every think at the same place: the second run of "one" think foretells a third.)
    expect(reasons(run).slice(0, 2)).toEqual(["start", "start"]);
    expect(aheadOf(run)).toEqual([true, true]);
  });

  it("a think sends its prompt before the sessions it foretells are asked for", async () => {
    const source = 'for i in 1...3 {\n  print(think { count ${i} })\n}';
    const { script, log } = logged({ prompts: [{ match: "count", steps: [{ reply: "ok" }] }] });
    const run = await runWith(source, "first.pw", script);
    expect(run.output).toBe("ok\nok\nok\n");
    // The program's text makes the first session; each think, once it has its session, the next.
    // In the order they reached the agent (its handlers may run messages that came together in another).
    const order = log().filter((l) => l === "arrived: session/new" || l.startsWith("arrived: session/prompt"));
    expect(order).toEqual([
      "arrived: session/new",
      "arrived: session/prompt test-session-1",
      "arrived: session/new",
      "arrived: session/prompt test-session-2",
      "arrived: session/new",
      "arrived: session/prompt test-session-3",
      // The third think foretells a fourth, never taken (closed at exit).
      "arrived: session/new",
    ]);
  });

  it("a think written once but run again (a function called in a loop) foretells its next run", async () => {
    const source = "fun turn(i) {\n  return think { turn ${i} }\n}\nfor i in 1...3 {\n  print(turn(i))\n}";
    const { script, log } = logged({ prompts: [{ match: "turn", steps: [{ reply: "ok" }] }] });
    const run = await runWith(source, "again.pw", script);
    expect(run.output).toBe("ok\n".repeat(3));
    // The first from the program's text, the third from the second run of the same think.
    expect(aheadOf(run)).toEqual([true, false, true]);
    expect(reasons(run)).toEqual(["start", "next", "next"]);
    expect(closed(log()).sort()).toEqual(created(log()).sort());
  });

  it("never more spares than the bound, per worker and in all", async () => {
    const inner = Array.from({ length: 6 }, (_, i) => `  do { print(think { inner ${i} }) }`).join("\n");
    const source = `print(think {\n  outer\n${inner}\n})`;
    const steps = [...Array.from({ length: 6 }, (_, i) => ({ do: i })), { reply: "done" }];
    const { script, log } = logged({ prompts: [{ match: "outer", steps }, { match: "inner", steps: [{ reply: "x" }] }] });
    const run = await runWith(source, "bound.pw", script, { agent: { command: scriptedAgent(script), sessionsAhead: { total: 3, perWorker: 2 } } });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("x\n".repeat(6) + "done\n");
    // Two at the start (the per-thread bound), then two for the outer think's nested thinks
    // (its thread's bound; three in all): the other inner thinks made their own.
    expect(reasons(run)).toEqual(["start", "start", "nested", "nested"]);
    expect(created(log())).toHaveLength(7);
    expect(aheadOf(run).filter(Boolean)).toHaveLength(4);
    expect(mostUnused(run)).toEqual({ total: 3, perWorker: { main: 2 } });
    expect(closed(log()).sort()).toEqual(created(log()).sort());
  });

  it("workers: spares are bounded per worker and in all, and a worker's nested thinks take its own", async () => {
    const source = `worker sorter(n) {
  return think {
    sort \${n}
    do { print(think { first of \${n} }) }
    do { print(think { second of \${n} }) }
    do { print(think { third of \${n} }) }
  }
}
print(self.delegate([sorter(1), sorter(2), sorter(3)]).await)`;
    const { script, log } = logged({
      prompts: [
        { match: "sort", steps: [{ do: 0 }, { do: 1 }, { do: 2 }, { reply: "sorted" }] },
        { match: "of", steps: [{ reply: "x" }] },
      ],
    });
    const run = await runWith(source, "workers.pw", script, { agent: { command: scriptedAgent(script), sessionsAhead: { total: 4, perWorker: 2 } } });
    expect(run.diagnostics).toEqual([]);
    expect(run.output.split("\n").filter((l) => l === "x")).toHaveLength(9);
    const most = mostUnused(run);
    expect(most.total).toBeLessThanOrEqual(4);
    for (const n of Object.values(most.perWorker)) expect(n).toBeLessThanOrEqual(2);
    expect(created(log())).toHaveLength(requested(log()));
    expect(closed(log()).sort()).toEqual(created(log()).sort());
  });

  it("a program without think blocks makes no session at all; one whose think never runs closes its spare", async () => {
    const none = logged({});
    const run = await runWith('print("no thinking here")', "none.pw", none.script);
    expect(run.output).toBe("no thinking here\n");
    expect(requested(none.log())).toBe(0);
    expect(reasons(run)).toEqual([]);

    const unused = logged({});
    const run2 = await runWith('fun never() {\n  return think { never asked }\n}\nprint("done")', "unused.pw", unused.script);
    expect(run2.output).toBe("done\n");
    expect(created(unused.log())).toEqual(["test-session-1"]);
    expect(closed(unused.log())).toEqual(["test-session-1"]);
  });

  it("with the prepareSessions option off, every think makes its own", async () => {
    const source = "for i in 1...3 {\n  print(think { turn ${i} })\n}";
    const { script, log } = logged({ prompts: [{ match: "turn", steps: [{ reply: "ok" }] }] });
    const run = await runWith(source, "loop.pw", script, { agent: { command: scriptedAgent(script), prepareSessions: false } });
    expect(run.output).toBe("ok\n".repeat(3));
    expect(created(log())).toHaveLength(3);
    expect(reasons(run)).toEqual([]);
  });

  it("a think whose session made ahead failed makes its own and runs", async () => {
    const { script, log } = logged({ failSessionNewAt: [1, 2], prompts: [{ match: "sort these", steps: [{ do: 0 }, { reply: "sorted" }] }, { match: "fruit", steps: [{ reply: "fruit" }] }] });
    const run = await runWith(NESTED, "failed.pw", script);
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("fruit\nsorted\n");
    expect(requested(log())).toBe(4);
    expect(aheadOf(run)).toEqual([false, false]);
    expect(closed(log()).sort()).toEqual(created(log()).sort());
  });

  it("cancelled mid-think (Ctrl-C): the spare made for the inner think is closed and the agent's group ends", async () => {
    const { script, log } = logged({ prompts: [{ match: "sort these", steps: [{ hang: true }] }] });
    const controller = new AbortController();
    const running = runWith(NESTED, "cancel.pw", script, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "session") setTimeout(() => controller.abort(), 100);
      },
    });
    const run = await running;
    expect(run.exitCode).toBe(130);
    expect(created(log())).toEqual(["test-session-1", "test-session-2"]);
    // The spare never taken is closed at the agent before the process is stopped.
    expect(closed(log())).toContain("test-session-2");
    expect(groupAlive(run.agentPid!)).toBe(false);
  });

  it("a spare whose agent died meanwhile fails the next think with the agent's fault, not a hang", async () => {
    const source = "for i in 1...3 {\n  print(think { turn ${i} })\n}";
    const run = await runWith(source, "die.pw", {
      prompts: [
        { match: "turn 1", steps: [{ reply: "ok" }] },
        { match: "turn 2", steps: [{ text: "bye" }, { crash: true }] },
      ],
    });
    expect(run.output).toBe("ok\n");
    expect(run.diagnostics.map((d) => d.code)).toEqual(["PW4004"]);
  });
});

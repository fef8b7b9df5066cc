// Thinking workers that share threads (decision 0016, "Thinks"): a statement-level think with no
// `do` block and no type suspends its task while the agent answers, so a few threads carry many
// thinking workers, with the answers, errors, cancellation, replay and no-agent prompts of
// thinks on threads of their own.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runWithAgent, type RunEvent } from "../dist/index.js";
import { runWith, scratch } from "./helpers.js";

/** The task threads the run's tasks started on (`task-start` events name them). */
function threadsOf(events: RunEvent[]): Set<number> {
  const threads = new Set<number>();
  for (const e of events) if (e.type === "task-start" && e.thread !== undefined) threads.add(e.thread);
  return threads;
}

const count = (text: string, re: RegExp) => (text.match(re) ?? []).length;

/** N workers, each thinking once in one of the shapes that suspend; the answer comes back. */
const thinkers = (n: number) => `
worker a(i) {
    var x = think {
        Answer for ${"$"}{i}.
    }
    return x
}
worker b(i) {
    var y = 0
    y = think {
        Answer for ${"$"}{i}.
    }
    return y
}
worker c(i) {
    return think {
        Answer for ${"$"}{i}.
    }
}
worker d(i) {
    think {
        Answer for ${"$"}{i}.
    }
}
var t = []
for i in 1...${n} {
    if i % 4 == 0 { t.push(a(i)) } else if i % 4 == 1 { t.push(b(i)) } else if i % 4 == 2 { t.push(c(i)) } else { t.push(d(i)) }
}
self.delegate(t).await
`;

/** The scripted agent: each prompt gets its own answer, after `sleep` ms. */
const answers = (n: number, sleep: number) => ({
  prompts: Array.from({ length: n }, (_, k) => ({ match: `Answer for ${k + 1}.`, steps: [{ sleep }, { reply: `answer ${k + 1}` }] })),
});

const expected = (n: number) => Array.from({ length: n }, (_, k) => `answer ${k + 1}`);

/** Two CPU slots (so two threads started ahead, as on a 2-core machine); `starvedMs` long. */
const threadedOptions = { timeoutMs: 120_000, maxWorkers: 1000, starvedMs: 60_000, cpuSlots: 2 };

describe("thinking workers that share threads", () => {
  it("carry 24 thinking workers on a few threads; each gets its own answer and the thinks overlap", async () => {
    const n = 24;
    const r = await runWith(thinkers(n), join(scratch, "thinkers.pw"), answers(n, 1500), threadedOptions);
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toEqual(expected(n));
    // The `think {…}` statements (worker d, as its last statement: its value) are not printed twice.
    const starts = r.events.filter((e) => e.type === "task-start");
    expect(starts).toHaveLength(n);
    const threads = threadsOf(r.events);
    expect(threads.size).toBeLessThan(n / 2);
    // Every think started before the first one ended (each answer takes 1.5 s).
    const order = r.events.filter((e) => e.type === "think-start" || e.type === "think-end").map((e) => e.type);
    expect(order.slice(0, n)).toEqual(Array.from({ length: n }, () => "think-start"));
    // Each think event names its worker; the run numbers them 1…n.
    const ids = new Set(r.events.filter((e) => e.type === "think-start").map((e) => (e as { id: number }).id));
    expect(ids.size).toBe(n);
    for (const e of r.events) if (e.type === "think-start") expect((e as { worker?: string }).worker).toMatch(/^[abcd]#\d+$/);
  }, 180_000);

  it("show a think statement's answer where it ran, inside a worker that goes on", async () => {
    const source = `
worker w(i) {
    think {
        Answer for ${"$"}{i}.
    }
    return i
}
print(self.delegate([w(1), w(2)]).await)`;
    const r = await runWith(source, join(scratch, "shown.pw"), answers(2, 0), threadedOptions);
    expect(r.diagnostics).toEqual([]);
    expect(r.output.split("\n").filter((l) => l.startsWith("answer")).sort()).toEqual(["answer 1", "answer 2"]);
    expect(r.output).toContain("1, 2\n");
  }, 60_000);

  it("position a shared task's think error at its think and cancel its siblings' thinks", async () => {
    const source = `
worker ok(i) {
    var x = think {
        Hang ${"$"}{i}.
    }
    return x
}
worker bad() {
    var y = think {
        Fail now.
    }
    return y
}
self.delegate([ok(1), ok(2), bad()]).await`;
    const logFile = join(scratch, `fails-log-${Date.now()}.txt`);
    const script = { logFile, prompts: [{ match: "Hang", steps: [{ hang: true }] }, { match: "Fail now", steps: [{ sleep: 300 }, { stop: "refusal" }] }] };
    const started = Date.now();
    const r = await runWith(source, join(scratch, "fails.pw"), script, threadedOptions);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.message).toMatch(/^worker 'bad' failed: /);
    expect(r.diagnostics[0]!.code).toBe("PW4007");
    expect(r.diagnostics[0]!.span.start).toMatchObject({ line: 9, column: 13 });
    // The hanging thinks were cancelled (session/cancel), not waited for.
    expect(count(readFileSync(logFile, "utf8"), /cancel received for/g)).toBe(2);
    expect(threadsOf(r.events).size).toBeLessThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it("stop suspended thinks when the run is cancelled: session/cancel, and the run ends", async () => {
    const logFile = join(scratch, `cancel-log-${Date.now()}.txt`);
    writeFileSync(logFile, "");
    const controller = new AbortController();
    const source = `
worker w(i) {
    var x = think {
        Hang ${"$"}{i}.
    }
    return x
}
self.delegate([w(1), w(2), w(3), w(4), w(5), w(6)]).await`;
    const events: RunEvent[] = [];
    const runP = runWith(source, join(scratch, "cancel-thinks.pw"), { logFile, prompts: [{ match: "Hang", steps: [{ hang: true }] }] }, {
      ...threadedOptions,
      signal: controller.signal,
      onEvent: (e) => events.push(e),
    });
    for (let i = 0; i < 1200 && events.filter((e) => e.type === "think-start").length < 6; i++) await new Promise((r) => setTimeout(r, 50));
    // The three prompts have reached the agent.
    for (let i = 0; i < 1200 && count(readFileSync(logFile, "utf8"), /prompt received/g) < 6; i++) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    const r = await runP;
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBe(130);
    expect(threadsOf(events).size).toBeLessThanOrEqual(2);
    const log = readFileSync(logFile, "utf8");
    // Each of the six thinks' sessions got session/cancel (as a think on a thread of its own does;
    // a cancelled run may send it twice, by the think and by the runtime's close).
    const cancelled = new Set([...log.matchAll(/cancel received for (\S+)/g)].map((m) => m[1]));
    expect(cancelled.size).toBe(6);
    expect(r.agentPid).toBeDefined();
  }, 90_000);

  it("keep a worker whose think has a do block on a thread of its own, and it works", async () => {
    const source = `
worker plain(i) {
    var x = think {
        Answer for ${"$"}{i}.
    }
    return x
}
worker helper() {
    var x = think {
        Use the tool.
        do {
            print("from do")
        }
    }
    return x
}
self.delegate([plain(1), plain(2), helper(), plain(3)]).await`;
    const script = { prompts: [...answers(3, 300).prompts, { match: "Use the tool", steps: [{ do: 0 }, { reply: "did {{do}}" }] }] };
    const r = await runWith(source, join(scratch, "do-think.pw"), script, threadedOptions);
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toEqual(["answer 1", "answer 2", "did from do", "answer 3"]);
    const byKey = new Map<string, number>();
    for (const e of r.events) if (e.type === "task-start" && e.thread !== undefined) byKey.set(e.worker, e.thread);
    const helperThread = byKey.get("helper#3");
    expect(helperThread).toBeDefined();
    expect([...byKey].filter(([k, t]) => k !== "helper#3" && t === helperThread)).toEqual([]);
  }, 60_000);

  it("replay a recording made with shared threads to the same output, and give the prompts without an agent", async () => {
    const n = 8;
    const source = `
worker w(i) {
    think {
        Answer for ${"$"}{i}.
    }
    return i * 2
}
var t = []
for i in 1...${n} { t.push(w(i)) }
print(self.delegate(t).await)`;
    const fileName = join(scratch, "record-thinks.pw");
    const cassettePath = join(scratch, `thinks-${Date.now()}.json`);
    const live = await runWith(source, fileName, answers(n, 100), { ...threadedOptions, record: { path: cassettePath } });
    expect(live.diagnostics).toEqual([]);
    const lines = (o: string) => o.split("\n").sort();
    expect(lines(live.output)).toEqual(lines([...expected(n), "2, 4, 6, 8, 10, 12, 14, 16", ""].join("\n")));
    expect(threadsOf(live.events).size).toBeLessThan(n);
    const cassette = JSON.parse(readFileSync(cassettePath, "utf8")) as unknown;
    const replayed = await runWithAgent({
      source,
      fileName,
      cwd: scratch,
      agent: null,
      writeOutput: false,
      timeoutMs: 120_000,
      replay: { cassette: cassette as never },
    });
    expect(replayed.diagnostics).toEqual([]);
    expect(lines(replayed.output)).toEqual(lines(live.output));
    const none = await runWithAgent({ source, fileName, cwd: scratch, agent: null, writeOutput: false, timeoutMs: 120_000 });
    expect(none.diagnostics).toEqual([]);
    expect(none.output).toContain('{"__think_prompt":"Answer for 3."}');
  }, 120_000);
});

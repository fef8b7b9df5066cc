// Workers on evaluator threads of their own: the same results as in one thread, real
// concurrency, thinks of different workers side by side (each `do` with its own worker),
// failure propagation and cancellation leaving nothing running, mailboxes in order.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { run as runInThread } from "@patchwork/interpreter";
import { parse } from "@patchwork/parser";
import { runWithAgent, type ParsedProgram, type RunEvent } from "../dist/index.js";
import { groupAlive, runWith, scratch } from "./helpers.js";

const fixture = join(import.meta.dirname, "..", "..", "interpreter", "test", "fixtures", "workers.pw");

async function runThreaded(
  source: string,
  options: {
    fileName?: string;
    maxWorkers?: number;
    cpuSlots?: number;
    starvedMs?: number;
    signal?: AbortSignal;
    events?: RunEvent[];
    parsed?: ParsedProgram;
  } = {},
) {
  const result = await runWithAgent({
    source,
    fileName: options.fileName ?? join(scratch, "w.pw"),
    cwd: scratch,
    agent: null,
    writeOutput: false,
    timeoutMs: 60_000,
    ...(options.maxWorkers ? { maxWorkers: options.maxWorkers } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.parsed ? { parsed: options.parsed } : {}),
    ...(options.cpuSlots ? { cpuSlots: options.cpuSlots } : {}),
    ...(options.starvedMs ? { starvedMs: options.starvedMs } : {}),
    onEvent: (e) => options.events?.push(e),
  });
  return result;
}

/** Node numbers worker threads in creation order: the difference of two counts the threads made between. */
function nextThreadId(): Promise<number> {
  return new Promise<number>((resolve) => {
    const w = new Worker("", { eval: true });
    const id = w.threadId;
    void w.terminate().then(() => resolve(id));
  });
}

/** Task threads a run made (its program's thread not counted). */
async function taskThreadsOf(run: () => Promise<unknown>): Promise<number> {
  const before = await nextThreadId();
  await run();
  return (await nextThreadId()) - before - 2;
}

/** `source` parsed as the CLI does ahead of a run, with the files its imports load. */
function parsedAhead(source: string, fileName: string, modules: Record<string, string> = {}): ParsedProgram {
  const { program, diagnostics } = parse(source, { fileName });
  const parsedModules: ParsedProgram["modules"] = {};
  for (const [path, text] of Object.entries(modules)) parsedModules[path] = { text, ...parse(text, { fileName: path }) };
  return { program, diagnostics, modules: parsedModules };
}

describe("workers on threads, no agent", () => {
  it("give the results of the in-thread workers (the golden fixture)", async () => {
    const source = readFileSync(fixture, "utf8");
    const threaded = await runThreaded(source, { fileName: fixture });
    const inThread = runInThread(source, { fileName: fixture, cwd: scratch });
    expect(threaded.output).toBe(inThread.output);
    expect(threaded.diagnostics.map((d) => [d.code, d.span.start.line])).toEqual(inThread.diagnostics.map((d) => [d.code, d.span.start.line]));
    expect(threaded.output).toContain("4, 9, 20\n");
  }, 60_000);

  it("run tasks at the same time (each waits for a file the other creates)", async () => {
    const wait = (mine: string, theirs: string) =>
      `$ touch ${mine}; i=0; while [ ! -f ${theirs} ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; [ -f ${theirs} ]`;
    const source = `
worker a() {
    ${wait("a.flag", "b.flag")}
    return "a"
}
worker b() {
    ${wait("b.flag", "a.flag")}
    return "b"
}
print(self.delegate([a(), b()]).await)`;
    const r = await runThreaded(source);
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("a, b\n");
  }, 60_000);

  it("run a worker of an imported module that imports another (its thread loads the parser)", async () => {
    writeFileSync(join(scratch, "double.pw"), "export fun double(n) { return n * 2 }\n");
    writeFileSync(join(scratch, "uses-import.pw"), 'import {double} from "./double.pw"\nexport worker twice(n) { return double(n) }\n');
    const source = `
import {twice} from "./uses-import.pw"
worker plain(n) { return n + 1 }
print(self.delegate([twice(21), plain(41)]).await)`;
    const r = await runThreaded(source);
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("42, 42\n");
  }, 60_000);

  it("run the ASTs parsed ahead (the CLI's parse cache): no thread parses the program or its imports again", async () => {
    // The files on disk say "disk"; the ASTs given say "ahead": only the given ASTs can print "ahead".
    const lib = join(scratch, "ahead-lib.pw");
    const libText = 'export worker w() { return "disk" }\n';
    writeFileSync(lib, libText);
    const main = join(scratch, "ahead.pw");
    const source = 'import {w} from "./ahead-lib.pw"\nprint("disk")\nprint(self.delegate([w()]).await)\n';
    const parsed = parsedAhead('import {w} from "./ahead-lib.pw"\nprint("ahead")\nprint(self.delegate([w()]).await)\n', main);
    parsed.modules[lib] = { text: libText, ...parse('export worker w() { return "ahead" }\n', { fileName: lib }) };
    const r = await runThreaded(source, { fileName: main, parsed });
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("ahead\nahead\n");
  }, 60_000);

  it("say a module changed on disk after it was parsed ahead, positioned at its import", async () => {
    const lib = join(scratch, "changed-lib.pw");
    writeFileSync(lib, "export fun f() { return 2 }\n");
    const main = join(scratch, "changed.pw");
    const source = 'import {f} from "./changed-lib.pw"\nworker w() { return f() }\nprint(self.delegate([w()]).await)\n';
    const r = await runThreaded(source, { fileName: main, parsed: parsedAhead(source, main, { [lib]: "export fun f() { return 1 }\n" }) });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.message).toMatch(/changed-lib\.pw changed while the program ran; run it again/);
    expect(r.diagnostics[0]!.span.start.line).toBe(1);
  }, 60_000);

  it("report the errors of a program parsed ahead without running any of it", async () => {
    const main = join(scratch, "broken.pw");
    const source = '$ touch ran.flag\nvar = 3\n';
    const r = await runThreaded(source, { fileName: main, parsed: parsedAhead(source, main) });
    expect(r.diagnostics.map((d) => [d.code, d.span.start.line])).toEqual([["PW2001", 2]]);
    expect(existsSync(join(scratch, "ran.flag"))).toBe(false);
  }, 60_000);

  it("queue tasks beyond --max-workers", async () => {
    const source = `
worker w(n) {
    print("start " + n)
    $ sleep 0.2
    print("end " + n)
}
self.delegate([w(1), w(2), w(3)]).await`;
    const r = await runThreaded(source, { maxWorkers: 1 });
    expect(r.diagnostics).toEqual([]);
    const lines = r.output.trim().split("\n");
    // One at a time: every start is followed by its own end.
    for (let i = 0; i < lines.length; i += 2) expect(lines[i + 1]).toBe(lines[i]!.replace("start", "end"));
  }, 60_000);

  it("start at most --max-workers task threads for many tasks: a finished task's thread takes the next", async () => {
    const source = `
worker sq(n) {
    var s = "task " + n
    return n * n
}
worker fails(n) { throw "no " + n }
var first = self.delegate([sq(1), sq(2), sq(3), sq(4), sq(5), sq(6), sq(7), sq(8), sq(9), sq(10), sq(11), sq(12)]).await
var caught = "none"
try { self.delegate([fails(1)]).await } catch (e) { caught = "caught" }
var again = self.delegate([sq(13), sq(14), sq(15)]).await
print(first, caught, again)`;
    const before = await nextThreadId();
    const r = await runThreaded(source, { maxWorkers: 2 });
    const made = (await nextThreadId()) - before - 1;
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144 caught 169, 196, 225\n");
    // The program's thread and two task threads; a thread whose task threw is reused too (a task
    // cancelled because a sibling failed has its thread stopped, so the failing group has no sibling).
    expect(made).toBeLessThanOrEqual(3);
  }, 60_000);

  it("start no more CPU-bound tasks at once than there are CPU slots: the others take a finished task's thread", async () => {
    const source = `
worker sum(n) {
    var s = 0
    for i in 1...20000 { s = s + i }
    return s + n
}
print(self.delegate([sum(1), sum(2), sum(3), sum(4), sum(5), sum(6)]).await)`;
    let output = "";
    const threads = await taskThreadsOf(async () => {
      const r = await runThreaded(source, { maxWorkers: 6, cpuSlots: 1, starvedMs: 120_000 });
      expect(r.diagnostics).toEqual([]);
      output = r.output;
    });
    expect(output).toBe("200010001, 200010002, 200010003, 200010004, 200010005, 200010006\n");
    expect(threads).toBe(1);
  }, 60_000);

  it("start the next task while the others wait in a shell command or a think: waiting uses no CPU slot", async () => {
    // Each task waits in a shell command until the last one has started: with one CPU slot that
    // can only happen if waiting holds no slot (else the wait runs out and the run fails).
    const flags = mkdtempSync(join(scratch, "flags-"));
    const source = `
worker w(n) {
    print("start " + n)
    $ touch \${"${flags}/started-" + n}
    $ sh -c 'for i in $(seq 600); do [ -e "$1" ] && exit 0; sleep 0.05; done; exit 1' wait \${"${flags}/started-4"}
    var answer = think { task \${n} }
    print("end " + n)
    return n
}
print(self.delegate([w(1), w(2), w(3), w(4)]).await)`;
    let output = "";
    const threads = await taskThreadsOf(async () => {
      const r = await runThreaded(source, { fileName: join(scratch, "waiting.pw"), maxWorkers: 4, cpuSlots: 1, starvedMs: 120_000 });
      expect(r.diagnostics).toEqual([]);
      output = r.output;
    });
    const lines = output.trim().split("\n");
    // Each started while the one before slept: four threads at once (one CPU slot, never two busy).
    expect(lines.indexOf("start 2")).toBeLessThan(lines.indexOf("end 1"));
    expect(lines.at(-1)).toBe("1, 2, 3, 4");
    expect(threads).toBe(4);
  }, 60_000);

  it("start task threads ahead, as many as CPU slots, only for a program that declares workers", async () => {
    let output = "";
    const withWorkers = await taskThreadsOf(async () => {
      output = (await runThreaded("worker w(n) { return n + 1 }\nprint(self.delegate([w(1)]).await)\n", { cpuSlots: 2, maxWorkers: 8 })).output;
    });
    expect(output).toBe("2\n");
    expect(withWorkers).toBe(2);
    const without = await taskThreadsOf(async () => {
      output = (await runThreaded('print("no workers here")\n', { cpuSlots: 2 })).output;
    });
    expect(output).toBe("no workers here\n");
    expect(without).toBe(0);
  }, 60_000);

  it("start a queued task anyway when the CPU slots stay busy (a task polling for another's work)", async () => {
    const source = `
worker waits() {
    var polls = 0
    while !exists("starved.flag") {
        polls = polls + 1
        if polls > 50000000 { throw "never started" }
    }
    return "saw it"
}
worker makes() {
    write("starved.flag", "here")
    return "made it"
}
print(self.delegate([waits(), makes()]).await)`;
    rmSync(join(scratch, "starved.flag"), { force: true });
    const r = await runThreaded(source, { maxWorkers: 2, cpuSlots: 1, starvedMs: 200 });
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("saw it, made it\n");
  }, 60_000);

  it("carry 1,000 messages between two workers in order", async () => {
    const source = `
worker tx() {
    var box = self.session.mailbox.q
    for i in 1...1000 { box.send(i) }
}
worker rx() {
    var box = self.session.mailbox.q
    var expected = 1
    for i in 1...1000 {
        var m = box.receive(20000)
        if m != expected { throw "out of order: " + m + " instead of " + expected }
        expected = expected + 1
    }
    return expected - 1
}
print(self.delegate([rx(), tx()]).await)`;
    const r = await runThreaded(source);
    expect(r.diagnostics).toEqual([]);
    expect(r.output).toBe("1000, null\n");
  }, 60_000);

  it("time out a receive, positioned, naming the worker", async () => {
    const r = await runThreaded(`worker w() {\n  return self.session.mailbox.none.receive(50)\n}\nself.delegate([w()]).await\n`);
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3062", message: "worker 'w' failed: no message on mailbox 'none' within 50 ms" });
    expect(r.diagnostics[0]!.span.start.line).toBe(2);
  }, 60_000);

  it("never split a line of one worker with another's output", async () => {
    const source = `
worker w(tag) {
    for i in 1...30 {
        $ printf '%s-%s-' \${tag} \${i}
        print("end")
    }
}
self.delegate([w("x"), w("y"), w("z")]).await`;
    const r = await runThreaded(source);
    expect(r.diagnostics).toEqual([]);
    const lines = r.output.trim().split("\n");
    expect(lines).toHaveLength(90);
    for (const line of lines) expect(line).toMatch(/^[xyz]-\d+-end$/);
  }, 60_000);
});

describe("workers with an ACP agent", () => {
  it("run the reference's delegation test: three workers sleeping 1 s then thinking, side by side", async () => {
    const task = (name: string) => `
worker task_${name}() {
    $ sleep 1
    think {
        Task ${name.toUpperCase()} is working. Return "${name.toUpperCase()}-complete".
        do {
            print("do of ${name}")
        }
    }
}`;
    const source = `${task("a")}${task("b")}${task("c")}
worker coordinator() {
    var [a, b, c] = self.delegate([task_a(), task_b(), task_c()]).await
    return [a, b, c]
}
export default trait DelegationTest: Agent {
    @skill test
    fun test() {
        return self.delegate([coordinator()]).await
    }
}`;
    // Answers come in the reverse order of the starts; every do must still reach its own worker.
    const script = {
      prompts: ["A", "B", "C"].map((n, i) => ({
        match: `Task ${n}`,
        steps: [{ sleep: 600 - i * 250 }, { do: 0 }, { reply: `${n}-complete ({{do}})` }],
      })),
    };
    const started = Date.now();
    const r = await runWith(source, join(scratch, "deleg.pw"), script, { timeoutMs: 60_000 });
    const elapsed = Date.now() - started;
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toEqual([["A-complete (do of a\n)", "B-complete (do of b\n)", "C-complete (do of c\n)"]]);
    // The three thinks overlapped: all started before the first one ended.
    const order = r.events.filter((e) => e.type === "think-start" || e.type === "think-end").map((e) => e.type);
    expect(order.slice(0, 3)).toEqual(["think-start", "think-start", "think-start"]);
    // Three distinct think numbers across the threads.
    const ids = new Set(r.events.filter((e) => e.type === "think-start").map((e) => (e as { id: number }).id));
    expect(ids.size).toBe(3);
    // Not a timed assertion (the machine may be loaded): the figure is in docs/benchmarks.md.
    expect(elapsed).toBeGreaterThan(1000);
  }, 90_000);

  it("stop every other task when one fails: a receive, a think and a shell command, with nothing left running", async () => {
    const pidFile = join(scratch, `sleep-${Date.now()}.pid`);
    const source = `
worker thrower() {
    # Fails once the sleeper's command runs (a fixed delay raced it on a loaded machine).
    $ sh -c 'while [ ! -s ${pidFile} ]; do sleep 0.05; done; sleep 0.2'
    throw "thrower gave up"
}
worker waiter() { return self.session.mailbox.never.receive(60000) }
worker thinker() {
    return think {
        Hang here.
    }
}
worker sleeper() {
    $ sh -c 'echo $$ > ${pidFile}; exec sleep 60'
}
self.delegate([thrower(), waiter(), thinker(), sleeper()]).await`;
    const started = Date.now();
    const r = await runWith(source, join(scratch, "fail.pw"), { prompts: [{ match: "Hang", steps: [{ hang: true }] }] }, { timeoutMs: 60_000 });
    const elapsed = Date.now() - started;
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3001", message: "worker 'thrower' failed: uncaught exception: thrower gave up (the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)" });
    expect(r.diagnostics[0]!.span.start.line).toBe(5);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(groupAlive(pid)).toBe(false);
    expect(r.agentPid !== undefined && groupAlive(r.agentPid)).toBe(false);
    expect(elapsed).toBeLessThan(30_000);
  }, 90_000);

  it("leave nothing running when cancelled during a delegation", async () => {
    const pidFile = join(scratch, `cancel-${Date.now()}.pid`);
    writeFileSync(pidFile, "");
    const controller = new AbortController();
    const source = `
worker sleeper() {
    $ sh -c 'echo $$ > ${pidFile}; exec sleep 60'
}
worker thinker() {
    think {
        Hang here.
    }
}
self.delegate([sleeper(), thinker()]).await`;
    const events: RunEvent[] = [];
    const runP = runWith(source, join(scratch, "cancel.pw"), { prompts: [{ match: "Hang", steps: [{ hang: true }] }] }, {
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
      },
    });
    // Cancel once the think is under way and the command has started.
    for (let i = 0; i < 600 && !(events.some((e) => e.type === "session") && readFileSync(pidFile, "utf8").trim()); i++)
      await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    const r = await runP;
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBe(130);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(groupAlive(pid)).toBe(false);
    expect(r.agentPid !== undefined && groupAlive(r.agentPid)).toBe(false);
  }, 90_000);
});

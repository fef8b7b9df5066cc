// The resumable form of worker tasks (compiler/resumable.ts, decision 0016): driven wait by wait,
// a task gives exactly what the ordinary (blocking) form gives — values, output, errors and
// their positions — and it does suspend where a statement waits.
import { describe, expect, it } from "vitest";
import { parse } from "@patchwork/parser";
import {
  AgentError,
  createNodeHost,
  InThreadWorkers,
  RuntimeError,
  runParsed,
  type Agent,
  type JsonValue,
  type PwEvent,
  type RunResult,
  type ThinkAnswer,
  type ThinkRequest,
  type Wait,
  type WorkerTask,
} from "../src/index.js";
import { runTaskResumable, sharesThread } from "../src/run-task.js";

const noImports = () => ({ program: null, error: "no imports here" });

/** A host that writes nothing to the terminal (the results carry the output): tests print nothing. */
const quiet = () => createNodeHost({ cwd: process.cwd(), stdout: () => {}, stderr: () => {} });

/** In-thread workers whose mailbox `inbox` holds `messages`, running delegated tasks the ordinary way. */
function workersWith(source: string, messages: JsonValue[]): InThreadWorkers {
  const { program } = parse(source, { fileName: "t.pw" });
  const workers: InThreadWorkers = new InThreadWorkers((task: WorkerTask) => {
    const r = runParsed(program, [], { fileName: "t.pw", entry: task.worker, args: task.args, statements: false, workers, host: quiet() }, noImports);
    const d = r.diagnostics.find((x) => x.severity === "error");
    if (d) throw new RuntimeError(d.code, d.message, d.span, "t.pw");
    return r.value;
  });
  for (const m of messages) workers.send("inbox", m);
  return workers;
}

function ordinary(source: string, entry: string, args: JsonValue[], messages: JsonValue[], codegen: boolean): RunResult {
  const { program } = parse(source, { fileName: "t.pw" });
  return runParsed(program, [], { fileName: "t.pw", entry, args, statements: false, workers: workersWith(source, messages), codegen, host: quiet() }, noImports);
}

/** Runs the task resumably, answering each wait from in-thread workers; also gives the waits it yielded. */
function resumable(source: string, entry: string, args: JsonValue[], messages: JsonValue[], codegen: boolean): { result: RunResult; waits: Wait[] } {
  const { program } = parse(source, { fileName: "t.pw" });
  const workers = workersWith(source, messages);
  const steps = runTaskResumable(program, [], { fileName: "t.pw", entry, args, statements: false, workers, codegen, host: quiet() }, noImports);
  const waits: Wait[] = [];
  let next = steps.next();
  while (!next.done) {
    const wait = next.value;
    waits.push(wait);
    next = steps.next(wait.kind === "receive" ? workers.receive(wait.mailbox, wait.timeoutMs) : workers.join(wait.group));
  }
  return { result: next.value, waits };
}

/** Both forms, in both tiers (closures only, and with generated JavaScript): all four agree. */
function same(source: string, entry: string, args: JsonValue[], messages: JsonValue[]): { result: RunResult; waits: Wait[] } {
  const r = resumable(source, entry, args, messages, true);
  expect(r.result).toEqual(ordinary(source, entry, args, messages, true));
  expect(resumable(source, entry, args, messages, false)).toEqual(r);
  expect(ordinary(source, entry, args, messages, false)).toEqual(r.result);
  return r;
}

const loops = `
fun twice(x) { return x * 2 }
fun take(box) {
    var m = box.receive(100)
    return m
}
fun deep(n) {
    if n == 0 {
        var m = self.session.mailbox.inbox.receive(10)
        return m
    }
    return deep(n - 1)
}
worker w(n) {
    var box = self.session.mailbox.inbox
    var total = 0
    var seen = []
    for i in 1...n {
        var m = box.receive(100)
        if m == 3 { continue }
        if m == 99 { break }
        seen.push(m)
        total = total + twice(m)
    }
    var k = 0
    while k < 2 {
        k = k + 1
        var x: number = take(box)
        seen.push(x)
    }
    try {
        var none = self.session.mailbox.empty.receive(5)
        seen.push("not here")
    } catch e {
        seen.push(e.message)
    }
    var {a, b} = box.receive(100)
    seen.push(a + b)
    for s in ["p", "q"] {
        seen.push(box.receive(100) + s)
    }
    var d = deep(50)
    seen.push(d)
    print("total \${total}")
    return {total: total, seen: seen}
}`;

describe("resumable worker tasks", () => {
  it("give what the blocking form gives: loops, break/continue, try/catch, patterns, typed vars, calls at statement level", () => {
    const { result, waits } = same(loops, "w", [6], [1, 2, 3, 4, 99, 7, 10, { a: 1, b: 2 }, "x", "y", "z"]);
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.output).toBe("total 14\n");
    expect(result.value).toEqual({ total: 14, seen: [1, 2, 4, 7, 10, "no message on mailbox 'empty' within 5 ms", 3, "xp", "yq", "z"] });
    // Every statement-level receive suspended (the receive inside `push(…)` blocked instead).
    expect(waits.filter((w) => w.kind === "receive").length).toBe(5 + 2 + 1 + 1 + 1);
  });

  it("raise the same errors at the same positions: a typed var, a receive timing out outside a try, a throw in a callee", () => {
    const typed = `worker w() {\n    var x: string = self.session.mailbox.inbox.receive(10)\n    return x\n}`;
    expect(same(typed, "w", [], [5]).result.diagnostics[0]).toMatchObject({ code: "PW3004", span: { start: { line: 2 } } });
    const timeout = `worker w() {\n    var m = self.session.mailbox.inbox.receive(10)\n    return m\n}`;
    expect(same(timeout, "w", [], []).result.diagnostics[0]).toMatchObject({ code: "PW3062", span: { start: { line: 2, column: 13 } } });
    const thrown = `fun f() {\n    var m = self.session.mailbox.inbox.receive(10)\n    throw {message: "bad \${m}"}\n}\nworker w() {\n    try {\n        f()\n    } catch e {\n        return e.message\n    }\n}`;
    expect(same(thrown, "w", [], [7]).result.value).toBe("bad 7");
  });

  it("await delegations, tasks and worker call statements without blocking, and give a worker's last call's value", () => {
    const source = `
worker h(x) { return x + 1 }
worker last() { h(41) }
worker w() {
    var p = self.delegate([h(1), h(2)])
    var r = p.await
    var again = await p
    var one = await h(10)
    h(5)
    var t = h(7)
    var v = await t
    var l = await last()
    return [r, again, one, v, l]
}`;
    const { result, waits } = same(source, "w", [], []);
    expect(result.value).toEqual([[2, 3], [2, 3], 11, 8, 42]);
    expect(waits.map((w) => w.kind)).toEqual(["join", "join", "join", "join", "join"]);
    expect(same(source, "last", [], []).result.value).toBe(42);
  });

  it("await a settled delegation without blocking: every outcome, as the blocking form gives", () => {
    const source = `
worker h(x) {
    if x == 2 { var y = nope }
    return x + 1
}
worker w() {
    var r = self.delegate([h(1), h(2), h(3)]).settle().await
    var p = self.delegate([h(2)]).settle()
    var one = await p
    return [r, one]
}`;
    const { result, waits } = same(source, "w", [], []);
    const error = { message: "worker 'h' failed: undefined variable 'nope'", line: 3, column: 25 };
    expect(result.value).toEqual([[{ ok: true, value: 2 }, { ok: false, error }, { ok: true, value: 4 }], [{ ok: false, error }]]);
    expect(waits.map((w) => w.kind)).toEqual(["join", "join"]);
  });

  it("run a task whose worker cannot wait in its ordinary form (no suspension)", () => {
    const { result, waits } = same(`worker w(n) {\n    var s = 0\n    for i in 1...n { s = s + i }\n    return s\n}`, "w", [100], []);
    expect(result.value).toBe(5050);
    expect(waits).toEqual([]);
  });
});

describe("sharesThread", () => {
  const shares = (source: string) => sharesThread(parse(source, { fileName: "t.pw" }).program);
  it("holds when every wait is a statement-level shape", () => {
    expect(shares(loops.replace("seen.push(box.receive(100) + s)", "var got = box.receive(100)\n        seen.push(got + s)"))).toBe(true);
    // \`seen.push(box.receive(100) + s)\`: a receive inside an expression blocks its thread.
    expect(shares(loops)).toBe(false);
    expect(shares(`worker w() { return self.session.mailbox.go.receive(1000) }`)).toBe(true);
    expect(shares(`worker h() { return 1 }\nworker w() { var t = [h()]\n var r = self.delegate(t).await\n return r }`)).toBe(true);
    // A worker that waits, called in an expression: that makes a task, it does not wait.
    expect(shares(`worker h() { var m = self.session.mailbox.go.receive(9)\n return m }\nworker w() { var r = self.delegate([h(), h()]).await\n h()\n return r }`)).toBe(true);
  });
  it("fails for a wait inside an expression, a waiting function called in one, a think or a shell command", () => {
    expect(shares(`worker w() { print(self.session.mailbox.go.receive(1000)) }`)).toBe(false);
    expect(shares(`worker w() { var x = 1 + self.session.mailbox.go.receive(1000) }`)).toBe(false);
    expect(shares(`fun f() { var m = self.session.mailbox.go.receive(9)\n return m }\nworker w() { var x = [f()] }`)).toBe(false);
    expect(shares(`worker w() {\n    $ true\n}`)).toBe(false);
    expect(shares(`worker w() { while self.session.mailbox.go.receive(9) != null { } }`)).toBe(false);
    expect(shares(`worker h() { return 1 }\nworker w() { var r = [await h()] }`)).toBe(false);
  });
});

describe("thinks that suspend their task (decision 0016, Thinks)", () => {
  const source = `
worker a(i) {
    var x = think {
        Answer for \${i}.
    }
    var y = 0
    y = think {
        Again \${x}.
    }
    think {
        Shown \${y}.
    }
    print("after")
    return think {
        Last \${y}.
    }
}
worker typed(i) {
    var n: number = think {
        A number for \${i}.
    }
    return n
}
worker withDo(i) {
    var x = think {
        Use it.
        do { print("child") }
    }
    return x
}`;
  /** The agent's answer to a prompt: its first line, upper-cased; "FAIL" fails. */
  const reply = (prompt: string): ThinkAnswer =>
    prompt.includes("Fail") ? { ok: false, code: "PW4007", message: "the agent refused" } : { ok: true, text: prompt.split("\n")[0]!.toUpperCase() };
  const blocking: Agent = {
    think: (request) => {
      if (request.typeText) return { kind: "text", text: "42" };
      const a = reply(request.prompt);
      if (!a.ok) throw new AgentError(a.code, a.message);
      return { kind: "text", text: a.text };
    },
  };
  const deferring: Agent = { ...blocking, defer: (request) => request };

  function drive(src: string, entry: string, agent: Agent): { result: RunResult; waits: Wait[]; events: PwEvent[] } {
    const { program } = parse(src, { fileName: "t.pw" });
    const events: PwEvent[] = [];
    const host = { ...createNodeHost({ cwd: process.cwd() }), write: () => {}, event: (e: PwEvent) => void events.push(e) };
    const steps = runTaskResumable(program, [], { fileName: "t.pw", entry, args: [1], statements: false, agent, host }, noImports);
    const waits: Wait[] = [];
    let next = steps.next();
    while (!next.done) {
      const wait = next.value;
      waits.push(wait);
      if (wait.kind !== "think") throw new Error("unexpected wait");
      next = steps.next(reply(wait.request.prompt));
    }
    return { result: next.value, waits, events };
  }

  it("suspend at each untyped statement-level think with no do block, and give what the blocking form gives", () => {
    const suspended = drive(source, "a", deferring);
    expect(suspended.waits.map((w) => (w as { request: ThinkRequest }).request.prompt)).toEqual(["Answer for 1.", "Again ANSWER FOR 1..", "Shown AGAIN ANSWER FOR 1...", "Last AGAIN ANSWER FOR 1..."]);
    const blocked = drive(source, "a", blocking);
    expect(blocked.waits).toEqual([]);
    expect(suspended.result).toEqual(blocked.result);
    // The ordinary (blocking) form gives the same.
    const { program } = parse(source, { fileName: "t.pw" });
    expect(runParsed(program, [], { fileName: "t.pw", entry: "a", args: [1], statements: false, agent: blocking, host: quiet() }, noImports)).toEqual(suspended.result);
    expect(suspended.events).toEqual(blocked.events);
    expect(suspended.result.value).toBe("LAST AGAIN ANSWER FOR 1...");
    expect(suspended.result.output).toBe("SHOWN AGAIN ANSWER FOR 1...\nafter\n");
  });

  it("raise an agent failure at the think, as the blocking form does", () => {
    const failing = source.replace("Again", "Fail");
    const suspended = drive(failing, "a", deferring);
    expect(suspended.waits).toHaveLength(2);
    expect(suspended.result).toEqual(drive(failing, "a", blocking).result);
    expect(suspended.result.diagnostics[0]).toMatchObject({ code: "PW4007", message: "the agent refused" });
    expect(suspended.result.diagnostics[0]!.span.start).toMatchObject({ line: 7, column: 9 });
  });

  it("block (no wait) for a typed think and a think with a do block; without defer, every think blocks", () => {
    expect(drive(source, "typed", deferring).waits).toEqual([]);
    expect(drive(source, "typed", deferring).result.value).toBe(42);
    const d = drive(source, "withDo", deferring);
    expect(d.waits).toEqual([]);
    expect(d.result.value).toBe("USE IT.");
  });

  it("let a worker share threads when its thinks are such, and not otherwise", () => {
    const shares = (src: string) => sharesThread(parse(src, { fileName: "t.pw" }).program);
    expect(shares(source.slice(0, source.indexOf("worker typed")))).toBe(true);
    expect(shares(`worker w() {\n    think {\n        Hi\n    }\n}`)).toBe(true);
    expect(shares(`fun f() {\n    var x = think {\n        Hi\n    }\n    return x\n}\nworker w() {\n    var r = f()\n    return r\n}`)).toBe(true);
    // Typed (a var, an annotated name, a typed function's return, its last think), with a do block, an ask, inside an expression.
    expect(shares(`worker w() {\n    var n: number = think {\n        Hi\n    }\n}`)).toBe(false);
    expect(shares(`worker w() {\n    var n: number = 0\n    n = think {\n        Hi\n    }\n}`)).toBe(false);
    expect(shares(`worker w(): number {\n    return think {\n        Hi\n    }\n}`)).toBe(false);
    expect(shares(`worker w(): number {\n    think {\n        Hi\n    }\n}`)).toBe(false);
    expect(shares(`worker w() {\n    var a = think {\n        Hi\n        do { print(1) }\n    }\n}`)).toBe(false);
    expect(shares(`worker w() {\n    var a = ask {\n        Hi\n    }\n}`)).toBe(false);
    expect(shares(`worker w() {\n    print(think {\n        Hi\n    })\n}`)).toBe(false);
    expect(shares(`fun f() {\n    var x = think {\n        Hi\n    }\n    return x\n}\nworker w() {\n    print(f())\n}`)).toBe(false);
    expect(shares(`worker w() {\n    var a = think {\n        Hi \${self.session.mailbox.m.receive(9)}\n    }\n}`)).toBe(false);
  });
});

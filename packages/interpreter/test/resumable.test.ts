// The resumable form of worker tasks (compiler/resumable.ts, decision 0016): driven wait by wait,
// a task gives exactly what the ordinary (blocking) form gives — values, output, errors and
// their positions — and it does suspend where a statement waits.
import { describe, expect, it } from "vitest";
import { parse } from "@patchwork/parser";
import { InThreadWorkers, RuntimeError, runParsed, type JsonValue, type RunResult, type Wait, type WorkerTask } from "../src/index.js";
import { runTaskResumable, sharesThread } from "../src/run-task.js";

const noImports = () => ({ program: null, error: "no imports here" });

/** In-thread workers whose mailbox `inbox` holds `messages`, running delegated tasks the ordinary way. */
function workersWith(source: string, messages: JsonValue[]): InThreadWorkers {
  const { program } = parse(source, { fileName: "t.pw" });
  const workers: InThreadWorkers = new InThreadWorkers((task: WorkerTask) => {
    const r = runParsed(program, [], { fileName: "t.pw", entry: task.worker, args: task.args, statements: false, workers }, noImports);
    const d = r.diagnostics.find((x) => x.severity === "error");
    if (d) throw new RuntimeError(d.code, d.message, d.span, "t.pw");
    return r.value;
  });
  for (const m of messages) workers.send("inbox", m);
  return workers;
}

function ordinary(source: string, entry: string, args: JsonValue[], messages: JsonValue[], codegen: boolean): RunResult {
  const { program } = parse(source, { fileName: "t.pw" });
  return runParsed(program, [], { fileName: "t.pw", entry, args, statements: false, workers: workersWith(source, messages), codegen }, noImports);
}

/** Runs the task resumably, answering each wait from in-thread workers; also gives the waits it yielded. */
function resumable(source: string, entry: string, args: JsonValue[], messages: JsonValue[], codegen: boolean): { result: RunResult; waits: Wait[] } {
  const { program } = parse(source, { fileName: "t.pw" });
  const workers = workersWith(source, messages);
  const steps = runTaskResumable(program, [], { fileName: "t.pw", entry, args, statements: false, workers, codegen }, noImports);
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
    expect(shares(`worker w() { var a = think { Hi } }`)).toBe(false);
    expect(shares(`worker w() {\n    $ true\n}`)).toBe(false);
    expect(shares(`worker w() { while self.session.mailbox.go.receive(9) != null { } }`)).toBe(false);
    expect(shares(`worker h() { return 1 }\nworker w() { var r = [await h()] }`)).toBe(false);
  });
});

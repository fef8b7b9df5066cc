// `self.delegate(tasks).settle().await` in one thread (the in-thread Workers): every task's
// outcome in order, `{ok: true, value}` or `{ok: false, error}` with the error exactly as `catch`
// sees it; fail-fast stays the default and its message names settle(); a fatal failure is no
// outcome. The threaded pool gives the same (packages/agent/test/settle.test.ts).
import { describe, expect, it } from "vitest";
import { CassetteAgent, run, ScriptedAgent, type RunResult } from "../src/index.js";

const DOCS = `
worker doc(n: number) {
  print("doc $n starts")
  if n == 2 { throw {why: "bad", n: n} }
  if n == 3 { var x = 1 + "a" * 2 }
  if n == 5 { throw "plain" }
  return "doc $n"
}
`;

function ok(r: RunResult): RunResult {
  expect(r.diagnostics).toEqual([]);
  return r;
}

describe("settle() in one thread", () => {
  it("gives every task's outcome in order: values, thrown values as themselves, runtime errors as {message, line, column}", () => {
    const r = ok(run(`${DOCS}self.delegate([doc(1), doc(2), doc(3), doc(4), doc(5)]).settle().await`, { fileName: "d.pw" }));
    expect(r.value).toEqual([
      { ok: true, value: "doc 1" },
      { ok: false, error: { why: "bad", n: 2 } },
      { ok: false, error: { message: "worker 'doc' failed: operator '*' cannot be applied to a string and a number", line: 5, column: 27 } },
      { ok: true, value: "doc 4" },
      { ok: false, error: "plain" },
    ]);
    // No failure stopped the others: every task ran.
    expect(r.output).toBe("doc 1 starts\ndoc 2 starts\ndoc 3 starts\ndoc 4 starts\ndoc 5 starts\n");
  });

  it("gives each error exactly as catch sees it when the same task is awaited alone", () => {
    for (const n of [2, 3, 5]) {
      const r = ok(
        run(`${DOCS}var caught = null\ntry { self.delegate([doc(${n})]).await } catch e { caught = e }\n[caught, self.delegate([doc(${n})]).settle().await[0].error]`),
      );
      const [caught, settled] = r.value as unknown[];
      expect(settled).toEqual(caught);
    }
  });

  it("reports an agent's failure of one task's think, and the other tasks' answers", () => {
    const agent = new ScriptedAgent((request) => (request.prompt.includes("document 2") ? [{ fail: "API Error: 400 bad request", code: "PW4013" }] : [{ reply: `category of ${request.prompt.slice(-10)}` }]));
    const src = `
worker categorize(n: number) {
  return think { Categorize document $n }
}
var outcomes = self.delegate([categorize(1), categorize(2), categorize(3)]).settle().await
for var o in outcomes {
  if o.ok { print("ok:", o.value) } else { print("failed:", o.error.message, "at", o.error.line) }
}`;
    const r = ok(run(src, { fileName: "c.pw", agent }));
    expect(r.output).toBe(
      "ok: category of document 1\nfailed: worker 'categorize' failed: API Error: 400 bad request at 3\nok: category of document 3\n",
    );
    expect(agent.thinks).toHaveLength(3);
  });

  it("keeps fail-fast the default: the first failure stops the rest, and its message names settle()", () => {
    const r = run(`${DOCS}self.delegate([doc(1), doc(3), doc(4)]).await`, { fileName: "d.pw" });
    expect(r.diagnostics[0]).toMatchObject({
      code: "PW3005",
      message:
        "worker 'doc' failed: operator '*' cannot be applied to a string and a number (the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)",
    });
    expect(r.diagnostics[0]!.span.start).toMatchObject({ line: 5, column: 27 });
    expect(r.output).toBe("doc 1 starts\ndoc 3 starts\n");
    // After a message of several lines, the hint has a line of its own.
    const lines = run(`worker w(n: number) { throw "status:\\n M a.txt" }\nself.delegate([w(1), w(2)]).await`, { fileName: "l.pw" });
    expect(lines.diagnostics[0]!.message).toBe(
      "worker 'w' failed: uncaught exception: status:\n M a.txt\n(the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)",
    );
    // One task has no other to collect: no hint.
    const alone = run(`${DOCS}await doc(3)`, { fileName: "d.pw" });
    expect(alone.diagnostics[0]!.message).toBe("worker 'doc' failed: operator '*' cannot be applied to a string and a number");
  });

  it("works with nested delegations: inner outcomes as values, inner fail-fast failures named once", () => {
    const src = `${DOCS}
worker settles(a: number, b: number) {
  return self.delegate([doc(a), doc(b)]).settle().await
}
worker failsFast(a: number, b: number) {
  return self.delegate([doc(a), doc(b)]).await
}
var r = self.delegate([settles(1, 2), failsFast(4, 3), failsFast(1, 4)]).settle().await
print(cat(r))
var m = null
try { self.delegate([failsFast(1, 3), doc(1)]).await } catch e { m = e.message }
print(m)`;
    const r = ok(run(src, { fileName: "n.pw" }));
    const [first] = r.output.split("\ndoc 1 starts\ndoc 3 starts\n");
    expect(JSON.parse(first!.slice(first!.indexOf("["))) as unknown).toEqual([
      { ok: true, value: [{ ok: true, value: "doc 1" }, { ok: false, error: { why: "bad", n: 2 } }] },
      {
        ok: false,
        error: {
          message:
            "worker 'failsFast' failed: worker 'doc' failed: operator '*' cannot be applied to a string and a number (the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)",
          line: 5,
          column: 27,
        },
      },
      { ok: true, value: ["doc 1", "doc 4"] },
    ]);
    const last = r.output.trimEnd().split("\n").pop()!;
    expect(last).toBe(
      "worker 'failsFast' failed: worker 'doc' failed: operator '*' cannot be applied to a string and a number (the first failure stops the delegation: self.delegate(tasks).settle().await collects every task's outcome instead)",
    );
  });

  it("is a pending value like any delegation; a delegation started without it cannot settle later", () => {
    const src = `${DOCS}
var p = self.delegate([doc(1), doc(4)]).settle()
print(typeof(p))
print(cat(p.await))
var q = self.delegate([doc(1)])
q.settle()`;
    const r = run(src, { fileName: "s.pw" });
    expect(r.output).toContain('pending\ndoc 1 starts\ndoc 4 starts\n[\n  {\n    "ok": true,\n    "value": "doc 1"\n  },');
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3008" });
    expect(r.diagnostics[0]!.message).toBe(
      "settle(): applies to a delegation as it starts: write self.delegate(tasks).settle() in one expression (this delegation was started without it, so its first failure cancels the other tasks)",
    );
    expect(r.diagnostics[0]!.span.start).toMatchObject({ line: 14, column: 1 });
    const args = run(`${DOCS}self.delegate([doc(1)]).settle(true).await`);
    expect(args.diagnostics[0]!.message).toBe("settle(): takes no arguments, e.g. self.delegate(tasks).settle().await");
    const other = run(`${DOCS}self.delegate([doc(1)]).then()`);
    expect(other.diagnostics[0]).toMatchObject({ code: "PW3009" });
    expect(other.diagnostics[0]!.message).toContain("a pending delegation has no method 'then': join it with .await, or write self.delegate(tasks).settle().await");
  });

  it("lets a fatal failure end the run as fail-fast does: a replay that does not match is no outcome", () => {
    const agent = new CassetteAgent({ patchwork: "cassette", version: 1, program: "f.pw", thinks: [] }, { fileName: "c.json" });
    const src = `
worker asks(n: number) {
  print("asks $n")
  return think { Question $n }
}
var r = self.delegate([asks(1), asks(2)]).settle().await
print("not here")`;
    const r = run(src, { fileName: "f.pw", agent });
    expect(r.diagnostics[0]).toMatchObject({ code: "PW3033" });
    expect(r.diagnostics[0]!.message).toBe("worker 'asks' failed: the cassette c.json has no recording for think 1");
    expect(r.output).toBe("asks 1\n");
  });
});

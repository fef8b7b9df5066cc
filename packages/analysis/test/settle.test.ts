// What the checker and the editor queries know of delegations: `settle()` and `.await` after
// `self.delegate(…)`, `self.` and `self.session.` members (completion, hover), and the checks of
// settle(): outcomes never awaited (PW5010), settle() on a fail-fast delegation (PW5011), with
// arguments (PW5002).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AnalysisDocument, CachingResolver, checkSource, completion, hover } from "../src/index.js";

const dir = join(import.meta.dirname, "fixtures", "project");

function check(source: string): string[] {
  return checkSource(source, { fileName: join(dir, "main.pw"), resolver: new CachingResolver() }).map(
    (d) => `${d.span.start.line}:${d.span.start.column} ${d.severity} ${d.code} ${d.message}`,
  );
}

const WORKER = "worker w(n) { return n }\n";

describe("checks of settle()", () => {
  it("accept a settled delegation awaited at once, kept and awaited later, or returned", () => {
    expect(
      check(`${WORKER}var a = self.delegate([w(1)]).settle().await
var p = self.delegate([w(2)]).settle()
var b = await p
fun f() { return self.delegate([w(3)]).settle() }
print(a, b, f().await)
`),
    ).toEqual([]);
  });

  it("warn where a settled delegation is a statement: its outcomes are never awaited", () => {
    expect(check(`${WORKER}self.delegate([w(1), w(2)]).settle()\n`)).toEqual([
      "2:1 warning PW5010 the outcomes of settle() are never awaited: write self.delegate(tasks).settle().await (tasks nothing awaits are cancelled when their starter ends)",
    ]);
  });

  it("report settle() on a variable only given a delegation started without it, and settle() with arguments", () => {
    expect(check(`${WORKER}var p = self.delegate([w(1)])\nprint(p.settle().await)\nprint(self.delegate([w(2)]).settle(true).await)\n`)).toEqual([
      "3:7 error PW5011 settle(): applies to a delegation as it starts: write self.delegate(tasks).settle() where 'p' is given its delegation (one started without it is fail-fast)",
      "4:7 error PW5002 settle takes 0 argument(s), got 1",
    ]);
    // Given a settled delegation somewhere too: not reported (it may hold that one).
    expect(check(`${WORKER}var p = self.delegate([w(1)])\np = self.delegate([w(2)]).settle()\nprint(p.settle().await)\n`)).toEqual([]);
    // Another object's settle method is none of this check's business.
    expect(check(`var q = {settle: 1}\nprint(q.settle)\n`)).toEqual([]);
  });
});

describe("editor queries on delegations", () => {
  const SRC = [
    "worker w(n) { return n }",
    "var all = self.delegate([",
    "    w(1),",
    "    w(2),",
    "]).settle().await",
    "var id = self.session.id",
    "print(all, id)",
    "",
  ].join("\n");
  const doc = new AnalysisDocument(SRC, { fileName: "/nowhere/d.pw" });
  const at = (needle: string, delta = 0) => SRC.indexOf(needle) + delta;

  it("hover: delegate, settle, await and self.session's members say what they do", () => {
    expect(hover(doc, at("delegate", 2))).toMatchObject({ range: { start: at("delegate"), end: at("delegate") + 8 } });
    expect(hover(doc, at("delegate", 2))!.markdown).toContain("the first failure cancels the others");
    const settle = hover(doc, at("settle", 1))!;
    expect(settle.range).toEqual({ start: at("settle"), end: at("settle") + 6 });
    expect(settle.markdown).toContain("`{ok: true, value}` or `{ok: false, error}` per task, the error as `catch` would see it");
    expect(hover(doc, at("await", 3))!.markdown).toContain("after `settle()`, their outcomes");
    expect(hover(doc, at("session", 1))!.markdown).toContain("shared by all its workers");
    expect(hover(doc, at("session.id", 9))!.markdown).toContain("the run's id (a ULID)");
  });

  it("completion: self., self.session., a delegation's settle and await, a settled one's await", () => {
    const labels = (text: string) => completion(new AnalysisDocument(text, { fileName: "/nowhere/c.pw" }), text.length).map((c) => c.label);
    expect(labels("var p = self.")).toEqual(["delegate", "session"]);
    expect(labels("var p = self.de")).toEqual(["delegate", "session"]);
    expect(labels("var p = self.session.")).toEqual(["id", "timestamp", "dir", "mailbox"]);
    expect(labels(`${WORKER}var p = self.delegate([\n  w(1), w((2)),\n]).`)).toEqual(["settle", "await"]);
    expect(labels(`${WORKER}var p = self.delegate([w(1)]).settle().`)).toEqual(["await"]);
    expect(labels(`${WORKER}var p = self.delegate([w(1)]).settle().aw`)).toEqual(["await"]);
    const item = completion(new AnalysisDocument("self.delegate([]).", { fileName: "/nowhere/c.pw" }), 18)[0]!;
    expect(item.documentation).toContain("all run to their end");
    // Any other call's members are not these.
    expect(labels("var s = len(x).")).not.toContain("settle");
  });
});

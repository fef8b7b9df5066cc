// The progress events of `for` loops (loop-start, loop-item, loop-end): made when a host
// listens, in both evaluation tiers, ended with ok false and the items done when the loop throws.
import { describe, expect, it } from "vitest";
import type { PwEvent } from "../src/index.js";
import { shortLabel } from "../src/compiler/loop-progress.js";
import { runSource } from "./helpers.js";

/** The loop and print events, one short line each. */
function story(events: PwEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type === "loop-start") out.push(`start ${e.loop} ${e.variable} ${e.total} [${e.labels?.join("|")}] at ${e.span.start.line}`);
    else if (e.type === "loop-item") out.push(`item ${e.loop} ${e.index}`);
    else if (e.type === "loop-end") out.push(`end ${e.loop} ${e.ok} ${e.done}`);
    else if (e.type === "print") out.push(`print ${e.text.trim()}`);
  }
  return out;
}

describe.each([true, false])("loop progress events (codegen %s)", (codegen) => {
  it("a loop over a list: its items as labels, each item as it starts, its end", () => {
    const r = runSource('for x in ["alpha", "beta", "gamma"] { print(x) }', { codegen });
    expect(r.error).toBeNull();
    expect(story(r.events)).toEqual([
      "start 1 x 3 [alpha|beta|gamma] at 1",
      "item 1 0",
      "print alpha",
      "item 1 1",
      "print beta",
      "item 1 2",
      "print gamma",
      "end 1 true 3",
    ]);
  });

  it("a range loop in a function (the generated code's tier), nested loops numbered apart", () => {
    const r = runSource("fun f() {\n  for i in 1...2 {\n    for j in 5...5 { print(i + j) }\n  }\n}\nf()", { codegen });
    expect(r.error).toBeNull();
    expect(story(r.events)).toEqual([
      "start 1 i 2 [1|2] at 2",
      "item 1 0",
      "start 2 j 1 [5] at 3",
      "item 2 0",
      "print 6",
      "end 2 true 1",
      "item 1 1",
      "start 3 j 1 [5] at 3",
      "item 3 0",
      "print 7",
      "end 3 true 1",
      "end 1 true 2",
    ]);
  });

  it("a loop that throws half-way ends not ok, with the items done before the failure", () => {
    const r = runSource('for x in [1, 2, 0, 4] { print(10 / x) }', { codegen });
    expect(r.error).toMatch(/^PW3012/);
    // (item 2, told with the next event, is stale once its loop has ended)
    expect(story(r.events).slice(-3)).toEqual(["item 1 1", "print 5", "end 1 false 2"]);
  });

  it("break and return count the item they leave from", () => {
    const r = runSource("for x in [1, 2, 3] { if x == 2 { break } }\nfun g() { for y in [1, 2, 3] { if y == 1 { return y } } }\ng()", { codegen });
    expect(story(r.events).filter((l) => l.startsWith("end"))).toEqual(["end 1 true 2", "end 2 true 1"]);
  });

  it("a long list: 200 labels, the total of all", () => {
    const r = runSource("var xs = []\nfor i in 1...500 { xs.push(i) }\nfor x in xs { }", { codegen });
    const start = r.events.filter((e) => e.type === "loop-start")[1] as Extract<PwEvent, { type: "loop-start" }>;
    expect(start.total).toBe(500);
    expect(start.labels).toHaveLength(200);
    expect(start.labels![199]).toBe("200");
  });

  it("items are told at most every 50 ms, the one held before the next event", async () => {
    const r = runSource("var n = 0\nfor i in 1...20000 { n = n + 1 }\nprint(n)", { codegen });
    const items = r.events.filter((e) => e.type === "loop-item");
    expect(items[0]).toEqual({ type: "loop-item", loop: 1, index: 0 });
    expect(items.length).toBeLessThan(40);
  });

  it("an empty loop starts and ends", () => {
    const r = runSource("for x in [] { }", { codegen });
    expect(story(r.events)).toEqual(["start 1 x 0 [] at 1", "end 1 true 0"]);
  });
});

describe("shortLabel", () => {
  it("shows a value on one line (strings inside quoted), cut with an ellipsis", () => {
    expect(shortLabel("report.txt")).toBe("report.txt");
    expect(shortLabel("two\nlines")).toBe("two lines");
    expect(shortLabel("x".repeat(100))).toBe("x".repeat(59) + "…");
    expect(shortLabel(new Map<string, never>([["name", "Ada" as never], ["age", 36 as never]]))).toBe('{name: "Ada", age: 36}');
    expect(shortLabel([1, "b"])).toBe('1, "b"');
  });

  it("does not print a large value whole", () => {
    const big = Array.from({ length: 1_000_000 }, (_, i) => i);
    expect(shortLabel(big)).toHaveLength(60);
  });
});

describe.each([true, false])("while loops' progress events (codegen %s)", (codegen) => {
  it("no variable, no total; break, return and an error end them as for loops", () => {
    const r = runSource(
      "var i = 0\nwhile i < 3 { i = i + 1 }\nfun f() { var j = 0\n while true { j = j + 1\n if j == 2 { return j } } }\nf()\nvar k = 0\nwhile true { k = k + 1\n if k == 4 { break } }\nvar z = 2\nwhile true { z = z - 1\n print(10 / z) }",
      { codegen },
    );
    expect(r.error).toMatch(/^PW3012/);
    const starts = r.events.filter((e) => e.type === "loop-start");
    expect(starts.map((e) => [e.variable, e.total, e.labels])).toEqual([["", null, undefined], ["", null, undefined], ["", null, undefined], ["", null, undefined]]);
    expect(story(r.events).filter((l) => l.startsWith("end"))).toEqual(["end 1 true 3", "end 2 true 2", "end 3 true 4", "end 4 false 1"]);
  });
});

describe("loops of in-thread worker tasks", () => {
  it("are numbered on from their delegating program's", () => {
    const r = runSource("worker w(n) {\n  for j in 1...n { }\n  return n\n}\nfor x in [1, 2] { var r = self.delegate([w(x)]).await }");
    expect(r.error).toBeNull();
    expect(story(r.events).filter((l) => l.startsWith("start") || l.startsWith("end"))).toEqual([
      "start 1 x 2 [1|2] at 5",
      "start 2 j 1 [1] at 2",
      "end 2 true 1",
      "start 3 j 2 [1|2] at 2",
      "end 3 true 2",
      "end 1 true 2",
    ]);
  });
});

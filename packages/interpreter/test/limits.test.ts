// Runaway programs become PW307x errors, never hangs or JS stack overflows.
import { describe, expect, it } from "vitest";
import type { RunOptions } from "../src/index.js";
import { runSource as runWith } from "./helpers.js";

for (const codegen of [true, false]) {
const runSource = (src: string, options: RunOptions = {}) => runWith(src, { ...options, codegen });
describe(`limits (${codegen ? "codegen" : "closures only"})`, () => {
  it("caps recursion depth with PW3070 at the recursive call", () => {
    const r = runSource("fun f(n) {\n  return f(n + 1)\n}\nf(0)");
    expect(r.error).toMatch(/^PW3070 at 2:10: recursion too deep \(more than 2000 nested calls\)/);
  });

  it("honours a custom maxDepth", () => {
    const r = runSource("fun f(n) {\n  if n == 0 { return 0 }\n  return f(n - 1)\n}\nprint(f(50))\nprint(f(100))", {
      limits: { maxDepth: 60 },
    });
    expect(r.output).toBe("0\n");
    expect(r.error).toMatch(/^PW3070 at 3:10/);
  });

  it("turns a JS stack overflow into PW3070 when the depth limit is too high", () => {
    const r = runSource("fun f(n) {\n  return 1 + f(n + 1)\n}\nf(0)", { limits: { maxDepth: 10_000_000 } });
    expect(r.error).toMatch(/^PW3070 /);
  });

  it("a JS stack overflow in any shape of body is PW3070 at the innermost call, never an internal error", () => {
    // Near the end of the stack V8 reports even a regular expression it compiles as a
    // SyntaxError; these bodies used to end as PW3099 "Invalid regular expression".
    const bodies = [
      'var x = [1, {a: "${len([f(n - 1)])}"}]\n  return 1',
      "try {\n    for i in [1] {\n      return [f(n - 1)][0] + 1\n    }\n  } catch e { print(e) }\n  return 1",
      'return "${-(-(f(n - 1) + 1))}".split("\\n").length * 1',
    ];
    for (const body of bodies) {
      const src = `fun f(n) {\n  ${body}\n}\nf(1000000)`;
      const lines = src.split("\n");
      const line = lines.findIndex((l) => l.includes("f(n - 1)"));
      const at = `${line + 1}:${lines[line]!.indexOf("f(n - 1)") + 1}`;
      const r = runSource(src, { limits: { maxDepth: 10_000_000 } });
      expect(r.error).toBe(`PW3070 at ${at}: recursion too deep (the JavaScript stack ran out before the limit of 10000000 nested calls)`);
    }
  });

  it("a depth error cannot be caught by try", () => {
    const r = runSource('fun f(n) { return f(n + 1) }\ntry { f(0) } catch e { print("caught") }\nprint("after")', { limits: { maxDepth: 50 } });
    expect(r.output).toBe("");
    expect(r.error).toMatch(/^PW3070/);
  });

  it("stops an endless loop with a step budget", () => {
    const r = runSource("var i = 0\nwhile true {\n  i++\n}", { limits: { maxSteps: 10_000 } });
    expect(r.error).toBe("PW3071 at 2:1: step budget exceeded (10000 steps)");
  });

  it("counts calls against the step budget too", () => {
    const r = runSource("fun g() { return 1 }\nfor i in 1...100000 { g() }", { limits: { maxSteps: 5_000 } });
    expect(r.error).toMatch(/^PW3071/);
  });

  it("stops an endless loop with a timeout", () => {
    const started = Date.now();
    const r = runSource("while true { }", { limits: { timeoutMs: 100 } });
    expect(r.error).toBe("PW3072 at 1:1: time limit exceeded (100 ms)");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("limits are not caught by try", () => {
    const r = runSource('try { while true { } } catch e { print("caught") }', { limits: { maxSteps: 100 } });
    expect(r.output).toBe("");
    expect(r.error).toMatch(/^PW3071/);
  });
});
}

describe("timeout and slow operations", () => {
  it("checks the clock before each shell command", () => {
    const started = Date.now();
    const r = runWith("for i in 1...50 {\n  $ sleep 0.05\n}", { limits: { timeoutMs: 200 } });
    expect(r.error).toMatch(/^PW3072 at 2:3/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("engine limits", () => {
  it("a string past the engine's maximum length is PW3073, not a recursion error", () => {
    const r = runWith('var s = "x"\ntry {\n  while true { s = s + s }\n} catch e { print(e.message.startsWith("value too large")) }');
    expect(r.error).toBeNull();
    expect(r.output).toBe("true\n");
  });
});

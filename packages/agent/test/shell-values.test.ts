// Issue 9, items 1 and 3 in agent mode: the evaluator thread's commands run on the main thread
// (ShellRunner), with the same values-as-data rule and the same NUL error as without an agent.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runWith, scratch } from "./helpers.js";

describe("shell values with an agent", () => {
  it("a value in $(…) inside double quotes is printed, not run; a do block gets the same", async () => {
    const mark = join(scratch, "pwned-agent");
    const source = [
      `var a = "x; touch ${mark}"`,
      `$ echo "A:$(printf '%s' \${a})"`,
      "var r = think {",
      "  go",
      "  do {",
      '    $ echo "B:`echo ${a}`"',
      "  }",
      "}",
      "print(r)",
    ].join("\n");
    const run = await runWith(source, "p.pw", { prompts: [{ steps: [{ do: 0 }, { reply: "{{do}}" }] }] });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe(`A:x; touch ${mark}\nB:x; touch ${mark}\nB:x; touch ${mark}\n`);
    expect(existsSync(mark)).toBe(false);
  });

  it("a NUL byte in a value is the same catchable, positioned PW3025 (no JavaScript stack)", async () => {
    const source = ['var x = $(printf "a\\0b")', "try {", "  $ echo ${x}", "} catch e { print(e.line, e.column, e.message) }", "$ echo ${x}"].join("\n");
    const run = await runWith(source, "p.pw", { prompts: [] });
    expect(run.output).toBe("3 10 cannot pass this value to a command: ${x} contains a NUL byte, which no command argument can hold (remove it first, e.g. with replace())\n");
    expect(run.diagnostics.map((d) => `${d.code}@${d.span.start.line}:${d.span.start.column}`)).toEqual(["PW3025@5:8"]);
    expect(run.stderr).not.toMatch(/TypeError|at .*\.js/);
  });

  it("a value past 128 KiB reaches the command on the main thread too (through a file), never run", async () => {
    const mark = join(scratch, "pwned-large");
    const source = [`var big = "q'\\"".repeat(100000) + "$'$'(touch ${mark})"`, `var n = $(printf %s "$big" | wc -c)`, "print(n)"].join("\n");
    const run = await runWith(source, "p.pw", { prompts: [] });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe(`${300000 + `$(touch ${mark})`.length}\n`);
    expect(existsSync(mark)).toBe(false);
  });
});

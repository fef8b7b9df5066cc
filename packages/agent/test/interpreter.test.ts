// End to end with the real interpreter: Patchwork source and Threadbare JSON programs on the
// evaluator thread, the ACP runtime and the scripted agent in a real process.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { groupAlive, runWith, scratch } from "./helpers.js";

const example = (name: string) => readFileSync(fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url)), "utf8");

describe("with the real interpreter", () => {
  for (const transport of ["http", "stdio"] as const) {
    it(`runs examples/categorize.pw over ${transport}`, async () => {
      const run = await runWith(example("categorize.pw"), "categorize.pw", {
        prompts: [{ match: "categorizing", steps: [{ do: 0 }, { reply: "RECEIPT, the tool said: {{do}}" }] }],
      }, { mcpTransport: transport });
      expect(run.diagnostics).toEqual([]);
      expect(run.output).toBe(
        "Categorized as: RECEIPT\nExtracting amount...\nRECEIPT, the tool said: Categorized as: RECEIPT\nExtracting amount...\n",
      );
      const start = run.events.find((e) => e.type === "think-start");
      expect(start).toMatchObject({ fileName: "categorize.pw", span: { start: { line: 5 } } });
      expect((start as { prompt: string }).prompt).toContain("Document content:\n[... invoice for $542.00 from Acme Corp ...]");
      expect(groupAlive(run.agentPid!)).toBe(false);
    });
  }

  it("runs the seeds' Threadbare programs (categorize.json, nested.json)", async () => {
    const flat = await runWith(example("categorize.json"), "categorize.json", {
      prompts: [{ steps: [{ do: 0 }, { reply: "done" }] }],
    });
    expect(flat.diagnostics).toEqual([]);
    expect(flat.output).toBe("Categorized as: RECEIPT\nExtracting amount...\n");
    const nested = await runWith(example("nested.json"), "nested.json", {
      prompts: [
        { match: "Categorize", steps: [{ do: 0 }, { reply: "outer: {{do}}" }] },
        { match: "Extract", steps: [{ do: 0 }, { reply: "$542.00" }] },
      ],
    });
    expect(nested.diagnostics).toEqual([]);
    expect(nested.output).toBe("Categorized as: RECEIPT\nAmount: $542.00\n");
    const order = nested.events.filter((e) => e.type.startsWith("think-")).map((e) => e.type);
    expect(order).toEqual(["think-start", "think-start", "think-end", "think-end"]);
  });

  it("repairs a typed think with one follow-up turn in the same session", async () => {
    const run = await runWith(example("typed-think.pw"), "typed-think.pw", {
      prompts: [
        { match: "Classify", once: true, steps: [{ reply: "It is a receipt, I think." }] },
        { steps: [{ reply: '```json\n{"category": "RECEIPT", "confidence": 0.9}\n```' }] },
      ],
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toContain('"category":"RECEIPT"');
    expect(run.events.filter((e) => e.type === "session")).toHaveLength(1);
  });

  it("nests thinks 20 levels deep in Patchwork source", async () => {
    let source = 'print("bottom")';
    for (let level = 20; level >= 1; level--) {
      source = `var r${level} = think {\n  [level ${level}] run do(0)\n  do {\n${source}\n  }\n}\nprint("level ${level}: " + r${level})`;
    }
    const run = await runWith(source, "deep.pw", { prompts: [{ match: "[level", steps: [{ do: 0 }, { reply: "ok" }] }] });
    expect(run.diagnostics).toEqual([]);
    expect(run.output.split("\n")[0]).toBe("bottom");
    expect(run.output).toContain("level 1: ok");
    expect(run.events.filter((e) => e.type === "session")).toHaveLength(20);
  });

  it("runs 100 thinks in a loop", async () => {
    const source = 'var n = 0\nfor i in 1...100 {\n  var r = think {\n    count ${i}\n    do {\n      n = n + 1\n    }\n  }\n}\nprint(n)';
    const run = await runWith(source, "loop.pw", { prompts: [{ match: "count", steps: [{ do: 0 }, { reply: "ok" }] }] }, { timeoutMs: 90_000 });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("100\n");
  });

  it("closes each think's session (session/close) when the agent supports it", async () => {
    const source = 'for i in 1...3 {\n  print(think { turn ${i} })\n}';
    const script = (extra: object) => ({ ...extra, prompts: [{ match: "turn", steps: [{ reply: "ok" }] }] });
    const closing = await runWith(source, "close.pw", script({}));
    expect(closing.diagnostics).toEqual([]);
    expect(closing.output).toBe("ok\nok\nok\n");
    // The agent's stderr may be cut by its shutdown at the end of the run (spare-session.test.ts
    // reads its log file for the full count: every session closed, the one made ahead for a
    // fourth turn included).
    const closed = new Set(closing.stderr.match(/session closed: test-session-\d+/g) ?? []);
    expect(closed.has("session closed: test-session-1")).toBe(true);
    expect(closed.has("session closed: test-session-2")).toBe(true);
    expect([...closed].every((c) => /test-session-[1234]$/.test(c))).toBe(true);
    const without = await runWith(source, "close.pw", script({ sessionClose: false }));
    expect(without.output).toBe("ok\nok\nok\n");
    expect(without.stderr).not.toMatch(/session closed/);
  });

  it("closes an untyped think's session with its answer; a typed one's when the evaluator moves on", async () => {
    // Between the two thinks the evaluator waits for a shell command: the first session's close
    // reaches the agent during that wait, unless the think is typed (its answer may still need
    // the repair turn in the same session until the evaluator has checked it).
    // Compared in wall-clock time (the close's notice as it reaches us, the command's own end
    // printed by `date`), not by the order of events from two threads, which load can swap.
    const order = async (declaration: string) => {
      const source = `${declaration} = think { first }\n$ sleep 1.5; date +%s%3N\nprint(think { second })`;
      let closedAt = -1;
      const run = await runWith(
        source,
        "close.pw",
        {
          prompts: [
            { match: "first", steps: [{ reply: '```json\n{"n": 1}\n```' }] },
            { match: "second", steps: [{ reply: "ok" }] },
          ],
        },
        { onEvent: (e) => void (e.type === "agent-stderr" && e.text.includes("session closed: test-session-1") && closedAt < 0 && (closedAt = Date.now())) },
      );
      expect(run.diagnostics).toEqual([]);
      const commandEnded = Number(run.output.split("\n")[0]);
      expect(closedAt).toBeGreaterThan(0);
      return closedAt < commandEnded ? "before the next think" : "after the next think started";
    };
    expect(await order("var a")).toBe("before the next think");
    expect(await order("type N = {n: number}\nvar a: N")).toBe("after the next think started");
  });

  it("an agent failure is a runtime error at the think's position", async () => {
    const source = 'print("before")\nvar x = think {\n  hello\n}\nprint("after")';
    const run = await runWith(source, "fail.pw", { prompts: [{ steps: [{ crash: true }] }] });
    expect(run.ok).toBe(false);
    expect(run.output).toBe("before\n");
    expect(run.diagnostics[0]).toMatchObject({ code: "PW4004", fileName: "fail.pw", span: { start: { line: 2, column: 9 } } });
  });

  it("try/catch sees an agent error and the program goes on", async () => {
    const source = 'try {\n  var x = think {\n    hello\n  }\n} catch e {\n  print("caught: " + e.message)\n}\nprint("after")';
    const run = await runWith(source, "catch.pw", { prompts: [{ steps: [{ stop: "refusal" }] }] });
    expect(run.ok).toBe(true);
    expect(run.output).toMatch(/^caught: .*refus.*\nafter\n$/s);
  });

  it("runs shell commands for the evaluator thread (status, output, cwd)", async () => {
    const source = 'var x = $(echo hi there)\nprint(x)\n$ echo streamed\nif $(exit 3) { print("no") } else { print("status " + $?) }\nprint($(pwd))';
    const run = await runWith(source, "sh.pw", {});
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe(`hi there\nstreamed\nstatus 3\n${scratch}\n`);
  });

  it("cancelling kills a running shell command and what it started", async () => {
    const controller = new AbortController();
    const marker = `pw-cancel-${process.pid}-${Date.now()}`;
    const run = await runWith(`print("start")\n$ sleep 30 | cat # ${marker}\nprint("end")`, "sh.pw", {}, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "print") setTimeout(() => controller.abort(), 300);
      },
    });
    expect(run.cancelled).toBe(true);
    expect(run.output).toBe("start\n");
    await new Promise((r) => setTimeout(r, 100));
    const left = readdirSync("/proc").filter((p) => {
      try {
        return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    });
    expect(left).toEqual([]);
  });

  it("cancels a program stuck in an endless loop", async () => {
    const controller = new AbortController();
    const run = await runWith('print("start")\nwhile true {\n}\n', "spin.pw", {}, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "print") setTimeout(() => controller.abort(), 200);
      },
    });
    expect(run.cancelled).toBe(true);
    expect(run.output).toBe("start\n");
    expect(groupAlive(run.agentPid!)).toBe(false);
  });
});

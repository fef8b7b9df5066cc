// From a run's second think on, the runtime makes the next think's session ahead of time.
import { describe, expect, it } from "vitest";
import { runWith, type Run } from "./helpers.js";

const created = (run: Run) => run.stderr.match(/session created: test-session-\d+/g) ?? [];
const used = (run: Run) => run.events.flatMap((e) => (e.type === "session" ? [e.sessionId] : []));

describe("a session made ahead for the next think", () => {
  it("a program with one think makes one session", async () => {
    const run = await runWith("print(think { only })", "one.pw", { prompts: [{ match: "only", steps: [{ reply: "ok" }] }] });
    expect(run.output).toBe("ok\n");
    expect(created(run)).toHaveLength(1);
    expect(used(run)).toEqual(["test-session-1"]);
  });

  it("a loop uses each spare for its next think, its do blocks included; one is left unused at the end", async () => {
    const source = 'var n = 0\nfor i in 1...4 {\n  print(think {\n    count ${i}\n    do {\n      n = n + i\n      print("block " + i)\n    }\n  })\n}\nprint(n)';
    const run = await runWith(source, "loop.pw", { prompts: [{ match: "count", steps: [{ do: 0 }, { reply: "ok" }] }] });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("block 1\nok\nblock 2\nok\nblock 3\nok\nblock 4\nok\n10\n");
    expect(used(run)).toEqual(["test-session-1", "test-session-2", "test-session-3", "test-session-4"]);
    expect(created(run)).toHaveLength(5);
  });

  it("can be turned off (prepareSessions: false)", async () => {
    const source = "for i in 1...3 {\n  print(think { turn ${i} })\n}";
    const script = { prompts: [{ match: "turn", steps: [{ reply: "ok" }] }] };
    const { scriptedAgent } = await import("./helpers.js");
    const run = await runWith(source, "loop.pw", script, { agent: { command: scriptedAgent(script), prepareSessions: false } });
    expect(run.output).toBe("ok\n".repeat(3));
    expect(created(run)).toHaveLength(3);
  });

  it("a spare whose agent died meanwhile fails the next think with the agent's fault, not a hang", async () => {
    const source = "for i in 1...3 {\n  print(think { turn ${i} })\n}";
    const run = await runWith(source, "die.pw", {
      prompts: [
        { match: "turn 1", steps: [{ reply: "ok" }] },
        { match: "turn 2", steps: [{ text: "bye" }, { crash: true }] },
      ],
    });
    expect(run.output).toBe("ok\n");
    expect(run.diagnostics.map((d) => d.code)).toEqual(["PW4004"]);
  });
});

// An evaluator thread started ahead of its run (thread/ahead.ts, what `patchwork run --resume`
// starts while it reads the cassette): a replay's program runs on it, the agent answering what
// the cassette lacks; a run that holds its thread for its agent's start stops it instead; a
// thread no run takes keeps nothing alive. Real evaluator threads, the real interpreter.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvaluatorThreadAhead, runWithAgent, type AsyncAgent } from "../dist/index.js";
import { agentBin } from "./helpers.js";

const source = 'var a = think { First. }\nvar b = think { Second. }\nprint("$a $b")\n';
const cassette = { version: 1, thinks: [{ think: 1, prompt: "First.", turns: [{ do: [], answer: "one" }] }] };

function agent(): AsyncAgent & { asked: string[] } {
  const asked: string[] = [];
  return { asked, think: async (request) => (asked.push(request.prompt), { text: "two" }) };
}

/** Resolves once the thread has stopped. */
const stopped = (ahead: EvaluatorThreadAhead) =>
  ahead.worker.threadId === -1 ? Promise.resolve() : new Promise<void>((resolve) => ahead.worker.once("exit", () => resolve()));

describe("an evaluator thread started ahead", () => {
  const cwd = mkdtempSync(join(tmpdir(), "pw-ahead-"));

  it("runs a replay's program: the cassette's answers, then the agent's (the thread's hello kept for the pool)", async () => {
    const ahead = new EvaluatorThreadAhead({ cwd });
    // Its start under way or done before the run: either way the run takes it.
    await new Promise((r) => setTimeout(r, 50));
    const live = agent();
    const said: string[] = [];
    ahead.worker.on("message", (m: { type: string }) => said.push(m.type));
    const result = await runWithAgent({
      source,
      fileName: "p.pw",
      cwd,
      agent: live,
      replay: { cassette, fileName: "c.json" },
      writeOutput: false,
      evaluatorThread: ahead,
    });
    expect([result.ok, result.output, result.diagnostics]).toEqual([true, "one two\n", []]);
    expect(live.asked).toEqual(["Second."]);
    // The program ran on the thread started ahead: its think went to the agent, it said done.
    expect(said).toContain("think");
    expect(said.at(-1)).toBe("done");
    await stopped(ahead);
    expect(ahead.worker.threadId).toBe(-1);
  });

  it("a run held for its ACP agent's start (not a replay), or with another cwd, stops it and starts its own", async () => {
    const script = join(cwd, "script.json");
    writeFileSync(script, JSON.stringify({ prompts: [], fallback: { steps: [{ reply: "two" }] } }));
    const acp = { command: `"${process.execPath}" "${agentBin}" "${script}"` };
    const runs = [
      { ahead: new EvaluatorThreadAhead({ cwd }), agent: acp, output: "two two\n" },
      { ahead: new EvaluatorThreadAhead({ cwd: tmpdir() }), agent: agent(), replay: { cassette, fileName: "c.json" }, output: "one two\n" },
    ];
    for (const { ahead, agent, replay, output } of runs) {
      const said: string[] = [];
      ahead.worker.on("message", (m: { type: string }) => said.push(m.type));
      const result = await runWithAgent({ source, fileName: "p.pw", cwd, agent, writeOutput: false, evaluatorThread: ahead, ...(replay ? { replay } : {}) });
      expect([result.ok, result.output, result.diagnostics]).toEqual([true, output, []]);
      expect(said).not.toContain("done");
      await stopped(ahead); // (stopped, not left to the end of the process)
    }
  }, 60_000);

  it("a thread no run takes keeps nothing alive, and discard stops it", async () => {
    const ahead = new EvaluatorThreadAhead({ cwd });
    expect(ahead.fits({ cwd })).toBe(true);
    expect(ahead.fits({ cwd, shellStdin: "inherit" })).toBe(false);
    expect(ahead.fits({ cwd, env: {} })).toBe(false);
    ahead.discard();
    await stopped(ahead);
    expect(ahead.fits({ cwd })).toBe(false);
  });
});

// Every fault of an agent process gives a clear PW4xxx error at the think, no hang, no orphan.
import { describe, expect, it } from "vitest";
import { runWithAgent } from "../dist/index.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { block, codes, fakeEvaluator, groupAlive, pidAlive, print, runThreadbare, runWith, scratch, scriptedAgent, think } from "./helpers.js";

const one = think("answer me", [print("child ran")], { print: true });

async function expectDead(pid: number | undefined) {
  expect(pid).toBeGreaterThan(0);
  for (let i = 0; i < 20 && groupAlive(pid!); i++) await new Promise((r) => setTimeout(r, 25));
  expect(groupAlive(pid!)).toBe(false);
}

describe("initialize", () => {
  it("reports a process that is not an ACP agent (PW4002)", async () => {
    const result = await runWithAgent({
      source: JSON.stringify(one),
      fileName: "p.json",
      cwd: scratch,
      agent: { command: `${JSON.stringify(process.execPath)} -e "console.log('hello there'); setInterval(() => {}, 1000)"` },
      evaluatorModule: fakeEvaluator,
      writeOutput: false,
    });
    expect(result.ok).toBe(false);
    expect(codes(result)).toEqual(["PW4002"]);
    expect(result.diagnostics[0]!.message).toMatch(/not an ACP agent.*hello there/s);
  });

  it("reports an agent that crashes at initialize (PW4002) with its stderr", async () => {
    const run = await runThreadbare(one, { onInitialize: "crash" });
    expect(codes(run)).toEqual(["PW4002"]);
    expect(run.diagnostics[0]!.message).toMatch(/exited with code 3/);
    expect(run.diagnostics[0]!.message).toMatch(/crashing at initialize/);
  });

  it("reports a command that does not exist", async () => {
    const shell = await runWithAgent({
      source: "{}",
      fileName: "p.json",
      agent: { command: "/nonexistent/agent --acp" },
      evaluatorModule: fakeEvaluator,
      writeOutput: false,
    });
    expect(codes(shell)).toEqual(["PW4002"]);
    const direct = await runWithAgent({
      source: "{}",
      fileName: "p.json",
      agent: { command: { command: "/nonexistent/agent" } },
      evaluatorModule: fakeEvaluator,
      writeOutput: false,
    });
    expect(codes(direct)).toEqual(["PW4001"]);
  });

  it("reports a protocol version mismatch (PW4003)", async () => {
    const run = await runThreadbare(one, { protocolVersion: 99 });
    expect(codes(run)).toEqual(["PW4003"]);
    expect(run.diagnostics[0]!.message).toMatch(/version 99/);
  });

  it("gives up on an agent that never answers initialize", async () => {
    const result = await runWithAgent({
      source: "{}",
      fileName: "p.json",
      agent: { command: scriptedAgent({ onInitialize: "hang" }), initializeTimeoutMs: 500 },
      evaluatorModule: fakeEvaluator,
      writeOutput: false,
    });
    expect(codes(result)).toEqual(["PW4002"]);
    expect(result.diagnostics[0]!.message).toMatch(/no answer to initialize within 500 ms/);
  });
});

describe("the program and its agent's start", () => {
  const marker = () => join(scratch, `ran-${Math.random().toString(36).slice(2)}.flag`);

  it("runs nothing of the program when the agent fails to start", async () => {
    const flag = marker();
    const run = await runWith(`$ touch ${flag}\nprint(think { hello })\n`, join(scratch, "first.pw"), { onInitialize: "crash" });
    expect(codes(run)).toEqual(["PW4002"]);
    expect(existsSync(flag)).toBe(false);
  });

  it("starts the program only once the agent is up", async () => {
    const order: string[] = [];
    const run = await runWith('print("first")\nprint(think { hello })\n', join(scratch, "order.pw"), { initializeDelayMs: 400, fallback: { steps: [{ reply: "hi" }] } }, {
      onEvent: (e) => {
        if (e.type === "agent-started") order.push("agent-started");
      },
      onOutput: (text) => order.push(text),
    });
    expect(run.diagnostics).toEqual([]);
    expect(order).toEqual(["agent-started", "first\n", "hi\n"]);
  });

  it("reports a syntax error without waiting for the agent, and leaves no agent process", async () => {
    const t0 = performance.now();
    const script = scriptedAgent({ initializeDelayMs: 30_000 });
    const run = await runWithAgent({ source: "print(1)\nvar = 3\n", fileName: "broken.pw", cwd: scratch, agent: { command: script }, writeOutput: false });
    expect(run.diagnostics.map((d) => d.code)).toEqual(["PW2001"]);
    expect(performance.now() - t0).toBeLessThan(20_000);
    // The agent's start was abandoned: its process is gone.
    const scriptFile = JSON.parse(script.split(" ").at(-1)!) as string;
    for (let i = 0; i < 40 && commandsRunning(scriptFile) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(commandsRunning(scriptFile)).toBe(0);
  });
});

/** Living processes whose command line mentions `text`. */
function commandsRunning(text: string): number {
  let n = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text)) n++;
    } catch {
      /* gone */
    }
  }
  return n;
}

describe("faults during a think", () => {
  it("an agent crash fails the think (PW4004) at its position and kills the group", async () => {
    const run = await runThreadbare(one, { prompts: [{ steps: [{ text: "partial" }, { crash: true }] }] });
    expect(run.ok).toBe(false);
    expect(run.diagnostics[0]).toMatchObject({ code: "PW4004", fileName: "program.json" });
    expect(run.diagnostics[0]!.message).toMatch(/killed by SIGKILL/);
    await expectDead(run.agentPid);
  });

  it("an agent that exits fails the think (PW4004)", async () => {
    const run = await runThreadbare(one, { prompts: [{ steps: [{ exit: 0 }] }] });
    expect(codes(run)).toEqual(["PW4004"]);
    expect(run.diagnostics[0]!.message).toMatch(/exited with code 0/);
  });

  it("garbage on the agent's stdout fails the think (PW4005)", async () => {
    const run = await runThreadbare(one, { prompts: [{ steps: [{ garbage: "Loading model..." }, { sleep: 5000 }] }] });
    expect(codes(run)).toEqual(["PW4005"]);
    expect(run.diagnostics[0]!.message).toMatch(/Loading model/);
    await expectDead(run.agentPid);
  });

  it("an agent that never answers hits the idle timeout (PW4006)", async () => {
    const started = Date.now();
    const run = await runThreadbare(one, { prompts: [{ steps: [{ hang: true }] }] }, { thinkIdleTimeoutMs: 400 });
    expect(codes(run)).toEqual(["PW4006"]);
    expect(run.diagnostics[0]!.message).toMatch(/program\.json:1:1 timed out: the agent was silent for 400 ms/);
    expect(Date.now() - started).toBeLessThan(8000);
    await expectDead(run.agentPid);
  });

  it("the total think timeout applies even while the agent chatters (PW4006)", async () => {
    const steps = Array.from({ length: 40 }, () => [{ text: "." }, { sleep: 50 }]).flat();
    const run = await runThreadbare(one, { prompts: [{ steps }] }, { thinkTimeoutMs: 500, thinkIdleTimeoutMs: 400 });
    expect(codes(run)).toEqual(["PW4006"]);
    expect(run.diagnostics[0]!.message).toMatch(/no answer within 500 ms/);
  });

  const stops = [
    ["refusal", "PW4007"],
    ["max_tokens", "PW4008"],
    ["max_turn_requests", "PW4009"],
    ["cancelled", "PW4010"],
  ] as const;
  for (const [stop, code] of stops) {
    it(`stop reason ${stop} is an error naming it (${code})`, async () => {
      const run = await runThreadbare(one, { prompts: [{ steps: [{ text: "sorry" }, { stop }] }] });
      expect(codes(run)).toEqual([code]);
      expect(run.diagnostics[0]!.message).toContain(stop);
    });
  }

  it("a do call after the turn ended is an error at that think; the program goes on", async () => {
    const program = block(think("first", [print("late child")], { print: true }), think("second", [], { print: true }));
    const run = await runThreadbare(program, {
      prompts: [
        { match: "first", steps: [{ text: "one" }, { doAfterEnd: 0, delayMs: 10 }] },
        { match: "second", steps: [{ awaitLate: true }, { reply: "two" }] },
      ],
    });
    expect(run.output).toBe("one\ntwo\n");
    expect(run.output).not.toContain("late child");
    expect(codes(run)).toEqual(["PW4011"]);
    expect(run.diagnostics[0]!.message).toMatch(/do\(0\) after the turn of the think at program\.json:1:1 had ended/);
    expect(run.ok).toBe(false);
    expect(run.stderr).toMatch(/late do\(0\) answered: error/);
  });

  it("an ACP request error fails the think (PW4013) with the agent's details", async () => {
    const run = await runThreadbare(one, { failSessionNew: "please authenticate first" });
    expect(codes(run)).toEqual(["PW4013"]);
    expect(run.diagnostics[0]!.message).toMatch(/answered with an error: .*please authenticate first/);
  });

  it("a bad index: the model gets a tool error with the valid numbers, the think fails with PW4018", async () => {
    const program = block(think("pick", [print("a"), print("b")], { print: true }), print("after"));
    const run = await runThreadbare(program, { prompts: [{ steps: [{ do: 7 }, { reply: "got: {{do}}" }] }] });
    expect(run.ok).toBe(false);
    expect(codes(run)).toEqual(["PW4018"]);
    expect(run.diagnostics[0]!.message).toBe("there is no do block 7: valid numbers are 0 to 1");
    expect(run.output).toBe("");
  });

  it("a failing child: the model gets the error, the think fails with PW4017 saying it once", async () => {
    const program = block(think("try", [{ Bogus: {} }], { print: true }), print("after"));
    const run = await runThreadbare(program, { prompts: [{ steps: [{ do: 0 }, { reply: "got: {{do}}" }] }] });
    expect(run.ok).toBe(false);
    expect(codes(run)).toEqual(["PW4017"]);
    expect(run.diagnostics[0]!.message).toBe("do block 0 failed: unknown node Bogus");
    expect(run.output).toBe("");
  });

  it("a failure the model recovers from (the same block later runs) is a warning, and the value is the final answer", async () => {
    const program = block(think("pick", [print("a"), print("b")], { print: true }), print("after"));
    const run = await runThreadbare(program, {
      prompts: [{ steps: [{ do: 9 }, { text: "oops, retrying" }, { do: 1 }, { reply: "got: {{do}}" }] }],
    });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("b\ngot: b\n\nafter\n");
    const warnings = run.events.filter((e) => e.type === "warning");
    expect(warnings).toEqual([
      expect.objectContaining({ code: "PW4018", message: "there is no do block 9: valid numbers are 0 to 1; the model then ran a do block again successfully" }),
    ]);
  });

  it("a do call the agent reports failed before it reached us fails the think (PW4017) with the agent's reason", async () => {
    const run = await runThreadbare(one, { prompts: [{ steps: [{ failedDo: 0, error: "MCP error -32000: Connection closed" }, { reply: "done" }] }] });
    expect(codes(run)).toEqual(["PW4017"]);
    expect(run.diagnostics[0]!.message).toBe(
      "the agent's call of do block 0 failed before it reached Patchwork: MCP error -32000: Connection closed",
    );
  });

  it("kills processes the agent spawned (its process group)", async () => {
    const run = await runThreadbare(one, { prompts: [{ steps: [{ spawn: "sleep 30" }, { sleep: 200 }, { reply: "ok" }] }] });
    expect(run.ok).toBe(true);
    const pid = Number(/child-pid (\d+)/.exec(run.stderr)?.[1]);
    expect(pid).toBeGreaterThan(0);
    for (let i = 0; i < 20 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
    expect(pidAlive(pid)).toBe(false);
    await expectDead(run.agentPid);
  });
});

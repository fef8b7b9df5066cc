// The agent process is restarted between thinks after N sessions (RecyclingAgent): never in the
// middle of a nested think, values unchanged, old processes gone, a restart abandoned on Ctrl-C.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../dist/index.js";
import { groupAlive, runWith, scriptedAgent } from "./helpers.js";

/** The scripted agent of `script`, restarted after `restartAfterSessions` sessions. */
const restarting = (script: object, restartAfterSessions: number) => ({ agent: { command: scriptedAgent(script), restartAfterSessions } });

type Of<T extends RunEvent["type"]> = Extract<RunEvent, { type: T }>;
const eventsOf = <T extends RunEvent["type"]>(events: RunEvent[], type: T) => events.filter((e): e is Of<T> => e.type === type);

const LOOP = (n: number) => `for i in 1...${n} {\n  print(think { turn \${i} })\n}`;
const replyOk = { prompts: [{ match: "turn", steps: [{ reply: "ok" }] }] };

describe("restarting the agent process between thinks", () => {
  it("restarts after N sessions; every value is the same as without restarts", async () => {
    const run = await runWith(LOOP(5), "loop.pw", replyOk, restarting(replyOk, 2));
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("ok\n".repeat(5));
    const started = eventsOf(run.events, "agent-started");
    expect(started).toHaveLength(3);
    expect(new Set(started.map((e) => e.pid)).size).toBe(3);
    expect(eventsOf(run.events, "agent-restarting").map((e) => [e.sessions, e.limit])).toEqual([
      [2, 2],
      [2, 2],
    ]);
    for (const { pid } of started) expect(groupAlive(pid)).toBe(false);
  });

  it("never restarts while a think is under way: a think inside a do block uses the same process", async () => {
    const source = `for i in 1...3 {
  var v = think {
    outer \${i}
    do {
      print(think { inner \${i} })
    }
  }
  print(v)
}`;
    const script = {
      prompts: [
        { match: "outer", steps: [{ do: 0 }, { reply: "O" }] },
        { match: "inner", steps: [{ reply: "I" }] },
      ],
    };
    const run = await runWith(source, "nested.pw", script, restarting(script, 1));
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("I\nO\n".repeat(3));
    // Each process's session counter starts again at 1: outer and inner share a process.
    expect(eventsOf(run.events, "session").map((e) => e.sessionId)).toEqual(
      Array.from({ length: 3 }, () => ["test-session-1", "test-session-2"]).flat(),
    );
    expect(eventsOf(run.events, "agent-started")).toHaveLength(3);
    expect(eventsOf(run.events, "agent-restarting").map((e) => e.sessions)).toEqual([2, 2]);
  });

  it("0 never restarts; without an option the agent profile decides (Gemini CLI's: every 50 sessions)", async () => {
    const never = await runWith(LOOP(4), "loop.pw", replyOk, restarting(replyOk, 0));
    expect(never.output).toBe("ok\n".repeat(4));
    expect(eventsOf(never.events, "agent-started")).toHaveLength(1);

    const plain = await runWith(LOOP(4), "loop.pw", replyOk);
    expect(eventsOf(plain.events, "agent-started")).toHaveLength(1);

    const gemini = await runWith(LOOP(52), "loop.pw", { ...replyOk, agentName: "gemini-cli" });
    expect(gemini.diagnostics).toEqual([]);
    expect(gemini.output).toBe("ok\n".repeat(52));
    expect(eventsOf(gemini.events, "agent-restarting").map((e) => e.sessions)).toEqual([50]);
  });

  it("a process that dies mid-think is replaced: the think is asked again of a new process (batch retries), at most twice", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "pw-crash-")), "crashed");
    const once = { prompts: [{ match: "turn 2", steps: [{ crash: true, onceFile: marker }, { reply: "ok" }] }], fallback: { steps: [{ reply: "ok" }] } };
    const batch = { retries: 5, retryBaseMs: 20, machine: false };
    const run = await runWith(LOOP(3), "loop.pw", once, { agent: { command: scriptedAgent(once) }, batch });
    expect(run.diagnostics).toEqual([]);
    expect(run.output).toBe("ok\n".repeat(3));
    const started = eventsOf(run.events, "agent-started");
    expect(new Set(started.map((e) => e.pid)).size).toBe(2);
    expect(eventsOf(run.events, "think-retry").map((e) => [e.attempt, e.retries, e.code])).toEqual([[1, 2, "PW4004"]]);
    for (const { pid } of started) expect(groupAlive(pid)).toBe(false);
    // An agent that dies at every prompt: three processes, then the think fails with PW4004.
    const always = { prompts: [{ match: "turn", steps: [{ crash: true }] }] };
    const failed = await runWith(LOOP(1), "loop.pw", always, { agent: { command: scriptedAgent(always) }, batch });
    expect(failed.diagnostics.map((d) => d.code)).toEqual(["PW4004"]);
    expect(failed.diagnostics[0]!.message).toMatch(/still failing after 2 retries/);
    expect(eventsOf(failed.events, "agent-started")).toHaveLength(3);
  });

  it("Ctrl-C while the new process starts: the start is abandoned, exit 130, no process left", async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const slow = { ...replyOk, initializeDelayMs: 1500 };
    const run = await runWith(LOOP(3), "loop.pw", slow, {
      ...restarting(slow, 1),
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "agent-restarting" && !abortedAt)
          setTimeout(() => {
            abortedAt = Date.now();
            controller.abort();
          }, 300);
      },
    });
    const finishedAfter = Date.now() - abortedAt;
    expect(run.cancelled).toBe(true);
    expect(run.exitCode).toBe(130);
    expect(run.output).toBe("ok\n");
    // The new process answers initialize only 1.5 s after it started: finishing well before
    // that shows the start was abandoned rather than waited for.
    expect(finishedAfter).toBeLessThan(1000);
    const started = eventsOf(run.events, "agent-started");
    expect(started).toHaveLength(1);
    for (const { pid } of started) expect(groupAlive(pid)).toBe(false);
  });

  it("Ctrl-C while the first agent process starts: exit 130 at once, not when initialize answers", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const run = await runWith(LOOP(1), "loop.pw", { ...replyOk, initializeDelayMs: 5000 }, { signal: controller.signal });
    expect(run.cancelled).toBe(true);
    expect(run.exitCode).toBe(130);
    expect(run.output).toBe("");
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

// Batch policy around a think: which failures are transient, the retry schedule, the governor
// (rate cap, AIMD concurrency, holding on a saturated machine). In-process, with a fake clock.
import { describe, expect, it } from "vitest";
import { AgentError, type ThinkRequest } from "@patchwork/interpreter";
import {
  DEFAULT_BACKOFF,
  genericTransient,
  Governor,
  profileFor,
  RetryingAgent,
  retryAfterIn,
  type AgentEvent,
  type AsyncAgent,
  type Clock,
  type MachineReading,
  type RateLimiter,
  type Ticket,
} from "../dist/index.js";

const CLAUDE_529 =
  'the agent answered with an error: Internal error: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

/** A clock whose sleeps pass at once (recorded), and whose time moves only by them. */
function fakeClock(): Clock & { slept: number[]; t: number } {
  const clock = {
    t: 0,
    slept: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      clock.slept.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

const request = { id: 1, kind: "think", prompt: "p", typeText: null, schema: null, childCount: 0, fileName: "p.pw", span: { start: { offset: 0, line: 3, column: 1 }, end: { offset: 0, line: 3, column: 1 } } } as unknown as ThinkRequest;

/** An agent that fails its first `failures` thinks with `error`, then answers "ok". */
function flaky(failures: number, error: () => Error): AsyncAgent & { calls: number } {
  const agent = {
    calls: 0,
    think: async () => {
      agent.calls++;
      if (agent.calls <= failures) throw error();
      return { text: "ok" };
    },
  };
  return agent;
}

function ask(agent: AsyncAgent, events: AgentEvent[] = [], signal = new AbortController().signal) {
  return agent.think(request, async () => ({ ok: true, text: "" }), signal, { thinkId: 7, emit: (e) => events.push(e) });
}

describe("what counts as transient", () => {
  it("an overload, a rate limit or a 5xx the agent reports; the idle timeout", () => {
    expect(genericTransient({ code: "PW4013", message: CLAUDE_529 })).toEqual({ kind: "overload", reason: "529 overloaded" });
    expect(genericTransient({ code: "PW4013", message: "the agent answered with an error: Internal error: API Error: 429 rate_limit_error, retry-after: 30" }))
      .toEqual({ kind: "overload", reason: "429 rate limited", retryAfterMs: 30_000 });
    expect(genericTransient({ code: "PW4013", message: "Internal error: [503 Service Unavailable] The model is overloaded" })?.reason).toBe("503 overloaded");
    expect(genericTransient({ code: "PW4013", message: "RESOURCE_EXHAUSTED: Please retry in 12.5s." })).toEqual({ kind: "overload", reason: "rate limited", retryAfterMs: 12_500 });
    expect(genericTransient({ code: "PW4006", message: "the think at p.pw:3:1 timed out: the agent was silent for 400 ms" })?.kind).toBe("timeout");
    expect(genericTransient({ code: "PW4004", message: "the agent process was killed by SIGKILL" })).toEqual({ kind: "exited", reason: "the agent process exited" });
  });

  it("not a refusal, a total timeout, another agent error, a program error", () => {
    expect(genericTransient({ code: "PW4007", message: "the agent refused to answer (stop reason: refusal); it said: overloaded" })).toBeNull();
    expect(genericTransient({ code: "PW4006", message: "the think at p.pw:3:1 timed out: no answer within 500 ms" })).toBeNull();
    expect(genericTransient({ code: "PW4013", message: "the agent answered with an error: Internal error: API Error: 400 invalid_request_error" })).toBeNull();
    expect(genericTransient({ code: "PW4013", message: "the agent answered with an error: Invalid params (prompt has 529 words)" })).toBeNull();
    expect(genericTransient({ code: "PW3001", message: "API Error: 529 overloaded" })).toBeNull();
    expect(genericTransient({ code: "PW4010", message: "the run was cancelled" })).toBeNull();
  });

  it("Claude Code's profile reads its error kind; other profiles use the generic rule", () => {
    const claude = profileFor({ protocolVersion: 1, agentInfo: { name: "@agentclientprotocol/claude-agent-acp", version: "0" } } as never);
    expect(claude.transient?.({ code: "PW4013", message: "the agent answered with an error: Internal error: Overloaded", data: { errorKind: "overloaded" } }))
      .toMatchObject({ kind: "overload", reason: "overloaded" });
    expect(claude.transient?.({ code: "PW4013", message: "Internal error: API Error: 529 Overloaded. This is a server-side issue", data: { errorKind: "server_error" } }))
      .toEqual({ kind: "overload", reason: "529 overloaded" });
    expect(claude.transient?.({ code: "PW4013", message: "the agent answered with an error: Internal error: bad request", data: { errorKind: "invalid_request" } })).toBeNull();
  });

  it("Codex's failed turn, which comes as its answer, is an error: transient when it names a 429 or 5xx", () => {
    const codex = profileFor({ protocolVersion: 1, agentInfo: { name: "@agentclientprotocol/codex-acp", version: "0" } } as never);
    const said = codex.answerIsError?.("exceeded retry limit, last status: 429 Too Many Requests\n\n");
    expect(said).toBe("exceeded retry limit, last status: 429 Too Many Requests");
    expect(genericTransient({ code: "PW4013", message: `the agent answered with an error: ${said}` })).toEqual({ kind: "overload", reason: "429 rate limited" });
    expect(codex.answerIsError?.("unexpected status 503 Service Unavailable: overloaded")).toMatch(/^unexpected status 503/);
    expect(codex.answerIsError?.("The last status was fine: exceeded retry limit, last status: 429")).toBeNull();
    expect(codex.answerIsError?.("news")).toBeNull();
  });

  it("a retry-after in its usual spellings", () => {
    expect(retryAfterIn("Retry-After: 7")).toBe(7000);
    expect(retryAfterIn("retry after 1500ms")).toBe(1500);
    expect(retryAfterIn('"retryDelay": "3s"')).toBe(3000);
    expect(retryAfterIn("retry-after: 99999")).toBe(600_000);
    expect(retryAfterIn("no hint")).toBeUndefined();
  });
});

describe("RetryingAgent", () => {
  const overloaded = () => new AgentError("PW4013", CLAUDE_529);
  const policy = { ...DEFAULT_BACKOFF };

  it("retries a transient failure with exponential backoff, capped, jittered by the random source", async () => {
    const clock = fakeClock();
    const inner = flaky(8, overloaded);
    const events: AgentEvent[] = [];
    const agent = new RetryingAgent(inner, { policy, classify: genericTransient, governor: null, clock, random: () => 0.5 });
    expect((await ask(agent, events)).text).toBe("ok");
    expect(clock.slept).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000, 60_000]);
    expect(inner.calls).toBe(9);
    expect(events.filter((e) => e.type === "think-retry")).toEqual(
      clock.slept.map((delayMs, i) => ({ type: "think-retry", thinkId: 7, attempt: i + 1, retries: 36, delayMs, reason: "529 overloaded", code: "PW4013" })),
    );
    // Jitter: ±20 % at the random source's extremes.
    const low = fakeClock();
    await ask(new RetryingAgent(flaky(2, overloaded), { policy, classify: genericTransient, governor: null, clock: low, random: () => 0 }));
    expect(low.slept).toEqual([4_000, 8_000]);
  });

  it("gives up after `retries`, saying so, with the failure's code", async () => {
    const clock = fakeClock();
    const agent = new RetryingAgent(flaky(10, overloaded), { policy: { ...policy, retries: 2 }, classify: genericTransient, governor: null, clock, random: () => 0.5 });
    const error = await ask(agent).catch((e: AgentError) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe("PW4013");
    expect((error as AgentError).message).toMatch(/529 .*still failing after 2 retries over 15 s; --retries sets how many/);
  });

  it("an idle timeout is retried at most twice", async () => {
    const clock = fakeClock();
    const silent = flaky(10, () => new AgentError("PW4006", "the think at p.pw:3:1 timed out: the agent was silent for 600000 ms"));
    const error = await ask(new RetryingAgent(silent, { policy, classify: genericTransient, governor: null, clock, random: () => 0.5 })).catch((e: AgentError) => e);
    expect((error as AgentError).message).toMatch(/silent for 600000 ms \(still failing after 2 retries/);
    expect(silent.calls).toBe(3);
  });

  it("--retries 0 and non-transient failures are not retried", async () => {
    const none = flaky(1, overloaded);
    const clock = fakeClock();
    await expect(ask(new RetryingAgent(none, { policy: { ...policy, retries: 0 }, classify: genericTransient, governor: null, clock }))).rejects.toThrow(CLAUDE_529);
    expect(none.calls).toBe(1);
    const refusal = flaky(1, () => new AgentError("PW4007", "the agent refused to answer"));
    await expect(ask(new RetryingAgent(refusal, { policy, classify: genericTransient, governor: null, clock }))).rejects.toThrow(/refused/);
    expect(refusal.calls).toBe(1);
    expect(clock.slept).toEqual([]);
  });

  it("waits what the agent's model asked for (retry-after) instead of the backoff", async () => {
    const clock = fakeClock();
    const limited = () => new AgentError("PW4013", "the agent answered with an error: API Error: 429 Too Many Requests, retry-after: 30");
    await ask(new RetryingAgent(flaky(1, limited), { policy, classify: genericTransient, governor: null, clock, random: () => 0 }));
    expect(clock.slept).toEqual([30_000]);
  });

  it("a cancelled run ends a think waiting for its retry (PW4010)", async () => {
    const controller = new AbortController();
    const clock: Clock = { now: () => 0, sleep: (_ms, signal) => new Promise((_, reject) => signal!.addEventListener("abort", () => reject(signal!.reason))) };
    const pending = ask(new RetryingAgent(flaky(1, overloaded), { policy, classify: genericTransient, governor: null, clock }), [], controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toMatchObject({ code: "PW4010" });
  });

  it("asks the governor by the think's task, not the thread that carries it (decision 0016)", async () => {
    // Two tasks suspended in thinks on one thread: their bridge's worker is the same, their requests' differ.
    const releases: (() => void)[] = [];
    const inner: AsyncAgent = { think: () => new Promise((resolve) => releases.push(() => resolve({ text: "ok" }))) };
    const governor = new Governor({ rate: null, maxConcurrency: 1, probe: null, emit: () => undefined });
    const agent = new RetryingAgent(inner, { policy, classify: genericTransient, governor });
    const on = (worker: string) =>
      agent.think({ ...request, worker } as ThinkRequest, async () => ({ ok: true, text: "" }), new AbortController().signal, { thinkId: 1, emit: () => undefined, worker: "w#1" });
    const first = on("w#1");
    let secondStarted = false;
    const second = on("w#2").then((r) => ((secondStarted = true), r));
    await new Promise((r) => setTimeout(r, 10));
    expect([releases.length, secondStarted]).toEqual([1, false]); // held: one think at a time
    releases[0]!();
    await first;
    await new Promise((r) => setTimeout(r, 10));
    expect(releases.length).toBe(2);
    releases[1]!();
    expect((await second).text).toBe("ok");
  });

  it("a repair turn that fails transiently is answered by the think asked afresh", async () => {
    const clock = fakeClock();
    let calls = 0;
    const inner: AsyncAgent = {
      think: async () => ({
        text: `answer ${++calls}`,
        followUp: async () => {
          throw overloaded();
        },
      }),
    };
    const agent = new RetryingAgent(inner, { policy, classify: genericTransient, governor: null, clock, random: () => 0.5 });
    const first = await ask(agent);
    const repaired = await first.followUp!("fix it", async () => ({ ok: true, text: "" }), new AbortController().signal);
    expect(repaired.text).toBe("answer 2");
    expect(clock.slept).toEqual([5_000]);
  });
});

describe("Governor", () => {
  const quiet: MachineReading = { cpuBusy: 0.1, freeBytes: 8 * 2 ** 30, totalBytes: 16 * 2 ** 30, cores: 2 };
  const overload = { kind: "overload" as const, reason: "529 overloaded" };

  it("--rate: at most N thinks start in any minute", async () => {
    const clock = fakeClock();
    const events: AgentEvent[] = [];
    const governor = new Governor({ rate: 2, maxConcurrency: 8, probe: null, emit: (e) => events.push(e), clock });
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      (await governor.admit(`w${i}`)).succeeded();
      starts.push(clock.now());
    }
    expect(starts).toEqual([0, 0, 60_000, 60_000, 120_000]);
    expect(events[0]).toMatchObject({ type: "governor", rate: 2, holding: { reason: "rate" } });
    expect((events[0] as { holding: { detail: string } }).holding.detail).toMatch(/2 thinks started in the last minute \(--rate 2\/min\); next in 60 s/);
    expect(events[1]).toMatchObject({ holding: null });
  });

  it("--rate N/s: at most N in any second", async () => {
    const clock = fakeClock();
    const events: AgentEvent[] = [];
    const governor = new Governor({ rate: 120, rateWindowMs: 1000, maxConcurrency: 8, probe: null, emit: (e) => events.push(e), clock });
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      (await governor.admit(`w${i}`)).succeeded();
      starts.push(clock.now());
    }
    expect(starts).toEqual([0, 0, 1000, 1000, 2000]);
    expect((events[0] as { holding: { detail: string } }).holding.detail).toMatch(/2 thinks started in the last 1 s \(--rate 2\/s\); next in 1 s/);
  });

  it("a limiter that answers later (a fleet's, in Redis): the think's place is held while it asks, given back if it must wait", async () => {
    const clock = fakeClock();
    const asked: number[] = [];
    let inFlightWhileAsking = -1;
    const limiter: RateLimiter = {
      limit: 1,
      windowMs: 1000,
      take: async (now) => {
        asked.push(now);
        inFlightWhileAsking = (governor as unknown as { inFlight: number }).inFlight;
        await Promise.resolve();
        return asked.length === 2 ? 250 : 0;
      },
    };
    const governor = new Governor({ rate: 60, rateWindowMs: 1000, limiter, maxConcurrency: 8, probe: null, emit: () => undefined, clock });
    const first = await governor.admit("a");
    expect(inFlightWhileAsking).toBe(1);
    const second = await governor.admit("b");
    expect(asked).toEqual([0, 0, 250]);
    expect((governor as unknown as { inFlight: number }).inFlight).toBe(2);
    first.succeeded();
    second.succeeded();
    expect((governor as unknown as { inFlight: number }).inFlight).toBe(0);
  });

  it("halves its limit on overloads (once per wave) and raises it by one per success", async () => {
    const events: AgentEvent[] = [];
    const governor = new Governor({ rate: null, maxConcurrency: 8, probe: null, emit: (e) => events.push(e) });
    const tickets: Ticket[] = [];
    for (let i = 0; i < 8; i++) tickets.push(await governor.admit(`w${i}`));
    tickets[0]!.failed(overload);
    tickets[1]!.failed(overload); // same wave: no second cut
    tickets[2]!.failed({ kind: "timeout", reason: "silent" }); // not an overload
    expect(governor.concurrencyLimit).toBe(4);
    // 5 in flight, limit 4: a new think waits until one more has ended (4 in flight, limit 5).
    let admitted = false;
    const waiting = governor.admit("late").then((t) => ((admitted = true), t));
    await new Promise((r) => setTimeout(r, 10));
    expect(admitted).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "governor", limit: 4, holding: { reason: "overload" } });
    tickets[3]!.failed(null); // (a failure that is not an overload changes no limit)
    await new Promise((r) => setTimeout(r, 10));
    expect(admitted).toBe(false);
    tickets[4]!.succeeded();
    const late = await waiting;
    expect(governor.concurrencyLimit).toBe(5);
    for (const t of tickets.slice(5)) t.succeeded();
    late.succeeded();
    // A failure of a think started after the cut cuts again (from what was in flight: 1).
    const again = await governor.admit("again");
    again.failed(overload);
    expect(governor.concurrencyLimit).toBe(1);
    // Recovery: one more per success, up to the run's own bound.
    const limits: number[] = [];
    for (let i = 0; i < 9; i++) {
      (await governor.admit("w")).succeeded();
      limits.push(governor.concurrencyLimit);
    }
    expect(limits).toEqual([2, 3, 4, 5, 6, 7, 8, 8, 8]);
    expect(events.filter((e) => e.type === "governor" && e.holding === null).map((e) => (e as { limit: number }).limit)).toContain(8);
  });

  it("lets a held think through when no think has ended for `stallMs` (those in flight may wait for it), one per period", async () => {
    const clock = fakeClock();
    const events: AgentEvent[] = [];
    const governor = new Governor({ rate: null, maxConcurrency: 16, probe: () => ({ ...quiet, cpuBusy: 1 }), emit: (e) => events.push(e), clock, stallMs: 30_000, pollMs: 500 });
    for (let i = 0; i < 8; i++) await governor.admit(`w${i}`);
    // The fake clock's sleeps pass at once: the ninth is held for the CPU, polling every 500 ms, until 30 s have passed.
    await governor.admit("w8");
    expect(clock.now()).toBe(30_000);
    expect(events[0]).toMatchObject({ holding: { reason: "cpu" } });
    await governor.admit("w9");
    expect(clock.now()).toBe(60_000);
  });

  it("holds new sessions while the machine is saturated, never the ones it needs to go on", async () => {
    let reading = { ...quiet, cpuBusy: 0.99 };
    const events: AgentEvent[] = [];
    const governor = new Governor({ rate: null, maxConcurrency: 16, probe: () => reading, emit: (e) => events.push(e), pollMs: 5 });
    const tickets: Ticket[] = [];
    // Two cores, four thinks per core: eight start however busy the CPU is.
    for (let i = 0; i < 8; i++) tickets.push(await governor.admit(`w${i}`));
    let ninth = false;
    const waiting = governor.admit("w8").then((t) => ((ninth = true), t));
    await new Promise((r) => setTimeout(r, 30));
    expect(ninth).toBe(false);
    expect(events.at(-1)).toMatchObject({ holding: { reason: "cpu", detail: "CPU 99 % busy on 2 cores, 8 thinks in flight" } });
    // A nested think (same thread as one in flight) is never held.
    (await governor.admit("w0")).succeeded();
    reading = quiet;
    tickets.push(await waiting);
    expect(events.at(-1)).toMatchObject({ holding: null });
    // Low memory holds any new session while one is in flight.
    reading = { ...quiet, freeBytes: 100 * 2 ** 20 };
    await new Promise((r) => setTimeout(r, 10)); // (a reading is kept for `pollMs`)
    let tenth = false;
    const held = governor.admit("w9").then((t) => ((tenth = true), t));
    await new Promise((r) => setTimeout(r, 30));
    expect(tenth).toBe(false);
    expect(events.at(-1)).toMatchObject({ holding: { reason: "memory" } });
    for (const t of tickets) t.succeeded();
    // With nothing in flight a think always starts.
    (await held).succeeded();
  });
});

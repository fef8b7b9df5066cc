// The budget's gate and the run's totals (packages/agent/src/batch/), on their own: what a
// `--budget` reads, when a think may start, when the run stops, and the summary's wording.
// The whole path (CLI, scripted agent, journal, resume) is packages/cli/test/budget.test.ts.
import { describe, expect, it } from "vitest";
import type { ThinkRequest } from "@patchwork/interpreter";
import { BudgetGate, formatTotals, parseBudget, RunTotalsCounter, type BudgetLimits, type BudgetStop } from "../src/run.js";
import type { AgentEvent, AsyncAgent, AsyncRunChild, AsyncThinkReply, RunEvent } from "../src/types.js";

const span = { start: { offset: 0, line: 3, column: 5 }, end: { offset: 4, line: 3, column: 9 } };
const request = (id: number): ThinkRequest => ({ id, kind: "think", prompt: `p${id}`, typeText: null, schema: null, childCount: 1, fileName: "p.pw", span });
const usage = (thinkId: number, cost: number, tokens = 100): RunEvent => ({
  type: "usage",
  thinkId,
  usage: { inputTokens: tokens, outputTokens: 0, totalTokens: tokens, contextTokens: 0, cost: cost > 0 ? { USD: cost } : {} },
});

/** An agent whose thinks answer when the test says so; the gate, its events and its stop. */
function harness(limits: BudgetLimits) {
  const events: AgentEvent[] = [];
  const totals = new RunTotalsCounter();
  const emit = (e: RunEvent) => {
    totals.apply(e);
    gate.observe(e);
    events.push(e as AgentEvent);
  };
  const gate = new BudgetGate(limits, totals, emit);
  const pending = new Map<number, { answer: () => void; runChild: AsyncRunChild }>();
  const inner: AsyncAgent = {
    think: (req, runChild) =>
      new Promise<AsyncThinkReply>((resolve) => pending.set(req.id, { answer: () => resolve({ text: "ok" }), runChild })),
  };
  const agent = gate.wrap(inner);
  let stopped: BudgetStop | null = null;
  gate.onStop((s) => (stopped = s));
  const controller = new AbortController();
  const asked: number[] = [];
  const ask = (id: number, worker?: string) => {
    const p = agent.think(request(id), async () => ({ ok: true, text: "" }), controller.signal, { thinkId: id, emit, ...(worker ? { worker } : {}) });
    p.then(() => asked.push(id), () => undefined);
    return p;
  };
  /** The agent answers think `id` having spent `cost`; its thread then ends it (`think-end`). */
  const end = async (id: number, cost = 0, tokens = 100) => {
    emit(usage(id, cost, tokens));
    pending.get(id)!.answer();
    await Promise.resolve();
    emit({ type: "think-end", id, ok: true });
    await new Promise((r) => setTimeout(r, 0));
  };
  return { gate, totals, events, ask, end, pending, controller, get stopped(): BudgetStop | null { return stopped; } };
}

describe("parseBudget", () => {
  it("reads amounts, currencies and tokens; refuses anything else", () => {
    expect(parseBudget("2.50")).toEqual({ kind: "cost", amount: 2.5, currency: null });
    expect(parseBudget("2.50USD")).toEqual({ kind: "cost", amount: 2.5, currency: "USD" });
    expect(parseBudget(" 3 eur ")).toEqual({ kind: "cost", amount: 3, currency: "EUR" });
    expect(parseBudget("2000000tok")).toEqual({ kind: "tokens", tokens: 2_000_000 });
    expect(parseBudget("2M tok")).toEqual({ kind: "tokens", tokens: 2_000_000 });
    expect(parseBudget("500ktokens")).toEqual({ kind: "tokens", tokens: 500_000 });
    for (const bad of ["", "0", "-1", "abc", "2.50 dollars", "1e3", "USD", "0tok", "2,50"]) expect(parseBudget(bad), bad).toBeNull();
  });
});

describe("the budget's gate", () => {
  it("--max-thinks: the think past the limit is held, budget-stop is emitted, the run stops once the others have ended", async () => {
    const h = harness({ maxThinks: 2 });
    void h.ask(1, "a#1");
    void h.ask(2, "a#2");
    const held = h.ask(3, "a#3");
    expect([...h.pending.keys()]).toEqual([1, 2]); // think 3 never reached the agent
    expect(h.events.filter((e) => e.type === "budget-stop")).toEqual([{ type: "budget-stop", kind: "thinks", limit: "2 thinks", spent: "2 thinks" }]);
    await h.end(1);
    expect(h.stopped).toBeNull(); // think 2 is still under way: its answer is worth keeping
    await h.end(2);
    expect(h.stopped).toMatchObject({ kind: "thinks", message: "the run stopped at its limit of 2 thinks (--max-thinks)", at: { fileName: "p.pw", span } });
    // Any think after the stop is held too; the held ones fail when the run's signal aborts.
    void h.ask(4);
    expect(h.pending.has(4)).toBe(false);
    h.controller.abort();
    await expect(held).rejects.toMatchObject({ code: "PW4010" });
    expect(h.totals.snapshot().thinks).toBe(2);
  });

  it("a think waiting for its do block does not hold the stop back (the held think may be inside it)", async () => {
    const h = harness({ maxThinks: 1 });
    void h.ask(1);
    // The agent runs do block 0 of think 1, whose code asks think 2: held.
    void h.pending.get(1)!.runChild(0);
    void h.ask(2);
    await new Promise((r) => setTimeout(r, 0));
    expect(h.stopped).toMatchObject({ kind: "thinks" });
  });

  it("a cost: a think starts only while what was spent plus the mean cost of a think, for it and each under way, stays within", async () => {
    const h = harness({ budget: { kind: "cost", amount: 0.35, currency: null } });
    void h.ask(1);
    await h.end(1, 0.1);
    void h.ask(2);
    void h.ask(3); // 0.10 spent + 0.10 for think 2 under way + 0.10 = 0.30: may start
    expect(h.pending.has(3)).toBe(true);
    void h.ask(4); // 0.10 + 2 × 0.10 + 0.10 = 0.40 > 0.35: held
    expect(h.pending.has(4)).toBe(false);
    expect(h.events.find((e) => e.type === "budget-stop")).toEqual({ type: "budget-stop", kind: "cost", limit: "0.35 USD", spent: "0.10 USD" });
    await h.end(2, 0.1);
    await h.end(3, 0.1);
    expect(h.stopped?.message).toBe("the run stopped at its budget of 0.35 USD (--budget): 0.10 USD spent");
  });

  it("a retry of a think under way, once the run is stopping, is held and no longer waited for", async () => {
    const h = harness({ maxThinks: 1 });
    void h.ask(1);
    void h.ask(2); // held: the run stops once think 1 has ended…
    expect(h.stopped).toBeNull();
    void h.ask(1); // …but think 1 is retried (the retries' work asks again): held too, nothing under way
    await new Promise((r) => setTimeout(r, 0));
    expect(h.stopped).toMatchObject({ kind: "thinks" });
  });

  it("tokens count every kind the agent reports; a retry of a think is not another think", async () => {
    const h = harness({ budget: { kind: "tokens", tokens: 250 }, maxThinks: 1 });
    void h.ask(1);
    void h.ask(1); // the same think again (a retry): not refused by --max-thinks
    expect(h.events.some((e) => e.type === "budget-stop")).toBe(false);
    await h.end(1, 0, 200);
    void h.ask(2);
    expect(h.events.find((e) => e.type === "budget-stop")).toMatchObject({ kind: "thinks" });
  });

  it("an agent that reports no cost: one warning (PW4031), and a cost budget is not kept", async () => {
    const h = harness({ budget: { kind: "cost", amount: 1, currency: null } });
    for (const id of [1, 2, 3]) {
      void h.ask(id);
      await h.end(id, 0, 500);
    }
    const warnings = h.events.filter((e) => e.type === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: "PW4031", message: expect.stringContaining("--budget 50000tok") });
    expect(h.stopped).toBeNull();
    // Nor tokens: a token budget cannot be kept either; --max-thinks can.
    const none = harness({ budget: { kind: "tokens", tokens: 1000 } });
    void none.ask(1);
    await none.end(1, 0, 0);
    expect(none.events.filter((e) => e.type === "warning")).toEqual([
      { type: "warning", thinkId: 1, code: "PW4031", message: "the agent reports no tokens, so --budget 1,000 tokens cannot be kept: bound the run with --max-thinks" },
    ]);
  });
});

describe("the run's totals", () => {
  it("count thinks asked, replayed, retried and failed; tokens and cost null until reported", () => {
    const t = new RunTotalsCounter({ replay: true, now: 0 });
    expect(t.snapshot(0)).toEqual({ thinks: 0, replayed: 0, retried: 0, failed: 0, inputTokens: null, outputTokens: null, cost: null, wallMs: 0 });
    t.apply({ type: "think-end", id: 1, ok: true }); // replayed: never asked
    t.asked(2);
    t.apply({ type: "think-retry", thinkId: 2, attempt: 1, retries: 3, delayMs: 1000, reason: "overloaded" });
    t.apply({ type: "usage", thinkId: 2, usage: { inputTokens: 1200, outputTokens: 34, totalTokens: 1234, contextTokens: 0, cost: {} } });
    t.apply({ type: "think-end", id: 2, ok: true });
    t.asked(3);
    t.apply({ type: "think-end", id: 3, ok: false, error: "refused" });
    const s = t.snapshot(125_000);
    expect(s).toEqual({ thinks: 2, replayed: 1, retried: 1, failed: 1, inputTokens: 1200, outputTokens: 34, cost: null, wallMs: 125_000 });
    expect(formatTotals(s)).toBe("2 thinks asked, 1 replayed, 1 retried, 1 failed · tokens 1,200 in / 34 out · cost not reported by the agent · 2 min 05 s");
    t.apply({ type: "usage", thinkId: 3, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, contextTokens: 0, cost: { USD: 0.0123 } } });
    expect(formatTotals(t.snapshot(2400))).toBe("2 thinks asked, 1 replayed, 1 retried, 1 failed · tokens 1,200 in / 34 out · cost 0.0123 USD · 2.4 s");
    expect(t.usage()).toEqual({ thinks: 2, inputTokens: 1200, outputTokens: 34, cost: { USD: 0.0123 } });
  });
});

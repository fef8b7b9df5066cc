/**
 * Budgets (`--max-thinks N`, `--budget AMOUNT`): the agent runtime's gate around each think
 * (design.md §9, "Batch policy"). Before a think goes to the agent the gate asks whether it
 * would pass the limit; if so, that think never starts, nor does any later one (each is held,
 * unanswered), the `budget-stop` event is emitted, and once no think is under way at the agent
 * (every think still open waits for one of its `do` blocks) the run is stopped: the thinks that
 * ended are in the journal, so `--resume` goes on from there (docs/cli.md, "Budgets").
 *
 * - `maxThinks`: at most this many thinks asked of the agent (a retry of a think is not another).
 * - a cost (`2.50`, `2.50USD`): in the agent's currency (the first it reports, unless named). A
 *   think's cost is known only when it ends, so the gate estimates: a think starts only while
 *   what was spent, plus the mean cost of an ended think for each think under way and for this
 *   one, stays within the budget. Before any think has ended, only what was spent counts.
 * - tokens (`2000000tok`): the same with the tokens the agent reports (all kinds).
 *
 * Replayed thinks (a cassette, `--resume`) never reach the agent: they cost nothing and count
 * for nothing here. An agent that reports no cost gets a warning once (PW4031), and a cost
 * budget is then not kept: tokens are still counted (give the budget in tokens).
 */
import type { Span } from "@patchwork/parser";
import { agentError, AgentCodes } from "../errors.js";
import type { AgentEvent, AsyncAgent, AsyncRunChild, RunEvent } from "../types.js";
import { formatAmount, groupDigits, type RunTotalsCounter } from "./totals.js";

/** The exit status of a run stopped at its budget (docs/cli.md, "Exit status"). */
export const BUDGET_EXIT_STATUS = 3;

/** A `--budget`: an amount of money (in `currency`, or the agent's when null), or tokens. */
export type BudgetAmount = { kind: "cost"; amount: number; currency: string | null } | { kind: "tokens"; tokens: number };

export interface BudgetLimits {
  maxThinks?: number;
  budget?: BudgetAmount;
}

/** Why and where the run stopped (the think that would have passed the limit). */
export interface BudgetStop {
  kind: "thinks" | "cost" | "tokens";
  /** The limit and what was spent, as a user reads them ("3 thinks", "0.3000 USD", "12,000 tokens"). */
  limit: string;
  spent: string;
  /** One sentence for the diagnostic. */
  message: string;
  at: { span: Span; fileName: string };
}

/**
 * `2.50`, `2.50USD`, `2.50 eur` (a cost), `2000000tok`, `2M tok`, `500k tokens` (tokens);
 * null when `text` is none of these.
 */
export function parseBudget(text: string): BudgetAmount | null {
  const t = text.trim();
  const tokens = /^(\d+(?:\.\d+)?)\s*([kKmM]?)\s*tok(?:ens?)?$/.exec(t);
  if (tokens) {
    const n = Number(tokens[1]) * (/k/i.test(tokens[2]!) ? 1e3 : /m/i.test(tokens[2]!) ? 1e6 : 1);
    return n > 0 && Number.isFinite(n) ? { kind: "tokens", tokens: Math.round(n) } : null;
  }
  const cost = /^(\d+(?:\.\d+)?|\.\d+)\s*([A-Za-z]{3})?$/.exec(t);
  if (!cost) return null;
  const amount = Number(cost[1]);
  if (!(amount > 0) || !Number.isFinite(amount)) return null;
  return { kind: "cost", amount, currency: cost[2] ? cost[2].toUpperCase() : null };
}

/** The budget as a user wrote it, for messages: "2.5000 USD", "2.5000 (the agent's currency)", "2,000,000 tokens". */
export function describeBudget(b: BudgetAmount, currency: string | null = null): string {
  if (b.kind === "tokens") return `${groupDigits(b.tokens)} tokens`;
  const c = b.currency ?? currency;
  return c ? `${formatAmount(b.amount)} ${c}` : `${formatAmount(b.amount)} (in the agent's currency)`;
}

interface Open {
  /** `do` blocks of the think running now (its agent waits for them, spending nothing). */
  inDo: number;
  worker: string | undefined;
}

interface Spent {
  cost: Record<string, number>;
  tokens: number;
}

export class BudgetGate {
  private readonly open = new Map<number, Open>();
  private readonly counted = new Set<number>();
  /** What each think asked of the agent has cost so far (from its `usage` events). */
  private readonly spentBy = new Map<number, Spent>();
  private ended = { thinks: 0, cost: 0, tokens: 0 };
  private currency: string | null;
  private stopped: BudgetStop | null = null;
  private fired = false;
  private warned = false;
  private listener: ((stop: BudgetStop) => void) | null = null;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly totals: RunTotalsCounter,
    private readonly emit: (event: AgentEvent) => void,
  ) {
    this.currency = limits.budget?.kind === "cost" ? limits.budget.currency : null;
  }

  /** Whether any limit is set (else the gate only counts the thinks asked). */
  get limited(): boolean {
    return this.limits.maxThinks !== undefined || this.limits.budget !== undefined;
  }

  /** Called once, when the run should stop (every think still open waits for a `do` block). */
  onStop(listener: (stop: BudgetStop) => void): void {
    this.listener = listener;
    this.check();
  }

  /**
   * Every event of the run: the `usage` of each think, and its end (`think-end`: its answer is in
   * the journal once this event has gone round, so a stop waits for it).
   */
  observe(event: RunEvent): void {
    if (event.type === "think-end") {
      if (this.open.delete(event.id)) {
        this.thinkEnded(event.id);
        this.check();
      }
      return;
    }
    if (event.type !== "usage") return;
    let spent = this.spentBy.get(event.thinkId);
    if (!spent) this.spentBy.set(event.thinkId, (spent = { cost: {}, tokens: 0 }));
    const u = event.usage;
    spent.tokens += u.totalTokens > 0 ? u.totalTokens : u.inputTokens + u.outputTokens;
    for (const [currency, amount] of Object.entries(u.cost)) {
      spent.cost[currency] = (spent.cost[currency] ?? 0) + amount;
      this.currency ??= currency;
    }
  }

  /** The agent, each think of it going through the gate. */
  wrap(agent: AsyncAgent): AsyncAgent {
    return {
      think: (request, runChild, signal, context) => {
        const id = context.thinkId;
        if (this.stopped || (!this.counted.has(id) && this.refuse(request))) {
          // (A retry of a think under way, held: it is no longer under way.)
          this.open.delete(id);
          return this.hold(signal);
        }
        this.counted.add(id);
        this.totals.asked(id);
        const open: Open = { inDo: 0, worker: context.worker };
        this.open.set(id, open);
        const child: AsyncRunChild = (index) => {
          open.inDo++;
          this.check();
          const result = runChild(index);
          // The block's own promise goes back, not a chained one: its answer reaches the agent's
          // turn without a tick more (a cancelled turn closes its session before the run ends).
          result.then(() => open.inDo--, () => open.inDo--);
          return result;
        };
        return agent.think(request, child, signal, context);
      },
      ...(agent.prepare ? { prepare: (hint) => agent.prepare!(hint) } : {}),
      ...(agent.close ? { close: () => agent.close!() } : {}),
    };
  }

  /** Whether this think would pass a limit: if so the run stops before it (`budget-stop`). */
  private refuse(request: { span: Span; fileName: string }): boolean {
    const stop = this.wouldPass();
    if (!stop) return false;
    this.stopped = { ...stop, at: { span: request.span, fileName: request.fileName } };
    this.emit({ type: "budget-stop", kind: stop.kind, limit: stop.limit, spent: stop.spent });
    this.check();
    return true;
  }

  private wouldPass(): Omit<BudgetStop, "at"> | null {
    const { maxThinks, budget } = this.limits;
    const asked = this.counted.size;
    if (maxThinks !== undefined && asked + 1 > maxThinks) {
      const limit = `${maxThinks} ${maxThinks === 1 ? "think" : "thinks"}`;
      return { kind: "thinks", limit, spent: `${asked} ${asked === 1 ? "think" : "thinks"}`, message: `the run stopped at its limit of ${limit} (--max-thinks)` };
    }
    if (!budget) return null;
    if (budget.kind === "tokens") {
      const spent = this.totals.tokens;
      if (!this.passes(spent, this.ended.tokens, (s) => s.tokens, budget.tokens)) return null;
      const limit = describeBudget(budget);
      return { kind: "tokens", limit, spent: `${groupDigits(spent)} tokens`, message: `the run stopped at its budget of ${limit} (--budget): ${groupDigits(spent)} tokens spent` };
    }
    const currency = this.currency;
    if (currency === null) return null; // nothing reported yet (or never: warned once)
    const spent = this.spentBy.size === 0 ? 0 : this.costSpent(currency);
    if (!this.passes(spent, this.ended.cost, (s) => s.cost[currency] ?? 0, budget.amount)) return null;
    const limit = describeBudget(budget, currency);
    const spentText = `${formatAmount(spent)} ${currency}`;
    return { kind: "cost", limit, spent: spentText, message: `the run stopped at its budget of ${limit} (--budget): ${spentText} spent` };
  }

  /** Spent so far, plus the mean of an ended think for each think under way (or what it spent, if more) and for the next one. */
  private passes(spent: number, endedSum: number, of: (s: Spent) => number, limit: number): boolean {
    if (spent >= limit) return true;
    if (this.ended.thinks === 0) return false;
    const mean = endedSum / this.ended.thinks;
    let projected = spent + mean;
    for (const id of this.open.keys()) {
      const s = this.spentBy.get(id);
      projected += Math.max(0, mean - (s ? of(s) : 0));
    }
    return projected > limit;
  }

  private costSpent(currency: string): number {
    let sum = 0;
    for (const s of this.spentBy.values()) sum += s.cost[currency] ?? 0;
    return sum;
  }

  private thinkEnded(id: number): void {
    const s = this.spentBy.get(id);
    this.ended.thinks++;
    this.ended.tokens += s?.tokens ?? 0;
    if (this.currency !== null) this.ended.cost += s?.cost[this.currency] ?? 0;
    this.warnUnkept(id);
  }

  /** A budget the agent's reports cannot keep (no cost, or no tokens either): said once, with what to give instead. */
  private warnUnkept(thinkId: number): void {
    const budget = this.limits.budget;
    if (!budget || this.warned) return;
    const tokens = this.totals.tokens;
    const given = `--budget ${describeBudget(budget)}`;
    let message: string | null = null;
    if (budget.kind === "cost") {
      const currency = budget.currency ?? this.currency;
      const named = budget.currency ? ` in ${budget.currency}` : "";
      if (currency === null || this.costSpent(currency) === 0) {
        message =
          tokens > 0
            ? `the agent reports no cost${named}, so ${given} cannot be kept; tokens are counted (${groupDigits(tokens)} so far): give the budget in tokens, e.g. --budget ${tokens * 100}tok`
            : `the agent reports neither cost${named} nor tokens, so ${given} cannot be kept: bound the run with --max-thinks`;
      }
    } else if (tokens === 0) message = `the agent reports no tokens, so ${given} cannot be kept: bound the run with --max-thinks`;
    if (message === null) return;
    this.warned = true;
    this.emit({ type: "warning", thinkId, code: AgentCodes.noCost, message });
  }

  /** A think that may not start: unanswered until the run stops (its signal aborts). */
  private hold(signal: AbortSignal): Promise<never> {
    this.check();
    return new Promise((_, reject) => {
      const cancelled = () => reject(agentError(AgentCodes.cancelled, "the run stopped at its budget"));
      if (signal.aborted) cancelled();
      else signal.addEventListener("abort", cancelled, { once: true });
    });
  }

  /** Stops the run once nothing is under way at the agent (each open think waits for a `do` block). */
  private check(): void {
    if (!this.stopped || this.fired || !this.listener) return;
    for (const open of this.open.values()) if (open.inDo === 0) return;
    this.fired = true;
    const listener = this.listener;
    const stop = this.stopped;
    // After the event that got here has reached every listener (the journal among them).
    queueMicrotask(() => listener(stop));
  }
}

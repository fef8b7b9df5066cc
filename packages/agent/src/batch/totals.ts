/**
 * What a run asked of its agent and what that cost, counted from its one event stream: the
 * end-of-run summary on stderr, `--json`'s `totals`, the trace's `run-end`, the `run-totals`
 * event and `self.session.usage` all read one `RunTotalsCounter` (docs/cli.md, "What a run cost").
 *
 * - `thinks`: thinks asked of the agent (`asked`, called by the budget gate as each one goes to
 *   it; a retry of the same think is not another), and, in a run that does not replay, a think
 *   that ended well without passing the gate: a fleet's worker asked it (packages/fleet). `replayed`: thinks answered from a cassette
 *   (a `think-end` of a think never asked, in a run that replays). `retried`: `think-retry`
 *   events. `failed`: `think-end` events not ok.
 * - Tokens and cost: the sums of the `usage` events; null while the agent has reported none
 *   (an agent that reports tokens but no cost has `cost: null`).
 */
import type { RunEvent } from "../types.js";
import type { RunTotals } from "./run-totals.js";

export type { RunTotals } from "./run-totals.js";

/** `self.session.usage`: what the run has spent so far (language.md §4). */
export interface SessionUsageFigures {
  thinks: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: Record<string, number> | null;
}

export class RunTotalsCounter {
  private readonly started: number;
  private readonly askedIds = new Set<number>();
  private replayed = 0;
  private retried = 0;
  private failed = 0;
  private inputTokens: number | null = null;
  private outputTokens: number | null = null;
  /** Total tokens as the agent reports them (cached and thought tokens included), else input + output. */
  private allTokens = 0;
  private cost: Record<string, number> | null = null;

  constructor(private readonly options: { replay?: boolean; now?: number } = {}) {
    this.started = options.now ?? Date.now();
  }

  /** A think went to the agent (not answered from a cassette). */
  asked(thinkId: number): void {
    this.askedIds.add(thinkId);
  }

  apply(event: RunEvent): void {
    switch (event.type) {
      case "think-end":
        if (!event.ok) this.failed++;
        else if (this.options.replay && !this.askedIds.has(event.id)) this.replayed++;
        else if (!this.options.replay) this.askedIds.add(event.id);
        return;
      case "think-retry":
        this.retried++;
        return;
      case "usage": {
        const u = event.usage;
        if (u.inputTokens > 0 || u.outputTokens > 0 || u.totalTokens > 0) {
          this.inputTokens = (this.inputTokens ?? 0) + u.inputTokens;
          this.outputTokens = (this.outputTokens ?? 0) + u.outputTokens;
          this.allTokens += u.totalTokens > 0 ? u.totalTokens : u.inputTokens + u.outputTokens;
        }
        for (const [currency, amount] of Object.entries(u.cost)) {
          this.cost ??= {};
          this.cost[currency] = (this.cost[currency] ?? 0) + amount;
        }
        return;
      }
      default:
        return;
    }
  }

  /** Tokens reported so far, all kinds (what a `--budget …tok` counts). */
  get tokens(): number {
    return this.allTokens;
  }

  get thinks(): number {
    return this.askedIds.size;
  }

  snapshot(now: number = Date.now()): RunTotals {
    return {
      thinks: this.askedIds.size,
      replayed: this.replayed,
      retried: this.retried,
      failed: this.failed,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      cost: this.cost ? { ...this.cost } : null,
      wallMs: Math.max(0, Math.round(now - this.started)),
    };
  }

  usage(): SessionUsageFigures {
    return { thinks: this.askedIds.size, inputTokens: this.inputTokens, outputTokens: this.outputTokens, cost: this.cost ? { ...this.cost } : null };
  }
}

/**
 * The one-line summary of a run (docs/cli.md): `3 thinks asked, 2 replayed, 1 retried, 0 failed ·
 * tokens 1,234 in / 56 out · cost 0.0123 USD · 2.4 s`. An agent that reports no cost says so.
 */
export function formatTotals(t: RunTotals): string {
  const parts = [`${t.thinks} ${t.thinks === 1 ? "think" : "thinks"} asked, ${t.replayed} replayed, ${t.retried} retried, ${t.failed} failed`];
  parts.push(t.inputTokens === null ? "tokens not reported" : `tokens ${groupDigits(t.inputTokens)} in / ${groupDigits(t.outputTokens ?? 0)} out`);
  const cost = t.cost === null ? [] : Object.entries(t.cost);
  parts.push(cost.length === 0 ? "cost not reported by the agent" : `cost ${cost.map(([c, a]) => `${formatAmount(a)} ${c}`).join(" + ")}`);
  parts.push(formatDuration(t.wallMs));
  return parts.join(" · ");
}

/** An amount of money as the summary writes it: up to 4 decimals (a think costs fractions of a cent), at least 2. */
export function formatAmount(amount: number): string {
  return amount.toFixed(4).replace(/(\.\d\d\d*?)0+$/, "$1");
}

function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = `${String(s % 60).padStart(2, "0")}`;
  return h > 0 ? `${h} h ${String(m).padStart(2, "0")} min ${rest} s` : `${m} min ${rest} s`;
}

/**
 * `1234567` → `"1,234,567"`, as `toLocaleString("en-US")` writes a whole number, without it:
 * its first call loads ICU's locale data, measured at 13 ms on a quiet machine and 0.28 s under
 * load, in the middle of a run (the first think's usage).
 */
export function groupDigits(x: number): string {
  if (!Number.isSafeInteger(x)) return x.toLocaleString("en-US");
  const digits = String(Math.abs(x));
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ",");
  return x < 0 ? `-${grouped}` : grouped;
}

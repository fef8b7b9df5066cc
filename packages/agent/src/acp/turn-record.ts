/**
 * What one prompt turn said and did, as far as the think's value and its `do` calls go:
 *
 * - **the final answer**: the text of the agent's last message of the turn, i.e. the chunks
 *   sharing the last `messageId` (agents that set ids), otherwise the text after the last tool
 *   call. A message that a later tool call followed is a preamble, not an answer. Text chunks
 *   without a `messageId` from an agent that uses ids are notices (Codex's warnings when the
 *   client does not take `notice` updates), never part of the value;
 * - **the `do` calls that did not run**: our server's failures (a failing block, a number that
 *   is not a block), permission denials of our tool, and calls of our tool the agent reports
 *   failed before they reached us; each one is an error of the think unless the model later
 *   ran the same block successfully (then it is a warning);
 * - **usage**: tokens and cost reported by `usage_update` and the prompt response.
 */
import type { PromptResponse, UsageUpdate } from "@agentclientprotocol/sdk/unstable";

/** Token and cost figures of one think (or, summed, of a run). */
export interface UsageFigures {
  /** Input, output and total tokens from the prompt responses (`PromptResponse.usage`). */
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Tokens in the context window at the end (`usage_update.used`); summed over thinks for a run. */
  contextTokens: number;
  /** Cost (`usage_update.cost`, cumulative per session), by currency. */
  cost: Record<string, number>;
}

export function emptyUsage(): UsageFigures {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, contextTokens: 0, cost: {} };
}

export function addUsage(into: UsageFigures, more: UsageFigures): void {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.totalTokens += more.totalTokens;
  into.contextTokens += more.contextTokens;
  for (const [currency, amount] of Object.entries(more.cost)) into.cost[currency] = (into.cost[currency] ?? 0) + amount;
}

/** Why a `do` call did not run. */
export type DoFailureKind = "denied" | "failed" | "unknown-block" | "agent-failed";

export interface DoFailure {
  kind: DoFailureKind;
  /** The block number, when the agent's call named one we could read. */
  index: number | null;
  /** One sentence saying what happened (names the block). */
  reason: string;
}

interface Chunk {
  text: string;
  messageId: string | null;
  /** Tool calls seen before this chunk. */
  toolCallsBefore: number;
}

export class TurnRecord {
  private readonly chunks: Chunk[] = [];
  private toolCalls = 0;
  private readonly failures: (DoFailure & { at: number })[] = [];
  private readonly successes: { index: number; at: number }[] = [];
  private events = 0;
  /** Server-side failures not yet matched with the agent's report of a failed tool call. */
  private unmatchedServerFailures = 0;
  private readonly deniedCalls = new Set<string>();
  /** How many `do` calls reached us, and attempts in total (denied and failed ones too). */
  doCalls = 0;
  attempts = 0;

  /** An `agent_message_chunk` with text. Returns whether it is a notice (no id from an agent that uses ids). */
  text(text: string, messageId: string | null | undefined, agentUsesIds: boolean): boolean {
    const id = messageId ?? null;
    if (id === null && agentUsesIds) return true;
    this.chunks.push({ text, messageId: id, toolCallsBefore: this.toolCalls });
    return false;
  }

  /** A new tool call started (any tool, ours included). */
  toolCall(): void {
    this.toolCalls++;
  }

  /** The final answer: the last message, if no tool call came after it. */
  answer(): string {
    const withIds = this.chunks.filter((c) => c.messageId !== null);
    if (withIds.length > 0) {
      const last = withIds[withIds.length - 1]!;
      if (last.toolCallsBefore < this.toolCalls) return "";
      // Only what came after the last tool call, even if an agent reused the id across it.
      return withIds
        .filter((c) => c.messageId === last.messageId && c.toolCallsBefore === this.toolCalls)
        .map((c) => c.text)
        .join("");
    }
    return this.chunks.filter((c) => c.toolCallsBefore === this.toolCalls).map((c) => c.text).join("");
  }

  /** Everything the agent said (for messages about a failed turn). */
  allText(): string {
    return this.chunks.map((c) => c.text).join("");
  }

  /** Our server ran block `index` for the agent: ok, or failed with `error` (a sentence naming the block). */
  ran(index: number, outcome: { ok: true } | { ok: false; error: string; unknown: boolean }): void {
    this.doCalls++;
    this.attempts++;
    const at = ++this.events;
    if (outcome.ok) this.successes.push({ index, at });
    else {
      this.unmatchedServerFailures++;
      this.failures.push({ kind: outcome.unknown ? "unknown-block" : "failed", index, reason: outcome.error, at });
    }
  }

  /** A permission request for our tool was answered with anything but allow. */
  denied(toolCallId: string, index: number | null, decision: string): void {
    this.attempts++;
    this.deniedCalls.add(toolCallId);
    const block = index === null ? "a do block" : `do block ${index}`;
    const why = decision === "cancelled" ? "its permission request was cancelled" : "the permission policy denied it";
    this.failures.push({ kind: "denied", index, reason: `the agent's call of ${block} did not run: ${why}`, at: ++this.events });
  }

  /** The agent reports a call of our tool failed. Unless we denied or failed it ourselves, it never reached us. */
  toolFailed(toolCallId: string, index: number | null, detail: string): void {
    if (this.deniedCalls.has(toolCallId)) return;
    if (this.unmatchedServerFailures > 0) {
      this.unmatchedServerFailures--;
      return;
    }
    this.attempts++;
    const block = index === null ? "a do block" : `do block ${index}`;
    const reason = `the agent's call of ${block} failed before it reached Patchwork${detail ? `: ${clip(detail)}` : ""}`;
    this.failures.push({ kind: "agent-failed", index, reason, at: ++this.events });
  }

  /**
   * The failures of the turn, split: `errors` the model did not recover from, `recovered` those
   * followed by a successful run of the same block (of any block, when the number was unknown
   * or not a block). Identical reasons are reported once.
   */
  outcome(): { errors: DoFailure[]; recovered: DoFailure[] } {
    const errors: DoFailure[] = [];
    const recovered: DoFailure[] = [];
    const seen = new Set<string>();
    for (const f of this.failures) {
      const anyBlock = f.index === null || f.kind === "unknown-block";
      const healed = this.successes.some((s) => s.at > f.at && (anyBlock || s.index === f.index));
      const list = healed ? recovered : errors;
      const key = `${healed}:${f.reason}`;
      if (seen.has(key)) continue;
      seen.add(key);
      list.push({ kind: f.kind, index: f.index, reason: f.reason });
    }
    return { errors, recovered };
  }
}

/** Tracks one think's usage across its turns; `take()` gives what is new since the last take. */
export class UsageMeter {
  private contextTokens = 0;
  private readonly cost: Record<string, number> = {};
  private readonly taken: Record<string, number> = {};
  private takenContext = 0;
  private tokens = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  /** The context window's size (`usage_update.size`), 0 until the agent says. */
  contextSize = 0;

  update(u: UsageUpdate): void {
    if (typeof u.used === "number" && Number.isFinite(u.used)) this.contextTokens = u.used;
    if (typeof u.size === "number" && Number.isFinite(u.size) && u.size > 0) this.contextSize = u.size;
    if (u.cost && typeof u.cost.amount === "number" && Number.isFinite(u.cost.amount) && typeof u.cost.currency === "string")
      this.cost[u.cost.currency] = u.cost.amount; // cumulative for the session
  }

  response(response: PromptResponse): void {
    const u = response.usage;
    if (!u) return;
    this.tokens.inputTokens += finite(u.inputTokens);
    this.tokens.outputTokens += finite(u.outputTokens);
    this.tokens.totalTokens += finite(u.totalTokens);
  }

  /** The figures new since the last call (so that summing every take gives the think's total). */
  take(): UsageFigures {
    const cost: Record<string, number> = {};
    for (const [currency, amount] of Object.entries(this.cost)) {
      const delta = amount - (this.taken[currency] ?? 0);
      if (delta !== 0) cost[currency] = delta;
      this.taken[currency] = amount;
    }
    const figures = { ...this.tokens, contextTokens: this.contextTokens - this.takenContext, cost };
    this.takenContext = this.contextTokens;
    this.tokens = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    return figures;
  }
}

/** The block number in a `do` call's raw input: `{number}` or Codex's `{arguments: {number}}`. */
export function blockNumberOf(rawInput: unknown): number | null {
  const raw = rawInput as { number?: unknown; arguments?: { number?: unknown } } | null | undefined;
  const n = raw?.number ?? raw?.arguments?.number;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : null;
}

function finite(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) ? n : 0;
}

export function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

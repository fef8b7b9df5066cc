/**
 * Which failures of a think may pass if the think is asked again: an overload, a rate limit
 * or a server error of the agent's model, the agent's silence past the idle timeout, and the
 * agent process dying (PW4004: the think is asked again of a new process, acp/recycling.ts). Not
 * transient: a refusal, a program error, a typed answer still wrong after its repair, a
 * cancelled run, anything else. What an agent reports is its own (docs/agents.md, "How each
 * agent reports an overload"): each agent profile may word its own rule
 * (`AgentProfile.transient`); this file holds the generic one they fall back on.
 */

/** A failure worth asking again. */
export interface Transient {
  /**
   * `overload`: the model is overloaded or rate-limited (the governor lowers its concurrency);
   * `timeout`: the idle timeout; `exited`: the agent process died during the think.
   */
  kind: "overload" | "timeout" | "exited";
  /** Short words for the progress line and the trace (`529 overloaded`, `rate limited`…). */
  reason: string;
  /** How long the agent (its model's API) asked us to wait, when it said. */
  retryAfterMs?: number;
}

/** A failed think as the classification sees it: its PW4xxx code and message. */
export interface ThinkFailure {
  code: string;
  message: string;
  /** The JSON-RPC error's `data`, when the agent answered `session/prompt` with an error and sent some. */
  data?: unknown;
}

/** Decides whether a failure is transient (null: it is not). */
export type Classify = (failure: ThinkFailure) => Transient | null;

/** The idle timeout's wording (think-handler.ts): `… timed out: the agent was silent for N ms`. */
const IDLE = /timed out: the agent was silent for/;
/** A status code as model APIs and agents word it: `API Error: 529`, `status 503`, `HTTP 429`, `code: 429`, `[429 Too Many Requests]`. */
const STATUS = /(?:API Error|status(?: code)?|HTTP(?:\/[\d.]+)?|code|error)[:\s=]*\[?(429|5\d\d)\b|\[(429|5\d\d) [A-Z][a-z]/i;
const WORDS: [RegExp, string][] = [
  [/overloaded/i, "overloaded"],
  [/rate[ _-]?limit/i, "rate limited"],
  [/too many requests/i, "rate limited"],
  [/RESOURCE_EXHAUSTED/, "rate limited"],
  [/quota exceeded/i, "rate limited"],
  [/service unavailable|temporarily unavailable|\bUNAVAILABLE\b/i, "unavailable"],
  [/bad gateway|gateway time-?out/i, "gateway error"],
  [/internal server error/i, "server error"],
];

/**
 * The generic rule: PW4004 (the agent process exited during the think); PW4006 for the idle timeout; PW4013 (the agent answered the turn with an
 * error) whose message names a 429 or 5xx status, or says overloaded, rate limit, too many
 * requests, unavailable.
 */
export function genericTransient(failure: ThinkFailure): Transient | null {
  if (failure.code === "PW4004") return { kind: "exited", reason: "the agent process exited" };
  if (failure.code === "PW4006") return IDLE.test(failure.message) ? { kind: "timeout", reason: "the agent was silent (idle timeout)" } : null;
  if (failure.code !== "PW4013") return null;
  return overloadIn(failure.message);
}

/** An overload, a rate limit or a 5xx that `text` reports, with any retry-after it gives. */
export function overloadIn(text: string): Transient | null {
  const status = STATUS.exec(text);
  const words = WORDS.find(([pattern]) => pattern.test(text));
  if (!status && !words) return null;
  const code = status?.[1] ?? status?.[2];
  const reason = [code, words?.[1]].filter(Boolean).join(" ") || "server error";
  const retryAfterMs = retryAfterIn(text);
  return { kind: "overload", reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** Longest wait a retry-after may ask for that we honour (a larger one is capped). */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * A retry-after in `text`: `retry-after: 30`, `Retry-After: 30s`, `retry after 1500ms`,
 * `Please retry in 12.5s` (Gemini), `"retryDelay": "7s"` (Google's RetryInfo). Seconds unless
 * it says ms.
 */
export function retryAfterIn(text: string): number | undefined {
  const match = /retry[-_ ]?after["':\s=]*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)?/i.exec(text) ??
    /retry in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(text) ??
    /"?retryDelay"?\s*[:=]\s*"(\d+(?:\.\d+)?)(s|ms)"/.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]);
  const ms = match[2]?.toLowerCase().startsWith("m") ? value : value * 1000;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(Math.round(ms), MAX_RETRY_AFTER_MS) : undefined;
}

/** A thrown value as a `ThinkFailure` (its code, message and `data`), or null when it has no PW code. */
export function failureOf(error: unknown): ThinkFailure | null {
  if (typeof error !== "object" || error === null) return null;
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code !== "string" || !code.startsWith("PW")) return null;
  return { code, message: typeof message === "string" ? message : "", ...(data !== undefined ? { data } : {}) };
}

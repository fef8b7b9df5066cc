/**
 * The retry schedule of a think that failed transiently: exponential backoff with jitter,
 * bounded, or the wait the agent's model asked for (retry-after). Plain functions: the clock
 * and the random source are the caller's (tests pass their own).
 */

export interface BackoffPolicy {
  /** Retries after the first attempt (0: none). */
  retries: number;
  /** Delay before the first retry (ms). */
  baseMs: number;
  /** Longest delay between two attempts (ms). */
  capMs: number;
  /** Each delay is multiplied by a random factor in [1 - jitter, 1 + jitter] (0: none). */
  jitter: number;
}

/**
 * 36 retries after 5, 10, 20, 40 s and then every 60 s (± 20 %): about 33 minutes in all, on top
 * of what the agent retries by itself (Claude Code: about 3 minutes), so that an unattended batch
 * outlives its model's bad half hour. While the model is down the governor lets one think at a
 * time try (governor.ts), so the others wait without spending their retries. docs/agent.md "Retries".
 */
export const DEFAULT_BACKOFF: BackoffPolicy = { retries: 36, baseMs: 5_000, capMs: 60_000, jitter: 0.2 };

/**
 * The wait before retry `attempt` (1 the first): `baseMs·2^(attempt-1)` capped at `capMs`,
 * jittered; a retry-after the agent passed on replaces it (with up to 10 % more, so that the
 * workers told the same wait do not all come back at the same instant).
 */
export function retryDelay(policy: BackoffPolicy, attempt: number, random: () => number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.round(retryAfterMs * (1 + 0.1 * random()));
  const raw = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.round(raw * (1 - policy.jitter + 2 * policy.jitter * random()));
}

/** The delays of a whole schedule without jitter (for docs and messages). */
export function scheduleOf(policy: BackoffPolicy): number[] {
  return Array.from({ length: policy.retries }, (_, i) => Math.min(policy.capMs, policy.baseMs * 2 ** i));
}

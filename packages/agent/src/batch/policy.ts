/**
 * The batch policy of a run (`runWithAgent({batch})`, the CLI's `--retries` and `--rate`):
 * the options, and the agent that applies them around every think (`RetryingAgent` with a
 * `Governor`).
 */
import type { AgentEvent, AsyncAgent } from "../types.js";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.js";
import { Governor, type Clock } from "./governor.js";
import { machineProbe, type MachineProbe } from "./machine.js";
import type { RateLimiter } from "./rate.js";
import { RetryingAgent } from "./retrying.js";
import type { Classify } from "./transient.js";

export interface BatchPolicyOptions {
  /** Retries of a think that failed transiently (default 36; 0: none). */
  retries?: number;
  /** Delay before the first retry, doubled at each (default 5 s), and the longest (default 60 s). */
  retryBaseMs?: number;
  retryCapMs?: number;
  /** Thinks started per minute at most (`--rate`); default none. */
  rate?: number | null;
  /** The window the rate is counted over (default 60 s; `--rate N/s`: 1 s). */
  rateWindowMs?: number;
  /** Counts the starts for the rate (default this process's; a fleet's run: Redis, shared by its machines). */
  rateLimiter?: RateLimiter;
  /** Hold new sessions while the machine is saturated (default true), measured by `probe` (default this machine's). */
  machine?: boolean;
  probe?: MachineProbe;
  clock?: Clock;
  random?: () => number;
}

/** `agent` with retries and the governor; `maxConcurrency`: the most thinks the run itself may have in flight. */
export function withBatchPolicy(
  agent: AsyncAgent,
  options: BatchPolicyOptions,
  context: { classify: Classify; emit: (event: AgentEvent) => void; maxConcurrency: number },
): RetryingAgent {
  const policy: BackoffPolicy = {
    ...DEFAULT_BACKOFF,
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.retryBaseMs !== undefined ? { baseMs: options.retryBaseMs } : {}),
    ...(options.retryCapMs !== undefined ? { capMs: options.retryCapMs } : {}),
  };
  const governor = new Governor({
    rate: options.rate ?? null,
    ...(options.rateWindowMs !== undefined ? { rateWindowMs: options.rateWindowMs } : {}),
    ...(options.rateLimiter ? { limiter: options.rateLimiter } : {}),
    maxConcurrency: context.maxConcurrency,
    probe: options.machine === false ? null : (options.probe ?? machineProbe()),
    emit: context.emit,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return new RetryingAgent(agent, {
    policy,
    classify: context.classify,
    governor,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
}

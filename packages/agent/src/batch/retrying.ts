/**
 * Batch policy around a think (design.md §9): `RetryingAgent` wraps any `AsyncAgent`, asks
 * the governor before each attempt of a think, and asks again, in a fresh session, a think
 * that failed transiently (`Classify`), after a backoff with jitter or the wait the agent's
 * model asked for, at most `retries` times. Each retry is a `think-retry` event. The
 * interpreter sees one think that took longer, or one that failed for good.
 *
 * A retried think runs its whole turn again: the `do` blocks the agent ran in the failed
 * attempt may run again (docs/agent.md "Retries"). A repair turn (`followUp`) that fails
 * transiently is answered by the think asked afresh, in a new session.
 */
import { AgentError } from "@patchwork/interpreter/core";
import type { ThinkRequest } from "@patchwork/interpreter";
import type { AsyncAgent, AsyncRunChild, AsyncThinkReply, SessionHint, ThinkContext } from "../types.js";
import { retryDelay, type BackoffPolicy } from "./backoff.js";
import { realClock, type Clock, type Governor, type Ticket } from "./governor.js";
import { failureOf, type Classify, type Transient } from "./transient.js";

export interface RetryingOptions {
  policy: BackoffPolicy;
  classify: Classify;
  /** Asked before each attempt of a think (null: none). */
  governor: Governor | null;
  clock?: Clock;
  /** Random numbers in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
}

export class RetryingAgent implements AsyncAgent {
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(
    private readonly inner: AsyncAgent,
    private readonly options: RetryingOptions,
  ) {
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
  }

  /** `do` blocks the agent asked for that are running now (of every think). */
  private doBlocks = 0;

  /**
   * Whether a `do` block is running: an agent process that dies then ends the run (its command
   * is killed) rather than have the think asked again while the command goes on (thread/run.ts).
   */
  get doBlocksRunning(): boolean {
    return this.doBlocks > 0;
  }

  /**
   * `runChild`, counted in `doBlocks` while it runs. The block's own promise goes back, not a
   * chained one: its answer reaches the agent's turn without a tick more (a cancelled turn then
   * closes its session before the run ends: signals.test.ts; budget.ts does the same).
   */
  private counted(runChild: AsyncRunChild): AsyncRunChild {
    return (index) => {
      this.doBlocks++;
      const result = runChild(index);
      result.then(
        () => this.doBlocks--,
        () => this.doBlocks--,
      );
      return result;
    };
  }

  async think(request: ThinkRequest, runChild: AsyncRunChild, signal: AbortSignal, context: ThinkContext): Promise<AsyncThinkReply> {
    return this.attempts(request, this.counted(runChild), signal, context);
  }

  private async attempts(request: ThinkRequest, runChild: AsyncRunChild, signal: AbortSignal, context: ThinkContext): Promise<AsyncThinkReply> {
    const { policy } = this.options;
    const started = this.clock.now();
    for (let attempt = 0; ; attempt++) {
      const ticket = await this.admit(request, context, signal);
      let reply: AsyncThinkReply;
      try {
        reply = await this.inner.think(request, runChild, signal, context);
      } catch (error) {
        const transient = this.transient(error, signal);
        ticket?.failed(transient);
        if (!transient) throw error;
        if (attempt >= retriesFor(transient, policy.retries)) throw attempt === 0 ? error : exhausted(error, attempt, this.clock.now() - started);
        await this.wait(transient, attempt + 1, error, signal, context);
        continue;
      }
      ticket?.succeeded();
      return this.withFollowUp(reply, request, signal, context);
    }
  }

  /** A repair turn that fails transiently is answered by the think asked again from the start. */
  private withFollowUp(reply: AsyncThinkReply, request: ThinkRequest, signal: AbortSignal, context: ThinkContext): AsyncThinkReply {
    const followUp = reply.followUp;
    if (!followUp || this.options.policy.retries === 0) return reply;
    return {
      ...reply,
      followUp: async (message, runChild, turnSignal) => {
        try {
          return await followUp(message, this.counted(runChild), turnSignal);
        } catch (error) {
          const transient = this.transient(error, turnSignal);
          if (!transient) throw error;
          await this.wait(transient, 1, error, turnSignal, context);
          return this.think(request, runChild, turnSignal, context);
        }
      },
    };
  }

  /**
   * The governor's place for the think, by its task (the request's worker key: a thread that
   * carries several tasks suspended in thinks, decision 0016, serves all their thinks).
   */
  private async admit(request: ThinkRequest, context: ThinkContext, signal: AbortSignal): Promise<Ticket | null> {
    const governor = this.options.governor;
    return governor ? governor.admit(request.worker ?? context.worker ?? "main", signal) : null;
  }

  private transient(error: unknown, signal: AbortSignal): Transient | null {
    if (signal.aborted) return null;
    const failure = failureOf(error);
    return failure ? this.options.classify(failure) : null;
  }

  private async wait(transient: Transient, attempt: number, error: unknown, signal: AbortSignal, context: ThinkContext): Promise<void> {
    const retries = retriesFor(transient, this.options.policy.retries);
    const delayMs = retryDelay(this.options.policy, attempt, this.random, transient.retryAfterMs);
    const code = failureOf(error)?.code;
    context.emit({ type: "think-retry", thinkId: context.thinkId, attempt, retries, delayMs, reason: transient.reason, ...(code ? { code } : {}) });
    await this.clock.sleep(delayMs, signal).catch(() => {
      throw new AgentError("PW4010", "the think was cancelled while it waited to be asked again");
    });
  }

  /** Most retries of a think (0: none). */
  get retries(): number {
    return this.options.policy.retries;
  }

  prepare(hint: SessionHint): void {
    this.inner.prepare?.(hint);
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}

/** The last attempt's error, saying how many retries were made and over how long. */
function exhausted(error: unknown, retries: number, ms: number): unknown {
  const failure = failureOf(error);
  if (!failure) return error;
  const minutes = ms >= 90_000 ? `${(ms / 60_000).toFixed(1)} min` : `${Math.round(ms / 1000)} s`;
  const note = ` (still failing after ${retries} ${retries === 1 ? "retry" : "retries"} over ${minutes}; --retries sets how many)`;
  // Before the agent's stderr that ends some messages (process.ts `stderrSuffix`).
  const cut = failure.message.indexOf("\nagent stderr:");
  const message = cut < 0 ? failure.message + note : failure.message.slice(0, cut) + note + failure.message.slice(cut);
  return new AgentError(failure.code, message);
}

/**
 * Most retries for this failure: an idle timeout (ten minutes of silence by default) or an agent
 * process that died (which may die again at the same prompt) at most twice.
 */
function retriesFor(transient: Transient, retries: number): number {
  return transient.kind === "overload" ? retries : Math.min(2, retries);
}

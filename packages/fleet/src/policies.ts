/**
 * A worker's batch policy, one per run whose tasks it runs: the run's retries (`--retries`,
 * carried in its jobs) around this process's agent, and a governor whose rate is the run's,
 * counted in Redis with the run's other machines (rate.ts). A run's policy lives while any of
 * its tasks runs here; its `think-retry` events go with the think's task, its `governor` events
 * with one of the run's tasks running here.
 */
import type { Redis } from "ioredis";
import { genericTransient, withBatchPolicy, type AgentEvent, type AsyncAgent, type Classify, type RunEvent } from "@patchwork/agent";
import { rateLimiterOf } from "./coordinator.js";
import type { JobBatchPolicy } from "./protocol.js";

interface RunPolicy {
  agent: AsyncAgent;
  /** The run's tasks running here: where its governor's events go. */
  tasks: Set<(event: RunEvent) => void>;
}

export class RunPolicies {
  private readonly runs = new Map<string, RunPolicy>();

  constructor(
    private readonly redis: Redis,
    private readonly agent: AsyncAgent,
    private readonly classify: Classify = genericTransient,
    /** The most thinks this process's tasks may have in flight. */
    private readonly maxConcurrency: number,
  ) {}

  /** The agent of a task of `run` in `epoch` (its job's policy; none carried: the defaults, no rate); `release` when it ends. */
  take(run: string, epoch: string, batch: JobBatchPolicy | undefined, onEvent: (event: RunEvent) => void): { agent: AsyncAgent; release: () => void } {
    // Per coordinator's life of the run (a resumed run may give another policy); the rate's count is the run's.
    const key = `${run}:${epoch}`;
    let policy = this.runs.get(key);
    if (!policy) {
      const tasks = new Set<(event: RunEvent) => void>();
      const emit = (event: AgentEvent) => tasks.values().next().value?.(event as RunEvent);
      const limiter = rateLimiterOf(this.redis, run, batch);
      const agent = withBatchPolicy(
        this.agent,
        { ...(batch ?? { rate: null }), ...(limiter ? { rateLimiter: limiter } : {}) },
        { classify: this.classify, emit, maxConcurrency: this.maxConcurrency },
      );
      policy = { agent, tasks };
      this.runs.set(key, policy);
    }
    const mine = policy;
    mine.tasks.add(onEvent);
    return {
      agent: mine.agent,
      release: () => {
        mine.tasks.delete(onEvent);
        if (mine.tasks.size === 0 && this.runs.get(key) === mine) this.runs.delete(key);
      },
    };
  }
}

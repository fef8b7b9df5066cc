/** What a run's `EvaluatorPool` (pool.ts) is made with; its threads (local-threads.ts) read it too. */
import type { SessionUsage } from "@patchwork/interpreter";
import type { AsyncAgent, RunEvent } from "../types.js";
import type { EvaluatorThreadAhead } from "./ahead.js";
import type { MailboxStoreFactory } from "./mailboxes.js";
import type { WorkerInit } from "./protocol.js";
import type { TaskSchedulerFactory } from "./scheduler.js";

export interface PoolOptions {
  workerPath: string;
  /** The program thread's init; task threads derive theirs from it. */
  init: WorkerInit;
  /** The agent runtime; null: no agent (thinks evaluate to their prompt in each thread). */
  agent: AsyncAgent | null;
  runSignal: AbortSignal;
  emit: (event: RunEvent) => void;
  env: Record<string, string | undefined>;
  shellStdin: "ignore" | "inherit";
  /** Most task threads running at once (threads blocked in `await` or `receive` do not count). */
  maxWorkers: number;
  /**
   * Most threads using the CPU at once before another task thread starts (default: the cores).
   * A thread blocked in a think, a shell command, `await` or `receive` uses none. Starting a
   * thread costs CPU too; past this number, CPU-bound tasks would only share the cores (and pay
   * for more thread starts), so a queued task waits for a thread to block or end, or for
   * `starvedMs` without any task starting (a task may be polling for another's work).
   */
  cpuSlots?: number;
  /** See `cpuSlots` (default `STARVED_MS`). */
  starvedMs?: number;
  onOutput: (text: string) => void;
  /** `self.session.usage`: what the run has spent so far (default: nothing asked, nothing reported). */
  usage?: () => SessionUsage;
  /** The program's thread, started ahead (ahead.ts); else the pool starts it. */
  ahead?: EvaluatorThreadAhead;
  /** Where the worker tasks run (default: this process's threads, `LocalThreads`). */
  scheduler?: TaskSchedulerFactory;
  /** Where the run's mailboxes are (default: this process's memory). */
  mailboxes?: MailboxStoreFactory;
}

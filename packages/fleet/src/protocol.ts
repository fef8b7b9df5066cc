/**
 * What goes through Redis between a run (the coordinator) and `patchwork worker` processes:
 * the BullMQ queue's jobs (one per worker task), each run's stream of task reports, the think
 * journal of each task, and the cancel channel. Every key starts with the queue's prefix.
 */
import type { CassetteThink, JsonValue, WorkerTask } from "@patchwork/interpreter";
import type { RootEnd, RunEvent } from "@patchwork/agent";
import type { SourceFiles } from "./sources.js";

/** The BullMQ queue (its keys: `pw:tasks:…`). */
export const QUEUE_NAME = "tasks";
export const PREFIX = "pw";

export interface TaskJob {
  /** The run's id (its journal's key); `epoch`: this coordinator's life of it (a resumed run has a new one). */
  run: string;
  epoch: string;
  /** The task's worker key in the run (`NAME#N`). */
  key: string;
  /** Its file relative to the run's cwd (or absolute outside it). */
  file: string;
  worker: string;
  args: JsonValue[];
  sources: SourceFiles;
  /** The run's `self.session` id and timestamp (its `dir` is each machine's own). */
  session?: { id: string; timestamp: string };
  /** Thinks of this task the coordinator's cassette has (a resumed run's). */
  replay?: CassetteThink[];
  /** The run's batch policy (`--retries`, `--rate`): every worker applies it to the task's thinks. */
  batch?: JobBatchPolicy;
}

/** What of a run's batch policy travels with its jobs (docs/fleet.md "Retries and the rate"). */
export interface JobBatchPolicy {
  retries?: number;
  retryBaseMs?: number;
  retryCapMs?: number;
  /** Thinks per minute across the fleet (counted in Redis, `rateKey`); null: no cap. */
  rate: number | null;
  rateWindowMs?: number;
}

/** One report of a task, in the order its worker made them. */
export type TaskReport =
  | { key: string; attempt: string; kind: "start"; host: string; cwd: string; file: string }
  | { key: string; attempt: string; kind: "event"; event: RunEvent }
  | { key: string; attempt: string; kind: "output"; n: number; text: string }
  | { key: string; attempt: string; kind: "end"; end: RootEnd };

export const reportsKey = (run: string, epoch: string) => `${PREFIX}:run:${run}:${epoch}:reports`;
export const journalKey = (run: string, key: string) => `${PREFIX}:run:${run}:journal:${key}`;
/** The set of a run's journal keys (to remove them at its end). */
export const journalsKey = (run: string) => `${PREFIX}:run:${run}:journals`;
export const cancelledKey = (run: string, epoch: string) => `${PREFIX}:run:${run}:${epoch}:cancelled`;
/** A mailbox's scope: the run and epoch (`run:epoch`); its list and the set of a scope's lists. */
export const mailboxScope = (run: string, epoch: string) => `${run}:${epoch}`;
export const mailboxKey = (scope: string, name: string) => `${PREFIX}:run:${scope}:mailbox:${name}`;
export const mailboxesKey = (scope: string) => `${PREFIX}:run:${scope}:mailboxes`;
/** The run's think starts in the rate's window (rate.ts). */
export const rateKey = (run: string) => `${PREFIX}:run:${run}:rate`;
export const CANCEL_CHANNEL = `${PREFIX}:cancel`;

/** On the cancel channel: stop these tasks (`key` absent: all of the run's epoch; `others`: all of the run's other epochs). */
export interface CancelMessage {
  run: string;
  epoch: string;
  key?: string;
  others?: true;
  why: string;
}

/** The run's epoch now: a job of another (a coordinator that died before a resume) is not run. */
export const epochKey = (run: string) => `${PREFIX}:run:${run}:epoch`;

export const jobId = (run: string, epoch: string, key: string) => `${run}.${epoch}.${key}`;

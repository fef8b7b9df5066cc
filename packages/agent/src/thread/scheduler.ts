/**
 * The seam between a run's fork-join groups (pool.ts) and the place its worker tasks run
 * (design.md §9, "The fleet"). A `TaskScheduler` takes a group's tasks, starts each when it has
 * room, reports each one's events, output and end to the run in the order they happened, and
 * stops one on request. Two implementations: this process's evaluator threads
 * (local-threads.ts, the default) and a queue of `patchwork worker` processes (the fleet
 * package). The groups above the seam (fail-fast, join) and the evaluator, the journal and the
 * hosts do not know which one runs.
 */
import type { SessionInfo } from "@patchwork/interpreter";
import type { RunEvent } from "../types.js";
import type { RunOutcome } from "./protocol.js";
import type { TaskRun } from "./thread-host.js";

/** How a program's or a task's evaluator ended. */
export type RootEnd = { kind: "done"; outcome: RunOutcome } | { kind: "crashed"; message: string };

export interface TaskScheduler {
  /** A group's tasks (state `queued`), in order: each starts when there is room. */
  submit(runs: readonly TaskRun[]): void;
  /**
   * Stops a task that was `queued` or `running` (`run.state` is already `cancelled`): its
   * thinks, commands and code. Its end is not reported.
   */
  cancel(run: TaskRun, why: string): void;
  /** The run is over (or cancelled): every task stops. */
  shutdown(code: string, message: string): void;
}

/** What a scheduler reports of its tasks to the run, in order. */
export interface TaskReports {
  /** An event of a task (think numbers made the run's with `ThinkNumbers`). */
  emit(event: RunEvent): void;
  /** Program output of a task. */
  output(text: string): void;
  /** A task ended (not reported for a cancelled one). */
  ended(run: TaskRun, end: RootEnd): void;
}

/** Creates the scheduler of a run's tasks (default: its evaluator threads); `run.session`: the run's `self.session`. */
export type TaskSchedulerFactory = (reports: TaskReports, numbers: ThinkNumbers, run: { session?: SessionInfo }) => TaskScheduler;

/**
 * Think numbers across the run: each evaluator numbers its thinks from 1; events, traces and
 * cassettes use the run's numbers, given in the order the thinks start.
 */
export class ThinkNumbers {
  private count = 0;

  /** The run's number of an evaluator's think `local` (`ids`: that evaluator's map). */
  of(ids: Map<number, number>, local: number): number {
    let id = ids.get(local);
    if (id === undefined) ids.set(local, (id = ++this.count));
    return id;
  }

  /** An evaluator's event with the run's think numbers. */
  /** `worker`: the task's key, tagged on its loops' events (the program's own carry none). */
  renumber(ids: Map<number, number>, event: RunEvent, worker?: string): RunEvent {
    switch (event.type) {
      case "think-start":
      case "think-end":
        return { ...event, id: this.of(ids, event.id) };
      case "do-start":
      case "do-end":
        return { ...event, thinkId: this.of(ids, event.thinkId) };
      case "loop-start":
      case "loop-item":
      case "loop-end":
        return worker !== undefined ? { ...event, worker } : event;
      default:
        return event;
    }
  }
}

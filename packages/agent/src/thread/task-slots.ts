/**
 * The tasks one evaluator thread carries (decision 0016), on that thread. A task of a worker
 * that shares threads runs in resumable form (`runTaskResumable`): when it suspends in a wait,
 * the thread posts the wait to the main thread (`wait`) and goes back to its event loop, where
 * the next message may start another task or resume one (`wait-answer`); `cancel-task` drops a
 * suspended task. Only one task runs at a time: `current` names it, and every message the thread
 * posts meanwhile carries it as `task`.
 */
import type { RunResult } from "@patchwork/interpreter/core";
import type { Resumable, WaitAnswer } from "@patchwork/interpreter/tasks";
import type { WorkerMessage } from "./protocol.js";

interface Slot {
  steps: Resumable<RunResult>;
  /** Called with its result when the task ends (posts `done`). */
  finish: (result: RunResult) => void;
}

export class TaskSlots {
  private readonly slots = new Map<number, Slot>();
  /** The task running now (one of these, or a task run the ordinary, blocking way). */
  current: number | undefined;

  constructor(private readonly post: (message: WorkerMessage) => void) {}

  start(id: number, steps: Resumable<RunResult>, finish: (result: RunResult) => void): void {
    this.slots.set(id, { steps, finish });
    this.step(id, undefined);
  }

  /** The answer to the wait task `id` is suspended in: it runs on to its next wait or its end. */
  answer(id: number, answer: WaitAnswer): void {
    this.step(id, answer);
  }

  /** Drops a suspended task (cancelled: the main thread has stopped its thinks and commands). */
  cancel(id: number): void {
    this.slots.delete(id);
  }

  private step(id: number, answer: WaitAnswer | undefined): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    this.current = id;
    try {
      const next = slot.steps.next(answer as WaitAnswer);
      if (next.done) {
        this.slots.delete(id);
        slot.finish(next.value);
      } else this.post({ type: "wait", wait: next.value });
    } catch (error) {
      // runTaskResumable turns every error of the program into its result: this is ours.
      this.slots.delete(id);
      this.post({ type: "failed", message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
    } finally {
      this.current = undefined;
    }
  }
}

/**
 * An evaluator thread started before its run is ready to start it: a thread's start (a V8
 * isolate, Node's bootstrap, the interpreter's code) then overlaps whatever its caller does
 * first. `patchwork run --resume` starts one while it reads the cassette, opens the journal and
 * loads the run's code: the replay starts at once (docs/benchmarks.md, "The cassette journal
 * and resuming"). The thread starts as a standby thread (local-threads.ts's task threads start so too)
 * and the pool gives it the program with `next-task`.
 *
 * Only a run that does not hold its program's thread for the agent (a replay) takes one: a
 * held thread is started `gated` (evaluator-worker.ts).
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { WorkerInit } from "./protocol.js";
import { THREAD_STDIO, forwardStdio } from "./stdio.js";
import { newWriteLock } from "./write-lock.js";

const workerPath = fileURLToPath(new URL("./evaluator-worker.js", import.meta.url));

export interface EvaluatorThreadAheadOptions {
  /** The run's working directory (the thread's Node host is made with it). */
  cwd: string;
  /** As `RunWithAgentOptions.env` and `shellStdin` (the same values, or the run does not take it). */
  env?: Record<string, string | undefined>;
  shellStdin?: "ignore" | "inherit";
}

/**
 * The thread, until a run takes it (`RunWithAgentOptions.evaluatorThread`). It keeps nothing
 * alive meanwhile (a run that stops first needs no cleanup), and what the thread says before
 * the pool listens (its `hello`, or its end) is kept for the pool.
 */
export class EvaluatorThreadAhead {
  readonly worker: Worker;
  readonly writeLock = newWriteLock();
  private held: { event: "message" | "error" | "exit"; value: unknown }[] = [];
  private readonly listeners: [event: "message" | "error" | "exit", listener: (value: unknown) => void][];
  private taken = false;

  constructor(readonly options: EvaluatorThreadAheadOptions) {
    const init: WorkerInit = {
      source: "",
      fileName: "",
      cwd: options.cwd,
      writeOutput: true,
      standby: true,
      ...(options.env ? { env: options.env } : {}),
      ...(options.shellStdin ? { shellStdin: options.shellStdin } : {}),
      writeLock: this.writeLock,
    };
    this.worker = new Worker(workerPath, { workerData: init, ...THREAD_STDIO });
    this.worker.unref();
    this.listeners = (["message", "error", "exit"] as const).map((event) => {
      const listener = (value: unknown) => this.held.push({ event, value });
      this.worker.on(event, listener);
      return [event, listener];
    });
  }

  /** Whether a run with these settings may take it. */
  fits(options: { cwd: string; env?: Record<string, string | undefined>; shellStdin?: "ignore" | "inherit" }): boolean {
    return (
      !this.taken &&
      options.cwd === this.options.cwd &&
      options.env === this.options.env &&
      (options.shellStdin ?? "ignore") === (this.options.shellStdin ?? "ignore")
    );
  }

  /**
   * The pool takes the thread: call once its listeners are on. What the thread said before is
   * said again to them, then the program goes to the thread.
   */
  take(init: WorkerInit): void {
    this.taken = true;
    for (const [event, listener] of this.listeners) this.worker.off(event, listener);
    this.worker.ref();
    forwardStdio(this.worker);
    const held = this.held;
    this.held = [];
    for (const { event, value } of held) this.worker.emit(event, value);
    this.worker.postMessage({ type: "next-task", init: { ...init, standby: undefined } });
  }

  /** No run took it: it stops. */
  discard(): void {
    if (this.taken) return;
    this.taken = true;
    void this.worker.terminate();
  }
}

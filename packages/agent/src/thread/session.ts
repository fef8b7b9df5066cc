/**
 * An evaluator thread that outlives one program: the REPL behind `patchwork acp`. Each
 * program runs in the same interpreter session (variables, functions, types and imports of
 * one program stay visible to the next), with the same think bridge and shell runner as
 * `runWithAgent`. Cancelling a program cancels its thinks and kills its shell commands; the
 * program then unwinds and the state is kept. A program that does not stop within a grace
 * period (a loop that never thinks) has its thread terminated: the next program starts a
 * fresh session, and the result says so (`reset`).
 */
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import type { JsonValue, ShellResult } from "@patchwork/interpreter";
import type { Diagnostic } from "@patchwork/parser";
import { AgentCodes } from "../errors.js";
import type { AsyncAgent, RunEvent } from "../types.js";
import { ThinkBridge } from "./bridge.js";
import { ShellRunner } from "./shell.js";
import type { SessionEntry, SessionRunMessage, WorkerInit, WorkerMessage } from "./protocol.js";
import { newWriteLock, terminateOutsideWrites } from "./write-lock.js";

export interface EvaluatorSessionOptions {
  /** Answers every think of every program (read at each think, so it may be replaced). */
  agent: AsyncAgent;
  /** The programs' working directory (absolute). */
  cwd: string;
  env?: Record<string, string | undefined>;
  limits?: Record<string, number>;
  /** Module with `createSession` and `createNodeHost` (default the interpreter). */
  evaluatorModule?: string;
  /** How long a cancelled program may take to unwind before its thread is terminated. Default 1000 ms. */
  cancelGraceMs?: number;
}

export interface ProgramHandlers {
  signal?: AbortSignal;
  /** After the program's statements, run this entry (or the program's default one) with these arguments. */
  main?: SessionEntry;
  /**
   * The think (and ask) blocks of the program's text, counted by its caller, which parsed it:
   * that many sessions are made ahead of need (`AsyncAgent.prepare`, docs/agent.md) while the
   * program is handed to its thread. None for 0 or absent.
   */
  thinks?: number;
  /** The evaluator's and the agent's progress events, as for `runWithAgent`. */
  onEvent?(event: RunEvent): void;
  /** Program output as it is produced. */
  onOutput?(text: string): void;
  /** A shell command starts (`id` is unique in the session) and ends. */
  onShellStart?(id: number, command: string): void;
  onShellEnd?(id: number, result: ShellResult | null): void;
}

export interface ProgramResult {
  ok: boolean;
  value: JsonValue | null;
  output: string;
  diagnostics: Diagnostic[];
  cancelled: boolean;
  /** The session's state was lost (the thread was terminated or crashed); the next program starts afresh. */
  reset: boolean;
  /** The entry the program called (`value` is its return value), when it called one. */
  entry?: string;
}

const workerPath = fileURLToPath(new URL("./evaluator-worker.js", import.meta.url));
/** No place in the program (the agent failed to start, the run was cancelled…): line 0, shown without a position or caret. */
const START: Diagnostic["span"] = { start: { offset: 0, line: 0, column: 0 }, end: { offset: 0, line: 0, column: 0 } };

interface Running {
  runId: number;
  fileName: string;
  handlers: ProgramHandlers;
  output: string[];
  controller: AbortController;
  cancelled: boolean;
  finish(result: ProgramResult): void;
}

class Thread {
  readonly worker: Worker;
  readonly bridge: ThinkBridge;
  readonly ready: Promise<void>;
  /** Shared with the thread's `write()`s: a reset waits for a write under way (write-lock.ts). */
  readonly writeLock = newWriteLock();
  dead = false;

  constructor(init: WorkerInit, agent: AsyncAgent, onMessage: (thread: Thread, message: WorkerMessage) => void, onDeath: (thread: Thread, why: string) => void) {
    this.bridge = new ThinkBridge(agent, new AbortController().signal, () => undefined);
    this.worker = new Worker(workerPath, { workerData: { ...init, writeLock: this.writeLock } });
    this.worker.unref();
    let ready!: () => void;
    let failed!: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => ((ready = resolve), (failed = reject)));
    this.ready.catch(() => undefined);
    this.worker.on("message", (message: WorkerMessage) => {
      if (message.type === "ready") ready();
      else if (message.type === "failed" && !this.dead) {
        failed(new Error(message.message));
        onMessage(this, message);
      } else onMessage(this, message);
    });
    const die = (why: string) => {
      if (this.dead) return;
      this.dead = true;
      this.bridge.shutdown(AgentCodes.evaluatorCrashed, why);
      failed(new Error(why));
      onDeath(this, why);
    };
    this.worker.once("error", (error) => die(`the evaluator thread crashed: ${error.message}`));
    this.worker.once("exit", (code) => die(`the evaluator thread exited (code ${code})`));
  }

  terminate(): Promise<number> {
    this.dead = true;
    this.bridge.shutdown(AgentCodes.cancelled, "the evaluator session was reset");
    return terminateOutsideWrites(this.worker, this.writeLock);
  }
}

export class EvaluatorSession {
  private thread: Thread | null = null;
  private current: Running | null = null;
  private runSeq = 0;
  private shellSeq = 0;
  private readonly shells: ShellRunner;
  private closed = false;

  constructor(private readonly options: EvaluatorSessionOptions) {
    this.shells = new ShellRunner({ env: options.env ?? process.env, stdin: "ignore" });
  }

  /** Whether a program is running. */
  get busy(): boolean {
    return this.current !== null;
  }

  /** Runs the next program of the session. Never rejects; one program at a time. */
  async run(source: string, fileName: string, handlers: ProgramHandlers = {}): Promise<ProgramResult> {
    if (this.current) throw new Error("a program is already running in this session");
    if (this.closed) return this.failure(fileName, AgentCodes.cancelled, "the session is closed", false);
    const thread = (this.thread ??= this.startThread());
    const controller = new AbortController();
    const runId = ++this.runSeq;
    return new Promise<ProgramResult>((resolve) => {
      let settled = false;
      const running: Running = {
        runId,
        fileName,
        handlers,
        output: [],
        controller,
        cancelled: false,
        finish: (result) => {
          if (settled) return;
          settled = true;
          handlers.signal?.removeEventListener("abort", onAbort);
          if (this.current === running) this.current = null;
          resolve(result);
        },
      };
      this.current = running;
      const onAbort = () => this.cancel(running);
      handlers.signal?.addEventListener("abort", onAbort, { once: true });
      thread.bridge.nextRun(controller.signal, (event) => emit(handlers, event));
      // Its first thinks' sessions are made now, while the program reaches its thread (and, for
      // the session's first program, while the thread starts).
      if (handlers.thinks && handlers.thinks > 0) this.options.agent.prepare?.({ thinks: handlers.thinks });
      thread.ready.then(
        () => {
          if (handlers.signal?.aborted) return onAbort();
          thread.worker.postMessage({ runId, source, fileName, main: handlers.main } satisfies SessionRunMessage);
        },
        (error: Error) => running.finish(this.failure(fileName, AgentCodes.evaluatorCrashed, error.message, false)),
      );
    });
  }

  /** Forgets the session's state: the next program starts in a fresh interpreter session. */
  async reset(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    const running = this.current;
    if (running) this.cancel(running);
    await thread?.terminate();
    // Its thread is gone (a terminated thread reports no death): the program ends cancelled.
    if (running && this.current === running) running.finish({ ...this.cancelledResult(running), reset: true });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.reset();
    this.shells.killAll();
  }

  private startThread(): Thread {
    const init: WorkerInit = {
      source: "",
      fileName: "<session>",
      cwd: this.options.cwd,
      limits: this.options.limits,
      writeOutput: false,
      env: this.options.env,
      evaluatorModule: this.options.evaluatorModule,
      repl: true,
    };
    // The agent is looked up at each think: the proxy may restart it between programs.
    const agent: AsyncAgent = { think: (...args) => this.options.agent.think(...args) };
    return new Thread(init, agent, (t, m) => this.onMessage(t, m), (t, why) => this.onDeath(t, why));
  }

  private onMessage(thread: Thread, message: WorkerMessage): void {
    const running = this.current;
    switch (message.type) {
      case "hello":
        thread.bridge.connect(message);
        return;
      case "ready":
        return;
      case "think":
        if (message.start && running) emit(running.handlers, message.start);
        if (running?.cancelled) {
          thread.bridge.answer(message.seq, { type: "cancel", code: AgentCodes.cancelled, message: "the program was cancelled" });
          return;
        }
        thread.bridge.start(message);
        return;
      case "event":
        if (running) emit(running.handlers, message.event);
        return;
      case "output":
        if (!running) return;
        running.output.push(message.text);
        running.handlers.onOutput?.(message.text);
        return;
      case "shell": {
        if (!running || running.cancelled) {
          thread.bridge.answer(message.seq, { type: "cancel", code: AgentCodes.cancelled, message: "the program was cancelled" });
          return;
        }
        const id = ++this.shellSeq;
        running.handlers.onShellStart?.(id, message.command);
        void this.shells.run(message.command, message.cwd ?? this.options.cwd, message.env).then((result) => {
          running.handlers.onShellEnd?.(id, result);
          if (!thread.dead) thread.bridge.answer(message.seq, { type: "shell-result", result });
        });
        return;
      }
      case "done": {
        if (!running || message.runId !== running.runId) return;
        const errors = message.outcome.diagnostics.some((d) => d.severity === "error");
        if (running.cancelled) {
          running.finish({ ...this.cancelledResult(running), output: running.output.join(""), reset: false });
          return;
        }
        running.finish({ ok: !errors, cancelled: false, reset: false, ...message.outcome });
        return;
      }
      case "failed":
        if (thread === this.thread) this.thread = null;
        void thread.terminate();
        running?.finish(this.failure(running.fileName, AgentCodes.evaluatorCrashed, `the evaluator failed: ${message.message}`, true));
        return;
    }
  }

  private onDeath(thread: Thread, why: string): void {
    if (thread === this.thread) this.thread = null;
    const running = this.current;
    if (!running) return;
    if (running.cancelled) running.finish({ ...this.cancelledResult(running), reset: true });
    else running.finish(this.failure(running.fileName, AgentCodes.evaluatorCrashed, why, true));
  }

  /** Cancels the running program: its thinks and commands now; its thread after the grace period. */
  private cancel(running: Running): void {
    if (running.cancelled) return;
    running.cancelled = true;
    running.controller.abort();
    const thread = this.thread;
    thread?.bridge.cancelOpen(AgentCodes.cancelled, "the program was cancelled");
    this.shells.killAll();
    const timer = setTimeout(() => {
      if (this.current !== running || !thread) return;
      // Still running (a loop that never thinks): the thread goes, and the session's state with it.
      if (this.thread === thread) this.thread = null;
      void thread.terminate();
      running.finish({ ...this.cancelledResult(running), reset: true });
    }, this.options.cancelGraceMs ?? 1000);
    timer.unref();
  }

  private cancelledResult(running: Running): ProgramResult {
    return {
      ok: false,
      value: null,
      output: running.output.join(""),
      diagnostics: [{ code: AgentCodes.cancelled, severity: "error", message: "the program was cancelled", span: START, fileName: running.fileName }],
      cancelled: true,
      reset: false,
    };
  }

  private failure(fileName: string, code: string, message: string, reset: boolean): ProgramResult {
    return {
      ok: false,
      value: null,
      output: "",
      diagnostics: [{ code, severity: "error", message, span: START, fileName }],
      cancelled: false,
      reset,
    };
  }
}

function emit(handlers: ProgramHandlers, event: RunEvent): void {
  try {
    handlers.onEvent?.(event);
  } catch {
    // a listener's failure is not the program's
  }
}

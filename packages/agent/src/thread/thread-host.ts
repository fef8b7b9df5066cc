/**
 * The main thread's view of evaluator threads (pool.ts). A `ThreadHost` is one Node worker
 * thread; an `EvaluatorThread` is what runs on it: the program, or one worker task. A thread
 * runs one task at a time, but a task suspended in a wait that frees its thread (decision 0016:
 * a statement-level `receive` or `await` of a task that shares threads) stays on it while
 * other tasks run there, so one host carries several tasks. Messages from the thread name their
 * task (`task`), and each task has its own think bridge (on the thread's one channel port), its
 * own shell commands, groups and think numbers, as a thread of its own had before.
 */
import { Worker } from "node:worker_threads";
import type { DelegateMode, JoinResult, JsonValue, ReceiveResult, WaitAnswer, WorkerFailure, WorkerTask } from "@patchwork/interpreter";
import type { AsyncAgent, RunEvent } from "../types.js";
import type { EvaluatorThreadAhead } from "./ahead.js";
import { ThinkBridge } from "./bridge.js";
import type { HelloMessage, TaskControlMessage, ThinkReplyMessage, WorkerInit } from "./protocol.js";
import { ShellRunner } from "./shell.js";
import { newWriteLock, terminateOutsideWrites } from "./write-lock.js";
import { THREAD_STDIO, forwardStdio } from "./stdio.js";

export interface HostOptions {
  workerPath: string;
  agent: AsyncAgent;
  runSignal: AbortSignal;
  emit: (event: RunEvent) => void;
  env: Record<string, string | undefined>;
  shellStdin: "ignore" | "inherit";
}

export interface TaskRun {
  spec: WorkerTask;
  /**
   * The task's worker key: `NAME#N`, the Nth task its delegating thread started, after that
   * thread's own key for nested delegations (`coordinator#1/helper#2`). It labels the task's
   * thinks in events, traces, cassettes and `--verbose`, and keys its redirect stack; it does
   * not depend on timing, so a replay finds the same keys.
   */
  key: string;
  group: Group;
  index: number;
  state: "queued" | "running" | "done" | "cancelled";
  thread: EvaluatorThread | null;
}

export interface Group {
  owner: EvaluatorThread;
  id: number;
  /** `fail-fast`: a failure cancels the other tasks; `settle`: every task runs to its end. */
  mode: DelegateMode;
  runs: TaskRun[];
  results: JsonValue[];
  /** Each task's failure (a settled group keeps them all), or null. */
  failures: (WorkerFailure | null)[];
  left: number;
  /** What ends the join with an error: a fail-fast group's first failure, a settled group's first fatal one. */
  failure: WorkerFailure | null;
  /** Answers the owner's join, when it waits in one. */
  joinReply: ((result: JoinResult) => void) | null;
}

/** One Node worker thread and the tasks it carries. */
export class ThreadHost {
  readonly worker: Worker;
  /** Shared with the thread's `write()`s: a stop waits for a write under way (write-lock.ts). */
  readonly writeLock: SharedArrayBuffer;
  hello: HelloMessage | null = null;
  /** Its tasks by id (the program's thread: its one evaluator, id 0). */
  readonly tasks = new Map<number, EvaluatorThread>();
  ended = false;
  /** It carries tasks that share threads (sharesThread): more may join them while all wait. */
  shared = false;
  /** The task programs it has been given (`WorkerInit.taskProgramKey`): it keeps them. */
  readonly programs = new Set<string>();

  constructor(
    readonly number: number,
    init: WorkerInit,
    options: HostOptions,
    /** The thread started ahead (ahead.ts), which the program's host takes instead of starting one. */
    ahead?: EvaluatorThreadAhead,
  ) {
    this.writeLock = ahead?.writeLock ?? newWriteLock();
    if (ahead) this.worker = ahead.worker;
    else {
      this.worker = new Worker(options.workerPath, { workerData: { ...init, writeLock: this.writeLock }, ...THREAD_STDIO });
      forwardStdio(this.worker);
    }
  }

  /** No task runs or waits on it: it may take any task. */
  get empty(): boolean {
    return this.tasks.size === 0;
  }

  /** Every task on it is suspended: it may take another task that shares threads. */
  get allSuspended(): boolean {
    for (const t of this.tasks.values()) if (!t.suspended) return false;
    return true;
  }

  /** Using the CPU: a task of it runs code (not blocked, not suspended, not waiting for the agent). */
  get busy(): boolean {
    if (this.ended) return false;
    for (const t of this.tasks.values()) if (t.busy) return true;
    return false;
  }

  /** The thread's channel port: one listener hands each reply to the bridges of its tasks (a think's `seq` is unique on the thread). */
  connect(hello: HelloMessage): void {
    this.hello = hello;
    for (const t of this.tasks.values()) t.bridge.attach(hello);
    hello.port.on("message", (message: ThinkReplyMessage) => {
      for (const t of this.tasks.values()) t.bridge.deliver(message);
    });
    hello.port.unref();
  }

  post(message: TaskControlMessage | { type: "go" }): void {
    if (!this.ended) this.worker.postMessage(message);
  }

  /** Stops the thread (and so every task on it), never inside a `write()` (write-lock.ts). */
  terminate(): void {
    this.ended = true;
    void terminateOutsideWrites(this.worker, this.writeLock);
  }
}

/** The program, or one worker task, on a thread. */
export class EvaluatorThread {
  readonly bridge: ThinkBridge;
  readonly shells: ShellRunner;
  readonly groups = new Map<number, Group>();
  /** Its think numbers → the run's. */
  readonly thinkIds = new Map<number, number>();
  /** Blocking requests (join, receive) it waits in. */
  blocked = 0;
  /** Suspended in a wait that freed its thread (answered with `wait-answer`). */
  suspended = false;
  /** Tasks it has delegated so far (their keys count from 1 in delegation order). */
  delegated = 0;
  ended = false;
  /** Cancelled while it ran code on a thread it shares: dropped at its next wait or its end. */
  cancelled = false;

  constructor(
    readonly id: number,
    public label: string,
    public run: TaskRun | null,
    readonly host: ThreadHost,
    options: HostOptions,
  ) {
    this.bridge = new ThinkBridge(options.agent, options.runSignal, options.emit, label);
    this.shells = new ShellRunner({ env: options.env, stdin: options.shellStdin });
    host.tasks.set(id, this);
    if (host.hello) this.bridge.attach(host.hello);
  }

  /** Using the CPU (running code): not blocked in a request, not suspended, not waiting for the agent or a command. */
  get busy(): boolean {
    return !this.ended && this.blocked === 0 && !this.suspended && !this.bridge.waiting && !this.shells.busy;
  }

  /** Answers a wait it is suspended in: the thread resumes it. */
  resume(answer: WaitAnswer): void {
    this.suspended = false;
    this.host.post({ type: "wait-answer", task: this.id, answer });
  }

  /** Answers a join, blocking (`seq`) or suspended. */
  joinReply(seq: number | null): (result: JoinResult) => void {
    return this.waitReply(seq, (result) => ({ type: "joined", result }));
  }

  /** Answers a receive, blocking (`seq`) or suspended. */
  receiveReply(seq: number | null): (result: ReceiveResult) => void {
    return this.waitReply(seq, (result) => ({ type: "received", result }));
  }

  /** A suspended wait (`seq` null) is resumed; a blocking one is answered on its channel, and counts as blocked until then. */
  private waitReply<R extends WaitAnswer>(seq: number | null, response: (result: R) => Parameters<ThinkBridge["answer"]>[1]): (result: R) => void {
    if (seq === null) return (result) => this.resume(result);
    this.blocked++;
    return (result) => {
      this.blocked--;
      this.bridge.answer(seq, response(result));
    };
  }

  /**
   * Stops everything it runs: its thinks, its shell commands, and its code. Alone on its thread,
   * the thread is stopped; suspended on a thread it shares, the thread drops it; running code on
   * a thread it shares, it is dropped at its next wait or end (`cancelled`).
   */
  stop(code: string, message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.bridge.cancelOpen(code, message);
    this.shells.killAll();
    const host = this.host;
    const others = [...host.tasks.values()].some((t) => t !== this && !t.ended);
    if (!others) {
      host.tasks.delete(this.id);
      host.terminate();
    } else if (this.suspended) {
      host.tasks.delete(this.id);
      host.post({ type: "cancel-task", task: this.id });
    } else this.cancelled = true;
  }
}

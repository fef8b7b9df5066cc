/**
 * Runs worker tasks that another run delegated (a fleet's coordinator: `patchwork worker`,
 * packages/fleet) on one pool of this process's evaluator threads, shared by all of them, as a
 * run's own tasks run: a thread is reused from task to task, each file is parsed once here (the
 * threads get its AST), each task has its own replay cassette (its journal) and its own report
 * route. The tasks a task delegates run here too.
 */
import { fileURLToPath } from "node:url";
import type { Cassette, SessionInfo, WorkerTask } from "@patchwork/interpreter";
import { newSession, removeSessionDir } from "@patchwork/interpreter/core";
import type { Diagnostic } from "@patchwork/parser";
import type { AsyncAgent, RunEvent } from "../types.js";
import type { MailboxStoreFactory } from "./mailboxes.js";
import { EvaluatorPool } from "./pool.js";
import type { ParsedModules, WorkerInit } from "./protocol.js";
import type { RootEnd } from "./scheduler.js";

export interface TaskHostOptions {
  cwd: string;
  /** The agent of every task (kept open: the caller closes it); null: thinks evaluate to their prompt. */
  agent: AsyncAgent | null;
  /** Most tasks running at once here, those the tasks delegate included. */
  maxWorkers: number;
  env?: Record<string, string | undefined>;
  /** Where the tasks' mailboxes are (default: this process's memory). */
  mailboxes?: MailboxStoreFactory;
  /** Parses a file for the threads (a file that does not parse is left to the task's thread, which reports it). */
  parse?: (text: string, fileName: string) => { program: ParsedModules[string]["program"]; diagnostics: Diagnostic[] } | null;
}

export interface HostedTask {
  spec: WorkerTask;
  /** Its worker key in the run that delegated it. */
  key: string;
  /** Answers already given to its thinks (a retried task's journal). */
  replay?: Cassette;
  /** Its run's session (`self.session`: the id and timestamp of the run; `dir` this machine's). */
  session?: SessionInfo;
  /** Tasks of one scope (one run) share mailboxes; others do not see them. */
  scope?: string;
  /** Its thinks go to this agent (its run's batch policy around the host's), default the host's. */
  agent?: AsyncAgent;
  onEvent: (event: RunEvent) => void;
  onOutput: (text: string) => void;
  signal: AbortSignal;
}

export interface HostedResult {
  end: RootEnd;
  cancelled: boolean;
}

const workerPath = fileURLToPath(new URL("./evaluator-worker.js", import.meta.url));

export class TaskHost {
  private readonly pool: EvaluatorPool;
  private readonly init: WorkerInit;
  private readonly modules: ParsedModules = {};
  private readonly runController = new AbortController();

  constructor(private readonly options: TaskHostOptions) {
    this.init = {
      source: "",
      fileName: "<fleet>",
      cwd: options.cwd,
      writeOutput: false,
      session: newSession(),
      agentMode: options.agent ? "thread" : "none",
      modules: this.modules,
      ...(options.env ? { env: options.env } : {}),
    };
    this.pool = new EvaluatorPool({
      workerPath,
      init: this.init,
      agent: options.agent,
      runSignal: this.runController.signal,
      emit: () => undefined,
      env: options.env ?? process.env,
      shellStdin: "ignore",
      maxWorkers: options.maxWorkers,
      onOutput: () => undefined,
      ...(options.mailboxes ? { mailboxes: options.mailboxes } : {}),
    });
  }

  /** Runs one task to its end (or until `signal` stops it: `cancelled`). */
  run(task: HostedTask, text?: string): Promise<HostedResult> {
    if (text !== undefined) this.parsed(task.spec.fileName, text);
    return new Promise((resolve) => {
      const run = this.pool.adopt(task.spec, task.key, {
        emit: task.onEvent,
        output: task.onOutput,
        // Set even when absent: a reused thread's init is updated in place.
        init: { replay: task.replay ? { cassette: task.replay } : undefined, session: task.session ?? this.init.session },
        ...(task.scope !== undefined ? { scope: task.scope } : {}),
        ...(task.agent ? { agent: task.agent } : {}),
        ended: (end) => {
          task.signal.removeEventListener("abort", onAbort);
          resolve({ end, cancelled: false });
        },
      });
      const onAbort = () => {
        this.pool.abandon(run, "the task was cancelled");
        resolve({ end: { kind: "crashed", message: "cancelled" }, cancelled: true });
      };
      if (task.signal.aborted) onAbort();
      else task.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The threads get this file's AST (parsed once, the first time a task of it comes). */
  private parsed(fileName: string, text: string): void {
    const known = this.modules[fileName];
    if (known?.text === text || !this.options.parse) return;
    const parsed = this.options.parse(text, fileName);
    if (parsed && !parsed.diagnostics.some((d) => d.severity === "error")) this.modules[fileName] = { text, ...parsed };
  }

  /** Stops every task and thread. */
  close(): void {
    this.runController.abort();
    this.pool.shutdown("PW4010", "the worker has stopped");
    if (this.init.session) removeSessionDir(this.init.session.dir);
  }
}

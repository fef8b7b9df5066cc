/**
 * What a task thread's init holds (local-threads.ts): the run's init less what only the program's
 * thread needs, the task, and its file's AST when the main thread has it (trimmed to what the
 * worker can call: task-program.ts), made once per worker; the code moved from local-threads.ts.
 */
import type { WorkerTask } from "@patchwork/interpreter";
import { sharesThread } from "@patchwork/interpreter/tasks";
import type { Program } from "@patchwork/parser";
import type { WorkerInit } from "./protocol.js";
import { taskProgram } from "./task-program.js";
import type { TaskRun } from "./thread-host.js";

export class TaskInits {
  /** The main program's AST, as its thread sent it with its first delegation. */
  program: Program | null | undefined;
  private taskCount = 0;

  constructor(
    private readonly options: { init: WorkerInit },
    /** A route's init of a task (local-threads.ts `TaskRoute`). */
    private readonly routed: (run: TaskRun) => Partial<WorkerInit> | undefined,
  ) {}

  /**
   * The AST of a task's file, so that its thread needs no parser: parsed ahead of the run (the
   * CLI), or the main program's as its thread sent it with its first delegation. Otherwise the
   * task's thread parses the file itself.
   */
  programOf(fileName: string): Program | undefined {
    const { init } = this.options;
    if (fileName === init.fileName && !fileName.endsWith(".json")) return init.parsed?.program ?? this.program ?? undefined;
    const module = init.modules?.[fileName];
    return module && !module.diagnostics.some((d) => d.severity === "error") ? module.program : undefined;
  }

  taskInit(run: TaskRun): WorkerInit {
    const program = this.taskProgramOf(run.spec);
    const key = program ? `${run.spec.fileName}\0${run.spec.worker}` : undefined;
    const task: WorkerInit = { ...this.standbyInit(), task: run.spec, taskProgram: program, taskProgramKey: key, worker: run.key, taskId: ++this.taskCount };
    // (Every key of a route's init is set, to undefined if need be: a reused thread's init is updated in place.)
    const routed = this.routed(run);
    if (routed) Object.assign(task, routed);
    // A thread given the AST never reads the program's text (a copy per task otherwise: 0.3 MB each for a 300 KB program).
    if (program) task.source = "";
    return task;
  }

  /** Each worker's AST without the functions it can never call (task-program.ts), made once per worker. */
  private readonly taskPrograms = new Map<string, { program: Program; shares: boolean | undefined }>();
  taskProgramOf(spec: WorkerTask): Program | undefined {
    const key = `${spec.fileName}\0${spec.worker}`;
    let trimmed = this.taskPrograms.get(key);
    if (!trimmed) {
      const program = this.programOf(spec.fileName);
      if (!program) return undefined;
      this.taskPrograms.set(key, (trimmed = { program: taskProgram(program, spec.worker), shares: undefined }));
    }
    return trimmed.program;
  }

  /** Whether tasks of this worker may share a thread (decision 0016; imports are not looked into). */
  sharesOf(spec: WorkerTask): boolean {
    const entry = this.taskPrograms.get(`${spec.fileName}\0${spec.worker}`);
    if (!entry) return false;
    entry.shares ??= !entry.program.body.some((item) => item.kind === "Import") && sharesThread(entry.program);
    return entry.shares;
  }

  /** What every task thread's init shares (a task's adds the task). */
  standbyInit(): WorkerInit {
    return {
      ...this.options.init,
      entry: undefined,
      argStrings: undefined,
      args: undefined,
      entryMayBeArgument: undefined,
      parsed: undefined,
      gated: undefined,
      standby: undefined,
      lineBuffered: true,
      // A task thread never reads the terminal: `ask` goes to the agent.
      askUser: false,
    };
  }
}

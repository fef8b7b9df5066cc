/**
 * The evaluator thread. Runs the synchronous interpreter; its `Agent` sends each
 * ThinkRequest to the main thread with a fresh response channel and blocks on it,
 * receiving `Do` any number of times, then `Complete` (seeds: `eval_think_block`):
 * thread-agent.ts. What it sends goes through thread-port.ts; its host's output and events
 * through thread-output.ts. This module loads the interpreter and runs programs and tasks.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { AgentError as AgentErrorClass } from "@patchwork/interpreter";
import type { Agent, DelegateNote, JsonValue, Workers, Host, PwEvent, WriteGuard } from "@patchwork/interpreter";
// Statically: a dynamic import of the entry the CLI's run path also imports makes the bundler
// split out an empty chunk that every `patchwork run` would then load.
import {
  AgentError as CoreAgentError,
  CassetteAgent,
  countThinks,
  countThreadbareThinks,
  createNodeHost,
  importedFiles,
  importedModule,
  moduleDir,
  NoAgent,
  runParsed,
  type ParseFn,
  type RunOptions,
  type RunResult,
} from "@patchwork/interpreter/core";
import { runTaskResumable, type Resumable } from "@patchwork/interpreter/tasks";
import type { Diagnostic, Program } from "@patchwork/parser";
import { ThreadAgent, ThreadWorkers } from "./thread-agent.js";
import { InThreadDelegates, type DelegateEvent } from "../progress/labels.js";
import { LineBuffer, wrapHost } from "./thread-output.js";
import { outbox, post, queue, slots } from "./thread-port.js";
import { writeGuardOf } from "./write-lock.js";
import type {
  GoMessage,
  NextTaskMessage,
  ParsedModules,
  TaskControlMessage,
  RunOutcome,
  SessionEntry,
  SessionRunMessage,
  WorkerInit,
} from "./protocol.js";

/** The interpreter API this thread needs (checked at run time: the interpreter may lag behind). */
interface EvaluatorModule {
  run(
    source: string,
    options: {
      fileName: string;
      agent: Agent;
      host: Host;
      cwd: string;
      entry?: string;
      limits?: Record<string, number>;
      askUser?: boolean;
      argStrings?: WorkerInit["argStrings"];
      args?: JsonValue[];
      checkTypes?: boolean;
      statements?: boolean;
      entryMayBeArgument?: boolean;
      workers?: Workers;
      program?: unknown;
    },
  ): { value?: unknown; output?: string; diagnostics?: RunOutcome["diagnostics"]; thrown?: JsonValue; entry?: string };
  /** A worker task in resumable form (decision 0016): only the parser-free core given the task's AST has it. */
  runTask?(options: RunOptions): Resumable<RunResult>;
  /** The no-agent agent (`agentMode: "none"`). */
  NoAgent?: new () => Agent;
  /** The interpreter's error class for agent failures (thrown from `think`). */
  AgentError?: typeof AgentErrorClass;
  /** The replaying agent (`--replay-missing=agent`). */
  CassetteAgent?: new (cassette: NonNullable<WorkerInit["replay"]>["cassette"], options: { fallback?: Agent; fileName?: string }) => Agent;
  createNodeHost?(options: { cwd: string; shellStdin?: "ignore" | "inherit"; env?: Record<string, string | undefined>; writeGuard?: WriteGuard }): Host;
  /** A REPL session (`WorkerInit.session`): each program continues the ones before it. */
  createSession?(options: { agent: Agent; host: Host; cwd: string; limits?: Record<string, number>; askUser?: boolean; onDelegate?: (note: DelegateNote) => void }): {
    run(source: string, options: { fileName: string; main?: SessionEntry }): { value?: unknown; output?: string; diagnostics?: RunOutcome["diagnostics"]; entry?: string };
  };
}

async function main(): Promise<void> {
  // A task thread may run several tasks one after another (pool.ts reuses threads): `init` is
  // then updated in place, so that the host's wrappers read the current task's worker.
  const init = { ...(workerData as WorkerInit) };
  // Listening from the start: `go` may come while the interpreter still loads.
  const go = init.gated ? goMessage() : null;
  let mod = (init.evaluatorModule === undefined ? await loadInterpreter(init) : await import(init.evaluatorModule)) as Partial<EvaluatorModule>;
  if (typeof mod.run !== "function" || typeof mod.createNodeHost !== "function") {
    post({ type: "failed", message: `${init.evaluatorModule ?? "@patchwork/interpreter"} does not export run() and createNodeHost()` });
    return;
  }
  // The evaluator module's own class (the interpreter exports it), so that `instanceof` holds there.
  const agent = new ThreadAgent(mod.AgentError ?? (await import("@patchwork/interpreter")).AgentError);
  const output: string[] = [];
  const base = mod.createNodeHost({
    cwd: init.cwd,
    ...(init.shellStdin ? { shellStdin: init.shellStdin } : {}),
    ...(init.env ? { env: init.env } : {}),
    ...(init.writeLock ? { writeGuard: writeGuardOf(init.writeLock) } : {}),
  });
  outbox.writeStdout = (text) => base.write(text);
  const lines = init.lineBuffered
    ? new LineBuffer((text) => {
        queue({ type: "output", text });
        if (init.writeOutput) outbox.write(text);
      })
    : null;
  const host = wrapHost(base, init, agent, output, lines);
  if (init.repl) {
    if (typeof mod.createSession !== "function") {
      post({ type: "failed", message: `${init.evaluatorModule ?? "@patchwork/interpreter"} does not export createSession()` });
      return;
    }
    const session = mod.createSession({
      agent,
      host,
      cwd: init.cwd,
      ...(init.limits !== undefined ? { limits: init.limits } : {}),
      ...(init.askUser ? { askUser: true } : {}),
      // Its workers run in this thread: their groups' progress goes out as the pool's would.
      onDelegate: new InThreadDelegates((event) => (host.event as (e: PwEvent | DelegateEvent) => void)(event)).note,
    });
    // Programs arrive one at a time (the main thread waits for each `done`); between them
    // this thread idles in its event loop, the session's state kept.
    parentPort!.on("message", (message: SessionRunMessage) => {
      output.length = 0;
      const result = session.run(message.source, { fileName: message.fileName, main: message.main });
      lines?.flush();
      agent.releaseIdle();
      post({ type: "done", runId: message.runId, outcome: outcomeOf(result, output) });
    });
    post({ type: "ready" });
    return;
  }
  if (init.task || init.standby) {
    parentPort!.on("message", (message: NextTaskMessage | TaskControlMessage) => {
      if (message.type === "wait-answer") return slots.answer(message.task, message.answer);
      if (message.type === "cancel-task") return slots.cancel(message.task);
      if (message.type !== "next-task") return;
      void (async () => {
        const next = withTaskProgram({ ...init, ...message.init });
        message.init.taskProgram = next.taskProgram;
        if (next.evaluatorModule === undefined) mod = (await loadInterpreter(next)) as Partial<EvaluatorModule>;
        if (startResumable(mod as EvaluatorModule, next, agent, base)) return;
        Object.assign(init, message.init);
        output.length = 0;
        await runProgram(mod as EvaluatorModule, init, agent, base, host, lines, output);
      })();
    });
  }
  withTaskProgram(init);
  // A thread started ahead of any task (pool.ts) waits for its first `next-task`.
  if (init.standby) return;
  if (init.task && startResumable(mod as EvaluatorModule, { ...init }, agent, base)) return;
  await runProgram(mod as EvaluatorModule, init, agent, base, host, lines, output, go);
}

/** The task programs this thread was given, by `taskProgramKey`. */
const taskPrograms = new Map<string, Program>();

/** A task's init with its program: as given (then kept), or kept from an earlier task of its worker. */
function withTaskProgram(init: WorkerInit): WorkerInit {
  const key = init.taskProgramKey;
  if (key === undefined) return init;
  if (init.taskProgram) taskPrograms.set(key, init.taskProgram);
  else init.taskProgram = taskPrograms.get(key);
  return init;
}

/**
 * A task of a worker whose tasks share threads (pool.ts) runs in resumable form beside the
 * thread's other tasks (task-slots.ts), with its own output lines; false when this thread
 * cannot run it so (it then runs the ordinary way).
 */
function startResumable(mod: EvaluatorModule, init: WorkerInit, agent: ThreadAgent, base: Host): boolean {
  const task = init.task;
  if (typeof mod.runTask !== "function" || !task || !init.taskProgram || init.taskId === undefined) return false;
  const thinker = thinkerFor(mod, init, agent);
  if (!thinker) return true;
  const output: string[] = [];
  if (init.replay) outbox.hold();
  const lines = new LineBuffer((text) => {
    queue({ type: "output", text });
    if (init.writeOutput) outbox.write(text);
  });
  const host = wrapHost(base, init, agent, output, lines);
  const steps = mod.runTask({
    fileName: task.fileName,
    agent: thinker,
    host,
    cwd: init.cwd,
    entry: task.worker,
    args: task.args,
    statements: false,
    ...(init.limits !== undefined ? { limits: init.limits } : {}),
    ...(init.session ? { workers: new ThreadWorkers(agent, init.session) } : {}),
  });
  slots.start(init.taskId, steps, (result) => {
    lines.flush();
    agent.releaseIdle();
    post({ type: "done", outcome: outcomeOf(result, output) });
  });
  return true;
}

/** The agent a run's thinks go to (the thread's, none, a cassette), naming the task's worker; null when it cannot be made (`failed` said why). */
function thinkerFor(mod: EvaluatorModule, init: WorkerInit, agent: ThreadAgent): Agent | null {
  const noAgent = init.agentMode === "none" && mod.NoAgent ? new mod.NoAgent() : null;
  let thinker: Agent = noAgent ?? agent;
  if (init.replay) {
    if (typeof mod.CassetteAgent !== "function") {
      post({ type: "failed", message: `${init.evaluatorModule ?? "@patchwork/interpreter"} does not export CassetteAgent (needed to replay)` });
      return null;
    }
    // Without an agent (`--replay` of a program with workers) a think the cassette lacks is an
    // error (PW3032/PW3033), never the no-agent prompt; with one (`--resume`) the agent answers it.
    thinker = new mod.CassetteAgent(init.replay.cassette, { ...(noAgent ? {} : { fallback: thinker }), fileName: init.replay.fileName });
  }
  return init.worker !== undefined ? withWorker(thinker, init.worker) : thinker;
}

/** Resolves when the main thread says `go` (a `gated` thread: the agent has started). */
function goMessage(): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (message: GoMessage) => {
      if (message?.type !== "go") return;
      parentPort!.off("message", onMessage);
      resolve();
    };
    parentPort!.on("message", onMessage);
  });
}

/** Runs the thread's program (or its task) and says `done` with its outcome. */
async function runProgram(
  mod: EvaluatorModule,
  init: WorkerInit,
  agent: ThreadAgent,
  base: Host,
  host: Host,
  lines: LineBuffer | null,
  output: string[],
  go: Promise<void> | null = null,
): Promise<void> {
  const thinker = thinkerFor(mod, init, agent);
  if (!thinker) return;
  const workers =
    init.session ? new ThreadWorkers(agent, init.session) : undefined;
  const task = init.task;
  // The program's thread parses its program itself when it has workers (so that the first
  // delegation hands the AST to the main thread, pool.ts, and task threads need no parser) or
  // while it waits for the agent; unless the caller parsed it (`init.parsed`).
  const parsedAhead = !task && init.parsed && !hasErrors(init.parsed.diagnostics) ? init.parsed : undefined;
  const parsesOwn = !task && !init.parsed && Boolean(workers || go) && !init.repl && init.evaluatorModule === undefined;
  // The parser-free core (loadInterpreter) reports the parse's warnings itself; the full interpreter given an AST does not.
  const own =
    parsedAhead && !(mod as { parsedAhead?: boolean }).parsedAhead
      ? { program: parsedAhead.program, warnings: parsedAhead.diagnostics.map((d) => ({ ...d, fileName: d.fileName ?? init.fileName })) }
      : parsesOwn
        ? await parseOwn(init)
        : null;
  if (workers && !task) workers.program = own?.program ?? parsedAhead?.program;
  // Before it waits for the agent: whether it will think (the agent then makes a session ahead).
  const program = own?.program ?? parsedAhead?.program;
  if (!task && !init.hinted && init.agentMode !== "none" && !init.replay && (program || (go && init.fileName.endsWith(".json")))) {
    const programs = program ? [program, ...Object.values(init.modules ?? {}).map((m) => m.program)] : [];
    const thinks = program
      ? programs.reduce((n, p) => n + countThinks(p, { asks: !init.askUser }), 0)
      : countThreadbareThinks(init.source);
    if (thinks > 0) post({ type: "thinks-ahead", thinks });
  }
  // A program that does not parse runs nothing: its errors need not wait for the agent.
  const parseFailed = (parsesOwn && own === null && !init.fileName.endsWith(".json")) || hasErrors(init.parsed?.diagnostics);
  if (go && !parseFailed) await go;
  // A task's messages name it (a thread may carry other tasks, suspended: pool.ts).
  slots.current = init.taskId;
  if (init.replay && !init.repl) outbox.hold();
  const result = mod.run(task && init.fileName !== task.fileName ? base.readFile(task.fileName) : init.source, {
    fileName: task ? task.fileName : init.fileName,
    agent: thinker,
    host,
    cwd: init.cwd,
    ...(task ? { entry: task.worker, args: task.args, statements: false } : {}),
    ...(task && init.taskProgram ? { program: init.taskProgram } : {}),
    ...(own ? { program: own.program } : {}),
    ...(!task && init.entry !== undefined ? { entry: init.entry } : {}),
    ...(!task && init.argStrings ? { argStrings: init.argStrings } : {}),
    ...(!task && init.args ? { args: init.args, checkTypes: true } : {}),
    ...(!task && init.entryMayBeArgument ? { entryMayBeArgument: true } : {}),
    ...(init.limits !== undefined ? { limits: init.limits } : {}),
    ...(init.askUser ? { askUser: true } : {}),
    ...(workers ? { workers } : {}),
  });
  lines?.flush();
  agent.releaseIdle();
  // The parse's warnings first, as run() gives them when it parses.
  if (own && own.warnings.length > 0) result.diagnostics = [...own.warnings, ...(result.diagnostics ?? [])];
  post({ type: "done", outcome: outcomeOf(result, output) });
  slots.current = undefined;
}

/** The program parsed, with its warnings; null when it has errors (run() parses and reports them) or is Threadbare JSON. */
async function parseOwn(init: WorkerInit): Promise<{ program: Program; warnings: Diagnostic[] } | null> {
  if (init.fileName.endsWith(".json")) return null;
  const { parse } = await import("@patchwork/parser");
  const r = parse(init.source, { fileName: init.fileName });
  if (r.diagnostics.some((d) => d.severity === "error")) return null;
  return { program: r.program, warnings: r.diagnostics.map((d) => ({ ...d, fileName: d.fileName ?? init.fileName })) };
}

/** Every think request names the task's worker (a cassette keys its recordings by worker and ordinal). */
function withWorker(agent: Agent, worker: string): Agent {
  const think: Agent["think"] = (request, runChild) => agent.think({ ...request, worker }, runChild);
  if (!agent.defer) return { think };
  return { think, defer: (request) => agent.defer!({ ...request, worker }) };
}

/**
 * The interpreter. A thread given its program's AST (the program's thread: `init.parsed`; a
 * task: `init.taskProgram`) whose imports were all parsed ahead (`init.modules`), or that has
 * none, needs no parser: it runs on the parser-free core, which saves most of a thread's
 * start-up (Chevrotain and the parser). Else the full interpreter, by a literal specifier so
 * that a bundler includes it.
 */
async function loadInterpreter(init: WorkerInit): Promise<unknown> {
  if (init.standby) {
    // No task yet: the core, for its host and error class (the task's own comes with it).
    const run = () => {
      throw new Error("this thread has no task yet");
    };
    return { run, AgentError: CoreAgentError, NoAgent, CassetteAgent, createNodeHost };
  }
  const parsed = init.task ? (init.taskProgram ? { program: init.taskProgram, diagnostics: [] } : undefined) : init.parsed;
  const fileName = init.task ? init.task.fileName : init.fileName;
  if (parsed && !init.repl && allParsed(parsed.program, fileName, init.cwd, init.modules ?? {})) {
    const modules = init.modules ?? {};
    const parseModule: ParseFn = (source, name) => {
      const known = modules[name];
      // Only when a file changed on disk while the program ran.
      if (!known || known.text !== source) return { program: null, error: `${name} changed while the program ran; run it again` };
      return importedModule(known, name);
    };
    const run = (_source: string, options: RunOptions) => runParsed(parsed.program, parsed.diagnostics, options, parseModule);
    const runTask = init.task ? (options: RunOptions) => runTaskResumable(parsed.program, parsed.diagnostics, options, parseModule) : undefined;
    return { run, runTask, AgentError: CoreAgentError, NoAgent, CassetteAgent, createNodeHost, parsedAhead: true };
  }
  return import("@patchwork/interpreter");
}

/** Whether every file `program`'s imports load (transitively) is in `modules`. */
function allParsed(program: Program, fileName: string, cwd: string, modules: ParsedModules): boolean {
  const seen = new Set<string>();
  const queue = importedFiles(program, moduleDir(fileName, cwd));
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const module = modules[path];
    if (!module) return false;
    queue.push(...importedFiles(module.program, moduleDir(path, cwd)));
  }
  return true;
}

function hasErrors(diagnostics: Diagnostic[] | undefined): boolean {
  return diagnostics?.some((d) => d.severity === "error") ?? false;
}

function outcomeOf(
  result: { value?: unknown; thrown?: JsonValue; output?: string; diagnostics?: RunOutcome["diagnostics"]; entry?: string },
  output: string[],
): RunOutcome {
  return {
    value: toJson(result.value),
    ...(result.thrown !== undefined ? { thrown: result.thrown } : {}),
    ...(typeof result.entry === "string" ? { entry: result.entry } : {}),
    output: typeof result.output === "string" ? result.output : output.join(""),
    diagnostics: result.diagnostics ?? [],
  };
}

main().catch((error: unknown) => {
  post({
    type: "failed",
    message: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
});

function toJson(value: unknown): RunOutcome["value"] {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as RunOutcome["value"];
  } catch {
    return String(value);
  }
}

/**
 * `runWithAgent`: runs a program on the evaluator thread with an asynchronous agent (an
 * ACP agent command or any `AsyncAgent`), forwards progress events, and owns cancellation:
 * a signal or the run timeout cancels the agent's turns, kills its process group and
 * terminates the evaluator thread (which also stops a program stuck in a loop).
 */
import { setMaxListeners } from "node:events";
import { fileURLToPath } from "node:url";
import type { Cassette, JsonValue, RecordingSummary } from "@patchwork/interpreter";
import type { Diagnostic, Program } from "@patchwork/parser";
import type { AcpAgentOptions } from "../acp/agent.js";
import type { AgentProcess } from "../acp/process.js";
import type { RecyclingAgent } from "../acp/recycling.js";
import { agentError, AgentCodes, toAgentError } from "../errors.js";
import type { AsyncAgent, Logger, McpTransport, PermissionAnswer, PermissionPolicy, PermissionQuestion, RunEvent } from "../types.js";
import { countThinks, countThreadbareThinks, newSession, removeSessionDir } from "@patchwork/interpreter/core";
import type { EvaluatorThreadAhead } from "./ahead.js";
import { EvaluatorPool, TASKS_PER_THREAD } from "./pool.js";
import type { ParsedModules, WorkerInit } from "./protocol.js";
import type { TraceWriter } from "../trace/writer.js";
import { recorded } from "./record.js";
import { BudgetGate, BUDGET_EXIT_STATUS, type BudgetLimits, type BudgetStop } from "../batch/budget.js";
import { RunTotalsCounter, type RunTotals } from "../batch/totals.js";
import { withBatchPolicy, type BatchPolicyOptions } from "../batch/policy.js";
import { genericTransient } from "../batch/transient.js";
import type { TaskSchedulerFactory } from "./scheduler.js";
import type { MailboxStoreFactory } from "./mailboxes.js";

export interface RunWithAgentOptions {
  source: string;
  fileName: string;
  /** The program's working directory (absolute). Default `process.cwd()`. */
  cwd?: string;
  entry?: string;
  limits?: Record<string, number>;
  /**
   * An ACP agent to spawn (`{command: "…"}`), any `AsyncAgent` object, or null: no agent
   * (thinks evaluate to their prompt, as with the interpreter's `run`; worker tasks still
   * run on threads of their own).
   */
  agent: AcpAgentOptions | AsyncAgent | null;
  /** `entry` may be the default entry's first argument instead (`patchwork run greeter.pw Alice`). */
  entryMayBeArgument?: boolean;
  /** Arguments for the entry as command-line text, converted to its parameter types. */
  argStrings?: { positional?: string[]; named?: Record<string, string> };
  /** Arguments for the entry as data (an MCP tool call's), checked against its parameter types (PW3065). */
  args?: JsonValue[];
  /** Most worker tasks running at once (default 8); the rest wait in a queue. */
  maxWorkers?: number;
  /**
   * Most evaluator threads using the CPU at once before another task starts (default: the
   * machine's cores); threads blocked in a think, a shell command, `await` or `receive` do not
   * count. See docs/workers.md, "Scheduling".
   */
  cpuSlots?: number;
  /** A queued task waiting for a CPU slot starts anyway after this long without any task starting (default 500 ms). */
  starvedMs?: number;
  /** Keep `self.session.dir` after the run (default: removed). */
  keepSession?: boolean;
  /** For ACP agents: `auto` (default), `http`, `stdio` or `acp`. */
  mcpTransport?: McpTransport | "auto";
  permissions?: PermissionPolicy | { do?: PermissionPolicy; other?: PermissionPolicy };
  askPermission?: (question: PermissionQuestion) => Promise<PermissionAnswer>;
  /**
   * Batch policy around every think (docs/agent.md "Retries", "The governor"): retries of
   * transient failures with backoff, the `rate` cap, adaptive concurrency, holding new sessions
   * while the machine is saturated. Absent: none of it (each think is asked once).
   */
  batch?: BatchPolicyOptions;
  /** Cancel the whole run after this long. */
  timeoutMs?: number;
  /** Per-think limits for ACP agents (see `AcpAgentOptions`). */
  thinkIdleTimeoutMs?: number;
  thinkTimeoutMs?: number;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  /**
   * Write program output to this process's stdout/stderr as it happens, from the evaluator
   * thread (default true). With `false`, output reaches `onOutput` and `log(...)` text arrives
   * as `log` events, in program order, on the main thread (e.g. to clear a spinner first).
   */
  writeOutput?: boolean;
  /** Program output (stdout) as it is produced, delivered on the main thread. */
  onOutput?: (text: string) => void;
  logger?: Logger;
  /** `ask` blocks read a line from the terminal (`host.readLine`) instead of asking the agent. */
  askUser?: boolean;
  /** Standard input of the program's shell commands (default "ignore"). */
  shellStdin?: "ignore" | "inherit";
  /** Environment for `env()` and shell commands (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Module with `run` and `createNodeHost` for the evaluator thread (default the interpreter). */
  evaluatorModule?: string;
  /**
   * Write a trace of the run (docs/trace.md): `run-start`, every event, the diagnostics and
   * `run-end`. The writer is closed when the run ends.
   */
  trace?: TraceWriter;
  /**
   * Answer thinks from a cassette (docs/replay.md) where it has a matching recording; the
   * agent answers the others (`--replay-missing=agent`). Record with `onEvent` and a
   * `CassetteRecorder`.
   */
  replay?: { cassette: Cassette; fileName?: string };
  /**
   * Record a cassette to `path` as the run goes (docs/replay.md): each think's entry is written
   * when the think ends, so a killed run loses at most the thinks under way. `resume`: first
   * read what `path` holds (up to its last whole entry; nothing if there is no such file),
   * replay those answers, ask the agent the rest and append them (`patchwork run --resume`).
   * The result's `recording` says how many thinks were replayed and asked live.
   */
  record?: { path: string; resume?: boolean };
  /**
   * The program already parsed, with every file its imports load (the CLI's parse cache): the
   * program's thread and its task threads then load no parser. A function is called once the
   * agent's start is under way, so that parsing and the agent's start overlap.
   */
  parsed?: ParsedProgram | (() => Promise<ParsedProgram | undefined>);
  /**
   * An evaluator thread started ahead (`new EvaluatorThreadAhead({cwd})`, while the caller got
   * the run ready): a replay's program runs on it, its start already done. A run that holds its
   * thread for the agent (no replay), or whose cwd, env or shellStdin differ, stops it instead.
   */
  evaluatorThread?: EvaluatorThreadAhead;
  /**
   * Stop the run before a think that would pass one of these limits (batch/budget.ts): the
   * result then has exit code 3 and `budgetStop`. Replayed thinks count for nothing.
   */
  budget?: BudgetLimits;
  /** Where the program's worker tasks run (scheduler.ts), and its mailboxes are (default: this process). */
  scheduler?: TaskSchedulerFactory;
  mailboxes?: MailboxStoreFactory;
}

/** A program's AST and parse diagnostics, and those of every file its imports load (by path). */
export interface ParsedProgram {
  program: Program;
  diagnostics: Diagnostic[];
  modules: ParsedModules;
}

export interface RunWithAgentResult {
  ok: boolean;
  /** 0 success, 1 program or agent error (a run timeout too), 3 stopped at its budget (`budget`), 130 cancelled by the signal. */
  exitCode: number;
  value: JsonValue | null;
  output: string;
  diagnostics: Diagnostic[];
  cancelled: boolean;
  /** The entry the run called (`value` is its return value), when it called one (docs/embedding.md). */
  entry?: string;
  /** With `record`: what the cassette got (`kept`: entries read from it to resume; `cut`: it ended inside an entry). */
  recording?: RecordingSummary & { kept: number; cut: boolean };
  /** What the run asked and spent (batch/totals.ts); also the last event, `run-totals`. */
  totals?: RunTotals;
  /** The run stopped at its budget (`budget`): exit code 3. */
  budgetStop?: BudgetStop;
}

const workerPath = fileURLToPath(new URL("./evaluator-worker.js", import.meta.url));
/** No place in the program (the agent failed to start, the run was cancelled…): line 0, shown without a position or caret. */
const START: Diagnostic["span"] = { start: { offset: 0, line: 0, column: 0 }, end: { offset: 0, line: 0, column: 0 } };

function isAsyncAgent(agent: AcpAgentOptions | AsyncAgent | null): agent is AsyncAgent | null {
  return agent === null || typeof (agent as AsyncAgent).think === "function";
}

export async function runWithAgent(options: RunWithAgentOptions): Promise<RunWithAgentResult> {
  try {
    if (options.record) return await recorded(options, options.record, traced);
    return await traced(options);
  } finally {
    options.evaluatorThread?.discard(); // (unless the run took it)
  }
}

async function traced(options: RunWithAgentOptions): Promise<RunWithAgentResult> {
  const cwd = options.cwd ?? process.cwd();
  const trace = options.trace;
  if (!trace) return run(options, cwd);
  trace.start({
    program: options.fileName,
    cwd,
    agent: options.agent === null ? null : isAsyncAgent(options.agent) ? "(an AsyncAgent object)" : commandText(options.agent.command),
    mode: options.replay ? "replay" : options.agent === null ? "no-agent" : "agent",
  });
  const onEvent = options.onEvent;
  let result: RunWithAgentResult | undefined;
  try {
    result = await run(
      {
        ...options,
        onEvent: (event) => {
          trace.handle(event);
          onEvent?.(event);
        },
      },
      cwd,
    );
    return result;
  } finally {
    if (result) trace.end(result);
    else trace.close();
  }
}

function commandText(command: AcpAgentOptions["command"]): string {
  return typeof command === "string" ? command : [command.command, ...(command.args ?? [])].join(" ");
}

async function run(options: RunWithAgentOptions, cwd: string): Promise<RunWithAgentResult> {
  // What the run asks and spends, counted from its events; the budget's gate around each think.
  const totals = new RunTotalsCounter({ replay: options.replay !== undefined });
  const emit = (event: RunEvent) => {
    totals.apply(event);
    gate.observe(event);
    try {
      options.onEvent?.(event);
    } catch (error) {
      options.logger?.warn(`onEvent threw: ${String(error)}`);
    }
  };
  const gate = new BudgetGate(options.budget ?? {}, totals, emit);
  const batch: Batch = { totals, gate };
  if (options.signal?.aborted) {
    if (!isAsyncAgent(options.agent)) options.agent.process?.killNow(); // spawned early by the caller
    return failure(options, AgentCodes.cancelled, "the run was cancelled before it started", true);
  }

  if (isAsyncAgent(options.agent)) {
    const agent = options.agent;
    try {
      return await evaluate(options, cwd, emit, await parsedOf(options), agent ? { agent, starting: null } : null, batch);
    } finally {
      await agent?.close?.();
    }
  }

  // The agent process starts while the program's thread loads the interpreter and the program
  // is parsed (here, or in that thread): the thread runs nothing until the agent is up, so a
  // program never acts before its agent has started, and neither waits for the other. A replay
  // (`--resume`, `--replay-missing=agent`) is not held: its thread starts first, then the agent
  // process (unless the caller spawned it) and the ACP runtime (the ACP and MCP SDKs and zod,
  // imported here rather than with this module: the heaviest code a run loads) load while the
  // replayed thinks run, which need no agent.
  const acpOptions = options.agent;
  const startAbort = new AbortController();
  let acpAgent: RecyclingAgent | null = null;
  let spawned = acpOptions.process;
  // A run cancelled before its agent is up (Ctrl-C while it starts) kills the process at once,
  // without waiting for the runtime to load only to abandon the start.
  const onRunAbort = () => {
    startAbort.abort();
    if (!acpAgent) spawned?.killNow();
  };
  options.signal?.addEventListener("abort", onRunAbort, { once: true });
  let loadRuntime!: () => void;
  const loading = new Promise<void>((resolve) => (loadRuntime = resolve));
  const starting = loading
    .then(async () => {
      // (`node:child_process` with it: a replay's start-up does not load it.)
      const processModule = spawned ? null : await import("../acp/process.js");
      if (startAbort.signal.aborted) {
        spawned?.killNow(); // spawned early by the caller: nothing will take it over
        throw agentError(AgentCodes.cancelled, "the run ended before its agent started");
      }
      // The agent starts before its runtime loads (its stderr is kept until the runtime listens).
      spawned ??= new processModule!.AgentProcess(acpOptions.command, { cwd, ...(acpOptions.env ? { env: acpOptions.env } : {}) });
      return import("../acp/recycling.js");
    })
    .then(({ RecyclingAgent }) =>
      RecyclingAgent.start({
        cwd,
        startSignal: startAbort.signal,
        mcpTransport: options.mcpTransport,
        permissions: options.permissions,
        askPermission: options.askPermission,
        thinkIdleTimeoutMs: options.thinkIdleTimeoutMs,
        thinkTimeoutMs: options.thinkTimeoutMs,
        logger: options.logger,
        ...acpOptions,
        process: spawned,
        onEvent: (event) => {
          acpOptions.onEvent?.(event);
          emit(event);
        },
      }),
    )
    .then((started) => (acpAgent = started));
  starting.catch(() => undefined);
  if (!options.replay) loadRuntime();
  const killOnExit = () => (acpAgent?.process ?? spawned)?.killNow();
  process.once("exit", killOnExit);
  try {
    const parsed = await parsedOf(options);
    // Sessions for the program's thinks are asked for as soon as the agent is up, not once the
    // program's thread has started and counted them (that thread's start can take longer).
    const thinks = thinksInText(options, parsed);
    const agent = lateAgent(starting, loadRuntime);
    const load = options.replay ? { loadRuntime } : {};
    if (thinks !== null) {
      if (thinks > 0) void starting.then((agent) => agent.prepare({ thinks }), () => undefined);
      return await evaluate(options, cwd, emit, parsed, { agent, starting, hinted: true, ...load }, batch);
    }
    return await evaluate(options, cwd, emit, parsed, { agent, starting, ...load }, batch);
  } finally {
    options.signal?.removeEventListener("abort", onRunAbort);
    loadRuntime(); // (no-op once called) a replay that ended first: the start settles, abandoned
    if (acpAgent) await starting.then((started) => started.close(), () => undefined);
    else {
      // A run that ended before its agent was up (a syntax error, Ctrl-C) abandons the start:
      // its process goes now, whatever stage the start had reached (the runtime still loading,
      // `initialize` unanswered), and the start settles on its own, killing nothing more.
      startAbort.abort();
      spawned?.killNow();
      void starting.then((started) => started.close(), () => undefined);
    }
    process.off("exit", killOnExit);
  }
}

/**
 * How many think blocks the program's text (with its imports) holds, when the main thread
 * knows it: parsed by the caller without errors, or a Threadbare JSON program; null otherwise
 * (the program's thread counts them: `thinks-ahead`). None with a cassette (it answers them).
 */
function thinksInText(options: RunWithAgentOptions, parsed: ParsedProgram | undefined): number | null {
  if (options.replay) return null;
  const asks = !options.askUser;
  if (parsed && !parsed.diagnostics.some((d) => d.severity === "error")) {
    const programs = [parsed.program, ...Object.values(parsed.modules).map((m) => m.program)];
    return programs.reduce((n, program) => n + countThinks(program, { asks }), 0);
  }
  if (!parsed && options.fileName.endsWith(".json")) return countThreadbareThinks(options.source);
  return null;
}

/** The program, parsed by the caller (the CLI's parse cache), if it was. */
async function parsedOf(options: RunWithAgentOptions): Promise<ParsedProgram | undefined> {
  const parsed = options.parsed;
  return typeof parsed === "function" ? await parsed() : parsed;
}

/**
 * Thinks wait for the agent's start (none comes before it: the program's thread is held until
 * then, unless it replays; a replay's first think the cassette lacks starts it, if nothing did).
 */
function lateAgent(starting: Promise<AsyncAgent>, load: () => void): AsyncAgent {
  return {
    think: (request, runChild, signal, context) => (load(), starting.then((agent) => agent.think(request, runChild, signal, context))),
    // Sessions are made ahead as soon as the agent is up (the hint comes while it starts).
    prepare: (hint) => void starting.then((agent) => agent.prepare?.(hint), () => undefined),
  };
}

function failure(options: RunWithAgentOptions, code: string, message: string, cancelled = false): RunWithAgentResult {
  return {
    ok: false,
    exitCode: cancelled ? 130 : 1,
    value: null,
    output: "",
    diagnostics: [{ code, severity: "error", message, span: START, fileName: options.fileName }],
    cancelled,
  };
}

interface RunAgent {
  agent: AsyncAgent;
  /** An ACP agent still starting: the program's thread is held until it is up; a failed start fails the run. */
  starting: Promise<RecyclingAgent> | null;
  /** The agent has been told how many thinks the program holds (the program's thread does not tell it again). */
  hinted?: boolean;
  /** A replay's: starts the agent and loads its runtime (at the program's first event). */
  loadRuntime?: () => void;
}

/** The run's totals and its budget's gate (batch/). */
interface Batch {
  totals: RunTotalsCounter;
  gate: BudgetGate;
}

function evaluate(
  options: RunWithAgentOptions,
  cwd: string,
  emit: (event: RunEvent) => void,
  parsed: ParsedProgram | undefined,
  runAgent: RunAgent | null,
  { totals, gate }: Batch,
): Promise<RunWithAgentResult> {
  const session = newSession();
  const starting = runAgent?.starting ?? null;
  /** The ACP agent, once started. */
  let started: RecyclingAgent | null = null;
  const init: WorkerInit = {
    source: options.source,
    fileName: options.fileName,
    cwd,
    entry: options.entry,
    ...(options.argStrings ? { argStrings: options.argStrings } : {}),
    ...(options.args ? { args: options.args } : {}),
    ...(options.entryMayBeArgument ? { entryMayBeArgument: true } : {}),
    limits: options.limits,
    writeOutput: options.writeOutput ?? true,
    askUser: options.askUser,
    shellStdin: options.shellStdin,
    env: options.env,
    evaluatorModule: options.evaluatorModule,
    session,
    agentMode: runAgent ? "thread" : "none",
    ...(options.replay ? { replay: options.replay } : {}),
    ...(parsed ? { parsed: { program: parsed.program, diagnostics: parsed.diagnostics }, modules: parsed.modules } : {}),
    // A replay (`--resume`) runs while the agent starts: its replayed thinks need no agent, and
    // the first think the cassette lacks waits for it (`lateAgent`).
    ...(starting && !options.replay ? { gated: true } : {}),
    ...(runAgent?.hinted ? { hinted: true } : {}),
  };
  const runController = new AbortController();
  // One abort listener per evaluator thread's bridge: a run with many workers has many.
  setMaxListeners(0, runController.signal);
  const output: string[] = [];
  const ahead = options.evaluatorThread;
  const takesAhead =
    ahead !== undefined && !init.gated && options.evaluatorModule === undefined && ahead.fits({ cwd, env: options.env, shellStdin: options.shellStdin });
  if (!takesAhead) ahead?.discard();
  const maxWorkers = options.maxWorkers ?? DEFAULT_MAX_WORKERS;
  const policed =
    runAgent && options.batch
      ? withBatchPolicy(runAgent.agent, options.batch, {
          // What counts as transient is the agent profile's (once the ACP agent is up), else the generic rule.
          classify: (failure) => (started ? started.transient(failure) : genericTransient(failure)),
          emit,
          // The most thinks the run itself may have in flight, not counting nested ones: the
          // program's, and each task's (a thread carries up to TASKS_PER_THREAD tasks suspended in
          // thinks, decision 0016). The limit only falls below it under overloads.
          maxConcurrency: maxWorkers * TASKS_PER_THREAD + 1,
        })
      : null;
  const pool = new EvaluatorPool({
    workerPath,
    init,
    // The budget's gate outside the batch policy: a think counts once, however often it is retried.
    agent: runAgent ? gate.wrap(policed ?? runAgent.agent) : null,
    usage: () => totals.usage(),
    runSignal: runController.signal,
    // A replay's agent and its runtime start once its program runs (its first event): they take
    // no CPU from the thread's start, and they load while the replayed thinks run.
    emit: runAgent?.loadRuntime ? (event) => (runAgent.loadRuntime!(), emit(event)) : emit,
    env: options.env ?? process.env,
    shellStdin: options.shellStdin ?? "ignore",
    maxWorkers,
    ...(options.cpuSlots !== undefined ? { cpuSlots: options.cpuSlots } : {}),
    ...(options.starvedMs !== undefined ? { starvedMs: options.starvedMs } : {}),
    onOutput: (text) => {
      output.push(text);
      options.onOutput?.(text);
    },
    ...(takesAhead ? { ahead } : {}),
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.mailboxes ? { mailboxes: options.mailboxes } : {}),
  });

  return new Promise<RunWithAgentResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: RunWithAgentResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      pool.shutdown(AgentCodes.cancelled, "the run has ended");
      if (!options.keepSession) removeSessionDir(session.dir);
      const late = started?.diagnostics ?? [];
      const diagnostics = [...result.diagnostics, ...late];
      const ok = result.ok && !late.some((d) => d.severity === "error");
      const figures = totals.snapshot();
      emit({ type: "run-totals", totals: figures });
      resolve({ ...result, ok, exitCode: ok ? 0 : result.exitCode || 1, diagnostics, totals: figures });
    };
    /**
     * Cancel (exit 130), time out or an agent that died during a think (exit 1): positioned at
     * what the program's thread was doing (a shell command, else the innermost think), if any.
     */
    const stop = (code: string, message: string, exitCode: number, where?: { span: Diagnostic["span"]; fileName: string }, extra: Partial<RunWithAgentResult> = {}) => {
      const running = where ?? pool.innermost();
      const at = running ? { span: running.span, fileName: running.fileName } : { span: START, fileName: options.fileName };
      runController.abort();
      started?.cancel(message);
      pool.shutdown(code, message);
      finish({
        ok: false,
        exitCode,
        value: null,
        output: output.join(""),
        diagnostics: [{ code, severity: "error", message, ...at }],
        cancelled: exitCode === 130 || code === AgentCodes.timeout,
        ...extra,
      });
    };
    // A think would pass the budget: the run stops once nothing is under way at the agent (batch/budget.ts).
    gate.onStop((budgetStop) => stop(AgentCodes.budgetStop, budgetStop.message, BUDGET_EXIT_STATUS, budgetStop.at, { budgetStop }));
    const onAbort = () =>
      starting && !started
        ? stop(AgentCodes.cancelled, "the run was cancelled while the agent was starting", 130)
        : stop(AgentCodes.cancelled, "the run was cancelled", 130);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    if (options.timeoutMs)
      timer = setTimeout(() => stop(AgentCodes.timeout, `the run timed out after ${options.timeoutMs} ms`, 1), options.timeoutMs);

    starting?.then(
      (agent) => {
        started = agent;
        // An agent that dies while a think is under way ends the run at once (docs/agent.md), even
        // while a `do` block of that think waits for a long command: the command's group is killed.
        // With retries and no `do` block running, its thinks fail with PW4004 instead and are
        // asked again of a new process (acp/recycling.ts).
        agent.onFault((fault) => {
          if (fault.code !== AgentCodes.agentExited || settled || !pool.thinking) return;
          if (policed && policed.retries > 0 && !policed.doBlocksRunning) return;
          const think = pool.innermostThink();
          stop(fault.code, fault.message, 1, think);
        });
        pool.release();
      },
      (error: unknown) => {
        if (options.signal?.aborted) return; // onAbort has answered
        if (!init.gated) return; // a replay: the first think that needs the agent fails with this
        const e = toAgentError(error, AgentCodes.spawnFailed);
        finish(failure(options, e.code, e.message));
      },
    );

    void pool.start().then((end) => {
      if (end.kind === "crashed") {
        // The evaluator thread failed or vanished (not a program error): PW4xxx, exit 1.
        finish({
          ok: false,
          exitCode: 1,
          value: null,
          output: output.join(""),
          diagnostics: [{ code: AgentCodes.evaluatorCrashed, severity: "error", message: end.message, span: START, fileName: options.fileName }],
          cancelled: false,
        });
        return;
      }
      const errors = end.outcome.diagnostics.some((d) => d.severity === "error");
      const { thrown: _thrown, ...outcome } = end.outcome;
      // Output of every thread, in the order it was written (the program thread's alone is outcome.output).
      finish({ ok: !errors, exitCode: errors ? 1 : 0, cancelled: false, ...outcome, output: output.join("") });
    });
  });
}

/** Task threads running at once unless `maxWorkers` says otherwise. */
export const DEFAULT_MAX_WORKERS = 8;

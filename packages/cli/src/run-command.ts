import { SourceFile } from "@patchwork/parser/core";
import {
  CassetteAgent,
  NoAgent,
  createNodeHost,
  runParsed,
  type Agent,
  type Host,
  type RunChild,
  type RunOptions,
  type ThinkRequest,
} from "@patchwork/interpreter/core";
import type { EvaluatorThreadAhead } from "@patchwork/agent/ahead";
import { UsageError, readSource, renderDiagnostics, workingDirectory } from "./files.js";
import { batchPolicy } from "./batch-options.js";
import { loadProgram } from "./programs.js";
import type { Recording } from "./recording.js";
import { NO_AGENT_NOTICE, openCache, showResult, type RunArgs } from "./run-shared.js";
import type { Terminal } from "./terminal.js";

export type { RunArgs } from "./run-shared.js";

/** The agent command line: `--agent`, else `$PATCHWORK_AGENT`, else none (no-agent mode). */
export function configuredAgent(args: RunArgs, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (args.noAgent) return undefined;
  const value = args.agent ?? env.PATCHWORK_AGENT;
  return value && value.trim() !== "" ? value.trim() : undefined;
}

/** The run writes a trace, or records, replays or resumes a cassette. */
const recorded = (args: RunArgs): boolean => args.trace !== undefined || args.record !== undefined || args.replay !== undefined || args.resume !== undefined;

/**
 * `patchwork run FILE`. `started`: an evaluator thread the caller started before it loaded this
 * module, for a run that may replay first (main.ts); taken if it does (`replaysFirst`), and
 * discarded by the caller if not.
 */
export async function runCommand(args: RunArgs, term: Terminal, started?: EvaluatorThreadAhead): Promise<number> {
  return startRun(planRun(args), term, started);
}

/**
 * `patchwork run FILE` when it runs right here with nothing but the interpreter (no agent, no
 * recording or trace, no workers; a replay of a cassette with no agent included); else
 * undefined, having done nothing but read (the fast-commands script, which holds no more than
 * that: decision 0018).
 */
export async function runInProcessOnly(args: RunArgs, term: Terminal): Promise<number | undefined> {
  const plan = planRun(args);
  // A replay is held here; a trace, a recording or a resume is not.
  if (plan.threaded || args.trace !== undefined || args.record !== undefined || args.resume !== undefined) return undefined;
  return startRun(plan, term, undefined);
}

/** What a run needs, from its command line and the program's text: checked, nothing started. */
interface RunPlan {
  args: RunArgs;
  argStrings: ReturnType<typeof entryArguments>;
  cwd: string;
  text: string;
  agentCommand: string | undefined;
  /** Thinks go to the agent (else a replay answers them all). */
  live: boolean;
  threaded: boolean;
}

/** Checks `run`'s options and reads the program (usage errors are thrown here, before anything starts). */
function planRun(args: RunArgs): RunPlan {
  if (args.agent !== undefined && args.noAgent) throw new UsageError("--agent and --no-agent exclude each other");
  if (args.timeout !== undefined && !(args.timeout > 0)) throw new UsageError("--timeout takes a positive number of seconds");
  if (args.idleTimeout !== undefined && !(args.idleTimeout > 0)) {
    throw new UsageError("--idle-timeout takes a positive number of seconds");
  }
  if (args.restartAgentAfter !== undefined && !(Number.isInteger(args.restartAgentAfter) && args.restartAgentAfter >= 0)) {
    throw new UsageError("--restart-agent-after takes a whole number of sessions (0: never restart)");
  }
  if (Array.isArray(args.entry)) throw new UsageError("--entry is given twice");
  batchPolicy(args); // (its usage errors, before anything starts)
  if (args.maxWorkers !== undefined && !(Number.isInteger(args.maxWorkers) && args.maxWorkers >= 1)) {
    throw new UsageError("--max-workers takes a whole number ≥ 1");
  }
  if (args.traceTextLimit !== undefined && !(Number.isInteger(args.traceTextLimit) && args.traceTextLimit >= 0)) {
    throw new UsageError("--trace-text-limit takes a number of characters (0 or more)");
  }
  if (args.replayMissing !== undefined && args.replay === undefined) throw new UsageError("--replay-missing goes with --replay");
  if (args.resume !== undefined && (args.replay !== undefined || args.record !== undefined))
    throw new UsageError("--resume FILE replays and records FILE: it goes without --replay and --record");
  const budget = budgetOf(args);
  const argStrings = entryArguments(args);
  const cwd = workingDirectory(args.cwd);
  const text = readSource(args.file);
  const agentCommand = configuredAgent(args);
  const live = args.replay === undefined || args.replayMissing === "agent";
  if (args.replayMissing === "agent" && agentCommand === undefined) {
    throw new UsageError("--replay-missing=agent needs an agent (--agent or $PATCHWORK_AGENT)");
  }
  if (args.resume !== undefined && agentCommand === undefined) {
    throw new UsageError("--resume needs an agent to ask the thinks the cassette lacks (--agent or $PATCHWORK_AGENT)");
  }
  if (args.record !== undefined && args.replay === undefined && agentCommand === undefined) {
    throw new UsageError("--record needs an agent to record (--agent or $PATCHWORK_AGENT)");
  }
  const viaAgent = agentCommand !== undefined && live;
  if ((args.maxThinks !== undefined || args.budget !== undefined) && !viaAgent) {
    throw new UsageError(`${args.maxThinks !== undefined ? "--max-thinks" : "--budget"} limits what the agent is asked: it needs an agent (--agent or $PATCHWORK_AGENT)`);
  }
  // Workers run on evaluator threads of their own, with or without an agent.
  const threaded = viaAgent || usesWorkers(text);
  return { args: { ...args, ...budget }, argStrings, cwd, text, agentCommand, live, threaded };
}

/**
 * `--max-thinks N` and `--budget AMOUNT`, else `$PATCHWORK_MAX_THINKS` and `$PATCHWORK_BUDGET`
 * (docs/cli.md, "Budgets"); checked here, read again by agent-run.ts.
 */
function budgetOf(args: RunArgs, env: NodeJS.ProcessEnv = process.env): Pick<RunArgs, "maxThinks" | "budget"> {
  const out: Pick<RunArgs, "maxThinks" | "budget"> = {};
  const fromEnv = (name: string) => (env[name] !== undefined && env[name]!.trim() !== "" ? env[name]!.trim() : undefined);
  const maxThinks = args.maxThinks ?? (fromEnv("PATCHWORK_MAX_THINKS") !== undefined ? Number(fromEnv("PATCHWORK_MAX_THINKS")) : undefined);
  if (maxThinks !== undefined) {
    const what = args.maxThinks !== undefined ? "--max-thinks" : "$PATCHWORK_MAX_THINKS";
    if (!(Number.isInteger(maxThinks) && maxThinks >= 0)) throw new UsageError(`${what} takes a whole number of thinks (0 or more)`);
    out.maxThinks = maxThinks;
  }
  const budget = args.budget ?? fromEnv("PATCHWORK_BUDGET");
  if (budget !== undefined) {
    if (Array.isArray(budget)) throw new UsageError("--budget is given twice");
    const what = args.budget !== undefined ? "--budget" : "$PATCHWORK_BUDGET";
    if (!BUDGET_FORM.test(String(budget).trim()) || !(parseFloat(String(budget).trim()) > 0)) {
      throw new UsageError(`${what} takes an amount in the agent's currency (2.50, 2.50USD) or tokens (2000000tok); got ${JSON.stringify(String(budget))}`);
    }
    out.budget = String(budget).trim();
  }
  return out;
}

/**
 * The forms `parseBudget` (@patchwork/agent/run: the one reader) takes, checked here before
 * anything starts without loading the agent runtime: an amount (a currency) or tokens.
 */
const BUDGET_FORM = /^(?:(?:\d+(?:\.\d+)?|\.\d+)\s*(?:[A-Za-z]{3})?|\d+(?:\.\d+)?\s*[kKmM]?\s*tok(?:ens?)?)$/;

/** Starts a planned run: on evaluator threads (with the agent runtime), or right here. */
async function startRun(plan: RunPlan, term: Terminal, started: EvaluatorThreadAhead | undefined): Promise<number> {
  const { args, argStrings, cwd, text, agentCommand, live, threaded } = plan;
  const viaAgent = agentCommand !== undefined && live;
  // A replay with an agent (--resume, --replay … --replay-missing=agent): its evaluator thread
  // starts now and the replay starts as soon as the cassette is read (the agent runtime loads
  // meanwhile; the first think the cassette lacks waits for the agent: docs/replay.md).
  const replaysFirst = viaAgent && (args.resume !== undefined || args.replay !== undefined);
  // Its modules are read at once, not one after another (each waits for its file otherwise).
  const agentRunModule = replaysFirst ? prefetched(import("./agent-run.js"), import("./recording.js"), import("./journal.js")) : undefined;
  // (An unknown or missing preset is a usage error before anything starts, as with early-agent.ts.)
  if (replaysFirst) (await import("./presets.js")).resolveAgentCommand(agentCommand);
  const ahead = replaysFirst ? (started ?? new (await import("@patchwork/agent/ahead")).EvaluatorThreadAhead({ cwd })) : undefined;
  // The agent process starts while its runtime loads and a cassette is read (early-agent.ts);
  // a replay's starts once the replay has (runWithAgent spawns it): the replay needs no agent.
  const early = viaAgent && !ahead ? (await import("./early-agent.js")).spawnAgentEarly(agentCommand, cwd) : undefined;
  let recording: Recording | null = null;
  if (recorded(args)) {
    const { openRecording, reportCassetteError } = await import("./recording.js");
    try {
      recording = await openRecording(args, term, { inProcess: !threaded });
    } catch (error) {
      early?.abandon(); // a bad cassette or file: no run, no agent
      ahead?.discard();
      return reportCassetteError(error, term);
    }
  }
  if (threaded) {
    let agentRun: typeof import("./agent-run.js");
    try {
      agentRun = await (agentRunModule ?? import("./agent-run.js"));
    } catch (error) {
      early?.abandon();
      ahead?.discard();
      throw error;
    }
    return agentRun.runWithAcpAgent({ args, text, cwd, agentCommand: viaAgent ? agentCommand : undefined, term, argStrings, recording, early, ahead });
  }
  return runInProcess(args, text, cwd, term, argStrings, recording);
}

/** The first of modules being loaded (the others are awaited where they are imported; a failure shows there). */
function prefetched<T>(first: Promise<T>, ...others: Promise<unknown>[]): Promise<T> {
  for (const other of others) other.catch(() => undefined);
  first.catch(() => undefined);
  return first;
}

/** The entry's arguments from the command line; null when none are given (the entry's own defaults). */
export function entryArguments(args: RunArgs): { positional: string[]; named: Record<string, string> } | undefined {
  const positional = args.args ?? [];
  const named: Record<string, string> = {};
  for (const pair of args.arg ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--arg takes name=value, got ${JSON.stringify(pair)}`);
    const name = pair.slice(0, eq);
    if (Object.prototype.hasOwnProperty.call(named, name)) throw new UsageError(`--arg ${name} is given twice`);
    named[name] = pair.slice(eq + 1);
  }
  if (positional.length === 0 && Object.keys(named).length === 0 && args.entry === undefined) return undefined;
  return { positional: positional.map(String), named };
}

/**
 * Whether a program may start worker tasks (it declares or delegates to workers): then even
 * without an agent it runs on evaluator threads, so that its tasks run at the same time.
 */
export function usesWorkers(text: string): boolean {
  return /\b(worker|delegate)\b/.test(text);
}

/** No agent: the evaluator runs right here, thinks evaluate to their prompts (or their cassette's answers). */
async function runInProcess(
  args: RunArgs,
  text: string,
  cwd: string,
  term: Terminal,
  argStrings: RunOptions["argStrings"],
  recording: Recording | null,
): Promise<number> {
  const trace = recording?.trace ?? null;
  const listen = recording?.onEvent ?? null;
  const sinks = [trace?.handle, listen].filter((f): f is NonNullable<typeof f> => Boolean(f));
  const onEvent =
    sinks.length === 0
      ? undefined
      : (e: Parameters<NonNullable<Host["event"]>>[0]) => {
          for (const sink of sinks) sink(e);
        };
  const base: Host = createNodeHost({ cwd, ...(onEvent ? { onEvent } : {}) });
  // --json: the output is printed once, inside the JSON object (runParsed captures it).
  const host: Host = args.json ? { ...base, write: () => undefined } : base;
  const replay = recording?.replay;
  const agent: Agent = replay
    ? new CassetteAgent(replay.cassette, { fileName: replay.fileName })
    : args.noAgent
      ? new NoAgent()
      : announceOnce(new NoAgent(), term);
  trace?.start({ program: args.file, cwd, agent: null, mode: replay ? "replay" : "no-agent" });
  const { program, diagnostics, parseModule } = await loadProgram(args.file, text, cwd, openCache(args, term));
  const result = runParsed(program, diagnostics, {
    fileName: args.file,
    agent,
    host,
    cwd,
    entry: args.entry,
    argStrings,
    entryMayBeArgument: !args.entryOption,
    keepSession: args.keepSession,
    askUser: args.askUser,
    limits: args.timeout !== undefined ? { timeoutMs: args.timeout * 1000 } : undefined,
  }, parseModule);
  const status = result.diagnostics.some((d) => d.severity === "error") ? 1 : 0;
  trace?.end({ ok: status === 0, exitCode: status, diagnostics: result.diagnostics, ...(result.entry !== undefined ? { entry: result.entry, value: result.value } : {}) });
  recording?.finish({ cancelled: false, ok: status === 0 });
  showResult(result, status === 0, args, term);
  if (result.diagnostics.length > 0) {
    term.stderr(renderDiagnostics(result.diagnostics, new SourceFile(text, args.file)));
  }
  return status;
}

/** Says once, on the first think, that no agent is configured. */
function announceOnce(inner: Agent, term: Terminal): Agent {
  let said = false;
  return {
    think(request: ThinkRequest, runChild: RunChild) {
      if (!said) {
        said = true;
        term.stderr(NO_AGENT_NOTICE);
      }
      return inner.think(request, runChild);
    },
  };
}

import { SourceFile } from "@patchwork/parser/core";
import {
  formatTotals,
  parseBudget,
  runWithAgent,
  type AcpAgentOptions,
  type BatchPolicyOptions,
  type BudgetLimits,
  type EvaluatorThreadAhead,
  type PermissionAnswer,
  type PermissionQuestion,
  type RunEvent,
} from "@patchwork/agent/run";
// The parser-free core: the full interpreter's index would load the parser (a resume's start-up).
import { signalStatus } from "@patchwork/interpreter/core";
import { renderDiagnostics } from "./files.js";
import { resolveAgentCommand } from "./presets.js";
import { Progress } from "./progress.js";
import { batchPolicy } from "./batch-options.js";
import type { EarlyAgent } from "./early-agent.js";
import type { Recording } from "./recording.js";
import { parseAhead } from "./programs.js";
import { NO_AGENT_NOTICE, openCache, showResult, type RunArgs } from "./run-shared.js";
import type { Terminal } from "./terminal.js";
import { configureVendorCache } from "./vendor.js";
import type { Fleet } from "@patchwork/fleet";
import { openFleet, queueOf } from "./fleet-run.js";

const STOP_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export interface AgentRunInput {
  args: RunArgs;
  text: string;
  cwd: string;
  /** The agent command line; undefined: no agent (a program with workers, on threads). */
  agentCommand: string | undefined;
  term: Terminal;
  argStrings?: { positional: string[]; named: Record<string, string> };
  /** `--trace`, `--record`, `--replay … --replay-missing=agent`. */
  recording?: Recording | null;
  /** The agent process, spawned from `agentCommand` before this module loaded (early-agent.ts). */
  early?: EarlyAgent;
  /** The evaluator thread of a replay, started before this module loaded (run-command.ts). */
  ahead?: EvaluatorThreadAhead;
}

/** `patchwork run FILE --agent …`: the evaluator thread plus the ACP runtime. */
export async function runWithAcpAgent({ args, text, cwd, agentCommand, term, argStrings, recording, early, ahead }: AgentRunInput): Promise<number> {
  const command = early?.command ?? (agentCommand === undefined ? undefined : resolveAgentCommand(agentCommand));
  // --queue: the worker tasks go to a fleet (fleet-run.ts); a Redis that does not answer ends the run here.
  const queue = queueOf(args);
  let fleet: Fleet | undefined;
  if (queue !== undefined) {
    const opened = await openFleet(queue, args, cwd, recording, term);
    if ("status" in opened) {
      early?.abandon();
      ahead?.discard();
      return opened.status;
    }
    fleet = opened.fleet;
  }
  // The agent runtime's npm packages load from a script with a code cache: this command line's switches (decision 0019).
  configureVendorCache({ noCache: args.noCache, verbose: args.verbose ? (line) => term.stderr(line) : undefined });
  const progress = new Progress(term, { spinner: term.stderrIsTTY && !args.quiet, verbose: args.verbose ?? 0 });
  // On an interactive terminal the spinner shares the screen with program output: write that
  // output here, on the main thread, clearing the spinner line first.
  const viaMain = term.stderrIsTTY && term.stdoutIsTTY;
  const controller = new AbortController();
  // A signal cancels the run (agent, its process group, running commands), then the exit
  // status is the one a shell reports for that signal: 128 + its number (docs/cli.md).
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled ??= signal;
    controller.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  // From here a signal cancels the run, whose agent runtime kills the early process too.
  early?.handOver();
  const acpOptions: AcpAgentOptions | null = command === undefined ? null : {
    command,
    cwd,
    mcpTransport: args.mcpTransport ?? "auto",
    permissions: { do: "allow", other: args.permissions ?? "deny" },
    askPermission: (question) => askOnTerminal(question, term, progress),
    thinkIdleTimeoutMs: args.idleTimeout !== undefined ? args.idleTimeout * 1000 : undefined,
    restartAfterSessions: args.restartAgentAfter,
    // Sessions made ahead of need (docs/agent.md); PATCHWORK_SESSIONS_AHEAD=0 turns them off (to measure).
    ...(process.env.PATCHWORK_SESSIONS_AHEAD === "0" ? { prepareSessions: false } : {}),
    ...(early ? { process: early.process } : {}),
  };
  let announced = false;
  let result;
  try {
    result = await runWithAgent({
      source: text,
      fileName: args.file,
      cwd,
      // Parsed while the agent starts (from the parse cache when it can): the threads load no parser.
      parsed: () => parseAhead(args.file, text, cwd, openCache(args, term)),
      entry: args.entry,
      ...(argStrings ? { argStrings } : {}),
      entryMayBeArgument: !args.entryOption,
      maxWorkers: args.maxWorkers,
      // Retries of transient failures and the governor (docs/agent.md), for thinks the agent answers.
      // On a fleet, the run's own thinks count toward its --rate with its workers' (in Redis).
      ...(command !== undefined ? { batch: withFleetRate(batchPolicy(args), fleet) } : {}),
      keepSession: args.keepSession,
      agent: acpOptions,
      askUser: args.askUser,
      // --json: the output is printed once, inside the JSON object (result.output).
      writeOutput: !viaMain && !args.json,
      onOutput: args.json
        ? () => undefined
        : viaMain
        ? (output) => {
            progress.clear();
            term.stdout(output);
          }
        : undefined,
      signal: controller.signal,
      timeoutMs: args.timeout !== undefined ? args.timeout * 1000 : undefined,
      ...(recording?.trace ? { trace: recording.trace } : {}),
      ...(recording?.replay ? { replay: recording.replay } : {}),
      ...(ahead ? { evaluatorThread: ahead } : {}),
      ...(command !== undefined ? { budget: budgetLimits(args) } : {}),
      ...(fleet ? { scheduler: fleet.scheduler, mailboxes: fleet.mailboxes } : {}),
      onEvent: (event: RunEvent) => {
        recording?.onEvent?.(event);
        if (event.type === "think-start" && command === undefined && !args.noAgent && !recording?.replay && !announced) {
          announced = true;
          progress.clear();
          term.stderr(NO_AGENT_NOTICE);
        }
        if (event.type === "log" && viaMain) {
          progress.clear();
          term.stderr(event.text);
        }
        progress.handle(event);
      },
    });
  } finally {
    progress.stop();
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    // A run that did not end well keeps its tasks' journals: `--resume` finds them.
    await fleet?.close({ keepJournal: !result?.ok });
  }
  const budgetStop = result.budgetStop ? { ...result.budgetStop, hint: resumeHint(result.budgetStop.kind, args) } : undefined;
  recording?.finish({ cancelled: result.cancelled, ok: result.ok, ...(budgetStop ? { budgetStop } : {}) });
  if (!result.cancelled) showResult(result, result.ok, args, term, command !== undefined ? result.totals : undefined);
  // Agent failures, even at start-up, come back as diagnostics (PW4xxx), not exceptions.
  if (result.diagnostics.length > 0) {
    term.stderr(renderDiagnostics(result.diagnostics, new SourceFile(text, args.file)));
  }
  if (budgetStop && !recording?.records) {
    term.stderr(`patchwork: nothing was recorded: with --record FILE, a run stopped at its budget goes on with --resume FILE and a limit for what is left\n`);
  }
  // What it cost, always (docs/cli.md, "What a run cost"): a run with an agent that thought.
  const totals = result.totals;
  if (command !== undefined && totals && totals.thinks + totals.replayed + totals.failed > 0) term.stderr(`patchwork: ${formatTotals(totals)}\n`);
  return signalled ? signalStatus(signalled) : result.exitCode;
}

/** `--max-thinks` and `--budget` (checked by run-command.ts, read here by the one reader). */
function budgetLimits(args: RunArgs): BudgetLimits {
  const budget = args.budget === undefined ? null : parseBudget(args.budget);
  return { ...(args.maxThinks !== undefined ? { maxThinks: args.maxThinks } : {}), ...(budget ? { budget } : {}) };
}

/**
 * How a run stopped at its budget goes on: the same limit again, for what is left (replayed
 * thinks cost nothing); none after `--max-thinks 0` (a replay that stopped at its first gap).
 */
function resumeHint(kind: "thinks" | "cost" | "tokens", args: RunArgs): string {
  if (kind === "thinks") return args.maxThinks ? `--max-thinks ${args.maxThinks}` : "";
  return `--budget ${args.budget ?? "AMOUNT"}`;
}


/** `--permissions ask`: one question on the terminal per tool call the agent wants to make. */
async function askOnTerminal(question: PermissionQuestion, term: Terminal, progress: Progress): Promise<PermissionAnswer> {
  if (!process.stdin.isTTY && !term.stderrIsTTY) return "deny";
  progress.clear();
  const answer = await readLineAsync(`The agent wants to use ${question.title}. Allow? [y/N] `);
  return /^y(es)?$/i.test(answer?.trim() ?? "") ? "allow" : "deny";
}

async function readLineAsync(prompt: string): Promise<string | null> {
  const { createInterface } = await import("node:readline"); // (only to ask: not at every run's start)
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
    let answered = false;
    rl.question(prompt, (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once("close", () => {
      if (!answered) resolve(null);
    });
  });
}

/** The run's policy; on a fleet, its rate counted with the workers' (one limiter in Redis). */
function withFleetRate(policy: BatchPolicyOptions, fleet: Fleet | undefined): BatchPolicyOptions {
  const limiter = fleet?.rateLimiter();
  return limiter ? { ...policy, rateLimiter: limiter } : policy;
}

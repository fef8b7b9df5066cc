/**
 * What a run without an agent (run-command.ts) and a run with one (agent-run.ts) share: the
 * command line's options, the parse cache they open, how the result is shown, the no-agent notice.
 */
import { entryResultText, type JsonValue } from "@patchwork/interpreter/core";
import { ParseCache } from "./cache.js";
import type { Terminal } from "./terminal.js";

export interface RunArgs {
  file: string;
  agent?: string;
  noAgent?: boolean;
  entry?: string;
  /** Arguments of the entry (after the positional entry name). */
  args?: string[];
  /** `--arg name=value`. */
  arg?: string[];
  maxWorkers?: number;
  /** `--queue URL`: the worker tasks go to a fleet's queue (packages/fleet). */
  queue?: string;
  /** `--retries N` and `--rate N/min` (batch-options.ts). */
  retries?: number;
  rate?: string;
  keepSession?: boolean;
  /** The entry was named with `--entry` (not as the first word after the file). */
  entryOption?: boolean;
  cwd?: string;
  askUser?: boolean;
  mcpTransport?: "http" | "stdio" | "acp";
  permissions?: "allow" | "deny" | "ask";
  timeout?: number;
  idleTimeout?: number;
  restartAgentAfter?: number;
  /** `--verbose` (1), `-vv` or `--verbose=2` (2: the agent's own log lines too). */
  verbose?: number;
  /** `--max-thinks N`: stop before the run asks the agent more thinks (exit 3). */
  maxThinks?: number;
  /** `--budget AMOUNT`: stop before a think would pass this cost or number of tokens (exit 3). */
  budget?: string;
  /** No progress line on the terminal. */
  quiet?: boolean;
  /** Write a JSON-lines trace of the run here (docs/trace.md). */
  trace?: string;
  traceTextLimit?: number;
  /** Record a cassette of the run's thinks here (docs/replay.md). */
  record?: string;
  /** Answer thinks from this cassette, with no agent. */
  replay?: string;
  /** What a think the cassette lacks does: fail (default), or ask the agent and update the cassette. */
  replayMissing?: "error" | "agent";
  /** Replay this cassette's answers, ask the agent the rest, and go on recording to it (docs/replay.md "Resuming a run"). */
  resume?: string;
  /** `--no-cache`: parse every file, read and write no cache entry (docs/cli.md). */
  noCache?: boolean;
  /** `--json`: print `{value, output}` at the end instead of the output as it comes. */
  json?: boolean;
}

/** The parse cache for this command line (null: off). */
export function openCache(args: { noCache?: boolean; verbose?: number | boolean }, term: Terminal): ParseCache | null {
  return ParseCache.open({ noCache: args.noCache, verbose: args.verbose ? (line) => term.stderr(line) : undefined });
}

/**
 * After a run: the called entry's return value below its output (`entryResultText`: nothing
 * for null, a string as is, other values as JSON), or with `--json` one object `{value, output}`
 * (the value null when no entry ran or the run failed; `totals` too, with an agent).
 */
export function showResult(
  result: { output: string; value: JsonValue | null; entry?: string },
  ok: boolean,
  args: RunArgs,
  term: Terminal,
  totals?: JsonValue | object,
): void {
  const value = ok && result.entry !== undefined ? result.value : null;
  if (args.json) {
    // With an agent, `totals`: what the run asked and spent (docs/cli.md, "What a run cost").
    term.stdout(JSON.stringify({ value, output: result.output, ...(totals ? { totals } : {}) }) + "\n");
    return;
  }
  const shown = entryResultText({ output: result.output, value }).slice(result.output.length);
  if (shown !== "") term.stdout(shown);
}

export const NO_AGENT_NOTICE =
  "patchwork: no agent configured (use --agent or PATCHWORK_AGENT); think and ask blocks evaluate to their prompt\n";

import { resolve } from "node:path";
import { SourceFile } from "@patchwork/parser";
import {
  NoAgent,
  createNodeHost,
  run,
  type Agent,
  type Host,
  type RunChild,
  type ThinkRequest,
} from "@patchwork/interpreter";
import { UsageError, readSource, renderDiagnostics } from "./files.js";
import type { Terminal } from "./terminal.js";

export interface RunArgs {
  file: string;
  agent?: string;
  noAgent?: boolean;
  entry?: string;
  cwd?: string;
  askUser?: boolean;
  mcpTransport?: "http" | "stdio" | "acp";
  permissions?: "allow" | "deny" | "ask";
  timeout?: number;
  idleTimeout?: number;
  restartAgentAfter?: number;
  verbose?: boolean;
}

/** The agent command line: `--agent`, else `$PATCHWORK_AGENT`, else none (no-agent mode). */
export function configuredAgent(args: RunArgs, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (args.noAgent) return undefined;
  const value = args.agent ?? env.PATCHWORK_AGENT;
  return value && value.trim() !== "" ? value.trim() : undefined;
}

/** `patchwork run FILE`. */
export async function runCommand(args: RunArgs, term: Terminal): Promise<number> {
  if (args.agent !== undefined && args.noAgent) throw new UsageError("--agent and --no-agent exclude each other");
  if (args.timeout !== undefined && !(args.timeout > 0)) throw new UsageError("--timeout takes a positive number of seconds");
  if (args.idleTimeout !== undefined && !(args.idleTimeout > 0)) {
    throw new UsageError("--idle-timeout takes a positive number of seconds");
  }
  if (args.restartAgentAfter !== undefined && !(Number.isInteger(args.restartAgentAfter) && args.restartAgentAfter >= 0)) {
    throw new UsageError("--restart-agent-after takes a whole number of sessions (0: never restart)");
  }
  const text = readSource(args.file);
  const cwd = resolve(args.cwd ?? process.cwd());
  const agentCommand = configuredAgent(args);
  if (agentCommand !== undefined) {
    const { runWithAcpAgent } = await import("./agent-run.js");
    return runWithAcpAgent({ args, text, cwd, agentCommand, term });
  }
  return runInProcess(args, text, cwd, term);
}

/** No agent: the evaluator runs right here, thinks evaluate to their prompts. */
function runInProcess(args: RunArgs, text: string, cwd: string, term: Terminal): number {
  const host: Host = createNodeHost({ cwd });
  const agent: Agent = args.noAgent ? new NoAgent() : announceOnce(new NoAgent(), term);
  const result = run(text, {
    fileName: args.file,
    agent,
    host,
    cwd,
    entry: args.entry,
    askUser: args.askUser,
    limits: args.timeout !== undefined ? { timeoutMs: args.timeout * 1000 } : undefined,
  });
  if (result.diagnostics.length > 0) {
    term.stderr(renderDiagnostics(result.diagnostics, new SourceFile(text, args.file)));
  }
  return result.diagnostics.some((d) => d.severity === "error") ? 1 : 0;
}

/** Says once, on the first think, that no agent is configured. */
function announceOnce(inner: Agent, term: Terminal): Agent {
  let said = false;
  return {
    think(request: ThinkRequest, runChild: RunChild) {
      if (!said) {
        said = true;
        term.stderr(
          "patchwork: no agent configured (use --agent or PATCHWORK_AGENT); think and ask blocks evaluate to their prompt\n",
        );
      }
      return inner.think(request, runChild);
    },
  };
}

import { serveAcpProxy, stdioStream } from "@patchwork/serve";
import { UsageError, workingDirectory } from "./files.js";
import { resolveAgentCommand } from "./presets.js";
import { untilClosed } from "./serving.js";
import type { Terminal } from "./terminal.js";

export interface AcpArgs {
  agent?: string;
  mcpTransport?: "http" | "stdio" | "acp";
  idleTimeout?: number;
  restartAgentAfter?: number;
  cwd?: string;
  verbose?: boolean;
}

/**
 * `patchwork acp --agent …`: an ACP agent on stdin/stdout for the editor's agent panel
 * (docs/editors.md). stdout is the protocol: diagnostics go to stderr only.
 */
export async function acpCommand(args: AcpArgs, term: Terminal, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const value = (args.agent ?? env.PATCHWORK_AGENT)?.trim();
  if (!value) throw new UsageError("patchwork acp needs the agent to pass prompts to: --agent claude|codex|gemini|opencode|qwen|copilot|\"<command>\" (or PATCHWORK_AGENT)");
  if (args.idleTimeout !== undefined && !(args.idleTimeout > 0)) throw new UsageError("--idle-timeout takes a positive number of seconds");
  if (args.restartAgentAfter !== undefined && !(Number.isInteger(args.restartAgentAfter) && args.restartAgentAfter >= 0))
    throw new UsageError("--restart-agent-after takes a whole number of thinks (0: never restart)");
  const cwd = workingDirectory(args.cwd);
  const command = resolveAgentCommand(value, env);
  const server = serveAcpProxy(stdioStream(process.stdin, process.stdout, (message) => term.stderr(`patchwork acp: ${message}\n`)), {
    agent: command,
    cwd,
    mcpTransport: args.mcpTransport ?? "auto",
    thinkIdleTimeoutMs: args.idleTimeout !== undefined ? args.idleTimeout * 1000 : undefined,
    ...(args.restartAgentAfter !== undefined ? { restartAfterSessions: args.restartAgentAfter } : {}),
    // Sessions made ahead of need, as for patchwork run; PATCHWORK_SESSIONS_AHEAD=0 turns them off (to measure).
    ...(env.PATCHWORK_SESSIONS_AHEAD === "0" ? { prepareSessions: false } : {}),
    onAgentStderr: (text) => term.stderr(text),
    logger: {
      warn: (message) => term.stderr(`patchwork acp: ${message}\n`),
      ...(args.verbose ? { debug: (message: string) => term.stderr(`patchwork acp: ${message}\n`) } : {}),
    },
  });
  await untilClosed(server);
  return 0;
}

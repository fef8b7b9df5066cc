import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { serveMcp } from "@patchwork/serve";
import type { RunEvent } from "@patchwork/agent";
import { UsageError, workingDirectory } from "./files.js";
import { Progress } from "./progress.js";
import { resolveAgentCommand } from "./presets.js";
import { untilClosed } from "./serving.js";
import type { Terminal } from "./terminal.js";

export interface McpArgs {
  files: string[];
  agent?: string;
  noAgent?: boolean;
  http?: number;
  maxWorkers?: number;
  idleTimeout?: number;
  timeout?: number;
  cwd?: string;
  permissions?: "allow" | "deny" | "ask";
  verbose?: boolean;
}

/**
 * `patchwork mcp FILES… [--agent A] [--http PORT] [--max-workers N]`: every `@skill` and
 * `@command` of the files an MCP tool (docs/mcp.md). On stdio, stdout is the protocol:
 * messages go to stderr only. With `--http`, PATCHWORK_MCP_TOKEN (when set) is the bearer token.
 */
export async function mcpCommand(args: McpArgs, term: Terminal, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (args.files.length === 0) throw new UsageError("patchwork mcp needs the .pw files or folders whose skills it serves");
  for (const file of args.files) if (!existsSync(resolve(file))) throw new UsageError(`${file}: no such file or folder`);
  if (args.http !== undefined && !(Number.isInteger(args.http) && args.http >= 0 && args.http < 65536))
    throw new UsageError("--http takes a port number (0: any free port)");
  if (args.maxWorkers !== undefined && !(Number.isInteger(args.maxWorkers) && args.maxWorkers >= 1))
    throw new UsageError("--max-workers takes a whole number of at least 1");
  if (args.idleTimeout !== undefined && !(args.idleTimeout > 0)) throw new UsageError("--idle-timeout takes a positive number of seconds");
  if (args.timeout !== undefined && !(args.timeout > 0)) throw new UsageError("--timeout takes a positive number of seconds");
  if (args.permissions === "ask") throw new UsageError("--permissions ask needs a terminal to ask on; patchwork mcp takes allow or deny");
  if (args.noAgent && args.agent !== undefined) throw new UsageError("--agent and --no-agent say opposite things: give one");
  const cwd = workingDirectory(args.cwd);
  const value = args.noAgent ? undefined : (args.agent ?? env.PATCHWORK_AGENT)?.trim();
  const agent = value ? resolveAgentCommand(value, env) : undefined;
  const token = env.PATCHWORK_MCP_TOKEN?.trim() || undefined;
  const server = await serveMcp({
    // The files as typed, from here; the skills run in --cwd.
    paths: args.files.map((f) => resolve(f)),
    cwd,
    ...(agent ? { agent } : {}),
    ...(args.maxWorkers !== undefined ? { maxWorkers: args.maxWorkers } : {}),
    ...(args.http !== undefined ? { http: { port: args.http, ...(token ? { token } : {}) } } : {}),
    ...(args.idleTimeout !== undefined ? { thinkIdleTimeoutMs: args.idleTimeout * 1000 } : {}),
    ...(args.timeout !== undefined ? { timeoutMs: args.timeout * 1000 } : {}),
    ...(args.permissions !== undefined ? { permissions: args.permissions } : {}),
    ...(args.verbose ? { observeCall: (call: string) => verboseCall(call, term) } : {}),
    logger: { warn: (message) => term.stderr(`patchwork mcp: ${message}\n`) },
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") throw new UsageError(`--http ${args.http}: port ${args.http} of 127.0.0.1 is in use (--http 0 picks a free one)`);
    if (error.code === "EACCES" && args.http !== undefined) throw new UsageError(`--http ${args.http}: not allowed to listen on that port`);
    if (typeof error.code === "string") throw new UsageError(`cannot read the skills: ${error.message}`);
    throw error;
  });
  if (server.url && !token)
    term.stderr(
      `patchwork mcp: warning: no PATCHWORK_MCP_TOKEN: every local user and process can call these tools at ${server.url}; set PATCHWORK_MCP_TOKEN to require it as a bearer token\n`,
    );
  const names = server.toolNames();
  term.stderr(`patchwork mcp: ${names.length} tool(s): ${names.join(", ") || "none"}${server.url ? ` at ${server.url}` : ""}\n`);
  try {
    await untilClosed(server);
  } finally {
    await server.close(); // calls still under way are cancelled: nothing of theirs outlives the server
  }
  return 0;
}

/**
 * `--verbose`: a call's events rendered as `run --verbose` renders a run's, on stderr, each
 * line tagged with the call (`[greet#2] `), since calls run at once.
 */
function verboseCall(call: string, term: Terminal): { event(event: RunEvent): void; end(): void } {
  let lineStart = true;
  const tagged: Terminal = {
    ...term,
    stderrIsTTY: false,
    stderr: (text) =>
      term.stderr(
        text.replace(/[^\n]*\n|[^\n]+$/g, (line) => {
          const piece = (lineStart ? `[${call}] ` : "") + line;
          lineStart = line.endsWith("\n");
          return piece;
        }),
      ),
  };
  const progress = new Progress(tagged, { spinner: false, verbose: 1 });
  return { event: (event) => progress.handle(event), end: () => progress.stop() };
}

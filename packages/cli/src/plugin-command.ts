import { PluginError, writePlugin } from "@patchwork/serve";
import { UsageError } from "./files.js";
import type { Terminal } from "./terminal.js";

export interface PluginArgs {
  files: string[];
  out: string;
  agent?: string;
  name?: string;
  /** The command line that starts Patchwork in the plugin's .mcp.json. */
  patchwork?: string;
  noAgent?: boolean;
  permissions?: "allow" | "deny" | "ask";
  idleTimeout?: number;
  timeout?: number;
}

/** The options of `patchwork mcp` that the plugin's .mcp.json passes on (option-table.ts). */
function servedOptions(args: PluginArgs): string[] {
  if (args.noAgent && args.agent !== undefined) throw new UsageError("--agent and --no-agent say opposite things: give one");
  if (args.permissions === "ask") throw new UsageError("--permissions ask needs a terminal to ask on; the plugin's patchwork mcp takes allow or deny");
  for (const [name, value] of [["--idle-timeout", args.idleTimeout], ["--timeout", args.timeout]] as const)
    if (value !== undefined && !(value > 0)) throw new UsageError(`${name} takes a positive number of seconds`);
  return [
    ...(args.noAgent ? ["--no-agent"] : []),
    ...(args.permissions !== undefined ? ["--permissions", args.permissions] : []),
    ...(args.idleTimeout !== undefined ? ["--idle-timeout", String(args.idleTimeout)] : []),
    ...(args.timeout !== undefined ? ["--timeout", String(args.timeout)] : []),
  ];
}

/** A command line split into words (double or single quotes group words). */
export function commandWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return words;
}

/** `patchwork plugin FILES… --out DIR`: writes a Claude Code plugin (docs/mcp.md, "Claude Code plugin"). */
export function pluginCommand(args: PluginArgs, term: Terminal): number {
  const command = args.patchwork !== undefined ? commandWords(args.patchwork) : undefined;
  if (command !== undefined && command.length === 0) throw new UsageError("--patchwork takes the command line that starts patchwork");
  if (args.agent !== undefined && args.agent.trim() === "") throw new UsageError("--agent takes an agent: claude, codex, gemini, opencode, qwen, copilot or a command line");
  try {
    const r = writePlugin({ files: args.files, out: args.out, agent: args.agent?.trim(), name: args.name, command, serveOptions: servedOptions(args) });
    const lines = [`wrote plugin ${r.meta.name} ${r.meta.version} to ${r.dir}`];
    for (const s of r.skills) lines.push(`  skill ${s.name} (MCP tool ${s.tool})`);
    for (const c of r.commands) lines.push(`  command /${c}`);
    lines.push(
      `install it:  claude plugin marketplace add ${r.dir} && claude plugin install ${r.meta.name}@${r.marketplace}`,
      `or try it:   claude --plugin-dir ${r.dir}`,
    );
    term.stdout(lines.join("\n") + "\n");
    return 0;
  } catch (error) {
    if (!(error instanceof PluginError)) throw error;
    if (error.usage) throw new UsageError(error.message);
    term.stderr(`patchwork plugin: ${error.message}\n`);
    return 1;
  }
}

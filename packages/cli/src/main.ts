import yargs from "yargs";
import { checkCommand, parseCommand } from "./parse-commands.js";
import { runCommand, type RunArgs } from "./run-command.js";
import { UsageError } from "./files.js";
import { processTerminal, type Terminal } from "./terminal.js";

const EXIT_USAGE = 2;

/** Builds the yargs command table. Handlers store their exit status in `result.status`. */
function commandLine(argv: string[], term: Terminal, result: { status: number }) {
  return yargs(argv)
    .scriptName("patchwork")
    .parserConfiguration({ "boolean-negation": false })
    .usage("$0 <command> [options]")
    .command(
      "run <file>",
      "run a Patchwork (.pw) or Threadbare (.json) program",
      (y) =>
        y
          .positional("file", { type: "string", demandOption: true, describe: "program to run" })
          .option("agent", {
            type: "string",
            describe:
              'ACP agent command line, or a preset: "claude", "codex", "gemini" (default: $PATCHWORK_AGENT)',
          })
          .option("no-agent", { type: "boolean", describe: "think blocks evaluate to their prompt" })
          .option("entry", { type: "string", describe: "item to run instead of the default entry point" })
          .option("cwd", { type: "string", describe: "working directory of the program" })
          .option("ask-user", { type: "boolean", describe: "show ask blocks on the terminal and read the answer" })
          .option("mcp-transport", { choices: ["http", "stdio", "acp"] as const, describe: "force the MCP transport for the do tool" })
          .option("permissions", {
            choices: ["allow", "deny", "ask"] as const,
            describe: "answer to the agent's permission requests for tools other than do",
          })
          .option("timeout", { type: "number", describe: "stop the program after this many seconds" })
          .option("idle-timeout", {
            type: "number",
            default: 600,
            describe: "fail a think when the agent sends nothing for this many seconds (time in do blocks excluded)",
          })
          .option("restart-agent-after", {
            type: "number",
            describe: "restart the agent process between thinks after this many sessions, 0 never (default: per agent)",
          })
          .option("verbose", { alias: "v", type: "boolean", describe: "stream the agent's text and tool calls to stderr" }),
      async (args) => {
        result.status = await runCommand(args as unknown as RunArgs, term);
      },
    )
    .command(
      "parse <file>",
      "print the AST of a program as JSON",
      (y) => y.positional("file", { type: "string", demandOption: true }),
      (args) => {
        result.status = parseCommand(args.file, term);
      },
    )
    .command(
      "check <files..>",
      "report syntax errors without running",
      (y) => y.positional("files", { type: "string", array: true, demandOption: true }),
      (args) => {
        result.status = checkCommand(args.files, term);
      },
    )
    .command(
      "mcp-relay <socket> [token]",
      false, // internal: started by ACP agents to reach the MCP `do` server over stdio
      (y) => y.positional("socket", { type: "string" }).positional("token", { type: "string" }),
      async () => {
        const { runMcpRelay } = await import("@patchwork/agent");
        result.status = await runMcpRelay(argv.slice(1));
      },
    )
    .demandCommand(1, "say which command to run: run, parse or check")
    .strictCommands()
    .strictOptions()
    .help()
    .alias("h", "help")
    .version(false)
    .wrap(Math.min(100, process.stdout.columns || 100))
    .fail((message, error) => {
      if (error && !(error instanceof UsageError)) throw error;
      throw new UsageError(message ?? error?.message ?? "invalid command line");
    });
}

/** Runs the CLI and returns its exit status (0 ok, 1 program or syntax error, 2 usage error). */
export async function cli(argv: string[], term: Terminal = processTerminal): Promise<number> {
  const result = { status: 0 };
  try {
    await commandLine(argv, term, result).parseAsync();
    return result.status;
  } catch (error) {
    if (error instanceof UsageError) {
      term.stderr(`patchwork: ${error.message}\nRun 'patchwork --help' for usage.\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/** Entry point of the `patchwork` binary. */
export function main(argv: string[]): void {
  cli(argv).then(
    (status) => process.exit(status),
    (error: unknown) => {
      // An internal failure, not a user error: show it in full so it can be reported.
      processTerminal.stderr(`patchwork: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(70);
    },
  );
}

// The `patchwork` command line.
//
// Start-up matters (a scripting language is run from shells, hooks and editors all day; see
// "Start-up" in docs/benchmarks.md), so this module loads almost nothing by itself:
//   - `fastPath` answers the common command lines (`run FILE` with an entry, arguments,
//     `--agent` and the common flags; `check FILE…`; `--version`) without loading yargs;
//   - everything else goes through the yargs table in `commandLine`, and yargs is itself
//     imported only then;
//   - each handler imports its command's code with `await import("./x.js")` when it runs, so
//     no command's code (nor the parser, interpreter, agent runtime, ACP/MCP SDKs, zod) loads
//     for another command. Keep it so: never import a command module at the top of this file.
// In the bundle (scripts/bundle-cli.mjs, what bin/patchwork.js runs), each such `import()`
// becomes a chunk loaded on demand. Adding a command therefore needs nothing but its entry in
// the table below, with its handler written as
//     async (args) => {
//       const { traceCommand } = await import("./trace-command.js");
//       result.status = await traceCommand(args, term);
//     }
// and `import type` for any types this file needs from those modules. The fast path builds
// `run`'s arguments from RUN_DEFAULTS: give a new `run` option's default there, not inline.
// A test (packages/cli/test/startup.test.ts) checks what the common command lines load.
import { readFileSync } from "node:fs";
import type { Argv } from "yargs";
import type { EvaluatorThreadAhead } from "@patchwork/agent/ahead";
import type { RunArgs } from "./run-command.js";
export { fastRunArgs } from "./fast-args.js";
import { cliVersion, fastCheckArgs, fastRunArgs, RUN_DEFAULTS, threadAhead, wholeInScript } from "./fast-args.js";
import { processTerminal, type Terminal } from "./terminal.js";
import { internalError, reportUsageError, UsageError } from "./usage-error.js";
import type { UsageContext } from "./usage-words.js";

/** `run`'s arguments as yargs parsed them (the positional `name`: the entry, or with `--entry` the first argument). */
function runArgsOf(args: RunArgs & { name?: string }, argv: string[]): RunArgs {
  const entryOption = argv.some((a) => a === "--entry" || a.startsWith("--entry="));
  const { name, verbose, ...rest } = args;
  const level = verboseLevel(verbose, argv);
  if (level !== undefined) (rest as RunArgs).verbose = level;
  // With --entry, every word after the file is an argument; else the first one names the entry.
  const words = name === undefined ? [] : [String(name)];
  return entryOption
    ? { ...rest, args: [...words, ...(rest.args ?? [])], entryOption }
    : { ...rest, ...(name !== undefined ? { entry: String(name) } : {}), entryOption };
}

/**
 * `--verbose`'s level: how often `-v`/`--verbose` is given (yargs counts them), or N of
 * `--verbose=N` (yargs' count would read it as 1); at most 2, none when 0.
 */
function verboseLevel(count: number | boolean | undefined, argv: string[]): number | undefined {
  let level = typeof count === "number" ? count : count ? 1 : 0;
  for (const arg of argv) {
    const m = /^(?:--verbose|-v)=(.*)$/.exec(arg);
    if (!m) continue;
    const value = m[1] === "true" ? "1" : m[1] === "false" ? "0" : m[1]!;
    if (!/^[012]$/.test(value)) throw new UsageError(`--verbose takes 1 or 2 (2: the agent's own log lines too); got ${JSON.stringify(m[1])}`);
    level = Number(value);
  }
  return level > 0 ? Math.min(level, 2) : undefined;
}

/** yargs, and the help texts and usage wording that only its command lines need (usage-words.ts). */
interface YargsModules {
  yargs: (argv: string[]) => Argv;
  words: typeof import("./usage-words.js");
}

async function yargsModules(): Promise<YargsModules> {
  const [{ default: yargs }, words] = await Promise.all([import("yargs"), import("./usage-words.js")]);
  return { yargs, words };
}

/**
 * Builds the yargs command table. Handlers store their exit status in `result.status`;
 * `onRun` (tests) receives `run`'s arguments instead of running.
 */
function commandLine(
  { yargs, words }: YargsModules,
  argv: string[],
  term: Terminal,
  result: { status: number },
  onRun?: (args: RunArgs) => void,
) {
  const { usageMessage, optionNames, TOP_EPILOG } = words;
  // The command yargs entered and its options, for usage errors in the user's words (usage-words.ts).
  const context: UsageContext = { options: ["help", "version"] };
  const known = <T>(command: string, y: Argv<T>): Argv<T> => {
    context.command = command;
    Object.defineProperty(context, "options", { get: () => optionNames(y), configurable: true });
    return y;
  };
  return yargs(argv)
    .scriptName("patchwork")
    .parserConfiguration({ "boolean-negation": false })
    .usage("$0 <command> [options]\n$0 --version")
    .command(
      "run <file> [name] [args..]",
      "run a Patchwork (.pw) or Threadbare (.json) program, or one of its entries with arguments",
      (y) =>
        known("run", y)
          .positional("file", { type: "string", demandOption: true, describe: "program to run" })
          .positional("name", {
            type: "string",
            describe: "entry to run: a skill, command, fun, worker or Trait.method (see `patchwork list`); else the default entry's first argument",
          })
          .positional("args", { type: "string", array: true, describe: "arguments of the entry, converted to its parameter types" })
          .option("agent", {
            type: "string",
            describe:
              'ACP agent command line, or a preset: "claude", "codex", "gemini", "opencode", "qwen", "copilot" (default: $PATCHWORK_AGENT)',
          })
          .option("no-agent", {
            type: "boolean",
            describe: "run without an agent even if $PATCHWORK_AGENT is set: think and ask blocks evaluate to their prompt",
          })
          .option("ask-user", { type: "boolean", describe: "show ask blocks on the terminal and read the answer" })
          .option("verbose", {
            alias: "v",
            type: "count",
            describe:
              "stream the agent's text and tool calls to stderr; show each think's value with its structure (-vv or --verbose=2: the agent's own log lines too)",
          })
          .option("permissions", {
            choices: ["allow", "deny", "ask"] as const,
            describe: "answer to the agent's permission requests for tools other than do",
          })
          .option("idle-timeout", {
            type: "number",
            default: RUN_DEFAULTS.idleTimeout,
            describe: "fail a think when the agent sends nothing for this many seconds (time in do blocks excluded)",
          })
          .option("restart-agent-after", {
            type: "number",
            describe: "restart the agent process between thinks after this many sessions, 0 never (default: per agent)",
          })
          .option("mcp-transport", { choices: ["http", "stdio", "acp"] as const, describe: "force the MCP transport for the do tool" })
          .group(["agent", "no-agent", "ask-user", "verbose", "permissions", "idle-timeout", "restart-agent-after", "mcp-transport"], "Agent:")
          .option("entry", { type: "string", describe: "item to run instead of the default entry point" })
          .option("arg", { type: "string", array: true, describe: "a named argument of the entry: --arg name=value (repeatable)" })
          .option("cwd", { type: "string", describe: "working directory of the program (an existing folder)" })
          .option("timeout", { type: "number", describe: "stop the program after this many seconds" })
          .option("max-workers", { type: "number", describe: "most worker tasks running at once (default 8; the rest wait)" })
          .option("max-thinks", { type: "number", describe: "stop before the run asks the agent more thinks than this (exit 3; $PATCHWORK_MAX_THINKS)" })
          .option("budget", {
            type: "string",
            describe: "stop before a think would pass this cost (2.50, 2.50USD) or number of tokens (2000000tok) (exit 3; $PATCHWORK_BUDGET)",
          })
          .option("keep-session", { type: "boolean", describe: "keep self.session.dir after the run" })
          .option("no-cache", { type: "boolean", describe: "parse every file afresh; read and write no cache entry (docs/cli.md)" })
          .option("json", { type: "boolean", describe: "print one JSON object {value, output} at the end instead of the output as it comes" })
          .group(["entry", "arg", "cwd", "timeout", "max-workers", "max-thinks", "budget", "keep-session", "no-cache", "json"], "Program:")
          .option("trace", { type: "string", describe: "write a JSON-lines trace of the run to this file (docs/trace.md)" })
          .option("trace-text-limit", {
            type: "number",
            describe: "longest agent message, tool content, do output or print kept in the trace (default 2000)",
          })
          .option("record", { type: "string", describe: "record the thinks (prompts, do calls, answers) to this cassette file" })
          .option("replay", { type: "string", describe: "answer thinks from this cassette, with no agent" })
          .option("resume", {
            type: "string",
            describe: "go on with a cassette a killed or failed recording left: replay its answers, ask the agent the rest, append to it",
          })
          .option("replay-missing", {
            choices: ["error", "agent"] as const,
            describe: "a think the cassette lacks: fail (default), or ask the agent and update the cassette",
          })
          .group(["trace", "trace-text-limit", "record", "replay", "resume", "replay-missing"], "Trace and replay:")
          .example("$0 run hello.pw", "run a program (no agent: thinks evaluate to their prompt)")
          .example("$0 run review.pw --agent claude", "run it with Claude Code answering its thinks")
          .example("$0 run tool.pw greet Ada", "run the entry greet with the argument Ada"),
      async (args) => {
        const runArgs = runArgsOf(args as unknown as RunArgs & { name?: string }, argv);
        if (onRun) return onRun(runArgs);
        const { runCommand } = await import("./run-command.js");
        result.status = await runCommand(runArgs, term);
      },
    )
    .command(
      "list <file>",
      "list the entries a program offers (skills, commands, functions, workers) with their signatures",
      (y) =>
        known("list", y)
          .positional("file", { type: "string", demandOption: true })
          .option("json", { type: "boolean", describe: "print the entries as JSON" }),
      async (args) => {
        const { listCommand } = await import("./list-command.js");
        result.status = listCommand(args.file, Boolean(args.json), term);
      },
    )
    .command(
      "test [path]",
      "run the *.test.pw programs under path with their cassettes and compare their output with snapshots",
      (y) =>
        known("test", y)
          .positional("path", { type: "string", describe: "a directory (searched recursively) or one .test.pw file (default .)" })
          .option("update", { type: "boolean", describe: "rewrite the snapshots (and, with --agent, re-record the cassettes)" })
          .option("agent", { type: "string", describe: "with --update: the agent to record the cassettes with (command line or preset)" }),
      async (args) => {
        const { testCommand } = await import("./test-command.js");
        result.status = await testCommand(args as unknown as { path?: string; update?: boolean; agent?: string }, term);
      },
    )
    .command(
      "trace <file>",
      "show a trace written by run --trace: a tree, a mermaid sequence diagram, or an HTML page",
      (y) =>
        known("trace", y)
          .positional("file", { type: "string", demandOption: true, describe: "the trace (JSON lines)" })
          .option("mermaid", { type: "string", describe: "write a mermaid sequenceDiagram to this file (no file: to stdout)" })
          .option("html", { type: "string", describe: "write a self-contained HTML timeline to this file (no file: to stdout)" }),
      async (args) => {
        const { traceCommand } = await import("./trace-command.js");
        result.status = traceCommand(args as unknown as { file: string; mermaid?: string; html?: string }, term);
      },
    )
    .command(
      "acp",
      "serve an editor's agent panel over ACP on stdio: Patchwork prompts run, others go to --agent",
      (y) =>
        known("acp", y)
          .option("agent", {
            type: "string",
            describe: 'the ACP agent behind the proxy: a command line or a preset ("claude", "codex", "gemini", "opencode", "qwen", "copilot"; default: $PATCHWORK_AGENT)',
          })
          .option("mcp-transport", { choices: ["http", "stdio", "acp"] as const, describe: "force the MCP transport for the do tool" })
          .option("idle-timeout", {
            type: "number",
            default: 600,
            describe: "fail a think when the agent sends nothing for this many seconds (time in do blocks excluded)",
          })
          .option("restart-agent-after", {
            type: "number",
            describe: "restart the agent process between thinks after this many thinks, 0 never (default: per agent)",
          }),
      async (args) => {
        const { acpCommand } = await import("./acp-command.js");
        result.status = await acpCommand(args as never, term);
      },
    )
    .command(
      "mcp <files..>",
      "serve the skills and commands of .pw files (or folders of them) as MCP tools, on stdio or --http",
      (y) =>
        known("mcp", y)
          .positional("files", { type: "string", array: true, default: undefined, describe: ".pw files and folders (a folder: its .pw files, watched)" })
          .option("agent", {
            type: "string",
            describe: 'ACP agent for the skills\' thinks: a command line or a preset ("claude", "codex", "gemini", "opencode", "qwen", "copilot"; default: $PATCHWORK_AGENT, else the client\'s sampling)',
          })
          .option("http", { type: "number", describe: "serve Streamable HTTP on 127.0.0.1:PORT instead of stdio ($PATCHWORK_MCP_TOKEN: bearer token)" })
          .option("max-workers", { type: "number", describe: "most tool calls running at once, and worker tasks of each (default 8)" })
          .option("idle-timeout", { type: "number", describe: "fail a think when the agent sends nothing for this many seconds" }),
      async (args) => {
        const { mcpCommand } = await import("./mcp-command.js");
        result.status = await mcpCommand(args as never, term);
      },
    )
    .command(
      "plugin <files..>",
      "write a Claude Code plugin whose skills and commands are the files' @skill and @command entries, served by patchwork mcp",
      (y) =>
        known("plugin", y)
          .positional("files", { type: "string", array: true, demandOption: true, describe: ".pw files or folders of them (their imports are copied too)" })
          .option("out", { type: "string", demandOption: true, describe: "the plugin's folder (new, empty, or a plugin written before)" })
          .option("agent", {
            type: "string",
            describe: 'the agent that answers the skills\' thinks, baked into the plugin\'s patchwork mcp: a preset ("claude", "codex", "gemini", "opencode", "qwen", "copilot") or a command line',
          })
          .option("name", { type: "string", describe: "the plugin's name (default: the first file's default trait in kebab-case)" })
          .option("patchwork", { type: "string", describe: 'the command line that starts Patchwork in the plugin\'s .mcp.json (default "patchwork")' }),
      async (args) => {
        const { pluginCommand } = await import("./plugin-command.js");
        result.status = pluginCommand(args as never, term);
      },
    )
    .command(
      "parse <file>",
      "print the AST of a program as JSON",
      (y) => known("parse", y).positional("file", { type: "string", demandOption: true, describe: "the program" }),
      async (args) => {
        const { parseCommand } = await import("./parse-commands.js");
        result.status = parseCommand(args.file, term);
      },
    )
    .command(
      "check <files..>",
      "report syntax errors and static-check findings without running",
      (y) =>
        known("check", y)
          .positional("files", { type: "string", array: true, default: undefined, describe: "programs to check (one or more)" })
          .option("no-cache", { type: "boolean", describe: "check every file afresh; read and write no cache entry" }),
      async (args) => {
        const { checkCommand } = await import("./check-command.js");
        result.status = await checkCommand(args.files ?? [], term, { noCache: args.noCache });
      },
    )
    .command(
      "fmt [files..]",
      "format programs in the canonical layout (a directory: every .pw file under it; no file: stdin to stdout)",
      (y) =>
        known("fmt", y)
          .positional("files", { type: "string", array: true, default: [] as string[], describe: "files or directories (none: stdin to stdout)" })
          .option("check", { type: "boolean", default: false, describe: "change nothing; list files that would change (exit 1 if any)" }),
      async (args) => {
        const { fmtCommand } = await import("./fmt-command.js");
        result.status = fmtCommand({ files: args.files, check: args.check }, term, () => readFileSync(0, "utf8"));
      },
    )
    .command(
      "lsp",
      "run the language server on stdin/stdout (for editors)",
      (y) => known("lsp", y).option("stdio", { type: "boolean", describe: "use stdio (the default and only transport)" }),
      async () => {
        const { lspCommand } = await import("./lsp-command.js");
        result.status = await lspCommand();
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
    .demandCommand(1, "say which command to run: run, acp, mcp, plugin, list, test, trace, parse, check, fmt or lsp")
    .strictCommands()
    .strictOptions()
    .help()
    .alias("h", "help")
    .version("version", "print the version", cliVersion())
    .example("$0 run hello.pw", "run a program; with no agent configured, thinks evaluate to their prompt")
    .example("$0 run review.pw --agent claude", "run it with an ACP agent answering its thinks")
    .example("$0 check *.pw", "report errors without running")
    .example("$0 run --help", "the options of run")
    .epilog(TOP_EPILOG)
    .wrap(Math.min(100, process.stdout.columns || 100))
    .fail((message, error) => {
      if (error && !(error instanceof UsageError)) throw error;
      throw new UsageError(usageMessage(message ?? error?.message ?? "invalid command line", argv, context));
    });
}

/** `run`'s arguments as the full command line (yargs) reads `argv` (tests compare the fast path with it). */
export async function yargsRunArgs(argv: string[]): Promise<RunArgs | undefined> {
  let got: RunArgs | undefined;
  await commandLine(await yargsModules(), argv, processTerminal, { status: 0 }, (args) => (got = args))
    .exitProcess(false)
    .parseAsync();
  return got;
}

/**
 * The most common command lines, decided without yargs (which costs more start-up time than
 * the rest of a small run: ≈ 0.15 s here): exactly `--version`, `check FILE…`, and `run FILE`
 * with an entry, its arguments and the common options, in any order (`fastRunArgs`). Returns
 * undefined for anything else (other options, help, other commands), which yargs then
 * handles, with the same handlers and defaults.
 */
async function fastPath(argv: string[], term: Terminal, options: CliOptions): Promise<number | undefined> {
  if (argv.length === 1 && argv[0] === "--version") {
    term.stdout(`${cliVersion()}\n`);
    return 0;
  }
  const run = fastRunArgs(argv);
  if (run) {
    // Without an agent or a recording, the run is whole in the fast-commands script (decision
    // 0018), unless the launcher found it was not (launch.ts).
    if (!options.scriptTried && wholeInScript(run)) {
      const viaScript = await (await import("./fast-run.js")).fastRun(run, term);
      if (viaScript !== undefined) return viaScript;
    }
    // A replay going on with an agent starts its thread before the run's code loads (run-command.ts: `replaysFirst`).
    const ahead =
      options.ahead ??
      (threadAhead(run)
        ? new (await import("@patchwork/agent/ahead")).EvaluatorThreadAhead({ cwd: process.cwd() })
        : undefined);
    try {
      const { runCommand } = await import("./run-command.js");
      return await runCommand(run, term, ahead);
    } finally {
      ahead?.discard(); // (unless the run took it)
    }
  }
  const files = fastCheckArgs(argv);
  if (files) return (await import("./check-command.js")).checkCommand(files, term);
  return undefined;
}

/** How the launcher (launch.ts) hands a command line over. */
export interface CliOptions {
  /** The fast-commands script was given this `run` and left it to the ES modules: it is not asked again. */
  scriptTried?: boolean;
  /** The evaluator thread of a replay going on with an agent, started by the launcher. */
  ahead?: EvaluatorThreadAhead;
}

/** Runs the CLI and returns its exit status (0 ok, 1 program or syntax error, 2 usage error). */
export async function cli(argv: string[], term: Terminal = processTerminal, options: CliOptions = {}): Promise<number> {
  const result = { status: 0 };
  try {
    const fast = await fastPath(argv, term, options);
    if (fast !== undefined) return fast;
    await commandLine(await yargsModules(), argv, term, result).parseAsync();
    return result.status;
  } catch (error) {
    if (error instanceof UsageError) return reportUsageError(error, term);
    throw error;
  }
}

/** Entry point of the `patchwork` binary (after the launcher, launch.ts). */
export function main(argv: string[], options: CliOptions = {}): void {
  cli(argv, processTerminal, options).then((status) => process.exit(status), internalError);
}

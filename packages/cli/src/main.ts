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
// and `import type` for any types this file needs from those modules. Options are not written
// here: each is one entry of option-table.ts, with the commands it applies to and its default
// (the fast path reads `run`'s from the same table).
// A test (packages/cli/test/startup.test.ts) checks what the common command lines load.
import { readFileSync } from "node:fs";
import type { Argv } from "yargs";
import type { EvaluatorThreadAhead } from "@patchwork/agent/ahead";
import type { RunArgs } from "./run-command.js";
export { fastRunArgs } from "./fast-args.js";
import { cliVersion, fastCheckArgs, fastRunArgs, threadAhead, wholeInScript } from "./fast-args.js";
import { optionsOf, type CommandName } from "./option-table.js";
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

/**
 * The options of `command`, from the one table (option-table.ts): each with its own wording for
 * this command, its default and, for `run`, its heading in `run --help`.
 */
function withOptions<T>(y: Argv<T>, command: CommandName): Argv<T> {
  const groups = new Map<string, string[]>();
  for (const o of optionsOf(command)) {
    const own = o.commands[command];
    const fallback = o.defaults?.[command];
    y = y.option(o.name, {
      type: o.type,
      ...(o.array ? { array: true } : {}),
      ...(o.alias ? { alias: o.alias } : {}),
      ...(o.choices ? { choices: o.choices } : {}),
      ...(fallback !== undefined ? { default: fallback } : {}),
      ...(o.required?.[command] ? { demandOption: true } : {}),
      describe: typeof own === "string" ? own : o.describe,
    }) as Argv<T>;
    if (o.group && command === "run") groups.set(o.group, [...(groups.get(o.group) ?? []), o.name]);
  }
  for (const [group, names] of groups) y = y.group(names, group);
  return y;
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
        withOptions(known("run", y), "run")
          .positional("file", { type: "string", demandOption: true, describe: "program to run" })
          .positional("name", {
            type: "string",
            describe: "entry to run: a skill, command, fun, worker or Trait.method (see `patchwork list`); else the default entry's first argument",
          })
          .positional("args", { type: "string", array: true, describe: "arguments of the entry, converted to its parameter types" })
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
      (y) => withOptions(known("list", y), "list").positional("file", { type: "string", demandOption: true }),
      async (args) => {
        const { listCommand } = await import("./list-command.js");
        result.status = listCommand(String(args.file), Boolean(args.json), term);
      },
    )
    .command(
      "test [path]",
      "run the *.test.pw programs under path with their cassettes and compare their output with snapshots",
      (y) =>
        withOptions(known("test", y), "test").positional("path", {
          type: "string",
          describe: "a directory (searched recursively) or one .test.pw file (default .)",
        }),
      async (args) => {
        const { testCommand } = await import("./test-command.js");
        result.status = await testCommand(args as never, term);
      },
    )
    .command(
      "trace <file>",
      "show a trace written by run --trace: a tree, a mermaid sequence diagram, or an HTML page",
      (y) => withOptions(known("trace", y), "trace").positional("file", { type: "string", demandOption: true, describe: "the trace (JSON lines)" }),
      async (args) => {
        const { traceCommand } = await import("./trace-command.js");
        result.status = traceCommand(args as unknown as { file: string; mermaid?: string; html?: string }, term);
      },
    )
    .command(
      "acp",
      "serve an editor's agent panel over ACP on stdio: Patchwork prompts run, others go to --agent",
      (y) => withOptions(known("acp", y), "acp"),
      async (args) => {
        const { acpCommand } = await import("./acp-command.js");
        result.status = await acpCommand(args as never, term);
      },
    )
    .command(
      "mcp <files..>",
      "serve the skills and commands of .pw files (or folders of them) as MCP tools, on stdio or --http",
      (y) =>
        withOptions(known("mcp", y), "mcp").positional("files", {
          type: "string",
          array: true,
          default: undefined,
          describe: ".pw files and folders (a folder: its .pw files, watched)",
        }),
      async (args) => {
        const { mcpCommand } = await import("./mcp-command.js");
        result.status = await mcpCommand(args as never, term);
      },
    )
    .command(
      "plugin <files..>",
      "write a Claude Code plugin whose skills and commands are the files' @skill and @command entries, served by patchwork mcp",
      (y) =>
        withOptions(known("plugin", y), "plugin").positional("files", {
          type: "string",
          array: true,
          demandOption: true,
          describe: ".pw files or folders of them (their imports are copied too)",
        }),
      async (args) => {
        const { pluginCommand } = await import("./plugin-command.js");
        result.status = pluginCommand(args as never, term);
      },
    )
    .command(
      "parse <file>",
      "print the AST of a program as JSON",
      (y) => withOptions(known("parse", y), "parse").positional("file", { type: "string", demandOption: true, describe: "the program" }),
      async (args) => {
        const { parseCommand } = await import("./parse-commands.js");
        result.status = parseCommand(String(args.file), term);
      },
    )
    .command(
      "check <files..>",
      "report syntax errors and static-check findings without running",
      (y) =>
        withOptions(known("check", y), "check").positional("files", {
          type: "string",
          array: true,
          default: undefined,
          describe: "programs to check, or folders (every .pw file under them)",
        }),
      async (args) => {
        const { checkCommand } = await import("./check-command.js");
        result.status = await checkCommand((args.files as string[] | undefined) ?? [], term, { noCache: Boolean(args.noCache) });
      },
    )
    .command(
      "fmt [files..]",
      "format programs in the canonical layout (a directory: every .pw file under it; no file: stdin to stdout)",
      (y) =>
        withOptions(known("fmt", y), "fmt").positional("files", {
          type: "string",
          array: true,
          default: [] as string[],
          describe: "files or directories (none: stdin to stdout)",
        }),
      async (args) => {
        const { fmtCommand } = await import("./fmt-command.js");
        result.status = fmtCommand({ files: args.files as string[], check: Boolean(args.check) }, term, () => readFileSync(0, "utf8"));
      },
    )
    .command(
      "lsp",
      "run the language server on stdin/stdout (for editors)",
      (y) => withOptions(known("lsp", y), "lsp"),
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
    if (error instanceof UsageError) return reportUsageError(error, term, argv);
    throw error;
  }
}

/** Entry point of the `patchwork` binary (after the launcher, launch.ts). */
export function main(argv: string[], options: CliOptions = {}): void {
  cli(argv, processTerminal, options).then((status) => process.exit(status), internalError);
}

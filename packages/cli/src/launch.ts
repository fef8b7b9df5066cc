// The `patchwork` command's first module (bin/patchwork.js). In the bundle it is a CommonJS file,
// bundle/launch.cjs (scripts/bundle-cli.mjs), so that the command lines it answers whole never
// start Node's ES module loader nor compile an ES module (decision 0020): `--version`; `run FILE`
// without an agent, recording or trace (a replay with no agent included), which it gives to the
// fast-commands script (a classic script with a V8 code cache: decision 0018); and `check FILE…`
// (check-command.ts, which loads the parser and the analysis as a script of their own on a miss).
// Every other command line, and a run the script leaves, goes to main.ts (bundle/index.js),
// imported then; for a replay that goes on with an agent, its evaluator thread is started first.
import { cliVersion, fastCheckArgs, fastRunArgs, threadAhead, wholeInScript } from "./fast-args.js";
import type { EvaluatorThreadAhead } from "@patchwork/agent/ahead";
import type { RunArgs } from "./run-command.js";
import { processTerminal } from "./terminal.js";
import { internalError, reportUsageError, UsageError } from "./usage-error.js";

/** Runs the command line and exits with its status. */
export function launch(argv: string[]): void {
  const run = fastRunArgs(argv);
  answer(argv, run).then(async (status) => {
    if (status !== undefined) process.exit(status);
    // Node ≥ 22: main's ES modules compiled from the cache directory (decision 0030).
    await (await import("./compile-cache.js")).enableCompileCache(argv);
    // A replay going on with an agent: its evaluator thread starts before main's modules load.
    const ahead = await replayThread(run);
    // (A computed specifier: the bundler leaves main's ES modules out of this file.)
    const mainModule = new URL("./index.js", import.meta.url).href;
    return (import(mainModule) as Promise<typeof import("./main.js")>).then(({ main }) => main(argv, { scriptTried: true, ahead }));
  }).catch(internalError);
}

/**
 * The evaluator thread of a run that replays first and goes on with an agent (`--resume`,
 * `--replay-missing=agent`, run-command.ts `replaysFirst`), started now: the thread's start
 * (≈ 40 ms for a Node 20 thread here) then overlaps the loading of main's modules too.
 */
async function replayThread(run: RunArgs | undefined): Promise<EvaluatorThreadAhead | undefined> {
  if (!run || !threadAhead(run)) return undefined;
  return new (await import("@patchwork/agent/ahead")).EvaluatorThreadAhead({ cwd: process.cwd() });
}

/** The exit status of a command line answered here; undefined: main.ts's. */
async function answer(argv: string[], run: RunArgs | undefined): Promise<number | undefined> {
  try {
    return await answerOrThrow(argv, run);
  } catch (error) {
    if (error instanceof UsageError) return reportUsageError(error, processTerminal, argv);
    throw error;
  }
}

async function answerOrThrow(argv: string[], run: RunArgs | undefined): Promise<number | undefined> {
  if (argv.length === 1 && argv[0] === "--version") {
    processTerminal.stdout(`${cliVersion()}\n`);
    return 0;
  }
  // (Imported when needed: in launch.cjs each is a function that runs its module once, so that
  // `--version` loads neither node:crypto nor the cache.)
  const files = fastCheckArgs(argv);
  if (files) return (await import("./check-command.js")).checkCommand(files, processTerminal);
  return run && wholeInScript(run) ? (await import("./fast-run.js")).fastRun(run, processTerminal) : undefined;
}

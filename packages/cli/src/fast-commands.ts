// `patchwork run FILE …` when it needs nothing but the interpreter and the cache (no agent, no
// recording or trace, no workers). In the bundle this module is also a classic script,
// `fast-commands.script.js` (scripts/bundle-cli.mjs), which main.ts compiles with a V8 code
// cache (cache.ts `loadScript`), so that such a run loads one script whose code is already
// compiled instead of the run path's ES modules (Node 20 keeps no compiled code of ES modules):
// decision 0018. The script holds its own copy of the modules below; nothing of it is shared
// with the ES modules but plain data (the command line) and the terminal, and a run it does not
// hold whole is left, untouched, to the ES modules (undefined). Its usage errors are reported
// here, with the same words.
import { runInProcessOnly, type RunArgs } from "./run-command.js";
import type { Terminal } from "./terminal.js";
import { reportUsageError, UsageError } from "./usage-error.js";

/** Runs `run` if this module holds all it needs: its exit status, or undefined. */
export async function fastRun(run: RunArgs, term: Terminal): Promise<number | undefined> {
  try {
    return await runInProcessOnly(run, term);
  } catch (error) {
    if (error instanceof UsageError) return reportUsageError(error, term, ["run"]);
    throw error;
  }
}

export type FastCommands = typeof import("./fast-commands.js");

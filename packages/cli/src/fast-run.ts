// `run` by the fast-commands script (decision 0018): from the launcher (launch.ts) and from
// main.ts's fast path.
import { loadScript, ParseCache } from "./cache.js";
import type { FastCommands } from "./fast-commands.js";
import type { RunArgs } from "./run-command.js";
import type { Terminal } from "./terminal.js";
import { EXIT_USAGE } from "./usage-error.js";

/**
 * `run` by fast-commands.ts: in the bundle, its classic script compiled with a V8 code cache
 * (cache.ts `loadScript`), so that a run without an agent loads one script instead of the run
 * path's ES modules; from the sources, its module. Undefined when the run needs more than the
 * script holds ($PATCHWORK_AGENT, workers): the ES modules then run it, from the start. (The
 * command line options that need more never load the script: `wholeInScript`.)
 */
export async function fastRun(run: RunArgs, term: Terminal): Promise<number | undefined> {
  const script = await loadScript<FastCommands>("fast-commands", ParseCache.open({ noCache: run.noCache }), () => import("./fast-commands.js"));
  const status = await script.exports.fastRun(run, term);
  // Its compiled code is kept once it has run a program (not after a usage error, nor when it
  // left the run to the ES modules): the entry then holds what a run runs.
  if (status !== undefined && status !== EXIT_USAGE) script.done();
  return status;
}

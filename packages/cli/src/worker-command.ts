/**
 * `patchwork worker --queue URL [--agent A] [--concurrency N]`: takes a fleet's worker tasks
 * and runs them here (packages/fleet, docs/fleet.md), one line on stderr per task, until a
 * signal: the first (Ctrl-C, SIGTERM) lets the running tasks finish and takes no more, the
 * second hands them back to the queue at once (another worker replays their journaled thinks).
 */
import type { AsyncAgent, RecyclingAgent, ThinkFailure } from "@patchwork/agent";
import { resolveAgentCommand } from "./presets.js";
import { workingDirectory } from "./files.js";
import type { Terminal } from "./terminal.js";
import { EXIT_USAGE, UsageError } from "./usage-error.js";

export interface WorkerArgs {
  queue?: string;
  agent?: string;
  noAgent?: boolean;
  concurrency?: number;
  cwd?: string;
}

const STOP_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export async function workerCommand(args: WorkerArgs, term: Terminal): Promise<number> {
  const url = args.queue ?? process.env.PATCHWORK_QUEUE;
  if (url === undefined || url.trim() === "") throw new UsageError("worker needs the fleet's queue: --queue redis://HOST:PORT (or $PATCHWORK_QUEUE)");
  if (args.concurrency !== undefined && !(Number.isInteger(args.concurrency) && args.concurrency >= 1)) {
    throw new UsageError("--concurrency takes a whole number ≥ 1");
  }
  if (args.agent !== undefined && args.noAgent) throw new UsageError("--agent and --no-agent exclude each other");
  const cwd = workingDirectory(args.cwd);
  const agentLine = args.noAgent ? undefined : (args.agent ?? process.env.PATCHWORK_AGENT)?.trim() || undefined;
  const command = agentLine === undefined ? undefined : resolveAgentCommand(agentLine);
  const { startFleetWorker, FleetError, parseQueueUrl } = await import("@patchwork/fleet");
  let address;
  try {
    address = parseQueueUrl(url);
  } catch (error) {
    if (!(error instanceof FleetError)) throw error;
    term.stderr(`patchwork: error[${error.code}]: ${error.message}\n`);
    return EXIT_USAGE;
  }
  const log = (line: string) => term.stderr(`[worker] ${line}\n`);
  let agent: RecyclingAgent | null = null;
  if (command !== undefined) {
    const { RecyclingAgent } = await import("@patchwork/agent");
    agent = await RecyclingAgent.start({
      command,
      cwd,
      permissions: { do: "allow", other: "deny" },
      onEvent: (event) => {
        if (event.type === "agent-started") log(`agent started (pid ${event.pid})`);
      },
    });
  }
  // The tasks share the agent: a task's run must not close it.
  const shared: AsyncAgent | null = agent && { think: (...a) => agent!.think(...a), prepare: (hint) => agent!.prepare?.(hint) };
  let worker;
  try {
    worker = await startFleetWorker({
      address,
      cwd,
      agent: shared,
      concurrency: args.concurrency ?? 8,
      log,
      // A think that fails transiently is asked again as the run's --retries say (its jobs carry them).
      ...(agent ? { classify: (failure: ThinkFailure) => agent!.transient(failure) } : {}),
      ...(process.env.PATCHWORK_FLEET_LOCK_MS ? { lockMs: Number(process.env.PATCHWORK_FLEET_LOCK_MS) } : {}),
    });
  } catch (error) {
    await agent?.close();
    if (!(error instanceof FleetError)) throw error;
    term.stderr(`patchwork: error[${error.code}]: ${error.message}\n`);
    return EXIT_USAGE;
  }
  let signals = 0;
  const onSignal = () => {
    signals++;
    log(signals === 1 ? "stopping: the running tasks finish, no new ones are taken (again: hand them back now)" : "handing the running tasks back");
    void worker.stop(signals > 1);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  await worker.closed;
  for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  await agent?.close();
  log("stopped");
  return 0;
}

/**
 * `patchwork run … --queue URL` (or `$PATCHWORK_QUEUE`): the run's worker tasks go to a fleet
 * (packages/fleet, docs/fleet.md). Its id is the cassette's (`--record`/`--resume FILE`: the
 * same file finds the same journals in Redis again) or a new one.
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { Fleet } from "@patchwork/fleet";
import type { Recording } from "./recording.js";
import type { RunArgs } from "./run-shared.js";
import type { Terminal } from "./terminal.js";
import { EXIT_USAGE } from "./usage-error.js";
import { batchPolicy } from "./batch-options.js";

/** The queue's URL of this run, if it has one. */
export function queueOf(args: RunArgs, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = args.queue ?? env.PATCHWORK_QUEUE;
  return url !== undefined && url.trim() !== "" ? url.trim() : undefined;
}

/** Opens the fleet for a run; a bad URL or a Redis that does not answer: said on stderr, exit 2 (`{status}`). */
export async function openFleet(
  url: string,
  args: RunArgs,
  cwd: string,
  recording: Recording | null | undefined,
  term: Terminal,
): Promise<{ fleet: Fleet } | { status: number }> {
  const { Fleet, FleetError, parseQueueUrl } = await import("@patchwork/fleet");
  const cassette = args.resume ?? args.record;
  // The run's retries and rate travel with its jobs: every worker applies them (docs/fleet.md).
  const { retries, retryBaseMs, rate, rateWindowMs } = batchPolicy(args);
  try {
    const fleet = await Fleet.open({
      address: parseQueueUrl(url),
      cwd,
      maxWorkers: args.maxWorkers ?? 8,
      batch: { rate: rate ?? null, ...(retries !== undefined ? { retries } : {}), ...(retryBaseMs !== undefined ? { retryBaseMs } : {}), ...(rateWindowMs !== undefined ? { rateWindowMs } : {}) },
      ...(cassette !== undefined ? { run: createHash("sha256").update(resolve(cassette)).digest("hex").slice(0, 16) } : {}),
      ...(recording?.replay ? { replay: recording.replay.cassette } : {}),
    });
    return { fleet };
  } catch (error) {
    if (!(error instanceof FleetError)) throw error;
    term.stderr(`patchwork: error[${error.code}]: ${error.message}\n`);
    return { status: EXIT_USAGE };
  }
}

import { writeSync } from "node:fs";
import type { Terminal } from "./terminal.js";

/** A mistake in the command line: reported as `patchwork: MESSAGE` plus a hint, exit status 2. */
export class UsageError extends Error {}

export const EXIT_USAGE = 2;

/** Reports a usage error on stderr; returns the exit status. */
export function reportUsageError(error: UsageError, term: Terminal): number {
  term.stderr(`patchwork: ${error.message}\nRun 'patchwork --help' for usage.\n`);
  return EXIT_USAGE;
}

/** An internal failure, not a user error: shown in full so that it can be reported; exit status 70. */
export function internalError(error: unknown): never {
  writeSync(2, `patchwork: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(70);
}

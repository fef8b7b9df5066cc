import type { Terminal } from "./terminal.js";

/** A mistake in the command line: reported as `patchwork: MESSAGE` plus a hint, exit status 2. */
export class UsageError extends Error {}

export const EXIT_USAGE = 2;

/** Reports a usage error on stderr; returns the exit status. */
export function reportUsageError(error: UsageError, term: Terminal): number {
  term.stderr(`patchwork: ${error.message}\nRun 'patchwork --help' for usage.\n`);
  return EXIT_USAGE;
}

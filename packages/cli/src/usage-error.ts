import { writeSync } from "node:fs";
import { COMMANDS } from "./option-table.js";
import type { Terminal } from "./terminal.js";

/** A mistake in the command line: reported as `patchwork: MESSAGE` plus a hint, exit status 2. */
export class UsageError extends Error {}


export const EXIT_USAGE = 2;

/**
 * Reports a usage error on stderr, pointing at the help of the command typed (`argv[0]`, when
 * it is one: `patchwork run --help`), else at `patchwork --help`; returns the exit status.
 */
export function reportUsageError(error: UsageError, term: Terminal, argv: readonly string[] = []): number {
  const command = (COMMANDS as readonly string[]).includes(argv[0] ?? "") ? `${argv[0]} ` : "";
  term.stderr(`patchwork: ${error.message}\nRun 'patchwork ${command}--help' for usage.\n`);
  return EXIT_USAGE;
}

/** An internal failure, not a user error: shown in full so that it can be reported; exit status 70. */
export function internalError(error: unknown): never {
  writeSync(2, `patchwork: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(70);
}

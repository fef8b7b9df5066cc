/**
 * Values too large for a command's environment (docs/security.md, "Values in shell commands").
 * A command's values travel as environment variables `PW_n` (compiler/shell.ts), and the
 * kernel refuses an `execve` whose one variable exceeds 128 KiB or whose environment and
 * arguments exceed about 2 MB (E2BIG): such a command could never start. When a command's
 * values pass `ENV_VALUES_MAX` in all (or its text, thousands of references of an array spread,
 * passes `COMMAND_TEXT_MAX`), they go instead to a file of sh assignments (`PW_1='…'`, each value
 * single-quoted: `shellQuote`, property-tested) followed by the command's text, in a private
 * temporary folder, and sh runs that file (`. "$PW_VALUES"`); the references in the command are
 * unchanged, so sh still expands each value once and never parses it as code. The
 * values become shell variables of that command only, not exported: the programs it starts do
 * not inherit megabytes of environment. The folder is removed when the command ends.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellQuote } from "./shell-quote.js";

/** The most bytes of `PW_n` values a command gets in its environment; past it, through a file. */
export const ENV_VALUES_MAX = 64 * 1024;
/** The longest command text passed as an argument (the kernel's limit on one is 128 KiB); past it, through the file too. */
export const COMMAND_TEXT_MAX = 64 * 1024;

export interface ShellValues {
  command: string;
  env: Record<string, string>;
  /** Removes the values' file, if one was written. */
  cleanup(): void;
}

const VALUE_NAME = /^PW_\d+$/;

/** The command and environment to start: as given, or with the values in a file (see above). */
export function shellValues(command: string, env: Record<string, string> | undefined): ShellValues {
  const given = env ?? {};
  let total = 0;
  for (const [name, value] of Object.entries(given)) if (VALUE_NAME.test(name)) total += name.length + 2 + Buffer.byteLength(value);
  if (total <= ENV_VALUES_MAX && command.length <= COMMAND_TEXT_MAX) return { command, env: given, cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), "pw-values-"));
  const file = join(dir, "values.sh");
  const rest: Record<string, string> = {};
  const lines: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (VALUE_NAME.test(name)) lines.push(`${name}=${shellQuote(value)}\n`);
    else rest[name] = value;
  }
  try {
    writeFileSync(file, `${lines.join("")}${command}\n`, { mode: 0o600 });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { command: `. "$PW_VALUES"`, env: { ...rest, PW_VALUES: file }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

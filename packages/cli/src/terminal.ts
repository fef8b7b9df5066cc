import { writeSync } from "node:fs";
import { createRequire } from "node:module";

/** Where the CLI writes. Synchronous so that output interleaves in the order it was produced. */
export interface Terminal {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stderr is an interactive terminal (spinners, prompts). */
  readonly stderrIsTTY: boolean;
  /** True when stdout is an interactive terminal. */
  readonly stdoutIsTTY: boolean;
}

function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset += writeSync(fd, buffer, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") continue; // non-blocking pipe momentarily full
      if (code === "EPIPE") return; // reader went away (e.g. `| head`): drop quietly
      throw error;
    }
  }
}

// isatty, not process.stdout/stderr.isTTY: making those streams sets a pipe non-blocking (then an
// evaluator thread's writes to it fail with EAGAIN when it is full) and costs start-up time.
let tty: typeof import("node:tty") | undefined;
const isTerminal = (fd: number): boolean => (tty ??= createRequire(import.meta.url)("node:tty") as typeof import("node:tty")).isatty(fd);

export const processTerminal: Terminal = {
  stdout: (text) => writeAll(1, text),
  stderr: (text) => writeAll(2, text),
  get stderrIsTTY() {
    return isTerminal(2);
  },
  get stdoutIsTTY() {
    return isTerminal(1);
  },
};

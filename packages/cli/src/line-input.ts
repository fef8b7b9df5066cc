import { readSync } from "node:fs";
import type { Terminal } from "./terminal.js";

/**
 * A synchronous line reader on standard input, for `--ask-user` while the evaluator runs on
 * this thread. Shows the prompt on stderr; returns null at end of input.
 */
export function readLineSync(term: Terminal): (prompt: string) => string | null {
  return (prompt: string) => {
    term.stderr(prompt);
    const bytes: number[] = [];
    const one = Buffer.alloc(1);
    for (;;) {
      let n: number;
      try {
        n = readSync(0, one, 0, 1, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") continue;
        if (code === "EOF") n = 0;
        else throw error;
      }
      if (n === 0) return bytes.length > 0 ? Buffer.from(bytes).toString("utf8") : null;
      if (one[0] === 10) return Buffer.from(bytes).toString("utf8").replace(/\r$/, "");
      bytes.push(one[0]!);
    }
  };
}

/**
 * Static-check diagnostics (PW5xxx): one table of codes, severities and wordings, used by
 * `patchwork check` and the language server alike. Listed in docs/errors/check.md.
 * Where a check predicts a runtime error, the wording is the runtime's (PW3002, PW3007, …).
 */
import type { Severity } from "@patchwork/parser";
import { foreignName } from "@patchwork/parser/core";

type Args = Record<string, string | number>;

interface CheckDef {
  severity: Severity;
  message: (a: Args) => string;
}

export const CHECKS = {
  /** A name bound nowhere: the run fails with PW3002 when it gets there. */
  PW5001: {
    severity: "error",
    message: (a) => {
      const foreign = foreignName(String(a.name));
      return `undefined variable '${a.name}'${a.detail ? ` (${a.detail})` : foreign ? `: ${foreign}` : ""}`;
    },
  },
  /** Too many (or too few, for a builtin) arguments to a known function: PW3007 at run time. */
  PW5002: { severity: "error", message: (a) => `${a.name} takes ${a.expected} argument(s), got ${a.actual}` },
  /** `break` / `continue` outside of a loop: PW3014 at run time. */
  PW5003: { severity: "error", message: (a) => `'${a.name}' outside of a loop` },
  /** An import that cannot be resolved: PW3040 / PW3041 at run time. */
  PW5004: { severity: "error", message: (a) => `cannot import '${a.name}': ${a.detail}` },
  /** A local variable that nothing reads. */
  PW5005: { severity: "hint", message: (a) => `'${a.name}' is declared but never used` },
  /** `${f}` where f is a function: it renders the function, never a value. */
  PW5006: { severity: "warning", message: (a) => `'${a.name}' is a ${a.what}: \${${a.name}} renders the ${a.what} itself, not a value (did you mean \${${a.name}()}?)` },
  /** `import {x} from "./m.pw"` where m does not export x: PW3042 at run time. */
  PW5007: { severity: "error", message: (a) => `module '${a.module}' has no export '${a.name}'${a.detail ? `: ${a.detail}` : ""}` },
  /** `do { … }` in code: only a prompt's text may hold do blocks. */
  PW5008: { severity: "error", message: () => `'do' blocks are only allowed inside a prompt (think { … } or ask { … })` },
  /** Two items (functions, traits, imports) of one name in a module: PW3003 at load time. */
  PW5009: { severity: "error", message: (a) => `'${a.name}' is already declared in this scope` },
  /** `self.delegate(…).settle()` as a statement: its outcomes are never awaited. */
  PW5010: {
    severity: "warning",
    message: () => "the outcomes of settle() are never awaited: write self.delegate(tasks).settle().await (tasks nothing awaits are cancelled when their starter ends)",
  },
  /** `p.settle()` where `p` only ever holds a delegation started without it: PW3008 at run time. */
  PW5011: {
    severity: "error",
    message: (a) =>
      `settle(): applies to a delegation as it starts: write self.delegate(tasks).settle() where '${a.name}' is given its delegation (one started without it is fail-fast)`,
  },
  /** A worker reads a top-level variable of its file (PW3002 at run time). */
  PW5012: {
    severity: "error",
    message: (a) =>
      `worker '${a.worker}' uses the top-level variable '${a.name}', which a worker does not see (the file's top-level statements do not run in a worker task): pass it as an argument, \`worker ${a.worker}(${a.name}, …)\` called as \`${a.worker}(${a.name})\``,
  },
} satisfies Record<string, CheckDef>;

export type CheckCode = keyof typeof CHECKS;

/** A static-check finding before positions are attached: offsets into the unit's text. */
export interface Finding {
  code: CheckCode;
  start: number;
  end: number;
  args: Args;
}

export function findingMessage(f: Finding): string {
  return CHECKS[f.code].message(f.args);
}

/**
 * Runtime errors: one table of codes and wordings, one choke point (`raise`) that builds
 * the error. Call sites pass a code and its parameters, never a sentence.
 * The codes are listed with examples in docs/errors/runtime.md.
 */
import type { Span } from "@patchwork/parser";
import { foreignName } from "@patchwork/parser/core";
import type { Value } from "./values.js";

type Args = Record<string, string | number>;

export const RUNTIME_MESSAGES = {
  PW3001: (a: Args) => `uncaught exception: ${a.text}`,
  PW3002: (a: Args) => `undefined variable '${a.name}'${undefinedDetail(a)}`,
  PW3003: (a: Args) => `'${a.name}' is already declared in this scope`,
  PW3004: (a: Args) => `type mismatch: ${a.what} expects ${a.expected}, got ${a.actual}`,
  PW3005: (a: Args) => `operator '${a.op}' cannot be applied to ${a.left}${a.right ? ` and ${a.right}` : ""}`,
  PW3006: (a: Args) => `${a.what} is not callable (it is ${a.actual})`,
  PW3007: (a: Args) => `${a.name} takes ${a.expected} argument(s), got ${a.actual}`,
  PW3008: (a: Args) => `${a.name}(): ${a.detail}`,
  PW3009: (a: Args) => `${a.type} has no method '${a.name}'${a.hint ? `: ${a.hint}` : ""}`,
  PW3010: (a: Args) => `cannot ${a.action} on ${a.actual}`,
  PW3011: (a: Args) => `cannot iterate over ${a.actual}`,
  PW3012: (a: Args) => `division by zero`,
  PW3013: (a: Args) => `cannot destructure ${a.actual}: ${a.detail}`,
  PW3014: (a: Args) => `'${a.name}' outside of a loop`,
  PW3020: (a: Args) => `command failed with exit status ${a.status}: ${a.command}${a.stderr ? `\n${a.stderr}` : ""}`,
  PW3021: (a: Args) => `file error: ${a.detail}`,
  PW3022: (a: Args) => `invalid JSON: ${a.detail}`,
  PW3023: (a: Args) => `not a number: ${a.text} (number() takes a decimal or JSON number such as 42, -3.5 or 1e3)`,
  PW3025: (a: Args) => `cannot pass this value to a command: ${a.detail}`,
  PW3030: (a: Args) => `the reply does not match type ${a.type}: ${a.detail}\nreply: ${a.reply}`,
  PW3031: (a: Args) => `the agent failed: ${a.detail}`,
  PW3032: (a: Args) => `${a.detail}`,
  PW3033: (a: Args) => `${a.detail}`,
  PW3034: (a: Args) => `${a.detail}`,
  PW3040: (a: Args) => `cannot import '${a.name}': ${a.detail}`,
  PW3041: (a: Args) => `unknown builtin module '${a.name}'`,
  PW3042: (a: Args) => `module '${a.module}' has no export '${a.name}'${a.hint ? `: ${a.hint}` : ""}`,
  PW3050: (a: Args) => `nothing to run: ${a.detail}`,
  PW3051: (a: Args) => `entry point '${a.name}' not found${a.detail ?? " (it must be a fun, worker, skill or task)"}`,
  PW3060: (a: Args) => `${a.feature} is not supported by this interpreter`,
  PW3062: (a: Args) => `no message on mailbox '${a.name}' within ${a.ms} ms`,
  PW3064: (a: Args) => `cannot copy ${a.what} to another worker: ${a.detail}`,
  PW3065: (a: Args) => `${a.detail}`,
  PW3070: (a: Args) => `recursion too deep (${a.detail ?? `more than ${a.limit} nested calls`})`,
  PW3071: (a: Args) => `step budget exceeded (${a.limit} steps)`,
  PW3072: (a: Args) => `time limit exceeded (${a.limit} ms)`,
  PW3073: (a: Args) => `value too large: ${a.detail}`,
} as const;

export type RuntimeCode = keyof typeof RUNTIME_MESSAGES;

/**
 * Codes that end the program even inside `try` or a `do` block: runaway protection, and a
 * replay that no longer matches its cassette (docs/replay.md: a replay never passes with
 * output the recording did not have).
 */
const FATAL: ReadonlySet<string> = new Set(["PW3032", "PW3033", "PW3034", "PW3070", "PW3071", "PW3072"]);

/** Whether errors of this code end the program even inside `try` (see FATAL). */
export function isFatalCode(code: string): boolean {
  return FATAL.has(code);
}

export class RuntimeError extends Error {
  readonly code: string;
  readonly span: Span;
  fileName: string;
  /** For `throw v`: the thrown value. */
  readonly thrown: Value | undefined;
  readonly fatal: boolean;
  constructor(code: string, message: string, span: Span, fileName: string, thrown?: Value) {
    super(message);
    this.name = "RuntimeError";
    this.code = code;
    this.span = span;
    this.fileName = fileName;
    this.thrown = thrown;
    this.fatal = FATAL.has(code);
  }
}

/** What `catch e` binds for a runtime error: `{message, line, column}`. */
export function errorObject(e: RuntimeError): Value {
  if (e.thrown !== undefined) return e.thrown;
  return new Map<string, Value>([
    ["message", e.message],
    ["line", e.span.start.line],
    ["column", e.span.start.column],
  ]);
}

/** Why a top-level variable is undefined in a worker task (Runtime.statementsSkipped), for PW3002's `detail`. */
export const WORKER_SCOPE =
  "a worker does not see the file's top-level variables (its top-level statements do not run in a worker): pass the value as an argument, `worker w(value) { … }` called as `w(value)`";

/** Why a variable is undefined, when more can be said: the caller's `detail`, else the Patchwork form of a Python or JavaScript name. */
function undefinedDetail(a: Args): string {
  const detail = a.detail !== undefined && a.detail !== "" ? String(a.detail) : foreignName(String(a.name));
  return detail ? `: ${detail}` : "";
}

/** Current file name for errors; set by the interpreter while a module is compiled/run. */
export interface ErrorSite {
  fileName: string;
}

/** How a message names the value of a think run without an agent (`{__think_prompt: …}`). */
export const THINK_PROMPT = "a think's prompt";

/** Added to a message that names THINK_PROMPT: why a think has no answer. */
const NO_AGENT_NOTE =
  " (no agent is configured, so a think evaluates to {__think_prompt: …}, the prompt it would send, not to an answer: " +
  "run with --agent or PATCHWORK_AGENT, or test it with a scripted agent or a cassette)";

/** Whether `v` is what a think gives without an agent: an object whose only key is `__think_prompt`. */
export function isThinkPrompt(v: unknown): boolean {
  return v instanceof Map && v.size === 1 && v.has("__think_prompt");
}

/** The choke point: build a runtime error from a code and its parameters. */
export function runtimeError(code: RuntimeCode, span: Span, fileName: string, args: Args = {}): RuntimeError {
  let message = RUNTIME_MESSAGES[code](args);
  if (Object.values(args).some((a) => typeof a === "string" && a.includes(THINK_PROMPT))) message += NO_AGENT_NOTE;
  return new RuntimeError(code, message, span, fileName);
}

export function raise(code: RuntimeCode, span: Span, fileName: string, args: Args = {}): never {
  throw runtimeError(code, span, fileName, args);
}

/** `runParsed`: `run()` on an AST, with no parser (see interpreter-core.ts). */
import type { Diagnostic, Program } from "@patchwork/parser";
import type { EntryArgs } from "./entries.js";
import { RuntimeError } from "./errors.js";
import { InterpreterCore, runtimeDiagnostic, type InterpreterOptions } from "./interpreter-core.js";
import type { ParseFn } from "./modules.js";
import type { JsonValue } from "./ports.js";
import { isStackOverflow, type Runtime } from "./runtime.js";
import { fromJson, toJson } from "./values.js";

export interface RunOptions extends InterpreterOptions {
  /** Used in diagnostics and to resolve imports; a `.json` name selects the Threadbare loader. */
  fileName?: string;
  /**
   * Item to run instead of `__main__` / `main` / the file's one skill (after the top-level
   * statements): a name, `Trait.method`, or a `@skill` / `@command` name.
   */
  entry?: string;
  /** Arguments for the entry, as data. */
  args?: JsonValue[];
  /** The entry is called from outside (an MCP tool call): `args` are checked against its parameter types (PW3065), its value against its return type (PW3004). */
  checkTypes?: boolean;
  /** Arguments for the entry as text (`patchwork run file.pw entry a b --arg c=1`), converted to its parameter types. */
  argStrings?: EntryArgs;
  /** False: run only the entry, not the top-level statements (a worker task). Default true. */
  statements?: boolean;
  /**
   * The program already parsed (the AST of `source`): no parse. A worker thread gets its
   * file's AST this way instead of building the parser again.
   */
  program?: Program;
  /** `entry` may be the default entry's first argument instead (see MainOptions). */
  entryMayBeArgument?: boolean;
}

export interface RunResult {
  /** The program's value: the entry point's result or the last top-level expression, as JSON. */
  value: JsonValue;
  /** Everything the program printed to its output. */
  output: string;
  /** Parse diagnostics (errors and warnings) and the runtime error, if any. */
  diagnostics: Diagnostic[];
  /** True when there was no error. */
  ok: boolean;
  /** The value of an uncaught `throw`, as data (absent otherwise). */
  thrown?: JsonValue;
  /**
   * The entry the run called, when it called one: then `value` is that entry's return value,
   * which hosts show after the output (`entryResultText`). Absent when only statements ran.
   */
  entry?: string;
}

/**
 * Runs a program already parsed (`program` and its parse `diagnostics`; null after a failed
 * load), parsing the modules it imports with `parseModule`: `run()` without the parser, for
 * callers that hold ASTs (the CLI's parse cache). Never throws for user errors.
 */
export function runParsed(
  program: Program | null,
  diagnostics: readonly Diagnostic[],
  options: Omit<RunOptions, "program">,
  parseModule: ParseFn,
): RunResult {
  const fileName = options.fileName ?? "<input>";
  const diags: Diagnostic[] = diagnostics.map((d) => ({ ...d, fileName: d.fileName ?? fileName }));
  if (!program || diags.some((d) => d.severity === "error")) return { value: null, output: "", diagnostics: diags, ok: false };
  const interp = new InterpreterCore(options, parseModule);
  const rt = interp.runtime;
  const out: string[] = [];
  rt.captures.push(out);
  try {
    const value = interp.run(program, {
      fileName,
      entry: options.entry,
      args: options.args?.map(fromJson),
      argStrings: options.argStrings,
      checkTypes: options.checkTypes,
      statements: options.statements,
      entryMayBeArgument: options.entryMayBeArgument,
    });
    return { value: toJson(value), output: out.join(""), diagnostics: diags, ok: true, ...entryOf(rt) };
  } catch (caught) {
    return failedRun(rt, caught, program, fileName, diags, out);
  } finally {
    rt.captures.length = 0;
    interp.finish();
  }
}

/** `{entry}` when the run called an entry (its value is the result), else nothing. */
export function entryOf(rt: Runtime): { entry?: string } {
  return rt.entryRan === null ? {} : { entry: rt.entryRan };
}

/**
 * The result of a program that threw: its error as a diagnostic (an engine stack overflow or
 * RangeError, which the program's value conversion can raise outside any node too, positioned
 * at the program), the output so far, and the thrown value when it can be copied.
 */
export function failedRun(rt: Runtime, caught: unknown, program: Program, fileName: string, diags: Diagnostic[], out: string[]): RunResult {
  const e = isStackOverflow(caught)
    ? rt.stackOverflow(program.span, fileName)
    : caught instanceof RangeError
      ? rt.fromRangeError(caught, program.span, fileName)
      : caught;
  if (!(e instanceof RuntimeError)) {
    const message = `internal error: ${e instanceof Error ? e.message : String(e)}`;
    diags.push({ code: "PW3099", severity: "error", message, span: program.span, fileName });
  } else diags.push(runtimeDiagnostic(e));
  const result: RunResult = { value: null, output: out.join(""), diagnostics: diags, ok: false };
  if (e instanceof RuntimeError && e.thrown !== undefined) {
    try {
      result.thrown = toJson(e.thrown);
    } catch {
      /* nested too deeply to copy: the message says what it was */
    }
  }
  return result;
}


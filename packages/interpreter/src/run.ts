/** `run(source, options)`: parse (or load Threadbare JSON), run, collect output and diagnostics. */
import type { Diagnostic, Program } from "@patchwork/parser";
import { loadThreadbare, parse } from "@patchwork/parser";
import { RuntimeError } from "./errors.js";
import { Interpreter, runtimeDiagnostic, type InterpreterOptions } from "./interpreter.js";
import type { JsonValue } from "./ports.js";
import { isStackOverflow, type Runtime } from "./runtime.js";
import { fromJson, toJson } from "./values.js";
import type { EntryArgs } from "./entries.js";
import type { MainOptions } from "./modules.js";

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
}

function load(source: string, fileName: string): { program: Program | null; diagnostics: Diagnostic[] } {
  return fileName.endsWith(".json") ? loadThreadbare(source, { fileName }) : parse(source, { fileName });
}

/** Runs a program. Never throws for user errors: they come back as diagnostics. */
export function run(source: string, options: RunOptions = {}): RunResult {
  const fileName = options.fileName ?? "<input>";
  const { program, diagnostics } = options.program ? { program: options.program, diagnostics: [] } : load(source, fileName);
  const diags: Diagnostic[] = diagnostics.map((d) => ({ ...d, fileName: d.fileName ?? fileName }));
  if (!program || diags.some((d) => d.severity === "error")) return { value: null, output: "", diagnostics: diags, ok: false };
  const interp = new Interpreter(options);
  const rt = interp.runtime;
  const out: string[] = [];
  rt.captures.push(out);
  try {
    const value = interp.run(program, {
      fileName,
      entry: options.entry,
      args: options.args?.map(fromJson),
      argStrings: options.argStrings,
      statements: options.statements,
      entryMayBeArgument: options.entryMayBeArgument,
    });
    return { value: toJson(value), output: out.join(""), diagnostics: diags, ok: true };
  } catch (caught) {
    return failedRun(rt, caught, program, fileName, diags, out);
  } finally {
    rt.captures.length = 0;
    interp.finish();
  }
}

/**
 * The result of a program that threw: its error as a diagnostic (an engine stack overflow or
 * RangeError, which the program's value conversion can raise outside any node too, positioned
 * at the program), the output so far, and the thrown value when it can be copied.
 */
function failedRun(rt: Runtime, caught: unknown, program: Program, fileName: string, diags: Diagnostic[], out: string[]): RunResult {
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

/** A REPL session: each program continues the ones run before it in the session. */
export interface Session {
  /**
   * Runs the next program (see `Interpreter.continueWith`); with `main`, then the entry it names
   * or the program's default entry. Never throws for user errors.
   */
  run(source: string, options?: { fileName?: string; main?: MainOptions }): RunResult;
}

export function createSession(options: InterpreterOptions = {}): Session {
  const interp = new Interpreter(options);
  return {
    run(source, runOptions = {}) {
      const fileName = runOptions.fileName ?? "<input>";
      const { program, diagnostics } = load(source, fileName);
      const diags: Diagnostic[] = diagnostics.map((d) => ({ ...d, fileName: d.fileName ?? fileName }));
      if (!program || diags.some((d) => d.severity === "error")) return { value: null, output: "", diagnostics: diags, ok: false };
      const rt = interp.runtime;
      const out: string[] = [];
      rt.captures.push(out);
      try {
        const value = interp.continueWith(program, fileName, runOptions.main);
        return { value: toJson(value), output: out.join(""), diagnostics: diags, ok: true };
      } catch (caught) {
        return failedRun(rt, caught, program, fileName, diags, out);
      } finally {
        rt.captures.length = 0;
      }
    },
  };
}

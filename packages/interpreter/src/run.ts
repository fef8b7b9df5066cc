/** `run(source, options)`: parse (or load Threadbare JSON), run, collect output and diagnostics. */
import type { Diagnostic, Program } from "@patchwork/parser";
import { loadThreadbare, parse } from "@patchwork/parser";
import { Interpreter, parseModule, type InterpreterOptions } from "./interpreter.js";
import { entryOf, failedRun, runParsed, type RunOptions, type RunResult } from "./run-parsed.js";
import { toJson } from "./values.js";
import type { MainOptions } from "./modules.js";

export { runParsed, type RunOptions, type RunResult } from "./run-parsed.js";

function load(source: string, fileName: string): { program: Program | null; diagnostics: Diagnostic[] } {
  return fileName.endsWith(".json") ? loadThreadbare(source, { fileName }) : parse(source, { fileName });
}

/** Runs a program. Never throws for user errors: they come back as diagnostics. */
export function run(source: string, options: RunOptions = {}): RunResult {
  const fileName = options.fileName ?? "<input>";
  const { program, diagnostics } = options.program ? { program: options.program, diagnostics: [] } : load(source, fileName);
  return runParsed(program, diagnostics, { ...options, fileName }, parseModule);
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
      rt.entryRan = null;
      try {
        const value = interp.continueWith(program, fileName, runOptions.main);
        return { value: toJson(value), output: out.join(""), diagnostics: diags, ok: true, ...entryOf(rt) };
      } catch (caught) {
        return failedRun(rt, caught, program, fileName, diags, out);
      } finally {
        rt.captures.length = 0;
      }
    },
  };
}

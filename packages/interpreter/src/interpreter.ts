/**
 * The Interpreter: one program run with its ports and limits. `run()` (run.ts) wraps it
 * with parsing and diagnostics; embedders that already hold an AST use it directly.
 */
import { parse } from "@patchwork/parser";
import { importedModule, InterpreterCore, type InterpreterOptions } from "./interpreter-core.js";
import type { ParseFn } from "./modules.js";

export { runtimeDiagnostic, type InterpreterOptions } from "./interpreter-core.js";

/** Parses an imported module; the first error (if any) becomes the import's failure text. */
export const parseModule: ParseFn = (source, fileName) => importedModule(parse(source, { fileName }), fileName);

/** The interpreter, parsing imported modules and worker files with the parser. */
export class Interpreter extends InterpreterCore {
  constructor(options: InterpreterOptions = {}) {
    super(options, parseModule);
  }
}

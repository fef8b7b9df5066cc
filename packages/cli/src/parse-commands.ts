import { astToJson, hasErrors } from "@patchwork/parser";
import { renderDiagnostics } from "./files.js";
import { loadFile } from "./load-file.js";
import type { Terminal } from "./terminal.js";

/** `patchwork parse FILE`: the AST as JSON on stdout, or the errors on stderr (exit 1). */
export function parseCommand(file: string, term: Terminal): number {
  const { source, program, diagnostics } = loadFile(file);
  if (diagnostics.length > 0) term.stderr(renderDiagnostics(diagnostics, source));
  if (hasErrors(diagnostics)) return 1;
  term.stdout(astToJson(program) + "\n");
  return 0;
}

import { CachingResolver, checkSource } from "@patchwork/analysis";
import { hasErrors, SourceFile, type Diagnostic } from "@patchwork/parser";
import { isThreadbare, loadFile, readSource, renderDiagnostics } from "./files.js";
import type { Terminal } from "./terminal.js";

/**
 * `patchwork check FILE...`: parse errors and the static checks of @patchwork/analysis (the
 * language server's diagnostics: same codes, same messages). Threadbare files are only loaded.
 * Exit 1 if any file has an error (warnings and hints do not count).
 */
export function checkCommand(files: readonly string[], term: Terminal): number {
  let status = 0;
  const resolver = new CachingResolver();
  for (const file of files) {
    let diagnostics: Diagnostic[];
    let source: SourceFile;
    if (isThreadbare(file)) {
      ({ source, diagnostics } = loadFile(file));
    } else {
      const text = readSource(file);
      source = new SourceFile(text, file);
      diagnostics = checkSource(text, { fileName: file, resolver });
    }
    if (diagnostics.length > 0) term.stderr(renderDiagnostics(diagnostics, source));
    if (hasErrors(diagnostics)) status = 1;
  }
  return status;
}

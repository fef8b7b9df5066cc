/** Diagnostics as the text a user (or a model) reads: positioned, with the source line (formatDiagnostic). */
import { readFileSync } from "node:fs";
import { formatDiagnostics, type Diagnostic, type SourceFile } from "@patchwork/parser/core";

/** Each diagnostic formatted against its file's source (`main`, else read from disk), one after another. */
export function diagnosticsText(diagnostics: readonly Diagnostic[], main: SourceFile): string {
  return formatDiagnostics(diagnostics, main, (file) => readFileSync(file, "utf8")).join("\n");
}

/** Diagnostics as the text a user (or a model) reads: positioned, with the source line (formatDiagnostic). */
import { readFileSync } from "node:fs";
import { formatDiagnostic, SourceFile, type Diagnostic } from "@patchwork/parser";

/** Each diagnostic formatted against its file's source (`main`, else read from disk), one after another. */
export function diagnosticsText(diagnostics: readonly Diagnostic[], main: SourceFile): string {
  const cache = new Map<string, SourceFile | undefined>([[main.fileName, main]]);
  const sourceOf = (fileName: string | undefined) => {
    const name = fileName ?? main.fileName;
    if (!cache.has(name)) {
      try {
        cache.set(name, new SourceFile(readFileSync(name, "utf8"), name));
      } catch {
        cache.set(name, undefined);
      }
    }
    return cache.get(name);
  };
  return diagnostics.map((d) => formatDiagnostic(d, sourceOf(d.fileName))).join("\n");
}

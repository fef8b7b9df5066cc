import type { Span } from "./ast.js";
import { SourceFile } from "./source.js";

/** `hint`: a static check's suggestion (e.g. an unused variable), never a failure. */
export type Severity = "error" | "warning" | "hint";

/**
 * A problem found in a program. `code` is stable (PW1xxx lexer, PW2xxx parser and loader,
 * PW3xxx runtime, PW4xxx agent; listed in docs/errors.md); `message` says what was expected
 * and what was found.
 */
export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  span: Span;
  /** The file the span refers to, when known. */
  fileName?: string;
}

/**
 * Render a diagnostic as `FILE:LINE:COL: error[CODE]: message`, then the source line and
 * a caret line under the span (only the part of the span on its first line). A span at line 0
 * means "no position": `FILE: error[CODE]: message` alone.
 */
export function formatDiagnostic(diagnostic: Diagnostic, source?: SourceFile): string {
  const file = diagnostic.fileName ?? source?.fileName ?? "<input>";
  const { line, column } = diagnostic.span.start;
  // Line 0: an error of the run, not of a place in the program (an agent that failed to start).
  if (line < 1) return `${file}: ${diagnostic.severity}[${diagnostic.code}]: ${diagnostic.message}`;
  const head = `${file}:${line}:${column}: ${diagnostic.severity}[${diagnostic.code}]: ${diagnostic.message}`;
  if (!source || line < 1 || line > source.lineCount) return head;
  const text = source.lineText(line);
  const endColumn =
    diagnostic.span.end.line === line ? diagnostic.span.end.column : text.length + 1;
  const width = Math.max(1, endColumn - column);
  const gutter = String(line);
  const pad = " ".repeat(gutter.length);
  // Keep tabs in the padding so the caret lines up under tab-indented source.
  const lead = text.slice(0, column - 1).replace(/[^\t]/g, " ");
  return `${head}\n${gutter} | ${text}\n${pad} | ${lead}${"^".repeat(width)}`;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/**
 * Each diagnostic formatted (`formatDiagnostic`) against its own file's source: `main` for the
 * diagnostics of the main file (or without a file), any other file read once with `read`
 * (imported modules); a file that cannot be read gives the message without its source line.
 */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], main: SourceFile | undefined, read: (fileName: string) => string): string[] {
  const cache = new Map<string, SourceFile | undefined>();
  if (main) cache.set(main.fileName, main);
  const sourceOf = (fileName: string | undefined): SourceFile | undefined => {
    if (fileName === undefined) return main;
    if (!cache.has(fileName)) {
      try {
        cache.set(fileName, new SourceFile(read(fileName), fileName));
      } catch {
        cache.set(fileName, undefined);
      }
    }
    return cache.get(fileName);
  };
  return diagnostics.map((d) => formatDiagnostic(d, sourceOf(d.fileName)));
}

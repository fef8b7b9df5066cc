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

/** The most characters of a source line shown under a diagnostic: a window around its column. */
export const EXCERPT_MAX = 120;
/** The most characters of one line of a diagnostic's message. */
const MESSAGE_LINE_MAX = EXCERPT_MAX * 4;
const LONG_LINE = new RegExp(`[^\\n]{${MESSAGE_LINE_MAX + 1},}`, "g");
/** The most diagnostics shown per file; the rest are counted ("… and K more"). */
export const DIAGNOSTICS_SHOWN_PER_FILE = 50;

/**
 * Render a diagnostic as `FILE:LINE:COL: error[CODE]: message`, then the source line and
 * a caret line under the span (only the part of the span on its first line). A span at line 0
 * means "no position": `FILE: error[CODE]: message` alone. A line longer than `EXCERPT_MAX` is
 * shown as a window around the column, its cut ends marked `…`, so that many diagnostics on one
 * long line cost their windows, not the line each time. Each line of a message is cut at
 * `EXCERPT_MAX * 4` characters (a message of several lines, such as PW3032's diff, bounds its own count).
 */
export function formatDiagnostic(diagnostic: Diagnostic, source?: SourceFile): string {
  const file = diagnostic.fileName ?? source?.fileName ?? "<input>";
  const { line, column } = diagnostic.span.start;
  const message = diagnostic.message.length <= MESSAGE_LINE_MAX ? diagnostic.message : diagnostic.message.replace(LONG_LINE, (line) => `${line.slice(0, MESSAGE_LINE_MAX)}…`);
  // Line 0: an error of the run, not of a place in the program (an agent that failed to start).
  if (line < 1) return `${file}: ${diagnostic.severity}[${diagnostic.code}]: ${message}`;
  const head = `${file}:${line}:${column}: ${diagnostic.severity}[${diagnostic.code}]: ${message}`;
  if (!source || line < 1 || line > source.lineCount) return head;
  const { text, from, cutStart, cutEnd } = excerpt(source, line, column);
  const endColumn = diagnostic.span.end.line === line ? diagnostic.span.end.column : from + text.length + 1;
  const width = Math.max(1, Math.min(endColumn, from + text.length + 1) - Math.max(column, from + 1));
  const gutter = String(line);
  const pad = " ".repeat(gutter.length);
  const shown = `${cutStart ? "…" : ""}${text}${cutEnd ? "…" : ""}`;
  // Keep tabs in the padding so the caret lines up under tab-indented source.
  const lead = (cutStart ? " " : "") + text.slice(0, Math.max(0, column - 1 - from)).replace(/[^\t]/g, " ");
  return `${head}\n${gutter} | ${shown}\n${pad} | ${lead}${"^".repeat(width)}`;
}

/** The part of a line shown: all of it, or `EXCERPT_MAX` characters from a little before the column (`from`: its 0-based start). */
function excerpt(source: SourceFile, line: number, column: number): { text: string; from: number; cutStart: boolean; cutEnd: boolean } {
  const length = source.lineLength(line);
  if (length <= EXCERPT_MAX) return { text: source.lineText(line), from: 0, cutStart: false, cutEnd: false };
  const from = Math.max(0, Math.min(column - 1 - EXCERPT_MAX / 4, length - EXCERPT_MAX));
  const text = source.lineText(line, from, from + EXCERPT_MAX);
  return { text, from, cutStart: from > 0, cutEnd: from + EXCERPT_MAX < length };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/**
 * Each diagnostic formatted (`formatDiagnostic`) against its own file's source: `main` for the
 * diagnostics of the main file (or without a file), any other file read once with `read`
 * (imported modules); a file that cannot be read gives the message without its source line.
 * At most `DIAGNOSTICS_SHOWN_PER_FILE` per file, then one line `FILE: … and K more`.
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
  const shown = new Map<string, number>();
  const out: string[] = [];
  for (const d of diagnostics) {
    const file = d.fileName ?? main?.fileName ?? "<input>";
    const n = (shown.get(file) ?? 0) + 1;
    shown.set(file, n);
    if (n <= DIAGNOSTICS_SHOWN_PER_FILE) out.push(formatDiagnostic(d, sourceOf(d.fileName)));
  }
  for (const [file, n] of shown)
    if (n > DIAGNOSTICS_SHOWN_PER_FILE) out.push(`${file}: … and ${n - DIAGNOSTICS_SHOWN_PER_FILE} more (${n} diagnostics in all; the first ${DIAGNOSTICS_SHOWN_PER_FILE} are shown)`);
  return out;
}

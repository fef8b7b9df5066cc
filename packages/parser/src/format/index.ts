/** `format(source)`: the canonical layout of a Patchwork program (see print.ts). */
import type { Diagnostic } from "../diagnostics.js";
import { hasErrors } from "../diagnostics.js";
import { parse } from "../parse.js";
import { Codes } from "../parser/errors.js";
import { SourceFile } from "../source.js";
import { render } from "./doc.js";
import { Printer } from "./print.js";

export interface FormatOptions {
  /** Line width groups (calls, arrays, objects) try to fit in. Default 100. */
  width?: number;
}

export type FormatResult = { ok: true; text: string } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Formats a program. A program with syntax errors is not formatted (its diagnostics are
 * returned): the formatter never guesses at broken code.
 */
export function format(source: string, options: FormatOptions = {}): FormatResult {
  const r = parse(source);
  if (hasErrors(r.diagnostics)) return { ok: false, diagnostics: r.diagnostics };
  const printer = new Printer(source, r.comments);
  const body = render(printer.program(r.program), options.width ?? 100);
  if (!printer.allCommentsPrinted()) {
    const d: Diagnostic = { code: Codes.formatterComment, severity: "error", message: "the formatter could not place a comment (please report this)", span: new SourceFile(source).span(0, 0) };
    return { ok: false, diagnostics: [d] };
  }
  return { ok: true, text: body.length > 0 ? body + "\n" : "" };
}
